"""The chiller audit's own implementations of the formulas the chiller references rest on.

Written from the published sources, not from the class's tools or its diagnostic modules:

- **Electric EIR chiller model** (EnergyPlus Engineering Reference, "Electric Chiller Model
  Based on Condenser Entering Temperature", the DOE-2.1E model):
  ``CAPFT(x, y)`` and ``EIRFT(x, y)`` biquadratics ``a + b·x + c·x² + d·y + e·y² + f·x·y`` of
  leaving chilled water x and entering condenser water y (°C), ``EIRFPLR(p) = c0 + c1·p +
  c2·p²``; ``Q_avail = Q_ref·CAPFT``, ``PLR = Q/Q_avail`` (at most PLR_max),
  ``P = (Q_ref/COP_ref)·CAPFT·EIRFT·EIRFPLR(max(PLR, MUR))·min(1, PLR/PLR_min)``.
  EnergyPlus limits each curve input to the curve's range before evaluating it.
  Curves: "DOE-2 Centrifugal/5.50COP" as published in the LBNL Modelica Buildings Library
  record ``Buildings.Fluid.Chillers.Data.ElectricEIR.DOE_2_Centrifugal_5_50COP`` (from
  EnergyPlus ``DataSets/Chillers.idf``): COP 5.5 at 6.67 / 29.4 °C, PLR_min 0.1, MUR 0.2,
  PLR_max 1.0, curve ranges 5–10 °C and 24–35 °C.
- **Refrigeration ton**: 12 000 Btu/h = 3.516852 kW; kW/ton = P / (Q / 3.516852).
- **IPLV** (AHRI Standard 550/590 (I-P)): weights 0.01, 0.42, 0.45, 0.12 at 100, 75, 50 and
  25 % load; for kW/ton ``IPLV = 1 / Σ wᵢ / (kW/ton)ᵢ``.
- **Approaches** (ASHRAE Guideline 22 usage): evaporator approach = leaving chilled water −
  evaporator saturation temperature; condenser approach = condenser saturation − leaving
  condenser water; the clean approach at part load scales with the load fraction.
- **Service-literature fault rules**, as every chiller text states them: an approach 3 °F
  (5/3 K) or more over the load-scaled design is high; liquid subcooling 5 °F (25/9 K) or more
  above design with a high condenser approach points to non-condensables (purge), otherwise
  fouled condenser tubes; subcooling 5 °F or more below design with a high evaporator approach
  points to low charge, otherwise fouled evaporator tubes; discharge superheat 10 K or more
  over design is compressor overheating; supply 1 K or more above setpoint below 95 % load is
  a drifting supply sensor (the evaporator approach is then taken from the setpoint), at
  95 % load or more with that offset the evaporator is not judged; below 10 % load the
  machine is not running.
"""

from __future__ import annotations

from dataclasses import dataclass

TON_KW = 3.516852
"""kW of one ton of refrigeration (12 000 Btu/h × 0.29307107 W per Btu/h)."""


@dataclass(frozen=True)
class Biquadratic:
    """a + b·x + c·x² + d·y + e·y² + f·x·y on [x_lo, x_hi] × [y_lo, y_hi]."""

    coef: tuple[float, float, float, float, float, float]
    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float

    def inside(self, x: float, y: float) -> bool:
        """Whether (x, y) lies in the range the curve was fitted on."""
        return self.x_lo <= x <= self.x_hi and self.y_lo <= y <= self.y_hi

    def at(self, x: float, y: float, limit: bool) -> float:
        """The curve at (x, y); with ``limit`` the inputs are first held to the fitted range."""
        if limit:
            x = min(max(x, self.x_lo), self.x_hi)
            y = min(max(y, self.y_lo), self.y_hi)
        a, b, c, d, e, f = self.coef
        return a + b * x + c * x * x + d * y + e * y * y + f * x * y


# Modelica Buildings Library, DOE_2_Centrifugal_5_50COP: capFunT, EIRFunT, EIRFunPLR.
CAPFT = Biquadratic((0.257896, 0.0389016, -0.00021708, 0.0468684, -0.00094284, -0.00034344),
                    5.0, 10.0, 24.0, 35.0)
EIRFT = Biquadratic((0.933884, -0.058212, 0.00450036, 0.00243, 0.000486, -0.001215),
                    5.0, 10.0, 24.0, 35.0)
EIRFPLR = (0.222903, 0.313387, 0.46371)
PLR_MIN, MIN_UNLOADING, PLR_MAX = 0.1, 0.2, 1.0


class OverCapacity(Exception):
    """The load exceeds the model's available capacity at these temperatures."""


def design_kw_per_ton(capacity_tons: float, ref_kw_per_ton: float, tons: float,
                      leaving_chw_c: float, entering_cw_c: float, limit: bool = True) -> float:
    """kW/ton of the design EIR model (reference capacity and COP from the nameplate) meeting
    ``tons`` at these water temperatures; ``limit`` holds curve inputs to their range
    (EnergyPlus), else the biquadratics are extrapolated."""
    q_ref = capacity_tons * TON_KW
    cop_ref = TON_KW / ref_kw_per_ton
    load = tons * TON_KW
    capft = CAPFT.at(leaving_chw_c, entering_cw_c, limit)
    eirft = EIRFT.at(leaving_chw_c, entering_cw_c, limit)
    available = q_ref * capft
    if load > PLR_MAX * available * (1 + 1e-9):
        raise OverCapacity(f"{tons} tons exceeds the available {available / TON_KW:.1f} tons")
    plr = load / available
    p = max(plr, MIN_UNLOADING)
    p = min(max(p, 0.0), 1.0)  # the EIRFPLR curve's own range, [0, 1]
    eirfplr = EIRFPLR[0] + EIRFPLR[1] * p + EIRFPLR[2] * p * p
    power = q_ref / cop_ref * capft * eirft * eirfplr * min(1.0, plr / PLR_MIN)
    return power / tons


def temperatures_inside(leaving_chw_c: float, entering_cw_c: float) -> bool:
    """Whether both curves are evaluated inside their fitted range."""
    return CAPFT.inside(leaving_chw_c, entering_cw_c) and EIRFT.inside(
        leaving_chw_c, entering_cw_c)


def degradation_pct(measured: float, design: float) -> float:
    """(measured / design − 1) × 100."""
    return (measured / design - 1.0) * 100.0


def efficiency_band(degradation: float) -> str:
    """The efficiency status bands every efficiency text names: better than design below
    −5 %, normal to 5 %, degraded to 15 %, severely degraded above."""
    if degradation < -5.0:
        return "better_than_design"
    if degradation <= 5.0:
        return "normal"
    return "degraded" if degradation <= 15.0 else "severely_degraded"


IPLV_WEIGHTS = (0.01, 0.42, 0.45, 0.12)


def iplv_kw_per_ton(points: list[float]) -> float:
    """AHRI 550/590 (I-P) IPLV of four kW/ton points at 100, 75, 50 and 25 % load."""
    if len(points) != 4 or min(points) <= 0:
        raise ValueError(f"IPLV needs four positive kW/ton points, got {points}")
    return 1.0 / sum(w / v for w, v in zip(IPLV_WEIGHTS, points, strict=True))


# -- approaches and the service rules ------------------------------------------------------

F_DIFF_K = 5.0 / 9.0  # one °F of temperature difference in K
APPROACH_HIGH_K = 3.0 * F_DIFF_K
SUBCOOLING_OFF_K = 5.0 * F_DIFF_K
SUPERHEAT_HIGH_K = 10.0
DRIFT_K = 1.0
DRIFT_LOAD_PCT = 95.0
RUNNING_PCT = 10.0


@dataclass(frozen=True)
class Design:
    """Clean-unit design values of a nameplate."""

    evap_approach_k: float
    cond_approach_k: float
    subcooling_k: float
    superheat_k: float


def plate_design(plate: dict[str, object] | None) -> Design:
    """The nameplate's clean-unit design values (the documented defaults where absent:
    1.1 K approaches, 5 K subcooling, 8 K discharge superheat)."""
    p = plate or {}

    def num(key: str, default: float) -> float:
        v = p.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else default

    return Design(num("design_evaporator_approach_k", 1.1), num("design_condenser_approach_k", 1.1),
                  num("design_subcooling_k", 5.0), num("design_discharge_superheat_k", 8.0))


@dataclass(frozen=True)
class Approaches:
    """Approaches of one record and their rises over the load-scaled design."""

    evap_k: float
    cond_k: float
    evap_rise_k: float
    cond_rise_k: float
    evap_high: bool
    cond_high: bool
    running: bool


def approaches(record: dict[str, float], design: Design, scale_with_load: bool = True,
               leaving_chw_c: float | None = None) -> Approaches:
    """Approaches of a record against the design approach (× load fraction when scaled)."""
    pct = record["percent_loaded"]
    leaving = record["supply_temperature"] if leaving_chw_c is None else leaving_chw_c
    evap = leaving - record["evaporator_refrigerant_temperature"]
    cond = (record["condenser_refrigerant_temperature"]
            - record["condenser_water_return_temperature"])
    frac = pct / 100.0 if scale_with_load else 1.0
    evap_rise = evap - design.evap_approach_k * frac
    cond_rise = cond - design.cond_approach_k * frac
    running = pct >= RUNNING_PCT
    return Approaches(evap, cond, evap_rise, cond_rise, running and evap_rise >= APPROACH_HIGH_K,
                      running and cond_rise >= APPROACH_HIGH_K, running)


def drift_suspected(record: dict[str, float]) -> bool:
    """Supply 1 K or more above setpoint while running below 95 % load."""
    sp = record.get("setpoint_temperature")
    pct = record["percent_loaded"]
    return (sp is not None and RUNNING_PCT <= pct < DRIFT_LOAD_PCT
            and record["supply_temperature"] - sp >= DRIFT_K)


@dataclass(frozen=True)
class Diagnosis:
    """Findings of the service rules on one record, with the values compared."""

    findings: list[str]
    compared: list[tuple[str, float, float]]  # (what, value, threshold)


def diagnose(record: dict[str, float], design: Design) -> Diagnosis:
    """The service rules of the module docstring on one record."""
    pct = record["percent_loaded"]
    sp = record.get("setpoint_temperature")
    offset = None if sp is None else record["supply_temperature"] - sp
    drift = drift_suspected(record)
    evap_judged = pct >= RUNNING_PCT and not (
        offset is not None and offset >= DRIFT_K and pct >= DRIFT_LOAD_PCT)
    leaving = sp if drift and sp is not None else record["supply_temperature"]
    ap = approaches(record, design, True, leaving)
    cond_sat = record["condenser_refrigerant_temperature"]
    liquid = record.get("condenser_liquid_temperature")
    discharge = record.get("discharge_temperature")
    shift = None if liquid is None else (cond_sat - liquid) - design.subcooling_k
    sh_rise = None if discharge is None else (discharge - cond_sat) - design.superheat_k
    compared: list[tuple[str, float, float]] = [
        ("condenser approach rise", ap.cond_rise_k, APPROACH_HIGH_K),
        ("load %", pct, DRIFT_LOAD_PCT),
    ]
    if shift is not None:
        compared += [("subcooling shift", shift, SUBCOOLING_OFF_K),
                     ("subcooling shift", shift, -SUBCOOLING_OFF_K)]
    if sh_rise is not None:
        compared.append(("superheat rise", sh_rise, SUPERHEAT_HIGH_K))
    if offset is not None:
        compared.append(("supply − setpoint", offset, DRIFT_K))
    if evap_judged:
        compared.append(("evaporator approach rise", ap.evap_rise_k, APPROACH_HIGH_K))
    if pct < RUNNING_PCT:
        return Diagnosis(["not_running"], compared)
    found: list[str] = []
    if ap.cond_rise_k >= APPROACH_HIGH_K:
        found.append("purge_problem" if shift is not None and shift >= SUBCOOLING_OFF_K
                     else "condenser_fouling")
    if evap_judged and ap.evap_rise_k >= APPROACH_HIGH_K:
        found.append("low_refrigerant_charge" if shift is not None and shift <= -SUBCOOLING_OFF_K
                     else "evaporator_fouling")
    if sh_rise is not None and sh_rise >= SUPERHEAT_HIGH_K:
        found.append("compressor_overheating")
    if drift:
        found.append("sensor_drift")
    return Diagnosis(found or ["normal"], compared)
