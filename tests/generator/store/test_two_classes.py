"""Two asset classes in one store: seeding or dropping one leaves the other's data intact.

The transformer (the real class) and a tiny ``pump`` class (tests/fixtures/assets/pump)
share the work-order database ``workorder``; every other database is their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assets.transformer.simulator import FleetSpec, simulate_fleet
from generator.assetdef import AssetClass, load_asset_class
from generator.config import StoreSettings
from generator.store.couch import CouchClient
from generator.store.query import FleetStore
from generator.store.seed import database_names, read_marker, seed
from generator.store.snapshot import FleetSnapshot
from tests.fixtures.assets.pump.simulator import FleetSpec as PumpSpec
from tests.fixtures.assets.pump.simulator import simulate_fleet as simulate_pumps

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "assets"
TX = load_asset_class("transformer")
PUMP = load_asset_class("pump", FIXTURES)
TX_SPEC = FleetSpec(seed=3, sites=1, units_per_site=2, days=8)


def _ids(client: CouchClient, db: str) -> set[str]:
    return {i for i in client.all_doc_ids(db) if not i.startswith("_design/")}


def _seed_both(client: CouchClient, prefix: str) -> None:
    seed(client, TX, TX_SPEC, prefix=prefix)
    seed(client, PUMP, PumpSpec(), prefix=prefix, root=FIXTURES)


async def _work_orders(asset: AssetClass, settings: StoreSettings) -> list[dict[str, Any]]:
    store = FleetStore(asset, settings)
    try:
        return await store.work_orders()
    finally:
        store.close()


async def test_each_class_reads_only_its_own_documents(store_settings: StoreSettings) -> None:
    prefix = store_settings.db_prefix
    with CouchClient(store_settings) as client:
        _seed_both(client, prefix)
        tx_db, pump_db = database_names(TX, prefix), database_names(PUMP, prefix)
        # One physical work-order database; truth databases per class.
        assert tx_db["workorders"] == pump_db["workorders"] == prefix + "workorder"
        assert tx_db["truth"] == prefix + "scenariogen_truth_transformer"
        assert pump_db["truth"] == prefix + "scenariogen_truth_pump"
        # Every document written into the shared database names its class.
        shared = list(client.all_docs(tx_db["workorders"]))
        owners = {d["_id"]: d.get("asset_class") for d in shared}
        tx_expected = {d["_id"] for d in simulate_fleet(TX_SPEC).docs["workorders"]}
        pump_expected = {d["_id"] for d in simulate_pumps(PumpSpec()).docs["workorders"]}
        assert {i for i, o in owners.items() if o == "transformer"} == tx_expected
        assert {i for i, o in owners.items() if o == "pump"} == pump_expected

    tx_orders = await _work_orders(TX, store_settings)
    pump_orders = await _work_orders(PUMP, store_settings)
    # The pump fleet has two pumps with one corrective order each (fixture simulator).
    assert sorted(str(w["equipment_id"]) for w in pump_orders) == ["P-1", "P-2"]
    assert not any(str(w["equipment_id"]).startswith("P-") for w in tx_orders)
    n_tx = sum(1 for d in simulate_fleet(TX_SPEC).docs["workorders"]
               if d.get("dataset") == "wo_events")
    assert len(tx_orders) == n_tx and all("asset_class" not in w for w in tx_orders)

    snap_pump = await FleetSnapshot.aload(PUMP, store_settings)
    snap_tx = await FleetSnapshot.aload(TX, store_settings)
    assert [w["equipment_id"] for w in await snap_pump.work_orders()] == ["P-1", "P-2"]
    assert await snap_tx.work_orders() == tx_orders
    assert [c["code"] for c in await snap_pump.failure_codes()] == ["PM-SEAL"]
    assert "PM-SEAL" not in {c["code"] for c in await snap_tx.failure_codes()}
    inv = await snap_pump.inventory()
    assert [a.asset_id for a in inv.assets] == ["P-1", "P-2"]
    assert inv.assets[0].coverage["telemetry"].start == "2026-03-01T00:00:00"
    assert await snap_pump.records("telemetry", "P-1", None, "2026-03-01T02:00:00") == [
        {"asset_id": "P-1", "site_name": "PLANT", "timestamp": "2026-03-01T00:00:00",
         "flow": 100.0},
        {"asset_id": "P-1", "site_name": "PLANT", "timestamp": "2026-03-01T01:00:00",
         "flow": 101.0},
    ]


def test_dropping_one_class_leaves_the_other_intact(store_settings: StoreSettings) -> None:
    prefix = store_settings.db_prefix
    with CouchClient(store_settings) as client:
        _seed_both(client, prefix)
        tx_db, pump_db = database_names(TX, prefix), database_names(PUMP, prefix)
        before = {db: _ids(client, db) for db in set(tx_db.values())}
        tx_shared = {d["_id"] for d in simulate_fleet(TX_SPEC).docs["workorders"]}
        pump_shared = {d["_id"] for d in simulate_pumps(PumpSpec()).docs["workorders"]}

        # Re-seeding the pump fleet with --drop replaces only the pump's data.
        report = seed(client, PUMP, PumpSpec(units=1), prefix=prefix, replace=True,
                      root=FIXTURES)
        assert report.action == "seeded"
        after = {db: _ids(client, db) for db in set(tx_db.values())}
        assert after[tx_db["workorders"]] == tx_shared | {"pump:wo:P-1", "pump:fc:PM-SEAL"}
        for logical, db in tx_db.items():
            if logical != "workorders":
                assert after[db] == before[db], logical
        assert _ids(client, pump_db["truth"]) == {"pump:truth:P-1"}

        # Dropping the transformer: its own databases go, the pump's stay whole.
        from generator.store.seed import drop

        drop(client, TX, prefix)
        for logical, db in tx_db.items():
            if logical != "workorders":
                assert not client.db_exists(db), logical
        assert _ids(client, tx_db["workorders"]) == {"pump:wo:P-1", "pump:fc:PM-SEAL"}
        assert read_marker(client, "transformer", prefix) is None
        assert read_marker(client, "pump", prefix) is not None
        assert _ids(client, pump_db["telemetry"]) == {f"pump:P-1:{h}" for h in range(24)}
        assert _ids(client, pump_db["truth"]) == {"pump:truth:P-1"}
        assert pump_shared >= _ids(client, tx_db["workorders"])

        # ... and the transformer comes back without touching the pump's documents.
        seed(client, TX, TX_SPEC, prefix=prefix)
        assert _ids(client, tx_db["workorders"]) == tx_shared | {"pump:wo:P-1",
                                                                 "pump:fc:PM-SEAL"}

        # Once the last class leaves the shared database, the database goes too.
        drop(client, PUMP, prefix, FIXTURES)
        assert _ids(client, tx_db["workorders"]) == tx_shared
        drop(client, TX, prefix)
        assert not client.db_exists(tx_db["workorders"])
