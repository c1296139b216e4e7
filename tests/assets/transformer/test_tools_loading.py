"""Golden cases of ``assess_emergency_loading``, worked by hand from IEC 60076-7.

Formulas (clause 7 steady state, clause 8.2 dynamic model with constant inputs, whose exact
solution is x(t) = x∞ + (x0 − x∞)·exp(−t/τ)):

    Δθo(K) = Δθor·[(1 + R·K²)/(1 + R)]^x      θo: τ = k11·τo
    Δθh1 target k21·H·gr·K^y                   τ = k22·τw
    Δθh2 target (k21 − 1)·H·gr·K^y             τ = τo/k22
    θh = θo + Δθh1 − Δθh2

The expected values below are computed from these formulas with ``math`` (not the tool or
the thermal module) and the figures in the comments are the same arithmetic by hand.
"""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from assets.transformer.tools_loading import assess_emergency_loading
from generator.tools.registry import TOOLS


def _onan_dist_top_oil_rise(k: float) -> float:
    # distribution ONAN: Δθor 55 K, R 5, x 0.8
    return 55.0 * ((1.0 + 5.0 * k * k) / 6.0) ** 0.8


def test_distribution_unit_exceeds_the_normal_cyclic_hot_spot_limit() -> None:
    """1.6 MVA distribution unit (ONAN distribution: H·gr = 1.1·21 = 23.1 K, y 1.6, k21 = 1
    so Δθh2 = 0, τ(θo) = 1.0·180 = 180 min, τ(Δθh1) = 2·4 = 8 min), ambient 30 °C,
    settled at K0 = 0.8, then 1.2 pu for 4 h, normal cyclic limits 1.5 pu / 120 °C / 105 °C.

    θo(0)  = 30 + 55·(4.2/6)^0.8 = 30 + 55·0.75178 = 71.35 °C
    θo(∞)  = 30 + 55·(8.2/6)^0.8 = 30 + 55·1.28390 = 100.61 °C
    θo(4h) = 100.61 − 29.27·exp(−240/180) = 100.61 − 29.27·0.26360 = 92.90 °C (peak: rising)
    Δθh(4h) = 23.1·1.2^1.6 + (23.1·0.8^1.6 − 23.1·1.2^1.6)·exp(−30)
            = 30.92 (16.16 at the start; e^−30 negligible)
    θh(4h) = 92.90 + 30.92 = 123.82 °C > 120 → not within limits, limiting: hot spot (the
    current 1.2 ≤ 1.5 and the top oil 92.9 ≤ 105 hold). θh first exceeds 120 °C at minute 168
    (θo(168) + Δθh(168) = 120.03; 119.9x at 167).
    """
    out = assess_emergency_loading(
        "D1", 1.2, 4.0, 30.0, 0.8, "normal_cyclic", "ONAN_distribution", "distribution"
    )
    o0 = 30 + _onan_dist_top_oil_rise(0.8)
    oi = 30 + _onan_dist_top_oil_rise(1.2)
    o_end = oi + (o0 - oi) * math.exp(-240 / 180)
    h_end = o_end + 23.1 * 1.2**1.6 + (23.1 * 0.8**1.6 - 23.1 * 1.2**1.6) * math.exp(-240 / 8)
    assert o0 == pytest.approx(71.35, abs=0.01) and o_end == pytest.approx(92.90, abs=0.01)
    assert h_end == pytest.approx(123.82, abs=0.01)
    assert out.initial_top_oil_c == pytest.approx(o0, abs=1e-9)
    assert out.peak_top_oil_c == pytest.approx(o_end, abs=1e-9)
    assert out.peak_hot_spot_c == pytest.approx(h_end, abs=1e-9)
    assert out.peak_hot_spot_minute == 240
    assert out.within_limits is False
    assert out.limiting_quantity == "hot_spot"
    checks = {c.quantity: c for c in out.checks}
    assert checks["current"].within and checks["top_oil"].within
    assert checks["hot_spot"].limit == 120.0 and checks["hot_spot"].exceeded_at_minute == 168
    assert out.ultimate_hot_spot_c == pytest.approx(oi + 23.1 * 1.2**1.6, abs=1e-9)


def test_distribution_unit_carries_110_percent_for_two_hours() -> None:
    """Same unit and ambient, 1.1 pu for 2 h:

    θo(∞) = 30 + 55·(7.05/6)^0.8 = 30 + 55·1.13770 = 92.57 °C
    θo(2h) = 92.57 − 21.23·exp(−120/180) = 92.57 − 21.23·0.51342 = 81.68 °C
    θh(2h) = 81.68 + 23.1·1.1^1.6 = 81.68 + 26.91 = 108.58 °C ≤ 120
    Within limits; margins 120 − 108.58 = 11.42 K (hot spot), 105 − 81.68 = 23.32 K (top
    oil): the hot spot limits.
    """
    out = assess_emergency_loading(
        "D1", 1.1, 2.0, 30.0, 0.8, "normal_cyclic", "ONAN_distribution", "distribution"
    )
    o0 = 30 + _onan_dist_top_oil_rise(0.8)
    oi = 30 + _onan_dist_top_oil_rise(1.1)
    o_end = oi + (o0 - oi) * math.exp(-120 / 180)
    assert o_end == pytest.approx(81.68, abs=0.01)
    assert out.peak_top_oil_c == pytest.approx(o_end, abs=1e-9)
    assert out.peak_hot_spot_c == pytest.approx(108.58, abs=0.01)
    assert out.within_limits and out.limiting_quantity == "hot_spot"
    assert {c.quantity: c.margin for c in out.checks}["top_oil"] == pytest.approx(
        105 - o_end, abs=1e-9)


def test_onan_short_time_emergency_with_the_two_hot_spot_terms() -> None:
    """Medium ONAN unit (H·gr = 1.3·20 = 26 K, y 1.3, Δθor 52 K, R 6, k11 0.5, k21 2, k22 2,
    τo 210, τw 10 → τ(θo) = 105 min, τ(Δθh1) = 20 min, τ(Δθh2) = 105 min), ambient 20 °C,
    settled at 1.0 pu, then 1.5 pu for 30 min, short-time emergency limits 1.8 / 160 / 115.

    θo: 72 → θo(∞) = 20 + 52·(14.5/7)^0.8 = 20 + 52·1.79078 = 113.12;
        θo(30) = 113.12 − 41.12·exp(−30/105) = 113.12 − 41.12·0.75148 = 82.22 °C
    1.5^1.3 = 1.69391: Δθh1 52 → 88.08, Δθh1(30) = 88.08 − 36.08·exp(−1.5) = 80.03
                       Δθh2 26 → 44.04, Δθh2(30) = 44.04 − 18.04·0.75148 = 30.48
    θh(30) = 82.22 + 80.03 − 30.48 = 131.77 °C (still rising at 30 min: peak at the end).
    Within limits (1.5 ≤ 1.8, 131.8 ≤ 160, 82.2 ≤ 115); margins 28.2 K and 32.8 K: hot spot.
    """
    out = assess_emergency_loading("M1", 1.5, 0.5, 20.0, 1.0, "short_time_emergency",
                                   "ONAN", "medium")
    ky = 1.5**1.3
    o = 20 + 52 * (14.5 / 7) ** 0.8 + (52 - 52 * (14.5 / 7) ** 0.8) * math.exp(-30 / 105)
    h1 = 52 * ky + (52 - 52 * ky) * math.exp(-30 / 20)
    h2 = 26 * ky + (26 - 26 * ky) * math.exp(-30 / 105)
    assert o + h1 - h2 == pytest.approx(131.77, abs=0.01)
    assert out.initial_hot_spot_c == pytest.approx(72 + 26, abs=1e-9)
    assert out.peak_top_oil_c == pytest.approx(o, abs=1e-9)
    assert out.peak_hot_spot_c == pytest.approx(o + h1 - h2, abs=1e-9)
    assert out.within_limits and out.limiting_quantity == "hot_spot"


def test_current_above_the_regime_limit_is_limiting_at_once() -> None:
    """Large-power normal cyclic current limit 1.3 pu: 1.4 pu exceeds it from minute 0, so
    the current limits even if a temperature is exceeded later."""
    out = assess_emergency_loading("L1", 1.4, 6.0, 35.0, 1.0, "normal_cyclic", "OF", "large")
    assert not out.within_limits and out.limiting_quantity == "current"
    current = next(c for c in out.checks if c.quantity == "current")
    assert current.limit == 1.3 and current.exceeded_at_minute == 0


def test_distribution_short_time_emergency_has_no_hot_spot_limit() -> None:
    out = assess_emergency_loading("D1", 1.9, 0.5, 30.0, 1.0, "short_time_emergency",
                                   "ONAN_distribution", "distribution")
    hot = next(c for c in out.checks if c.quantity == "hot_spot")
    assert hot.limit is None and hot.within and hot.margin is None


def test_bad_regime_is_rejected_and_the_tool_is_registered() -> None:
    with pytest.raises(ValidationError, match="regime"):
        assess_emergency_loading("D1", 1.2, 4.0, 30.0, 0.8, "emergency")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="duration_hours"):
        assess_emergency_loading("D1", 1.2, 0.0, 30.0, 0.8, "normal_cyclic")
    assert "assess_emergency_loading" in {s.name for s in TOOLS.all()}
