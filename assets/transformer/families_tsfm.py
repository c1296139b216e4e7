"""TSFM task families of the transformer class: anomalies, forecasts and the methods on offer."""

from __future__ import annotations

from typing import Any

import numpy as np

from assets.transformer.families_common import (
    SERIES_SENSORS,
    and_join,
    draw_window,
    label,
    num,
    pick,
    unit,
)
from generator.generate.families import Ambiguous, FamilyContext, Plan, family
from generator.generate.model import TaskSeed, ToolCall
from generator.profile.model import GroundedAsset

# Cut-offs a request may state; the default is the tool's.
THRESHOLDS: tuple[float, ...] = tuple(round(3.0 + 0.1 * i, 1) for i in range(21))
DEFAULT_THRESHOLD = 3.5
LOW_THRESHOLD = 2.5
# No reading may score within this distance of the cut-off: it could flip on any detail.
SCORE_MARGIN = 0.1


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


def _anomaly_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    found = outputs[0]["anomalies"]
    answer: dict[str, Any] = {
        "count": len(found),
        "timestamps": [x["timestamp"] for x in found],
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
    text = (
        f"{answer['count']} anomalies of {params['sensor']} on {params['asset_id']} in "
        f"[{params['start']}, {params['end']}) at |z| > {num(params['threshold'])}"
    )
    if answer["timestamps"]:
        text += ": " + ", ".join(answer["timestamps"][:8])
        if len(answer["timestamps"]) > 8:
            text += ", ..."
    if params["with_worst"]:
        text += f"; most severe: {answer['worst'] or 'none'}"
    return text


@family(
    "tsfm_anomalies",
    domain="tsfm",
    category="Anomaly Detection Query",
    derive=_anomaly_derive,
    summarise=_anomaly_summary,
)
async def anomalies(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Anomalous readings of one sensor of an asset in a window (robust z-score method).

    The cut-off is the tool's default or one stated in the request, chosen so no reading
    scores within ``SCORE_MARGIN`` of it (scores seen by running the detector at 2.5).
    """
    a = _series_asset(ctx, rng)
    if a is None:
        return None
    sensor = pick(rng, [s for s in SERIES_SENSORS if s in a.sensors])
    window = draw_window(a, rng, 3, 21)
    if window is None:
        return None
    start, end = window
    args = _series_args(a, sensor, start, end)
    low = await ctx.run1("run_tsad", **(args | {"threshold": LOW_THRESHOLD}))
    scores = [abs(float(x["score"])) for x in low["anomalies"]]

    def clear(t: float) -> bool:
        return all(abs(sc - t) > SCORE_MARGIN for sc in scores)

    if clear(DEFAULT_THRESHOLD) and rng.random() < 0.6:
        threshold = DEFAULT_THRESHOLD
    else:
        options = [t for t in THRESHOLDS if clear(t)]
        if not options:
            return None
        threshold = pick(rng, options)
    if not any(sc > threshold for sc in scores) and rng.random() < 0.6:
        return None  # mostly ask about windows that hold anomalies
    args["threshold"] = threshold
    with_worst = bool(rng.random() < 0.35)
    custom = threshold != DEFAULT_THRESHOLD
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": label(ctx, sensor), "start": start, "end": end,
        "threshold": threshold, "threshold_text": num(threshold), "with_worst": with_worst,
    }
    features: list[Any] = (["constraint"] if custom else []) + (
        ["multi_output"] if with_worst else []
    )
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name="run_tsad", args=args)],
        mentions=[a.asset_id, a.site_name, sensor, start, end]
        + ([num(threshold)] if custom else []),
        grounding={
            "site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
            "start": start, "end": end,
        },
        difficulty="hard" if features else "medium",
        hard_features=features,
        constraint=f"flag a reading only when its robust z-score magnitude exceeds {num(threshold)}"
        if custom else None,
    )


# -- forecast ------------------------------------------------------------------------------


def _forecast_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
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


@family(
    "tsfm_forecast",
    domain="tsfm",
    category="Inference Query",
    derive=_forecast_derive,
    summarise=_forecast_summary,
)
async def forecast(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A short-horizon forecast of one sensor from a training window (with a fallback rule)."""
    a = _series_asset(ctx, rng)
    if a is None:
        return None
    sensor = pick(rng, [s for s in SERIES_SENSORS if s in a.sensors])
    window = draw_window(a, rng, 3, 14)
    if window is None:
        return None
    start, end = window
    horizon = int(pick(rng, [6, 12, 24, 48]))
    fallback = bool(rng.random() < 0.35)
    method = "holt_winters" if fallback or rng.random() < 0.7 else "seasonal_naive"
    base = _series_args(a, sensor, start, end) | {"horizon_hours": horizon}
    calls = [ToolCall(name="run_tsfm_forecasting", args=base | {"method": method})]
    if fallback:
        naive = base | {"method": "seasonal_naive"}
        calls.append(ToolCall(name="run_tsfm_forecasting", args=naive))
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": label(ctx, sensor), "unit": unit(ctx, sensor), "start": start,
        "end": end, "horizon": horizon, "method": method, "fallback": fallback,
        "method_text": "Holt-Winters" if method == "holt_winters" else "seasonal naive",
    }
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
        constraint="use Holt-Winters unless its in-sample error is worse than the seasonal "
        "naive baseline; in that case report the seasonal naive forecast" if fallback else None,
        tolerance={"value": 0.01},
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
