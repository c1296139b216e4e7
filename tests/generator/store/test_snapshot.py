"""The per-run fleet snapshot answers FleetStore's queries exactly as the live store does."""

from __future__ import annotations

from typing import Any

import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import UserError
from generator.store.couch import CouchClient
from generator.store.query import FleetStore
from generator.store.seed import database_names
from generator.store.snapshot import FleetSnapshot, StoreChanged


async def _both(store: Any, snap: Any, method: str, *args: Any) -> tuple[Any, Any]:
    return await getattr(store, method)(*args), await getattr(snap, method)(*args)


async def test_every_query_matches_the_live_store(seeded_settings: StoreSettings) -> None:
    asset = load_asset_class("transformer")
    store = FleetStore(asset, seeded_settings)
    snap = await FleetSnapshot.aload(asset, seeded_settings)
    try:
        live_inv, snap_inv = await _both(store, snap, "inventory")
        assert snap_inv == live_inv
        for method in ("sites", "assets", "failure_codes", "ground_truth"):
            live, mine = await _both(store, snap, method)
            assert mine == live, method
            if method != "sites":
                assert [list(d) for d in mine] == [list(d) for d in live]
        ids = [a.asset_id for a in live_inv.assets]
        sites = live_inv.sites
        assert len(ids) == 6 and len(sites) == 2
        live_site, snap_site = await _both(store, snap, "assets", sites[1])
        assert snap_site == live_site and len(live_site) == 3
        for aid in [*ids, "NOPE-TX99"]:
            for method in ("sensors", "ground_truth", "nameplate_doc"):
                live, mine = await _both(store, snap, method, aid)
                assert mine == live, (method, aid)
            for source in ("telemetry", "oil_sample"):
                live, mine = await _both(store, snap, "time_range", aid, source)
                assert mine == live
        aid = ids[1]
        rng = (await store.time_range(aid)).model_dump()
        day = rng["start"][:10]
        # Windows: open, half-open, bounded, a bare date, empty, with and without sensors.
        windows: list[tuple[str | None, str | None]] = [
            (None, None), (f"{day}T05:00:00", None), (None, f"{day}T05:00:00"),
            (f"{day}T05:00:00", f"{day}T17:00:00"), ("2031-01-01", None), (day, day),
        ]
        for start, end in windows:
            for sensors in (None, ["oti"], ["wti", "load_mva", "no_such"]):
                live, mine = await _both(store, snap, "history", aid, start, end, sensors)
                assert mine == live, (start, end, sensors)
                # Same keys in the same order (answers are dumped as JSON in that order).
                assert [list(d) for d in mine] == [list(d) for d in live]
            for source in ("telemetry", "oil_sample"):
                live, mine = await _both(store, snap, "records", source, aid, start, end)
                assert mine == live and [list(d) for d in mine] == [list(d) for d in live]
        assert len(await snap.history(aid)) > 24 * 29
        for equipment in (None, aid, "NOPE-TX99"):
            for start, end in ((None, None), (f"{day}T05:00:00", None), (None, "2030-01-01")):
                for kind in ("all", "preventive", "corrective"):
                    live = await store.work_orders(equipment, start, end, kind)  # type: ignore[arg-type]
                    assert await snap.work_orders(equipment, start, end, kind) == live  # type: ignore[arg-type]
                for method in ("events", "alerts"):
                    live, mine = await _both(store, snap, method, equipment, start, end)
                    assert mine == live, (method, equipment, start, end)
        assert await snap.work_orders() and await snap.events() and await snap.alerts()
        with pytest.raises(UserError, match="unknown asset 'NOPE-TX99'"):
            await snap.nameplate("NOPE-TX99")
        assert await snap.nameplate(aid) == await store.nameplate(aid)
        await snap.verify_unchanged()  # nothing wrote to the store
    finally:
        store.close()


async def test_a_write_after_the_snapshot_fails_the_check(store_settings: StoreSettings) -> None:
    asset = load_asset_class("transformer")
    names = database_names(asset, store_settings.db_prefix)
    plate = {"_id": "A-TX01", "asset_id": "A-TX01", "site_name": "A", "rated_mva": 10.0}
    with CouchClient(store_settings) as client:
        for db in names.values():
            client.create_db(db)
        client.put(names["nameplate"], plate)
    snap = await FleetSnapshot.aload(asset, store_settings)
    assert await snap.sites() == ["A"]
    await snap.verify_unchanged()
    with CouchClient(store_settings) as client:
        client.put(names["telemetry"], {"_id": "t1", "asset_id": "A-TX01",
                                        "timestamp": "2026-01-01T00:00:00", "oti": 40.0})
    moved = r"store changed during the run \(update_seq of \w+_transformer moved\)"
    with pytest.raises(StoreChanged, match=moved):
        await snap.verify_unchanged()
    assert await snap.history("A-TX01") == []  # the snapshot itself stays as it was read


async def test_an_unseeded_store_is_one_clear_error(store_settings: StoreSettings) -> None:
    with pytest.raises(UserError, match="run `scenariogen env seed` first"):
        await FleetSnapshot.aload(load_asset_class("transformer"), store_settings)


async def test_plain_rows_and_readings_match_the_live_store(
    seeded_settings: StoreSettings,
) -> None:
    # The tools' fast paths over the snapshot (data_iot.plain_history, data_tsfm._readings)
    # against what they compute from the live store's history rows.
    import numpy as np

    from generator.tools.data_iot import plain_records
    from generator.tools.data_tsfm import _epoch_seconds

    asset = load_asset_class("transformer")
    store = FleetStore(asset, seeded_settings)
    snap = await FleetSnapshot.aload(asset, seeded_settings)
    try:
        inv = await store.inventory()
        aid = inv.assets[2].asset_id
        day = (await store.time_range(aid)).model_dump()["start"][:10]
        windows: list[tuple[str | None, str | None]] = [
            (None, None), (f"{day}T05:00:00", f"{day}T17:00:00"), ("2031-01-01", None),
        ]
        for start, end in windows:
            for sensors in (None, ["oti"], ["no_such"], ["timestamp"],
                            ["wti", "timestamp", "wti", "load_mva", "no_such"]):
                live = plain_records(await store.history(aid, start, end, sensors))
                mine = await snap.plain_history(aid, start, end, sensors)
                assert mine == live and [list(d) for d in mine] == [list(d) for d in live]
                assert start == "2031-01-01" or len(live) > 10
            for sensor in ("oti", "wti_a", "no_such"):
                rows = [d for d in await store.history(aid, start, end, [sensor])
                        if d.get(sensor) is not None]
                secs, values = await snap.readings(aid, sensor, start, end)
                assert secs.tolist() == _epoch_seconds([d["timestamp"] for d in rows])
                assert values.tolist() == [float(d[sensor]) for d in rows]
                assert values.dtype == np.float64
        assert await snap.plain_history("NOPE-TX99") == []
        assert [len(a) for a in await snap.readings("NOPE-TX99", "oti")] == [0, 0]
    finally:
        store.close()


async def test_run_tsad_through_the_snapshot_answers_as_the_live_store(
    seeded_settings: StoreSettings,
) -> None:
    # run_tsad keeps a series' scores in the snapshot and applies each threshold to them;
    # every threshold, asked in turn, must answer as the live store's tool does.
    from generator.tools.registry import ToolContext, call_tool

    asset = load_asset_class("transformer")
    live = ToolContext(asset, seeded_settings)
    snap = ToolContext(asset, store=await FleetSnapshot.aload(asset, seeded_settings))
    try:
        inv = await live.store.inventory()
        a = inv.assets[0]
        start = str((await live.store.time_range(a.asset_id)).start)[:10]
        day = int(start[-2:])
        args = {"site_name": a.site_name, "asset_id": a.asset_id, "sensor": "oti",
                "start": f"{start[:8]}{day + 14:02d}", "final": f"{start[:8]}{day + 21:02d}"}
        found = {}
        for threshold in (3.5, 1e-6, 2.0, 3.5):
            call = args | {"threshold": threshold}
            mine = (await call_tool("run_tsad", call, snap)).model_dump(mode="json")
            theirs = (await call_tool("run_tsad", call, live)).model_dump(mode="json")
            assert mine == theirs
            found[threshold] = len(mine["anomalies"])
        assert found[1e-6] > found[2.0] >= found[3.5]  # the cut-off applied, each time
    finally:
        live.close()


async def test_data_quality_through_the_snapshot_answers_as_the_live_store(
    seeded_settings: StoreSettings,
) -> None:
    # On a snapshot, data_quality reads the stored rows themselves (no projected copies);
    # every sensor choice (one analog sensor, a contact's flag alone, all) must answer as
    # the live store's tool does, and the snapshot's rows must come out unchanged.
    from generator.tools.registry import ToolContext, call_tool

    asset = load_asset_class("transformer")
    live = ToolContext(asset, seeded_settings)
    snapshot = await FleetSnapshot.aload(asset, seeded_settings)
    snap = ToolContext(asset, store=snapshot)
    try:
        inv = await live.store.inventory()
        found = 0
        for a in inv.assets[:4]:
            before = await snapshot.plain_history(a.asset_id)
            start = str((await live.store.time_range(a.asset_id)).start)[:10]
            for sensors in (None, ["oti"], ["oti_a"], ["wti", "load_mva"]):
                call = {"site_name": a.site_name, "asset_id": a.asset_id, "start": start,
                        "min_run": 3}
                if sensors is not None:
                    call["sensors"] = sensors
                mine = (await call_tool("data_quality", call, snap)).model_dump(mode="json")
                theirs = (await call_tool("data_quality", call, live)).model_dump(mode="json")
                assert mine == theirs
                found += sum(len(mine[k]) for k in
                             ("stuck", "record_gaps", "sensor_gaps", "inconsistent", "pickups"))
            assert await snapshot.plain_history(a.asset_id) == before
        assert found > 0  # findings were there to compare
    finally:
        live.close()


def test_strip_drops_only_couchdb_and_class_fields_and_keeps_key_order() -> None:
    from generator.store.snapshot import _strip

    doc = {"b": 1, "_id": "x", "asset_class": "transformer", "a": [2], "_rev": "1-r", "c": None}
    out = _strip(doc)
    # Worked by hand: remove _id, _rev, asset_class; b, a, c stay in their order.
    assert list(out.items()) == [("b", 1), ("a", [2]), ("c", None)]
    assert doc["_id"] == "x" and len(doc) == 6  # the input is left alone
