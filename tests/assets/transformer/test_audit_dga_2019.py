"""The audit's re-derivation of ``fmsr_dga_status_2019`` on hand-made raw documents.

Every expected value is worked by hand from IEEE C57.104-2019 Tables 1 and 2 as publicly
transcribed (docs/standards-notes.md, "i29-4"); the rows used are quoted next to each case.
"""

from __future__ import annotations

from typing import Any

import assets.transformer.audit  # noqa: F401  (registers the re-derivations)
from assets.transformer.audit import standards_2019 as s19
from eval.audit.core import UNSUPPORTED
from tests.assets.transformer.test_audit_dga_thermal import MemoryRaw, audit

FAMILY = "fmsr_dga_status_2019"
NOTE = (
    "Go by IEEE C57.104-2019 Tables 1 and 2: pick the column from that sample's own O2/N2 "
    "ratio, and take the unit's age as the sample's year minus the year installed on its "
    "nameplate. Name the gases above their Table 2 (95th percentile) value, or, when none "
    "is, those above Table 1 (90th percentile)."
)
QUESTION = "What is the IEEE C57.104-2019 DGA status of the latest oil sample of {u}? "


def _plate(unit: str, year: int) -> dict[str, Any]:
    return {"asset_id": unit, "site_name": "S", "rated_mva": 25.0, "year_installed": year}


def _sample(ts: str, h2: float, ch4: float, c2h6: float, c2h4: float, c2h2: float, co: float,
            co2: float, o2: float, n2: float) -> dict[str, Any]:
    return {"timestamp": ts, "hydrogen": h2, "methane": ch4, "ethane": c2h6, "ethylene": c2h4,
            "acetylene": c2h2, "co": co, "co2": co2, "oxygen": o2, "nitrogen": n2}


# U10: installed 2016, sample 2026 → age 10 (10-30 column). O2/N2 = 15000/50000 = 0.30
# (> 0.2). Table 1, > 0.2, 10-30: H2 40, CH4 20, C2H6 15, C2H4 60, C2H2 2, CO 500, CO2 5500:
# every gas within (20, 10, 8, 40, 0, 200, 1500) → status 1. In completed years (9: 1-9
# column, Table 1 C2H4 25, Table 2 C2H4 80): C2H4 40 > 25 and ≤ 80 → status 2, [C2H4].
# Age unknown (> 0.2: Table 1 C2H4 50): 40 ≤ 50 → status 1.
U10 = _sample("2026-06-02T10:00:00", 20, 10, 8, 40, 0, 200, 1500, 15000, 50000)
# U41: installed 1985 → age 41 (> 30). O2/N2 = 9000/50000 = 0.18 (≤ 0.2).
# Table 1, ≤ 0.2, > 30: H2 100, CH4 110, C2H6 150, C2H4 90, C2H2 1, CO 900, CO2 10000.
# Table 2, ≤ 0.2, > 30: H2 200, CH4 200, C2H6 250, C2H4 175, C2H2 4, CO 1100, CO2 14000.
# H2 150: 100 < 150 ≤ 200 (Table 1 only); CH4 250 > 200 (Table 2); C2H6 50 ≤ 150; C2H4
# 200 > 175 (Table 2); C2H2 3: 1 < 3 ≤ 4 (Table 1 only); CO 300 ≤ 900; CO2 3000 ≤ 10000
# → status 3, gases above Table 2 [CH4, C2H4]; every gas above Table 1: [H2, CH4, C2H4, C2H2].
U41 = _sample("2026-08-28T10:00:00", 150, 250, 50, 200, 3, 300, 3000, 9000, 50000)
RAW = MemoryRaw([_plate("U10", 2016), _plate("U41", 1985)], oil={"U10": [U10], "U41": [U41]})


def _ref(sample: dict[str, Any], age: int, status: int, gases: list[str]) -> dict[str, Any]:
    return {"sample_timestamp": sample["timestamp"],
            "o2_n2_ratio": sample["oxygen"] / sample["nitrogen"], "age_years": age,
            "dga_status": status, "status_gases": gases}


def test_family_is_audited() -> None:
    assert FAMILY not in set(UNSUPPORTED.names())


def test_status_1_at_age_10_and_the_completed_years_reading() -> None:
    ref = _ref(U10, 10, 1, [])
    assert audit(RAW, FAMILY, QUESTION.format(u="U10") + NOTE, {"asset_id": "U10"},
                 ref).verdict == "match"
    # Without the note the age could be counted in completed years: status 2, [C2H4].
    got = audit(RAW, FAMILY, QUESTION.format(u="U10"), {"asset_id": "U10"}, ref)
    assert got.verdict == "reading_dependent"
    answers = {(a["dga_status"], tuple(a["status_gases"]))
               for r in got.disagreeing if (a := r.answer) is not None}
    assert answers == {(2, ("C2H4",))}
    assert all("completed_years" in r.name for r in got.disagreeing)


def test_status_3_names_the_gases_above_table_2() -> None:
    ref = _ref(U41, 41, 3, ["CH4", "C2H4"])
    assert audit(RAW, FAMILY, QUESTION.format(u="U41") + NOTE, {"asset_id": "U41"},
                 ref).verdict == "match"
    # A text that does not say which gases: every gas above Table 1 is another reading.
    text = QUESTION.format(u="U41") + NOTE.split(" Name the gases")[0]
    got = audit(RAW, FAMILY, text, {"asset_id": "U41"}, ref)
    assert got.verdict == "reading_dependent"
    listed = {tuple(a["status_gases"]) for r in got.disagreeing if (a := r.answer) is not None}
    assert listed == {("H2", "CH4", "C2H4", "C2H2")}


def test_a_wrong_status_or_neighbour_gas_is_a_mismatch() -> None:
    text = QUESTION.format(u="U41") + NOTE
    assert audit(RAW, FAMILY, text, {"asset_id": "U41"},
                 _ref(U41, 41, 2, ["CH4", "C2H4"])).verdict == "mismatch"
    assert audit(RAW, FAMILY, text, {"asset_id": "U41"},
                 _ref(U41, 41, 3, ["CH4", "C2H6"])).verdict == "mismatch"


def test_levels_at_a_table_value() -> None:
    # ≤ 0.2, 10-30: Table 1 H2 75, Table 2 H2 200. H2 75 is within Table 1 (strict), above
    # it when a value equal to the limit counts (C57104wMCM's reading); 200 likewise for Table 2.
    assert s19.levels_2019({"hydrogen": 75.0}, 3000, 50000, 20) == {"hydrogen": 0}
    assert s19.levels_2019({"hydrogen": 75.0}, 3000, 50000, 20, "inclusive") == {"hydrogen": 1}
    assert s19.levels_2019({"hydrogen": 200.0}, 3000, 50000, 20) == {"hydrogen": 1}
    assert s19.levels_2019({"hydrogen": 200.0}, 3000, 50000, 20, "inclusive") == {"hydrogen": 2}
