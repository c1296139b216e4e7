"""Judges of scenario quality (30 points) and how several judges are combined.

A judge rates each scenario on five dimensions, 1 (fails) to 5 (fully meets the rubric),
with a reason per dimension. The points of a dimension are ``weight × (rating − 1) / 4``
(the paper's weights: answerability 10, tool usability 8, difficulty 6, characteristic
form 4, clarity 2). With several judges the rating of a dimension is the median of the
judges that produced a verdict; their agreement is reported as a kappa over the ratings
binned to three levels (:mod:`eval.judge_agreement`).

A verdict that cannot be obtained or parsed is *unscored* with its reason and leaves the
scenario's judge points to the other judges; a scenario no judge scored has no judge
points and is left out of the judge mean (and listed), never counted as a zero.

A judge of the same model as the generator is refused unless the caller allows it:
a model grading its own output is a known bias.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any, Protocol

from eval.score_model import JUDGE_WEIGHTS, Component, JudgeVerdict, Part
from generator.errors import UserError

DIMENSIONS: tuple[str, ...] = tuple(JUDGE_WEIGHTS)
RUBRIC_VERSION = "judge-rubric-v1"
RUBRIC: dict[str, str] = {
    "answerability": "Can the request be answered from the asset's data and the available "
    "tools, with one checkable answer (or, for an unanswerable scenario, a clear refusal)?",
    "tool_usability": "Do the tools a correct response needs exist (the live tool list is "
    "given) and can they be called with arguments the request supplies?",
    "difficulty": "Is the stated difficulty justified by the work the request needs (tool "
    "calls, constraints, conditionals), and is the task more than a trivial lookup?",
    "characteristic_form": "Does the characteristic form say what a correct response does and "
    "contains (tools, key values) precisely enough to grade against?",
    "clarity": "Is the request one clear, well-formed question an operator or manager would "
    "write, without naming tools or leaving placeholders?",
}


class Judge(Protocol):
    """Rates scenarios; returns one verdict per scenario, in input order."""

    label: str

    async def judge(self, records: Sequence[dict[str, Any]]) -> list[JudgeVerdict]:
        """Verdicts for ``records`` (unscored ones carry their reason)."""
        ...


def dimension_points(rating: float, dimension: str) -> float:
    """Points of a (median) rating: ``weight × (rating − 1) / 4``."""
    return JUDGE_WEIGHTS[dimension] * (rating - 1.0) / 4.0


def median_ratings(verdicts: Sequence[JudgeVerdict]) -> dict[str, float]:
    """Median rating per dimension over the scored verdicts of one scenario (empty: none)."""
    scored = [v for v in verdicts if v.scored]
    out: dict[str, float] = {}
    for dim in DIMENSIONS:
        ratings = [v.dimensions[dim].rating for v in scored if dim in v.dimensions]
        if ratings:
            out[dim] = float(statistics.median(ratings))
    return out


def judge_part(
    per_scenario: Sequence[dict[str, float]], judges: Sequence[str]
) -> tuple[Part, list[float | None]]:
    """The judge part from per-scenario median ratings.

    Returns:
        The part (component points = mean over the scenarios some judge scored) and each
        scenario's judge points (None when no judge scored it).
    """
    points: list[float | None] = []
    for ratings in per_scenario:
        if len(ratings) < len(DIMENSIONS):
            points.append(None)
        else:
            points.append(round(sum(dimension_points(r, d) for d, r in ratings.items()), 4))
    scored = [r for r in per_scenario if len(r) == len(DIMENSIONS)]
    label = " + ".join(judges)
    components = []
    for dim, weight in JUDGE_WEIGHTS.items():
        if not scored:
            components.append(Component(name=dim, max_points=weight, points=None, share=None,
                                        reason="no scenario was scored"))
            continue
        mean_rating = statistics.fmean(r[dim] for r in scored)
        pts = dimension_points(mean_rating, dim)
        components.append(Component(
            name=dim, max_points=weight, points=round(pts, 3), share=round(pts / weight, 4),
            reason=f"mean median rating {mean_rating:.2f}/5 over {len(scored)} scenarios "
            f"({label})",
        ))
    unscored = len(per_scenario) - len(scored)
    note = f"{unscored} scenario(s) unscored by every judge, left out of the mean" if unscored \
        else ""
    ran = bool(scored)
    total = round(sum(c.points or 0.0 for c in components), 3) if ran else None
    return (
        Part(name="judge", max_points=30.0, ran=ran, points=total, components=components,
             note=note),
        points,
    )


def parse_judge_specs(text: str) -> list[str]:
    """Split ``rules`` or ``llm:SPEC[,llm:SPEC…]`` into judge specs (``rules`` or a SPEC).

    Raises:
        UserError: An empty list, or an entry that is neither ``rules`` nor ``llm:SPEC``.
    """
    specs = [s.strip() for s in (text or "").split(",") if s.strip()]
    if not specs:
        raise UserError("--judge is empty", options=["rules", "llm:SPEC"],
                        fix="pass --judge rules or --judge llm:openai:gpt-4o-mini")
    out = []
    for spec in specs:
        if spec == "rules":
            out.append("rules")
        elif spec.startswith("llm:") and spec[4:].strip():
            out.append(spec[4:].strip())
        else:
            raise UserError(
                "unknown --judge entry", value=spec, options=["rules", "llm:SPEC"],
                fix="write rules, or llm: followed by an --llm spec such as "
                "llm:ollama:llama3.2 (several: comma-separated)",
            )
    return out


def refuse_self_judge(judge_labels: Sequence[str], generator_model: str | None,
                      *, allow: bool) -> None:
    """Refuse a judge whose model generated the set (unless ``allow``).

    Raises:
        UserError: one line naming the judge and the generator model.
    """
    if allow or not generator_model or generator_model in ("none", "template"):
        return
    for label in judge_labels:
        if label == generator_model:
            raise UserError(
                f"judge {label!r} is the model that generated this set "
                f"(provenance.model {generator_model!r}); a model grading its own output "
                "is biased",
                fix="pick another judge model, or pass --allow-self-judge to accept the bias",
            )
