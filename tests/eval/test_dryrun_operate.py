"""Dry runs of an operate scenario: three scripted agents over a real MCP tool server.

The task is the hand-made one of ``tests/assets/transformer/operate_fixture.py``: two 10 MVA
ONAN units, actions transfer_mva (0..5 MVA in 0.5 MVA steps, cost 1 a step) and shed_mva
(0..3 MVA in 0.5 MVA steps, cost 4 a step), budget 10. Its oracle (worked in
tests/assets/transformer/test_operate.py) is transfer 1 MVA + shed 2 MVA: 2·1 + 4·4 = 18.

The scripted agents' candidates, by hand:
  do nothing: cost 0, infeasible (the target's hot spot);
  everything at its maximum: transfer 5 + shed 3 = 10·1 + 6·4 = 34, infeasible (the
    neighbour carries 9 + 5 = 14 MVA = 1.4 pu at the peak: its hot spot);
  the oracle: 18, feasible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.dryrun import run_dry
from eval.model import DryRunResult
from generator.generate.draw.operate_run import operate_record
from generator.operate.families import OperateDraw
from tests.assets.transformer.operate_fixture import task


def _record() -> dict[str, Any]:
    t = task()
    draw = OperateDraw(task=t, text=f"Operate task {t.task_id}: relieve TEST-TX01.",
                       characteristic_form="states the plan", grounding={"task_id": t.task_id},
                       params={"task_id": t.task_id})
    rec = operate_record("transformer", t.family, "Decision Support", "fmsr", 0, draw, 0, "t")
    return rec.model_dump(mode="json")


def _evaluation(r: DryRunResult) -> dict[str, Any]:
    line = next(e for e in r.grade.evidence if e.startswith("operate evaluation: "))
    out: dict[str, Any] = json.loads(line.removeprefix("operate evaluation: "))
    return out


def _simulated(r: DryRunResult) -> list[dict[str, Any]]:
    return [json.loads(s.content) for s in r.steps
            if s.kind == "observation" and s.tool == "simulate_plan"]


async def _dry(agent: str, tmp_path: Path) -> DryRunResult:
    report = await run_dry([_record()], agent, concurrency=1, out=tmp_path / agent)
    assert report.scenarios == 1
    return report.results[0]


async def test_a_scripted_agent_simulates_within_budget_and_submits_the_oracle(
    tmp_path: Path
) -> None:
    r = await _dry("scripted", tmp_path)
    assert r.tools_called == ["describe_action_space", "simulate_plan", "simulate_plan",
                              "simulate_plan", "submit_plan"]
    sims = _simulated(r)  # the server's simulations, over MCP
    assert [(s["ok"], s["feasible"], s["action_cost"], s["budget_used"]) for s in sims] == [
        (True, False, 0.0, 1), (True, False, 34.0, 2), (True, True, 18.0, 3)]
    assert (r.failure_class, r.grade.score, r.grade.feasible) == (None, 1.0, True)
    ev = _evaluation(r)
    assert (ev["action_cost"], ev["oracle_cost"], ev["budget_used"], ev["invalid_calls"]) == (
        18.0, 18.0, 3, 0)


async def test_an_agent_past_its_budget_gets_the_over_budget_class(tmp_path: Path) -> None:
    r = await _dry("scripted:over_budget", tmp_path)
    sims = _simulated(r)
    # budget 10: calls 1..10 are simulated, the 11th is refused and not counted
    assert len(sims) == 11 and all(s["ok"] for s in sims[:10])
    assert not sims[10]["ok"] and sims[10]["budget_used"] == 10
    assert "budget of 10 calls is spent" in sims[10]["errors"][0]
    # the plan is still the oracle (score 1), but the attempt fails for its budget
    assert (r.failure_class, r.grade.score) == ("over_budget", 1.0)
    assert _evaluation(r)["budget_used"] == 10
    assert "11 simulate_plan call(s) for a budget of 10" in r.grade.evidence[-1]


async def test_an_invalid_submitted_plan_gets_the_invalid_plan_class(tmp_path: Path) -> None:
    r = await _dry("scripted:invalid_plan", tmp_path)
    submit = json.loads(r.steps[-2].content)
    # transfer_mva 0.25 = half of its 0.5 MVA step: refused, counted as an invalid call
    assert (r.steps[-3].args or {})["plan"] == {"actions": [{"id": "transfer_mva", "value": 0.25}]}
    assert not submit["ok"] and "off the step grid" in submit["errors"][0]
    assert submit["invalid_calls"] == 1
    assert (r.failure_class, r.grade.score) == ("invalid_plan", 0.0)
    assert {v.name for v in r.grade.violations} == {"invalid_plan"}
    ev = _evaluation(r)
    assert (ev["valid"], ev["budget_used"], ev["invalid_calls"]) == (False, 2, 1)


async def test_the_reference_agent_replays_an_operate_record(tmp_path: Path) -> None:
    r = await _dry("reference", tmp_path)
    assert (r.failure_class, r.grade.score) == (None, 1.0)
    assert r.tools_called == ["describe_action_space", "simulate_plan", "submit_plan"]


def test_an_unknown_scripted_behaviour_is_a_user_error() -> None:
    from eval.dryrun import make_agent
    from generator.errors import UserError

    with pytest.raises(UserError, match="scripted:over_budget"):
        make_agent("scripted:lazy")


def test_a_run_folder_gives_its_operate_records_too(tmp_path: Path) -> None:
    from eval.grade_answers import load_scenarios

    (tmp_path / "scenarios.json").write_text("[]")
    (tmp_path / "operate_scenarios.json").write_text(json.dumps([_record()]))
    assert [r["kind"] for r in load_scenarios(tmp_path)] == ["operate"]


def test_the_scripted_agent_submits_the_plan_of_least_total_cost() -> None:
    """A plan's cost is its action cost plus its outcome's operating cost (a chiller plant's
    kWh): the scripted agent picks the feasible candidate least in that sum, not in the
    action cost alone. Here: A costs 2 + 500 = 502, B 5 + 100 = 105, C (infeasible) 0."""
    from eval.dryrun_scripted import cheapest_feasible

    a, b, c = [{"id": "x", "value": 1}], [{"id": "x", "value": 2}], []
    tried = [
        (a, {"ok": True, "feasible": True, "action_cost": 2.0, "operating_cost": 500.0}),
        (b, {"ok": True, "feasible": True, "action_cost": 5.0, "operating_cost": 100.0}),
        (c, {"ok": True, "feasible": False, "action_cost": 0.0, "operating_cost": 0.0}),
    ]
    assert cheapest_feasible(tried) == b
    # without an operating cost (the transformer's outcomes) the action cost decides
    no_op = [(p, {k: v for k, v in o.items() if k != "operating_cost"}) for p, o in tried]
    assert cheapest_feasible(no_op) == a
    assert cheapest_feasible([tried[2]]) is None
