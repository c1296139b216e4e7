"""Golden and property tests of assets.transformer.dga.

Expected values are worked by hand from IEC 60599:2015 Table 1, the Rogers / IEC 599 code
table, Duval triangle 1 and IEEE C57.104-2008 Table 1 as written in
/work/shared/domain/transformer-standards.md; the arithmetic is in the comments.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from assets.transformer.dga import (
    RECOMMENDED_ACTIONS,
    DuvalResult,
    GasSample,
    Ratios,
    boundary_margin,
    classify_iec60599,
    classify_rogers,
    concentration_screen,
    duval_confidence,
    duval_triangle1,
    duval_zone,
    iec60599_ratios,
    iec_confidence,
    interpret_dga,
    margin_score,
    recommended_action,
    rogers_codes,
)


def _sample(h2: float, ch4: float, c2h6: float, c2h4: float, c2h2: float) -> GasSample:
    return GasSample(hydrogen=h2, methane=ch4, ethane=c2h6, ethylene=c2h4, acetylene=c2h2)


def _ratios(c2h2_c2h4: float, ch4_h2: float, c2h4_c2h6: float) -> Ratios:
    return Ratios(c2h2_c2h4=c2h2_c2h4, ch4_h2=ch4_h2, c2h4_c2h6=c2h4_c2h6)


# ---------------------------------------------------------------------------------------------
# Worked cases of the shared notes
# ---------------------------------------------------------------------------------------------


def test_worked_case_no_fault_codes_000() -> None:
    # H2 100, CH4 50, C2H6 20, C2H4 10, C2H2 0.5
    # C2H2/C2H4 = 0.5/10 = 0.05 (< 0.1 → code 0)
    # CH4/H2 = 50/100 = 0.5 (0.1 – 1 → CH4/H2 code 0)
    # C2H4/C2H6 = 10/20 = 0.5 (0.1 – 1 → code 0) → 0 0 0 → NF
    r = iec60599_ratios(_sample(100, 50, 20, 10, 0.5))
    assert r.c2h2_c2h4 == pytest.approx(0.05)
    assert r.ch4_h2 == pytest.approx(0.5)
    assert r.c2h4_c2h6 == pytest.approx(0.5)
    assert rogers_codes(r) == (0, 0, 0)
    assert classify_rogers(rogers_codes(r)) == "NF"


def test_swapped_coding_pitfall_is_not_reproduced() -> None:
    # With the C2H2/C2H4 coding applied to CH4/H2 (and vice versa), the NF case above would
    # code CH4/H2 = 0.5 as 1 and C2H2/C2H4 = 0.05 as 1 → 1 1 0 → PDHED. The CH4/H2 column codes
    # < 0.1 as 1 and 0.1 – 1 as 0; the C2H2/C2H4 column codes them 0 and 1.
    assert rogers_codes(_ratios(0.05, 0.5, 0.5)) == (0, 0, 0)
    assert rogers_codes(_ratios(0.05, 0.05, 0.05)) == (0, 1, 0)
    assert rogers_codes(_ratios(0.5, 0.5, 0.5)) == (1, 0, 0)
    assert classify_rogers((1, 1, 0)) == "PDHED"
    interp = interpret_dga("T-1", hydrogen=100, methane=50, acetylene=0.5, ethylene=10, ethane=20)
    assert interp.rogers.diagnosis == "NF"


def test_worked_case_high_temperature_thermal() -> None:
    # H2 50, CH4 200, C2H6 50, C2H4 300, C2H2 2
    # C2H2/C2H4 = 2/300 = 0.00667; CH4/H2 = 200/50 = 4; C2H4/C2H6 = 300/50 = 6
    # Rogers: 0.00667 < 0.1 → 0; CH4/H2 4 > 3 → 2; 6 > 3 → 2 → 0 2 2 → HTH
    # IEC T3: 0.00667 < 0.2, 4 > 1, 6 > 4 → T3
    # Duval: sum = 200 + 300 + 2 = 502; %C2H4 = 300/502 = 59.76; %C2H2 = 2/502 = 0.40;
    # %C2H4 ≥ 50 and %C2H2 < 15 → T3
    s = _sample(50, 200, 50, 300, 2)
    r = iec60599_ratios(s)
    assert r.c2h2_c2h4 == pytest.approx(2 / 300)
    assert r.ch4_h2 == pytest.approx(4.0)
    assert r.c2h4_c2h6 == pytest.approx(6.0)
    assert rogers_codes(r) == (0, 2, 2)
    assert classify_rogers(rogers_codes(r)) == "HTH"
    assert classify_iec60599(r) == "T3"
    d = duval_triangle1(s)
    assert d.zone == "T3"
    assert round(d.pct_c2h4, 1) == 59.8
    assert round(d.pct_c2h2, 1) == 0.4
    assert d.pct_ch4 == pytest.approx(100 * 200 / 502)


# ---------------------------------------------------------------------------------------------
# One sample per IEC class; the three methods agree
# ---------------------------------------------------------------------------------------------

# (H2, CH4, C2H6, C2H4, C2H2) → (IEC class, Rogers codes, Rogers diagnosis, Duval zone)
#
# PD 800, 60, 15, 0.2, 0:  C2H2/C2H4 = 0; CH4/H2 = 60/800 = 0.075; C2H4/C2H6 = 0.2/15 = 0.0133.
#   IEC PD (0.075 < 0.1, 0.0133 < 0.2). Rogers 0, 1 (CH4/H2 < 0.1), 0 → PDLED.
#   Duval: 60 + 0.2 + 0 = 60.2; %CH4 = 99.67 ≥ 98 → PD.
# D1 100, 25, 5, 10, 40:  C2H2/C2H4 = 4; CH4/H2 = 0.25; C2H4/C2H6 = 2.
#   IEC: D2 needs C2H2/C2H4 ≤ 2.5 → no; D1 4 > 1, 0.1 ≤ 0.25 ≤ 0.5, 2 > 1 → D1.
#   Rogers 2 (> 3), 0 (0.1 – 1), 1 (1 – 3) → 2 0 1 → LED.
#   Duval: 25 + 10 + 40 = 75; %C2H4 = 13.33 < 23, %C2H2 = 53.33 > 13 → D1.
# D2 200, 160, 25, 150, 120:  C2H2/C2H4 = 0.8; CH4/H2 = 0.8; C2H4/C2H6 = 6.
#   IEC D2: 0.6 ≤ 0.8 ≤ 2.5, 0.1 ≤ 0.8 ≤ 1, 6 > 2 → D2.
#   Rogers 1 (0.1 – 1), 0 (0.1 – 1), 2 (> 3) → 1 0 2 → HED.
#   Duval: 160 + 150 + 120 = 430; %C2H4 = 34.88 in [23, 40), %C2H2 = 27.91 > 13 → D2.
# T1 30, 75, 100, 12, 0.2:  C2H2/C2H4 = 0.0167; CH4/H2 = 2.5; C2H4/C2H6 = 0.12.
#   IEC: not D2/D1 (C2H2/C2H4 small), not T3/T2 (0.12 < 1), not PD (2.5 ≥ 0.1), T1 0.12 < 1.
#   Rogers 0, 2 (1 – 3), 0 (0.1 – 1) → 0 2 0 → LTH4.
#   Duval: 75 + 12 + 0.2 = 87.2; %C2H4 = 13.76 < 20, %C2H2 = 0.23 < 4 → T1.
# T2 40, 110, 40, 80, 1:  C2H2/C2H4 = 0.0125; CH4/H2 = 2.75; C2H4/C2H6 = 2.
#   IEC T2: 0.0125 < 0.1, 2.75 > 1, 1 ≤ 2 ≤ 4 → T2.
#   Rogers 0, 2 (1 – 3), 1 (1 – 3) → 0 2 1 → MTH.
#   Duval: 110 + 80 + 1 = 191; %C2H4 = 41.88 in [20, 50), %C2H2 = 0.52 < 4 → T2.
# T3 50, 200, 50, 300, 2: worked case above → T3, 0 2 2 HTH, Duval T3.
CLASS_SAMPLES = {
    "PD": ((800, 60, 15, 0.2, 0), (0, 1, 0), "PDLED", "PD"),
    "D1": ((100, 25, 5, 10, 40), (2, 0, 1), "LED", "D1"),
    "D2": ((200, 160, 25, 150, 120), (1, 0, 2), "HED", "D2"),
    "T1": ((30, 75, 100, 12, 0.2), (0, 2, 0), "LTH4", "T1"),
    "T2": ((40, 110, 40, 80, 1), (0, 2, 1), "MTH", "T2"),
    "T3": ((50, 200, 50, 300, 2), (0, 2, 2), "HTH", "T3"),
}


@pytest.mark.parametrize("fault", sorted(CLASS_SAMPLES))
def test_each_iec_class_all_three_methods_agree(fault: str) -> None:
    (h2, ch4, c2h6, c2h4, c2h2), codes, rogers, zone = CLASS_SAMPLES[fault]
    s = _sample(h2, ch4, c2h6, c2h4, c2h2)
    r = iec60599_ratios(s)
    assert classify_iec60599(r) == fault
    assert rogers_codes(r) == codes
    assert classify_rogers(codes) == rogers
    assert duval_triangle1(s).zone == zone

    interp = interpret_dga(
        "T-1", hydrogen=h2, methane=ch4, acetylene=c2h2, ethylene=c2h4, ethane=c2h6
    )
    # Every sample has at least one gas above IEC typical or IEEE condition > 1 (PD: H2 800;
    # D1: C2H2 40 > 20; D2: H2 200; T1: C2H6 100 > 90; T2: C2H4 80 → condition 2; T3: C2H4 300).
    assert interp.fault_type == fault
    assert interp.fault_label.startswith(f"{fault}: ")
    assert interp.agreement.methods_agreeing == 3
    assert interp.agreement.consensus == fault


def test_duval_percentages_of_class_samples() -> None:
    # PD: %CH4 = 60/60.2 = 99.668; D2: %C2H2 = 120/430 = 27.907; T2: %C2H4 = 80/191 = 41.885
    assert duval_triangle1(_sample(800, 60, 15, 0.2, 0)).pct_ch4 == pytest.approx(99.668, abs=1e-3)
    assert duval_triangle1(_sample(200, 160, 25, 150, 120)).pct_c2h2 == pytest.approx(
        27.907, abs=1e-3
    )
    assert duval_triangle1(_sample(40, 110, 40, 80, 1)).pct_c2h4 == pytest.approx(41.885, abs=1e-3)


# ---------------------------------------------------------------------------------------------
# IEC 60599 Table 1: boundaries and precedence
# ---------------------------------------------------------------------------------------------


def test_iec_boundaries_inclusive_ranges_strict_inequalities() -> None:
    # T2 C2H4/C2H6 "1 – 4" inclusive; T3 "> 4" strict; T1 "< 1" strict.
    assert classify_iec60599(_ratios(0.05, 2.0, 4.0)) == "T2"
    assert classify_iec60599(_ratios(0.05, 2.0, 4.0001)) == "T3"
    assert classify_iec60599(_ratios(0.05, 2.0, 1.0)) == "T2"
    assert classify_iec60599(_ratios(0.05, 2.0, 0.999)) == "T1"
    # D1 CH4/H2 "0.1 – 0.5" inclusive at 0.5; just above it no row matches.
    assert classify_iec60599(_ratios(3.0, 0.5, 2.0)) == "D1"
    assert classify_iec60599(_ratios(3.0, 0.5001, 2.0)) == "ND"
    # D2 C2H2/C2H4 "0.6 – 2.5" inclusive at 0.6.
    assert classify_iec60599(_ratios(0.6, 0.5, 3.0)) == "D2"
    assert classify_iec60599(_ratios(0.59, 0.5, 3.0)) == "ND"
    # PD CH4/H2 "< 0.1" strict: at 0.1 with C2H4/C2H6 0.1 PD fails, and T1 needs CH4/H2 > 1,
    # so no row matches (before the issue-9 fix T1 ignored CH4/H2 and took this point).
    assert classify_iec60599(_ratios(0.0, 0.0999, 0.1)) == "PD"
    assert classify_iec60599(_ratios(0.0, 0.1, 0.1)) == "ND"
    # T1 CH4/H2 "> 1" strict: 1.0 is not T1 (no other row: C2H4/C2H6 0.5 < 1) → ND; 1.0001 → T1.
    assert classify_iec60599(_ratios(0.0, 1.0, 0.5)) == "ND"
    assert classify_iec60599(_ratios(0.0, 1.0001, 0.5)) == "T1"


def test_iec_precedence_in_overlaps() -> None:
    # D1/D2 overlap: C2H2/C2H4 1.5 (in 1 – 2.5 and > 1), CH4/H2 0.3, C2H4/C2H6 3 (> 2) → D2.
    assert classify_iec60599(_ratios(1.5, 0.3, 3.0)) == "D2"
    # Same but C2H2/C2H4 3 (> 2.5): only D1 matches.
    assert classify_iec60599(_ratios(3.0, 0.3, 3.0)) == "D1"
    # PD and T1 are disjoint now (PD CH4/H2 < 0.1, T1 > 1): CH4/H2 0.05, C2H4/C2H6 0.1 → PD;
    # with C2H4/C2H6 0.5 (≥ 0.2) PD fails and T1 fails (0.05 ≤ 1) → ND.
    assert classify_iec60599(_ratios(0.0, 0.05, 0.1)) == "PD"
    assert classify_iec60599(_ratios(0.0, 0.05, 0.5)) == "ND"
    # T3 C2H2/C2H4 < 0.2 but T2 needs < 0.1: 0.15, CH4/H2 2, C2H4/C2H6 3 → no row.
    assert classify_iec60599(_ratios(0.15, 2.0, 3.0)) == "ND"


# ---------------------------------------------------------------------------------------------
# Rogers codes
# ---------------------------------------------------------------------------------------------


def test_rogers_coding_ranges_and_boundaries() -> None:
    # Ranges < 0.1 | 0.1 ≤ r < 1 | 1 ≤ r ≤ 3 | > 3
    # C2H2/C2H4: 0 1 1 2; CH4/H2: 1 0 2 2; C2H4/C2H6: 0 0 1 2
    assert rogers_codes(_ratios(2.0, 2.0, 2.0)) == (1, 2, 1)
    assert rogers_codes(_ratios(4.0, 4.0, 4.0)) == (2, 2, 2)
    assert rogers_codes(_ratios(0.1, 0.1, 0.1)) == (1, 0, 0)
    assert rogers_codes(_ratios(1.0, 1.0, 1.0)) == (1, 2, 1)
    assert rogers_codes(_ratios(3.0, 3.0, 3.0)) == (1, 2, 1)
    assert rogers_codes(_ratios(3.0001, 3.0001, 3.0001)) == (2, 2, 2)


def test_rogers_diagnosis_table() -> None:
    assert classify_rogers((0, 0, 0)) == "NF"
    assert classify_rogers((0, 1, 0)) == "PDLED"
    assert classify_rogers((1, 1, 0)) == "PDHED"
    # "1–2, 0, 1–2" is LED except 1 0 2, which is HED.
    assert classify_rogers((1, 0, 1)) == "LED"
    assert classify_rogers((2, 0, 1)) == "LED"
    assert classify_rogers((2, 0, 2)) == "LED"
    assert classify_rogers((1, 0, 2)) == "HED"
    assert classify_rogers((0, 0, 1)) == "LTH1"
    assert classify_rogers((0, 2, 0)) == "LTH4"
    assert classify_rogers((0, 2, 1)) == "MTH"
    assert classify_rogers((0, 2, 2)) == "HTH"
    assert classify_rogers((0, 0, 2)) == "UD"
    assert classify_rogers((2, 2, 2)) == "UD"


# ---------------------------------------------------------------------------------------------
# Zero denominators
# ---------------------------------------------------------------------------------------------


def test_zero_c2h4_gives_divergent_c2h2_ratio_as_null_and_valid_json() -> None:
    # H2 100, CH4 10, C2H6 10, C2H4 0, C2H2 5: C2H2/C2H4 = 5/0 diverges → null + flag, read as
    # above every threshold; C2H4/C2H6 = 0/10 = 0; CH4/H2 = 0.1.
    # Rogers: divergent > 3 → 2; 0.1 → 0; 0 → 0 → 2 0 0 → UD.
    r = iec60599_ratios(_sample(100, 10, 10, 0, 5))
    assert r.c2h2_c2h4 is None
    assert r.divergent == ["c2h2_c2h4"]
    assert r.value("c2h2_c2h4") == math.inf
    assert r.c2h4_c2h6 == 0.0
    assert rogers_codes(r) == (2, 0, 0)
    dumped = r.model_dump(mode="json")
    assert dumped["c2h2_c2h4"] is None
    json.dumps(dumped, allow_nan=False)
    assert Ratios.model_validate(dumped) == r


def test_zero_h2_gives_divergent_ch4_ratio() -> None:
    # H2 0, CH4 50 → CH4/H2 diverges (> 1, Rogers code 2); C2H4/C2H6 = 10/20 = 0.5 < 1 and
    # CH4/H2 > 1 → IEC T1.
    r = iec60599_ratios(_sample(0, 50, 20, 10, 0))
    assert r.ch4_h2 is None and r.divergent == ["ch4_h2"]
    assert rogers_codes(r)[1] == 2
    assert classify_iec60599(r) == "T1"


def test_ratio_overflow_from_a_trace_denominator_is_divergent() -> None:
    # 10^6 / 5e-324 exceeds the float range: reported as divergent, never as inf.
    r = iec60599_ratios(_sample(5e-324, 1e6, 1.0, 1.0, 0.0))
    assert r.ch4_h2 is None and r.divergent == ["ch4_h2"]
    json.dumps(r.model_dump(mode="json"), allow_nan=False)


def test_zero_over_zero_is_zero_and_all_zero_duval_na() -> None:
    r = iec60599_ratios(_sample(0, 0, 0, 0, 0))
    assert (r.c2h2_c2h4, r.ch4_h2, r.c2h4_c2h6) == (0.0, 0.0, 0.0)
    assert r.zero_over_zero == ["c2h2_c2h4", "ch4_h2", "c2h4_c2h6"] and r.divergent == []
    d = duval_triangle1(_sample(0, 0, 0, 0, 0))
    assert d.zone == "NA"
    assert (d.pct_ch4, d.pct_c2h4, d.pct_c2h2) == (0.0, 0.0, 0.0)
    interp = interpret_dga("T-1", hydrogen=0, methane=0, acetylene=0, ethylene=0, ethane=0)
    assert interp.fault_type == "normal"
    json.dumps(interp.model_dump(mode="json"), allow_nan=False)


def test_ratios_reject_nan() -> None:
    with pytest.raises(ValidationError, match="ch4_h2"):
        _ratios(0.1, math.nan, 0.1)


# ---------------------------------------------------------------------------------------------
# Duval triangle 1
# ---------------------------------------------------------------------------------------------


def test_duval_corners() -> None:
    # Pure CH4: %CH4 100 ≥ 98 → PD.
    assert duval_triangle1(_sample(0, 100, 0, 0, 0)).zone == "PD"
    # Pure C2H4: not PD; D1 needs %C2H4 < 23; D2 needs %C2H2 > 29; T1/T2 need %C2H4 < 50;
    # T3 %C2H4 100 ≥ 50 and %C2H2 0 < 15 → T3.
    assert duval_triangle1(_sample(0, 0, 0, 100, 0)).zone == "T3"
    # Pure C2H2: not PD; D1 %C2H4 0 < 23 and %C2H2 100 > 13 → D1.
    assert duval_triangle1(_sample(0, 0, 0, 0, 100)).zone == "D1"


def test_duval_ordered_rules_and_dt() -> None:
    # %C2H2 between 4 and 13 with %C2H4 < 50: no zone → DT.
    assert duval_zone(62.0, 30.0, 8.0) == "DT"
    # %C2H4 ≥ 50 with %C2H2 in (15, 29]: DT; above 29: D2.
    assert duval_zone(30.0, 50.0, 20.0) == "DT"
    assert duval_zone(20.0, 45.0, 35.0) == "D2"
    # %C2H4 exactly 23 with %C2H2 > 13 is D2 (23 ≤ %C2H4), just below is D1.
    assert duval_zone(57.0, 23.0, 20.0) == "D2"
    assert duval_zone(57.1, 22.9, 20.0) == "D1"
    # %C2H4 exactly 20 with %C2H2 < 4 is T2.
    assert duval_zone(78.0, 20.0, 2.0) == "T2"


# ---------------------------------------------------------------------------------------------
# Confidence
# ---------------------------------------------------------------------------------------------


def test_margin_score_formula() -> None:
    # clip(distance / margin, 0.3, 1)
    assert margin_score(0.0, 0.05) == 0.3
    assert margin_score(0.025, 0.05) == pytest.approx(0.5)
    assert margin_score(0.2, 0.05) == 1.0
    assert margin_score(math.inf, 0.05) == 1.0


def test_iec_confidence_near_t2_t3_boundary() -> None:
    # C2H4/C2H6 = 4.1 → T3; relative distance to 4 = 0.1/4 = 0.025 → 0.025/0.05 = 0.5.
    # C2H2/C2H4 0.006 vs 0.2 and CH4/H2 2.75 vs 1 are far (score 1).
    assert iec_confidence(_ratios(0.006, 2.75, 4.1)) == pytest.approx(0.5)
    # 4.05: 0.05/4 = 0.0125 → 0.25 → clipped to 0.3.
    assert iec_confidence(_ratios(0.006, 2.75, 4.05)) == pytest.approx(0.3)
    # 6: 2/4 = 0.5 ≥ 0.05 → 1.
    assert iec_confidence(_ratios(0.006, 2.75, 6.0)) == 1.0


def test_iec_confidence_ignores_boundaries_that_do_not_change_the_class() -> None:
    # T1 ignores C2H2/C2H4: at 0.101 it is 1 % from T2's C2H2/C2H4 limit 0.1, but crossing it
    # leaves T1 (C2H4/C2H6 0.5 is not in T2's 1 – 4), so it is not a relevant boundary.
    # Relevant: CH4/H2 2 vs 1 → |2 − 1|/1 = 1 ≥ 0.05 → 1; C2H4/C2H6 0.5 vs 1 → 0.5 → 1.
    assert classify_iec60599(_ratios(0.101, 2.0, 0.5)) == "T1"
    assert iec_confidence(_ratios(0.101, 2.0, 0.5)) == 1.0


def test_iec_confidence_near_the_t1_ch4_h2_limit() -> None:
    # T1 now needs CH4/H2 > 1: at 1.01 the relative distance is 0.01/1 = 0.01 → 0.01/0.05 = 0.2,
    # clipped to the floor 0.3 (crossing it gives ND).
    assert classify_iec60599(_ratios(0.0, 1.01, 0.5)) == "T1"
    assert iec_confidence(_ratios(0.0, 1.01, 0.5)) == pytest.approx(0.3)


def test_duval_confidence_formula() -> None:
    # T2 point with %C2H4 49: 1 point from the T3 limit 50 → 1/2 = 0.5;
    # %C2H2 1 is 3 points from 4 (→ 1), %C2H4 29 points from 20.
    d = DuvalResult(pct_ch4=50.0, pct_c2h4=49.0, pct_c2h2=1.0, zone="T2")
    assert duval_confidence(d) == pytest.approx(0.5)
    # PD sample: %CH4 = 99.668, 1.668 points from 98 → 0.834.
    pd = duval_triangle1(_sample(800, 60, 15, 0.2, 0))
    assert duval_confidence(pd) == pytest.approx((100 * 60 / 60.2 - 98) / 2)


def test_near_boundary_case_has_lower_confidence_than_far_case() -> None:
    # Far: T3 worked case; C2H4/C2H6 = 6 (50 % from 4), Duval %C2H4 59.8 (9.8 points from 50).
    far = interpret_dga("T-1", hydrogen=50, methane=200, acetylene=2, ethylene=300, ethane=50)
    # Near: H2 40, CH4 110, C2H6 40, C2H4 162, C2H2 1: C2H4/C2H6 = 4.05 → T3, 1.25 % from 4
    # → score clip(0.25) = 0.3. Duval: 110 + 162 + 1 = 273, %C2H4 = 59.3 → T3 far from 50.
    near = interpret_dga("T-1", hydrogen=40, methane=110, acetylene=1, ethylene=162, ethane=40)
    assert far.fault_type == near.fault_type == "T3"
    assert far.confidence == 1.0
    assert near.confidence == pytest.approx(0.3)
    assert near.confidence < far.confidence
    r = iec60599_ratios(_sample(40, 110, 40, 162, 1))
    assert boundary_margin(r, duval_triangle1(_sample(40, 110, 40, 162, 1))) == pytest.approx(0.3)


# ---------------------------------------------------------------------------------------------
# Concentration screen and normal gate
# ---------------------------------------------------------------------------------------------


def test_screen_worked_t3_without_co() -> None:
    # H2 50: ≤ 150 typical, ≤ 100 → condition 1.   CH4 200: > 130, 120 < 200 ≤ 400 → 2.
    # C2H6 50: ≤ 90, ≤ 65 → 1.   C2H4 300: > 280, > 200 → 4.   C2H2 2: ≤ 20, 1 < 2 ≤ 9 → 2.
    # TDCG without CO = 50 + 200 + 50 + 300 + 2 = 602 ≤ 720 → 1. Overall = max = 4.
    screen = concentration_screen(_sample(50, 200, 50, 300, 2))
    expected = {"H2": (False, 1), "CH4": (True, 2), "C2H6": (False, 1), "C2H4": (True, 4)}
    expected["C2H2"] = (False, 2)
    for gas, (exceeds, condition) in expected.items():
        entry = screen.by_gas(gas)
        assert (entry.exceeds_iec_typical, entry.ieee_condition) == (exceeds, condition), gas
    assert screen.tdcg_ppm == pytest.approx(602.0)
    assert screen.tdcg_condition == 1
    assert screen.ieee_condition == 4
    assert screen.by_gas("CO").ppm is None
    assert any("CO not measured" in note for note in screen.notes)
    assert "2008" in screen.edition


def test_screen_with_co_and_oltc() -> None:
    # CO 400: 350 < 400 ≤ 570 → condition 2; TDCG = 602 + 400 = 1002 → 720 < 1002 ≤ 1920 → 2.
    s = GasSample(hydrogen=50, methane=200, ethane=50, ethylene=300, acetylene=2, co=400)
    screen = concentration_screen(s)
    assert screen.by_gas("CO").ieee_condition == 2
    assert screen.tdcg_ppm == pytest.approx(1002.0)
    assert screen.tdcg_condition == 2
    assert not any("CO not measured" in note for note in screen.notes)
    # C2H2 50 ppm: above 20 (no OLTC), below 280 (communicating OLTC).
    s2 = _sample(10, 10, 10, 10, 50)
    assert concentration_screen(s2).by_gas("C2H2").exceeds_iec_typical is True
    oltc = concentration_screen(s2, oltc_communicating=True)
    assert oltc.by_gas("C2H2").iec_typical_ppm == 280.0
    assert oltc.by_gas("C2H2").exceeds_iec_typical is False


def test_healthy_sample_reports_normal_with_ratios() -> None:
    # NF worked case: every gas ≤ IEC typical (100 ≤ 150, 50 ≤ 130, 20 ≤ 90, 10 ≤ 280,
    # 0.5 ≤ 20) and IEEE condition 1 (H2 100 ≤ 100, C2H2 0.5 ≤ 1, TDCG 180.5 ≤ 720) → normal.
    # The raw Table 1 class is ND (C2H4/C2H6 0.5 < 1 but CH4/H2 0.5 is not > 1), still reported.
    interp = interpret_dga("T-1", hydrogen=100, methane=50, acetylene=0.5, ethylene=10, ethane=20)
    assert interp.fault_type == "normal"
    assert interp.iec_ratio_method.fault == "ND"
    assert interp.agreement.agreement_factor == 1.0 and interp.agreement.supporting_methods == []
    assert interp.iec_ratio_method.ratios.ch4_h2 == pytest.approx(0.5)
    assert interp.recommended_action == "routine sampling per schedule"
    # H2 sits exactly on the IEEE condition-1 bound 100: distance 0 → confidence floor 0.3.
    assert interp.confidence == pytest.approx(0.3)


def test_recommended_action_table() -> None:
    assert recommended_action("PD", 1) == "resample in 1 month, check for moisture/gas bubbles"
    assert recommended_action("D2", 1) == "remove from service for internal inspection"
    assert recommended_action("D2", 4) == "remove from service for internal inspection"
    assert recommended_action("T3", 2) == (
        "reduce load, resample within 1 week, plan internal inspection"
    )
    assert recommended_action("normal", 1) == "routine sampling per schedule"
    for fault in ("PD", "D1", "D2", "T1", "T2", "T3", "ND"):
        assert (fault, "low") in RECOMMENDED_ACTIONS
        assert (fault, "high") in RECOMMENDED_ACTIONS
    # Worked T3 case is IEEE condition 4 → "high" band.
    interp = interpret_dga("T-1", hydrogen=50, methane=200, acetylene=2, ethylene=300, ethane=50)
    assert interp.recommended_action == RECOMMENDED_ACTIONS[("T3", "high")]


def test_interpretation_fields_and_json() -> None:
    interp = interpret_dga("TX-7", hydrogen=50, methane=200, acetylene=2, ethylene=300, ethane=50)
    assert interp.asset_name == "TX-7"
    assert interp.fault_label == "T3: thermal fault > 700 °C"
    assert interp.rogers.codes == [0, 2, 2]
    assert "IEC 60599:2015" in interp.standard
    assert "IEEE C57.104-2008 Table 1" in interp.standard
    assert "Duval triangle 1" in interp.standard
    assert "0 2 2" in interp.reasoning
    assert "3 of 3" in interp.reasoning
    json.dumps(interp.model_dump(mode="json"), allow_nan=False)


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [("hydrogen", -1.0), ("methane", math.nan), ("acetylene", math.inf), ("ethane", -math.inf)],
)
def test_gas_sample_rejects_bad_values_naming_the_field(field: str, value: float) -> None:
    values = {"hydrogen": 1.0, "methane": 1.0, "ethane": 1.0, "ethylene": 1.0, "acetylene": 1.0}
    values[field] = value
    with pytest.raises(ValidationError, match=field):
        GasSample.model_validate(values)


def test_interpret_rejects_bad_optional_gas() -> None:
    with pytest.raises(ValidationError, match="co2"):
        interpret_dga("T-1", 1, 1, 1, 1, 1, co=1, co2=math.nan)


def test_gas_sample_forbids_extra_fields() -> None:
    with pytest.raises(ValidationError, match="propane"):
        GasSample.model_validate(
            {"hydrogen": 1, "methane": 1, "ethane": 1, "ethylene": 1, "acetylene": 1, "propane": 1}
        )


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------

_PPM = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(database=None, max_examples=300, deadline=None)
@given(_PPM, _PPM, _PPM, _PPM, _PPM, st.none() | _PPM, st.none() | _PPM)
def test_interpret_never_raises_on_valid_input(
    h2: float,
    ch4: float,
    c2h2: float,
    c2h4: float,
    c2h6: float,
    co: float | None,
    co2: float | None,
) -> None:
    interp = interpret_dga("T-1", h2, ch4, c2h2, c2h4, c2h6, co, co2)
    # Floor: margin floor 0.3 × one supporting method in three = 0.1.
    assert 0.1 - 1e-12 <= interp.confidence <= 1.0
    if interp.fault_type != "normal":
        assert "iec" in interp.agreement.supporting_methods
        assert interp.agreement.agreement_factor == len(interp.agreement.supporting_methods) / 3
    assert all(code in (0, 1, 2) for code in interp.rogers.codes)
    d = interp.duval
    if d.zone != "NA":
        assert d.pct_ch4 + d.pct_c2h4 + d.pct_c2h2 == pytest.approx(100.0)
    assert 0 <= interp.agreement.methods_agreeing <= 3
    assert 1 <= interp.screen.ieee_condition <= 4
    json.dumps(interp.model_dump(mode="json"), allow_nan=False)


@settings(database=None, max_examples=100, deadline=None)
@given(
    st.sampled_from(["hydrogen", "methane", "ethane", "ethylene", "acetylene", "co", "co2"]),
    st.floats(max_value=-1e-9, allow_nan=False) | st.just(math.nan),
)
def test_negative_or_nan_gas_names_the_field(field: str, value: float) -> None:
    values: dict[str, float] = {
        "hydrogen": 1.0,
        "methane": 1.0,
        "ethane": 1.0,
        "ethylene": 1.0,
        "acetylene": 1.0,
    }
    values[field] = value
    with pytest.raises(ValidationError) as excinfo:
        GasSample.model_validate(values)
    assert [err["loc"] for err in excinfo.value.errors()] == [(field,)]


# ---------------------------------------------------------------------------------------------
# Issue 9: the T1 row needs CH4/H2 > 1; confidence reflects the three methods
# ---------------------------------------------------------------------------------------------


def test_issue_sample_is_not_t1_and_methods_disagree() -> None:
    # H2 86.55, CH4 21.78, C2H6 11.48, C2H4 6.39, C2H2 21.0 (the sample of the issue).
    # C2H2/C2H4 = 21.0/6.39 = 3.2864; CH4/H2 = 21.78/86.55 = 0.25165;
    # C2H4/C2H6 = 6.39/11.48 = 0.55662.
    # IEC Table 1: D2 needs C2H4/C2H6 > 2 → no; D1 needs C2H4/C2H6 > 1 → no; T3/T2 need
    # CH4/H2 > 1 → no; PD needs CH4/H2 < 0.1 → no; T1 needs CH4/H2 > 1 → no → ND.
    # (The old reading, T1 = "C2H4/C2H6 < 1" alone, gave T1 with confidence 1.)
    # Rogers: 3.29 > 3 → 2; 0.25 in [0.1, 1) → CH4/H2 code 0; 0.557 in [0.1, 1) → 0 → 2 0 0
    # → UD (undetermined).
    # Duval: sum = 21.78 + 6.39 + 21.0 = 49.17; %CH4 = 44.30, %C2H4 = 13.00, %C2H2 = 42.71;
    # %C2H4 < 23 and %C2H2 > 13 → D1.
    interp = interpret_dga("T-1", hydrogen=86.55, methane=21.78, acetylene=21.0, ethylene=6.39,
                           ethane=11.48)  # fmt: skip
    r = interp.iec_ratio_method.ratios
    assert r.c2h2_c2h4 == pytest.approx(3.2864, abs=1e-4)
    assert r.ch4_h2 == pytest.approx(0.25165, abs=1e-5)
    assert r.c2h4_c2h6 == pytest.approx(0.55662, abs=1e-5)
    assert interp.rogers.codes == [2, 0, 0] and interp.rogers.diagnosis == "UD"
    assert interp.duval.zone == "D1"
    assert interp.duval.pct_c2h2 == pytest.approx(42.71, abs=0.01)
    # H2 86.55 ≤ 150 but C2H2 21 > 20 (IEC typical) → significant; fault_type = IEC class.
    assert interp.fault_type == "ND"
    # Combined: ND (IEC) and UD (Rogers, "not determined") agree, Duval says D1 → 2 of 3.
    assert interp.agreement.supporting_methods == ["iec", "rogers"]
    assert interp.agreement.dissenting == {"duval": "D1"}
    # methods_agreeing counts determined diagnoses only: D1 (Duval alone) → 1; no consensus.
    assert interp.agreement.methods_agreeing == 1
    assert interp.agreement.consensus is None
    # Margins: IEC — the nearest class-changing boundary is C2H4/C2H6 1 (→ D1), 44 % away; the
    # CH4/H2 limits 0.1 (→ nothing) and 1 (→ T1, 75 % away) → 1. Duval — %C2H4 13.0 is 7 points
    # from 20, %C2H2 42.7 is 13.7 points from 29 → 1. Confidence = 1 × 2/3.
    assert interp.confidence_detail.iec == 1.0 and interp.confidence_detail.duval == 1.0
    assert interp.confidence == pytest.approx(2 / 3)


def test_true_t1_sample_all_three_methods_agree() -> None:
    # H2 30, CH4 75, C2H6 100, C2H4 12, C2H2 0.2.
    # C2H2/C2H4 = 0.2/12 = 0.01667; CH4/H2 = 75/30 = 2.5 (> 1); C2H4/C2H6 = 12/100 = 0.12 (< 1)
    # → IEC T1 (D1/D2/T2/T3/PD all fail, T1's two conditions hold).
    # Rogers: 0.0167 < 0.1 → 0; 2.5 in [1, 3] → CH4/H2 code 2; 0.12 in [0.1, 1) → 0 → 0 2 0
    # → LTH4 → T1. Duval: 75 + 12 + 0.2 = 87.2; %C2H4 = 13.76 < 20, %C2H2 = 0.23 < 4 → T1.
    # C2H6 100 > 90 typical → significant. Margins: CH4/H2 2.5 is 150 % above 1, C2H4/C2H6 0.12
    # is 88 % below 1 (→ T2); Duval 6.2 points from 20 and 3.8 from 4 → all 1.
    # Confidence = 1 × 3/3 = 1.
    interp = interpret_dga("T-1", hydrogen=30, methane=75, acetylene=0.2, ethylene=12, ethane=100)
    assert interp.fault_type == "T1"
    assert interp.rogers.diagnosis == "LTH4" and interp.duval.zone == "T1"
    assert interp.agreement.supporting_methods == ["iec", "rogers", "duval"]
    assert interp.agreement.methods_agreeing == 3 and interp.agreement.consensus == "T1"
    assert interp.confidence == pytest.approx(1.0)


def test_disagreement_lowers_confidence_by_the_share_of_methods() -> None:
    # H2 50, CH4 100, C2H6 60, C2H4 150, C2H2 1.
    # C2H2/C2H4 = 1/150 = 0.00667 (< 0.1); CH4/H2 = 100/50 = 2 (> 1); C2H4/C2H6 = 150/60 = 2.5
    # (in 1 – 4) → IEC T2. Rogers: 0 (< 0.1), 2 (CH4/H2 in [1, 3]), 1 (2.5 in [1, 3]) → 0 2 1
    # → MTH → T2. Duval: 100 + 150 + 1 = 251; %C2H4 = 59.76 ≥ 50, %C2H2 = 0.40 < 15 → T3.
    # Screen: C2H4 150 in (100, 200] → IEEE condition 3 → significant.
    # Margins: C2H4/C2H6 2.5 vs 4 (→ T3) 37.5 %, vs 1 (→ T1) 150 %; CH4/H2 2 vs 1 (→ ND) 100 %;
    # C2H2/C2H4 0.00667 vs 0.1 (→ ND) 93 % → IEC 1. Duval %C2H4 59.76 vs 50 → 9.76 points;
    # %C2H2 0.40 vs 15 → 14.6 points → 1. Confidence = 1 × 2/3 = 0.6667.
    interp = interpret_dga("T-1", hydrogen=50, methane=100, acetylene=1, ethylene=150, ethane=60)
    assert interp.fault_type == "T2"
    assert interp.rogers.codes == [0, 2, 1]
    assert interp.duval.zone == "T3"
    assert interp.agreement.supporting_methods == ["iec", "rogers"]
    assert interp.agreement.dissenting == {"duval": "T3"}
    assert interp.agreement.consensus == "T2" and interp.agreement.methods_agreeing == 2
    assert interp.confidence == pytest.approx(2 / 3)
    assert interp.confidence_detail.agreement == pytest.approx(2 / 3)
    # The same margins with all three agreeing (worked T3 case) give 1: agreement is the only
    # difference.
    agree = interpret_dga("T-1", hydrogen=50, methane=200, acetylene=2, ethylene=300, ethane=50)
    assert agree.confidence == 1.0 and agree.confidence > interp.confidence


@pytest.mark.parametrize(
    "gases",
    [
        (0.0, 0.0, 0.0, 0.0, 0.0),  # every ratio 0/0
        (1e-9, 0.0, 0.0, 0.0, 1e-9),  # trace gases
        (0.0, 1e6, 1e6, 0.0, 0.0),  # CH4/H2 and C2H2/C2H4 divergent, 10^6 ppm
        (1e6, 1e6, 1e6, 1e6, 1e6),  # every gas at the 10^6 ppm bound
    ],
)
def test_extreme_samples_give_strict_json(gases: tuple[float, ...]) -> None:
    h2, ch4, c2h2, c2h4, c2h6 = gases
    interp = interpret_dga("T-1", h2, ch4, c2h2, c2h4, c2h6, co=1e6, co2=0.0)
    text = json.dumps(interp.model_dump(mode="json"), allow_nan=False)
    assert "Infinity" not in text and "NaN" not in text


@pytest.mark.parametrize("value", [True, "12", 1e6 + 1, -0.1])
def test_gas_sample_rejects_bools_strings_and_impossible_ppm(value: object) -> None:
    with pytest.raises(ValidationError, match="hydrogen"):
        GasSample.model_validate(
            {"hydrogen": value, "methane": 1, "ethane": 1, "ethylene": 1, "acetylene": 1}
        )
