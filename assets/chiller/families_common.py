"""Helpers shared by the chiller task families: entities, windows, readings and wording.

Telemetry coverage of a unit is read through :func:`coverage` only, so a change of the
profile's field layout touches one function.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

import numpy as np

from generator.api import Ambiguous, FamilyContext, GroundedAsset, Reading, ToolCall

T = TypeVar("T")

# Names of the window readings, shared by the families and their tests.
END_DAY_INCLUDED = "window_end_day_included"
END_MIDNIGHT_INCLUDED = "window_end_midnight_included"
# Every `{window}` phrasing of templates.yaml says the end day is excluded, so these
# readings are stated, not gated.
WINDOW_STATED = [END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED]
# Share of draws that look for a window or hour holding one of the unit's alerts.
EVENT_SHARE = 0.7
# Plain names of the sensors for text (no sensor codes in a request); those vocabulary.yaml
# lists under `sensor_names` are spelt the same (a test checks it).
SENSOR_WORDS: dict[str, str] = {
    "supply_temperature": "chilled-water supply temperature",
    "return_temperature": "chilled-water return temperature",
    "setpoint_temperature": "chilled-water setpoint",
    "condenser_water_supply_temperature": "entering condenser-water temperature",
    "condenser_water_return_temperature": "leaving condenser-water temperature",
    "chilled_water_flow": "chilled-water flow",
    "condenser_water_flow": "condenser-water flow",
    "tonnage": "cooling load in tons",
    "percent_loaded": "percent load",
    "power_input": "compressor power",
    "kw_per_ton": "efficiency in kW per ton",
    "run_status": "run status",
    "evaporator_refrigerant_temperature": "evaporator refrigerant temperature",
    "condenser_refrigerant_temperature": "condenser refrigerant temperature",
    "condenser_liquid_temperature": "condenser liquid temperature",
    "discharge_temperature": "compressor discharge temperature",
}
UNIT_WORDS = {"degC": "°C", "ton": "tons"}


def pick(rng: np.random.Generator, items: Sequence[T]) -> T:
    """One item, uniformly."""
    if not items:
        raise ValueError("pick from an empty sequence")
    return items[int(rng.integers(len(items)))]


def day(ts: str) -> date:
    """The date of an ISO timestamp."""
    return datetime.fromisoformat(str(ts)[:19]).date()


def hour_after(ts: str) -> str:
    """The timestamp one hour after ``ts`` (``YYYY-MM-DDTHH:MM:SS``)."""
    return (datetime.fromisoformat(str(ts)[:19]) + timedelta(hours=1)).isoformat()


def num(value: float, digits: int = 2) -> str:
    """A number for text: rounded, without trailing zeros."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def and_join(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'; 'none' when empty."""
    items = list(items)
    if not items:
        return "none"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def words(sensor: str) -> str:
    """The plain spoken name of a sensor."""
    return SENSOR_WORDS.get(sensor, sensor.replace("_", " "))


def unit_of(ctx: FamilyContext, sensor: str) -> str:
    """The engineering unit of a sensor, as written in text."""
    u = ctx.tools.asset.sensor(sensor).unit
    return UNIT_WORDS.get(u, u)


def coverage(a: GroundedAsset) -> tuple[str, str] | None:
    """First and last telemetry timestamp of a unit, or None without telemetry."""
    rng = a.telemetry
    if not rng.start or not rng.end:
        return None
    return str(rng.start), str(rng.end)


def full_days(a: GroundedAsset) -> tuple[date, date] | None:
    """First whole day and last day of a unit's telemetry (None without telemetry)."""
    cov = coverage(a)
    if cov is None:
        return None
    start, end = cov
    first = day(start) if start[11:13] in ("", "00") else day(start) + timedelta(days=1)
    return first, day(end)


def units_with_telemetry(ctx: FamilyContext) -> list[GroundedAsset]:
    """The units that have telemetry, by id."""
    return [a for a in ctx.assets if coverage(a) is not None and a.sensors]


def draw_window(
    a: GroundedAsset,
    rng: np.random.Generator,
    min_days: int = 1,
    max_days: int = 14,
    around: date | None = None,
) -> tuple[str, str] | None:
    """A window [start, end) of whole days inside the unit's telemetry, as YYYY-MM-DD.

    Args:
        a: The unit.
        rng: The draw's generator.
        min_days: Shortest window.
        max_days: Longest window.
        around: A day the window must hold (None = anywhere).
    """
    span_days = full_days(a)
    if span_days is None:
        return None
    first, last = span_days
    span = (last - first).days  # days with a following midnight inside the data
    if span < min_days:
        return None
    length = int(rng.integers(min_days, min(max_days, span) + 1))
    lo, hi = 0, span - length
    if around is not None:
        k = (around - first).days
        lo, hi = max(lo, k - length + 1), min(hi, k)
        if lo > hi:
            return None
    start = first + timedelta(days=int(rng.integers(lo, hi + 1)))
    return start.isoformat(), (start + timedelta(days=length)).isoformat()


def history_call(
    a: GroundedAsset, start: str, end: str | None, sensors: list[str] | None
) -> ToolCall:
    """A telemetry read of some sensors of a unit over [start, end)."""
    args: dict[str, Any] = {"site_name": a.site_name, "asset_id": a.asset_id, "start": start}
    if sensors is not None:
        args["sensors"] = sensors
    if end is not None:
        args["final"] = end
    return ToolCall(name="history", args=args)


def values_of(records: list[dict[str, Any]], sensor: str) -> list[tuple[str, float]]:
    """(timestamp, value) of the records that carry the sensor (not null)."""
    return [
        (str(r["timestamp"]), float(r[sensor])) for r in records if r.get(sensor) is not None
    ]


def unique_argmax(pairs: list[tuple[str, float]], sign: float = 1.0) -> tuple[str, float]:
    """The (timestamp, value) of the extreme; :class:`Ambiguous` on a tie or no data."""
    if not pairs:
        raise Ambiguous("no readings")
    best = max(sign * v for _, v in pairs)
    hits = [(t, v) for t, v in pairs if sign * v == best]
    if len(hits) > 1:
        raise Ambiguous(f"{len(hits)} readings share the extreme")
    return hits[0]


def near(value: float | None, threshold: float, margin: float) -> bool:
    """True when ``value`` lies within ``margin`` of ``threshold`` (a flip-prone reading)."""
    return value is not None and abs(float(value) - threshold) < margin


def _shift(value: str, days: int = 0, hours: int = 0) -> str:
    d = date.fromisoformat(value[:10]) + timedelta(days=days)
    return d.isoformat() if not hours else f"{d.isoformat()}T{hours:02d}:00:00"


def _with_end(calls: list[ToolCall], key: str, end: str, new_end: str) -> list[ToolCall]:
    out = []
    for call in calls:
        args: dict[str, Any] = dict(call.args)
        if args.get(key) == end:
            args[key] = new_end
        out.append(ToolCall(name=call.name, args=args))
    return out


def window_end_readings(calls: list[ToolCall], key: str, end: str) -> list[Reading]:
    """The two inclusive readings of a window whose text says it ends at day ``end``.

    Args:
        calls: The task's calls; those whose ``key`` argument equals ``end`` change.
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


async def alert_times(ctx: FamilyContext, a: GroundedAsset) -> list[tuple[str, str]]:
    """(event time, rule) of a unit's alerts, from its event log."""
    out = await ctx.run1("get_events", equipment_id=a.asset_id)
    return [
        (str(e["event_time"])[:19], str(e["event_type"]))
        for e in out["events"] if e["event_group"] == "ALERT"
    ]


def plain(text: str) -> str:
    """A description without parentheticals, first letter lower-cased (for text)."""
    text = re.sub(r"\s*\([^)]*\)", "", text).strip()
    return text if len(text) > 1 and text[1].isupper() else text[:1].lower() + text[1:]
