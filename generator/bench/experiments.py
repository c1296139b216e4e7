"""The paper's speed experiments as one command (`scenariogen bench experiments`).

Experiments (each a list of configurations run on the same store and LLM):

- ``scale``: optimised runs at N ∈ {10, 25, 50, 100};
- ``concurrency``: C ∈ {1, 2, 3, 5} at the base N (speed-up against C = 1);
- ``batch``: batch size ∈ {1, 5, 10} at the base N (against 1);
- ``cache``: profile cache cold (a fresh cache folder) vs warm (a folder a cold run filled);
- ``baseline``: ``--baseline`` vs optimised at the base N.

Every configuration runs ``repeats`` times and the repeats are interleaved (repeat 1 of
every configuration, then repeat 2, ...), so a ratio compares runs made under the same
machine load. Each run records wall seconds, accepted scenarios, LLM calls, the run's
lower bound (the critical path of its own call graph: the longest chain of dependent LLM
calls at their measured durations plus the event loop's CPU in the chain's gaps; see
:func:`generator.llm.timing.critical_path`), the gap's causes and, unless
``score=False``, the set score (``scenariogen score``'s rule judge, static + judge parts)
so speed and quality sit in one table.

The LLM is :class:`~generator.bench.latency_llm.LatencyChatModel` by default; ``llm_spec``
(any ``--llm`` form) swaps in a real endpoint.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from generator.llm.timing import critical_path

Experiment = Literal["scale", "concurrency", "batch", "cache", "baseline"]
EXPERIMENTS: tuple[Experiment, ...] = ("scale", "concurrency", "batch", "cache", "baseline")


class BenchConfig(BaseModel):
    """One configuration of an experiment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    experiment: str = Field(description="Experiment name")
    label: str = Field(description="What varies, e.g. 'N=50' or 'C=3'")
    n: int = Field(description="Scenarios requested")
    concurrency: int = Field(description="Domains in parallel")
    batch_size: int = Field(description="Seeds per LLM call")
    cache: Literal["cold", "warm"] = Field(description="Profile cache state at start")
    baseline: bool = Field(description="The unoptimised path")


class RunResult(BaseModel):
    """One timed run."""

    model_config = ConfigDict(extra="forbid")

    config: BenchConfig = Field(description="The configuration")
    repeat: int = Field(description="Repeat index")
    wall_s: float = Field(description="Wall seconds of the run")
    accepted: int = Field(description="Accepted scenarios")
    llm_calls: int = Field(description="LLM calls made")
    critical_calls: int = Field(description="LLM calls on the critical path")
    bound_s: float = Field(description="Critical path seconds: its calls + loop CPU in its gaps")
    chain_call_s: float = Field(default=0.0, description="Seconds of LLM calls on the path")
    chain_cpu_s: float = Field(default=0.0, description="Event-loop CPU seconds on the path")
    queue_s: float = Field(
        default=0.0, description="Gap part: the path's calls waiting for a concurrency slot")
    waiting_s: float = Field(
        default=0.0, description="Gap part: the loop off the CPU in the path's gaps (I/O, "
                                 "pool threads, draw workers)")
    behind_calls_s: float = Field(
        default=0.0, description="Part of waiting_s while a call off the path was in flight")
    cpu_off_chain_s: float = Field(
        default=0.0, description="Event-loop CPU not on the path (under its calls)")
    slots_bound_s: float = Field(
        default=0.0, description="Endpoint throughput bound: sum of call seconds / the calls "
                                 "it serves at once (another lower bound on the LLM calls)")
    quality: float | None = Field(description="Set score out of 100 (None: not scored)")
    timings: dict[str, float] = Field(description="Pipeline phase seconds")


class Row(BaseModel):
    """Min / median / max of a configuration and its ratio to the experiment's reference."""

    model_config = ConfigDict(extra="forbid")

    experiment: str = Field(description="Experiment")
    label: str = Field(description="Configuration")
    runs: int = Field(description="Repeats")
    wall_min: float = Field(description="Fastest wall seconds")
    wall_median: float = Field(description="Median wall seconds")
    wall_max: float = Field(description="Slowest wall seconds")
    speedup: float | None = Field(description="Reference median / this median")
    accepted_per_s: float = Field(description="Median accepted scenarios per second")
    llm_calls: float = Field(description="Median LLM calls")
    wall_over_bound: float | None = Field(description="Median wall / critical-path bound")
    queue_s: float = Field(default=0.0, description="Median gap seconds queued on the path")
    waiting_s: float = Field(default=0.0, description="Median gap seconds waiting on the path")
    behind_calls_s: float = Field(
        default=0.0, description="Median part of waiting_s behind calls off the path")
    quality: float | None = Field(description="Median set score (0-100)")


def plan(
    experiments: list[str], *, base_n: int, ns: list[int], cs: list[int], batches: list[int],
    concurrency: int, batch_size: int,
) -> list[BenchConfig]:
    """The configurations of the chosen experiments, reference first in each."""
    out: list[BenchConfig] = []

    def add(exp: str, label: str, **kw: Any) -> None:
        base = {"n": base_n, "concurrency": concurrency, "batch_size": batch_size,
                "cache": "warm", "baseline": False}
        out.append(BenchConfig(experiment=exp, label=label, **{**base, **kw}))

    for exp in experiments:
        if exp == "scale":
            for n in ns:
                add(exp, f"N={n}", n=n)
        elif exp == "concurrency":
            for c in cs:
                add(exp, f"C={c}", concurrency=c)
        elif exp == "batch":
            for b in batches:
                add(exp, f"B={b}", batch_size=b)
        elif exp == "cache":
            add(exp, "cold", cache="cold")
            add(exp, "warm", cache="warm")
        elif exp == "baseline":
            add(exp, "baseline", baseline=True, cache="cold")
            add(exp, "optimised", cache="cold")
        else:
            raise ValueError(f"unknown experiment {exp!r}; valid: {', '.join(EXPERIMENTS)}")
    return out


async def run_one(
    cfg: BenchConfig,
    repeat: int,
    *,
    seed: int,
    make_model: Callable[[], Any],
    warm_dir: Path,
    out_dir: Path,
    score: bool,
    settings: Any = None,
) -> RunResult:
    """Run one configuration once (cache folder set through ``SCENARIOGEN_CACHE_DIR``;
    ``settings``: the store's, default from the environment)."""
    from generator.generate.run.pipeline import Pipeline
    from generator.generate.run.run_config import GenerateConfig
    from generator.llm.client import LLMClient

    cache = warm_dir if cfg.cache == "warm" else Path(tempfile.mkdtemp(prefix="cold-cache-"))
    os.environ["SCENARIOGEN_CACHE_DIR"] = str(cache)
    model = make_model()
    client = LLMClient.from_model(model, label="bench") if model is not None else None
    gen = GenerateConfig(
        n=cfg.n, seed=seed, out_dir=str(out_dir), negatives=0, llm="fake" if client else "none",
        concurrency=cfg.concurrency, batch_size=cfg.batch_size, baseline=cfg.baseline,
        run_id=f"{cfg.experiment}-{cfg.label.replace('=', '')}-{repeat}",
    )
    thread = threading.get_ident()
    started, cpu_started = time.monotonic(), time.thread_time()
    summary = await Pipeline(gen, settings=settings, llm_client=client).run()
    ended, cpu_ended = time.monotonic(), time.thread_time()
    calls = client.timings if client is not None else []
    path = critical_path(calls, start=started, end=ended, cpu_start=cpu_started,
                         cpu_end=cpu_ended, thread=thread)
    quality = None
    if score:
        from generator.plugins import evaluation

        # The scorer runs its own event loop: give it a thread of its own.
        quality = await asyncio.to_thread(
            evaluation().score_100, Path(summary.path) / "scenarios.json"
        )
    return RunResult(
        config=cfg, repeat=repeat, wall_s=round(path.wall_s, 3), accepted=summary.total,
        llm_calls=len(calls), critical_calls=len(path.chain), bound_s=round(path.bound_s, 3),
        chain_call_s=round(path.calls_s, 3), chain_cpu_s=round(path.cpu_s, 3),
        queue_s=round(path.queue_s, 3), waiting_s=round(path.waiting_s, 3),
        behind_calls_s=round(path.behind_calls_s, 3),
        slots_bound_s=round(sum(c.seconds for c in calls) / client.parallel_calls, 3)
        if client is not None else 0.0,
        cpu_off_chain_s=round(path.cpu_off_chain_s, 3), quality=quality, timings=summary.timings,
    )


def summarise(results: list[RunResult]) -> list[Row]:
    """One row per configuration; speed-up against the experiment's first configuration."""
    groups: dict[tuple[str, str], list[RunResult]] = {}
    for r in results:
        groups.setdefault((r.config.experiment, r.config.label), []).append(r)
    rows: list[Row] = []
    reference: dict[str, float] = {}
    for (exp, label), runs in groups.items():
        walls = [r.wall_s for r in runs]
        med = statistics.median(walls)
        reference.setdefault(exp, med)
        bounds = [r.wall_s / r.bound_s for r in runs if r.bound_s > 0]
        scores = [r.quality for r in runs if r.quality is not None]
        rows.append(Row(
            experiment=exp, label=label, runs=len(runs), wall_min=min(walls), wall_median=med,
            wall_max=max(walls), speedup=round(reference[exp] / med, 3) if med else None,
            accepted_per_s=round(statistics.median(r.accepted / r.wall_s for r in runs), 3),
            llm_calls=statistics.median(r.llm_calls for r in runs),
            wall_over_bound=round(statistics.median(bounds), 3) if bounds else None,
            queue_s=round(statistics.median(r.queue_s for r in runs), 3),
            waiting_s=round(statistics.median(r.waiting_s for r in runs), 3),
            behind_calls_s=round(statistics.median(r.behind_calls_s for r in runs), 3),
            quality=round(statistics.median(scores), 2) if scores else None,
        ))
    return rows


def render_markdown(rows: list[Row], meta: dict[str, Any]) -> str:
    """The results table (speed and quality side by side) with the run's settings."""
    lines = ["# scenariogen bench experiments", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "| experiment | config | runs | wall min / median / max (s) | speed-up | "
              "accepted/s | LLM calls | wall / bound | gap: queue / behind calls / idle (s) | "
              "quality |",
              "|---|---|---|---|---|---|---|---|---|---|"]

    def f(x: float | None, d: int = 2) -> str:
        return "–" if x is None else f"{x:.{d}f}"

    for r in rows:
        lines.append(
            f"| {r.experiment} | {r.label} | {r.runs} | {r.wall_min:.2f} / {r.wall_median:.2f} / "
            f"{r.wall_max:.2f} | {f(r.speedup)}× | {r.accepted_per_s:.2f} | {r.llm_calls:g} | "
            f"{f(r.wall_over_bound)} | {r.queue_s:.2f} / {r.behind_calls_s:.2f} / "
            f"{r.waiting_s - r.behind_calls_s:.2f} | {f(r.quality, 1)} |"
        )
    lines += ["", "speed-up = median wall of the experiment's first configuration / this one's; "
              "wall / bound = wall over the critical path of the run's call graph (the "
              "longest chain of dependent LLM calls at their measured durations + the event "
              "loop's CPU in the chain's gaps; ≥ 1 by construction); the gap wall − bound is "
              "the chain's calls queueing for a client slot + the loop off the CPU in the "
              "chain's gaps while calls off the chain were in flight (ordered first by a "
              "concurrency limit, not a dependency) + idle (store I/O, pool threads, draw "
              "workers)."]
    return "\n".join(lines) + "\n"


def render_svg(rows: list[Row]) -> str:
    """Bar charts: speed-up per configuration and median phase-free wall per experiment."""
    from generator.report_svg import bar_chart

    parts = []
    for exp in dict.fromkeys(r.experiment for r in rows):
        mine = {r.label: r.speedup or 0.0 for r in rows if r.experiment == exp}
        parts.append(f"<h2>{exp}: speed-up vs {next(iter(mine))}</h2>" + bar_chart(mine))
    return "<html><body>" + "".join(parts) + "</body></html>\n"


def write_outputs(rows: list[Row], results: list[RunResult], meta: dict[str, Any],
                  out: Path) -> list[Path]:
    """``bench.json``, ``bench.md`` and ``bench.html`` (inline SVG) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "bench.json", out / "bench.md", out / "bench.html"]
    paths[0].write_text(json.dumps({
        "meta": meta,
        "rows": [r.model_dump() for r in rows],
        "runs": [r.model_dump() for r in results],
    }, indent=2))
    paths[1].write_text(render_markdown(rows, meta))
    paths[2].write_text(render_svg(rows))
    return paths


def run_experiments(
    configs: list[BenchConfig], *, repeats: int, seed: int, make_model: Callable[[], Any],
    score: bool, progress: Callable[[str], None] | None = None,
) -> list[RunResult]:
    """Run every configuration ``repeats`` times, interleaved; restores the cache env var."""
    old = os.environ.get("SCENARIOGEN_CACHE_DIR")
    results: list[RunResult] = []
    with tempfile.TemporaryDirectory(prefix="scenariogen-bench-") as tmp:
        warm = Path(tmp) / "warm-cache"
        try:
            # Fill the warm cache once (profile only: a tiny run), outside the timings.
            warmup = BenchConfig(experiment="warmup", label="warmup", n=1, concurrency=1,
                                 batch_size=1, cache="warm", baseline=False)
            asyncio.run(run_one(warmup, 0, seed=seed, make_model=lambda: None, warm_dir=warm,
                                out_dir=Path(tmp) / "runs", score=False))
            for repeat in range(repeats):
                for cfg in configs:
                    res = asyncio.run(run_one(
                        cfg, repeat, seed=seed, make_model=make_model, warm_dir=warm,
                        out_dir=Path(tmp) / "runs", score=score,
                    ))
                    results.append(res)
                    if progress is not None:
                        progress(f"{cfg.experiment} {cfg.label} #{repeat + 1}: {res.wall_s:.1f} s, "
                                 f"{res.accepted} accepted, {res.llm_calls} LLM calls")
        finally:
            if old is None:
                os.environ.pop("SCENARIOGEN_CACHE_DIR", None)
            else:
                os.environ["SCENARIOGEN_CACHE_DIR"] = old
    return results
