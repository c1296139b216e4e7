"""CLI commands `generate` and `bench generate` (registered on the main app by generator.cli)."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from generator.errors import ExitCode, Interrupted, RunStopped, UserError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from generator.generate.run.run_config import GenerateConfig, RunSummary

C = TypeVar("C", bound="BaseModel")


def _run(config: GenerateConfig, resume: str | None, show_progress: bool) -> RunSummary:
    import asyncio
    import contextlib

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

    from generator.generate.run.pipeline import Pipeline

    bars = Progress(
        TextColumn("{task.description:<11}"), BarColumn(), MofNCompleteColumn(), transient=False
    )
    tasks: dict[str, TaskID] = {}

    def progress(domain: str, accepted: int, quota: int) -> None:
        if domain not in tasks:
            tasks[domain] = bars.add_task(domain, total=quota)
        bars.update(tasks[domain], completed=accepted)

    def notice(line: str) -> None:
        typer.echo(f"note: {line}", err=True)

    pipeline = Pipeline(
        config, resume=resume, progress=progress if show_progress else None, notice=notice
    )
    try:
        with bars if show_progress else contextlib.nullcontext():
            return asyncio.run(pipeline.run())
    except RunStopped as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(ExitCode.STOPPED) from None
    except KeyboardInterrupt:
        raise Interrupted(
            f"accepted scenarios are kept in {pipeline.folder.path}; finish the "
            f"run with the same command and {pipeline.resume_hint}"
        ) from None


# GenerateConfig.n allows at most this many; the option says so before any work starts.
MAX_N = 100_000
# numpy's SeedSequence takes any non-negative integer; 2**63 - 1 keeps seeds in int64.
MAX_SEED = 2**63 - 1


def _share(value: float) -> float:
    """Typer callback: a share in (0, 1]; NaN is refused too (it passes every comparison)."""
    if not (math.isfinite(value) and 0.0 < value <= 1.0):
        raise typer.BadParameter(f"{value} is not a share in (0, 1] (e.g. 0.75)")
    return value


def check_out_dir(out: str) -> None:
    """Refuse an ``--out`` that is a file or cannot be created / written, with one line."""
    from generator.generate.run.run_folder import ensure_out_dir

    ensure_out_dir(out)


def require_seeded_store(asset_class: str) -> None:
    """Stop with one line before a run folder is made when the store holds no fleet.

    Every task family draws its entities from the stored fleet, so generating from an
    empty store cannot work; the profile alone is closed form (``scenariogen profile``).
    """
    from generator.assetdef import load_asset_class
    from generator.store.query import FleetStore

    store = FleetStore(load_asset_class(asset_class))
    try:
        store.ensure_seeded()
    finally:
        store.close()


def config_or_error(model: type[C], **values: Any) -> C:
    """Build a config model; a value it refuses is one line naming the CLI option."""
    from pydantic import ValidationError

    try:
        return model(**values)
    except ValidationError as exc:
        err = exc.errors()[0]
        option = "--" + str(err["loc"][0]).replace("_", "-") if err["loc"] else "an option"
        raise UserError(f"invalid {option}: {err['msg']}", value=err.get("input"),
                        fix=f"see `scenariogen generate --help` for {option}") from None


def _report(summary: RunSummary) -> None:
    typer.echo(
        f"run {summary.run_id}: {summary.total}/{summary.requested} scenarios accepted, "
        f"{summary.negatives} negative, "
        + (f"{summary.operate} operate, " if summary.operate else "")
        + f"{summary.rejected} rejection lines → {summary.path}"
    )
    for domain, count in summary.accepted.items():
        typer.echo(f"  {domain:<11} {count:>5} / {summary.budget.get(domain, 0)}")
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in summary.timings.items())
    typer.echo(f"  timings: {timing}")
    if summary.tokens:
        for stage, use in summary.tokens.items():
            typer.echo(f"  tokens {stage}: {use}")
    if summary.shortfalls:
        typer.echo("shortfall (the run kept what it accepted):", err=True)
        typer.echo(f"  {'domain':<11} {'wanted':>6} {'got':>5}  reason", err=True)
        for s in summary.shortfalls:
            typer.echo(f"  {s.domain:<11} {s.requested:>6} {s.accepted:>5}  {s.reason}", err=True)


def _before_the_run(config: GenerateConfig, resume: str | None) -> None:
    """Every option, the operate families and the store, before a run folder is made."""
    from generator.generate.run.preflight import check_options

    check_options(config, resume)
    if config.operate:
        from generator.assetdef import load_asset_class
        from generator.generate.draw.operate_run import require_operate_families

        asset = config.asset_class
        require_operate_families(asset, list(load_asset_class(asset).tools))
    if resume is None:
        require_seeded_store(config.asset_class)


AssetArg = Annotated[
    str | None,
    typer.Argument(help="Asset class (a folder under assets/); default: the class "
                   "whose asset.yaml sets `default: true`", show_default=False),
]
NOpt = Annotated[int, typer.Option("-n", "--n", min=1, max=MAX_N, help="Scenarios wanted (N)")]
LlmOpt = Annotated[
    str, typer.Option(help="none | smollm2 | openai:MODEL | ollama:MODEL | fake:FILE")
]
BaseUrlOpt = Annotated[
    str | None, typer.Option(help="OpenAI-compatible server for --llm openai:MODEL")
]
NegativesOpt = Annotated[int, typer.Option(min=0, max=MAX_N, help="Negative scenarios (extra)")]
OperateOpt = Annotated[
    int, typer.Option(min=0, max=MAX_N, help="Operate scenarios (extra; the agent "
                      "acts: a plan graded by simulation) into operate_scenarios.json")
]
SeedOpt = Annotated[
    int | None,
    typer.Option(min=0, max=MAX_SEED,
                 help="Run seed (default: $SCENARIOGEN_SEED or 0); never written out"),
]
ResumeOpt = Annotated[
    str | None, typer.Option(help="Finish the run folder RUN_ID (same options)")
]
BudgetOpt = Annotated[
    str | None, typer.Option(help="Manual budget, e.g. iot=10,fmsr=15,wo=5")
]
DrawWorkersOpt = Annotated[
    int | None,
    typer.Option(min=0, max=64, help="Processes drawing ahead of the run "
                 "(default 0: in-process, faster as a whole command on 2 cores). "
                 "Same output either way"),
]
MulticapOpt = Annotated[
    float, typer.Option(callback=_share, help="Max share of multi-agent, in (0, 1]")
]
AgainstOpt = Annotated[
    str | None, typer.Option(help="Reject near-duplicates of this scenario file")
]
ScoreOpt = Annotated[
    bool, typer.Option("--score", help="Score the set at the end (rule judge, and "
                       "the reference dry run when available); into the manifest")
]


def generate(
    asset: AssetArg = None,
    n: NOpt = 50,
    llm: LlmOpt = "none",
    base_url: BaseUrlOpt = None,
    negatives: NegativesOpt = 2,
    operate: OperateOpt = 0,
    seed: SeedOpt = None,
    out: Annotated[str, typer.Option(help="Parent folder of run folders")] = "scenarios",
    run_id: Annotated[str | None, typer.Option(help="Run folder name")] = None,
    resume: ResumeOpt = None,
    budget: BudgetOpt = None,
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="Domains in parallel")] = 3,
    threads: Annotated[int, typer.Option(min=1, max=256, help="Thread pool size")] = 4,
    draw_workers: DrawWorkersOpt = None,
    batch_size: Annotated[int, typer.Option(min=1, max=100, help="Seeds per LLM call")] = 10,
    max_repairs: Annotated[
        int, typer.Option(min=0, max=100, help="Repairs per candidate")
    ] = 3,
    multiagent_cap: MulticapOpt = 0.75,
    retriever: Annotated[str, typer.Option(help="local | arxiv | semanticscholar")] = "local",
    against: AgainstOpt = None,
    baseline: Annotated[
        bool, typer.Option("--baseline", help="Unoptimised path, for comparison")
    ] = False,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No bars")] = False,
    score: ScoreOpt = False,
) -> None:
    """Generate N scenarios with computed answers into scenarios/<run_id>/.

    Exit codes: 0 all N accepted; 2 usage or input error (also: the run folder is in
    use by another process, or --resume with other options); 3 shortfall (some domain
    fell short; what was accepted is written); 4 stopped by an outage (store, LLM
    server, disk): the folder is kept, finish it with --resume RUN_ID; 130 Ctrl-C.
    """
    from generator.assetdef import resolve_asset_class
    from generator.config import env_seed
    from generator.generate.run.budget import parse_budget
    from generator.generate.run.run_config import GenerateConfig
    from generator.generate.run.run_folder import check_run_names

    asset = resolve_asset_class(asset)
    run_seed = seed if seed is not None else (env_seed() or 0)
    check_run_names(run_id, resume)  # names first: they need no store
    check_out_dir(out)
    config = config_or_error(
        GenerateConfig,
        asset_class=asset,
        n=n,
        llm=llm,
        base_url=base_url,
        negatives=negatives,
        operate=operate,
        seed=run_seed,
        out_dir=out,
        run_id=run_id,
        concurrency=concurrency,
        threads=threads,
        draw_workers=draw_workers,
        batch_size=batch_size,
        max_repairs=max_repairs,
        budget=parse_budget(budget) if budget else None,
        multiagent_cap=multiagent_cap,
        baseline=baseline,
        retriever=retriever,
        against=against,
    )
    _before_the_run(config, resume)
    summary = _run(config, resume, show_progress=not no_progress)
    _report(summary)
    if score:
        from generator.plugins import evaluation

        typer.echo(evaluation().score_run(summary.path))
    if summary.shortfalls:
        raise typer.Exit(ExitCode.SHORTFALL)


def bench_generate(
    n: Annotated[
        int, typer.Option("-n", "--n", min=1, max=MAX_N, help="Scenarios to generate")
    ] = 1000,
    baseline: Annotated[bool, typer.Option("--baseline", help="Unoptimised path")] = False,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Run seed")] = 1,
    concurrency: Annotated[
        int, typer.Option(min=1, max=64, help="Domains in parallel")
    ] = 3,
    draw_workers: Annotated[
        int | None,
        typer.Option(min=0, max=64, help="Processes drawing ahead (default 0: "
                     "in-process)"),
    ] = None,
    keep: Annotated[bool, typer.Option("--keep", help="Keep the run folder")] = False,
) -> None:
    """Time the template path: accepted scenarios per second, phases, rejections."""
    import shutil
    import tempfile

    from generator.assetdef import default_asset_class
    from generator.generate.run.run_config import GenerateConfig

    require_seeded_store(default_asset_class())
    out = tempfile.mkdtemp(prefix="scenariogen-bench-")
    config = GenerateConfig(
        n=n,
        seed=seed,
        out_dir=out,
        negatives=0,
        baseline=baseline,
        concurrency=concurrency,
        draw_workers=draw_workers,
    )
    import resource

    def cpu(who: int = resource.RUSAGE_SELF) -> float:
        use = resource.getrusage(who)
        return use.ru_utime + use.ru_stime

    cpu_start, children_start = cpu(), cpu(resource.RUSAGE_CHILDREN)
    try:
        summary = _run(config, None, show_progress=False)
    finally:
        if not keep:
            shutil.rmtree(out, ignore_errors=True)
    cpu_s = cpu() - cpu_start
    workers_s = cpu(resource.RUSAGE_CHILDREN) - children_start
    total_s = summary.timings.get("total", 0.0) or 1e-9
    # multi-agent may run inside the domains phase (it starts once its parents have
    # accepted seeds): the time after set-up is the total less profile and budget
    setup_s = summary.timings.get("profile", 0.0) + summary.timings.get("budget", 0.0)
    typer.echo(
        f"{'baseline' if baseline else 'optimised'} template path: {summary.total}/{n} "
        f"accepted in {total_s:.1f} s = {summary.total / total_s:.1f} scenarios/s "
        f"(after profile and budget {summary.total / max(total_s - setup_s, 1e-9):.1f}/s); "
        f"{summary.rejected} rejection lines; cores {os.cpu_count()}"
    )
    typer.echo("  " + ", ".join(f"{k} {v:.2f} s" for k, v in summary.timings.items()))
    # On a shared machine wall time follows the load; the process's CPU time less so
    # (the store server's work is not in it).
    typer.echo(
        f"  process CPU {cpu_s:.1f} s = {summary.total / max(cpu_s, 1e-9):.1f} "
        f"scenarios per CPU second; draw-ahead workers (ended ones) {workers_s:.1f} s"
    )
    if summary.shortfalls:
        typer.echo(f"  shortfalls: {[s.model_dump() for s in summary.shortfalls]}")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    app.command("generate")(generate)

    bench_app.command("generate")(bench_generate)
