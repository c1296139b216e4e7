"""Every command checks it reaches the recorded store, and never prints a credential."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from generator.config import NOT_RUNNING, StoreSettings
from generator.errors import StoreUnavailable
from generator.store.couch import CouchClient

SECRET = "S3cret-Passw0rd-xyz"


def _run(*args: str, env: dict[str, str | None]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ}
    for key, value in env.items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", *args],
        capture_output=True, text=True, env=full, timeout=120, check=False,
    )


class _Stranger(BaseHTTPRequestHandler):
    """A server that answers like CouchDB, with its own uuid, and notes what it was sent."""

    seen_auth: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        if self.headers.get("Authorization") or self.headers.get("Cookie"):
            type(self).seen_auth.append(self.path)
        body = json.dumps({"couchdb": "Welcome", "uuid": "someone-else"}).encode()
        self.send_response(200 if self.path == "/" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_HEAD = do_GET

    def log_message(self, *_: object) -> None:
        return None


@pytest.fixture
def stranger() -> Iterator[str]:
    _Stranger.seen_auth = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Stranger)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(
    "args",
    [
        ("inventory", "transformer"),
        ("generate", "transformer", "-n", "2"),
        ("profile", "transformer", "--no-cache"),
    ],
    ids=["inventory", "generate", "profile"],
)
def test_no_bundled_store_and_no_couchdb_url_stops_with_one_line(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    env: dict[str, str | None] = {
        "SCENARIOGEN_HOME": str(tmp_path / "home"),  # env up never ran here
        "COUCHDB_URL": None,
        "SCENARIOGEN_CACHE_DIR": str(tmp_path / "cache"),
    }
    if args[0] == "generate":
        args = (*args, "--out", str(tmp_path / "out"))
    proc = _run(*args, env=env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "the bundled store is not running; start it with `scenariogen env up`" in lines[0]


def _record(home: Path, url: str) -> None:
    home.mkdir(parents=True)
    (home / "server.json").write_text(json.dumps({
        "pid": os.getpid(), "url": url, "port": int(url.rsplit(":", 1)[1]),
        "data_dir": str(home / "couch"), "log": str(home / "server.log"),
        "started_at": 0.0, "instance_id": "ours-0123456789abcdef",
    }))


def test_a_stranger_on_the_recorded_port_is_refused_before_any_credential_is_sent(
    stranger: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _record(home, stranger)
    env: dict[str, str | None] = {
        "SCENARIOGEN_HOME": str(home), "COUCHDB_URL": None,
        "COUCHDB_USERNAME": "admin", "COUCHDB_PASSWORD": SECRET,
    }
    proc = _run("inventory", "transformer", env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "is not the bundled store `scenariogen env up` started" in lines[0]
    assert "'someone-else'" in lines[0]
    assert _Stranger.seen_auth == []
    assert SECRET not in proc.stdout + proc.stderr


def test_couchdb_url_naming_a_server_is_not_an_identity_check(stranger: str) -> None:
    # The user named this server: no uuid comparison (it would pass a real CouchDB through).
    settings = StoreSettings(url=stranger, external=True, timeout_s=5)
    with CouchClient(settings) as client:
        assert client.server_info()["uuid"] == "someone-else"


def test_unavailable_settings_never_connect() -> None:
    settings = StoreSettings(url="http://127.0.0.1:9", external=False, unavailable=NOT_RUNNING)
    with CouchClient(settings) as client, pytest.raises(StoreUnavailable) as err:
        client.all_dbs()
    assert str(err.value) == NOT_RUNNING


def test_a_password_in_couchdb_url_never_appears_in_errors(tmp_path: Path) -> None:
    url = f"http://alice:{SECRET}@127.0.0.1:9"
    env: dict[str, str | None] = {
        "COUCHDB_URL": url, "SCENARIOGEN_HOME": str(tmp_path),
        "COUCHDB_USERNAME": None, "COUCHDB_PASSWORD": None,
    }
    status = _run("env", "status", env=env)
    assert "127.0.0.1:9" in status.stdout and status.returncode == 2
    assert SECRET not in status.stdout + status.stderr
    seed = _run("env", "seed", env=env)
    assert seed.returncode == 2 and "cannot reach CouchDB" in seed.stderr
    assert SECRET not in seed.stdout + seed.stderr
    # Settings built by hand with the password in the URL: the client masks it too.
    settings = StoreSettings(url=url, external=True, timeout_s=2)
    with CouchClient(settings) as client, pytest.raises(StoreUnavailable) as err:
        client.all_dbs()
    assert SECRET not in str(err.value) and "alice:***@127.0.0.1:9" in str(err.value)


def test_credentials_in_couchdb_url_are_used_but_kept_out_of_the_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from generator.config import store_settings

    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    monkeypatch.delenv("COUCHDB_USERNAME", raising=False)
    monkeypatch.delenv("COUCHDB_PASSWORD", raising=False)
    monkeypatch.setenv("COUCHDB_URL", f"https://alice:{SECRET}@db.example.org:6984/couch/")
    settings = store_settings()
    assert settings.url == "https://db.example.org:6984/couch"
    assert (settings.username, settings.password) == ("alice", SECRET)
    assert settings.external and settings.instance_id is None and settings.unavailable is None
    # No tool account for a store we do not run: the user's own account is used.
    assert store_settings(role="tools").username == "alice"
