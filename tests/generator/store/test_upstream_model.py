"""Upstream AssetOpsBench's servers, pointed at our store, list what our tools list (issue 30/3).

The queries below are the ones upstream's servers send, transcribed (not imported: CI has
no upstream checkout) from samyama-ai/AssetOpsBench commit
762e2169669b6f87419468c51314ca1da06349f3 (a merged tree of IBM main, 2026-06-28):

- `src/servers/iot/main.py` (couchdb3 `Database.find(selector, fields=..., limit=...)`, i.e.
  `POST /{db}/_find` with that body):
  - `get_registry_sites` (`sites()`): ASSET_DBNAME, `{"doctype": "asset"}`,
    fields `["siteid"]`, limit 100000; distinct non-empty `siteid`.
  - `assets(site_name)`: ASSET_DBNAME, `{"doctype": "asset", "siteid": site_name}`, fields
    `["assetnum", "iot_asset_id"]`, limit 100000; ids `iot_asset_id or assetnum`.
  - `get_sensor_list` (`sensors()`): IOT_DBNAME, `{"asset_id": asset_id}`, limit 100000;
    the union of the keys of every document minus `_id`, `_rev`, `asset_id`, `timestamp`.
  - `history()`: IOT_DBNAME, `{"asset_id": id, "timestamp": {"$gte": start, "$lt": final}}`,
    limit 1000, sort `[{"asset_id": "asc"}, {"timestamp": "asc"}]`.
  - `get_asset_list`: IOT_DBNAME, `{"asset_id": {"$exists": True}}`, fields `["asset_id"]`.
  - `get_asset_doc` (`get_asset`, `asset_sensors`): ASSET_DBNAME,
    `{"doctype": "asset", F: id}` limit 1 for F in assetnum, iot_asset_id, wo_assetnum;
    the `AssetDetail` model wants description/assettype/status/location/installdate/vintage
    as strings or null, `sensors` a list.
- `src/servers/wo/workorders.py` (its `couch.py` posts `{"selector", "limit", "skip": 0}`):
  - `list_workorders`: `{"type": "workorder"}` plus `siteid` (upper-cased), `assetnum`,
    `status` (OPEN = `$in` WAPPR APPR WMATL WSCH INPRG WPCOND), `reportdate` `$gte`/`$lte`;
    limit 1000000.
  - `get_workorder`: `GET /{db}/wo:{SITE_ID.upper()}:{wonum}`.
  - `get_workorder_kpis`: `{"type": "workorder", "siteid": SITE}`, limit 10000.
- Field types: `src/servers/wo/models.py` (`WorkOrderItem`: wopriority int, hours float,
  dates str) and `src/couchdb/_design_workorders.json` (validate_doc_update: type
  "workorder", wonum a non-empty string, description <= 100 characters, status and worktype
  from fixed lists, wopriority an integer 1..5).

Ours: `FleetStore` (what our MCP tools call): sites, assets per site, sensors per asset,
work orders per asset, history rows per window.

A second part runs upstream's IoT and WO handler functions themselves when the mirror and
a Python with their dependencies (mcp < 2, couchdb3, httpx, python-dotenv) are present
(`SCENARIOGEN_AOB_PYTHON`); otherwise it skips.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.store.couch import CouchClient
from generator.store.query import META_FIELDS, FleetStore
from generator.store.seed import drop, read_marker, seed
from generator.store.upstream_model import TELEMETRY_META, UPSTREAM_DATABASES

CLASSES = ("transformer", "chiller")
OPEN = ["WAPPR", "APPR", "WMATL", "WSCH", "INPRG", "WPCOND"]
STATUS = [*OPEN, "COMP", "CLOSE", "CAN"]
WORKTYPE = ["CM", "PM", "EM", "PdM", "CAL", "INSP", "GEN"]
IOT_EXCLUDE = {"_id", "_rev", "asset_id", "timestamp"}


def _spec(cls: str, seed_value: int = 7) -> Any:
    return load_asset_class(cls).load_fleet_spec()(
        seed=seed_value, sites=2, units_per_site=2, days=7
    )


@pytest.fixture(scope="module")
def both(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    """Transformers and chillers (2 sites × 2 units × 7 days, seed 7) under one prefix."""
    settings = settings_for("aobm_")
    with CouchClient(settings) as client:
        for cls in CLASSES:
            seed(client, load_asset_class(cls), _spec(cls), prefix=settings.db_prefix)
    return settings


class Upstream:
    """Sends upstream's requests as they are, as the read-only tool account."""

    def __init__(self, settings: StoreSettings, tools: StoreSettings) -> None:
        assert tools.username and tools.password
        self.http = httpx.Client(
            base_url=tools.url, auth=(tools.username, tools.password), timeout=60
        )
        self.db = {k: settings.db_prefix + v for k, v in UPSTREAM_DATABASES.items()}

    def find(self, key: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        r = self.http.post(f"/{self.db[key]}/_find", json=body)
        r.raise_for_status()
        docs: list[dict[str, Any]] = r.json()["docs"]
        return docs

    # iot/main.py
    def sites(self) -> list[str]:
        docs = self.find("ASSET_DBNAME", {
            "selector": {"doctype": "asset"}, "fields": ["siteid"], "limit": 100000,
        })
        return sorted({str(d["siteid"]) for d in docs if d.get("siteid")})

    def assets(self, site: str) -> list[str]:
        docs = self.find("ASSET_DBNAME", {
            "selector": {"doctype": "asset", "siteid": site},
            "fields": ["assetnum", "iot_asset_id"], "limit": 100000,
        })
        return sorted((d.get("iot_asset_id") or d["assetnum"]) for d in docs)

    def sensors(self, asset_id: str) -> list[str]:
        docs = self.find("IOT_DBNAME", {"selector": {"asset_id": asset_id}, "limit": 100000})
        return sorted({k for d in docs for k in d if k not in IOT_EXCLUDE})

    def history(self, asset_id: str, start: str, final: str) -> list[dict[str, Any]]:
        return self.find("IOT_DBNAME", {
            "selector": {"asset_id": asset_id, "timestamp": {"$gte": start, "$lt": final}},
            "limit": 1000, "sort": [{"asset_id": "asc"}, {"timestamp": "asc"}],
        })

    def asset_list(self) -> list[str]:
        docs = self.find("IOT_DBNAME", {
            "selector": {"asset_id": {"$exists": True}}, "fields": ["asset_id"], "limit": 100000,
        })
        return sorted({d["asset_id"] for d in docs})

    def asset_doc(self, field: str, value: str) -> list[dict[str, Any]]:
        return self.find(
            "ASSET_DBNAME", {"selector": {"doctype": "asset", field: value}, "limit": 1}
        )

    # wo/workorders.py
    def workorders(self, **sel: Any) -> list[dict[str, Any]]:
        return self.find(
            "WO_DBNAME",
            {"selector": {"type": "workorder", **sel}, "limit": 1000000, "skip": 0},
        )

    def workorder(self, site: str, wonum: str) -> dict[str, Any] | None:
        r = self.http.get(f"/{self.db['WO_DBNAME']}/wo:{site.upper()}:{wonum}")
        if r.status_code == 404:
            return None
        r.raise_for_status()
        doc: dict[str, Any] = r.json()
        return doc


def _ours(settings: StoreSettings) -> dict[str, Any]:
    """Sites, assets per site, sensors and work orders per asset, by our tools."""

    async def one(cls: str) -> dict[str, Any]:
        store = FleetStore(load_asset_class(cls), settings)
        try:
            sites = await store.sites()
            assets = {s: sorted(str(p["asset_id"]) for p in await store.assets(s)) for s in sites}
            ids = [a for s in sites for a in assets[s]]
            return {
                "sites": sites,
                "assets": assets,
                "sensors": {a: await store.sensors(a) for a in ids},
                "work_orders": {a: await store.work_orders(a) for a in ids},
            }
        finally:
            store.close()

    out: dict[str, Any] = {"sites": set(), "assets": {}, "sensors": {}, "work_orders": {}}
    for cls in CLASSES:
        got = asyncio.run(one(cls))
        out["sites"] |= set(got["sites"])
        for site, ids in got["assets"].items():
            out["assets"].setdefault(site, []).extend(ids)
        out["sensors"].update(got["sensors"])
        out["work_orders"].update(got["work_orders"])
    out["sites"] = sorted(out["sites"])
    return out


def test_the_telemetry_metadata_is_ours() -> None:
    assert TELEMETRY_META == META_FIELDS


def test_upstream_iot_queries_list_our_sites_assets_and_sensors(
    both: StoreSettings, settings_for: Callable[..., StoreSettings]
) -> None:
    up = Upstream(both, settings_for(both.db_prefix, role="tools"))
    ours = _ours(both)
    # 2 transformer sites + 2 chiller sites; 2 units each.
    assert len(ours["sites"]) == 4 and all(len(v) == 2 for v in ours["assets"].values())
    assert up.sites() == ours["sites"]
    for site, ids in ours["assets"].items():
        assert up.assets(site) == sorted(ids), site
    assert up.asset_list() == sorted(ours["sensors"])
    for aid, sensors in ours["sensors"].items():
        assert sensors and up.sensors(aid) == sensors, aid
        for field in ("assetnum", "iot_asset_id", "wo_assetnum"):
            (doc,) = up.asset_doc(field, aid)
            assert doc["sensors"] == sensors
            for key in ("description", "assettype", "status", "location", "installdate", "vintage"):
                assert doc[key] is None or isinstance(doc[key], str), key


def test_upstream_history_returns_our_rows(
    both: StoreSettings, settings_for: Callable[..., StoreSettings]
) -> None:
    up = Upstream(both, settings_for(both.db_prefix, role="tools"))
    for cls in CLASSES:
        store = FleetStore(load_asset_class(cls), both)
        try:
            aid = str(asyncio.run(store.assets())[0]["asset_id"])
            span = asyncio.run(store.time_range(aid))
            assert span.start
            start = span.start
            final = (datetime.fromisoformat(start) + timedelta(days=2)).isoformat()
            mine = asyncio.run(store.history(aid, start, final))
        finally:
            store.close()
        theirs = up.history(aid, start, final)
        assert 0 < len(mine) <= 48 and len(theirs) == len(mine)
        for a, b in zip(mine, theirs, strict=True):
            assert b == {"_id": b["_id"], "_rev": b["_rev"]} | {
                k: v for k, v in a.items() if k not in META_FIELDS or k in ("asset_id", "timestamp")
            }


def test_upstream_wo_queries_count_our_work_orders(
    both: StoreSettings, settings_for: Callable[..., StoreSettings]
) -> None:
    up = Upstream(both, settings_for(both.db_prefix, role="tools"))
    ours = _ours(both)
    total = 0
    for site, ids in ours["assets"].items():
        per_site = 0
        for aid in ids:
            mine = ours["work_orders"][aid]
            theirs = up.workorders(siteid=site.upper(), assetnum=aid)
            assert mine and len(theirs) == len(mine), aid
            assert sorted(w["wonum"] for w in theirs) == sorted(w["wo_id"] for w in mine)
            for w in mine:
                doc = up.workorder(site, str(w["wo_id"]))
                assert doc is not None and doc["assetnum"] == aid
            per_site += len(mine)
        assert len(up.workorders(siteid=site.upper())) == per_site
        total += per_site
    assert len(up.workorders()) == total
    # Every order of ours has an actual finish: none is open upstream.
    assert up.workorders(status={"$in": OPEN}) == []


def test_upstream_work_orders_have_maximo_field_types(
    both: StoreSettings, settings_for: Callable[..., StoreSettings]
) -> None:
    up = Upstream(both, settings_for(both.db_prefix, role="tools"))
    docs = up.workorders()
    assert docs
    for d in docs:
        assert d["type"] == "workorder" and isinstance(d["wonum"], str) and d["wonum"]
        assert d["_id"] == f"wo:{d['siteid'].upper()}:{d['wonum']}"
        assert len(d["description"]) <= 100
        assert d["status"] in STATUS and d["worktype"] in WORKTYPE
        assert type(d["wopriority"]) is int and 1 <= d["wopriority"] <= 5
        # A JSON number (JavaScript servers write 3.0 as 3; pydantic's float takes both).
        assert type(d["actlabhrs"]) in (int, float) and d["actlabhrs"] > 0
        assert isinstance(d["reportdate"], str) and isinstance(d["actfinish"], str)
        assert d["actfinish"] >= d["reportdate"]
    assert {d["worktype"] for d in docs} == {"PM", "CM"}


def test_reseed_is_unchanged_and_an_older_store_is_extended(
    settings_for: Callable[..., StoreSettings],
) -> None:
    settings = settings_for("aobx_")
    asset = load_asset_class("transformer")
    p = settings.db_prefix
    with CouchClient(settings) as client:
        first = seed(client, asset, _spec("transformer"), prefix=p)
        assert first.action == "seeded" and first.upstream["aob_workorder"] > 0
        counts = {n: client.doc_count(p + n) for n in UPSTREAM_DATABASES.values()}
        assert seed(client, asset, _spec("transformer"), prefix=p).action == "unchanged"
        # A store seeded before the upstream model: its marker records no version.
        marker = read_marker(client, "transformer", p)
        assert marker is not None
        del marker["upstream_model"]
        client.put(p + "scenariogen_meta", marker)
        for name in UPSTREAM_DATABASES.values():
            client.delete_db(p + name)
        again = seed(client, asset, _spec("transformer"), prefix=p)
        assert again.action == "extended"
        assert {n: client.doc_count(p + n) for n in UPSTREAM_DATABASES.values()} == counts
        assert seed(client, asset, _spec("transformer"), prefix=p).action == "unchanged"


def test_drop_takes_only_the_class_out_of_upstream_databases(
    settings_for: Callable[..., StoreSettings],
) -> None:
    settings = settings_for("aobd_")
    p = settings.db_prefix
    tx, ch = load_asset_class("transformer"), load_asset_class("chiller")
    with CouchClient(settings) as client:
        seed(client, ch, _spec("chiller"), prefix=p)
        only_chiller = {n: client.doc_count(p + n) for n in UPSTREAM_DATABASES.values()}
        chiller_rows = sorted(d["_id"] for d in client.all_docs(p + "aob_iot"))
        seed(client, tx, _spec("transformer"), prefix=p)
        # --drop with another seed replaces the transformer's documents, not the chiller's.
        seed(client, tx, _spec("transformer", 8), prefix=p, replace=True)
        rows = sorted(d["_id"] for d in client.all_docs(p + "aob_iot"))
        assert [i for i in rows if i.startswith("chiller:")] == chiller_rows
        assert len(rows) > len(chiller_rows)
        drop(client, tx, p)
        assert {n: client.doc_count(p + n) for n in UPSTREAM_DATABASES.values()} == only_chiller
        drop(client, ch, p)
        assert not any(client.db_exists(p + n) for n in UPSTREAM_DATABASES.values())


# -- upstream's own handlers, when they can run here ---------------------------------------

MIRROR = Path(os.environ.get("SCENARIOGEN_AOB_MIRROR",
                             "/work/.mirror/samyama-ai+AssetOpsBench/repo"))
UPSTREAM_FILES = [
    "src/servers/__init__.py", "src/servers/iot/__init__.py", "src/servers/iot/main.py",
    "src/servers/wo/__init__.py", "src/servers/wo/main.py", "src/servers/wo/workorders.py",
    "src/servers/wo/couch.py", "src/servers/wo/envelope.py", "src/servers/wo/models.py",
]
# Calls the handler functions of upstream's servers (imported unchanged from the mirror)
# and prints what they list.
DRIVER = """
import asyncio, json, sys
from servers.iot import main as iot
from servers.wo import main as wo
out = {"sites": iot.sites().sites, "assets": {}, "sensors": {}, "work_orders": {}}
for site in out["sites"]:
    got = iot.assets(site)
    out["assets"][site] = got.assets
    for aid in got.assets:
        out["sensors"][aid] = iot.sensors(site, aid).sensors
        res = asyncio.run(wo.list_workorders(site_id=site, asset_num=aid, page_size=0))
        out["work_orders"][aid] = res.total
        wo._db = None  # a fresh client per event loop
json.dump(out, sys.stdout)
"""


def test_upstream_servers_unchanged_list_what_our_tools_list(
    both: StoreSettings, settings_for: Callable[..., StoreSettings], tmp_path: Path
) -> None:
    if not (MIRROR / "HEAD").exists() and not (MIRROR / ".git").exists():
        pytest.skip(f"no AssetOpsBench mirror at {MIRROR} (set SCENARIOGEN_AOB_MIRROR)")
    python = os.environ.get("SCENARIOGEN_AOB_PYTHON")
    if not python:
        pytest.skip("set SCENARIOGEN_AOB_PYTHON to a Python with mcp<2, couchdb3, httpx and "
                    "python-dotenv (upstream's server dependencies)")
    for rel in UPSTREAM_FILES:
        text = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"HEAD:{rel}"],
                              capture_output=True, text=True, check=True).stdout
        dest = tmp_path / rel.removeprefix("src/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
    tools = settings_for(both.db_prefix, role="tools")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "COUCHDB_URL": tools.url,
        "COUCHDB_USERNAME": tools.username or "",
        "COUCHDB_PASSWORD": tools.password or "",
        "AOB_READONLY": "1",
    } | {k: both.db_prefix + v for k, v in UPSTREAM_DATABASES.items()}
    run = subprocess.run([python, "-c", DRIVER], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    theirs = json.loads(run.stdout)
    ours = _ours(both)
    assert theirs["sites"] == ours["sites"]
    assert theirs["assets"] == {s: sorted(v) for s, v in ours["assets"].items()}
    assert theirs["sensors"] == ours["sensors"]
    assert theirs["work_orders"] == {a: len(w) for a, w in ours["work_orders"].items()}
    print(json.dumps({k: len(v) for k, v in theirs.items()}), file=sys.stderr)
