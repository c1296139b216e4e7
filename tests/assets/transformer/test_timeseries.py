"""Golden tests of the classical time-series methods, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from assets.transformer import timeseries as ts


def test_robust_z_of_a_short_series() -> None:
    # median 3; |x - 3| = [2, 1, 0, 1, 97] → MAD 1; z = 0.6745·(x - 3)
    z = ts.robust_z([1, 2, 3, 4, 100])
    assert z == pytest.approx([-1.349, -0.6745, 0.0, 0.6745, 65.4265])


def test_robust_z_falls_back_to_mean_absolute_deviation_when_mad_is_zero() -> None:
    # median 5, MAD 0; MeanAD = 4/5 = 0.8 → z(9) = 4 / (1.253314·0.8) = 3.98942
    z = ts.robust_z([5, 5, 5, 5, 9])
    assert z == pytest.approx([0, 0, 0, 0, 3.98942], abs=1e-5)
    assert ts.robust_z([2, 2, 2]).tolist() == [0, 0, 0]


def test_hour_profile_is_the_median_per_hour() -> None:
    profile = ts.hour_profile([0, 1, 0, 1, 0, 1], [1, 10, 3, 20, 2, 30])
    assert profile[0] == 2 and profile[1] == 20 and np.isnan(profile[2])


def _daily(days: int) -> tuple[np.ndarray, np.ndarray]:
    t = np.arange(days * 24)
    # A clean daily cycle plus a small bounded wiggle that is not periodic in 24 h.
    y = 60 + 8 * np.sin(2 * np.pi * t / 24) + 0.1 * np.sin(2 * np.pi * t / 7.3)
    return t, y


def test_a_spike_in_a_clean_daily_cycle_is_found_and_nothing_else() -> None:
    t, y = _daily(14)
    y[100] += 5.0
    found = ts.detect_anomalies(t % 24, y)
    assert found.index.tolist() == [100]
    assert found.score[100] > 10
    assert found.expected[100] == pytest.approx(60 + 8 * np.sin(2 * np.pi * 100 / 24), abs=0.2)


def test_seasonal_naive_reproduces_a_periodic_series_exactly() -> None:
    day = np.array([float(h * h % 17) for h in range(24)])
    y = np.tile(day, 3)
    assert ts.seasonal_naive(y, 30).tolist() == np.concatenate([day, day[:6]]).tolist()
    assert ts.seasonal_naive_mae(y) == 0.0


def test_holt_winters_recovers_a_linear_trend_plus_daily_sine() -> None:
    t = np.arange(7 * 24 + 24)
    y = 10 + 0.05 * t + 3 * np.sin(2 * np.pi * t / 24)
    history, future = y[:-24], y[-24:]
    fixed = ts.holt_winters(history, 0.3, 0.1, 0.2)
    assert fixed.mae == pytest.approx(0, abs=1e-9)
    assert fixed.forecast(24) == pytest.approx(future, abs=1e-9)
    fitted = ts.fit_holt_winters(history + 0.01 * np.sin(2 * np.pi * t[:-24] / 5))
    assert fitted.forecast(24) == pytest.approx(future, abs=0.1)
    # Seasonal naive misses the trend by one day's growth: 24 · 0.05 = 1.2.
    assert ts.seasonal_naive_mae(history) == pytest.approx(1.2)


def test_holt_winters_needs_two_seasons() -> None:
    with pytest.raises(ValueError, match="at least 48"):
        ts.holt_winters(np.zeros(47), 0.1, 0.1, 0.1)


def test_regular_hourly_fills_a_missing_hour_linearly() -> None:
    grid, values, filled = ts.regular_hourly([0, 3600, 3 * 3600], [1.0, 2.0, 4.0])
    assert grid.tolist() == [0, 3600, 7200, 10800]
    assert values.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert filled == 1
