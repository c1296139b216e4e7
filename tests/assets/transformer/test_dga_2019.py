"""Golden cases of the IEEE C57.104-2019 single-sample DGA status, worked by hand.

Table values used below (ppm), as transcribed identically by ToniMellin/dga-diagtool
(diagnostic/typical_value_comparison.py) and an independent TypeScript transcription (see
assets/transformer/dga_2019.py for the sources):

Table 1 (90th percentile), O2/N2 <= 0.2, ages unknown / 1-9 / 10-30 / >30:
  H2 80/75/75/100, CH4 90/45/90/110, C2H6 90/30/90/150, C2H4 50/20/50/90, C2H2 1/1/1/1,
  CO 900 (all), CO2 9000/5000/10000/10000.
Table 1, O2/N2 > 0.2: H2 40, CH4 20, C2H6 15 (all ages), C2H4 50/25/60/60, C2H2 2, CO 500,
  CO2 5000/3500/5500/5500.
Table 2 (95th percentile), O2/N2 <= 0.2: H2 200, CH4 150/100/150/200, C2H6 175/70/175/250,
  C2H4 100/40/95/175, C2H2 2/2/2/4, CO 1100, CO2 12500/7000/14000/14000.
Table 2, O2/N2 > 0.2: H2 90, CH4 50/60/60/30, C2H6 40/30/40/40, C2H4 100/80/125/125,
  C2H2 7, CO 600, CO2 7000/5000/8000/8000.

Status of one sample: 3 if a gas is above Table 2, else 2 if a gas is above Table 1, else 1.
"""

from __future__ import annotations

import pytest

from assets.transformer.dga import interpret_dga
from assets.transformer.dga_2019 import age_band, dga_status_2019, o2n2_column

SEALED_GASES = {"H2": 60.0, "CH4": 120.0, "C2H6": 50.0, "C2H4": 30.0, "C2H2": 0.5,
                "CO": 400.0, "CO2": 3000.0}


def test_sealed_unit_10_to_30_years_is_status_2_on_methane() -> None:
    # O2/N2 = 3000 / 50000 = 0.06 <= 0.2 -> column "<=0.2"; age 15 -> band 10-30.
    # H2 60 <= 75; CH4 120 > 90 (Table 1) and <= 150 (Table 2); C2H6 50 <= 90; C2H4 30 <= 50;
    # C2H2 0.5 <= 1; CO 400 <= 900; CO2 3000 <= 10000 -> only CH4 above Table 1 -> status 2.
    got = dga_status_2019(SEALED_GASES, oxygen=3000, nitrogen=50000, age_years=15)
    assert got.o2_n2_ratio == pytest.approx(0.06)
    assert (got.o2_n2_column, got.age_band) == ("<=0.2", "10-30")
    assert got.above_90th == ["CH4"]
    assert got.above_95th == []
    assert got.status == 2


def test_same_gases_in_a_young_unit_are_status_3() -> None:
    # Same sample, age 5 -> band 1-9: CH4 120 > 100 (Table 2) -> above the 95th percentile;
    # C2H6 50 > 30 and <= 70; C2H4 30 > 20 and <= 40; H2 60 <= 75; CO2 3000 <= 5000.
    got = dga_status_2019(SEALED_GASES, oxygen=3000, nitrogen=50000, age_years=5)
    assert got.age_band == "1-9"
    assert got.above_90th == ["CH4", "C2H6", "C2H4"]
    assert got.above_95th == ["CH4"]
    assert got.status == 3


def test_free_breathing_unit_of_unknown_age_is_status_2_on_ethane() -> None:
    # O2/N2 = 15000 / 50000 = 0.3 > 0.2 -> column ">0.2"; no age -> "unknown".
    # H2 30 <= 40; CH4 10 <= 20; C2H6 18 > 15 and <= 40; C2H4 5 <= 50; C2H2 0 <= 2;
    # CO 200 <= 500; CO2 1500 <= 5000 -> status 2 on C2H6 alone.
    gases = {"H2": 30.0, "CH4": 10.0, "C2H6": 18.0, "C2H4": 5.0, "C2H2": 0.0, "CO": 200.0,
             "CO2": 1500.0}
    got = dga_status_2019(gases, oxygen=15000, nitrogen=50000)
    assert (got.o2_n2_column, got.age_band) == (">0.2", "unknown")
    assert got.above_90th == ["C2H6"]
    assert got.status == 2


def test_acetylene_column_of_old_sealed_units() -> None:
    # C2H2 3 ppm, O2/N2 0.06: Table 1 is 1 for every age; Table 2 is 2 up to 30 years and 4
    # above 30. Age 35: 1 < 3 <= 4 -> status 2. Age 20: 3 > 2 -> status 3.
    gases = {"H2": 10.0, "CH4": 10.0, "C2H6": 10.0, "C2H4": 10.0, "C2H2": 3.0}
    old = dga_status_2019(gases, oxygen=3000, nitrogen=50000, age_years=35)
    mid = dga_status_2019(gases, oxygen=3000, nitrogen=50000, age_years=20)
    assert (old.age_band, old.status, old.above_95th) == (">30", 2, [])
    assert (mid.age_band, mid.status, mid.above_95th) == ("10-30", 3, ["C2H2"])


def test_free_breathing_methane_table_2_falls_above_30_years() -> None:
    # O2/N2 0.3: Table 2 CH4 is 60 for 10-30 years and 30 above 30 years (Table 1: 20).
    # CH4 45: age 20 -> 20 < 45 <= 60 -> status 2; age 40 -> 45 > 30 -> status 3.
    gases = {"H2": 10.0, "CH4": 45.0, "C2H6": 5.0, "C2H4": 5.0, "C2H2": 0.0}
    assert dga_status_2019(gases, oxygen=15000, nitrogen=50000, age_years=20).status == 2
    assert dga_status_2019(gases, oxygen=15000, nitrogen=50000, age_years=40).status == 3


def test_conventions_at_the_edges() -> None:
    # O2/N2 exactly 0.2 belongs to "<= 0.2"; without O2 or N2 the "> 0.2" column is used.
    assert o2n2_column(10000, 50000) == ("<=0.2", pytest.approx(0.2))
    assert o2n2_column(None, 50000) == (">0.2", None)
    assert o2n2_column(5000, 0) == (">0.2", None)
    # Ages: < 10 -> 1-9 (a first-year unit too), 10 and 30 -> 10-30, above 30 -> >30.
    assert [age_band(a) for a in (None, 0.5, 9.99, 10, 30, 30.5)] == [
        "unknown", "1-9", "1-9", "10-30", "10-30", ">30"]
    # A gas equal to its Table 1 value is not above it (strict, as for IEC typical values).
    at_limit = dga_status_2019({"H2": 75.0}, oxygen=3000, nitrogen=50000, age_years=15)
    assert at_limit.status == 1
    unmeasured = dga_status_2019({"H2": 30.0}, age_years=0.5)
    assert any("O2/N2 not available" in n for n in unmeasured.notes)
    assert any("under 1 year" in n for n in unmeasured.notes)


def test_interpret_dga_edition_changes_the_normal_gate() -> None:
    # The free-breathing sample above: under 2008 every gas is within condition 1 (H2 30 <= 100,
    # CH4 10 <= 120, C2H6 18 <= 65, C2H4 5 <= 50, C2H2 0 <= 1, CO 200 <= 350, CO2 1500 <= 2500;
    # TDCG 30 + 10 + 18 + 5 + 0 + 200 = 263 <= 720) and within IEC typical values -> "normal".
    # Under 2019 it is status 2 (C2H6 18 > 15), so the IEC ratio class applies:
    # C2H2/C2H4 = 0, CH4/H2 = 10/30 = 0.333, C2H4/C2H6 = 5/18 = 0.278 -> no Table 1 row
    # (PD needs CH4/H2 < 0.1, T1/T2/T3 need CH4/H2 > 1, D1/D2 need C2H2/C2H4 > 0.6) -> "ND";
    # action band "low" (status <= 2).
    args = dict(hydrogen=30, methane=10, acetylene=0, ethylene=5, ethane=18, co=200, co2=1500,
                oxygen=15000, nitrogen=50000)
    old = interpret_dga("U1", **args)  # type: ignore[arg-type]
    new = interpret_dga("U1", **args, edition="2019")  # type: ignore[arg-type]
    assert (old.edition, old.fault_type, old.ieee_2019) == ("2008", "normal", None)
    assert new.edition == "2019"
    assert new.ieee_2019 is not None and new.ieee_2019.status == 2
    assert new.fault_type == "ND"
    assert new.recommended_action == (
        "resample within 1 month and re-evaluate with gas generation rates"
    )
    assert "IEEE C57.104-2019 DGA status 2" in new.reasoning


def test_interpret_dga_2019_status_3_takes_the_high_action_band() -> None:
    # Thermal sample, O2/N2 = 3000/50000 = 0.06, age 25 (10-30): CH4 300 > 150 (Table 2),
    # C2H4 650 > 95, C2H2 6 > 2, C2H6 50 <= 90, H2 120 > 75 and <= 200 -> status 3.
    # Ratios: C2H2/C2H4 = 6/650 = 0.0092, CH4/H2 = 2.5, C2H4/C2H6 = 13 -> IEC T3; band high.
    out = interpret_dga("U1", hydrogen=120, methane=300, acetylene=6, ethylene=650, ethane=50,
                        oxygen=3000, nitrogen=50000, age_years=25, edition="2019")
    assert out.ieee_2019 is not None and out.ieee_2019.status == 3
    assert out.ieee_2019.above_95th == ["CH4", "C2H4", "C2H2"]
    assert out.fault_type == "T3"
    assert out.recommended_action.startswith("reduce load or remove from service")


def test_interpret_dga_rejects_an_unknown_edition_and_a_negative_age() -> None:
    with pytest.raises(ValueError, match="valid: \\['2008', '2019'\\]"):
        interpret_dga("U1", 1, 1, 0, 1, 1, edition="2017")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="age_years"):
        interpret_dga("U1", 1, 1, 0, 1, 1, age_years=-3, edition="2019")
