"""Golden and property tests of assets.transformer.winding, worked by hand.

Ageing: Kraft V = 2^((θh − 98)/6); upgraded V = exp(15000/383 − 15000/(θh + 273)).
Loading limits (commonly tabulated IEC 60076-7, medium power): hot spot 120 / 140 / 160 °C,
top oil 105 / 115 °C.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from assets.transformer.winding import (
    ThermalLimits,
    assess_winding_temperature,
    compute_equivalent_ageing,
    compute_hot_spot,
    compute_loss_of_life,
    thermal_status,
)

# 15000/383 = 39.164491; 15000/371 = 40.431267 → V_upgraded(98 °C) = exp(-1.266776) = 0.281738.
V_UPGRADED_98 = 0.281738
# 15000/393 = 38.167939 → V_upgraded(120 °C) = exp(0.996552) = 2.708925.
V_UPGRADED_120 = 2.708925


# --- relative ageing rate ------------------------------------------------------------------


def test_kraft_ageing_is_one_at_98_degrees() -> None:
    # 2^((98 − 98)/6) = 2^0 = 1; rises: oti − ati = 80 − 30 = 50 K, wti − oti = 98 − 80 = 18 K.
    r = assess_winding_temperature("T1", wti=98, oti=80, ati=30)
    assert r.relative_ageing_rate == pytest.approx(1.0)
    assert r.hot_spot_c == 98
    assert r.top_oil_rise_k == pytest.approx(50.0)
    assert r.hot_spot_rise_over_top_oil_k == pytest.approx(18.0)


def test_kraft_ageing_doubles_at_104_degrees() -> None:
    # 2^((104 − 98)/6) = 2^1 = 2.
    r = assess_winding_temperature("T1", wti=104, oti=85, ati=30)
    assert r.relative_ageing_rate == pytest.approx(2.0)


def test_kraft_ageing_halves_at_92_degrees() -> None:
    # 2^((92 − 98)/6) = 2^-1 = 0.5.
    r = assess_winding_temperature("T1", wti=92, oti=75, ati=20)
    assert r.relative_ageing_rate == pytest.approx(0.5)


def test_upgraded_paper_ageing_is_one_at_110_degrees() -> None:
    # exp(15000/383 − 15000/383) = exp(0) = 1.
    r = assess_winding_temperature("T1", wti=110, oti=88, ati=30, paper="upgraded")
    assert r.relative_ageing_rate == pytest.approx(1.0)


def test_upgraded_paper_ageing_at_98_degrees() -> None:
    r = assess_winding_temperature("T1", wti=98, oti=80, ati=30, paper="upgraded")
    assert r.relative_ageing_rate == pytest.approx(V_UPGRADED_98, rel=1e-5)


# --- thermal status bands --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wti", "oti", "paper", "expected"),
    [
        (98.0, 80.0, "kraft", "normal"),  # 98 ≤ 98 (Kraft reference, inclusive)
        (99.0, 80.0, "kraft", "accelerated ageing"),  # 98 < 99 ≤ 120
        (105.0, 80.0, "upgraded", "normal"),  # 105 ≤ 110 (upgraded reference)
        (115.0, 90.0, "upgraded", "accelerated ageing"),  # 110 < 115 ≤ 120
        (120.0, 95.0, "kraft", "accelerated ageing"),  # 120 is the inclusive cyclic limit
        (121.0, 95.0, "kraft", "normal cyclic limit exceeded"),  # 121 > 120
        (141.0, 100.0, "kraft", "long-time emergency limit exceeded"),  # 141 > 140
        (161.0, 100.0, "kraft", "short-time emergency limit exceeded"),  # 161 > 160
        (110.0, 106.0, "upgraded", "normal cyclic limit exceeded"),  # top oil 106 > 105
        (118.0, 116.0, "kraft", "long-time emergency limit exceeded"),  # top oil 116 > 115
    ],
)
def test_status_bands(wti: float, oti: float, paper: str, expected: str) -> None:
    r = assess_winding_temperature("T1", wti=wti, oti=oti, ati=20, paper=paper)  # type: ignore[arg-type]
    assert r.thermal_status == expected


def test_limits_are_overridable() -> None:
    # With a 110 °C normal cyclic limit, 115 °C exceeds it.
    limits = ThermalLimits(hot_spot_normal_cyclic_c=110)
    assert thermal_status(115, 80, "kraft", limits) == "normal cyclic limit exceeded"
    assert thermal_status(115, 80, "kraft") == "accelerated ageing"


# --- alarms, contacts and risk ---------------------------------------------------------------


def test_oti_alarm_contact_consistent_with_setting() -> None:
    # oti 95 ≥ alarm 90 and < trip 100; contacts a=1, t=0 agree → alarm, no inconsistency.
    r = assess_winding_temperature("T1", wti=105, oti=95, ati=30, oti_a=1, oti_t=0)
    assert r.alarms.oti_alarm_by_setting and not r.alarms.oti_trip_by_setting
    assert r.alarms.state == "alarm"
    assert r.alarms.inconsistencies == []
    # V = 2^((105 − 98)/6) > 1 → accelerated ageing (medium); alarm raises it to high.
    assert r.risk_level == "high"


def test_trip_contact_without_trip_temperature_is_flagged() -> None:
    # oti_t = 1 but oti 95 < oti_trip 100 → inconsistency; the trip still makes it critical.
    r = assess_winding_temperature("T1", wti=105, oti=95, ati=30, oti_a=1, oti_t=1)
    assert r.alarms.state == "trip"
    assert r.risk_level == "critical"
    assert any("trip contact is 1" in s for s in r.alarms.inconsistencies)


def test_trip_temperature_without_trip_contact_is_flagged() -> None:
    # oti 101 ≥ trip 100 with oti_t = 0: the contact may have failed.
    r = assess_winding_temperature("T1", wti=115, oti=101, ati=30, oti_a=1, oti_t=0)
    assert r.alarms.oti_trip_by_setting
    assert any("trip contact is 0" in s for s in r.alarms.inconsistencies)


def test_trip_without_alarm_stage_is_flagged() -> None:
    r = assess_winding_temperature("T1", wti=118, oti=102, ati=30, oti_a=0, oti_t=1)
    assert any("alarm stage skipped" in s for s in r.alarms.inconsistencies)


def test_wti_trip_by_setting() -> None:
    # wti 131 ≥ wti_trip 130 → trip; 131 > 120 → normal cyclic limit exceeded.
    r = assess_winding_temperature("T1", wti=131, oti=85, ati=30)
    assert r.alarms.wti_trip_by_setting and r.alarms.state == "trip"
    assert r.thermal_status == "normal cyclic limit exceeded"
    assert r.risk_level == "critical"


def test_cool_unit_is_low_risk() -> None:
    # 80 ≤ 98, no setting reached, no contacts given.
    r = assess_winding_temperature("T1", wti=80, oti=65, ati=25)
    assert (r.thermal_status, r.alarms.state, r.risk_level) == ("normal", "normal", "low")
    assert r.warnings == []
    assert "IEC 60076-7" in r.standard


def test_physical_consistency_warnings() -> None:
    # Ambient is bounded to [-60, 60] °C now, so the inverted readings sit below 60.
    r = assess_winding_temperature("T1", wti=50, oti=55, ati=58)
    assert any("wti 50" in w for w in r.warnings)
    assert any("oti 55" in w for w in r.warnings)


def test_negative_winter_ambient_is_valid() -> None:
    r = assess_winding_temperature("T1", wti=10, oti=0, ati=-30)
    assert r.top_oil_rise_k == pytest.approx(30.0)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"wti": math.nan}, "wti"),
        ({"oti": math.inf}, "oti"),
        ({"ati": -61.0}, "ati"),  # ambient bounds [-60, 60] °C
        ({"ati": 61.0}, "ati"),
        ({"wti": 301.0}, "wti"),  # indicator bounds [-60, 300] °C
        ({"oti": -61.0}, "oti"),
        ({"wti": True}, "wti"),  # strict: a bool is not a temperature
        ({"oti_a": True}, "oti_a"),  # strict: a contact is the integer 0 or 1
        ({"oti_a": 2}, "oti_a"),
        ({"oti_t": -1}, "oti_t"),
    ],
)
def test_invalid_inputs_name_the_field(kwargs: dict[str, float], field: str) -> None:
    base: dict[str, float] = {"wti": 90.0, "oti": 70.0, "ati": 20.0}
    base.update(kwargs)
    with pytest.raises(ValidationError) as exc:
        assess_winding_temperature("T1", **base)  # type: ignore[arg-type]
    assert field in str(exc.value)


# --- thermal wrappers ------------------------------------------------------------------------


def test_hot_spot_onan_rated_load() -> None:
    # ONAN K = 1: bracket = 1 → Δθo = 52, Δθh = 1.3·20 = 26 → θo 72, θh 98, V 1.
    r = compute_hot_spot("T1", 1.0, 20.0, "ONAN")
    assert (r.top_oil_c, r.hot_spot_c) == (pytest.approx(72.0), pytest.approx(98.0))
    assert r.relative_ageing_rate == pytest.approx(1.0)


def test_hot_spot_of_rated_load() -> None:
    # OF K = 1, θa 30: θo = 30 + 56 = 86; θh = 86 + 1.3·17 = 86 + 22.1 = 108.1.
    r = compute_hot_spot("T1", 1.0, 30.0, "OF")
    assert r.hot_spot_c == pytest.approx(108.1)
    assert r.hot_spot_rise_k == pytest.approx(22.1)


def test_loss_of_life_constant_rated_load() -> None:
    # Constant ONAN K = 1, θa 26 → θh = 26 + 52 + 26 = 104 every hour → V = 2, L = 24·2 = 48 h.
    r = compute_loss_of_life("T1", [1.0] * 24, 26.0, 60.0)
    assert r.loss_of_life_hours == pytest.approx(48.0)
    assert r.peak_hot_spot_c == pytest.approx(104.0)
    assert r.period_hours == pytest.approx(24.0)


def test_loss_of_life_ambient_length_mismatch_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        compute_loss_of_life("T1", [1.0, 1.0], [20.0], 60.0)


def test_equivalent_ageing_two_samples() -> None:
    # F_AA(110) = 1, F_AA(120) = 2.708925 → F_EQA = 3.708925/2 = 1.854463; 2 h → 3.708925 h.
    r = compute_equivalent_ageing("T1", [110.0, 120.0], 60.0)
    assert r.f_eqa == pytest.approx(1.854463, rel=1e-5)
    assert r.equivalent_ageing_hours == pytest.approx(3.708925, rel=1e-5)
    assert r.peak_f_aa == pytest.approx(V_UPGRADED_120, rel=1e-5)


# --- properties ------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    a=st.floats(min_value=-60, max_value=299),
    delta=st.floats(min_value=0.01, max_value=100),
    paper=st.sampled_from(["kraft", "upgraded"]),
)
def test_ageing_rate_increases_with_hot_spot(a: float, delta: float, paper: str) -> None:
    b = min(a + delta, 300.0)
    lo = assess_winding_temperature("T1", wti=a, oti=a, ati=20.0, paper=paper)  # type: ignore[arg-type]
    hi = assess_winding_temperature("T1", wti=b, oti=a, ati=20.0, paper=paper)  # type: ignore[arg-type]
    assert hi.relative_ageing_rate > lo.relative_ageing_rate


@settings(max_examples=50, deadline=None)
@given(
    wti=st.floats(min_value=-60, max_value=300),
    oti=st.floats(min_value=-60, max_value=300),
    ati=st.floats(min_value=-60, max_value=60),
    oti_a=st.sampled_from([None, 0, 1]),
    oti_t=st.sampled_from([None, 0, 1]),
)
def test_never_raises_on_valid_readings(
    wti: float, oti: float, ati: float, oti_a: int | None, oti_t: int | None
) -> None:
    r = assess_winding_temperature("T1", wti=wti, oti=oti, ati=ati, oti_a=oti_a, oti_t=oti_t)
    assert math.isfinite(r.relative_ageing_rate) and r.relative_ageing_rate > 0


# --- issue 9: paper, size class and their sources ---------------------------------------------

# Same hot spot θh = 104 °C, two papers (IEC 60076-7 clause 6.3):
# Kraft V = 2^((104 − 98)/6) = 2^1 = 2.
# Upgraded V = exp(15000/383 − 15000/(104 + 273)) = exp(39.164491 − 39.787798)
#            = exp(−0.623307) = e^−0.6 · e^−0.023307 = 0.548812 · 0.976962 = 0.536168.
V_UPGRADED_104 = 0.536168


def test_upgraded_paper_ages_slower_than_kraft_at_the_same_hot_spot() -> None:
    kraft = assess_winding_temperature("T1", wti=104, oti=85, ati=30, paper="kraft")
    upgraded = assess_winding_temperature("T1", wti=104, oti=85, ati=30, paper="upgraded")
    assert kraft.relative_ageing_rate == pytest.approx(2.0)
    assert upgraded.relative_ageing_rate == pytest.approx(V_UPGRADED_104, rel=1e-5)
    # Ratio 2 / 0.536168 = 3.7302: the "2–4× too high" of the issue.
    assert kraft.relative_ageing_rate / upgraded.relative_ageing_rate == pytest.approx(3.7302, 1e-4)
    # Status: Kraft 104 > 98 → accelerated ageing (medium); upgraded 104 ≤ 110 → normal (low).
    assert (kraft.thermal_status, kraft.risk_level) == ("accelerated ageing", "medium")
    assert (upgraded.thermal_status, upgraded.risk_level) == ("normal", "low")
    assert kraft.paper_source == upgraded.paper_source == "argument"


def test_defaults_and_nameplate_facts_are_reported_with_their_source() -> None:
    from assets.transformer.nameplate import NameplateFacts

    default = assess_winding_temperature("T1", wti=104, oti=85, ati=30)
    assert (default.paper, default.paper_source) == ("kraft", "default")
    assert (default.size_class, default.size_class_source) == ("medium", "default")
    plate = NameplateFacts(asset_id="T1", found=True, paper="upgraded", cooling="ONAF",
                           rated_mva=25.0, size_class="medium")  # fmt: skip
    r = assess_winding_temperature("T1", wti=104, oti=85, ati=30, nameplate=plate)
    assert (r.paper, r.paper_source, r.cooling) == ("upgraded", "nameplate", "ONAF")
    assert r.relative_ageing_rate == pytest.approx(V_UPGRADED_104, rel=1e-5)
    # An explicit argument overrides the nameplate.
    forced = assess_winding_temperature("T1", wti=104, oti=85, ati=30, paper="kraft",
                                        nameplate=plate)  # fmt: skip
    assert (forced.paper, forced.paper_source) == ("kraft", "argument")
    assert forced.relative_ageing_rate == pytest.approx(2.0)


def test_distribution_units_have_no_short_time_hot_spot_limit() -> None:
    # Hot spot 165 °C: medium power > 160 → short-time emergency limit exceeded; distribution
    # has no separate short-time hot-spot limit (table "–"), so > 140 → long-time exceeded.
    medium = assess_winding_temperature("T1", wti=165, oti=100, ati=30, size_class="medium")
    dist = assess_winding_temperature("T1", wti=165, oti=100, ati=30, size_class="distribution")
    assert medium.thermal_status == "short-time emergency limit exceeded"
    assert dist.thermal_status == "long-time emergency limit exceeded"
    assert dist.limits.hot_spot_short_time_emergency_c is None
    assert dist.size_class_source == "argument"


def test_hot_spot_and_loss_of_life_report_their_sources() -> None:
    # ONAN_distribution, K = 1, θa = 20: Δθo = 55, Δθh = H·gr = 1.1·21 = 23.1 → θh 98.1;
    # Kraft V = 2^(0.1/6) = 1.011619; upgraded exp(15000/383 − 15000/371.1) =
    # exp(39.164491 − 40.420372) = exp(−1.255881) = 0.284825.
    k = compute_hot_spot("T1", 1.0, 20.0, "ONAN_distribution", "kraft")
    u = compute_hot_spot("T1", 1.0, 20.0, "ONAN_distribution", "upgraded")
    assert k.hot_spot_c == pytest.approx(98.1)
    assert k.relative_ageing_rate == pytest.approx(1.011619, rel=1e-5)
    assert u.relative_ageing_rate == pytest.approx(0.284825, rel=1e-5)
    assert (k.cooling_source, k.paper_source) == ("argument", "argument")
    d = compute_hot_spot("T1", 1.0, 20.0)
    assert (d.cooling, d.cooling_source, d.paper, d.paper_source) == (
        "ONAN", "default", "kraft", "default")  # fmt: skip
    # Constant ONAN K = 1, θa 26 → θh 104 (see above): upgraded V = 0.536168 → 24 h · V.
    lol = compute_loss_of_life("T1", [1.0] * 24, 26.0, 60.0, paper="upgraded")
    assert lol.loss_of_life_hours == pytest.approx(24 * V_UPGRADED_104, rel=1e-5)
    assert (lol.paper_source, lol.cooling_source) == ("argument", "default")
