"""Dissolved gas analysis (DGA) of transformer oil: deterministic and cited.

Methods and the editions implemented:

- IEC 60599:2015 Table 1 ratio method (:func:`classify_iec60599`).
- Rogers / IEC 599 three-ratio codes (:func:`rogers_codes`, :func:`classify_rogers`).
- Duval triangle 1 (:func:`duval_triangle1`).
- Concentration screen (:func:`concentration_screen`): IEC 60599:2015 typical values
  (90th percentile, no OLTC communication unless asked) and the IEEE C57.104-2008 Table 1
  conditions 1-4.
- IEEE C57.104-2019 single-sample DGA status from Tables 1 and 2 (percentiles by O2/N2 ratio
  and transformer age): :mod:`assets.transformer.dga_2019`, applied by :func:`interpret_dga`
  with ``edition="2019"``. The ``edition`` argument picks which IEEE edition gates "normal"
  and sets the action band; the 2008 condition screen is reported under both editions.

Boundary conventions, used everywhere in this module:

- "< x" and "> x" are strict; "≥" and "≤" are as written.
- A range "a – b" of IEC 60599 Table 1 is inclusive at both ends.
- The Rogers code ranges share their end points, so they are closed below and open above,
  except the last finite one: < 0.1 | 0.1 ≤ r < 1 | 1 ≤ r ≤ 3 | > 3.
- Duval triangle 1 limits are applied exactly as listed, in the listed order.
- Concentration limits are inclusive upper bounds: a gas exceeds its IEC typical value when it
  is strictly above it, and is in IEEE condition n when it is ≤ the condition-n upper bound.

Zero denominators: a ratio x/0 with x > 0 diverges. It is reported as ``null`` (JSON) / ``None``
and its name is listed in ``Ratios.divergent``; the classifiers treat it as larger than every
threshold (:meth:`Ratios.value` gives ``math.inf``). 0/0 ("neither gas present") is 0.0, a low
ratio, and is listed in ``Ratios.zero_over_zero``. A quotient that overflows a float (a trace
denominator) is treated as divergent too. No function divides by zero and no output holds
NaN or infinity.

IEC 60599 Table 1 reading. The T1 row is (C2H2/C2H4 not significant, CH4/H2 "> 1 but not
significant", C2H4/C2H6 < 1). As commonly read (and as open implementations such as
ToniMellin/dga-diagtool apply it) T1 requires CH4/H2 > 1: a low-temperature fault in oil and
paper produces more methane than hydrogen. With that reading the rows overlap only in the
D1/D2 region (C2H2/C2H4 in 1 – 2.5, CH4/H2 in 0.1 – 0.5, C2H4/C2H6 > 2), where the more severe
fault, D2, takes precedence. Rows are checked in the order D2, D1, T3, T2, PD, T1; apart from
D1/D2 the order does not matter.

Healthy samples: the ratio methods only apply when gases are significant. When every gas given
is at or below its IEC 60599 typical value and the IEEE condition is the lowest (2008 edition:
condition 1; 2019 edition: DGA status 1), :func:`interpret_dga` reports
``fault_type == "normal"``; the ratio results are still returned.

Combined diagnosis: ``fault_type`` is the IEC class; Rogers (mapped to IEC codes) and Duval
support it or not, and the confidence is the boundary margin times the share of the three
methods that give the same answer (see :func:`interpret_dga`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assets.transformer.dga_2019 import DgaStatus2019, dga_status_2019

# ---------------------------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------------------------

# A concentration above 10^6 ppm (more than the whole oil volume) is physically impossible.
MAX_PPM = 1_000_000.0

# Every concentration is a real number (never a bool or a numeric string), non-negative, finite
# and at most 10^6 ppm; the error names the field.
Ppm = Annotated[float, Field(ge=0, le=MAX_PPM, allow_inf_nan=False, strict=True)]


class GasSample(BaseModel):
    """Dissolved gas concentrations of one oil sample, in ppm (µL/L)."""

    model_config = ConfigDict(extra="forbid")

    hydrogen: Ppm = Field(description="H2 in ppm.")
    methane: Ppm = Field(description="CH4 in ppm.")
    ethane: Ppm = Field(description="C2H6 in ppm.")
    ethylene: Ppm = Field(description="C2H4 in ppm.")
    acetylene: Ppm = Field(description="C2H2 in ppm.")
    co: Ppm | None = Field(default=None, description="CO in ppm; None when not measured.")
    co2: Ppm | None = Field(default=None, description="CO2 in ppm; None when not measured.")
    oxygen: Ppm | None = Field(default=None, description="O2 in ppm; None when not measured.")
    nitrogen: Ppm | None = Field(default=None, description="N2 in ppm; None when not measured.")


# ---------------------------------------------------------------------------------------------
# Ratios
# ---------------------------------------------------------------------------------------------

RatioName = Literal["c2h2_c2h4", "ch4_h2", "c2h4_c2h6"]
RATIO_NAMES: tuple[RatioName, RatioName, RatioName] = ("c2h2_c2h4", "ch4_h2", "c2h4_c2h6")
Ratio = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class Ratios(BaseModel):
    """The three IEC 60599 / Rogers gas ratios.

    A ratio is ``None`` when it diverges (x/0 with x > 0, or a quotient beyond the float range)
    and is then named in ``divergent``; 0/0 is 0.0 and named in ``zero_over_zero``. The
    classifiers read ratios through :meth:`value`, which gives ``math.inf`` for a divergent one.
    """

    model_config = ConfigDict(extra="forbid")

    c2h2_c2h4: Ratio | None = Field(
        description="C2H2/C2H4 (IEC 60599 R2); null when C2H4 = 0 and C2H2 > 0 (divergent)."
    )
    ch4_h2: Ratio | None = Field(
        description="CH4/H2 (IEC 60599 R1); null when H2 = 0 and CH4 > 0 (divergent)."
    )
    c2h4_c2h6: Ratio | None = Field(
        description="C2H4/C2H6 (IEC 60599 R5); null when C2H6 = 0 and C2H4 > 0 (divergent)."
    )
    divergent: list[RatioName] = Field(
        default_factory=list,
        description="Ratios whose denominator is 0 (numerator > 0): reported as null and "
        "classified as above every threshold. Derived from the null ratios.",
    )
    zero_over_zero: list[RatioName] = Field(
        default_factory=list,
        description="Ratios with both gases 0, reported as 0 (a low ratio).",
    )

    @model_validator(mode="after")
    def _divergent_matches_nulls(self) -> Ratios:
        self.divergent = [name for name in RATIO_NAMES if getattr(self, name) is None]
        return self

    def value(self, name: RatioName) -> float:
        """The ratio as a float for classification: ``math.inf`` when divergent."""
        raw: float | None = getattr(self, name)
        return math.inf if raw is None else raw

    def values(self) -> tuple[float, float, float]:
        """(C2H2/C2H4, CH4/H2, C2H4/C2H6) as floats, divergent ones as ``math.inf``."""
        return (self.value("c2h2_c2h4"), self.value("ch4_h2"), self.value("c2h4_c2h6"))


def _ratio(numerator: float, denominator: float) -> float | None:
    if denominator > 0:
        quotient = numerator / denominator
        return quotient if math.isfinite(quotient) else None
    return None if numerator > 0 else 0.0


def iec60599_ratios(s: GasSample) -> Ratios:
    """Compute the three gas ratios of IEC 60599:2015 (also used by the Rogers codes).

    Zero denominator rule: x/0 is divergent (``None``, listed in ``divergent``) when x > 0 and
    0.0 when x = 0 (listed in ``zero_over_zero``); this function never divides by zero.

    Args:
        s: The gas sample.

    Returns:
        C2H2/C2H4, CH4/H2 and C2H4/C2H6.
    """
    pairs: dict[RatioName, tuple[float, float]] = {
        "c2h2_c2h4": (s.acetylene, s.ethylene),
        "ch4_h2": (s.methane, s.hydrogen),
        "c2h4_c2h6": (s.ethylene, s.ethane),
    }
    return Ratios(
        c2h2_c2h4=_ratio(*pairs["c2h2_c2h4"]),
        ch4_h2=_ratio(*pairs["ch4_h2"]),
        c2h4_c2h6=_ratio(*pairs["c2h4_c2h6"]),
        zero_over_zero=[name for name, (num, den) in pairs.items() if num == 0 and den == 0],
    )


# ---------------------------------------------------------------------------------------------
# IEC 60599:2015 Table 1
# ---------------------------------------------------------------------------------------------

IecFault = Literal["PD", "D1", "D2", "T1", "T2", "T3", "ND"]

IEC_LABELS: dict[str, str] = {
    "PD": "PD: partial discharges",
    "D1": "D1: discharges of low energy",
    "D2": "D2: discharges of high energy",
    "T1": "T1: thermal fault < 300 °C",
    "T2": "T2: thermal fault 300–700 °C",
    "T3": "T3: thermal fault > 700 °C",
    "ND": "ND: not determined (no IEC 60599 Table 1 row matches)",
    "normal": "normal: all gases at or below typical values, IEEE condition 1",
}

# Every threshold of Table 1, per ratio; used to find the boundaries near a sample.
IEC_THRESHOLDS: dict[str, tuple[float, ...]] = {
    "c2h2_c2h4": (0.1, 0.2, 0.6, 1.0, 2.5),
    "ch4_h2": (0.1, 0.5, 1.0),
    "c2h4_c2h6": (0.2, 1.0, 2.0, 4.0),
}


def _iec_class(c2h2_c2h4: float, ch4_h2: float, c2h4_c2h6: float) -> IecFault:
    # Order: D2, D1, T3, T2, PD, T1 (see the module docstring).
    if 0.6 <= c2h2_c2h4 <= 2.5 and 0.1 <= ch4_h2 <= 1.0 and c2h4_c2h6 > 2.0:
        return "D2"
    if c2h2_c2h4 > 1.0 and 0.1 <= ch4_h2 <= 0.5 and c2h4_c2h6 > 1.0:
        return "D1"
    if c2h2_c2h4 < 0.2 and ch4_h2 > 1.0 and c2h4_c2h6 > 4.0:
        return "T3"
    if c2h2_c2h4 < 0.1 and ch4_h2 > 1.0 and 1.0 <= c2h4_c2h6 <= 4.0:
        return "T2"
    if ch4_h2 < 0.1 and c2h4_c2h6 < 0.2:  # C2H2/C2H4 not significant
        return "PD"
    if ch4_h2 > 1.0 and c2h4_c2h6 < 1.0:  # C2H2/C2H4 not significant
        return "T1"
    return "ND"


def classify_iec60599(r: Ratios) -> IecFault:
    """Classify a sample with the IEC 60599:2015 Table 1 ratio method.

    Rows (C2H2/C2H4, CH4/H2, C2H4/C2H6), "NS" = not significant (ignored):
    PD (NS, < 0.1, < 0.2); D1 (> 1, 0.1 – 0.5, > 1); D2 (0.6 – 2.5, 0.1 – 1, > 2);
    T1 (NS, > 1, < 1); T2 (< 0.1, > 1, 1 – 4); T3 (< 0.2, > 1, > 4). T1's CH4/H2 > 1 is the
    common reading of the table's "> 1 but not significant". Checked in the order D2, D1, T3,
    T2, PD, T1 (D2 wins the D1/D2 overlap); boundaries as in the module docstring; a divergent
    ratio counts as larger than every threshold.

    Args:
        r: The gas ratios.

    Returns:
        "PD", "D1", "D2", "T1", "T2", "T3", or "ND" when no row matches.
    """
    return _iec_class(*r.values())


# ---------------------------------------------------------------------------------------------
# Rogers / IEC 599 three-ratio codes
# ---------------------------------------------------------------------------------------------

RogersDiagnosis = Literal["NF", "PDLED", "PDHED", "LED", "HED", "LTH1", "LTH4", "MTH", "HTH", "UD"]

ROGERS_LABELS: dict[str, str] = {
    "NF": "no fault",
    "PDLED": "partial discharge, low energy density",
    "PDHED": "partial discharge, high energy density",
    "LED": "discharge of low energy",
    "HED": "discharge of high energy",
    "LTH1": "thermal fault < 150 °C",
    "LTH4": "thermal fault 150–300 °C",
    "MTH": "thermal fault 300–700 °C",
    "HTH": "thermal fault > 700 °C",
    "UD": "undetermined",
}

# Code of each ratio range (< 0.1, 0.1 – 1, 1 – 3, > 3), per ratio. The CH4/H2 column differs
# from the C2H2/C2H4 one; a public implementation swapped them.
ROGERS_CODING: dict[str, tuple[int, int, int, int]] = {
    "c2h2_c2h4": (0, 1, 1, 2),
    "ch4_h2": (1, 0, 2, 2),
    "c2h4_c2h6": (0, 0, 1, 2),
}

# Exact code triples; LED ("1–2, 0, 1–2") is handled in classify_rogers after HED (1 0 2),
# which it would otherwise contain.
ROGERS_TABLE: dict[tuple[int, int, int], RogersDiagnosis] = {
    (0, 0, 0): "NF",
    (0, 1, 0): "PDLED",
    (1, 1, 0): "PDHED",
    (1, 0, 2): "HED",
    (0, 0, 1): "LTH1",
    (0, 2, 0): "LTH4",
    (0, 2, 1): "MTH",
    (0, 2, 2): "HTH",
}


def _rogers_range(value: float) -> int:
    if value < 0.1:
        return 0
    if value < 1.0:
        return 1
    if value <= 3.0:
        return 2
    return 3


def rogers_codes(r: Ratios) -> tuple[int, int, int]:
    """Code the three ratios with the Rogers / IEC 599 table.

    Ranges < 0.1 | 0.1 ≤ r < 1 | 1 ≤ r ≤ 3 | > 3 are coded
    C2H2/C2H4: 0, 1, 1, 2; CH4/H2: 1, 0, 2, 2; C2H4/C2H6: 0, 0, 1, 2.

    Args:
        r: The gas ratios.

    Returns:
        The code triple ordered (C2H2/C2H4, CH4/H2, C2H4/C2H6).
    """
    return (
        ROGERS_CODING["c2h2_c2h4"][_rogers_range(r.value("c2h2_c2h4"))],
        ROGERS_CODING["ch4_h2"][_rogers_range(r.value("ch4_h2"))],
        ROGERS_CODING["c2h4_c2h6"][_rogers_range(r.value("c2h4_c2h6"))],
    )


def classify_rogers(codes: Sequence[int]) -> RogersDiagnosis:
    """Diagnose a Rogers code triple.

    Table: 0 0 0 NF; 0 1 0 PDLED; 1 1 0 PDHED; 1 0 2 HED; (1–2) 0 (1–2) LED (checked after
    HED); 0 0 1 LTH1; 0 2 0 LTH4; 0 2 1 MTH; 0 2 2 HTH; anything else UD.

    Args:
        codes: The triple ordered (C2H2/C2H4, CH4/H2, C2H4/C2H6).

    Returns:
        The diagnosis code.
    """
    triple = tuple(codes)
    if len(triple) != 3:
        return "UD"
    known = ROGERS_TABLE.get((triple[0], triple[1], triple[2]))
    if known is not None:
        return known
    if triple[0] in (1, 2) and triple[1] == 0 and triple[2] in (1, 2):
        return "LED"
    return "UD"


# ---------------------------------------------------------------------------------------------
# Duval triangle 1
# ---------------------------------------------------------------------------------------------

DuvalZone = Literal["PD", "D1", "D2", "T1", "T2", "T3", "DT", "NA"]

# (percentage index, threshold): index 0 = %CH4, 1 = %C2H4, 2 = %C2H2.
DUVAL_THRESHOLDS: tuple[tuple[int, float], ...] = (
    (0, 98.0),
    (1, 20.0),
    (1, 23.0),
    (1, 40.0),
    (1, 50.0),
    (2, 4.0),
    (2, 13.0),
    (2, 15.0),
    (2, 29.0),
)


class DuvalResult(BaseModel):
    """Duval triangle 1 coordinates and zone."""

    model_config = ConfigDict(extra="forbid")

    pct_ch4: float = Field(description="CH4 as % of CH4 + C2H4 + C2H2 (0 when the sum is 0).")
    pct_c2h4: float = Field(description="C2H4 as % of CH4 + C2H4 + C2H2 (0 when the sum is 0).")
    pct_c2h2: float = Field(description="C2H2 as % of CH4 + C2H4 + C2H2 (0 when the sum is 0).")
    zone: DuvalZone = Field(
        description="PD, D1, D2, T1, T2, T3, DT (mixed thermal/electrical) or NA (sum is 0)."
    )


def duval_zone(pct_ch4: float, pct_c2h4: float, pct_c2h2: float) -> DuvalZone:
    """Zone of a point of Duval triangle 1, rules checked in the order of the shared notes.

    PD %CH4 ≥ 98; D1 %C2H4 < 23 and %C2H2 > 13; D2 (23 ≤ %C2H4 < 40 and %C2H2 > 13) or
    (%C2H4 ≥ 40 and %C2H2 > 29); T1 %C2H4 < 20 and %C2H2 < 4; T2 20 ≤ %C2H4 < 50 and
    %C2H2 < 4; T3 %C2H4 ≥ 50 and %C2H2 < 15; otherwise DT.

    Args:
        pct_ch4: %CH4.
        pct_c2h4: %C2H4.
        pct_c2h2: %C2H2.

    Returns:
        The zone (never "NA"; that is decided from the gas sum in :func:`duval_triangle1`).
    """
    if pct_ch4 >= 98.0:
        return "PD"
    if pct_c2h4 < 23.0 and pct_c2h2 > 13.0:
        return "D1"
    if (23.0 <= pct_c2h4 < 40.0 and pct_c2h2 > 13.0) or (pct_c2h4 >= 40.0 and pct_c2h2 > 29.0):
        return "D2"
    if pct_c2h4 < 20.0 and pct_c2h2 < 4.0:
        return "T1"
    if 20.0 <= pct_c2h4 < 50.0 and pct_c2h2 < 4.0:
        return "T2"
    if pct_c2h4 >= 50.0 and pct_c2h2 < 15.0:
        return "T3"
    return "DT"


def duval_triangle1(s: GasSample) -> DuvalResult:
    """Locate a sample in Duval triangle 1 (CH4, C2H4, C2H2).

    Args:
        s: The gas sample.

    Returns:
        The percentages and zone; zone "NA" with all percentages 0 when CH4 + C2H4 + C2H2 = 0.
    """
    total = s.methane + s.ethylene + s.acetylene
    if total <= 0:
        return DuvalResult(pct_ch4=0.0, pct_c2h4=0.0, pct_c2h2=0.0, zone="NA")
    pcts = (100.0 * s.methane / total, 100.0 * s.ethylene / total, 100.0 * s.acetylene / total)
    return DuvalResult(pct_ch4=pcts[0], pct_c2h4=pcts[1], pct_c2h2=pcts[2], zone=duval_zone(*pcts))


# ---------------------------------------------------------------------------------------------
# Concentration screen: IEC 60599:2015 typical values, IEEE C57.104-2008 Table 1
# ---------------------------------------------------------------------------------------------

IEEE_EDITION = "IEEE C57.104-2008 Table 1"

# IEC 60599 typical values (90th percentile, ppm, no OLTC communication); mid-values of ranges
# that vary by network.
IEC_TYPICAL_PPM: dict[str, float] = {
    "H2": 150.0,
    "CH4": 130.0,
    "C2H6": 90.0,
    "C2H4": 280.0,
    "C2H2": 20.0,
    "CO": 600.0,
    "CO2": 14000.0,
}
IEC_TYPICAL_C2H2_OLTC_PPM = 280.0

# IEEE C57.104-2008 Table 1: inclusive upper bounds of conditions 1, 2, 3 (above: condition 4).
IEEE_2008_LIMITS_PPM: dict[str, tuple[float, float, float]] = {
    "H2": (100.0, 700.0, 1800.0),
    "CH4": (120.0, 400.0, 1000.0),
    "C2H6": (65.0, 100.0, 150.0),
    "C2H4": (50.0, 100.0, 200.0),
    "C2H2": (1.0, 9.0, 35.0),
    "CO": (350.0, 570.0, 1400.0),
    "CO2": (2500.0, 4000.0, 10000.0),
    "TDCG": (720.0, 1920.0, 4630.0),
}

TDCG_GASES: tuple[str, ...] = ("H2", "CH4", "C2H6", "C2H4", "C2H2", "CO")


def ieee_condition(ppm: float, limits: Sequence[float]) -> int:
    """IEEE C57.104-2008 condition (1-4) of a concentration given its three upper bounds.

    Args:
        ppm: The concentration.
        limits: Inclusive upper bounds of conditions 1, 2 and 3.

    Returns:
        1, 2, 3, or 4 when above the condition-3 bound.
    """
    for condition, upper in enumerate(limits, start=1):
        if ppm <= upper:
            return condition
    return len(limits) + 1


class GasScreen(BaseModel):
    """Screen of one gas against the IEC typical value and the IEEE 2008 conditions."""

    model_config = ConfigDict(extra="forbid")

    gas: str = Field(description="Gas formula: H2, CH4, C2H6, C2H4, C2H2, CO or CO2.")
    ppm: float | None = Field(description="Concentration in ppm; None when not measured.")
    iec_typical_ppm: float = Field(description="IEC 60599:2015 typical (90th pct) value, ppm.")
    exceeds_iec_typical: bool | None = Field(
        description="True when ppm is strictly above the typical value; None when not measured."
    )
    ieee_limits_ppm: list[float] = Field(
        description="IEEE C57.104-2008 Table 1 upper bounds of conditions 1, 2, 3 (ppm)."
    )
    ieee_condition: int | None = Field(
        description="IEEE C57.104-2008 condition 1-4; None when not measured."
    )


class ScreenResult(BaseModel):
    """Concentration screen of a sample (IEC 60599 typical values, IEEE C57.104-2008)."""

    model_config = ConfigDict(extra="forbid")

    gases: list[GasScreen] = Field(description="One entry per screened gas.")
    tdcg_ppm: float = Field(description="Total dissolved combustible gas over tdcg_gases, ppm.")
    tdcg_gases: list[str] = Field(description="Gases summed into tdcg_ppm.")
    tdcg_condition: int = Field(description="IEEE C57.104-2008 condition of the TDCG.")
    ieee_condition: int = Field(description="Overall condition: max over gases and TDCG.")
    all_within_iec_typical: bool = Field(
        description="True when every measured gas is at or below its IEC typical value."
    )
    oltc_communicating: bool = Field(
        description="True when the C2H2 typical value for a communicating OLTC (280) is used."
    )
    edition: str = Field(description="Editions of the tables used.")
    notes: list[str] = Field(description="Caveats, e.g. a TDCG computed without CO.")

    def by_gas(self, gas: str) -> GasScreen:
        """Return the entry of one gas (formula, e.g. "C2H2")."""
        for entry in self.gases:
            if entry.gas == gas:
                return entry
        raise KeyError(f"no screened gas {gas!r}; available: {[g.gas for g in self.gases]}")


def _gas_values(s: GasSample) -> dict[str, float | None]:
    return {
        "H2": s.hydrogen,
        "CH4": s.methane,
        "C2H6": s.ethane,
        "C2H4": s.ethylene,
        "C2H2": s.acetylene,
        "CO": s.co,
        "CO2": s.co2,
    }


def _typical_values(oltc_communicating: bool) -> dict[str, float]:
    typical = dict(IEC_TYPICAL_PPM)
    if oltc_communicating:
        typical["C2H2"] = IEC_TYPICAL_C2H2_OLTC_PPM
    return typical


def concentration_screen(s: GasSample, oltc_communicating: bool = False) -> ScreenResult:
    """Screen concentrations against IEC 60599:2015 typical values and IEEE C57.104-2008.

    TDCG = H2 + CH4 + C2H6 + C2H4 + C2H2 + CO; when CO is not measured the TDCG is computed
    over the gases present (a lower bound) and a note says so. The overall condition is the
    highest condition of any gas or of the TDCG.

    Args:
        s: The gas sample.
        oltc_communicating: Use the C2H2 typical value for an OLTC communicating with the
            main tank (280 ppm instead of 20 ppm).

    Returns:
        The per-gas screen, TDCG and overall IEEE condition.
    """
    typical = _typical_values(oltc_communicating)
    values = _gas_values(s)
    notes: list[str] = []
    gases: list[GasScreen] = []
    for gas, ppm in values.items():
        limits = IEEE_2008_LIMITS_PPM[gas]
        gases.append(
            GasScreen(
                gas=gas,
                ppm=ppm,
                iec_typical_ppm=typical[gas],
                exceeds_iec_typical=None if ppm is None else ppm > typical[gas],
                ieee_limits_ppm=list(limits),
                ieee_condition=None if ppm is None else ieee_condition(ppm, limits),
            )
        )
        if ppm is None:
            notes.append(f"{gas} not measured: not screened.")
    tdcg_gases = [gas for gas in TDCG_GASES if values[gas] is not None]
    tdcg = sum(values[gas] or 0.0 for gas in tdcg_gases)
    if values["CO"] is None:
        summed = ", ".join(tdcg_gases)
        notes.append(f"CO not measured: TDCG computed over {summed} only (a lower bound).")
    tdcg_condition = ieee_condition(tdcg, IEEE_2008_LIMITS_PPM["TDCG"])
    gas_conditions = [g.ieee_condition for g in gases if g.ieee_condition is not None]
    return ScreenResult(
        gases=gases,
        tdcg_ppm=tdcg,
        tdcg_gases=tdcg_gases,
        tdcg_condition=tdcg_condition,
        ieee_condition=max([tdcg_condition, *gas_conditions]),
        all_within_iec_typical=not any(g.exceeds_iec_typical for g in gases),
        oltc_communicating=oltc_communicating,
        edition=f"IEC 60599:2015 typical values; {IEEE_EDITION} (not the 2019 edition)",
        notes=notes,
    )


# ---------------------------------------------------------------------------------------------
# Confidence
# ---------------------------------------------------------------------------------------------

RATIO_MARGIN = 0.05  # relative distance to an IEC ratio boundary (5 %)
DUVAL_MARGIN = 2.0  # percentage points to a Duval zone boundary
CONFIDENCE_FLOOR = 0.3
_PROBE = 1e-9


def margin_score(distance: float, margin: float) -> float:
    """Score a distance to a boundary: clip(distance / margin, CONFIDENCE_FLOOR, 1).

    Args:
        distance: Non-negative distance (relative for ratios, points for Duval).
        margin: The distance at and beyond which the score is 1.

    Returns:
        A score in [CONFIDENCE_FLOOR, 1].
    """
    if math.isinf(distance):
        return 1.0
    return min(1.0, max(CONFIDENCE_FLOOR, distance / margin))


def _nearest_flip_scores(
    point: Sequence[float],
    thresholds: Sequence[tuple[int, float]],
    classify: Callable[[Sequence[float]], str],
    distance: Callable[[float, float], float],
    probe: Callable[[float, float], tuple[float, ...]],
    margin: float,
) -> float:
    current = classify(point)
    score = 1.0
    for axis, threshold in thresholds:
        for probed in probe(point[axis], threshold):
            moved = list(point)
            moved[axis] = probed
            if classify(moved) != current:
                score = min(score, margin_score(distance(point[axis], threshold), margin))
    return score


def _ratio_probe(value: float, threshold: float) -> tuple[float, ...]:
    if value < threshold:
        return (threshold * (1 + _PROBE),)
    if value > threshold:
        return (threshold * (1 - _PROBE),)
    return (threshold * (1 - _PROBE), threshold * (1 + _PROBE))


def _points_probe(value: float, threshold: float) -> tuple[float, ...]:
    if value < threshold:
        return (threshold + _PROBE,)
    if value > threshold:
        return (threshold - _PROBE,)
    return (threshold - _PROBE, threshold + _PROBE)


def iec_confidence(r: Ratios) -> float:
    """Boundary-margin confidence of the IEC 60599 classification.

    A boundary is relevant when moving that one ratio just across it changes the class (so the
    relevant boundaries are those of the Table 1 row the sample fell in, plus those of rows
    that take precedence over it). Confidence = min over relevant boundaries b of
    clip(|r - b| / b / 0.05, 0.3, 1); 1 when none is relevant or the ratio is infinite.

    Args:
        r: The gas ratios.

    Returns:
        A confidence in [0.3, 1].
    """
    point = r.values()
    thresholds = [(axis, t) for axis, name in enumerate(RATIO_NAMES) for t in IEC_THRESHOLDS[name]]
    return _nearest_flip_scores(
        point,
        thresholds,
        lambda p: _iec_class(p[0], p[1], p[2]),
        lambda v, t: abs(v - t) / t,
        _ratio_probe,
        RATIO_MARGIN,
    )


def duval_confidence(d: DuvalResult) -> float:
    """Boundary-margin confidence of the Duval triangle 1 zone.

    A boundary (a limit of section 1.4 on one percentage) is relevant when moving that one
    percentage just across it changes the zone. Confidence = min over relevant boundaries of
    clip(|p - limit| / 2 points, 0.3, 1); 1 for zone "NA".

    Args:
        d: The Duval result.

    Returns:
        A confidence in [0.3, 1].
    """
    if d.zone == "NA":
        return 1.0
    return _nearest_flip_scores(
        (d.pct_ch4, d.pct_c2h4, d.pct_c2h2),
        DUVAL_THRESHOLDS,
        lambda p: duval_zone(p[0], p[1], p[2]),
        lambda v, t: abs(v - t),
        _points_probe,
        DUVAL_MARGIN,
    )


def boundary_margin(r: Ratios, d: DuvalResult) -> float:
    """Confidence of a fault diagnosis: min(:func:`iec_confidence`, :func:`duval_confidence`).

    Args:
        r: The gas ratios.
        d: The Duval triangle 1 result of the same sample.

    Returns:
        A confidence in [0.3, 1]; below 1 when a ratio is within 5 % of a boundary that would
        change the IEC class or a Duval percentage within 2 points of a zone boundary.
    """
    return min(iec_confidence(r), duval_confidence(d))


def concentration_confidence(screen: ScreenResult) -> float:
    """Confidence of a "normal" verdict from the margin of each gas below its limits.

    Confidence = min over measured gases and the TDCG of clip(((limit - ppm) / limit) / 0.05,
    0.3, 1), with limit each of the IEC typical value and the IEEE condition-1 upper bound.

    Args:
        screen: The concentration screen of a sample.

    Returns:
        A confidence in [0.3, 1].
    """
    distances: list[float] = [
        (limit - g.ppm) / limit
        for g in screen.gases
        if g.ppm is not None
        for limit in (g.iec_typical_ppm, g.ieee_limits_ppm[0])
    ]
    tdcg_limit = IEEE_2008_LIMITS_PPM["TDCG"][0]
    distances.append((tdcg_limit - screen.tdcg_ppm) / tdcg_limit)
    return min(margin_score(max(0.0, dist), RATIO_MARGIN) for dist in distances)


def concentration_confidence_2019(screen: ScreenResult, status: DgaStatus2019) -> float:
    """Confidence of a "normal" verdict under IEEE C57.104-2019 (DGA status 1).

    Confidence = min over measured gases of clip(((limit - ppm) / limit) / 0.05, 0.3, 1), with
    limit each of the IEC typical value and the 2019 Table 1 (90th percentile) value of the
    sample's O2/N2 and age columns. The TDCG plays no part in the 2019 status.

    Args:
        screen: The concentration screen of a sample.
        status: Its 2019 DGA status.

    Returns:
        A confidence in [0.3, 1].
    """
    distances: list[float] = [
        (g.iec_typical_ppm - g.ppm) / g.iec_typical_ppm for g in screen.gases if g.ppm is not None
    ]
    distances += [
        (g.table1_90th_ppm - g.ppm) / g.table1_90th_ppm for g in status.gases if g.ppm is not None
    ]
    return min(margin_score(max(0.0, dist), RATIO_MARGIN) for dist in distances)


# ---------------------------------------------------------------------------------------------
# Recommended actions
# ---------------------------------------------------------------------------------------------

# Project guidance table, keyed by (fault type, IEEE band), band "low" = IEEE C57.104-2008
# condition 1-2 and "high" = condition 3-4. Derived from the IEC 60599 clause on recommended
# actions and the IEEE C57.104-2008 operating procedures; a project table, not a verbatim
# quote of either standard.
RECOMMENDED_ACTIONS: dict[tuple[str, str], str] = {
    ("normal", "low"): "routine sampling per schedule",
    ("normal", "high"): "routine sampling per schedule",
    ("PD", "low"): "resample in 1 month, check for moisture/gas bubbles",
    ("PD", "high"): (
        "resample within 1 week, check for moisture/gas bubbles, "
        "consider acoustic or electrical partial-discharge measurement"
    ),
    ("D1", "low"): (
        "resample within 1 month, check for sparking at loose connections, "
        "floating potentials or OLTC leakage"
    ),
    ("D1", "high"): "resample within 1 week, plan internal inspection for sparking or tracking",
    ("D2", "low"): "remove from service for internal inspection",
    ("D2", "high"): "remove from service for internal inspection",
    ("T1", "low"): "resample within 3 months, check loading and cooling",
    ("T1", "high"): "resample within 1 month, check loading, cooling and oil circulation",
    ("T2", "low"): "resample within 1 month, check cooling, loading and hot joints (infrared scan)",
    ("T2", "high"): "reduce load, resample within 1 week, plan internal inspection",
    ("T3", "low"): "reduce load, resample within 1 week, plan internal inspection",
    ("T3", "high"): (
        "reduce load or remove from service, resample within days, plan internal inspection"
    ),
    ("ND", "low"): "resample within 1 month and re-evaluate with gas generation rates",
    ("ND", "high"): (
        "resample within 1 week, evaluate gas generation rates, consult a DGA specialist"
    ),
}


def recommended_action(fault_type: str, condition: int) -> str:
    """Look up the project action table.

    The band is "low" for IEEE C57.104-2008 conditions 1-2 and 2019 DGA status 1-2, "high"
    for 2008 conditions 3-4 and 2019 status 3 (status 3 is the 2019 edition's level that
    asks for action; a project mapping, not a quote of the standard).

    Args:
        fault_type: "normal" or an IEC 60599 code.
        condition: IEEE C57.104-2008 condition 1-4, or the 2019 DGA status 1-3.

    Returns:
        The recommended action.
    """
    band = "low" if condition <= 2 else "high"
    return RECOMMENDED_ACTIONS[(fault_type, band)]


# ---------------------------------------------------------------------------------------------
# Interpretation
# ---------------------------------------------------------------------------------------------

ROGERS_TO_IEC: dict[str, str] = {
    "HTH": "T3",
    "MTH": "T2",
    "LTH1": "T1",
    "LTH4": "T1",
    "HED": "D2",
    "LED": "D1",
    "PDLED": "PD",
    "PDHED": "PD",
    "NF": "normal",
    "UD": "undetermined",
}
DUVAL_TO_IEC: dict[str, str] = {
    "PD": "PD",
    "D1": "D1",
    "D2": "D2",
    "T1": "T1",
    "T2": "T2",
    "T3": "T3",
    "DT": "DT",
    "NA": "undetermined",
}
_UNDETERMINED = frozenset({"ND", "undetermined"})

STANDARD = (
    "IEC 60599:2015; IEC 60599 / Rogers three-ratio codes; Duval triangle 1; "
    "IEEE C57.104-2008 Table 1 (edition 2008, the default) or IEEE C57.104-2019 Tables 1-2 "
    "(edition 2019)"
)
Edition = Literal["2008", "2019"]
EDITIONS: tuple[Edition, Edition] = ("2008", "2019")


class IecResult(BaseModel):
    """IEC 60599:2015 Table 1 ratio method result."""

    model_config = ConfigDict(extra="forbid")

    fault: IecFault = Field(description="Table 1 class, computed even for healthy samples.")
    label: str = Field(description="Human label of the class.")
    ratios: Ratios = Field(description="The three ratios used.")


class RogersResult(BaseModel):
    """Rogers / IEC 599 three-ratio code result."""

    model_config = ConfigDict(extra="forbid")

    codes: list[int] = Field(description="Codes ordered (C2H2/C2H4, CH4/H2, C2H4/C2H6).")
    diagnosis: RogersDiagnosis = Field(description="Rogers diagnosis code.")
    label: str = Field(description="Human label of the diagnosis.")


MethodName = Literal["iec", "rogers", "duval"]


class Agreement(BaseModel):
    """Agreement of the three ratio methods, on IEC 60599 codes."""

    model_config = ConfigDict(extra="forbid")

    iec: str = Field(description="IEC 60599 Table 1 class.")
    rogers_as_iec: str = Field(
        description="Rogers diagnosis mapped: HTH→T3, MTH→T2, LTH1/LTH4→T1, HED→D2, LED→D1, "
        "PDLED/PDHED→PD, NF→normal, UD→undetermined."
    )
    duval_as_iec: str = Field(
        description="Duval zone mapped: same codes; DT stays DT, NA→undetermined."
    )
    methods_agreeing: int = Field(
        description="Largest number of methods (0-3) giving the same determined diagnosis; "
        "ND/UD/NA never count."
    )
    consensus: str | None = Field(
        description="The diagnosis given by at least 2 methods, None when there is none."
    )
    supporting_methods: list[MethodName] = Field(
        description="Methods whose diagnosis equals the reported fault_type (IEC code; "
        "ND, UD and NA all read as 'not determined', so they support an 'ND' verdict). "
        "Empty for a 'normal' verdict (ratio methods not applied)."
    )
    dissenting: dict[str, str] = Field(
        description="Method → its diagnosis, for the methods that do not support fault_type."
    )
    agreement_factor: float = Field(
        ge=0,
        le=1,
        description="len(supporting_methods) / 3 for a fault verdict; 1 for 'normal'.",
    )
    summary: str = Field(description="Which methods agree on what, in words.")


class ConfidenceDetail(BaseModel):
    """The components of the reported confidence."""

    model_config = ConfigDict(extra="forbid")

    iec: float = Field(description="iec_confidence of the ratios.")
    duval: float = Field(description="duval_confidence of the Duval point.")
    agreement: float = Field(
        description="agreement.agreement_factor: share of the 3 methods supporting fault_type."
    )
    concentration: float | None = Field(
        description="concentration_confidence; set only for a 'normal' verdict."
    )
    formula: str = Field(description="How the reported confidence was formed.")


class DgaInterpretation(BaseModel):
    """Full DGA interpretation of one sample, as returned by the interpret_dga tool."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the sample was taken from.")
    sample: GasSample = Field(description="The gas concentrations interpreted.")
    fault_type: str = Field(
        description="'normal' when gases are not significant, else the IEC 60599 class."
    )
    fault_label: str = Field(description="Human label, e.g. 'T3: thermal fault > 700 °C'.")
    iec_ratio_method: IecResult = Field(description="IEC 60599 Table 1 class and ratios.")
    rogers: RogersResult = Field(description="Rogers codes and diagnosis.")
    duval: DuvalResult = Field(description="Duval triangle 1 zone and percentages.")
    screen: ScreenResult = Field(description="IEC typical values and IEEE 2008 conditions.")
    edition: Edition = Field(
        description="IEEE C57.104 edition that gates 'normal' and sets the action band: "
        "'2008' (Table 1 conditions, screen.ieee_condition) or '2019' (DGA status, ieee_2019)."
    )
    ieee_2019: DgaStatus2019 | None = Field(
        description="IEEE C57.104-2019 single-sample DGA status (Tables 1 and 2 by O2/N2 "
        "ratio and age); set only when edition is '2019'."
    )
    agreement: Agreement = Field(description="Agreement of the three ratio methods.")
    confidence: float = Field(
        ge=0,
        le=1,
        description="min(IEC, Duval boundary margins) × share of methods supporting fault_type "
        "(concentration margin for 'normal'), in [0.1, 1].",
    )
    confidence_detail: ConfidenceDetail = Field(description="Components of the confidence.")
    reasoning: str = Field(description="Short explanation built from the numbers.")
    recommended_action: str = Field(description="From the project RECOMMENDED_ACTIONS table.")
    standard: str = Field(description="Standards and editions applied.")


def _as_verdict(diagnosis: str) -> str:
    """A mapped diagnosis as a verdict: every 'not determined' spelling becomes "ND"."""
    return "ND" if diagnosis in _UNDETERMINED else diagnosis


def _agreement(iec: str, rogers: str, duval: str, fault_type: str) -> Agreement:
    mapped = (iec, ROGERS_TO_IEC[rogers], DUVAL_TO_IEC[duval])
    counts: Mapping[str, int] = {
        name: mapped.count(name) for name in set(mapped) if name not in _UNDETERMINED
    }
    best = max(counts.values(), default=0)
    consensus = next((name for name in mapped if counts.get(name, 0) >= 2), None)
    methods: tuple[MethodName, MethodName, MethodName] = ("iec", "rogers", "duval")
    if fault_type == "normal":
        supporting: list[MethodName] = []
        dissenting: dict[str, str] = {}
        factor = 1.0
        summary = "gases not significant: ratio methods not applied, agreement not scored"
    else:
        supporting = [m for m, d in zip(methods, mapped, strict=True)
                      if _as_verdict(d) == fault_type]
        dissenting = {m: d for m, d in zip(methods, mapped, strict=True) if m not in supporting}
        factor = len(supporting) / 3.0
        others = "; ".join(f"{m} says {d}" for m, d in dissenting.items())
        summary = (
            f"{' and '.join(supporting)} give {fault_type} ({len(supporting)} of 3)"
            + (f"; {others}" if others else "")
        )
    return Agreement(
        iec=mapped[0],
        rogers_as_iec=mapped[1],
        duval_as_iec=mapped[2],
        methods_agreeing=best,
        consensus=consensus,
        supporting_methods=supporting,
        dissenting=dissenting,
        agreement_factor=factor,
        summary=summary,
    )


def _fmt(value: float | None) -> str:
    return "divergent (x/0)" if value is None else f"{value:.3g}"


def interpret_dga(
    asset_name: str,
    hydrogen: float,
    methane: float,
    acetylene: float,
    ethylene: float,
    ethane: float,
    co: float | None = None,
    co2: float | None = None,
    oxygen: float | None = None,
    nitrogen: float | None = None,
    age_years: float | None = None,
    edition: Edition = "2008",
) -> DgaInterpretation:
    """Interpret a dissolved gas analysis with IEC 60599, Rogers, Duval 1 and IEEE C57.104.

    fault_type is "normal" when every measured gas is at or below its IEC 60599 typical value
    and the IEEE condition is the lowest (ratio methods only apply to significant gases):
    IEEE C57.104-2008 condition 1 with ``edition="2008"``, IEEE C57.104-2019 DGA status 1
    (Tables 1 and 2 by O2/N2 ratio and age, :func:`assets.transformer.dga_2019.dga_status_2019`)
    with ``edition="2019"``; otherwise it is the IEC 60599 Table 1 class. Confidence is
    :func:`concentration_confidence` for "normal"; otherwise
    :func:`boundary_margin` × n/3, with n the number of the three methods (IEC, Rogers mapped
    to IEC codes, Duval mapped to IEC codes) that give fault_type, undetermined answers
    (ND, UD, NA) counting as "ND". IEC itself always supports its class, so n ≥ 1: three
    agreeing methods keep the margin, two give 2/3 of it, a lone IEC class 1/3.

    Args:
        asset_name: Asset the sample was taken from.
        hydrogen: H2, ppm.
        methane: CH4, ppm.
        acetylene: C2H2, ppm.
        ethylene: C2H4, ppm.
        ethane: C2H6, ppm.
        co: CO, ppm, if measured.
        co2: CO2, ppm, if measured.
        oxygen: O2, ppm, if measured (2019 edition: picks the O2/N2 column).
        nitrogen: N2, ppm, if measured (2019 edition: picks the O2/N2 column).
        age_years: Transformer age in years, if known (2019 edition: picks the age column).
        edition: "2008" (default) or "2019": the IEEE C57.104 edition applied.

    Returns:
        The interpretation.

    Raises:
        pydantic.ValidationError: A concentration is negative, NaN or infinite.
        ValueError: An unknown edition or a negative age.
    """
    if edition not in EDITIONS:
        raise ValueError(f"unknown IEEE C57.104 edition {edition!r}; valid: {list(EDITIONS)}")
    if age_years is not None and not (math.isfinite(age_years) and age_years >= 0):
        raise ValueError(f"age_years must be a finite number >= 0, got {age_years!r}")
    sample = GasSample(
        hydrogen=hydrogen,
        methane=methane,
        ethane=ethane,
        ethylene=ethylene,
        acetylene=acetylene,
        co=co,
        co2=co2,
        oxygen=oxygen,
        nitrogen=nitrogen,
    )
    ratios = iec60599_ratios(sample)
    iec = classify_iec60599(ratios)
    codes = rogers_codes(ratios)
    rogers = classify_rogers(codes)
    duval = duval_triangle1(sample)
    screen = concentration_screen(sample)
    status_2019 = (
        dga_status_2019(_gas_values(sample), oxygen, nitrogen, age_years)
        if edition == "2019"
        else None
    )
    ieee_level = screen.ieee_condition if status_2019 is None else status_2019.status
    normal = screen.all_within_iec_typical and ieee_level == 1
    fault_type = "normal" if normal else iec
    agreement = _agreement(iec, rogers, duval.zone, fault_type)
    iec_conf = iec_confidence(ratios)
    duval_conf = duval_confidence(duval)
    if normal:
        conc_conf: float | None = (
            concentration_confidence(screen)
            if status_2019 is None
            else concentration_confidence_2019(screen, status_2019)
        )
        confidence = conc_conf
        formula = (
            "concentration margin below IEC typical / IEEE C57.104-2008 condition-1 limits"
            if status_2019 is None
            else "concentration margin below IEC typical / IEEE C57.104-2019 Table 1 values"
        )
    else:
        conc_conf = None
        confidence = min(iec_conf, duval_conf) * agreement.agreement_factor
        formula = "min(iec, duval) boundary margins × agreement (methods supporting / 3)"

    lowest = "IEEE C57.104-2008 condition 1" if status_2019 is None else (
        "IEEE C57.104-2019 DGA status 1"
    )
    gate = (
        f"all gases at or below IEC 60599 typical values and {lowest}, so the ratio "
        "methods are not applied"
        if normal
        else "gases significant, ratio methods apply"
    )
    if status_2019 is None:
        ieee_text = (
            f"{IEEE_EDITION} condition {screen.ieee_condition} (TDCG {screen.tdcg_ppm:.0f} ppm)"
        )
    else:
        ratio = status_2019.o2_n2_ratio
        above = ", ".join(status_2019.above_90th) or "no gas"
        above_95 = ", ".join(status_2019.above_95th)
        ieee_text = (
            f"IEEE C57.104-2019 DGA status {status_2019.status} (O2/N2 "
            f"{'not measured' if ratio is None else f'{ratio:.3g}'}, column "
            f"{status_2019.o2_n2_column}, age {status_2019.age_band}; {above} above Table 1"
            f"{f', {above_95} above Table 2' if above_95 else ''})"
        )
    reasoning = (
        f"C2H2/C2H4 = {_fmt(ratios.c2h2_c2h4)}, CH4/H2 = {_fmt(ratios.ch4_h2)}, "
        f"C2H4/C2H6 = {_fmt(ratios.c2h4_c2h6)} → IEC 60599 Table 1: {iec}; "
        f"Rogers codes {' '.join(map(str, codes))} → {rogers}; "
        f"Duval triangle 1: %CH4 {duval.pct_ch4:.1f}, %C2H4 {duval.pct_c2h4:.1f}, "
        f"%C2H2 {duval.pct_c2h2:.1f} → {duval.zone}; "
        f"{ieee_text}; "
        f"{gate}; {agreement.methods_agreeing} of 3 methods agree on a determined diagnosis; "
        f"{agreement.summary}."
    )
    return DgaInterpretation(
        asset_name=asset_name,
        sample=sample,
        fault_type=fault_type,
        fault_label=IEC_LABELS[fault_type],
        iec_ratio_method=IecResult(fault=iec, label=IEC_LABELS[iec], ratios=ratios),
        rogers=RogersResult(codes=list(codes), diagnosis=rogers, label=ROGERS_LABELS[rogers]),
        duval=duval,
        screen=screen,
        edition=edition,
        ieee_2019=status_2019,
        agreement=agreement,
        confidence=confidence,
        confidence_detail=ConfidenceDetail(
            iec=iec_conf,
            duval=duval_conf,
            agreement=agreement.agreement_factor,
            concentration=conc_conf,
            formula=formula,
        ),
        reasoning=reasoning,
        recommended_action=recommended_action(fault_type, ieee_level),
        standard=STANDARD,
    )
