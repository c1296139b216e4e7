"""Three-phase load profile of a transformer: apparent power, loading band, imbalance.

Units: voltages in kV (line-to-line ``vl12``, ``vl23``, ``vl31``; phase-to-neutral ``vl1``,
``vl2``, ``vl3``), currents in A. kV × A = kVA, so MVA = kV·A / 1000.

Formulas:

- Apparent power from line voltages: S = (V12·I1 + V23·I2 + V31·I3) / √3; for a balanced
  system this is √3·V_LL·I.
- Current imbalance and voltage unbalance, NEMA MG-1 definition: max |Xi − Xavg| / Xavg × 100;
  0 when every value is 0.
- Neutral current as % of the mean phase current; flagged above 10 %.

Loading bands (load factor = S / S_rated, read as current in per unit at rated voltage) follow
the IEC 60076-7 current limits of the unit's size class (:mod:`assets.transformer.size_class`:
distribution ≤ 2.5 MVA, medium ≤ 100 MVA, large above; commonly tabulated values, not quoted
from a primary copy of the standard). Callers can override them (``bands=`` of
:func:`assess_load_profile`). With normal cyclic / long-time emergency / short-time emergency
current limits a / b / c pu the bands are (load factor %):

< 20 light; ≤ 100 normal; ≤ 100·a overload (normal cyclic); ≤ 100·b long-time emergency;
≤ 100·c short-time emergency; above: beyond emergency limits.

A band whose limit equals the previous one is empty and left out: medium power
(1.5 / 1.5 / 1.8) has ≤ 150 normal cyclic, ≤ 180 short-time emergency; large power
(1.3 / 1.3 / 1.5) ≤ 130 and ≤ 150; distribution (1.5 / 1.8 / 2.0) ≤ 150, ≤ 180, ≤ 200.

The rating and size class come from the arguments, else the asset's nameplate in the store
(:mod:`assets.transformer.nameplate`); the result names the source.

Inputs are bounded to what a power transformer can show: line and phase voltages ≤ 1200 kV
(the highest AC transmission voltage), currents ≤ 200 kA, rating ≤ 3000 MVA; every number
must be a real number (no bools or numeric strings).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from assets.transformer.nameplate import NameplateFacts, Source, pick
from assets.transformer.size_class import (
    LOADING_LIMITS,
    SIZE_CLASS_SOURCE,
    SizeClass,
    size_class_of,
)
from generator.api import UserError

MAX_KV = 1200.0
MAX_AMPERES = 200_000.0
MAX_RATED_MVA = 3000.0
# Non-negative, finite and bounded: a bad value raises a ValidationError naming the field.
Kilovolts = Annotated[float, Field(ge=0, le=MAX_KV, allow_inf_nan=False, strict=True)]
Amperes = Annotated[float, Field(ge=0, le=MAX_AMPERES, allow_inf_nan=False, strict=True)]
MIN_RATED_MVA = 0.001  # 1 kVA: smaller is not a power transformer
RatedMva = Annotated[
    float, Field(ge=MIN_RATED_MVA, le=MAX_RATED_MVA, allow_inf_nan=False, strict=True)
]

NEUTRAL_FLAG_PCT = 10.0
IMBALANCE_DEFINITION = "NEMA MG-1: max deviation from mean / mean"
STANDARD = (
    "IEC 60076-7:2018 loading guide (current limits by size class: commonly tabulated values, "
    "user-overridable; size classes per IEC 60076-7:2018 clause 3); NEMA MG-1 unbalance "
    "definition (max deviation from mean / mean); S = (V12·I1 + V23·I2 + V31·I3)/√3"
)
# Relative difference between the line-voltage and phase-voltage power estimates worth a note.
CONSISTENCY_TOLERANCE = 0.05


class LoadingBand(BaseModel):
    """One loading band: load factors up to ``upper_pct`` get ``status``."""

    model_config = ConfigDict(extra="forbid")

    upper_pct: float = Field(gt=0, description="Upper bound of the band, % of rated power.")
    inclusive: bool = Field(description="True when upper_pct itself belongs to the band.")
    status: str = Field(min_length=1, description="Status reported for the band.")


BEYOND_BANDS_STATUS = "beyond emergency limits"
LIGHT_LOAD_PCT = 20.0


def loading_bands(size_class: SizeClass) -> tuple[LoadingBand, ...]:
    """Loading bands of an IEC 60076-7 size class (see the module docstring).

    Args:
        size_class: "distribution", "medium" or "large".

    Returns:
        The bands in ascending order; empty bands (a limit equal to the previous) left out.
    """
    t = LOADING_LIMITS[size_class]
    bands = [
        LoadingBand(upper_pct=LIGHT_LOAD_PCT, inclusive=False, status="light"),
        LoadingBand(upper_pct=100.0, inclusive=True, status="normal"),
    ]
    for limit_pu, status in (
        (t.current_normal_cyclic_pu, "overload (normal cyclic)"),
        (t.current_long_time_emergency_pu, "long-time emergency"),
        (t.current_short_time_emergency_pu, "short-time emergency"),
    ):
        upper = round(limit_pu * 100.0, 9)
        if upper > bands[-1].upper_pct:
            bands.append(LoadingBand(upper_pct=upper, inclusive=True, status=status))
    return tuple(bands)


# The bands of the medium power class (the default size class of the tools).
DEFAULT_LOADING_BANDS: tuple[LoadingBand, ...] = loading_bands("medium")


class PhaseCurrents(BaseModel):
    """Three phase currents, A."""

    model_config = ConfigDict(extra="forbid")

    il1: Amperes = Field(description="Phase 1 current, A, in [0, 200000].")
    il2: Amperes = Field(description="Phase 2 current, A, in [0, 200000].")
    il3: Amperes = Field(description="Phase 3 current, A, in [0, 200000].")


class LinePowerInputs(PhaseCurrents):
    """Line voltages and phase currents for the apparent power."""

    vl12: Kilovolts = Field(description="Line voltage 1-2, kV, in [0, 1200].")
    vl23: Kilovolts = Field(description="Line voltage 2-3, kV, in [0, 1200].")
    vl31: Kilovolts = Field(description="Line voltage 3-1, kV, in [0, 1200].")


class LoadInputs(LinePowerInputs):
    """Inputs of :func:`assess_load_profile`."""

    asset_name: str = Field(min_length=1, description="Asset the readings belong to.")
    vl1: Kilovolts = Field(description="Phase-to-neutral voltage 1, kV, in [0, 1200].")
    vl2: Kilovolts = Field(description="Phase-to-neutral voltage 2, kV, in [0, 1200].")
    vl3: Kilovolts = Field(description="Phase-to-neutral voltage 3, kV, in [0, 1200].")
    inut: Amperes = Field(description="Neutral current, A, in [0, 200000].")
    rated_mva: RatedMva | None = Field(
        default=None,
        description="Rated power, MVA, in [0.001, 3000]. Omit to read it from the asset's "
        "nameplate.",
    )
    size_class: SizeClass | None = Field(
        default=None,
        description="IEC 60076-7 size class whose current limits give the loading bands: "
        "'distribution' (≤ 2.5 MVA), 'medium' (≤ 100 MVA) or 'large'. Omit to derive it from "
        "the rated power.",
    )


class LoadAssessment(BaseModel):
    """Result of :func:`assess_load_profile`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the readings belong to.")
    load_mva: float = Field(description="S = (V12·I1 + V23·I2 + V31·I3)/√3, MVA.")
    load_mva_phase_voltages: float = Field(
        description="Cross-check S = V1·I1 + V2·I2 + V3·I3 from phase voltages, MVA."
    )
    rated_mva: float = Field(description="Rated power, MVA.")
    rated_mva_source: Source = Field(description="'argument' or 'nameplate'.")
    size_class: SizeClass = Field(description="IEC 60076-7 size class of the loading bands.")
    size_class_source: Source = Field(
        description="'argument', or 'nameplate' when derived from the rated power in use "
        "(argument or nameplate rating)."
    )
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
    rated_mva: float | None = None,
    *,
    size_class: SizeClass | None = None,
    nameplate: NameplateFacts | None = None,
    bands: Sequence[LoadingBand] | None = None,
) -> LoadAssessment:
    """Assess one three-phase reading: load, loading band, imbalance, neutral current.

    Bands (load factor %) follow the size class's IEC 60076-7 current limits (module
    docstring), e.g. medium power: < 20 light; ≤ 100 normal; ≤ 150 overload (normal cyclic);
    ≤ 180 short-time emergency; above: beyond emergency limits. Pass ``bands`` to override.
    The size class is the argument, else the class of the rated power (argument, else
    nameplate).

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
        rated_mva: Rated power, MVA, in [0.001, 3000]; None = the nameplate's.
        size_class: IEC 60076-7 size class; None = from the rated power.
        nameplate: Facts read from the asset's nameplate, if any.
        bands: Loading bands in ascending order; None = those of the size class.

    Returns:
        The assessment.

    Raises:
        pydantic.ValidationError: An input is missing, negative, NaN, infinite or beyond
            its bound, or rated_mva is not > 0.
        UserError: rated_mva is neither given nor on the nameplate.
    """
    facts = nameplate or NameplateFacts(asset_id=asset_name, found=False)
    if rated_mva is None and facts.rated_mva is None:
        where = "has no rating on its nameplate" if facts.found else "has no nameplate here"
        raise UserError(
            f"assess_load_profile: rated_mva not given and asset {asset_name!r} {where}",
            fix="pass rated_mva (MVA), or name an asset seeded in the store",
        )
    rated, rated_source = pick(rated_mva, facts.rated_mva, 0.0)
    size_used: SizeClass
    if size_class is not None:
        size_used, size_source = size_class, "argument"
    else:
        size_used = size_class_of(rated)
        size_source = "nameplate" if rated_source == "nameplate" else "argument"
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
        rated_mva=rated,
        size_class=size_used,
    )
    rated = p.rated_mva if p.rated_mva is not None else rated
    chosen = bands if bands is not None else loading_bands(size_used)
    ordered = sorted(chosen, key=lambda b: (b.upper_pct, not b.inclusive))
    load = _line_power_mva(p)
    load_phase = (p.vl1 * p.il1 + p.vl2 * p.il2 + p.vl3 * p.il3) / 1000.0
    load_factor = load / rated * 100.0
    status = loading_status(load_factor, ordered)
    currents = (p.il1, p.il2, p.il3)
    mean_current = sum(currents) / 3.0
    notes: list[str] = []

    neutral_pct: float | None = None
    share = p.inut / mean_current * 100.0 if mean_current > 0 else math.inf
    if math.isfinite(share):
        neutral_pct = share
        neutral_flag = neutral_pct > NEUTRAL_FLAG_PCT
    else:
        # No phase current, or one so small (subnormal) that the share overflows a float.
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
        notes.append(f"Loaded above nameplate ({load_factor:.1f} % of {rated:g} MVA).")
    notes.append(
        f"Loading bands of a {size_used} power transformer ({size_source}); size classes: "
        f"{SIZE_CLASS_SOURCE}."
    )
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
        rated_mva=rated,
        rated_mva_source=rated_source,
        size_class=size_used,
        size_class_source=size_source,
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
