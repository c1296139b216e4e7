"""Operate family of the chiller class: stage a plant's chillers for a forecast day's load.

Situation (from the store): the chillers of one site (up to :data:`MAX_UNITS`, nameplate
capacity Q_ref, reference COP, design leaving chilled water, minimum part-load ratio, the
DOE-2 centrifugal curve set), a forecast day of hourly plant cooling load and entering
condenser water temperature, and each unit's **measured efficiency degradation** δ: the
median, over its running hours in the :data:`DEGRADATION_DAYS` days up to the observed day,
of measured kW/ton over the design model's kW/ton at the same load, supply and entering
condenser water (the ``assess_chiller_efficiency`` tool's ratio). The forecast is an observed
day D of the store: the plant load of hour h is Σ over the site's running units of their
measured tonnage × 3.516852 kW/ton, scaled so that its peak is a drawn fraction of the
plant's nameplate capacity; the entering condenser water is the units' hourly mean, raised by
a drawn offset and limited to the curves' 35 °C; the forecast is for the day after D. Every
number is in the situation the agent reads (``describe_action_space``).

Actions:

* ``run_<unit>`` for each unit: 0 off all day, 1 on in the day period only (hours
  [7, 19), the site's occupied hours), 2 on all day; no cost of its own (the energy is the
  cost);
* ``chws_reset_k``: raise every unit's leaving chilled-water setpoint above its design value,
  0–2 K in 0.5 K steps, for the whole day; each step costs the stated air-side energy (the
  site's estimate of the extra air-handler fan energy a warmer supply needs over the day,
  kWh: a stated number, not simulated).

Simulation (:func:`simulate`), hour by hour with the class's EIR model
(:func:`assets.chiller.performance.chiller_performance`, the model the store's telemetry was
made with), each unit's curves being the DOE-2 centrifugal set at its Q_ref and COP:

* the running units share the plant load in proportion to their available capacities
  Q_avail,i = Q_ref,i·CAPFT(T_chws,i, T_cond,in) (equal part-load ratio, the usual
  equal-loading control); T_chws,i = design leaving chilled water + reset;
* unit i delivers min(share, PLR_max·Q_avail,i) at PLR_i = delivered / Q_avail,i and draws
  P_i = δ_i · Q_ref,i/COP_ref,i · CAPFT · EIRFT · EIRFPLR(max(PLR_i, MUR)) · min(1, PLR_i /
  PLR_min) (the performance module's equations; δ_i the measured degradation);
* energy E = Σ_h Σ_running P_i · 1 h (kWh); the plan's operating cost is E, its action cost
  the reset steps' air-side energy, so the plan's cost is the plant's energy in kWh.

Constraints (from the model): a unit delivers at most PLR_max (1.0) of its available
capacity, so load above the running units' capacity is **unmet cooling** (the plant limit:
none); a running unit's part-load ratio must be at least its **minimum part-load ratio**
(below it the compressor cycles). The setpoint range (design to design + 2 K) keeps the
leaving chilled water inside the curves' fitted range (5–10 °C). The class's model defines
no approach limit (approach rises are diagnostic thresholds,
:mod:`assets.chiller.diagnostics`), so none is imposed.

Violation score (points): 100 × unmet cooling / the day's cooling load (per cent of the day's
cooling unmet) plus, per running unit and hour below its minimum, 100 × (PLR_min − PLR)
(per cent of capacity below the minimum). Doing nothing (every unit off) leaves the whole
day's cooling unmet: 100 points.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assets.chiller.performance import DOE2_CENTRIFUGAL, EirChiller, chiller_performance
from generator.api import ActionSpec, Constraint, LimitExcess, Outcome

SIMULATOR = "assets.chiller.operate_staging:simulate"
FAMILY = "stage_chillers_for_forecast_load"
WINDOW_HOURS = 24
DAY_HOURS = (7, 19)
MAX_UNITS = 4
DEGRADATION_DAYS = 7
RESET_STEP_K = 0.5
RESET_MAX_K = 2.0
OFF, DAY_ONLY, ALL_DAY = 0, 1, 2
CURVE_SETS: dict[str, EirChiller] = {DOE2_CENTRIFUGAL.name: DOE2_CENTRIFUGAL}
STANDARD = ("DOE-2 / EnergyPlus Chiller:Electric:EIR model (CAPFT, EIRFT, EIRFPLR; "
            "'DOE-2 Centrifugal/5.50COP' curves), hourly, equal part-load-ratio sharing")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UnitState(_Strict):
    """One chiller of the plant: nameplate facts and measured degradation."""

    asset_id: str = Field(description="Asset id")
    capacity_kw: float = Field(gt=0, description="Reference capacity Q_ref (nameplate), kW")
    design_cop: float = Field(gt=0, description="Reference COP (nameplate)")
    design_leaving_chw_c: float = Field(description="Design leaving chilled water, °C")
    min_plr: float = Field(gt=0, le=1, description="Minimum part-load ratio (nameplate)")
    curve_set: str = Field(description="EIR curve set (nameplate)")
    degradation: float = Field(gt=0, description="Measured kW/ton over the design model's "
                               "(median of running hours); multiplies the model's power")


class PlantSituation(_Strict):
    """The situation of a chiller staging task."""

    site: str = Field(description="Site of the plant")
    start: str = Field(description="First hour of the forecast day (ISO)")
    step_minutes: float = Field(default=60.0, description="Forecast step, minutes")
    load_kw: list[float] = Field(min_length=1, description="Forecast plant cooling load per "
                                 "hour, kW")
    entering_cw_c: list[float] = Field(min_length=1, description="Forecast entering condenser "
                                       "water per hour, °C")
    day_hours: tuple[int, int] = Field(default=DAY_HOURS, description="Day period [from, to) h "
                                       "of run level 1")
    units: list[UnitState] = Field(min_length=1, description="The plant's chillers")
    sharing: str = Field(default="equal part-load ratio: load shared in proportion to "
                         "available capacity", description="How running units share the load")
    basis: dict[str, Any] = Field(description="How the forecast was made from the store")


def action_id(asset_id: str) -> str:
    """``run_<unit>``: the unit's run action id (``CH-MAIN-01`` → ``run_ch_main_01``)."""
    return "run_" + re.sub(r"[^a-z0-9]+", "_", asset_id.lower()).strip("_")


def model_of(u: UnitState) -> EirChiller:
    """The unit's curves: its curve set at its Q_ref and COP, its minimum part-load ratio."""
    base = CURVE_SETS[u.curve_set]
    return base.model_copy(update={"ref_capacity_kw": u.capacity_kw, "ref_cop": u.design_cop,
                                   "min_plr": u.min_plr})


def running(level: float, hour: int, day: tuple[int, int]) -> bool:
    """Whether a unit at run level ``level`` runs in ``hour``."""
    return level == ALL_DAY or (level == DAY_ONLY and day[0] <= hour < day[1])


def simulate(situation: dict[str, Any], values: dict[str, float]) -> Outcome:
    """Simulate a checked plan on the situation (module docstring): violations and energy."""
    s = PlantSituation.model_validate(situation)
    reset = values.get("chws_reset_k", 0.0)
    models = [model_of(u) for u in s.units]
    levels = [values.get(action_id(u.asset_id), 0.0) for u in s.units]
    hours_h = s.step_minutes / 60.0
    energy = [0.0] * len(s.units)
    cooling = [0.0] * len(s.units)
    hours_run = [0] * len(s.units)
    plr_seen: list[list[float]] = [[] for _ in s.units]
    below = [0.0] * len(s.units)
    unmet = 0.0
    hourly_kw: list[float] = []
    for h, (load, ecwt) in enumerate(zip(s.load_kw, s.entering_cw_c, strict=True)):
        on = [i for i, lv in enumerate(levels) if running(lv, h, s.day_hours)]
        avail = {i: models[i].ref_capacity_kw * models[i].capft(
            s.units[i].design_leaving_chw_c + reset, ecwt) for i in on}
        total = sum(avail.values())
        plant_kw, delivered = 0.0, 0.0
        for i in on:
            u = s.units[i]
            perf = chiller_performance(models[i], load * avail[i] / total,
                                       u.design_leaving_chw_c + reset, ecwt)
            p = perf.power_kw * u.degradation
            energy[i] += p * hours_h
            cooling[i] += perf.delivered_kw * hours_h
            hours_run[i] += 1
            plr_seen[i].append(perf.plr)
            below[i] += max(0.0, u.min_plr - perf.plr)
            plant_kw += p
            delivered += perf.delivered_kw
        unmet += max(0.0, load - delivered) * hours_h
        hourly_kw.append(round(plant_kw, 1))
    day_load = sum(s.load_kw) * hours_h
    violations: list[LimitExcess] = []
    if unmet > 1e-9:
        violations.append(LimitExcess(
            asset_id=f"plant {s.site}", quantity="unmet_cooling", value=round(unmet, 3),
            limit=0.0, unit="kWh", excess=round(unmet, 3),
            points=round(100.0 * unmet / day_load, 6)))
    for i, u in enumerate(s.units):
        if below[i] > 1e-12:
            low = min(plr_seen[i])
            violations.append(LimitExcess(
                asset_id=u.asset_id, quantity="min_part_load_ratio", value=round(low, 6),
                limit=u.min_plr, unit="PLR", excess=round(u.min_plr - low, 6),
                points=round(100.0 * below[i], 6)))
    total_energy = round(sum(energy), 3)
    delivered_kwh = sum(cooling)
    units = [{"asset_id": u.asset_id, "run_level": int(levels[i]), "hours_run": hours_run[i],
              "energy_kwh": round(energy[i], 3), "cooling_kwh": round(cooling[i], 3),
              "lowest_plr": round(min(plr_seen[i]), 4) if plr_seen[i] else None,
              "highest_plr": round(max(plr_seen[i]), 4) if plr_seen[i] else None}
             for i, u in enumerate(s.units)]
    return Outcome(
        violations=violations,
        violation_score=round(sum(v.points for v in violations), 6),
        operating_cost=total_energy,
        details={"energy_kwh": total_energy, "load_kwh": round(day_load, 3),
                 "delivered_kwh": round(delivered_kwh, 3), "unmet_cooling_kwh": round(unmet, 3),
                 "plant_kw_per_ton": round(sum(energy) / (delivered_kwh / 3.516852), 4)
                 if delivered_kwh > 0 else None,
                 "leaving_chw_reset_k": reset, "hourly_power_kw": hourly_kw, "units": units},
    )


def action_space(s: PlantSituation, reset_cost_kwh: float) -> list[ActionSpec]:
    """The run level of each unit and the setpoint reset (module docstring)."""
    d0, d1 = s.day_hours
    actions = [ActionSpec(
        id=action_id(u.asset_id), description=(
            f"Run {u.asset_id} ({u.capacity_kw:g} kW): 0 off all day, 1 on {d0:02d}:00–"
            f"{d1:02d}:00 only, 2 on all day"), min=0.0, max=2.0, step=1.0, unit="run level",
        cost_per_step=0.0) for u in s.units]
    actions.append(ActionSpec(
        id="chws_reset_k", description=(
            "Raise every running unit's leaving chilled-water setpoint above its design value "
            f"for the whole day; each {RESET_STEP_K:g} K step costs {reset_cost_kwh:g} kWh of "
            "extra air-handler fan energy (the site's estimate)"), min=0.0, max=RESET_MAX_K,
        step=RESET_STEP_K, unit="K", cost_per_step=reset_cost_kwh))
    return actions


def constraints_of(s: PlantSituation) -> list[Constraint]:
    """The limits the plan must respect: plant unmet cooling, per unit PLR bounds."""
    out = [Constraint(asset_id=f"plant {s.site}", quantity="unmet_cooling", limit=0.0,
                      unit="kWh", source="the forecast load must be met every hour; a unit "
                      "delivers at most PLR_max × Q_ref × CAPFT (EIR model)")]
    for u in s.units:
        m = model_of(u)
        out += [
            Constraint(asset_id=u.asset_id, quantity="part_load_ratio", limit=m.max_plr,
                       unit="PLR", source=f"{u.curve_set} PLR_max (load above it is unmet)"),
            Constraint(asset_id=u.asset_id, quantity="min_part_load_ratio", limit=u.min_plr,
                       unit="PLR", source="nameplate min_part_load_ratio: a running unit's "
                       "PLR must be at least this (lower bound; below it the compressor "
                       "cycles)"),
        ]
    return out
