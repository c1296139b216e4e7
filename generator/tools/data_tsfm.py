"""Generic time-series tools: tasks and methods, anomaly detection and forecasting.

They work on any hourly telemetry sensor of any class; the numeric methods live in
:mod:`generator.tools.timeseries`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import numpy as np
from pydantic import Field

from generator.errors import UserError
from generator.tools import timeseries as ts
from generator.tools.data_common import (
    ISO,
    DataModel,
    NoArgs,
    Timestamp,
    check_asset,
    check_sensors,
    check_window,
)
from generator.tools.registry import ToolContext, tool

# -- tsfm ------------------------------------------------------------------------------


class AiTask(DataModel):
    """A time-series task the tsfm tools support."""

    task_id: str = Field(description="Identifier")
    name: str = Field(description="Human name")
    tool: str = Field(description="Tool that runs it")
    description: str = Field(description="What it does")


class AiTasksResult(DataModel):
    """The supported tasks."""

    tasks: list[AiTask] = Field(description="Supported tasks")


@tool("get_ai_tasks", domain="tsfm", args=NoArgs, result=AiTasksResult)
async def get_ai_tasks(args: NoArgs, ctx: ToolContext) -> AiTasksResult:
    """List the time-series tasks supported: anomaly detection and forecasting."""
    return AiTasksResult(
        tasks=[
            AiTask(
                task_id="tsad",
                name="anomaly detection",
                tool="run_tsad",
                description="Flag readings of one sensor that deviate from its weekly "
                "(weekday × hour) pattern",
            ),
            AiTask(
                task_id="forecasting",
                name="forecasting",
                tool="run_tsfm_forecasting",
                description="Forecast one sensor a few hours to days ahead",
            ),
        ]
    )


class TsModel(DataModel):
    """A classical time-series method."""

    model_id: str = Field(description="Identifier (the `method` argument of its tool)")
    task: str = Field(description="Task id")
    name: str = Field(description="Human name")
    formula: str = Field(description="What it computes")
    parameters: dict[str, Any] = Field(description="Fixed or searched parameters")
    reference: str = Field(description="Source of the method")


class TsModelsResult(DataModel):
    """The available methods."""

    models: list[TsModel] = Field(description="Methods")


TSAD_FORMULA = (
    "reference = the window plus up to baseline_weeks weeks before it; expected(t) = median "
    "of the reference readings with the same weekday and hour as t (fewer than 3 such "
    "readings: same day type (Mon-Fri / Sat-Sun) and hour, if 3 or more, else same hour); "
    "r = x - expected; score = 0.6745·(r - median(r)) / MAD(r) over the reference (if MAD = "
    "0: (r - median(r)) / (1.2533·MeanAD)); anomaly = a window reading with |score| > threshold"
)
HW_FORMULA = (
    "additive Holt-Winters, period m = 24: ŷ(t) = l + b + s(t-m); "
    "l' = α(y - s(t-m)) + (1-α)(l + b); b' = β(l' - l) + (1-β)b; s(t) = γ(y - l') + (1-γ)s(t-m); "
    "forecast l + h·b + s; initial state from the first two days; (α, β, γ) minimise the "
    "in-sample one-step MAE over the grid"
)
BASELINE_WEEKS = 4
SN_FORMULA = "seasonal naive, period 24: ŷ(t+h) = y(t+h-24k), the last day repeated"

MODELS = [
    TsModel(
        model_id="weekly_profile_robust_z",
        task="tsad",
        name="Weekday × hour baseline + modified z-score",
        formula=TSAD_FORMULA,
        parameters={
            "threshold": ts.DEFAULT_THRESHOLD,
            "period": ts.PERIOD,
            "baseline_weeks": BASELINE_WEEKS,
            "min_weeks": ts.MIN_WEEKS,
        },
        reference="Iglewicz & Hoaglin (1993), How to Detect and Handle Outliers",
    ),
    TsModel(
        model_id="holt_winters",
        task="forecasting",
        name="Additive Holt-Winters (triple exponential smoothing)",
        formula=HW_FORMULA,
        parameters={
            "period": ts.PERIOD,
            "alpha_grid": list(ts.ALPHA_GRID),
            "beta_grid": list(ts.BETA_GRID),
            "gamma_grid": list(ts.GAMMA_GRID),
        },
        reference=(
            "Winters (1960); Hyndman & Athanasopoulos, Forecasting: Principles and Practice §8.3"
        ),
    ),
    TsModel(
        model_id="seasonal_naive",
        task="forecasting",
        name="Seasonal naive",
        formula=SN_FORMULA,
        parameters={"period": ts.PERIOD},
        reference="Hyndman & Athanasopoulos, Forecasting: Principles and Practice §5.2",
    ),
]


@tool("get_tsfm_models", domain="tsfm", args=NoArgs, result=TsModelsResult)
async def get_tsfm_models(args: NoArgs, ctx: ToolContext) -> TsModelsResult:
    """List the classical time-series methods available, with their formulas."""
    return TsModelsResult(models=MODELS)


class SeriesArgs(DataModel):
    """One sensor of an asset in a window."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site")
    sensor: str = Field(description="Telemetry sensor, as listed by `sensors`")
    start: Timestamp = Field(description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS])")
    final: Timestamp | None = Field(
        default=None, description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the end"
    )


async def _series(args: SeriesArgs, ctx: ToolContext) -> tuple[np.ndarray, np.ndarray, int]:
    """Epoch seconds and values of the sensor on an hourly grid, and hours filled."""
    check_window(args.start, args.final)
    await check_asset(ctx, args.site_name, args.asset_id)
    await check_sensors(ctx, args.asset_id, [args.sensor])
    secs, readings = await _readings(ctx, args.asset_id, args.sensor, args.start, args.final)
    if len(secs) < 2 * ts.PERIOD:
        raise UserError(
            f"{args.asset_id} {args.sensor}: {len(secs)} readings in the window, "
            f"need at least {2 * ts.PERIOD} (two days)",
            fix="widen the window",
        )
    grid, values, filled = ts.regular_hourly(secs, readings)
    return grid, values, filled


async def _readings(
    ctx: ToolContext, asset_id: str, sensor: str, start: str | None, final: str | None
) -> tuple[Any, Any]:
    """Epoch seconds and float values of the sensor's non-null readings in [start, final).

    A run's snapshot keeps them as arrays (``FleetSnapshot.readings``); the live store's
    rows are converted here, to the same numbers.
    """
    fast = getattr(ctx.store, "readings", None)
    if fast is not None:
        return await fast(asset_id, sensor, start, final)
    docs = await ctx.store.history(asset_id, start, final, [sensor])
    docs = [d for d in docs if d.get(sensor) is not None]
    return _epoch_seconds([d["timestamp"] for d in docs]), [float(d[sensor]) for d in docs]


def _epoch_seconds(stamps: list[Any]) -> list[int]:
    """UTC epoch seconds of ``YYYY-MM-DDTHH:MM:SS`` timestamps, parsed as one datetime64
    array (a per-row ``strptime`` costs ~100x more on a two-week window)."""
    if not stamps:
        return []
    parsed = np.array([str(t) for t in stamps], dtype="datetime64[s]")
    return [int(v) for v in parsed.astype(np.int64)]


def _iso(sec: int) -> str:
    return datetime.fromtimestamp(int(sec), UTC).strftime(ISO)


# Epoch seconds of 1000-01-01T00:00:00 and 9999-12-31T23:59:59 UTC: between them numpy's
# datetime64 text is ``strftime(ISO)``'s (four-digit years).
_ISO_FIRST, _ISO_LAST = -30_610_224_000, 253_402_300_799


def _isos(secs: np.ndarray) -> list[str]:
    """:func:`_iso` of each epoch second, as one datetime64 conversion."""
    if secs.size == 0:
        return []
    if int(secs.min()) < _ISO_FIRST or int(secs.max()) > _ISO_LAST:
        return [_iso(int(s)) for s in secs]
    out: list[str] = secs.astype("datetime64[s]").astype(str).tolist()
    return out


class TsadArgs(SeriesArgs):
    """Arguments of `run_tsad`."""

    threshold: float = Field(default=3.5, gt=0, description="Cut-off on |modified z-score|")
    baseline_weeks: int = Field(
        default=BASELINE_WEEKS,
        ge=0,
        le=12,
        description="Weeks of history before `start` added to the reference the weekly "
        "baseline is built from (readings there are never flagged)",
    )


class Anomaly(DataModel):
    """One anomalous reading."""

    timestamp: str = Field(description="When (ISO 8601)")
    value: float = Field(description="Reading")
    expected: float = Field(description="Weekly baseline value (weekday × hour median)")
    score: float = Field(description="Modified z-score of the residual")


class TsadResult(DataModel):
    """Anomalies of one sensor series."""

    asset_id: str = Field(description="The asset")
    sensor: str = Field(description="The sensor")
    n_points: int = Field(description="Readings analysed in the window (on the hourly grid)")
    gaps_filled: int = Field(description="Missing hours filled by linear interpolation")
    threshold: float = Field(description="Cut-off used")
    method: str = Field(description="The method and its formula")
    reference_start: str = Field(
        description="First reading of the reference the baseline and scores come from"
    )
    reference_points: int = Field(description="Readings in the reference (history + window)")
    anomalies: list[Anomaly] = Field(description="Anomalous readings in time order")


def _weekdays(secs: np.ndarray) -> np.ndarray:
    """Monday = 0 weekday of each epoch second (UTC): 1970-01-01 was a Thursday (3)."""
    return (np.asarray(secs, dtype=np.int64) // 86400 + 3) % 7


@dataclass(frozen=True)
class _TsadScores:
    """What ``run_tsad`` computes from a series before its threshold applies."""

    n_points: int
    gaps_filled: int
    grid: np.ndarray  # reference then window, epoch seconds on the hourly grid
    values: np.ndarray
    found: ts.Anomalies  # expected value and score of every reading
    score_from: int  # index of the window's first reading


async def _tsad_scores(args: TsadArgs, ctx: ToolContext) -> _TsadScores:
    """The scores of the series ``args`` names (kept by a run's snapshot: the same for every
    threshold)."""
    derived = getattr(ctx.store, "derived", None)
    key = ("run_tsad", args.site_name, args.asset_id, args.sensor, args.start, args.final,
           args.baseline_weeks)
    if derived is not None:
        kept: _TsadScores | None = derived.get(key)
        if kept is not None:
            return kept
    grid, values, filled = await _series(args, ctx)
    history_start = (
        datetime.strptime(args.start, ISO) - timedelta(weeks=args.baseline_weeks)
    ).strftime(ISO)
    before_secs, before_values = await _readings(
        ctx, args.asset_id, args.sensor, history_start, args.start
    )
    if len(before_secs):
        secs = np.concatenate([np.asarray(before_secs, dtype=np.int64), grid[:1]])
        ref_grid, ref_values, _ = ts.regular_hourly(
            secs, np.concatenate([np.asarray(before_values, dtype=float), values[:1]])
        )
        ref_grid, ref_values = ref_grid[:-1], ref_values[:-1]  # the window's first hour
    else:
        ref_grid, ref_values = np.empty(0, dtype=np.int64), np.empty(0)
    all_grid = np.concatenate([ref_grid, grid])
    all_values = np.concatenate([ref_values, values])
    hours = (all_grid // 3600) % 24
    found = ts.detect_anomalies(
        _weekdays(all_grid), hours, all_values, args.threshold, score_from=int(ref_grid.size)
    )
    scores = _TsadScores(
        n_points=int(values.size), gaps_filled=filled, grid=all_grid, values=all_values,
        found=found, score_from=int(ref_grid.size),
    )
    if derived is not None:
        derived.put(key, scores)
    return scores


@tool("run_tsad", domain="tsfm", args=TsadArgs, result=TsadResult)
async def run_tsad(args: TsadArgs, ctx: ToolContext) -> TsadResult:
    """Detect anomalies in one sensor's series: residuals from its weekly (weekday × hour)
    median baseline, built from the window and the weeks before it, scored by a robust
    (MAD) z-score.
    """
    scored = await _tsad_scores(args, ctx)
    found = scored.found
    index = ts.anomalous(found.score, args.threshold, scored.score_from)
    stamps = _isos(scored.grid[index])
    # Built from our own floats and strings, so not validated again (one Anomaly per
    # reading of the window at the lowest thresholds).
    return TsadResult(
        asset_id=args.asset_id,
        sensor=args.sensor,
        n_points=scored.n_points,
        gaps_filled=scored.gaps_filled,
        threshold=args.threshold,
        method="weekly_profile_robust_z: " + TSAD_FORMULA,
        reference_start=_iso(int(scored.grid[0])),
        reference_points=int(scored.values.size),
        anomalies=[
            Anomaly.model_construct(
                timestamp=stamp,
                value=float(scored.values[i]),
                expected=float(found.expected[i]),
                score=float(found.score[i]),
            )
            for i, stamp in zip(index.tolist(), stamps, strict=True)
        ],
    )


class ForecastArgs(SeriesArgs):
    """Arguments of `run_tsfm_forecasting`."""

    horizon_hours: int = Field(default=24, ge=1, le=168, description="Hours to forecast")
    method: Literal["holt_winters", "seasonal_naive"] = Field(
        default="holt_winters", description="Forecasting method (see `get_tsfm_models`)"
    )


class ForecastResult(DataModel):
    """A forecast of one sensor."""

    asset_id: str = Field(description="The asset")
    sensor: str = Field(description="The sensor")
    method: str = Field(description="Method id and formula")
    parameters: dict[str, float] = Field(description="Parameters used (α, β, γ for Holt-Winters)")
    n_points: int = Field(description="Readings fitted (on the hourly grid)")
    gaps_filled: int = Field(description="Missing hours filled by linear interpolation")
    in_sample_mae: float = Field(description="In-sample one-step mean absolute error of the method")
    seasonal_naive_mae: float = Field(description="Same for seasonal naive (the baseline)")
    timestamps: list[str] = Field(description="Forecast times, hourly after the last reading")
    values: list[float] = Field(description="Forecast values")


@tool("run_tsfm_forecasting", domain="tsfm", args=ForecastArgs, result=ForecastResult)
async def run_tsfm_forecasting(args: ForecastArgs, ctx: ToolContext) -> ForecastResult:
    """Forecast one sensor hours ahead: additive Holt-Winters (period 24) or seasonal naive."""
    grid, values, filled = await _series(args, ctx)
    naive_mae = ts.seasonal_naive_mae(values)
    if args.method == "holt_winters":
        model = ts.fit_holt_winters(values)
        forecast = model.forecast(args.horizon_hours)
        params = {"alpha": model.alpha, "beta": model.beta, "gamma": model.gamma, "period": 24.0}
        mae, formula = model.mae, HW_FORMULA
    else:
        forecast = ts.seasonal_naive(values, args.horizon_hours)
        params, mae, formula = {"period": 24.0}, naive_mae, SN_FORMULA
    last = int(grid[-1])
    return ForecastResult(
        asset_id=args.asset_id,
        sensor=args.sensor,
        method=f"{args.method}: {formula}",
        parameters=params,
        n_points=int(values.size),
        gaps_filled=filled,
        in_sample_mae=mae,
        seasonal_naive_mae=naive_mae,
        timestamps=[_iso(last + 3600 * h) for h in range(1, args.horizon_hours + 1)],
        values=[float(v) for v in forecast],
    )
