"""Golden tests of the IEC 60076-7 thermal model, worked by hand from the standard."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assets.transformer.thermal import (
    COOLING,
    ageing_rate,
    equivalent_ageing_factor,
    loss_of_life_hours,
    simulate,
    simulate_euler,
    steady_state,
)


def test_onan_rated_load_reaches_the_98_degree_design_point() -> None:
    # Medium/large ONAN: Δθor = 52 K, H·gr = 1.3·20 = 26 K. At K = 1 the bracket
    # (1 + R·K²)/(1 + R) = 1, so Δθo = 52 and Δθh = 26 → θo = 20 + 52 = 72, θh = 98.
    theta_o, theta_h = steady_state(1.0, 20.0, COOLING["ONAN"])
    assert theta_o == pytest.approx(72.0)
    assert theta_h == pytest.approx(98.0)


def test_distribution_onan_overload_by_hand() -> None:
    # Distribution ONAN, K = 1.2, θa = 30: bracket = (1 + 5·1.44)/6 = 8.2/6 = 1.366667;
    # 1.366667^0.8 = exp(0.8·ln 1.366667) = exp(0.8·0.312375) = exp(0.2499) = 1.283897;
    # Δθo = 55·1.283897 = 70.614; Δθh = 1.1·21·1.2^1.6 = 23.1·exp(1.6·0.182322) = 23.1·1.338778
    # = 30.926; θo = 100.614, θh = 131.540.
    theta_o, theta_h = steady_state(1.2, 30.0, COOLING["ONAN_distribution"])
    assert theta_o == pytest.approx(100.614, abs=0.01)
    assert theta_h == pytest.approx(131.540, abs=0.01)


def test_no_load_top_oil_rise_is_the_no_load_loss_share() -> None:
    # K = 0: Δθo = Δθor·(1/(1+R))^x. ONAF: 52·(1/7)^0.8 = 52·exp(-0.8·1.94591) = 52·0.210826
    # = 10.963 K; Δθh = 0.
    theta_o, theta_h = steady_state(0.0, 10.0, COOLING["ONAF"])
    assert theta_o == pytest.approx(20.963, abs=0.01)
    assert theta_h == pytest.approx(theta_o)


def test_kraft_ageing_doubles_every_six_kelvin() -> None:
    # V = 2^((θh − 98)/6): 1.0 at 98 °C, 2.0 at 104 °C, 0.5 at 92 °C, 8 at 116 °C.
    assert ageing_rate(98.0) == pytest.approx(1.0)
    assert ageing_rate(104.0) == pytest.approx(2.0)
    assert ageing_rate(92.0) == pytest.approx(0.5)
    assert ageing_rate(116.0) == pytest.approx(8.0)


def test_upgraded_paper_ageing_by_hand() -> None:
    # V = exp(15000/383 − 15000/(θh + 273)): 1 at 110 °C; at 120 °C:
    # 15000/383 = 39.164491, 15000/393 = 38.167939 → exp(0.996552) = 2.708930.
    assert ageing_rate(110.0, "upgraded") == pytest.approx(1.0)
    assert ageing_rate(120.0, "upgraded") == pytest.approx(2.70893, rel=1e-5)


def test_loss_of_life_and_equivalent_ageing() -> None:
    # 12 h at 98 °C (V = 1) plus 12 h at 104 °C (V = 2) → L = 12 + 24 = 36 h (Kraft).
    series = np.array([98.0] * 12 + [104.0] * 12)
    assert loss_of_life_hours(series, 1.0) == pytest.approx(36.0)
    # F_EQA over 110 °C and 120 °C halves: (1 + 2.70893)/2.
    assert equivalent_ageing_factor(np.array([110.0, 120.0])) == pytest.approx(1.854465, rel=1e-5)


def test_step_response_converges_to_steady_state_with_oil_time_constant() -> None:
    c = COOLING["ONAN"]
    k = np.r_[np.full(1, 0.5), np.full(3000, 1.0)]
    ambient = np.full(k.size, 20.0)
    theta_o, theta_h = simulate(k, ambient, c, 1.0)
    assert theta_o[-1] == pytest.approx(72.0, abs=0.01)
    assert theta_h[-1] == pytest.approx(98.0, abs=0.01)
    # After one oil time constant k11·τo = 105 min the top oil has covered 1 − 1/e of the step.
    start = steady_state(0.5, 20.0, c)[0]
    covered = (theta_o[105] - start) / (72.0 - start)
    assert covered == pytest.approx(1 - math.exp(-106 / 105), abs=0.005)


def test_exact_solution_matches_the_standards_difference_equations() -> None:
    c = COOLING["ONAF"]
    minutes = np.arange(24 * 60)
    k = 0.7 + 0.4 * np.sin(2 * np.pi * minutes / 1440)
    ambient = 25 + 5 * np.cos(2 * np.pi * minutes / 1440)
    exact_o, exact_h = simulate(k, ambient, c, 1.0)
    euler_o, euler_h = simulate_euler(k, ambient, c, 1.0)
    assert np.max(np.abs(exact_o - euler_o)) < 0.2
    assert np.max(np.abs(exact_h - euler_h)) < 0.5


def test_hot_spot_overshoots_on_a_load_step_when_k21_above_one() -> None:
    # IEC 60076-7 models the hot-spot overshoot with k21 > 1: right after a step the
    # hot-spot rise exceeds its final value before the oil catches up.
    c = COOLING["ONAN"]
    k = np.r_[np.full(1, 0.3), np.full(600, 1.2)]
    theta_o, theta_h = simulate(k, np.full(k.size, 20.0), c, 1.0)
    rise = theta_h - theta_o
    final_rise = 26.0 * 1.2**1.3
    assert rise.max() > final_rise + 1.0
