"""Golden cases of the DGA-trend and oil-quality families, worked by hand from raw documents.

One unit, GOLD-TX01 at site GOLD (33 kV HV rating on its nameplate), with five weekly oil
samples written by hand, all taken at 10:00:

| # | date       | H2  | CH4 | C2H6 | C2H4 | C2H2 | CO  | CO2  | TDCG   | DGA (IEC 60599) |
|---|------------|-----|-----|------|------|------|-----|------|--------|-----------------|
| 0 | 2026-06-01 | 20  | 10  | 8    | 5    | 0.2  | 200 | 1500 | 243.2  | normal          |
| 1 | 2026-06-08 | 22  | 11  | 9    | 5    | 0.2  | 210 | 1500 | 257.2  | normal          |
| 2 | 2026-06-15 | 30  | 20  | 10   | 8    | 0.2  | 250 | 2000 | 318.2  | normal          |
| 3 | 2026-06-22 | 120 | 300 | 50   | 650  | 6    | 300 | 2000 | 1426   | T3              |
| 4 | 2026-06-29 | 150 | 380 | 60   | 820  | 7    | 320 | 2100 | 1737   | T3              |

TDCG = H2 + CH4 + C2H6 + C2H4 + C2H2 + CO (IEEE C57.104-2008 clause 6.2), e.g. sample 3:
120 + 300 + 50 + 650 + 6 + 300 = 1426.

Normal: samples 0-2 have every gas inside the IEC 60599 typical values (H2 150, CH4 130,
C2H6 90, C2H4 280, C2H2 20, CO 600, CO2 14000) and inside IEEE C57.104-2008 condition 1
(H2 100, CH4 120, C2H6 65, C2H4 50, C2H2 1, CO 350, CO2 2500, TDCG 720).

T3: sample 3: C2H2/C2H4 = 6/650 = 0.009 (< 0.2), CH4/H2 = 300/120 = 2.5 (> 1), C2H4/C2H6 =
650/50 = 13 (> 4). Sample 4: 7/820 = 0.0085, 380/150 = 2.53, 820/60 = 13.7 → T3 too; Duval
(CH4 380, C2H4 820, C2H2 7 of 1207: 31.5 %, 67.9 %, 0.6 %) → T3; Rogers codes 0 2 2 → HTH.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from assets.transformer.families_dga import _onset_derive
from generator.api import END_DAY_INCLUDED
from generator.config import StoreSettings
from tests.assets.transformer.test_golden_families import (
    SITE,
    UNIT,
    _nameplate,
    _telemetry,
    _work_order,
    _workorders,
    generate_family,
    seed_raw,
)

GASES = ("hydrogen", "methane", "ethane", "ethylene", "acetylene", "co", "co2")
ROWS: list[tuple[float, ...]] = [
    (20, 10, 8, 5, 0.2, 200, 1500),
    (22, 11, 9, 5, 0.2, 210, 1500),
    (30, 20, 10, 8, 0.2, 250, 2000),
    (120, 300, 50, 650, 6, 300, 2000),
    (150, 380, 60, 820, 7, 320, 2100),
]
DATES = ["2026-06-01", "2026-06-08", "2026-06-15", "2026-06-22", "2026-06-29"]
# TDCG by hand (the table above): the six combustible gases summed.
TDCG = [243.2, 257.2, 318.2, 1426.0, 1737.0]
QUALITY = {"oxygen": 10000.0, "nitrogen": 50000.0, "water_content": 10.0,
           "dielectric_rigidity": 60.0, "interfacial_v": 38.0, "power_factor": 0.1,
           "acidity": 0.03, "dbds": 0.0}


def _oil() -> list[dict[str, Any]]:
    docs = []
    for d, row in zip(DATES, ROWS, strict=True):
        ts = f"{d}T10:00:00"
        docs.append({"_id": f"{UNIT}:{ts}", "dataset": "oil_sample", "asset_id": UNIT,
                     "site_name": SITE, "timestamp": ts, **dict(zip(GASES, row, strict=True)),
                     **QUALITY})
    return docs


@pytest.fixture(scope="module")
def dga_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    settings = settings_for("golden_famdga_")
    seed_raw(settings, {
        "telemetry": _telemetry(), "oil_samples": _oil(), "nameplate": _nameplate(),
        "workorders": [
            *_workorders(),
            _work_order("WO-GOLD-P02", "2026-06-15T08:00:00", "PM-INSP", True),
            _work_order("WO-GOLD-P03", "2026-07-01T08:00:00", "PM-INSP", True),
        ],
        "truth": [],
    })
    return settings


def _index(ts: str) -> int:
    return DATES.index(str(ts)[:10])


def _hand_rate(gas: str, i: int, j: int) -> float:
    """(S_j − S_i) / (7·(j − i)) ppm/day: samples are exactly a week apart."""
    if gas == "tdcg":
        return (TDCG[j] - TDCG[i]) / (7 * (j - i))
    k = GASES.index(gas)
    return (ROWS[j][k] - ROWS[i][k]) / (7 * (j - i))


def _band(rate: float) -> str:
    # IEEE C57.104-2008 Table 3 bands.
    return "below 10" if rate < 10 else "10 to 30" if rate <= 30 else "above 30"


async def test_golden_fmsr_gas_rate(dga_settings: StoreSettings, tmp_path: Path) -> None:
    """The last two samples are 3 → 4: TDCG (1737 − 1426) / 7 = 44.43 ppm/day (> 30). Dated
    pairs follow the same formula, e.g. 0 → 2: (318.2 − 243.2) / 14 = 5.36 ppm/day (below
    10); 2 → 3: 1107.8 / 7 = 158.26 (above 30)."""
    assert _hand_rate("tdcg", 3, 4) == pytest.approx(44.43, abs=0.01)
    assert _hand_rate("tdcg", 0, 2) == pytest.approx(5.357, abs=0.001)
    seeds = await generate_family(dga_settings, tmp_path, "fmsr_gas_rate", 30)
    assert len(seeds) >= 8
    assert {s.params["which"] for s in seeds} == {"latest", "dated"}
    for s in seeds:
        p, answer = s.params, s.answer
        i, j = _index(answer["first_sample"]), _index(answer["last_sample"])
        if p["which"] == "latest":
            assert (i, j) == (3, 4)
        else:
            assert (DATES[i], DATES[j]) == (p["from_day"], p["to_day"])
        assert answer["rate_ppm_per_day"] == pytest.approx(_hand_rate("tdcg", i, j), abs=1e-9)
        assert answer["rate_band"] == _band(_hand_rate("tdcg", i, j))
        assert answer["above_10_ppm_per_day"] is (_hand_rate("tdcg", i, j) > 10)
        assert s.outcome == "tdcg_" + answer["rate_band"].replace(" ", "_")
        # The text pins CO in the sum; the other reading is recorded as stated.
        assert {r.name: r.outcome for r in s.readings} == {"tdcg_without_co": "stated"}
        assert [c.name for c in s.tool_sequence] == ["oil_samples"] + ["interpret_dga"] * 2


async def test_golden_iot_gas_trend_window(dga_settings: StoreSettings, tmp_path: Path) -> None:
    """The window holds samples i..j (first to last); change S_j − S_i, rate over 7(j − i)
    days; e.g. a window around samples 1..3 gives TDCG change 1426 − 257.2 = 1168.8 ppm and
    1168.8 / 14 = 83.49 ppm/day."""
    seeds = await generate_family(dga_settings, tmp_path, "iot_gas_trend_window", 30)
    assert len(seeds) >= 5
    for s in seeds:
        p, answer = s.params, s.answer
        inside = [k for k, d in enumerate(DATES) if p["start"] <= d < p["end"]]
        i, j = inside[0], inside[-1]
        assert answer["samples"] == len(inside) >= 2
        assert (_index(answer["first_sample"]), _index(answer["last_sample"])) == (i, j)
        assert answer["rate_ppm_per_day"] == pytest.approx(_hand_rate(p["gas"], i, j), abs=1e-9)
        assert answer["change_ppm"] == pytest.approx(_hand_rate(p["gas"], i, j) * 7 * (j - i))
        checks = {r.name: r.outcome for r in s.readings}
        # No sample sits on the end day, so the inclusive reading finds the same samples.
        assert checks[END_DAY_INCLUDED] == "same"
        if len(inside) >= 3:
            assert checks["least_squares_rate"] in ("same", "stated")


async def test_golden_fmsr_dga_resample_interval(
    dga_settings: StoreSettings, tmp_path: Path
) -> None:
    """Latest sample 4: TDCG 1737 ppm → IEEE C57.104-2008 condition 2 (721–1920); rate since
    sample 3: 311 / 7 = 44.43 ppm/day (> 30). Table 3, condition 2, > 30 ppm/day: sample
    monthly, exercise caution. Without CO the TDCG would be 1417 and the rate (1417 − 1126)/7
    = 41.57: the same interval, but other figures, so the reading is stated."""
    seeds = await generate_family(dga_settings, tmp_path, "fmsr_dga_resample_interval", 6)
    assert seeds
    for s in seeds:
        assert s.answer == {
            "latest_sample": "2026-06-29T10:00:00",
            "tdcg_ppm": pytest.approx(1737.0),
            "tdcg_condition": 2,
            "rate_ppm_per_day": pytest.approx(311 / 7),
            "sampling_interval": "monthly",
            "operating_procedure": "exercise caution",
        }
        assert s.outcome == "monthly" and s.nontrivial
        assert {r.name: r.outcome for r in s.readings} == {"tdcg_without_co": "stated"}


async def test_golden_fmsr_fault_onset(dga_settings: StoreSettings, tmp_path: Path) -> None:
    """The first sample with a determined IEC 60599 fault is sample 3 (2026-06-22, T3): any
    window of three or more samples that holds it reports it, with the samples before it in
    the window counted; the window of samples 0-2 reports no fault."""
    seeds = await generate_family(dga_settings, tmp_path, "fmsr_fault_onset", 30)
    assert len(seeds) >= 3
    assert {s.outcome for s in seeds} == {"onset", "no_fault"}
    for s in seeds:
        p, answer = s.params, s.answer
        inside = [k for k, d in enumerate(DATES) if p["start"] <= d < p["end"]]
        assert len(inside) >= 3
        if 3 in inside:
            assert answer == {"onset_sample": "2026-06-22T10:00:00", "fault_type": "T3",
                              "samples_before_onset": inside.index(3)}
        else:
            assert answer == {"onset_sample": None, "fault_type": None,
                              "samples_before_onset": len(inside)}
        checks = {r.name: r.outcome for r in s.readings}
        # Duval and Rogers agree on T3 here; the typical-values-only reader finds the same
        # onset (samples 0-2 are inside both the typical values and condition 1), and no
        # sample is undetermined: every reading gives the same answer.
        assert set(checks) == {"duval_triangle", "rogers_ratios", "iec_typical_values_only",
                               "undetermined_sample_is_onset", END_DAY_INCLUDED,
                               "window_end_midnight_included"}
        assert set(checks.values()) == {"same"}
        assert "pass over abnormal samples whose class the ratios leave undetermined" in (
            p["note"])


def _dga_out(fault: str, sample: dict[str, float]) -> dict[str, Any]:
    # Every gas at 1 ppm: C2H2/C2H4 = CH4/H2 = C2H4/C2H6 = 1, outside the D1/D2 overlap.
    ratios = {"c2h2_c2h4": 1.0, "ch4_h2": 1.0, "c2h4_c2h6": 1.0}
    return {"fault_type": fault, "sample": sample, "confidence": 1.0,
            "iec_ratio_method": {"ratios": ratios},
            "confidence_detail": {"iec": 1.0}, "screen": {"all_within_iec_typical": False},
            "agreement": {"duval_as_iec": fault, "rogers_as_iec": fault}}


def test_onset_gate_nd_reading_moves_the_onset() -> None:
    """A window whose first abnormal sample is ND (class not determined) and whose next one
    is D1: the reference onset is the D1 sample; the reading that takes ND as the onset gives
    the ND sample, so the gate (which derives under every reading) sees two answers and,
    the reading not being stated, drops the draw."""
    gases = {"hydrogen": 1.0, "methane": 1.0, "ethane": 1.0, "ethylene": 1.0, "acetylene": 1.0}
    records = [{"timestamp": f"2026-06-0{k}T10:00:00", **gases} for k in (1, 2)]
    outputs = [{"records": records}, _dga_out("ND", gases), _dga_out("D1", gases)]
    base = _onset_derive({"method": "iec"}, outputs)
    alt = _onset_derive({"method": "iec", "nd_is_fault": True}, outputs)
    assert base["onset_sample"] == "2026-06-02T10:00:00" and base["fault_type"] == "D1"
    assert alt["onset_sample"] == "2026-06-01T10:00:00" and alt["fault_type"] == "ND"


def _category_c(parameter: str, value: float) -> str:
    """IEC 60422:2013 Table 5, category C (≤ 72.5 kV), written out by hand."""
    if parameter == "water_content":  # < 30 good, 30-40 fair, > 40 poor
        return "good" if value < 30 else "poor" if value > 40 else "fair"
    if parameter == "dielectric_rigidity":  # > 40 good, 30-40 fair, < 30 poor
        return "good" if value > 40 else "poor" if value < 30 else "fair"
    if parameter == "acidity":  # < 0.15 good, 0.15-0.30 fair, > 0.30 poor
        return "good" if value < 0.15 else "poor" if value > 0.30 else "fair"
    return "good" if value > 28 else "poor" if value < 22 else "fair"  # IFT, uninhibited


def _treatment(cats: dict[str, str]) -> str:
    if "poor" in (cats["acidity"], cats["interfacial_v"]):
        return "reclaim"
    if "poor" in (cats["water_content"], cats["dielectric_rigidity"]):
        return "recondition"
    return "monitor" if "fair" in cats.values() else "none"


def _stated_values(p: dict[str, Any]) -> dict[str, float]:
    return {"water_content": float(p["water"]), "dielectric_rigidity": float(p["bdv"]),
            "interfacial_v": float(p["ift"]), "acidity": float(p["acid"])}


async def test_golden_wo_oil_treatment(dga_settings: StoreSettings, tmp_path: Path) -> None:
    """GOLD-TX01's nameplate gives hv_kv 33 → IEC 60422 category C; each seed's stated lab
    values are categorised with the category C table above; an oil-treatment work order is
    raised for recondition or reclaim. E.g. water 45, 35 kV, 30 mN/m, 0.05 → poor, fair,
    good, good → recondition → raise. Preventive visits: 06-01, 06-15 (WO-GOLD-P02) and 07-01
    (WO-GOLD-P03); the data ends 2026-06-29, so a date 06-02..06-14 gives P02 and one
    06-16..06-29 gives P03."""
    assert _treatment({"water_content": "poor", "dielectric_rigidity": "fair",
                       "interfacial_v": "good", "acidity": "good"}) == "recondition"
    seeds = await generate_family(dga_settings, tmp_path, "wo_oil_treatment", 30)
    assert len(seeds) >= 8
    assert len({s.answer["decision"] for s in seeds}) >= 3
    for s in seeds:
        cats = {k: _category_c(k, v) for k, v in _stated_values(s.params).items()}
        decision = _treatment(cats)
        as_of = s.params["as_of"]
        assert "2026-06-01" < as_of <= "2026-06-29" and as_of != "2026-06-15"
        visit = ("WO-GOLD-P02", "2026-06-15") if as_of < "2026-06-15" else (
            "WO-GOLD-P03", "2026-07-01")
        assert s.answer["equipment_category"] == "C"
        assert s.answer["decision"] == decision == s.outcome
        assert s.answer["raise_work_order"] is (decision in ("recondition", "reclaim"))
        assert (s.answer["next_preventive_wo"], s.answer["next_preventive_date"]) == visit
        checks = {r.name: r.outcome for r in s.readings}
        # The critical-unit category A reading is pinned by the text ("its voltage class");
        # no visit falls on the date, so excluding the day finds the same visit.
        assert checks["after_excludes_the_day"] == "same"
        assert checks["critical_unit_category_a"] in ("same", "stated")


async def test_golden_fmsr_oil_quality(dga_settings: StoreSettings, tmp_path: Path) -> None:
    """Closed form: the stated values of GOLD-TX01, whose 33 kV nameplate makes it category
    C (stated in the text); each seed is checked against the category C table above."""
    seeds = await generate_family(dga_settings, tmp_path, "fmsr_oil_quality", 40)
    assert len(seeds) >= 10
    assert len({s.answer["decision"] for s in seeds}) >= 3
    for s in seeds:
        assert s.closed_form and s.params["category"] == "C"
        assert "category C (up to 72.5 kV)" in s.params["note"]
        cats = {k: _category_c(k, v) for k, v in _stated_values(s.params).items()}
        assert s.answer == {"categories": cats, "decision": _treatment(cats)}
        assert s.outcome == _treatment(cats)
        assert [r.name for r in s.readings] == ["critical_unit_category_a"]


def test_rate_uses_the_days_between_samples() -> None:
    """Samples three and a half days apart (10:00 → 22:00 three days later): 35 ppm more H2
    is 35 / 3.5 = 10 ppm/day."""
    from assets.transformer.families_dga import gas_rate

    a = {"timestamp": "2026-06-01T10:00:00", "hydrogen": 10.0}
    b = {"timestamp": (datetime(2026, 6, 1, 10) + timedelta(days=3.5)).isoformat(),
         "hydrogen": 45.0}
    assert gas_rate(a, b, "hydrogen") == pytest.approx(10.0)
