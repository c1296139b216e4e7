"""CLI commands `heldout generate|scan|validate|evaluate|nightly` (issue 11).

The secret comes from ``--secret-file FILE`` or ``SCENARIOGEN_SECRET``, never from a CLI
value; every command prints aggregates only.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

SecretFile = Annotated[Path | None, typer.Option(
    "--secret-file", help="File holding the secret (else SCENARIOGEN_SECRET); never a value",
    dir_okay=False)]
Size = Annotated[str, typer.Option(
    help="Private fleet size: default (2-4 sites × 3-5 units × 60-120 days) or small")]


def _size(size: str) -> str:
    from generator.errors import UserError
    from generator.heldout.fleet import SIZES

    if size not in SIZES:
        raise UserError(f"unknown fleet size {size!r}", options=sorted(SIZES),
                        fix="pass --size default or --size small")
    return size


def _classes(asked: list[str]) -> list[str]:
    """``--asset`` values to class names: none is the default class, ``all`` every class;
    unknown names fail before any night runs."""
    from generator.assetdef import available_asset_classes, load_asset_class, resolve_asset_class

    if "all" in asked:
        return available_asset_classes()
    names = [resolve_asset_class(a) for a in asked] or [resolve_asset_class(None)]
    for name in names:
        load_asset_class(name)  # an unknown or malformed class: its one-line error, now
    return list(dict.fromkeys(names))


def generate(
    asset: Annotated[
        str | None,
        typer.Argument(help="Asset class (a folder under assets/); default: the class "
                       "whose asset.yaml sets `default: true`", show_default=False),
    ] = None,
    n: Annotated[int, typer.Option("-n", min=1, max=2000, help="Instances")] = 40,
    secret_file: SecretFile = None,
    out: Annotated[Path, typer.Option(help="Output folder (public/, private/)")] = Path(
        "heldout"),
    size: Size = "default",
    max_attempts: Annotated[int, typer.Option(
        min=1, max=500, help="Redraw budget: draws a slot may try")] = 24,
    log: Annotated[list[Path] | None, typer.Option(
        "--log", help="Log file(s) to include in the leak scan")] = None,
) -> None:
    """Generate a held-out set.

    Exit 0 ok, 2 usage or the store unreachable, 3 shortfall, 6 leak found.
    """
    from generator.assetdef import resolve_asset_class
    from generator.heldout.run import HeldoutConfig, execute, summary_lines
    from generator.heldout.secret import load_secret

    secret = load_secret(secret_file)
    cfg = HeldoutConfig(asset_class=resolve_asset_class(asset), n=n, out=out, size=_size(size),
                        max_attempts=max_attempts)
    import asyncio  # deferred: keeps `--help` start-up light

    result, code = asyncio.run(execute(cfg, secret, extra_logs=tuple(log or ())))
    for line in summary_lines(result):
        typer.echo(line)
    leak = result.leak
    if leak is not None:
        typer.echo(f"leak scan: {leak.files} files, {len(leak.hits)} hits"
                   + ("".join(f"; {h.kind} in {h.file}:{h.line}" for h in leak.hits[:5])))
    raise typer.Exit(code)


def scan(
    run_dir: Annotated[Path, typer.Argument(help="Held-out run folder")],
    secret_file: SecretFile = None,
    also: Annotated[list[Path] | None, typer.Option(
        "--also", help="More files to scan (logs)")] = None,
    night: Annotated[str | None, typer.Option(
        help="Night (YYYY-MM-DD) of a nightly folder: its key is looked for too")] = None,
) -> None:
    """Leak-scan a run's public files (and logs). Exit 0 clean, 6 leak, 2 usage."""
    from generator.heldout.leakscan import scan_run
    from generator.heldout.run import ExitCodes
    from generator.heldout.secret import load_secret

    secret = load_secret(secret_file)
    secrets = [secret.reveal]
    if night:
        secrets.append(secret.night(date.fromisoformat(night)).reveal)
    report = scan_run(run_dir, secrets, tuple(also or ()))
    typer.echo(f"leak scan: {report.files} files, tokens {report.tokens}, "
               f"{len(report.hits)} hits"
               + "".join(f"; {h.kind} in {h.file}:{h.line}" for h in report.hits[:10]))
    raise typer.Exit(ExitCodes.OK if report.clean else ExitCodes.LEAK)


def validate(
    asset: Annotated[
        str | None,
        typer.Argument(help="Asset class (a folder under assets/); default: the class "
                       "whose asset.yaml sets `default: true`", show_default=False),
    ] = None,
    variants: Annotated[int, typer.Option(min=1, max=64, help="Private fleets")] = 8,
    secret_file: SecretFile = None,
    size: Size = "default",
    max_attempts: Annotated[int, typer.Option(min=1, max=500, help="Redraw budget")] = 24,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Per family over V variant fleets: acceptance, redraws, distinct instances, spread.

    Exit 0 when every family passes, 1 when some family is listed with its reason.
    """
    import tempfile

    from generator.assetdef import resolve_asset_class
    from generator.heldout.secret import load_secret
    from generator.heldout.validate import validate as run_validate

    secret = load_secret(secret_file)
    with tempfile.TemporaryDirectory() as tmp:
        import asyncio  # deferred: keeps `--help` start-up light

        report = asyncio.run(run_validate(
            secret, variants=variants, asset_class=resolve_asset_class(asset), size=_size(size),
            max_attempts=max_attempts, workdir=Path(tmp)))
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        typer.echo(f"{'family':30} {'ok':>4} {'acc':>4} {'draws':>5} {'rate':>6} "
                   f"{'exh':>4} {'dist':>4}  spread")
        for name, f in report.families.items():
            spread = " ".join(f"{k}:{v}" for k, v in f.spread.items())
            typer.echo(f"{name:30} {'yes' if f.passed else 'NO':>4} {f.accepted:>4} "
                       f"{f.attempts:>5} {f.acceptance_rate:>6.2f} {f.exhausted:>4} "
                       f"{f.distinct:>4}  {spread[:80]}")
            if f.reason:
                typer.echo(f"  {name}: {f.reason}")
        for name, why in report.excluded.items():
            typer.echo(f"excluded {name}: {why}")
        typer.echo(f"{sum(f.passed for f in report.families.values())}/"
                   f"{len(report.families)} families pass over {report.variants} variants "
                   f"in {report.seconds:.0f} s")
    raise typer.Exit(0 if report.passed else 1)


def evaluate(
    answers: Annotated[list[Path], typer.Argument(help="Answers file(s), as `evaluate`")],
    run_dir: Annotated[Path, typer.Option("--dir", help="Held-out run folder")] = Path(
        "heldout"),
) -> None:
    """Grade against the private references; public/evaluation.json gets aggregates only.

    Exit 0 graded, 2 usage, 6 the leak scan of the public folder found a hit.
    """
    from generator.heldout.run import ExitCodes
    from generator.plugins import evaluation

    summary, warnings = evaluation().evaluate_heldout(run_dir, answers)
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)
    for name, s in summary["sources"].items():
        typer.echo(f"{name}: mean score {s['mean_score']:.3f}, feasible "
                   f"{s['feasible_rate']:.3f} over {summary['instances']} instances")
    typer.echo(f"failed by every source: {summary['unanimous_failures']}; by some: "
               f"{summary['split_failures']} (details in private/)")
    hits = summary["leak_scan"]["hits"]
    typer.echo(f"leak scan: {len(hits)} hits")
    raise typer.Exit(ExitCodes.LEAK if hits else ExitCodes.OK)


def nightly(
    root: Annotated[Path, typer.Option(help="Folder of the nights")] = Path("heldout-nights"),
    secret_file: SecretFile = None,
    n: Annotated[int, typer.Option("-n", min=1, max=2000, help="Instances")] = 40,
    keep: Annotated[int, typer.Option(min=1, max=365, help="Nights kept")] = 7,
    night: Annotated[str | None, typer.Option(
        help="Night YYYY-MM-DD (default: today, UTC)")] = None,
    asset: Annotated[
        list[str] | None,
        typer.Option(help="Asset class, repeatable, or `all` for every class; default: "
                     "the class whose asset.yaml sets `default: true`",
                     show_default=False),
    ] = None,
    size: Size = "default",
    log: Annotated[list[Path] | None, typer.Option(
        "--log", help="Log file(s) to include in the leak scan")] = None,
) -> None:
    """Regenerate, gate, leak-scan, compare with the kept nights, rotate.

    Each class keeps its nights in ROOT/<class>/ (locked while it runs). With several
    classes, one's failure does not stop the others; the exit code is the highest.
    Exit 0 ok; 2 usage, or the store unreachable with one class; 3 shortfall; 4 a class
    stopped on an outage (store, LLM server) while several ran; 5 repeated instance;
    6 leak.
    """
    from generator.errors import UserError
    from generator.heldout.nightly import nightly as run_nightly
    from generator.heldout.nightly import nightly_classes
    from generator.heldout.secret import load_secret

    secret = load_secret(secret_file)
    try:
        day = date.fromisoformat(night) if night else datetime.now(UTC).date()
    except ValueError:
        raise UserError(f"bad --night {night!r}", fix="use YYYY-MM-DD") from None
    import asyncio  # deferred: keeps `--help` start-up light

    options: dict[str, Any] = {"n": n, "keep": keep, "size": _size(size),
                               "extra_logs": tuple(log or ())}
    classes = _classes(asset or [])
    if len(classes) == 1:
        code, lines = asyncio.run(run_nightly(secret, root=root, night=day,
                                              asset_class=classes[0], **options))
    else:
        code, lines = asyncio.run(nightly_classes(secret, root=root, night=day,
                                                  classes=classes, **options))
    for line in lines:
        typer.echo(line)
    raise typer.Exit(code)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the `heldout` command group to the app."""
    heldout = typer.Typer(no_args_is_help=True,
                          help="Private held-out sets: secret, private fleet, gate, leak scan")
    app.add_typer(heldout, name="heldout")
    heldout.command("generate")(generate)
    heldout.command("scan")(scan)
    heldout.command("validate")(validate)
    heldout.command("evaluate")(evaluate)
    heldout.command("nightly")(nightly)
