"""The operate model: plan checking, action cost, scoring and the oracle gate (issue 32)."""

from __future__ import annotations

import pytest

from generator.operate.model import (
    ActionSpec,
    OperateReference,
    Outcome,
    PlanResult,
    check_plan,
    plan_cost,
    score_outcome,
)
from generator.operate.oracle import GateFailure, Heuristic, search

MOVE = ActionSpec(id="transfer_mva", description="move", min=0, max=5, step=0.5, unit="MVA",
                  cost_per_step=2.0)
SHED = ActionSpec(id="shed_mva", description="shed", min=0, max=3, step=0.5, unit="MVA",
                  cost_per_step=5.0)
ACTIONS = [MOVE, SHED]


def test_action_cost_is_the_sum_of_steps_times_cost_per_step() -> None:
    # transfer 1.5 MVA = 1.5/0.5 = 3 steps x 2 = 6; shed 1.0 MVA = 2 steps x 5 = 10; 6 + 10 = 16
    assert plan_cost(ACTIONS, {"transfer_mva": 1.5, "shed_mva": 1.0}) == 16.0
    assert plan_cost(ACTIONS, {}) == 0.0  # omitted actions are 0


def test_an_omitted_action_is_zero_and_a_json_string_is_read() -> None:
    values, errors = check_plan(ACTIONS, '{"actions": [{"id": "shed_mva", "value": 2.5}]}')
    assert errors == [] and values == {"transfer_mva": 0.0, "shed_mva": 2.5}
    assert check_plan(ACTIONS, {"actions": []}) == ({"transfer_mva": 0.0, "shed_mva": 0.0}, [])


@pytest.mark.parametrize(("plan", "words"), [
    ({"actions": [{"id": "shed_mva", "value": 0.3}]}, "off the step grid"),
    ({"actions": [{"id": "shed_mva", "value": 3.5}]}, "outside [0, 3]"),
    ({"actions": [{"id": "shed_mva", "value": -0.5}]}, "outside [0, 3]"),
    ({"actions": [{"id": "shed_mva", "value": 1}, {"id": "shed_mva", "value": 1}]},
     "given twice"),
    ({"actions": [{"id": "cool", "value": 1}]}, "unknown action id 'cool'"),
    ({"actions": [{"id": "shed_mva", "value": True}]}, "not a finite number"),
    ({"actions": [{"id": "shed_mva", "value": "1"}]}, "not a finite number"),
    ({"actions": [{"id": "shed_mva"}]}, "exactly these two keys"),
    ({"plan": []}, "one key 'actions'"),
    ([1, 2], "one key 'actions'"),
    ("{not json", "not JSON"),
])
def test_invalid_plans_are_named_with_the_fix(plan: object, words: str) -> None:
    _, errors = check_plan(ACTIONS, plan)
    assert len(errors) == 1 and words in errors[0], errors


def test_zero_must_be_a_valid_value_of_every_action() -> None:
    with pytest.raises(ValueError, match=r"0 .* must lie in"):
        ActionSpec(id="a", description="d", min=1, max=3, step=1, unit="u", cost_per_step=1)
    with pytest.raises(ValueError, match="on the grid"):
        ActionSpec(id="a", description="d", min=-0.7, max=3, step=0.5, unit="u",
                   cost_per_step=1)


def _ref(oracle_cost: float, max_cost: float, v0: float) -> OperateReference:
    return OperateReference(
        oracle=PlanResult(plan=[], feasible=True, violation_score=0, action_cost=oracle_cost),
        optimal_plans=[[]], do_nothing=PlanResult(plan=[], feasible=False,
                                                  violation_score=v0, action_cost=0),
        max_cost=max_cost, plans_searched=1, feasible_plans=1, heuristics=[])


def test_score_is_lexicographic_and_normalised_by_hand() -> None:
    ref = _ref(oracle_cost=6.0, max_cost=30.0, v0=20.0)
    assert score_outcome(0.0, 6.0, ref) == 1.0  # the oracle's cost
    # feasible, cost 18: 0.5 + 0.5·(30 − 18)/(30 − 6) = 0.5 + 0.5·0.5 = 0.75
    assert score_outcome(0.0, 18.0, ref) == pytest.approx(0.75)
    assert score_outcome(0.0, 30.0, ref) == pytest.approx(0.5)  # costliest feasible
    # infeasible, V = 5 of V0 = 20: 0.4·(1 − 5/20) = 0.3, whatever the cost
    assert score_outcome(5.0, 0.0, ref) == pytest.approx(0.3)
    assert score_outcome(20.0, 0.0, ref) == 0.0  # do-nothing
    assert score_outcome(45.0, 3.0, ref) == 0.0  # worse than do-nothing


def _toy(situation: dict[str, float], values: dict[str, float]) -> Outcome:
    """Need 2 MVA of relief; transfer above 2 MVA overloads the neighbour."""
    relief = values.get("transfer_mva", 0.0) + values.get("shed_mva", 0.0)
    over = max(0.0, situation["need"] - relief) + max(0.0, values.get("transfer_mva", 0.0)
                                                      - situation["spare"])
    return Outcome(violations=[], violation_score=over)


def test_the_oracle_is_the_cheapest_feasible_plan_and_the_gate_holds() -> None:
    shed_only = Heuristic("shed_only", "shed", {"transfer_mva": 0.0, "shed_mva": 2.0})
    ref = search(ACTIONS, {"need": 2.0, "spare": 1.0}, _toy, [shed_only])
    # transfer 1 (2 steps x 2 = 4) + shed 1 (2 steps x 5 = 10) = 14 < shed 2 alone (20)
    assert [(p.id, p.value) for p in ref.oracle.plan] == [("transfer_mva", 1.0),
                                                          ("shed_mva", 1.0)]
    assert ref.oracle.action_cost == 14.0 and ref.heuristics[0].action_cost == 20.0
    assert ref.do_nothing.violation_score == 2.0 and ref.max_cost == 50.0
    assert ref.plans_searched == 11 * 7


def test_the_gate_drops_an_undiscriminating_draw() -> None:
    with pytest.raises(GateFailure, match="doing nothing"):
        search(ACTIONS, {"need": 0.0, "spare": 1.0}, _toy, [])
    with pytest.raises(GateFailure, match="no plan"):
        search(ACTIONS, {"need": 9.0, "spare": 1.0}, _toy, [])
    optimal = Heuristic("h", "the optimum", {"transfer_mva": 1.0, "shed_mva": 1.0})
    with pytest.raises(GateFailure, match="heuristic"):
        search(ACTIONS, {"need": 2.0, "spare": 1.0}, _toy, [optimal])


def _energy(situation: dict[str, float], values: dict[str, float]) -> Outcome:
    """Need 2 MVA of relief; transfer costs 10 kWh of losses per MVA, shedding none."""
    relief = values.get("transfer_mva", 0.0) + values.get("shed_mva", 0.0)
    return Outcome(violations=[], violation_score=max(0.0, situation["need"] - relief),
                   operating_cost=situation["kwh_per_mva"] * values.get("transfer_mva", 0.0))


def test_an_operating_cost_adds_to_the_action_cost_in_the_oracle_and_the_score() -> None:
    move_all = Heuristic("move_all", "transfer", {"transfer_mva": 2.0, "shed_mva": 0.0})
    ref = search(ACTIONS, {"need": 2.0, "kwh_per_mva": 10.0}, _energy, [move_all])
    # transfer 2 MVA: 4 steps x 2 = 8 + 2 x 10 kWh = 28; transfer 1.5 + shed 0.5: 6 + 5 + 15
    # = 26; transfer 1 + shed 1: 4 + 10 + 10 = 24; transfer 0.5 + shed 1.5: 2 + 15 + 5 = 22;
    # shed 2 alone: 20 + 0 = 20, the least
    assert [(p.id, p.value) for p in ref.oracle.plan] == [("shed_mva", 2.0)]
    assert ref.oracle.cost == 20.0 and ref.oracle.operating_cost == 0.0
    # C_max: transfer 5 (10 steps x 2 = 20, + 50 kWh) and shed 3 (6 x 5 = 30) = 100, above
    # the action-only bound 20 + 30 = 50
    assert ref.max_cost == 100.0
    # transfer 1 + shed 1 costs 24: 0.5 + 0.5·(100 − 24)/(100 − 20) = 0.5 + 0.5·0.95 = 0.975
    assert score_outcome(0.0, 24.0, ref) == pytest.approx(0.975)


def test_plans_within_the_cost_tolerance_are_optimal_and_score_one() -> None:
    shed_heavy = Heuristic("h", "shed more", {"transfer_mva": 0.0, "shed_mva": 3.0})
    sit = {"need": 2.0, "kwh_per_mva": 10.0}
    # the runner-up (transfer 0.5 + shed 1.5: 22) is 10 % above the optimum (shed 2: 20)
    exact = search(ACTIONS, sit, _energy, [shed_heavy])
    assert exact.optimal_plans == [exact.oracle.plan] and exact.cost_tolerance == 0.0
    assert score_outcome(0.0, 22.0, exact) < 1.0
    loose = search(ACTIONS, sit, _energy, [shed_heavy], cost_tol=0.15)
    assert [[(p.id, p.value) for p in plan] for plan in loose.optimal_plans] == [
        [("shed_mva", 2.0)], [("transfer_mva", 0.5), ("shed_mva", 1.5)]]
    assert loose.oracle.cost == 20.0  # the oracle is still the least cost
    assert score_outcome(0.0, 22.0, loose) == 1.0
    # transfer 1 + shed 1 (24) is 20 % above: 0.5 + 0.5·(100 − 24)/(100 − 20) = 0.975
    assert score_outcome(0.0, 24.0, loose) == pytest.approx(0.975)
    # a heuristic within the tolerance is optimal, not a discriminating rule of thumb
    near = Heuristic("near", "almost", {"transfer_mva": 0.5, "shed_mva": 1.5})
    with pytest.raises(GateFailure, match="heuristic"):
        search(ACTIONS, sit, _energy, [near], cost_tol=0.15)
