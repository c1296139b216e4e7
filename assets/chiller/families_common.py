"""Helpers shared by the chiller task families: entities, windows and wording (the generic
ones, readings of records and window-end readings, come from :mod:`generator.api`).

Telemetry coverage of a unit is read through :func:`coverage` only, so a change of the
profile's field layout touches one function.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import numpy as np

from generator.api import (
    END_DAY_INCLUDED,
    END_MIDNIGHT_INCLUDED,
    FamilyContext,
    GroundedAsset,
    day,
)

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


def hour_after(ts: str) -> str:
    """The timestamp one hour after ``ts`` (``YYYY-MM-DDTHH:MM:SS``)."""
    return (datetime.fromisoformat(str(ts)[:19]) + timedelta(hours=1)).isoformat()


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


def near(value: float | None, threshold: float, margin: float) -> bool:
    """True when ``value`` lies within ``margin`` of ``threshold`` (a flip-prone reading)."""
    return value is not None and abs(float(value) - threshold) < margin


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


# -- windows where a declared sensor fault is active ---------------------------------------------

# The failure mode of asset.yaml that is a fault of the measurement, not of the machine, and
# the BMS rule that declares it on a unit (the rule of diagnose_chiller_fault's drift finding).
SENSOR_FAULT_MODE = "sensor_drift"
SENSOR_FAULT_RULE = "CHWS_OFFSET"
# The rule fires once the drift reaches 1 K; it began earlier, so a unit's readings are
# treated as faulty from this many days before its first drift alert (more than the slowest
# drift the class simulates takes to reach 1 K: 1 K / (0.1 K/day × 0.7) ≈ 14 days).
SENSOR_FAULT_LOOKBACK_DAYS = 21


def sensor_fault_sensors(ctx: FamilyContext) -> frozenset[str]:
    """The readings a declared sensor fault corrupts (its failure mode's sensors in
    asset.yaml: the supply reading and the tonnage and kW/ton computed from it)."""
    return frozenset(
        s for fm in ctx.tools.asset.failure_modes if fm.id == SENSOR_FAULT_MODE
        for s in fm.sensors
    )


async def sensor_fault_from(ctx: FamilyContext, a: GroundedAsset) -> str | None:
    """The instant from which ``a``'s corrupted readings are left out of draws: its first
    drift alert less :data:`SENSOR_FAULT_LOOKBACK_DAYS` (None: no sensor fault declared)."""
    times = sorted(t for t, rule in await alert_times(ctx, a) if rule == SENSOR_FAULT_RULE)
    if not times:
        return None
    since = datetime.fromisoformat(times[0]) - timedelta(days=SENSOR_FAULT_LOOKBACK_DAYS)
    return since.isoformat()


async def sensor_fault_free(
    ctx: FamilyContext, a: GroundedAsset, end: str, sensors: list[str] | None = None
) -> bool:
    """Whether a window or hour of ``a`` ending at ``end`` (a day ``YYYY-MM-DD``, read with
    its whole end day, or an instant) stays clear of a declared sensor fault.

    Only readings the fault corrupts matter: with ``sensors`` given and none of them among
    the fault's sensors, any window is clear. A family that reports a figure from those
    readings keeps such windows out of its draws, so no faulty reading becomes its answer.
    """
    if sensors is not None and not sensor_fault_sensors(ctx) & set(sensors):
        return True
    since = await sensor_fault_from(ctx, a)
    if since is None:
        return True
    last = str(end)
    if len(last) == 10:  # a day: the reading that includes the whole end day
        last = (date.fromisoformat(last) + timedelta(days=1)).isoformat() + "T00:00:00"
    return last <= since
