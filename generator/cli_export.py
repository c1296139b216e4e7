"""CLI command `export` (registered on the main app by generator.cli)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def export(
    run: Annotated[Path, typer.Argument(help="Run folder scenarios/<run_id>/")],
    fmt: Annotated[
        str,
        typer.Option("--format", help="aob-hf (AssetOpsBench all_utterance.jsonl), "
                     "aob-json (AssetOpsBench JSON scenario file), aob-suite "
                     "(AssetOpsBench scenario-suite folders and the fleet) or "
                     "inspect (inspect_ai task)"),
    ],
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default RUN/export/FORMAT)")
    ] = None,
    id_range: Annotated[
        str,
        typer.Option(help="Inclusive integer id range START-END; the default lies far "
                     "above upstream's ids (1-622)"),
    ] = "1000000-9999999",
    id_map: Annotated[
        Path | None,
        typer.Option(help="id_map.json of an earlier export: keep the ids it assigned"),
    ] = None,
) -> None:
    """Export a run for AssetOpsBench (aob-hf, aob-json) or inspect_ai (inspect).

    Integer ids are derived from each scenario's uuid (stable across exports) and listed
    with our string ids in id_map.json. Exit code 0: written; 2: usage error.
    """
    from generator.export import export_run
    from generator.export.ids import IdRange
    from generator.export.model import ExportOptions

    rng = IdRange.parse(id_range)
    result = export_run(run, fmt, out,
                        ExportOptions(id_start=rng.start, id_end=rng.end, id_map=id_map))
    types = ", ".join(f"{k} {v}" for k, v in result.by_type.items())
    methods = ", ".join(f"{k} {v}" for k, v in result.by_scoring_method.items())
    typer.echo(f"exported {result.records} scenarios as {result.format} → "
               f"{result.files[0]}")
    typer.echo(f"  upstream types: {types}")
    typer.echo(f"  scoring methods: {methods}")
    for extra in result.files[1:]:
        typer.echo(f"  also wrote {extra}")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    app.command("export")(export)
