"""Deterministic diagnostic tools of the transformer asset class (domain "fmsr").

Each tool is a thin wrapper: a pydantic argument model (``extra="forbid"``, numbers strict:
no bools or numeric strings), a call of the computing function in this package, and that
function's result model. Importing this module registers the tools in
the tool registry, as tools of the transformer class only.

Nameplate-aware tools (``assess_winding_temperature``, ``assess_load_profile``,
``compute_hot_spot``, ``compute_loss_of_life``) read the asset's nameplate from ``ctx.store``
only when a nameplate fact (paper, cooling, size class, rating) is not given as an argument;
a call with every value explicit never touches the store.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from assets.transformer.dga import STANDARD as DGA_STANDARD
from assets.transformer.dga import DgaInterpretation, Edition, Ppm, interpret_dga
from assets.transformer.health_index import (
    CITATION as HEALTH_INDEX_CITATION,
)
from assets.transformer.health_index import (
    HealthIndexPrediction,
    HealthInputs,
    load_estimator,
    predict_health_index,
)
from assets.transformer.loading import STANDARD as LOAD_STANDARD
from assets.transformer.loading import LoadAssessment, LoadInputs, assess_load_profile
from assets.transformer.nameplate import NameplateFacts, lookup_nameplate
from assets.transformer.winding import (
    STANDARD_EQA,
    STANDARD_THERMAL,
    STANDARD_WINDING,
    EquivalentAgeingInputs,
    EquivalentAgeingResult,
    HotSpotInputs,
    HotSpotResult,
    LossOfLifeInputs,
    LossOfLifeResult,
    WindingAssessment,
    WindingInputs,
    assess_winding_temperature,
    compute_equivalent_ageing,
    compute_hot_spot,
    compute_loss_of_life,
)
from generator.api import ToolContext, to_thread, tool

DOMAIN = "fmsr"
ASSET_CLASSES = ("transformer",)


class DgaArgs(BaseModel):
    """Arguments of the ``interpret_dga`` tool."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(
        min_length=1, strict=True, description="Asset the oil sample was taken from."
    )
    hydrogen: Ppm = Field(description="Dissolved H2, ppm.")
    methane: Ppm = Field(description="Dissolved CH4, ppm.")
    acetylene: Ppm = Field(description="Dissolved C2H2, ppm.")
    ethylene: Ppm = Field(description="Dissolved C2H4, ppm.")
    ethane: Ppm = Field(description="Dissolved C2H6, ppm.")
    co: Ppm | None = Field(default=None, description="Dissolved CO, ppm; omit if not measured.")
    co2: Ppm | None = Field(default=None, description="Dissolved CO2, ppm; omit if not measured.")
    oxygen: Ppm | None = Field(
        default=None,
        description="Dissolved O2, ppm; with nitrogen it picks the IEEE C57.104-2019 O2/N2 "
        "column (used by edition 2019 only); omit if not measured.",
    )
    nitrogen: Ppm | None = Field(
        default=None,
        description="Dissolved N2, ppm; with oxygen it picks the IEEE C57.104-2019 O2/N2 "
        "column (used by edition 2019 only); omit if not measured.",
    )
    age_years: float | None = Field(
        default=None,
        ge=0,
        le=200,
        allow_inf_nan=False,
        strict=True,
        description="Transformer age in years; picks the IEEE C57.104-2019 age column "
        "(1-9, 10-30, >30; used by edition 2019 only); omit if unknown.",
    )
    edition: Edition = Field(
        default="2008",
        description="IEEE C57.104 edition: '2008' (Table 1 conditions 1-4 and TDCG, the "
        "default) or '2019' (DGA status 1-3 from Tables 1 and 2 by O2/N2 ratio and age).",
    )


class LoadProfileArgs(LoadInputs):
    """Arguments of the ``assess_load_profile`` tool (one three-phase reading)."""


class WindingArgs(WindingInputs):
    """Arguments of the ``assess_winding_temperature`` tool (one WTI/OTI/ATI reading)."""


class HealthIndexArgs(HealthInputs):
    """Arguments of the ``predict_health_index`` tool (one oil sample)."""

    asset_name: str = Field(
        min_length=1, strict=True, description="Asset the oil sample was taken from."
    )
    acidity: float | None = Field(
        default=None,
        ge=0,
        le=100,
        allow_inf_nan=False,
        strict=True,
        description="Neutralisation number, mg KOH/g; scored in the oil-quality factor when "
        "given (omit if not measured).",
    )


async def _facts(
    ctx: ToolContext, tool: str, asset_name: str, given: dict[str, object]
) -> NameplateFacts | None:
    """The nameplate facts when some are missing from the arguments, else None (no store)."""
    missing = [name for name, value in given.items() if value is None]
    if not missing:
        return None
    return await lookup_nameplate(ctx, asset_name, tool, missing)


class HotSpotArgs(HotSpotInputs):
    """Arguments of the ``compute_hot_spot`` tool."""


class LossOfLifeArgs(LossOfLifeInputs):
    """Arguments of the ``compute_loss_of_life`` tool."""


class EquivalentAgeingArgs(EquivalentAgeingInputs):
    """Arguments of the ``compute_equivalent_ageing`` tool."""


@tool(
    "interpret_dga",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=DgaArgs,
    result=DgaInterpretation,
    standard=DGA_STANDARD,
)
def interpret_dga_tool(args: DgaArgs, ctx: ToolContext) -> DgaInterpretation:
    """Interpret a dissolved gas analysis: IEC 60599 ratio class, Rogers codes, Duval triangle 1
    and the IEEE C57.104 level (edition 2008: Table 1 condition 1-4, the default; edition
    2019: DGA status 1-3 from Tables 1 and 2 by O2/N2 ratio and transformer age), with a
    confidence and a recommended action.

    Concentrations in ppm; CO, CO2, O2, N2 and the age are optional.
    """
    return interpret_dga(
        args.asset_name,
        args.hydrogen,
        args.methane,
        args.acetylene,
        args.ethylene,
        args.ethane,
        args.co,
        args.co2,
        oxygen=args.oxygen,
        nitrogen=args.nitrogen,
        age_years=args.age_years,
        edition=args.edition,
    )


@tool(
    "assess_load_profile",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=LoadProfileArgs,
    result=LoadAssessment,
    standard=LOAD_STANDARD,
)
async def assess_load_profile_tool(args: LoadProfileArgs, ctx: ToolContext) -> LoadAssessment:
    """Assess one three-phase reading: apparent power, load factor and loading band (IEC
    60076-7 current limits of the unit's size class), current imbalance, voltage unbalance and
    neutral current.

    Voltages in kV, currents in A, rated power in MVA. rated_mva / size_class default to the
    asset's nameplate in the store.
    """
    # The size class, when not given, is derived from the rating: only rated_mva needs a lookup.
    facts = await _facts(
        ctx, "assess_load_profile", args.asset_name, {"rated_mva": args.rated_mva}
    )
    return assess_load_profile(
        args.asset_name,
        args.vl1,
        args.vl2,
        args.vl3,
        args.il1,
        args.il2,
        args.il3,
        args.vl12,
        args.vl23,
        args.vl31,
        args.inut,
        args.rated_mva,
        size_class=args.size_class,
        nameplate=facts,
    )


@tool(
    "assess_winding_temperature",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=WindingArgs,
    result=WindingAssessment,
    standard=STANDARD_WINDING,
)
async def assess_winding_temperature_tool(
    args: WindingArgs, ctx: ToolContext
) -> WindingAssessment:
    """Assess a winding/top-oil/ambient temperature reading: hot spot (the WTI reading),
    temperature rises, relative ageing rate (by insulation paper), IEC 60076-7 loading band
    (by size class), alarm/trip state and contact inconsistencies, and a risk level.

    oti_a and oti_t are the OTI alarm and trip contact states (1 = active, 0 = not). paper and
    size_class default to the asset's nameplate in the store (else kraft / medium).
    """
    facts = await _facts(
        ctx,
        "assess_winding_temperature",
        args.asset_name,
        {"paper": args.paper, "size_class": args.size_class},
    )
    return assess_winding_temperature(
        args.asset_name,
        args.wti,
        args.oti,
        args.ati,
        args.oti_a,
        args.oti_t,
        args.paper,
        args.wti_alarm,
        args.wti_trip,
        args.oti_alarm,
        args.oti_trip,
        size_class=args.size_class,
        cooling=args.cooling,
        nameplate=facts,
    )


@tool(
    "predict_health_index",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=HealthIndexArgs,
    result=HealthIndexPrediction,
    standard=HEALTH_INDEX_CITATION,
)
async def predict_health_index_tool(
    args: HealthIndexArgs, ctx: ToolContext
) -> HealthIndexPrediction:
    """Score a transformer health index (0–100) and condition band from one oil sample
    (dissolved gases and oil quality) by the rule-based Jahromi et al. 2009 table, with a
    monotone learned estimate beside it.

    Acidity is optional and scored when given. The model is trained on the project's
    rule-based score, not on field data.
    """
    # The first call reads the trees file (milliseconds), or, where it is missing or stale,
    # loads the model (sklearn import and unpickling, seconds): in a worker thread, so
    # other domains' work goes on meanwhile.
    await to_thread(load_estimator)
    return predict_health_index(
        args.asset_name,
        args.hydrogen,
        args.oxygen,
        args.nitrogen,
        args.methane,
        args.co,
        args.co2,
        args.ethylene,
        args.ethane,
        args.acetylene,
        args.dbds,
        args.power_factor,
        args.interfacial_v,
        args.dielectric_rigidity,
        args.water_content,
        args.acidity,
    )


@tool(
    "compute_hot_spot",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=HotSpotArgs,
    result=HotSpotResult,
    standard=STANDARD_THERMAL,
)
async def compute_hot_spot_tool(args: HotSpotArgs, ctx: ToolContext) -> HotSpotResult:
    """Compute the steady-state top-oil and hot-spot temperatures and the relative ageing rate
    for a load factor, ambient temperature and cooling class (IEC 60076-7).

    cooling and paper default to the asset's nameplate in the store (else ONAN / kraft).
    """
    facts = await _facts(
        ctx, "compute_hot_spot", args.asset_name, {"cooling": args.cooling, "paper": args.paper}
    )
    return compute_hot_spot(
        args.asset_name,
        args.load_factor,
        args.ambient_c,
        args.cooling,
        args.paper,
        nameplate=facts,
    )


@tool(
    "compute_loss_of_life",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=LossOfLifeArgs,
    result=LossOfLifeResult,
    standard=STANDARD_THERMAL,
)
async def compute_loss_of_life_tool(
    args: LossOfLifeArgs, ctx: ToolContext
) -> LossOfLifeResult:
    """Simulate top-oil and hot-spot temperatures over a series of load factors and ambients
    (IEC 60076-7 dynamic model) and compute the insulation loss of life and peak hot spot.

    cooling and paper default to the asset's nameplate in the store (else ONAN / kraft).
    """
    facts = await _facts(
        ctx,
        "compute_loss_of_life",
        args.asset_name,
        {"cooling": args.cooling, "paper": args.paper},
    )
    return compute_loss_of_life(
        args.asset_name,
        list(args.load_factors),
        args.ambient_c if not isinstance(args.ambient_c, list) else list(args.ambient_c),
        args.step_minutes,
        args.cooling,
        args.paper,
        nameplate=facts,
    )


@tool(
    "compute_equivalent_ageing",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=EquivalentAgeingArgs,
    result=EquivalentAgeingResult,
    standard=STANDARD_EQA,
)
def compute_equivalent_ageing_tool(
    args: EquivalentAgeingArgs, ctx: ToolContext
) -> EquivalentAgeingResult:
    """Compute the IEEE C57.91 equivalent ageing factor F_EQA over a window of equally spaced
    hot-spot temperatures, with the equivalent aged hours and the share of normal life.
    """
    return compute_equivalent_ageing(args.asset_name, list(args.hot_spot_c), args.step_minutes)


TOOL_NAMES: tuple[str, ...] = (
    "interpret_dga",
    "assess_load_profile",
    "assess_winding_temperature",
    "predict_health_index",
    "compute_hot_spot",
    "compute_loss_of_life",
    "compute_equivalent_ageing",
)
