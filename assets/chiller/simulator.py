"""Fleet simulator of centrifugal water-cooled chillers (hourly, deterministic from a seed).

:func:`simulate_fleet` maps a :class:`FleetSpec` to documents per logical database
(``telemetry``, ``nameplate``, ``workorders``, ``truth``); every document carries
``"asset_class": "chiller"`` and an ``_id`` starting ``chiller:`` (except the nameplates,
whose ``_id`` is the asset id: the store reads a nameplate by its id). Telemetry documents are
flat hourly records whose fields follow AssetOpsBench's chiller sensor vocabulary
(:data:`UPSTREAM_SENSOR_NAMES` maps each field to upstream's name, e.g. ``tonnage`` →
"Tonnage", ``kw_per_ton`` → "Chiller Efficiency"). Units: °C, L/s, kW, tons.

Every number follows from the formulas below and the seed:

- Outdoor dry bulb T_out = T_mean + A_s·cos(2π(doy − 200)/365.25) + A_d·cos(2π(hour − 15)/24)
  + N(0, 0.8 K); wet bulb T_wb = T_out − depression.
- Entering condenser water ECWT = clip(T_wb + 4 K tower approach, 24 °C, 35 °C): the limits
  keep a clean machine inside the DOE-2 curves' fitted range (a plant's condenser-water reset
  minimum, and a tower sized to deliver 35 °C at its design wet bulb). The effective
  temperatures of a faulty machine (below) are evaluated by extrapolating the curves.
- Building load = Q_ref · occupancy · clip(0.25 + 0.045·(T_out − 15), 0, 1.05)·(1 + N(0, 0.03)),
  occupancy 1 on weekdays 07–19 h, else 0.55 (each unit's load is its share of the site's).
- Staging (:func:`staged_on`): the units of a site run in a fixed lead/lag order (unit 01
  leads). The lead runs whenever its load is at least PLR_min · Q_ref. A lag unit stages on
  when its load reaches :data:`STAGE_ON_PLR` of its capacity and off when it falls below
  :data:`STAGE_OFF_PLR` (hysteresis, so it does not short-cycle); the second lag onwards is
  also held off outside the plant's time schedule (weekdays 06–20 h,
  :data:`LAG_SCHEDULE_HOURS`), when the lead and first lag carry the night and weekend load.
  An off unit logs ``run_status`` 0, no tonnage, power or kW/ton, and its idle loop's
  temperatures. The load a staged-off unit leaves is not moved to the running units (each
  unit's load is drawn on its own): a simplification of this simulator.
- Performance: :func:`assets.chiller.performance.chiller_performance` with the DOE-2
  centrifugal curves, evaluated at the temperatures the refrigerant circuit sees: a fault
  that adds ΔA_e to the evaporator approach lowers the effective leaving chilled water by
  ΔA_e, one that adds ΔA_c to the condenser approach (or to the saturation temperature)
  raises the effective entering condenser water by ΔA_c (the same compressor lift as a
  clean machine with those water temperatures: our modelling assumption).
- Water sides (constant flow, sized for a 5.56 K design range):
  return = setpoint + load / (ρc_p·V̇_chw), supply = return − delivered / (ρc_p·V̇_chw),
  leaving condenser water = ECWT + (delivered + P) / (ρc_p·V̇_cw).
- Refrigerant: evaporator approach = A_e,design·PLR + ΔA_e, condenser approach =
  A_c,design·(Q_cond / Q_cond,design) + ΔA_c; liquid = condenser saturation − subcooling;
  discharge = condenser saturation + design superheat (+ overheating).

Failure modes and signatures (s = severity × min(1, hours since onset / 336), a 2-week ramp):

- condenser_fouling: ΔA_c = 4 K · s · Q_cond / Q_cond,design; kW/ton rises.
- evaporator_fouling: ΔA_e = 4 K · s · PLR; evaporator saturation falls; kW/ton rises.
- low_refrigerant_charge: ΔA_e = 3 K · s + 2 K · s · PLR; capacity × (1 − 0.3 s);
  subcooling × (1 − 0.9 s).
- compressor_overheating: discharge superheat + 20 K · s; power × (1 + 0.05 s).
- sensor_drift: the supply sensor reads + min(3 K, 0.1 K/day · days since onset) · severity;
  tonnage and kW/ton follow the bad reading, as the BMS computes them: tonnage
  ρc_p·V̇·(return − supply read) / 3.516852, held at 0 when that is negative (the BMS's
  cooling point cannot go below zero), and kW/ton = power / tonnage only while it lies
  inside the point's range [0, :data:`KW_PER_TON_MAX`] (the range asset.yaml declares),
  else empty (the point reads invalid). Every stored reading therefore lies inside the range
  asset.yaml declares for it (a faulty sensor shows as an implausible but in-range value or
  an empty kW/ton, never as negative tons or 100 kW/ton).
- purge_problem: condenser saturation (read from pressure) + 5 K · s, liquid unchanged, so
  subcooling reads high; kW/ton rises.

The fault signature magnitudes are illustrative choices of this simulator, not measured data.

Fleet and documents:

- Units: ``CH-<SITE>-<nn>`` at sites :data:`SITE_NAMES`; capacity drawn from 300–1000 tons,
  reference COP from :data:`DESIGN_COPS` (the DOE-2 curves scaled to the unit's capacity and
  COP), refrigerant and year drawn; faults dealt from a seeded cycle of the six modes and two
  healthy units, onset in the second quarter of the period, severity U(0.7, 1.0).
- Work orders (shared ``workorder`` database, AssetOpsBench's field names): a monthly
  preventive operating inspection (CH-PM) per unit; alerts from the building-management
  rules, which are the readings-level rules of :func:`assets.chiller.diagnostics.
  diagnose_reading` applied to each stored (rounded) running record with the unit's
  nameplate design values, the same diagnosis an agent gets from ``diagnose_chiller_fault``:
  a finding held for :data:`ALERT_PERSIST_HOURS` consecutive running records raises an
  alert (then that rule is quiet for :data:`ALERT_QUIET_DAYS` days); the first alert of each
  finding raises a corrective work order 24 h later. Its ``primary_code`` is the failure code
  the technician records after investigating: the unit's injected mode when the alert's rule
  covers it (COND_APPROACH_HIGH covers condenser fouling and a purge failure,
  EVAP_APPROACH_HIGH evaporator fouling and a low charge: the rules read a high approach
  before the subcooling shift that tells the two apart crosses its own threshold), else the
  finding's code; one corrective order per code. Its description keeps what the BMS
  suspected. The alert keeps the rules' finding (``diagnosis``), which is what
  ``diagnose_chiller_fault`` gives on that record.
- Truth: the injected fault, onset and severity per unit, with the first alert and the
  corrective work orders it raised.
"""

from __future__ import annotations

import math
import zlib
from datetime import date, datetime, timedelta
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from assets.chiller.diagnostics import (
    APPROACH_RISE_K,
    DRIFT_OFFSET_K,
    IPLV_ECWT_F,
    IPLV_LCHWT_F,
    SUPERHEAT_RISE_K,
    WATER_RHO_CP,
    DesignValues,
    Finding,
    ReadingDiagnosis,
    diagnose_reading,
    f_to_c,
    model_iplv,
)
from assets.chiller.performance import (
    DOE2_CENTRIFUGAL,
    KW_PER_TON,
    EirChiller,
    chiller_performance,
)

SIMULATOR_VERSION = "2"  # 2: lag units stage on and off, BMS points held in range, technician codes
ASSET_CLASS = "chiller"
COLLECTION = "chiller"
SITE_NAMES = ["MAIN", "PLANT2", "EASTPLANT", "CAMPUS", "ANNEX", "DATACTR", "HOSPITAL", "LABS"]

FaultMode = Literal[
    "condenser_fouling",
    "evaporator_fouling",
    "low_refrigerant_charge",
    "compressor_overheating",
    "sensor_drift",
    "purge_problem",
]
FAULT_MODES: tuple[FaultMode, ...] = (
    "condenser_fouling",
    "evaporator_fouling",
    "low_refrigerant_charge",
    "compressor_overheating",
    "sensor_drift",
    "purge_problem",
)
FAILURE_CODES: dict[FaultMode, str] = {
    "condenser_fouling": "CH-CF",
    "evaporator_fouling": "CH-EF",
    "low_refrigerant_charge": "CH-LC",
    "compressor_overheating": "CH-OH",
    "sensor_drift": "CH-SD",
    "purge_problem": "CH-PP",
}
FAULT_LABELS: dict[FaultMode, str] = {
    "condenser_fouling": "condenser tube fouling",
    "evaporator_fouling": "evaporator tube fouling",
    "low_refrigerant_charge": "low refrigerant charge",
    "compressor_overheating": "compressor overheating",
    "sensor_drift": "chilled-water supply sensor drift",
    "purge_problem": "purge failure (non-condensable gas)",
}
PREVENTIVE_CODE = "CH-PM"
ALERT_RULES: dict[FaultMode, tuple[str, str, str]] = {
    # finding → (rule id, description, sensor whose derived value is reported)
    "condenser_fouling": ("COND_APPROACH_HIGH", "condenser approach high", "condenser_approach"),
    "purge_problem": ("COND_APPROACH_HIGH", "condenser approach high", "condenser_approach"),
    "evaporator_fouling": ("EVAP_APPROACH_HIGH", "evaporator approach high",
                           "evaporator_approach"),
    "low_refrigerant_charge": ("EVAP_APPROACH_HIGH", "evaporator approach high",
                               "evaporator_approach"),
    "compressor_overheating": ("DISCHARGE_SUPERHEAT_HIGH", "discharge superheat high",
                               "discharge_superheat"),
    "sensor_drift": ("CHWS_OFFSET", "chilled-water supply above setpoint", "supply_offset"),
}
ALERT_PERSIST_HOURS = 3
ALERT_QUIET_DAYS = 7
DESIGN_COPS = (5.5, 6.1, 6.5)
CAPACITIES_TONS = (300.0, 400.0, 500.0, 750.0, 1000.0)
REFRIGERANTS = ("R-134a", "R-513A", "R-1233zd(E)")
LOW_PRESSURE_REFRIGERANT = "R-1233zd(E)"  # purge units exist on low-pressure machines
RAMP_HOURS = 336.0
STAGE_ON_PLR = 0.45  # a lag unit stages on at this load fraction (a plant-control choice)
STAGE_OFF_PLR = 0.30  # ... and off below this one
LAG_SCHEDULE_HOURS = (6, 20)  # weekdays: the second lag onwards is enabled [06, 20) h
KW_PER_TON_MAX = 3.0  # the kW/ton point's range (asset.yaml); outside it the BMS reads invalid
ECWT_FLOOR_C = 24.0
ECWT_CEILING_C = 35.0
TOWER_APPROACH_K = 4.0
DESIGN_ENTERING_CW_C = 29.44  # 85 °F, the AHRI full-load rating condition
CURVE_SET = DOE2_CENTRIFUGAL.name

UPSTREAM_SENSOR_NAMES: dict[str, str] = {
    "supply_temperature": "Supply Temperature",
    "return_temperature": "Return Temperature",
    "setpoint_temperature": "Setpoint Temperature",
    "condenser_water_supply_temperature": "Condenser Water Supply To Chiller Temperature",
    "condenser_water_return_temperature": "Condenser Water Return To Tower Temperature",
    "condenser_water_flow": "Condenser Water Flow",
    "tonnage": "Tonnage",
    "percent_loaded": "Chiller % Loaded",
    "power_input": "Power Input",
    "kw_per_ton": "Chiller Efficiency",
    "run_status": "Schedule",
    "evaporator_refrigerant_temperature": "Liquid Refrigerant Evaporator Temperature",
}
"""Our field → AssetOpsBench's sensor name (upstream prefixes it with the asset, e.g.
"Chiller 6 Tonnage"). Fields not listed (chilled-water flow, condenser refrigerant, liquid
and discharge temperatures) are our additions for the diagnostics."""

ROUNDING: dict[str, int] = {
    "supply_temperature": 2,
    "return_temperature": 2,
    "setpoint_temperature": 2,
    "condenser_water_supply_temperature": 2,
    "condenser_water_return_temperature": 2,
    "chilled_water_flow": 1,
    "condenser_water_flow": 1,
    "tonnage": 1,
    "percent_loaded": 1,
    "power_input": 1,
    "kw_per_ton": 4,
    "evaporator_refrigerant_temperature": 2,
    "condenser_refrigerant_temperature": 2,
    "condenser_liquid_temperature": 2,
    "discharge_temperature": 2,
}
"""Decimals of each stored telemetry field (the meters' resolution)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FaultSpec(_Strict):
    """One injected fault."""

    mode: FaultMode = Field(description="Failure mode")
    onset_hour: int = Field(ge=0, description="Hours after the simulation start")
    severity: float = Field(gt=0, le=1, description="Full-ramp severity s_max in (0, 1]")


class ChillerUnit(_Strict):
    """One chiller: rating, clean-unit design values and the injected fault."""

    asset_id: str = Field(description="Unit id, e.g. 'CH-MAIN-01'")
    site_name: str = Field(description="Site the unit belongs to")
    capacity_kw: float = Field(gt=0, le=20_000, description="Reference capacity Q_ref (kW)")
    design_cop: float = Field(default=5.5, gt=0, le=12, description="Reference COP (W/W)")
    refrigerant: str = Field(default="R-134a", description="Refrigerant")
    year_installed: int = Field(default=2015, description="Year of installation")
    chw_setpoint_c: float = Field(default=6.67, description="Leaving chilled water setpoint")
    design_range_k: float = Field(default=5.56, description="Design range of both circuits (K)")
    design_evap_approach_k: float = Field(default=1.1, description="Clean approach at PLR 1")
    design_cond_approach_k: float = Field(default=1.1, description="Clean approach at design")
    design_subcooling_k: float = Field(default=5.0, description="Clean liquid subcooling (K)")
    design_superheat_k: float = Field(default=8.0, description="Clean discharge superheat (K)")
    fault: FaultSpec | None = Field(default=None, description="Injected fault, if any")
    stage: int = Field(
        default=0, ge=0, description="Staging position at its site: 0 leads, 1 is the first lag"
    )

    @property
    def model(self) -> EirChiller:
        """The DOE-2 centrifugal curves at this unit's capacity and reference COP."""
        return DOE2_CENTRIFUGAL.model_copy(
            update={"ref_capacity_kw": self.capacity_kw, "ref_cop": self.design_cop}
        )

    @property
    def chw_flow_l_s(self) -> float:
        """V̇_chw = Q_ref / (ρc_p · range)."""
        return self.capacity_kw / (WATER_RHO_CP * self.design_range_k)

    @property
    def design_cond_heat_kw(self) -> float:
        """Q_cond,design = Q_ref · (1 + 1/COP_ref)."""
        return self.capacity_kw * (1.0 + 1.0 / self.design_cop)

    @property
    def cw_flow_l_s(self) -> float:
        """V̇_cw = Q_cond,design / (ρc_p · range)."""
        return self.design_cond_heat_kw / (WATER_RHO_CP * self.design_range_k)

    @property
    def design(self) -> DesignValues:
        """The design values the diagnosis rules compare against."""
        return DesignValues(
            evaporator_approach_k=self.design_evap_approach_k,
            condenser_approach_k=self.design_cond_approach_k,
            subcooling_k=self.design_subcooling_k,
            discharge_superheat_k=self.design_superheat_k,
        )


class SiteClimate(_Strict):
    """Parameters of a site's outdoor temperature model."""

    site_name: str = Field(description="Site name")
    mean_c: float = Field(description="Annual mean dry bulb (°C)")
    seasonal_amplitude_c: float = Field(ge=0, description="Half the summer-winter swing (K)")
    daily_amplitude_c: float = Field(ge=0, description="Half the day-night swing (K)")
    wetbulb_depression_c: float = Field(ge=0, description="Dry bulb − wet bulb (K)")


class FleetSpec(_Strict):
    """What chiller fleet to simulate (the defaults seed in a few seconds)."""

    seed: int = Field(
        default=42, ge=0,
        description="Seed of every random draw (its low 32 bits; a key >= 2**128 counts whole)",
    )
    sites: int = Field(default=2, ge=1, le=len(SITE_NAMES), description="Number of sites")
    units_per_site: int = Field(default=4, ge=1, le=20, description="Chillers per site")
    days: int = Field(default=60, ge=1, le=730, description="Days of hourly telemetry")
    start: date = Field(default=date(2025, 6, 1), description="First day (00:00 UTC)")


class ChillerReading(_Strict):
    """One hourly telemetry record (flat, as upstream's chiller documents)."""

    asset_id: str = Field(description="Unit id")
    site_name: str = Field(description="Site name")
    timestamp: str = Field(description="ISO 8601 (UTC, no offset)")
    run_status: int = Field(description="1 running, 0 off")
    supply_temperature: float = Field(description="Leaving chilled water, as measured (°C)")
    return_temperature: float = Field(description="Entering chilled water (°C)")
    setpoint_temperature: float = Field(description="Leaving chilled water setpoint (°C)")
    condenser_water_supply_temperature: float = Field(description="Entering condenser (°C)")
    condenser_water_return_temperature: float = Field(description="Leaving condenser (°C)")
    chilled_water_flow: float = Field(description="Evaporator water flow (L/s)")
    condenser_water_flow: float = Field(description="Condenser water flow (L/s)")
    tonnage: float = Field(description="ρc_p·V̇·(return − measured supply) / 3.516852 (tons)")
    percent_loaded: float = Field(description="100 × PLR")
    power_input: float = Field(description="Compressor input (kW)")
    kw_per_ton: float | None = Field(description="power / tonnage; None when off")
    evaporator_refrigerant_temperature: float = Field(description="Evaporator saturation (°C)")
    condenser_refrigerant_temperature: float = Field(
        description="Condenser saturation temperature read from condenser pressure (°C)"
    )
    condenser_liquid_temperature: float = Field(description="Liquid leaving condenser (°C)")
    discharge_temperature: float = Field(description="Compressor discharge gas (°C)")


class FleetData(BaseModel):
    """Documents per logical database, ready to write, and the units behind them."""

    model_config = ConfigDict(extra="forbid")

    spec: FleetSpec = Field(description="The spec that produced the data")
    units: list[ChillerUnit] = Field(description="Units simulated")
    climates: list[SiteClimate] = Field(description="One climate per site")
    docs: dict[str, list[dict[str, Any]]] = Field(
        description="Logical database → documents (telemetry, nameplate, workorders, truth)"
    )


# A seed this large is a held-out fleet's secret key (at least 2**255): every bit of it
# seeds every stream, so no part of it can be searched apart from the rest. A public seed
# (`env seed --seed N`) keeps its low 32 bits, as it always did.
KEY_MIN = 1 << 128


def rng_for(seed: int, stream: str, index: int = 0) -> np.random.Generator:
    """A local generator derived from (seed, stream, index); never global state."""
    if seed >= KEY_MIN:
        return np.random.default_rng([seed, zlib.crc32(stream.encode()), index])
    return np.random.default_rng([seed & 0xFFFFFFFF, zlib.crc32(stream.encode()), index])


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def outdoor_temperature(climate: SiteClimate, when: datetime, noise_c: float = 0.0) -> float:
    """T_out of the module docstring's weather model (°C)."""
    doy = when.timetuple().tm_yday
    seasonal = climate.seasonal_amplitude_c * math.cos(2 * math.pi * (doy - 200) / 365.25)
    daily = climate.daily_amplitude_c * math.cos(2 * math.pi * (when.hour - 15) / 24)
    return climate.mean_c + seasonal + daily + noise_c


def severity_at(fault: FaultSpec | None, hour: int, mode: FaultMode) -> float:
    """s = severity × min(1, (hour − onset) / 336) for ``mode``, 0 before onset or another mode."""
    if fault is None or fault.mode != mode or hour < fault.onset_hour:
        return 0.0
    return fault.severity * min(1.0, (hour - fault.onset_hour) / RAMP_HOURS)


def load_kw(unit: ChillerUnit, when: datetime, t_out: float, load_noise: float) -> float:
    """The unit's share of the building load (kW), the module docstring's load model."""
    weekday = when.weekday() < 5
    occupancy = 1.0 if weekday and 7 <= when.hour < 19 else 0.55
    frac = min(max(0.25 + 0.045 * (t_out - 15.0), 0.0), 1.05) * occupancy * (1.0 + load_noise)
    return max(frac, 0.0) * unit.capacity_kw


def staged_on(unit: ChillerUnit, when: datetime, load: float, was_on: bool) -> bool:
    """Whether the plant runs ``unit`` this hour (the module docstring's staging rules).

    Args:
        unit: The unit (its ``stage`` is its place in the site's lead/lag order).
        when: The hour.
        load: The unit's load this hour (kW).
        was_on: Whether it ran the hour before (the hysteresis state).
    """
    plr = load / unit.capacity_kw
    if unit.stage == 0:
        return plr >= unit.model.min_plr
    if unit.stage >= 2:
        first, last = LAG_SCHEDULE_HOURS
        if when.weekday() >= 5 or not first <= when.hour < last:
            return False
    return plr >= (STAGE_OFF_PLR if was_on else STAGE_ON_PLR)


def bms_tonnage(flow_l_s: float, return_c: float, supply_c: float) -> float:
    """The BMS's tonnage: ρc_p·V̇·(return − supply) / 3.516852, held at 0 when negative."""
    return max(0.0, WATER_RHO_CP * flow_l_s * (return_c - supply_c) / KW_PER_TON)


def bms_kw_per_ton(power_kw: float, tons: float) -> float | None:
    """The BMS's kW/ton: power / tonnage, empty (invalid) outside [0, KW_PER_TON_MAX]."""
    if not tons > 0:
        return None
    value = power_kw / tons
    return value if value <= KW_PER_TON_MAX else None


def simulate_hour(
    unit: ChillerUnit, hour: int, when: datetime, t_out: float, depression: float,
    load_noise: float, temp_noise: tuple[float, float, float], *, running: bool | None = None,
) -> ChillerReading:
    """One hourly record of ``unit`` (pure: the noise draws and staging are passed in).

    ``running`` is the staging decision (:func:`staged_on`); None runs the unit whenever
    its load reaches the minimum part-load ratio.
    """
    rho_cp = WATER_RHO_CP
    fault = unit.fault
    s_cf = severity_at(fault, hour, "condenser_fouling")
    s_ef = severity_at(fault, hour, "evaporator_fouling")
    s_lc = severity_at(fault, hour, "low_refrigerant_charge")
    s_oh = severity_at(fault, hour, "compressor_overheating")
    s_pp = severity_at(fault, hour, "purge_problem")
    drift = 0.0
    if fault is not None and fault.mode == "sensor_drift" and hour >= fault.onset_hour:
        drift = min(3.0, 0.1 * (hour - fault.onset_hour) / 24.0) * fault.severity

    ecwt = min(max(t_out - depression + TOWER_APPROACH_K, ECWT_FLOOR_C), ECWT_CEILING_C)
    load = load_kw(unit, when, t_out, load_noise)
    n1, n2, n3 = temp_noise
    clean = unit.model
    chiller = clean.with_capacity(unit.capacity_kw * (1.0 - 0.3 * s_lc))
    setpoint = unit.chw_setpoint_c
    stamp = _iso(when)

    if running is None:
        running = load >= clean.min_plr * unit.capacity_kw
    if not running or load < clean.min_plr * unit.capacity_kw:
        loop = setpoint + 4.0 + n1
        return ChillerReading(
            asset_id=unit.asset_id, site_name=unit.site_name, timestamp=stamp, run_status=0,
            supply_temperature=loop + drift, return_temperature=loop,
            setpoint_temperature=setpoint, condenser_water_supply_temperature=ecwt,
            condenser_water_return_temperature=ecwt, chilled_water_flow=unit.chw_flow_l_s,
            condenser_water_flow=unit.cw_flow_l_s, tonnage=0.0, percent_loaded=0.0,
            power_input=0.0, kw_per_ton=None, evaporator_refrigerant_temperature=loop,
            condenser_refrigerant_temperature=ecwt, condenser_liquid_temperature=ecwt,
            discharge_temperature=ecwt,
        )

    # Extra approaches from faults, with the part-load ratio of a first clean estimate.
    plr0 = min(1.0, load / (unit.capacity_kw * clean.capft(setpoint, ecwt)))
    q_cond_ratio0 = plr0 * clean.capft(setpoint, ecwt)
    extra_evap = 4.0 * s_ef * plr0 + 3.0 * s_lc + 2.0 * s_lc * plr0
    extra_cond = 4.0 * s_cf * q_cond_ratio0
    purge_rise = 5.0 * s_pp
    # Clean temperatures lie inside the curves' range (ECWT in [24, 35] °C, setpoint
    # 6.67 °C); a fault's effective temperatures may not, so the curves are extrapolated.
    perf = chiller_performance(
        chiller, load, setpoint - extra_evap, ecwt + extra_cond + purge_rise,
        limit_to_curve_range=False,
    )
    power = perf.power_kw * (1.0 + 0.05 * s_oh)
    delivered = perf.delivered_kw

    ret = setpoint + load / (rho_cp * unit.chw_flow_l_s) + n1
    supply = ret - delivered / (rho_cp * unit.chw_flow_l_s)
    q_cond = delivered + power
    lcw = ecwt + q_cond / (rho_cp * unit.cw_flow_l_s) + n2
    evap_sat = supply - (unit.design_evap_approach_k * perf.plr + extra_evap) + n3
    cond_approach = (
        unit.design_cond_approach_k * q_cond / unit.design_cond_heat_kw
        + 4.0 * s_cf * q_cond / unit.design_cond_heat_kw
    )
    cond_sat_true = lcw + cond_approach
    subcooling = unit.design_subcooling_k * (1.0 - 0.9 * s_lc)
    cond_sat_read = cond_sat_true + purge_rise
    supply_read = supply + drift
    tons = bms_tonnage(unit.chw_flow_l_s, ret, supply_read)
    return ChillerReading(
        asset_id=unit.asset_id, site_name=unit.site_name, timestamp=stamp, run_status=1,
        supply_temperature=supply_read, return_temperature=ret, setpoint_temperature=setpoint,
        condenser_water_supply_temperature=ecwt, condenser_water_return_temperature=lcw,
        chilled_water_flow=unit.chw_flow_l_s, condenser_water_flow=unit.cw_flow_l_s,
        tonnage=tons, percent_loaded=100.0 * perf.plr, power_input=power,
        kw_per_ton=bms_kw_per_ton(power, tons),
        evaporator_refrigerant_temperature=evap_sat,
        condenser_refrigerant_temperature=cond_sat_read,
        condenser_liquid_temperature=cond_sat_true - subcooling,
        discharge_temperature=cond_sat_read + unit.design_superheat_k + 20.0 * s_oh,
    )


def simulate_unit(
    unit: ChillerUnit, climate: SiteClimate, start: date, days: int, rng: np.random.Generator
) -> list[ChillerReading]:
    """Hourly records of one unit over ``days`` days from ``start``."""
    t0 = datetime(start.year, start.month, start.day)
    hours = days * 24
    weather = rng.normal(0.0, 0.8, hours)
    load_noise = rng.normal(0.0, 0.03, hours)
    temp_noise = rng.normal(0.0, 0.05, (hours, 3))
    out: list[ChillerReading] = []
    was_on = False
    for h in range(hours):
        when = t0 + timedelta(hours=h)
        t_out = outdoor_temperature(climate, when, float(weather[h]))
        n1, n2, n3 = (float(v) for v in temp_noise[h])
        noise = float(load_noise[h])
        was_on = staged_on(unit, when, load_kw(unit, when, t_out, noise), was_on)
        out.append(
            simulate_hour(
                unit, h, when, t_out, climate.wetbulb_depression_c, noise, (n1, n2, n3),
                running=was_on,
            )
        )
    return out


def telemetry_doc(reading: ChillerReading) -> dict[str, Any]:
    """The stored document of one record: rounded to :data:`ROUNDING`, ``chiller:`` id."""
    doc: dict[str, Any] = {
        "_id": f"{ASSET_CLASS}:{reading.asset_id}:{reading.timestamp}",
        "asset_class": ASSET_CLASS,
    }
    for name, value in reading.model_dump().items():
        if name in ROUNDING and value is not None:
            value = round(float(value), ROUNDING[name])
        doc[name] = value
    return doc


def equipment_name(unit: ChillerUnit) -> str:
    """Upstream's ``equipment_name`` of one unit."""
    tons = round(unit.capacity_kw / KW_PER_TON)
    return f"Centrifugal chiller {unit.asset_id} ({tons} tons, {unit.site_name})"


def _code_entry(code: str) -> dict[str, Any]:
    """Catalogue fields of one code in upstream's (primary, secondary) form."""
    mode = next((m for m, c in FAILURE_CODES.items() if c == code), None)
    if mode is None:
        return {
            "fault_type": None,
            "category": "Preventive maintenance",
            "description": "monthly operating inspection",
            "secondary_code": f"{code}-MONTHLY",
            "secondary_code_description": "log readings against design, check oil, purge "
            "run time and refrigerant level",
        }
    category = "Instrumentation" if mode == "sensor_drift" else "Refrigeration circuit"
    return {
        "fault_type": mode,
        "category": category,
        "description": FAULT_LABELS[mode],
        "secondary_code": f"{code}-BMS",
        "secondary_code_description": "found by the building-management diagnostic rules",
    }


def failure_code_doc(code: str) -> dict[str, Any]:
    """The ``failure_codes`` document of one code."""
    entry = _code_entry(code)
    return {
        "_id": f"{ASSET_CLASS}:fc:{code}",
        "asset_class": ASSET_CLASS,
        "dataset": "failure_codes",
        "code": code,
        "fault_type": entry["fault_type"],
        "description": entry["description"],
        "category": entry["category"],
        "primary_code": code,
        "primary_code_description": entry["description"],
        "secondary_code": entry["secondary_code"],
        "secondary_code_description": entry["secondary_code_description"],
    }


class _Orders:
    """Work orders and events of one unit, numbered in the order they are raised."""

    def __init__(self, unit: ChillerUnit) -> None:
        self.unit = unit
        self.name = equipment_name(unit)
        self.docs: list[dict[str, Any]] = []
        self.n = 0

    def _base(self) -> dict[str, Any]:
        return {
            "asset_class": ASSET_CLASS,
            "equipment_id": self.unit.asset_id,
            "site_name": self.unit.site_name,
        }

    def work_order(
        self, when: datetime, code: str, text: str, priority: int, hours: float
    ) -> str:
        self.n += 1
        wo_id = f"WO-{self.unit.asset_id}-{self.n:03d}"
        preventive = code == PREVENTIVE_CODE
        entry = _code_entry(code)
        finish = when + timedelta(hours=hours + (0 if preventive else 24))
        self.docs.append(
            {
                "_id": f"{ASSET_CLASS}:wo:{wo_id}",
                **self._base(),
                "dataset": "wo_events",
                "wo_id": wo_id,
                "wo_type": "preventive" if preventive else "corrective",
                "preventive": "TRUE" if preventive else "FALSE",
                "primary_code": code,
                "primary_code_description": entry["description"],
                "secondary_code": entry["secondary_code"],
                "secondary_code_description": entry["secondary_code_description"],
                "wo_description": text,
                "work_priority": priority,
                "reported_date": _iso(when),
                "actual_finish": _iso(finish),
                "actual_labor_hours": hours,
                "collection": COLLECTION,
                "equipment_name": self.name,
            }
        )
        self.event(
            f"{ASSET_CLASS}:ev:{wo_id}", f"EV-{wo_id}", "WORK_ORDER",
            "PM" if preventive else "CM", code, text, when,
        )
        return wo_id

    def event(
        self, doc_id: str, event_id: str, group: str, category: str, kind: str, text: str,
        when: datetime,
    ) -> None:
        self.docs.append(
            {
                "_id": doc_id,
                **self._base(),
                "dataset": "events",
                "equipment_name": self.name,
                "event_id": event_id,
                "event_group": group,
                "event_category": category,
                "event_type": kind,
                "description": text,
                "event_time": _iso(when),
            }
        )

    def alert(
        self, when: datetime, rule: str, text: str, sensor: str, value: float, threshold: float,
        finding: Finding,
    ) -> None:
        stamp = _iso(when)
        self.docs.append(
            {
                "_id": f"{ASSET_CLASS}:al:{self.unit.asset_id}:{rule}:{stamp}",
                **self._base(),
                "dataset": "alert_events",
                "rule_id": rule,
                "description": text,
                "start_time": stamp,
                "sensor": sensor,
                "value": round(value, 2),
                "threshold": round(threshold, 2),
                "diagnosis": finding,
            }
        )
        self.event(
            f"{ASSET_CLASS}:ev:al:{self.unit.asset_id}:{rule}:{stamp}",
            f"EV-{self.unit.asset_id}-{rule}-{stamp}", "ALERT", rule, rule, text, when,
        )


def _alert_value(
    finding: FaultMode, diag: ReadingDiagnosis, unit: ChillerUnit
) -> tuple[float, float]:
    """(value, threshold) an alert reports for ``finding``: the derived value and its limit."""
    if finding in ("condenser_fouling", "purge_problem"):
        return diag.condenser_approach_k, diag.expected_condenser_approach_k + APPROACH_RISE_K
    if finding in ("evaporator_fouling", "low_refrigerant_charge"):
        return diag.evaporator_approach_k, diag.expected_evaporator_approach_k + APPROACH_RISE_K
    if finding == "compressor_overheating":
        superheat = diag.discharge_superheat_k
        assert superheat is not None  # the rule fired, so the discharge was read
        return superheat, unit.design_superheat_k + SUPERHEAT_RISE_K
    offset = diag.supply_offset_k
    assert offset is not None  # the drift rule fired, so the setpoint was read
    return offset, DRIFT_OFFSET_K


def technician_finding(finding: FaultMode, actual: FaultMode | None) -> FaultMode:
    """The failure mode a technician records on the corrective order of an alert: the unit's
    actual fault when the alert's rule covers it (the same rule id), else the BMS finding."""
    if actual is not None and ALERT_RULES[actual][0] == ALERT_RULES[finding][0]:
        return actual
    return finding


def _events_and_orders(
    spec: FleetSpec, unit: ChillerUnit, telemetry: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    t0 = datetime(spec.start.year, spec.start.month, spec.start.day)
    orders = _Orders(unit)
    # Monthly preventive inspection, staggered per unit (the unit's number).
    offset = 3 + int(unit.asset_id[-2:]) % 10
    for day in range(offset, spec.days, 30):
        orders.work_order(
            t0 + timedelta(days=day, hours=8), PREVENTIVE_CODE,
            "Monthly operating inspection: log readings against design, check oil, purge "
            "run time and refrigerant level", 4, 3.0,
        )
    streak: dict[str, int] = {}
    last_alert: dict[str, datetime] = {}
    first_alert: tuple[str, str, str] | None = None
    raised: set[str] = set()
    corrective: list[str] = []
    actual = unit.fault.mode if unit.fault else None
    for doc in telemetry:
        if doc["run_status"] != 1:
            streak.clear()
            continue
        diag = diagnose_reading(
            supply_c=doc["supply_temperature"],
            evap_sat_c=doc["evaporator_refrigerant_temperature"],
            leaving_cw_c=doc["condenser_water_return_temperature"],
            cond_sat_c=doc["condenser_refrigerant_temperature"],
            percent_loaded=doc["percent_loaded"],
            setpoint_c=doc["setpoint_temperature"],
            liquid_c=doc["condenser_liquid_temperature"],
            discharge_c=doc["discharge_temperature"],
            design=unit.design,
        )
        now = [m for m in FAULT_MODES if m in diag.findings]
        for f in list(streak):
            if f not in now:
                del streak[f]
        for mode in now:
            streak[mode] = streak.get(mode, 0) + 1
            rule, text, sensor = ALERT_RULES[mode]
            when = datetime.fromisoformat(doc["timestamp"])
            quiet = last_alert.get(rule)
            if streak[mode] < ALERT_PERSIST_HOURS or (
                quiet is not None and when - quiet < timedelta(days=ALERT_QUIET_DAYS)
            ):
                continue
            last_alert[rule] = when
            value, threshold = _alert_value(mode, diag, unit)
            orders.alert(when, rule, text, sensor, value, threshold, mode)
            if first_alert is None:
                first_alert = (doc["timestamp"], rule, mode)
            code = FAILURE_CODES[technician_finding(mode, actual)]
            if code not in raised:
                raised.add(code)
                corrective.append(
                    orders.work_order(
                        when + timedelta(hours=24), code,
                        f"Investigate {text} ({FAULT_LABELS[mode]} suspected)", 2, 6.0,
                    )
                )
    fault = unit.fault
    truth = {
        "_id": f"{ASSET_CLASS}:{unit.asset_id}",
        "asset_class": ASSET_CLASS,
        "asset_id": unit.asset_id,
        "site_name": unit.site_name,
        "fault_mode": fault.mode if fault else "none",
        "fault_label": FAULT_LABELS[fault.mode] if fault else "no fault",
        "failure_code": FAILURE_CODES[fault.mode] if fault else None,
        "onset": _iso(t0 + timedelta(hours=fault.onset_hour)) if fault else None,
        "severity": round(fault.severity, 4) if fault else None,
        "ramp_hours": RAMP_HOURS,
        "first_alert": first_alert[0] if first_alert else None,
        "first_alert_rule": first_alert[1] if first_alert else None,
        "first_alert_diagnosis": first_alert[2] if first_alert else None,
        "corrective_wo_ids": corrective,
    }
    return orders.docs, truth


def iplv_entering_cw_c(model: EirChiller) -> list[float]:
    """Entering condenser water (°C) at which the design IPLV's four points were evaluated:
    AHRI 550/590's 85/75/65/65 °F limited to the curves' fitted range, as EnergyPlus does."""
    lchw = f_to_c(IPLV_LCHWT_F)
    out = []
    for f in IPLV_ECWT_F:
        ecwt = f_to_c(f)
        used = max(model.capft.clamp(lchw, ecwt)[1], model.eirft.clamp(lchw, ecwt)[1])
        out.append(round(used, 2))
    return out


def nameplate_doc(unit: ChillerUnit) -> dict[str, Any]:
    """The nameplate document of one unit (design values the tools read)."""
    tons = unit.capacity_kw / KW_PER_TON
    iplv = model_iplv(unit.model)
    return {
        # The nameplate database is the class's own: FleetStore reads a nameplate by _id.
        "_id": unit.asset_id,
        "asset_class": ASSET_CLASS,
        "asset_id": unit.asset_id,
        "site_name": unit.site_name,
        "equipment_name": equipment_name(unit),
        "chiller_type": "centrifugal, water-cooled",
        "refrigerant": unit.refrigerant,
        "year_installed": unit.year_installed,
        "design_capacity_tons": round(tons, 1),
        "design_capacity_kw": round(unit.capacity_kw, 1),
        "design_kw_per_ton": round(KW_PER_TON / unit.design_cop, 4),
        "design_cop": unit.design_cop,
        "design_iplv_kw_per_ton": round(iplv.iplv_kw_per_ton, 4),
        # AHRI 550/590 rates 75/50/25 % at 23.9/18.3/18.3 °C entering condenser water; the
        # DOE-2 curves stop at 24 °C, so those points are evaluated at 24 °C: say so.
        "design_iplv_entering_cw_c": iplv_entering_cw_c(unit.model),
        "design_iplv_clamped_points": list(iplv.clamped_points),
        "design_leaving_chw_c": unit.chw_setpoint_c,
        "design_entering_cw_c": DESIGN_ENTERING_CW_C,
        "design_range_k": unit.design_range_k,
        "design_chilled_water_flow_l_s": round(unit.chw_flow_l_s, 1),
        "design_condenser_water_flow_l_s": round(unit.cw_flow_l_s, 1),
        "design_evaporator_approach_k": unit.design_evap_approach_k,
        "design_condenser_approach_k": unit.design_cond_approach_k,
        "design_subcooling_k": unit.design_subcooling_k,
        "design_discharge_superheat_k": unit.design_superheat_k,
        "min_part_load_ratio": DOE2_CENTRIFUGAL.min_plr,
        "curve_set": CURVE_SET,
    }


def plan_units(spec: FleetSpec) -> tuple[list[SiteClimate], list[ChillerUnit]]:
    """Draw the sites' climates and the units (with their faults) from ``spec.seed``.

    Faults are dealt from a cycle of the six modes and two healthy units, shuffled by the
    seed, so a fleet of n units has every mode at least ⌊n / 8⌋ times.
    """
    rng = rng_for(spec.seed, "plan")
    climates = [
        SiteClimate(
            site_name=SITE_NAMES[i],
            mean_c=float(rng.uniform(14.0, 24.0)),
            seasonal_amplitude_c=float(rng.uniform(6.0, 12.0)),
            daily_amplitude_c=float(rng.uniform(3.0, 7.0)),
            wetbulb_depression_c=float(rng.uniform(3.0, 8.0)),
        )
        for i in range(spec.sites)
    ]
    hours = spec.days * 24
    cycle: list[FaultMode | None] = [*FAULT_MODES, None, None]
    n_units = spec.sites * spec.units_per_site
    pool = (cycle * (n_units // len(cycle) + 1))[:n_units]
    modes = [pool[int(i)] for i in rng.permutation(n_units)]
    units: list[ChillerUnit] = []
    for climate in climates:
        for j in range(spec.units_per_site):
            mode = modes[len(units)]
            fault: FaultSpec | None = None
            if mode is not None:
                onset = int(rng.integers(hours // 4, max(hours // 2, hours // 4 + 1)))
                fault = FaultSpec(
                    mode=mode, onset_hour=onset, severity=float(rng.uniform(0.7, 1.0))
                )
            tons = float(rng.choice(CAPACITIES_TONS))
            cop = float(rng.choice(DESIGN_COPS))
            refrigerant = str(rng.choice(REFRIGERANTS))
            if mode == "purge_problem":
                refrigerant = LOW_PRESSURE_REFRIGERANT
            units.append(
                ChillerUnit(
                    asset_id=f"CH-{climate.site_name}-{j + 1:02d}",
                    site_name=climate.site_name,
                    capacity_kw=tons * KW_PER_TON,
                    design_cop=cop,
                    refrigerant=refrigerant,
                    year_installed=int(rng.integers(2005, 2023)),
                    fault=fault,
                    stage=j,
                )
            )
    return climates, units


def simulate_fleet(spec: FleetSpec) -> FleetData:
    """Simulate the fleet described by ``spec``; same spec, same documents."""
    climates, units = plan_units(spec)
    climate_of = {c.site_name: c for c in climates}
    telemetry: list[dict[str, Any]] = []
    orders: list[dict[str, Any]] = []
    truth: list[dict[str, Any]] = []
    for k, unit in enumerate(units):
        readings = simulate_unit(
            unit, climate_of[unit.site_name], spec.start, spec.days,
            rng_for(spec.seed, "unit", k),
        )
        docs = [telemetry_doc(r) for r in readings]
        unit_orders, unit_truth = _events_and_orders(spec, unit, docs)
        telemetry.extend(docs)
        orders.extend(unit_orders)
        truth.append(unit_truth)
    codes = [failure_code_doc(c) for c in [*FAILURE_CODES.values(), PREVENTIVE_CODE]]
    return FleetData(
        spec=spec,
        units=units,
        climates=climates,
        docs={
            "telemetry": telemetry,
            "nameplate": [nameplate_doc(u) for u in units],
            "workorders": orders + codes,
            "truth": truth,
        },
    )
