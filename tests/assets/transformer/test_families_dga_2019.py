"""Golden cases of ``fmsr_dga_status_2019``, worked by hand from IEEE C57.104-2019 Tables 1-2.

Table values (ppm) as publicly transcribed (docs/standards-notes.md, "i29-4"), the rows used:

| column                  | H2  | CH4 | C2H6 | C2H4 | C2H2 | CO   | CO2   |
|-------------------------|-----|-----|------|------|------|------|-------|
| T1, O2/N2 ≤ 0.2, 10-30  | 75  | 90  | 90   | 50   | 1    | 900  | 10000 |
| T2, O2/N2 ≤ 0.2, 10-30  | 200 | 150 | 175  | 95   | 2    | 1100 | 14000 |
| T1, O2/N2 > 0.2, 10-30  | 40  | 20  | 15   | 60   | 2    | 500  | 5500  |
| T2, O2/N2 > 0.2, 10-30  | 90  | 60  | 40   | 125  | 7    | 600  | 8000  |
| T1, O2/N2 > 0.2, 1-9    | 40  | 20  | 15   | 25   | 2    | 500  | 3500  |
| T2, O2/N2 > 0.2, 1-9    | 90  | 60  | 30   | 80   | 7    | 600  | 5000  |
| T1, O2/N2 > 0.2, unknown| 40  | 20  | 15   | 50   | 2    | 500  | 5000  |
| T2, O2/N2 > 0.2, unknown| 90  | 50  | 40   | 100  | 7    | 600  | 7000  |

GOLD-TX01, installed 2005: age 2026 − 2005 = 21 years → 10-30 column. Three samples, 10:00:

| # | date       | H2  | CH4 | C2H6 | C2H4 | C2H2 | CO  | CO2  | O2    | N2    | O2/N2 |
|---|------------|-----|-----|------|------|------|-----|------|-------|-------|-------|
| 0 | 2026-06-01 | 20  | 10  | 8    | 5    | 0    | 200 | 1500 | 3000  | 50000 | 0.06  |
| 1 | 2026-06-08 | 120 | 40  | 30   | 20   | 0    | 300 | 2000 | 3000  | 50000 | 0.06  |
| 2 | 2026-06-15 | 150 | 45  | 10   | 30   | 10   | 300 | 3000 | 15000 | 50000 | 0.30  |

- Sample 0 (≤ 0.2, 10-30): every gas at or below Table 1 (20 ≤ 75, 10 ≤ 90, 8 ≤ 90, 5 ≤ 50,
  0 ≤ 1, 200 ≤ 900, 1500 ≤ 10000) → status 1, no gas.
- Sample 1 (≤ 0.2, 10-30): H2 120 > 75 (Table 1) and ≤ 200 (Table 2); the rest within Table 1
  (40 ≤ 90, 30 ≤ 90, 20 ≤ 50, 0 ≤ 1, 300 ≤ 900, 2000 ≤ 10000) → status 2, gases [H2].
- Sample 2 (> 0.2 since 15000/50000 = 0.30, 10-30): H2 150 > 90 and C2H2 10 > 7 (Table 2);
  CH4 45 > 20 but ≤ 60 (Table 1 only) → status 3, gases above Table 2: [H2, C2H2].

GOLD-TX02, installed 2016: age 2026 − 2016 = 10 → 10-30 column; one sample:

| # | date       | H2 | CH4 | C2H6 | C2H4 | C2H2 | CO  | CO2  | O2    | N2    | O2/N2 |
|---|------------|----|-----|------|------|------|-----|------|-------|-------|-------|
| 0 | 2026-06-02 | 20 | 10  | 8    | 40   | 0    | 200 | 1500 | 15000 | 50000 | 0.30  |

(> 0.2, 10-30): C2H4 40 ≤ 60 and every other gas within Table 1 (20 ≤ 40, 10 ≤ 20, 8 ≤ 15,
0 ≤ 2, 200 ≤ 500, 1500 ≤ 5500) → status 1. A reader counting completed years (9: the 1-9
column) finds C2H4 40 > 25 (Table 1) and ≤ 80 (Table 2) → status 2, [C2H4]: the text states
the age convention, so that reading is recorded as stated. The age-unknown column gives
C2H4 40 ≤ 50 → status 1, the same answer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assets.transformer.families_dga_2019 import _check_margins
from generator.api import Ambiguous
from generator.config import StoreSettings
from tests.assets.transformer.test_golden_families import (
    SITE,
    UNIT,
    _nameplate,
    _telemetry,
    _workorders,
    generate_family,
    seed_raw,
)

UNIT2 = "GOLD-TX02"
GASES = ("hydrogen", "methane", "ethane", "ethylene", "acetylene", "co", "co2", "oxygen",
         "nitrogen")
ROWS: dict[str, list[tuple[str, tuple[float, ...]]]] = {
    UNIT: [
        ("2026-06-01", (20, 10, 8, 5, 0, 200, 1500, 3000, 50000)),
        ("2026-06-08", (120, 40, 30, 20, 0, 300, 2000, 3000, 50000)),
        ("2026-06-15", (150, 45, 10, 30, 10, 300, 3000, 15000, 50000)),
    ],
    UNIT2: [("2026-06-02", (20, 10, 8, 40, 0, 200, 1500, 15000, 50000))],
}
QUALITY = {"water_content": 10.0, "dielectric_rigidity": 60.0, "interfacial_v": 38.0,
           "power_factor": 0.1, "acidity": 0.03, "dbds": 0.0}
# By hand (module docstring): (sample day, O2/N2, age, status, gases that set it).
EXPECTED: dict[tuple[str, str], tuple[float, int, int, list[str]]] = {
    (UNIT, "2026-06-01"): (0.06, 21, 1, []),
    (UNIT, "2026-06-08"): (0.06, 21, 2, ["H2"]),
    (UNIT, "2026-06-15"): (0.30, 21, 3, ["H2", "C2H2"]),
    (UNIT2, "2026-06-02"): (0.30, 10, 1, []),
}


def _oil() -> list[dict[str, Any]]:
    docs = []
    for unit, rows in ROWS.items():
        for d, row in rows:
            ts = f"{d}T10:00:00"
            docs.append({"_id": f"{unit}:{ts}", "dataset": "oil_sample", "asset_id": unit,
                         "site_name": SITE, "timestamp": ts,
                         **dict(zip(GASES, map(float, row), strict=True)), **QUALITY})
    return docs


def _plates() -> list[dict[str, Any]]:
    first = _nameplate()[0]
    assert first["year_installed"] == 2005
    return [first, {**first, "_id": UNIT2, "asset_id": UNIT2, "year_installed": 2016}]


@pytest.fixture(scope="module")
def status_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    settings = settings_for("golden_dga2019_")
    telemetry = _telemetry()
    seed_raw(settings, {
        "telemetry": telemetry + [{**d, "_id": d["_id"].replace(UNIT, UNIT2),
                                   "asset_id": UNIT2} for d in telemetry],
        "oil_samples": _oil(), "nameplate": _plates(), "workorders": _workorders(),
        "truth": [],
    })
    return settings


async def test_golden_fmsr_dga_status_2019(status_settings: StoreSettings,
                                           tmp_path: Path) -> None:
    seeds = await generate_family(status_settings, tmp_path, "fmsr_dga_status_2019", 40)
    assert len(seeds) >= 4
    seen = set()
    for s in seeds:
        unit, answer = s.params["asset_id"], s.answer
        day = str(answer["sample_timestamp"])[:10]
        if s.params["which"] == "latest":
            assert day == ROWS[unit][-1][0]
        else:
            assert day == s.params["which"]
        ratio, age, status, gases = EXPECTED[(unit, day)]
        assert answer == {"sample_timestamp": f"{day}T10:00:00",
                          "o2_n2_ratio": pytest.approx(ratio), "age_years": age,
                          "dga_status": status, "status_gases": gases}
        assert s.outcome == f"status_{status}"
        checks = {r.name: r.outcome for r in s.readings}
        if (unit, day) == (UNIT2, "2026-06-02"):
            # Completed years: 9 → the 1-9 column, C2H4 40 > 25: status 2 [C2H4].
            assert checks == {"age_completed_years": "stated", "age_unknown_column": "same"}
            stated = next(r for r in s.readings if r.name == "age_completed_years")
            assert stated.answer is not None
            assert (stated.answer["dga_status"], stated.answer["status_gases"]) == (2, ["C2H4"])
        else:
            # Age 20 stays in 10-30; the age-unknown columns give the same levels here
            # (sample 1: H2 120 > 80 and ≤ 200; sample 2: H2 150 > 90, C2H2 10 > 7, CH4 45 ≤ 50).
            assert checks == {"age_completed_years": "same", "age_unknown_column": "same"}
        assert [c.name for c in s.tool_sequence] == ["oil_samples", "assets", "interpret_dga"]
        dga = s.tool_sequence[-1].args
        assert (dga["edition"], dga["age_years"]) == ("2019", float(age))
        seen.add((unit, day))
    assert seen == set(EXPECTED), seen


def _status(ppm: float, t1: float, t2: float, status: int, ratio: float = 0.3) -> dict[str, Any]:
    return {"o2_n2_ratio": ratio, "status": status, "gases": [
        {"gas": "H2", "ppm": ppm, "table1_90th_ppm": t1, "table2_95th_ppm": t2}]}


def test_margins_keep_draws_off_the_edges() -> None:
    """5 % of 0.2 is 0.01: O2/N2 0.195 and 0.205 are dropped, 0.189 and 0.211 kept. H2 with
    Table 1 40 and Table 2 90 (> 0.2 column): 87 ppm is within 4.5 of 90 (dropped), 85 is
    not; at status 3 the Table 1 value does not matter (41 kept), at status 2 it does (41 is
    within 2 of 40: dropped)."""
    for ratio in (0.195, 0.205):
        with pytest.raises(Ambiguous):
            _check_margins(_status(60, 40, 90, 2, ratio))
    for ratio in (0.189, 0.211):
        _check_margins(_status(60, 40, 90, 2, ratio))
    with pytest.raises(Ambiguous):
        _check_margins(_status(87, 40, 90, 2))
    _check_margins(_status(85, 40, 90, 2))
    _check_margins(_status(41, 40, 90, 3))
    with pytest.raises(Ambiguous):
        _check_margins(_status(41, 40, 90, 2))
