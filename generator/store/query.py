"""The query layer used by the tools and the profiler.

Async methods over the blocking :class:`CouchClient`; every call runs in the bounded
thread pool (:func:`generator.concurrency.to_thread`), never on the event loop. Queries
use Mango with explicit indexes and limits, so they work on Apache CouchDB too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import AssetClass
from generator.concurrency import to_thread
from generator.config import StoreSettings, store_settings
from generator.errors import UserError
from generator.store.couch import CouchClient, Doc, StoreForbidden
from generator.store.seed import CLASS_FIELD, database_names, read_marker

META_FIELDS = frozenset(
    {"_id", "_rev", "asset_id", "site_name", "timestamp", "dataset", CLASS_FIELD}
)


class TimeRange(BaseModel):
    """First and last timestamp of an asset's records."""

    model_config = ConfigDict(extra="forbid")

    start: str | None = Field(description="First timestamp (ISO 8601), None when no data")
    end: str | None = Field(description="Last timestamp (ISO 8601), None when no data")
    count: int | None = Field(default=None, description="Number of records, when counted")


class AssetInventory(BaseModel):
    """What the store holds for one asset."""

    model_config = ConfigDict(extra="forbid")

    asset_id: str = Field(description="Asset id")
    site_name: str = Field(description="Site of the asset")
    nameplate: dict[str, Any] = Field(description="Nameplate document without CouchDB fields")
    sensors: list[str] = Field(description="Telemetry sensors (keys of its documents)")
    coverage: dict[str, TimeRange] = Field(
        description="Coverage per sensor source of the class (a key of asset.yaml `sources`)"
    )
    work_orders: int = Field(description="Number of work orders")

    def covered(self, source: str) -> TimeRange:
        """Coverage of ``source``; an empty range when the asset has none."""
        return self.coverage.get(source) or TimeRange(start=None, end=None)

    @property
    def telemetry(self) -> TimeRange:
        """Telemetry coverage (``coverage["telemetry"]``)."""
        return self.covered("telemetry")


class Inventory(BaseModel):
    """The grounded inventory of an asset class in the store."""

    model_config = ConfigDict(extra="forbid")

    asset_class: str = Field(description="Asset class")
    sites: list[str] = Field(description="Sites, sorted")
    assets: list[AssetInventory] = Field(description="Assets, sorted by id")
    seed: dict[str, Any] | None = Field(
        description="Seed marker (spec and status), if seeded by us"
    )

    @classmethod
    def of(
        cls, asset_class: str, assets: list[AssetInventory], marker: dict[str, Any] | None
    ) -> Inventory:
        """The inventory of ``assets``: sites derived from them, the marker's public part."""
        return cls(
            asset_class=asset_class,
            sites=sorted({a.site_name for a in assets}),
            assets=assets,
            seed=None
            if marker is None
            else {k: marker.get(k) for k in ("spec", "status", "fingerprint")},
        )


def _window(start: str | None, end: str | None) -> dict[str, Any]:
    """Mango condition for a timestamp in [start, end); open ends match any non-null value."""
    window: dict[str, Any] = {"$gte": start} if start else {"$gt": None}
    if end:
        window["$lt"] = end
    return window


def _strip(doc: Doc) -> Doc:
    return {k: v for k, v in doc.items() if k not in ("_id", "_rev", CLASS_FIELD)}


def owned_by(asset_class: str) -> Callable[[Doc], bool]:
    """Whether a document belongs to ``asset_class``: it carries that class's
    ``asset_class`` field, or none (documents of stores seeded before classes shared
    databases, and upstream's own work-order documents)."""

    def keep(doc: Doc) -> bool:
        owner = doc.get(CLASS_FIELD)
        return owner is None or owner == asset_class

    return keep


class FleetStore:
    """Read access to one asset class's data in a CouchDB-protocol store."""

    def __init__(self, asset: AssetClass, settings: StoreSettings | None = None) -> None:
        self.asset = asset
        self.settings = settings or store_settings()
        self.client = CouchClient(self.settings)
        self.db = database_names(asset, self.settings.db_prefix)
        self._mine = owned_by(asset.asset_class)

    def close(self) -> None:
        """Release the HTTP connections."""
        self.client.close()

    # -- sync core (runs in worker threads) --------------------------------------------

    def _check_ready(self) -> dict[str, Any] | None:
        try:
            marker = read_marker(self.client, self.asset.asset_class, self.settings.db_prefix)
        except StoreForbidden:
            # The read-only tool account may not see the seed marker (it names the fleet's
            # seed); the data databases below still say whether the class is there.
            marker = None
        if marker is not None and marker.get("status") != "complete":
            raise UserError(
                f"the store holds an interrupted seed of {self.asset.asset_class!r} "
                f"(status {marker.get('status')!r})",
                fix="re-run `scenariogen env seed` with the same options to finish it",
            )
        if not self.client.db_exists(self.db["nameplate"]):
            raise UserError(
                f"the store at {self.settings.public_url} has no {self.asset.asset_class} data "
                f"(database {self.db['nameplate']!r} is missing)",
                fix="seed the store first: `scenariogen env seed`",
            )
        return marker

    def ensure_seeded(self) -> None:
        """Raise one :class:`UserError` unless the store holds a complete seed of the class.

        Raises:
            UserError: no data for the asset class, or an interrupted seed.
        """
        self._check_ready()

    def _source_db(self, source: str) -> str:
        return self.db[self.asset.source_database(source)]

    def _nameplates(self) -> list[Doc]:
        return sorted(
            (_strip(d) for d in self.client.all_docs(self.db["nameplate"]) if self._mine(d)),
            key=lambda d: str(d["asset_id"]),
        )

    def _time_range(self, db: str, asset_id: str) -> TimeRange:
        def edge(order: str) -> str | None:
            docs = self.client.find(
                db,
                {"asset_id": asset_id, "timestamp": {"$gt": None}},
                fields=["timestamp"],
                sort=[{"asset_id": order}, {"timestamp": order}],
                limit=1,
            )
            return str(docs[0]["timestamp"]) if docs else None

        return TimeRange(start=edge("asc"), end=edge("desc"))

    def _sensors(self, asset_id: str) -> list[str]:
        docs = self.client.find(
            self.db["telemetry"],
            {"asset_id": asset_id, "timestamp": {"$gt": None}},
            sort=[{"asset_id": "desc"}, {"timestamp": "desc"}],
            limit=1,
        )
        return sorted(k for k in docs[0] if k not in META_FIELDS) if docs else []

    def _history(
        self,
        db: str,
        asset_id: str,
        start: str | None,
        end: str | None,
        fields: list[str] | None,
    ) -> list[Doc]:
        window = _window(start, end)
        keep = None if fields is None else ["asset_id", "timestamp", *fields]
        docs = self.client.find(
            db,
            {"asset_id": asset_id, "timestamp": window},
            fields=keep,
            sort=[{"asset_id": "asc"}, {"timestamp": "asc"}],
        )
        return [_strip(d) for d in docs]

    def _tagged(
        self,
        dataset: str,
        date_field: str,
        equipment_id: str | None,
        start: str | None,
        end: str | None,
        extra: Doc | None = None,
    ) -> list[Doc]:
        window = _window(start, end)
        selector: Doc = {
            "dataset": dataset,
            "equipment_id": equipment_id or {"$gt": None},
            date_field: window,
        }
        selector.update(extra or {})
        docs = self.client.find(
            self.db["workorders"],
            selector,
            sort=[{"dataset": "asc"}, {"equipment_id": "asc"}, {date_field: "asc"}],
        )
        return [_strip(d) for d in docs if self._mine(d)]

    def _inventory(self) -> Inventory:
        marker = self._check_ready()
        plates = self._nameplates()
        assets = []
        present = {
            source: self.client.db_exists(self._source_db(source)) for source in self.asset.sources
        }
        for plate in plates:
            aid = str(plate["asset_id"])
            coverage = {
                source: self._time_range(self._source_db(source), aid)
                if present[source]
                else TimeRange(start=None, end=None)
                for source in self.asset.sources
            }
            assets.append(
                AssetInventory(
                    asset_id=aid,
                    site_name=str(plate["site_name"]),
                    nameplate=plate,
                    sensors=self._sensors(aid),
                    coverage=coverage,
                    work_orders=len(self._tagged("wo_events", "reported_date", aid, None, None)),
                )
            )
        return Inventory.of(self.asset.asset_class, assets, marker)

    # -- async API ----------------------------------------------------------------------

    async def inventory(self) -> Inventory:
        """Sites, assets, sensors and coverage of the asset class."""
        return await to_thread(self._inventory)

    async def sites(self) -> list[str]:
        """Site names, sorted."""
        plates = await to_thread(self._nameplates)
        return sorted({str(p["site_name"]) for p in plates})

    async def assets(self, site_name: str | None = None) -> list[Doc]:
        """Nameplates of the assets, at one site or all."""
        plates = await to_thread(self._nameplates)
        return [p for p in plates if site_name is None or p["site_name"] == site_name]

    async def nameplate_doc(self, asset_id: str) -> Doc | None:
        """The nameplate document of ``asset_id`` (without CouchDB fields), or None."""
        doc = await to_thread(self.client.get, self.db["nameplate"], asset_id)
        return None if doc is None else {k: v for k, v in doc.items() if not k.startswith("_")}

    async def nameplate(self, asset_id: str) -> Doc:
        """The nameplate of ``asset_id``; unknown ids raise with the valid ones."""
        doc = await to_thread(self.client.get, self.db["nameplate"], asset_id)
        if doc is None:
            known = [str(p["asset_id"]) for p in await to_thread(self._nameplates)]
            raise UserError(
                f"unknown asset {asset_id!r}", options=known, fix="use an asset id from the store"
            )
        return _strip(doc)

    async def sensors(self, asset_id: str) -> list[str]:
        """Telemetry sensors of an asset (keys of its documents minus metadata)."""
        return await to_thread(self._sensors, asset_id)

    async def time_range(self, asset_id: str, source: str = "telemetry") -> TimeRange:
        """First and last timestamp of an asset's records of sensor source ``source``.

        Raises:
            UserError: the class declares no such source.
        """
        return await to_thread(self._time_range, self._source_db(source), asset_id)

    async def history(
        self,
        asset_id: str,
        start: str | None = None,
        end: str | None = None,
        sensors: list[str] | None = None,
    ) -> list[Doc]:
        """Telemetry rows of an asset in [start, end), sorted by time."""
        return await to_thread(self._history, self.db["telemetry"], asset_id, start, end, sensors)

    async def records(
        self, source: str, asset_id: str, start: str | None = None, end: str | None = None
    ) -> list[Doc]:
        """Records of sensor source ``source`` (e.g. ``telemetry``) of an asset in
        [start, end), sorted by time, read from the source's database.

        Raises:
            UserError: the class declares no such source.
        """
        db = self._source_db(source)
        return await to_thread(self._history, db, asset_id, start, end, None)

    async def work_orders(
        self,
        equipment_id: str | None = None,
        start: str | None = None,
        end: str | None = None,
        kind: Literal["all", "preventive", "corrective"] = "all",
    ) -> list[Doc]:
        """Work orders by equipment and reported date in [start, end)."""
        extra = None if kind == "all" else {"wo_type": kind}
        return await to_thread(
            self._tagged, "wo_events", "reported_date", equipment_id, start, end, extra
        )

    async def events(
        self, equipment_id: str | None = None, start: str | None = None, end: str | None = None
    ) -> list[Doc]:
        """Events (alerts and work orders) by equipment and time in [start, end)."""
        return await to_thread(self._tagged, "events", "event_time", equipment_id, start, end)

    async def alerts(
        self, equipment_id: str | None = None, start: str | None = None, end: str | None = None
    ) -> list[Doc]:
        """Alarm and trip alerts by equipment and start time in [start, end)."""
        return await to_thread(self._tagged, "alert_events", "start_time", equipment_id, start, end)

    async def failure_codes(self) -> list[Doc]:
        """The failure-code catalogue."""
        docs = await to_thread(
            self.client.find, self.db["workorders"], {"dataset": "failure_codes"}
        )
        return sorted((_strip(d) for d in docs if self._mine(d)), key=lambda d: str(d["code"]))

    async def ground_truth(self, asset_id: str | None = None) -> list[Doc]:
        """Injected faults and causes (separate database; never shown to agents)."""
        docs = await to_thread(lambda: list(self.client.all_docs(self.db["truth"])))
        return [_strip(d) for d in docs if asset_id is None or d["asset_id"] == asset_id]
