"""The tool registry, tool calls and the MCP server."""
