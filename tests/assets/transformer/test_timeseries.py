"""Golden tests of the classical time-series methods, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from generator.tools import timeseries as ts


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


def _weekly(weeks: int, offsets: list[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weeks starting on a Monday: 100 on Mon-Fri, 60 on Sat-Sun, +20 from 08:00 to 19:00,
    plus offsets[w] on every reading of week w."""
    t = np.arange(weeks * 168)
    weekday, hour = (t // 24) % 7, t % 24
    y = np.where(weekday >= 5, 60.0, 100.0) + np.where((hour >= 8) & (hour <= 19), 20.0, 0.0)
    y = y + np.asarray(offsets, dtype=float)[t // 168]
    return weekday, hour, y


def test_weekly_baseline_flags_the_spike_and_no_weekend_hour() -> None:
    # Three weeks with offsets 0, +1, −1 and a +20 spike on week 1's Tuesday 14:00
    # (index 168 + 24 + 14 = 206). Every (weekday, hour) slot holds 3 readings (= MIN_WEEKS),
    # so level 1: the slot median is the week-0 value (base, base + 1, base − 1; at the
    # spike slot base, base + 21, base − 1 → still base). Residuals: week 0 → 0, week 1 →
    # +1 (the spike +21), week 2 → −1; median(r) = 0, MAD = 1, so z = 0.6745·r: the spike
    # scores 0.6745·21 = 14.1645, every other reading |z| ≤ 0.6745.
    weekday, hour, y = _weekly(3, [0.0, 1.0, -1.0])
    y[206] += 20.0
    found = ts.detect_anomalies(weekday, hour, y)
    assert found.index.tolist() == [206]
    assert found.score[206] == pytest.approx(14.1645)
    assert found.expected[206] == 120.0  # weekday 100 + working hours 20, week 0
    assert set(found.level.tolist()) == {1}
    assert np.abs(np.delete(found.score, 206)).max() == pytest.approx(0.6745)


def test_the_daily_profile_alone_flags_every_weekend_hour() -> None:
    # The method this replaces, on the same series: the hour-of-day median of 21 days is the
    # 11th of (6 weekend values, 5 × base − 1, 5 × base, 5 × base + 1) = weekday base − 1,
    # so weekday residuals are 0, 1, 2 (120 each) and weekend residuals −39, −38, −40.
    # median(r) = 0, MAD = 2 (the 252nd/253rd |r| fall among the 2s): a weekend hour scores
    # 0.6745·(−39)/2 ≈ −13.2, far beyond 3.5: all 144 weekend hours are "anomalies".
    weekday, hour, y = _weekly(3, [0.0, 1.0, -1.0])
    y[206] += 20.0
    z = ts.robust_z(y - ts.hour_profile(hour, y)[hour])
    flagged = np.flatnonzero(np.abs(z) > 3.5)
    assert int((weekday[flagged] >= 5).sum()) == 144
    assert z[5 * 24 + 3] == pytest.approx(0.6745 * -39 / 2)


def test_short_reference_falls_back_to_day_type_then_hour() -> None:
    # Two weeks (offsets 0, +1): each (weekday, hour) slot has 2 < 3 readings, so level 2:
    # the working-day slot of an hour holds 10 readings (5 × base, 5 × base + 1, median
    # base + 0.5), the weekend slot 4 (60, 60, 61, 61 → 60.5 off working hours).
    # A +20 spike on week 1's Wednesday 03:00 (index 168 + 48 + 3 = 219) makes that slot
    # 100 ×5, 101 ×4, 121 → median 100.5, residual 20.5. Every other residual is ±0.5, so
    # median(r) = 0 (168 × −0.5 below, 167 × +0.5 and 20.5 above), MAD = 0.5 and
    # z(spike) = 0.6745·20.5/0.5 = 27.6545.
    weekday, hour, y = _weekly(2, [0.0, 1.0])
    y[219] += 20.0
    found = ts.detect_anomalies(weekday, hour, y)
    assert set(found.level.tolist()) == {2}
    assert found.expected[5 * 24 + 3] == 60.5
    assert found.index.tolist() == [219]
    assert found.score[219] == pytest.approx(27.6545)
    # Two days only (a Monday and a Tuesday): 2 readings per weekday-type slot too, so the
    # hour-of-day median (the mean of the two days) is used: level 3.
    short = ts.detect_anomalies([0] * 24 + [1] * 24, list(range(24)) * 2, np.arange(48.0))
    assert set(short.level.tolist()) == {3}
    assert short.expected[0] == 12.0  # (0 + 24) / 2


def test_reference_readings_are_scored_but_never_reported() -> None:
    weekday, hour, y = _weekly(3, [0.0, 1.0, -1.0])
    y[30] += 20.0  # week 0, before the window
    found = ts.detect_anomalies(weekday, hour, y, score_from=168)
    assert found.score[30] > 3.5 and found.index.tolist() == []


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


def test_hours_filled_equal_the_grid_hours_without_a_reading() -> None:
    # readings off the grid (t0 + 1800) and repeated hours do not count as filled hours
    t0 = 1_700_000_000
    _, _, filled = ts.regular_hourly([t0, t0 + 1800, t0 + 3600, t0 + 3600, t0 + 4 * 3600],
                                     [1.0, 1.5, 2.0, 2.0, 5.0])
    assert filled == 2  # grid t0 .. t0+4h has 5 hours; t0, t0+1h, t0+4h hold readings
    rng = np.random.default_rng(3)
    for _ in range(300):
        offs = np.sort(rng.choice(np.concatenate([np.arange(100) * 3600,
                                                  rng.integers(0, 100 * 3600, 20)]),
                                  int(rng.integers(1, 40))))
        t = (t0 + offs).astype(np.int64)
        grid, _, filled = ts.regular_hourly(t, rng.random(t.size))
        assert filled == int(grid.size - np.isin(grid, t).sum())


def test_the_array_grid_search_equals_the_scalar_fits_bit_for_bit() -> None:
    import itertools

    rng = np.random.default_rng(11)
    grid = list(itertools.product(ts.ALPHA_GRID, ts.BETA_GRID, ts.GAMMA_GRID))
    for n in (48, 97, 336):
        hours = np.arange(n)
        y = 5 * np.sin(hours * 2 * np.pi / 24) + 0.02 * hours + rng.normal(0, 0.7, n)
        scalar = [ts.holt_winters(y, a, b, g).mae for a, b, g in grid]
        assert ts._grid_maes(y, grid, ts.PERIOD) == scalar
        best = min(range(len(grid)), key=lambda i: (scalar[i], i))  # first of the smallest
        fit = ts.fit_holt_winters(y)
        assert (fit.alpha, fit.beta, fit.gamma) == grid[best]


def test_slot_medians_by_sorting_equal_a_median_per_slot() -> None:
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 30, 500)
    x = np.round(rng.normal(50, 10, 500), 1)  # rounded: ties inside slots
    fast, n_fast = ts.slot_medians(keys, x)
    for key in np.unique(keys):
        sel = keys == key
        assert np.all(fast[sel] == np.median(x[sel])) and np.all(n_fast[sel] == sel.sum())
    x[3] = np.nan  # NaN propagates to its slot, as np.median does
    nan_med, _ = ts.slot_medians(keys, x)
    assert np.isnan(nan_med[keys == keys[3]]).all() and not np.isnan(nan_med[keys != keys[3]]).any()


def test_slot_medians_of_any_keys_and_a_shared_value_order() -> None:
    rng = np.random.default_rng(8)
    x = np.round(rng.normal(50, 10, 400), 0)  # many ties
    by_value = np.argsort(x, kind="stable")
    # small non-negative keys (counted per slot), negative ones and large ones (sorted)
    for keys in (rng.integers(0, 168, 400), rng.integers(-3, 3, 400),
                 rng.integers(0, 3, 400) * 100_000):
        for shared in (None, by_value):
            med, n = ts.slot_medians(keys, x, shared)
            for key in np.unique(keys):
                sel = keys == key
                assert np.all(med[sel] == np.median(x[sel])) and np.all(n[sel] == sel.sum())


def test_anomalies_at_another_threshold_are_those_detect_anomalies_gives() -> None:
    rng = np.random.default_rng(9)
    hours = np.arange(24 * 21)
    x = rng.normal(0, 1, hours.size)
    found = ts.detect_anomalies((hours // 24) % 7, hours % 24, x, 3.5, score_from=24 * 14)
    for threshold in (0.5, 1.0, 2.0, 3.5):
        again = ts.detect_anomalies((hours // 24) % 7, hours % 24, x, threshold, 24 * 14)
        index = ts.anomalous(found.score, threshold, 24 * 14)
        assert index.tolist() == again.index.tolist()
        assert all(i >= 24 * 14 and abs(found.score[i]) > threshold for i in index)
