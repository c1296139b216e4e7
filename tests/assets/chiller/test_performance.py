"""Golden tests of assets.chiller.performance, worked by hand from the EIR model.

Curves (DOE-2 Centrifugal/5.50COP, EnergyPlus DataSets/Chillers.idf), x = T_chws, y = T_cond,in:
CAPFT = 0.257896 + 0.0389016·x − 0.00021708·x² + 0.0468684·y − 0.00094284·y² − 0.00034344·x·y
EIRFT = 0.933884 − 0.058212·x + 0.00450036·x² + 0.00243·y + 0.000486·y² − 0.001215·x·y
EIRFPLR = 0.222903 + 0.313387·p + 0.46371·p²
Q_ref = 500 ton × 3.516852 = 1758.426 kW, COP_ref 5.5, P_ref = 1758.426 / 5.5 = 319.71382 kW.
"""

from __future__ import annotations

import pytest

from assets.chiller.performance import (
    DOE2_CENTRIFUGAL,
    KW_PER_TON,
    chiller_performance,
    cop_from_kw_per_ton,
    kw_per_ton_from_cop,
)
from generator.errors import UserError

CH = DOE2_CENTRIFUGAL


def test_reference_point_gives_reference_power() -> None:
    # x = 6.67, y = 29.4; x² = 44.4889, y² = 864.36, x·y = 196.098
    # CAPFT = 0.257896 + 0.259473672 − 0.00965765 + 1.37793096 − 0.81495318 − 0.0673479
    #       = 1.0033419
    # EIRFT = 0.933884 − 0.38827404 + 0.20021606 + 0.071442 + 0.42007896 − 0.23825907
    #       = 0.9990879
    # A load above capacity is met at PLR = 1: EIRFPLR(1) = 0.222903 + 0.313387 + 0.46371 = 1.
    # Q_avail = 1758.426 × 1.0033419 = 1764.3025 kW
    # P = 319.71382 × 1.0033419 × 0.9990879 × 1 = 319.71382 × 1.0024268 = 320.4897 kW
    # (= P_ref within 0.25 %: the published coefficients are rounded to six figures)
    # COP = 5.5 / EIRFT = 5.505021; kW/ton = 3.516852 / 5.505021 = 0.638844
    p = chiller_performance(CH, 2000.0, 6.67, 29.4)
    assert CH.ref_power_kw == pytest.approx(319.71382, rel=1e-7)
    assert p.capft == pytest.approx(1.0033419, abs=2e-7)
    assert p.eirft == pytest.approx(0.9990879, abs=2e-7)
    assert p.eirfplr == pytest.approx(1.0, abs=1e-12)
    assert p.plr == pytest.approx(1.0)
    assert p.available_capacity_kw == pytest.approx(1764.3025, abs=1e-3)
    assert p.delivered_kw == pytest.approx(1764.3025, abs=1e-3)
    assert p.power_kw == pytest.approx(320.4897, abs=1e-3)
    assert p.power_kw == pytest.approx(CH.ref_power_kw, rel=3e-3)
    assert p.cop == pytest.approx(5.505021, abs=1e-5)
    assert p.kw_per_ton == pytest.approx(0.638844, abs=1e-5)
    assert not p.temperatures_clamped


def test_off_design_point_by_hand() -> None:
    # x = 7, y = 25, load = 879.213 kW (250 tons, half of Q_ref)
    # CAPFT = 0.257896 + 0.2723112 − 0.01063692 + 1.17171 − 0.589275 − 0.060102 = 1.04190328
    # EIRFT = 0.933884 − 0.407484 + 0.22051764 + 0.06075 + 0.30375 − 0.212625 = 0.89879264
    # Q_avail = 1758.426 × 1.04190328 = 1832.1098 kW; PLR = 0.5 / 1.04190328 = 0.4798910
    # EIRFPLR = 0.222903 + 0.313387 × 0.479891 + 0.46371 × 0.23029537
    #         = 0.222903 + 0.1503916 + 0.1067903 = 0.4800849
    # P = (Q_avail / 5.5) × EIRFT × EIRFPLR = 333.11088 × 0.89879264 × 0.4800849
    #   = 299.39760 × 0.4800849 = 143.7363 kW  (PLR ≥ 0.2: no false loading, no cycling)
    # kW/ton = 143.7363 / 250 = 0.574945; COP = 879.213 / 143.7363 = 6.11685
    p = chiller_performance(CH, 879.213, 7.0, 25.0)
    assert p.capft == pytest.approx(1.04190328, abs=1e-7)
    assert p.eirft == pytest.approx(0.89879264, abs=1e-7)
    assert p.plr == pytest.approx(0.4798910, abs=1e-6)
    assert p.eirfplr == pytest.approx(0.4800849, abs=1e-6)
    assert p.power_kw == pytest.approx(143.7363, abs=2e-3)
    assert p.kw_per_ton == pytest.approx(0.574945, abs=1e-5)
    assert p.cop == pytest.approx(6.11685, abs=1e-4)


def test_false_loading_and_cycling_below_the_limits() -> None:
    # At the reference temperatures, load = 0.05 × Q_avail: PLR 0.05 < MUR 0.2, < PLR_min 0.1.
    # EIRFPLR(0.2) = 0.222903 + 0.0626774 + 0.0185484 = 0.3041288; cycling = 0.05 / 0.1 = 0.5
    # P = 320.4897 × 0.3041288 × 0.5 = 48.7351 kW
    q_avail = 1758.426 * 1.0033419
    p = chiller_performance(CH, 0.05 * q_avail, 6.67, 29.4)
    assert p.eirfplr == pytest.approx(0.3041288, abs=1e-7)
    assert p.cycling_fraction == pytest.approx(0.5, abs=1e-6)
    assert p.power_kw == pytest.approx(48.7351, abs=2e-3)


def test_curve_inputs_are_limited_to_their_range() -> None:
    # 18.33 °C condenser water lies below the curves' 24 °C minimum: evaluated at 24 °C.
    low = chiller_performance(CH, 800.0, 6.67, 18.33)
    at_min = chiller_performance(CH, 800.0, 6.67, 24.0)
    assert low.temperatures_clamped and not at_min.temperatures_clamped
    assert low.power_kw == pytest.approx(at_min.power_kw)
    # Extrapolated instead: CAPFT(6.67, 18.33) = 0.507712 + 0.0468684 × 18.33
    #   − 0.00094284 × 335.9889 − 0.00034344 × 122.2611
    #   = 0.507712 + 0.8590978 − 0.3167838 − 0.0419893 = 1.0080367
    free = chiller_performance(CH, 800.0, 6.67, 18.33, limit_to_curve_range=False)
    assert not free.temperatures_clamped
    assert free.capft == pytest.approx(1.0080367, abs=1e-6)


def test_ton_conversion() -> None:
    # kW/ton = 3.516852 / COP: COP 5.0 → 0.7033704; 0.6 kW/ton → COP 5.86142
    assert KW_PER_TON == 3.516852
    assert kw_per_ton_from_cop(5.0) == pytest.approx(0.7033704)
    assert cop_from_kw_per_ton(0.6) == pytest.approx(5.86142, abs=1e-5)
    with pytest.raises(UserError):
        cop_from_kw_per_ton(0.0)


@pytest.mark.parametrize("args", [(-1.0, 6.67, 29.4), (100.0, float("nan"), 29.4)])
def test_bad_inputs_are_user_errors(args: tuple[float, float, float]) -> None:
    with pytest.raises(UserError, match="out of range"):
        chiller_performance(CH, *args)
