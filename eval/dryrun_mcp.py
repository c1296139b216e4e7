"""Our MCP tool server as langchain tools, through a real MCP client session over stdio.

``langchain-mcp-adapters`` (0.3.2, the newest release) pins ``mcp<2``, and this project runs
on mcp 1.26 (AssetOpsBench's lock) or 2.x, so this module is the adapter, reading either SDK
generation's objects through :mod:`generator.mcp.compat`: it starts ``scenariogen serve-tools``
as a child process, lists its tools (following pagination) and wraps each in a langchain
``StructuredTool`` whose argument schema is the tool's MCP input schema. A result with
``isError`` set raises ``ToolException``, which the agent's tool node turns into an error
observation the model can read and correct.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from mcp import ClientSession, StdioServerParameters, stdio_client

from generator.mcp import compat


def server_parameters(env: dict[str, str] | None = None) -> StdioServerParameters:
    """How to start our tool server: this interpreter, ``generator.cli serve-tools``."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "generator.cli", "serve-tools"],
        env={**os.environ, **(env or {})},
    )


def _result_text(result: Any) -> str:
    joined = compat.result_text(result)
    if joined:
        return joined
    structured = compat.result_structured(result)
    if structured is not None:
        return json.dumps(structured)
    return ""


def as_langchain_tool(session: ClientSession, tool: Any) -> BaseTool:
    """Wrap one listed MCP tool; calling it sends ``tools/call`` over ``session``."""
    name = str(tool.name)

    async def call(**kwargs: Any) -> str:
        result = await session.call_tool(name, kwargs)
        text = _result_text(result)
        if compat.result_is_error(result):
            raise ToolException(text or f"tool {name} failed")
        return text

    return StructuredTool(
        name=name,
        description=str(tool.description or name),
        args_schema=compat.tool_input_schema(tool),
        coroutine=call,
        handle_tool_error=True,
    )


@asynccontextmanager
async def mcp_session(
    env: dict[str, str] | None = None, errlog: Path | None = None
) -> AsyncIterator[ClientSession]:
    """A client session with a fresh ``scenariogen serve-tools`` child (stopped on exit).

    Args:
        env: Extra environment for the server (store URL, database prefix).
        errlog: File for the server's stderr (default: discarded).
    """
    sink: TextIO = (
        errlog.open("a", encoding="utf-8") if errlog is not None
        else open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    )
    try:
        async with stdio_client(server_parameters(env), errlog=sink) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session
    finally:
        sink.close()


@asynccontextmanager
async def mcp_tools(
    env: dict[str, str] | None = None, errlog: Path | None = None
) -> AsyncIterator[list[BaseTool]]:
    """Start the tool server, yield its tools as langchain tools, stop it on exit
    (arguments as :func:`mcp_session`)."""
    async with mcp_session(env, errlog) as session:
        tools = await compat.list_all_tools(session)
        yield [as_langchain_tool(session, t) for t in tools]
