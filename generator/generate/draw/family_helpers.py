"""Small helpers any class's task families share: draws, wording, readings of records, the
alternative readings of a window's end, and the generic anomalies → corrective-work chain.

They know only the generic tools (``history`` and its ``final`` argument, the record layout
``{"timestamp": ..., <sensor>: value}``), never a class's sensors or words.

A task's text leaves some choices open (is the window's end date included? does "as of" a
date include that day?). :func:`window_end_readings` and :func:`as_of_readings` turn such a
choice into :class:`~generator.generate.draw.families.Reading` objects: the same tool calls with
the argument the other reader would pass. The interpretation gate derives the answer under
every reading and keeps a seed only when they agree or the text states the reading it takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

import numpy as np

from generator.generate.draw.families import Ambiguous, Plan, Reading
from generator.generate.model import TaskSeed, ToolCall
from generator.profile.model import GroundedAsset

T = TypeVar("T")

# Names of the readings, shared by the families and their tests.
END_DAY_INCLUDED = "window_end_day_included"
END_MIDNIGHT_INCLUDED = "window_end_midnight_included"
AS_OF_INCLUDED = "as_of_day_included"


def pick(rng: np.random.Generator, items: Sequence[T]) -> T:
    """One item, uniformly."""
    if not items:
        raise ValueError("pick from an empty sequence")
    return items[int(rng.integers(len(items)))]


def day(ts: str) -> date:
    """The date of an ISO timestamp."""
    return datetime.fromisoformat(str(ts)[:19]).date()


def num(value: float, digits: int = 2) -> str:
    """A number for text: rounded, without trailing zeros."""
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def and_join(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'; 'none' when empty."""
    items = list(items)
    if not items:
        return "none"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def history_call(
    a: GroundedAsset, start: str, end: str | None, sensors: list[str] | None
) -> ToolCall:
    """A `history` call for some sensors of an asset over [start, end) (None = every
    telemetry sensor; no end = up to the last record)."""
    args: dict[str, Any] = {"site_name": a.site_name, "asset_id": a.asset_id, "start": start}
    if sensors is not None:
        args["sensors"] = sensors
    if end is not None:
        args["final"] = end
    return ToolCall(name="history", args=args)


def values_of(records: list[dict[str, Any]], sensor: str) -> list[tuple[str, float]]:
    """(timestamp, value) of the records that carry the sensor (not null).

    That is ``(str(r["timestamp"]), float(r[sensor]))`` per such record; a stamp that is
    already a ``str`` and a value already a ``float`` are taken as they are (what ``str`` and
    ``float`` return for them), which halves the cost on a telemetry window.
    """
    return [
        (t if type(t) is str else str(t), v if type(v) is float else float(v))
        for r in records
        if (v := r.get(sensor)) is not None
        for t in (r["timestamp"],)
    ]


def unique_argmax(pairs: list[tuple[str, float]], sign: float = 1.0) -> tuple[str, float]:
    """The (timestamp, value) of the extreme (``sign=-1`` for the minimum).

    Raises:
        Ambiguous: On a tie or without readings.
    """
    if not pairs:
        raise Ambiguous("no readings")
    best = max(sign * v for _, v in pairs)
    hits = [(t, v) for t, v in pairs if sign * v == best]
    if len(hits) > 1:
        raise Ambiguous(f"{len(hits)} readings share the extreme")
    return hits[0]


def _shift(value: str, days: int = 0, hours: int = 0) -> str:
    """A ``YYYY-MM-DD`` day moved by whole days, or to an hour of that day."""
    d = date.fromisoformat(value[:10]) + timedelta(days=days)
    return d.isoformat() if not hours else f"{d.isoformat()}T{hours:02d}:00:00"


def _with_end(calls: list[ToolCall], key: str, end: str, new_end: str) -> list[ToolCall]:
    """The calls with every ``key`` argument equal to ``end`` replaced by ``new_end``."""
    out = []
    for call in calls:
        args: dict[str, Any] = dict(call.args)
        if args.get(key) == end:
            args[key] = new_end
        out.append(ToolCall(name=call.name, args=args))
    return out


def window_end_readings(calls: list[ToolCall], key: str, end: str) -> list[Reading]:
    """The two inclusive readings of a window whose text says it ends at ``end`` (a day).

    Args:
        calls: The task's calls; those whose ``key`` argument is ``end`` are changed.
        key: The argument holding the exclusive end (``final`` or ``end_date``).
        end: The end day, ``YYYY-MM-DD``.

    Returns:
        "the end day is part of the window" (end + 1 day) and "the record stamped at the
        end day's midnight is part of it" (end + 1 hour).
    """
    return [
        Reading(
            name=END_DAY_INCLUDED,
            description=f"reads the window as running up to and including {end}",
            tool_sequence=_with_end(calls, key, end, _shift(end, days=1)),
        ),
        Reading(
            name=END_MIDNIGHT_INCLUDED,
            description=f"includes the record stamped {end} 00:00 (the end instant)",
            tool_sequence=_with_end(calls, key, end, _shift(end, hours=1)),
        ),
    ]


def as_of_readings(calls: list[ToolCall], key: str, as_of: str) -> list[Reading]:
    """The inclusive reading of "as of {as_of}": records reported on that day count too."""
    return [
        Reading(
            name=AS_OF_INCLUDED,
            description=f"counts the records reported on {as_of} itself as known 'as of' it",
            tool_sequence=_with_end(calls, key, as_of, _shift(as_of, days=1)),
        )
    ]


# -- anomalies in a window -> corrective work orders in that window --------------------------
# A multi-agent chain any class offers on the generic tools: its parent is the class's
# anomaly family (first call ``run_tsad``; params asset_id, start, end, sensor), the second
# call is ``get_corrective_work_orders`` over the same window.


def anomaly_workorder_derive(
    params: dict[str, Any], outputs: list[dict[str, Any]]
) -> dict[str, Any]:
    """The answer: anomaly count, first anomaly, the window's corrective work orders and
    whether one was reported after the first anomaly (None without anomalies)."""
    tsad, corrective = outputs
    stamps = [str(x["timestamp"]) for x in tsad["anomalies"]]
    first = stamps[0] if stamps else None
    orders = corrective["work_orders"]
    after = [o for o in orders if first is not None and str(o["reported_date"]) > first]
    return {
        "anomalies": len(stamps),
        "first_anomaly": first,
        "corrective_work_orders": [str(o["wo_id"]) for o in orders],
        "followed_by_corrective": bool(after) if first is not None else None,
    }


def anomaly_workorder_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    """The answer in one sentence."""
    text = (
        f"{answer['anomalies']} anomalies of {params['sensor']} on {params['asset_id']} in "
        f"[{params['start']}, {params['end']})"
    )
    if answer["first_anomaly"]:
        text += f", first at {answer['first_anomaly']}"
    text += f"; corrective work orders in the window: {and_join(answer['corrective_work_orders'])}"
    if answer["followed_by_corrective"] is not None:
        text += "; corrective work after the first anomaly: " + (
            "yes" if answer["followed_by_corrective"] else "no"
        )
    return text


def anomaly_workorder_outcome(answer: dict[str, Any]) -> str:
    """none (no anomaly), followed (corrective work after it) or unanswered."""
    if answer["anomalies"] == 0:
        return "none"
    return "followed" if answer["followed_by_corrective"] else "unanswered"


def anomaly_workorder_plan(parent: TaskSeed, rng: np.random.Generator) -> Plan | None:
    """The chain's plan from its anomaly parent: the parent's ``run_tsad`` call, then the
    corrective work orders over the same window (None for most parents without anomalies,
    so the chain mostly holds windows with some)."""
    p = parent.params
    if parent.answer["count"] == 0 and rng.random() < 0.6:
        return None
    calls = [
        parent.tool_sequence[0],
        ToolCall(name="get_corrective_work_orders",
                 args={"equipment_id": p["asset_id"], "start_date": p["start"],
                       "end_date": p["end"]}),
    ]
    keep = ("asset_id", "site", "sensor", "sensor_label", "start", "end", "threshold",
            "threshold_text", "note")
    return Plan(
        params={k: p[k] for k in keep if k in p},
        tool_sequence=calls,
        mentions=list(parent.mentions),
        grounding=dict(parent.grounding),
        difficulty="hard",
        hard_features=["multi_output", "constraint"] if parent.constraint else ["multi_output"],
        constraint=parent.constraint,
    )
