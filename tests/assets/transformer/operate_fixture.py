"""A hand-made forecast-overload task (no store): two 10 MVA ONAN units at one site."""

from __future__ import annotations

import math

from assets.transformer.operate import BUDGET, heuristics, task_id_of
from assets.transformer.operate_overload import (
    FAMILY,
    SIMULATOR,
    OverloadSituation,
    UnitForecast,
    action_space,
    constraints_of,
    simulate,
)
from generator.operate.model import OperateTask
from generator.operate.oracle import search

# A daily shape peaking at 15 h (1.0 at the peak, 0.6 at night).
SHAPE = [round(0.8 + 0.2 * math.cos((h - 15) * math.pi / 12), 4) for h in range(24)]
AMBIENT = [round(27.0 + 6.0 * math.cos((h - 15) * math.pi / 12), 1) for h in range(24)]


def situation(target_peak: float = 13.0, neighbour_peak: float = 9.0) -> OverloadSituation:
    """Target 10 MVA ONAN Kraft peaking at ``target_peak`` MVA, neighbour likewise."""
    def unit(asset_id: str, peak: float) -> UnitForecast:
        return UnitForecast(asset_id=asset_id, rated_mva=10.0, thermal_class="ONAN",
                            paper="kraft", size_class="medium",
                            load_mva=[round(peak * x, 3) for x in SHAPE])
    return OverloadSituation(site="TEST", start="2026-07-02T00:00:00", ambient_c=AMBIENT,
                             target=unit("TEST-TX01", target_peak),
                             neighbour=unit("TEST-TX02", neighbour_peak),
                             basis={"rule": "hand-made"})


def task(target_peak: float = 13.0, neighbour_peak: float = 9.0) -> OperateTask:
    """The operate task of :func:`situation`: transfer / shed in 0.5 MVA steps."""
    s = situation(target_peak, neighbour_peak)
    actions = action_space(s, 0.5, transfer_steps=10, shed_steps=6, transfer_cost=1.0,
                           shed_cost=4.0)
    sit = s.model_dump(mode="json")
    ref = search(actions, sit, simulate, heuristics(actions, s))
    return OperateTask(task_id=task_id_of(sit, actions), family=FAMILY, simulator=SIMULATOR,
                       situation=sit, actions=actions, budget=BUDGET,
                       constraints=constraints_of(s), reference=ref)
