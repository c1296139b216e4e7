"""Write a simulated fleet into the store: idempotent, resumable, with a completion marker.

Every document has a deterministic ``_id``, so a re-run writes only what is missing. A
marker document in ``scenariogen_meta`` says ``in_progress`` until every database and
index is written, then ``complete``; readers refuse an ``in_progress`` store with a fix.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import ASSETS_DIR, TRUTH_KEY, AssetClass, available_asset_classes
from generator.config import is_private_db
from generator.errors import UserError
from generator.store import upstream_model
from generator.store.couch import SNAPSHOT_PAGE, CouchClient, Doc

META_DB = "scenariogen_meta"
# Version of how a class's documents are laid out in the store (part of the fingerprint).
STORE_LAYOUT = 2
BATCH = 2000
# CouchDB's per-database security object that limits reading to server admins: members
# with role `_admin` only (Apache CouchDB enforces it; the bundled server applies the
# same rule by name, see generator.config.PRIVATE_DB_PATTERNS).
ADMIN_ONLY_SECURITY: dict[str, Any] = {
    "admins": {"names": [], "roles": ["_admin"]},
    "members": {"names": [], "roles": ["_admin"]},
}

# The field a document written into a database shared with another class carries.
CLASS_FIELD = "asset_class"

# Generic Mango indexes per logical database: (fields, name). A class adds its own in
# asset.yaml's `indexes` (see :func:`indexes_of`).
INDEXES: dict[str, list[tuple[list[str], str]]] = {
    "telemetry": [(["asset_id", "timestamp"], "by-asset-time"), (["site_name"], "by-site")],
    "nameplate": [(["site_name"], "by-site")],
    "workorders": [
        (["dataset"], "by-dataset"),
        (["dataset", "equipment_id", "reported_date"], "wo-by-equipment-date"),
        (["dataset", "equipment_id", "event_time"], "ev-by-equipment-time"),
        (["dataset", "equipment_id", "start_time"], "al-by-equipment-time"),
    ],
}


class SeedReport(BaseModel):
    """What ``env seed`` did."""

    model_config = ConfigDict(extra="forbid")

    asset_class: str = Field(description="Asset class seeded")
    fingerprint: str = Field(description="Hash of the fleet spec and simulator version")
    action: str = Field(
        description="'seeded', 'resumed', 'unchanged', or 'extended' (a complete fleet got "
        "the documents of upstream's data model it lacked)"
    )
    written: dict[str, int] = Field(description="Documents written per database")
    upstream: dict[str, int] = Field(
        default_factory=dict,
        description="Documents written per database of upstream's data model (no prefix)",
    )
    total: dict[str, int] = Field(description="Documents expected per database")
    seconds: dict[str, float] = Field(description="Time per phase")


def marker_id(asset_class: str) -> str:
    """Id of the seed marker document of an asset class."""
    return f"seed:{asset_class}"


def database_names(asset: AssetClass, prefix: str) -> dict[str, str]:
    """Logical → physical database names for an asset class (``truth`` included)."""
    names = {k: asset.database(k) for k in asset.databases} | {
        TRUTH_KEY: asset.database(TRUTH_KEY)
    }
    return {k: prefix + v for k, v in names.items()}


def indexes_of(asset: AssetClass) -> dict[str, list[tuple[list[str], str]]]:
    """The generic indexes of the class's logical databases plus its declared ones.

    Every sensor source's database gets the ``by-asset-time`` index the time-window
    queries sort on.
    """
    out: dict[str, list[tuple[list[str], str]]] = {
        k: list(v) for k, v in INDEXES.items() if k in asset.databases
    }
    by_time: list[tuple[list[str], str]] = [(["asset_id", "timestamp"], "by-asset-time")]
    declared = {
        logical: [(list(i.fields), i.name) for i in extra]
        for logical, extra in asset.indexes.items()
    }
    for src in asset.sources.values():
        declared.setdefault(src.database, [])[:0] = by_time
    for logical, extra in declared.items():
        have = {name for _, name in out.get(logical, [])}
        for fields, name in extra:
            if name not in have:
                out.setdefault(logical, []).append((fields, name))
                have.add(name)
    return out


def _recorded_databases(client: CouchClient, prefix: str, asset_class: str) -> dict[str, set[str]]:
    """Other classes' physical databases, as their seed markers in the store record them."""
    meta = prefix + META_DB
    if not client.db_exists(meta):
        return {}
    out: dict[str, set[str]] = {}
    for doc in client.all_docs(meta):
        doc_id = str(doc.get("_id", ""))
        if not doc_id.startswith("seed:") or doc_id == marker_id(asset_class):
            continue
        dbs = doc.get("databases")
        if isinstance(dbs, dict):
            out[doc_id.removeprefix("seed:")] = {str(v) for v in dbs.values()}
    return out


def shared_databases(
    client: CouchClient, asset: AssetClass, prefix: str, root: Path = ASSETS_DIR
) -> set[str]:
    """Logical keys of the class's databases that another class also uses.

    Another class is one discovered under ``root`` or one whose seed marker in the store
    records its databases.
    """
    names = database_names(asset, prefix)
    others: set[str] = set()
    for cls, dbs in _recorded_databases(client, prefix, asset.asset_class).items():
        if cls != asset.asset_class:
            others |= dbs
    from generator.assetdef import load_asset_class

    for cls in available_asset_classes(root):
        if cls == asset.asset_class:
            continue
        try:
            others |= set(database_names(load_asset_class(cls, root), prefix).values())
        except UserError:
            continue  # a class still being written declares nothing reliable yet
    return {k for k, db in names.items() if db in others}


def _own_doc_ids(client: CouchClient, db: str, asset_class: str) -> list[Doc]:
    """``_id``/``_rev`` of the documents in ``db`` that carry ``asset_class``."""
    return client.find(db, {CLASS_FIELD: asset_class}, fields=["_id", "_rev"])


def fingerprint(asset: AssetClass, spec: BaseModel, simulator_version: str) -> str:
    """Hash of what determines the fleet's documents."""
    payload = json.dumps(
        {
            "asset": asset.asset_class,
            "spec": spec.model_dump(mode="json"),
            "sim": simulator_version,
            # 2: truth per class, `asset_class` on documents in shared databases
            "layout": STORE_LAYOUT,
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def read_marker(client: CouchClient, asset_class: str, prefix: str) -> dict[str, Any] | None:
    """The seed marker, or None when the store was never seeded by us."""
    if not client.db_exists(prefix + META_DB):
        return None
    return client.get(prefix + META_DB, marker_id(asset_class))


def _data_ids(client: CouchClient, db: str) -> set[str]:
    """Ids of the non-design documents of ``db``."""
    return {i for i in client.all_doc_ids(db) if not i.startswith("_design/")}


def drop(
    client: CouchClient, asset: AssetClass, prefix: str, root: Path = ASSETS_DIR
) -> None:
    """Delete the asset class's data and its marker, leaving every other class's intact.

    Databases only this class uses are deleted whole; in a database shared with another
    class (see :func:`shared_databases`) only the documents carrying this class's
    ``asset_class`` field are deleted, and the database itself once nothing else is left.
    """
    names = database_names(asset, prefix)
    shared = shared_databases(client, asset, prefix, root)
    for logical, db in names.items():
        if logical not in shared:
            client.delete_db(db)
            continue
        if not client.db_exists(db):
            continue
        mine = _own_doc_ids(client, db, asset.asset_class)
        for i in range(0, len(mine), BATCH):
            chunk = [
                {"_id": d["_id"], "_rev": d["_rev"], "_deleted": True}
                for d in mine[i : i + BATCH]
            ]
            client.bulk_docs(db, chunk)
        if not _data_ids(client, db):
            client.delete_db(db)  # the other classes have nothing here (yet)
    drop_upstream_model(client, asset.asset_class, prefix)
    meta = prefix + META_DB
    if client.db_exists(meta):
        client.delete(meta, marker_id(asset.asset_class))


def _delete_all(client: CouchClient, db: str, docs: list[Doc]) -> None:
    for i in range(0, len(docs), BATCH):
        gone = [{"_id": d["_id"], "_rev": d["_rev"], "_deleted": True} for d in docs[i : i + BATCH]]
        client.bulk_docs(db, gone)


def drop_upstream_model(client: CouchClient, asset_class: str, prefix: str) -> None:
    """Delete the class's documents from the databases of upstream's data model
    (:mod:`generator.store.upstream_model`), and each database once nothing is left."""
    for name in upstream_model.UPSTREAM_DATABASES.values():
        db = prefix + name
        if not client.db_exists(db):
            continue
        if name == upstream_model.IOT_DB:
            # Telemetry carries no class field (upstream would list it as a sensor): its
            # ids start with `<class>:`, and `;` is the character after `:`.
            selector: Doc = {"_id": {"$gt": f"{asset_class}:", "$lt": f"{asset_class};"}}
        else:
            selector = {CLASS_FIELD: asset_class}
        _delete_all(client, db, client.find(db, selector, fields=["_id", "_rev"]))
        if not _data_ids(client, db):
            client.delete_db(db)


def write_missing(
    client: CouchClient,
    db: str,
    docs: list[Doc],
    *,
    resume: bool,
    progress: Callable[[str, int, int], None] | None,
    label: str,
) -> int:
    """Bulk-write ``docs`` into ``db`` in batches (with ``resume``, skipping ids already
    there); returns how many were written.

    Raises:
        UserError: The server refused or silently dropped a document (a conflict with an
            earlier, interrupted write of the same document is fine).
    """
    existing = client.all_doc_ids(db) if resume else set()
    todo = [d for d in docs if d["_id"] not in existing]
    done = 0
    for i in range(0, len(todo), BATCH):
        chunk = todo[i : i + BATCH]
        results = client.bulk_docs(db, chunk)
        failed = [
            (doc_id, r.get("error"), r.get("reason"))
            for doc_id, r in results.items()
            if r.get("error") and r.get("error") != "conflict"
        ]
        missing = [d["_id"] for d in chunk if d["_id"] not in results]
        if failed or missing:
            raise UserError(
                f"writing {db} failed for {len(failed) + len(missing)} documents "
                f"(first: {(failed or missing)[0]})",
                fix="re-run `scenariogen env seed` to resume; check the server log if it "
                "persists",
            )
        done += len(chunk)
        if progress:
            progress(label, done, len(todo))
    return done


def write_upstream_model(
    client: CouchClient,
    derived: dict[str, list[Doc]],
    prefix: str,
    *,
    resume: bool,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, int]:
    """Write a class's fleet in upstream's data model (asset registry, one telemetry
    database, Maximo work orders: ``derived`` from :func:`upstream_model.derive`) and
    create their indexes.

    With ``resume`` documents already there (by id) are skipped. Returns the documents
    written per database (name without prefix).
    """
    written: dict[str, int] = {}
    for name, batch_docs in derived.items():
        db = prefix + name
        client.create_db(db)
        written[name] = write_missing(client, db, batch_docs, resume=resume,
                                      progress=progress, label=name)
        for fields, index in upstream_model.UPSTREAM_INDEXES[name]:
            client.create_index(db, fields, index)
    return written


def read_like_snapshot(client: CouchClient, dbs: Iterable[str]) -> int:
    """Read each of ``dbs`` once, exactly as a run's snapshot reads it; return the rows.

    Its purpose is the bundled server's read cache (``server/readcache.js``): seeding
    empties it, and this read fills it again, so the first generation run after a seed
    does not wait for PouchDB's per-document lookups. On Apache CouchDB it is just a read.
    Nothing depends on it: a snapshot reads the store the same way with or without it.
    """
    rows = 0
    for db in dbs:
        if client.db_exists(db):
            rows += sum(1 for _ in client.all_docs(db, page=SNAPSHOT_PAGE))
    return rows


def seed(
    client: CouchClient,
    asset: AssetClass,
    spec: BaseModel,
    *,
    prefix: str = "",
    replace: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    root: Path = ASSETS_DIR,
    record_spec: bool = True,
    upstream: bool = True,
) -> SeedReport:
    """Simulate the fleet for ``spec`` and write it, resuming an interrupted seed.

    With ``upstream`` (the default) the fleet is also written in upstream AssetOpsBench's
    data model (:mod:`generator.store.upstream_model`), and a complete fleet seeded without
    it is extended; a held-out private fleet, read only through our own tools, passes False.

    Every document written into a database shared with another class (the work-order
    database always) carries ``asset_class``, so readers and :func:`drop` can tell the
    classes apart; ``root`` is where the other classes are discovered. The marker records
    the spec unless ``record_spec`` is False (a held-out fleet, whose seed is its secret
    key): then only the fingerprint, a hash over the whole spec, says which fleet it is.

    Raises:
        UserError: the store holds a different fleet and ``replace`` is False.
        StoreUnavailable: the store cannot be reached.
    """
    timings: dict[str, float] = {}
    client.server_info()  # fail fast with a clear message when the store is down
    simulator = asset.load_simulator()
    sim_version = getattr(
        __import__(simulator.__module__, fromlist=["_"]), "SIMULATOR_VERSION", "0"
    )
    fp = fingerprint(asset, spec, sim_version)
    marker = read_marker(client, asset.asset_class, prefix)
    if marker is not None and marker.get("fingerprint") != fp and not replace:
        held = marker.get("spec")
        shown = (
            f"seed {held.get('seed')}, {held.get('sites')} sites × {held.get('units_per_site')} "
            f"units, {held.get('days')} days"
            if isinstance(held, dict)
            else f"fingerprint {marker.get('fingerprint')}"
        )
        raise UserError(
            f"the store already holds a different {asset.asset_class} fleet "
            f"({shown}; status {marker.get('status')})",
            fix="pass --drop to replace it, or set SCENARIOGEN_DB_PREFIX to keep both",
        )
    if replace:
        drop(client, asset, prefix, root)
        marker = None
    if (
        upstream
        and marker is not None
        and marker.get("status") == "complete"
        and marker.get("upstream_model") != upstream_model.UPSTREAM_MODEL_VERSION
    ):
        # Seeded before the upstream model existed (or by another version of it): add it.
        t = time.perf_counter()
        fleet_docs = simulator(spec).docs
        simulated = time.perf_counter() - t
        t = time.perf_counter()
        drop_upstream_model(client, asset.asset_class, prefix)
        derived = upstream_model.derive(asset, fleet_docs)
        added = write_upstream_model(client, derived, prefix, resume=False, progress=progress)
        marker.update(
            upstream_model=upstream_model.UPSTREAM_MODEL_VERSION,
            upstream_counts={k: len(v) for k, v in derived.items()},
        )
        client.put(prefix + META_DB, marker)
        return SeedReport(
            asset_class=asset.asset_class,
            fingerprint=fp,
            action="extended",
            written={},
            upstream=added,
            total=marker.get("counts", {}),
            seconds={"simulate": round(simulated, 3), "write": round(time.perf_counter() - t, 3)},
        )
    if marker is not None and marker.get("status") == "complete":
        return SeedReport(
            asset_class=asset.asset_class,
            fingerprint=fp,
            action="unchanged",
            written={},
            total=marker.get("counts", {}),
            seconds={},
        )
    resumed = marker is not None
    t = time.perf_counter()
    fleet = simulator(spec)
    timings["simulate"] = time.perf_counter() - t
    docs: dict[str, list[dict[str, Any]]] = fleet.docs
    upstream_docs = upstream_model.derive(asset, docs) if upstream else {}
    names = database_names(asset, prefix)
    unknown = sorted(set(docs) - set(names))
    if unknown:
        raise UserError(
            f"the {asset.asset_class} simulator returned documents for unknown database "
            f"{unknown[0]!r}",
            options=sorted(names),
            fix=f"declare it under `databases` in assets/{asset.asset_class}/asset.yaml",
        )
    # Work orders are stamped even before a second class arrives: classes share upstream's
    # one work-order database by design, and a later class must not read these as its own.
    stamped = shared_databases(client, asset, prefix, root) | {"workorders"}
    for logical in stamped & set(docs):
        docs[logical] = [d | {CLASS_FIELD: asset.asset_class} for d in docs[logical]]
    meta = prefix + META_DB
    client.create_db(meta)
    status_doc = {
        "_id": marker_id(asset.asset_class),
        "status": "in_progress",
        "fingerprint": fp,
        **({"spec": spec.model_dump(mode="json")} if record_spec else {}),
        "simulator_version": sim_version,
        "counts": {k: len(v) for k, v in docs.items()},
        "databases": names,
        "upstream_counts": {k: len(v) for k, v in upstream_docs.items()},
        "started_at": time.time(),
    }
    client.put(meta, status_doc)
    written: dict[str, int] = {}
    t = time.perf_counter()
    for logical in sorted(names.keys() - docs.keys()):
        # Declared but empty: readers find it all the same.
        if client.create_db(names[logical]) and is_private_db(names[logical]):
            client.set_security(names[logical], ADMIN_ONLY_SECURITY)
    for logical, batch_docs in docs.items():
        db = names[logical]
        client.create_db(db)
        if is_private_db(db):
            client.set_security(db, ADMIN_ONLY_SECURITY)
        written[logical] = write_missing(client, db, batch_docs, resume=resumed,
                                         progress=progress, label=logical)
    timings["write"] = time.perf_counter() - t
    t = time.perf_counter()
    for logical, indexes in indexes_of(asset).items():
        for fields, name in indexes:
            client.create_index(names[logical], fields, name)
    timings["index"] = time.perf_counter() - t
    t = time.perf_counter()
    upstream_written = write_upstream_model(
        client, upstream_docs, prefix, resume=resumed, progress=progress
    )
    timings["upstream"] = time.perf_counter() - t
    final = client.get(meta, marker_id(asset.asset_class)) or status_doc
    final.update(
        status="complete",
        finished_at=time.time(),
        upstream_model=upstream_model.UPSTREAM_MODEL_VERSION if upstream else None,
    )
    client.put(meta, final)
    t = time.perf_counter()
    read_like_snapshot(client, names.values())
    timings["warm"] = time.perf_counter() - t
    return SeedReport(
        asset_class=asset.asset_class,
        fingerprint=fp,
        action="resumed" if resumed else "seeded",
        written=written,
        upstream=upstream_written,
        total={k: len(v) for k, v in docs.items()},
        seconds={k: round(v, 3) for k, v in timings.items()},
    )
