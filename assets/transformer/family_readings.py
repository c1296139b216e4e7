"""Readings a competent reader could take of an iot, tsfm or wo task, as alternative calls.

A task's text leaves some choices open (is the window's end date included? does "as of" a
date include that day?). Each helper here turns one such choice into a
:class:`generator.generate.families.Reading`: the same tool calls with the argument the other
reader would pass. The interpretation gate derives the answer under every reading and keeps a
seed only when they agree or the text states the reading it takes.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from generator.api import Reading, ToolCall

# Names of the readings, shared by the families and their tests.
END_DAY_INCLUDED = "window_end_day_included"
END_MIDNIGHT_INCLUDED = "window_end_midnight_included"
AS_OF_INCLUDED = "as_of_day_included"


def _shift(value: str, days: int = 0, hours: int = 0) -> str:
    """A ``YYYY-MM-DD`` day moved by whole days, or to an hour of that day."""
    d = date.fromisoformat(value[:10]) + timedelta(days=days)
    return d.isoformat() if not hours else f"{d.isoformat()}T{hours:02d}:00:00"


def _with_end(calls: list[ToolCall], key: str, end: str, new_end: str) -> list[ToolCall]:
    """The calls with every ``key`` argument equal to ``end`` replaced by ``new_end``."""
    out = []
    for call in calls:
        args: dict[str, Any] = dict(call.args)
        if args.get(key) == end:
            args[key] = new_end
        out.append(ToolCall(name=call.name, args=args))
    return out


def window_end_readings(calls: list[ToolCall], key: str, end: str) -> list[Reading]:
    """The two inclusive readings of a window whose text says it ends at ``end`` (a day).

    Args:
        calls: The task's calls; those whose ``key`` argument is ``end`` are changed.
        key: The argument holding the exclusive end (``final`` or ``end_date``).
        end: The end day, ``YYYY-MM-DD``.

    Returns:
        "the end day is part of the window" (end + 1 day) and "the reading stamped at the
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


def as_of_readings(calls: list[ToolCall], key: str, as_of: str) -> list[Reading]:
    """The inclusive reading of "as of {as_of}": records reported on that day count too."""
    return [
        Reading(
            name=AS_OF_INCLUDED,
            description=f"counts the records reported on {as_of} itself as known 'as of' it",
            tool_sequence=_with_end(calls, key, as_of, _shift(as_of, days=1)),
        )
    ]


# -- Holt-Winters under another textbook initialisation --------------------------------------

HW_SIMPLE_INIT = "holt_winters_simple_initialisation"


def holt_winters_simple_init(
    values: list[float], horizon: int, period: int = 24
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

    Args:
        values: The hourly series (at least two seasons).
        horizon: Hours to forecast.
        period: Season length.

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
        trend0=(float(y[m : 2 * m].mean()) - level0) / m,
        season0=y[:m] - level0,
    )
    best = 0  # ties keep the first in grid order, as the scalar loop's strict '<' did
    for i, mae in enumerate(maes):
        if mae < maes[best]:
            best = i
    lv, tr, last = level[best], trend[best], list(season[best, y.size - m :])
    forecast = [lv + h * tr + last[(h - 1) % m] for h in range(1, horizon + 1)]
    return forecast, maes[best]
