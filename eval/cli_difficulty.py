"""CLI commands `difficulty-report` (difficulty levels calibrated against a dry run) and
`difficulty-cuts` (cut points fitted to the natural draws' score distribution)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from generator.errors import UserError


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
    from generator.safeparse import FILE
    from generator.userfile import read_text

    report = load_dryrun(run)
    text = read_text(scenarios, "scenario file", max_bytes=FILE.max_bytes)
    try:
        records = json.loads(text)
    except ValueError as exc:
        raise UserError(f"cannot read {scenarios} as JSON: {exc}", value=str(scenarios),
                        fix="give the scenarios.json of the run the dry run attempted"
                        ) from None
    if not isinstance(records, list):
        raise UserError(f"{scenarios} is not a list of scenario records",
                        value=str(scenarios), fix="give a scenarios.json file")
    cal = calibrate(report, [r for r in records if isinstance(r, dict)], width=width)
    typer.echo(cal.model_dump_json(indent=2) if as_json else render(cal))


def difficulty_cuts(
    asset_class: Annotated[str | None, typer.Argument(
        help="Asset class (default: the default class)")] = None,
    per_family: Annotated[int, typer.Option(
        "--per-family", min=5, max=400, help="Natural draws per family")] = 40,
    seed: Annotated[int, typer.Option(min=0, help="Run seed of the draws")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Score every family's natural draws on the seeded fleet and fit each domain's cut
    points by the documented rule (generator/generate/draw/difficulty.py, "Fitting the cut
    points"); prints the current and fitted cuts with the level shares of each."""
    import asyncio

    from generator.assetdef import default_asset_class, load_asset_class
    from generator.cli_generate import require_seeded_store
    from generator.config import store_settings
    from generator.generate.draw.difficulty_draws import fit_domains, natural_seeds

    name = asset_class or default_asset_class()
    require_seeded_store(name)
    asset = load_asset_class(name)
    seeds = asyncio.run(natural_seeds(asset, store_settings(), per_family, seed))
    fitted = fit_domains(seeds)
    if as_json:
        typer.echo(json.dumps({d: c.model_dump() for d, c in fitted.items()}, indent=2))
        return
    typer.echo(f"difficulty cut points of {name} from natural draws ({per_family} per "
               f"family, run seed {seed}); shares easy/medium/hard")
    for domain, c in fitted.items():
        def shares(x: dict[str, float] | None) -> str:
            return "—" if x is None else "/".join(f"{x[k]:.0%}" for k in (
                "easy", "medium", "hard"))
        got = "too few draws" if c.cuts_fitted is None else (
            f"{c.cuts_fitted[0]:g}, {c.cuts_fitted[1]:g}")
        typer.echo(f"  {domain:<10} {c.draws:>4} draws ({c.families} families): now "
                   f"{c.cuts_now[0]:g}, {c.cuts_now[1]:g} ({shares(c.shares_now)}); "
                   f"fitted {got} ({shares(c.shares_fitted)})")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add `difficulty-report` to the app."""

    app.command("difficulty-report")(difficulty_report)

    app.command("difficulty-cuts")(difficulty_cuts)
