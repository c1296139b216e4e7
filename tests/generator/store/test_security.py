"""The bundled store's security: accounts, anonymous access, /_config, cookie sessions."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx
import pytest

from generator.assetdef import truth_database
from generator.config import Credentials, StoreSettings, read_credentials, store_settings
from generator.store.couch import CouchClient
from tests.conftest import _free_port

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("COUCHDB_URL")), reason="checks the bundled server's own security"
)


@pytest.fixture(scope="module")
def creds(couch_server: str) -> Credentials:
    found = read_credentials()
    assert found is not None
    return found


def _get(url: str, **kw: object) -> httpx.Response:
    return httpx.get(url, headers={"Accept": "application/json"}, timeout=10, **kw)  # type: ignore[arg-type]


def test_credentials_file_is_private_and_complete(couch_server: str, creds: Credentials) -> None:
    path = Path(os.environ["SCENARIOGEN_HOME"]) / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    raw = json.loads(path.read_text())
    assert set(raw) == {"version", "admin", "tools"}
    assert raw["tools"]["username"] == "scenariogen_tools"
    assert creds.admin.password != creds.tools.password
    assert len(creds.tools.password) >= 24


def test_anonymous_gets_only_the_welcome_and_session(
    couch_server: str, seeded_settings: StoreSettings
) -> None:
    root = _get(couch_server + "/")
    assert root.status_code == 200 and root.json()["uuid"]
    session = _get(couch_server + "/_session")
    assert session.status_code == 200 and session.json()["userCtx"]["name"] is None
    truth = seeded_settings.db(truth_database("transformer"))
    for path in ("/_all_dbs", f"/{truth}", f"/{truth}/_all_docs", "/_config", "/_users"):
        assert _get(couch_server + path).status_code == 401, path
    put = httpx.put(f"{couch_server}/{seeded_settings.db('transformer')}/x", json={}, timeout=10)
    assert put.status_code == 401
    wrong = _get(couch_server + "/_all_dbs", auth=("admin", "not-the-password"))
    assert wrong.status_code == 401


def test_config_is_refused_even_to_the_admin(couch_server: str, creds: Credentials) -> None:
    admin = (creds.admin.username, creds.admin.password)
    put = httpx.put(
        couch_server + "/_config/log/file", content='"/tmp/evil.log"', auth=admin, timeout=10
    )
    assert put.status_code == 403
    for path in ("/_config", "/_config/couch_httpd_auth/secret", "/_node/_local/_config"):
        assert _get(couch_server + path, auth=admin).status_code == 403, path


def test_tools_account_reads_fleet_but_not_truth_and_never_writes(
    seeded_settings: StoreSettings, seeded_tools_settings: StoreSettings, creds: Credentials
) -> None:
    url = seeded_settings.url
    tools = (creds.tools.username, creds.tools.password)
    truth = seeded_settings.db(truth_database("transformer"))
    fleet = seeded_settings.db("transformer_assets")
    assert _get(f"{url}/{fleet}/_all_docs", auth=tools).status_code == 200
    assert _get(f"{url}/{truth}", auth=tools).status_code == 403
    assert _get(f"{url}/{truth}/_all_docs", auth=tools).status_code == 403
    find = httpx.post(
        f"{url}/{truth}/_find", json={"selector": {}}, auth=tools, timeout=10
    )
    assert find.status_code == 403
    names = _get(f"{url}/_all_dbs", auth=tools).json()
    assert fleet in names and truth not in names
    assert httpx.put(f"{url}/{fleet}/intruder", json={}, auth=tools, timeout=10).status_code == 403
    bulk = httpx.post(f"{url}/{fleet}/_bulk_docs", json={"docs": [{}]}, auth=tools, timeout=10)
    assert bulk.status_code == 403
    assert httpx.delete(f"{url}/{fleet}", auth=tools, timeout=10).status_code == 403
    # The same through our client with store_settings(role="tools").
    assert seeded_tools_settings.username == creds.tools.username
    with CouchClient(seeded_tools_settings) as client:
        assert client.doc_count(fleet) > 0
        with pytest.raises(Exception, match="HTTP 403"):
            client.doc_count(truth)
    # The admin reads the truth database (the checks and the audit need it).
    with CouchClient(seeded_settings) as client:
        assert client.doc_count(truth) > 0
        security = client.get(truth, "_security")
    assert security is not None and security["members"]["roles"] == ["_admin"]


def test_store_settings_roles(couch_server: str, creds: Credentials) -> None:
    admin = store_settings()
    tools = store_settings(role="tools")
    assert (admin.username, admin.password) == (creds.admin.username, creds.admin.password)
    assert (tools.username, tools.password) == (creds.tools.username, creds.tools.password)
    assert admin.instance_id is not None and not admin.external


def test_store_settings_read_the_credentials_file_without_env(
    couch_server: str, creds: Credentials, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COUCHDB_USERNAME")
    monkeypatch.delenv("COUCHDB_PASSWORD")
    admin = store_settings()
    assert (admin.username, admin.password) == (creds.admin.username, creds.admin.password)
    with CouchClient(admin) as client:
        assert isinstance(client.all_dbs(), list)


def _sent(value: str) -> dict[str, str]:
    # Module-level httpx calls keep no cookie jar: each request carries exactly this cookie.
    return {"Cookie": f"AuthSession={value}", "Accept": "application/json"}


def _cookie(resp: httpx.Response) -> str:
    header = resp.headers["set-cookie"]
    assert header.startswith("AuthSession=")
    return header.split(";", 1)[0].split("=", 1)[1]


@pytest.mark.parametrize("form", [True, False], ids=["form", "json"])
def test_cookie_session_login_use_and_logout(
    couch_server: str, creds: Credentials, form: bool
) -> None:
    body = {"name": creds.admin.username, "password": creds.admin.password}
    url = couch_server
    if form:
        resp = httpx.post(f"{url}/_session", data=body, timeout=10)
    else:
        resp = httpx.post(f"{url}/_session", json=body, timeout=10)
    assert resp.status_code == 200
    assert resp.json() == {"ok": True, "name": creds.admin.username, "roles": ["_admin"]}
    header = resp.headers["set-cookie"]
    attrs = dict(part.strip().split("=", 1) for part in header.split(";")[1:] if "=" in part)
    assert attrs["Max-Age"] == "600"
    expires = parsedate_to_datetime(attrs["Expires"]).timestamp()
    assert abs(expires - (time.time() + 600)) < 30
    cookie = _cookie(resp)
    me = httpx.get(f"{url}/_session", headers=_sent(cookie), timeout=10).json()
    assert me["userCtx"] == {"name": creds.admin.username, "roles": ["_admin"]}
    assert me["info"]["authenticated"] == "cookie"
    assert httpx.get(f"{url}/_all_dbs", headers=_sent(cookie), timeout=10).status_code == 200
    out = httpx.delete(f"{url}/_session", headers=_sent(cookie), timeout=10)
    assert out.status_code == 200 and "Max-Age=0" in out.headers["set-cookie"]
    bad = httpx.post(f"{url}/_session", json={**body, "password": "wrong"}, timeout=10)
    assert bad.status_code == 401 and "set-cookie" not in bad.headers
    forged = cookie[:-4] + ("AAAA" if not cookie.endswith("AAAA") else "BBBB")
    assert httpx.get(f"{url}/_all_dbs", headers=_sent(forged), timeout=10).status_code == 401


@pytest.fixture(scope="module")
def short_session_server(
    couch_server: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A second bundled server (own state folder) whose cookie sessions last 2 s."""
    from generator.store import server

    home = tmp_path_factory.mktemp("short-session-home")
    old = os.environ["SCENARIOGEN_HOME"]
    os.environ["SCENARIOGEN_HOME"] = str(home)
    try:
        record = server.up(port=_free_port(), session_timeout_s=2)
    finally:
        os.environ["SCENARIOGEN_HOME"] = old
    try:
        yield record.url
    finally:
        os.environ["SCENARIOGEN_HOME"] = str(home)
        try:
            server.down()
        finally:
            os.environ["SCENARIOGEN_HOME"] = old


def test_cookie_expiry_is_honoured(short_session_server: str) -> None:
    # COUCHDB_USERNAME / COUCHDB_PASSWORD (exported by the session fixture) made the admin.
    body = {"name": os.environ["COUCHDB_USERNAME"], "password": os.environ["COUCHDB_PASSWORD"]}
    url = short_session_server
    resp = httpx.post(f"{url}/_session", json=body, timeout=10)
    assert resp.status_code == 200 and "Max-Age=2" in resp.headers["set-cookie"]
    cookie = _cookie(resp)
    assert httpx.get(f"{url}/_all_dbs", headers=_sent(cookie), timeout=10).status_code == 200
    time.sleep(2.5)
    assert httpx.get(f"{url}/_all_dbs", headers=_sent(cookie), timeout=10).status_code == 401
    session = httpx.get(f"{url}/_session", headers=_sent(cookie), timeout=10).json()
    assert session["userCtx"]["name"] is None


async def test_the_fleet_store_works_read_only_as_the_tool_account(
    seeded_tools_settings: StoreSettings,
) -> None:
    from generator.assetdef import load_asset_class
    from generator.errors import UserError
    from generator.store.query import FleetStore

    store = FleetStore(load_asset_class("transformer"), seeded_tools_settings)
    inventory = await store.inventory()
    assert len(inventory.assets) == 6  # the seeded fleet: 2 sites × 3 units
    orders = await store.work_orders(inventory.assets[0].asset_id, kind="preventive")
    assert orders and all(o["wo_type"] == "preventive" for o in orders)
    with pytest.raises(UserError, match="HTTP 403"):
        await store.ground_truth()


def test_credentials_are_kept_across_starts_and_env_names_the_admin(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from generator.store.server import ensure_credentials

    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    monkeypatch.delenv("COUCHDB_USERNAME", raising=False)
    monkeypatch.delenv("COUCHDB_PASSWORD", raising=False)
    first = ensure_credentials()
    assert first.admin.username == "admin" and len(first.admin.password) >= 24
    assert ensure_credentials() == first == read_credentials()
    monkeypatch.setenv("COUCHDB_USERNAME", "operator")
    monkeypatch.setenv("COUCHDB_PASSWORD", "a-password-given-by-env")
    given = ensure_credentials()
    assert (given.admin.username, given.admin.password) == ("operator", "a-password-given-by-env")
    assert given.tools == first.tools  # the tool account keeps its password
    path = tmp_path / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)
    ensure_credentials()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_tools_account_cannot_read_the_seed_marker(
    seeded_settings: StoreSettings, creds: Credentials
) -> None:
    """The meta database names the fleet's seed (enough to re-simulate the truth)."""
    meta = seeded_settings.db("scenariogen_meta")
    tools = (creds.tools.username, creds.tools.password)
    assert _get(f"{seeded_settings.url}/{meta}", auth=tools).status_code == 403
    admin = (creds.admin.username, creds.admin.password)
    assert _get(f"{seeded_settings.url}/{meta}", auth=admin).status_code == 200


def test_a_held_out_fleet_is_readable_its_truth_and_meta_are_not() -> None:
    """Agents under evaluation read a held-out fleet through the tools; never its answers."""
    from generator.config import is_private_db

    assert not is_private_db("heldout_3fa9c0e1d2_transformer")
    assert not is_private_db("heldout_3fa9c0e1d2_workorder")
    assert is_private_db("heldout_3fa9c0e1d2_scenariogen_truth")
    assert is_private_db("heldout_3fa9c0e1d2_scenariogen_meta")
    assert is_private_db("t1_scenariogen_truth")
