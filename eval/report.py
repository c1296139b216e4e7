"""Score reports: JSON, Markdown, a self-contained HTML page; optional W&B aggregates.

``write_reports(score, out)`` writes ``score.json``, ``score.md`` and ``score.html`` into
``out``. The HTML page holds its plots as inline SVG (:mod:`generator.report_svg`): no script,
stylesheet or image is fetched from anywhere.
"""

from __future__ import annotations

import html
from pathlib import Path

from eval.score_model import SetScore
from generator.generate.verbalise.language_stats import format_stats
from generator.report_svg import bar_chart, histogram


def _fmt(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def headline(score: SetScore) -> str:
    """One line: the score, what ran and what did not."""
    ran = [p.name for p in score.parts if p.ran]
    missing = [p.name for p in score.parts if not p.ran]
    line = (f"{score.path}: {score.score_100:.1f}/100 ({score.points:.1f} of "
            f"{score.max_points:.0f} points over {', '.join(ran)}")
    line += f"; not run: {', '.join(missing)})" if missing else ")"
    return line + (" — high quality (> 70)" if score.high_quality else "")


def render_markdown(score: SetScore, *, limit: int = 20) -> str:
    """The score as Markdown: parts, components with reasons, agreement, costs, problems."""
    out = [f"# Scenario set score: {score.score_100:.1f} / 100", "", headline(score), ""]
    out += [f"- records: {score.records} (with computed reference answers: "
            f"{score.has_references})",
            f"- generator model: {score.generator_model or 'unknown'}",
            f"- judges: {', '.join(score.judges)}",
            f"- dry run: {score.dry_run_agent or 'not run'}"]
    if score.language is not None:
        out.append(f"- language: {format_stats(score.language)}")
    out.append("")
    out += ["| part | component | points | max | reason |", "|---|---|---:|---:|---|"]
    for part in score.parts:
        out.append(f"| **{part.name}** | | **{_fmt(part.points)}** | {part.max_points:g} | "
                   f"{'' if part.ran else 'not run: '}{part.note} |")
        for c in part.components:
            out.append(f"| | {c.name} | {_fmt(c.points)} | {c.max_points:g} | "
                       f"{c.reason.replace('|', '/')} |")
    if score.notes:
        out += ["", "Notes:"] + [f"- {n}" for n in score.notes]
    if score.agreement is not None:
        a = score.agreement
        out += ["", f"## Judge agreement ({a.statistic} kappa, levels {'/'.join(a.levels)})",
                "", f"- overall: {_fmt(a.kappa, 3)} over {a.items} items; observed "
                f"agreement {_fmt(a.observed_agreement, 3)} {a.note}"]
        out += [f"- {d}: {_fmt(k, 3)}" for d, k in a.per_dimension.items()]
    if score.unscored:
        out += ["", f"## Unscored verdicts ({len(score.unscored)})", ""]
        out += [f"- {v.judge} on {v.id}: {v.unscored_reason}" for v in score.unscored[:limit]]
    out += ["", "## By domain", "", "| domain | mean /100 |", "|---|---:|"]
    out += [f"| {k} | {v:.1f} |" for k, v in score.by_domain.items()]
    out += ["", "## By difficulty", "", "| difficulty | mean /100 |", "|---|---:|"]
    out += [f"| {k} | {v:.1f} |" for k, v in score.by_difficulty.items()]
    if score.failure_classes:
        out += ["", "## Dry-run failure classes", ""]
        out += [f"- {k}: {v}" for k, v in score.failure_classes.items()]
    out += ["", "## Tokens, time and cost per stage", "",
            "| stage | tokens | seconds | cost (USD) |", "|---|---:|---:|---:|"]
    out += [f"| {s.stage} | {s.tokens} | {_fmt(s.seconds)} | {_fmt(s.cost_usd, 4)} |"
            for s in score.stages]
    worst = sorted((s for s in score.scenarios if s.problems),
                   key=lambda s: s.total_100 if s.total_100 is not None else 0.0)
    out += ["", f"## Lowest-scoring scenarios ({min(limit, len(worst))} of {len(worst)} "
            "with problems)", ""]
    for s in worst[:limit]:
        out.append(f"- **{s.id}** ({s.domain}, {s.difficulty}) {_fmt(s.total_100, 1)}/100: "
                   + "; ".join(s.problems[:4]))
    return "\n".join(out) + "\n"


def render_html(score: SetScore) -> str:
    """A self-contained HTML page: the Markdown tables as HTML plus inline SVG plots."""
    e = html.escape
    totals = [s.total_100 for s in score.scenarios if s.total_100 is not None]
    plots = [
        ("Score distribution (per scenario, /100)", histogram(totals, lo=0, hi=100, bins=10)),
        ("Mean score per domain", bar_chart(score.by_domain, max_value=100)),
        ("Mean score per difficulty", bar_chart(score.by_difficulty, max_value=100)),
        ("Points per part (earned of max)", bar_chart(
            {p.name: (p.points or 0.0) for p in score.parts},
            max_value=50, secondary={p.name: p.max_points for p in score.parts})),
        ("Dry-run failure classes", bar_chart({k: float(v) for k, v in
                                               score.failure_classes.items()})
         if score.failure_classes else "<p>dry run not run or no failures</p>"),
        ("Tokens per stage", bar_chart({s.stage: float(s.tokens) for s in score.stages})),
        ("Seconds per stage", bar_chart({s.stage: float(s.seconds or 0.0)
                                         for s in score.stages})),
    ]
    rows = []
    for part in score.parts:
        rows.append(f"<tr class='part'><td>{e(part.name)}</td><td></td>"
                    f"<td>{_fmt(part.points)}</td><td>{part.max_points:g}</td>"
                    f"<td>{'' if part.ran else 'not run: '}{e(part.note)}</td></tr>")
        rows += [f"<tr><td></td><td>{e(c.name)}</td><td>{_fmt(c.points)}</td>"
                 f"<td>{c.max_points:g}</td><td>{e(c.reason)}</td></tr>"
                 for c in part.components]
    scen = "".join(
        f"<tr><td>{e(s.id)}</td><td>{e(s.domain)}</td><td>{e(s.difficulty)}</td>"
        f"<td>{_fmt(s.total_100, 1)}</td><td>{e('; '.join(s.problems))}</td></tr>"
        for s in score.scenarios
    )
    agreement = ""
    if score.agreement is not None:
        a = score.agreement
        agreement = (f"<h2>Judge agreement</h2><p>{e(a.statistic)} kappa "
                     f"{_fmt(a.kappa, 3)} over {a.items} items (levels "
                     f"{e('/'.join(a.levels))}); per dimension: "
                     + e(", ".join(f"{d} {_fmt(k, 3)}" for d, k in a.per_dimension.items()))
                     + f". {e(a.note)}</p>")
    figures = "".join(f"<figure><figcaption>{e(t)}</figcaption>{svg}</figure>"
                      for t, svg in plots)
    notes = "".join(f"<li>{e(n)}</li>" for n in score.notes)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Score: {e(score.path)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 3px 8px; font-size: 0.9em; vertical-align: top; }}
tr.part td {{ font-weight: bold; background: #f3f3f3; }}
figure {{ display: inline-block; margin: 1em; vertical-align: top; }}
figcaption {{ font-weight: bold; margin-bottom: 4px; }}
</style></head><body>
<h1>{score.score_100:.1f} / 100</h1>
<p>{e(headline(score))}</p>
<ul>{notes}</ul>
<table><tr><th>part</th><th>component</th><th>points</th><th>max</th><th>reason</th></tr>
{''.join(rows)}</table>
{agreement}
<h2>Plots</h2>
{figures}
<h2>Scenarios</h2>
<table><tr><th>id</th><th>domain</th><th>difficulty</th><th>/100</th><th>problems</th></tr>
{scen}</table>
</body></html>
"""


def write_reports(score: SetScore, out: Path) -> list[Path]:
    """Write score.json, score.md and score.html into ``out``; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "score.json": score.model_dump_json(indent=2) + "\n",
        "score.md": render_markdown(score),
        "score.html": render_html(score),
    }
    written = []
    for name, text in paths.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def wandb_metrics(score: SetScore) -> dict[str, float]:
    """Aggregates only (never a text, a reference answer or a per-scenario verdict)."""
    metrics: dict[str, float] = {"score_100": score.score_100, "points": score.points,
                                 "max_points": score.max_points, "records": score.records}
    for part in score.parts:
        if part.points is not None:
            metrics[f"{part.name}/points"] = part.points
        for c in part.components:
            if c.points is not None:
                metrics[f"{part.name}/{c.name}"] = c.points
    metrics.update({f"domain/{k}": v for k, v in score.by_domain.items()})
    metrics.update({f"difficulty/{k}": v for k, v in score.by_difficulty.items()})
    metrics.update({f"failure/{k}": float(v) for k, v in score.failure_classes.items()})
    for s in score.stages:
        metrics[f"tokens/{s.stage}"] = float(s.tokens)
        if s.seconds is not None:
            metrics[f"seconds/{s.stage}"] = s.seconds
    if score.agreement is not None and score.agreement.kappa is not None:
        metrics["agreement/kappa"] = score.agreement.kappa
    metrics["unscored"] = float(len(score.unscored))
    return metrics


def log_wandb(score: SetScore, *, project: str = "scenariogen") -> str:
    """Log the aggregates to Weights & Biases (offline unless WANDB_MODE says otherwise).

    Raises:
        UserError: wandb is not installed.
    """
    import os

    from generator.errors import UserError

    os.environ.setdefault("WANDB_MODE", "offline")
    try:
        import wandb
    except ImportError:
        raise UserError("--wandb needs the wandb package",
                        fix="pip install -e '.[wandb]' (or drop --wandb)") from None
    run = wandb.init(project=project, job_type="score",
                     config={"judges": score.judges, "dry_run": score.dry_run_agent,
                             "records": score.records})
    try:
        run.log(wandb_metrics(score))
    finally:
        run.finish()
    return f"logged to W&B project {project} (WANDB_MODE={os.environ['WANDB_MODE']})"
