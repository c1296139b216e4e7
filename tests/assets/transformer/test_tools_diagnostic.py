"""Registry, golden and property tests of the fmsr diagnostic tools.

Every golden case goes through the registry (argument validation, then the tool function)
and its expected value is worked by hand in the comment next to it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from typing import Any, cast

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import assets.transformer.tools_diagnostic as tools_diagnostic
from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.tools.registry import TOOLS, ToolArgumentError, ToolContext, validate_args

SQRT3 = math.sqrt(3)
V_PHASE = 11 / SQRT3  # 6.350853 kV phase-to-neutral for an 11 kV line voltage
# Every call below passes its nameplate facts (paper, cooling, size class, rating) explicitly,
# so no tool reads the store; the context points at a closed port to prove it.
CTX = ToolContext(
    load_asset_class("transformer"),
    StoreSettings(url="http://127.0.0.1:9", db_prefix="unused_", external=True),
)


def run(name: str, **raw: Any) -> Any:
    spec = TOOLS.get(name)
    out = spec.fn(validate_args(spec, raw), CTX)
    if inspect.isawaitable(out):
        out = asyncio.run(out)
    assert isinstance(out, spec.result)
    # The result validates against the JSON Schema the tool publishes (strict JSON, no NaN).
    payload = json.loads(json.dumps(out.model_dump(mode="json"), allow_nan=False))
    jsonschema.validate(payload, spec.result.model_json_schema())
    return out


# --- registry --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", tools_diagnostic.TOOL_NAMES)
def test_tool_is_registered_with_a_json_schema(name: str) -> None:
    spec = TOOLS.get(name)
    assert spec.domain == "fmsr"
    assert spec.description and spec.standard
    schema = json.loads(json.dumps(spec.schema()))
    assert schema["name"] == name
    assert schema["arguments"]["additionalProperties"] is False
    for prop in schema["arguments"]["properties"].values():
        assert prop.get("description"), f"{name}: argument without description"


def test_misspelt_argument_is_an_error() -> None:
    # extra="forbid": a misspelt extra argument is rejected, not silently dropped.
    with pytest.raises(ToolArgumentError, match="hydorgen"):
        run("interpret_dga", asset_name="T1", hydrogen=1, hydorgen=1, methane=1, acetylene=0,
            ethylene=1, ethane=1)  # fmt: skip


# --- interpret_dga ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gases", "fault", "rogers", "duval"),
    [
        # All gases ≤ IEC typical and IEEE condition 1 (TDCG 180.5 ≤ 720) → normal; ratios
        # 0.5/10 = 0.05, 50/100 = 0.5, 10/20 = 0.5 → Rogers codes 0 0 0 → NF.
        ((100, 50, 0.5, 10, 20), "normal", "NF", "T1"),
        # 2/300 = 0.0067, 200/50 = 4, 300/50 = 6 → IEC T3; Rogers 0 2 2 → HTH; Duval %C2H4
        # 300/502 = 59.8, %C2H2 0.4 → T3.
        ((50, 200, 2, 300, 50), "T3", "HTH", "T3"),
        # 100/100 = 1 (0.6–2.5), 50/200 = 0.25, 100/20 = 5 > 2 → D2; Duval 20/40/40 → D2;
        # Rogers codes: 1 → 1, 0.25 → 0, 5 → 2 → 1 0 2 → HED.
        ((200, 50, 100, 100, 20), "D2", "HED", "D2"),
        # 1/200 = 0.005, 200/100 = 2, 200/100 = 2 → T2; Duval %C2H4 200/401 = 49.9 → T2;
        # Rogers 0, 2, 1 → MTH.
        ((100, 200, 1, 200, 100), "T2", "MTH", "T2"),
        # H2 1000 > 150 typical; 50/1000 = 0.05 < 0.1, 2/30 = 0.067 < 0.2 → PD; Rogers
        # C2H2/C2H4 0/2 = 0 → 0, 0.05 → 1, 0.067 → 0 → PDLED; Duval %CH4 50/52 = 96.2 < 98,
        # %C2H4 3.8 < 20, %C2H2 0 → T1.
        ((1000, 50, 0, 2, 30), "PD", "PDLED", "T1"),
    ],
)
def test_interpret_dga_golden(
    gases: tuple[float, ...], fault: str, rogers: str, duval: str
) -> None:
    h2, ch4, c2h2, c2h4, c2h6 = gases
    r = run("interpret_dga", asset_name="T1", hydrogen=h2, methane=ch4, acetylene=c2h2,
            ethylene=c2h4, ethane=c2h6)  # fmt: skip
    assert (r.fault_type, r.rogers.diagnosis, r.duval.zone) == (fault, rogers, duval)


# --- assess_load_profile ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("currents", "inut", "load_pct", "status", "imbalance", "neutral_flag"),
    [
        # 3·11·100/√3 = 1905.26 kVA → 1.90526/2 = 95.26 % → normal.
        ((100, 100, 100), 0, 95.263, "normal", 0.0, False),
        # 3·11·10/√3 = 190.53 kVA → 9.53 % → light.
        ((10, 10, 10), 0, 9.526, "light", 0.0, False),
        # 3·11·120/√3 = 2286.3 kVA → 114.32 % → overload (normal cyclic).
        ((120, 120, 120), 0, 114.315, "overload (normal cyclic)", 0.0, False),
        # 11·(90 + 100 + 110)/√3 = 1905.26 kVA; mean 100, max dev 10 → 10 % imbalance.
        ((90, 100, 110), 5, 95.263, "normal", 10.0, False),
        # Rated 2 MVA ≤ 2.5 → distribution limits 1.5 / 1.8 / 2.0 pu (before issue 9 the
        # large-unit bands 1.3 / 1.5 were used for every unit).
        # 3·11·150/√3 = 2857.9 kVA → 142.89 % ≤ 150 → overload (normal cyclic); neutral
        # 20/150 = 13.3 %.
        ((150, 150, 150), 20, 142.894, "overload (normal cyclic)", 0.0, True),
        # 3·11·170/√3 = 3238.9 kVA → 161.95 %: 150 < 161.95 ≤ 180 → long-time emergency.
        ((170, 170, 170), 0, 161.947, "long-time emergency", 0.0, False),
        # 3·11·200/√3 = 3810.5 kVA → 190.53 %: 180 < 190.53 ≤ 200 → short-time emergency.
        ((200, 200, 200), 0, 190.526, "short-time emergency", 0.0, False),
        # 3·11·220/√3 = 4191.6 kVA → 209.58 % > 200 → beyond emergency limits.
        ((220, 220, 220), 0, 209.578, "beyond emergency limits", 0.0, False),
    ],
)
def test_assess_load_profile_golden(
    currents: tuple[float, float, float],
    inut: float,
    load_pct: float,
    status: str,
    imbalance: float,
    neutral_flag: bool,
) -> None:
    i1, i2, i3 = currents
    r = run("assess_load_profile", asset_name="T1", vl1=V_PHASE, vl2=V_PHASE, vl3=V_PHASE,
            il1=i1, il2=i2, il3=i3, vl12=11, vl23=11, vl31=11, inut=inut, rated_mva=2)  # fmt: skip
    assert r.load_factor_pct == pytest.approx(load_pct, abs=1e-3)
    assert r.loading_status == status
    assert r.current_imbalance_pct == pytest.approx(imbalance)
    assert r.neutral_flag is neutral_flag


# --- assess_winding_temperature --------------------------------------------------------------


@pytest.mark.parametrize(
    ("reading", "v", "status", "risk"),
    [
        # 2^((98 − 98)/6) = 1; 98 ≤ 98 → normal; no setting reached → low.
        ({"wti": 98, "oti": 80, "ati": 30}, 1.0, "normal", "low"),
        # 2^((104 − 98)/6) = 2; 98 < 104 ≤ 120 → accelerated ageing → medium.
        ({"wti": 104, "oti": 85, "ati": 30}, 2.0, "accelerated ageing", "medium"),
        # Upgraded: exp(15000/383 − 15000/383) = 1; 110 ≤ 110 → normal; wti 110 ≥ alarm 110.
        ({"wti": 110, "oti": 85, "ati": 30, "paper": "upgraded"}, 1.0, "normal", "high"),
        # 2^((122 − 98)/6) = 2^4 = 16; 122 > 120 → normal cyclic limit exceeded; wti alarm.
        ({"wti": 122, "oti": 95, "ati": 30, "oti_a": 1, "oti_t": 0}, 16.0,
         "normal cyclic limit exceeded", "high"),
        # 2^((134 − 98)/6) = 2^6 = 64; 134 ≥ wti trip 130 → critical.
        ({"wti": 134, "oti": 99, "ati": 35}, 64.0, "normal cyclic limit exceeded", "critical"),
    ],
)  # fmt: skip
def test_assess_winding_temperature_golden(
    reading: dict[str, Any], v: float, status: str, risk: str
) -> None:
    r = run("assess_winding_temperature", asset_name="T1",
            **{"paper": "kraft", "size_class": "medium", **reading})  # fmt: skip
    assert r.relative_ageing_rate == pytest.approx(v)
    assert (r.thermal_status, r.risk_level) == (status, risk)
    assert r.top_oil_rise_k == pytest.approx(reading["oti"] - reading["ati"])


# --- predict_health_index --------------------------------------------------------------------

HEALTHY: dict[str, float] = {
    "hydrogen": 20, "oxygen": 15000, "nitrogen": 50000, "methane": 10, "co": 200, "co2": 1500,
    "ethylene": 5, "ethane": 5, "acetylene": 0, "dbds": 0, "power_factor": 0.05,
    "interfacial_v": 40, "dielectric_rigidity": 70, "water_content": 8,
}  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "rule_hi", "band"),
    [
        # All scores 1 → DGAF 1 (A, 4), OQF 1 (A, 4) → 100·64/64 = 100.
        ({}, 100.0, "very good"),
        # Water 22 → 2: OQF = (3 + 2 + 8 + 3)/12 = 1.333 → B (3) → 100·(40 + 18)/64 = 90.625.
        ({"water_content": 22}, 90.625, "very good"),
        # H2 150 → 2, CH4 100 → 2: DGAF 23/18 = 1.278 → B (3); water 22 → B (3)
        # → 100·(30 + 18)/64 = 75.
        ({"hydrogen": 150, "methane": 100, "water_content": 22}, 75.0, "good"),
        # C2H2 40 → 4: DGAF 33/18 = 1.833 → C (2); water 45 → 4, BDV 30 → 4: OQF 33/12 = 2.75
        # → D (1) → 100·(20 + 6)/64 = 40.625.
        ({"acetylene": 40, "water_content": 45, "dielectric_rigidity": 30}, 40.625, "poor"),
        # C2H2 90 → 6: DGAF 43/18 = 2.389 → D (1); OQF D (1) → 100·16/64 = 25.
        ({"acetylene": 90, "water_content": 45, "dielectric_rigidity": 30}, 25.0, "very poor"),
    ],
)
def test_predict_health_index_golden(changes: dict[str, float], rule_hi: float, band: str) -> None:
    r = run("predict_health_index", asset_name="T1", **{**HEALTHY, **changes})
    # Headline = the rule score (issue 9); the model is the secondary estimate.
    assert r.health_index == pytest.approx(rule_hi)
    assert r.condition == band
    # The model imitates the rule score; on these hand-picked samples it stays within 20 points
    # (the monotone-constrained v2 model is coarser at the very-poor end: 43.95 for the 25.0
    # sample; the aggregate accuracy is pinned in test_health_index).
    assert abs(r.model_health_index - rule_hi) < 20.0


# --- compute_hot_spot ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "ambient", "cooling", "top_oil", "hot_spot"),
    [
        # ONAN K = 1: θo = 20 + 52 = 72, θh = 72 + 1.3·20 = 98.
        (1.0, 20.0, "ONAN", 72.0, 98.0),
        # Distribution ONAN K = 1.2, θa = 30: Δθo = 55·(8.2/6)^0.8 = 70.614,
        # Δθh = 1.1·21·1.2^1.6 = 30.926 → 100.614 / 131.540.
        (1.2, 30.0, "ONAN_distribution", 100.614, 131.540),
        # ONAF K = 0: Δθo = 52·(1/7)^0.8 = 10.963, Δθh = 0 → 20.963 / 20.963.
        (0.0, 10.0, "ONAF", 20.963, 20.963),
        # OD K = 1: θo = 20 + 49 = 69, θh = 69 + 1.3·22 = 97.6.
        (1.0, 20.0, "OD", 69.0, 97.6),
        # OF K = 1, θa = 30: θo = 86, θh = 86 + 1.3·17 = 108.1.
        (1.0, 30.0, "OF", 86.0, 108.1),
    ],
)
def test_compute_hot_spot_golden(
    k: float, ambient: float, cooling: str, top_oil: float, hot_spot: float
) -> None:
    r = run("compute_hot_spot", asset_name="T1", load_factor=k, ambient_c=ambient,
            cooling=cooling, paper="kraft")  # fmt: skip
    assert r.top_oil_c == pytest.approx(top_oil, abs=0.01)
    assert r.hot_spot_c == pytest.approx(hot_spot, abs=0.01)
    assert r.relative_ageing_rate == pytest.approx(2 ** ((r.hot_spot_c - 98) / 6))


# --- compute_loss_of_life --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "lol", "peak"),
    [
        # Constant ONAN K = 1, θa 20 → θh 98 throughout (starts at steady state) → V 1 → 24 h.
        ({"load_factors": [1.0] * 24, "ambient_c": 20.0, "step_minutes": 60}, 24.0, 98.0),
        # θa 26 → θh 104 → V 2 → 48 h.
        ({"load_factors": [1.0] * 24, "ambient_c": 26.0, "step_minutes": 60}, 48.0, 104.0),
        # Ambient given as a list: same as the constant.
        ({"load_factors": [1.0] * 24, "ambient_c": [26.0] * 24, "step_minutes": 60}, 48.0, 104.0),
        # 48 steps of 30 min at 98 °C → 48·0.5·1 = 24 h.
        ({"load_factors": [1.0] * 48, "ambient_c": 20.0, "step_minutes": 30}, 24.0, 98.0),
        # Upgraded paper at 98 °C: V = exp(39.164491 − 40.431267) = 0.281738 → 24·V = 6.76172 h.
        ({"load_factors": [1.0] * 24, "ambient_c": 20.0, "step_minutes": 60,
          "paper": "upgraded"}, 6.76172, 98.0),
    ],
)  # fmt: skip
def test_compute_loss_of_life_golden(raw: dict[str, Any], lol: float, peak: float) -> None:
    r = run("compute_loss_of_life", asset_name="T1", **{"cooling": "ONAN", "paper": "kraft", **raw})
    assert r.loss_of_life_hours == pytest.approx(lol, rel=1e-5)
    assert r.peak_hot_spot_c == pytest.approx(peak)
    # Share of the 180 000 h normal life.
    assert r.loss_of_life_pct_of_normal_life == pytest.approx(lol / 180000 * 100, rel=1e-5)


def test_compute_loss_of_life_integrates_over_the_model_steps() -> None:
    # IEC 60076-7 annex difference equations, distribution ONAN (Δθor 55, R 5, x 0.8,
    # H·gr = 1.1·21 = 23.1, y 1.6, k11·τo = 180 min, k22·τw = 8 min, k21 = 1 so Δθh2 = 0),
    # Kraft paper, θa = 19.9 °C, two data steps of 3 min: K = 1.0 then K = 1.2. The model
    # step is 1 min (3 per data step; below half the smallest time constant, 4 min).
    # Step 0, settled at K = 1: θo = 19.9 + 55 = 74.9, Δθh1 = 23.1, θh = 98.0, V = 1 for
    # 3 min: 3·1/60 = 0.05 h.
    # Step 1 targets at K = 1.2: Δθo = 55·(8.2/6)^0.8 = 55·1.283897 = 70.61432 → 90.51432 °C;
    # Δθh1 = 23.1·1.2^1.6 = 23.1·1.338721 = 30.92445 K. Each minute
    #   θo += (90.51432 − θo)/180, Δθh1 += (30.92445 − Δθh1)/8, V = 2^((θh − 98)/6):
    #   n=1: θo = 74.9 + 0.086746 = 74.986746, Δθh1 = 23.1 + 0.978056 = 24.078056,
    #        θh = 99.064802, V = 2^0.177467 = 1.130897
    #   n=2: θo = 74.986746 + 0.086264 = 75.073011, Δθh1 = 24.078056 + 0.855799 = 24.933855,
    #        θh = 100.006866, V = 2^0.334478 = 1.260921
    #   n=3: θo = 75.073011 + 0.085785 = 75.158796, Δθh1 = 24.933855 + 0.748824 = 25.682680,
    #        θh = 100.841475, V = 2^0.473579 = 1.388550
    #   L(step 1) = (1.130897 + 1.260921 + 1.388550)/60 = 3.780367/60 = 0.063006 h.
    # L = 0.05 + 0.063006 = 0.113006 h. (The end-of-step rule, 0.05 + 1.388550·0.05 =
    # 0.119428 h, overstates it by 5.7 %.)
    r = run("compute_loss_of_life", asset_name="T1", load_factors=[1.0, 1.2],
            ambient_c=19.9, step_minutes=3, cooling="ONAN_distribution", paper="kraft")
    assert r.loss_of_life_hours == pytest.approx(0.113006, abs=1e-6)
    assert r.hot_spot_c == pytest.approx([98.0, 100.841475], abs=1e-5)
    assert r.top_oil_c == pytest.approx([74.9, 75.158796], abs=1e-5)
    assert r.step_loss_of_life_hours == pytest.approx([0.05, 0.063006], abs=1e-6)
    assert r.model_step_minutes == pytest.approx(1.0)
    assert r.peak_hot_spot_c == pytest.approx(100.841475, abs=1e-5)
    assert r.mean_ageing_rate == pytest.approx(0.113006 / 0.1, abs=1e-5)


# --- compute_equivalent_ageing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("hot_spot", "step", "f_eqa", "hours"),
    [
        # F_AA(110) = exp(0) = 1 → F_EQA 1 over 24 h → 24 equivalent hours.
        ([110.0] * 24, 60.0, 1.0, 24.0),
        # (1 + 2.708925)/2 = 1.854463; 2 h → 3.708925 h.
        ([110.0, 120.0], 60.0, 1.854463, 3.708925),
        # F_AA(98) = exp(39.164491 − 40.431267) = 0.281738; 10 h → 2.81738 h.
        ([98.0] * 10, 60.0, 0.281738, 2.81738),
        # Six 10-min samples at 120 °C: F_EQA 2.708925 over 1 h → 2.708925 h.
        ([120.0] * 6, 10.0, 2.708925, 2.708925),
        # F_AA(100) = exp(39.164491 − 40.214477) = 0.349943; F_AA(130) = exp(39.164491 −
        # 37.220844) = 6.984177 → mean (0.349943 + 1 + 2.708925 + 6.984177)/4 = 2.760761; 4 h.
        ([100.0, 110.0, 120.0, 130.0], 60.0, 2.760761, 11.043045),
    ],
)
def test_compute_equivalent_ageing_golden(
    hot_spot: list[float], step: float, f_eqa: float, hours: float
) -> None:
    r = run("compute_equivalent_ageing", asset_name="T1", hot_spot_c=hot_spot, step_minutes=step)
    assert r.f_eqa == pytest.approx(f_eqa, rel=1e-5)
    assert r.equivalent_ageing_hours == pytest.approx(hours, rel=1e-5)


# --- properties ------------------------------------------------------------------------------

_nonneg = st.floats(min_value=0, max_value=1e5, allow_nan=False, allow_infinity=False)
_ppm = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
_kv = st.floats(min_value=0, max_value=1200)
_temp = st.floats(min_value=-60, max_value=300)
_ambient = st.floats(min_value=-60, max_value=60)


def _valid_args() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    dga = st.fixed_dictionaries(
        {g: _ppm for g in ("hydrogen", "methane", "acetylene", "ethylene", "ethane")}
    )
    load = st.fixed_dictionaries(
        {f: _kv for f in ("vl1", "vl2", "vl3", "vl12", "vl23", "vl31")}
        | {f: _nonneg for f in ("il1", "il2", "il3", "inut")}
        | {"rated_mva": st.floats(min_value=0.001, max_value=3000)}
    )  # fmt: skip
    winding = st.fixed_dictionaries(
        {"wti": _temp, "oti": _temp, "ati": _ambient,
         "paper": st.sampled_from(["kraft", "upgraded"]),
         "size_class": st.sampled_from(["distribution", "medium", "large"])}
    )  # fmt: skip
    health = st.fixed_dictionaries({f: st.floats(min_value=0, max_value=100) for f in HEALTHY})
    hot = st.fixed_dictionaries(
        {"load_factor": st.floats(min_value=0, max_value=5), "ambient_c": _ambient,
         "cooling": st.sampled_from(["ONAN_distribution", "ONAN", "ONAF", "OF", "OD"]),
         "paper": st.sampled_from(["kraft", "upgraded"])}
    )  # fmt: skip
    lol = st.fixed_dictionaries(
        {"load_factors": st.lists(st.floats(min_value=0, max_value=5), min_size=1, max_size=48),
         "ambient_c": _ambient,
         "step_minutes": st.floats(min_value=1, max_value=1440),
         "cooling": st.sampled_from(["ONAN_distribution", "ONAN", "ONAF", "OF", "OD"]),
         "paper": st.sampled_from(["kraft", "upgraded"])}
    )  # fmt: skip
    eqa = st.fixed_dictionaries(
        {"hot_spot_c": st.lists(_temp, min_size=1, max_size=48),
         "step_minutes": st.floats(min_value=1, max_value=1440)}
    )  # fmt: skip
    return st.one_of(
        dga.map(lambda a: ("interpret_dga", a)),
        load.map(lambda a: ("assess_load_profile", a)),
        winding.map(lambda a: ("assess_winding_temperature", a)),
        health.map(lambda a: ("predict_health_index", a)),
        hot.map(lambda a: ("compute_hot_spot", a)),
        lol.map(lambda a: ("compute_loss_of_life", a)),
        eqa.map(lambda a: ("compute_equivalent_ageing", a)),
    )


@settings(max_examples=80, deadline=None)
@given(case=_valid_args())
def test_no_tool_raises_on_finite_non_negative_inputs(case: tuple[str, dict[str, Any]]) -> None:
    # run() also validates each result against the tool's published JSON Schema.
    name, raw = case
    out = run(name, asset_name="T1", **raw)
    json.dumps(cast(BaseModel, out).model_dump(mode="json"), allow_nan=False)


# One numeric argument per tool, NaN or negative where negative is invalid.
INVALID: list[tuple[str, dict[str, Any], str]] = [
    ("interpret_dga", {"hydrogen": math.nan, "methane": 1, "acetylene": 0, "ethylene": 1,
                       "ethane": 1}, "hydrogen"),
    ("interpret_dga", {"hydrogen": 1, "methane": -1, "acetylene": 0, "ethylene": 1,
                       "ethane": 1}, "methane"),
    ("assess_load_profile", {"vl1": 1, "vl2": 1, "vl3": 1, "il1": -5, "il2": 1, "il3": 1,
                             "vl12": 1, "vl23": 1, "vl31": 1, "inut": 0, "rated_mva": 1}, "il1"),
    ("assess_winding_temperature", {"wti": math.nan, "oti": 70, "ati": 20}, "wti"),
    ("predict_health_index", {**HEALTHY, "water_content": -3}, "water_content"),
    ("predict_health_index", {**HEALTHY, "acetylene": math.nan}, "acetylene"),
    ("compute_hot_spot", {"load_factor": -0.5, "ambient_c": 20}, "load_factor"),
    ("compute_loss_of_life", {"load_factors": [1.0, math.nan], "ambient_c": 20,
                              "step_minutes": 60}, "load_factors"),
    ("compute_loss_of_life", {"load_factors": [1.0], "ambient_c": 20, "step_minutes": -1},
     "step_minutes"),
    ("compute_equivalent_ageing", {"hot_spot_c": [math.nan], "step_minutes": 60}, "hot_spot_c"),
    # Issue 9: strict types (no bool / numeric-string coercion) and physical bounds.
    ("interpret_dga", {"hydrogen": True, "methane": 1, "acetylene": 0, "ethylene": 1,
                       "ethane": 1}, "hydrogen"),
    ("interpret_dga", {"hydrogen": "12", "methane": 1, "acetylene": 0, "ethylene": 1,
                       "ethane": 1}, "hydrogen"),
    ("interpret_dga", {"hydrogen": 1e308, "methane": 1, "acetylene": 0, "ethylene": 1,
                       "ethane": 1}, "hydrogen"),
    ("assess_load_profile", {"vl1": 1, "vl2": 1, "vl3": 1, "il1": 1, "il2": 1, "il3": 1,
                             "vl12": 1, "vl23": 1, "vl31": 1, "inut": 0,
                             "rated_mva": 1e-320}, "rated_mva"),
    ("assess_load_profile", {"vl1": 1, "vl2": 1, "vl3": 1, "il1": 1, "il2": 1, "il3": 1,
                             "vl12": 1e308, "vl23": 1, "vl31": 1, "inut": 0,
                             "rated_mva": 1}, "vl12"),
    ("assess_winding_temperature", {"wti": 400, "oti": 70, "ati": 20}, "wti"),
    ("assess_winding_temperature", {"wti": 90, "oti": 70, "ati": "20"}, "ati"),
    ("predict_health_index", {**HEALTHY, "dielectric_rigidity": True}, "dielectric_rigidity"),
    ("compute_hot_spot", {"load_factor": 6, "ambient_c": 20}, "load_factor"),
    ("compute_hot_spot", {"load_factor": 1, "ambient_c": 80}, "ambient_c"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "raw", "field"), INVALID)
def test_invalid_argument_is_a_validation_error_naming_the_field(
    name: str, raw: dict[str, Any], field: str
) -> None:
    spec = TOOLS.get(name)
    with pytest.raises(ValidationError) as exc:
        spec.args.model_validate({"asset_name": "T1", **raw})
    assert field in str(exc.value)
    with pytest.raises(ToolArgumentError, match=field):
        validate_args(spec, {"asset_name": "T1", **raw})
