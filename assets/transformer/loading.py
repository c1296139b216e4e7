"""Three-phase load profile of a transformer: apparent power, loading band, imbalance.

Units: voltages in kV (line-to-line ``vl12``, ``vl23``, ``vl31``; phase-to-neutral ``vl1``,
``vl2``, ``vl3``), currents in A. kV × A = kVA, so MVA = kV·A / 1000.

Formulas:

- Apparent power from line voltages: S = (V12·I1 + V23·I2 + V31·I3) / √3; for a balanced
  system this is √3·V_LL·I.
- Current imbalance and voltage unbalance, NEMA MG-1 definition: max |Xi − Xavg| / Xavg × 100;
  0 when every value is 0.
- Neutral current as % of the mean phase current; flagged above 10 %.

Loading bands (load factor = S / S_rated) are commonly tabulated values of the IEC 60076-7
loading guide, not quoted from a primary copy of the standard; callers can override them
(``bands=`` of :func:`assess_load_profile`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# Non-negative and finite: negative, NaN and inf raise a ValidationError naming the field.
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]

NEUTRAL_FLAG_PCT = 10.0
IMBALANCE_DEFINITION = "NEMA MG-1: max deviation from mean / mean"
STANDARD = (
    "IEC 60076-7:2018 loading guide (loading bands: commonly tabulated values, "
    "user-overridable); NEMA MG-1 unbalance definition (max deviation from mean / mean); "
    "S = (V12·I1 + V23·I2 + V31·I3)/√3"
)
# Relative difference between the line-voltage and phase-voltage power estimates worth a note.
CONSISTENCY_TOLERANCE = 0.05


class LoadingBand(BaseModel):
    """One loading band: load factors up to ``upper_pct`` get ``status``."""

    model_config = ConfigDict(extra="forbid")

    upper_pct: float = Field(gt=0, description="Upper bound of the band, % of rated power.")
    inclusive: bool = Field(description="True when upper_pct itself belongs to the band.")
    status: str = Field(min_length=1, description="Status reported for the band.")


# Commonly tabulated IEC 60076-7 values (check against the edition and size class in use).
DEFAULT_LOADING_BANDS: tuple[LoadingBand, ...] = (
    LoadingBand(upper_pct=20.0, inclusive=False, status="light"),
    LoadingBand(upper_pct=100.0, inclusive=True, status="normal"),
    LoadingBand(upper_pct=130.0, inclusive=True, status="overload (normal cyclic)"),
    LoadingBand(upper_pct=150.0, inclusive=True, status="long-time emergency"),
)
BEYOND_BANDS_STATUS = "beyond emergency limits"


class PhaseCurrents(BaseModel):
    """Three phase currents, A."""

    model_config = ConfigDict(extra="forbid")

    il1: NonNegative = Field(description="Phase 1 current, A.")
    il2: NonNegative = Field(description="Phase 2 current, A.")
    il3: NonNegative = Field(description="Phase 3 current, A.")


class LinePowerInputs(PhaseCurrents):
    """Line voltages and phase currents for the apparent power."""

    vl12: NonNegative = Field(description="Line voltage 1-2, kV.")
    vl23: NonNegative = Field(description="Line voltage 2-3, kV.")
    vl31: NonNegative = Field(description="Line voltage 3-1, kV.")


class LoadInputs(LinePowerInputs):
    """Inputs of :func:`assess_load_profile`."""

    asset_name: str = Field(min_length=1, description="Asset the readings belong to.")
    vl1: NonNegative = Field(description="Phase-to-neutral voltage 1, kV.")
    vl2: NonNegative = Field(description="Phase-to-neutral voltage 2, kV.")
    vl3: NonNegative = Field(description="Phase-to-neutral voltage 3, kV.")
    inut: NonNegative = Field(description="Neutral current, A.")
    rated_mva: float = Field(gt=0, allow_inf_nan=False, description="Rated power, MVA.")


class LoadAssessment(BaseModel):
    """Result of :func:`assess_load_profile`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the readings belong to.")
    load_mva: float = Field(description="S = (V12·I1 + V23·I2 + V31·I3)/√3, MVA.")
    load_mva_phase_voltages: float = Field(
        description="Cross-check S = V1·I1 + V2·I2 + V3·I3 from phase voltages, MVA."
    )
    rated_mva: float = Field(description="Rated power, MVA.")
    load_factor_pct: float = Field(description="load_mva / rated_mva × 100.")
    loading_status: str = Field(description="Band of the load factor (see loading_bands).")
    loading_bands: list[LoadingBand] = Field(description="Bands used, in ascending order.")
    current_imbalance_pct: float = Field(description="Phase current imbalance, %.")
    imbalance_definition: str = Field(description="Definition used for imbalance/unbalance.")
    neutral_current_pct: float | None = Field(
        description="Neutral current as % of mean phase current; None when that mean is 0."
    )
    neutral_flag: bool = Field(
        description="Neutral current above 10 % of the mean phase current (or any neutral "
        "current with no phase current)."
    )
    voltage_unbalance_pct: float = Field(description="Line voltage unbalance (NEMA), %.")
    notes: list[str] = Field(description="Observations and consistency checks.")
    standard: str = Field(description="Standards and definitions applied.")


def _nema_deviation_pct(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    if mean <= 0:
        return 0.0
    return max(abs(v - mean) for v in values) / mean * 100.0


def _line_power_mva(p: LinePowerInputs) -> float:
    return (p.vl12 * p.il1 + p.vl23 * p.il2 + p.vl31 * p.il3) / math.sqrt(3) / 1000.0


def apparent_power_mva(
    vl12: float, vl23: float, vl31: float, il1: float, il2: float, il3: float
) -> float:
    """Three-phase apparent power from line voltages and phase currents.

    S = (V12·I1 + V23·I2 + V31·I3) / √3, with voltages in kV and currents in A (kVA), divided
    by 1000 for MVA.

    Args:
        vl12: Line voltage 1-2, kV.
        vl23: Line voltage 2-3, kV.
        vl31: Line voltage 3-1, kV.
        il1: Phase 1 current, A.
        il2: Phase 2 current, A.
        il3: Phase 3 current, A.

    Returns:
        Apparent power, MVA.

    Raises:
        pydantic.ValidationError: An input is negative, NaN or infinite.
    """
    p = LinePowerInputs(vl12=vl12, vl23=vl23, vl31=vl31, il1=il1, il2=il2, il3=il3)
    return _line_power_mva(p)


def current_imbalance_pct(il1: float, il2: float, il3: float) -> float:
    """Current imbalance, NEMA definition: max |Ii − Iavg| / Iavg × 100.

    Args:
        il1: Phase 1 current, A.
        il2: Phase 2 current, A.
        il3: Phase 3 current, A.

    Returns:
        Imbalance in %; 0 when all currents are 0.

    Raises:
        pydantic.ValidationError: An input is negative, NaN or infinite.
    """
    p = PhaseCurrents(il1=il1, il2=il2, il3=il3)
    return _nema_deviation_pct((p.il1, p.il2, p.il3))


def loading_status(load_factor_pct: float, bands: Sequence[LoadingBand]) -> str:
    """Band of a load factor.

    Args:
        load_factor_pct: S / S_rated × 100.
        bands: Bands in ascending order of upper_pct.

    Returns:
        The status of the first band containing the load factor, else
        "beyond emergency limits".
    """
    for band in bands:
        if load_factor_pct < band.upper_pct or (
            band.inclusive and load_factor_pct == band.upper_pct
        ):
            return band.status
    return BEYOND_BANDS_STATUS


def assess_load_profile(
    asset_name: str,
    vl1: float,
    vl2: float,
    vl3: float,
    il1: float,
    il2: float,
    il3: float,
    vl12: float,
    vl23: float,
    vl31: float,
    inut: float,
    rated_mva: float,
    *,
    bands: Sequence[LoadingBand] = DEFAULT_LOADING_BANDS,
) -> LoadAssessment:
    """Assess one three-phase reading: load, loading band, imbalance, neutral current.

    Default bands (load factor %): < 20 light; ≤ 100 normal; ≤ 130 overload (normal cyclic);
    ≤ 150 long-time emergency; above: beyond emergency limits. Commonly tabulated IEC 60076-7
    values; pass ``bands`` to override.

    Args:
        asset_name: Asset the readings belong to.
        vl1: Phase-to-neutral voltage 1, kV.
        vl2: Phase-to-neutral voltage 2, kV.
        vl3: Phase-to-neutral voltage 3, kV.
        il1: Phase 1 current, A.
        il2: Phase 2 current, A.
        il3: Phase 3 current, A.
        vl12: Line voltage 1-2, kV.
        vl23: Line voltage 2-3, kV.
        vl31: Line voltage 3-1, kV.
        inut: Neutral current, A.
        rated_mva: Rated power, MVA (> 0).
        bands: Loading bands in ascending order.

    Returns:
        The assessment.

    Raises:
        pydantic.ValidationError: An input is missing, negative, NaN or infinite, or
            rated_mva is not > 0.
    """
    p = LoadInputs(
        asset_name=asset_name,
        vl1=vl1,
        vl2=vl2,
        vl3=vl3,
        il1=il1,
        il2=il2,
        il3=il3,
        vl12=vl12,
        vl23=vl23,
        vl31=vl31,
        inut=inut,
        rated_mva=rated_mva,
    )
    ordered = sorted(bands, key=lambda b: (b.upper_pct, not b.inclusive))
    load = _line_power_mva(p)
    load_phase = (p.vl1 * p.il1 + p.vl2 * p.il2 + p.vl3 * p.il3) / 1000.0
    load_factor = load / p.rated_mva * 100.0
    status = loading_status(load_factor, ordered)
    currents = (p.il1, p.il2, p.il3)
    mean_current = sum(currents) / 3.0
    notes: list[str] = []

    neutral_pct: float | None = None
    if mean_current > 0:
        neutral_pct = p.inut / mean_current * 100.0
        neutral_flag = neutral_pct > NEUTRAL_FLAG_PCT
    else:
        neutral_flag = p.inut > 0
        notes.append("No phase current: neutral current % of mean phase current undefined.")
    if neutral_flag:
        notes.append(
            f"Neutral current {p.inut:g} A exceeds {NEUTRAL_FLAG_PCT:g} % of the mean phase "
            f"current {mean_current:.4g} A: check for unbalanced single-phase load or harmonics."
        )
    if load == 0:
        notes.append("No load.")
    if load_factor > 100.0:
        notes.append(f"Loaded above nameplate ({load_factor:.1f} % of {p.rated_mva:g} MVA).")
    reference = max(load, load_phase)
    if reference > 0 and abs(load - load_phase) / reference > CONSISTENCY_TOLERANCE:
        notes.append(
            f"Line-voltage power {load:.4g} MVA and phase-voltage power {load_phase:.4g} MVA "
            f"differ by more than {CONSISTENCY_TOLERANCE:.0%}: check voltage readings."
        )

    return LoadAssessment(
        asset_name=p.asset_name,
        load_mva=load,
        load_mva_phase_voltages=load_phase,
        rated_mva=p.rated_mva,
        load_factor_pct=load_factor,
        loading_status=status,
        loading_bands=list(ordered),
        current_imbalance_pct=_nema_deviation_pct(currents),
        imbalance_definition=IMBALANCE_DEFINITION,
        neutral_current_pct=neutral_pct,
        neutral_flag=neutral_flag,
        voltage_unbalance_pct=_nema_deviation_pct((p.vl12, p.vl23, p.vl31)),
        notes=notes,
        standard=STANDARD,
    )
