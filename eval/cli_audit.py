"""CLI command `audit` (registered on the main app through :mod:`eval.plugin`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def audit(
    run_dir: Annotated[Path, typer.Argument(help="Run folder scenarios/<run_id>/")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Audit only the first N scenarios")
    ] = None,
    show: Annotated[int, typer.Option(min=0, help="Problems to print")] = 20,
    executor: Annotated[str | None, typer.Option(
        envvar="SCENARIOGEN_EXECUTOR", show_default="local",
        help="local (in turn, here) | ray (families split across Ray workers: a local "
        "Ray, or the cluster at RAY_ADDRESS)")] = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Ray workers (default: the cluster's CPUs)")] = None,
) -> None:
    """Re-derive every reference answer of a run from raw store documents, independently.

    Each scenario gets a verdict: match, reading_dependent (another reading of the text
    gives another answer), mismatch, unsupported or error; a text whose stated fact the
    raw documents contradict is flagged premise_false. Exit code 0: all clean; 1: any
    mismatch, reading_dependent, error or false premise outside the false-premise family;
    2: usage error.
    """
    from eval.audit.run import audit_run, render
    from generator.executor import make_executor

    runner = make_executor(executor)
    try:
        report = audit_run(run_dir, limit=limit,
                           executor=None if runner.name == "local" else runner,
                           workers=workers)
    finally:
        runner.close()
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        typer.echo(render(report, limit=show))
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    app.command("audit")(audit)
