"""CLI commands `bench validate` and `bench experiments` (registered by generator.cli)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Annotated, Any

import typer


def bench_validate(
    source: Annotated[
        Path, typer.Argument(help="A scenario file to clone from (e.g. a run's scenarios.json)")
    ],
    records: Annotated[
        list[int] | None,
        typer.Option("--records", "-n", min=1, help="Set sizes to time (repeatable)"),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the perturbations")] = 0,
) -> None:
    """Time `validate` on synthetic sets: SOURCE's records plus perturbed clones.

    Prints seconds, records/s and CPU seconds per size, and the growth exponent of
    time vs size between consecutive sizes (1 = linear, 2 = quadratic).
    """
    import asyncio
    import math
    import tempfile
    import time

    from generator.bench.synthetic import clones, write_jsonl
    from generator.errors import UserError
    from generator.generate.checks.validate import load_scenario_file, validate_file

    sizes = sorted(records or [2000, 20000, 200000])
    base = load_scenario_file(source)
    if not base:
        raise UserError(f"{source} holds no scenario records to clone",
                        fix="give a scenario file with at least one record")
    rows = []
    with tempfile.TemporaryDirectory(prefix="scenariogen-bench-") as tmp:
        for n in sizes:
            path = Path(tmp) / f"set_{n}.jsonl"
            write_jsonl(clones(base, n, seed), path)
            wall, cpu = time.perf_counter(), time.process_time()
            report = asyncio.run(validate_file(path))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            dup = report.checks.get("near_duplicate")
            rows.append((n, wall, cpu))
            typer.echo(
                f"validate {n} records: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                f"{n / wall:.0f} records/s; near-duplicates failed "
                f"{dup.failed if dup else '?'}; cores {os.cpu_count()}"
            )
            path.unlink()
    for (n0, w0, c0), (n1, w1, c1) in itertools.pairwise(rows):
        typer.echo(
            f"growth {n0} → {n1}: exponent {math.log(w1 / w0) / math.log(n1 / n0):.2f} "
            f"(wall), {math.log(c1 / c0) / math.log(n1 / n0):.2f} (CPU)"
        )


ExperimentsOpt = Annotated[
    str, typer.Option(help="Comma-separated: scale,concurrency,batch,cache,baseline")
]
NsOpt = Annotated[str, typer.Option(help="N values of the scale experiment")]
RepeatsOpt = Annotated[
    int, typer.Option("-r", "--repeats", min=1, max=50,
                      help="Runs of every configuration (interleaved)")
]
LatencyModelOpt = Annotated[
    str, typer.Option(help="Stand-in LLM: 'tokens' (time to first token + per token) "
                           "or 'flat' (the old per-call model, no token cost)")
]
LatencyOpt = Annotated[
    float | None,
    typer.Option(min=0.0, max=600.0, help="Stand-in seconds per call before the first "
                                          "token [tokens: 0.5, flat: 1.0]"),
]
TokenLatencyOpt = Annotated[
    float | None,
    typer.Option(min=0.0, max=10.0, help="Stand-in seconds per reply token [tokens: "
                                         "0.01; flat: 0]"),
]
InputTokenLatencyOpt = Annotated[
    float, typer.Option(min=0.0, max=10.0, help="Stand-in seconds per prompt token")
]
FailureRateOpt = Annotated[
    float, typer.Option(min=0.0, max=1.0, help="Stand-in LLM share of garbled replies")
]
LlmOpt = Annotated[
    str | None, typer.Option(help="A real LLM instead of the stand-in (any --llm form)")
]
ConcurrencyOpt = Annotated[
    int, typer.Option(min=1, max=64, help="Domains in parallel outside the "
                      "concurrency experiment")
]
BatchSizeOpt = Annotated[
    int, typer.Option(min=1, max=100, help="Seeds per LLM call outside the batch "
                      "experiment")
]
ScoreOpt = Annotated[
    bool, typer.Option("--score/--no-score", help="Set score per run (quality column)")
]
WandbOpt = Annotated[
    bool, typer.Option("--wandb", help="Log the rows to W&B (offline unless WANDB_MODE)")
]


def _int_list(text: str, what: str) -> list[int]:
    """``--what 1,2,3`` as integers (one-line error otherwise)."""
    from generator.errors import UserError

    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--{what}: not a comma-separated list of integers",
                        value=text, fix=f"e.g. --{what} 1,2,3") from None
    if not values or min(values) < 1:
        raise UserError(f"--{what}: give positive integers", value=text,
                        fix=f"e.g. --{what} 1,2,3")
    return values


def _experiments(experiments: str) -> list[str]:
    """The ``--experiments`` names, each a known experiment."""
    from generator.bench.experiments import EXPERIMENTS
    from generator.errors import UserError

    chosen = [e.strip() for e in experiments.split(",") if e.strip()]
    bad = [e for e in chosen if e not in EXPERIMENTS]
    if bad or not chosen:
        raise UserError("--experiments: unknown experiment", value=bad or experiments,
                        options=list(EXPERIMENTS), fix="pick from the listed names")
    return chosen


def _stand_in(
    latency_model: str, latency: float | None, token_latency: float | None,
    input_token_latency: float, failure_rate: float, seed: int | None = None,
) -> Any:
    """The latency stand-in LLM the options describe (``LatencyChatModel``)."""
    from generator.bench import latency_llm as lat
    from generator.errors import UserError

    if latency_model not in ("tokens", "flat"):
        raise UserError("--latency-model: unknown latency model", value=latency_model,
                        options=["tokens", "flat"], fix="pick tokens (default) or flat")
    if latency_model == "flat" and (token_latency or input_token_latency):
        raise UserError("--latency-model flat charges nothing per token",
                        value=f"--token-latency {token_latency} --input-token-latency "
                              f"{input_token_latency}",
                        fix="drop the token latencies or use --latency-model tokens")
    flat = latency_model == "flat"
    ttft = latency if latency is not None else (lat.FLAT_CALL_S if flat else lat.DEFAULT_TTFT_S)
    per_token = 0.0 if flat else (
        token_latency if token_latency is not None else lat.DEFAULT_OUTPUT_TOKEN_S)
    extra: dict[str, Any] = {} if seed is None else {"seed": seed}
    return lat.LatencyChatModel(
        call_latency_s=ttft, token_latency_s=per_token,
        input_token_latency_s=0.0 if flat else input_token_latency,
        failure_rate=failure_rate, **extra)


def _log_wandb(rows: list[Any], meta: dict[str, object]) -> None:
    """Log the rows to W&B (offline unless WANDB_MODE says otherwise)."""
    import wandb as wb

    os.environ.setdefault("WANDB_MODE", "offline")
    run = wb.init(project="scenariogen-bench", config=meta)
    for row in rows:
        run.log({f"{row.experiment}/{row.label}/{k}": v
                 for k, v in row.model_dump().items()
                 if isinstance(v, int | float) and v is not None})
    run.finish()


def bench_experiments(
    experiments: ExperimentsOpt = "scale,concurrency,batch,cache,baseline",
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="Base N")] = 50,
    ns: NsOpt = "10,25,50,100",
    cs: Annotated[str, typer.Option(help="Concurrency values")] = "1,2,3,5",
    batches: Annotated[str, typer.Option(help="Batch sizes")] = "1,5,10",
    repeats: RepeatsOpt = 3,
    latency_model: LatencyModelOpt = "tokens",
    latency: LatencyOpt = None,
    token_latency: TokenLatencyOpt = None,
    input_token_latency: InputTokenLatencyOpt = 0.0,
    failure_rate: FailureRateOpt = 0.0,
    llm: LlmOpt = None,
    base_url: Annotated[str | None, typer.Option(help="Server URL for --llm")] = None,
    concurrency: ConcurrencyOpt = 3,
    batch_size: BatchSizeOpt = 10,
    seed: Annotated[int, typer.Option(min=0, help="Run seed")] = 1,
    score: ScoreOpt = True,
    out: Annotated[Path, typer.Option(help="Report folder")] = Path("bench-results"),
    wandb: WandbOpt = False,
) -> None:
    """Time the paper's experiments (scale, concurrency, batch size, cache, baseline).

    Every configuration runs --repeats times, interleaved, against a latency-simulating
    LLM (or --llm); prints and writes bench.json, bench.md and bench.html to --out.
    """
    from generator.bench.experiments import plan, run_experiments, summarise, write_outputs

    configs = plan(_experiments(experiments), base_n=n, ns=_int_list(ns, "ns"),
                   cs=_int_list(cs, "cs"), batches=_int_list(batches, "batches"),
                   concurrency=concurrency, batch_size=batch_size)
    stand_in = _stand_in(latency_model, latency, token_latency, input_token_latency,
                         failure_rate)

    def make_model() -> object:
        if llm is None:
            return _stand_in(latency_model, latency, token_latency, input_token_latency,
                             failure_rate, seed)
        from generator.llm.backends import make_chat_model
        from generator.llm.spec import parse_llm

        return make_chat_model(parse_llm(llm, base_url=base_url))

    results = run_experiments(configs, repeats=repeats, seed=seed, make_model=make_model,
                              score=score, progress=typer.echo)
    rows = summarise(results)
    flat = latency_model == "flat"
    meta: dict[str, object] = {
        "llm": llm or (
            f"latency stand-in, {latency_model}: {stand_in.call_latency_s} s to first token + "
            f"{stand_in.token_latency_s} s per reply token + "
            f"{0.0 if flat else input_token_latency} s per prompt token "
            f"(tokens = ceil(characters / 4)), failure rate {failure_rate}"),
        "repeats": repeats, "cores": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    if llm is None:
        meta["latency_model"] = stand_in.parameters()
    paths = write_outputs(rows, results, meta, out)
    typer.echo(paths[1].read_text())
    typer.echo("wrote " + ", ".join(str(p) for p in paths))
    if wandb:
        _log_wandb(rows, meta)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the bench app."""

    bench_app.command("validate")(bench_validate)


    bench_app.command("experiments")(bench_experiments)
