"""Oil-quality tool of the transformer class (domain "fmsr"): IEC 60422 categories.

A thin wrapper around :func:`assets.transformer.oil_quality.assess_oil_quality`: a pydantic
argument model (``extra="forbid"``, numbers strict) and the computing function's result. The
tool needs no store: the caller passes the measured values and either the IEC 60422
equipment category or the unit's highest system voltage (the nameplate's HV rating).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from assets.transformer.oil_quality import (
    CATEGORIES,
    STANDARD,
    EquipmentCategory,
    OilQualityAssessment,
    Parameter,
    assess_oil_quality,
    category_for_voltage,
)
from generator.api import ToolContext, UserError, tool

DOMAIN = "fmsr"
ASSET_CLASSES = ("transformer",)


class OilQualityArgs(BaseModel):
    """Arguments of the ``assess_oil_quality`` tool (one laboratory oil sample)."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(
        min_length=1, strict=True, description="Asset the oil sample was taken from."
    )
    water_content: float | None = Field(
        default=None, ge=0, le=1000, strict=True, allow_inf_nan=False,
        description="Water content, mg/kg (ppm) corrected to 20 °C; omit if not measured.",
    )
    dielectric_rigidity: float | None = Field(
        default=None, ge=0, le=200, strict=True, allow_inf_nan=False,
        description="Breakdown voltage, kV (IEC 60156, 2.5 mm gap); omit if not measured.",
    )
    interfacial_v: float | None = Field(
        default=None, ge=0, le=100, strict=True, allow_inf_nan=False,
        description="Interfacial tension, mN/m (uninhibited oil); omit if not measured.",
    )
    acidity: float | None = Field(
        default=None, ge=0, le=10, strict=True, allow_inf_nan=False,
        description="Neutralisation number (acidity), mg KOH/g; omit if not measured.",
    )
    category: EquipmentCategory | None = Field(
        default=None,
        description="IEC 60422 equipment category: O (≥ 400 kV), A (170-400 kV), "
        "B (72.5-170 kV) or C (≤ 72.5 kV); give this or voltage_kv.",
    )
    voltage_kv: float | None = Field(
        default=None, gt=0, le=1200, strict=True, allow_inf_nan=False,
        description="Highest system voltage of the unit, kV (its HV rating); sets the "
        "category when category is not given.",
    )


def _values(args: OilQualityArgs) -> dict[Parameter, float]:
    raw: dict[Parameter, float | None] = {
        "water_content": args.water_content,
        "dielectric_rigidity": args.dielectric_rigidity,
        "interfacial_v": args.interfacial_v,
        "acidity": args.acidity,
    }
    return {k: v for k, v in raw.items() if v is not None}


@tool(
    "assess_oil_quality",
    domain=DOMAIN,
    asset_classes=ASSET_CLASSES,
    args=OilQualityArgs,
    result=OilQualityAssessment,
    standard=STANDARD,
)
async def assess_oil_quality_tool(args: OilQualityArgs, ctx: ToolContext) -> OilQualityAssessment:
    """Categorise an oil sample's water content, breakdown voltage, interfacial tension and
    acidity as good, fair or poor (IEC 60422:2013 Table 5 limits for the unit's equipment
    category) and decide the treatment: none, monitor, recondition or reclaim.
    """
    values = _values(args)
    if not values:
        raise UserError(
            f"assess_oil_quality for {args.asset_name}: no oil-quality value given",
            options=["water_content", "dielectric_rigidity", "interfacial_v", "acidity"],
            fix="pass at least one measured value",
        )
    if args.category is None and args.voltage_kv is None:
        raise UserError(
            f"assess_oil_quality for {args.asset_name}: no equipment category",
            options=list(CATEGORIES),
            fix="pass category, or voltage_kv (the unit's highest system voltage, kV)",
        )
    if args.category is not None:
        if args.voltage_kv is not None and category_for_voltage(args.voltage_kv) != args.category:
            raise UserError(
                f"assess_oil_quality for {args.asset_name}: category {args.category} does not "
                f"match voltage_kv",
                value=args.voltage_kv,
                options=[f"category {category_for_voltage(args.voltage_kv)}"],
                fix="pass only one of category and voltage_kv, or make them agree",
            )
        return assess_oil_quality(args.asset_name, values, args.category, "argument")
    assert args.voltage_kv is not None
    return assess_oil_quality(
        args.asset_name, values, category_for_voltage(args.voltage_kv), "voltage"
    )
