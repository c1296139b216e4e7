"""Grounding: what the store and the tool registry say an asset class can be asked about.

Everything here is read from the store through the query layer and from the tool
registry, never from an LLM or from retrieved text, so a prompt injected into a paper
abstract cannot add a domain, a tool or a sensor to the profile.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from generator.assetdef import DOMAINS, AssetClass, Sensor
from generator.cache import cache_key
from generator.concurrency import fan_out, to_thread
from generator.config import StoreSettings
from generator.profile.model import (
    DomainSupport,
    FailureModeProfile,
    GroundedAsset,
    GroundedInventory,
    SensorCoverage,
    StandardRef,
    TaskTheme,
)
from generator.store.couch import CouchClient
from generator.store.query import FleetStore, TimeRange
from generator.store.seed import META_DB, database_names, marker_id, read_marker
from generator.tools.registry import ToolSpec
from generator.vocabulary import ThemeSpec

# tsfm tasks (anomaly detection on the daily profile, seasonal forecasting) need two days.
MIN_HOURLY_READINGS = 48
SINGLE_DOMAINS: tuple[str, ...] = tuple(d for d in DOMAINS if d != "multiagent")


def is_gas(sensor: Sensor) -> bool:
    """Whether an oil-sample quantity is a dissolved gas (declared as "Dissolved ...")."""
    return sensor.source == "oil_sample" and sensor.description.lower().startswith("dissolved")


def public_url(url: str) -> str:
    """``url`` without user name or password, safe to record in provenance."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


# -- the inventory --------------------------------------------------------------------


def _with_fingerprint(inv: GroundedInventory) -> GroundedInventory:
    """``inv`` with its fingerprint: sha256 of its canonical JSON content."""
    content = inv.model_dump(mode="json", exclude={"fingerprint"})
    blob = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return inv.model_copy(update={"fingerprint": hashlib.sha256(blob.encode()).hexdigest()})


def _has_data(store: FleetStore) -> bool:
    """Whether the store holds the class's data; an interrupted seed counts as data.

    Raises:
        StoreUnavailable: the store cannot be reached (fix: ``scenariogen env up``).
    """
    store.client.server_info()
    if store.client.db_exists(store.db["nameplate"]):
        return True
    marker = read_marker(store.client, store.asset.asset_class, store.settings.db_prefix)
    # An interrupted seed is reported by FleetStore.inventory() with its fix, not hidden.
    return marker is not None and marker.get("status") != "complete"


def _count(client: CouchClient, db: str, asset_id: str, limit: int | None = None) -> int:
    docs = client.find(
        db, {"asset_id": asset_id, "timestamp": {"$gt": None}}, fields=["_id"], limit=limit
    )
    return len(docs)


def _coverage(
    store: FleetStore, asset_id: str, fields: dict[str, set[str]]
) -> tuple[bool, dict[str, int], dict[str, set[str]]]:
    """Whether an asset has enough hourly readings and, per sensor source other than
    telemetry (the keys of ``fields``), its record count and the declared fields of its
    latest record."""
    # Counting every hourly reading costs seconds on a large fleet; tsfm only needs to
    # know that the threshold is reached, which a bounded query answers.
    enough = (
        _count(store.client, store.db["telemetry"], asset_id, MIN_HOURLY_READINGS)
        >= MIN_HOURLY_READINGS
    )
    counts: dict[str, int] = {}
    present: dict[str, set[str]] = {}
    for source, declared in fields.items():
        db = store.db[store.asset.source_database(source)]
        if not store.client.db_exists(db):
            counts[source], present[source] = 0, set()
            continue
        latest = store.client.find(
            db,
            {"asset_id": asset_id, "timestamp": {"$gt": None}},
            sort=[{"asset_id": "desc"}, {"timestamp": "desc"}],
            limit=1,
        )
        present[source] = {k for k in latest[0] if k in declared} if latest else set()
        counts[source] = _count(store.client, db, asset_id)
    return enough, counts, present


def _overall(ranges: Iterable[TimeRange]) -> TimeRange:
    rs = list(ranges)
    starts = [r.start for r in rs if r.start]
    ends = [r.end for r in rs if r.end]
    counted = all(r.count is not None for r in rs)
    return TimeRange(
        start=min(starts) if starts else None,
        end=max(ends) if ends else None,
        count=sum(r.count or 0 for r in rs) if counted else None,
    )


def _sensor_coverage(
    asset: AssetClass, telemetry_keys: set[str], other_keys: dict[str, set[str]]
) -> list[SensorCoverage]:
    """Sensors present in the store, in asset-definition order; undeclared keys last.

    A telemetry sensor is present when it is a key of the telemetry documents; a sensor of
    another source when it is a field of that source's records (``other_keys[source]``).
    """
    out: list[SensorCoverage] = []
    declared = {s.name for s in asset.sensors}
    for s in asset.sensors:
        in_store = (
            s.name in telemetry_keys
            if s.source == "telemetry"
            else s.name in other_keys.get(s.source, set())
        )
        if in_store:
            out.append(
                SensorCoverage(name=s.name, unit=s.unit, source=s.source, description=s.description)
            )
    for key in sorted(telemetry_keys - declared):
        # Listed honestly: the store has it, but nothing says what it measures.
        out.append(
            SensorCoverage(
                name=key,
                unit="",
                source="telemetry",
                description="present in the store but not declared in asset.yaml",
            )
        )
    return out


def empty_inventory(asset: AssetClass | None = None) -> GroundedInventory:
    """The inventory of a store holding nothing for the class (closed form).

    Args:
        asset: The class, whose sources get empty coverage (telemetry only when None).
    """
    none = TimeRange(start=None, end=None, count=0)
    sources = list(asset.sources) if asset is not None else ["telemetry"]
    return _with_fingerprint(
        GroundedInventory(
            sites=[], assets=[], sensors=[], coverage={s: none for s in sources},
            work_orders=0, fingerprint="",
        )
    )


async def ground(asset: AssetClass, settings: StoreSettings) -> GroundedInventory | None:
    """Read the class's holdings from the store through the query layer.

    Args:
        asset: The asset class.
        settings: How to reach the store.

    Returns:
        The grounded inventory, or None when the store is reachable but holds no data
        for the class (the profile is then ``closed_form``).

    Raises:
        StoreUnavailable: the store cannot be reached (fix: ``scenariogen env up``).
        UserError: the store holds an interrupted seed.
    """
    store = FleetStore(asset, settings)
    try:
        if not await to_thread(_has_data, store):
            return None
        inv = await store.inventory()
        if not inv.assets:
            return None
        fields = {
            source: {s.name for s in asset.sensors_of(source)}
            for source in asset.sources
            if source != "telemetry"
        }

        async def cover(asset_id: str) -> tuple[bool, dict[str, int], dict[str, set[str]]]:
            return await to_thread(_coverage, store, asset_id, fields)

        coverage = await fan_out([a.asset_id for a in inv.assets], cover, limit=4)
    finally:
        store.close()

    assets: list[GroundedAsset] = []
    telemetry_keys: set[str] = set()
    other_keys: dict[str, set[str]] = {source: set() for source in fields}
    plate_fields = [f.name for f in asset.nameplate_fields]
    for a, (enough, counts, present) in zip(inv.assets, coverage, strict=True):
        telemetry_keys.update(a.sensors)
        for source, keys in present.items():
            other_keys[source].update(keys)
        assets.append(
            GroundedAsset(
                asset_id=a.asset_id,
                site_name=a.site_name,
                nameplate={
                    k: a.nameplate[k] for k in plate_fields if a.nameplate.get(k) is not None
                },
                sensors=list(a.sensors),
                coverage={
                    source: a.covered(source).model_copy(update={"count": counts[source]})
                    if source in counts
                    else a.covered(source)
                    for source in asset.sources
                },
                work_orders=a.work_orders,
                enough_history=enough,
            )
        )
    return _with_fingerprint(
        GroundedInventory(
            sites=list(inv.sites),
            assets=assets,
            sensors=_sensor_coverage(asset, telemetry_keys, other_keys),
            coverage={
                source: _overall(a.covered(source) for a in assets) for source in asset.sources
            },
            work_orders=sum(a.work_orders for a in assets),
            fingerprint="",
        )
    )


# -- the cheap store fingerprint (the profile cache key's view of the store) ------------


_clients: dict[StoreSettings, CouchClient] = {}
_clients_lock = threading.Lock()


def _client(settings: StoreSettings) -> CouchClient:
    """A long-lived client per store: building one costs ~30 ms (TLS context), more than
    the whole warm-cache budget, and the fingerprint is read on every profile request."""
    with _clients_lock:
        client = _clients.get(settings)
        if client is None:
            client = _clients[settings] = CouchClient(settings)
        return client


def _store_state(asset: AssetClass, settings: StoreSettings) -> dict[str, Any]:
    client = _client(settings)
    dbs: dict[str, Any] = {}
    for logical, db in sorted(database_names(asset, settings.db_prefix).items()):
        if logical == "truth":
            continue  # ground truth never reaches the profile
        info = client.db_info(db)
        dbs[logical] = (
            None if info is None else [info.get("doc_count"), str(info.get("update_seq"))]
        )
    marker = client.get(settings.db(META_DB), marker_id(asset.asset_class))
    return {
        "url": public_url(settings.url),
        "prefix": settings.db_prefix,
        "databases": dbs,
        "seed": None
        if marker is None
        else [marker.get("fingerprint"), marker.get("status"), marker.get("_rev")],
    }


async def store_fingerprint(asset: AssetClass, settings: StoreSettings) -> str:
    """A cheap hash of the store's holdings for the class (one request per database).

    Document counts and update sequences change with every write, and the seed marker
    changes with the fleet, so reseeding another fleet (or editing a document) changes
    the fingerprint without reading the data itself.

    Raises:
        StoreUnavailable: the store cannot be reached.
    """
    return cache_key(await to_thread(_store_state, asset, settings))


# -- domains, failure modes, themes, standards ----------------------------------------


def _tool_names(tools: Iterable[ToolSpec], asset: AssetClass, domain: str) -> list[str]:
    return sorted(
        t.name for t in tools if t.domain == domain and t.serves(asset.asset_class)
    )


def failure_mode_profiles(
    asset: AssetClass, inventory: GroundedInventory | None
) -> list[FailureModeProfile]:
    """Failure modes with their revealing sensors and gases, observable against the store."""
    present = {s.name for s in inventory.sensors} if inventory else set()
    out = []
    for fm in asset.failure_modes:
        sensors = [asset.sensor(n) for n in fm.sensors]
        out.append(
            FailureModeProfile(
                id=fm.id,
                name=fm.name,
                failure_code=fm.failure_code,
                codes=dict(fm.codes),
                sensors=[s.name for s in sensors if not is_gas(s)],
                gases=[s.name for s in sensors if is_gas(s)],
                observable=bool(fm.sensors) and all(n in present for n in fm.sensors),
            )
        )
    return out


def _judge(
    domain: str, tools: list[str], checks: list[tuple[bool, str]]
) -> DomainSupport:
    """Supported when every check passes; the reason lists the passing or the failing ones."""
    failing = [msg for ok, msg in checks if not ok]
    supported = not failing
    reason = "; ".join(failing if failing else [msg for _, msg in checks])
    return DomainSupport(domain=domain, supported=supported, tools=tools, reason=reason)


def _other_sources(asset: AssetClass, sources: list[str]) -> str:
    """`` and 15 fields of laboratory oil samples`` for each non-telemetry source listed."""
    parts = []
    for name, src in asset.sources.items():
        n = sources.count(name)
        if name != "telemetry" and n:
            desc = src.description[:1].lower() + src.description[1:]
            parts.append(f" and {n} fields of {desc}")
    return "".join(parts)


def _open_form_checks(
    asset: AssetClass,
    inv: GroundedInventory,
    modes: list[FailureModeProfile],
    tools: dict[str, list[str]],
) -> dict[str, list[tuple[bool, str]]]:
    cls = asset.asset_class
    tele = [s.name for s in inv.sensors if s.source == "telemetry"]
    others = _other_sources(asset, [s.source for s in inv.sensors])
    vib = [s.name for s in inv.sensors if s.source == "vibration"]
    observable = [m.id for m in modes if m.observable]
    enough = [a.asset_id for a in inv.assets if a.enough_history]
    n_assets = len(inv.assets)
    span = f"{inv.telemetry.start} → {inv.telemetry.end}"

    def has_tools(domain: str) -> tuple[bool, str]:
        n = len(tools[domain])
        if n:
            return True, f"{n} {domain} tools registered"
        return False, f"{domain} tools are not registered for {cls}"

    vib_defined = asset.sensors_of("vibration")
    return {
        "iot": [
            (
                bool(tele),
                f"{len(tele)} telemetry sensors{others} in the store "
                f"for {n_assets} assets at {len(inv.sites)} sites ({span})"
                if tele
                else "no telemetry sensors in the store",
            ),
            has_tools("iot"),
        ],
        "fmsr": [
            (
                bool(observable),
                f"{len(observable)} of {len(modes)} failure modes are observable from sensors "
                f"and gases in the store ({', '.join(observable)})"
                if observable
                else f"none of the {len(modes)} failure modes has all its revealing sensors "
                "and gases in the store",
            ),
            has_tools("fmsr"),
        ],
        "tsfm": [
            (
                bool(enough),
                f"{len(enough)} of {n_assets} assets have ≥ {MIN_HOURLY_READINGS} hourly "
                "readings"
                if enough
                else f"no asset has ≥ {MIN_HOURLY_READINGS} hourly readings",
            ),
            has_tools("tsfm"),
        ],
        "wo": [
            (
                inv.work_orders > 0,
                f"{inv.work_orders} work orders over {n_assets} assets"
                if inv.work_orders
                else "no work orders in the store",
            ),
            has_tools("wo"),
        ],
        "vibration": [
            (
                bool(vib),
                f"{len(vib)} vibration sensors in the store"
                if vib
                else "no vibration sensors in the store"
                + ("" if vib_defined else " or the asset definition"),
            ),
            has_tools("vibration"),
        ],
    }


def _closed_form_checks(
    asset: AssetClass, tools: dict[str, list[str]]
) -> dict[str, list[tuple[bool, str]]]:
    cls = asset.asset_class
    tag = "closed form, judged from the asset definition and tools (no data in the store)"
    tele = asset.sensors_of("telemetry")
    others = _other_sources(asset, [s.source for s in asset.sensors])
    vib = asset.sensors_of("vibration")

    def has_tools(domain: str) -> tuple[bool, str]:
        n = len(tools[domain])
        if n:
            return True, f"{n} {domain} tools registered"
        return False, f"{domain} tools are not registered for {cls}"

    def declared(ok: bool, yes: str, no: str) -> tuple[bool, str]:
        return ok, f"{tag}: {yes if ok else no}"

    return {
        "iot": [
            declared(
                bool(tele),
                f"{len(tele)} telemetry sensors{others} declared",
                "no telemetry sensors declared",
            ),
            has_tools("iot"),
        ],
        "fmsr": [
            declared(
                bool(asset.failure_modes),
                f"{len(asset.failure_modes)} failure modes declared with revealing sensors",
                "no failure modes declared",
            ),
            has_tools("fmsr"),
        ],
        "tsfm": [
            declared(
                bool(tele),
                f"{len(tele)} telemetry sensors declared (no readings to forecast yet)",
                "no telemetry sensors declared",
            ),
            has_tools("tsfm"),
        ],
        "wo": [
            declared(
                bool(asset.failure_modes),
                f"{len(asset.failure_modes)} failure codes declared",
                "no failure codes declared",
            ),
            has_tools("wo"),
        ],
        "vibration": [
            declared(
                bool(vib),
                f"{len(vib)} vibration sensors declared",
                "no vibration sensors in the asset definition",
            ),
            has_tools("vibration"),
        ],
    }


def domain_support(
    asset: AssetClass,
    inventory: GroundedInventory | None,
    tools: Iterable[ToolSpec],
) -> tuple[list[DomainSupport], list[DomainSupport]]:
    """Judge every scenario domain from the grounded data and the registered tools.

    Args:
        asset: The asset class (its ``domains`` list gates every domain).
        inventory: The grounded inventory, or None in closed form.
        tools: The registered tools (only those of ``asset``'s class count).

    Returns:
        ``(supported, unsupported)``, each in the order of :data:`DOMAINS`.
    """
    specs = list(tools)
    by_domain = {d: _tool_names(specs, asset, d) for d in DOMAINS}
    modes = failure_mode_profiles(asset, inventory)
    checks = (
        _closed_form_checks(asset, by_domain)
        if inventory is None
        else _open_form_checks(asset, inventory, modes, by_domain)
    )
    declared = set(asset.domains)
    not_declared = (
        False,
        f"not listed in assets/{asset.asset_class}/asset.yaml `domains`",
    )
    judged: dict[str, DomainSupport] = {}
    for d in SINGLE_DOMAINS:
        cs = checks[d] + ([] if d in declared else [not_declared])
        judged[d] = _judge(d, by_domain[d], cs)
    singles = [d for d in SINGLE_DOMAINS if judged[d].supported]
    multi_tools = sorted(
        {t for d in singles for t in judged[d].tools} | set(by_domain["multiagent"])
    )
    multi_checks = [
        (
            len(singles) >= 2,
            f"combines {len(singles)} supported single domains ({', '.join(singles)})"
            if len(singles) >= 2
            else f"needs ≥ 2 supported single domains, has {len(singles)}"
            + (f" ({', '.join(singles)})" if singles else ""),
        )
    ]
    if "multiagent" not in declared:
        multi_checks.append(not_declared)
    judged["multiagent"] = _judge("multiagent", multi_tools, multi_checks)
    ordered = [judged[d] for d in DOMAINS]
    return [d for d in ordered if d.supported], [d for d in ordered if not d.supported]


def task_themes(
    supported: Iterable[DomainSupport],
    failure_modes: Iterable[FailureModeProfile],
    themes: Iterable[ThemeSpec],
) -> list[TaskTheme]:
    """Operator and manager task themes, derived deterministically from the support lists.

    One operator theme per failure mode the store can show (every mode in closed form is
    left to the generic diagnosis theme), then the class's themes (``task_themes`` of its
    vocabulary.yaml) whose domains are all supported.
    """
    names = {d.domain for d in supported}
    out: list[TaskTheme] = []
    if "fmsr" in names:
        for fm in failure_modes:
            if fm.observable:
                uses = ["fmsr", "iot"] if "iot" in names else ["fmsr"]
                out.append(TaskTheme(role="operator", theme=f"Recognise {fm.name}", domains=uses))
    for spec in themes:
        role, theme, needs = spec.role, spec.theme, spec.needs
        if all(n in names for n in needs):
            # A theme spanning three domains is a multi-agent task when that is supported.
            multi = len(needs) >= 3 and "multiagent" in names
            doms = ["multiagent", *needs] if multi else list(needs)
            out.append(TaskTheme(role=role, theme=theme, domains=doms))
    return out


def standards(asset: AssetClass) -> list[StandardRef]:
    """The standards the class's tools follow, from its asset.yaml."""
    return [StandardRef(id=s.id, edition=s.edition, title=s.title) for s in asset.standards]


__all__ = [
    "MIN_HOURLY_READINGS",
    "domain_support",
    "empty_inventory",
    "failure_mode_profiles",
    "ground",
    "is_gas",
    "public_url",
    "standards",
    "store_fingerprint",
    "task_themes",
]
