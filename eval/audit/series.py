"""The audit's own time-series methods: robust anomaly scores and classical forecasts.

Written from the published methods, not from the project's tools:

- Modified z-score (Iglewicz & Hoaglin 1993): ``z = 0.6745 (x − median) / MAD``; when the
  MAD is 0, the mean absolute deviation scaled by √(π/2) stands in for it.
- Residual from a seasonal profile: the median of the window's readings at the same hour of
  day (or the same hour of the week).
- Seasonal naive (Hyndman & Athanasopoulos §5.2): ``ŷ(T+h) = y(T+h−m(k+1))``, k = ⌊(h−1)/m⌋.
- Additive Holt-Winters (Winters 1960) with a choice of initial state, smoothing constants
  picked on the in-sample one-step MAE over a grid.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import numpy as np

PERIOD = 24
# The grid the project's model catalogue publishes (`get_tsfm_models`): a reader of that
# catalogue searches the same constants.
ALPHAS = (0.05, 0.1, 0.2, 0.4, 0.6)
BETAS = (0.0, 0.01, 0.05, 0.1)
GAMMAS = (0.05, 0.1, 0.3, 0.5)


def epoch(ts: str) -> int:
    """Seconds since 1970 of an ISO timestamp read as UTC."""
    return int(datetime.fromisoformat(ts[:19]).replace(tzinfo=UTC).timestamp())


def iso(sec: int) -> str:
    """ISO timestamp (no zone) of epoch seconds."""
    return datetime.fromtimestamp(int(sec), UTC).strftime("%Y-%m-%dT%H:%M:%S")


def hourly_grid(stamps: list[str], values: list[float]) -> tuple[list[int], list[float]]:
    """Readings on a regular hourly grid from the first to the last, gaps linearly filled."""
    t = np.array([epoch(s) for s in stamps], dtype=np.int64)
    x = np.array(values, dtype=float)
    if t.size == 0:
        return [], []
    grid = np.arange(int(t[0]), int(t[-1]) + 1, 3600, dtype=np.int64)
    return [int(g) for g in grid], [float(v) for v in np.interp(grid, t, x)]


def modified_z(values: np.ndarray) -> np.ndarray:
    """Modified z-scores of a series (see the module docstring)."""
    if values.size == 0:
        return values.copy()
    med = float(np.median(values))
    dev = values - med
    mad = float(np.median(np.abs(dev)))
    if mad > 0:
        return np.asarray(0.6745 * dev / mad, dtype=float)
    mean_ad = float(np.mean(np.abs(dev)))
    if mean_ad > 0:
        return np.asarray(dev / (1.253314 * mean_ad), dtype=float)
    return np.zeros_like(values)


Profile = Literal["hour_of_day", "hour_of_week"]


def anomalies(
    grid: list[int], values: list[float], threshold: float, profile: Profile = "hour_of_day"
) -> list[tuple[str, float]]:
    """(timestamp, score) of the readings whose |modified z| of the profile residual exceeds
    ``threshold``, in time order."""
    x = np.array(values, dtype=float)
    hours = np.array(grid, dtype=np.int64) // 3600
    # 1970-01-01 was a Thursday: hour-of-week counted from Thursday 00:00 is still a slot.
    slots = hours % (PERIOD * 7 if profile == "hour_of_week" else PERIOD)
    expected = np.empty_like(x)
    for slot in np.unique(slots):
        sel = slots == slot
        expected[sel] = float(np.median(x[sel]))
    z = modified_z(x - expected)
    return [(iso(grid[i]), float(z[i])) for i in range(x.size) if abs(z[i]) > threshold]


def weekday(sec: int) -> int:
    """Day of week of epoch seconds, Monday = 0 (1970-01-01 was a Thursday, 3)."""
    return (sec // 86400 + 3) % 7


def weekly_anomalies(
    grid: list[int], values: list[float], score_from: int, threshold: float, min_weeks: int = 3,
    spread: Literal["reference", "window"] = "reference",
) -> list[tuple[str, float]]:
    """Anomalies against a weekly baseline built from reference weeks plus the window.

    The expected value of a reading is the median of the reference readings in its
    (weekday, hour) slot when that slot holds at least ``min_weeks`` readings, else of its
    (working day / weekend, hour) slot if that does, else of its hour over all days. The
    residuals of the whole reference (``spread="reference"``) or of the window alone
    (``"window"``: median and MAD of the window's residuals) are scored with the modified
    z-score; only readings at ``grid[i] >= score_from`` (the window) are flagged.
    """
    x = np.array(values, dtype=float)
    secs = np.array(grid, dtype=np.int64)
    hours = (secs // 3600) % PERIOD
    days = np.array([weekday(int(t)) for t in secs])
    weekend = days >= 5
    expected = np.empty_like(x)
    for i in range(x.size):
        for sel in (
            (days == days[i]) & (hours == hours[i]),
            (weekend == weekend[i]) & (hours == hours[i]),
            hours == hours[i],
        ):
            if sel.sum() >= min_weeks:
                break  # else the coarser slot; the hour slot is used whatever its size
        expected[i] = float(np.median(x[sel]))
    if spread == "window":
        inside = secs >= score_from
        z = np.zeros_like(x)
        z[inside] = modified_z(x[inside] - expected[inside])
    else:
        z = modified_z(x - expected)
    return [
        (iso(grid[i]), float(z[i])) for i in range(x.size)
        if grid[i] >= score_from and abs(z[i]) > threshold
    ]


def seasonal_naive(values: list[float], horizon: int, m: int = PERIOD) -> list[float]:
    """ŷ(T+h) = y(T+h−m(k+1)) with k = ⌊(h−1)/m⌋, for h = 1..horizon."""
    y = values
    n = len(y)
    return [float(y[n - 1 + h - m * ((h - 1) // m + 1)]) for h in range(1, horizon + 1)]


def seasonal_naive_mae(values: list[float], m: int = PERIOD) -> float:
    """In-sample one-step MAE of seasonal naive: mean |y(t) − y(t−m)| over t ≥ m."""
    y = np.array(values, dtype=float)
    return float(np.mean(np.abs(y[m:] - y[:-m])))


Init = Literal["two_day_linear", "two_day_flat", "one_day_no_trend"]


@dataclass(frozen=True)
class HwFit:
    """A fitted additive Holt-Winters model."""

    alpha: float
    beta: float
    gamma: float
    mae: float
    forecast: list[float]


def _initial(y: np.ndarray, m: int, init: Init) -> tuple[float, float, list[float]]:
    """Level and trend at t = m−1 and the first season, by the chosen convention.

    ``two_day_linear``: a straight line through the first two seasons' means (trend
    (ȳ2 − ȳ1)/m, level on that line at t = m−1, seasonals the deviations from the line);
    ``two_day_flat``: the same trend, level ȳ1, seasonals y − ȳ1 (the textbook start);
    ``one_day_no_trend``: level ȳ1, trend 0, seasonals y − ȳ1.
    """
    first = float(y[:m].mean())
    if init == "one_day_no_trend":
        return first, 0.0, [float(v) - first for v in y[:m]]
    trend = (float(y[m : 2 * m].mean()) - first) / m
    if init == "two_day_flat":
        return first, trend, [float(v) - first for v in y[:m]]
    line = first + trend * (np.arange(m) - (m - 1) / 2.0)
    return first + trend * (m - 1) / 2.0, trend, [float(v) for v in y[:m] - line]


def holt_winters(
    values: list[float], horizon: int, init: Init = "two_day_linear", m: int = PERIOD
) -> HwFit:
    """Additive Holt-Winters, constants from the grid by in-sample one-step MAE (first wins).

    Update for t ≥ m with ŷ(t) = l + b + s(t−m): l' = α(y − s(t−m)) + (1−α)(l + b);
    b' = β(l' − l) + (1−β)b; s(t) = γ(y − l') + (1−γ)s(t−m). Forecast l + h·b + s.
    """
    y = np.array(values, dtype=float)
    best: HwFit | None = None
    for a, b, g in itertools.product(ALPHAS, BETAS, GAMMAS):
        level, trend, season = _initial(y, m, init)
        errors = []
        for t in range(m, y.size):
            s_old = season[t - m]
            errors.append(abs(y[t] - (level + trend + s_old)))
            new_level = a * (y[t] - s_old) + (1 - a) * (level + trend)
            trend = b * (new_level - level) + (1 - b) * trend
            level = new_level
            season.append(g * (y[t] - level) + (1 - g) * s_old)
        mae = float(np.mean(errors))
        if best is None or mae < best.mae:
            last = season[-m:]
            fc = [float(level + h * trend + last[(h - 1) % m]) for h in range(1, horizon + 1)]
            best = HwFit(alpha=a, beta=b, gamma=g, mae=mae, forecast=fc)
    if best is None:
        raise ValueError("empty Holt-Winters grid")
    return best
