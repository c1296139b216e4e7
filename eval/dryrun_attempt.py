"""What an agent returns for one scenario, and how a graded attempt fails (its class).

Shared by the dry-run driver (:mod:`eval.dryrun`) and every agent (reference, text,
scripted, LLM): an agent fills an :class:`Attempt`; :func:`classify` names the failure of a
graded one (the order is in :mod:`eval.dryrun`'s docstring).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

from eval.asset_words import asset_nouns_pattern
from eval.model import FailureClass, GradeResult, TrajectoryStep


@cache
def _clarify_re() -> re.Pattern[str]:
    """A question back to the operator: "could you clarify", "which unit do you mean" (the
    unit named by any asset class's noun)."""
    return re.compile(
        r"\b(?:could|can|would) you (?:please )?(?:clarify|specify|confirm|provide|tell me|let "
        r"me know)|\bplease (?:clarify|specify|provide|confirm)\b|\bwhich (?:asset|unit|"
        + asset_nouns_pattern() + r"|site|sensor|date|period) do you mean\b",
        re.IGNORECASE,
    )


@dataclass
class Attempt:
    """What an agent returns for one scenario."""

    final_answer: str | None = None
    answer: Any = None
    outcome: str = "answered"  # answered | max_steps | no_final_answer | infrastructure
    error: str | None = None
    steps: list[TrajectoryStep] = field(default_factory=list)


class Agent(Protocol):
    """An agent that attempts one scenario, appending its steps to ``attempt.steps``."""

    name: str

    async def run(self, scenario: dict[str, Any], attempt: Attempt, max_steps: int) -> None:
        """Attempt ``scenario``; fill ``attempt`` (steps as they happen)."""


def _expected_tools(scenario: dict[str, Any]) -> list[str]:
    raw = scenario.get("expected_tools")
    if isinstance(raw, list):
        return [str(t) for t in raw if isinstance(t, str)]
    calls = scenario.get("tool_sequence")
    if isinstance(calls, list):
        names = [c.get("name") for c in calls if isinstance(c, dict)]
        return list(dict.fromkeys(n for n in names if isinstance(n, str)))
    return []


def classify(
    attempt: Attempt, result: GradeResult, expected: list[str], steps: list[TrajectoryStep]
) -> FailureClass | None:
    """The failure class of a graded attempt (order in the module docstring)."""
    if attempt.outcome == "infrastructure":
        return "infrastructure"
    if attempt.outcome == "max_steps":
        return "max_steps"
    if attempt.outcome == "no_final_answer" or (
        attempt.answer is None and not (attempt.final_answer or "").strip()
    ):
        return "no_final_answer"
    called = [s.tool for s in steps if s.kind == "tool_call" and s.tool]
    missing = [t for t in expected if t not in called]
    if not result.gradable:
        return None
    if result.feasible:
        return "wrong_tools" if missing and not result.negative else None
    if _clarify_re().search(attempt.final_answer or "") or (attempt.final_answer or "").rstrip(
    ).endswith("?"):
        return "asked_clarification"
    if not result.negative:
        ok_tools = {s.tool for s in steps if s.kind == "observation" and not s.is_error}
        if any(t in called and t not in ok_tools for t in expected):
            return "tool_error"
        if missing:
            return "wrong_tools"
    return "wrong_answer"


def steps_json(value: Any) -> str:
    """Tool arguments or outputs as compact JSON text for a trajectory step."""
    try:
        return json.dumps(value, default=str)[:20_000]
    except (TypeError, ValueError, RecursionError):
        return str(value)[:20_000]
