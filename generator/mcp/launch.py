"""Start one domain's MCP server: options, ``.env`` settings, then stdio until EOF."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from generator.errors import ExitCode, UserError


def parser_for(domain: str) -> argparse.ArgumentParser:
    """The command line of ``scenariogen-<domain>-mcp``."""
    parser = argparse.ArgumentParser(
        prog=f"scenariogen-{domain}-mcp",
        description=f"Serve one asset class's scenariogen {domain} tools over MCP on "
        "stdin/stdout.",
    )
    parser.add_argument(
        "--asset", default=None, metavar="CLASS",
        help="asset class to serve (default: $SCENARIOGEN_ASSET_CLASS, else the default "
        "class)",
    )
    parser.add_argument(
        "--env-file", type=Path, default=None, metavar="PATH",
        help="read settings (COUCHDB_URL, ...) from this file instead of "
        "$SCENARIOGEN_ENV_FILE, ./.env and the project's .env; the environment still wins",
    )
    return parser


def main_for(domain: str, argv: list[str] | None = None) -> None:
    """Parse options, load settings, serve ``domain`` until the client disconnects.

    A bad option or settings file prints one line on stderr and exits with code 2 (stdout
    is the protocol stream and stays clean).
    """
    args = parser_for(domain).parse_args(argv)
    try:
        from generator.envfile import load_env_file

        load_env_file(args.env_file)
        from generator.mcp.server import _tool_store_settings, serve_stdio, served_class

        _tool_store_settings()  # settings errors now, as one line, not at the first call
        asset_class = served_class(args.asset).asset_class  # and an unknown class
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(ExitCode.USER_ERROR)
    try:
        asyncio.run(serve_stdio([domain], asset_class))
    except KeyboardInterrupt:  # pragma: no cover - interactive stop
        sys.exit(130)
