"""The audit's own IEEE C57.104-2019 single-sample DGA status (Tables 1 and 2).

Written for the audit from the public transcriptions of the tables (ToniMellin/dga-diagtool
``diagnostic/typical_value_comparison.py``, cross-checked cell by cell with an independent
TypeScript transcription of Tables 1-4 and, for the age-unknown columns, with
insatiablycivil/C57104wMCM and a JavaScript screen), without reading or importing the
project's tool (:mod:`assets.transformer.dga_2019`).

Rows are written per table row as the standard prints it: one row per gas, the O2/N2 ≤ 0.2
columns (age unknown, 1-9, 10-30, > 30 years) then the O2/N2 > 0.2 columns in the same age
order. Status of one sample: 3 when a gas exceeds Table 2, 2 when a gas exceeds Table 1,
otherwise 1. Where a reader could choose (a value equal to a limit; O2/N2 not measured),
the choice is a parameter.
"""

from __future__ import annotations

from typing import Literal

# gas: (≤0.2: unknown, 1-9, 10-30, >30, >0.2: unknown, 1-9, 10-30, >30), ppm.
_T1_ROWS: dict[str, tuple[float, ...]] = {
    "hydrogen": (80, 75, 75, 100, 40, 40, 40, 40),
    "methane": (90, 45, 90, 110, 20, 20, 20, 20),
    "ethane": (90, 30, 90, 150, 15, 15, 15, 15),
    "ethylene": (50, 20, 50, 90, 50, 25, 60, 60),
    "acetylene": (1, 1, 1, 1, 2, 2, 2, 2),
    "co": (900, 900, 900, 900, 500, 500, 500, 500),
    "co2": (9000, 5000, 10000, 10000, 5000, 3500, 5500, 5500),
}
_T2_ROWS: dict[str, tuple[float, ...]] = {
    "hydrogen": (200, 200, 200, 200, 90, 90, 90, 90),
    "methane": (150, 100, 150, 200, 50, 60, 60, 30),
    "ethane": (175, 70, 175, 250, 40, 30, 40, 40),
    "ethylene": (100, 40, 95, 175, 100, 80, 125, 125),
    "acetylene": (2, 2, 2, 4, 7, 7, 7, 7),
    "co": (1100, 1100, 1100, 1100, 600, 600, 600, 600),
    "co2": (12500, 7000, 14000, 14000, 7000, 5000, 8000, 8000),
}
AtLimit = Literal["strict", "inclusive"]


def _column(o2: float | None, n2: float | None, age: float | None) -> int:
    """Index into a table row: O2/N2 group (≤ 0.2 first; unmeasured → > 0.2) and age column."""
    sealed = o2 is not None and n2 is not None and n2 > 0 and o2 <= 0.2 * n2
    if age is None:
        offset = 0
    elif age < 10:
        offset = 1
    elif age <= 30:
        offset = 2
    else:
        offset = 3
    return offset if sealed else 4 + offset


def limits_2019(gas: str, o2: float | None, n2: float | None, age: float | None
                ) -> tuple[float, float]:
    """(Table 1, Table 2) values of one gas for the sample's O2/N2 and the unit's age."""
    i = _column(o2, n2, age)
    return float(_T1_ROWS[gas][i]), float(_T2_ROWS[gas][i])


def dga_status_2019(gases: dict[str, float | None], o2: float | None, n2: float | None,
                    age: float | None, at_limit: AtLimit = "strict") -> int:
    """DGA status 1-3 of one sample; ``at_limit`` "inclusive" counts a value equal to a limit
    as exceeding it."""
    status = 1
    for gas, value in gases.items():
        if value is None or gas not in _T1_ROWS:
            continue
        t1, t2 = limits_2019(gas, o2, n2, age)
        over = (lambda v, lim: v >= lim) if at_limit == "inclusive" else (lambda v, lim: v > lim)
        if over(float(value), t2):
            return 3
        if over(float(value), t1):
            status = 2
    return status


def levels_2019(gases: dict[str, float | None], o2: float | None, n2: float | None,
                age: float | None, at_limit: AtLimit = "strict") -> dict[str, int]:
    """Per measured gas of the tables: 0 within Table 1, 1 above Table 1 only, 2 above
    Table 2 (``at_limit`` as in :func:`dga_status_2019`)."""
    out: dict[str, int] = {}
    for gas, value in gases.items():
        if value is None or gas not in _T1_ROWS:
            continue
        t1, t2 = limits_2019(gas, o2, n2, age)
        v = float(value)
        above = (v >= t2, v >= t1) if at_limit == "inclusive" else (v > t2, v > t1)
        out[gas] = 2 if above[0] else 1 if above[1] else 0
    return out
