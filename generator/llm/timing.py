"""Per-call LLM timings and the run's lower bound on wall time from them.

Every model invocation (each attempt, retries included) is recorded with its monotonic
start and end and its *round*: the length of the longest chain of strictly sequential
calls that ends with it,

    round(c) = 1 + max(round(p) for p recorded with p.end <= c.start), or 1 if none.

A call is recorded when it ends, so every call that ended before it started is already
known and the round is final when recorded. The run's critical rounds are the largest
round; no schedule of the same calls can finish in fewer sequential LLM round trips.

The per-run bound the manifest reports (``llm_timing``):

    median_s        = median of (end - start) over the recorded calls
    bound_s         = critical_rounds × median_s
    wall_over_bound = wall_s / bound_s   (None when bound_s is 0, e.g. no calls)
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CallTiming:
    """One model invocation: monotonic start and end (seconds), round, stage, outcome."""

    start: float
    end: float
    round: int
    stage: str
    ok: bool

    @property
    def seconds(self) -> float:
        """The call's duration."""
        return self.end - self.start


def next_round(done: Sequence[CallTiming], start: float) -> int:
    """The round of a call starting at ``start`` given the calls recorded so far."""
    return 1 + max((c.round for c in done if c.end <= start), default=0)


def llm_timing(calls: Sequence[CallTiming], wall_s: float) -> dict[str, Any]:
    """The manifest's ``llm_timing`` block (formula in the module docstring).

    Args:
        calls: The run's recorded calls.
        wall_s: The run's wall time in seconds.

    Returns:
        ``calls``, ``median_s``, ``critical_rounds``, ``bound_s``, ``wall_s`` and
        ``wall_over_bound`` (rounded to the millisecond / three decimals).
    """
    median = statistics.median(c.seconds for c in calls) if calls else 0.0
    rounds = max((c.round for c in calls), default=0)
    bound = rounds * median
    return {
        "calls": len(calls),
        "median_s": round(median, 3),
        "critical_rounds": rounds,
        "bound_s": round(bound, 3),
        "wall_s": round(wall_s, 3),
        "wall_over_bound": round(wall_s / bound, 3) if bound > 0 else None,
    }
