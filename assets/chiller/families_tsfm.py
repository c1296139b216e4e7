"""TSFM task families of the chiller class: anomalies in a window and short-term forecasts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from assets.chiller.families_common import (
    EVENT_SHARE,
    WINDOW_STATED,
    alert_times,
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
    TaskSeed,
    ToolCall,
    day,
    family,
    history_call,
    num,
    pick,
    window_end_readings,
)

ANOMALY_SENSORS: tuple[str, ...] = (
    "kw_per_ton", "power_input", "condenser_refrigerant_temperature", "discharge_temperature",
    "evaporator_refrigerant_temperature", "condenser_water_return_temperature",
)
# Cut-offs a request states: round numbers of robust standard deviations.
THRESHOLDS: tuple[float, ...] = (3.0, 3.5, 4.0, 5.0)
# No reading may score within this distance of the cut-off: it could flip on any detail.
SCORE_MARGIN = 0.1
# The detector's baseline, spread, first scored hour and counting unit, stated in every
# anomaly text (run_tsad: the MAD of the residuals over the whole reference, window plus the
# 4 weeks before; hours of the window before its first reading belong to the reference).
ANOMALY_NOTE = (
    "Usual level: same weekday and hour over the window and the 4 weeks before (off hours "
    "filled in linearly), with the spread (MAD) taken over that whole reference; score the "
    "window from its first reading and count anomalous hours singly."
)
# Sensors that log a value while the unit is staged off (zero power, the idle loop's
# temperatures): their off hours are readings, not gaps, and the note says so.
ANOMALY_NOTE_LOGGED = (
    "Usual level: same weekday and hour over the window and the 4 weeks before (hours the "
    "chiller was off count at their logged value), with the spread (MAD) taken over that "
    "whole reference; score the window from its first reading and count anomalous hours "
    "singly."
)
EMPTY_WHEN_OFF = frozenset({"kw_per_ton"})
# A forecast is asked only of a series the unit logged while running throughout: a series
# of a sensor that reads zero while off steps between 0 and its running level as the unit
# stages, which a smoothing forecast extrapolates into negative tons or kW.
ZERO_WHEN_OFF = frozenset({"tonnage", "power_input"})
FORECAST_SENSORS: tuple[str, ...] = (
    "tonnage", "power_input", "condenser_water_supply_temperature", "return_temperature",
)
# How run_tsfm_forecasting starts Holt-Winters (timeseries.holt_winters): "additive
# Holt-Winters" alone leaves the start open (a flat first-day level, no trend, ...).
HW_START_NOTE = (
    "Start Holt-Winters from a straight line through the means of the first two days: level "
    "and trend from that line, the first day's seasonal terms as deviations from it."
)
FORECAST_REL_TOL = 0.05
FORECAST_ABS_TOL = {"°C": 0.5, "tons": 5.0, "kW": 5.0}
METHOD_TEXT = {
    "holt_winters": "additive Holt-Winters smoothing with a daily season",
    "seasonal_naive": "the seasonal naive method (the same hour of the last day)",
}


def _series_args(a: Any, sensor: str, start: str, end: str) -> dict[str, Any]:
    return {
        "site_name": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
        "start": start, "final": end,
    }


# -- anomalies -----------------------------------------------------------------------------


def _anomaly_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    found = outputs[0]["anomalies"]
    stamps = [str(x["timestamp"]) for x in found]
    answer: dict[str, Any] = {"count": len(found), "timestamps": stamps}
    if found:
        scores = [abs(float(x["score"])) for x in found]
        best = max(scores)
        if scores.count(best) > 1:
            raise Ambiguous("two anomalies share the largest score")
        answer["worst"] = stamps[scores.index(best)]
    else:
        answer["worst"] = None
    return answer


def _anomaly_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{answer['count']} anomalous hourly {params['sensor']} readings on {params['asset_id']} "
        f"in [{params['start']}, {params['end']}) (|robust z| > {params['threshold_text']})"
    )
    if answer["timestamps"]:
        text += ": " + ", ".join(answer["timestamps"])  # every hour: the form states it all
        text += f"; most severe {answer['worst']}"
    return text


@family(
    "chiller_tsfm_anomalies",
    domain="tsfm",
    category="Anomaly Detection Query",
    derive=_anomaly_derive,
    summarise=_anomaly_summary,
    outcome=lambda answer: "anomalies" if answer["count"] else "none",
    trivial=("none",),
)
async def anomalies(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Anomalous hourly readings (kW/ton, power, refrigerant temperatures) of a chiller in a
    window, against its weekly profile, at a stated cut-off.

    Mostly a window holding one of the unit's alerts. No reading may score within
    ``SCORE_MARGIN`` of the cut-off (checked with a lower cut-off in the draw).
    """
    units = units_with_telemetry(ctx)
    if not units:
        return None
    window = None
    a = pick(rng, units)
    if rng.random() < EVENT_SHARE:
        alerting = [(x, al) for x in units if (al := await alert_times(ctx, x))]
        if alerting:
            a, alerts = pick(rng, alerting)
            window = draw_window(a, rng, 3, 14, around=day(pick(rng, alerts)[0]))
    if window is None:
        window = draw_window(a, rng, 3, 14)
    if window is None:
        return None
    start, end = window
    sensor = pick(rng, [s for s in ANOMALY_SENSORS if s in a.sensors])
    if not await sensor_fault_free(ctx, a, end, [sensor]):
        return None
    threshold = float(pick(rng, THRESHOLDS))
    args = _series_args(a, sensor, start, end)
    low = (await ctx.run([ToolCall(name="run_tsad",
                                   args={**args, "threshold": threshold - SCORE_MARGIN})]))[0]
    if any(abs(abs(float(x["score"])) - threshold) <= SCORE_MARGIN for x in low["anomalies"]):
        return None
    calls = [ToolCall(name="run_tsad", args={**args, "threshold": threshold})]
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": words(sensor), "start": start, "end": end, "threshold": threshold,
        "threshold_text": num(threshold, 1),
        "note": ANOMALY_NOTE if sensor in EMPTY_WHEN_OFF else ANOMALY_NOTE_LOGGED,
    }
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, start, end],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
                   "start": start, "end": end},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=window_end_readings(calls, "final", end),
        stated=WINDOW_STATED,
    )


# -- forecast ------------------------------------------------------------------------------


def _forecast_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    values = [float(v) for v in out["values"]]
    if len(values) != params["horizon"]:
        raise Ambiguous("the forecast does not cover the horizon")
    return {
        "timestamp": str(out["timestamps"][-1]),
        "value": values[-1],
        "peak": max(values),
    }


def _forecast_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['method']} forecast of {params['sensor']} on {params['asset_id']} from "
        f"[{params['start']}, {params['end']}): {num(answer['value'], 2)} {params['unit']} at "
        f"{answer['timestamp']} ({params['horizon']} h ahead), peak over the horizon "
        f"{num(answer['peak'], 2)} {params['unit']}"
    )


async def _ran_throughout(ctx: FamilyContext, a: Any, start: str, end: str) -> bool:
    """Whether the unit ran every hour of [start, end] (the whole end day too, which a reader
    may take into the window)."""
    last = (day(end) + timedelta(days=1)).isoformat()
    out = (await ctx.run([history_call(a, start, last, ["run_status"])]))[0]
    return bool(out["records"]) and all(r.get("run_status") == 1 for r in out["records"])


@family(
    "chiller_tsfm_forecast",
    domain="tsfm",
    category="Inference Query",
    derive=_forecast_derive,
    summarise=_forecast_summary,
)
async def forecast(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Forecast of a chiller's tonnage, power or water temperature some hours after a window,
    fitted on the window by a named classical method."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    window = draw_window(a, rng, 3, 21)
    if window is None:
        return None
    start, end = window
    sensor = pick(rng, [s for s in FORECAST_SENSORS if s in a.sensors])
    if not await sensor_fault_free(ctx, a, end, [sensor]):
        return None
    if sensor in ZERO_WHEN_OFF and not await _ran_throughout(ctx, a, start, end):
        return None
    horizon = int(pick(rng, (6, 12, 24, 48)))
    method = pick(rng, ("holt_winters", "seasonal_naive"))
    args = {**_series_args(a, sensor, start, end), "horizon_hours": horizon, "method": method}
    calls = [ToolCall(name="run_tsfm_forecasting", args=args)]
    unit = unit_of(ctx, sensor)
    tol = FORECAST_ABS_TOL.get(unit, 0.5)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": words(sensor), "unit": unit, "start": start, "end": end,
        "horizon": horizon, "method": method, "method_text": METHOD_TEXT[method],
    }
    if method == "holt_winters":
        params["note"] = HW_START_NOTE
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, start, end],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
                   "start": start, "end": end},
        difficulty="medium" if method == "seasonal_naive" else "hard",
        tolerance={"value": tol, "peak": tol},
        rel_tolerance={"value": FORECAST_REL_TOL, "peak": FORECAST_REL_TOL},
        readings=window_end_readings(calls, "final", end),
        stated=WINDOW_STATED,
    )
