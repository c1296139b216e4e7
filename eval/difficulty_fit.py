"""Calibrate the difficulty score against a dry run: pass rate per level and score bucket.

The generator scores each seed's work (:mod:`generator.generate.draw.difficulty`) and records the
score in ``provenance.difficulty_score``. A dry run says which scenarios an agent passed
(no failure class). This module joins the two by scenario id and reports:

- the pass rate per difficulty level (easy, medium, hard): a calibrated score has the rate
  fall from easy to hard;
- the pass rate per score bucket (``[k·w, (k+1)·w)``, width ``w`` = 1.0 by default);
- refitted cut points (:func:`fit_cuts`).

**Refitting the cut points.** The two cuts split the scores into three levels; among every
pair of cut points taken from the observed scores, :func:`fit_cuts` picks the pair whose
levels' pass rates explain the pass/fail outcomes best (least squares: each attempt's 0/1
outcome against its level's pass rate), with at least ``min_level`` attempts per level; ties
go to the lower cuts. To adopt the result, set
:data:`generator.generate.draw.difficulty.CUTS_BY_DOMAIN` to it, per domain
(``CUTS_BY_DOMAIN``; the pooled fit is shown as ``all``): the levels of seeds drawn
afterwards follow the new cuts, while each run's manifest records the cuts it used. The
cuts in use follow the natural-draw rule of
:func:`generator.generate.draw.difficulty.cuts_from_scores` (``scenariogen difficulty-cuts``);
a dry run's fit is the evidence to move them where the pass rate steps down elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from eval.model import DryRunReport


class Bucket(BaseModel):
    """Pass rate of the attempts in one group."""

    model_config = ConfigDict(extra="forbid")

    group: str = Field(description="Difficulty level, or the score bucket '[lo, hi)'")
    n: int = Field(description="Attempts in the group")
    passed: int = Field(description="Attempts with no failure class")
    pass_rate: float | None = Field(description="passed / n (None when n is 0)")


class Calibration(BaseModel):
    """The calibration report of one dry run."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(description="The dry run's agent")
    attempts: int = Field(description="Attempts joined to a scenario with a difficulty score")
    unscored: int = Field(description="Attempts whose scenario carries no difficulty score")
    by_level: list[Bucket] = Field(description="easy, medium, hard")
    by_score: list[Bucket] = Field(description="Score buckets in increasing order")
    cuts_now: dict[str, tuple[float, float]] = Field(
        description="The generator's cut points per domain of the run"
    )
    cuts_fitted: dict[str, tuple[float, float] | None] = Field(
        description="Cut points refitted per domain ('all': pooled); None when too few attempts"
    )


def _bucket(group: str, outcomes: list[bool]) -> Bucket:
    n = len(outcomes)
    return Bucket(group=group, n=n, passed=sum(outcomes),
                  pass_rate=round(sum(outcomes) / n, 4) if n else None)


def _sse(outcomes: list[bool]) -> float:
    if not outcomes:
        return 0.0
    p = sum(outcomes) / len(outcomes)
    return sum((o - p) ** 2 for o in outcomes)


def fit_cuts(
    scored: Iterable[tuple[float, bool]], min_level: int = 5
) -> tuple[float, float] | None:
    """Cut points (c1 < c2) that best separate passes from failures (module docstring).

    Args:
        scored: (difficulty score, passed) per attempt.
        min_level: Fewest attempts a level may hold.

    Returns:
        The cuts, or None when no pair leaves ``min_level`` attempts in every level.
    """
    pairs = sorted(scored)
    values = sorted({s for s, _ in pairs})
    best: tuple[float, tuple[float, float]] | None = None
    for i, c1 in enumerate(values[1:], start=1):
        for c2 in values[i + 1:]:
            levels = (
                [p for s, p in pairs if s < c1],
                [p for s, p in pairs if c1 <= s < c2],
                [p for s, p in pairs if s >= c2],
            )
            if min(len(x) for x in levels) < min_level:
                continue
            err = sum(_sse(x) for x in levels)
            if best is None or err < best[0] - 1e-12:
                best = (err, (c1, c2))
    return None if best is None else best[1]


def calibrate(
    report: DryRunReport,
    records: Iterable[Mapping[str, Any]],
    *,
    width: float = 1.0,
    min_level: int = 5,
) -> Calibration:
    """Join a dry run to its scenarios and report pass rates per level and score bucket."""
    from generator.generate.draw.difficulty import cuts_for

    scores: dict[str, float] = {}
    for rec in records:
        prov = rec.get("provenance")
        value = prov.get("difficulty_score") if isinstance(prov, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            scores[str(rec.get("id"))] = float(value)
    by_level: dict[str, list[bool]] = {"easy": [], "medium": [], "hard": []}
    by_score: dict[int, list[bool]] = {}
    joined: list[tuple[float, bool]] = []
    per_domain: dict[str, list[tuple[float, bool]]] = {}
    unscored = 0
    for result in report.results:
        passed = result.failure_class is None
        if result.difficulty in by_level:
            by_level[result.difficulty].append(passed)
        score = scores.get(result.id)
        if score is None:
            unscored += 1
            continue
        joined.append((score, passed))
        per_domain.setdefault(result.domain, []).append((score, passed))
        by_score.setdefault(math.floor(score / width), []).append(passed)
    return Calibration(
        agent=report.agent,
        attempts=len(joined),
        unscored=unscored,
        by_level=[_bucket(k, v) for k, v in by_level.items()],
        by_score=[
            _bucket(f"[{k * width:g}, {(k + 1) * width:g})", v)
            for k, v in sorted(by_score.items())
        ],
        cuts_now={d: cuts_for(d) for d in sorted(per_domain)},
        cuts_fitted={"all": fit_cuts(joined, min_level)} | {
            d: fit_cuts(v, min_level) for d, v in sorted(per_domain.items())
        },
    )


def render(cal: Calibration) -> str:
    """The report as text."""

    def rate(b: Bucket) -> str:
        return "—" if b.pass_rate is None else f"{b.pass_rate:.0%}"

    out = [f"difficulty calibration against {cal.agent}: {cal.attempts} attempts with a "
           f"score ({cal.unscored} without)"]
    out += ["by level:"] + [f"  {b.group:<8} {rate(b):>5} of {b.n}" for b in cal.by_level]
    out += ["by score:"] + [f"  {b.group:<12} {rate(b):>5} of {b.n}" for b in cal.by_score]
    out.append("cut points (set generator.generate.draw.difficulty.CUTS_BY_DOMAIN to adopt):")
    for domain, fitted in cal.cuts_fitted.items():
        now = cal.cuts_now.get(domain)
        shown = "too few attempts" if fitted is None else f"{fitted[0]:g}, {fitted[1]:g}"
        was = "" if now is None else f"now {now[0]:g}, {now[1]:g}; "
        out.append(f"  {domain:<10} {was}refitted {shown}")
    return "\n".join(out)
