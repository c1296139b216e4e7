"""Readings a competent reader could take of a tsfm task that the generic ones do not cover.

The generic readings (a window's end day, an "as of" day) come from :mod:`generator.api`
(:func:`window_end_readings`, :func:`as_of_readings`). This module adds the one that knows
the forecasting maths: Holt-Winters started the other textbook way.
"""

from __future__ import annotations

# -- Holt-Winters under another textbook initialisation --------------------------------------

HW_SIMPLE_INIT = "holt_winters_simple_initialisation"
HW_NO_TREND_INIT = "holt_winters_no_trend_initialisation"


def holt_winters_simple_init(
    values: list[float], horizon: int, period: int = 24, no_trend: bool = False
) -> tuple[list[float], float]:
    """Additive Holt-Winters started the other common way; forecast and in-sample MAE.

    The tool starts from a linear trend through the first two seasons (see
    :func:`generator.tools.timeseries.holt_winters`). Many textbooks and libraries start
    instead from level ``l0 = mean(y[:m])``, trend ``b0 = (mean(y[m:2m]) - mean(y[:m])) / m``
    and season ``s_i = y_i - l0`` (Hyndman & Athanasopoulos's heuristic), then run the same
    recursions from t = m: ``ŷ_t = l + b + s_{t-m}``, ``l' = α(y_t - s_{t-m}) + (1-α)(l + b)``,
    ``b' = β(l' - l) + (1-β)b``, ``s_t = γ(y_t - l') + (1-γ)s_{t-m}``. The smoothing constants
    are chosen on the tool's grid by the same criterion (in-sample one-step MAE), so the
    only difference is the start.

    With ``no_trend`` the start is the other common simplification: the same level and
    seasonals but ``b0 = 0`` (no trend assumed at the start; the recursions learn one).

    Args:
        values: The hourly series (at least two seasons).
        horizon: Hours to forecast.
        period: Season length.
        no_trend: Start the trend at 0 instead of the two first seasons' slope.

    Returns:
        The forecast ``ŷ[n+h] = l + h·b + s[(h-1) mod m]`` for h = 1..horizon, and the MAE.
    """
    import itertools

    import numpy as np

    from generator.api import timeseries as ts

    y = np.asarray(values, dtype=float)
    m = period
    if y.size < 2 * m:
        raise ValueError(f"Holt-Winters needs at least {2 * m} values, got {y.size}")
    # The tool's grid recursion from the simple initialisation (level = first-period mean,
    # trend = difference of the first two period means / m, seasonals = first period minus
    # that level): the same float64 operations as the scalar loop, so every MAE is unchanged.
    grid = list(itertools.product(ts.ALPHA_GRID, ts.BETA_GRID, ts.GAMMA_GRID))
    level0 = float(y[:m].mean())
    maes, level, trend, season = ts.grid_maes_from(
        y, grid, m,
        level0=level0,
        trend0=0.0 if no_trend else (float(y[m : 2 * m].mean()) - level0) / m,
        season0=y[:m] - level0,
    )
    best = 0  # ties keep the first in grid order, as the scalar loop's strict '<' did
    for i, mae in enumerate(maes):
        if mae < maes[best]:
            best = i
    lv, tr, last = level[best], trend[best], list(season[best, y.size - m :])
    forecast = [lv + h * tr + last[(h - 1) % m] for h in range(1, horizon + 1)]
    return forecast, maes[best]
