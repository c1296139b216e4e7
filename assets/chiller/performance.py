"""Part-load performance of an electric water-cooled chiller: the DOE-2 / EnergyPlus EIR model.

The model is EnergyPlus's ``Chiller:Electric:EIR`` (EnergyPlus Engineering Reference,
"Electric Chiller Model Based on Condenser Entering Temperature"), which is the DOE-2.1E
electric chiller model. Temperatures are in °C, powers in kW.

- Available capacity: Q_avail = Q_ref · CAPFT(T_chws, T_cond,in)
- Part-load ratio: PLR = Q_load / Q_avail, limited to [0, PLR_max]
- Power: P = P_ref · CAPFT · EIRFT(T_chws, T_cond,in) · EIRFPLR(max(PLR, MUR)) · f_cyc, with
  P_ref = Q_ref / COP_ref, MUR the minimum unloading ratio (below it the chiller false-loads
  with hot-gas bypass, so EIRFPLR is evaluated at MUR) and the cycling fraction
  f_cyc = min(1, PLR / PLR_min) (below the minimum part-load ratio the compressor cycles).
- CAPFT and EIRFT are biquadratics f(x, y) = a + b·x + c·x² + d·y + e·y² + f·x·y with
  x = leaving chilled-water temperature T_chws and y = entering condenser water temperature
  T_cond,in; EIRFPLR is the quadratic g(p) = c0 + c1·p + c2·p². As in EnergyPlus, each
  curve's inputs are limited to the curve's stated range before evaluation.
- Efficiency: COP = Q / P; kW/ton = P / (Q / 3.516852) (1 ton of refrigeration =
  12 000 Btu/h = 3.516852 kW), so kW/ton = 3.516852 / COP.

Reference curve set (:data:`DOE2_CENTRIFUGAL`): "DOE-2 Centrifugal/5.50COP" from EnergyPlus's
``DataSets/Chillers.idf`` (the DOE-2.1E default curves for a water-cooled centrifugal
chiller: COP_ref 5.5 at 6.67 °C leaving chilled water and 29.4 °C entering condenser water;
minimum part-load ratio 0.1, minimum unloading ratio 0.2, maximum part-load ratio 1.0; curve
ranges T_chws 5–10 °C, T_cond,in 24–35 °C). The coefficients were checked against the LBNL
Modelica Buildings Library record ``Buildings.Fluid.Chillers.Data.ElectricEIR.
DOE_2_Centrifugal_5_50COP``, which documents the same EnergyPlus object. At the reference
point the published curves give CAPFT = 1.00334 and EIRFT = 0.99909 (not exactly 1: the
coefficients are rounded to six figures), EIRFPLR(1) = 1 exactly, so P = 1.00243 · P_ref.
The reference capacity is a per-unit choice (EnergyPlus autosizes it).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from generator.api import UserError

KW_PER_TON = 3.516852
"""kW in one ton of refrigeration (12 000 Btu/h)."""

Celsius = Annotated[float, Field(ge=-20.0, le=60.0, allow_inf_nan=False)]
NonNegKw = Annotated[float, Field(ge=0.0, le=100_000.0, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BiquadraticCurve(_Strict):
    """f(x, y) = a + b·x + c·x² + d·y + e·y² + f·x·y with inputs limited to their range."""

    a: float = Field(description="Constant term")
    b: float = Field(description="Coefficient of x")
    c: float = Field(description="Coefficient of x²")
    d: float = Field(description="Coefficient of y")
    e: float = Field(description="Coefficient of y²")
    f: float = Field(description="Coefficient of x·y")
    x_min: float = Field(description="Lowest x the curve was fitted on (°C)")
    x_max: float = Field(description="Highest x the curve was fitted on (°C)")
    y_min: float = Field(description="Lowest y the curve was fitted on (°C)")
    y_max: float = Field(description="Highest y the curve was fitted on (°C)")

    def clamp(self, x: float, y: float) -> tuple[float, float]:
        """The inputs limited to the curve's range (EnergyPlus behaviour)."""
        return min(max(x, self.x_min), self.x_max), min(max(y, self.y_min), self.y_max)

    def __call__(self, x: float, y: float, *, limit: bool = True) -> float:
        """Evaluate the curve at (x, y), by default after limiting both to their range."""
        if limit:
            x, y = self.clamp(x, y)
        return (
            self.a + self.b * x + self.c * x * x + self.d * y + self.e * y * y + self.f * x * y
        )


class QuadraticCurve(_Strict):
    """g(p) = c0 + c1·p + c2·p² with p limited to its range."""

    c0: float = Field(description="Constant term")
    c1: float = Field(description="Coefficient of p")
    c2: float = Field(description="Coefficient of p²")
    p_min: float = Field(default=0.0, description="Lowest p the curve was fitted on")
    p_max: float = Field(default=1.0, description="Highest p the curve was fitted on")

    def __call__(self, p: float) -> float:
        """Evaluate the curve at p after limiting it to its range."""
        p = min(max(p, self.p_min), self.p_max)
        return self.c0 + self.c1 * p + self.c2 * p * p


class EirChiller(_Strict):
    """Reference conditions and curves of one ``Chiller:Electric:EIR``."""

    name: str = Field(description="Curve set name, as in the source dataset")
    ref_capacity_kw: float = Field(gt=0, le=100_000, description="Reference capacity Q_ref (kW)")
    ref_cop: float = Field(gt=0, le=20, description="Reference COP (W/W)")
    ref_leaving_chw_c: float = Field(description="Reference leaving chilled water (°C)")
    ref_entering_cw_c: float = Field(description="Reference entering condenser water (°C)")
    capft: BiquadraticCurve = Field(description="Capacity as a function of temperatures")
    eirft: BiquadraticCurve = Field(description="EIR as a function of temperatures")
    eirfplr: QuadraticCurve = Field(description="EIR as a function of part-load ratio")
    min_plr: float = Field(gt=0, le=1, description="Minimum part-load ratio (cycles below)")
    max_plr: float = Field(ge=1, le=1.5, description="Maximum part-load ratio")
    min_unloading_ratio: float = Field(
        gt=0, le=1, description="Minimum unloading ratio (false-loads below)"
    )
    source: str = Field(description="Where the curves come from")

    @model_validator(mode="after")
    def _ordered(self) -> EirChiller:
        if self.min_unloading_ratio < self.min_plr:
            raise ValueError("min_unloading_ratio must be at least min_plr")
        return self

    @property
    def ref_power_kw(self) -> float:
        """P_ref = Q_ref / COP_ref (kW)."""
        return self.ref_capacity_kw / self.ref_cop

    def with_capacity(self, capacity_kw: float) -> EirChiller:
        """The same curves scaled to another reference capacity."""
        return self.model_copy(update={"ref_capacity_kw": capacity_kw})


DOE2_CENTRIFUGAL = EirChiller(
    name="DOE-2 Centrifugal/5.50COP",
    ref_capacity_kw=1758.426,  # 500 tons; EnergyPlus autosizes, so this is our choice
    ref_cop=5.5,
    ref_leaving_chw_c=6.67,
    ref_entering_cw_c=29.4,
    capft=BiquadraticCurve(
        a=0.257896, b=0.0389016, c=-0.000217080, d=0.0468684, e=-0.000942840, f=-0.000343440,
        x_min=5.0, x_max=10.0, y_min=24.0, y_max=35.0,
    ),
    eirft=BiquadraticCurve(
        a=0.933884, b=-0.0582120, c=0.00450036, d=0.00243000, e=0.000486000, f=-0.00121500,
        x_min=5.0, x_max=10.0, y_min=24.0, y_max=35.0,
    ),
    eirfplr=QuadraticCurve(c0=0.222903, c1=0.313387, c2=0.463710, p_min=0.0, p_max=1.0),
    min_plr=0.1,
    max_plr=1.0,
    min_unloading_ratio=0.2,
    source=(
        "EnergyPlus DataSets/Chillers.idf 'DOE-2 Centrifugal/5.50COP' (DOE-2.1E default "
        "centrifugal curves), as documented in the LBNL Modelica Buildings Library record "
        "Buildings.Fluid.Chillers.Data.ElectricEIR.DOE_2_Centrifugal_5_50COP"
    ),
)
"""The reference curve set for a centrifugal water-cooled chiller (see the module docstring)."""


class ChillerPerformance(_Strict):
    """The model's answer at one operating point."""

    capft: float = Field(description="CAPFT(T_chws, T_cond,in)")
    eirft: float = Field(description="EIRFT(T_chws, T_cond,in)")
    eirfplr: float = Field(description="EIRFPLR at max(PLR, minimum unloading ratio)")
    available_capacity_kw: float = Field(description="Q_ref · CAPFT (kW)")
    delivered_kw: float = Field(description="Cooling delivered: min(load, PLR_max · Q_avail)")
    plr: float = Field(description="Part-load ratio: delivered / available capacity")
    cycling_fraction: float = Field(description="min(1, PLR / PLR_min)")
    power_kw: float = Field(description="Compressor electric input (kW)")
    cop: float | None = Field(description="delivered / power; None when nothing is delivered")
    kw_per_ton: float | None = Field(description="power / (delivered / 3.516852)")
    temperatures_clamped: bool = Field(
        description="True when a temperature lay outside a curve's range and was limited"
    )


def kw_per_ton_from_cop(cop: float) -> float:
    """kW/ton = 3.516852 / COP."""
    if not cop > 0:
        raise UserError("COP must be positive", value=cop, fix="pass a COP above 0")
    return KW_PER_TON / cop


def cop_from_kw_per_ton(kw_per_ton: float) -> float:
    """COP = 3.516852 / (kW/ton)."""
    if not kw_per_ton > 0:
        raise UserError("kW/ton must be positive", value=kw_per_ton, fix="pass a value above 0")
    return KW_PER_TON / kw_per_ton


def chiller_performance(
    chiller: EirChiller,
    load_kw: float,
    leaving_chw_c: float,
    entering_cw_c: float,
    *,
    limit_to_curve_range: bool = True,
) -> ChillerPerformance:
    """Power and efficiency of ``chiller`` meeting ``load_kw`` at the given water temperatures.

    Args:
        chiller: Reference conditions and curves.
        load_kw: Cooling asked of the chiller (kW, ≥ 0).
        leaving_chw_c: Leaving chilled water temperature T_chws (°C).
        entering_cw_c: Entering condenser water temperature T_cond,in (°C).
        limit_to_curve_range: Limit the temperatures to the curves' range (EnergyPlus
            behaviour); False extrapolates the biquadratics (used by the simulator for the
            effective temperatures of a faulty machine, which lie beyond a clean one's range).

    Returns:
        The curve values, capacity, part-load ratio, power, COP and kW/ton.
    """
    for label, value, low, high in (
        ("load_kw", load_kw, 0.0, 100_000.0),
        ("leaving_chw_c", leaving_chw_c, -20.0, 60.0),
        ("entering_cw_c", entering_cw_c, -20.0, 60.0),
    ):
        if not low <= value <= high:  # also rejects NaN
            raise UserError(
                f"chiller_performance: {label} out of range [{low}, {high}]",
                value=value,
                fix=f"pass a finite {label} within the range",
            )
    clamped = limit_to_curve_range and (
        chiller.capft.clamp(leaving_chw_c, entering_cw_c) != (leaving_chw_c, entering_cw_c)
        or chiller.eirft.clamp(leaving_chw_c, entering_cw_c) != (leaving_chw_c, entering_cw_c)
    )
    capft = chiller.capft(leaving_chw_c, entering_cw_c, limit=limit_to_curve_range)
    eirft = chiller.eirft(leaving_chw_c, entering_cw_c, limit=limit_to_curve_range)
    available = chiller.ref_capacity_kw * capft
    delivered = min(load_kw, chiller.max_plr * available)
    plr = delivered / available if available > 0 else 0.0
    eirfplr = chiller.eirfplr(max(plr, chiller.min_unloading_ratio))
    cycling = min(1.0, plr / chiller.min_plr)
    power = chiller.ref_power_kw * capft * eirft * eirfplr * cycling if delivered > 0 else 0.0
    cop = delivered / power if delivered > 0 and power > 0 else None
    return ChillerPerformance(
        capft=capft,
        eirft=eirft,
        eirfplr=eirfplr,
        available_capacity_kw=available,
        delivered_kw=delivered,
        plr=plr,
        cycling_fraction=cycling,
        power_kw=power,
        cop=cop,
        kw_per_ton=None if cop is None else KW_PER_TON / cop,
        temperatures_clamped=clamped,
    )
