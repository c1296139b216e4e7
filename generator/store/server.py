"""Start, stop and inspect the bundled CouchDB-protocol server (``server/`` Node package)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
from pydantic import BaseModel, ConfigDict, Field

from generator.config import (
    DEFAULT_ADMIN,
    DEFAULT_PORT,
    PRIVATE_DB_PATTERNS,
    PROJECT_ROOT,
    TOOLS_USER,
    Account,
    Credentials,
    credentials_file,
    env_settings,
    read_credentials,
    server_state_file,
    state_dir,
)
from generator.errors import UserError
from generator.redact import redact_text
from generator.store.couch import SNAPSHOT_PAGE

SERVER_DIR = PROJECT_ROOT / "server"
SERVER_JS = SERVER_DIR / "server.js"
HOST = "127.0.0.1"
AUTH_FILE = "server_auth.json"
PBKDF2_ITERATIONS = 100_000
SESSION_TIMEOUT_S = 600


class ServerRecord(BaseModel):
    """What ``env up`` records about the server it started."""

    model_config = ConfigDict(extra="forbid")

    pid: int = Field(description="PID of the node process")
    url: str = Field(description="Base URL the server listens on")
    port: int = Field(description="TCP port")
    data_dir: str = Field(description="LevelDB data directory")
    log: str = Field(description="Log file of the server")
    started_at: float = Field(description="Unix time of start")
    instance_id: str | None = Field(
        default=None,
        description="Random uuid of this start, served at `GET /` as `uuid`; every command "
        "compares it with the server it reaches",
    )


class ServerStatus(BaseModel):
    """Answer of ``env status``."""

    model_config = ConfigDict(extra="forbid")

    running: bool = Field(description="The recorded process is alive and answers HTTP")
    record: ServerRecord | None = Field(description="The recorded server, if any")
    detail: str = Field(description="One line for the user")


def read_record() -> ServerRecord | None:
    """The recorded server, or None when none was started (or the record is unreadable)."""
    path = server_state_file()
    if not path.exists():
        return None
    try:
        return ServerRecord.model_validate_json(path.read_text())
    except ValueError:
        return None


def _pid_is_our_server(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    return any(part.endswith(b"server.js") for part in cmdline)


def _healthy(url: str, timeout: float = 1.0) -> bool:
    try:
        resp = httpx.get(url + "/", timeout=timeout, headers={"Accept": "application/json"})
    except httpx.HTTPError:
        return False
    return resp.status_code == 200


def _port_busy(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((HOST, port)) == 0


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return redact_text("\n".join(text[-lines:])) or "(empty log)"


def ensure_node_modules() -> None:
    """Install the server's pinned dependencies with ``npm ci`` when they are missing."""
    if (SERVER_DIR / "node_modules" / "express-pouchdb").exists():
        return
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise UserError(
            "Node.js and npm are needed for the bundled CouchDB-protocol server",
            fix="install Node.js >= 18 (e.g. `apt-get install nodejs npm`) or set COUCHDB_URL "
            "to an Apache CouchDB",
        )
    proc = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=SERVER_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise UserError(
            f"`npm ci` in {SERVER_DIR} failed: {proc.stderr.strip()[-400:]}",
            fix="check the npm registry is reachable, then run `make setup` again",
        )


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically with mode 0600 (owner only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def ensure_credentials() -> Credentials:
    """The bundled store's accounts: kept from ``credentials.json``, else created.

    The admin is ``COUCHDB_USERNAME`` / ``COUCHDB_PASSWORD`` when set (a missing password
    is generated), else the file's admin, else ``admin`` with a generated password. The
    read-only tool account ``scenariogen_tools`` keeps the file's password or gets a new
    one. The file is (re)written with mode 0600.
    """
    env = env_settings()
    current = read_credentials()
    admin = current.admin if current else None
    if env.couchdb_username is not None:
        password = env.couchdb_password
        if password is None:
            same = admin is not None and admin.username == env.couchdb_username
            password = admin.password if (same and admin) else secrets.token_urlsafe(24)
        admin = Account(username=env.couchdb_username, password=password)
    if admin is None:
        admin = Account(username=DEFAULT_ADMIN, password=secrets.token_urlsafe(24))
    tools = current.tools if current else None
    if tools is None or tools.username == admin.username:
        tools = Account(username=TOOLS_USER, password=secrets.token_urlsafe(24))
    creds = Credentials(admin=admin, tools=tools)
    path = credentials_file()
    if creds != current or (path.stat().st_mode & 0o077):
        write_private(path, creds.model_dump_json(indent=2) + "\n")
    return creds


def _user_entry(account: Account, roles: list[str]) -> dict[str, object]:
    salt = secrets.token_bytes(16)
    key = hashlib.pbkdf2_hmac("sha256", account.password.encode(), salt, PBKDF2_ITERATIONS, 32)
    return {
        "name": account.username,
        "roles": roles,
        "salt": salt.hex(),
        "iterations": PBKDF2_ITERATIONS,
        "derived_key": key.hex(),
    }


def write_auth_file(
    creds: Credentials, instance_id: str, session_timeout_s: int = SESSION_TIMEOUT_S
) -> Path:
    """Write the server's auth file (mode 0600): PBKDF2 keys, cookie secret, instance id."""
    path = state_dir() / AUTH_FILE
    payload = {
        "instance_id": instance_id,
        "secret": secrets.token_hex(32),
        "session_timeout_s": session_timeout_s,
        "users": [
            _user_entry(creds.admin, ["_admin"]),
            _user_entry(creds.tools, ["scenariogen_tools"]),
        ],
        "hidden_db_patterns": list(PRIVATE_DB_PATTERNS),
    }
    write_private(path, json.dumps(payload, indent=2) + "\n")
    return path


def server_uuid(url: str, timeout: float = 2.0) -> str | None:
    """The ``uuid`` that ``GET /`` of ``url`` reports, or None (no answer, not CouchDB)."""
    try:
        resp = httpx.get(url + "/", timeout=timeout, headers={"Accept": "application/json"})
        body = resp.json()
    except (httpx.HTTPError, ValueError):
        return None
    uuid = body.get("uuid") if isinstance(body, dict) else None
    return uuid if isinstance(uuid, str) else None


def up(
    port: int = DEFAULT_PORT,
    data_dir: Path | None = None,
    wait_s: float = 15.0,
    session_timeout_s: int = SESSION_TIMEOUT_S,
) -> ServerRecord:
    """Start the bundled server in the background and wait until it answers.

    Returns the existing record when our server already runs. Raises
    :class:`UserError` for a busy port or a server that fails to start, with the tail
    of its log.
    """
    record = read_record()
    if record and _pid_is_our_server(record.pid) and _healthy(record.url):
        if record.port == port:
            return record
        raise UserError(
            f"the bundled server already runs on port {record.port} (pid {record.pid})",
            value=port,
            fix="run `scenariogen env down` first to move it to another port",
        )
    if _port_busy(port):
        owner = (
            "another CouchDB-protocol server"
            if _healthy(f"http://{HOST}:{port}")
            else ("another process")
        )
        raise UserError(
            f"port {port} on {HOST} is already in use by {owner}",
            value=port,
            fix=f"stop that process, start ours on a free port (`scenariogen env up --port "
            f"{port + 1}`), or use that server by setting COUCHDB_URL=http://{HOST}:{port}",
        )
    ensure_node_modules()
    node = shutil.which("node")
    if node is None:
        raise UserError("`node` is not on PATH", fix="install Node.js >= 18")
    home = state_dir()
    data = (data_dir or home / "couch").resolve()
    data.mkdir(parents=True, exist_ok=True)
    if data_dir is None:
        # The LevelDB files hold the truth database too: owner only, like the credentials.
        os.chmod(data, 0o700)
    log_path = home / "server.log"
    url = f"http://{HOST}:{port}"
    instance_id = secrets.token_hex(16)
    auth_file = write_auth_file(ensure_credentials(), instance_id, session_timeout_s)
    # Owner only, like the credentials: the log tells what the server did with whose requests.
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)  # a log an earlier version left readable by all
    with os.fdopen(fd, "ab") as log:
        proc = subprocess.Popen(
            [
                node, str(SERVER_JS), "--port", str(port), "--host", HOST,
                "--data-dir", str(data), "--auth-file", str(auth_file),
                "--warm-page", str(SNAPSHOT_PAGE),
            ],
            cwd=SERVER_DIR,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise UserError(
                f"the bundled server exited with code {proc.returncode} during start; "
                f"log {log_path}:\n{_tail(log_path)}",
                fix="read the log above; a busy port or a locked data directory are the usual "
                "causes",
            )
        if _healthy(url, timeout=0.5) and server_uuid(url) == instance_id:
            rec = ServerRecord(
                pid=proc.pid,
                url=url,
                port=port,
                data_dir=str(data),
                log=str(log_path),
                started_at=time.time(),
                instance_id=instance_id,
            )
            write_private(server_state_file(), rec.model_dump_json(indent=2))
            return rec
        time.sleep(0.1)
    proc.kill()
    proc.wait(timeout=5)
    raise UserError(
        f"the bundled server did not answer on {url} within {wait_s:g} s; log {log_path}:\n"
        f"{_tail(log_path)}",
        fix="read the log above and retry `scenariogen env up`",
    )


def down(timeout_s: float = 10.0) -> str:
    """Stop the recorded server by PID; returns a one-line description."""
    record = read_record()
    path = server_state_file()
    if record is None:
        return "no bundled server is recorded as running"
    if not _pid_is_our_server(record.pid):
        path.unlink(missing_ok=True)
        return f"bundled server (pid {record.pid}) was not running; record removed"
    os.kill(record.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _alive(record.pid):
        time.sleep(0.1)
    if _alive(record.pid):
        os.kill(record.pid, signal.SIGKILL)
    path.unlink(missing_ok=True)
    return f"stopped bundled server (pid {record.pid}) on {record.url}"


def _alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        # Reap it if it is our child (tests start it in-process).
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (OSError, IndexError):
        return True
    return state != "Z"


def status() -> ServerStatus:
    """Whether the recorded server runs and answers."""
    record = read_record()
    if record is None:
        return ServerStatus(running=False, record=None, detail="no bundled server recorded")
    if not _pid_is_our_server(record.pid):
        return ServerStatus(
            running=False,
            record=record,
            detail=f"recorded server pid {record.pid} is gone; run `scenariogen env up`",
        )
    if not _healthy(record.url):
        return ServerStatus(
            running=False,
            record=record,
            detail=f"pid {record.pid} runs but {record.url} does not answer; log {record.log}:\n"
            f"{_tail(Path(record.log))}",
        )
    if record.instance_id is not None and server_uuid(record.url) != record.instance_id:
        return ServerStatus(
            running=False,
            record=record,
            detail=f"{record.url} answers, but not as the bundled server `env up` started "
            "(its instance id differs); run `scenariogen env down && scenariogen env up`",
        )
    return ServerStatus(running=True, record=record, detail=f"running on {record.url}")


def describe(record: ServerRecord) -> str:
    """JSON text of a record, for the CLI."""
    return json.dumps(record.model_dump(), indent=2)
