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
