"""The unanimous-failure report: scenarios every agent (or answer file) fails, listed first.

When every attempt fails the same scenario, the scenario itself is the likelier defect (a
wrong reference, an ambiguous text, a tool that cannot do what the text asks), so those
come first, each with what every agent answered; scenarios only some agents fail follow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval.model import DryRunReport, EvaluationReport
from generator.errors import UserError

_ANSWER_CHARS = 500


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Attempt(_Strict):
    """One agent's (or answer file's) attempt at one scenario."""

    source: str = Field(description="The agent or answers file")
    failed: bool = Field(description="True when the attempt did not pass")
    score: float = Field(description="Grade score in [0, 1]")
    failure_class: str | None = Field(
        default=None, description="Dry-run failure class ('not_feasible' for answer files)"
    )
    answer: str | None = Field(description="What it answered (first 500 characters)")
    violations: list[str] = Field(default_factory=list, description="The grader's messages")


class ScenarioAttempts(_Strict):
    """Every source's attempt at one scenario."""

    id: str = Field(description="Scenario id")
    domain: str = Field(description="Scenario domain")
    difficulty: str = Field(description="Scenario difficulty")
    negative: bool = Field(description="Unanswerable scenario")
    failed_by: int = Field(description="How many sources failed it")
    attempts: list[Attempt] = Field(description="One per source, in the order given")


class UnanimousReport(_Strict):
    """Scenarios failed by every source (candidate defects), then by some."""

    sources: list[str] = Field(description="Agents or answer files compared")
    scenarios: int = Field(description="Scenarios attempted by every source")
    unanimous_failures: list[ScenarioAttempts] = Field(
        description="Failed by every source: candidate scenario defects"
    )
    split_failures: list[ScenarioAttempts] = Field(
        description="Failed by some sources but not all, most-failed first"
    )
    per_source: dict[str, float] = Field(description="Pass rate per source")


def _clip(text: Any) -> str | None:
    if text is None:
        return None
    s = text if isinstance(text, str) else json.dumps(text, default=str)[:_ANSWER_CHARS * 2]
    return s[:_ANSWER_CHARS]


def attempts_from_evaluation(
    source: str, report: EvaluationReport, answers: dict[str, Any]
) -> dict[str, tuple[dict[str, Any], Attempt]]:
    """Attempts of one answers file (only gradable scenarios count)."""
    out = {}
    for r in report.results:
        if not r.gradable:
            continue
        meta = {"domain": r.domain, "difficulty": r.difficulty, "negative": r.negative}
        out[r.id] = (meta, Attempt(
            source=source, failed=not r.feasible, score=r.score,
            failure_class=None if r.feasible else "not_feasible",
            answer=_clip(answers.get(r.id)), violations=[v.message for v in r.violations]))
    return out


def attempts_from_dryrun(report: DryRunReport) -> dict[str, tuple[dict[str, Any], Attempt]]:
    """Attempts of one dry run (an attempt fails when it has a failure class)."""
    out = {}
    for r in report.results:
        meta = {"domain": r.domain, "difficulty": r.difficulty, "negative": r.grade.negative}
        out[r.id] = (meta, Attempt(
            source=report.agent, failed=r.failure_class is not None, score=r.grade.score,
            failure_class=r.failure_class, answer=_clip(r.final_answer),
            violations=[v.message for v in r.grade.violations]))
    return out


def build_report(
    sources: list[tuple[str, dict[str, tuple[dict[str, Any], Attempt]]]],
) -> UnanimousReport:
    """Compare sources over the scenarios every one of them attempted (order of the first)."""
    if not sources:
        raise UserError("no sources to compare", fix="give at least one answers file or run")
    names = []
    for name, _ in sources:
        label, k = name, 2
        while label in names:
            label, k = f"{name}#{k}", k + 1
        names.append(label)
    common = [sid for sid in sources[0][1] if all(sid in s for _, s in sources)]
    unanimous: list[ScenarioAttempts] = []
    split: list[ScenarioAttempts] = []
    for sid in common:
        meta = sources[0][1][sid][0]
        attempts = [s[sid][1].model_copy(update={"source": label})
                    for label, (_, s) in zip(names, sources, strict=True)]
        failed = sum(a.failed for a in attempts)
        if not failed:
            continue
        item = ScenarioAttempts(id=sid, failed_by=failed, attempts=attempts, **meta)
        (unanimous if failed == len(attempts) else split).append(item)
    split.sort(key=lambda s: -s.failed_by)
    per_source = {
        label: round(sum(not s[sid][1].failed for sid in common) / len(common), 6)
        if common else 0.0
        for label, (_, s) in zip(names, sources, strict=True)
    }
    return UnanimousReport(sources=names, scenarios=len(common), unanimous_failures=unanimous,
                           split_failures=split, per_source=per_source)


def load_dryrun(path: Path) -> DryRunReport:
    """A dry-run report from ``DIR/dryrun.json`` (or the JSON file itself).

    Raises:
        UserError: Missing, unreadable, or not a dry-run report.
    """
    from generator.safeparse import FILE
    from generator.userfile import read_text

    file = path / "dryrun.json" if path.is_dir() else path
    if not file.exists():
        raise UserError(f"no dry-run report at {file}",
                        fix="give a folder written by `scenariogen dryrun --out DIR`")
    text = read_text(file, "dry-run report", max_bytes=FILE.max_bytes)
    try:
        return DryRunReport.model_validate_json(text)
    except ValidationError as exc:
        raise UserError(f"{file} is not a dry-run report ({exc.error_count()} field errors)",
                        fix="give the dryrun.json that `scenariogen dryrun` wrote") from None


def render(report: UnanimousReport, limit: int = 50) -> str:
    """The report as text: unanimous failures first, each with every source's answer."""
    lines = [
        f"{report.scenarios} scenarios attempted by all of {len(report.sources)} sources; "
        f"{len(report.unanimous_failures)} failed by every one (candidate defects), "
        f"{len(report.split_failures)} by some",
        "pass rate: " + ", ".join(f"{k} {v:.1%}" for k, v in report.per_source.items()),
    ]
    for title, items in (("FAILED BY EVERY SOURCE (check the scenario first)",
                          report.unanimous_failures),
                         ("FAILED BY SOME", report.split_failures)):
        if not items:
            continue
        lines.append(f"\n{title}")
        for item in items[:limit]:
            lines.append(f"- {item.id} [{item.domain}/{item.difficulty}"
                         + (", negative" if item.negative else "") + f"] failed by "
                         f"{item.failed_by}/{len(item.attempts)}")
            for a in item.attempts:
                answer = (a.answer or "(no answer)").replace("\n", " ")[:160]
                why = a.violations[0][:120] if a.violations else ""
                lines.append(f"    {a.source}: {'FAIL' if a.failed else 'pass'} "
                             f"{a.failure_class or ''} score {a.score:.2f} | {answer}"
                             + (f" | {why}" if why else ""))
        if len(items) > limit:
            lines.append(f"  ... {len(items) - limit} more (raise --limit)")
    return "\n".join(lines)
