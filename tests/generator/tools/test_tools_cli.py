"""`scenariogen tools ...`: list, describe, call, and one clear line for each mistake."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", "tools", *args],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "COUCHDB_URL": "http://127.0.0.1:9"},
    )


def test_list_and_describe() -> None:
    listed = _run("list")
    assert listed.returncode == 0, listed.stderr
    assert "interpret_dga" in listed.stdout and "get_failure_modes" in listed.stdout
    described = json.loads(_run("describe", "interpret_dga").stdout)
    assert described["domain"] == "fmsr"
    assert described["arguments"]["properties"]["hydrogen"]["type"] == "number"
    assert "properties" in described["result"]


def test_call_prints_the_result_as_json() -> None:
    # Shared-notes case: H2 100, CH4 50, C2H6 20, C2H4 10, C2H2 0.5 → Rogers codes 0 0 0.
    proc = _run("call", "interpret_dga", "--args", json.dumps({
        "asset_name": "T", "hydrogen": 100, "methane": 50, "ethane": 20, "ethylene": 10,
        "acetylene": 0.5}))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["rogers"]["codes"] == [0, 0, 0]


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    return lines[0]


def test_malformed_json() -> None:
    line = _one_error_line(_run("call", "interpret_dga", "--args", "{hydrogen: 5"))
    assert "not valid JSON" in line


def test_unknown_tool_suggests_a_name() -> None:
    line = _one_error_line(_run("call", "interpret_dgaa", "--args", "{}"))
    assert "did you mean 'interpret_dga'" in line


def test_wrong_argument_type_names_the_field() -> None:
    line = _one_error_line(_run("call", "interpret_dga", "--args", json.dumps({
        "asset_name": "T", "hydrogen": "high", "methane": 1, "ethane": 1, "ethylene": 1,
        "acetylene": 1})))
    assert "'hydrogen'" in line and "'high'" in line


def test_data_tool_with_store_down_is_one_line() -> None:
    line = _one_error_line(_run("call", "sites"))
    assert "cannot reach CouchDB" in line
