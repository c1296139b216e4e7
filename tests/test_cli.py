"""The CLI prints one clear line for user errors and exits with code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.config import StoreSettings


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
    )


def test_seed_with_the_store_down_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = _run(
        "env", "seed", env={"COUCHDB_URL": "http://127.0.0.1:9", "SCENARIOGEN_HOME": str(tmp_path)}
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach CouchDB" in lines[0] and "Traceback" not in proc.stderr


def test_inventory_of_unknown_asset_class() -> None:
    proc = _run("inventory", "transfomer")
    assert proc.returncode == 2
    assert "unknown asset class 'transfomer'" in proc.stderr
    assert "valid: chiller, transformer" in proc.stderr


def test_invalid_fleet_option(store_settings: StoreSettings) -> None:
    proc = _run(
        "env",
        "seed",
        "--days",
        "3",
        env={"COUCHDB_URL": store_settings.url, "SCENARIOGEN_DB_PREFIX": "cli_"},
    )
    assert proc.returncode == 2
    assert "--days" in proc.stderr


@pytest.mark.parametrize("args", [["--help"], ["env", "--help"]])
def test_help_is_available(args: list[str]) -> None:
    proc = _run(*args)
    assert proc.returncode == 0 and "Usage" in proc.stdout


def test_seed_then_inventory_through_the_cli(store_settings: StoreSettings) -> None:
    env = {"COUCHDB_URL": store_settings.url, "SCENARIOGEN_DB_PREFIX": store_settings.db_prefix}
    args = ["env", "seed", "--seed", "5", "--sites", "1", "--units-per-site", "2", "--days", "7"]
    first = _run(*args, env=env)
    assert first.returncode == 0, first.stderr
    assert "seeded transformer fleet" in first.stdout
    assert "nothing to do" in _run(*args, env=env).stdout
    other = _run(*[a if a != "5" else "6" for a in args], env=env)
    assert other.returncode == 2 and "--drop" in other.stderr
    inv = _run("inventory", "transformer", env=env)
    assert inv.returncode == 0, inv.stderr
    assert "1 sites (NORTH), 2 assets" in inv.stdout
    # The nameplate fields asset.yaml declares are printed with their units.
    assert " MVA" in inv.stdout and "cooling " in inv.stdout and "oil_sample 20" in inv.stdout
    # Without a class, commands use the class asset.yaml marks `default: true`.
    assert _run("inventory", env=env).stdout == inv.stdout
    status = _run("env", "status", env=env)
    assert "transformer: complete (seed 5, 1×2 units, 7 days;" in status.stdout
    assert "nothing to do" in _run("env", "seed", "transformer", *args[2:], env=env).stdout
