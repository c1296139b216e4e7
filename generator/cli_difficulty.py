"""CLI command `difficulty-report`: difficulty levels calibrated against a dry run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from generator.errors import UserError


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add `difficulty-report` to the app."""

    @app.command("difficulty-report")
    def difficulty_report(
        run: Annotated[Path, typer.Argument(help="Dry-run folder (or its dryrun.json)")],
        scenarios: Annotated[Path, typer.Option(
            "--scenarios", help="The scenarios.json the dry run attempted")],
        width: Annotated[float, typer.Option(min=0.25, help="Score bucket width")] = 1.0,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    ) -> None:
        """Pass rate per difficulty level and per difficulty-score bucket, and cut points
        refitted from the dry run (eval/difficulty_fit.py says how)."""
        from eval.difficulty_fit import calibrate, render
        from eval.grade_unanimous import load_dryrun

        report = load_dryrun(run)
        try:
            records = json.loads(scenarios.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UserError(f"cannot read {scenarios} as JSON: {exc}", value=str(scenarios),
                            fix="give the scenarios.json of the run the dry run attempted"
                            ) from None
        if not isinstance(records, list):
            raise UserError(f"{scenarios} is not a list of scenario records",
                            value=str(scenarios), fix="give a scenarios.json file")
        cal = calibrate(report, [r for r in records if isinstance(r, dict)], width=width)
        typer.echo(cal.model_dump_json(indent=2) if as_json else render(cal))
