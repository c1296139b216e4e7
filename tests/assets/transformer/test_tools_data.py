"""The data tools (iot, wo, fmsr, tsfm) on a small seeded fleet, checked against its documents."""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest
import yaml

from assets.transformer.simulator import FleetSpec, simulate_fleet
from generator.assetdef import ASSETS_DIR, load_asset_class
from generator.config import StoreSettings
from generator.errors import UserError
from generator.store.couch import CouchClient
from generator.store.query import META_FIELDS
from generator.store.seed import seed
from generator.tools import registry
from generator.tools import timeseries as ts
from generator.tools import workorders as wo
from generator.tools.registry import TOOLS, ToolArgumentError, ToolContext, call_tool, tools_for

ASSET = load_asset_class("transformer")
SPEC = FleetSpec(seed=3, sites=2, units_per_site=2, days=21)
FLEET = simulate_fleet(SPEC).docs
WOS = [d for d in FLEET["workorders"] if d.get("dataset") == "wo_events"]
ALERTS = [d for d in FLEET["workorders"] if d.get("dataset") == "alert_events"]
IDS = sorted(p["asset_id"] for p in FLEET["nameplate"])


# -- pure: the Markov estimate and alert matching, counted by hand ----------------------


def test_markov_estimate_from_hand_counted_transitions() -> None:
    # own A B A C A: A→B, B→A, A→C, C→A, so n[A] = {B: 1, C: 1}; other unit A B B: f adds
    # A→B, B→B, so f[A] = {B: 2, C: 1}. Codes {A, B, C, D}: q(·|A) = (f + 1) / (3 + 4) =
    # A 1/7, B 3/7, C 2/7, D 1/7; P = (n + q) / (2 + 1) = A 1/21, B 10/21, C 9/21, D 1/21.
    own = ["A", "B", "A", "C", "A"]
    est = wo.predict_next_code(own, [own, ["A", "B", "B"]], ["A", "B", "C", "D"])
    assert est.last_code == "A" and est.predicted_code == "B"
    assert est.probabilities == pytest.approx({"A": 1 / 21, "B": 10 / 21, "C": 9 / 21, "D": 1 / 21})
    assert est.own_counts == {"B": 1, "C": 1} and est.fleet_counts == {"B": 2, "C": 1}


def test_markov_ties_go_to_the_code_that_sorts_first() -> None:
    own = ["X", "Z", "X", "Y", "X"]  # n[X] = {Z: 1, Y: 1}; equal prior → P(Y) = P(Z) = 1.4/3
    est = wo.predict_next_code(own, [own], [])
    assert est.probabilities["Y"] == pytest.approx(est.probabilities["Z"]) == pytest.approx(1.4 / 3)
    assert est.predicted_code == "Y"


def test_alerts_match_the_first_work_order_within_the_horizon() -> None:
    matches = wo.match_alerts(
        ["2026-06-01T00:00:00", "2026-06-10T00:00:00"],
        ["2026-06-20T00:00:00", "2026-06-01T12:00:00"],
        within_days=7,
    )
    assert [(m.wo_index, m.lead_hours) for m in matches] == [(1, 12.0), (None, None)]


# -- store-backed -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def ctx(couch_server: str) -> Iterator[ToolContext]:
    """One seeded fleet for the module and a tool context reading it."""
    settings = StoreSettings(
        url=couch_server,
        username=os.environ.get("COUCHDB_USERNAME") or None,
        password=os.environ.get("COUCHDB_PASSWORD") or None,
        db_prefix=f"t{uuid.uuid4().hex[:8]}_",
        external=False,
    )
    with CouchClient(settings) as client:
        seed(client, ASSET, SPEC, prefix=settings.db_prefix)
    registry.load_tools()
    context = ToolContext(ASSET, settings)
    yield context
    context.close()


async def run(ctx: ToolContext, name: str, **args: Any) -> dict[str, Any]:
    out = await call_tool(name, args, ctx)
    return out.model_dump()


async def test_sites_assets_and_sensors(ctx: ToolContext) -> None:
    assert (await run(ctx, "sites"))["sites"] == ["NORTH", "SOUTH"]
    north = await run(ctx, "assets", site_name="NORTH")
    assert [a["asset_id"] for a in north["assets"]] == ["NORTH-TX01", "NORTH-TX02"]
    assert north["assets"][0]["nameplate"]["rated_mva"] == next(
        p["rated_mva"] for p in FLEET["nameplate"] if p["asset_id"] == "NORTH-TX01"
    )
    out = await run(ctx, "sensors", site_name="NORTH", asset_id="NORTH-TX01")
    doc = next(d for d in FLEET["telemetry"] if d["asset_id"] == "NORTH-TX01")
    assert [s["name"] for s in out["sensors"]] == sorted(set(doc) - META_FIELDS)
    oti = next(s for s in out["sensors"] if s["name"] == "oti")
    assert oti["unit"] == "degC"
    assert "hydrogen" in [s["name"] for s in out["oil_sample_sensors"]]


async def test_history_window_matches_the_documents(ctx: ToolContext) -> None:
    aid = "SOUTH-TX02"
    out = await run(
        ctx,
        "history",
        site_name="SOUTH",
        asset_id=aid,
        start="2026-06-03",
        final="2026-06-04T00:00",
        sensors=["oti", "wti"],
    )
    assert out["start"] == "2026-06-03T00:00:00" and out["final"] == "2026-06-04T00:00:00"
    want = [
        {"timestamp": d["timestamp"], "oti": d["oti"], "wti": d["wti"]}
        for d in FLEET["telemetry"]
        if d["asset_id"] == aid and "2026-06-03" <= d["timestamp"] < "2026-06-04"
    ]
    assert out["count"] == 24 and out["records"] == want
    full = await run(ctx, "history", site_name="SOUTH", asset_id=aid, start="2026-06-20")
    assert full["count"] == 48 and len(full["records"][0]) == 1 + len(ASSET.sensors_of("telemetry"))
    oil = await run(ctx, "oil_samples", site_name="SOUTH", asset_id=aid, start="2026-06-01")
    assert oil["count"] == sum(1 for d in FLEET["oil_samples"] if d["asset_id"] == aid) > 0


@pytest.mark.parametrize(
    ("args", "bad", "valid"),
    [
        ({"site_name": "NORHT", "asset_id": "NORTH-TX01"}, "'NORHT'", "NORTH, SOUTH"),
        ({"site_name": "NORTH", "asset_id": "SOUTH-TX01"}, "at site 'SOUTH'", "NORTH-TX01"),
        ({"site_name": "NORTH", "asset_id": "NORTH-TX01", "sensors": ["otii"]}, "'otii'", "oti"),
    ],
)
async def test_bad_site_asset_or_sensor_names_the_value_and_the_valid_ones(
    ctx: ToolContext, args: dict[str, Any], bad: str, valid: str
) -> None:
    with pytest.raises(UserError) as err:
        await run(ctx, "history", start="2026-06-02", **args)
    assert bad in str(err.value) and valid in str(err.value)


async def test_bad_argument_types_and_unknown_tools(ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError, match="'start'"):
        await run(ctx, "history", site_name="NORTH", asset_id="NORTH-TX01", start=20260602)
    with pytest.raises(ToolArgumentError, match="'start_date'"):
        await run(ctx, "get_work_orders", equipment_id="NORTH-TX01", start_date="June 2nd")
    with pytest.raises(ToolArgumentError, match="'bogus'"):
        await run(ctx, "sites", bogus=1)
    with pytest.raises(UserError, match="did you mean 'history'"):
        TOOLS.get("histroy")
    with pytest.raises(UserError, match="empty time window"):
        await run(
            ctx,
            "history",
            site_name="NORTH",
            asset_id="NORTH-TX01",
            start="2026-06-05",
            final="2026-06-02",
        )


async def test_work_orders_events_codes_and_distribution(ctx: ToolContext) -> None:
    for aid in IDS:
        mine = [d for d in WOS if d["equipment_id"] == aid]
        out = await run(ctx, "get_work_orders", equipment_id=aid)
        assert [o["wo_id"] for o in out["work_orders"]] == [
            d["wo_id"] for d in sorted(mine, key=lambda d: d["reported_date"])
        ]
        pm = await run(ctx, "get_preventive_work_orders", equipment_id=aid)
        cm = await run(ctx, "get_corrective_work_orders", equipment_id=aid)
        assert pm["count"] == sum(d["wo_type"] == "preventive" for d in mine)
        assert pm["count"] + cm["count"] == out["count"] == len(mine)
        dist = await run(ctx, "get_work_order_distribution", equipment_id=aid)
        assert dist["by_primary_code"] == dict(Counter(d["primary_code"] for d in mine))
        assert dist["by_type"] == {"preventive": pm["count"], "corrective": cm["count"]}
        events = await run(ctx, "get_events", equipment_id=aid, start_date="2026-06-01")
        want = [
            d
            for d in FLEET["workorders"]
            if d.get("dataset") == "events" and d["equipment_id"] == aid
        ]
        assert events["count"] == len(want)
    window = await run(ctx, "get_work_orders", equipment_id="NORTH-TX01", end_date="2026-06-05")
    assert all(o["reported_date"] < "2026-06-05" for o in window["work_orders"])
    codes = await run(ctx, "get_failure_codes")
    assert [c["code"] for c in codes["failure_codes"]] == sorted(
        d["code"] for d in FLEET["workorders"] if d.get("dataset") == "failure_codes"
    )
    with pytest.raises(UserError, match=r"unknown asset 'NORTH-TX09'.*NORTH-TX01"):
        await run(ctx, "get_work_orders", equipment_id="NORTH-TX09")


async def test_predict_next_work_order_uses_the_documented_estimate(ctx: ToolContext) -> None:
    seqs = {
        e: [
            d["primary_code"]
            for d in sorted(
                (d for d in WOS if d["equipment_id"] == e),
                key=lambda d: (d["reported_date"], d["wo_id"]),
            )
        ]
        for e in IDS
    }
    codes = [d["code"] for d in FLEET["workorders"] if d.get("dataset") == "failure_codes"]
    for aid in IDS:
        out = await run(ctx, "predict_next_work_order", equipment_id=aid)
        est = wo.predict_next_code(seqs[aid], [seqs[e] for e in IDS if seqs[e]], codes)
        assert out["history"] == seqs[aid]
        assert out["predicted_code"] == est.predicted_code
        assert out["probabilities"] == pytest.approx(est.probabilities)
        assert sum(out["probabilities"].values()) == pytest.approx(1.0)
        assert out["fleet_transitions_from_last"] == est.fleet_total
    with pytest.raises(UserError, match="no work orders"):
        await run(ctx, "predict_next_work_order", equipment_id=IDS[0], end_date="2026-06-02")


async def test_alert_to_failure_matches_corrective_orders_within_n_days(ctx: ToolContext) -> None:
    aid = Counter(a["equipment_id"] for a in ALERTS).most_common(1)[0][0]
    out = await run(ctx, "analyze_alert_to_failure", equipment_id=aid)
    mine = sorted((a for a in ALERTS if a["equipment_id"] == aid), key=lambda a: a["start_time"])
    cms = [d for d in WOS if d["equipment_id"] == aid and d["wo_type"] == "corrective"]
    followed = 0
    for link, alert in zip(out["links"], mine, strict=True):
        at = datetime.fromisoformat(alert["start_time"])
        after = sorted(
            d["reported_date"]
            for d in cms
            if at < datetime.fromisoformat(d["reported_date"]) <= at + timedelta(days=7)
        )
        assert link["alert_time"] == alert["start_time"]
        if after:
            followed += 1
            lead = (datetime.fromisoformat(after[0]) - at).total_seconds() / 3600
            assert link["lead_time_hours"] == pytest.approx(lead)
        else:
            assert link["wo_id"] is None
    assert out["alerts"] == len(mine) > 0 and out["followed"] == followed
    assert out["share_followed"] == pytest.approx(followed / len(mine))


async def test_failure_modes_and_mapping_come_from_asset_yaml(ctx: ToolContext) -> None:
    raw = yaml.safe_load((ASSETS_DIR / "transformer" / "asset.yaml").read_text())
    want = {fm["id"]: fm["sensors"] for fm in raw["failure_modes"]}
    modes = await run(ctx, "get_failure_modes", asset_name="transformer")
    assert [m["id"] for m in modes["failure_modes"]] == list(want)
    by_id = await run(ctx, "get_failure_modes", asset_name="SOUTH-TX01")
    assert by_id["asset_class"] == "transformer" and by_id["asset_id"] == "SOUTH-TX01"
    mapping = await run(ctx, "get_failure_mode_sensor_mapping", asset_name="transformer")
    assert mapping["failure_mode_to_sensors"] == want
    some = await run(
        ctx,
        "get_failure_mode_sensor_mapping",
        asset_name="transformer",
        failure_modes=["overloading", "Partial discharge"],
        sensors=["oti", "hydrogen"],
    )
    assert some["failure_mode_to_sensors"] == {
        "overloading": ["oti"],
        "partial_discharge": ["hydrogen"],
    }
    assert some["sensor_to_failure_modes"] == {
        "oti": ["overloading"],
        "hydrogen": ["partial_discharge"],
    }
    with pytest.raises(UserError, match=r"unknown asset 'pump'.*transformer"):
        await run(ctx, "get_failure_modes", asset_name="pump")
    with pytest.raises(UserError, match=r"no failure mode 'melting'.*overloading"):
        await run(
            ctx,
            "get_failure_mode_sensor_mapping",
            asset_name="transformer",
            failure_modes=["melting"],
        )


async def test_tsad_and_forecasting_match_direct_computation(ctx: ToolContext) -> None:
    tasks = await run(ctx, "get_ai_tasks")
    assert {t["tool"] for t in tasks["tasks"]} == {"run_tsad", "run_tsfm_forecasting"}
    models = await run(ctx, "get_tsfm_models")
    assert {m["model_id"] for m in models["models"]} >= {"holt_winters", "seasonal_naive"}
    aid = "NORTH-TX01"
    docs = [d for d in FLEET["telemetry"] if d["asset_id"] == aid]
    y = np.array([d["oti"] for d in docs])
    hours = np.array([int(d["timestamp"][11:13]) for d in docs])
    weekdays = [datetime.fromisoformat(d["timestamp"]).weekday() for d in docs]
    out = await run(
        ctx, "run_tsad", site_name="NORTH", asset_id=aid, sensor="oti", start="2026-06-01"
    )
    found = ts.detect_anomalies(weekdays, hours, y, 3.5)
    assert [a["timestamp"] for a in out["anomalies"]] == [docs[i]["timestamp"] for i in found.index]
    assert out["n_points"] == len(docs) and out["gaps_filled"] == 0
    assert out["reference_points"] == len(docs)  # nothing stored before 2026-06-01
    # A later window: the two weeks before it join the reference (baseline_weeks = 2) and
    # are scored with it, but only window readings are reported.
    later = await run(
        ctx, "run_tsad", site_name="NORTH", asset_id=aid, sensor="oti",
        start="2026-06-15", final="2026-06-20", baseline_weeks=2, threshold=3.0,
    )
    ref = [d for d in docs if "2026-06-01" <= d["timestamp"] < "2026-06-20"]
    first = next(i for i, d in enumerate(ref) if d["timestamp"] >= "2026-06-15")
    direct = ts.detect_anomalies(
        [datetime.fromisoformat(d["timestamp"]).weekday() for d in ref],
        [int(d["timestamp"][11:13]) for d in ref],
        [d["oti"] for d in ref],
        3.0,
        score_from=first,
    )
    assert later["reference_start"] == "2026-06-01T00:00:00"
    assert later["reference_points"] == len(ref) and later["n_points"] == len(ref) - first
    assert [a["timestamp"] for a in later["anomalies"]] == [
        ref[i]["timestamp"] for i in direct.index
    ]
    assert all(a["timestamp"] >= "2026-06-15" for a in later["anomalies"])
    naive = await run(
        ctx,
        "run_tsfm_forecasting",
        site_name="NORTH",
        asset_id=aid,
        sensor="oti",
        start="2026-06-01",
        horizon_hours=30,
        method="seasonal_naive",
    )
    assert naive["values"] == pytest.approx(list(y[-24:]) + list(y[-24:-18]))
    assert naive["timestamps"][0] == "2026-06-22T00:00:00" and len(naive["timestamps"]) == 30
    hw = await run(
        ctx,
        "run_tsfm_forecasting",
        site_name="NORTH",
        asset_id=aid,
        sensor="oti",
        start="2026-06-01",
    )
    model = ts.fit_holt_winters(y)
    assert hw["values"] == pytest.approx(list(model.forecast(24)))
    assert (
        hw["in_sample_mae"] == pytest.approx(model.mae)
        and hw["in_sample_mae"] < naive["in_sample_mae"]
    )
    with pytest.raises(UserError, match="need at least 48"):
        await run(
            ctx,
            "run_tsad",
            site_name="NORTH",
            asset_id=aid,
            sensor="oti",
            start="2026-06-01",
            final="2026-06-02",
        )


def test_every_tool_has_a_description_and_schemas() -> None:
    # The data tools: the framework's generic modules plus the class's own oil_samples.
    asset = load_asset_class("transformer")
    mine = [
        s for s in tools_for("transformer").values()
        if s.fn.__module__.startswith("generator.tools.data_")
        or s.fn.__module__.endswith("tools_data")
    ]
    assert {t.domain for t in mine} == {"iot", "wo", "fmsr", "tsfm"}
    assert "oil_samples" in {t.name for t in mine}
    for spec in mine:
        schema = spec.schema(asset)
        assert spec.describe(asset) and schema["arguments"]["type"] == "object"
        assert "{asset" not in str(schema)
