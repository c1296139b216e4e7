"""The bundled server's read cache (server/readcache.js): same replies, writes seen, auth first.

A reply served from memory carries ``X-Scenariogen-Read-Cache: hit`` (``miss`` when it was
computed); the tests use that header to know the cache was really in the way, and compare
contents with what was written (or with express-pouchdb's own, uncached, POST form).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.assetdef import truth_database
from generator.config import StoreSettings, read_credentials
from generator.config import store_settings as config_store_settings
from generator.store import server
from generator.store.couch import CouchClient

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("COUCHDB_URL")), reason="checks the bundled server's read cache"
)

HEADER = "X-Scenariogen-Read-Cache"
PAGE = {"include_docs": "true", "limit": "3"}


@pytest.fixture
def admin(store_settings: StoreSettings) -> Iterator[httpx.Client]:
    auth = (store_settings.username or "", store_settings.password or "")
    with httpx.Client(base_url=store_settings.url, auth=auth, timeout=30) as client:
        yield client


def _docs(n: int, tag: str) -> list[dict[str, Any]]:
    return [{"_id": f"d{i}", "value": i, "tag": tag} for i in range(n)]


def _write(admin: httpx.Client, db: str, docs: list[dict[str, Any]]) -> None:
    admin.put(f"/{db}").raise_for_status()
    admin.post(f"/{db}/_bulk_docs", json={"docs": docs}).raise_for_status()


def _read(client: httpx.Client, db: str, params: dict[str, str] | None = None) -> httpx.Response:
    reply = client.get(f"/{db}/_all_docs", params=params or PAGE)
    reply.raise_for_status()
    return reply


def _cached(client: httpx.Client, db: str, params: dict[str, str] | None = None) -> dict[str, Any]:
    """Read twice; the second reply must come from memory. Returns it."""
    first = _read(client, db, params)
    second = _read(client, db, params)
    assert second.headers.get(HEADER) == "hit", second.headers
    assert second.json() == first.json()
    return dict(second.json())


def _plain(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in row["doc"].items() if k != "_rev"}
        for row in reply["rows"]
        if "doc" in row
    ]


def test_a_cached_reply_is_the_uncached_one(
    store_settings: StoreSettings, admin: httpx.Client
) -> None:
    db = store_settings.db("cache_same")
    _write(admin, db, _docs(7, "a"))
    hit = _cached(admin, db)
    # express-pouchdb answers the POST form itself (never cached) from the same options.
    posted = admin.post(f"/{db}/_all_docs", json={"include_docs": True, "limit": 3})
    assert HEADER not in posted.headers
    assert hit == posted.json()
    # d0, d1, d2 sort first by id; total_rows counts all seven documents.
    assert hit["total_rows"] == 7 and _plain(hit) == _docs(7, "a")[:3]
    # The next page as the snapshot asks for it (startkey = last id, skip 1), then the last.
    more = {"include_docs": "true", "limit": "3", "startkey": '"d2"', "skip": "1"}
    assert _plain(_cached(admin, db, more)) == _docs(7, "a")[3:6]
    # The order of query parameters does not matter: the same entry answers.
    swapped = {"skip": "1", "startkey": '"d2"', "limit": "3", "include_docs": "true"}
    assert _read(admin, db, swapped).headers.get(HEADER) == "hit"
    head = admin.head(f"/{db}/_all_docs", params=PAGE)
    assert head.status_code == 200 and head.headers.get(HEADER) == "hit" and head.content == b""
    # A parameter the cache does not handle passes on to express-pouchdb unchanged.
    other = _read(admin, db, {"include_docs": "true", "conflicts": "true"})
    assert HEADER not in other.headers and _plain(other.json()) == _docs(7, "a")


def _bulk(admin: httpx.Client, db: str) -> list[dict[str, Any]]:
    admin.post(f"/{db}/_bulk_docs", json={"docs": [{"_id": "c9", "value": 9, "tag": "a"}]})
    return [{"_id": "c9", "value": 9, "tag": "a"}, *_docs(3, "a")]  # "c9" < "d0"


def _put(admin: httpx.Client, db: str) -> list[dict[str, Any]]:
    rev = admin.get(f"/{db}/d1").json()["_rev"]
    admin.put(f"/{db}/d1", json={"_rev": rev, "value": 100, "tag": "a"}).raise_for_status()
    return [_docs(3, "a")[0], {"_id": "d1", "value": 100, "tag": "a"}, _docs(3, "a")[2]]


def _delete(admin: httpx.Client, db: str) -> list[dict[str, Any]]:
    rev = admin.get(f"/{db}/d2").json()["_rev"]
    admin.delete(f"/{db}/d2", params={"rev": rev}).raise_for_status()
    return _docs(2, "a")


def _recreate(admin: httpx.Client, db: str) -> list[dict[str, Any]]:
    # Same number of documents written the same way: PouchDB's update_seq comes back
    # equal (3), so only the invalidation on DELETE/PUT of the database can tell.
    admin.delete(f"/{db}").raise_for_status()
    _write(admin, db, _docs(3, "b"))
    assert admin.get(f"/{db}").json()["update_seq"] == 3
    return _docs(3, "b")


@pytest.mark.parametrize("write", [_bulk, _put, _delete, _recreate], ids=lambda f: f.__name__)
def test_the_next_read_after_a_write_shows_it(
    store_settings: StoreSettings,
    admin: httpx.Client,
    write: Callable[[httpx.Client, str], list[dict[str, Any]]],
) -> None:
    db = store_settings.db("cache_write")
    _write(admin, db, _docs(3, "a"))
    assert admin.get(f"/{db}").json()["update_seq"] == 3
    everything = {"include_docs": "true", "limit": "10"}
    assert _plain(_cached(admin, db, everything)) == _docs(3, "a")
    expected = write(admin, db)
    after = _read(admin, db, everything)
    assert after.headers.get(HEADER) == "miss"
    assert _plain(after.json()) == expected
    # And the new reply is what the cache keeps from now on.
    assert _plain(_cached(admin, db, everything)) == expected


def test_credentials_are_checked_before_the_cache(
    store_settings: StoreSettings, settings_for: Callable[..., StoreSettings], admin: httpx.Client
) -> None:
    db = store_settings.db("cache_auth")
    truth = store_settings.db(truth_database("transformer"))
    _write(admin, db, _docs(4, "a"))
    _write(admin, truth, _docs(2, "secret"))
    cached = _cached(admin, db)
    _cached(admin, truth)
    url = store_settings.url
    headers = {"Accept": "application/json"}
    for path in (f"/{db}/_all_docs", f"/{truth}/_all_docs"):
        anonymous = httpx.get(url + path, params=PAGE, headers=headers, timeout=10)
        assert anonymous.status_code == 401 and "rows" not in anonymous.text
        wrong = httpx.get(
            url + path, params=PAGE, headers=headers, timeout=10,
            auth=(store_settings.username or "", "not-the-password"),
        )
        assert wrong.status_code == 401 and "rows" not in wrong.text
    creds = read_credentials()
    assert creds is not None
    tools = (creds.tools.username, creds.tools.password)
    # The read-only account reads the fleet database (from memory) but never the truth.
    reader = httpx.get(url + f"/{db}/_all_docs", params=PAGE, auth=tools, timeout=10)
    assert reader.status_code == 200 and reader.headers.get(HEADER) == "hit"
    assert reader.json() == cached
    hidden = httpx.get(url + f"/{truth}/_all_docs", params=PAGE, auth=tools, timeout=10)
    assert hidden.status_code == 403 and "secret" not in hidden.text
    assert settings_for(store_settings.db_prefix, role="tools").username == creds.tools.username


def _hits_of_a_full_read(settings: StoreSettings, db: str, page: int) -> list[str]:
    """The cache header of every page CouchClient.all_docs (the snapshot's read) fetches."""
    seen: list[str] = []
    with CouchClient(settings) as client:
        client._http.event_hooks["response"].append(
            lambda r: seen.append(r.headers.get(HEADER, "")) if "_all_docs" in r.url.path else None
        )
        rows = list(client.all_docs(db, page=page))
    assert [d["_id"] for d in rows] == [f"d{i}" for i in range(7)]
    return seen


def test_a_restarted_server_warms_the_snapshot_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`env up` on a seeded data folder: the server reads every database in the snapshot's
    pages after it starts, so the snapshot's first read is served from memory."""
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    monkeypatch.delenv("COUCHDB_USERNAME", raising=False)
    monkeypatch.delenv("COUCHDB_PASSWORD", raising=False)
    # Pages of 3 so that 7 documents take three pages (startkey/skip on the later ones).
    monkeypatch.setattr(server, "SNAPSHOT_PAGE", 3)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server.up(port=port)
    try:
        settings = config_store_settings()
        db = "warm_fleet"
        with CouchClient(settings) as client:
            client.create_db(db)
            client.bulk_docs(db, _docs(7, "a"))
        # Not warmed: the writes emptied the cache.
        assert _hits_of_a_full_read(settings, db, 3) == ["miss"] * 3
    finally:
        server.down()
    server.up(port=port)
    try:
        log = tmp_path / "server.log"
        deadline = time.monotonic() + 60
        while "read cache warmed" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "read cache warmed" in log.read_text()
        assert _hits_of_a_full_read(config_store_settings(), db, 3) == ["hit"] * 3
    finally:
        server.down()


def test_seed_leaves_the_snapshot_pages_cached(
    store_settings: StoreSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assets.transformer.simulator import FleetSpec
    from generator.assetdef import load_asset_class
    from generator.store import seed as seed_module
    from generator.store.seed import database_names

    asset = load_asset_class("transformer")
    monkeypatch.setattr(seed_module, "SNAPSHOT_PAGE", 50)
    with CouchClient(store_settings) as client:
        report = seed_module.seed(
            client,
            asset,
            FleetSpec(seed=3, sites=1, units_per_site=1, days=7),
            prefix=store_settings.db_prefix,
        )
    assert "warm" in report.seconds
    seen: list[str] = []
    with CouchClient(store_settings) as client:
        client._http.event_hooks["response"].append(
            lambda r: seen.append(r.headers.get(HEADER, "")) if "_all_docs" in r.url.path else None
        )
        for db in database_names(asset, store_settings.db_prefix).values():
            list(client.all_docs(db, page=50))
    assert seen and set(seen) == {"hit"}, seen


def test_mango_queries_are_cached_and_see_writes(
    store_settings: StoreSettings, admin: httpx.Client
) -> None:
    db = store_settings.db("cache_find")
    _write(admin, db, _docs(5, "a"))
    query = {"selector": {"value": {"$gte": 2}}, "fields": ["_id", "value"], "limit": 10}

    def find() -> httpx.Response:
        reply = admin.post(f"/{db}/_find", json=query)
        reply.raise_for_status()
        return reply

    first = find()
    second = find()
    assert (first.headers.get(HEADER), second.headers.get(HEADER)) == ("miss", "hit")
    # Worked by hand: d2, d3, d4 have value >= 2.
    expected = [{"_id": f"d{i}", "value": i} for i in (2, 3, 4)]
    assert second.json()["docs"] == first.json()["docs"] == expected
    # Unauthenticated: refused although the reply is cached.
    anonymous = httpx.post(f"{store_settings.url}/{db}/_find", json=query, timeout=10)
    assert anonymous.status_code == 401 and "docs" not in anonymous.json()
    # A write (d0 now has value 7) shows in the next answer.
    rev = admin.get(f"/{db}/d0").json()["_rev"]
    admin.put(f"/{db}/d0", json={"_rev": rev, "value": 7, "tag": "a"}).raise_for_status()
    after = find()
    assert after.headers.get(HEADER) == "miss"
    assert sorted(d["_id"] for d in after.json()["docs"]) == ["d0", "d2", "d3", "d4"]


# The cache itself, in a node process of its own: three databases whose `_all_docs` replies
# are each EVICT_DOCS documents, under a bound that holds two of them.
EVICT_DOCS = 40
_EVICTION_JS = r"""
'use strict';
const os = require('os');
const fs = require('fs');
const path = require('path');
const PouchDB = require('pouchdb-core').plugin(require('pouchdb-adapter-leveldb'));
const { makeReadCache } = require(process.argv[2]);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readcache-'));
const Local = PouchDB.defaults({ prefix: dir + path.sep, adapter: 'leveldb' });
require('pouchdb-all-dbs')(Local); // its own database in `dir` too
const n = Number(process.argv[1]);

function get(cache, db) {
  return new Promise((resolve, reject) => {
    const url = `/${db}/_all_docs?include_docs=true`;
    const req = { method: 'GET', path: `/${db}/_all_docs`, originalUrl: url, headers: {} };
    const headers = {};
    const res = {
      statusCode: 0, on() {}, setHeader(k, v) { headers[k] = v; },
      end(body) { resolve({ state: headers['X-Scenariogen-Read-Cache'], bytes: body.length }); },
    };
    cache.middleware(req, res, () => reject(new Error(`${db}: not served by the cache`)));
  });
}

(async () => {
  const dbs = ['evict_a', 'evict_b', 'evict_c'];
  for (const name of dbs) {
    const docs = [];
    for (let i = 0; i < n; i += 1) docs.push({ _id: `d${String(i).padStart(3, '0')}`, v: i });
    await new Local(name).bulkDocs(docs);
  }
  const probe = makeReadCache(Local, { maxBytes: 1 << 30 });
  const one = (await get(probe, 'evict_a')).bytes; // every reply has this size
  const cache = makeReadCache(Local, { maxBytes: 2 * one + Math.floor(one / 2) });
  const log = [];
  const read = async (db) => { const r = await get(cache, db); log.push(`${db}:${r.state}`); };
  await read('evict_a');
  await read('evict_b');
  await read('evict_a'); // a is now the most recently used, b the least
  await read('evict_c'); // over the bound: b goes
  const size = cache.size();
  await read('evict_a');
  await read('evict_c');
  await read('evict_b');
  console.log(JSON.stringify({ one, log, size, stats: cache.stats }));
  fs.rmSync(dir, { recursive: true, force: true });
})().catch((err) => { console.error(err.stack || String(err)); process.exit(1); });
"""


def test_the_cache_keeps_its_byte_bound_least_recently_used_first_out(tmp_path: Path) -> None:
    """Replies of r bytes each under a bound of 2.5 r: reading a, b, a, c keeps a and c
    (b, the least recently used, goes); a and c then hit and b is computed again."""
    import json
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the bundled server needs it (`make setup`)")
    # Run from a scratch folder (nothing written beside the server), the server's modules
    # found through NODE_PATH.
    done = subprocess.run(
        [node, "-e", _EVICTION_JS, str(EVICT_DOCS), str(server.SERVER_DIR / "readcache.js")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "NODE_PATH": str(server.SERVER_DIR / "node_modules")},
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    one = out["one"]
    assert one > EVICT_DOCS * 40  # each reply carries the 40 documents
    assert out["log"] == [
        "evict_a:miss", "evict_b:miss", "evict_a:hit", "evict_c:miss",
        "evict_a:hit", "evict_c:hit", "evict_b:miss",
    ]
    assert out["size"] == {"entries": 2, "bytes": 2 * one}  # a and c, within 2.5 r
