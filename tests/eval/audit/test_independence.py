"""The asset classes' audit packages stay independent of the code they audit."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from generator.assetdef import ASSETS_DIR

THIRD_PARTY = frozenset({"numpy"})


def _offending_imports(path: Path, own_package: str) -> list[str]:
    """Imports other than the standard library, numpy, ``eval.audit.api`` and the file's own
    audit package (``assets.<class>.audit``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: inside the own package unless it climbs out of it
                if node.level > 1:
                    dots = "." * node.level
                    bad.append(f"{path.name}:{node.lineno} {dots}{node.module or ''}")
                continue
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            ok = (top in sys.stdlib_module_names or top in THIRD_PARTY
                  or name == "eval.audit.api"
                  or name == own_package or name.startswith(own_package + "."))
            if not ok:
                bad.append(f"{path.name}:{node.lineno} {name}")
    return bad


def _audit_files() -> list[tuple[Path, str]]:
    out = []
    for package in sorted(ASSETS_DIR.glob("*/audit")):
        own = f"assets.{package.parent.name}.audit"
        out += [(f, own) for f in sorted(package.rglob("*.py"))]
    return out


def test_audit_packages_import_no_tool_and_no_framework_internals() -> None:
    files = _audit_files()
    assert any(own == "assets.transformer.audit" for _, own in files)
    # the chiller's audit imports no chiller tool, family, performance or diagnostic module
    assert any(own == "assets.chiller.audit" for _, own in files)
    offenders = [b for f, own in files for b in _offending_imports(f, own)]
    assert offenders == []


def test_the_check_sees_a_tool_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("import math\nimport numpy as np\nfrom eval.audit.api import Case\n"
                     "from assets.pump.audit import standards\n"
                     "from assets.pump import tools\nfrom generator.api import tool\n"
                     "from eval.audit.core import AUDITS\nfrom .. import simulator\n")
    bad = _offending_imports(probe, "assets.pump.audit")
    assert [b.split(" ")[1] for b in bad] == ["assets.pump", "generator.api", "eval.audit.core",
                                             ".."]
