"""Golden tests of assets.chiller.diagnostics, worked by hand from the definitions.

IPLV (AHRI 550/590): 0.01·A + 0.42·B + 0.45·C + 0.12·D for COP; for kW/ton the reciprocal
form 1 / (0.01/A + 0.42/B + 0.45/C + 0.12/D). Approaches: evaporator = LCHW − T_evap,sat;
condenser = T_cond,sat − LCW. Fault thresholds: approach rise ≥ 3 °F = 1.6667 K; subcooling
shift ≥ 5 °F = 2.7778 K; superheat rise ≥ 10 K.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assets.chiller.diagnostics import (
    DiagnosisInputs,
    condenser_approach,
    design_kw_per_ton,
    diagnose,
    evaporator_approach,
    f_to_c,
    heat_balance_closes,
    heat_balance_pct,
    iplv_cop,
    iplv_kw_per_ton,
    kw_per_ton,
    kw_per_ton_degradation_pct,
    model_iplv,
    water_heat_kw,
    water_range,
)
from assets.chiller.performance import DOE2_CENTRIFUGAL, KW_PER_TON
from generator.errors import UserError


def test_iplv_from_four_kw_per_ton_values() -> None:
    # A..D = 0.60, 0.50, 0.45, 0.55 kW/ton
    # 0.01/0.60 + 0.42/0.50 + 0.45/0.45 + 0.12/0.55 = 0.0166667 + 0.84 + 1.0 + 0.2181818
    #   = 2.0748485 → IPLV = 1 / 2.0748485 = 0.481963 kW/ton
    assert iplv_kw_per_ton([0.60, 0.50, 0.45, 0.55]) == pytest.approx(0.481963, abs=1e-6)


def test_iplv_from_four_cops() -> None:
    # A..D = 6.0, 7.0, 7.5, 6.5: 0.06 + 2.94 + 3.375 + 0.78 = 7.155
    assert iplv_cop([6.0, 7.0, 7.5, 6.5]) == pytest.approx(7.155, abs=1e-12)


@given(st.lists(st.floats(0.3, 1.5), min_size=4, max_size=4))
def test_iplv_forms_agree(kwt: list[float]) -> None:
    # COP_i = 3.516852 / kWt_i ⇒ Σ w_i·COP_i = 3.516852 · Σ w_i / kWt_i = 3.516852 / IPLV_kWt
    cops = [KW_PER_TON / v for v in kwt]
    assert KW_PER_TON / iplv_cop(cops) == pytest.approx(iplv_kw_per_ton(kwt), rel=1e-9)


def test_iplv_needs_four_positive_values() -> None:
    with pytest.raises(UserError, match="four positive"):
        iplv_cop([6.0, 7.0, 7.5])
    with pytest.raises(UserError, match="four positive"):
        iplv_kw_per_ton([0.6, 0.5, 0.0, 0.5])


def test_model_iplv_rating_points() -> None:
    # 44 °F = 6.667 °C; ECWT 85/75/65/65 °F = 29.44/23.89/18.33/18.33 °C. The DOE-2 curves stop
    # at 24 °C, so the 75, 50 and 25 % points are evaluated at 24 °C and reported as clamped.
    assert f_to_c(44.0) == pytest.approx(6.6667, abs=1e-4)
    assert f_to_c(75.0) == pytest.approx(23.8889, abs=1e-4)
    assert f_to_c(65.0) == pytest.approx(18.3333, abs=1e-4)
    result = model_iplv(DOE2_CENTRIFUGAL)
    assert result.clamped_points == [75, 50, 25]
    # By hand, x = 20/3 (x² = 44.444444), y = 265/9 (y² = 866.975309, x·y = 196.296296):
    # CAPFT(x, 29.44) = 0.257896 + 0.259344 − 0.009648 + 1.380014 − 0.817419 − 0.067416
    #                 = 1.002771
    # EIRFT(x, 29.44) = 0.933884 − 0.38808 + 0.200016 + 0.07155 + 0.42135 − 0.2385 = 1.00022
    # At y = 24 (y² = 576, x·y = 160):
    # CAPFT(x, 24) = 0.507592 + 1.1248416 − 0.5430758 − 0.0549504 = 1.0344074
    # EIRFT(x, 24) = 0.74582 + 0.05832 + 0.279936 − 0.1944 = 0.889676
    # 3.516852 / 5.5 = 0.6394276 kW/ton at EIRFT = EIRFPLR = 1.
    # A (100 %): PLR 1 → 0.6394276 × 1.00022 = 0.639568
    # Loads are fractions of Q_ref·1.002771; at 24 °C PLR = f × 1.002771 / 1.0344074 = f × 0.969416
    # kW/ton = 0.6394276 × (1.0344074 / 1.002771) × 0.889676 × EIRFPLR / f
    #        = 0.5868309 × EIRFPLR(PLR) / f
    # B (75 %): PLR 0.727062, EIRFPLR = 0.222903 + 0.2278518 + 0.2451259 = 0.6958807
    #           → 0.5868309 × 0.6958807 / 0.75 = 0.544486
    # C (50 %): PLR 0.484708, EIRFPLR = 0.222903 + 0.1519012 + 0.1089449 = 0.4837491
    #           → 0.5868309 × 0.4837491 / 0.5 = 0.567758
    # D (25 %): PLR 0.242354 (≥ 0.2, no false loading), EIRFPLR = 0.222903 + 0.0759506
    #           + 0.0272363 = 0.3260899 → 0.5868309 × 0.3260899 / 0.25 = 0.765439
    # IPLV = 1 / (0.0156356 + 0.7713697 + 0.7925912 + 0.1567728) = 1 / 1.7363693 = 0.575914
    for got, hand in zip(
        result.kw_per_ton, (0.639568, 0.544486, 0.567758, 0.765439), strict=True
    ):
        assert got == pytest.approx(hand, abs=3e-6)
    assert result.iplv_kw_per_ton == pytest.approx(0.575914, abs=3e-6)
    assert result.iplv_cop == pytest.approx(KW_PER_TON / 0.575914, abs=5e-5)


def test_approaches_and_ranges_hand_case() -> None:
    # LCHW 6.7, evaporator saturation 5.2 → 1.5 K; condenser saturation 36.4, LCW 35.0 → 1.4 K
    # CHW 12.3 → 6.7: range 5.6 K; 100 L/s × 5.0 K × 4.186 = 2093 kW
    assert evaporator_approach(6.7, 5.2) == pytest.approx(1.5)
    assert condenser_approach(36.4, 35.0) == pytest.approx(1.4)
    assert water_range(12.3, 6.7) == pytest.approx(5.6)
    assert water_heat_kw(100.0, 5.0) == pytest.approx(2093.0)


def test_heat_balance_and_kw_per_ton_hand_case() -> None:
    # (1500 + 300 − 1850) / 1850 × 100 = −2.7027 %; 300 kW / (1500 / 3.516852) = 0.703370
    assert heat_balance_pct(1500.0, 300.0, 1850.0) == pytest.approx(-2.7027, abs=1e-4)
    # |−2.70| ≤ 5 → closed; (1500 + 300 − 1700) / 1700 × 100 = 5.88 % → not closed
    assert heat_balance_closes(1500.0, 300.0, 1850.0)
    assert not heat_balance_closes(1500.0, 300.0, 1700.0)
    assert kw_per_ton(300.0, 1500.0) == pytest.approx(0.703370, abs=1e-6)


def test_degradation_against_the_design_curve() -> None:
    # Design at 7 °C / 25 °C and 250 tons: 0.574945 kW/ton (test_performance, by hand).
    # Measured 0.63: (0.63 / 0.574945 − 1) × 100 = 9.5757 %
    design = design_kw_per_ton(DOE2_CENTRIFUGAL, 879.213, 7.0, 25.0)
    assert design == pytest.approx(0.574945, abs=1e-5)
    assert kw_per_ton_degradation_pct(0.63, design) == pytest.approx(9.5757, abs=2e-3)


def _inputs(**kw: float) -> DiagnosisInputs:
    base = {
        "evaporator_approach_k": 1.2, "condenser_approach_k": 1.2,
        "design_evaporator_approach_k": 1.1, "design_condenser_approach_k": 1.1,
        "subcooling_k": 4.2, "design_subcooling_k": 4.0,
        "discharge_superheat_k": 8.5, "design_discharge_superheat_k": 8.0,
    }
    base.update(kw)
    return DiagnosisInputs.model_validate(base)


def test_condenser_fouling_hand_case() -> None:
    # Condenser approach 3.2 vs design 1.1: rise 2.1 K ≥ 1.667; subcooling 4.2 vs 4.0: shift
    # 0.2 K < 2.778 → fouled tubes, not non-condensables.
    r = diagnose(_inputs(condenser_approach_k=3.2))
    assert r.findings == ["condenser_fouling"]
    assert r.condenser_approach_rise_k == pytest.approx(2.1)


def test_non_condensables_hand_case() -> None:
    # Same approach, subcooling 7.5: shift 3.5 K ≥ 2.778 → purge problem (non-condensables).
    assert diagnose(_inputs(condenser_approach_k=3.2, subcooling_k=7.5)).findings == [
        "purge_problem"
    ]


def test_low_charge_and_evaporator_fouling_hand_cases() -> None:
    # Evaporator approach 3.0 vs 1.1: rise 1.9 K ≥ 1.667. Subcooling 1.0 vs 4.0: shift −3.0 K
    # ≤ −2.778 → low charge; with subcooling 4.2 (shift 0.2) → fouled evaporator tubes.
    assert diagnose(_inputs(evaporator_approach_k=3.0, subcooling_k=1.0)).findings == [
        "low_refrigerant_charge"
    ]
    assert diagnose(_inputs(evaporator_approach_k=3.0)).findings == ["evaporator_fouling"]


def test_below_thresholds_is_normal_and_overheating_is_found() -> None:
    # Rise 1.5 K < 1.667 → normal; superheat 19 vs 8 → rise 11 K ≥ 10 → overheating.
    assert diagnose(_inputs(condenser_approach_k=2.6)).findings == ["normal"]
    assert diagnose(_inputs(discharge_superheat_k=19.0)).findings == ["compressor_overheating"]
