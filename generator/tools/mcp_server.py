"""``scenariogen serve-tools``: every registered tool over MCP (stdio), with its schemas.

A bad argument or a user error comes back as a tool result with ``isError`` set and one
line naming the field and the fix, so an agent can correct itself; bugs still raise.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from generator import __version__
from generator.assetdef import load_asset_class
from generator.errors import UserError
from generator.tools.registry import ToolContext, call_tool, load_tools


def _tool_list() -> list[types.Tool]:
    registry = load_tools()
    tools = []
    for name in registry.names():
        spec = registry.get(name)
        tools.append(
            types.Tool(
                name=spec.name,
                description=f"[{spec.domain}] {spec.description}"
                + (f" (follows {spec.standard})" if spec.standard else ""),
                input_schema=spec.args.model_json_schema(),
                output_schema=spec.result.model_json_schema(),
            )
        )
    return tools


def build_server() -> Server[Any]:
    """The MCP server object (handlers bound to the registry and one tool context per class)."""
    contexts: dict[str, ToolContext] = {}

    def context_for(asset_class: str) -> ToolContext:
        if asset_class not in contexts:
            contexts[asset_class] = ToolContext(load_asset_class(asset_class))
        return contexts[asset_class]

    async def on_list_tools(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_tool_list())

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            spec = load_tools().get(params.name)
            result = await call_tool(
                params.name, params.arguments or {}, context_for(spec.asset_classes[0])
            )
        except UserError as exc:
            return types.CallToolResult(
                content=[types.TextContent(text=f"error: {exc}")], is_error=True
            )
        payload = result.model_dump(mode="json")
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(payload))], structured_content=payload
        )

    return Server(
        "scenariogen-tools",
        version=__version__,
        instructions="Deterministic transformer tools (IEC 60599, IEC 60076-7, IEEE C57) and "
        "data tools over the scenariogen CouchDB store.",
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio() -> None:
    """Run the server on stdin/stdout until the client disconnects."""
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
