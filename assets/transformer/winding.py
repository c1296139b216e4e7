"""Winding (hot-spot) temperature assessment and thin thermal-model wrappers.

Standards and editions:

- IEC 60076-7:2018 clause 6.3 relative ageing rate: Kraft (non-thermally-upgraded) paper
  V = 2^((θh − 98)/6) (V = 1 at 98 °C); thermally upgraded paper
  V = exp(15000/(110 + 273) − 15000/(θh + 273)) (V = 1 at 110 °C). Computed by
  :func:`assets.transformer.thermal.ageing_rate`.
- IEC 60076-7:2018 loading limits (the "loading beyond nameplate" table) by size class
  (:mod:`assets.transformer.size_class`). The values are the commonly tabulated ones; they
  were not checked against a primary copy and every caller may override them
  (:class:`ThermalLimits`). Medium and large power units:

  | status                               | hot spot θh (°C)          | top oil θo (°C) |
  |--------------------------------------|---------------------------|-----------------|
  | normal                               | ≤ 98 Kraft / ≤ 110 upgr.  | ≤ 105           |
  | accelerated ageing                   | ≤ 120                     | ≤ 105           |
  | normal cyclic limit exceeded         | > 120                     | > 105           |
  | long-time emergency limit exceeded   | > 140                     | > 115           |
  | short-time emergency limit exceeded  | > 160                     | (no separate)   |

  Distribution units have the same limits but no separate short-time emergency hot spot, so
  above 140 °C they stay "long-time emergency limit exceeded". The status is the more severe
  of the hot-spot and top-oil classifications. Upper bounds are inclusive ("≤"), limits are
  exceeded when strictly above.
- Paper, size class and cooling class come from the argument, else the asset's nameplate in
  the store, else a documented default (:mod:`assets.transformer.nameplate`); each result
  says which source was used.
- IEC 60076-7:2018 loss of life over a load series (``compute_loss_of_life``): the annex's
  difference equations crossed in model steps of at most 1 min, L = Σ V·Dt over those steps
  (:func:`assets.transformer.thermal.integrate`); hot spots are reported at each data step's
  end, the loss of life is not their rate times the data step.
- IEEE C57.91-2011 clause 7: F_AA = exp(15000/383 − 15000/(θH + 273)),
  F_EQA = Σ F_AA·Δt / Σ Δt, normal insulation life 180 000 h
  (:func:`assets.transformer.thermal.equivalent_ageing_factor`).

The winding temperature indicator (WTI) is a thermal image of the hot spot (top-oil bulb
plus a heater fed from a CT), so its reading is taken as the hot-spot temperature θh.
Alarm/trip settings default to the project simulator's (OTI 90/100 °C, WTI 110/130 °C); a
setting is reached when the reading is ≥ the setting (the same convention as the simulator).
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from assets.transformer.nameplate import (
    DEFAULT_COOLING,
    DEFAULT_PAPER,
    DEFAULT_SIZE_CLASS,
    NameplateFacts,
    Source,
    pick,
)
from assets.transformer.simulator import THRESHOLDS
from assets.transformer.size_class import LOADING_LIMITS, SizeClass
from assets.transformer.thermal import (
    COOLING,
    NORMAL_INSULATION_LIFE_H,
    CoolingClass,
    Paper,
    ThermalCharacteristics,
    ageing_rate,
    equivalent_ageing_factor,
    integrate,
    steady_state,
)

# Temperatures may be negative (winter ambient) but must be real numbers (no bools or numeric
# strings), finite and within [-60, 300] °C: outside that range a reading is a sensor fault.
MIN_CELSIUS, MAX_CELSIUS = -60.0, 300.0
Celsius = Annotated[
    float, Field(ge=MIN_CELSIUS, le=MAX_CELSIUS, allow_inf_nan=False, strict=True)
]
# Ambient air: the record extremes on Earth lie within [-60, 60] °C.
AmbientC = Annotated[float, Field(ge=-60, le=60, allow_inf_nan=False, strict=True)]
# A contact state is the integer 0 or 1 (strict: true/false and "1" are rejected).
Contact = Annotated[int, Field(ge=0, le=1, strict=True)]

STANDARD_WINDING = (
    "IEC 60076-7:2018 clause 6.3 relative ageing rate; IEC 60076-7:2018 loading limits "
    "by size class (commonly tabulated values, user-overridable)"
)
STANDARD_THERMAL = (
    "IEC 60076-7:2018 clauses 6-8 thermal model (commonly tabulated Table 4 characteristics, "
    "user-overridable) and clause 6.3 relative ageing / loss of life (a load series: the "
    "annex's difference equations in 1-minute model steps, L = Σ V·Dt over those steps)"
)
STANDARD_EQA = "IEEE C57.91-2011 clause 7 (F_AA, F_EQA, normal insulation life 180 000 h)"

ThermalStatus = Literal[
    "normal",
    "accelerated ageing",
    "normal cyclic limit exceeded",
    "long-time emergency limit exceeded",
    "short-time emergency limit exceeded",
]
STATUS_ORDER: tuple[ThermalStatus, ...] = (
    "normal",
    "accelerated ageing",
    "normal cyclic limit exceeded",
    "long-time emergency limit exceeded",
    "short-time emergency limit exceeded",
)
RiskLevel = Literal["low", "medium", "high", "critical"]
RISK_ORDER: tuple[RiskLevel, ...] = ("low", "medium", "high", "critical")
STATUS_RISK: dict[str, RiskLevel] = {
    "normal": "low",
    "accelerated ageing": "medium",
    "normal cyclic limit exceeded": "high",
    "long-time emergency limit exceeded": "critical",
    "short-time emergency limit exceeded": "critical",
}
# Reference hot spot at which V = 1, per paper.
REFERENCE_HOT_SPOT_C: dict[str, float] = {"kraft": 98.0, "upgraded": 110.0}


class ThermalLimits(BaseModel):
    """Loading limits (commonly tabulated IEC 60076-7 values; defaults: medium power)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hot_spot_normal_cyclic_c: float = Field(
        default=120.0, gt=0, allow_inf_nan=False, description="Normal cyclic hot-spot limit, °C."
    )
    hot_spot_long_time_emergency_c: float = Field(
        default=140.0,
        gt=0,
        allow_inf_nan=False,
        description="Long-time emergency hot-spot limit, °C.",
    )
    hot_spot_short_time_emergency_c: float | None = Field(
        default=160.0,
        gt=0,
        allow_inf_nan=False,
        description="Short-time emergency hot-spot limit, °C; None when the size class has "
        "no separate limit (distribution).",
    )
    top_oil_normal_cyclic_c: float = Field(
        default=105.0, gt=0, allow_inf_nan=False, description="Normal cyclic top-oil limit, °C."
    )
    top_oil_emergency_c: float = Field(
        default=115.0,
        gt=0,
        allow_inf_nan=False,
        description="Long- and short-time emergency top-oil limit, °C.",
    )


DEFAULT_LIMITS = ThermalLimits()


def thermal_limits(size_class: SizeClass) -> ThermalLimits:
    """Hot-spot and top-oil limits of an IEC 60076-7 size class (:mod:`.size_class` table)."""
    t = LOADING_LIMITS[size_class]
    return ThermalLimits(
        hot_spot_normal_cyclic_c=t.hot_spot_normal_cyclic_c,
        hot_spot_long_time_emergency_c=t.hot_spot_long_time_emergency_c,
        hot_spot_short_time_emergency_c=t.hot_spot_short_time_emergency_c,
        top_oil_normal_cyclic_c=t.top_oil_normal_cyclic_c,
        top_oil_emergency_c=t.top_oil_emergency_c,
    )


# ---------------------------------------------------------------------------------------------
# Winding temperature assessment
# ---------------------------------------------------------------------------------------------


class WindingInputs(BaseModel):
    """Inputs of :func:`assess_winding_temperature`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(min_length=1, description="Asset the readings belong to.")
    wti: Celsius = Field(description="Winding temperature indicator (hot-spot image), °C.")
    oti: Celsius = Field(description="Top-oil temperature indicator, °C.")
    ati: AmbientC = Field(description="Ambient temperature, °C, in [-60, 60].")
    oti_a: Contact | None = Field(
        default=None, description="OTI alarm contact state: 1 = alarm, 0 = not; None if unknown."
    )
    oti_t: Contact | None = Field(
        default=None, description="OTI trip contact state: 1 = trip, 0 = not; None if unknown."
    )
    paper: Paper | None = Field(
        default=None,
        description="Insulation paper: 'kraft' or 'upgraded' (thermally upgraded). Omit to read "
        "it from the asset's nameplate (default 'kraft' when the store has no nameplate).",
    )
    size_class: SizeClass | None = Field(
        default=None,
        description="IEC 60076-7 size class: 'distribution' (≤ 2.5 MVA), 'medium' (≤ 100 MVA) or "
        "'large'. Omit to derive it from the nameplate rating (default 'medium').",
    )
    cooling: CoolingClass | None = Field(
        default=None,
        description="Cooling class (ONAN_distribution, ONAN, ONAF, OF, OD); recorded in the "
        "result, does not change the assessment (the WTI reading is the hot spot). Omit to "
        "report the nameplate's when the nameplate is read.",
    )
    wti_alarm: Celsius = Field(default=THRESHOLDS["wti_alarm"], description="WTI alarm, °C.")
    wti_trip: Celsius = Field(default=THRESHOLDS["wti_trip"], description="WTI trip, °C.")
    oti_alarm: Celsius = Field(default=THRESHOLDS["oti_alarm"], description="OTI alarm, °C.")
    oti_trip: Celsius = Field(default=THRESHOLDS["oti_trip"], description="OTI trip, °C.")

    @model_validator(mode="after")
    def _alarm_below_trip(self) -> WindingInputs:
        if self.wti_alarm > self.wti_trip:
            raise ValueError("wti_alarm must not exceed wti_trip")
        if self.oti_alarm > self.oti_trip:
            raise ValueError("oti_alarm must not exceed oti_trip")
        return self


class AlarmInterpretation(BaseModel):
    """Alarm and trip state from the settings and from the OTI contacts."""

    model_config = ConfigDict(extra="forbid")

    wti_alarm_by_setting: bool = Field(description="wti ≥ wti_alarm.")
    wti_trip_by_setting: bool = Field(description="wti ≥ wti_trip.")
    oti_alarm_by_setting: bool = Field(description="oti ≥ oti_alarm.")
    oti_trip_by_setting: bool = Field(description="oti ≥ oti_trip.")
    oti_alarm_contact: int | None = Field(description="OTI alarm contact as given (0/1/None).")
    oti_trip_contact: int | None = Field(description="OTI trip contact as given (0/1/None).")
    state: Literal["normal", "alarm", "trip"] = Field(
        description="Worst of the settings comparison and the contacts."
    )
    inconsistencies: list[str] = Field(
        description="Contact states that disagree with the settings comparison, or a trip "
        "contact without the alarm contact."
    )


class WindingAssessment(BaseModel):
    """Result of :func:`assess_winding_temperature`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the readings belong to.")
    hot_spot_c: float = Field(description="Hot-spot temperature θh = WTI reading, °C.")
    top_oil_c: float = Field(description="Top-oil temperature θo = OTI reading, °C.")
    ambient_c: float = Field(description="Ambient temperature θa = ATI reading, °C.")
    top_oil_rise_k: float = Field(description="Top-oil rise over ambient, oti − ati, K.")
    hot_spot_rise_over_top_oil_k: float = Field(description="Hot-spot gradient, wti − oti, K.")
    paper: Paper = Field(description="Insulation paper used for the ageing rate.")
    paper_source: Source = Field(
        description="Where paper came from: 'argument', 'nameplate' or 'default' (kraft)."
    )
    size_class: SizeClass = Field(description="IEC 60076-7 size class whose limits were used.")
    size_class_source: Source = Field(
        description="Where size_class came from: 'argument', 'nameplate' (rated_mva) or "
        "'default' (medium)."
    )
    cooling: CoolingClass | None = Field(
        description="Cooling class of the unit (informational); None when neither given nor read."
    )
    relative_ageing_rate: float = Field(
        description="IEC 60076-7 relative ageing rate V (1 at 98 °C Kraft / 110 °C upgraded)."
    )
    thermal_status: ThermalStatus = Field(
        description="Band of the loading-limit table (worse of hot spot and top oil)."
    )
    limits: ThermalLimits = Field(description="Loading limits used.")
    alarms: AlarmInterpretation = Field(description="Alarm/trip interpretation.")
    risk_level: RiskLevel = Field(description="Worse of the thermal status and alarm state.")
    warnings: list[str] = Field(description="Physical-consistency warnings.")
    reasoning: str = Field(description="The numbers behind the verdict.")
    standard: str = Field(description="Standards and editions applied.")


def thermal_status(
    hot_spot_c: float,
    top_oil_c: float,
    paper: Paper = "kraft",
    limits: ThermalLimits = DEFAULT_LIMITS,
) -> ThermalStatus:
    """Band of the IEC 60076-7 loading-limit table (see the module docstring).

    Args:
        hot_spot_c: Hot-spot temperature, °C.
        top_oil_c: Top-oil temperature, °C.
        paper: "kraft" (normal up to 98 °C) or "upgraded" (normal up to 110 °C).
        limits: Loading limits.

    Returns:
        The more severe of the hot-spot and top-oil bands.
    """
    short_time = limits.hot_spot_short_time_emergency_c
    if short_time is not None and hot_spot_c > short_time:
        hs = 4
    elif hot_spot_c > limits.hot_spot_long_time_emergency_c:
        hs = 3
    elif hot_spot_c > limits.hot_spot_normal_cyclic_c:
        hs = 2
    elif hot_spot_c > REFERENCE_HOT_SPOT_C[paper]:
        hs = 1
    else:
        hs = 0
    if top_oil_c > limits.top_oil_emergency_c:
        to = 3
    elif top_oil_c > limits.top_oil_normal_cyclic_c:
        to = 2
    else:
        to = 0
    return STATUS_ORDER[max(hs, to)]


def _interpret_alarms(p: WindingInputs) -> AlarmInterpretation:
    wa, wt = p.wti >= p.wti_alarm, p.wti >= p.wti_trip
    oa, ot = p.oti >= p.oti_alarm, p.oti >= p.oti_trip
    issues: list[str] = []
    if p.oti_a == 1 and not oa:
        issues.append(
            f"OTI alarm contact is 1 but oti {p.oti:g} °C < alarm setting {p.oti_alarm:g} °C: "
            "check the contact wiring or the indicator calibration."
        )
    if p.oti_a == 0 and oa:
        issues.append(
            f"oti {p.oti:g} °C ≥ alarm setting {p.oti_alarm:g} °C but the OTI alarm contact "
            "is 0: the alarm contact may have failed."
        )
    if p.oti_t == 1 and not ot:
        issues.append(
            f"OTI trip contact is 1 but oti {p.oti:g} °C < trip setting {p.oti_trip:g} °C: "
            "possible spurious trip; check the contact and the indicator."
        )
    if p.oti_t == 0 and ot:
        issues.append(
            f"oti {p.oti:g} °C ≥ trip setting {p.oti_trip:g} °C but the OTI trip contact is 0: "
            "the trip contact may have failed."
        )
    if p.oti_t == 1 and p.oti_a == 0:
        issues.append("OTI trip contact is 1 while the alarm contact is 0: alarm stage skipped.")
    trip = wt or ot or p.oti_t == 1
    alarm = wa or oa or p.oti_a == 1
    state: Literal["normal", "alarm", "trip"] = "trip" if trip else "alarm" if alarm else "normal"
    return AlarmInterpretation(
        wti_alarm_by_setting=wa,
        wti_trip_by_setting=wt,
        oti_alarm_by_setting=oa,
        oti_trip_by_setting=ot,
        oti_alarm_contact=p.oti_a,
        oti_trip_contact=p.oti_t,
        state=state,
        inconsistencies=issues,
    )


def assess_winding_temperature(
    asset_name: str,
    wti: float,
    oti: float,
    ati: float,
    oti_a: int | None = None,
    oti_t: int | None = None,
    paper: Paper | None = None,
    wti_alarm: float = THRESHOLDS["wti_alarm"],
    wti_trip: float = THRESHOLDS["wti_trip"],
    oti_alarm: float = THRESHOLDS["oti_alarm"],
    oti_trip: float = THRESHOLDS["oti_trip"],
    *,
    size_class: SizeClass | None = None,
    cooling: CoolingClass | None = None,
    nameplate: NameplateFacts | None = None,
    limits: ThermalLimits | None = None,
) -> WindingAssessment:
    """Assess one WTI/OTI/ATI reading: hot spot, ageing rate, loading band, alarms.

    The WTI reading is taken as the hot spot θh. Risk level: the thermal status maps to
    low (normal), medium (accelerated ageing), high (normal cyclic limit exceeded), critical
    (an emergency limit exceeded); an alarm raises it to at least high, a trip to critical.
    Paper, size class and cooling: the argument, else ``nameplate``, else the defaults of
    :mod:`assets.transformer.nameplate` (kraft, medium); the result names the source.

    Args:
        asset_name: Asset the readings belong to.
        wti: Winding temperature indicator, °C, in [-60, 300].
        oti: Top-oil temperature indicator, °C, in [-60, 300].
        ati: Ambient temperature, °C, in [-60, 60].
        oti_a: OTI alarm contact state (1 = alarm, 0 = not), None when not read.
        oti_t: OTI trip contact state (1 = trip, 0 = not), None when not read.
        paper: "kraft" or "upgraded" insulation paper; None = nameplate, else "kraft".
        wti_alarm: WTI alarm setting, °C.
        wti_trip: WTI trip setting, °C.
        oti_alarm: OTI alarm setting, °C.
        oti_trip: OTI trip setting, °C.
        size_class: IEC 60076-7 size class; None = from the nameplate rating, else "medium".
        cooling: Cooling class (informational); None = the nameplate's, if read.
        nameplate: Facts read from the asset's nameplate, if any.
        limits: Loading limits; None = the commonly tabulated ones of the size class.

    Returns:
        The assessment.

    Raises:
        pydantic.ValidationError: A temperature is NaN, infinite or outside [-60, 300], a
            contact is not 0/1, or an alarm setting exceeds its trip setting.
    """
    facts = nameplate or NameplateFacts(asset_id=asset_name, found=False)
    paper_used, paper_source = pick(paper, facts.paper, DEFAULT_PAPER)
    size_used, size_source = pick(size_class, facts.size_class, DEFAULT_SIZE_CLASS)
    cooling_used = cooling if cooling is not None else facts.cooling
    limits_used = limits if limits is not None else thermal_limits(size_used)
    p = WindingInputs(
        asset_name=asset_name,
        wti=wti,
        oti=oti,
        ati=ati,
        oti_a=oti_a,
        oti_t=oti_t,
        paper=paper_used,
        size_class=size_used,
        cooling=cooling_used,
        wti_alarm=wti_alarm,
        wti_trip=wti_trip,
        oti_alarm=oti_alarm,
        oti_trip=oti_trip,
    )
    paper_used = p.paper or DEFAULT_PAPER
    v = float(ageing_rate(p.wti, paper_used))
    status = thermal_status(p.wti, p.oti, paper_used, limits_used)
    alarms = _interpret_alarms(p)
    risk_idx = RISK_ORDER.index(STATUS_RISK[status])
    if alarms.state == "trip":
        risk_idx = 3
    elif alarms.state == "alarm":
        risk_idx = max(risk_idx, 2)
    warnings: list[str] = []
    if p.wti < p.oti:
        warnings.append(
            f"wti {p.wti:g} °C < oti {p.oti:g} °C: a loaded winding reads above top oil; "
            "check the WTI heater/CT circuit or the sensors (ignore if de-energised)."
        )
    if p.oti < p.ati:
        warnings.append(
            f"oti {p.oti:g} °C < ati {p.ati:g} °C: top oil of a loaded unit is above ambient; "
            "check the sensors (ignore if de-energised)."
        )
    reasoning = (
        f"θh = WTI = {p.wti:g} °C, θo = OTI = {p.oti:g} °C, θa = {p.ati:g} °C; "
        f"top-oil rise {p.oti - p.ati:g} K, hot-spot gradient {p.wti - p.oti:g} K; "
        f"V ({paper_used} paper, from {paper_source}) = {v:.4g}; loading band "
        f"({size_used} power limits, from {size_source}): {status}; "
        f"alarm state: {alarms.state}."
    )
    return WindingAssessment(
        asset_name=p.asset_name,
        hot_spot_c=p.wti,
        top_oil_c=p.oti,
        ambient_c=p.ati,
        top_oil_rise_k=p.oti - p.ati,
        hot_spot_rise_over_top_oil_k=p.wti - p.oti,
        paper=paper_used,
        paper_source=paper_source,
        size_class=size_used,
        size_class_source=size_source,
        cooling=cooling_used,
        relative_ageing_rate=v,
        thermal_status=status,
        limits=limits_used,
        alarms=alarms,
        risk_level=RISK_ORDER[risk_idx],
        warnings=warnings,
        reasoning=reasoning,
        standard=STANDARD_WINDING,
    )


# ---------------------------------------------------------------------------------------------
# Thermal-model wrappers
# ---------------------------------------------------------------------------------------------

LoadFactor = Annotated[float, Field(ge=0, le=5, allow_inf_nan=False, strict=True)]
Ambient = AmbientC
MAX_SERIES = 100_000
AssetName = Annotated[str, Field(min_length=1, strict=True)]
StepMinutes = Annotated[float, Field(gt=0, le=1440, allow_inf_nan=False, strict=True)]
_COOLING_DOC = (
    "Cooling class: ONAN_distribution, ONAN, ONAF, OF or OD. Omit to read it from the asset's "
    "nameplate (default ONAN when the store has no nameplate)."
)
_PAPER_DOC = (
    "Insulation paper: kraft or upgraded. Omit to read it from the asset's nameplate "
    "(default kraft when the store has no nameplate)."
)


class HotSpotInputs(BaseModel):
    """Inputs of :func:`compute_hot_spot`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: AssetName = Field(description="Asset the calculation is for.")
    load_factor: LoadFactor = Field(description="Load factor K = load / rated, in [0, 5].")
    ambient_c: Ambient = Field(description="Ambient temperature, °C, in [-60, 60].")
    cooling: CoolingClass | None = Field(default=None, description=_COOLING_DOC)
    paper: Paper | None = Field(default=None, description=_PAPER_DOC)


class LossOfLifeInputs(BaseModel):
    """Inputs of :func:`compute_loss_of_life`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: AssetName = Field(description="Asset the calculation is for.")
    load_factors: list[LoadFactor] = Field(
        min_length=1, max_length=MAX_SERIES, description="Load factor per step, each in [0, 5]."
    )
    ambient_c: Ambient | list[Ambient] = Field(
        description="Ambient per step (same length as load_factors) or one constant, °C."
    )
    step_minutes: StepMinutes = Field(description="Step length, minutes, in (0, 1440].")
    cooling: CoolingClass | None = Field(default=None, description=_COOLING_DOC)
    paper: Paper | None = Field(default=None, description=_PAPER_DOC)

    @model_validator(mode="after")
    def _same_length(self) -> LossOfLifeInputs:
        if isinstance(self.ambient_c, list) and len(self.ambient_c) != len(self.load_factors):
            raise ValueError(
                f"ambient_c has {len(self.ambient_c)} values, load_factors "
                f"{len(self.load_factors)}: give one ambient per step or a single constant"
            )
        return self


class EquivalentAgeingInputs(BaseModel):
    """Inputs of :func:`compute_equivalent_ageing`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: AssetName = Field(description="Asset the calculation is for.")
    hot_spot_c: list[Celsius] = Field(
        min_length=1,
        max_length=MAX_SERIES,
        description="Equally spaced hot-spot temperatures, °C, each in [-60, 300].",
    )
    step_minutes: StepMinutes = Field(description="Sample spacing, minutes, in (0, 1440].")


class HotSpotResult(BaseModel):
    """Result of :func:`compute_hot_spot`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the calculation is for.")
    load_factor: float = Field(description="Load factor K = load / rated.")
    ambient_c: float = Field(description="Ambient temperature, °C.")
    cooling: CoolingClass = Field(description="Cooling class of the characteristics used.")
    cooling_source: Source = Field(description="'argument', 'nameplate' or 'default' (ONAN).")
    paper: Paper = Field(description="Insulation paper used for the ageing rate.")
    paper_source: Source = Field(description="'argument', 'nameplate' or 'default' (kraft).")
    top_oil_rise_k: float = Field(description="Δθo = Δθor·[(1 + R·K²)/(1 + R)]^x, K.")
    hot_spot_rise_k: float = Field(description="Δθh = H·gr·K^y, K.")
    top_oil_c: float = Field(description="θo = θa + Δθo, °C.")
    hot_spot_c: float = Field(description="θh = θo + Δθh, °C.")
    relative_ageing_rate: float = Field(description="IEC 60076-7 relative ageing rate V.")
    characteristics: ThermalCharacteristics = Field(description="Thermal characteristics used.")
    standard: str = Field(description="Standard and edition applied.")


def compute_hot_spot(
    asset_name: str,
    load_factor: float,
    ambient_c: float,
    cooling: CoolingClass | None = None,
    paper: Paper | None = None,
    *,
    nameplate: NameplateFacts | None = None,
) -> HotSpotResult:
    """Steady-state top-oil and hot-spot temperatures (IEC 60076-7 clause 7).

    Args:
        asset_name: Asset the calculation is for.
        load_factor: K = load / rated, in [0, 5].
        ambient_c: Ambient temperature, °C, in [-60, 60].
        cooling: Cooling class of :data:`assets.transformer.thermal.COOLING`; None = the
            nameplate's, else "ONAN".
        paper: "kraft" or "upgraded"; None = the nameplate's, else "kraft".
        nameplate: Facts read from the asset's nameplate, if any.

    Returns:
        Top oil, hot spot and ageing rate.

    Raises:
        pydantic.ValidationError: An input is NaN, infinite or out of range.
    """
    facts = nameplate or NameplateFacts(asset_id=asset_name, found=False)
    cooling_used, cooling_source = pick(cooling, facts.cooling, DEFAULT_COOLING)
    paper_used, paper_source = pick(paper, facts.paper, DEFAULT_PAPER)
    p = HotSpotInputs(
        asset_name=asset_name,
        load_factor=load_factor,
        ambient_c=ambient_c,
        cooling=cooling_used,
        paper=paper_used,
    )
    c = COOLING[cooling_used]
    theta_o, theta_h = steady_state(p.load_factor, p.ambient_c, c)
    return HotSpotResult(
        asset_name=p.asset_name,
        load_factor=p.load_factor,
        ambient_c=p.ambient_c,
        cooling=cooling_used,
        cooling_source=cooling_source,
        paper=paper_used,
        paper_source=paper_source,
        top_oil_rise_k=theta_o - p.ambient_c,
        hot_spot_rise_k=theta_h - theta_o,
        top_oil_c=theta_o,
        hot_spot_c=theta_h,
        relative_ageing_rate=float(ageing_rate(theta_h, paper_used)),
        characteristics=c,
        standard=STANDARD_THERMAL,
    )


class LossOfLifeResult(BaseModel):
    """Result of :func:`compute_loss_of_life`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the calculation is for.")
    cooling: CoolingClass = Field(description="Cooling class of the characteristics used.")
    cooling_source: Source = Field(description="'argument', 'nameplate' or 'default' (ONAN).")
    paper: Paper = Field(description="Insulation paper used for the ageing rate.")
    paper_source: Source = Field(description="'argument', 'nameplate' or 'default' (kraft).")
    step_minutes: float = Field(description="Step length, minutes.")
    model_step_minutes: float = Field(
        description="Step Dt of the IEC 60076-7 difference equations, minutes (each data step "
        "is crossed in equal model steps of at most 1 min)."
    )
    period_hours: float = Field(description="Length of the series, hours.")
    top_oil_c: list[float] = Field(description="Top-oil temperature at the end of each step, °C.")
    hot_spot_c: list[float] = Field(description="Hot-spot temperature at the end of each step.")
    peak_hot_spot_c: float = Field(description="Highest of hot_spot_c, °C.")
    peak_index: int = Field(description="Index of the step with the highest hot spot.")
    step_loss_of_life_hours: list[float] = Field(
        description="Loss of life within each step: Σ V·Dt over its model steps, hours."
    )
    loss_of_life_hours: float = Field(
        description="L = Σ V·Dt over every model step (V at the hot spot after each model "
        "step), hours; not V at the end of each data step times its length."
    )
    mean_ageing_rate: float = Field(description="L / period: equivalent ageing rate.")
    loss_of_life_pct_of_normal_life: float = Field(
        description="L / 180 000 h × 100 (normal insulation life of IEEE C57.91)."
    )
    standard: str = Field(description="Standard and edition applied.")


def compute_loss_of_life(
    asset_name: str,
    load_factors: list[float],
    ambient_c: float | list[float],
    step_minutes: float,
    cooling: CoolingClass | None = None,
    paper: Paper | None = None,
    *,
    nameplate: NameplateFacts | None = None,
) -> LossOfLifeResult:
    """Hot-spot series and loss of life over a load series (IEC 60076-7 clause 8.2, 6.3).

    The state starts at the steady state of the first sample; ``load_factors[i]`` and
    ``ambient_c[i]`` are held over the step ending at sample i. The annex's difference
    equations cross each step in model steps of at most 1 min and the ageing rate is
    integrated over them (:func:`assets.transformer.thermal.integrate`).

    Args:
        asset_name: Asset the calculation is for.
        load_factors: Load factor per step.
        ambient_c: Ambient per step (same length) or one constant, °C.
        step_minutes: Step length, minutes.
        cooling: Cooling class; None = the nameplate's, else "ONAN".
        paper: "kraft" or "upgraded"; None = the nameplate's, else "kraft".
        nameplate: Facts read from the asset's nameplate, if any.

    Returns:
        Series, loss of life and peak hot spot.

    Raises:
        pydantic.ValidationError: An input is NaN, infinite or out of range, a series is
            empty, or the ambient series length differs from the load series length.
    """
    facts = nameplate or NameplateFacts(asset_id=asset_name, found=False)
    cooling_used, cooling_source = pick(cooling, facts.cooling, DEFAULT_COOLING)
    paper_used, paper_source = pick(paper, facts.paper, DEFAULT_PAPER)
    p = LossOfLifeInputs(
        asset_name=asset_name,
        load_factors=load_factors,
        ambient_c=ambient_c,
        step_minutes=step_minutes,
        cooling=cooling_used,
        paper=paper_used,
    )
    k = np.asarray(p.load_factors, dtype=float)
    if isinstance(p.ambient_c, list):
        amb = np.asarray(p.ambient_c, dtype=float)
    else:
        amb = np.full(k.size, float(p.ambient_c))
    run = integrate(k, amb, COOLING[cooling_used], p.step_minutes, paper_used)
    theta_o, theta_h = run.top_oil, run.hot_spot
    lol = float(np.sum(run.step_loss_h))
    period = k.size * p.step_minutes / 60.0
    peak = int(np.argmax(theta_h))
    return LossOfLifeResult(
        asset_name=p.asset_name,
        cooling=cooling_used,
        cooling_source=cooling_source,
        paper=paper_used,
        paper_source=paper_source,
        step_minutes=p.step_minutes,
        model_step_minutes=run.model_step_min,
        period_hours=period,
        top_oil_c=[float(v) for v in theta_o],
        hot_spot_c=[float(v) for v in theta_h],
        peak_hot_spot_c=float(theta_h[peak]),
        peak_index=peak,
        step_loss_of_life_hours=[float(v) for v in run.step_loss_h],
        loss_of_life_hours=lol,
        mean_ageing_rate=lol / period,
        loss_of_life_pct_of_normal_life=lol / NORMAL_INSULATION_LIFE_H * 100.0,
        standard=STANDARD_THERMAL,
    )


class EquivalentAgeingResult(BaseModel):
    """Result of :func:`compute_equivalent_ageing`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the calculation is for.")
    step_minutes: float = Field(description="Sample spacing, minutes.")
    period_hours: float = Field(description="Window length Σ Δt, hours.")
    f_eqa: float = Field(description="F_EQA = Σ F_AA·Δt / Σ Δt (reference hot spot 110 °C).")
    peak_f_aa: float = Field(description="Largest ageing acceleration factor F_AA in the window.")
    equivalent_ageing_hours: float = Field(description="F_EQA × period: equivalent aged hours.")
    loss_of_life_pct_of_normal_life: float = Field(
        description="Equivalent ageing hours / 180 000 h × 100."
    )
    standard: str = Field(description="Standard and edition applied.")


def compute_equivalent_ageing(
    asset_name: str, hot_spot_c: list[float], step_minutes: float
) -> EquivalentAgeingResult:
    """IEEE C57.91 equivalent ageing factor F_EQA over a window of hot-spot samples.

    Args:
        asset_name: Asset the calculation is for.
        hot_spot_c: Equally spaced hot-spot temperatures, °C.
        step_minutes: Sample spacing, minutes.

    Returns:
        F_EQA, equivalent aged hours and % of the 180 000 h normal life.

    Raises:
        pydantic.ValidationError: A temperature is NaN, infinite or outside [-60, 300], the
            series is empty, or the step is not in (0, 1440].
    """
    p = EquivalentAgeingInputs(
        asset_name=asset_name, hot_spot_c=hot_spot_c, step_minutes=step_minutes
    )
    theta = np.asarray(p.hot_spot_c, dtype=float)
    f_eqa = equivalent_ageing_factor(theta)
    period = theta.size * p.step_minutes / 60.0
    eq_hours = f_eqa * period
    return EquivalentAgeingResult(
        asset_name=p.asset_name,
        step_minutes=p.step_minutes,
        period_hours=period,
        f_eqa=f_eqa,
        peak_f_aa=float(np.max(ageing_rate(theta, "upgraded"))),
        equivalent_ageing_hours=eq_hours,
        loss_of_life_pct_of_normal_life=eq_hours / NORMAL_INSULATION_LIFE_H * 100.0,
        standard=STANDARD_EQA,
    )
