"""One face over the two MCP SDK generations: 1.x (upstream locks 1.26) and 2.x (ours).

The API is chosen by what is importable, never by a version string: 2.x ships its types
as the separate ``mcp_types`` package and takes handlers as ``Server(on_list_tools=...)``
keyword arguments (snake_case fields); 1.x keeps them in ``mcp.types`` and registers
handlers with decorators (camelCase fields). Server code builds tools and results through
:func:`make_tool` / :func:`make_result`; client code reads them through the ``result_*``
and ``tool_*`` accessors, which work on either generation's objects.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.lowlevel import Server


def _detect() -> tuple[int, Any]:
    try:
        types2 = importlib.import_module("mcp_types")
    except ImportError:
        return 1, importlib.import_module("mcp.types")
    if "on_list_tools" in inspect.signature(Server.__init__).parameters:
        return 2, types2
    # mcp_types lying around next to a 1.x SDK: the SDK decides.
    return 1, importlib.import_module("mcp.types")


MCP_MAJOR, types = _detect()
"""The SDK generation in use (1 or 2) and its types module."""

ListTools = Callable[[], list[Any]]
CallTool = Callable[[str, dict[str, Any]], Awaitable[Any]]


def make_tool(
    name: str, description: str, input_schema: dict[str, Any], output_schema: dict[str, Any]
) -> Any:
    """A ``Tool`` listing entry with its argument and result JSON Schemas."""
    if MCP_MAJOR == 2:
        return types.Tool(name=name, description=description, input_schema=input_schema,
                          output_schema=output_schema)
    return types.Tool(name=name, description=description, inputSchema=input_schema,
                      outputSchema=output_schema)


def make_result(text: str, structured: dict[str, Any] | None = None,
                is_error: bool = False) -> Any:
    """A ``CallToolResult``: one text block, optional structured content, the error flag."""
    if MCP_MAJOR == 2:
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=structured, is_error=is_error)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structuredContent=structured, isError=is_error)


def build_lowlevel_server(
    name: str, version: str, instructions: str, list_tools: ListTools, call_tool: CallTool
) -> Any:
    """A low-level MCP ``Server`` answering ``tools/list`` and ``tools/call``.

    Args:
        name: Server name sent at initialisation.
        version: Server version sent at initialisation.
        instructions: What the server offers, for the agent.
        list_tools: Returns the tools (built with :func:`make_tool`).
        call_tool: ``(name, arguments)`` → a result built with :func:`make_result`; it
            must not raise for a bad call (an error is a result with ``is_error`` set).
    """
    server_cls: Any = Server  # typed for one generation only; both are called correctly here
    if MCP_MAJOR == 2:

        async def on_list_tools(_ctx: Any, _params: Any) -> Any:
            return types.ListToolsResult(tools=list_tools())

        async def on_call_tool(_ctx: Any, params: Any) -> Any:
            return await call_tool(params.name, dict(params.arguments or {}))

        return server_cls(name, version=version, instructions=instructions,
                          on_list_tools=on_list_tools, on_call_tool=on_call_tool)

    server = server_cls(name, version=version, instructions=instructions)

    async def list_handler() -> list[Any]:
        return list_tools()

    async def call_handler(tool_name: str, arguments: dict[str, Any] | None) -> Any:
        return await call_tool(tool_name, dict(arguments or {}))

    # validate_input=False: our own validation names the field, the value and the fix.
    server.list_tools()(list_handler)
    server.call_tool(validate_input=False)(call_handler)
    return server


def parse_message(line: str) -> Any:
    """Validate one wire line as a JSON-RPC message the SDK accepts (raises if not)."""
    if MCP_MAJOR == 2:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    return types.JSONRPCMessage.model_validate_json(line)


def _field(obj: Any, snake: str, camel: str, default: Any = None) -> Any:
    value = getattr(obj, snake, None)
    if value is None:
        value = getattr(obj, camel, None)
    return default if value is None else value


def result_is_error(result: Any) -> bool:
    """``isError`` of a ``CallToolResult`` from either SDK generation."""
    return bool(_field(result, "is_error", "isError", False))


def result_structured(result: Any) -> dict[str, Any] | None:
    """``structuredContent`` of a ``CallToolResult`` (``None`` when absent)."""
    value = _field(result, "structured_content", "structuredContent")
    return dict(value) if value is not None else None


def result_text(result: Any) -> str:
    """The text blocks of a ``CallToolResult``, joined by newlines."""
    texts = [getattr(block, "text", None) for block in result.content or []]
    return "\n".join(t for t in texts if isinstance(t, str))


def tool_input_schema(tool: Any) -> dict[str, Any]:
    """The argument JSON Schema of a listed tool."""
    return dict(_field(tool, "input_schema", "inputSchema", {}))


def tool_output_schema(tool: Any) -> dict[str, Any] | None:
    """The result JSON Schema of a listed tool, if it publishes one."""
    value = _field(tool, "output_schema", "outputSchema")
    return dict(value) if value is not None else None


async def list_all_tools(session: Any) -> list[Any]:
    """Every tool a client session's server lists, following pagination cursors."""
    listed = await session.list_tools()
    tools = list(listed.tools)
    cursor = _field(listed, "next_cursor", "nextCursor")
    while cursor:
        listed = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        tools.extend(listed.tools)
        cursor = _field(listed, "next_cursor", "nextCursor")
    return tools
