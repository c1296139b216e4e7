"""Golden and property tests of assets.transformer.loading.

Expected values are worked by hand: S = (V12·I1 + V23·I2 + V31·I3)/√3 with kV and A (kVA,
/1000 for MVA); NEMA imbalance = max |Xi − Xavg| / Xavg × 100.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from assets.transformer.loading import (
    DEFAULT_LOADING_BANDS,
    LoadingBand,
    LoadInputs,
    apparent_power_mva,
    assess_load_profile,
    current_imbalance_pct,
    loading_bands,
    loading_status,
)
from assets.transformer.nameplate import NameplateFacts
from generator.errors import UserError

SQRT3 = math.sqrt(3)
# 11 kV line voltage → 11/√3 = 6.351 kV phase-to-neutral.
V_PHASE = 11 / SQRT3


def _reading(**overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "asset_name": "TX-1",
        "vl1": V_PHASE,
        "vl2": V_PHASE,
        "vl3": V_PHASE,
        "il1": 100.0,
        "il2": 100.0,
        "il3": 100.0,
        "vl12": 11.0,
        "vl23": 11.0,
        "vl31": 11.0,
        "inut": 0.0,
        "rated_mva": 2.5,
    }
    values.update(overrides)
    return values


def test_balanced_apparent_power() -> None:
    # S = (3 · 11 kV · 100 A)/√3 = √3 · 11 · 100 = 1905.26 kVA = 1.905 MVA
    assert apparent_power_mva(11, 11, 11, 100, 100, 100) == pytest.approx(1.90526, abs=1e-5)


def test_balanced_assessment() -> None:
    # S = 1.90526 MVA; rated 2.5 MVA → 76.21 % → "normal" (20 ≤ 76.21 ≤ 100).
    # Phase-voltage cross-check: 3 · 6.351 kV · 100 A = 1905.26 kVA, same.
    a = assess_load_profile(**_reading())
    assert a.load_mva == pytest.approx(1.90526, abs=1e-5)
    assert a.load_mva_phase_voltages == pytest.approx(1.90526, abs=1e-5)
    assert a.load_factor_pct == pytest.approx(76.210, abs=1e-3)
    assert a.loading_status == "normal"
    assert a.current_imbalance_pct == 0.0
    assert a.voltage_unbalance_pct == 0.0
    assert a.neutral_current_pct == 0.0
    assert a.neutral_flag is False
    assert a.imbalance_definition == "NEMA MG-1: max deviation from mean / mean"
    assert "IEC 60076-7" in a.standard
    # 2.5 MVA ≤ 2.5 → distribution (IEC 60076-7 clause 3), derived from the rating argument.
    assert (a.size_class, a.size_class_source, a.rated_mva_source) == (
        "distribution", "argument", "argument")  # fmt: skip
    assert len(a.notes) == 1 and "distribution power transformer" in a.notes[0]


def test_unbalanced_currents() -> None:
    # I = 80, 100, 150 A: mean = 330/3 = 110; deviations 30, 10, 40 → 40/110 = 36.36 %.
    assert current_imbalance_pct(80, 100, 150) == pytest.approx(36.3636, abs=1e-4)
    # I = 90, 100, 110: mean 100, max deviation 10 → 10 %.
    assert current_imbalance_pct(90, 100, 110) == pytest.approx(10.0)
    # S = 11 · (80 + 100 + 150)/√3 = 11 · 330/1.73205 = 2095.79 kVA.
    assert apparent_power_mva(11, 11, 11, 80, 100, 150) == pytest.approx(2.09579, abs=1e-5)


def test_unbalanced_line_voltages() -> None:
    # V = 11, 10.8, 11.2 kV: mean 11, max deviation 0.2 → 1.818 %.
    # S = (11·100 + 10.8·100 + 11.2·100)/√3 = 3300/√3 = 1905.26 kVA.
    a = assess_load_profile(**_reading(vl23=10.8, vl31=11.2))
    assert a.voltage_unbalance_pct == pytest.approx(1.81818, abs=1e-5)
    assert a.load_mva == pytest.approx(1.90526, abs=1e-5)


@pytest.mark.parametrize(
    ("inut", "pct", "flag"),
    [(9.0, 9.0, False), (10.0, 10.0, False), (11.0, 11.0, True), (15.0, 15.0, True)],
)
def test_neutral_flag(inut: float, pct: float, flag: bool) -> None:
    # Mean phase current 100 A: neutral % = inut; flag when strictly above 10 %.
    a = assess_load_profile(**_reading(inut=inut))
    assert a.neutral_current_pct == pytest.approx(pct)
    assert a.neutral_flag is flag


def test_zero_load() -> None:
    a = assess_load_profile(**_reading(il1=0, il2=0, il3=0))
    assert a.load_mva == 0.0
    assert a.load_factor_pct == 0.0
    assert a.loading_status == "light"
    assert a.current_imbalance_pct == 0.0
    assert a.neutral_current_pct is None
    assert a.neutral_flag is False
    assert current_imbalance_pct(0, 0, 0) == 0.0
    # Neutral current with no phase current is flagged.
    assert assess_load_profile(**_reading(il1=0, il2=0, il3=0, inut=2)).neutral_flag is True


@pytest.mark.parametrize(
    ("size_class", "load_factor", "status"),
    [
        # Current limits (pu) normal cyclic / long-time / short-time emergency:
        # medium 1.5 / 1.5 / 1.8 (long-time band empty) → ≤ 150 nc, ≤ 180 short-time.
        ("medium", 0.15, "light"),
        ("medium", 0.5, "normal"),
        ("medium", 1.2, "overload (normal cyclic)"),
        ("medium", 1.45, "overload (normal cyclic)"),
        ("medium", 1.6, "short-time emergency"),
        ("medium", 1.85, "beyond emergency limits"),
        # large 1.3 / 1.3 / 1.5 → ≤ 130 nc, ≤ 150 short-time.
        ("large", 1.2, "overload (normal cyclic)"),
        ("large", 1.4, "short-time emergency"),
        ("large", 1.6, "beyond emergency limits"),
        # distribution 1.5 / 1.8 / 2.0 → ≤ 150 nc, ≤ 180 long-time, ≤ 200 short-time.
        ("distribution", 1.45, "overload (normal cyclic)"),
        ("distribution", 1.6, "long-time emergency"),
        ("distribution", 1.9, "short-time emergency"),
        ("distribution", 2.1, "beyond emergency limits"),
    ],
)
def test_loading_bands(size_class: str, load_factor: float, status: str) -> None:
    # S = √3 · 11 · 100 / 1000 MVA; rated = S / load_factor gives that load factor.
    rated = SQRT3 * 11 * 100 / 1000 / load_factor
    a = assess_load_profile(**_reading(rated_mva=rated), size_class=size_class)  # type: ignore[arg-type]
    assert a.load_factor_pct == pytest.approx(100 * load_factor)
    assert a.loading_status == status
    assert (a.size_class, a.size_class_source) == (size_class, "argument")


def test_band_edges_and_override() -> None:
    # Default = medium power bands. Exactly 100 % is "normal" (≤ 100 inclusive); exactly 20 %
    # is not "light" (< 20 strict); 150 is the inclusive normal cyclic limit (1.5 pu); 180 the
    # inclusive short-time emergency limit (1.8 pu).
    assert loading_bands("medium") == DEFAULT_LOADING_BANDS
    assert loading_status(20.0, DEFAULT_LOADING_BANDS) == "normal"
    assert loading_status(19.999, DEFAULT_LOADING_BANDS) == "light"
    assert loading_status(100.0, DEFAULT_LOADING_BANDS) == "normal"
    assert loading_status(100.001, DEFAULT_LOADING_BANDS) == "overload (normal cyclic)"
    assert loading_status(130.0, DEFAULT_LOADING_BANDS) == "overload (normal cyclic)"
    assert loading_status(150.0, DEFAULT_LOADING_BANDS) == "overload (normal cyclic)"
    assert loading_status(150.001, DEFAULT_LOADING_BANDS) == "short-time emergency"
    assert loading_status(180.0, DEFAULT_LOADING_BANDS) == "short-time emergency"
    assert loading_status(180.001, DEFAULT_LOADING_BANDS) == "beyond emergency limits"
    s = SQRT3 * 11 * 100 / 1000
    custom = (
        LoadingBand(upper_pct=50, inclusive=True, status="low"),
        LoadingBand(upper_pct=90, inclusive=True, status="ok"),
    )
    # 76.2 % → "ok"; 120 % → beyond the last band.
    assert assess_load_profile(**_reading(), bands=custom).loading_status == "ok"
    over = assess_load_profile(**_reading(rated_mva=s / 1.2), bands=custom)
    assert over.loading_status == "beyond emergency limits"
    assert any("above nameplate" in note for note in over.notes)


def test_inconsistent_phase_voltages_noted() -> None:
    # Phase voltages 5 kV instead of 6.351: phase estimate 1.5 MVA vs 1.905 MVA (21 % apart).
    a = assess_load_profile(**_reading(vl1=5, vl2=5, vl3=5))
    assert a.load_mva_phase_voltages == pytest.approx(1.5)
    assert any("differ" in note for note in a.notes)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("il2", -1.0),
        ("vl12", math.nan),
        ("inut", math.inf),
        ("vl3", -0.5),
        ("rated_mva", 0.0),
        ("rated_mva", math.nan),
    ],
)
def test_invalid_inputs_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ValidationError) as excinfo:
        assess_load_profile(**_reading(**{field: value}))
    assert [err["loc"] for err in excinfo.value.errors()] == [(field,)]


def test_missing_input_names_the_field() -> None:
    values = _reading()
    del values["il3"]
    with pytest.raises(ValidationError, match="il3"):
        LoadInputs.model_validate(values)
    with pytest.raises(ValidationError, match="vl31"):
        assess_load_profile(**_reading(vl31=None))


def test_helpers_validate_inputs() -> None:
    with pytest.raises(ValidationError, match="il1"):
        current_imbalance_pct(-1, 1, 1)
    with pytest.raises(ValidationError, match="vl23"):
        apparent_power_mva(11, math.nan, 11, 1, 1, 1)


_KV = st.floats(min_value=0, max_value=1200, allow_nan=False, allow_infinity=False)
_AMPS = st.floats(min_value=0, max_value=200_000, allow_nan=False, allow_infinity=False)
_POSITIVE = st.floats(min_value=1e-3, max_value=3000, allow_nan=False, allow_infinity=False)
_FIELDS = ("vl1", "vl2", "vl3", "il1", "il2", "il3", "vl12", "vl23", "vl31", "inut")
_STRATEGIES = [_KV] * 3 + [_AMPS] * 3 + [_KV] * 3 + [_AMPS]


@settings(database=None, max_examples=300, deadline=None)
@given(st.tuples(*_STRATEGIES), _POSITIVE)
def test_never_raises_on_valid_input(values: tuple[float, ...], rated: float) -> None:
    a = assess_load_profile(**_reading(**dict(zip(_FIELDS, values, strict=True)), rated_mva=rated))
    assert a.load_mva >= 0
    assert a.load_factor_pct >= 0
    assert a.current_imbalance_pct >= 0
    assert a.voltage_unbalance_pct >= 0
    assert math.isfinite(a.load_factor_pct)
    # Strict JSON: no Infinity / NaN anywhere (the old unbounded inputs could overflow).
    json.dumps(a.model_dump(mode="json"), allow_nan=False)


@settings(database=None, max_examples=100, deadline=None)
@given(
    st.sampled_from((*_FIELDS, "rated_mva")),
    st.floats(max_value=-1e-9, allow_nan=False) | st.just(math.nan),
)
def test_negative_or_nan_names_the_field(field: str, value: float) -> None:
    with pytest.raises(ValidationError) as excinfo:
        assess_load_profile(**_reading(**{field: value}))
    assert [err["loc"] for err in excinfo.value.errors()] == [(field,)]


@settings(database=None, max_examples=200, deadline=None)
@given(
    st.tuples(*[st.just(0.0) | st.floats(min_value=1e-3, max_value=1e4)] * 3),
    st.floats(min_value=0.01, max_value=20),
)
def test_load_factor_scales_linearly_with_current(
    currents: tuple[float, float, float], k: float
) -> None:
    il1, il2, il3 = currents
    base = assess_load_profile(**_reading(il1=il1, il2=il2, il3=il3))
    scaled = assess_load_profile(**_reading(il1=k * il1, il2=k * il2, il3=k * il3))
    assert scaled.load_factor_pct == pytest.approx(k * base.load_factor_pct, rel=1e-9, abs=1e-9)
    # Imbalance is scale-free.
    assert scaled.current_imbalance_pct == pytest.approx(
        base.current_imbalance_pct, rel=1e-6, abs=1e-6
    )


# --- issue 9: size classes, bounds, nameplate rating ---------------------------------------


def test_medium_power_unit_uses_the_medium_limits() -> None:
    # 25 MVA (2.5 < 25 ≤ 100 → medium). I = 1840 A at 11 kV: S = √3 · 11 · 1840 / 1000
    # = 1.7320508 · 20240 / 1000 = 35.0567 MVA → 140.227 % → 100 < 140.23 ≤ 150
    # → "overload (normal cyclic)". (The old large-unit bands, 1.3 / 1.5, called it
    # "long-time emergency".)
    v = dict(il1=1840.0, il2=1840.0, il3=1840.0, rated_mva=25.0)
    a = assess_load_profile(**_reading(**v))
    assert a.load_mva == pytest.approx(35.0567, abs=1e-4)
    assert a.load_factor_pct == pytest.approx(140.227, abs=1e-3)
    assert (a.size_class, a.loading_status) == ("medium", "overload (normal cyclic)")
    # 10 MVA, I = 840 A: S = 1.7320508 · 9240 / 1000 = 16.0041 MVA → 160.04 %: medium
    # 150 < 160.04 ≤ 180 → "short-time emergency"; as a large unit (> 150) → beyond.
    b = assess_load_profile(**_reading(il1=840.0, il2=840.0, il3=840.0, rated_mva=10.0))
    assert b.load_factor_pct == pytest.approx(160.041, abs=1e-3)
    assert (b.size_class, b.loading_status) == ("medium", "short-time emergency")
    big = assess_load_profile(**_reading(il1=840.0, il2=840.0, il3=840.0, rated_mva=10.0),
                              size_class="large")  # fmt: skip
    assert big.loading_status == "beyond emergency limits"


def test_rating_from_the_nameplate() -> None:
    # Nameplate 1.6 MVA → distribution; S = 1.90526 MVA → 1.90526/1.6 = 119.079 % → ≤ 150
    # → normal cyclic.
    plate = NameplateFacts(asset_id="TX-1", found=True, rated_mva=1.6, size_class="distribution")
    values = _reading()
    del values["rated_mva"]
    a = assess_load_profile(**values, nameplate=plate)
    assert a.load_factor_pct == pytest.approx(119.079, abs=1e-3)
    assert a.loading_status == "overload (normal cyclic)"
    assert (a.rated_mva, a.rated_mva_source, a.size_class, a.size_class_source) == (
        1.6, "nameplate", "distribution", "nameplate")  # fmt: skip
    with pytest.raises(UserError, match="rated_mva not given"):
        assess_load_profile(**values)


@pytest.mark.parametrize(
    ("field", "value"),
    [("vl12", 1200.001), ("il1", 200_000.1), ("rated_mva", 3000.1), ("inut", True),
     ("vl1", "6.35")],
)  # fmt: skip
def test_impossible_or_mistyped_inputs_name_the_field(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as excinfo:
        assess_load_profile(**_reading(**{field: value}))
    assert [err["loc"] for err in excinfo.value.errors()] == [(field,)]


def test_subnormal_phase_currents_give_no_infinite_neutral_share() -> None:
    # Found by the property test: 1 A of neutral current over a mean phase current of
    # (0 + 5e-324 + 5e-324)/3 A overflows a float; the share is undefined, not Infinity.
    a = assess_load_profile(**_reading(
        il1=0.0, il2=5e-324, il3=5e-324, inut=1.0, vl1=0.0, vl2=0.0, vl3=0.0,
        vl12=0.0, vl23=0.0, vl31=0.0, rated_mva=1.0,
    ))
    assert a.neutral_current_pct is None and a.neutral_flag is True
    json.dumps(a.model_dump(mode="json"), allow_nan=False)
