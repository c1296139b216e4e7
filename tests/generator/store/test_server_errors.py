"""The bundled server's errors: a JSON body without stack or path, a log without either, 0600.

Issue 28: a malformed percent-escape got a 500 with an HTML stack trace naming the server's
files, and the same trace went to a server.log readable by every local user.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
import uuid
from pathlib import Path

import httpx
import pytest

from generator.config import Credentials, read_credentials
from generator.store import server
from tests.conftest import _free_port
from tests.generator.store.test_security_matrix import Raw

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("COUCHDB_URL")), reason="checks the bundled server's own errors"
)

JSON = {"Content-Type": "application/json"}
# (method, path with {db}, body, headers, status): requests a client may get wrong.
BAD_REQUESTS = [
    ("GET", "/{db}/%E0%A4%A", None, {}, 400),  # the malformed escape
    ("GET", "/%E0%A4%A/_all_docs", None, {}, 400),
    ("GET", "/{db}/doc/%ZZ", None, {}, 400),
    ("POST", "/{db}/_find", b"{bad", JSON, 400),
    ("POST", "/_session", b"{bad", JSON, 400),
    ("POST", "/{db}/_find", b"{}", {"Content-Type": "application/json; charset=klingon"}, 415),
    ("POST", "/{db}/_find", b"not gzip", {**JSON, "Content-Encoding": "gzip"}, 400),
    ("POST", "/{db}/_find", b"{}", {**JSON, "Content-Encoding": "compress"}, 415),
    ("GET", "/{db}/_all_docs?keys=notjson", None, {}, 400),
    ("GET", "/{db}:/_all_docs", None, {}, 400),
    ("GET", "/{db}/_design/nope/_view/v", None, {}, 404),
]


@pytest.fixture(scope="module")
def creds(couch_server: str) -> Credentials:
    found = read_credentials()
    assert found is not None
    return found


def _basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def _session_server() -> server.ServerRecord:
    record = server.read_record()
    assert record is not None
    return record


def _internals() -> list[str]:
    """Text that would give the server's internals away: its folders and a stack frame."""
    return [
        str(server.SERVER_DIR), _session_server().data_dir, os.environ["SCENARIOGEN_HOME"],
        "node_modules", "\n    at ", "<!DOCTYPE",
    ]


@pytest.mark.parametrize("who", ["admin", "tools"])
def test_error_replies_are_json_without_stack_or_path(
    couch_server: str, creds: Credentials, who: str
) -> None:
    db = f"e{uuid.uuid4().hex[:8]}_fleet"
    auth = (creds.admin.username, creds.admin.password)
    httpx.put(f"{couch_server}/{db}", auth=auth, timeout=10).raise_for_status()
    account = creds.admin if who == "admin" else creds.tools
    raw = Raw(couch_server, _basic(account.username, account.password))
    internals = _internals()
    try:
        for method, path, body, headers, want in BAD_REQUESTS:
            url = path.replace("{db}", db)
            raw.conn.request(method, url, body=body, headers={**raw.headers, **headers})
            resp = raw.conn.getresponse()
            text = resp.read().decode()
            assert resp.status == want, (method, url, resp.status, text)
            reply = json.loads(text)
            assert isinstance(reply["error"], str) and isinstance(reply["reason"], str), text
            assert not [x for x in internals if x in text], (method, url, text)
    finally:
        raw.close()
    log = Path(_session_server().log)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    logged = log.read_text()
    assert "request failed: 400 POST /_session" in logged  # errors are logged, in one line
    assert not [x for x in internals if x in logged], logged[-3000:]


def test_an_old_readable_log_is_made_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    monkeypatch.delenv("COUCHDB_USERNAME", raising=False)
    monkeypatch.delenv("COUCHDB_PASSWORD", raising=False)
    log = tmp_path / "server.log"
    log.write_text("an earlier start\n")
    log.chmod(0o644)
    server.up(port=_free_port())
    try:
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        assert log.read_text().startswith("an earlier start\n")  # appended to, not replaced
    finally:
        server.down()


_ERRORS_JS = r"""
const errors = require(process.argv[1]);
const secret = '/srv/secret-data/couch/db_x/LOCK';
const failure = new Error(`IO error: lock ${secret}: already held by process`);
const out = {};
function fakeRes() {
  const res = { statusCode: 200, headers: {}, headersSent: false };
  res.status = (s) => { res.statusCode = s; return res; };
  res.set = (k, v) => { res.headers[k] = v; return res; };
  res.send = (body) => { res.body = String(body); return res; };
  return res;
}
const handled = fakeRes();
errors.errorHandler(failure, { method: 'GET', path: '/fleet/_all_docs' }, handled, () => {});
out.handled = { status: handled.statusCode, body: handled.body };
const scrubbed = fakeRes();
errors.scrubErrorReplies({}, scrubbed, () => {});
scrubbed.statusCode = 500;
scrubbed.send(JSON.stringify({ error: 'unknown_error', reason: failure.message }));
out.scrubbed = scrubbed.body;
errors.quietConsole();
console.error(failure);
console.log(failure.stack);
console.error('plain %s line', 'formatted');
console.log(JSON.stringify(out));
setTimeout(() => { throw new Error(`boom in ${secret}`); }, 0);
"""


def test_the_error_helpers_drop_stacks_and_paths(tmp_path: Path) -> None:
    """What a storage failure (its message names the data folder) and a crash leave in a
    reply and in the log, without having to break a LevelDB to see it."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the bundled server needs it (`make setup`)")
    done = subprocess.run(
        [node, "-e", _ERRORS_JS, str(server.SERVER_DIR / "errors.js")],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "NODE_PATH": str(server.SERVER_DIR / "node_modules")},
    )
    assert done.returncode == 1  # the uncaught exception still ends the process
    lines = done.stdout.splitlines()
    out = json.loads(lines[-1])
    assert out["handled"]["status"] == 500
    assert json.loads(out["handled"]["body"])["error"] == "internal_server_error"
    assert json.loads(out["scrubbed"])["reason"] == "IO error: lock <path>: already held by process"
    everything = done.stdout + done.stderr
    assert "/srv/secret-data" not in everything and "    at " not in everything, everything
    assert "plain formatted line" in done.stderr
    assert "fatal: Error: boom in <path>" in done.stderr
    assert "request failed: 500 GET /fleet/_all_docs: Error: IO error: lock <path>" in done.stderr
