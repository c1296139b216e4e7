"""Where things are: the store URL and credentials, the state folder, database names.

Precedence for the store URL: ``COUCHDB_URL`` in the environment, then the URL that
``scenariogen env up`` recorded for the bundled server, then the default.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_PORT = 5984
DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def state_dir() -> Path:
    """The folder for the bundled server's data, PID file and log (``SCENARIOGEN_HOME``)."""
    return Path(os.environ.get("SCENARIOGEN_HOME", PROJECT_ROOT / ".scenariogen")).resolve()


def server_state_file() -> Path:
    """JSON record of the running bundled server (URL, PID, data dir, log)."""
    return state_dir() / "server.json"


class StoreSettings(BaseModel):
    """How to reach the CouchDB-protocol store."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(description="Base URL of the CouchDB-protocol server")
    username: str | None = Field(default=None, description="CouchDB user, if any")
    password: str | None = Field(default=None, description="CouchDB password, if any")
    db_prefix: str = Field(
        default="", description="Prefix of every database name (isolates test runs)"
    )
    timeout_s: float = Field(default=30.0, gt=0, description="HTTP timeout per request")
    external: bool = Field(description="True when COUCHDB_URL points at a server we do not run")

    def db(self, name: str) -> str:
        """Full database name for a logical name such as ``transformer``."""
        return f"{self.db_prefix}{name}"


def store_settings() -> StoreSettings:
    """Read the store settings from the environment and the bundled server's record."""
    env_url = os.environ.get("COUCHDB_URL")
    url = env_url
    if not url:
        record = server_state_file()
        if record.exists():
            try:
                url = json.loads(record.read_text())["url"]
            except (ValueError, KeyError):
                url = None
    return StoreSettings(
        url=(url or DEFAULT_URL).rstrip("/"),
        username=os.environ.get("COUCHDB_USERNAME") or None,
        password=os.environ.get("COUCHDB_PASSWORD") or None,
        db_prefix=os.environ.get("SCENARIOGEN_DB_PREFIX", ""),
        timeout_s=float(os.environ.get("SCENARIOGEN_HTTP_TIMEOUT", "30")),
        external=bool(env_url),
    )
