"""The longest functions and the largest modules of the packages (issue 33: a house a
newcomer can read).

    python -m scripts.structure                 # top 20 functions and modules
    python -m scripts.structure --top 50 --json
    python -m scripts.structure --over 80       # only functions longer than 80 lines

A function's length is the lines from its ``def`` (decorators excluded) to its last line,
docstring and comments included, as a reader scrolls it; a method is named ``Class.method``
and a nested function ``outer.<locals>.inner`` (its lines count in its outer function too).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("generator", "eval", "assets")


@dataclass(frozen=True)
class Function:
    """One function or method: where it is and how many lines it spans."""

    module: str  # e.g. generator/generate/run/pipeline.py
    name: str  # e.g. Pipeline._run
    line: int
    lines: int


def _walk(node: ast.AST, prefix: str, module: str) -> list[Function]:
    out: list[Function] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            out += _walk(child, f"{prefix}{child.name}.", module)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            end = child.end_lineno or child.lineno
            out.append(Function(module, prefix + child.name, child.lineno, end - child.lineno + 1))
            out += _walk(child, f"{prefix}{child.name}.<locals>.", module)
    return out


def functions(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[Function]:
    """Every function and method of the packages' modules, longest first."""
    found: list[Function] = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            module = path.relative_to(root).as_posix()
            found += _walk(ast.parse(path.read_text(), filename=module), "", module)
    return sorted(found, key=lambda f: (-f.lines, f.module, f.name))


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[tuple[str, int]]:
    """Every module of the packages with its line count, largest first."""
    sizes = [
        (path.relative_to(root).as_posix(), len(path.read_text().splitlines()))
        for package in packages
        for path in (root / package).rglob("*.py")
    ]
    return sorted(sizes, key=lambda m: (-m[1], m[0]))


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit 0."""
    parser = argparse.ArgumentParser(prog="python -m scripts.structure", description=__doc__)
    parser.add_argument("--top", type=int, default=20, help="rows of each list (default 20)")
    parser.add_argument("--over", type=int, default=0, help="only functions over N lines")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    funcs = [f for f in functions() if f.lines > args.over][: args.top]
    mods = modules()[: args.top]
    if args.json:
        print(json.dumps({"functions": [asdict(f) for f in funcs],
                          "modules": [{"module": m, "lines": n} for m, n in mods]}, indent=2))
        return 0
    print(f"longest functions ({', '.join(PACKAGES)}):")
    for f in funcs:
        print(f"  {f.lines:5d}  {f.module}:{f.line}  {f.name}")
    print("largest modules:")
    for m, n in mods:
        print(f"  {n:5d}  {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
