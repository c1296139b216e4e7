"""A per-run, in-memory snapshot of one asset class's databases, pinned by ``update_seq``.

Generation reads the same fleet thousands of times (every draw, every reading of the
interpretation gate, every recompute, every argument check). :class:`FleetSnapshot` reads
each database once, in pages of ``_all_docs?include_docs=true``, between two reads of the
database's ``update_seq`` (equal before and after, else the read is repeated), and answers
the query methods of :class:`generator.store.query.FleetStore` from memory with the same
results: same documents, same order, same field projection.

Layout: per asset and time-series database the rows sorted by ``(timestamp, _id)`` (the
Mango index order of ``[asset_id, timestamp]``) with a numpy array of the timestamps, so a
window ``[start, end)`` is two binary searches (ISO strings compare like the instants they
name); per work-order dataset and equipment the rows sorted by ``(date, _id)`` with the same
kind of index. :meth:`FleetSnapshot.verify_unchanged` compares the pinned ``update_seq``
with the store's at the end of the run: a changed store fails the run (its answers could be
stale).

Agent-facing tools (MCP, ``tools call``, dry runs) keep querying the live store.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from generator.assetdef import AssetClass
from generator.concurrency import start_thread, to_thread
from generator.config import StoreSettings, store_settings
from generator.errors import UserError
from generator.store.couch import SNAPSHOT_PAGE, CouchClient, Doc
from generator.store.query import META_FIELDS, AssetInventory, Inventory, TimeRange, owned_by
from generator.store.seed import CLASS_FIELD, database_names, read_marker

# Re-reads of a database whose update_seq moved while it was being read.
_READ_ATTEMPTS = 3
# Field projections of a telemetry series kept per snapshot (asset × sensor list).
_PROJECTIONS = 256
# Values derived by tools kept per snapshot (:class:`Derived`).
_DERIVED = 512


class StoreChanged(UserError):
    """The store changed while a run was reading it through a snapshot."""


def _strip(doc: Doc) -> Doc:
    # A copy without the three keys, the others in their order (a C-level dict copy and
    # three pops: several times faster than a comprehension over every key).
    out = dict(doc)
    out.pop("_id", None)
    out.pop("_rev", None)
    out.pop(CLASS_FIELD, None)
    return out


@dataclass
class _Series:
    """One key's rows sorted by (time, _id), without CouchDB fields, and their times."""

    rows: list[Doc] = field(default_factory=list)
    times: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=str))
    # The same times as Python strings: a binary search of a list of str (``bisect``)
    # orders exactly as ``np.searchsorted`` on the string array does, at a fraction of
    # its per-call cost.
    keys: list[str] = field(default_factory=list)

    def bounds(self, start: str | None, end: str | None) -> tuple[int, int]:
        """Row slice ``[lo, hi)`` of ``start <= time < end`` (open ends unbounded)."""
        lo = 0 if not start else bisect_left(self.keys, start)
        hi = len(self.rows) if not end else bisect_left(self.keys, end)
        return lo, max(lo, hi)

    def window(self, start: str | None, end: str | None) -> list[Doc]:
        """Rows with ``start <= time < end`` (open ends unbounded)."""
        lo, hi = self.bounds(start, end)
        return self.rows[lo:hi]


def _series(docs: list[Doc], key: str) -> _Series:
    """Index ``docs`` (all carry a string ``key``) by (key, _id)."""
    docs.sort(key=lambda d: (d[key], str(d.get("_id", ""))))
    keys = [d[key] for d in docs]
    times = np.array(keys, dtype=str) if docs else np.empty(0, dtype=str)
    return _Series(rows=[_strip(d) for d in docs], times=times, keys=[str(k) for k in times])


def _grouped(docs: list[Doc], by: str, time_key: str) -> dict[str, _Series]:
    groups: dict[str, list[Doc]] = {}
    for doc in docs:
        owner, when = doc.get(by), doc.get(time_key)
        # Mango's ``$gt: null`` matches any non-null value; our documents hold strings.
        if isinstance(owner, str) and isinstance(when, str):
            groups.setdefault(owner, []).append(doc)
    return {k: _series(v, time_key) for k, v in sorted(groups.items())}


def _by_equipment(date_field: str) -> Callable[[Doc], tuple[str, str, str]]:
    def key(d: Doc) -> tuple[str, str, str]:
        return str(d["equipment_id"]), str(d[date_field]), str(d.get("_id", ""))

    return key


# Keys generator.tools.data_iot.plain_records drops from a telemetry row.
_PLAIN_DROP = frozenset({"asset_id", "site_name", "dataset"})

# The work-order datasets and the date each is indexed by (FleetStore._tagged).
_TAGGED = {"wo_events": "reported_date", "events": "event_time", "alert_events": "start_time"}


def _plain_rows(rows: list[Doc], sensors: list[str] | None) -> list[Doc]:
    """``rows`` as :meth:`FleetSnapshot.plain_history` returns them: without the keys
    ``plain_records`` drops; with ``sensors``, only ``timestamp`` and those, in history's
    projection order (asset_id, timestamp, sensors; a repeat keeps its first place)."""
    if sensors is None:
        return [{k: v for k, v in d.items() if k not in _PLAIN_DROP} for d in rows]
    keep = [
        k for k in dict.fromkeys(["asset_id", "timestamp", *sensors]) if k not in _PLAIN_DROP
    ]
    if len(keep) == 2:
        # The common case (timestamp and one sensor) spelled out; a row without the sensor
        # (KeyError) sends the window through the general form.
        first, second = keep
        try:
            return [{first: d[first], second: d[second]} for d in rows]
        except KeyError:
            pass
    return [{k: d[k] for k in keep if k in d} for d in rows]


class Derived:
    """Values tools derive from the pinned data alone, by key, least recently used first out.

    A tool may keep here what it computes from the snapshot's rows before its
    call-specific arguments apply (e.g. ``run_tsad``'s scores of a series, the same for
    every threshold); the snapshot cannot change, so a kept value is what the tool would
    compute again, and an evicted one is simply computed again. The live store has no
    such cache: tools called by agents always read the store.
    """

    def __init__(self, max_entries: int = _DERIVED) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[tuple[Any, ...], Any] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> Any:
        """The value under ``key`` (now the most recently used), or None."""
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        """Keep ``value`` under ``key``; drop the least recently used beyond the bound."""
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)


class FleetSnapshot:
    """Read-only, in-memory copy of an asset class's data with FleetStore's query methods.

    Build it with :meth:`load` (blocking), :meth:`aload` or :meth:`start_load`. The async
    methods mirror :class:`generator.store.query.FleetStore` and return fresh dicts, so
    callers may mutate what they get.
    """

    def __init__(
        self,
        asset: AssetClass,
        settings: StoreSettings,
        docs: dict[str, list[Doc]],
        seqs: dict[str, Any],
        marker: dict[str, Any] | None,
    ) -> None:
        self.asset = asset
        self.settings = settings
        self.db = database_names(asset, settings.db_prefix)
        self.seqs = dict(seqs)
        self.marker = marker
        role = {name: r for r, name in self.db.items()}
        # Only this class's documents (a shared database holds other classes' too).
        owned = owned_by(asset.asset_class)
        by_role = {
            role[name]: [d for d in rows if owned(d)]
            for name, rows in docs.items()
            if name in role
        }
        self._plates = sorted(
            (_strip(d) for d in by_role.get("nameplate", [])), key=lambda d: str(d["asset_id"])
        )
        self._plate_by_id = {
            str(d["_id"]): _strip(d) for d in by_role.get("nameplate", []) if "_id" in d
        }
        self._sites = sorted({str(p["site_name"]) for p in self._plates})
        # Time series per logical database: telemetry and every sensor source's database.
        series_dbs = {"telemetry", *(src.database for src in asset.sources.values())}
        self._series: dict[str, dict[str, _Series]] = {
            logical: _grouped(by_role.get(logical, []), "asset_id", "timestamp")
            for logical in sorted(series_dbs)
        }
        self._telemetry = self._series["telemetry"]
        wo_docs = by_role.get("workorders", [])
        self._tagged: dict[str, dict[str, _Series]] = {}
        self._tagged_all: dict[str, _Series] = {}
        for dataset, date_field in _TAGGED.items():
            mine = [d for d in wo_docs if d.get("dataset") == dataset]
            self._tagged[dataset] = _grouped(mine, "equipment_id", date_field)
            # All equipment: sorted by (equipment_id, date, _id) as the Mango index is.
            every = [
                d for d in mine
                if isinstance(d.get("equipment_id"), str) and isinstance(d.get(date_field), str)
            ]
            every.sort(key=_by_equipment(date_field))
            self._tagged_all[dataset] = _Series(rows=[_strip(d) for d in every])
        self._codes = sorted(
            (_strip(d) for d in wo_docs if d.get("dataset") == "failure_codes"),
            key=lambda d: str(d["code"]),
        )
        self._truth = [_strip(d) for d in by_role.get("truth", [])]
        self._sensors: dict[str, list[str]] = {
            aid: sorted(k for k in s.rows[-1] if k not in META_FIELDS) if s.rows else []
            for aid, s in self._telemetry.items()
        }
        self.rows = sum(len(v) for v in docs.values())
        self._projections: dict[tuple[str, tuple[str, ...]], list[Doc]] = {}
        self.derived = Derived()
        self._secs: dict[str, np.ndarray] = {}
        self._cols: dict[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    # -- loading and pinning -----------------------------------------------------------

    @classmethod
    def load(cls, asset: AssetClass, settings: StoreSettings | None = None) -> FleetSnapshot:
        """Read every database of ``asset`` once (blocking; run it in a worker thread).

        Raises:
            UserError: The store is not seeded (or its seed is interrupted).
            StoreChanged: A database kept changing while it was read.
        """
        settings = settings or store_settings()
        names = database_names(asset, settings.db_prefix)
        with CouchClient(settings) as client:
            marker = read_marker(client, asset.asset_class, settings.db_prefix)
            if marker is not None and marker.get("status") != "complete":
                raise UserError(
                    f"the store holds an interrupted seed of {asset.asset_class!r} "
                    f"(status {marker.get('status')!r})",
                    fix="re-run `scenariogen env seed` with the same options to finish it",
                )
            docs: dict[str, list[Doc]] = {}
            seqs: dict[str, Any] = {}
            for db in names.values():
                docs[db], seqs[db] = _read_pinned(client, db)
            if "nameplate" in names and seqs[names["nameplate"]] is None:
                raise UserError(
                    f"the store has no {asset.asset_class} data "
                    f"(database {names['nameplate']!r} is missing)",
                    fix="run `scenariogen env seed` first",
                )
        return cls(asset, settings, docs, seqs, marker)

    @classmethod
    async def aload(
        cls, asset: AssetClass, settings: StoreSettings | None = None
    ) -> FleetSnapshot:
        """:meth:`load` in the bounded thread pool."""
        return await to_thread(cls.load, asset, settings)

    @classmethod
    def start_load(
        cls, asset: AssetClass, settings: StoreSettings | None = None
    ) -> asyncio.Future[FleetSnapshot]:
        """:meth:`load` started in the bounded thread pool now (a run's set-up goes on
        while it reads); await the future for the snapshot."""
        return start_thread(cls.load, asset, settings)

    def changed(self) -> list[str]:
        """Databases whose ``update_seq`` differs from the pinned one (blocking)."""
        with CouchClient(self.settings) as client:
            out = []
            for db, seq in self.seqs.items():
                info = client.db_info(db)
                now = None if info is None else info.get("update_seq")
                if now != seq:
                    out.append(db)
            return out

    async def verify_unchanged(self) -> None:
        """Fail when the store changed since the snapshot was read.

        Raises:
            StoreChanged: one line naming the databases that changed.
        """
        moved = await to_thread(self.changed)
        if moved:
            raise StoreChanged(
                "the store changed during the run (update_seq of "
                f"{', '.join(moved)} moved), so the computed answers may not match it",
                fix="do not write to the store while generating; re-run on the stable store",
            )

    def close(self) -> None:
        """Nothing to release (kept for FleetStore's interface)."""

    # -- FleetStore's query methods ----------------------------------------------------

    def _range(self, series: dict[str, _Series], asset_id: str) -> TimeRange:
        s = series.get(asset_id)
        if s is None or not s.rows:
            return TimeRange(start=None, end=None)
        return TimeRange(start=str(s.rows[0]["timestamp"]), end=str(s.rows[-1]["timestamp"]))

    async def inventory(self) -> Inventory:
        """Sites, assets, sensors and coverage of the asset class."""
        assets = []
        for plate in self._plates:
            aid = str(plate["asset_id"])
            assets.append(AssetInventory(
                asset_id=aid,
                site_name=str(plate["site_name"]),
                nameplate=dict(plate),
                sensors=list(self._sensors.get(aid, [])),
                coverage={
                    source: self._range(self._series[src.database], aid)
                    for source, src in self.asset.sources.items()
                },
                work_orders=len(self._tagged["wo_events"].get(aid, _Series()).rows),
            ))
        return Inventory.of(self.asset.asset_class, assets, self.marker)

    async def sites(self) -> list[str]:
        """Site names, sorted."""
        return list(self._sites)

    async def assets(self, site_name: str | None = None) -> list[Doc]:
        """Nameplates of the assets, at one site or all."""
        return [
            dict(p) for p in self._plates if site_name is None or p["site_name"] == site_name
        ]

    async def nameplate_doc(self, asset_id: str) -> Doc | None:
        """The nameplate document of ``asset_id`` (without CouchDB fields), or None."""
        doc = self._plate_by_id.get(asset_id)
        return None if doc is None else dict(doc)

    async def nameplate(self, asset_id: str) -> Doc:
        """The nameplate of ``asset_id``; unknown ids raise with the valid ones."""
        doc = await self.nameplate_doc(asset_id)
        if doc is None:
            raise UserError(
                f"unknown asset {asset_id!r}",
                options=[str(p["asset_id"]) for p in self._plates],
                fix="use an asset id from the store",
            )
        return doc

    async def sensors(self, asset_id: str) -> list[str]:
        """Telemetry sensors of an asset (keys of its latest document minus metadata)."""
        return list(self._sensors.get(asset_id, []))

    async def time_range(self, asset_id: str, source: str = "telemetry") -> TimeRange:
        """First and last timestamp of an asset's records of sensor source ``source``.

        Raises:
            UserError: the class declares no such source.
        """
        return self._range(self._series[self.asset.source_database(source)], asset_id)

    def _window(
        self, series: dict[str, _Series], asset_id: str, start: str | None, end: str | None,
        fields: list[str] | None,
    ) -> list[Doc]:
        s = series.get(asset_id)
        if s is None:
            return []
        lo, hi = s.bounds(start, end)
        if fields is None:
            return [dict(d) for d in s.rows[lo:hi]]  # rows are stored without _id and _rev
        # A field projection of the whole series is made once per (asset, fields) and
        # sliced (a copy per row, as before); at most _PROJECTIONS of them are kept.
        key = (asset_id, tuple(fields))
        projected = self._projections.get(key)
        if projected is None:
            keep = ["asset_id", "timestamp", *fields]
            if len(self._projections) >= _PROJECTIONS:
                return [{k: d[k] for k in keep if k in d} for d in s.rows[lo:hi]]
            projected = [{k: d[k] for k in keep if k in d} for d in s.rows]
            self._projections[key] = projected
        return [dict(d) for d in projected[lo:hi]]

    async def history(
        self,
        asset_id: str,
        start: str | None = None,
        end: str | None = None,
        sensors: list[str] | None = None,
    ) -> list[Doc]:
        """Telemetry rows of an asset in [start, end), sorted by time."""
        return self._window(self._telemetry, asset_id, start, end, sensors)

    async def plain_history(
        self,
        asset_id: str,
        start: str | None = None,
        end: str | None = None,
        sensors: list[str] | None = None,
    ) -> list[Doc]:
        """``plain_records(await self.history(...))`` in one copy per row: the telemetry rows
        of an asset in [start, end) without its id, site and dataset tag, same keys in the
        same order (:func:`generator.tools.data_iot.plain_records`)."""
        s = self._telemetry.get(asset_id)
        if s is None:
            return []
        lo, hi = s.bounds(start, end)
        return _plain_rows(s.rows[lo:hi], sensors)

    def history_rows(
        self, asset_id: str, start: str | None = None, end: str | None = None
    ) -> list[Doc]:
        """The snapshot's own telemetry rows of an asset in [start, end), sorted by time:
        a new list of the stored dicts, NOT copies. For readers only (e.g. ``data_quality``,
        which reads a few keys of each): a caller must never mutate a row it gets here."""
        s = self._telemetry.get(asset_id)
        if s is None:
            return []
        lo, hi = s.bounds(start, end)
        return s.rows[lo:hi]

    def _columns(self, asset_id: str, sensor: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Epoch seconds of every telemetry row of an asset, the sensor's values (nan where
        absent or null) and where it has one; made once per asset and sensor."""
        key = (asset_id, sensor)
        cols = self._cols.get(key)
        if cols is None:
            s = self._telemetry[asset_id]
            secs = self._secs.get(asset_id)
            if secs is None:
                # The conversion generator.tools.data_tsfm._epoch_seconds makes per window.
                secs = self._secs[asset_id] = s.times.astype("datetime64[s]").astype(np.int64)
            raw = [d.get(sensor) for d in s.rows]
            has = np.array([v is not None for v in raw], dtype=bool)
            values = np.array([np.nan if v is None else float(v) for v in raw], dtype=float)
            cols = self._cols[key] = (secs, values, has)
        return cols

    async def readings(
        self, asset_id: str, sensor: str, start: str | None = None, end: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Epoch seconds and float values of the non-null readings of ``sensor`` of an asset
        in [start, end), in time order: the rows of ``history(asset_id, start, end,
        [sensor])`` whose value is not None, as the time-series tools read them."""
        s = self._telemetry.get(asset_id)
        if s is None:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=float)
        lo, hi = s.bounds(start, end)
        secs, values, has = self._columns(asset_id, sensor)
        idx = lo + np.flatnonzero(has[lo:hi])
        return secs[idx], values[idx]

    async def records(
        self, source: str, asset_id: str, start: str | None = None, end: str | None = None
    ) -> list[Doc]:
        """Records of sensor source ``source`` of an asset in [start, end), sorted by time.

        Raises:
            UserError: the class declares no such source.
        """
        series = self._series[self.asset.source_database(source)]
        return self._window(series, asset_id, start, end, None)

    def _select(
        self,
        dataset: str,
        equipment_id: str | None,
        start: str | None,
        end: str | None,
        keep: Callable[[Doc], bool] | None = None,
    ) -> list[Doc]:
        date_field = _TAGGED[dataset]
        if equipment_id is not None:
            rows = self._tagged[dataset].get(equipment_id, _Series()).window(start, end)
        else:
            rows = [
                d for d in self._tagged_all[dataset].rows
                if (not start or d[date_field] >= start) and (not end or d[date_field] < end)
            ]
        return [dict(d) for d in rows if keep is None or keep(d)]

    async def work_orders(
        self,
        equipment_id: str | None = None,
        start: str | None = None,
        end: str | None = None,
        kind: Literal["all", "preventive", "corrective"] = "all",
    ) -> list[Doc]:
        """Work orders by equipment and reported date in [start, end)."""
        if kind == "all":
            return self._select("wo_events", equipment_id, start, end)
        # The live store's Mango selector {"wo_type": kind}: our own field, exact match
        # (`preventive` holds upstream's "TRUE" / "FALSE" strings next to it).
        return self._select(
            "wo_events", equipment_id, start, end,
            lambda d: d.get("wo_type") == kind,
        )

    async def events(
        self, equipment_id: str | None = None, start: str | None = None, end: str | None = None
    ) -> list[Doc]:
        """Events (alerts and work orders) by equipment and time in [start, end)."""
        return self._select("events", equipment_id, start, end)

    async def alerts(
        self, equipment_id: str | None = None, start: str | None = None, end: str | None = None
    ) -> list[Doc]:
        """Alarm and trip alerts by equipment and start time in [start, end)."""
        return self._select("alert_events", equipment_id, start, end)

    async def failure_codes(self) -> list[Doc]:
        """The failure-code catalogue."""
        return [dict(d) for d in self._codes]

    async def ground_truth(self, asset_id: str | None = None) -> list[Doc]:
        """Injected faults and causes (never shown to agents)."""
        return [dict(d) for d in self._truth if asset_id is None or d["asset_id"] == asset_id]


def _read_pinned(client: CouchClient, db: str) -> tuple[list[Doc], Any]:
    """Every non-design document of ``db`` and the ``update_seq`` they were read at.

    Returns ``([], None)`` for a missing database.

    Raises:
        StoreChanged: The database changed during each of the attempts.
    """
    for _ in range(_READ_ATTEMPTS):
        before = client.db_info(db)
        if before is None:
            return [], None
        docs = list(client.all_docs(db, page=SNAPSHOT_PAGE))
        after = client.db_info(db)
        if after is not None and after.get("update_seq") == before.get("update_seq"):
            return docs, before.get("update_seq")
    raise StoreChanged(
        f"database {db!r} kept changing while the run read it",
        fix="stop writing to the store (e.g. a running `env seed`) and re-run",
    )


