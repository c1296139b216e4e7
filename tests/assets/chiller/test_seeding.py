"""The chiller fleet seeds into the store beside the other class and reads back generically.

Both classes are seeded under one fresh prefix (the shared ``workorder`` database holds
both); the generic data tools, called with the chiller's context, see the chiller's sites,
assets, telemetry and work orders only, and the other class's reads are unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import assets.chiller.tools  # noqa: F401  (registers the chiller tools)
from assets.chiller.simulator import FleetSpec, simulate_fleet
from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.store.couch import CouchClient
from generator.store.seed import seed
from generator.tools.registry import ToolContext, call_tool, load_tools

SPEC = FleetSpec(seed=5, sites=2, units_per_site=2, days=20)


def _call(asset_class: str, settings: StoreSettings, name: str, **raw: Any) -> Any:
    async def go() -> Any:
        ctx = ToolContext(load_asset_class(asset_class), settings)
        try:
            return (await call_tool(name, raw, ctx)).model_dump(mode="json")
        finally:
            ctx.close()

    return asyncio.run(go())


@pytest.fixture(scope="module")
def both_seeded(settings_for: Any) -> StoreSettings:
    import uuid

    from assets.transformer.simulator import FleetSpec as OtherSpec

    settings: StoreSettings = settings_for(f"c{uuid.uuid4().hex[:8]}_")
    with CouchClient(settings) as client:
        seed(client, load_asset_class("transformer"), OtherSpec(seed=3, sites=1,
             units_per_site=1, days=7), prefix=settings.db_prefix)
        report = seed(client, load_asset_class("chiller"), SPEC, prefix=settings.db_prefix)
    assert report.action == "seeded"
    expected = {k: len(v) for k, v in simulate_fleet(SPEC).docs.items()}
    assert report.total == expected
    assert report.written == expected
    return settings


def test_sites_assets_and_history_read_the_chiller_fleet(both_seeded: StoreSettings) -> None:
    load_tools()
    sites = _call("chiller", both_seeded, "sites")["sites"]
    assert sites == ["MAIN", "PLANT2"]
    assets = _call("chiller", both_seeded, "assets", site_name="MAIN")["assets"]
    assert [a["asset_id"] for a in assets] == ["CH-MAIN-01", "CH-MAIN-02"]
    plate = assets[0]["nameplate"]
    assert plate["chiller_type"] == "centrifugal, water-cooled"
    assert plate["design_kw_per_ton"] > 0
    # 24 hourly records of the first day, every stored field back.
    hist = _call(
        "chiller", both_seeded, "history", site_name="MAIN", asset_id="CH-MAIN-01",
        start="2025-06-01T00:00:00", final="2025-06-02T00:00:00",
    )
    assert hist["count"] == 24
    first = hist["records"][0]
    assert first["timestamp"] == "2025-06-01T00:00:00"
    stored = simulate_fleet(SPEC).docs["telemetry"][0]
    for sensor in ("supply_temperature", "tonnage", "power_input", "percent_loaded"):
        assert first[sensor] == stored[sensor]
    # The other class still sees its own sites only.
    other = _call("transformer", both_seeded, "sites")["sites"]
    assert "MAIN" not in other and other


def test_work_orders_follow_the_alerts(both_seeded: StoreSettings) -> None:
    truth = {t["asset_id"]: t for t in simulate_fleet(SPEC).docs["truth"]}
    faulty = next(a for a, t in truth.items() if t["corrective_wo_ids"])
    site = truth[faulty]["site_name"]
    corrective = _call("chiller", both_seeded, "get_corrective_work_orders",
                       equipment_id=faulty)["work_orders"]
    assert [w["wo_id"] for w in corrective] == truth[faulty]["corrective_wo_ids"]
    # The first corrective order comes 24 h after the first alert, coded from its diagnosis.
    codes = {"condenser_fouling": "CH-CF", "evaporator_fouling": "CH-EF",
             "low_refrigerant_charge": "CH-LC", "compressor_overheating": "CH-OH",
             "sensor_drift": "CH-SD", "purge_problem": "CH-PP"}
    assert corrective[0]["primary_code"] == codes[truth[faulty]["first_alert_diagnosis"]]
    events = _call("chiller", both_seeded, "get_events", equipment_id=faulty)["events"]
    alerts = [e for e in events if e["event_group"] == "ALERT"]
    assert alerts and alerts[0]["event_time"] == truth[faulty]["first_alert"]
    assert site in {"MAIN", "PLANT2"}
    codes_listed = {c["code"] for c in _call("chiller", both_seeded,
                                             "get_failure_codes")["failure_codes"]}
    assert set(codes.values()) <= codes_listed


def test_diagnosis_of_a_stored_record_names_the_injected_fault(both_seeded: StoreSettings) -> None:
    # The last high-load record of a fully ramped faulty unit, read back through `history`,
    # diagnosed with the nameplate's design values (read by the tool from the store).
    truth = [t for t in simulate_fleet(SPEC).docs["truth"] if t["fault_mode"] != "none"]
    checked = 0
    for t in truth:
        hist = _call("chiller", both_seeded, "history", site_name=t["site_name"],
                     asset_id=t["asset_id"], start="2025-06-14T00:00:00")
        loaded = [r for r in hist["records"] if 70 <= r["percent_loaded"] < 95]
        if not loaded:
            continue
        r = loaded[-1]
        out = _call(
            "chiller", both_seeded, "diagnose_chiller_fault", asset_name=t["asset_id"],
            supply_temperature=r["supply_temperature"],
            evaporator_refrigerant_temperature=r["evaporator_refrigerant_temperature"],
            condenser_water_return_temperature=r["condenser_water_return_temperature"],
            condenser_refrigerant_temperature=r["condenser_refrigerant_temperature"],
            percent_loaded=r["percent_loaded"], setpoint_temperature=r["setpoint_temperature"],
            condenser_liquid_temperature=r["condenser_liquid_temperature"],
            discharge_temperature=r["discharge_temperature"],
        )
        assert out["design_source"] == "nameplate"
        assert t["fault_mode"] in out["findings"], (t, out)
        checked += 1
    assert checked == len(truth) >= 3
