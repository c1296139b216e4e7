"""Golden tests of the audit's own time-series methods, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from eval.audit import series


def test_modified_z_by_hand() -> None:
    # [1, 2, 3, 4, 100]: median 3, |dev| = [2, 1, 0, 1, 97], MAD = 1.
    # z(100) = 0.6745·97 = 65.4265; z(1) = 0.6745·(−2) = −1.349.
    z = series.modified_z(np.array([1.0, 2.0, 3.0, 4.0, 100.0]))
    assert z[4] == pytest.approx(65.4265) and z[0] == pytest.approx(-1.349)


def test_modified_z_falls_back_to_mean_absolute_deviation() -> None:
    # [5, 5, 5, 9]: median 5, MAD = 0; MeanAD = 4/4 = 1 → z(9) = 4 / 1.253314 = 3.19154.
    z = series.modified_z(np.array([5.0, 5.0, 5.0, 9.0]))
    assert z[3] == pytest.approx(3.19154, rel=1e-5) and z[0] == 0.0


def test_anomaly_is_the_reading_off_its_hour_profile() -> None:
    # Three days of a flat daily shape v(h) = h, plus a +50 spike at day 2, 10:00.
    # Profile median at 10:00 = median(10, 60, 10) = 10 → residual 50 at the spike, and
    # residuals 0 elsewhere (more than half zero → MAD 0; MeanAD = 50/72 → z = 50/(1.2533·0.694)
    # = 57.4 > 3.5). The other 71 readings score 0.
    grid = [86400 * 20000 + 3600 * i for i in range(72)]
    values = [float(i % 24) for i in range(72)]
    values[24 + 10] += 50
    found = series.anomalies(grid, values, 3.5)
    assert [t for t, _ in found] == [series.iso(grid[34])]
    assert found[0][1] == pytest.approx(50 / (1.253314 * 50 / 72), rel=1e-6)


def test_seasonal_naive_repeats_the_last_season() -> None:
    # m = 3, y = 1..6, h = 1..4 → y[3], y[4], y[5], then y[3] again: 4, 5, 6, 4.
    assert series.seasonal_naive([1, 2, 3, 4, 5, 6], 4, m=3) == [4.0, 5.0, 6.0, 4.0]
    # MAE: |4−1|, |5−2|, |6−3| → 3.
    assert series.seasonal_naive_mae([1, 2, 3, 4, 5, 6], m=3) == pytest.approx(3.0)


def test_holt_winters_continues_a_straight_line_exactly() -> None:
    # y(t) = t, t = 0..71, m = 24. Two-day linear start: ȳ1 = 11.5, ȳ2 = 35.5, trend
    # (35.5 − 11.5)/24 = 1, level at t = 23: 11.5 + 1·23/2 = 23, seasonals 0. Every update
    # keeps l = t, b = 1, s = 0 (zero errors), so ŷ(72) = 72 and ŷ(71 + 5) = 76.
    fit = series.holt_winters([float(t) for t in range(72)], 5, "two_day_linear")
    assert fit.mae == pytest.approx(0.0, abs=1e-9)
    assert fit.forecast == pytest.approx([72.0, 73.0, 74.0, 75.0, 76.0])


def test_holt_winters_initial_states_differ_on_a_trend() -> None:
    # The textbook start (level ȳ1 = 11.5, seasonals y − 11.5) puts the level 11.5 below
    # the line, so the first one-step error is |24 − (11.5 + 1 + 0 − 11.5)| = 23 ≠ 0.
    flat = series.holt_winters([float(t) for t in range(72)], 1, "two_day_flat")
    assert flat.mae > 0


def test_weekly_baseline_expects_the_weekend_and_never_flags_reference_weeks() -> None:
    # Three weeks from Monday 1 June 2026 00:00: 10 on weekdays, 2 at weekends, every hour.
    # A +30 spike on Wednesday 3 June 10:00 (reference week 1) and on Tuesday 16 June 10:00 (the
    # scored window is the third week). Every (weekday, hour) slot holds 3 readings, so its
    # median is the plain level (10 or 2, the spike is outvoted): residuals are 0 except the
    # two spikes (+30). More than half are 0 → MAD 0 → MeanAD = 60/504 → z(spike) =
    # 30 / (1.253314 · 60/504) = 201.07. Only the window's spike is flagged.
    t0 = series.epoch("2026-06-01T00:00:00")
    assert series.weekday(t0) == 0  # 1 June 2026 is a Monday
    grid = [t0 + 3600 * i for i in range(21 * 24)]
    values = [2.0 if series.weekday(t) >= 5 else 10.0 for t in grid]
    values[2 * 24 + 10] += 30
    values[15 * 24 + 10] += 30
    found = series.weekly_anomalies(grid, values, t0 + 14 * 86400, 3.5)
    assert [t for t, _ in found] == ["2026-06-16T10:00:00"]
    assert found[0][1] == pytest.approx(30 / (1.253314 * 60 / 504), rel=1e-6)
    # The hour-of-day profile over the window alone (5 weekdays at 10, 2 weekend days at 2:
    # median 10) leaves −8 at 48 weekend hours; MeanAD = (48·8 + 30)/168 = 2.464, so the
    # weekend scores −8/(1.253314·2.464) = −2.59 (not flagged) and the spike 9.71.
    window = grid[14 * 24:]
    hour_found = series.anomalies(window, values[14 * 24:], 3.5)
    assert [t for t, _ in hour_found] == ["2026-06-16T10:00:00"]
    assert hour_found[0][1] == pytest.approx(30 / (1.253314 * 414 / 168), rel=1e-6)


def test_weekly_anomalies_with_the_spread_of_the_window_alone_by_hand() -> None:
    # The same three weeks as above. With the spread taken over the window alone (week 3,
    # 168 hourly residuals), the residuals are 0 except the window's spike (+30): median 0,
    # MAD 0 → MeanAD = 30/168 → z(spike) = 30 / (1.253314 · 30/168) = 168/1.253314 = 134.04,
    # not the 201.07 of the whole reference (504 residuals, two spikes).
    t0 = series.epoch("2026-06-01T00:00:00")
    grid = [t0 + 3600 * i for i in range(21 * 24)]
    values = [2.0 if series.weekday(t) >= 5 else 10.0 for t in grid]
    values[2 * 24 + 10] += 30
    values[15 * 24 + 10] += 30
    found = series.weekly_anomalies(grid, values, t0 + 14 * 86400, 3.5, spread="window")
    assert [t for t, _ in found] == ["2026-06-16T10:00:00"]
    assert found[0][1] == pytest.approx(168 / 1.253314, rel=1e-6)
