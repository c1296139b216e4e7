"""Emergency-loading what-if of the transformer class: can a unit carry an overload?

``assess_emergency_loading`` answers "can unit X carry K pu for D hours at θa ambient?"
under one IEC 60076-7 loading regime (normal cyclic, long-time emergency, short-time
emergency):

* the unit starts settled at its pre-load K0 (steady state of IEC 60076-7 clause 7 at K0 and
  θa: θo = θa + Δθor·[(1 + R·K0²)/(1 + R)]^x, Δθh1 = k21·H·gr·K0^y, Δθh2 = (k21 − 1)·H·gr·K0^y);
* the overload K is then held for D hours at constant θa and the clause 8.2 differential
  equations are solved exactly at every minute (constant inputs: each state variable moves
  to its target as 1 − exp(−t/τ), with τ = k11·τo for the top oil, k22·τw for Δθh1 and
  τo/k22 for Δθh2; :class:`assets.transformer.thermal.ThermalStepper`);
* the peaks of θo and θh = θo + Δθh1 − Δθh2 over [0, D] are compared with the loading limits
  of the unit's size class and regime (:data:`assets.transformer.size_class.LOADING_LIMITS`,
  the commonly tabulated IEC 60076-7 values): current K ≤ limit pu, peak hot spot ≤ limit °C
  (none for distribution short-time emergency), peak top oil ≤ limit °C.

The verdict is "within limits" when all three hold. The limiting quantity is, when a limit is
exceeded, the first one exceeded in time (the current at once; else the temperature that
crosses its limit first, hot spot before top oil on the same minute); when within limits,
the temperature with the smaller margin in kelvin to its limit (hot spot on a tie).

Characteristics and limits are the commonly tabulated IEC 60076-7 values (not checked
against a primary copy; see ``/work/shared/domain/transformer-standards.md`` §2).
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from assets.transformer.nameplate import (
    DEFAULT_COOLING,
    DEFAULT_SIZE_CLASS,
    NameplateFacts,
    Source,
    lookup_nameplate,
    pick,
)
from assets.transformer.size_class import LOADING_LIMITS, SizeClass
from assets.transformer.thermal import COOLING, CoolingClass, ThermalStepper, steady_state
from generator.api import ToolContext, tool

DOMAIN = "fmsr"
ASSET_CLASSES = ("transformer",)
STANDARD = (
    "IEC 60076-7:2018 clause 8.2 dynamic thermal model (exact solution per minute, start "
    "settled at the pre-load) and the loading limits per size class and loading regime "
    "(commonly tabulated values, user-overridable)"
)
STEP_MIN = 1.0
MAX_HOURS = 168.0

Regime = Literal["normal_cyclic", "long_time_emergency", "short_time_emergency"]
REGIMES: tuple[Regime, ...] = ("normal_cyclic", "long_time_emergency", "short_time_emergency")
Quantity = Literal["current", "hot_spot", "top_oil"]
PerUnit = Annotated[float, Field(ge=0, le=5, allow_inf_nan=False, strict=True)]


class EmergencyLoadingArgs(BaseModel):
    """Arguments of the ``assess_emergency_loading`` tool."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(min_length=1, strict=True, description="Asset the what-if is for.")
    load_factor: PerUnit = Field(
        description="Overload to carry, per unit of rated current (1.2 = 120 %), in [0, 5]."
    )
    duration_hours: float = Field(
        gt=0, le=MAX_HOURS, allow_inf_nan=False, strict=True,
        description="How long the overload lasts, hours, in (0, 168].",
    )
    ambient_c: float = Field(
        ge=-60, le=60, allow_inf_nan=False, strict=True,
        description="Ambient temperature during the overload, °C, in [-60, 60].",
    )
    pre_load_factor: PerUnit = Field(
        description="Load factor before the overload, pu; the unit is taken as settled at it."
    )
    regime: Regime = Field(
        description="IEC 60076-7 loading regime whose limits apply: 'normal_cyclic', "
        "'long_time_emergency' or 'short_time_emergency'."
    )
    cooling: CoolingClass | None = Field(
        default=None,
        description="Cooling class of the thermal characteristics; omit to read the nameplate "
        "(else 'ONAN').",
    )
    size_class: SizeClass | None = Field(
        default=None,
        description="IEC 60076-7 size class of the limits; omit to derive it from the "
        "nameplate rating (else 'medium').",
    )


class LimitCheck(BaseModel):
    """One quantity against its limit."""

    model_config = ConfigDict(extra="forbid")

    quantity: Quantity = Field(description="'current' (pu), 'hot_spot' or 'top_oil' (°C).")
    value: float = Field(description="Overload current (pu) or peak temperature (°C).")
    limit: float | None = Field(description="Limit of the regime; None when the table has none.")
    within: bool = Field(description="value ≤ limit (True when there is no limit).")
    margin: float | None = Field(description="limit − value; None without a limit.")
    exceeded_at_minute: float | None = Field(
        description="First minute the limit is exceeded (0 for the current); None if never."
    )


class EmergencyLoadingResult(BaseModel):
    """Result of ``assess_emergency_loading``."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the what-if is for.")
    regime: Regime = Field(description="Loading regime whose limits apply.")
    size_class: SizeClass = Field(description="Size class of the limits.")
    size_class_source: Source = Field(description="'argument', 'nameplate' or 'default'.")
    cooling: CoolingClass = Field(description="Cooling class of the characteristics used.")
    cooling_source: Source = Field(description="'argument', 'nameplate' or 'default'.")
    load_factor: float = Field(description="Overload, pu.")
    duration_hours: float = Field(description="Overload duration, hours.")
    ambient_c: float = Field(description="Ambient, °C.")
    pre_load_factor: float = Field(description="Pre-load, pu.")
    initial_top_oil_c: float = Field(description="Top oil settled at the pre-load, °C.")
    initial_hot_spot_c: float = Field(description="Hot spot settled at the pre-load, °C.")
    peak_top_oil_c: float = Field(description="Highest top oil over the overload, °C.")
    peak_hot_spot_c: float = Field(description="Highest hot spot over the overload, °C.")
    peak_hot_spot_minute: float = Field(description="Minute of the highest hot spot.")
    ultimate_top_oil_c: float = Field(description="Steady-state top oil at the overload, °C.")
    ultimate_hot_spot_c: float = Field(description="Steady-state hot spot at the overload, °C.")
    checks: list[LimitCheck] = Field(description="Current, hot spot and top oil checks.")
    within_limits: bool = Field(description="True when every check holds.")
    limiting_quantity: Quantity = Field(
        description="First limit exceeded; when within limits, the temperature with the "
        "smaller margin."
    )
    standard: str = Field(description="Standard and edition applied.")


def _limits(size: SizeClass, regime: Regime) -> tuple[float, float | None, float]:
    """(current pu, hot spot °C or None, top oil °C) of a size class and regime."""
    t = LOADING_LIMITS[size]
    if regime == "normal_cyclic":
        return t.current_normal_cyclic_pu, t.hot_spot_normal_cyclic_c, t.top_oil_normal_cyclic_c
    if regime == "long_time_emergency":
        return (
            t.current_long_time_emergency_pu,
            t.hot_spot_long_time_emergency_c,
            t.top_oil_emergency_c,
        )
    return (
        t.current_short_time_emergency_pu,
        t.hot_spot_short_time_emergency_c,
        t.top_oil_emergency_c,
    )


def _check(
    quantity: Quantity, value: float, limit: float | None, first: float | None
) -> LimitCheck:
    within = limit is None or value <= limit
    return LimitCheck(
        quantity=quantity,
        value=value,
        limit=limit,
        within=within,
        margin=None if limit is None else limit - value,
        exceeded_at_minute=None if within else first,
    )


def assess_emergency_loading(
    asset_name: str,
    load_factor: float,
    duration_hours: float,
    ambient_c: float,
    pre_load_factor: float,
    regime: Regime,
    cooling: CoolingClass | None = None,
    size_class: SizeClass | None = None,
    *,
    nameplate: NameplateFacts | None = None,
) -> EmergencyLoadingResult:
    """Whether a unit can carry ``load_factor`` for ``duration_hours`` (module docstring).

    Args:
        asset_name: Asset the what-if is for.
        load_factor: Overload, pu of rated current.
        duration_hours: Overload duration, hours.
        ambient_c: Ambient, °C.
        pre_load_factor: Load before the overload, pu (settled).
        regime: Loading regime whose limits apply.
        cooling: Cooling class; None = the nameplate's, else ONAN.
        size_class: Size class; None = the nameplate's, else medium.
        nameplate: Facts read from the asset's nameplate, if any.

    Returns:
        Peaks, limit checks, verdict and limiting quantity.

    Raises:
        pydantic.ValidationError: An input is out of range, NaN or of the wrong type.
    """
    facts = nameplate or NameplateFacts(asset_id=asset_name, found=False)
    cooling_used, cooling_source = pick(cooling, facts.cooling, DEFAULT_COOLING)
    size_used, size_source = pick(size_class, facts.size_class, DEFAULT_SIZE_CLASS)
    p = EmergencyLoadingArgs(
        asset_name=asset_name, load_factor=load_factor, duration_hours=duration_hours,
        ambient_c=ambient_c, pre_load_factor=pre_load_factor, regime=regime,
        cooling=cooling_used, size_class=size_used,
    )
    c = COOLING[cooling_used]
    current_limit, hot_limit, oil_limit = _limits(size_used, p.regime)
    stepper = ThermalStepper(c, STEP_MIN)
    stepper.settle(p.pre_load_factor, p.ambient_c)
    o0, h0 = stepper.theta_o, stepper.hot_spot
    peak_o, peak_h, peak_minute = o0, h0, 0.0
    first_hot: float | None = None if hot_limit is None or h0 <= hot_limit else 0.0
    first_oil: float | None = None if o0 <= oil_limit else 0.0
    steps = math.ceil(p.duration_hours * 60.0 / STEP_MIN - 1e-9)
    for i in range(1, steps + 1):
        stepper.advance(p.load_factor, p.ambient_c)
        minute = i * STEP_MIN
        o, h = stepper.theta_o, stepper.hot_spot
        if h > peak_h:
            peak_h, peak_minute = h, minute
        peak_o = max(peak_o, o)
        if first_hot is None and hot_limit is not None and h > hot_limit:
            first_hot = minute
        if first_oil is None and o > oil_limit:
            first_oil = minute
    checks = [
        _check("current", p.load_factor, current_limit, 0.0),
        _check("hot_spot", peak_h, hot_limit, first_hot),
        _check("top_oil", peak_o, oil_limit, first_oil),
    ]
    exceeded = [ch for ch in checks if not ch.within]
    limiting: Quantity
    if exceeded:
        # stable sort: the current, then hot spot before top oil on the same minute
        limiting = min(exceeded, key=lambda ch: ch.exceeded_at_minute or 0.0).quantity
    else:
        temps = [ch for ch in checks[1:] if ch.margin is not None]
        limiting = min(temps, key=lambda ch: ch.margin or 0.0).quantity if temps else "current"
    ult_o, ult_h = steady_state(p.load_factor, p.ambient_c, c)
    return EmergencyLoadingResult(
        asset_name=p.asset_name,
        regime=p.regime,
        size_class=size_used,
        size_class_source=size_source,
        cooling=cooling_used,
        cooling_source=cooling_source,
        load_factor=p.load_factor,
        duration_hours=p.duration_hours,
        ambient_c=p.ambient_c,
        pre_load_factor=p.pre_load_factor,
        initial_top_oil_c=o0,
        initial_hot_spot_c=h0,
        peak_top_oil_c=peak_o,
        peak_hot_spot_c=peak_h,
        peak_hot_spot_minute=peak_minute,
        ultimate_top_oil_c=ult_o,
        ultimate_hot_spot_c=ult_h,
        checks=checks,
        within_limits=not exceeded,
        limiting_quantity=limiting,
        standard=STANDARD,
    )


@tool(
    "assess_emergency_loading",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=EmergencyLoadingArgs,
    result=EmergencyLoadingResult,
    standard=STANDARD,
)
async def assess_emergency_loading_tool(
    args: EmergencyLoadingArgs, ctx: ToolContext
) -> EmergencyLoadingResult:
    """Check whether a transformer can carry an overload (pu of rated current) for a number
    of hours at an ambient temperature, starting settled at a pre-load, under one IEC 60076-7
    loading regime: peak hot spot and top oil by the dynamic thermal model, the verdict
    against the size class's current, hot-spot and top-oil limits, and the limiting quantity.

    cooling and size_class default to the asset's nameplate in the store (else ONAN /
    medium).
    """
    facts = None
    missing = [n for n, v in (("cooling", args.cooling), ("size_class", args.size_class))
               if v is None]
    if missing:
        facts = await lookup_nameplate(ctx, args.asset_name, "assess_emergency_loading", missing)
    return assess_emergency_loading(
        args.asset_name, args.load_factor, args.duration_hours, args.ambient_c,
        args.pre_load_factor, args.regime, args.cooling, args.size_class, nameplate=facts,
    )


TOOL_NAMES: tuple[str, ...] = ("assess_emergency_loading",)
