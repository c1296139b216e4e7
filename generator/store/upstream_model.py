"""The fleet in upstream AssetOpsBench's own data model, beside ours (issue 30, part 3).

Upstream's MCP servers (samyama-ai/AssetOpsBench 762e216, a merged tree of IBM main) read
three databases, each named by their ``.env``:

- ``ASSET_DBNAME`` (default ``asset``), the asset registry the IoT server's ``sites()``,
  ``assets(site)``, ``get_asset`` and ``asset_sensors`` query: documents with
  ``doctype: "asset"``, ``assetnum``, ``iot_asset_id``, ``wo_assetnum``, ``siteid``,
  ``assettype``, ``status``, ``description``, ``location``, ``installdate``, ``vintage`` and
  ``sensors`` (a list of names).
- ``IOT_DBNAME``, telemetry for every asset in one database: flat
  ``{asset_id, timestamp, <sensor>: value}``; ``sensors()`` lists the union of the keys of
  an asset's documents minus ``_id``, ``_rev``, ``asset_id`` and ``timestamp`` (so any other
  field reads as a sensor), ``history()`` sorts on ``[asset_id, timestamp]``.
- ``WO_DBNAME`` (default ``workorder``), Maximo ``mxwo`` work orders: ``type: "workorder"``,
  ``_id`` ``wo:{SITEID}:{wonum}`` (``get_workorder`` reads it directly), ``siteid``
  upper-case (the tools upper-case the site they are given), ``assetnum``, ``status`` and
  ``worktype`` from Maximo's lists, ``wopriority`` an integer 1-5, ``description`` at most
  100 characters, ``reportdate`` an ISO string, hours and costs as floats.

Upstream's FMSR server reads its failure modes from a YAML file beside its code, not from
the store, so nothing is written for it. Its store reset claims the names ``asset``,
``iot`` and ``workorder`` (ours too); the derived databases are named with an ``aob_``
prefix so neither side overwrites the other. Our tools never read them.

Every document here is a pure function of the simulated fleet's documents (the same
fleet the fleet digests pin), so a seed writes them with the rest and they are as
deterministic as ours.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from generator.assetdef import AssetClass

Doc = dict[str, Any]

# Bumped when the derived documents change; the seed marker records it, and a store whose
# marker records another version (or none: seeded before this existed) gets them rewritten.
UPSTREAM_MODEL_VERSION = 1

# Upstream's `.env` key → our database name (before SCENARIOGEN_DB_PREFIX).
UPSTREAM_DATABASES: dict[str, str] = {
    "ASSET_DBNAME": "aob_asset",
    "IOT_DBNAME": "aob_iot",
    "WO_DBNAME": "aob_workorder",
}
ASSET_DB, IOT_DB, WO_DB = UPSTREAM_DATABASES.values()

# The field our documents in shared databases carry (generator.store.seed.CLASS_FIELD).
# Registry and work-order documents carry it; telemetry documents cannot (upstream would
# list it as a sensor), so theirs is the `_id` prefix `<asset class>:`.
CLASS_FIELD = "asset_class"

# Fields of our telemetry documents that are not sensors (generator.store.query.META_FIELDS).
TELEMETRY_META = frozenset(
    {"_id", "_rev", "asset_id", "site_name", "timestamp", "dataset", CLASS_FIELD}
)

# Mango indexes per derived database: the ones upstream's loader creates
# (src/couchdb/collections.json at 762e216), so `history()`'s sort has its index.
UPSTREAM_INDEXES: dict[str, list[tuple[list[str], str]]] = {
    ASSET_DB: [
        (["doctype", "assetnum"], "aob-by-assetnum"),
        (["doctype", "siteid"], "aob-by-site"),
        (["doctype", "iot_asset_id"], "aob-by-iot-id"),
    ],
    IOT_DB: [(["asset_id", "timestamp"], "aob-by-asset-time")],
    WO_DB: [
        (["type", "siteid", "status"], "aob-by-site-status"),
        (["type", "assetnum", "reportdate"], "aob-by-asset-date"),
        (["type", "wonum"], "aob-by-wonum"),
    ],
}

# Our work-order kind → Maximo work type (upstream's list: CM PM EM PdM CAL INSP GEN).
WORKTYPE = {"preventive": "PM", "corrective": "CM"}
DESCRIPTION_MAX = 100  # Maximo's description length (upstream validates it on write)


def database_names(prefix: str) -> dict[str, str]:
    """Upstream `.env` key → physical database name under ``prefix``."""
    return {key: prefix + name for key, name in UPSTREAM_DATABASES.items()}


def site_id(site_name: str) -> str:
    """Maximo site id of one of our sites: upper-case, as upstream's WO tools query it."""
    return site_name.upper()


def telemetry_sensors(docs: Iterable[Doc]) -> dict[str, list[str]]:
    """Sensors per asset: the union of the keys of its telemetry documents minus metadata."""
    out: dict[str, set[str]] = {}
    for doc in docs:
        out.setdefault(str(doc["asset_id"]), set()).update(
            k for k in doc if k not in TELEMETRY_META
        )
    return {aid: sorted(keys) for aid, keys in out.items()}


def _short(text: str) -> str:
    """``text`` cut to Maximo's 100 characters (the last one an ellipsis when cut)."""
    return text if len(text) <= DESCRIPTION_MAX else text[: DESCRIPTION_MAX - 1] + "…"


def registry_docs(asset: AssetClass, docs: dict[str, list[Doc]]) -> list[Doc]:
    """One ``doctype: asset`` document per nameplate; all three ids are our asset id."""
    sensors = telemetry_sensors(docs.get("telemetry", []))
    out = []
    for plate in sorted(docs.get("nameplate", []), key=lambda d: str(d["asset_id"])):
        aid = str(plate["asset_id"])
        site = str(plate["site_name"])
        name = plate.get("equipment_name") or f"{asset.display_name} {aid} ({site})"
        out.append(
            {
                "_id": f"asset:{aid}",
                "doctype": "asset",
                "assetnum": aid,
                "iot_asset_id": aid,
                "wo_assetnum": aid,
                "description": str(name),
                "siteid": site_id(site),
                "status": "OPERATING",
                "assettype": asset.asset_class.upper(),
                "location": None,
                "installdate": None,
                "vintage": None,
                "sensors": sensors.get(aid, []),
                "nameplate": {
                    k: v for k, v in plate.items() if k not in TELEMETRY_META
                },
                CLASS_FIELD: asset.asset_class,
            }
        )
    return out


def iot_docs(asset: AssetClass, docs: dict[str, list[Doc]]) -> list[Doc]:
    """Our telemetry, flat, with nothing but ``asset_id``, ``timestamp`` and the sensors."""
    out = []
    for doc in docs.get("telemetry", []):
        aid, ts = str(doc["asset_id"]), str(doc["timestamp"])
        row: Doc = {"_id": f"{asset.asset_class}:{aid}:{ts}", "asset_id": aid, "timestamp": ts}
        row.update((k, v) for k, v in doc.items() if k not in TELEMETRY_META)
        out.append(row)
    return out


def workorder_docs(asset: AssetClass, docs: dict[str, list[Doc]]) -> list[Doc]:
    """Our work orders (``dataset: wo_events``) as Maximo ``mxwo`` documents.

    ``wonum`` is our ``wo_id`` (so both sides name an order the same way), ``assetnum`` our
    equipment id, ``siteid`` the order's site (else its asset's), ``worktype`` PM or CM,
    ``status`` COMP with ``actfinish`` and ``status_date`` when the order has an actual
    finish, else WAPPR; a corrective order's ``failurecode`` is its primary failure code.
    Dates are copied as they are. A field our order lacks is left out (upstream's
    documents are partial too: only ``wonum`` is required).
    """
    site_of = {str(p["asset_id"]): str(p["site_name"]) for p in docs.get("nameplate", [])}
    out = []
    for wo in docs.get("workorders", []):
        if wo.get("dataset") != "wo_events":
            continue
        aid = str(wo["equipment_id"])
        site = site_id(str(wo.get("site_name") or site_of.get(aid, "")))
        wonum = str(wo.get("wo_id") or wo["_id"])
        finished = wo.get("actual_finish")
        doc: Doc = {
            "_id": f"wo:{site}:{wonum}",
            "type": "workorder",
            "wonum": wonum,
            "siteid": site,
            "assetnum": aid,
            "status": "COMP" if finished else "WAPPR",
            "aob_asset_class": asset.asset_class,
            CLASS_FIELD: asset.asset_class,
        }
        text = str(wo.get("wo_description") or "")
        if text:
            doc["description"] = _short(text)
            if len(text) > DESCRIPTION_MAX:
                doc["description_longdescription"] = text
        if str(wo.get("wo_type")) in WORKTYPE:
            doc["worktype"] = WORKTYPE[str(wo["wo_type"])]
        priority = wo.get("work_priority")
        if isinstance(priority, int) and 1 <= priority <= 5:
            doc["wopriority"] = priority
        if wo.get("reported_date"):
            doc["reportdate"] = str(wo["reported_date"])
        if finished:
            doc["actfinish"] = doc["status_date"] = str(finished)
        if wo.get("actual_labor_hours") is not None:
            doc["actlabhrs"] = float(wo["actual_labor_hours"])
        code = wo.get("primary_code") or wo.get("failure_code")
        if wo.get("wo_type") == "corrective" and code:
            doc["failurecode"] = str(code)
        out.append(doc)
    return sorted(out, key=lambda d: str(d["_id"]))


def derive(asset: AssetClass, docs: dict[str, list[Doc]]) -> dict[str, list[Doc]]:
    """The class's documents in upstream's model, by our database name (no prefix)."""
    return {
        ASSET_DB: registry_docs(asset, docs),
        IOT_DB: iot_docs(asset, docs),
        WO_DB: workorder_docs(asset, docs),
    }
