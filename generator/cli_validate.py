"""CLI commands `validate` (registered on the main app by generator.cli)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def validate(
    path: Annotated[Path, typer.Argument(help="Scenario file: JSON list or JSONL")],
    asset: Annotated[
        str | None,
        typer.Option(help="Asset class whose store grounds the store checks; default: "
                     "the class whose asset.yaml sets `default: true`",
                     show_default=False),
    ] = None,
    against: Annotated[
        Path | None,
        typer.Option(help="An earlier scenario set; near-duplicates of it fail"),
    ] = None,
    store: Annotated[
        bool,
        typer.Option(
            "--store/--no-store",
            help="Also run the store checks: grounded entities, recomputed reference "
            "answers (seeds from the run's accepted.jsonl) and negatives",
        ),
    ] = False,
    threshold: Annotated[
        float, typer.Option(min=0.01, max=1.0, help="Near-duplicate similarity")
    ] = 0.9,
    limit: Annotated[int, typer.Option(min=0, help="Failing problems to print")] = 50,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON")
    ] = False,
) -> None:
    """Run the deterministic checks on a scenario file (ours or AssetOpsBench's).

    PATH may be scenarios.json, negative_scenarios.json, a run's accepted.jsonl or any
    AssetOpsBench JSON/JSONL file. Exit code 0: no record failed; 1: some record failed
    a check; 2: usage error (missing or unparsable file).
    """
    import asyncio

    from generator.generate.checks.validate import render_report, validate_file

    report = asyncio.run(
        validate_file(path, asset=asset, against=against, use_store=store,
                      threshold=threshold)
    )
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        typer.echo(render_report(report, limit=limit))
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    app.command("validate")(validate)
