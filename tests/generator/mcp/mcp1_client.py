"""An mcp 1.26 client, run by the mcp 1.26 venv's python (not collected by pytest).

Reads a job from stdin: ``{"servers": [{"command", "args", "cwd"}...], "calls":
[[{"name", "arguments"}...] per server]}``; starts each server over stdio with the SDK's
default (minimal) environment, as AssetOpsBench's agents do (all servers at once), lists
its tools, makes the calls, and prints one JSON report on stdout. Written against the
1.x API on purpose (camelCase fields, ``mcp.types``), independent of our compat layer.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client


async def run_one(server: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    params = StdioServerParameters(command=server["command"], args=server["args"],
                                   cwd=server.get("cwd"), env=server.get("env"))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        listed = await session.list_tools()
        results = []
        for call in calls:
            out = await session.call_tool(call["name"], call["arguments"])
            results.append({
                "is_error": out.isError,
                "text": "\n".join(getattr(b, "text", "") for b in out.content),
                "structured": out.structuredContent,
            })
        return {
            "server_name": init.serverInfo.name,
            "tools": {t.name: sorted(t.inputSchema.get("properties", {})) for t in listed.tools},
            "results": results,
        }


async def main() -> None:
    job = json.load(sys.stdin)
    async with asyncio.TaskGroup() as group:  # the servers side by side
        tasks = [group.create_task(run_one(s, c))
                 for s, c in zip(job["servers"], job["calls"], strict=True)]
    reports = [t.result() for t in tasks]
    json.dump({"client_mcp": importlib.metadata.version("mcp"), "reports": reports}, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
