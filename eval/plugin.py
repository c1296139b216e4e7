"""The eval package's side of the framework's extension points (:mod:`generator.plugins`).

Named in ``pyproject.toml`` under the ``scenariogen.plugins`` entry-point group; importing
it registers the grading layer (:class:`RuleEvaluation`, the framework's
:class:`generator.plugins.Evaluation`) and the grading commands. Light at import (the CLI's
``--help`` imports it): every method imports its module when called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval import (
    cli_audit,
    cli_bench_grader,
    cli_bench_scale,
    cli_difficulty,
    cli_eval,
    cli_score,
)
from generator.plugins import COMMANDS, EVALUATIONS

if TYPE_CHECKING:
    import typer

    from eval.model import GradeResult


class RuleEvaluation:
    """The deterministic grader and the scorers, as the framework reaches them."""

    def grade(self, scenario: Mapping[str, Any], answer: Any) -> GradeResult:
        """:func:`eval.grade.grade`."""
        from eval.grade import grade

        return grade(scenario, answer)

    def agent_persona(self, asset_class: str) -> str:
        """:func:`eval.asset_words.agent_persona`."""
        from eval.asset_words import agent_persona

        return agent_persona(asset_class)

    def scenario_class(self, scenario: Mapping[str, Any]) -> str:
        """:func:`eval.asset_words.scenario_class`."""
        from eval.asset_words import scenario_class

        return scenario_class(scenario)

    def score_run(self, run_path: str | Path) -> str:
        """:func:`eval.score.score_run`."""
        from eval.score import score_run

        return score_run(run_path)

    def score_100(self, path: Path) -> float:
        """:func:`eval.score.score_path` with its defaults; its ``score_100``."""
        from eval.score import score_path

        return float(score_path(path).score_100)

    def evaluate_heldout(
        self, root: Path, answer_files: list[Path]
    ) -> tuple[dict[str, Any], list[str]]:
        """:func:`eval.heldout_evaluate.evaluate`."""
        from eval.heldout_evaluate import evaluate

        return evaluate(root, answer_files)

    def file_readers(self) -> dict[str, Callable[[Path], object]]:
        """The answers, dry-run and dryrun.json readers."""
        from eval.grade_answers import load_answers
        from eval.grade_unanimous import load_dryrun
        from eval.score_dryrun import load_dry_run

        return {"load_answers": load_answers, "load_dryrun": load_dryrun,
                "load_dry_run": load_dry_run}


def register_commands(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the grading commands in the order ``--help`` lists them."""
    for module in (cli_eval, cli_score, cli_audit, cli_difficulty, cli_bench_grader,
                   cli_bench_scale):
        module.register(app, bench_app)


EVALUATIONS.add("eval", RuleEvaluation())
COMMANDS.add("eval", register_commands)
