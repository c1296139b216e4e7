"""Class-independent reading of raw documents, shared by every asset class's audit.

Exported through :mod:`eval.audit.api`. Written for the audit, apart from the generator's
helpers of the same purpose (``generator.generate.draw.family_helpers.unique_argmax``): a check
that re-ran the generator's code would pass its bugs.
"""

from __future__ import annotations

from eval.audit.core import AuditContext, NoSingleAnswer, in_window
from eval.audit.raw import Doc


def sensor_pairs(docs: list[Doc], sensor: str) -> list[tuple[str, float]]:
    """(timestamp, value) of every document holding ``sensor``, in document order."""
    return [(str(d["timestamp"])[:19], float(d[sensor])) for d in docs if d.get(sensor) is not None]


def argmax(pairs: list[tuple[str, float]], sign: float = 1.0) -> tuple[str, float]:
    """The one extreme reading (maximum; minimum with ``sign`` -1); a tie has no single answer."""
    if not pairs:
        raise NoSingleAnswer("no readings")
    best = max(sign * v for _, v in pairs)
    hits = [(t, v) for t, v in pairs if sign * v == best]
    if len(hits) > 1:
        raise NoSingleAnswer(f"{len(hits)} readings share the extreme")
    return hits[0]


def window_docs(ctx: AuditContext, asset_id: str, start: str, end: str | None, mode: str
                ) -> list[Doc]:
    """The unit's telemetry in the window under a reading of its end."""
    return [d for d in ctx.raw.telemetry(asset_id)
            if in_window(str(d["timestamp"]), start, end, mode)]


def asset_work_orders(ctx: AuditContext, asset_id: str) -> list[Doc]:
    """The unit's work-order events by reported date, then id."""
    return sorted(
        (d for d in ctx.raw.work_db("wo_events") if d.get("equipment_id") == asset_id),
        key=lambda d: (str(d["reported_date"]), str(d["wo_id"])),
    )
