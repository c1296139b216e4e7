"""Golden tests of the audit's own standards code, worked by hand from the shared notes."""

from __future__ import annotations

import math

import pytest

from assets.transformer.audit import standards as s


def gases(h2: float, ch4: float, c2h6: float, c2h4: float, c2h2: float,
          co: float | None = None, co2: float | None = None) -> dict[str, float | None]:
    return {"hydrogen": h2, "methane": ch4, "ethane": c2h6, "ethylene": c2h4, "acetylene": c2h2,
            "co": co, "co2": co2}


def test_rogers_worked_case_no_fault_not_the_swapped_pdhed() -> None:
    # transformer-standards.md §1.2: H2 100, CH4 50, C2H6 20, C2H4 10, C2H2 0.5
    # C2H2/C2H4 = 0.5/10 = 0.05 → code 0; CH4/H2 = 50/100 = 0.5 → code 0 (0.1–1 in the CH4/H2
    # column); C2H4/C2H6 = 10/20 = 0.5 → code 0 → 0 0 0 = NF (the swap gives 1 1 0 = PDHED).
    r = s.dga_ratios(100, 50, 20, 10, 0.5)
    assert r == pytest.approx({"c2h2_c2h4": 0.05, "ch4_h2": 0.5, "c2h4_c2h6": 0.5})
    assert s.rogers_codes(r) == (0, 0, 0)
    assert s.rogers_diagnosis((0, 0, 0)) == "NF"


def test_worked_case_t3_by_all_three_methods() -> None:
    # §1.2: H2 50, CH4 200, C2H6 50, C2H4 300, C2H2 2 → 2/300 = 0.0067, 200/50 = 4, 300/50 = 6
    # Rogers: 0 (< 0.1), 2 (CH4/H2 > 3), 2 (> 3) → 0 2 2 = HTH → T3.
    # IEC: C2H2/C2H4 < 0.2, CH4/H2 > 1, C2H4/C2H6 > 4 → T3.
    # Duval: sum 200 + 300 + 2 = 502; %C2H4 = 59.76, %C2H2 = 0.40 → %C2H4 ≥ 50, %C2H2 < 15 → T3.
    g = gases(50, 200, 50, 300, 2)
    r = s.dga_ratios(50, 200, 50, 300, 2)
    assert s.rogers_codes(r) == (0, 2, 2)
    assert s.method_classes(g) == {"iec": "T3", "rogers": "T3", "duval": "T3"}
    pct = s.duval_percentages(200, 300, 2)
    assert pct is not None
    assert pct[1] == pytest.approx(59.76, abs=0.01) and pct[2] == pytest.approx(0.40, abs=0.01)
    assert s.methods_agreeing(s.method_classes(g)) == 3


def test_iec_t1_needs_methane_over_hydrogen_above_one() -> None:
    # H2 100, CH4 50, C2H6 100, C2H4 20, C2H2 0: CH4/H2 = 0.5, C2H4/C2H6 = 0.2.
    # T1 needs CH4/H2 > 1 → no; PD needs CH4/H2 < 0.1 → no; no other row → ND (a reading of
    # T1 that ignores CH4/H2 would call it T1).
    assert s.iec_class(s.dga_ratios(100, 50, 100, 20, 0)) == "ND"
    # H2 40, CH4 120, C2H6 220, C2H4 50: CH4/H2 = 3 > 1, C2H4/C2H6 = 0.227 < 1 → T1.
    assert s.iec_class(s.dga_ratios(40, 120, 220, 50, 0.5)) == "T1"


def test_d1_d2_overlap_depends_on_precedence() -> None:
    # H2 100, CH4 30, C2H6 20, C2H4 100, C2H2 150: C2H2/C2H4 = 1.5 (> 1 and in 0.6–2.5),
    # CH4/H2 = 0.3 (in 0.1–0.5 and 0.1–1), C2H4/C2H6 = 5 (> 1 and > 2) → rows D1 and D2.
    r = s.dga_ratios(100, 30, 20, 100, 150)
    assert s.iec_rows(r) == ["D1", "D2"]
    assert s.iec_class(r, "severe_first") == "D2"
    assert s.iec_class(r, "d1_first") == "D1"


def test_duval_zones_by_hand() -> None:
    # CH4 25, C2H4 10, C2H2 40: sum 75 → 33.3 / 13.3 / 53.3 → C2H4 < 23 and C2H2 > 13 → D1.
    assert s.duval_zone(25, 10, 40) == "D1"
    # CH4 99, C2H4 1, C2H2 0 → %CH4 = 99 ≥ 98 → PD.
    assert s.duval_zone(99, 1, 0) == "PD"
    # CH4 50, C2H4 40, C2H2 10 → 50 / 40 / 10: no D (C2H2 ≤ 13), no T1/T2 (C2H2 ≥ 4), no T3
    # (C2H4 < 50) → DT.
    assert s.duval_zone(50, 40, 10) == "DT"
    # CH4 80, C2H4 15, C2H2 1 → sum 96: %C2H4 15.6 < 20, %C2H2 1.04 < 4 → T1.
    assert s.duval_zone(80, 15, 1) == "T1"
    assert s.duval_zone(0, 0, 0) == "NA"


def test_ieee_2008_condition_by_gas_and_tdcg() -> None:
    # All gases at condition 1 (90 ≤ 100, 110 ≤ 120, 60 ≤ 65, 45 ≤ 50, 0.5 ≤ 1, 340 ≤ 350);
    # TDCG = 90 + 110 + 60 + 45 + 0.5 + 340 = 645.5 ≤ 720 → condition 1.
    assert s.ieee_condition(gases(90, 110, 60, 45, 0.5, co=340, co2=2000)) == 1
    # CO 420 → condition 2 (350 < 420 ≤ 570); TDCG 725.5 > 720 → 2; overall 2.
    assert s.ieee_condition(gases(90, 110, 60, 45, 0.5, co=420, co2=2000)) == 2
    # C2H2 36 > 35 → condition 4.
    assert s.ieee_condition(gases(10, 10, 10, 10, 36)) == 4


def test_significance_gates_differ_when_only_ieee_flags() -> None:
    # H2 120: ≤ 150 (IEC typical) but > 100 (IEEE condition 2). Other gases low.
    g = gases(120, 10, 5, 5, 0.2, co=100, co2=1000)
    assert s.not_significant(g, "iec_typical") is True
    assert s.not_significant(g, "ieee_condition1") is False
    assert s.not_significant(g, "iec_and_ieee") is False
    assert s.dga_fault(g, "iec", "iec_typical") == "normal"


def test_ageing_rates_kraft_and_upgraded() -> None:
    # Kraft: 2^((104 − 98)/6) = 2^1 = 2; at 98 °C, 1.
    assert s.ageing_rate(104, "kraft") == pytest.approx(2.0)
    assert s.ageing_rate(98, "kraft") == pytest.approx(1.0)
    # Upgraded at 110 °C: exp(15000/383 − 15000/383) = 1.
    assert s.ageing_rate(110, "upgraded") == pytest.approx(1.0)
    # Upgraded at 120 °C: 15000/383 = 39.164491, 15000/393 = 38.167939, exp(0.996552) = 2.70894.
    assert s.ageing_rate(120, "upgraded") == pytest.approx(2.70894, rel=1e-5)


def test_thermal_status_depends_on_paper_and_size() -> None:
    # 105 °C hot spot, 80 °C top oil: Kraft reference 98 < 105 ≤ 120 → accelerated ageing;
    # upgraded reference 110 ≥ 105 → normal.
    assert s.thermal_status(105, 80, "kraft") == "accelerated ageing"
    assert s.thermal_status(105, 80, "upgraded") == "normal"
    assert s.thermal_status(125, 80, "kraft") == "normal cyclic limit exceeded"
    # Top oil 110 > 105 lifts a 100 °C hot spot to the normal cyclic band.
    assert s.thermal_status(100, 110, "kraft") == "normal cyclic limit exceeded"
    assert s.thermal_status(145, 90, "kraft") == "long-time emergency limit exceeded"
    # 165 °C: medium has a 160 °C short-time limit; distribution has none ("–").
    assert s.thermal_status(165, 90, "kraft", "medium") == "short-time emergency limit exceeded"
    assert s.thermal_status(165, 90, "kraft", "distribution") == (
        "long-time emergency limit exceeded"
    )


def test_risk_and_alarm_state() -> None:
    settings = {"oti_alarm": 90.0, "oti_trip": 100.0, "wti_alarm": 110.0, "wti_trip": 130.0}
    assert s.alarm_state(112, 80, settings) == "alarm"  # 112 ≥ 110
    assert s.alarm_state(100, 101, settings) == "trip"  # 101 ≥ 100
    assert s.alarm_state(100, 80, settings, {"oti_a": 1}) == "alarm"
    assert s.risk_level("accelerated ageing", "alarm") == "high"
    assert s.risk_level("normal", "trip") == "critical"
    assert s.risk_level("accelerated ageing", "normal") == "medium"


def test_apparent_power_imbalance_and_bands() -> None:
    # 11 kV line voltages, 500 A per phase: S = 3·11·500/√3 = 9526.3 kVA = 9.5263 MVA.
    assert s.apparent_power_mva(11, 11, 11, 500, 500, 500) == pytest.approx(
        16500 / math.sqrt(3) / 1000
    )
    assert s.apparent_power_mva(11, 11, 11, 500, 500, 500) == pytest.approx(9.5263, abs=1e-4)
    # 90, 100, 110 A: mean 100, largest deviation 10 → 10 %.
    assert s.current_imbalance_pct(90, 100, 110) == pytest.approx(10.0)
    # 140 %: medium 1.5 pu normal cyclic → overload (normal cyclic); large 1.3 pu normal cyclic
    # and long-time, 1.5 pu short-time → short-time emergency.
    assert s.loading_status(140, "medium") == "overload (normal cyclic)"
    assert s.loading_status(140, "large") == "short-time emergency"
    # 170 %: distribution 1.5 < 1.7 ≤ 1.8 → long-time emergency.
    assert s.loading_status(170, "distribution") == "long-time emergency"
    assert s.loading_status(15, "medium") == "light"
    assert s.loading_status(15, "medium", light_band=False) == "normal"
    assert s.size_class_of(1.6) == "distribution" and s.size_class_of(63) == "medium"


def test_health_index_by_the_documented_table() -> None:
    # DGA: H2 50 (1·2), CH4 100 (2·3), C2H6 70 (2·3), C2H4 40 (1·3), C2H2 0 (1·5), CO 400 (2·1),
    #      CO2 2600 (2·1) → 26/18 = 1.444 → rating B → HIF 3.
    # Oil: BDV 55 (1·3), IFT 32 (1·2), water 22 (2·4), PF 0.05 (1·3) → 16/12 = 1.333 → B → 3;
    #      acidity 0.2 scores 4 (weight 1) → 20/13 = 1.538 → C → HIF 2.
    # HI = 100·(10·3 + 6·3)/64 = 75 (good); with acidity 100·(30 + 12)/64 = 65.625 (fair).
    sample: dict[str, float | None] = {
        "hydrogen": 50, "methane": 100, "ethane": 70, "ethylene": 40, "acetylene": 0,
        "co": 400, "co2": 2600, "dielectric_rigidity": 55, "interfacial_v": 32,
        "water_content": 22, "power_factor": 0.05, "acidity": 0.2,
    }
    assert s.health_index(sample, with_acidity=False) == (75.0, "good")
    assert s.health_index(sample, with_acidity=True) == (65.625, "fair")
