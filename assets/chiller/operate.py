"""Operate families of the chiller class (see :mod:`generator.operate`).

* ``stage_chillers_for_forecast_load``: choose which chillers of a site run (all day, in the
  day period only, or not at all) and how far to reset the leaving chilled-water setpoint, to
  meet a forecast day's cooling load at the least energy, with each unit's measured
  efficiency degradation raising its power (:mod:`assets.chiller.operate_staging` documents
  the forecast, the simulation and the violation score).

Gate (:func:`generator.operate.oracle.search` with ``cost_tol`` :data:`COST_TOLERANCE`): every
unit off is infeasible (no cooling); every feasible plan within :data:`COST_TOLERANCE` of the
least energy is accepted as optimal (scores 1: energies this close are a tie); the site has a
unit measured at least :data:`DEGRADED_MIN` above its design model; at least one heuristic is
feasible but costlier than the oracle (beyond the tolerance):

* ``all_on_design``: every unit all day at the design setpoint;
* ``fewest_largest``: the largest units, fewest whose capacity at the design setpoint and the
  day's warmest condenser water covers the peak, all day, no reset;
* ``best_nameplate_cop``: the units of best nameplate COP first (ignoring the measured
  degradation) until the peak is covered at the full reset, all day, full reset;
* ``day_night``: the fewest largest units covering the night's peak all day, more (largest
  first) in the day period until the day's peak is covered, full reset.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from assets.chiller.operate_staging import (
    ALL_DAY,
    DAY_HOURS,
    DAY_ONLY,
    DEGRADATION_DAYS,
    FAMILY,
    MAX_UNITS,
    RESET_MAX_K,
    SIMULATOR,
    WINDOW_HOURS,
    PlantSituation,
    UnitState,
    action_id,
    action_space,
    constraints_of,
    model_of,
    running,
    simulate,
)
from assets.chiller.performance import DOE2_CENTRIFUGAL, KW_PER_TON, chiller_performance
from generator.api import (
    ActionSpec,
    GateFailure,
    Heuristic,
    OperateDraw,
    OperateTask,
    operate_family,
    search,
    task_instructions,
    tool_use_form,
)

BUDGET = 10
PEAK_FRACTION = (0.45, 0.8)
"""Forecast peak as a fraction of the plant's nameplate capacity (drawn)."""
ECWT_OFFSET_K = (0, 3)
"""Entering condenser water raised by a drawn whole number of kelvin in [0, 3)."""
ECWT_MAX_C = 35.0
RESET_COST_SHARE = (0.0004, 0.0025)
"""Air-side energy of one 0.5 K reset step, as a share of the day's forecast cooling (kWh)."""
DEGRADED_MIN = 1.05
"""A unit counts as degraded at 5 % above its design kW/ton (the efficiency tool's band)."""
COST_TOLERANCE = 0.003
"""A feasible plan within 0.3 % of the least energy is optimal too (scores 1)."""
MIN_UNITS = 3
MIN_RATIOS = 3
SENSORS = ["run_status", "tonnage", "power_input", "supply_temperature",
           "condenser_water_supply_temperature"]


def _day(ts: str) -> date:
    return datetime.fromisoformat(str(ts)[:19]).date()


def task_id_of(situation: dict[str, Any], actions: list[ActionSpec]) -> str:
    """A stable short id of the task: ``op-`` and 8 hex digits of its situation and space."""
    body = json.dumps([situation, [a.model_dump() for a in actions]], sort_keys=True)
    return "op-" + hashlib.sha256(body.encode()).hexdigest()[:8]


def measured_degradation(plate: dict[str, Any], rows: list[dict[str, Any]]) -> float | None:
    """Median over running rows of measured kW/ton / design-model kW/ton (3 decimals).

    Measured kW/ton = power_input / tonnage; the design model is the nameplate's curve set at
    its capacity and COP at the row's load (tonnage × 3.516852), supply and entering
    condenser water (the ``assess_chiller_efficiency`` ratio). Rows off, without tonnage or
    beyond the design capacity are skipped; None with fewer than :data:`MIN_RATIOS` rows.
    """
    model = DOE2_CENTRIFUGAL.model_copy(update={
        "ref_capacity_kw": float(plate["design_capacity_kw"]),
        "ref_cop": float(plate["design_cop"])})
    ratios: list[float] = []
    for r in rows:
        raw = [r.get(k) for k in ("tonnage", "power_input", "supply_temperature",
                                  "condenser_water_supply_temperature")]
        if r.get("run_status") != 1 or any(x is None for x in raw):
            continue
        tons, power, supply, ecwt = (float(x) for x in raw)  # type: ignore[arg-type]
        if not tons > 0:
            continue
        load = tons * KW_PER_TON
        perf = chiller_performance(model, load, supply, ecwt)
        if perf.kw_per_ton is None or perf.delivered_kw < load * (1 - 1e-9):
            continue
        ratios.append(power / tons / perf.kw_per_ton)
    if len(ratios) < MIN_RATIOS:
        return None
    return round(statistics.median(ratios), 3)


def _capacity(s: PlantSituation, idx: list[int], reset: float, ecwt: float) -> float:
    return sum(model_of(s.units[i]).ref_capacity_kw * model_of(s.units[i]).capft(
        s.units[i].design_leaving_chw_c + reset, ecwt) for i in idx)


def _cover(s: PlantSituation, order: list[int], peak: float, reset: float, ecwt: float,
           start: list[int] | None = None) -> list[int]:
    """``start`` plus units of ``order`` in turn until their capacity covers ``peak``."""
    chosen = list(start or [])
    for i in order:
        if _capacity(s, chosen, reset, ecwt) >= peak:
            break
        if i not in chosen:
            chosen.append(i)
    return chosen


def heuristics(s: PlantSituation) -> list[Heuristic]:
    """The gate's rule-of-thumb plans (module docstring)."""
    n = range(len(s.units))
    warm = max(s.entering_cw_c)
    peak = max(s.load_kw)
    night = [x for h, x in enumerate(s.load_kw) if not running(DAY_ONLY, h, s.day_hours)]
    by_size = sorted(n, key=lambda i: (-s.units[i].capacity_kw, i))
    by_cop = sorted(n, key=lambda i: (-s.units[i].design_cop, -s.units[i].capacity_kw, i))

    def plan(levels: dict[int, int], reset: float) -> dict[str, float]:
        return {action_id(u.asset_id): float(levels.get(i, 0)) for i, u in enumerate(s.units)
                } | {"chws_reset_k": reset}

    night_set = _cover(s, by_size, max(night, default=0.0), RESET_MAX_K, warm)
    day_set = _cover(s, by_size, peak, RESET_MAX_K, warm, night_set)
    return [
        Heuristic("all_on_design", "every unit on all day at the design setpoint",
                  plan(dict.fromkeys(n, ALL_DAY), 0.0)),
        Heuristic("fewest_largest", "largest units first until the peak is covered at the "
                  "design setpoint, all day, no reset",
                  plan(dict.fromkeys(_cover(s, by_size, peak, 0.0, warm), ALL_DAY), 0.0)),
        Heuristic("best_nameplate_cop", "best nameplate COP first (degradation ignored) until "
                  "the peak is covered, all day, full reset",
                  plan(dict.fromkeys(_cover(s, by_cop, peak, RESET_MAX_K, warm), ALL_DAY),
                       RESET_MAX_K)),
        Heuristic("day_night", "largest units covering the night peak all day, more in the "
                  "day period for the day peak, full reset",
                  plan(dict.fromkeys(night_set, ALL_DAY)
                       | {i: DAY_ONLY for i in day_set if i not in night_set}, RESET_MAX_K)),
    ]


def build_task(s: PlantSituation, reset_cost_kwh: float) -> OperateTask:
    """The operate task of a situation: action space, oracle search and gate.

    Raises:
        GateFailure: The draw does not make a discriminating task.
    """
    actions = action_space(s, reset_cost_kwh)
    situation = s.model_dump(mode="json")
    reference = search(actions, situation, simulate, heuristics(s), cost_tol=COST_TOLERANCE)
    return OperateTask(task_id=task_id_of(situation, actions), family=FAMILY,
                       simulator=SIMULATOR, situation=situation, actions=actions, budget=BUDGET,
                       constraints=constraints_of(s), reference=reference,
                       scoring="C = action cost (reset steps' air-side kWh) + the plant's "
                       "simulated electric energy (kWh); feasible: 0.5 + 0.5*(C_max - C)/"
                       "(C_max - C*); infeasible: 0.4*max(0, 1 - V/V0); invalid: 0; "
                       "regret = 1 - score")


def _usable(p: dict[str, Any]) -> bool:
    return all(p.get(k) is not None for k in ("design_capacity_kw", "design_cop",
                                              "design_leaving_chw_c", "min_part_load_ratio",
                                              "curve_set", "site_name"))


@operate_family(FAMILY, asset_class="chiller")
async def stage_chillers_for_forecast_load(store: Any, rng: np.random.Generator
                                           ) -> OperateDraw | None:
    """Stage a site's chillers and reset the chilled-water setpoint to meet a forecast day's
    cooling load at the least energy, degraded units drawing more power."""
    plates = [p for p in await store.assets() if _usable(p)
              and p["curve_set"] == DOE2_CENTRIFUGAL.name]
    sites = sorted({str(p["site_name"]) for p in plates})
    sites = [x for x in sites if sum(p["site_name"] == x for p in plates) >= MIN_UNITS]
    if not sites:
        return None
    site = sites[int(rng.integers(len(sites)))]
    units = sorted((p for p in plates if p["site_name"] == site), key=lambda p: p["asset_id"])
    if len(units) > MAX_UNITS:
        keep = sorted(int(i) for i in rng.choice(len(units), MAX_UNITS, replace=False))
        units = [units[i] for i in keep]
    span = await store.time_range(units[0]["asset_id"])
    if not span.start or not span.end:
        return None
    first = _day(span.start) + timedelta(days=DEGRADATION_DAYS)
    last = _day(span.end) - timedelta(days=1)
    days = [first + timedelta(days=k) for k in range(max(0, (last - first).days))]
    days = [d for d in days if d.weekday() < 4]  # Mon–Thu: the forecast day is a weekday
    if not days:
        return None
    d = days[int(rng.integers(len(days)))]
    start, end = d.isoformat(), (d + timedelta(days=1)).isoformat()
    since = (d - timedelta(days=DEGRADATION_DAYS - 1)).isoformat()
    load = [0.0] * WINDOW_HOURS
    ecwt: list[list[float]] = [[] for _ in range(WINDOW_HOURS)]
    states: list[UnitState] = []
    for p in units:
        rows = await store.history(p["asset_id"], since, end, SENSORS)
        day_rows = [r for r in rows if str(r.get("timestamp", "")).startswith(start)]
        if len(day_rows) != WINDOW_HOURS:
            return None
        for h, r in enumerate(day_rows):
            if r.get("condenser_water_supply_temperature") is None:
                return None
            ecwt[h].append(float(r["condenser_water_supply_temperature"]))
            if r.get("run_status") == 1 and r.get("tonnage"):
                load[h] += float(r["tonnage"]) * KW_PER_TON
        deg = measured_degradation(p, rows)
        if deg is None:
            return None
        states.append(UnitState(
            asset_id=p["asset_id"], capacity_kw=float(p["design_capacity_kw"]),
            design_cop=float(p["design_cop"]),
            design_leaving_chw_c=float(p["design_leaving_chw_c"]),
            min_plr=float(p["min_part_load_ratio"]), curve_set=p["curve_set"],
            degradation=deg))
    if max(load) <= 0:
        return None
    if max(u.degradation for u in states) < DEGRADED_MIN:
        raise GateFailure(f"no degraded unit: the units of {site} measure at most "
                          f"{max(u.degradation for u in states):g} × their design kW/ton")
    fraction = round(float(rng.uniform(*PEAK_FRACTION)), 2)
    peak = fraction * sum(u.capacity_kw for u in states)
    top = max(load)
    offset = int(rng.integers(*ECWT_OFFSET_K))
    forecast = [round(x * peak / top, 1) for x in load]
    s = PlantSituation(
        site=site, start=f"{end}T00:00:00", load_kw=forecast,
        entering_cw_c=[round(min(ECWT_MAX_C, statistics.fmean(x) + offset), 2) for x in ecwt],
        day_hours=DAY_HOURS, units=states,
        basis={"observed_day": start, "peak_fraction_of_capacity": fraction,
               "entering_cw_offset_k": offset, "degradation_window": [since, end],
               "rule": "observed day's plant load (Σ running units' tonnage × 3.516852) "
                       "scaled so its peak is the stated fraction of the plant's nameplate "
                       "capacity; entering condenser water the units' hourly mean plus the "
                       "offset, at most 35 °C; degradation the median measured kW/ton over "
                       "the design model's in the window; forecast for the next day"})
    cost = round(float(rng.uniform(*RESET_COST_SHARE)) * sum(forecast))
    task = build_task(s, max(1.0, float(cost)))
    tid = task.task_id
    ref = task.reference
    names = ", ".join(f"{u.asset_id} ({u.capacity_kw:g} kW, COP {u.design_cop:g}, measured "
                      f"{(u.degradation - 1) * 100:+.1f} % kW/ton)" for u in states)
    text = (
        f"Operate task {tid}: plan tomorrow ({end}) for the chiller plant at {site}: {names}. "
        f"The cooling load is forecast to peak at {peak:,.0f} kW with entering condenser "
        f"water up to {max(s.entering_cw_c):g} °C. Decide which chillers run (all day, "
        f"{DAY_HOURS[0]:02d}–{DAY_HOURS[1]:02d} h only, or off) and how far to reset the "
        "chilled-water supply setpoint, so that the load is met every hour with each running "
        "unit at or above its minimum part-load ratio, at the least total energy (the plant's "
        "electric energy plus the stated air-side energy of the reset). "
        + task_instructions("the actions, the hourly forecast and the units", BUDGET)
    )
    oracle = json.dumps({"actions": [p.model_dump() for p in ref.oracle.plan]})
    form = (
        tool_use_form(BUDGET) + "the feasible plan "
        f"of least energy, e.g. {oracle} ({ref.oracle.cost:g} kWh: "
        f"{ref.oracle.operating_cost:g} kWh plant energy + {ref.oracle.action_cost:g} kWh "
        "reset); every feasible plan of that cost scores 1."
    )
    return OperateDraw(
        task=task, text=text, characteristic_form=form,
        grounding={"site": site, "asset_id": states[0].asset_id, "start": s.start,
                   "task_id": tid},
        params={"task_id": tid, **{k: v for k, v in s.basis.items() if k != "rule"},
                "site": site, "units": [u.asset_id for u in states],
                "reset_cost_kwh": task.actions[-1].cost_per_step},
    )
