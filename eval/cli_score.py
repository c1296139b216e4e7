"""CLI command `score` (registered on the main app through :mod:`eval.plugin`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def score(
    path: Annotated[
        Path, typer.Argument(help="Scenario file (JSON list or JSONL) or a run folder")
    ],
    judge: Annotated[
        str, typer.Option(help="rules | llm:SPEC[,llm:SPEC...] (SPEC as for --llm)")
    ] = "rules",
    dry_run: Annotated[
        str, typer.Option("--dry-run", help="reference | llm:SPEC | off")
    ] = "off",
    dry_run_file: Annotated[
        Path | None,
        typer.Option("--dry-run-file", help="Score this dryrun.json instead of running one"),
    ] = None,
    allow_self_judge: Annotated[
        bool, typer.Option("--allow-self-judge",
                           help="Accept a judge of the generator's own model")
    ] = False,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for openai/ollama judges")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write score.json, score.md and score.html here")
    ] = None,
    usd_per_1k_tokens: Annotated[
        float | None, typer.Option(min=0.0, help="Price for the cost column")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the score as JSON")] = False,
    wandb: Annotated[
        bool, typer.Option("--wandb", help="Log aggregates to W&B (offline by default)")
    ] = False,
) -> None:
    """Score a scenario set: static 20 + judge 30 + dry run 50 (the paper's yardstick).

    Works on our files and on upstream AssetOpsBench files. A part that does not run
    (dry run off, no reference answers) is reported as not run and the headline is
    rescaled over the parts that ran. Exit code 0, or 2 for a usage error.
    """
    from eval.report import headline, log_wandb, render_markdown, write_reports
    from eval.score import score_path

    result = score_path(
        path, judge=judge, dry_run=dry_run, dry_run_file=dry_run_file,
        allow_self_judge=allow_self_judge, base_url=base_url, out=out,
        usd_per_1k_tokens=usd_per_1k_tokens,
    )
    if out is not None:
        written = write_reports(result, out)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        typer.echo(render_markdown(result, limit=10))
    if out is not None:
        typer.echo(f"reports: {', '.join(str(p) for p in written)}", err=as_json)
    if wandb:
        typer.echo(log_wandb(result), err=True)
    if not as_json:
        typer.echo(headline(result))


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    app.command("score")(score)
