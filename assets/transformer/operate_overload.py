"""Operate family of the transformer class: relieve a forecast overload of a unit.

Situation (from the store): a unit T forecast to run above its nameplate rating tomorrow and a
neighbouring unit N at the same site with the same LV voltage (so a feeder can be switched from
T to N). The forecast window is one observed day D of both units' telemetry (hourly
``load_mva`` and the site's ambient ``ati``), T's load scaled so that its peak is a drawn
per-unit value (a heat wave), N's scaled to a drawn peak with spare capacity, and the ambient
raised by a drawn offset. Every forecast number is in the situation the agent reads
(``describe_action_space``).

Actions (constant over the whole window):

* ``transfer_mva``: switch load from T onto N, MVA, in steps;
* ``shed_mva``: interrupt load of T under interruptible-supply contracts, MVA, in steps, up to
  the contracted amount.

(An extra cooling stage is not offered: the nameplates of the store record one cooling class
per unit and no dual ONAN/ONAF rating, so no unit's nameplate allows one.)

Simulation (:func:`simulate`): per unit, the load factor of hour h is
K(h) = S(h)/S_rated with S_T(h) = max(0, L_T(h) − transfer − shed) and S_N(h) = L_N(h) +
transfer; the IEC 60076-7 annex difference equations (the form of
:func:`assets.transformer.thermal.integrate`) run in Dt = 1 min model steps, the inputs of an
hour held over it, the state settled at the first hour's load (clause 7 steady state):

    θo(n)   = θo(n−1)   + Dt/(k11·τo)·([(1 + R·K²)/(1 + R)]^x·Δθor − (θo(n−1) − θa))
    Δθh1(n) = Δθh1(n−1) + Dt/(k22·τw)·(k21·H·gr·K^y − Δθh1(n−1))
    Δθh2(n) = Δθh2(n−1) + Dt/(τo/k22)·((k21 − 1)·H·gr·K^y − Δθh2(n−1))
    θh(n) = θo(n) + Δθh1(n) − Δθh2(n),   L = Σ V(θh(n))·Dt

with the nameplate's cooling (thermal class characteristics) and paper (V of clause 6.3).

Constraints per unit (IEC 60076-7 normal cyclic loading, limits of the unit's size class,
commonly tabulated values; :data:`assets.transformer.size_class.LOADING_LIMITS`): peak current
K ≤ limit pu, peak hot spot ≤ limit °C, peak top oil ≤ limit °C over every model step, and loss
of life over the window ≤ its length in hours (ageing no faster than normal on average, the
normal-cyclic criterion).

Violation score (points): Σ over units of the excess of each limit, hot spot and top oil in
kelvin, current in per cent of rated current (100 points per pu), loss of life in hours.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from assets.transformer.size_class import LOADING_LIMITS, SizeClass
from assets.transformer.thermal import COOLING, CoolingClass, Paper, integrate
from generator.api import ActionSpec, Constraint, LimitExcess, Outcome

SIMULATOR = "assets.transformer.operate_overload:simulate"
FAMILY = "relieve_forecast_overload"
MODEL_STEP_MIN = 1.0
STEP_MIN = 60.0
WINDOW_HOURS = 24
CURRENT_POINTS_PER_PU = 100.0
STANDARD = ("IEC 60076-7:2018 annex difference equations (1-min steps), clause 6.3 ageing, "
            "normal cyclic loading limits per size class (commonly tabulated values)")
# Nice step sizes (MVA) for the transfer / shedding grid: the smallest one ≥ 4 % of rating.
NICE_STEPS = (0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UnitForecast(_Strict):
    """One unit's nameplate facts and forecast load."""

    asset_id: str = Field(description="Asset id")
    rated_mva: float = Field(gt=0, description="Nameplate rating, MVA")
    thermal_class: CoolingClass = Field(description="Cooling class of the characteristics")
    paper: Paper = Field(description="Insulation paper (ageing formula)")
    size_class: SizeClass = Field(description="IEC 60076-7 size class (from the rating)")
    load_mva: list[float] = Field(min_length=1, description="Forecast load per hour, MVA")


class OverloadSituation(_Strict):
    """The situation of a forecast-overload task."""

    site: str = Field(description="Site of both units")
    start: str = Field(description="First hour of the forecast window (ISO)")
    step_minutes: float = Field(default=STEP_MIN, description="Forecast step, minutes")
    ambient_c: list[float] = Field(min_length=1, description="Forecast ambient per hour, °C")
    target: UnitForecast = Field(description="The unit forecast to be overloaded")
    neighbour: UnitForecast = Field(description="The unit load can be transferred onto")
    regime: Literal["normal_cyclic"] = Field(default="normal_cyclic", description="Regime")
    basis: dict[str, Any] = Field(description="How the forecast was made from the store")


class UnitRun(_Strict):
    """A unit's simulated window."""

    asset_id: str = Field(description="Asset id")
    peak_current_pu: float = Field(description="Largest K")
    peak_top_oil_c: float = Field(description="Largest θo over the model steps, °C")
    peak_hot_spot_c: float = Field(description="Largest θh over the model steps, °C")
    loss_of_life_h: float = Field(description="Σ V·Dt over the window, hours")


def run_unit(load_pu: list[float], ambient: list[float], cooling: CoolingClass, paper: Paper,
             step_min: float = STEP_MIN, model_step_min: float = MODEL_STEP_MIN
             ) -> tuple[float, float, float]:
    """Peak top oil, peak hot spot (°C) and loss of life (h) of the difference equations.

    The same difference equations the store's simulator and the ageing tools run
    (:func:`assets.transformer.thermal.integrate`), with the peaks over every model step.
    """
    run = integrate(np.asarray(load_pu, dtype=float), np.asarray(ambient, dtype=float),
                    COOLING[cooling], step_min, paper, model_step_min)
    return run.peak_top_oil, run.peak_hot_spot, float(run.step_loss_h.sum())


def unit_loads(s: OverloadSituation, values: dict[str, float]) -> tuple[list[float], list[float]]:
    """Hourly MVA of (target, neighbour) under a plan."""
    moved, shed = values.get("transfer_mva", 0.0), values.get("shed_mva", 0.0)
    target = [max(0.0, x - moved - shed) for x in s.target.load_mva]
    neighbour = [x + moved for x in s.neighbour.load_mva]
    return target, neighbour


def limits_of(u: UnitForecast) -> tuple[float, float, float]:
    """Normal cyclic (current pu, hot spot °C, top oil °C) of the unit's size class."""
    t = LOADING_LIMITS[u.size_class]
    return t.current_normal_cyclic_pu, t.hot_spot_normal_cyclic_c, t.top_oil_normal_cyclic_c


def constraints_of(s: OverloadSituation) -> list[Constraint]:
    """The limits the plan must respect, per unit."""
    out: list[Constraint] = []
    hours = len(s.ambient_c) * s.step_minutes / 60.0
    for u in (s.target, s.neighbour):
        cur, hot, oil = limits_of(u)
        src = f"IEC 60076-7 normal cyclic, {u.size_class} size class ({u.rated_mva:g} MVA)"
        out += [
            Constraint(asset_id=u.asset_id, quantity="current", limit=cur, unit="pu",
                       source=src),
            Constraint(asset_id=u.asset_id, quantity="hot_spot", limit=hot, unit="°C",
                       source=src),
            Constraint(asset_id=u.asset_id, quantity="top_oil", limit=oil, unit="°C",
                       source=src),
            Constraint(asset_id=u.asset_id, quantity="loss_of_life", limit=hours, unit="h",
                       source=f"IEC 60076-7 clause 6.3, {u.paper} paper: no more than normal "
                       f"ageing over the {hours:g} h window"),
        ]
    return out


def simulate(situation: dict[str, Any], values: dict[str, float]) -> Outcome:
    """Simulate a checked plan on the situation (module docstring): violations and details."""
    s = OverloadSituation.model_validate(situation)
    loads = unit_loads(s, values)
    hours = len(s.ambient_c) * s.step_minutes / 60.0
    violations: list[LimitExcess] = []
    runs: list[dict[str, Any]] = []
    for u, mva in zip((s.target, s.neighbour), loads, strict=True):
        pu = [x / u.rated_mva for x in mva]
        peak_o, peak_h, loss = run_unit(pu, s.ambient_c, u.thermal_class, u.paper,
                                        s.step_minutes)
        run = UnitRun(asset_id=u.asset_id, peak_current_pu=round(max(pu), 6),
                      peak_top_oil_c=round(peak_o, 4), peak_hot_spot_c=round(peak_h, 4),
                      loss_of_life_h=round(loss, 6))
        runs.append(run.model_dump())
        cur, hot, oil = limits_of(u)
        for quantity, value, limit, unit, per in (
            ("current", run.peak_current_pu, cur, "pu", CURRENT_POINTS_PER_PU),
            ("hot_spot", run.peak_hot_spot_c, hot, "°C", 1.0),
            ("top_oil", run.peak_top_oil_c, oil, "°C", 1.0),
            ("loss_of_life", run.loss_of_life_h, hours, "h", 1.0),
        ):
            if value > limit:
                excess = round(value - limit, 6)
                violations.append(LimitExcess(asset_id=u.asset_id, quantity=quantity,
                                              value=value, limit=limit, unit=unit,
                                              excess=excess, points=round(excess * per, 6)))
    shed = values.get("shed_mva", 0.0)
    served = sum(loads[0]) + sum(loads[1])
    return Outcome(
        violations=violations,
        violation_score=round(sum(v.points for v in violations), 6),
        details={"units": runs, "shed_energy_mwh": round(
            sum(min(shed, max(0.0, x - values.get("transfer_mva", 0.0)))
                for x in s.target.load_mva) * s.step_minutes / 60.0, 6),
            "served_energy_mwh": round(served * s.step_minutes / 60.0, 6)},
    )


def nice_step(rated_mva: float) -> float:
    """The smallest of :data:`NICE_STEPS` at least 4 % of the rating (else the largest)."""
    return next((x for x in NICE_STEPS if x >= 0.04 * rated_mva), NICE_STEPS[-1])


def action_space(s: OverloadSituation, step: float, transfer_steps: int, shed_steps: int,
                 transfer_cost: float, shed_cost: float) -> list[ActionSpec]:
    """The two actions of the family (module docstring)."""
    return [
        ActionSpec(id="transfer_mva", description=(
            f"Switch this many MVA of {s.target.asset_id}'s load onto "
            f"{s.neighbour.asset_id} for the whole window"), min=0.0,
            max=round(step * transfer_steps, 9), step=step, unit="MVA",
            cost_per_step=transfer_cost),
        ActionSpec(id="shed_mva", description=(
            f"Interrupt this many MVA of {s.target.asset_id}'s interruptible load for the "
            "whole window (contracted maximum)"), min=0.0, max=round(step * shed_steps, 9),
            step=step, unit="MVA", cost_per_step=shed_cost),
    ]


def day_of(ts: str) -> date:
    """The day of an ISO timestamp."""
    return datetime.fromisoformat(str(ts)[:19]).date()


def next_day(d: date) -> str:
    """ISO form of the following day."""
    return (d + timedelta(days=1)).isoformat()
