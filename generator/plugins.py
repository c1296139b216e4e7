"""Extension points the framework declares and other packages fill: the layers made visible.

``generator`` is the framework and never imports ``eval`` (``tests/test_import_graph.py``
enforces it, lazy imports included). What the framework needs from the grading layer (the
held-out gate and the inspect scorer grade an answer; ``generate --score`` scores a run;
``heldout evaluate`` grades answers files; the CLI adds the grading commands) it reaches
through the :class:`Evaluation` protocol and the :data:`COMMANDS` registry below. ``eval``
fills both when its plugin module (``eval.plugin``) is imported, and :func:`load_plugins`
imports every module named in the ``scenariogen.plugins`` entry-point group
(``pyproject.toml``), the way inspect_ai finds its extensions.

Entry points are read from the installed distributions' metadata; for this distribution,
when the code runs from a source tree (a checkout beside its ``pyproject.toml``, editable
install or ``PYTHONPATH``), from that ``pyproject.toml``, so a checkout whose metadata is
older than its code still finds its own plugins.
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from generator.config import PROJECT_ROOT
from generator.errors import UserError
from generator.registry import Registry

if TYPE_CHECKING:
    import typer

DISTRIBUTION = "scenariogen"
PLUGIN_GROUP = "scenariogen.plugins"


class Grade(Protocol):
    """One graded answer, as the framework reads it (``eval.model.GradeResult`` fits)."""

    @property
    def score(self) -> float:
        """0..1; 1 when every reference fact is matched."""
        ...

    @property
    def feasible(self) -> bool:
        """True when every reference fact is matched."""
        ...

    @property
    def gradable(self) -> bool:
        """False when the scenario has no reference."""
        ...

    @property
    def negative(self) -> bool:
        """True for a scenario whose right answer is a refusal."""
        ...

    @property
    def violations(self) -> Sequence[Any]:
        """The unmatched facts (pydantic models)."""
        ...


class Evaluation(Protocol):
    """The grading layer as the framework uses it (implemented by ``eval.plugin``)."""

    def grade(self, scenario: Mapping[str, Any], answer: Any) -> Grade:
        """Grade one answer against one scenario's reference (never raises on a bad answer)."""
        ...

    def agent_persona(self, asset_class: str) -> str:
        """The agent's persona line for ``asset_class`` (its vocabulary)."""
        ...

    def scenario_class(self, scenario: Mapping[str, Any]) -> str:
        """The asset class a scenario record is about."""
        ...

    def score_run(self, run_path: str | Path) -> str:
        """``generate --score``: score a finished run folder; the one-line summary."""
        ...

    def score_100(self, path: Path) -> float:
        """The 0-100 headline of the default score (rules judge, no dry run) of a file."""
        ...

    def evaluate_heldout(
        self, root: Path, answer_files: list[Path]
    ) -> tuple[dict[str, Any], list[str]]:
        """``heldout evaluate``: grade answers files against a held-out run's private
        references; the public summary and warnings."""
        ...

    def file_readers(self) -> dict[str, Callable[[Path], object]]:
        """The grading layer's readers of user-named files (fuzzed by ``scenariogen fuzz``)."""
        ...


CommandGroup = Callable[["typer.Typer", "typer.Typer"], None]
"""Adds a plugin's commands: called with the main app and the ``bench`` sub-app."""

EVALUATIONS: Registry[Evaluation] = Registry("grading layer")
COMMANDS: Registry[CommandGroup] = Registry("command group")


def _source_tree_entry_points(group: str) -> list[EntryPoint] | None:
    """This distribution's entry points of ``group`` from the source tree's pyproject.toml;
    None when the code does not run from a source tree."""
    pyproject = PROJECT_ROOT / "pyproject.toml"
    if not pyproject.is_file():
        return None
    project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    if project.get("name") != DISTRIBUTION:
        return None
    declared = project.get("entry-points", {}).get(group, {})
    return [EntryPoint(name, value, group) for name, value in declared.items()]


def group_entry_points(group: str) -> list[EntryPoint]:
    """Every entry point of ``group``: installed distributions, with this distribution's
    own read from its source tree when it runs from one. Sorted by name."""
    own = _source_tree_entry_points(group)
    found = []
    for ep in entry_points(group=group):
        dist = getattr(ep, "dist", None)
        if own is not None and dist is not None and dist.name == DISTRIBUTION:
            continue  # the metadata may be older than the checkout
        found.append(ep)
    return sorted([*found, *(own or [])], key=lambda ep: ep.name)


@cache
def load_plugins() -> tuple[str, ...]:
    """Import every ``scenariogen.plugins`` module once (each registers itself); their names.

    A plugin that fails to import is a bug in that plugin and raises.
    """
    for ep in group_entry_points(PLUGIN_GROUP):
        importlib.import_module(ep.module)
    return tuple(ep.name for ep in group_entry_points(PLUGIN_GROUP))


def evaluation() -> Evaluation:
    """The registered grading layer (loads the plugins first)."""
    load_plugins()
    if not len(EVALUATIONS):
        raise UserError(
            "no grading layer is installed (no `scenariogen.plugins` entry point registers "
            "one)",
            fix="install scenariogen with its eval package (pip install scenariogen)",
        )
    return EVALUATIONS.get(EVALUATIONS.names()[0])
