"""Each per-domain MCP server, launched the ways AssetOpsBench launches its own, over both SDKs.

Matrix: server interpreter (the main venv, mcp 2.x; ``.venv-mcp1``, mcp 1.26) × client
(mcp 2.x in this process; mcp 1.26 in a subprocess of ``.venv-mcp1``), every domain
launched BY PATH with the SDK's default minimal environment (no COUCHDB_URL, no
SCENARIOGEN_*): the store is named only in a ``.env`` in the server's working folder, and
the answers must be the test store's (its unique database prefix), not whatever runs on 5984.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.mcp import compat
from generator.tools.registry import ToolContext, call_tool, tools_for
from tests.generator.mcp.conftest import PROJECT_ROOT, write_env_file

DOMAINS = ("iot", "fmsr", "tsfm", "wo")
SERVER_FILE = {d: PROJECT_ROOT / "generator" / "mcp" / f"{d}.py" for d in DOMAINS}
CLIENT_SCRIPT = Path(__file__).with_name("mcp1_client.py")

# The tool table of docs/tools.md (once the README's), typed out independently of the registry.
README_TOOLS = {
    "iot": {"sites", "assets", "sensors", "history", "oil_samples"},
    "fmsr": {"interpret_dga", "assess_winding_temperature", "assess_load_profile",
             "predict_health_index", "compute_hot_spot", "compute_loss_of_life",
             "compute_equivalent_ageing", "assess_emergency_loading", "get_failure_modes",
             "get_failure_mode_sensor_mapping",
             "assess_oil_quality"},
    "tsfm": {"get_ai_tasks", "get_tsfm_models", "run_tsad", "run_tsfm_forecasting"},
    "wo": {"get_work_orders", "get_preventive_work_orders", "get_corrective_work_orders",
           "get_events", "get_work_order_distribution", "predict_next_work_order",
           "get_failure_codes", "analyze_alert_to_failure"},
}  # fmt: skip

# Worked case of the shared notes: H2 50, CH4 200, C2H6 50, C2H4 300, C2H2 2 ppm.
# IEC 60599 ratios: C2H2/C2H4 = 2/300 = 0.0067 (< 0.1), CH4/H2 = 200/50 = 4 (> 1),
# C2H4/C2H6 = 300/50 = 6 (> 4) → T3 (thermal fault above 700 °C).
DGA_T3 = {"asset_name": "EAST-TX01", "hydrogen": 50, "methane": 200, "ethane": 50,
          "ethylene": 300, "acetylene": 2}
LONG_ID = "X" * 100_000

# One call per domain that reads the store (fmsr: one that needs none, worked by hand),
# plus wo's over-long equipment id (issue 13).
CALLS: dict[str, list[dict[str, Any]]] = {
    "iot": [{"name": "sites", "arguments": {}}],
    "fmsr": [{"name": "interpret_dga", "arguments": DGA_T3}],
    "tsfm": [{"name": "get_tsfm_models", "arguments": {}}],
    "wo": [{"name": "get_failure_codes", "arguments": {}},
           {"name": "get_work_orders", "arguments": {"equipment_id": LONG_ID}}],
}


def _strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"non-strict JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


async def _in_process(name: str, arguments: dict[str, Any], settings: StoreSettings) -> Any:
    ctx = ToolContext(load_asset_class("transformer"), settings)
    try:
        return (await call_tool(name, arguments, ctx)).model_dump(mode="json")
    finally:
        ctx.close()


async def _check_domain(domain: str, tools: dict[str, list[str]], results: list[dict[str, Any]],
                        settings: StoreSettings) -> None:
    expected = {n for n, s in tools_for("transformer").items() if s.domain == domain}
    assert set(tools) == expected, domain
    assert README_TOOLS[domain] <= set(tools), domain
    for call, result in zip(CALLS[domain], results, strict=True):
        if not result["is_error"]:  # strict JSON text, the same as the structured content
            assert _strict(result["text"]) == result["structured"], (domain, call["name"])
        if call["arguments"] is DGA_T3:
            assert not result["is_error"], result["text"]
            assert result["structured"]["fault_type"] == "T3"
        elif call["arguments"].get("equipment_id") is LONG_ID:
            assert result["is_error"]
            text = result["text"]
            assert "\n" not in text and len(text) < 400, text
            assert "equipment_id" in text and "100000" in text and "URL" not in text
        else:
            assert not result["is_error"], result["text"]
            want = await _in_process(call["name"], call["arguments"], settings)
            assert result["structured"] == want, (domain, call["name"])


async def _client2(server: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    params = StdioServerParameters(command=server["command"], args=server["args"],
                                   cwd=server.get("cwd"), env=server.get("env"))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await compat.list_all_tools(session)
        results = []
        for call in calls:
            out = await session.call_tool(call["name"], call["arguments"])
            results.append({"is_error": compat.result_is_error(out),
                            "text": compat.result_text(out),
                            "structured": compat.result_structured(out)})
        return {"tools": {t.name: sorted(compat.tool_input_schema(t).get("properties", {}))
                          for t in listed},
                "results": results}


def _client1(mcp1_python: Path, servers: list[dict[str, Any]],
             calls: list[list[dict[str, Any]]]) -> dict[str, Any]:
    done = subprocess.run(
        [str(mcp1_python), str(CLIENT_SCRIPT)],
        input=json.dumps({"servers": servers, "calls": calls}),
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["client_mcp"].startswith("1.26"), report["client_mcp"]
    return report


def _by_path(python: Path, domain: str, cwd: Path) -> dict[str, Any]:
    # env None: the SDK's default environment (HOME, PATH, ...), as upstream's agents pass.
    return {"command": str(python), "args": [str(SERVER_FILE[domain])], "cwd": str(cwd),
            "env": None}


@pytest.fixture
def env_folder(tmp_path: Path, seeded_settings: StoreSettings) -> Path:
    """A working folder whose ``.env`` is the only place naming the test store."""
    write_env_file(tmp_path / ".env", seeded_settings)
    return tmp_path


@pytest.mark.couch
@pytest.mark.parametrize("server_python", ["main", "mcp1"])
async def test_mcp2_client_lists_and_calls_every_domain_server_by_path(
    server_python: str, env_folder: Path, seeded_settings: StoreSettings,
    request: pytest.FixtureRequest,
) -> None:
    assert compat.MCP_MAJOR == 2, "the main venv runs mcp 2.x (pip install -e '.[dev]')"
    python = (Path(sys.executable) if server_python == "main"
              else request.getfixturevalue("mcp1_python"))
    async with asyncio.TaskGroup() as group:  # the four servers side by side
        tasks = {d: group.create_task(_client2(_by_path(python, d, env_folder), CALLS[d]))
                 for d in DOMAINS}
    for domain, task in tasks.items():
        report = task.result()
        await _check_domain(domain, report["tools"], report["results"], seeded_settings)


@pytest.mark.couch
@pytest.mark.parametrize("server_python", ["main", "mcp1"])
async def test_mcp1_client_lists_and_calls_every_domain_server_by_path(
    server_python: str, env_folder: Path, seeded_settings: StoreSettings, mcp1_python: Path,
) -> None:
    python = Path(sys.executable) if server_python == "main" else mcp1_python
    report = _client1(mcp1_python, [_by_path(python, d, env_folder) for d in DOMAINS],
                      [CALLS[d] for d in DOMAINS])
    for domain, one in zip(DOMAINS, report["reports"], strict=True):
        assert one["server_name"] == f"scenariogen-{domain}"
        await _check_domain(domain, one["tools"], one["results"], seeded_settings)


@pytest.mark.couch
async def test_without_the_env_file_the_server_does_not_find_the_test_store(
    tmp_path: Path, seeded_settings: StoreSettings,
) -> None:
    # The control: same launch, no .env → the prefixed test databases are not reachable.
    report = await _client2(_by_path(Path(sys.executable), "iot", tmp_path), CALLS["iot"])
    result = report["results"][0]
    assert result["is_error"], result
    assert "\n" not in result["text"]


@pytest.mark.couch
@pytest.mark.parametrize("mode", ["console-script", "module", "env-file-option",
                                  "mcp1-console-script"])
async def test_other_launch_modes(mode: str, tmp_path: Path, seeded_settings: StoreSettings,
                                  request: pytest.FixtureRequest) -> None:
    bindir = Path(sys.executable).parent
    cwd = tmp_path / "work"
    cwd.mkdir()
    if mode == "env-file-option":
        # No ./.env: the file is named on the command line instead.
        env_file = write_env_file(tmp_path / "store.env", seeded_settings)
        server = {"command": sys.executable,
                  "args": [str(SERVER_FILE["iot"]), "--env-file", str(env_file)]}
        domain = "iot"
    else:
        write_env_file(cwd / ".env", seeded_settings)
        if mode == "console-script":
            server, domain = {"command": str(bindir / "scenariogen-iot-mcp"), "args": []}, "iot"
        elif mode == "module":
            server, domain = {"command": sys.executable,
                              "args": ["-m", "generator.mcp.tsfm"]}, "tsfm"
        else:
            mcp1_bin = request.getfixturevalue("mcp1_python").parent
            server, domain = {"command": str(mcp1_bin / "scenariogen-wo-mcp"), "args": []}, "wo"
    server.update(cwd=str(cwd), env=None)
    report = await _client2(server, CALLS[domain])
    await _check_domain(domain, report["tools"], report["results"], seeded_settings)


@pytest.mark.couch
async def test_by_path_with_an_interpreter_that_lacks_our_package(
    tmp_path: Path, seeded_settings: StoreSettings, mcp1_python: Path,
) -> None:
    # Upstream's interpreter: mcp 1.26 and the libraries, but not scenariogen. `-S` skips
    # site-packages' .pth files (our editable install); PYTHONPATH brings the libraries back.
    purelib = subprocess.run(
        [str(mcp1_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": purelib}
    control = subprocess.run([str(mcp1_python), "-S", "-c", "import mcp, generator"],
                             cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=60, check=False)
    assert "No module named 'generator'" in control.stderr, control.stderr
    write_env_file(tmp_path / ".env", seeded_settings)
    server = {"command": str(mcp1_python), "args": ["-S", str(SERVER_FILE["wo"])],
              "cwd": str(tmp_path), "env": env}
    report = await _client2(server, CALLS["wo"])
    await _check_domain("wo", report["tools"], report["results"], seeded_settings)
