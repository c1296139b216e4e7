"""CLI command `bench scale` (issue 31 part 7): a dry run's wall time against the number of
Ray workers; in eval/ because it runs the dry-run agent."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer


def bench_scale(
    run_dir: Annotated[Path, typer.Argument(help="Run folder scenarios/<run_id>/")],
    workers: Annotated[str, typer.Option(help="Ray worker counts")] = "1,2,4",
    latency: Annotated[float, typer.Option(
        min=0.0, max=60.0, help="Stand-in seconds per model call")] = 1.0,
    sample: Annotated[int | None, typer.Option(
        min=1, help="Attempt K scenarios spread over domains")] = None,
    out: Annotated[Path, typer.Option(help="Report folder")] = Path("bench-results"),
) -> None:
    """Wall time of a dry run against the number of Ray workers, with the ideal line.

    The reference agent waits --latency per model call (one per tool call, one for its
    answer), one scenario per worker at a time; runs on a local Ray or the cluster at
    RAY_ADDRESS. Writes scale.json, scale.md and scale.html to --out.
    """
    from eval.bench_scale import run_scale, write_outputs
    from generator.errors import UserError

    try:
        widths = [int(x) for x in workers.split(",") if x.strip()]
    except ValueError:
        widths = []
    if not widths or min(widths) < 1:
        raise UserError("--workers: give positive integers", value=workers,
                        fix="e.g. --workers 1,2,4")
    rows = run_scale(run_dir, widths, latency=latency, sample=sample, progress=typer.echo)
    meta = {"latency_s_per_call": latency, "sample": sample, "cores": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2)}
    paths = write_outputs(rows, meta, out)
    typer.echo(paths[1].read_text())
    typer.echo("wrote " + ", ".join(str(p) for p in paths))


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add `bench scale` to the bench group."""
    bench_app.command("scale")(bench_scale)
