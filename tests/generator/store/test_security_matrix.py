"""Every spelling of a hidden database's name × every route × tools and anonymous: no leak.

The bundled server stores a database under the name express-pouchdb makes of the URL
(percent-decoded, then passed through sanitize-filename, which drops ``/ ? < > \\ : * | "``,
control characters and trailing dots and spaces). Issue 28: the access check looked at the
name before that, so ``scenariogen_tr:uth_transformer`` passed it and opened the truth
database. Here three hidden databases (truth, meta, a ``private`` one) hold canary
documents, attachments, design and local documents whose ids and contents carry a marker;
each name is spelled in every way below and sent to every route as the read-only tool
account and anonymously. A reply leaks when its body holds a hidden marker or a hidden
database's name, or when it succeeds at all.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
import pytest

from generator.config import PRIVATE_DB_PATTERNS, Credentials, read_credentials

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("COUCHDB_URL")), reason="checks the bundled server's own security"
)

HIDDEN = ("scenariogen_truth_transformer", "scenariogen_meta", "fleet_private")
PUBLIC = "transformer"
ATTACHMENT = "note.txt"
CACHE = "X-Scenariogen-Read-Cache"


def _encode_all(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def _cut(name: str) -> int:
    """The middle of the hidden pattern the name holds (where an inserted character breaks
    it); the middle of the name for a public one."""
    for pattern in PRIVATE_DB_PATTERNS:
        at = name.find(pattern)
        if at >= 0:
            return at + len(pattern) // 2
    return len(name) // 2


def _insert(text: str) -> Callable[[str], str]:
    return lambda name: name[: _cut(name)] + text + name[_cut(name) :]


def _replace_at_cut(text: str) -> Callable[[str], str]:
    return lambda name: name[: _cut(name)] + text + name[_cut(name) + 1 :]


# How a name is written in the URL's first segment(s). Raw characters are sent as they are
# (http.client does not encode a path); the others percent-encoded, once or twice.
SPELLINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda n: n,
    "every-byte-percent-encoded": _encode_all,
    "underscore-%5F": lambda n: n.replace("_", "%5F"),
    "double-encoded": lambda n: _encode_all(n).replace("%", "%25"),
    **{f"raw-{c}": _insert(c) for c in ':*|<>"\\'},
    **{f"inserted-%{ord(c):02X}": _insert(f"%{ord(c):02X}") for c in ':*?|<>"\\/'},
    **{f"control-{e}": _insert(e) for e in ("%00", "%01", "%09", "%0A", "%0D", "%1F", "%7F")},
    **{f"c1-{e}": _insert(e) for e in ("%C2%80", "%C2%85", "%C2%9F")},
    "zero-width-space": _insert("%E2%80%8B"),
    "combining-acute": _insert("%CC%81"),
    "double-encoded-colon": _insert("%253A"),
    "trailing-dot": lambda n: n + ".",
    "trailing-space": lambda n: n + "%20",
    "trailing-dots-and-spaces": lambda n: n + ".%20.%20",
    "trailing-%2E": lambda n: n + "%2E",
    "trailing-plus": lambda n: n + "+",
    "upper-case": lambda n: n.upper(),
    "one-upper-case": lambda n: n[: _cut(n)] + n[_cut(n)].upper() + n[_cut(n) + 1 :],
    "cyrillic-look-alike": _replace_at_cut("%D0%B0"),
    "fullwidth-look-alike": _replace_at_cut("%EF%BD%81"),
    "node-nonode@nohost": lambda n: "_node/nonode@nohost/" + n,
    "node-node1@127.0.0.1": lambda n: "_node/node1@127.0.0.1/" + n,
    "node-node1@127x0x0x1": lambda n: "_node/node1@127x0x0x1/" + n,
    "node-_local": lambda n: "_node/_local/" + n,
    "leading-empty-segment": lambda n: "/" + n,
    "dot-segment": lambda n: "./" + n,
}


@dataclass(frozen=True)
class Route:
    """One request against a database: ``{db}`` and ``{id}`` are filled in per database."""

    method: str
    path: str
    body: object = None
    tools_may: bool = True  # the tool account may send it to a public database
    shows_docs: bool = True  # a successful reply carries the documents' marker


ROUTES = (
    Route("GET", "/{db}", shows_docs=False),  # its db_name counts as a leak
    Route("HEAD", "/{db}", shows_docs=False),
    Route("GET", "/{db}/_all_docs?include_docs=true"),
    Route("GET", "/{db}/_all_docs?include_docs=true&limit=3"),  # warmed in the read cache
    Route("GET", '/{db}/_all_docs?include_docs=true&keys=["{id}"]'),
    Route("POST", "/{db}/_all_docs", {"include_docs": True}),
    Route("POST", "/{db}/_find", {"selector": {}}),  # warmed in the read cache
    Route("POST", "/{db}/_find", {"selector": {"secret": {"$gt": None}}}),
    Route("POST", "/{db}/_explain", {"selector": {"secret": {"$gt": None}}}),
    Route("POST", "/{db}/_bulk_get", {"docs": [{"id": "{id}"}]}),
    Route("GET", "/{db}/_changes?include_docs=true"),
    Route("GET", "/{db}/_changes?style=all_docs&since=0"),
    Route("GET", "/{db}/{id}"),
    Route("GET", "/{db}/{id}?revs_info=true&conflicts=true"),
    Route("HEAD", "/{db}/{id}", shows_docs=False),
    Route("GET", f"/{{db}}/{{id}}/{ATTACHMENT}"),
    Route("GET", "/{db}/_design/d"),
    Route("GET", "/{db}/_design/d/_view/v"),
    Route("GET", "/{db}/_design/d/_info", shows_docs=False),
    Route("GET", "/{db}/_design/d/_show/s/{id}"),
    Route("GET", "/{db}/_local/loc"),
    Route("GET", "/{db}/_index"),
    Route("GET", "/{db}/_security", tools_may=False),
    Route("POST", "/{db}/_revs_diff", {"{id}": ["1-0"]}, tools_may=False),
    Route("POST", "/{db}/_changes?filter=_doc_ids", {"doc_ids": ["{id}"]}, tools_may=False),
    Route("PUT", "/{db}/intruder", {"x": 1}, tools_may=False),
    Route("POST", "/{db}/_bulk_docs", {"docs": [{"_id": "intruder2"}]}, tools_may=False),
)


@dataclass(frozen=True)
class Planted:
    """The databases of this module: full names, each one's marker and canary id."""

    url: str
    names: dict[str, str]  # short name -> full (prefixed) name
    markers: dict[str, str]  # full name -> marker carried by its ids and contents

    def canary(self, full: str) -> str:
        return f"canary_{self.markers[full]}"


def _plant(admin: httpx.Client, db: str, marker: str) -> None:
    admin.put(f"/{db}").raise_for_status()
    data = base64.b64encode(f"attachment {marker}".encode()).decode()
    docs = [
        {
            "_id": f"canary_{marker}",
            "secret": marker,
            "_attachments": {ATTACHMENT: {"content_type": "text/plain", "data": data}},
        },
        *({"_id": f"row{i}_{marker}", "secret": f"{marker}-{i}"} for i in range(4)),
        {
            "_id": "_design/d",
            "marker": marker,
            "views": {"v": {"map": "function (doc) { emit(doc._id, doc.secret); }"}},
            "shows": {"s": "function (doc) { return {body: doc ? doc.secret : 'none'}; }"},
        },
    ]
    admin.post(f"/{db}/_bulk_docs", json={"docs": docs}).raise_for_status()
    admin.put(f"/{db}/_local/loc", json={"secret": marker}).raise_for_status()
    index = {"index": {"fields": ["secret"]}, "name": f"i_{marker}", "ddoc": f"i_{marker}"}
    admin.post(f"/{db}/_index", json=index).raise_for_status()
    # The read cache now holds the hidden replies a tools request might be served.
    for _ in range(2):
        page = admin.get(f"/{db}/_all_docs", params={"include_docs": "true", "limit": "3"})
        found = admin.post(f"/{db}/_find", json={"selector": {}})
    assert page.headers.get(CACHE) == found.headers.get(CACHE) == "hit"


@pytest.fixture(scope="module")
def creds(couch_server: str) -> Credentials:
    found = read_credentials()
    assert found is not None
    return found


@pytest.fixture(scope="module")
def planted(couch_server: str, creds: Credentials) -> Planted:
    prefix = f"m{uuid.uuid4().hex[:8]}_"
    names = {short: prefix + short for short in (*HIDDEN, PUBLIC)}
    markers = {full: f"mk{uuid.uuid4().hex}" for full in names.values()}
    auth = (creds.admin.username, creds.admin.password)
    with httpx.Client(base_url=couch_server, auth=auth, timeout=30) as admin:
        for full, marker in markers.items():
            _plant(admin, full, marker)
    return Planted(url=couch_server, names=names, markers=markers)


class Raw:
    """Requests with the path sent byte for byte as given (httpx would normalise it)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.headers = {"Accept": "application/json", **headers}
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)

    def send(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        headers = dict(self.headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                return resp.status, resp.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


def _fill(route: Route, segment: str, doc_id: str) -> tuple[str, object]:
    path = route.path.replace("{db}", segment).replace("{id}", doc_id)
    body = route.body
    if body is not None:
        body = json.loads(json.dumps(body).replace("{id}", doc_id))
    return path, body


@pytest.fixture(params=["tools", "anonymous"])
def client(request: pytest.FixtureRequest, planted: Planted, creds: Credentials) -> Iterator[Raw]:
    headers = {}
    if request.param == "tools":
        token = f"{creds.tools.username}:{creds.tools.password}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(token).decode()
    raw = Raw(planted.url, headers)
    yield raw
    raw.close()


def _hidden_content(planted: Planted, body: bytes) -> str | None:
    for short in HIDDEN:
        full = planted.names[short]
        for secret in (planted.markers[full], full):
            if secret.encode() in body:
                return secret
    return None


def test_no_spelling_of_a_hidden_name_reaches_it_on_any_route(
    planted: Planted, client: Raw
) -> None:
    assert len(SPELLINGS) >= 25 and len(ROUTES) >= 20
    leaks: list[str] = []
    sent = 0
    for short in HIDDEN:
        full = planted.names[short]
        for spelling, spell in SPELLINGS.items():
            for route in ROUTES:
                path, body = _fill(route, spell(full), planted.canary(full))
                status, reply = client.send(route.method, path, body)
                sent += 1
                found = _hidden_content(planted, reply)
                if found is not None or 200 <= status < 300 or status >= 500:
                    what = f"holds {found}" if found else "no hidden content"
                    leaks.append(f"{status} {route.method} {path} ({spelling}; {what})")
    assert not leaks, f"{len(leaks)} of {sent} replies leaked or failed:\n" + "\n".join(
        leaks[:40]
    )


def test_the_tool_account_still_reads_the_public_database(
    planted: Planted, creds: Credentials
) -> None:
    token = f"{creds.tools.username}:{creds.tools.password}".encode()
    raw = Raw(planted.url, {"Authorization": "Basic " + base64.b64encode(token).decode()})
    full = planted.names[PUBLIC]
    marker = planted.markers[full].encode()
    wrong: list[str] = []
    try:
        # The name as written and with every byte percent-encoded: both are the same name.
        for segment in (full, _encode_all(full)):
            for route in ROUTES:
                path, body = _fill(route, segment, planted.canary(full))
                status, reply = raw.send(route.method, path, body)
                if route.tools_may and not (200 <= status < 300):
                    wrong.append(f"{status} {route.method} {path}: {reply[:200]!r}")
                elif route.tools_may and route.shows_docs and marker not in reply:
                    wrong.append(f"{status} {route.method} {path}: no document in the reply")
                elif not route.tools_may and status != 403:
                    wrong.append(f"{status} {route.method} {path}: a write, not refused")
        status, reply = raw.send("GET", "/_all_dbs")
        names = json.loads(reply)
        assert status == 200 and full in names, reply
        assert not any(planted.names[short] in names for short in HIDDEN), names
    finally:
        raw.close()
    assert not wrong, "\n".join(wrong)


def test_nothing_was_written_by_the_matrix(planted: Planted, creds: Credentials) -> None:
    auth = (creds.admin.username, creds.admin.password)
    with httpx.Client(base_url=planted.url, auth=auth, timeout=30) as admin:
        for full in planted.names.values():
            ids = [r["id"] for r in admin.get(f"/{full}/_all_docs").json()["rows"]]
            assert not [i for i in ids if i.startswith("intruder")], (full, ids)


def test_a_name_the_store_would_change_is_refused_to_the_admin_too(
    planted: Planted, creds: Credentials
) -> None:
    """The admin creating `a:b` would get `ab`: refused, as Apache CouchDB refuses it."""
    prefix = planted.names[PUBLIC].removesuffix(PUBLIC)
    auth = (creds.admin.username, creds.admin.password)
    with httpx.Client(base_url=planted.url, auth=auth, timeout=30) as admin:
        for name in (f"{prefix}new:db", f"{prefix}new%2Fdb", f"{prefix}newdb.", f"{prefix}NEWDB"):
            reply = admin.put(f"/{name}")
            assert reply.status_code == 400, (name, reply.text)
            assert reply.json()["error"] == "illegal_database_name"
        assert not [n for n in admin.get("/_all_dbs").json() if n.startswith(f"{prefix}new")]
