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

That bound is not a lower bound when calls differ in length (it reached wall / bound =
0.83, issue 34). The true one is :func:`critical_path`, on the run's own call graph:

* **Dependencies, from what the code awaits.** Each task carries a *frontier*, the calls
  whose results it has observed (a context variable, so a task started with
  ``create_task`` inherits its parent's). A call depends on the frontier when it is
  requested; when it ends, the frontier becomes that call alone (it depends on all the
  rest). A parent that awaits child tasks takes their frontiers with :func:`join`
  (``fan_out`` does, and so do the LLM path's own ``create_task``/``gather`` sites). A
  dependency therefore always ended before its dependant was requested.
* **Each call** has: ``requested`` (monotonic, before it queues for the client's
  concurrency slot and rate limit), ``start``/``end`` (the model invocation) and the event
  loop thread's CPU clock (``time.thread_time``) at its request and at its end.
* **A chain** is run start → c1 → c2 → ... → ck → run end along dependencies. Its length
  is the sum of the calls' durations ``end - start`` plus, for each gap between one link's
  end and the next link's request (and the head from the run's start to c1's request, the
  tail from ck's end to the run's end), the loop thread's CPU time in that gap (capped at
  the gap's wall time; 0 if the two clock readings come from different threads).
* **The bound** is the longest chain. Its pieces lie in disjoint intervals of the run, so
  ``wall >= bound`` by construction. The gap ``wall - bound`` along the chosen chain is
  split exactly into ``queue_s`` (its calls waiting for a concurrency slot or the rate
  limit: ``start - requested``) and ``waiting_s`` (the loop thread off the CPU in the
  chain's gaps), of which ``behind_calls_s`` passed while a call off the chain was in
  flight (the chain waited behind calls that a concurrency limit, not a dependency, put
  first: the domain fan-out's slots, the baseline's one call at a time) and ``idle_s``
  the rest (store I/O, the thread pool, draw workers, backoff sleeps).
  ``cpu_off_chain_s`` is the rest of the loop thread's CPU, spent while the chain's calls
  queued or were in flight (hidden under them, so not in the gap).

The chain's CPU is the loop thread's CPU in its gaps: other coroutines interleaved there
are counted too (they held the one thread the chain's next step needed). CPU in worker
processes and pool threads is not counted, so this bound is a lower bound for any
schedule of the same calls, dependencies and loop-thread work.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import weakref
from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

_IDS = itertools.count(1)
_FRONTIER: ContextVar[frozenset[int]] = ContextVar("llm_frontier", default=frozenset())
# The last frontier each task set, so that a parent awaiting the task can join it.
_BY_TASK: weakref.WeakKeyDictionary[asyncio.Task[Any], frozenset[int]] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True)
class CallTiming:
    """One model invocation: monotonic start and end (seconds), round, stage, outcome."""

    start: float
    end: float
    round: int
    stage: str
    ok: bool
    call_id: int = 0
    requested: float | None = None
    after: tuple[int, ...] = ()
    cpu_requested: float | None = None
    cpu_end: float | None = None
    thread: int | None = None

    @property
    def seconds(self) -> float:
        """The call's duration."""
        return self.end - self.start


def new_call_id() -> int:
    """A process-wide unique id for one model invocation."""
    return next(_IDS)


def frontier() -> tuple[int, ...]:
    """The calls the current task has observed (the dependencies of a call it requests)."""
    return tuple(sorted(_FRONTIER.get()))


def _set(value: frozenset[int]) -> None:
    _FRONTIER.set(value)
    task = _current_task()
    if task is not None:
        _BY_TASK[task] = value


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop (a sync caller)
        return None


def advance(call_id: int) -> None:
    """The current task has observed the end of ``call_id`` (it depends on all the rest)."""
    _set(frozenset((call_id,)))


def join(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """The current task awaited ``tasks``: their observed calls become its own too."""
    if not _BY_TASK:  # no LLM call in flight or done in a live task (the template path)
        return
    seen = _FRONTIER.get()
    merged = seen.union(*(_BY_TASK.get(t, frozenset()) for t in tasks
                          if isinstance(t, asyncio.Task)))
    if merged != seen:
        _set(merged)


def join_calls(call_ids: Iterable[int]) -> None:
    """The current task used a result that depended on ``call_ids`` (e.g. a seed another
    task accepted after those calls): they become its dependencies too."""
    seen = _FRONTIER.get()
    merged = seen.union(call_ids)
    if merged != seen:
        _set(merged)


def _covered(spans: Sequence[tuple[float, float]], a: float, b: float) -> float:
    """Seconds of [a, b] covered by the union of ``spans`` (sorted by start)."""
    total, reach = 0.0, a
    for s, e in spans:
        s, e = max(s, reach), min(e, b)
        if e > s:
            total += e - s
            reach = e
    return total


@dataclass(frozen=True)
class CriticalPath:
    """The longest chain of dependent calls and the split of ``wall - bound``."""

    bound_s: float
    wall_s: float
    chain: tuple[int, ...]
    calls_s: float
    cpu_s: float
    queue_s: float
    waiting_s: float
    cpu_off_chain_s: float
    behind_calls_s: float = 0.0

    def report(self) -> dict[str, Any]:
        """The bench's and manifest's block (seconds to the millisecond)."""
        return {
            "bound_s": round(self.bound_s, 3), "wall_s": round(self.wall_s, 3),
            "wall_over_bound": round(self.wall_s / self.bound_s, 3) if self.bound_s > 0 else None,
            "chain_calls": len(self.chain), "chain_call_s": round(self.calls_s, 3),
            "chain_cpu_s": round(self.cpu_s, 3),
            "gap": {"queue_s": round(self.queue_s, 3), "waiting_s": round(self.waiting_s, 3),
                    "behind_calls_s": round(self.behind_calls_s, 3),
                    "idle_s": round(self.waiting_s - self.behind_calls_s, 3)},
            "cpu_off_chain_s": round(self.cpu_off_chain_s, 3),
        }


def _cpu_between(
    wall_from: float, wall_to: float, cpu_from: float | None, cpu_to: float | None
) -> float:
    if cpu_from is None or cpu_to is None:
        return 0.0
    return max(0.0, min(cpu_to - cpu_from, wall_to - wall_from))


def critical_path(
    calls: Sequence[CallTiming], *, start: float, end: float, cpu_start: float | None,
    cpu_end: float | None, thread: int | None = None,
) -> CriticalPath:
    """The run's lower bound from its call graph (definitions in the module docstring).

    Args:
        calls: The run's recorded calls (with ``requested``, ``after`` and CPU readings).
        start: The run's start (monotonic clock).
        end: The run's end (monotonic clock).
        cpu_start: The loop thread's ``time.thread_time()`` at the start.
        cpu_end: The same at the end.
        thread: The loop thread's ident (CPU readings from other threads count 0).
    """

    def cpu(c: CallTiming, which: str) -> float | None:
        if thread is not None and c.thread is not None and c.thread != thread:
            return None
        return c.cpu_requested if which == "req" else c.cpu_end

    usable = sorted(
        (c for c in calls if c.requested is not None and start <= c.requested <= c.start
         and c.end <= end),
        key=lambda c: c.start,
    )
    by_id = {c.call_id: c for c in usable}
    # best[id] = (length of the longest chain ending with the call, predecessor id or 0)
    best: dict[int, tuple[float, int]] = {}
    for c in usable:
        req = c.requested if c.requested is not None else c.start
        length, pred = _cpu_between(start, req, cpu_start, cpu(c, "req")), 0
        for p_id in c.after:
            p = by_id.get(p_id)
            if p is None or p_id not in best or p.end > req:
                continue
            via = best[p_id][0] + _cpu_between(p.end, req, cpu(p, "end"), cpu(c, "req"))
            if via > length:
                length, pred = via, p_id
        best[c.call_id] = (length + c.seconds, pred)
    total = _cpu_between(start, end, cpu_start, cpu_end)
    bound, last = total, 0
    for c in usable:
        tail = best[c.call_id][0] + _cpu_between(c.end, end, cpu(c, "end"), cpu_end)
        if tail > bound:
            bound, last = tail, c.call_id
    chain: list[int] = []
    while last:
        chain.append(last)
        last = best[last][1]
    chain.reverse()
    links = [by_id[i] for i in chain]
    calls_s = sum(c.seconds for c in links)
    queue_s = sum(c.start - (c.requested or c.start) for c in links)
    cpu_s = bound - calls_s
    wall = end - start
    # The loop's CPU that is not on the chain ran while its calls queued or were in flight.
    off = max(0.0, total - cpu_s)
    # Waiting in each gap (off the CPU) while some call off the chain was in flight.
    others = sorted((c.start, c.end) for c in usable if c.call_id not in set(chain))
    gaps: list[tuple[float, float, float | None, float | None]] = []
    prev_end, prev_cpu = start, cpu_start
    for c in links:
        req = c.requested if c.requested is not None else c.start
        gaps.append((prev_end, req, prev_cpu, cpu(c, "req")))
        prev_end, prev_cpu = c.end, cpu(c, "end")
    gaps.append((prev_end, end, prev_cpu, cpu_end))
    behind = 0.0
    for a, b, ca, cb in gaps:
        idle = (b - a) - _cpu_between(a, b, ca, cb)
        behind += min(idle, _covered(others, a, b))
    return CriticalPath(
        bound_s=bound, wall_s=wall, chain=tuple(chain), calls_s=calls_s, cpu_s=cpu_s,
        queue_s=queue_s, waiting_s=max(0.0, wall - bound - queue_s), cpu_off_chain_s=off,
        behind_calls_s=behind,
    )


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
