"""Seeding (idempotent, resumable, guarded) and the query layer, on the real server."""

from __future__ import annotations

from typing import Any

import pytest

from assets.transformer.simulator import FleetSpec, simulate_fleet
from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import UserError
from generator.store.couch import CouchClient
from generator.store.query import FleetStore
from generator.store.seed import database_names, read_marker, seed

ASSET = load_asset_class("transformer")
SMALL = FleetSpec(seed=11, sites=2, units_per_site=2, days=14)


def _records(spec: FleetSpec) -> int:
    """Hourly records of a fleet: units x days x 24, less the injected data gaps' hours
    (each listed in the unit's truth document)."""
    truth = simulate_fleet(spec).docs["truth"]
    missing = sum(f["count"] for t in truth for f in t["sensor_faults"] if f["kind"] == "gap")
    return spec.sites * spec.units_per_site * spec.days * 24 - missing


def test_seed_is_idempotent_and_refuses_another_fleet(store_settings: StoreSettings) -> None:
    prefix = store_settings.db_prefix
    with CouchClient(store_settings) as client:
        first = seed(client, ASSET, SMALL, prefix=prefix)
        assert first.action == "seeded"
        assert first.written["telemetry"] == _records(SMALL)
        again = seed(client, ASSET, SMALL, prefix=prefix)
        assert again.action == "unchanged" and again.written == {}
        other = SMALL.model_copy(update={"seed": 12})
        with pytest.raises(UserError, match="--drop"):
            seed(client, ASSET, other, prefix=prefix)
        replaced = seed(client, ASSET, other, prefix=prefix, replace=True)
        assert replaced.action == "seeded"
        names = database_names(ASSET, prefix)
        assert client.doc_count(names["telemetry"]) == _records(other) + 2  # + 2 index ddocs


def test_interrupted_seed_is_refused_by_readers_then_resumed(
    store_settings: StoreSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = store_settings.db_prefix
    with CouchClient(store_settings) as client:
        real_bulk = client.bulk_docs
        calls = {"n": 0}

        def flaky(db: str, docs: Any) -> Any:
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt  # the user pressed Ctrl-C mid-seed
            return real_bulk(db, docs)

        monkeypatch.setattr(client, "bulk_docs", flaky)
        with pytest.raises(KeyboardInterrupt):
            seed(client, ASSET, SMALL, prefix=prefix)
        marker = read_marker(client, "transformer", prefix)
        assert marker is not None and marker["status"] == "in_progress"
        monkeypatch.setattr(client, "bulk_docs", real_bulk)

    store = FleetStore(ASSET, store_settings)
    with pytest.raises(UserError, match="interrupted seed"):
        store._inventory()

    with CouchClient(store_settings) as client:
        report = seed(client, ASSET, SMALL, prefix=prefix)
        assert report.action == "resumed"
        # Telemetry (one batch) was written before the interrupt; the oil batch was not.
        assert report.written["telemetry"] == 0
        assert report.written["oil_samples"] == report.total["oil_samples"]
        names = database_names(ASSET, prefix)
        expected = simulate_fleet(SMALL).docs
        for logical, docs in expected.items():
            assert client.all_doc_ids(names[logical]) >= {d["_id"] for d in docs}
    store.close()


async def test_query_layer_answers_from_the_store(store_settings: StoreSettings) -> None:
    prefix = store_settings.db_prefix
    with CouchClient(store_settings) as client:
        seed(client, ASSET, SMALL, prefix=prefix)
    fleet = simulate_fleet(SMALL).docs
    store = FleetStore(ASSET, store_settings)
    try:
        inv = await store.inventory()
        assert inv.sites == ["NORTH", "SOUTH"]
        assert [a.asset_id for a in inv.assets] == sorted(p["asset_id"] for p in fleet["nameplate"])
        first = inv.assets[0]
        assert first.telemetry.start == "2026-06-01T00:00:00"
        assert first.telemetry.end == "2026-06-14T23:00:00"
        assert {"oti", "wti", "il1", "vl12", "load_mva"} <= set(first.sensors)
        assert "timestamp" not in first.sensors and "_id" not in first.sensors

        aid = first.asset_id
        rows = await store.history(aid, "2026-06-03T00:00:00", "2026-06-04T00:00:00", ["oti"])
        assert len(rows) == 24
        assert [r["timestamp"] for r in rows] == sorted(r["timestamp"] for r in rows)
        expected = {d["timestamp"]: d["oti"] for d in fleet["telemetry"] if d["asset_id"] == aid}
        assert all(r["oti"] == expected[r["timestamp"]] for r in rows)
        assert set(rows[0]) == {"asset_id", "timestamp", "oti"}

        oil = await store.records("oil_sample", aid)
        assert len(oil) == sum(1 for d in fleet["oil_samples"] if d["asset_id"] == aid)

        orders = await store.work_orders(aid)
        want = [
            d
            for d in fleet["workorders"]
            if d.get("dataset") == "wo_events" and d["equipment_id"] == aid
        ]
        assert len(orders) == len(want) > 0
        preventive = await store.work_orders(aid, kind="preventive")
        assert preventive and all(
            o["preventive"] == "TRUE" and o["wo_type"] == "preventive" for o in preventive
        )
        assert len(preventive) == sum(o["wo_type"] == "preventive" for o in want)
        window = await store.work_orders(None, "2026-06-01", "2026-06-08")
        assert all("2026-06-01" <= o["reported_date"] < "2026-06-08" for o in window)
        codes = await store.failure_codes()
        assert {"TH-T3", "EL-D2", "PM-INSP"} <= {c["code"] for c in codes}
        truth = await store.ground_truth(aid)
        assert truth[0]["asset_id"] == aid
        with pytest.raises(UserError, match="unknown asset"):
            await store.nameplate("NOPE-TX99")
    finally:
        store.close()


async def test_reading_an_empty_store_says_to_seed(store_settings: StoreSettings) -> None:
    store = FleetStore(ASSET, store_settings)
    try:
        with pytest.raises(UserError, match="scenariogen env seed"):
            await store.inventory()
    finally:
        store.close()
