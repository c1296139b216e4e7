"""The oracle of an operate task (exhaustive search) and the gate a draw must pass.

The oracle simulates every plan of the discrete space (:func:`generator.operate.model.all_plans`,
at most :data:`~generator.operate.model.MAX_PLANS`) and keeps the feasible plans of least
cost (action cost + the outcome's operating cost); the first of them in search order is
*the* oracle plan, and every one within :data:`~generator.operate.model.COST_TOL` of its cost
is recorded as optimal (all score 1.0: the score depends on violation and cost only, so ties
are accepted by construction).

Gate (a draw is dropped unless all hold):

* some plan is feasible;
* do-nothing is infeasible (the task needs action);
* at least one simple heuristic plan the family supplies is feasible but not optimal (the
  task discriminates a rule of thumb from the optimum);

A family whose costs are continuous (simulated energy) passes ``cost_tol`` > 0: every feasible
plan within that relative tolerance of the least cost is then optimal too (recorded in
``optimal_plans``, scores 1, and a heuristic within it does not count as suboptimal), so the
gate's choice "the oracle is unique within tolerance, or all optimal plans are accepted" is
met by accepting them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.operate.model import (
    COST_TOL,
    MAX_PLANS,
    ActionSpec,
    HeuristicResult,
    OperateReference,
    Outcome,
    PlanResult,
    SimulateFn,
    all_plans,
    plan_cost,
    plan_result,
    space_size,
)


@dataclass(frozen=True)
class Heuristic:
    """A rule-of-thumb plan a family offers to the gate."""

    name: str
    rule: str
    values: dict[str, float]


class GateFailure(Exception):
    """The draw does not make a discriminating operate task (the message says why)."""


def search(
    actions: list[ActionSpec],
    situation: dict[str, Any],
    simulate: SimulateFn,
    heuristics: list[Heuristic],
    cost_tol: float = 0.0,
) -> OperateReference:
    """Exhaustive oracle search and the gate (module docstring).

    Raises:
        GateFailure: The space is too large, nothing is feasible, do-nothing is feasible, no
            heuristic is feasible but suboptimal (beyond ``cost_tol``).
    """
    n = space_size(actions)
    if n > MAX_PLANS:
        raise GateFailure(f"action space of {n} plans is above {MAX_PLANS}")
    outcomes: list[tuple[dict[str, float], Outcome, float]] = []
    for values in all_plans(actions):
        out = simulate(situation, values)
        outcomes.append((values, out, round(plan_cost(actions, values) + out.operating_cost,
                                            9)))
    feasible = [(v, o, c) for v, o, c in outcomes if o.feasible]
    if not feasible:
        raise GateFailure("no plan of the space is feasible")
    zero = {a.id: 0.0 for a in actions}
    dn_out = simulate(situation, zero)
    if dn_out.feasible:
        raise GateFailure("doing nothing is already feasible")
    best_cost = min(c for _, _, c in feasible)
    accept = best_cost + max(COST_TOL, cost_tol * abs(best_cost))
    oracle_values, oracle_out = next((v, o) for v, o, c in feasible if c <= best_cost + COST_TOL)
    optimal = [(v, o) for v, o, c in feasible if c <= accept]
    checked: list[HeuristicResult] = []
    for h in heuristics:
        out = simulate(situation, h.values)
        r = plan_result(actions, h.values, out)
        checked.append(HeuristicResult(name=h.name, rule=h.rule, **r.model_dump()))
    if not any(h.feasible and h.cost > accept for h in checked):
        raise GateFailure("no simple heuristic plan is feasible but suboptimal: "
                          + "; ".join(f"{h.name} feasible={h.feasible} cost={h.cost:g}"
                                      for h in checked))
    # every action at its largest magnitude bounds the action costs; operating costs may
    # make another plan costlier
    max_cost = max(plan_cost(actions, {a.id: max(abs(a.min), abs(a.max)) for a in actions}),
                   max(c for _, _, c in outcomes))
    return OperateReference(
        oracle=plan_result(actions, oracle_values, oracle_out),
        optimal_plans=[plan_result(actions, v, o).plan for v, o in optimal],
        do_nothing=PlanResult(plan=[], feasible=False, violation_score=dn_out.violation_score,
                              action_cost=0.0, operating_cost=dn_out.operating_cost),
        max_cost=max_cost,
        plans_searched=n,
        feasible_plans=len(feasible),
        heuristics=checked,
        cost_tolerance=cost_tol,
    )
