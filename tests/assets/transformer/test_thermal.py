"""Golden tests of the IEC 60076-7 thermal model, worked by hand from the standard."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assets.transformer.thermal import (
    COOLING,
    ThermalStepper,
    ageing_rate,
    equivalent_ageing_factor,
    integrate,
    loss_of_life_hours,
    max_step_rise,
    simulate,
    simulate_euler,
    smallest_time_constant,
    steady_state,
    top_oil_rise,
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


def test_de_energised_unit_cools_to_ambient_and_wti_reads_the_top_oil() -> None:
    # ONAN at rated load, θa = 20: θo = 72, Δθh1 = k21·H·gr = 2·26 = 52, Δθh2 = 26.
    # Tripped: all losses off, so after 105 min = k11·τo (35 steps of 3 min):
    # θo = 20 + 52·e^−1 = 39.1297; Δθh1 = 52·e^(−105/20) = 0.27287 (k22·τw = 20 min);
    # Δθh2 = 26·e^(−105/105) = 9.56487 (τo/k22 = 105 min) → θh = 39.1297 + 0.2729 − 9.5649
    # = 29.8377, below the oil: the indicator (oil pocket + CT heater, no current) reads θo.
    st = ThermalStepper(COOLING["ONAN"], 3.0)
    st.settle(1.0, 20.0)
    assert (st.theta_o, st.hot_spot) == pytest.approx((72.0, 98.0))
    for _ in range(35):
        st.advance(1.0, 20.0, energised=False)
    assert st.theta_o == pytest.approx(39.1297, abs=1e-4)
    assert st.hot_spot == pytest.approx(29.8377, abs=1e-4)
    assert st.wti == st.theta_o
    for _ in range(40 * 20):  # 40 h more: everything at ambient, no no-load heating left
        st.advance(1.0, 20.0, energised=False)
    assert st.theta_o == pytest.approx(20.0, abs=1e-6) and st.wti == pytest.approx(20.0)
    # Energised at no load instead, the no-load losses keep the oil 52·(1/7)^0.8 = 10.963 K up.
    st.settle(0.0, 20.0)
    assert st.theta_o == pytest.approx(30.963, abs=1e-3)


def test_wti_never_reads_below_oti_after_a_load_drop() -> None:
    # With k21 = 2 the model's Δθh goes negative after a sharp load decrease (Δθh2 lags);
    # the thermal-image indicator then shows the top oil.
    st = ThermalStepper(COOLING["ONAN"], 3.0)
    st.settle(1.3, 25.0)
    went_negative = False
    for _ in range(200):
        st.advance(0.2, 25.0)
        went_negative |= st.hot_spot < st.theta_o
        assert st.wti >= st.theta_o
    assert went_negative


def test_cooling_factor_and_extra_core_loss_raise_the_top_oil_rise() -> None:
    c = COOLING["ONAN"]
    # Degraded cooling f = 1.25 at rated load: Δθo = 1.25·52 = 65 K.
    assert top_oil_rise(1.0, c, rise_factor=1.25) == pytest.approx(65.0)
    # Extra no-load loss e = 0.6 at rated load: bracket (1 + 0.6 + 6)/7 = 1.085714,
    # ln = 0.0822381, ^0.8 = exp(0.0657905) = 1.068003 → Δθo = 52·1.068003 = 55.536 K.
    assert top_oil_rise(1.0, c, extra_noload=0.6) == pytest.approx(55.536, abs=1e-3)
    st = ThermalStepper(c, 3.0)
    st.settle(1.0, 20.0)
    for _ in range(20 * 60):  # 60 h with f = 1.25: the oil settles at 20 + 65
        st.advance(1.0, 20.0, rise_factor=1.25)
    assert st.theta_o == pytest.approx(85.0, abs=1e-3)


def test_stepper_at_one_hour_steps_is_the_hourly_model() -> None:
    c = COOLING["ONAF"]
    k = np.array([0.6, 0.9, 1.2, 1.2, 0.4, 0.8])
    amb = np.array([20.0, 22.0, 25.0, 24.0, 21.0, 19.0])
    theta_o, theta_h = simulate(k, amb, c, 60.0)
    st = ThermalStepper(c, 60.0)
    st.settle(float(k[0]), float(amb[0]))
    for i in range(k.size):
        st.advance(float(k[i]), float(amb[i]))
        assert (st.theta_o, st.hot_spot) == pytest.approx((theta_o[i], theta_h[i]))


def test_max_step_rise_by_hand() -> None:
    # ONAN, Δt = 3 min, K_max = 1, ambient span 10 K:
    # oil (1 − e^(−3/105))·(10 + 52) = 0.0281671·62 = 1.74636;
    # Δθh1 (1 − e^(−3/20))·2·26 = 0.139292·52 = 7.24319;
    # Δθh2 (1 − e^(−3/105))·(2 − 1)·26 = 0.0281671·26 = 0.73235; total 9.72189 K.
    assert max_step_rise(COOLING["ONAN"], 3.0, 1.0, 10.0) == pytest.approx(9.72189, abs=1e-4)


def test_integrated_loss_of_life_is_the_exact_models_integral_not_the_hour_end_rate() -> None:
    # A 3-hour ONAF overload (1.25, 1.2, 1.15 pu) off 0.9 pu, hourly data. Σ V·Dt of the
    # 1-minute difference equations lands within 1 % of the exact solution integrated every
    # 0.05 min (trapezoid); V at each hour's end × 1 h overstates it by 22 %.
    c = COOLING["ONAF"]
    k = np.array([0.9, 1.25, 1.2, 1.15])
    ambient = np.full(k.size, 25.0)
    run = integrate(k, ambient, c, 60.0)
    assert run.model_step_min == 1.0
    fine_k, fine_a = np.repeat(k, 1200), np.repeat(ambient, 1200)
    _, fine_h = simulate(fine_k, fine_a, c, 0.05)
    start = steady_state(0.9, 25.0, c)[1]
    v = ageing_rate(np.r_[start, fine_h])
    exact = float(np.sum((v[1:] + v[:-1]) / 2) * 0.05 / 60)
    assert float(np.sum(run.step_loss_h)) == pytest.approx(exact, rel=0.01)
    hour_end = loss_of_life_hours(simulate(k, ambient, c, 60.0)[1], 1.0)
    assert hour_end > 1.10 * exact


def test_model_step_above_half_the_smallest_time_constant_is_refused() -> None:
    # OF: k22·τw = 1.0·7 = 7 min is the smallest time constant, so Dt may not exceed 3.5 min.
    assert smallest_time_constant(COOLING["OF"]) == 7.0
    one = np.array([1.0])
    assert integrate(one, one * 20, COOLING["OF"], 60.0, model_step_min=3.5).model_step_min \
        == pytest.approx(60 / 18)
    with pytest.raises(ValueError, match="half the smallest time constant"):
        integrate(one, one * 20, COOLING["OF"], 4.0, model_step_min=4.0)
