"""The MCP server, driven through a real MCP client session over stdio."""

from __future__ import annotations

import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client

from assets.transformer.simulator import FleetSpec
from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.store.couch import CouchClient
from generator.store.seed import seed


async def test_list_call_and_structured_error_over_stdio(store_settings: StoreSettings) -> None:
    with CouchClient(store_settings) as client:
        seed(client, load_asset_class("transformer"),
             FleetSpec(seed=2, sites=1, units_per_site=2, days=7), prefix=store_settings.db_prefix)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "generator.cli", "serve-tools"],
        env={**os.environ, "COUCHDB_URL": store_settings.url,
             "SCENARIOGEN_DB_PREFIX": store_settings.db_prefix},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        names = {t.name for t in listed.tools}
        assert {"interpret_dga", "assess_load_profile", "sites", "history",
                "get_work_orders", "run_tsad"} <= names
        dga_tool = next(t for t in listed.tools if t.name == "interpret_dga")
        assert "hydrogen" in dga_tool.input_schema["properties"]

        # Worked case of the shared notes: H2 50, CH4 200, C2H6 50, C2H4 300, C2H2 2 → T3.
        dga = await session.call_tool("interpret_dga", {
            "asset_name": "EAST-TX01", "hydrogen": 50, "methane": 200, "ethane": 50,
            "ethylene": 300, "acetylene": 2})
        assert not dga.is_error
        assert dga.structured_content["fault_type"] == "T3"

        # Balanced 11 kV, 100 A per phase: S = √3·11·100/1000 = 1.9053 MVA.
        load = await session.call_tool("assess_load_profile", {
            "asset_name": "X", "vl1": 6.351, "vl2": 6.351, "vl3": 6.351, "il1": 100,
            "il2": 100, "il3": 100, "vl12": 11, "vl23": 11, "vl31": 11, "inut": 0,
            "rated_mva": 10})
        assert not load.is_error
        assert abs(load.structured_content["load_mva"] - 1.9053) < 1e-3

        sites = await session.call_tool("sites", {})
        assert not sites.is_error
        assert "NORTH" in json.dumps(sites.structured_content)

        bad = await session.call_tool("interpret_dga", {
            "asset_name": "X", "hydrogen": "lots", "methane": 1, "ethane": 1,
            "ethylene": 1, "acetylene": 1})
        assert bad.is_error
        text = bad.content[0].text
        assert "hydrogen" in text and "tools describe interpret_dga" in text
