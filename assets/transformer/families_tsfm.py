"""TSFM task families of the transformer class: anomalies, forecasts and the methods on offer."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    SERIES_SENSORS,
    draw_window,
    full_days,
    iso_day,
    label,
    unit,
)
from assets.transformer.family_readings import (
    HW_NO_TREND_INIT,
    HW_SIMPLE_INIT,
    holt_winters_simple_init,
)
from assets.transformer.family_sensor_faults import sensor_fault_free
from generator.api import (
    END_DAY_INCLUDED,
    END_MIDNIGHT_INCLUDED,
    Ambiguous,
    FamilyContext,
    GroundedAsset,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    and_join,
    day,
    family,
    history_call,
    num,
    pick,
    window_end_readings,
)

# Cut-offs a request may state, round numbers a person would pick; the default is the tool's.
THRESHOLDS: tuple[float, ...] = (3.0, 4.0, 4.5, 5.0, 6.0)
DEFAULT_THRESHOLD = 3.5
# A request that states no cut-off may be read with any usual one: the modified z-score's
# 3.5 (Iglewicz & Hoaglin), the "three sigma" 3.0 or a stricter 4.0. Such a task is kept only
# when all three flag the same readings.
UNSTATED_CUTOFFS: tuple[float, ...] = (3.0, 4.0)
# The detector's baseline and counting unit, stated in every anomaly text: "the usual level"
# alone lets a reader take an hour-of-day profile (weekend hours then score as anomalies)
# or count a run of anomalous hours as one anomaly; and where the robust spread is taken
# (run_tsad: the MAD of the residuals over the whole reference, not the window alone).
ANOMALY_NOTE = (
    "Usual level: the same weekday and hour over this window and the 4 weeks before, with "
    "the spread (MAD) taken over that whole reference; count anomalous hours singly."
)
LOW_THRESHOLD = 2.5
# No reading may score within this distance of the cut-off: it could flip on any detail.
SCORE_MARGIN = 0.1
WINDOW_STATED = [END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED]
# The text asks for anomalous hourly readings, so counting a run of them as one is stated.
EPISODES = "count_episodes"
# Share of anomaly draws that look for a window holding one of the unit's alerts.
EVENT_SHARE = 0.7
# Forecast tolerance: relative (currents, MVA and temperatures differ by orders of magnitude)
# with an absolute floor per unit for values near zero (ambient temperature in winter).
FORECAST_REL_TOL = 0.05
FORECAST_ABS_TOL = {"°C": 1.0, "A": 5.0, "MVA": 0.05, "V": 5.0, "kV": 0.05}


def _series_asset(ctx: FamilyContext, rng: np.random.Generator) -> GroundedAsset | None:
    """An asset whose telemetry the profile found long enough for time-series methods."""
    usable = [a for a in ctx.assets if a.enough_history and a.telemetry.start and a.sensors]
    return pick(rng, usable) if usable else None


def _series_args(a: Any, sensor: str, start: str, end: str) -> dict[str, Any]:
    return {
        "site_name": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
        "start": start, "final": end,
    }


# -- anomalies ---------------------------------------------------------------------------


def _episodes(stamps: list[str]) -> int:
    """Runs of consecutive hourly timestamps (a multi-hour event is one episode)."""
    hours = [datetime.fromisoformat(t) for t in stamps]
    return sum(
        1 for i, t in enumerate(hours) if i == 0 or t - hours[i - 1] != timedelta(hours=1)
    )


def _anomaly_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    found = outputs[0]["anomalies"]
    stamps = [x["timestamp"] for x in found]
    answer: dict[str, Any] = {
        "count": _episodes(stamps) if params.get("reading") == EPISODES else len(found),
        "timestamps": stamps,
    }
    if params["with_worst"]:
        if not found:
            answer["worst"] = None
        else:
            scores = [abs(float(x["score"])) for x in found]
            best = max(scores)
            if scores.count(best) > 1:
                raise Ambiguous("two anomalies share the largest score")
            answer["worst"] = found[scores.index(best)]["timestamp"]
    return answer


def _anomaly_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    cutoff = (
        f"more than {params['threshold_text']} robust standard deviations from the usual level"
        if params["custom"] else "the detector's default cut-off"
    )
    text = (
        f"{answer['count']} anomalous hourly {params['sensor']} readings on {params['asset_id']} "
        f"in [{params['start']}, {params['end']}) ({cutoff})"
    )
    if answer["timestamps"]:
        text += ": " + ", ".join(answer["timestamps"])  # every hour: the form states it all
    if params["with_worst"]:
        text += f"; most severe: {answer['worst'] or 'none'}"
    return text


def anomaly_outcome(answer: dict[str, Any]) -> str:
    """"none" when no reading is flagged, else "anomalies"."""
    return "anomalies" if answer["count"] else "none"


def _window_around(
    a: GroundedAsset, rng: np.random.Generator, around: date, min_days: int, max_days: int
) -> tuple[str, str] | None:
    """A window [start, end) of whole days inside the telemetry that holds day ``around``."""
    first, last = full_days(a)
    span = (last - first).days
    if span < min_days or not first <= around < last:
        return None
    length = int(rng.integers(min_days, min(max_days, span) + 1))
    k = (around - first).days
    lo, hi = max(0, k - length + 1), min(span - length, k)
    if lo > hi:
        return None
    start = first + timedelta(days=int(rng.integers(lo, hi + 1)))
    return iso_day(start), iso_day(start + timedelta(days=length))


async def _alerts(ctx: FamilyContext, a: GroundedAsset) -> list[tuple[date, str]]:
    """(day, sensor) of the unit's temperature alerts (alarms and trips)."""
    out = await ctx.run1("get_events", equipment_id=a.asset_id)
    return [
        (day(e["event_time"]), str(e["event_type"]).split("_")[0].lower())
        for e in out["events"] if e["event_group"] == "ALERT"
    ]


@family(
    "tsfm_anomalies",
    domain="tsfm",
    category="Anomaly Detection Query",
    derive=_anomaly_derive,
    summarise=_anomaly_summary,
    outcome=anomaly_outcome,
    trivial=("none",),
)
async def anomalies(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Anomalous hourly readings of one sensor of an asset in a window.

    Mostly a window holding one of the fleet's temperature alerts, on the alerting sensor or
    the load. A stated cut-off is a round number of robust standard deviations with no score
    within ``SCORE_MARGIN`` of it; without one, the usual cut-offs 3.0, 3.5 and 4.0 must flag
    the same readings (gated readings).
    """
    window = None
    alerting = [(x, al) for x in ctx.assets if x.enough_history and (al := await _alerts(ctx, x))]
    if alerting and rng.random() < EVENT_SHARE:
        a, alerts = pick(rng, alerting)
        when, alert_sensor = pick(rng, alerts)
        options = [s for s in (alert_sensor, "load_mva") if s in a.sensors]
        if not options:
            return None
        sensor = pick(rng, options)
        window = _window_around(a, rng, when, 3, 21)
    else:
        picked = _series_asset(ctx, rng)
        if picked is None:
            return None
        a = picked
        sensor = pick(rng, [s for s in SERIES_SENSORS if s in a.sensors])
        window = draw_window(a, rng, 3, 21)
    if window is None:
        return None
    start, end = window
    if not await sensor_fault_free(ctx, a, start, end, [sensor]):
        return None
    args = _series_args(a, sensor, start, end)
    low = await ctx.run1("run_tsad", **(args | {"threshold": LOW_THRESHOLD}))
    scores = [abs(float(x["score"])) for x in low["anomalies"]]

    def clear(t: float) -> bool:
        return all(abs(sc - t) > SCORE_MARGIN for sc in scores)

    # Unstated, the cut-off may be read as anything from 3.0 to 4.0: only a window with no
    # score in that band (and its margin) can leave it unstated.
    lo, hi = min(UNSTATED_CUTOFFS), max(UNSTATED_CUTOFFS)
    unstated_ok = all(not lo - SCORE_MARGIN <= sc <= hi + SCORE_MARGIN for sc in scores)
    if unstated_ok and rng.random() < 0.6:
        threshold = DEFAULT_THRESHOLD
    else:
        options_t = [t for t in THRESHOLDS if clear(t)]
        if not options_t:
            return None
        threshold = pick(rng, options_t)
    args["threshold"] = threshold
    with_worst = bool(rng.random() < 0.35)
    custom = threshold != DEFAULT_THRESHOLD
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": label(ctx, sensor), "start": start, "end": end,
        "threshold": threshold, "threshold_text": num(threshold), "with_worst": with_worst,
        "custom": custom, "note": ANOMALY_NOTE,
    }
    features: list[Any] = (["constraint"] if custom else []) + (
        ["multi_output"] if with_worst else []
    )
    calls = [ToolCall(name="run_tsad", args=args)]
    readings = [
        *window_end_readings(calls, "final", end),
        Reading(
            name=EPISODES,
            description="counts a run of consecutive anomalous hours as one anomaly",
            params={"reading": EPISODES},
        ),
    ]
    if not custom:
        readings += [
            Reading(
                name=f"cutoff_{num(t)}",
                description=f"flags readings at the cut-off {num(t)} instead of "
                f"{num(DEFAULT_THRESHOLD)} (the text names none)",
                tool_sequence=[ToolCall(name="run_tsad", args=args | {"threshold": t})],
            )
            for t in UNSTATED_CUTOFFS
        ]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, sensor, start, end]
        + ([num(threshold)] if custom else [])
        + [ANOMALY_NOTE],
        grounding={
            "site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
            "start": start, "end": end,
        },
        difficulty="hard" if features else "medium",
        hard_features=features,
        constraint=f"count a reading as anomalous only when it lies more than {num(threshold)} "
        "robust standard deviations from that usual level"
        if custom else None,
        readings=readings,
        stated=[*WINDOW_STATED, EPISODES],
    )


# -- forecast ------------------------------------------------------------------------------


def _hw_alternative(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer under the other Holt-Winters start (the last output is the training data)."""
    records = outputs[-1]["records"]
    values = [float(r[params["sensor"]]) for r in records if r.get(params["sensor"]) is not None]
    no_trend = params.get("reading") == HW_NO_TREND_INIT
    forecast, mae = holt_winters_simple_init(values, params["horizon"], no_trend=no_trend)
    first = outputs[0]
    method = "holt_winters"
    value = forecast[-1]
    if params["fallback"]:
        naive_mae = first["seasonal_naive_mae"]
        if abs(mae - naive_mae) <= 0.02 * max(naive_mae, 1e-9):
            raise Ambiguous("the two methods fit equally well")
        if mae > naive_mae:
            method, value = "seasonal_naive", outputs[1]["values"][-1]
    return {"method": method, "timestamp": first["timestamps"][-1], "value": value}


def _forecast_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    if params.get("reading") in (HW_SIMPLE_INIT, HW_NO_TREND_INIT):
        return _hw_alternative(params, outputs)
    first = outputs[0]
    if params["fallback"]:
        hw_mae, naive_mae = first["in_sample_mae"], first["seasonal_naive_mae"]
        if abs(hw_mae - naive_mae) <= 0.02 * max(naive_mae, 1e-9):
            raise Ambiguous("the two methods fit equally well")
        use_naive = hw_mae > naive_mae
        chosen = outputs[1] if use_naive else first
        method = "seasonal_naive" if use_naive else "holt_winters"
    else:
        chosen, method = first, params["method"]
    return {
        "method": method,
        "timestamp": chosen["timestamps"][-1],
        "value": chosen["values"][-1],
    }


def _forecast_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{answer['method']} forecast of {params['sensor']} on {params['asset_id']} "
        f"{params['horizon']} h after {params['end']}: {num(answer['value'], 2)} {params['unit']} "
        f"at {answer['timestamp']}"
    )


def forecast_outcome(answer: dict[str, Any]) -> str:
    """The method the answer rests on ("holt_winters" or "seasonal_naive")."""
    return str(answer["method"])


@family(
    "tsfm_forecast",
    domain="tsfm",
    category="Inference Query",
    derive=_forecast_derive,
    summarise=_forecast_summary,
    outcome=forecast_outcome,
)
async def forecast(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A short-horizon forecast of one sensor from a training window (with a fallback rule).

    The text names the method and its daily season. Holt-Winters leaves its start open, so
    the other textbook starts (two-day slope from a flat level; no trend) are gated
    readings; the tolerance is relative (``FORECAST_REL_TOL``) with a floor per unit.
    """
    a = _series_asset(ctx, rng)
    if a is None:
        return None
    sensor = pick(rng, [s for s in SERIES_SENSORS if s in a.sensors])
    window = draw_window(a, rng, 3, 14)
    if window is None:
        return None
    start, end = window
    if not await sensor_fault_free(ctx, a, start, end, [sensor]):
        return None
    horizon = int(pick(rng, [6, 12, 24, 48]))
    fallback = bool(rng.random() < 0.35)
    method = "holt_winters" if fallback or rng.random() < 0.7 else "seasonal_naive"
    base = _series_args(a, sensor, start, end) | {"horizon_hours": horizon}
    calls = [ToolCall(name="run_tsfm_forecasting", args=base | {"method": method})]
    if fallback:
        naive = base | {"method": "seasonal_naive"}
        calls.append(ToolCall(name="run_tsfm_forecasting", args=naive))
    sensor_unit = unit(ctx, sensor)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": label(ctx, sensor), "unit": sensor_unit, "start": start,
        "end": end, "horizon": horizon, "method": method, "fallback": fallback,
        "method_text": "additive Holt-Winters with a daily season"
        if method == "holt_winters" else "seasonal naive (the last day repeated)",
    }
    readings = window_end_readings(calls, "final", end)
    if method == "holt_winters":
        readings.append(Reading(
            name=HW_SIMPLE_INIT,
            description="starts Holt-Winters from the first day's mean level and seasonal "
            "deviations (the textbook heuristic) instead of a trend through two days",
            tool_sequence=[*calls, history_call(a, start, end, [sensor])],
            params={"reading": HW_SIMPLE_INIT},
        ))
        readings.append(Reading(
            name=HW_NO_TREND_INIT,
            description="starts Holt-Winters from the first day's mean level and seasonal "
            "deviations with no trend (b0 = 0) instead of a trend through two days",
            tool_sequence=[*calls, history_call(a, start, end, [sensor])],
            params={"reading": HW_NO_TREND_INIT},
        ))
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, sensor, start, end, str(horizon)],
        grounding={
            "site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
            "start": start, "end": end,
        },
        difficulty="hard" if fallback else "medium",
        hard_features=["conditional"] if fallback else [],
        constraint="use additive Holt-Winters with a daily season unless its in-sample error "
        "is worse than the seasonal naive baseline (the last day repeated); in that case "
        "report the seasonal naive forecast" if fallback else None,
        tolerance={"value": FORECAST_ABS_TOL.get(sensor_unit, 0.0)},
        rel_tolerance={"value": FORECAST_REL_TOL},
        readings=readings,
        stated=WINDOW_STATED,
    )


# -- methods for a task --------------------------------------------------------------------


def _methods_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    tasks, models = outputs
    task_ids = [t["task_id"] for t in tasks["tasks"]]
    if params["task"] not in task_ids:
        raise Ambiguous(f"task {params['task']} is not offered")
    return {
        "tasks": task_ids,
        "models": sorted(m["model_id"] for m in models["models"] if m["task"] == params["task"]),
    }


def methods_outcome(answer: dict[str, Any]) -> str:
    """A catalogue lookup: "listing"."""
    return "listing"


def _methods_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"time-series tasks: {and_join(answer['tasks'])}; methods for {params['task_text']}: "
        f"{and_join(answer['models'])}"
    )


@family(
    "tsfm_methods",
    domain="tsfm",
    category="Knowledge Query",
    derive=_methods_derive,
    summarise=_methods_summary,
    outcome=methods_outcome,
)
async def methods(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The time-series tasks offered and the methods available for one of them."""
    task = pick(rng, ["tsad", "forecasting"])
    a = _series_asset(ctx, rng)
    params: dict[str, Any] = {
        "task": task, "task_text": "anomaly detection" if task == "tsad" else "forecasting",
        "grounded": False,
    }
    mentions: list[str] = []
    grounding: dict[str, str] = {}
    if a is not None and rng.random() < 0.5:
        # Ground the question in a unit so the request reads like an operator's.
        params |= {"asset_id": a.asset_id, "site": a.site_name, "grounded": True}
        mentions, grounding = [a.asset_id], {"asset_id": a.asset_id}
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name="get_ai_tasks", args={}),
                       ToolCall(name="get_tsfm_models", args={})],
        mentions=mentions,
        grounding=grounding,
        difficulty="easy",
    )
