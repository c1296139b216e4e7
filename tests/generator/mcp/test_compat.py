"""The compat layer builds and reads each SDK generation's objects, as the dry-run client does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from generator.mcp import compat
from generator.tools.registry import default_tool_class, load_tools, tools_for
from tests.generator.mcp.conftest import PROJECT_ROOT

# Run by the mcp 1.26 venv's python: the same accessors eval/dryrun_mcp.py uses, on 1.x
# objects from a real session with our fmsr server (launched by path).
MCP1_SCRIPT = r"""
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from mcp import ClientSession, StdioServerParameters, stdio_client
from generator.mcp import compat

async def main():
    built = compat.make_result("t", {"a": 1}, is_error=True)
    params = StdioServerParameters(command=sys.executable,
                                   args=[sys.argv[1] + "/generator/mcp/fmsr.py"])
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        tools = await compat.list_all_tools(s)
        dga = next(t for t in tools if t.name == "interpret_dga")
        ok = await s.call_tool("interpret_dga", {"asset_name": "X", "hydrogen": 50,
            "methane": 200, "ethane": 50, "ethylene": 300, "acetylene": 2})
        bad = await s.call_tool("interpret_dga", {"asset_name": "X", "hydrogen": "lots"})
    print(json.dumps({
        "major": compat.MCP_MAJOR,
        "built": [compat.result_text(built), compat.result_structured(built),
                  compat.result_is_error(built)],
        "n_tools": len(tools),
        "dga_args": sorted(compat.tool_input_schema(dga)["properties"]),
        "dga_has_output_schema": compat.tool_output_schema(dga) is not None,
        "ok": [compat.result_is_error(ok), compat.result_structured(ok)["fault_type"]],
        "bad": [compat.result_is_error(bad), compat.result_text(bad)],
    }))

asyncio.run(main())
"""


def test_builders_and_accessors_round_trip_on_this_sdk() -> None:
    built = compat.make_result("text", {"a": 1})
    assert (compat.result_text(built), compat.result_structured(built),
            compat.result_is_error(built)) == ("text", {"a": 1}, False)
    tool = compat.make_tool("t", "d", {"type": "object", "properties": {"x": {}}},
                            {"type": "object"})
    assert compat.tool_input_schema(tool)["properties"] == {"x": {}}
    assert compat.tool_output_schema(tool) == {"type": "object"}


def test_client_accessors_on_mcp1_objects(mcp1_python: Path) -> None:
    done = subprocess.run([str(mcp1_python), "-c", MCP1_SCRIPT, str(PROJECT_ROOT)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["major"] == 1
    assert out["built"] == ["t", {"a": 1}, True]
    load_tools()
    fmsr = [n for n, spec in tools_for(default_tool_class()).items() if spec.domain == "fmsr"]
    assert out["n_tools"] == len(fmsr) >= 11  # every fmsr tool of the default class
    assert {"hydrogen", "methane", "ethane", "ethylene", "acetylene"} <= set(out["dga_args"])
    assert out["dga_has_output_schema"]
    assert out["ok"] == [False, "T3"]  # 2/300 < 0.1, 200/50 > 1, 300/50 > 4 → T3
    assert out["bad"][0] is True and "hydrogen" in out["bad"][1]
