"""The fmsr MCP server (failure modes and the class's diagnostic tools).

Launch: ``scenariogen-fmsr-mcp``, ``python -m generator.mcp.fmsr`` or
``python /path/to/generator/mcp/fmsr.py`` (options: ``--env-file PATH``, ``--asset CLASS``).
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run by path: import the project, not this folder's neighbours
    _ROOT = str(Path(__file__).resolve().parents[2])
    sys.path[:] = [_ROOT] + [p for p in sys.path[1:] if p != _ROOT]

from generator.mcp.launch import main_for


def main() -> None:
    """Serve the fmsr tools over stdio."""
    main_for("fmsr")


if __name__ == "__main__":
    main()
