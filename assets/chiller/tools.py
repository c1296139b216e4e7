"""Deterministic diagnostic tools of the chiller asset class (domain "fmsr").

Each tool takes readings as arguments (numbers strict: no bools or numeric strings) and
returns a pydantic result with every computed value and a status. Design values
(``design_*`` arguments) are optional: a missing one is read from the unit's nameplate in
``ctx.store`` (as seeded by :mod:`assets.chiller.simulator`), else the documented default
(:data:`assets.chiller.diagnostics.DEFAULT_DESIGN`, 500 tons, COP 5.5); the result's
``design_source`` says which. A call with every design value explicit never touches the
store. Importing this module registers the tools (for the chiller class only).

Sources: approaches, ranges and subcooling as in ASHRAE Guideline 22 and chiller
manufacturers' service practice (:mod:`assets.chiller.diagnostics`); the design part-load
curve is EnergyPlus's ``Chiller:Electric:EIR`` (the DOE-2.1E model) with the DOE-2
centrifugal curves (:mod:`assets.chiller.performance`); IPLV is AHRI Standard 550/590 (I-P).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assets.chiller.diagnostics import (
    APPROACH_RISE_K,
    DEFAULT_DESIGN,
    IPLV_ECWT_F,
    IPLV_LOADS,
    IPLV_WEIGHTS,
    MIN_RUNNING_PCT,
    DesignValues,
    Finding,
    ReadingDiagnosis,
    condenser_approach,
    diagnose_reading,
    evaporator_approach,
    expected_approach,
    f_to_c,
    iplv_cop,
    iplv_kw_per_ton,
    model_iplv,
    water_range,
)
from assets.chiller.performance import DOE2_CENTRIFUGAL, KW_PER_TON, EirChiller, chiller_performance
from assets.chiller.simulator import FAILURE_CODES
from generator.api import StoreUnavailable, ToolContext, UserError, tool

DOMAIN = "fmsr"
ASSET_CLASSES = ("chiller",)

STANDARD_APPROACH = (
    "ASHRAE Guideline 22 (chilled-water plant monitoring) and chiller service practice: "
    "approach = leaving water − refrigerant saturation temperature; a rise of 3 °F (1.67 K) "
    "above the clean approach at the same load is abnormal (a service-literature convention)"
)
STANDARD_EFFICIENCY = (
    "EnergyPlus Engineering Reference, Chiller:Electric:EIR (the DOE-2.1E electric chiller "
    "model) with the DOE-2 centrifugal reference curves (EnergyPlus DataSets/Chillers.idf, "
    "'DOE-2 Centrifugal/5.50COP'); status bands at 5 % and 15 % degradation are conventions"
)
STANDARD_IPLV = (
    "AHRI Standard 550/590 (I-P): IPLV = 0.01·A + 0.42·B + 0.45·C + 0.12·D (COP), "
    "1 / (0.01/A + 0.42/B + 0.45/C + 0.12/D) (kW/ton), water-cooled rating points 44 °F "
    "leaving chilled water, 85/75/65/65 °F entering condenser water"
)
STANDARD_FAULT = (
    "Chiller fault rules from manufacturers' service literature and field commissioning "
    "practice (approach rise 3 °F, subcooling shift 5 °F, discharge superheat +10 K, supply "
    "1 K above setpoint below 95 % load; conventions, not figures of a standard)"
)

DEFAULT_CAPACITY_TONS = 500.0
DEFAULT_KW_PER_TON = KW_PER_TON / DOE2_CENTRIFUGAL.ref_cop
EFFICIENT_PCT = 5.0
SEVERE_PCT = 15.0

DesignSource = Literal["argument", "nameplate", "default"]
Temperature = Annotated[float, Field(ge=-30.0, le=150.0, allow_inf_nan=False, strict=True)]
Percent = Annotated[float, Field(ge=0.0, le=110.0, allow_inf_nan=False, strict=True)]
DesignK = Annotated[float, Field(ge=0.0, le=30.0, allow_inf_nan=False, strict=True)]
AssetName = Annotated[
    str, Field(min_length=1, strict=True, description="Chiller the readings belong to.")
]


class ChillerToolError(UserError):
    """A chiller tool's design values were needed and the store could not be read."""


class ChillerStoreUnavailable(ChillerToolError, StoreUnavailable):
    """The nameplate cannot be read because the store is down (an outage, not bad input)."""


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


async def _nameplate(ctx: ToolContext, tool_name: str, asset_name: str,
                     missing: list[str]) -> dict[str, Any] | None:
    """The unit's nameplate document from the store, or None when it holds none."""
    try:
        doc: dict[str, Any] | None = await ctx.store.nameplate_doc(asset_name)
    except UserError as exc:
        names = ", ".join(missing)
        # An outage stays an outage (generation stops and resumes instead of dropping a draw).
        kind = ChillerStoreUnavailable if isinstance(exc, StoreUnavailable) else ChillerToolError
        raise kind(
            f"tool {tool_name!r}: {names} not given for asset {asset_name!r} and its "
            f"nameplate cannot be read ({exc.what})",
            fix=f"pass {names} explicitly, or start and seed the store "
            "(`scenariogen env up`, `scenariogen env seed chiller`)",
        ) from None
    return doc


async def _resolve(
    ctx: ToolContext, tool_name: str, asset_name: str, given: dict[str, float | None],
    defaults: dict[str, float],
) -> tuple[dict[str, float], DesignSource]:
    """Design values: arguments, else the nameplate, else the defaults (and the source).

    The source is the least explicit one used: "default" if any value fell back to its
    default, else "nameplate" if any came from the nameplate, else "argument".
    """
    missing = [k for k, v in given.items() if v is None]
    if not missing:
        return {k: float(v) for k, v in given.items() if v is not None}, "argument"
    plate = await _nameplate(ctx, tool_name, asset_name, missing) or {}
    values: dict[str, float] = {}
    source: DesignSource = "argument"
    for key, value in given.items():
        if value is not None:
            values[key] = float(value)
            continue
        from_plate = plate.get(key)
        if isinstance(from_plate, int | float) and not isinstance(from_plate, bool):
            values[key] = float(from_plate)
            source = "nameplate" if source == "argument" else source
        else:
            values[key] = defaults[key]
            source = "default"
    return values, source


def _design_model(capacity_tons: float, kw_per_ton: float) -> EirChiller:
    """The DOE-2 centrifugal curves at this capacity and reference COP = 3.516852 / kW/ton."""
    if not capacity_tons > 0 or not kw_per_ton > 0:
        raise UserError(
            "design capacity and design kW/ton must be positive",
            value=f"{capacity_tons} tons, {kw_per_ton} kW/ton",
            fix="pass design_capacity_tons > 0 and design_kw_per_ton > 0",
        )
    return DOE2_CENTRIFUGAL.model_copy(
        update={"ref_capacity_kw": capacity_tons * KW_PER_TON, "ref_cop": KW_PER_TON / kw_per_ton}
    )


# -- compute_approach_temperatures ------------------------------------------------------


class _RecordArgs(_Args):
    """The measured quantities of one hourly record that the record tools all read."""

    asset_name: AssetName
    supply_temperature: Temperature = Field(description="Leaving chilled water, °C.")
    evaporator_refrigerant_temperature: Temperature = Field(
        description="Evaporator refrigerant saturation temperature, °C."
    )
    condenser_water_return_temperature: Temperature = Field(
        description="Leaving condenser water (to the tower), °C."
    )
    condenser_refrigerant_temperature: Temperature = Field(
        description="Condenser refrigerant saturation temperature (from pressure), °C."
    )
    percent_loaded: Percent = Field(description="Chiller load, % of capacity.")


EvaporatorApproachK = Annotated[DesignK | None, Field(
    description="Clean evaporator approach at full load, K (else nameplate)."
)]
CondenserApproachK = Annotated[DesignK | None, Field(
    description="Clean condenser approach at full load, K (else nameplate)."
)]


class ApproachArgs(_RecordArgs):
    """Arguments of ``compute_approach_temperatures`` (one hourly record)."""

    return_temperature: Temperature | None = Field(
        default=None, description="Entering chilled water, °C (for the chilled-water range)."
    )
    condenser_water_supply_temperature: Temperature | None = Field(
        default=None, description="Entering condenser water, °C (for the condenser range)."
    )
    condenser_liquid_temperature: Temperature | None = Field(
        default=None, description="Liquid refrigerant leaving the condenser, °C (subcooling)."
    )
    design_evaporator_approach_k: EvaporatorApproachK = None
    design_condenser_approach_k: CondenserApproachK = None


ApproachStatus = Literal[
    "normal", "evaporator_approach_high", "condenser_approach_high", "both_high", "not_running"
]


class ApproachResult(_Result):
    """Approaches, ranges and subcooling of one record against the clean unit."""

    asset_name: str = Field(description="Chiller assessed.")
    evaporator_approach_k: float = Field(description="Supply − evaporator saturation, K.")
    condenser_approach_k: float = Field(description="Condenser saturation − leaving CW, K.")
    chilled_water_range_k: float | None = Field(description="Return − supply, K.")
    condenser_water_range_k: float | None = Field(description="Leaving − entering CW, K.")
    subcooling_k: float | None = Field(description="Condenser saturation − liquid, K.")
    expected_evaporator_approach_k: float = Field(description="Design × % loaded / 100, K.")
    expected_condenser_approach_k: float = Field(description="Design × % loaded / 100, K.")
    evaporator_approach_rise_k: float = Field(description="Measured − expected, K.")
    condenser_approach_rise_k: float = Field(description="Measured − expected, K.")
    threshold_k: float = Field(description="Rise that counts as high: 3 °F = 1.667 K.")
    evaporator_status: Literal["normal", "high"] = Field(description="Rise ≥ threshold: high.")
    condenser_status: Literal["normal", "high"] = Field(description="Rise ≥ threshold: high.")
    status: ApproachStatus = Field(description="Overall; not_running below 10 % load.")
    design_source: DesignSource = Field(description="Where the design approaches came from.")


@tool(
    "compute_approach_temperatures",
    domain=DOMAIN,
    args=ApproachArgs,
    result=ApproachResult,
    standard=STANDARD_APPROACH,
    asset_classes=ASSET_CLASSES,
)
async def compute_approach_temperatures(args: ApproachArgs, ctx: ToolContext) -> ApproachResult:
    """Compute a chiller's evaporator and condenser approach temperatures, water ranges and
    liquid subcooling from one record and compare the approaches with the clean unit's
    approach at the same load (design approach × % loaded / 100).

    Temperatures in °C, differences in K. Design approaches default to the nameplate.
    """
    design, source = await _resolve(
        ctx, "compute_approach_temperatures", args.asset_name,
        {"design_evaporator_approach_k": args.design_evaporator_approach_k,
         "design_condenser_approach_k": args.design_condenser_approach_k},
        {"design_evaporator_approach_k": DEFAULT_DESIGN.evaporator_approach_k,
         "design_condenser_approach_k": DEFAULT_DESIGN.condenser_approach_k},
    )
    evap = evaporator_approach(args.supply_temperature, args.evaporator_refrigerant_temperature)
    cond = condenser_approach(
        args.condenser_refrigerant_temperature, args.condenser_water_return_temperature
    )
    exp_evap = expected_approach(design["design_evaporator_approach_k"], args.percent_loaded)
    exp_cond = expected_approach(design["design_condenser_approach_k"], args.percent_loaded)
    running = args.percent_loaded >= MIN_RUNNING_PCT
    evap_high = running and evap - exp_evap >= APPROACH_RISE_K
    cond_high = running and cond - exp_cond >= APPROACH_RISE_K
    status: ApproachStatus
    if not running:
        status = "not_running"
    elif evap_high and cond_high:
        status = "both_high"
    elif evap_high:
        status = "evaporator_approach_high"
    elif cond_high:
        status = "condenser_approach_high"
    else:
        status = "normal"
    return ApproachResult(
        asset_name=args.asset_name,
        evaporator_approach_k=evap,
        condenser_approach_k=cond,
        chilled_water_range_k=(
            None if args.return_temperature is None
            else water_range(args.return_temperature, args.supply_temperature)
        ),
        condenser_water_range_k=(
            None if args.condenser_water_supply_temperature is None
            else water_range(
                args.condenser_water_return_temperature, args.condenser_water_supply_temperature
            )
        ),
        subcooling_k=(
            None if args.condenser_liquid_temperature is None
            else args.condenser_refrigerant_temperature - args.condenser_liquid_temperature
        ),
        expected_evaporator_approach_k=exp_evap,
        expected_condenser_approach_k=exp_cond,
        evaporator_approach_rise_k=evap - exp_evap,
        condenser_approach_rise_k=cond - exp_cond,
        threshold_k=APPROACH_RISE_K,
        evaporator_status="high" if evap_high else "normal",
        condenser_status="high" if cond_high else "normal",
        status=status,
        design_source=source,
    )


# -- assess_chiller_efficiency ----------------------------------------------------------


class EfficiencyArgs(_Args):
    """Arguments of ``assess_chiller_efficiency`` (one hourly record)."""

    asset_name: AssetName
    power_input: float = Field(
        gt=0, le=100_000, allow_inf_nan=False, strict=True, description="Compressor input, kW."
    )
    tonnage: float = Field(
        gt=0, le=30_000, allow_inf_nan=False, strict=True,
        description="Cooling delivered, tons (1 ton = 3.516852 kW).",
    )
    supply_temperature: Temperature = Field(description="Leaving chilled water, °C.")
    condenser_water_supply_temperature: Temperature = Field(
        description="Entering condenser water, °C."
    )
    design_capacity_tons: float | None = Field(
        default=None, gt=0, le=30_000, allow_inf_nan=False, strict=True,
        description="Rated capacity, tons (else nameplate).",
    )
    design_kw_per_ton: float | None = Field(
        default=None, gt=0, le=5, allow_inf_nan=False, strict=True,
        description="kW/ton at the reference point 6.67 °C / 29.4 °C (else nameplate).",
    )


EfficiencyStatus = Literal["better_than_design", "normal", "degraded", "severely_degraded"]


class EfficiencyResult(_Result):
    """Measured kW/ton against the design part-load curve at the same conditions."""

    asset_name: str = Field(description="Chiller assessed.")
    measured_kw_per_ton: float = Field(description="power_input / tonnage.")
    measured_cop: float = Field(description="3.516852 / measured kW/ton.")
    load_kw: float = Field(description="tonnage × 3.516852, kW.")
    part_load_ratio: float = Field(description="Design model: load / (Q_ref · CAPFT).")
    design_kw_per_ton_at_conditions: float = Field(
        description="Design model kW/ton at this load, supply and entering condenser water."
    )
    degradation_pct: float = Field(description="(measured / design − 1) × 100.")
    status: EfficiencyStatus = Field(
        description="better_than_design < −5 % ≤ normal ≤ 5 % < degraded ≤ 15 % < severely_degraded"
    )
    temperatures_clamped: bool = Field(
        description="A temperature lay outside the curves' fitted range and was limited."
    )
    design_capacity_tons: float = Field(description="Capacity used, tons.")
    design_kw_per_ton: float = Field(description="Reference kW/ton used.")
    design_source: DesignSource = Field(description="Where the design values came from.")


@tool(
    "assess_chiller_efficiency",
    domain=DOMAIN,
    args=EfficiencyArgs,
    result=EfficiencyResult,
    standard=STANDARD_EFFICIENCY,
    asset_classes=ASSET_CLASSES,
)
async def assess_chiller_efficiency(args: EfficiencyArgs, ctx: ToolContext) -> EfficiencyResult:
    """Assess a chiller's measured kW/ton against its design part-load curve (DOE-2 / EnergyPlus
    electric EIR model at the same load and water temperatures) and report the degradation
    in percent with a status.

    Power in kW, cooling in tons, temperatures in °C. Design capacity and design kW/ton
    default to the nameplate.
    """
    design, source = await _resolve(
        ctx, "assess_chiller_efficiency", args.asset_name,
        {"design_capacity_tons": args.design_capacity_tons,
         "design_kw_per_ton": args.design_kw_per_ton},
        {"design_capacity_tons": DEFAULT_CAPACITY_TONS, "design_kw_per_ton": DEFAULT_KW_PER_TON},
    )
    model = _design_model(design["design_capacity_tons"], design["design_kw_per_ton"])
    load_kw = args.tonnage * KW_PER_TON
    perf = chiller_performance(
        model, load_kw, args.supply_temperature, args.condenser_water_supply_temperature
    )
    if perf.kw_per_ton is None or perf.delivered_kw < load_kw * (1 - 1e-9):
        raise UserError(
            f"assess_chiller_efficiency: {args.tonnage} tons exceeds the design capacity of "
            f"{args.asset_name!r} at these temperatures "
            f"({perf.available_capacity_kw / KW_PER_TON:.1f} tons)",
            value=args.tonnage,
            fix="check tonnage and design_capacity_tons (the nameplate's rating)",
        )
    measured = args.power_input / args.tonnage
    degradation = (measured / perf.kw_per_ton - 1.0) * 100.0
    status: EfficiencyStatus
    if degradation < -EFFICIENT_PCT:
        status = "better_than_design"
    elif degradation <= EFFICIENT_PCT:
        status = "normal"
    elif degradation <= SEVERE_PCT:
        status = "degraded"
    else:
        status = "severely_degraded"
    return EfficiencyResult(
        asset_name=args.asset_name,
        measured_kw_per_ton=measured,
        measured_cop=KW_PER_TON / measured,
        load_kw=load_kw,
        part_load_ratio=perf.plr,
        design_kw_per_ton_at_conditions=perf.kw_per_ton,
        degradation_pct=degradation,
        status=status,
        temperatures_clamped=perf.temperatures_clamped,
        design_capacity_tons=design["design_capacity_tons"],
        design_kw_per_ton=design["design_kw_per_ton"],
        design_source=source,
    )


# -- compute_iplv -----------------------------------------------------------------------

PositiveEfficiency = Annotated[float, Field(gt=0, le=50, allow_inf_nan=False, strict=True)]


class IplvArgs(_Args):
    """Arguments of ``compute_iplv``."""

    asset_name: AssetName
    kw_per_ton: list[PositiveEfficiency] | None = Field(
        default=None, min_length=4, max_length=4,
        description="kW/ton at 100, 75, 50 and 25 % load (A, B, C, D).",
    )
    cop: list[PositiveEfficiency] | None = Field(
        default=None, min_length=4, max_length=4,
        description="COP at 100, 75, 50 and 25 % load; give kw_per_ton or cop, not both.",
    )
    design_capacity_tons: float | None = Field(
        default=None, gt=0, le=30_000, allow_inf_nan=False, strict=True,
        description="Rated capacity, tons; used only without points (else nameplate).",
    )
    design_kw_per_ton: float | None = Field(
        default=None, gt=0, le=5, allow_inf_nan=False, strict=True,
        description="Reference kW/ton; used only without points (else nameplate).",
    )


class IplvToolResult(_Result):
    """The AHRI 550/590 integrated part-load value."""

    asset_name: str = Field(description="Chiller rated.")
    basis: Literal["measured_points", "design_curve"] = Field(
        description="Points given as arguments, or the unit's design curve at the rating points."
    )
    rating_loads_pct: list[float] = Field(description="[100, 75, 50, 25].")
    weights: list[float] = Field(description="[0.01, 0.42, 0.45, 0.12].")
    entering_condenser_c: list[float] = Field(
        description="Rating entering condenser water: 85/75/65/65 °F in °C."
    )
    point_kw_per_ton: list[float] = Field(description="kW/ton at the four points.")
    point_cop: list[float] = Field(description="COP = 3.516852 / kW/ton at the four points.")
    iplv_kw_per_ton: float = Field(description="1 / Σ w_i / (kW/ton)_i.")
    iplv_cop: float = Field(description="Σ w_i · COP_i.")
    clamped_points: list[int] = Field(
        description="Design curve only: rating loads (%) whose temperatures were limited to "
        "the curves' range."
    )
    status: Literal["computed"] = Field(description="Always 'computed'.")
    design_source: DesignSource = Field(description="'argument' when points were given.")


@tool(
    "compute_iplv",
    domain=DOMAIN,
    args=IplvArgs,
    result=IplvToolResult,
    standard=STANDARD_IPLV,
    asset_classes=ASSET_CLASSES,
)
async def compute_iplv(args: IplvArgs, ctx: ToolContext) -> IplvToolResult:
    """Compute the AHRI 550/590 integrated part-load value (IPLV) of a chiller from its kW/ton
    or COP at 100, 75, 50 and 25 % load, or, when no points are given, from the unit's
    design part-load curve at the AHRI water-cooled rating conditions.
    """
    if args.kw_per_ton is not None and args.cop is not None:
        raise UserError(
            "compute_iplv: both kw_per_ton and cop given",
            value=f"kw_per_ton={args.kw_per_ton}, cop={args.cop}",
            fix="pass one list of four values (or neither, for the design curve)",
        )
    ecwt = [f_to_c(f) for f in IPLV_ECWT_F]
    common = {
        "asset_name": args.asset_name,
        "rating_loads_pct": [100.0 * x for x in IPLV_LOADS],
        "weights": list(IPLV_WEIGHTS),
        "entering_condenser_c": ecwt,
        "status": "computed",
    }
    if args.kw_per_ton is not None or args.cop is not None:
        if args.kw_per_ton is not None:
            kwt = list(args.kw_per_ton)
        else:
            assert args.cop is not None
            kwt = [KW_PER_TON / c for c in args.cop]
        cops = list(args.cop) if args.cop is not None else [KW_PER_TON / v for v in kwt]
        return IplvToolResult(
            **common,
            basis="measured_points",
            point_kw_per_ton=kwt,
            point_cop=cops,
            iplv_kw_per_ton=iplv_kw_per_ton(kwt),
            iplv_cop=iplv_cop(cops),
            clamped_points=[],
            design_source="argument",
        )
    design, source = await _resolve(
        ctx, "compute_iplv", args.asset_name,
        {"design_capacity_tons": args.design_capacity_tons,
         "design_kw_per_ton": args.design_kw_per_ton},
        {"design_capacity_tons": DEFAULT_CAPACITY_TONS, "design_kw_per_ton": DEFAULT_KW_PER_TON},
    )
    result = model_iplv(_design_model(design["design_capacity_tons"], design["design_kw_per_ton"]))
    return IplvToolResult(
        **common,
        basis="design_curve",
        point_kw_per_ton=list(result.kw_per_ton),
        point_cop=[KW_PER_TON / v for v in result.kw_per_ton],
        iplv_kw_per_ton=result.iplv_kw_per_ton,
        iplv_cop=result.iplv_cop,
        clamped_points=result.clamped_points,
        design_source=source,
    )


# -- diagnose_chiller_fault -------------------------------------------------------------


class FaultArgs(_RecordArgs):
    """Arguments of ``diagnose_chiller_fault`` (one hourly record)."""

    setpoint_temperature: Temperature | None = Field(
        default=None, description="Leaving chilled-water setpoint, °C (sensor-drift rule)."
    )
    condenser_liquid_temperature: Temperature | None = Field(
        default=None, description="Liquid leaving the condenser, °C (subcooling rules)."
    )
    discharge_temperature: Temperature | None = Field(
        default=None, description="Compressor discharge gas, °C (overheating rule)."
    )
    design_evaporator_approach_k: EvaporatorApproachK = None
    design_condenser_approach_k: CondenserApproachK = None
    design_subcooling_k: DesignK | None = Field(
        default=None, description="Clean liquid subcooling, K (else nameplate)."
    )
    design_discharge_superheat_k: float | None = Field(
        default=None, ge=0, le=60, allow_inf_nan=False, strict=True,
        description="Clean discharge superheat, K (else nameplate).",
    )


FAILURE_CODE_OF: dict[str, str] = {mode: code for mode, code in FAILURE_CODES.items()}
"""Finding → work-order failure code (as in asset.yaml's failure_modes)."""


class FaultDiagnosis(ReadingDiagnosis):
    """The fault rules' findings on one record, with every value compared."""

    asset_name: str = Field(description="Chiller diagnosed.")
    failure_codes: list[str] = Field(description="Work-order codes of the findings.")
    status: Literal["normal", "fault", "not_running"] = Field(description="Overall verdict.")
    design_source: DesignSource = Field(description="Where the design values came from.")


@tool(
    "diagnose_chiller_fault",
    domain=DOMAIN,
    args=FaultArgs,
    result=FaultDiagnosis,
    standard=STANDARD_FAULT,
    asset_classes=ASSET_CLASSES,
)
async def diagnose_chiller_fault(args: FaultArgs, ctx: ToolContext) -> FaultDiagnosis:
    """Diagnose a chiller fault from one record: condenser or evaporator fouling, low
    refrigerant charge, purge failure (non-condensables), compressor overheating or
    chilled-water sensor drift, from the approach rises, liquid subcooling, discharge
    superheat and the supply-setpoint offset.

    Temperatures in °C. Design values default to the nameplate; liquid, discharge and
    setpoint readings are optional (their rules are skipped without them).
    """
    defaults = DEFAULT_DESIGN
    design, source = await _resolve(
        ctx, "diagnose_chiller_fault", args.asset_name,
        {"design_evaporator_approach_k": args.design_evaporator_approach_k,
         "design_condenser_approach_k": args.design_condenser_approach_k,
         "design_subcooling_k": args.design_subcooling_k,
         "design_discharge_superheat_k": args.design_discharge_superheat_k},
        {"design_evaporator_approach_k": defaults.evaporator_approach_k,
         "design_condenser_approach_k": defaults.condenser_approach_k,
         "design_subcooling_k": defaults.subcooling_k,
         "design_discharge_superheat_k": defaults.discharge_superheat_k},
    )
    diag = diagnose_reading(
        supply_c=args.supply_temperature,
        evap_sat_c=args.evaporator_refrigerant_temperature,
        leaving_cw_c=args.condenser_water_return_temperature,
        cond_sat_c=args.condenser_refrigerant_temperature,
        percent_loaded=args.percent_loaded,
        setpoint_c=args.setpoint_temperature,
        liquid_c=args.condenser_liquid_temperature,
        discharge_c=args.discharge_temperature,
        design=DesignValues(
            evaporator_approach_k=design["design_evaporator_approach_k"],
            condenser_approach_k=design["design_condenser_approach_k"],
            subcooling_k=design["design_subcooling_k"],
            discharge_superheat_k=design["design_discharge_superheat_k"],
        ),
    )
    findings: list[Finding] = list(diag.findings)
    status: Literal["normal", "fault", "not_running"] = (
        "not_running" if findings == ["not_running"]
        else "normal" if findings == ["normal"] else "fault"
    )
    return FaultDiagnosis(
        **diag.model_dump(),
        asset_name=args.asset_name,
        failure_codes=[FAILURE_CODE_OF[f] for f in findings if f in FAILURE_CODE_OF],
        status=status,
        design_source=source,
    )
