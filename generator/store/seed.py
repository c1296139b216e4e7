"""Write a simulated fleet into the store: idempotent, resumable, with a completion marker.

Every document has a deterministic ``_id``, so a re-run writes only what is missing. A
marker document in ``scenariogen_meta`` says ``in_progress`` until every database and
index is written, then ``complete``; readers refuse an ``in_progress`` store with a fix.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import AssetClass
from generator.config import is_private_db
from generator.errors import UserError
from generator.store.couch import CouchClient

META_DB = "scenariogen_meta"
TRUTH_DB = "scenariogen_truth"
BATCH = 2000
# CouchDB's per-database security object that limits reading to server admins: members
# with role `_admin` only (Apache CouchDB enforces it; the bundled server applies the
# same rule by name, see generator.config.PRIVATE_DB_PATTERNS).
ADMIN_ONLY_SECURITY: dict[str, Any] = {
    "admins": {"names": [], "roles": ["_admin"]},
    "members": {"names": [], "roles": ["_admin"]},
}

# Mango indexes per logical database: (fields, name).
INDEXES: dict[str, list[tuple[list[str], str]]] = {
    "telemetry": [(["asset_id", "timestamp"], "by-asset-time"), (["site_name"], "by-site")],
    "oil_samples": [(["asset_id", "timestamp"], "by-asset-time")],
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
    action: str = Field(description="'seeded', 'resumed' or 'unchanged'")
    written: dict[str, int] = Field(description="Documents written per database")
    total: dict[str, int] = Field(description="Documents expected per database")
    seconds: dict[str, float] = Field(description="Time per phase")


def marker_id(asset_class: str) -> str:
    """Id of the seed marker document of an asset class."""
    return f"seed:{asset_class}"


def database_names(asset: AssetClass, prefix: str) -> dict[str, str]:
    """Logical → physical database names for an asset class."""
    dbs = asset.databases
    names = {
        "telemetry": dbs.telemetry,
        "nameplate": dbs.nameplate,
        "workorders": dbs.workorders,
        "truth": TRUTH_DB,
    }
    if dbs.oil_samples:
        names["oil_samples"] = dbs.oil_samples
    return {k: prefix + v for k, v in names.items()}


def fingerprint(asset: AssetClass, spec: BaseModel, simulator_version: str) -> str:
    """Hash of what determines the fleet's documents."""
    payload = json.dumps(
        {
            "asset": asset.asset_class,
            "spec": spec.model_dump(mode="json"),
            "sim": simulator_version,
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def read_marker(client: CouchClient, asset_class: str, prefix: str) -> dict[str, Any] | None:
    """The seed marker, or None when the store was never seeded by us."""
    if not client.db_exists(prefix + META_DB):
        return None
    return client.get(prefix + META_DB, marker_id(asset_class))


def drop(client: CouchClient, asset: AssetClass, prefix: str) -> None:
    """Delete the asset class's databases and its marker."""
    for db in database_names(asset, prefix).values():
        client.delete_db(db)
    meta = prefix + META_DB
    if client.db_exists(meta):
        client.delete(meta, marker_id(asset.asset_class))


def seed(
    client: CouchClient,
    asset: AssetClass,
    spec: BaseModel,
    *,
    prefix: str = "",
    replace: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> SeedReport:
    """Simulate the fleet for ``spec`` and write it, resuming an interrupted seed.

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
        held = marker.get("spec", {})
        raise UserError(
            f"the store already holds a different {asset.asset_class} fleet "
            f"(seed {held.get('seed')}, {held.get('sites')} sites × {held.get('units_per_site')} "
            f"units, {held.get('days')} days; status {marker.get('status')})",
            fix="pass --drop to replace it, or set SCENARIOGEN_DB_PREFIX to keep both",
        )
    if replace:
        drop(client, asset, prefix)
        marker = None
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
    names = database_names(asset, prefix)
    meta = prefix + META_DB
    client.create_db(meta)
    status_doc = {
        "_id": marker_id(asset.asset_class),
        "status": "in_progress",
        "fingerprint": fp,
        "spec": spec.model_dump(mode="json"),
        "simulator_version": sim_version,
        "counts": {k: len(v) for k, v in docs.items()},
        "started_at": time.time(),
    }
    client.put(meta, status_doc)
    written: dict[str, int] = {}
    t = time.perf_counter()
    for logical, batch_docs in docs.items():
        db = names[logical]
        client.create_db(db)
        if is_private_db(db):
            client.set_security(db, ADMIN_ONLY_SECURITY)
        existing = client.all_doc_ids(db) if resumed else set()
        todo = [d for d in batch_docs if d["_id"] not in existing]
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
                progress(logical, done, len(todo))
        written[logical] = done
    timings["write"] = time.perf_counter() - t
    t = time.perf_counter()
    for logical, indexes in INDEXES.items():
        if logical in names:
            for fields, name in indexes:
                client.create_index(names[logical], fields, name)
    timings["index"] = time.perf_counter() - t
    final = client.get(meta, marker_id(asset.asset_class)) or status_doc
    final.update(status="complete", finished_at=time.time())
    client.put(meta, final)
    return SeedReport(
        asset_class=asset.asset_class,
        fingerprint=fp,
        action="resumed" if resumed else "seeded",
        written=written,
        total={k: len(v) for k, v in docs.items()},
        seconds={k: round(v, 3) for k, v in timings.items()},
    )
