"""The iot MCP server (sites, assets, sensors, history and the class's other records).

Launch: ``scenariogen-iot-mcp``, ``python -m generator.mcp.iot`` or
``python /path/to/generator/mcp/iot.py`` (options: ``--env-file PATH``, ``--asset CLASS``).
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run by path: import the project, not this folder's neighbours
    _ROOT = str(Path(__file__).resolve().parents[2])
    sys.path[:] = [_ROOT] + [p for p in sys.path[1:] if p != _ROOT]

from generator.mcp.launch import main_for


def main() -> None:
    """Serve the iot tools over stdio."""
    main_for("iot")


if __name__ == "__main__":
    main()
