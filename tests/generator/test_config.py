"""Environment variables are validated in one settings object: one line naming the fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.config import SettingsError, env_seed, env_settings
from generator.errors import UserError


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in (
        "COUCHDB_URL", "COUCHDB_USERNAME", "COUCHDB_PASSWORD", "SCENARIOGEN_SEED",
        "SCENARIOGEN_HTTP_TIMEOUT", "SCENARIOGEN_DB_PREFIX", "SCENARIOGEN_TOOLS_USERNAME",
        "SCENARIOGEN_TOOLS_PASSWORD",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    return monkeypatch


def test_defaults(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = env_settings()
    assert env.couchdb_url is None and env.seed is None
    assert env.http_timeout_s == 30.0 and env.db_prefix == "" and env.home == tmp_path.resolve()
    assert env_seed() is None


@pytest.mark.parametrize(
    ("name", "value", "expect"),
    [
        ("SCENARIOGEN_SEED", "abc", "non-negative integer"),
        ("SCENARIOGEN_SEED", "-1", "non-negative integer"),
        ("SCENARIOGEN_SEED", "1" * 5000, "at most 19 digits"),
        ("SCENARIOGEN_SEED", "9223372036854775808", "0..9223372036854775807"),
        ("SCENARIOGEN_HTTP_TIMEOUT", "abc", "(0, 3600]"),
        ("SCENARIOGEN_HTTP_TIMEOUT", "0", "(0, 3600]"),
        ("SCENARIOGEN_HTTP_TIMEOUT", "nan", "(0, 3600]"),
        ("SCENARIOGEN_HTTP_TIMEOUT", "inf", "(0, 3600]"),
        ("SCENARIOGEN_HTTP_TIMEOUT", "-5", "(0, 3600]"),
        ("SCENARIOGEN_DB_PREFIX", "Bad Prefix!", "CouchDB database name"),
        ("SCENARIOGEN_DB_PREFIX", "_users", "CouchDB database name"),
        ("COUCHDB_URL", "ftp://127.0.0.1:5984", "http(s) URL"),
        ("COUCHDB_URL", "127.0.0.1:5984", "http(s) URL"),
        ("COUCHDB_URL", "http://127.0.0.1:99999", "http(s) URL"),
        ("COUCHDB_URL", "http://h:5984/?password=x", "query or fragment"),
        ("COUCHDB_PASSWORD", "only-a-password", "COUCHDB_USERNAME is not"),
    ],
)
def test_bad_values_raise_one_line_naming_the_variable(
    clean_env: pytest.MonkeyPatch, name: str, value: str, expect: str
) -> None:
    clean_env.setenv(name, value)
    with pytest.raises(SettingsError) as err:
        env_settings()
    text = str(err.value)
    assert isinstance(err.value, UserError)
    assert "\n" not in text and name in text and expect in text and "fix:" in text
    assert len(text) < 400


def test_secrets_are_not_echoed(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SCENARIOGEN_SEED", "12345x")
    with pytest.raises(SettingsError) as err:
        env_seed()
    assert "12345" not in str(err.value)
    clean_env.delenv("SCENARIOGEN_SEED")
    clean_env.setenv("COUCHDB_URL", "ftp://bob:hunter2hunter2@db.example.org")
    with pytest.raises(SettingsError) as err:
        env_settings()
    assert "hunter2hunter2" not in str(err.value) and "bob:***@" in str(err.value)


def test_home_that_is_a_file(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    afile = tmp_path / "file"
    afile.write_text("x")
    clean_env.setenv("SCENARIOGEN_HOME", str(afile))
    with pytest.raises(SettingsError, match="SCENARIOGEN_HOME names a file"):
        env_settings()


def test_good_values(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("SCENARIOGEN_SEED", "9223372036854775807")
    clean_env.setenv("SCENARIOGEN_HTTP_TIMEOUT", "2.5")
    clean_env.setenv("SCENARIOGEN_DB_PREFIX", "t1234_")
    clean_env.setenv("COUCHDB_URL", "http://localhost:5984/")
    env = env_settings()
    assert env.seed == 2**63 - 1 == env_seed()
    assert env.http_timeout_s == 2.5 and env.db_prefix == "t1234_"
    assert env.couchdb_url == "http://localhost:5984"


@pytest.mark.parametrize(
    ("args", "name", "value"),
    [
        (("generate", "transformer", "-n", "1"), "SCENARIOGEN_SEED", "abc"),
        (("inventory", "transformer"), "SCENARIOGEN_HTTP_TIMEOUT", "0"),
        (("env", "status"), "SCENARIOGEN_DB_PREFIX", "UPPER"),
    ],
)
def test_cli_exits_2_with_one_line(
    args: tuple[str, ...], name: str, value: str, tmp_path: Path
) -> None:
    env = {**os.environ, name: value, "SCENARIOGEN_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "generator.cli", *args, *(
            ("--out", str(tmp_path / "out")) if args[0] == "generate" else ()
        )],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and "Traceback" not in proc.stderr
