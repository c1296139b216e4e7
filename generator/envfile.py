"""Settings from a ``.env`` file, for processes whose parent does not pass the environment.

An MCP client starts its servers with a minimal environment (``PATH``, ``HOME``, ...), so
a store URL exported in the user's shell never reaches a server launched by path. Each
server (and the CLI) therefore reads ``KEY=VALUE`` lines from a ``.env`` file into
``os.environ`` at start, never replacing a variable that is already set.

Format, one setting per line::

    # a comment
    COUCHDB_URL=http://127.0.0.1:5990
    export SCENARIOGEN_DB_PREFIX=demo_      # ``export`` is allowed; so is a trailing comment
    COUCHDB_PASSWORD='p#ss word'            # single quotes: taken literally
    NOTE="line one\\nline two"              # double quotes: \\n \\t \\" \\\\ are escapes

Which files, without an explicit path (earlier files win, none overrides the environment):
the file named by ``SCENARIOGEN_ENV_FILE`` (it must exist), then ``./.env`` in the
working directory, then ``.env`` at the project root (next to ``pyproject.toml``), so a
server launched by path from another project's folder still finds ours.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from generator.errors import UserError
from generator.userfile import check_regular, read_text

ENV_FILE_VAR = "SCENARIOGEN_ENV_FILE"
MAX_ENV_FILE_BYTES = 1_000_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}
_PROJECT_ROOT = Path(__file__).resolve().parents[1]


class EnvFileError(UserError):
    """A ``.env`` file is missing, unreadable or has a line that is not ``KEY=VALUE``."""


def _malformed(path: Path, lineno: int, problem: str) -> EnvFileError:
    # The line itself is never echoed: it may hold a password.
    return EnvFileError(
        f"{path}:{lineno}: {problem}",
        fix="write one KEY=VALUE per line (# starts a comment; quote values with spaces or #)",
    )


def _unquote_double(body: str, path: Path, lineno: int, name: str) -> tuple[str, str]:
    """Read a double-quoted value; return (value, rest of the line after the closing quote)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        if ch == '"':
            return "".join(out), body[i + 1 :]
        out.append(ch)
        i += 1
    raise _malformed(path, lineno, f"the value of {name} opens a double quote it never closes")


def _parse_value(raw: str, path: Path, lineno: int, name: str) -> str:
    raw = raw.strip()
    if raw[:1] in ("'", '"'):
        if raw[0] == "'":
            end = raw.find("'", 1)
            if end < 0:
                raise _malformed(
                    path, lineno, f"the value of {name} opens a single quote it never closes"
                )
            value, rest = raw[1:end], raw[end + 1 :]
        else:
            value, rest = _unquote_double(raw[1:], path, lineno, name)
        rest = rest.strip()
        if rest and not rest.startswith("#"):
            raise _malformed(path, lineno, f"text after the closing quote of {name}")
        return value
    # Unquoted: a comment starts at a '#' that follows whitespace.
    match = re.search(r"\s#", raw)
    if match:
        raw = raw[: match.start()]
    return raw.strip()


def parse_env_file(path: Path) -> dict[str, str]:
    """Read ``path`` into a dict of settings, in file order.

    Raises:
        EnvFileError: The file cannot be read, is too large, is not UTF-8, or a line is
            not ``KEY=VALUE`` (the message names ``file:line``).
    """
    text = read_text(path, "settings file", max_bytes=MAX_ENV_FILE_BYTES, error=EnvFileError)
    settings: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export ") or stripped.startswith("export\t"):
            stripped = stripped[len("export") :].lstrip()
        name, sep, raw = stripped.partition("=")
        name = name.strip()
        if not sep:
            raise _malformed(path, lineno, "expected KEY=VALUE, found no '='")
        if not _NAME.fullmatch(name):
            shown = name if len(name) <= 40 else name[:37] + "..."
            raise _malformed(path, lineno, f"{shown!r} is not a variable name")
        value = _parse_value(raw, path, lineno, name)
        if "\x00" in value:
            raise _malformed(path, lineno, f"the value of {name} contains a NUL character")
        settings[name] = value
    return settings


def _apply(path: Path) -> None:
    for name, value in parse_env_file(path).items():
        if name not in os.environ:
            os.environ[name] = value


def default_env_files(cwd: Path | None = None) -> list[Path]:
    """The files :func:`load_env_file` reads without an explicit path, in order of precedence.

    Raises:
        EnvFileError: ``SCENARIOGEN_ENV_FILE`` names a file that does not exist.
    """
    files: list[Path] = []
    named = os.environ.get(ENV_FILE_VAR)
    if named:
        named_path = Path(named).expanduser()
        if not named_path.exists():
            raise EnvFileError(
                f"{ENV_FILE_VAR} names a settings file that does not exist",
                value=named,
                fix=f"create the file, or unset {ENV_FILE_VAR}",
            )
        check_regular(named_path, f"{ENV_FILE_VAR} settings file", error=EnvFileError)
        files.append(named_path)
    for candidate in ((cwd or Path.cwd()) / ".env", _PROJECT_ROOT / ".env"):
        # a .env folder (a virtualenv) is not ours; a FIFO or device is refused when read
        if candidate.exists() and not candidate.is_dir() and all(
            candidate.resolve() != seen.resolve() for seen in files
        ):
            files.append(candidate)
    return files


def load_env_file(path: Path | None = None) -> None:
    """Load ``KEY=VALUE`` settings into ``os.environ`` without replacing any already set.

    Args:
        path: The file to read (it must exist). Without it: the file named by
            ``SCENARIOGEN_ENV_FILE``, then ``./.env``, then the project root's ``.env``,
            each only if present; earlier files win.

    Raises:
        EnvFileError: A file is missing (when named), unreadable, or has a malformed line
            (one line naming ``file:line``).
    """
    if path is not None:
        check_regular(path, "settings file", error=EnvFileError)
        _apply(path)
        return
    for file in default_env_files():
        _apply(file)
