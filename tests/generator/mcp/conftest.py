"""Fixtures for the MCP server tests: the mcp 1.26 venv and a ``.env`` naming the test store."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from generator.config import StoreSettings

PROJECT_ROOT = Path(__file__).resolve().parents[3]
MCP1_VENV = PROJECT_ROOT / ".venv-mcp1"
MCP1_FIX = "run `make setup` (it builds .venv-mcp1 with mcp 1.26 from pip's cache)"


@pytest.fixture(scope="session")
def mcp1_python() -> Path:
    """Python of the mcp 1.26 venv: skip without it, fail if SCENARIOGEN_REQUIRE_MCP1=1."""
    python = MCP1_VENV / "bin" / "python"
    problem = None
    if not python.is_file():
        problem = f"the mcp 1.26 venv {MCP1_VENV} is missing"
    else:
        found = subprocess.run(
            [str(python), "-c", "import importlib.metadata as m; print(m.version('mcp'))"],
            capture_output=True, text=True, timeout=60, check=False,
        ).stdout.strip()
        if not found.startswith("1.26"):
            problem = f"{python} has mcp {found or '(none)'}, not 1.26"
    if problem is not None:
        message = f"{problem}; fix: {MCP1_FIX}"
        if os.environ.get("SCENARIOGEN_REQUIRE_MCP1") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return python


def write_env_file(path: Path, settings: StoreSettings) -> Path:
    """A ``.env`` holding the store settings a test's server must use (and nothing else)."""
    lines = [
        "# written by the MCP server tests",
        f"COUCHDB_URL={settings.url}",
        f"SCENARIOGEN_DB_PREFIX={settings.db_prefix}",
    ]
    # The state folder too (the test server's record and any credentials kept there),
    # which the session fixture sets in this process's environment only.
    for name, value in (("COUCHDB_USERNAME", settings.username),
                        ("COUCHDB_PASSWORD", settings.password),
                        ("SCENARIOGEN_HOME", os.environ.get("SCENARIOGEN_HOME"))):
        if value:
            quoted = value.replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'{name}="{quoted}"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
