"""Test session fixtures: a real bundled CouchDB-protocol server, started and stopped here."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.config import StoreSettings


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def couch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the bundled server on a free port with its own state folder; stop it after."""
    if os.environ.get("COUCHDB_URL"):
        # Run the suite against a real Apache CouchDB the user points us at.
        yield os.environ["COUCHDB_URL"].rstrip("/")
        return
    home = tmp_path_factory.mktemp("scenariogen-home")
    old_home = os.environ.get("SCENARIOGEN_HOME")
    os.environ["SCENARIOGEN_HOME"] = str(home)
    from generator.store import server

    record = server.up(port=_free_port())
    try:
        yield record.url
    finally:
        server.down()
        if old_home is None:
            os.environ.pop("SCENARIOGEN_HOME", None)
        else:
            os.environ["SCENARIOGEN_HOME"] = old_home


@pytest.fixture
def store_settings(couch_server: str) -> StoreSettings:
    """Settings for an isolated set of databases on the test server."""
    return StoreSettings(
        url=couch_server,
        username=os.environ.get("COUCHDB_USERNAME") or None,
        password=os.environ.get("COUCHDB_PASSWORD") or None,
        db_prefix=f"t{uuid.uuid4().hex[:8]}_",
        external=False,
    )


@pytest.fixture(scope="session")
def project_root() -> Path:
    """The repository root."""
    return Path(__file__).resolve().parents[1]
