"""Chiller diagnostics: approaches, ranges, kW/ton against the design curve, IPLV, fault rules.

Temperatures in °C (differences in K), power in kW, flows in L/s.

Definitions (standard HVAC usage, e.g. ASHRAE Handbook—HVAC Systems and Equipment, chapter
"Liquid-Chilling Systems"; manufacturers' operation and maintenance manuals):

- Evaporator approach = leaving chilled water − evaporator refrigerant saturation temperature.
- Condenser approach = condenser refrigerant saturation temperature − leaving condenser water.
- Chilled-water range (ΔT) = return − supply; condenser-water range = leaving − entering.
- Liquid subcooling = condenser saturation temperature − liquid refrigerant temperature.
- Water-side heat flow Q = ρ·c_p·V̇·ΔT with ρ·c_p = 4.186 kJ/(L·K) (water near 10–30 °C,
  ρ ≈ 1 kg/L, c_p = 4.186 kJ/(kg·K)); V̇ in L/s gives kW.
- Heat balance error = (Q_evap + P − Q_cond) / Q_cond × 100 (first law: the condenser
  rejects the evaporator load plus the compressor input of a hermetic machine). We call a
  balance within ±5 % closed (:data:`HEAT_BALANCE_LIMIT_PCT`): a convention of chiller test
  and field-verification practice; AHRI 550/590's own test tolerance is not reproduced here.
- kW/ton degradation = (measured kW/ton / design-model kW/ton at the same load and water
  temperatures − 1) × 100, the design model being :mod:`assets.chiller.performance`.

IPLV (AHRI Standard 550/590 (I-P), section "Integrated Part Load Value"): with efficiencies
A, B, C, D at 100 %, 75 %, 50 % and 25 % load, for COP or EER (higher is better)
IPLV = 0.01·A + 0.42·B + 0.45·C + 0.12·D, and for kW/ton (lower is better)
IPLV = 1 / (0.01/A + 0.42/B + 0.45/C + 0.12/D). The rating conditions for water-cooled
chillers are 44 °F (6.67 °C) leaving chilled water and entering condenser water of 85, 75,
65 and 65 °F (29.44, 23.89, 18.33, 18.33 °C) at 100/75/50/25 % load. We do not apply the
standard's degradation adjustment for a chiller that cannot unload to a rating point.

Fault rules (:func:`diagnose`): thresholds are conventions from manufacturers' service
literature and field commissioning guides, not figures of a standard. A rise of the
evaporator or condenser approach by 3 °F (1.67 K) or more above the clean design approach
at the same load is treated as abnormal. Liquid subcooling separates causes that raise the
same approach (the usual service-literature reading): a high condenser approach with
subcooling 5 °F (2.78 K) or more above design points to non-condensable gas (purge problem:
the gas adds pressure, so the saturation temperature read from pressure rises while the
liquid does not), otherwise to fouled condenser tubes; a high evaporator approach with
subcooling 5 °F or more below design points to low refrigerant charge, otherwise to fouled
evaporator tubes. Compressor overheating: discharge superheat (discharge − condenser
saturation temperature) 10 K or more above design, a convention.

Readings-level rules (:func:`diagnose_reading`, what the ``diagnose_chiller_fault`` tool and
the simulated BMS alerts apply to one hourly record):

- the clean ("expected") approach at part load is the design (full-load) approach × load
  fraction: at constant heat-transfer coefficient the approach scales with the heat flux;
- below 10 % load (:data:`MIN_RUNNING_PCT`) the machine is treated as not running and
  nothing is assessed;
- sensor drift: a centrifugal chiller below full load holds its leaving chilled-water
  setpoint, so a supply reading 1 K or more above the setpoint (:data:`DRIFT_OFFSET_K`) at
  less than 95 % load points to the sensor; the evaporator approach is then taken from the
  setpoint instead of the suspect reading (a convention); at 95 % load or more a supply
  1 K or more above the setpoint may be real (the machine at its capacity limit) or a
  drifting sensor, so the evaporator rules are not applied to that record
  (``evaporator_assessed`` False);
- then the approach, subcooling and superheat rules above.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assets.chiller.performance import KW_PER_TON, EirChiller, chiller_performance
from generator.api import UserError

WATER_RHO_CP = 4.186
"""ρ·c_p of water in kJ/(L·K)."""

IPLV_WEIGHTS: tuple[float, float, float, float] = (0.01, 0.42, 0.45, 0.12)
"""AHRI 550/590 weights at 100, 75, 50 and 25 % load."""
IPLV_LOADS: tuple[float, float, float, float] = (1.00, 0.75, 0.50, 0.25)
IPLV_ECWT_F: tuple[float, float, float, float] = (85.0, 75.0, 65.0, 65.0)
"""Entering condenser water (°F) of the IPLV rating points, water-cooled."""
IPLV_LCHWT_F = 44.0

APPROACH_RISE_K = 3.0 * 5.0 / 9.0  # 3 °F, a service-literature convention
SUBCOOLING_SHIFT_K = 5.0 * 5.0 / 9.0  # 5 °F, a service-literature convention
SUPERHEAT_RISE_K = 10.0  # a convention
HEAT_BALANCE_LIMIT_PCT = 5.0
MIN_RUNNING_PCT = 10.0  # below it the approaches are not assessed (the DOE-2 minimum PLR)
DRIFT_OFFSET_K = 1.0  # supply − setpoint that flags a drifting supply sensor, a convention
DRIFT_MAX_LOAD_PCT = 95.0  # below this load the machine holds its setpoint

Diagnosis = Literal[
    "normal",
    "condenser_fouling",
    "purge_problem",
    "evaporator_fouling",
    "low_refrigerant_charge",
    "compressor_overheating",
]

Finding = Literal[
    "normal",
    "condenser_fouling",
    "purge_problem",
    "evaporator_fouling",
    "low_refrigerant_charge",
    "compressor_overheating",
    "sensor_drift",
    "not_running",
]
"""What :func:`diagnose_reading` may find: the failure-mode ids of ``asset.yaml`` plus
``normal`` and ``not_running``."""


def f_to_c(f: float) -> float:
    """°C = (°F − 32) × 5/9."""
    return (f - 32.0) * 5.0 / 9.0


def evaporator_approach(leaving_chw_c: float, evap_sat_c: float) -> float:
    """Leaving chilled water − evaporator refrigerant saturation temperature (K)."""
    return leaving_chw_c - evap_sat_c


def condenser_approach(cond_sat_c: float, leaving_cw_c: float) -> float:
    """Condenser refrigerant saturation temperature − leaving condenser water (K)."""
    return cond_sat_c - leaving_cw_c


def water_range(warm_c: float, cold_c: float) -> float:
    """Range (ΔT) of a water circuit: warm side − cold side (K)."""
    return warm_c - cold_c


def water_heat_kw(flow_l_s: float, delta_t_k: float) -> float:
    """Q = ρ·c_p·V̇·ΔT (kW) with ρ·c_p = 4.186 kJ/(L·K)."""
    return WATER_RHO_CP * flow_l_s * delta_t_k


def heat_balance_pct(evap_kw: float, power_kw: float, cond_kw: float) -> float:
    """(Q_evap + P − Q_cond) / Q_cond × 100."""
    if not cond_kw > 0:
        raise UserError("heat balance needs a positive condenser heat", value=cond_kw)
    return (evap_kw + power_kw - cond_kw) / cond_kw * 100.0


def heat_balance_closes(evap_kw: float, power_kw: float, cond_kw: float) -> bool:
    """|heat balance error| ≤ 5 % (a convention, see the module docstring)."""
    return abs(heat_balance_pct(evap_kw, power_kw, cond_kw)) <= HEAT_BALANCE_LIMIT_PCT


def kw_per_ton(power_kw: float, cooling_kw: float) -> float:
    """kW/ton = P / (Q / 3.516852)."""
    if not cooling_kw > 0:
        raise UserError(
            "kW/ton needs a positive cooling load", value=cooling_kw, fix="pass cooling_kw > 0"
        )
    return power_kw / (cooling_kw / KW_PER_TON)


def kw_per_ton_degradation_pct(measured_kw_per_ton: float, design_kw_per_ton: float) -> float:
    """(measured / design − 1) × 100: positive means worse than the design curve."""
    if not design_kw_per_ton > 0:
        raise UserError("design kW/ton must be positive", value=design_kw_per_ton)
    return (measured_kw_per_ton / design_kw_per_ton - 1.0) * 100.0


def design_kw_per_ton(
    chiller: EirChiller, load_kw: float, leaving_chw_c: float, entering_cw_c: float
) -> float:
    """kW/ton the design model gives at this load and these water temperatures."""
    perf = chiller_performance(chiller, load_kw, leaving_chw_c, entering_cw_c)
    if perf.kw_per_ton is None:
        raise UserError("no design kW/ton at zero load", value=load_kw, fix="pass load_kw > 0")
    return perf.kw_per_ton


def _four(values: Sequence[float], what: str) -> tuple[float, float, float, float]:
    if len(values) != 4 or not all(v > 0 for v in values):
        raise UserError(
            f"IPLV needs four positive {what} at 100/75/50/25 % load",
            value=list(values),
            fix="pass [A, B, C, D]",
        )
    a, b, c, d = values
    return a, b, c, d


def iplv_cop(cops: Sequence[float]) -> float:
    """IPLV = 0.01·A + 0.42·B + 0.45·C + 0.12·D for COP (or EER) values A..D."""
    values = _four(cops, "COP values")
    return sum(w * v for w, v in zip(IPLV_WEIGHTS, values, strict=True))


def iplv_kw_per_ton(kw_per_tons: Sequence[float]) -> float:
    """IPLV = 1 / (0.01/A + 0.42/B + 0.45/C + 0.12/D) for kW/ton values A..D."""
    values = _four(kw_per_tons, "kW/ton values")
    return 1.0 / sum(w / v for w, v in zip(IPLV_WEIGHTS, values, strict=True))


class IplvResult(BaseModel):
    """IPLV of the performance model at the AHRI 550/590 water-cooled rating points."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kw_per_ton: tuple[float, float, float, float] = Field(
        description="kW/ton at 100/75/50/25 % of the full-load rating capacity"
    )
    iplv_kw_per_ton: float = Field(description="1 / Σ w_i / (kW/ton)_i")
    iplv_cop: float = Field(description="Σ w_i · COP_i")
    clamped_points: list[int] = Field(
        description="Rating loads (%) whose temperatures lay outside a curve's range"
    )


def model_iplv(chiller: EirChiller) -> IplvResult:
    """IPLV of ``chiller``'s curves: loads are fractions of the capacity at 44 °F / 85 °F.

    Curve inputs outside their fitted range are limited as EnergyPlus does, and listed in
    ``clamped_points`` (the DOE-2 centrifugal curves stop at 24 °C entering condenser water).
    """
    lchw = f_to_c(IPLV_LCHWT_F)
    full = chiller_performance(chiller, 0.0, lchw, f_to_c(IPLV_ECWT_F[0]))
    rated_kw = full.available_capacity_kw
    kwt: list[float] = []
    clamped: list[int] = []
    for load, ecwt_f in zip(IPLV_LOADS, IPLV_ECWT_F, strict=True):
        perf = chiller_performance(chiller, load * rated_kw, lchw, f_to_c(ecwt_f))
        if perf.kw_per_ton is None:  # pragma: no cover - positive load always delivers
            raise UserError("no kW/ton at an IPLV point", value=load)
        kwt.append(perf.kw_per_ton)
        if perf.temperatures_clamped:
            clamped.append(round(load * 100))
    a, b, c, d = kwt
    return IplvResult(
        kw_per_ton=(a, b, c, d),
        iplv_kw_per_ton=iplv_kw_per_ton(kwt),
        iplv_cop=iplv_cop([KW_PER_TON / v for v in kwt]),
        clamped_points=clamped,
    )


class DiagnosisInputs(BaseModel):
    """Readings and clean-unit design values for the fault rules."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evaporator_approach_k: float = Field(description="Measured evaporator approach (K)")
    condenser_approach_k: float = Field(description="Measured condenser approach (K)")
    design_evaporator_approach_k: float = Field(
        description="Clean-unit evaporator approach at the same load (K)"
    )
    design_condenser_approach_k: float = Field(
        description="Clean-unit condenser approach at the same load (K)"
    )
    subcooling_k: float | None = Field(
        default=None, description="Measured liquid subcooling (K); None when not measured"
    )
    design_subcooling_k: float | None = Field(
        default=None, description="Clean-unit liquid subcooling (K)"
    )
    discharge_superheat_k: float | None = Field(
        default=None, description="Discharge − condenser saturation temperature (K)"
    )
    design_discharge_superheat_k: float | None = Field(
        default=None, description="Clean-unit discharge superheat (K)"
    )


class DiagnosisResult(BaseModel):
    """What the fault rules find, with the margins they compared."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    findings: list[Diagnosis] = Field(description="Faults found, or ['normal']")
    evaporator_approach_rise_k: float = Field(description="Measured − design (K)")
    condenser_approach_rise_k: float = Field(description="Measured − design (K)")
    subcooling_shift_k: float | None = Field(description="Measured − design subcooling (K)")
    superheat_rise_k: float | None = Field(description="Measured − design superheat (K)")


def diagnose(inputs: DiagnosisInputs) -> DiagnosisResult:
    """Apply the fault rules of the module docstring to one set of readings."""
    evap_rise = inputs.evaporator_approach_k - inputs.design_evaporator_approach_k
    cond_rise = inputs.condenser_approach_k - inputs.design_condenser_approach_k
    shift: float | None = None
    if inputs.subcooling_k is not None and inputs.design_subcooling_k is not None:
        shift = inputs.subcooling_k - inputs.design_subcooling_k
    sh_rise: float | None = None
    if (
        inputs.discharge_superheat_k is not None
        and inputs.design_discharge_superheat_k is not None
    ):
        sh_rise = inputs.discharge_superheat_k - inputs.design_discharge_superheat_k
    findings: list[Diagnosis] = []
    if cond_rise >= APPROACH_RISE_K:
        high_subcooling = shift is not None and shift >= SUBCOOLING_SHIFT_K
        findings.append("purge_problem" if high_subcooling else "condenser_fouling")
    if evap_rise >= APPROACH_RISE_K:
        low_subcooling = shift is not None and shift <= -SUBCOOLING_SHIFT_K
        findings.append("low_refrigerant_charge" if low_subcooling else "evaporator_fouling")
    if sh_rise is not None and sh_rise >= SUPERHEAT_RISE_K:
        findings.append("compressor_overheating")
    return DiagnosisResult(
        findings=findings or ["normal"],
        evaporator_approach_rise_k=evap_rise,
        condenser_approach_rise_k=cond_rise,
        subcooling_shift_k=shift,
        superheat_rise_k=sh_rise,
    )


class DesignValues(BaseModel):
    """Clean-unit design values the readings-level rules compare against."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    evaporator_approach_k: float = Field(
        default=1.1, ge=0, le=20, description="Clean evaporator approach at full load (K)"
    )
    condenser_approach_k: float = Field(
        default=1.1, ge=0, le=20, description="Clean condenser approach at full load (K)"
    )
    subcooling_k: float = Field(
        default=5.0, ge=0, le=30, description="Clean liquid subcooling (K)"
    )
    discharge_superheat_k: float = Field(
        default=8.0, ge=0, le=60, description="Clean discharge superheat (K)"
    )


DEFAULT_DESIGN = DesignValues()
"""The defaults (the simulator's clean-unit design values)."""


def expected_approach(design_full_load_k: float, percent_loaded: float) -> float:
    """Clean approach at part load: design (full-load) approach × percent_loaded / 100."""
    return design_full_load_k * percent_loaded / 100.0


class ReadingDiagnosis(BaseModel):
    """What the readings-level rules find on one record, with every compared value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    findings: list[Finding] = Field(description="Faults found, or ['normal'] / ['not_running']")
    evaporator_approach_k: float = Field(
        description="Leaving chilled water (the setpoint when drift is found) − evap saturation"
    )
    condenser_approach_k: float = Field(description="Condenser saturation − leaving CW (K)")
    expected_evaporator_approach_k: float = Field(description="Design × load fraction (K)")
    expected_condenser_approach_k: float = Field(description="Design × load fraction (K)")
    evaporator_approach_rise_k: float = Field(description="Measured − expected (K)")
    condenser_approach_rise_k: float = Field(description="Measured − expected (K)")
    subcooling_k: float | None = Field(description="Condenser saturation − liquid (K)")
    subcooling_shift_k: float | None = Field(description="Measured − design subcooling (K)")
    discharge_superheat_k: float | None = Field(description="Discharge − cond. saturation (K)")
    superheat_rise_k: float | None = Field(description="Measured − design superheat (K)")
    supply_offset_k: float | None = Field(description="Supply − setpoint (K)")
    evaporator_assessed: bool = Field(
        description="False when the evaporator rules were skipped (not running, or supply "
        "≥ 1 K above setpoint at ≥ 95 % load)"
    )


def diagnose_reading(
    *,
    supply_c: float,
    evap_sat_c: float,
    leaving_cw_c: float,
    cond_sat_c: float,
    percent_loaded: float,
    setpoint_c: float | None = None,
    liquid_c: float | None = None,
    discharge_c: float | None = None,
    design: DesignValues = DEFAULT_DESIGN,
) -> ReadingDiagnosis:
    """Apply the readings-level rules of the module docstring to one record."""
    offset = None if setpoint_c is None else supply_c - setpoint_c
    drift = (
        offset is not None
        and percent_loaded >= MIN_RUNNING_PCT
        and percent_loaded < DRIFT_MAX_LOAD_PCT
        and offset >= DRIFT_OFFSET_K
    )
    evap_assessed = percent_loaded >= MIN_RUNNING_PCT and not (
        offset is not None and offset >= DRIFT_OFFSET_K and percent_loaded >= DRIFT_MAX_LOAD_PCT
    )
    leaving = setpoint_c if drift and setpoint_c is not None else supply_c
    evap = evaporator_approach(leaving, evap_sat_c)
    cond = condenser_approach(cond_sat_c, leaving_cw_c)
    exp_evap = expected_approach(design.evaporator_approach_k, percent_loaded)
    exp_cond = expected_approach(design.condenser_approach_k, percent_loaded)
    subcooling = None if liquid_c is None else cond_sat_c - liquid_c
    superheat = None if discharge_c is None else discharge_c - cond_sat_c
    base = diagnose(
        DiagnosisInputs(
            evaporator_approach_k=evap,
            condenser_approach_k=cond,
            design_evaporator_approach_k=exp_evap,
            design_condenser_approach_k=exp_cond,
            subcooling_k=subcooling,
            design_subcooling_k=None if subcooling is None else design.subcooling_k,
            discharge_superheat_k=superheat,
            design_discharge_superheat_k=(
                None if superheat is None else design.discharge_superheat_k
            ),
        )
    )
    findings: list[Finding]
    if percent_loaded < MIN_RUNNING_PCT:
        findings = ["not_running"]
    else:
        skipped = () if evap_assessed else ("evaporator_fouling", "low_refrigerant_charge")
        found: list[Finding] = [f for f in base.findings if f != "normal" and f not in skipped]
        if drift:
            found.append("sensor_drift")
        findings = found or ["normal"]
    return ReadingDiagnosis(
        findings=findings,
        evaporator_approach_k=evap,
        condenser_approach_k=cond,
        expected_evaporator_approach_k=exp_evap,
        expected_condenser_approach_k=exp_cond,
        evaporator_approach_rise_k=base.evaporator_approach_rise_k,
        condenser_approach_rise_k=base.condenser_approach_rise_k,
        subcooling_k=subcooling,
        subcooling_shift_k=base.subcooling_shift_k,
        discharge_superheat_k=superheat,
        superheat_rise_k=base.superheat_rise_k,
        supply_offset_k=offset,
        evaporator_assessed=evap_assessed,
    )
