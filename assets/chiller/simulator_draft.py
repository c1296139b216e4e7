"""Draft fleet simulator of centrifugal water-cooled chillers (hourly, deterministic from a seed).

Not yet wired into the pipeline (no store access, no asset.yaml hook): it returns pydantic
records whose fields follow AssetOpsBench's chiller sensor vocabulary
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
  occupancy 1 on weekdays 07–19 h, else 0.55; below PLR_min · Q_ref the chiller is off.
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
  tonnage and kW/ton follow the bad reading.
- purge_problem: condenser saturation (read from pressure) + 5 K · s, liquid unchanged, so
  subcooling reads high; kW/ton rises.

The fault signature magnitudes are illustrative choices of this simulator, not measured data.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from assets.chiller.diagnostics import WATER_RHO_CP
from assets.chiller.performance import DOE2_CENTRIFUGAL, KW_PER_TON, chiller_performance

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
RAMP_HOURS = 336.0
ECWT_FLOOR_C = 24.0
ECWT_CEILING_C = 35.0
TOWER_APPROACH_K = 4.0

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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FaultSpec(_Strict):
    """One injected fault."""

    mode: FaultMode = Field(description="Failure mode")
    onset_hour: int = Field(ge=0, description="Hours after the simulation start")
    severity: float = Field(gt=0, le=1, description="Full-ramp severity s_max in (0, 1]")


class ChillerUnit(_Strict):
    """One chiller: rating, clean-unit design values and the injected fault."""

    asset_id: str = Field(description="Unit id, e.g. 'MAIN-CH01'")
    site_name: str = Field(description="Site the unit belongs to")
    capacity_kw: float = Field(gt=0, le=20_000, description="Reference capacity Q_ref (kW)")
    chw_setpoint_c: float = Field(default=6.67, description="Leaving chilled water setpoint")
    design_range_k: float = Field(default=5.56, description="Design range of both circuits (K)")
    design_evap_approach_k: float = Field(default=1.1, description="Clean approach at PLR 1")
    design_cond_approach_k: float = Field(default=1.1, description="Clean approach at design")
    design_subcooling_k: float = Field(default=4.0, description="Clean liquid subcooling (K)")
    design_superheat_k: float = Field(default=8.0, description="Clean discharge superheat (K)")
    fault: FaultSpec | None = Field(default=None, description="Injected fault, if any")

    @property
    def chw_flow_l_s(self) -> float:
        """V̇_chw = Q_ref / (ρc_p · range)."""
        return self.capacity_kw / (WATER_RHO_CP * self.design_range_k)

    @property
    def design_cond_heat_kw(self) -> float:
        """Q_cond,design = Q_ref · (1 + 1/COP_ref)."""
        return self.capacity_kw * (1.0 + 1.0 / DOE2_CENTRIFUGAL.ref_cop)

    @property
    def cw_flow_l_s(self) -> float:
        """V̇_cw = Q_cond,design / (ρc_p · range)."""
        return self.design_cond_heat_kw / (WATER_RHO_CP * self.design_range_k)


class SiteClimate(_Strict):
    """Parameters of a site's outdoor temperature model."""

    site_name: str = Field(description="Site name")
    mean_c: float = Field(description="Annual mean dry bulb (°C)")
    seasonal_amplitude_c: float = Field(ge=0, description="Half the summer-winter swing (K)")
    daily_amplitude_c: float = Field(ge=0, description="Half the day-night swing (K)")
    wetbulb_depression_c: float = Field(ge=0, description="Dry bulb − wet bulb (K)")


class FleetSpec(_Strict):
    """What to simulate."""

    seed: int = Field(ge=0, description="Seed of every random draw")
    sites: int = Field(default=2, ge=1, le=10, description="Number of sites")
    units_per_site: int = Field(default=3, ge=1, le=20, description="Chillers per site")
    days: int = Field(default=60, ge=1, le=730, description="Days simulated")
    start: date = Field(default=date(2025, 6, 1), description="First day (00:00 UTC)")


class ChillerReading(_Strict):
    """One hourly telemetry record (flat, as upstream's chiller documents)."""

    asset_id: str = Field(description="Unit id")
    site_name: str = Field(description="Site name")
    timestamp: str = Field(description="ISO 8601, UTC")
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


class FaultTruth(_Strict):
    """Ground truth of one unit's injected fault."""

    asset_id: str = Field(description="Unit id")
    mode: FaultMode = Field(description="Failure mode")
    onset: str = Field(description="Onset, ISO 8601 UTC")
    severity: float = Field(description="Full-ramp severity")


class FleetData(_Strict):
    """The simulated fleet."""

    units: list[ChillerUnit] = Field(description="Units simulated")
    climates: list[SiteClimate] = Field(description="One climate per site")
    readings: list[ChillerReading] = Field(description="Hourly records, by unit then time")
    truth: list[FaultTruth] = Field(description="Injected faults (never shown to agents)")


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


def simulate_hour(
    unit: ChillerUnit, hour: int, when: datetime, t_out: float, depression: float,
    load_noise: float, temp_noise: tuple[float, float, float],
) -> ChillerReading:
    """One hourly record of ``unit`` (pure: the noise draws are passed in)."""
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
    weekday = when.weekday() < 5
    occupancy = 1.0 if weekday and 7 <= when.hour < 19 else 0.55
    frac = min(max(0.25 + 0.045 * (t_out - 15.0), 0.0), 1.05) * occupancy * (1.0 + load_noise)
    load = max(frac, 0.0) * unit.capacity_kw
    n1, n2, n3 = temp_noise
    chiller = DOE2_CENTRIFUGAL.with_capacity(unit.capacity_kw * (1.0 - 0.3 * s_lc))
    setpoint = unit.chw_setpoint_c
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")

    if load < DOE2_CENTRIFUGAL.min_plr * unit.capacity_kw:
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
    plr0 = min(1.0, load / (unit.capacity_kw * DOE2_CENTRIFUGAL.capft(setpoint, ecwt)))
    q_cond_ratio0 = plr0 * DOE2_CENTRIFUGAL.capft(setpoint, ecwt)
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
    tons = rho_cp * unit.chw_flow_l_s * (ret - supply_read) / KW_PER_TON
    return ChillerReading(
        asset_id=unit.asset_id, site_name=unit.site_name, timestamp=stamp, run_status=1,
        supply_temperature=supply_read, return_temperature=ret, setpoint_temperature=setpoint,
        condenser_water_supply_temperature=ecwt, condenser_water_return_temperature=lcw,
        chilled_water_flow=unit.chw_flow_l_s, condenser_water_flow=unit.cw_flow_l_s,
        tonnage=tons, percent_loaded=100.0 * perf.plr, power_input=power,
        kw_per_ton=power / tons if tons > 0 else None,
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
    for h in range(hours):
        when = t0 + timedelta(hours=h)
        t_out = outdoor_temperature(climate, when, float(weather[h]))
        n1, n2, n3 = (float(v) for v in temp_noise[h])
        out.append(
            simulate_hour(
                unit, h, when, t_out, climate.wetbulb_depression_c,
                float(load_noise[h]), (n1, n2, n3),
            )
        )
    return out


def simulate_fleet(spec: FleetSpec) -> FleetData:
    """Draw sites, units and faults from ``spec.seed`` and simulate every unit.

    Faults are dealt from a cycle of the six modes and two healthy units, shuffled by the
    seed, so a fleet of n units has every mode at least ⌊n / 8⌋ times.
    """
    rng = np.random.default_rng([spec.seed, 0])
    climates = [
        SiteClimate(
            site_name=f"SITE{i + 1:02d}",
            mean_c=float(rng.uniform(14.0, 24.0)),
            seasonal_amplitude_c=float(rng.uniform(6.0, 12.0)),
            daily_amplitude_c=float(rng.uniform(3.0, 7.0)),
            wetbulb_depression_c=float(rng.uniform(3.0, 8.0)),
        )
        for i in range(spec.sites)
    ]
    hours = spec.days * 24
    # Every mode once per 8 units (6 modes + 2 healthy), in a seeded order.
    cycle: list[FaultMode | None] = [*FAULT_MODES, None, None]
    n_units = spec.sites * spec.units_per_site
    pool = (cycle * (n_units // len(cycle) + 1))[:n_units]
    modes = [pool[int(i)] for i in rng.permutation(n_units)]
    units: list[ChillerUnit] = []
    truth: list[FaultTruth] = []
    t0 = datetime(spec.start.year, spec.start.month, spec.start.day)
    for climate in climates:
        for j in range(spec.units_per_site):
            asset_id = f"{climate.site_name}-CH{j + 1:02d}"
            mode = modes[len(units)]
            fault: FaultSpec | None = None
            if mode is not None:
                onset = int(rng.integers(hours // 4, max(hours // 2, hours // 4 + 1)))
                fault = FaultSpec(
                    mode=mode, onset_hour=onset, severity=float(rng.uniform(0.6, 1.0))
                )
                truth.append(
                    FaultTruth(
                        asset_id=asset_id, mode=mode,
                        onset=(t0 + timedelta(hours=onset)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                        severity=fault.severity,
                    )
                )
            tons = float(rng.choice([300.0, 400.0, 500.0, 750.0, 1000.0]))
            units.append(
                ChillerUnit(
                    asset_id=asset_id, site_name=climate.site_name,
                    capacity_kw=tons * KW_PER_TON, fault=fault,
                )
            )
    readings: list[ChillerReading] = []
    climate_of = {c.site_name: c for c in climates}
    for k, unit in enumerate(units):
        unit_rng = np.random.default_rng([spec.seed, 1, k])
        readings.extend(
            simulate_unit(unit, climate_of[unit.site_name], spec.start, spec.days, unit_rng)
        )
    return FleetData(units=units, climates=climates, readings=readings, truth=truth)
