"""`bench scale`: wall time of a dry run against the number of Ray workers.

The agent is the reference agent with a stand-in latency per model call
(:class:`eval.dryrun.DelayedAgent`), so a scenario costs about what an LLM agent's calls
would and the work is I/O bound: the ideal wall time with ``w`` workers is the one-worker
time divided by ``w``. One scenario per worker at a time (``concurrency`` 1), so the
workers are the only parallelism measured.
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ScaleRow(BaseModel):
    """One width of the dry run."""

    model_config = ConfigDict(extra="forbid")

    workers: int = Field(description="Ray workers")
    scenarios: int = Field(description="Scenarios attempted")
    seconds: float = Field(description="Wall time of the dry run (actors started included)")
    ideal_s: float = Field(description="The one-worker time divided by the workers")
    speedup: float = Field(description="One-worker time / this time")
    same_results: bool = Field(description="Every result equals the first width's, timings "
                               "aside")


def masked_timings(value: Any) -> Any:
    """A dry-run report (or trajectory) with its timings blanked: what must not differ
    between two runs of the same scenarios."""
    if isinstance(value, dict):
        return {k: None if k in ("latency_s", "seconds") else masked_timings(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [masked_timings(v) for v in value]
    return value


def run_scale(run_dir: Path, widths: list[int], *, latency: float, sample: int | None,
              seed: int = 0, progress: Callable[[str], None] | None = None) -> list[ScaleRow]:
    """Dry-run the run folder's scenarios once per width on one Ray instance (a local one,
    or the cluster at ``RAY_ADDRESS``).

    Raises:
        UserError: Ray missing or unreachable, or a bad run folder.
    """
    from eval.dryrun import run_dry
    from eval.grade_answers import load_scenarios
    from generator.executor import make_executor

    records = load_scenarios(run_dir)
    executor = make_executor("ray")
    rows: list[ScaleRow] = []
    first: Any = None
    try:
        for w in widths:
            t0 = time.perf_counter()
            report = asyncio.run(run_dry(records, "reference", sample=sample, seed=seed,
                                         scenarios_path=run_dir, executor=executor, workers=w,
                                         concurrency=1, call_latency=latency))
            seconds = time.perf_counter() - t0
            masked = masked_timings(report.model_dump(mode="json"))
            first = masked if first is None else first
            base = rows[0].seconds * rows[0].workers if rows else seconds * w
            rows.append(ScaleRow(workers=w, scenarios=report.scenarios,
                                 seconds=round(seconds, 2), ideal_s=round(base / w, 2),
                                 speedup=round(base / seconds, 2), same_results=masked == first))
            if progress is not None:
                progress(f"{w} workers: {seconds:.1f} s for {report.scenarios} scenarios")
    finally:
        executor.close()
    return rows


def _svg(rows: list[ScaleRow]) -> str:
    width, height, pad = 420, 260, 40
    xmax = max(r.workers for r in rows)
    ymax = max(max(r.seconds, r.ideal_s) for r in rows) or 1.0

    def pt(x: float, y: float) -> str:
        return (f"{pad + (width - 2 * pad) * (x / xmax):.1f},"
                f"{height - pad - (height - 2 * pad) * (y / ymax):.1f}")

    measured = " ".join(pt(r.workers, r.seconds) for r in rows)
    ideal = " ".join(pt(r.workers, r.ideal_s) for r in rows)
    ticks = "".join(
        f'<text x="{pt(r.workers, 0).split(",")[0]}" y="{height - pad + 16}" '
        f'text-anchor="middle" font-size="11">{r.workers}</text>' for r in rows)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        'stroke="#444"/>'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#444"/>'
        f'<polyline points="{ideal}" fill="none" stroke="#999" stroke-dasharray="4 3"/>'
        f'<polyline points="{measured}" fill="none" stroke="#1f77b4" stroke-width="2"/>'
        f'{ticks}<text x="{width / 2}" y="{height - 6}" text-anchor="middle" '
        'font-size="11">Ray workers</text>'
        f'<text x="8" y="{pad - 12}" font-size="11">wall s (max {ymax:.1f}); dashed: ideal'
        '</text></svg>')


def write_outputs(rows: list[ScaleRow], meta: dict[str, Any], out: Path) -> list[Path]:
    """``scale.json``, ``scale.md`` and ``scale.html`` (table and chart with the ideal line)."""
    out.mkdir(parents=True, exist_ok=True)
    head = "| workers | scenarios | wall s | ideal s | speedup | same results |"
    lines = [head, "|---|---|---|---|---|---|"] + [
        f"| {r.workers} | {r.scenarios} | {r.seconds} | {r.ideal_s} | {r.speedup} | "
        f"{'yes' if r.same_results else 'NO'} |" for r in rows]
    md = "\n".join([f"dry run wall vs Ray workers ({json.dumps(meta)})", "", *lines, ""])
    paths = [out / "scale.json", out / "scale.md", out / "scale.html"]
    paths[0].write_text(json.dumps({"meta": meta, "rows": [r.model_dump() for r in rows]},
                                   indent=2), encoding="utf-8")
    paths[1].write_text(md, encoding="utf-8")
    table = "".join(
        f"<tr><td>{r.workers}</td><td>{r.scenarios}</td><td>{r.seconds}</td>"
        f"<td>{r.ideal_s}</td><td>{r.speedup}</td><td>{r.same_results}</td></tr>" for r in rows)
    paths[2].write_text(
        "<!doctype html><meta charset='utf-8'><title>bench scale</title>"
        f"<h1>Dry run wall vs Ray workers</h1><p>{html.escape(json.dumps(meta))}</p>"
        "<table border='1' cellpadding='4'><tr><th>workers</th><th>scenarios</th>"
        "<th>wall s</th><th>ideal s</th><th>speedup</th><th>same results</th></tr>"
        f"{table}</table>{_svg(rows)}", encoding="utf-8")
    return paths
