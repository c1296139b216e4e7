"""interpret_dga over MCP (real client, stdio): results validate against the published schema.

Issue 9: a zero denominator came back as the string "inf" where the output schema says number
(the MCP client raised), and 10^308 ppm produced NaN / Infinity (not JSON). Now a divergent
ratio is null plus a flag, concentrations are bounded to 10^6 ppm, and a bool or a numeric
string is not accepted as a number. No store is needed: interpret_dga never reads it.
"""

from __future__ import annotations

import json
import os
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters, stdio_client

CASES = {
    # All gases zero: every ratio 0/0 = 0, Duval not applicable; gases below limits → normal.
    "zero": {"hydrogen": 0, "methane": 0, "ethane": 0, "ethylene": 0, "acetylene": 0},
    # Trace gases with zero denominators: CH4/H2 = 1e-6/0 and C2H2/C2H4 = 1e-7/0 diverge.
    "trace": {"hydrogen": 0, "methane": 1e-6, "ethane": 1e-6, "ethylene": 0, "acetylene": 1e-7},
    # 10^6 ppm (the bound): C2H4 = 0 makes C2H2/C2H4 diverge; C2H4/C2H6 = 0/10^6 = 0.
    "million": {"hydrogen": 1e6, "methane": 1e6, "ethane": 1e6, "ethylene": 0,
                "acetylene": 1e6, "co": 1e6, "co2": 1e6},
}  # fmt: skip


async def test_interpret_dga_results_validate_against_the_output_schema() -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "generator.cli", "serve-tools"],
        env={**os.environ, "COUCHDB_URL": "http://127.0.0.1:9"},  # unreachable on purpose
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        tool = next(t for t in listed.tools if t.name == "interpret_dga")
        schema = tool.output_schema
        assert schema is not None
        results = {}
        for name, gases in CASES.items():
            out = await session.call_tool("interpret_dga", {"asset_name": "X", **gases})
            assert not out.is_error, (name, out.content)
            payload = out.structured_content
            assert payload is not None
            jsonschema.validate(payload, schema)
            # Strict JSON: the text content parses with NaN/Infinity refused.
            text = out.content[0].text  # type: ignore[union-attr]
            json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            results[name] = payload

        zero = results["zero"]["iec_ratio_method"]["ratios"]
        assert (zero["c2h2_c2h4"], zero["ch4_h2"], zero["c2h4_c2h6"]) == (0.0, 0.0, 0.0)
        assert zero["divergent"] == [] and len(zero["zero_over_zero"]) == 3
        trace = results["trace"]["iec_ratio_method"]["ratios"]
        assert trace["ch4_h2"] is None and trace["c2h2_c2h4"] is None
        assert trace["divergent"] == ["c2h2_c2h4", "ch4_h2"]
        big = results["million"]["iec_ratio_method"]["ratios"]
        assert big["c2h2_c2h4"] is None and big["divergent"] == ["c2h2_c2h4"]
        assert big["ch4_h2"] == 1.0 and big["c2h4_c2h6"] == 0.0

        # Impossible or mistyped inputs come back as one-line tool errors, not results.
        for bad in ({"hydrogen": 1e308}, {"hydrogen": True}, {"hydrogen": "12"},
                    {"hydrogen": -1}):  # fmt: skip
            out = await session.call_tool("interpret_dga", {**CASES["zero"], "asset_name": "X",
                                                            **bad})  # fmt: skip
            assert out.is_error, bad
            text = out.content[0].text  # type: ignore[union-attr]
            assert "'hydrogen'" in text and "\n" not in text
