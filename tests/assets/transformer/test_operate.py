"""Operate family relieve_forecast_overload: thermal golden cases by hand, tools, grading.

Characteristics: IEC 60076-7 Table 4 as commonly tabulated (shared/domain
transformer-standards.md §2). ONAN distribution: x 0.8, y 1.6, R 5, H 1.1, gr 21, Δθor 55,
τo 180, τw 4, k11 1, k21 1, k22 2.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from assets.transformer.operate_overload import run_unit, simulate
from eval.grade import grade
from generator.config import StoreSettings
from generator.errors import UserError
from generator.operate.model import evaluate_plan
from generator.operate.session import register
from generator.operate.tools import PlanArgs, TaskArgs, describe_action_space, simulate_plan
from generator.operate.tools import submit_plan as submit
from tests.assets.transformer.operate_fixture import situation, task


def test_one_loading_step_of_the_difference_equations_by_hand() -> None:
    # Two 1-minute steps (data step = model step Dt = 1 min), ambient 20 °C, Kraft paper.
    # Settled at K0 = 1.0 (clause 7): θo = 20 + 55·[(1 + 5)/(1 + 5)]^0.8 = 75,
    #   Δθh1 = k21·H·gr·K^y = 1·1.1·21·1 = 23.1, Δθh2 = (k21 − 1)·... = 0 → θh = 98.1;
    #   step 1 holds K = 1.0: nothing moves, V = 2^((98.1 − 98)/6) = 2^0.016667 = 1.011619.
    # Step 2 at K = 1.2:
    #   top-oil target: 20 + 55·[(1 + 5·1.44)/6]^0.8 = 20 + 55·1.366667^0.8
    #     = 20 + 55·exp(0.8·0.312375) = 20 + 55·1.283897 = 90.614318
    #   θo = 75 + (1/(1·180))·(90.614318 − 75) = 75 + 0.086746 = 75.086746
    #   Δθh1 target: 23.1·1.2^1.6 = 23.1·exp(1.6·0.182322) = 23.1·1.338721 = 30.924449
    #   Δθh1 = 23.1 + (1/(2·4))·(30.924449 − 23.1) = 23.1 + 0.978056 = 24.078056
    #   θh = 75.086746 + 24.078056 − 0 = 99.164802
    #   V = 2^((99.164802 − 98)/6) = 2^0.194134 = 1.144037
    # Loss of life L = Σ V·Dt = (1.011619 + 1.144037)·(1/60) h = 0.035928 h.
    peak_o, peak_h, loss = run_unit([1.0, 1.2], [20.0, 20.0], "ONAN_distribution", "kraft",
                                    step_min=1.0)
    assert peak_o == pytest.approx(75.086746, abs=1e-5)
    assert peak_h == pytest.approx(99.164802, abs=1e-5)
    assert loss == pytest.approx(0.035928, abs=1e-6)


def test_an_hour_of_sixty_model_steps_by_hand() -> None:
    # Same unit, hourly data: the hour at K = 1.2 is 60 steps of Dt = 1 min; with the inputs
    # held, x(60) = T + (x0 − T)·(1 − Dt/τ)^60 (the difference equation applied 60 times).
    #   (1 − 1/180)^60 = 0.715866 → θo = 90.614318 − 15.614318·0.715866 = 79.436563
    #   (1 − 1/8)^60 = 0.000331 → Δθh1 = 30.924449 − 7.824449·0.000331 = 30.921855
    # Both rise monotonically (k21 = 1: no Δθh2), so the peaks are the hour's end:
    #   θo 79.436563, θh = 79.436563 + 30.921855 = 110.358418.
    peak_o, peak_h, _ = run_unit([1.0, 1.2], [20.0, 20.0], "ONAN_distribution", "kraft")
    assert peak_o == pytest.approx(79.436563, abs=1e-5)
    assert peak_h == pytest.approx(110.358418, abs=1e-5)


def test_a_plan_moves_load_and_scores_violations_in_documented_points() -> None:
    s = situation().model_dump(mode="json")
    nothing = simulate(s, {})
    # the target peaks at 13 MVA = 1.3 pu ≤ 1.5 pu (no current violation); its hot spot does
    assert {(v.asset_id, v.quantity) for v in nothing.violations} >= {("TEST-TX01", "hot_spot")}
    assert all(v.asset_id == "TEST-TX01" for v in nothing.violations)
    assert nothing.violation_score == pytest.approx(sum(v.points for v in nothing.violations))
    moved = simulate(s, {"transfer_mva": 5.0})  # 9 + 5 = 14 MVA on the neighbour at the peak
    assert max(u["peak_current_pu"] for u in moved.details["units"]) == pytest.approx(1.4)
    assert any(v.asset_id == "TEST-TX02" for v in moved.violations)


def test_the_oracle_scores_one_and_baselines_below() -> None:
    t = task()
    oracle = {"actions": [p.model_dump() for p in t.reference.oracle.plan]}
    # hand-made case: transfer 1 MVA (2 steps x 1) + shed 2 MVA (4 steps x 4) = 18
    assert oracle == {"actions": [{"id": "transfer_mva", "value": 1.0},
                                  {"id": "shed_mva", "value": 2.0}]}
    assert evaluate_plan(t, oracle).score == 1.0
    assert evaluate_plan(t, {"actions": []}).score == 0.0
    shed_only = next(h for h in t.reference.heuristics if h.name == "shed_only")
    ev = evaluate_plan(t, {"actions": [p.model_dump() for p in shed_only.plan]})
    # shed 3 MVA = 6 steps x 4 = 24; C_max = 10 x 1 + 6 x 4 = 34:
    # 0.5 + 0.5·(34 − 24)/(34 − 18) = 0.8125
    assert ev.feasible and ev.action_cost == 24.0 and ev.score == pytest.approx(0.8125)


class _Ctx:
    """A stand-in tool context (the operate tools only key their sessions by it)."""


def test_tools_budget_invalid_plans_and_submission() -> None:
    t = task()
    ctx = _Ctx()
    register(ctx, [t])
    view = describe_action_space(TaskArgs(task_id=t.task_id), ctx).model_dump()
    assert "reference" not in json.dumps(view) and view["budget"] == 10
    bad = simulate_plan(PlanArgs(task_id=t.task_id, plan={"actions": [{"id": "shed_mva",
                                                                       "value": 0.7}]}), ctx)
    assert not bad.ok and bad.invalid_calls == 1 and "off the step grid" in bad.errors[0]
    for _ in range(t.budget - 1):
        ok = simulate_plan(PlanArgs(task_id=t.task_id, plan='{"actions": []}'), ctx)
        assert ok.ok and ok.feasible is False
    spent = simulate_plan(PlanArgs(task_id=t.task_id, plan={"actions": []}), ctx)
    assert not spent.ok and "budget of 10 calls is spent" in spent.errors[0]
    assert spent.budget_used == 10
    refused = submit(PlanArgs(task_id=t.task_id, plan={"actions": [{"id": "x", "value": 1}]}),
                     ctx)
    assert not refused.ok and refused.invalid_calls == 2
    first = submit(PlanArgs(task_id=t.task_id, plan={"actions": []}), ctx)
    again = submit(PlanArgs(task_id=t.task_id, plan={"actions": []}), ctx)
    assert first.ok and not again.ok and "first submission is final" in again.errors[0]
    with pytest.raises(UserError, match="not served here"):
        simulate_plan(PlanArgs(task_id="op-00000000", plan={"actions": []}), ctx)


def _record() -> dict[str, object]:
    t = task()
    oracle = {"actions": [p.model_dump() for p in t.reference.oracle.plan]}
    return {"id": "transformer_operate_01", "type": "fmsr", "kind": "operate",
            "reference_answer": oracle | {"action_cost": 18.0, "feasible": True},
            "operate": t.model_dump(mode="json")}


@pytest.mark.parametrize(("answer", "score"), [
    ('{"actions": [{"id": "transfer_mva", "value": 1}, {"id": "shed_mva", "value": 2}]}', 1.0),
    ('I will switch and shed: ```json\n{"actions": [{"id": "shed_mva", "value": 2.0}, '
     '{"id": "transfer_mva", "value": 1.0}]}\n```', 1.0),
    ("Plan: transfer_mva = 1, shed_mva = 2 (cost 18).", 1.0),
    ({"plan": {"actions": [{"id": "shed_mva", "value": 3}]}}, 0.8125),
    ('{"actions": []}', 0.0),
    ('{"actions": [{"id": "shed_mva", "value": 2.2}]}', 0.0),
    ("Shed some load and move the rest.", 0.0),
])
def test_the_grader_reads_and_scores_a_plan(answer: object, score: float) -> None:
    g = grade(_record(), answer)
    assert g.kind == "operate" and g.score == pytest.approx(score)
    assert g.feasible == (score == 1.0)


def test_the_grader_names_why_a_plan_loses() -> None:
    names = {v.name for v in grade(_record(), '{"actions": [{"id": "shed_mva", '
                                               '"value": 2.2}]}').violations}
    assert names == {"invalid_plan"}
    assert {v.name for v in grade(_record(), {"actions": [{"id": "shed_mva",
                                                           "value": 3}]}).violations} == {
        "suboptimal"}
    assert "limit_exceeded" in {v.name for v in grade(_record(), '{"actions": []}').violations}
    assert {v.name for v in grade(_record(), "no idea").violations} == {"no_plan"}


def test_draws_from_the_store_pass_the_gate(seeded_settings: StoreSettings) -> None:
    from generator.assetdef import load_asset_class
    from generator.generate.draw.operate_run import draw_operate
    from generator.generate.model import ScenarioRecord
    from generator.tools.registry import ToolContext

    asset = load_asset_class("transformer")
    ctx = ToolContext(asset, seeded_settings)
    run = asyncio.run(draw_operate("transformer", list(asset.tools), ctx.store, 3, run_seed=5))
    ctx.close()
    assert len(run.records) == 3
    for r in run.records:
        rec = ScenarioRecord.model_validate(r.model_dump(mode="json"))  # round trip
        assert rec.kind == "operate" and rec.operate is not None
        ref = rec.operate.reference
        assert not ref.do_nothing.feasible and ref.oracle.feasible
        assert any(h.feasible and h.action_cost > ref.oracle.action_cost for h in ref.heuristics)
        assert rec.operate.task_id in rec.text
        assert grade(rec.model_dump(mode="json"), rec.reference_answer).score == 1.0


def test_an_operate_record_exports_to_assetopsbench_and_back() -> None:
    import jsonschema

    from generator.export.aob_records import from_upstream, to_upstream
    from generator.export.vocab import HF_TYPES, JSON_TYPES
    from generator.generate.checks.schemas import load_schema
    from generator.generate.draw.operate_run import operate_record
    from generator.operate.families import OperateDraw

    t = task()
    rec = operate_record("transformer", t.family, "Decision Support", "fmsr", 0,
                         OperateDraw(task=t, text=f"Operate task {t.task_id}: relieve it.",
                                     characteristic_form="states the plan",
                                     grounding={"task_id": t.task_id},
                                     params={"task_id": t.task_id}), 0, "test")
    jsonschema.validate(rec.model_dump(mode="json"), load_schema("scenario.schema.json"))
    for name, types in (("assetopsbench_scenario.schema.json", JSON_TYPES),
                        ("aob_hf_utterance.schema.json", HF_TYPES)):
        row = to_upstream(rec, 7, types)
        jsonschema.validate(row, load_schema(name))
        assert from_upstream(row) == rec


def test_the_audit_resimulates_the_oracle_exactly_and_catches_a_wrong_reference() -> None:
    from assets.transformer.operate_audit import audit_task

    t = task().model_dump(mode="json")
    assert audit_task(t) == []
    t["reference"]["oracle"]["plan"] = []  # a reference claiming do-nothing is the optimum
    assert any("oracle: audit finds feasible=False" in p for p in audit_task(t))
