"""Operate families of the transformer class (see :mod:`generator.operate`).

* ``relieve_forecast_overload``: a unit forecast above its rating tomorrow; transfer load in
  MVA steps onto a neighbouring unit of the same site and LV voltage and/or shed interruptible
  load in steps, at least action cost, within the IEC 60076-7 normal cyclic limits of both
  units (:mod:`assets.transformer.operate_overload` documents the forecast, the simulation and
  the violation score).

Gate heuristics (at least one must be feasible but costlier than the oracle):
``shed_only`` (the least shedding that is feasible without a transfer), ``transfer_only``
(the least transfer that is feasible without shedding) and ``move_the_excess`` (transfer the
forecast peak's excess over the rating, rounded up to the step, no shedding).
"""

from __future__ import annotations

import hashlib
import json
import math
from datetime import timedelta
from typing import Any

import numpy as np

from assets.transformer.operate_overload import (
    FAMILY,
    SIMULATOR,
    WINDOW_HOURS,
    OverloadSituation,
    UnitForecast,
    action_space,
    constraints_of,
    day_of,
    nice_step,
    simulate,
)
from assets.transformer.size_class import size_class_of
from generator.api import (
    ActionSpec,
    Heuristic,
    OperateDraw,
    OperateTask,
    operate_family,
    search,
    task_instructions,
    tool_use_form,
)

BUDGET = 10
PEAK_PU = (1.2, 1.45)
NEIGHBOUR_PEAK_PU = (0.85, 1.0)
INTERRUPTIBLE_SHARE = (0.15, 0.35)
MAX_TRANSFER_STEPS = 12


def _least(actions: list[ActionSpec], situation: dict[str, Any], action_id: str
           ) -> dict[str, float]:
    """The smallest value of one action (others 0) whose plan is feasible, else its max."""
    a = next(x for x in actions if x.id == action_id)
    for level in a.levels():
        values = {x.id: 0.0 for x in actions} | {action_id: level}
        if simulate(situation, values).feasible:
            return values
    return {x.id: 0.0 for x in actions} | {action_id: a.max}


def heuristics(actions: list[ActionSpec], s: OverloadSituation) -> list[Heuristic]:
    """The gate's rule-of-thumb plans (module docstring)."""
    situation = s.model_dump(mode="json")
    move = next(x for x in actions if x.id == "transfer_mva")
    excess = max(s.target.load_mva) - s.target.rated_mva
    steps = min(math.ceil(excess / move.step - 1e-9), round(move.max / move.step))
    return [
        Heuristic("shed_only", "least interruptible shedding that is feasible, no transfer",
                  _least(actions, situation, "shed_mva")),
        Heuristic("transfer_only", "least transfer that is feasible, no shedding",
                  _least(actions, situation, "transfer_mva")),
        Heuristic("move_the_excess", "transfer the forecast peak's excess over the rating "
                  "(rounded up to the step), no shedding",
                  {"transfer_mva": round(steps * move.step, 9), "shed_mva": 0.0}),
    ]


def _forecast(rows: list[dict[str, Any]], peak: float) -> list[float] | None:
    loads = [r.get("load_mva") for r in rows]
    if len(loads) != WINDOW_HOURS or any(x is None for x in loads):
        return None
    top = max(float(x) for x in loads)  # type: ignore[arg-type]
    if top <= 0:
        return None
    return [round(float(x) * peak / top, 3) for x in loads]  # type: ignore[arg-type]


def task_id_of(situation: dict[str, Any], actions: list[ActionSpec]) -> str:
    """A stable short id of the task: ``op-`` and 8 hex digits of its situation and space."""
    body = json.dumps([situation, [a.model_dump() for a in actions]], sort_keys=True)
    return "op-" + hashlib.sha256(body.encode()).hexdigest()[:8]


@operate_family(FAMILY, asset_class="transformer")
async def relieve_forecast_overload(store: Any, rng: np.random.Generator) -> OperateDraw | None:
    """Relieve a unit's forecast overload by transferring load to a neighbour and shedding
    interruptible load, at least cost within IEC 60076-7 normal cyclic limits."""
    plates = [d for d in await store.assets() if d.get("rated_mva") and d.get("thermal_class")]
    pairs = [(t, n) for t in plates for n in plates
             if t["asset_id"] != n["asset_id"] and t.get("site_name") == n.get("site_name")
             and t.get("lv_kv") == n.get("lv_kv")]
    if not pairs:
        return None
    target, neighbour = pairs[int(rng.integers(len(pairs)))]
    span = await store.time_range(target["asset_id"])
    if not span.start or not span.end:
        return None
    first, last = day_of(span.start) + timedelta(days=1), day_of(span.end) - timedelta(days=1)
    if last <= first:
        return None
    d = first + timedelta(days=int(rng.integers((last - first).days)))
    start, end = d.isoformat(), (d + timedelta(days=1)).isoformat()
    rows_t = await store.history(target["asset_id"], start, end, ["load_mva", "ati"])
    rows_n = await store.history(neighbour["asset_id"], start, end, ["load_mva"])
    peak_pu = round(float(rng.uniform(*PEAK_PU)), 2)
    n_peak_pu = round(float(rng.uniform(*NEIGHBOUR_PEAK_PU)), 2)
    rated_t, rated_n = float(target["rated_mva"]), float(neighbour["rated_mva"])
    load_t = _forecast(rows_t, peak_pu * rated_t)
    load_n = _forecast(rows_n, n_peak_pu * rated_n)
    ambient = [r.get("ati") for r in rows_t]
    if load_t is None or load_n is None or any(a is None for a in ambient):
        return None
    offset = int(rng.integers(0, 9))
    s = OverloadSituation(
        site=str(target["site_name"]), start=f"{end}T00:00:00",
        ambient_c=[round(float(a) + offset, 1) for a in ambient],
        target=UnitForecast(asset_id=target["asset_id"], rated_mva=rated_t,
                            thermal_class=target["thermal_class"],
                            paper=target.get("paper") or "kraft",
                            size_class=size_class_of(rated_t), load_mva=load_t),
        neighbour=UnitForecast(asset_id=neighbour["asset_id"], rated_mva=rated_n,
                               thermal_class=neighbour["thermal_class"],
                               paper=neighbour.get("paper") or "kraft",
                               size_class=size_class_of(rated_n), load_mva=load_n),
        basis={"observed_day": start, "target_peak_pu": peak_pu, "neighbour_peak_pu": n_peak_pu,
               "ambient_offset_k": offset,
               "rule": "observed day's hourly load scaled to the stated peaks; ambient of "
                       "the target's ati raised by the offset; forecast for the next day"},
    )
    step = nice_step(rated_t)
    transfer_steps = min(MAX_TRANSFER_STEPS, math.ceil(0.5 * rated_t / step - 1e-9))
    share = float(rng.uniform(*INTERRUPTIBLE_SHARE))
    shed_steps = max(2, math.floor(share * rated_t / step + 1e-9))
    actions = action_space(s, step, transfer_steps, shed_steps,
                           transfer_cost=float(rng.integers(1, 3)),
                           shed_cost=float(rng.integers(3, 7)))
    situation = s.model_dump(mode="json")
    reference = search(actions, situation, simulate, heuristics(actions, s))
    tid = task_id_of(situation, actions)
    task = OperateTask(task_id=tid, family=FAMILY, simulator=SIMULATOR, situation=situation,
                       actions=actions, budget=BUDGET, constraints=constraints_of(s),
                       reference=reference)
    t, n = s.target, s.neighbour
    text = (
        f"Operate task {tid}: {t.asset_id} at {s.site} is forecast to peak at "
        f"{max(t.load_mva):g} MVA on {end} against its {t.rated_mva:g} MVA rating, with the "
        f"ambient up to {max(s.ambient_c):g} °C. You may switch load onto {n.asset_id} (same "
        f"{target.get('lv_kv')} kV busbar) and interrupt contracted interruptible load. Find "
        "the cheapest plan that keeps both units within the IEC 60076-7 normal cyclic limits "
        "(current, hot spot, top oil) with no more than normal insulation ageing over the day. "
        + task_instructions("the actions, their costs and the forecast", BUDGET)
    )
    oracle = json.dumps({"actions": [p.model_dump() for p in reference.oracle.plan]})
    form = (
        tool_use_form(BUDGET) + "a plan of least "
        f"action cost that is feasible, e.g. {oracle} (action cost "
        f"{reference.oracle.action_cost:g}); every feasible plan of that cost scores 1."
    )
    return OperateDraw(
        task=task, text=text, characteristic_form=form,
        grounding={"site": s.site, "asset_id": t.asset_id, "neighbour": n.asset_id,
                   "start": s.start, "task_id": tid},
        params={"task_id": tid, **s.basis, "target": t.asset_id, "neighbour": n.asset_id},
    )
