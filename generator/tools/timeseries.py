"""Classical time-series methods behind the tsfm tools, as pure numpy functions.

Anomaly detection (:func:`detect_anomalies`): the residual of each reading from a weekly
baseline, the median of the reference readings in the same (weekday, hour-of-day) slot, so
the weekly load pattern (lighter weekends) is expected, not anomalous. The reference is the
scored window plus the weeks before it that the caller supplies. A slot with fewer than
``MIN_WEEKS`` (3) reference readings, where a median would not resist one outlier, falls
back to the (day type, hour) slot (day type: Monday–Friday or Saturday–Sunday) when that
holds at least ``MIN_WEEKS`` readings, else to the hour-of-day slot over all days. The
residuals of the whole reference are scored with the modified z-score of Iglewicz & Hoaglin
(1993), ``z = 0.6745 (r - median(r)) / MAD``; a reading of the window is anomalous when
``|z| > threshold`` (3.5, their recommended cut-off).

Forecasting: seasonal naive (``y[t+h] = y[t+h-m]``) and additive Holt-Winters (triple
exponential smoothing, Winters 1960) with period ``m``, its smoothing constants chosen
by a small grid search on the in-sample one-step mean absolute error.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

# 1 / Φ⁻¹(0.75): makes the MAD a consistent estimator of σ for normal data.
MAD_SCALE = 0.6745
# √(π/2): the same for the mean absolute deviation, used when the MAD is zero.
MEAN_AD_SCALE = 1.253314
DEFAULT_THRESHOLD = 3.5
PERIOD = 24
ALPHA_GRID = (0.05, 0.1, 0.2, 0.4, 0.6)
BETA_GRID = (0.0, 0.01, 0.05, 0.1)
GAMMA_GRID = (0.05, 0.1, 0.3, 0.5)


def robust_z(values: ArrayLike) -> FloatArray:
    """Modified z-scores ``0.6745 (x - median) / MAD`` (Iglewicz & Hoaglin 1993).

    When more than half the values are equal the MAD is zero; then the mean absolute
    deviation from the median is used, ``(x - median) / (1.253314 · MeanAD)``; when that
    is zero too every value equals the median and every score is 0.

    Args:
        values: The series.

    Returns:
        One score per value.
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return x.copy()
    med = float(np.median(x))
    dev = x - med
    mad = float(np.median(np.abs(dev)))
    if mad > 0:
        return np.asarray(MAD_SCALE * dev / mad, dtype=float)
    mean_ad = float(np.mean(np.abs(dev)))
    if mean_ad > 0:
        return np.asarray(dev / (MEAN_AD_SCALE * mean_ad), dtype=float)
    return np.zeros_like(x)


def hour_profile(hours: ArrayLike, values: ArrayLike, period: int = PERIOD) -> FloatArray:
    """Median reading per hour of day (``period`` slots); a slot with no reading is NaN."""
    h = np.asarray(hours, dtype=int) % period
    x = np.asarray(values, dtype=float)
    profile = np.full(period, np.nan)
    for slot in range(period):
        sel = x[h == slot]
        if sel.size:
            profile[slot] = float(np.median(sel))
    return profile


MIN_WEEKS = 3
# Slot keys below this are counted with ``np.bincount`` (one counter per possible key).
_MAX_SLOT_KEYS = 1 << 16
WEEKEND = (5, 6)  # Saturday, Sunday (datetime.weekday numbering, Monday = 0)


def slot_medians(
    keys: NDArray[np.int64], x: FloatArray, by_value: NDArray[np.intp] | None = None
) -> tuple[FloatArray, NDArray[np.int64]]:
    """Per reading: the median and the number of readings of its slot (same key).

    One sort by (key, value) instead of a median per slot: a slot's median is the mean of
    its middle two sorted values, ``(v[lo] + v[hi]) / 2``, which is what ``np.median``
    computes (for an odd count lo = hi and ``(v + v) / 2 == v`` exactly). ``by_value``, a
    stable ``argsort`` of ``x``, may be passed in when several key sets share the values:
    the stable sort of its keys then orders by (key, value), as ``np.lexsort`` does.
    """
    if x.size == 0 or bool(np.isnan(x).any()):
        return _slot_medians_by_slot(keys, x)
    if int(keys.min()) < 0 or int(keys.max()) >= _MAX_SLOT_KEYS:
        order = np.lexsort((x, keys))
        k, v = keys[order], x[order]
        starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
        sizes = np.diff(np.concatenate((starts, [k.size])))
        med = (v[starts + (sizes - 1) // 2] + v[starts + sizes // 2]) / 2
        group = np.repeat(np.arange(starts.size), sizes)
        medians = np.empty(x.size)
        counts = np.empty(x.size, dtype=np.int64)
        medians[order] = med[group]
        counts[order] = sizes[group]
        return medians, counts
    # Small non-negative keys (slot numbers): count per slot, slots start where the counts
    # of the slots before them end.
    if by_value is None:
        by_value = np.argsort(x, kind="stable")
    order = by_value[np.argsort(keys[by_value], kind="stable")]
    v = x[order]
    per_slot = np.bincount(keys)
    used = np.flatnonzero(per_slot)
    sizes = per_slot[used]
    starts = np.cumsum(per_slot)[used] - sizes
    slot_median = np.zeros(per_slot.size)
    slot_median[used] = (v[starts + (sizes - 1) // 2] + v[starts + sizes // 2]) / 2
    return slot_median[keys], per_slot[keys].astype(np.int64)


def _slot_medians_by_slot(
    keys: NDArray[np.int64], x: FloatArray
) -> tuple[FloatArray, NDArray[np.int64]]:
    """:func:`slot_medians` one slot at a time (NaN-propagating, as ``np.median``)."""
    medians = np.empty(x.size)
    counts = np.empty(x.size, dtype=np.int64)
    for key in np.unique(keys):
        sel = keys == key
        medians[sel] = float(np.median(x[sel]))
        counts[sel] = int(sel.sum())
    return medians, counts


def weekly_baseline(
    weekdays: ArrayLike, hours: ArrayLike, values: ArrayLike, min_weeks: int = MIN_WEEKS
) -> tuple[FloatArray, NDArray[np.int64]]:
    """Expected value of each reading from the weekly pattern (see the module docstring).

    Args:
        weekdays: Day of week of each reading (Monday = 0 .. Sunday = 6).
        hours: Hour of day of each reading (0..23).
        values: The readings.
        min_weeks: Readings a slot needs before its median is used.

    Returns:
        The expected value per reading and the level used for it: 1 = (weekday, hour),
        2 = (day type, hour), 3 = hour of day.
    """
    d = np.asarray(weekdays, dtype=np.int64)
    h = np.asarray(hours, dtype=np.int64) % PERIOD
    x = np.asarray(values, dtype=float)
    by_value = None if x.size == 0 else np.argsort(x, kind="stable")
    weekly, n_weekly = slot_medians(d * PERIOD + h, x, by_value)
    level = np.ones(x.size, dtype=np.int64)
    expected = weekly
    # The coarser slots only where a (weekday, hour) slot is short of readings (the same
    # values ``np.where`` would pick from them computed for every reading).
    if bool((n_weekly < min_weeks).any()):
        day_type = ((d == WEEKEND[0]) | (d == WEEKEND[1])).astype(np.int64)
        typed, n_typed = slot_medians(day_type * PERIOD + h, x, by_value)
        level = np.where(n_weekly >= min_weeks, 1, np.where(n_typed >= min_weeks, 2, 3))
        expected = np.where(level == 1, weekly, typed)
        if bool((level == 3).any()):
            hourly, _ = slot_medians(h, x, by_value)
            expected = np.where(level == 3, hourly, expected)
    return np.asarray(expected, dtype=float), level.astype(np.int64)


@dataclass(frozen=True)
class Anomalies:
    """Result of :func:`detect_anomalies`: indices into the series and per-point arrays."""

    index: NDArray[np.int64]
    expected: FloatArray
    score: FloatArray
    level: NDArray[np.int64]


def detect_anomalies(
    weekdays: ArrayLike,
    hours: ArrayLike,
    values: ArrayLike,
    threshold: float = DEFAULT_THRESHOLD,
    score_from: int = 0,
    min_weeks: int = MIN_WEEKS,
) -> Anomalies:
    """Flag readings far from their weekly (weekday × hour) baseline.

    ``expected = weekly_baseline(...)`` over all readings (the reference), ``r = x -
    expected``, ``score = robust_z(r)`` over all readings; anomalies are the readings at
    index ≥ ``score_from`` (the scored window) with ``|score| > threshold``.

    Args:
        weekdays: Day of week of each reading (Monday = 0).
        hours: Hour of day of each reading.
        values: The readings: reference weeks first, then the window.
        threshold: Cut-off on the absolute modified z-score.
        score_from: Index of the first reading of the window (earlier ones are reference).
        min_weeks: Readings a (weekday, hour) slot needs before its median is used.

    Returns:
        The anomalous indices (ascending) and, for every reading, expected value, score and
        baseline level.
    """
    x = np.asarray(values, dtype=float)
    expected, level = weekly_baseline(weekdays, hours, x, min_weeks)
    score = robust_z(x - expected)
    index = anomalous(score, threshold, score_from)
    return Anomalies(index=index, expected=expected, score=score, level=level)


def anomalous(score: FloatArray, threshold: float, score_from: int = 0) -> NDArray[np.int64]:
    """Indices ≥ ``score_from`` with ``|score| > threshold``, ascending (the anomalies of
    :func:`detect_anomalies` for another threshold, from its scores)."""
    hits = np.flatnonzero(np.abs(score) > threshold)
    return hits[hits >= score_from].astype(np.int64)


def seasonal_naive(values: ArrayLike, horizon: int, period: int = PERIOD) -> FloatArray:
    """Forecast ``y[n+h] = y[n+h-period·k]`` with the smallest k ≥ 1 (last season repeated)."""
    y = np.asarray(values, dtype=float)
    if y.size < period:
        raise ValueError(f"seasonal naive needs at least {period} values, got {y.size}")
    last = y[-period:]
    return np.asarray(last[np.arange(horizon) % period], dtype=float)


def seasonal_naive_mae(values: ArrayLike, period: int = PERIOD) -> float:
    """In-sample one-step MAE of seasonal naive: ``mean |y[t] - y[t-period]|`` for t ≥ period."""
    y = np.asarray(values, dtype=float)
    if y.size <= period:
        raise ValueError(f"seasonal naive MAE needs more than {period} values, got {y.size}")
    return float(np.mean(np.abs(y[period:] - y[:-period])))


@dataclass(frozen=True)
class HoltWinters:
    """A fitted additive Holt-Winters model."""

    alpha: float
    beta: float
    gamma: float
    level: float
    trend: float
    season: FloatArray  # season[i] applies to time n + i (the next ``period`` steps)
    fitted: FloatArray  # one-step predictions for t = period .. n-1
    mae: float  # mean |y - fitted| over those t

    def forecast(self, horizon: int) -> FloatArray:
        """``ŷ[n+h] = level + h·trend + season[(h-1) mod period]`` for h = 1..horizon."""
        h = np.arange(1, horizon + 1)
        period = self.season.size
        return np.asarray(self.level + h * self.trend + self.season[(h - 1) % period], dtype=float)


def holt_winters(
    values: ArrayLike, alpha: float, beta: float, gamma: float, period: int = PERIOD
) -> HoltWinters:
    """Fit additive Holt-Winters with fixed smoothing constants.

    Initial state at t = period-1 from the first two seasons: trend
    ``b = (mean(y[m:2m]) - mean(y[:m])) / m``, level ``l = mean(y[:m]) + b(m-1)/2`` and
    seasonal ``s_i = y_i - (mean(y[:m]) + b(i - (m-1)/2))`` (so a linear trend plus a
    zero-mean season is represented exactly). Then for t ≥ m, with ``ŷ_t = l + b + s_{t-m}``:
    ``l' = α(y_t - s_{t-m}) + (1-α)(l + b)``, ``b' = β(l' - l) + (1-β)b``,
    ``s_t = γ(y_t - l') + (1-γ)s_{t-m}``.

    Args:
        values: The series (at least two seasons).
        alpha: Level smoothing in [0, 1].
        beta: Trend smoothing in [0, 1].
        gamma: Seasonal smoothing in [0, 1].
        period: Season length.

    Returns:
        The fitted model with its in-sample one-step predictions and MAE.
    """
    y = np.asarray(values, dtype=float)
    m = period
    if y.size < 2 * m:
        raise ValueError(f"Holt-Winters needs at least {2 * m} values, got {y.size}")
    first, second = float(y[:m].mean()), float(y[m : 2 * m].mean())
    trend = (second - first) / m
    level = first + trend * (m - 1) / 2
    season = list(y[:m] - (first + trend * (np.arange(m) - (m - 1) / 2)))
    fitted = np.empty(y.size - m)
    for t in range(m, y.size):
        s_old = season[t - m]
        fitted[t - m] = level + trend + s_old
        new_level = alpha * (y[t] - s_old) + (1 - alpha) * (level + trend)
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
        season.append(gamma * (y[t] - level) + (1 - gamma) * s_old)
    mae = float(np.mean(np.abs(y[m:] - fitted)))
    return HoltWinters(
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        level=level,
        trend=trend,
        season=np.asarray(season[-m:], dtype=float),
        fitted=fitted,
        mae=mae,
    )


def fit_holt_winters(values: ArrayLike, period: int = PERIOD) -> HoltWinters:
    """Holt-Winters with (α, β, γ) minimising the in-sample one-step MAE over a small grid.

    Grid: α ∈ {0.05, 0.1, 0.2, 0.4, 0.6}, β ∈ {0, 0.01, 0.05, 0.1}, γ ∈ {0.05, 0.1, 0.3,
    0.5}; ties keep the first in that order (smallest constants, the smoothest model).
    """
    grid = list(itertools.product(ALPHA_GRID, BETA_GRID, GAMMA_GRID))
    maes = _grid_maes(np.asarray(values, dtype=float), grid, period)
    best = 0
    for i, mae in enumerate(maes):
        if mae < maes[best]:
            best = i
    a, b, g = grid[best]
    return holt_winters(values, a, b, g, period)


def grid_maes_from(
    y: FloatArray,
    grid: list[tuple[float, float, float]],
    period: int,
    level0: float,
    trend0: float,
    season0: FloatArray,
) -> tuple[list[float], FloatArray, FloatArray, FloatArray]:
    """The additive Holt-Winters recursion for every (α, β, γ) of ``grid`` at once.

    The recursion of :func:`holt_winters` run on arrays over the grid from the initial
    level ``level0``, trend ``trend0`` and first-period seasonals ``season0``: the same
    float64 operations in the same order per element, so each MAE equals the scalar fit's.

    Returns:
        In-sample MAE per grid point, and the final level, trend (one per grid point) and
        seasonals (grid points × len(y)), from which a forecast continues.
    """
    m = period
    alpha = np.array([p[0] for p in grid])
    beta = np.array([p[1] for p in grid])
    gamma = np.array([p[2] for p in grid])
    # 1 - α, 1 - β, 1 - γ and l + b computed once per step rather than at each use (the
    # same values); time runs along rows, so each step reads and writes contiguous rows.
    keep_alpha, keep_beta, keep_gamma = 1 - alpha, 1 - beta, 1 - gamma
    level = np.full(len(grid), level0)
    trend = np.full(len(grid), trend0)
    season = np.empty((y.size, len(grid)))
    season[:m] = np.asarray(season0, dtype=float)[:, None]
    fitted = np.empty((y.size - m, len(grid)))
    ys = y.tolist()
    # Scratch rows written in place (no new array per operation).
    level_trend, new_level, tmp = np.empty(len(grid)), np.empty(len(grid)), np.empty(len(grid))
    for t in range(m, y.size):
        s_old = season[t - m]
        np.add(level, trend, out=level_trend)
        np.add(level_trend, s_old, out=fitted[t - m])
        y_t = ys[t]
        # new_level = α (y - s_old) + (1 - α)(l + b)
        np.subtract(y_t, s_old, out=new_level)
        np.multiply(alpha, new_level, out=new_level)
        np.multiply(keep_alpha, level_trend, out=tmp)
        np.add(new_level, tmp, out=new_level)
        # trend = β (new_level - l) + (1 - β) b
        np.subtract(new_level, level, out=tmp)
        np.multiply(beta, tmp, out=tmp)
        np.multiply(keep_beta, trend, out=trend)
        np.add(tmp, trend, out=trend)
        level, new_level = new_level, level
        # s = γ (y - l) + (1 - γ) s_old
        row = season[t]
        np.subtract(y_t, level, out=row)
        np.multiply(gamma, row, out=row)
        np.multiply(keep_gamma, s_old, out=tmp)
        np.add(row, tmp, out=row)
    by_point = np.ascontiguousarray(fitted.T)
    maes = [float(np.mean(np.abs(y[m:] - row))) for row in by_point]
    return maes, level, trend, np.ascontiguousarray(season.T)


def _grid_maes(y: FloatArray, grid: list[tuple[float, float, float]], period: int) -> list[float]:
    """In-sample MAE of :func:`holt_winters` (its initialisation) for every point of ``grid``."""
    m = period
    if y.size < 2 * m:
        raise ValueError(f"Holt-Winters needs at least {2 * m} values, got {y.size}")
    first, second = float(y[:m].mean()), float(y[m : 2 * m].mean())
    trend0 = (second - first) / m
    maes, _, _, _ = grid_maes_from(
        y, grid, m,
        level0=first + trend0 * (m - 1) / 2,
        trend0=trend0,
        season0=y[:m] - (first + trend0 * (np.arange(m) - (m - 1) / 2)),
    )
    return maes


def regular_hourly(
    seconds: ArrayLike, values: ArrayLike
) -> tuple[NDArray[np.int64], FloatArray, int]:
    """Put readings on a regular hourly grid, filling missing hours by linear interpolation.

    Args:
        seconds: Epoch seconds of the readings, ascending.
        values: The readings.

    Returns:
        Grid times (epoch seconds), values on the grid, and how many hours were filled.
    """
    t = np.asarray(seconds, dtype=np.int64)
    x = np.asarray(values, dtype=float)
    if t.size == 0:
        return t, x, 0
    grid = np.arange(int(t[0]), int(t[-1]) + 1, 3600, dtype=np.int64)
    # Grid hours that hold a reading = distinct readings on the grid (t ascending, from
    # t[0]): the count ``np.isin(grid, t).sum()`` gives, without a set lookup per hour.
    on = t[(t - t[0]) % 3600 == 0]
    filled = int(grid.size - (on.size - int(np.count_nonzero(on[1:] == on[:-1]))))
    return grid, np.interp(grid, t, x), filled
