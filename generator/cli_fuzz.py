"""CLI command `bench fuzz` (registered on the main app by generator.cli)."""

from __future__ import annotations

from typing import Annotated

import typer


def bench_fuzz(
    n: Annotated[int, typer.Option("-n", "--n", min=1, max=100_000,
                                   help="Inputs, spread evenly over the targets")] = 1000,
    targets: Annotated[str | None, typer.Option(
        help="Comma-separated targets (default all: cli, tools, yaml, json, llm, "
        "special, names, ids, scalars)")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Fuzz seed (same seed, same inputs)")] = 0,
    mcp: Annotated[int, typer.Option(min=0, max=10_000,
                                     help="Raw MCP frames to `serve-tools` (0: skip)")] = 0,
    limit: Annotated[float, typer.Option(min=0.1, max=600,
                                         help="Seconds after which an input hangs")] = 20.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
) -> None:
    """Fuzz every input boundary and count tracebacks and hangs (0 expected).

    Exit code 1 when any input gave a traceback, a hang, a multi-line usage error or
    non-strict JSON; 0 otherwise. MCP frames are reported separately.
    """
    import json

    from generator.fuzzing import TARGETS, fuzz, fuzz_mcp

    chosen = tuple(t.strip() for t in (targets or "").split(",") if t.strip()) or TARGETS
    report = fuzz(n, seed=seed, limit_s=limit, targets=chosen)
    mcp_counts = fuzz_mcp(mcp, seed=seed, reply_timeout_s=min(limit, 5.0)) if mcp else None
    if as_json:
        out = report.model_dump(mode="json")
        out["mcp"] = mcp_counts.model_dump(mode="json") if mcp_counts else None
        typer.echo(json.dumps(out, indent=2))
    else:
        typer.echo(report.render())
        if mcp_counts is not None:
            typer.echo(
                f"mcp: {mcp_counts.inputs} frames, outcomes {mcp_counts.outcomes}, "
                f"slowest {mcp_counts.max_seconds:.2f} s"
            )
            for ex in mcp_counts.examples:
                typer.echo(f"  mcp: {ex}")
    bad = sum(t.bad for t in report.per_target)
    if bad:
        raise typer.Exit(1)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    bench_app.command("fuzz")(bench_fuzz)
