"""Asset folders import the framework only through ``generator.api``."""

from __future__ import annotations

import ast
from pathlib import Path

import generator.api as api
from generator.assetdef import ASSETS_DIR


def _framework_imports(path: Path, root: Path = ASSETS_DIR) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        bad += [f"{path.relative_to(root)}:{node.lineno} {n}" for n in names
                if (n == "generator" or n.startswith("generator.")) and n != "generator.api"]
    return bad


def test_asset_modules_import_only_the_extension_api() -> None:
    files = sorted(ASSETS_DIR.rglob("*.py"))
    assert files, "no asset modules found"
    offenders = [b for f in files for b in _framework_imports(f)]
    assert offenders == []


def test_every_exported_name_exists() -> None:
    missing = [n for n in api.__all__ if not hasattr(api, n)]
    assert missing == []
    assert {"family", "Plan", "FamilyContext", "Ambiguous", "tool", "ToolContext", "TaskSeed",
            "ToolCall", "UserError"} <= set(api.__all__)


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("from generator.store.couch import Doc\nimport generator.tools.registry\n"
                   "from generator.api import tool\n")
    assert len(_framework_imports(bad, tmp_path)) == 2
