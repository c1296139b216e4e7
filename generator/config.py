"""Where things are: the store URL and credentials, the state folder, database names.

Every environment variable scenariogen reads is validated here, in one settings object
(:class:`EnvSettings`, read by :func:`env_settings`); a bad value raises
:class:`SettingsError` naming the variable, the value (hidden when secret), the valid
range and the fix.

Precedence for the store URL: ``COUCHDB_URL`` in the environment, then the URL that
``scenariogen env up`` recorded for the bundled server. With neither, there is no store:
the client refuses to connect (it never falls back to whatever answers on port 5984).

Credentials: ``COUCHDB_USERNAME`` / ``COUCHDB_PASSWORD`` (or ``user:password@`` in
``COUCHDB_URL``) when set; otherwise, for the bundled store, the accounts ``env up`` wrote to
``<state dir>/credentials.json`` (mode 0600). ``store_settings(role="tools")`` returns the
read-only tool account (``SCENARIOGEN_TOOLS_USERNAME`` / ``SCENARIOGEN_TOOLS_PASSWORD``, or
the file's ``tools`` entry), which cannot read truth or held-out databases.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.errors import UserError
from generator.redact import redact_url

DEFAULT_PORT = 5984
DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"
PROJECT_ROOT = Path(__file__).resolve().parents[1]
CREDENTIALS_FILE = "credentials.json"
DEFAULT_ADMIN = "admin"
TOOLS_USER = "scenariogen_tools"
# Largest seed accepted from SCENARIOGEN_SEED (fits a signed 64-bit integer).
MAX_SEED = 2**63 - 1
MAX_HTTP_TIMEOUT_S = 3600.0
# A database-name prefix: CouchDB names start with a lowercase letter and use a-z 0-9 _$()+-/.
_DB_PREFIX = re.compile(r"[a-z][a-z0-9_$()+/-]{0,119}")
NOT_RUNNING = (
    "the bundled store is not running; start it with `scenariogen env up` "
    "(or set COUCHDB_URL to use another CouchDB)"
)

Role = Literal["admin", "tools"]
# Databases the read-only tool account may not read (regular expressions searched in the
# full name): the ground truth and any private or held-out fleet. The bundled server
# enforces them; `env seed` also restricts such databases to admins with `_security`.
PRIVATE_DB_PATTERNS = ("scenariogen_truth", "scenariogen_meta", "private")


def is_private_db(name: str) -> bool:
    """Whether the tool account must not read database ``name``."""
    return any(re.search(pattern, name) for pattern in PRIVATE_DB_PATTERNS)


class SettingsError(UserError):
    """An environment variable holds a value scenariogen cannot use."""


class EnvSettings(BaseModel):
    """Every environment variable scenariogen reads, validated (see :func:`env_settings`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    couchdb_url: str | None = Field(
        description="COUCHDB_URL without credentials (http/https); None = the bundled store"
    )
    couchdb_username: str | None = Field(
        description="COUCHDB_USERNAME, or the user in COUCHDB_URL"
    )
    couchdb_password: str | None = Field(
        description="COUCHDB_PASSWORD, or the password in COUCHDB_URL"
    )
    tools_username: str | None = Field(description="SCENARIOGEN_TOOLS_USERNAME")
    tools_password: str | None = Field(description="SCENARIOGEN_TOOLS_PASSWORD")
    db_prefix: str = Field(description="SCENARIOGEN_DB_PREFIX (default empty)")
    http_timeout_s: float = Field(description="SCENARIOGEN_HTTP_TIMEOUT in seconds (default 30)")
    home: Path = Field(description="SCENARIOGEN_HOME, the state folder (default .scenariogen)")
    seed: int | None = Field(description="SCENARIOGEN_SEED, the default run seed (secret)")


def _env(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else None


def _parse_url(raw: str) -> tuple[str, str | None, str | None]:
    """``COUCHDB_URL`` → (URL without credentials, user, password)."""
    shown = redact_url(raw)
    try:
        parts = urlsplit(raw.strip())
        port = parts.port
        host = parts.hostname
    except ValueError:
        parts, port, host = None, None, None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        raise SettingsError(
            "COUCHDB_URL is not an http(s) URL of a CouchDB server",
            value=shown,
            options=["http://HOST:PORT", "https://HOST[:PORT][/PATH]"],
            fix="set COUCHDB_URL=http://127.0.0.1:5984 (credentials go in COUCHDB_USERNAME / "
            "COUCHDB_PASSWORD), or unset it to use the bundled store",
        )
    if parts.query or parts.fragment:
        raise SettingsError(
            "COUCHDB_URL must not carry a query or fragment",
            value=shown,
            fix="remove everything after '?' or '#'",
        )
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{netloc}:{port}"
    url = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    return url, user, password


def _parse_seed(raw: str) -> int:
    if not re.fullmatch(r"[0-9]{1,19}", raw.strip()) or int(raw) > MAX_SEED:
        raise SettingsError(
            f"SCENARIOGEN_SEED must be a non-negative integer of at most 19 digits "
            f"(0..{MAX_SEED}); got {len(raw)} characters (not shown: seeds are secret)",
            fix="set SCENARIOGEN_SEED to an integer such as 42, or unset it and pass --seed",
        )
    return int(raw)


def _parse_timeout(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0 or value > MAX_HTTP_TIMEOUT_S:
        raise SettingsError(
            "SCENARIOGEN_HTTP_TIMEOUT must be a number of seconds in (0, 3600]",
            value=raw[:40],
            fix="set SCENARIOGEN_HTTP_TIMEOUT=30 (the default) or unset it",
        )
    return value


def _parse_prefix(raw: str) -> str:
    if not _DB_PREFIX.fullmatch(raw):
        raise SettingsError(
            "SCENARIOGEN_DB_PREFIX is not a valid start of a CouchDB database name",
            value=raw[:60],
            options=["a lowercase letter, then up to 119 of a-z 0-9 _ $ ( ) + - /"],
            fix="use a prefix such as `test_`, or unset SCENARIOGEN_DB_PREFIX",
        )
    return raw


def _parse_home(raw: str | None) -> Path:
    path = Path(raw).expanduser() if raw else PROJECT_ROOT / ".scenariogen"
    if "\0" in str(path) or len(str(path)) > 4096:
        raise SettingsError(
            "SCENARIOGEN_HOME is not a usable path",
            value=str(path)[:60],
            fix="set SCENARIOGEN_HOME to a folder path, or unset it",
        )
    resolved = path.resolve()
    if resolved.exists() and not resolved.is_dir():
        raise SettingsError(
            "SCENARIOGEN_HOME names a file, not a folder",
            value=str(resolved),
            fix="point SCENARIOGEN_HOME at a folder (it is created when missing), or unset it",
        )
    return resolved


def _pair(user_var: str, pass_var: str) -> tuple[str | None, str | None]:
    user, password = _env(user_var), _env(pass_var)
    if password is not None and user is None:
        raise SettingsError(
            f"{pass_var} is set but {user_var} is not",
            fix=f"set {user_var} as well, or unset {pass_var}",
        )
    return user, password


def env_settings() -> EnvSettings:
    """Read and validate every environment variable scenariogen uses.

    Returns:
        The validated settings.

    Raises:
        SettingsError: A variable holds an unusable value (one line: variable, value,
            valid range, fix; secrets are never shown).
    """
    url = user_from_url = pass_from_url = None
    raw_url = _env("COUCHDB_URL")
    if raw_url is not None:
        url, user_from_url, pass_from_url = _parse_url(raw_url)
    user, password = _pair("COUCHDB_USERNAME", "COUCHDB_PASSWORD")
    if user is None:
        user, password = user_from_url, pass_from_url
    tools_user, tools_password = _pair("SCENARIOGEN_TOOLS_USERNAME", "SCENARIOGEN_TOOLS_PASSWORD")
    raw_prefix = _env("SCENARIOGEN_DB_PREFIX")
    raw_timeout = _env("SCENARIOGEN_HTTP_TIMEOUT")
    raw_seed = os.environ.get("SCENARIOGEN_SEED")
    return EnvSettings(
        couchdb_url=url,
        couchdb_username=user,
        couchdb_password=password,
        tools_username=tools_user,
        tools_password=tools_password,
        db_prefix=_parse_prefix(raw_prefix) if raw_prefix is not None else "",
        http_timeout_s=_parse_timeout(raw_timeout) if raw_timeout is not None else 30.0,
        home=_parse_home(_env("SCENARIOGEN_HOME")),
        seed=_parse_seed(raw_seed) if raw_seed not in (None, "") else None,
    )


def env_seed() -> int | None:
    """The run seed from ``SCENARIOGEN_SEED`` (validated), or None when unset.

    Raises:
        SettingsError: The value is not a non-negative integer of at most 19 digits.
    """
    raw = os.environ.get("SCENARIOGEN_SEED")
    return _parse_seed(raw) if raw not in (None, "") else None


def state_dir() -> Path:
    """The folder for the bundled server's data, PID file and log (``SCENARIOGEN_HOME``)."""
    return _parse_home(_env("SCENARIOGEN_HOME"))


def server_state_file() -> Path:
    """JSON record of the running bundled server (URL, PID, instance id, data dir, log)."""
    return state_dir() / "server.json"


def credentials_file() -> Path:
    """The bundled store's accounts (mode 0600), written by ``scenariogen env up``."""
    return state_dir() / CREDENTIALS_FILE


class Account(BaseModel):
    """One user of the store."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    username: str = Field(min_length=1, description="User name")
    password: str = Field(min_length=1, description="Password (secret)")


class Credentials(BaseModel):
    """``<state dir>/credentials.json``: the bundled store's two accounts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = Field(default=1, description="File format version")
    admin: Account = Field(description="Server admin (role _admin): reads and writes everything")
    tools: Account = Field(
        description="Read-only account for agent-facing tools: no truth or held-out databases"
    )


def read_credentials(path: Path | None = None) -> Credentials | None:
    """The credentials file, or None when ``env up`` has not written one.

    Raises:
        SettingsError: The file exists but is not a valid credentials file.
    """
    path = path or credentials_file()
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(
            f"cannot read the store credentials {path} ({exc.strerror})",
            fix="check the file's owner and mode (0600), or delete it and run "
            "`scenariogen env down && scenariogen env up` to write a new one",
        ) from None
    try:
        return Credentials.model_validate_json(text)
    except ValidationError:
        raise SettingsError(
            f"the store credentials file {path} is not valid",
            fix="delete it and run `scenariogen env down && scenariogen env up` to write a new one",
        ) from None


class StoreSettings(BaseModel):
    """How to reach the CouchDB-protocol store."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(description="Base URL of the CouchDB-protocol server (no credentials)")
    username: str | None = Field(default=None, description="CouchDB user, if any")
    password: str | None = Field(default=None, description="CouchDB password, if any")
    db_prefix: str = Field(
        default="", description="Prefix of every database name (isolates test runs)"
    )
    timeout_s: float = Field(default=30.0, gt=0, description="HTTP timeout per request")
    external: bool = Field(description="True when COUCHDB_URL points at a server we do not run")
    instance_id: str | None = Field(
        default=None,
        description="The uuid `GET /` must report: the bundled server's, recorded by "
        "`env up`; the client refuses any other server. None = no identity check",
    )
    unavailable: str | None = Field(
        default=None,
        description="Why no store may be used (the bundled store is not running and "
        "COUCHDB_URL is unset); the client refuses to connect with this message",
    )

    def db(self, name: str) -> str:
        """Full database name (deployment prefix added) for an unprefixed name such as
        ``scenariogen_meta``."""
        return f"{self.db_prefix}{name}"

    @property
    def public_url(self) -> str:
        """The URL, safe to print or record (credentials masked)."""
        return redact_url(self.url)


def _read_record() -> dict[str, object] | None:
    path = server_state_file()
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("url"), str) else None


def _same_server(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    hosts = {"localhost", "127.0.0.1"}

    def host(h: str | None) -> str:
        return "127.0.0.1" if h in hosts else (h or "")

    return (pa.scheme, host(pa.hostname), pa.port) == (pb.scheme, host(pb.hostname), pb.port)


def store_settings(role: Role = "admin") -> StoreSettings:
    """The store settings from the environment, the bundled server's record and credentials.

    Args:
        role: ``"admin"`` (the default: seeding, generation, checks) or ``"tools"`` (the
            read-only account for agent-facing tools, which cannot read truth databases).

    Returns:
        The settings. When no store is configured (no ``COUCHDB_URL``, no running bundled
        server) they carry ``unavailable`` and the client refuses to connect.

    Raises:
        SettingsError: An environment variable or the credentials file is invalid.
    """
    env = env_settings()
    record = _read_record()
    record_url = str(record["url"]).rstrip("/") if record else None
    if env.couchdb_url is not None:
        url = env.couchdb_url
        bundled = record_url is not None and _same_server(url, record_url)
    else:
        url = record_url or DEFAULT_URL
        bundled = True
    creds = read_credentials() if bundled else None
    if role == "tools":
        user, password = env.tools_username, env.tools_password
        if user is None and creds is not None:
            user, password = creds.tools.username, creds.tools.password
        if user is None:
            # A store we do not run, without a tool account: the user's own account.
            user, password = env.couchdb_username, env.couchdb_password
    else:
        user, password = env.couchdb_username, env.couchdb_password
        if user is None and creds is not None:
            user, password = creds.admin.username, creds.admin.password
    instance = record.get("instance_id") if (bundled and record) else None
    return StoreSettings(
        url=url,
        username=user,
        password=password,
        db_prefix=env.db_prefix,
        timeout_s=env.http_timeout_s,
        external=not bundled,
        instance_id=instance if isinstance(instance, str) else None,
        unavailable=NOT_RUNNING if (env.couchdb_url is None and record is None) else None,
    )
