"""Layers that show: no import cycles between packages, nor between modules.

The graph covers every package of the distribution (``generator``, ``eval``, ``assets``)
and is read from the source (``ast``), not from ``sys.modules``, so a cycle fails here even
when the import order of a test run happens to hide it. Edges are every ``import`` and
``from ... import`` naming one of our modules, plus string arguments of
``importlib.import_module(...)`` (a cycle joined through importlib is still a cycle).
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``
(a package's ``__init__`` importing its own submodules is not a cycle). Two graphs: the
import-time one (module level, outside functions and ``if TYPE_CHECKING``) and the full one
(imports inside functions and under ``TYPE_CHECKING`` included).

The layers, bottom up: ``generator`` (the framework) imports neither ``eval`` nor
``assets``; ``eval`` (grading) imports ``generator`` only; ``assets`` (the classes) import
``generator.api`` and ``eval.audit.api``. The framework reaches the layers above it by name
only: ``scenariogen.plugins`` entry points (:mod:`generator.plugins`) and asset.yaml hooks.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from generator.config import PROJECT_ROOT

PACKAGES = ("generator", "eval", "assets")
# Which top-level package may import which (the layers, bottom up).
MAY_IMPORT = {"generator": set(), "eval": {"generator"}, "assets": {"generator", "eval"}}
# Package cycles known and owned elsewhere (lazy imports only); each must stay lazy.
KNOWN_LAZY_PACKAGE_CYCLES: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (PROJECT_ROOT / package).rglob("*.py"):
            parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(path: Path, known: set[str], *, import_time: bool) -> set[str]:
    """Modules ``path`` imports; ``import_time`` keeps only those run when it is imported
    (module level, outside functions and ``if TYPE_CHECKING``)."""
    found: set[str] = set()

    def names(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                found.add(sub if sub in known else node.module)
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module"):
            found.update(
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            )

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                if not import_time:
                    for sub in ast.walk(node):
                        names(sub)
                continue
            if isinstance(node, ast.If) and _is_type_checking(node):
                if not import_time:
                    visit(node.body)
                visit(node.orelse)
                continue
            if isinstance(node, ast.ClassDef):
                visit(node.body)
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                names(sub)

    visit(ast.parse(path.read_text(), filename=str(path)).body)
    return {m for m in found if m in known}


@cache
def _graph(*, import_time: bool) -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {m: _imports(p, known, import_time=import_time) - {m} for m, p in mods.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _package(module: str) -> str | None:
    """The subpackage of ``module`` (``generator.profile``, ``eval.audit``,
    ``assets.transformer``); None for a module of a package's top level (``generator.cli``,
    ``generator.config``: the application layer and shared helpers)."""
    parts = module.split(".")
    if len(parts) < 2 or not (PROJECT_ROOT / parts[0] / parts[1]).is_dir():
        return None
    return ".".join(parts[:2])


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Subpackage -> subpackages its modules import."""
    out: dict[str, set[str]] = {}
    for mod, deps in graph.items():
        pkg = _package(mod)
        if pkg is None:
            continue
        targets = {_package(d) for d in deps} - {None, pkg}
        out.setdefault(pkg, set()).update(t for t in targets if t is not None)
    return out


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_graph_reads_every_kind_of_import(tmp_path: Path) -> None:
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e"}
    src = (
        "from typing import TYPE_CHECKING\n"
        "import pkg.a\n"
        "from pkg import b, helper\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.c import Thing\n"
        "def f():\n"
        "    from pkg.d import g\n"
        "    importlib.import_module('pkg.e')\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(src)
    assert _imports(path, known, import_time=True) == {"pkg.a", "pkg.b", "pkg"}
    assert _imports(path, known, import_time=False) == {
        "pkg.a", "pkg.b", "pkg", "pkg.c", "pkg.d", "pkg.e"}


def test_every_package_is_in_the_graph() -> None:
    tops = {m.split(".")[0] for m in _graph(import_time=False)}
    assert tops == set(PACKAGES)


def test_layers_import_only_downwards_even_lazily() -> None:
    graph = _graph(import_time=False)
    offenders = sorted(
        f"{m} -> {d}" for m, deps in graph.items() for d in deps
        if d.split(".")[0] != m.split(".")[0]
        and d.split(".")[0] not in MAY_IMPORT[m.split(".")[0]]
    )
    assert offenders == []


def test_no_cycle_between_top_level_packages() -> None:
    tops: dict[str, set[str]] = {p: set() for p in PACKAGES}
    for m, deps in _graph(import_time=False).items():
        tops[m.split(".")[0]].update(d.split(".")[0] for d in deps)
    assert _cycles({p: deps - {p} for p, deps in tops.items()}) == []


def test_no_module_imports_itself_back_at_import_time() -> None:
    # checks.py <-> negatives.py used to be joined through importlib.import_module.
    assert _cycles(_graph(import_time=True)) == []


def test_no_module_cycle_through_imports_inside_functions_either() -> None:
    # The last ones (issue 33) went with lanes.py, template_file.py, dryrun_attempt.py,
    # answer_text.py and fuzz_run.py: shared parts moved below both sides.
    assert _cycles(_graph(import_time=False)) == []


def test_no_package_cycle_at_import_time() -> None:
    packages = _package_graph(_graph(import_time=True))
    assert {"generator.profile", "generator.literature", "generator.generate", "eval.audit",
            "assets.transformer"} <= set(packages)
    assert _cycles(packages) == []


def test_no_package_cycle_even_through_lazy_imports() -> None:
    cycles = {frozenset(c) for c in _cycles(_package_graph(_graph(import_time=False)))}
    assert cycles <= KNOWN_LAZY_PACKAGE_CYCLES


def test_literature_imports_nothing_of_the_profile() -> None:
    # profile -> literature is the one direction (the profile runs the literature stage).
    graph = _graph(import_time=False)
    offenders = sorted(
        f"{m} -> {d}" for m, deps in graph.items() if m.startswith("generator.literature")
        for d in deps if d.startswith("generator.profile")
    )
    assert offenders == []
