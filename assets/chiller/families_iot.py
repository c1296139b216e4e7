"""IoT task families of the chiller class: reading the hourly plant telemetry.

Every answer is computed by a ``derive`` function from the outputs of the telemetry read
and the site's unit listing; the draws pick units, sensors and windows from the grounded
inventory with the draw's local generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assets.chiller.families_common import (
    WINDOW_STATED,
    draw_window,
    sensor_fault_free,
    unit_of,
    units_with_telemetry,
    words,
)
from generator.api import (
    Ambiguous,
    FamilyContext,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    family,
    history_call,
    num,
    pick,
    unique_argmax,
    values_of,
    window_end_readings,
)

# (sensor, statistic) pairs worth asking about over a window.
STAT_CHOICES: tuple[tuple[str, str], ...] = (
    ("tonnage", "max"),
    ("tonnage", "mean"),
    ("power_input", "max"),
    ("kw_per_ton", "mean"),
    ("kw_per_ton", "min"),
    ("supply_temperature", "max"),
    ("condenser_water_supply_temperature", "max"),
    ("condenser_water_supply_temperature", "min"),
    ("discharge_temperature", "max"),
    ("condenser_refrigerant_temperature", "max"),
)
STAT_WORDS = {"max": "highest", "min": "lowest", "mean": "average"}
# Stored values are rounded (tonnage 0.1, kW/ton 1e-4): a copied value must pass.
VALUE_REL_TOL = 0.001
# The average kW/ton of a window read as the ratio of sums (Σ kW / Σ tons, the
# energy-weighted figure an energy report gives) instead of the mean of hourly values.
RATIO_OF_SUMS = "kw_per_ton_ratio_of_sums"
KWT_NOTE = (
    "Average the hourly kW-per-ton values of the running hours (not total kW over total tons)."
)
# A mean of a sensor that is zero while the machine is off: the text says whether the off
# hours count.
RUNNING_ONLY = "running_hours_only"
TONNAGE_NOTE = "Average over every hour of the window, including the hours the chiller was off."


def _stat_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    sensor, stat = params["sensor"], params["stat"]
    reading = params.get("reading")
    if reading == RUNNING_ONLY:
        records = [r for r in records if r.get("run_status") == 1]
    pairs = values_of(records, sensor)
    if not pairs:
        raise Ambiguous("no readings in the window")
    if stat == "mean":
        if reading == RATIO_OF_SUMS:
            power = sum(float(r["power_input"]) for r in records if r.get(sensor) is not None)
            tons = sum(float(r["tonnage"]) for r in records if r.get(sensor) is not None)
            return {"value": power / tons, "hours": len(pairs)}
        return {"value": float(np.mean([v for _, v in pairs])), "hours": len(pairs)}
    ts, value = unique_argmax(pairs, 1.0 if stat == "max" else -1.0)
    return {"value": value, "timestamp": ts}


def _stat_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{STAT_WORDS[params['stat']]} {params['sensor']} of {params['asset_id']} in "
        f"[{params['start']}, {params['end']}): {num(answer['value'], 4)} {params['unit']}"
    )
    if "timestamp" in answer:
        text += f" at {answer['timestamp']}"
    else:
        text += f" over {answer['hours']} hourly readings"
    return text


@family(
    "chiller_iot_window_stat",
    domain="iot",
    category="Inference Query",
    derive=_stat_derive,
    summarise=_stat_summary,
    outcome=lambda answer: "mean" if "hours" in answer else "extreme",
)
async def window_stat(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Peak tonnage, average kW/ton and similar statistics of one chiller over a window.

    The average kW/ton is the mean of the hourly values over the running hours (the stored
    kW/ton is empty while the machine is off), stated in the text; the average tonnage
    counts every hour, off hours as zero, also stated. An extreme is gated against the
    reading that looks at the running hours only (the idle loop still logs temperatures).
    """
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    sensor, stat = pick(rng, [c for c in STAT_CHOICES if c[0] in a.sensors])
    window = draw_window(a, rng, 1, 14)
    if window is None:
        return None
    start, end = window
    extra = ["power_input", "tonnage", "run_status"] if sensor == "kw_per_ton" else ["run_status"]
    sensors = [sensor, *[s for s in extra if s != sensor]]
    if not await sensor_fault_free(ctx, a, end, sensors):
        return None  # a faulty sensor's readings are never the answer
    calls = [history_call(a, start, end, sensors)]
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": words(sensor), "unit": unit_of(ctx, sensor), "stat": stat,
        "stat_word": STAT_WORDS[stat], "start": start, "end": end,
    }
    readings = window_end_readings(calls, "final", end)
    stated = list(WINDOW_STATED)
    if sensor == "kw_per_ton" and stat == "mean":
        params["note"] = KWT_NOTE
        readings.append(Reading(RATIO_OF_SUMS, "divides total kW by total tons of the window",
                                params={"reading": RATIO_OF_SUMS}))
        stated.append(RATIO_OF_SUMS)
    if stat != "mean":
        # Off hours still log water and refrigerant temperatures (the idle loop): a reader
        # may look at the running hours only. Not stated, so a draw where it matters is
        # dropped by the gate.
        readings.append(Reading(RUNNING_ONLY, "takes the extreme over the running hours only",
                                params={"reading": RUNNING_ONLY}))
    if sensor == "tonnage" and stat == "mean":
        params["note"] = TONNAGE_NOTE
        readings.append(Reading(RUNNING_ONLY, "averages over the running hours only",
                                params={"reading": RUNNING_ONLY}))
        stated.append(RUNNING_ONLY)
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, start, end],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
                   "start": start, "end": end},
        # an extreme is asked with its hour: two outputs
        difficulty="medium" if stat == "mean" else "hard",
        hard_features=[] if stat == "mean" else ["multi_output"],
        tolerance={"value": 0.0001},
        rel_tolerance={"value": VALUE_REL_TOL},
        readings=readings,
        stated=stated,
    )


# -- which unit of a site delivered the most cooling -----------------------------------------


def _site_cooling_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    listing, *histories = outputs
    units = sorted(str(x["asset_id"]) for x in listing["assets"])
    ton_hours: dict[str, float] = {}
    for out in histories:
        aid = str(out["asset_id"])
        if aid in units:
            # hourly records: Σ tons × 1 h = ton-hours
            ton_hours[aid] = float(sum(float(r.get("tonnage") or 0.0) for r in out["records"]))
    if sorted(ton_hours) != units:
        raise Ambiguous("not every unit of the site was read")
    ranked = sorted(ton_hours.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] <= 0.01 * ranked[0][1]:
        raise Ambiguous("two units delivered about the same cooling")
    return {"unit": ranked[0][0], "ton_hours": dict(sorted(ton_hours.items()))}


def _site_cooling_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    per = ", ".join(f"{k} {num(v, 1)}" for k, v in answer["ton_hours"].items())
    return (
        f"unit of {params['site']} that delivered the most cooling in [{params['start']}, "
        f"{params['end']}): {answer['unit']} (ton-hours: {per})"
    )


@family(
    "chiller_iot_site_cooling",
    domain="iot",
    category="Data Query",
    derive=_site_cooling_derive,
    summarise=_site_cooling_summary,
)
async def site_cooling(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which chiller of a site delivered the most cooling (ton-hours) in a window, with every
    unit's ton-hours."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    site = pick(rng, sorted({a.site_name for a in units}))
    at_site = [a for a in units if a.site_name == site]
    if len(at_site) < 2:
        return None
    window = draw_window(at_site[0], rng, 1, 10)
    if window is None:
        return None
    start, end = window
    for a in at_site:  # ton-hours from a drifting supply sensor are not cooling delivered
        if not await sensor_fault_free(ctx, a, end, ["tonnage"]):
            return None
    calls = [ToolCall(name="assets", args={"site_name": site})]
    calls += [history_call(a, start, end, ["tonnage"]) for a in at_site]
    params = {"site": site, "start": start, "end": end, "n_units": len(at_site)}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[site, start, end],
        grounding={"site": site, "start": start, "end": end, "sensor": "tonnage"},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"ton_hours": 0.5},
        rel_tolerance={"ton_hours": VALUE_REL_TOL},
        readings=window_end_readings(calls, "final", end),
        stated=WINDOW_STATED,
    )
