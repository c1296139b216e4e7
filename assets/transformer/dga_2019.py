"""IEEE C57.104-2019 DGA status of one oil sample (Tables 1 and 2).

The 2019 edition replaced the 2008 condition table (conditions 1-4 from fixed limits and the
TDCG) by percentile tables that depend on the O2/N2 ratio of the sample and the age of the
transformer:

- Table 1: 90th percentile gas concentrations, ppm (µL/L);
- Table 2: 95th percentile gas concentrations, ppm;
- Tables 3 and 4 (95th percentile deltas between consecutive samples and rates of change over
  3-6 samples) need a history and are not applied here: this module judges one sample.

DGA status of a single sample (the standard's one-sample protocol, as the public
implementation insatiablycivil/C57104wMCM R/screening.R applies it, "Protocol 1: Tables 1|2"):
status 3 when any gas is above its Table 2 value, else status 2 when any gas is above its
Table 1 value, else status 1.

Where the numbers come from. No primary copy of the standard was available to the project;
every value below was checked against two public implementations that transcribe the tables
and agree on every cell:

- ToniMellin/dga-diagtool, ``diagnostic/typical_value_comparison.py``,
  ``ieee_2019_typical_calculation`` (all columns of Tables 1 and 2);
- an independent TypeScript transcription of Tables 1-4 ("IEEE C57.104-2019 Table 1 — 90th
  percentile gas concentrations (µL/L)", search-index file 66105542653, repository not
  named by the index);

and, for the age-unknown columns, two more: insatiablycivil/C57104wMCM ``R/preprocess.R``
(example ``limit_data``, O2/N2 ≤ 0.2) and a JavaScript screen (search-index file
55238072472, both O2/N2 columns). The commonly quoted table header reads "90th percentile gas
concentrations as a function of O2/N2 ratio and age in µL/L (ppm)".

Conventions (pinned here; tasks keep their samples away from every edge they depend on):

- O2/N2 column: "≤ 0.2" when O2/N2 ≤ 0.2, "> 0.2" otherwise. When O2 or N2 is not measured
  (or N2 is 0) the "> 0.2" column is used, as both public implementations above do, and a
  note says so.
- Age bands: "unknown" (no age given), "1-9" (age < 10 years; a unit in its first year is
  put here too, the table having no younger column), "10-30" (10 ≤ age ≤ 30), ">30".
- A gas is above a table value when it is strictly above it (as for the IEC typical values
  in :mod:`assets.transformer.dga`); C57104wMCM counts a value equal to the limit as above.
  The two readings differ only on the limit itself.
- CO and CO2 are judged when measured; a gas not measured is left out of the status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EDITION_2019 = "IEEE C57.104-2019 Tables 1 and 2 (single-sample DGA status)"

O2N2Column = Literal["<=0.2", ">0.2"]
AgeBand = Literal["unknown", "1-9", "10-30", ">30"]
O2N2_SPLIT = 0.2
GASES_2019: tuple[str, ...] = ("H2", "CH4", "C2H6", "C2H4", "C2H2", "CO", "CO2")
AGE_BANDS: tuple[AgeBand, ...] = ("unknown", "1-9", "10-30", ">30")

# Per gas: values for the age bands (unknown, 1-9, 10-30, >30), ppm. Sources: module docstring.
TABLE1_90TH: dict[O2N2Column, dict[str, tuple[float, float, float, float]]] = {
    "<=0.2": {
        "H2": (80, 75, 75, 100),
        "CH4": (90, 45, 90, 110),
        "C2H6": (90, 30, 90, 150),
        "C2H4": (50, 20, 50, 90),
        "C2H2": (1, 1, 1, 1),
        "CO": (900, 900, 900, 900),
        "CO2": (9000, 5000, 10000, 10000),
    },
    ">0.2": {
        "H2": (40, 40, 40, 40),
        "CH4": (20, 20, 20, 20),
        "C2H6": (15, 15, 15, 15),
        "C2H4": (50, 25, 60, 60),
        "C2H2": (2, 2, 2, 2),
        "CO": (500, 500, 500, 500),
        "CO2": (5000, 3500, 5500, 5500),
    },
}
TABLE2_95TH: dict[O2N2Column, dict[str, tuple[float, float, float, float]]] = {
    "<=0.2": {
        "H2": (200, 200, 200, 200),
        "CH4": (150, 100, 150, 200),
        "C2H6": (175, 70, 175, 250),
        "C2H4": (100, 40, 95, 175),
        "C2H2": (2, 2, 2, 4),
        "CO": (1100, 1100, 1100, 1100),
        "CO2": (12500, 7000, 14000, 14000),
    },
    ">0.2": {
        "H2": (90, 90, 90, 90),
        "CH4": (50, 60, 60, 30),
        "C2H6": (40, 30, 40, 40),
        "C2H4": (100, 80, 125, 125),
        "C2H2": (7, 7, 7, 7),
        "CO": (600, 600, 600, 600),
        "CO2": (7000, 5000, 8000, 8000),
    },
}

GasLevel = Literal["at_or_below_90th", "above_90th", "above_95th"]


def age_band(age_years: float | None) -> AgeBand:
    """The Table 1/2 age column of a transformer age.

    Args:
        age_years: Years in service; None when unknown.

    Returns:
        "unknown", "1-9" (age < 10, first year included), "10-30" or ">30".
    """
    if age_years is None:
        return "unknown"
    if age_years < 10:
        return "1-9"
    if age_years <= 30:
        return "10-30"
    return ">30"


def o2n2_column(oxygen: float | None, nitrogen: float | None) -> tuple[O2N2Column, float | None]:
    """The O2/N2 column of a sample and the ratio (None when not computable).

    Args:
        oxygen: Dissolved O2, ppm, or None.
        nitrogen: Dissolved N2, ppm, or None.

    Returns:
        ("<=0.2" or ">0.2", the ratio or None); without a ratio the "> 0.2" column.
    """
    if oxygen is None or nitrogen is None or nitrogen <= 0:
        return ">0.2", None
    ratio = oxygen / nitrogen
    return ("<=0.2" if ratio <= O2N2_SPLIT else ">0.2"), ratio


class GasStatus2019(BaseModel):
    """One gas against its IEEE C57.104-2019 Table 1 and Table 2 values."""

    model_config = ConfigDict(extra="forbid")

    gas: str = Field(description="Gas formula: H2, CH4, C2H6, C2H4, C2H2, CO or CO2.")
    ppm: float | None = Field(description="Concentration in ppm; None when not measured.")
    table1_90th_ppm: float = Field(description="Table 1 (90th percentile) value of the column.")
    table2_95th_ppm: float = Field(description="Table 2 (95th percentile) value of the column.")
    level: GasLevel | None = Field(
        description="at_or_below_90th, above_90th (above Table 1, at or below Table 2) or "
        "above_95th (above Table 2); None when not measured."
    )


class DgaStatus2019(BaseModel):
    """IEEE C57.104-2019 single-sample DGA status (Tables 1 and 2)."""

    model_config = ConfigDict(extra="forbid")

    status: int = Field(
        ge=1, le=3,
        description="DGA status: 3 when a gas is above Table 2, else 2 when a gas is above "
        "Table 1, else 1.",
    )
    o2_n2_ratio: float | None = Field(description="O2/N2 of the sample; None when not measured.")
    o2_n2_column: O2N2Column = Field(description="Table column used: '<=0.2' or '>0.2'.")
    age_years: float | None = Field(description="Transformer age used; None when unknown.")
    age_band: AgeBand = Field(description="Age column used: unknown, 1-9, 10-30 or >30.")
    gases: list[GasStatus2019] = Field(description="One entry per gas of Tables 1 and 2.")
    above_90th: list[str] = Field(description="Gases above their Table 1 value (any level).")
    above_95th: list[str] = Field(description="Gases above their Table 2 value.")
    edition: str = Field(description="The edition and tables applied.")
    notes: list[str] = Field(description="Caveats: column defaults, gases not measured.")


def dga_status_2019(
    gases: Mapping[str, float | None],
    oxygen: float | None = None,
    nitrogen: float | None = None,
    age_years: float | None = None,
) -> DgaStatus2019:
    """DGA status of one sample by IEEE C57.104-2019 Tables 1 and 2.

    Args:
        gases: ppm by formula (H2, CH4, C2H6, C2H4, C2H2, CO, CO2); None or missing = not
            measured.
        oxygen: Dissolved O2, ppm, if measured.
        nitrogen: Dissolved N2, ppm, if measured.
        age_years: Transformer age in years, if known.

    Returns:
        The status with the per-gas levels and the columns used.
    """
    column, ratio = o2n2_column(oxygen, nitrogen)
    band = age_band(age_years)
    index = AGE_BANDS.index(band)
    notes: list[str] = []
    if ratio is None:
        notes.append("O2/N2 not available: the O2/N2 > 0.2 column is used.")
    if age_years is not None and age_years < 1:
        notes.append("age under 1 year: the 1-9 years column is used.")
    entries: list[GasStatus2019] = []
    for gas in GASES_2019:
        ppm = gases.get(gas)
        t1 = float(TABLE1_90TH[column][gas][index])
        t2 = float(TABLE2_95TH[column][gas][index])
        level: GasLevel | None = None
        if ppm is None:
            notes.append(f"{gas} not measured: not judged.")
        else:
            level = "above_95th" if ppm > t2 else "above_90th" if ppm > t1 else "at_or_below_90th"
        entries.append(GasStatus2019(gas=gas, ppm=ppm, table1_90th_ppm=t1, table2_95th_ppm=t2,
                                     level=level))
    above_90 = [e.gas for e in entries if e.level in ("above_90th", "above_95th")]
    above_95 = [e.gas for e in entries if e.level == "above_95th"]
    status = 3 if above_95 else 2 if above_90 else 1
    return DgaStatus2019(
        status=status,
        o2_n2_ratio=ratio,
        o2_n2_column=column,
        age_years=age_years,
        age_band=band,
        gases=entries,
        above_90th=above_90,
        above_95th=above_95,
        edition=EDITION_2019,
        notes=notes,
    )
