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


_DGA = {"asset_name": "T", "hydrogen": 1, "methane": 1, "ethane": 1, "ethylene": 1,
        "acetylene": 1}  # fmt: skip


def test_bool_numeric_string_and_impossible_values_are_one_line_errors() -> None:
    # Issue 9: `true` and "12" were coerced into numbers; 1e308 ppm produced NaN/Infinity.
    for field, value in (("hydrogen", True), ("hydrogen", "12"), ("hydrogen", 1e308),
                         ("methane", -1)):  # fmt: skip
        line = _one_error_line(_run("call", "interpret_dga", "--args",
                                    json.dumps({**_DGA, field: value})))  # fmt: skip
        assert f"'{field}'" in line and "tools describe interpret_dga" in line
    line = _one_error_line(_run("call", "assess_winding_temperature", "--args", json.dumps(
        {"asset_name": "T", "wti": 400, "oti": 80, "ati": 20, "paper": "kraft",
         "size_class": "medium"})))  # fmt: skip
    assert "'wti'" in line and "300" in line


def test_nameplate_lookup_without_a_store_is_one_line_and_explicit_call_works() -> None:
    reading = {"asset_name": "T", "wti": 104, "oti": 85, "ati": 30}
    line = _one_error_line(_run("call", "assess_winding_temperature", "--args",
                                json.dumps(reading)))  # fmt: skip
    assert "paper, size_class not given" in line and "pass paper, size_class" in line
    # Every value explicit: the store (unreachable here) is not needed.
    # Upgraded V(104 °C) = exp(15000/383 − 15000/377) = exp(−0.623307) = 0.536168.
    proc = _run("call", "assess_winding_temperature", "--args", json.dumps(
        {**reading, "paper": "upgraded", "size_class": "medium"}))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["paper_source"] == "argument"
    assert abs(out["relative_ageing_rate"] - 0.536168) < 1e-5


def test_asset_option_picks_the_class_and_an_unknown_class_is_one_line() -> None:
    listed = _run("list", "--asset", "transformer", "--domain", "iot")
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[1] for line in listed.stdout.splitlines()]
    assert names == ["assets", "data_quality", "history", "oil_samples", "sensors", "sites"]
    # A generic tool's description speaks the class's nouns.
    described = json.loads(_run("describe", "sites", "--asset", "transformer").stdout)
    assert described["description"] == "List the sites that hold transformers."
    assert described["asset_classes"] == ["*"]
    line = _one_error_line(_run("list", "--asset", "nosuch"))
    assert "nosuch" in line and "transformer" in line
    line = _one_error_line(_run("call", "interpret_dga", "--asset", "nosuch"))
    assert "nosuch" in line
