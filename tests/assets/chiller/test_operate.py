"""Operate family stage_chillers_for_forecast_load: EIR golden cases by hand, gate, tools, grade.

Curves: EnergyPlus 'DOE-2 Centrifugal/5.50COP' (assets/chiller/performance.py), x = leaving
chilled water, y = entering condenser water:
CAPFT = 0.257896 + 0.0389016·x − 0.000217080·x² + 0.0468684·y − 0.000942840·y² − 0.000343440·xy
EIRFT = 0.933884 − 0.0582120·x + 0.00450036·x² + 0.00243000·y + 0.000486000·y² − 0.00121500·xy
EIRFPLR(p) = 0.222903 + 0.313387·p + 0.463710·p², MUR 0.2, PLR_min 0.1, PLR_max 1.

At x = 7 °C, y = 30 °C (every golden case below):
CAPFT = 0.257896 + 0.2723112 − 0.01063692 + 1.406052 − 0.848556 − 0.0721224 = 1.00494388
EIRFT = 0.933884 − 0.407484 + 0.22051764 + 0.0729 + 0.4374 − 0.25515 = 1.00206764
CAPFT·EIRFT = 1.00702174.
Units: A 1000 kW, COP 5.0 (P_ref 200 kW), measured degradation 1.1; B 500 kW, COP 6.0
(P_ref 83.3333 kW), degradation 1.0. Available: A 1004.94388 kW, B 502.47194 kW, 1507.41582.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from assets.chiller.operate_audit import audit_task
from assets.chiller.operate_staging import PlantSituation, simulate
from eval.grade import grade
from generator.config import StoreSettings
from generator.errors import UserError
from generator.operate.model import check_plan, evaluate_plan, plan_cost
from generator.operate.oracle import GateFailure
from generator.operate.session import register
from generator.operate.tools import (
    PlanArgs,
    SimulationResult,
    SubmissionResult,
    TaskArgs,
    describe_action_space,
    simulate_plan,
)
from generator.operate.tools import submit_plan as submit
from tests.assets.chiller.operate_fixture import situation, task, unit

A = unit("CH-T-A", 1000.0, 5.0, 1.1)
B = unit("CH-T-B", 500.0, 6.0, 1.0)
ALL_DAY = {"run_ch_t_a": 2.0, "run_ch_t_b": 2.0}


def _plant(load: list[float], day_hours: tuple[int, int] = (7, 19)) -> dict[str, Any]:
    return situation(load=load, ecwt=[30.0] * len(load), units=[A, B],
                     day_hours=day_hours).model_dump(mode="json")


def test_one_hours_power_for_one_staging_and_setpoint_by_hand() -> None:
    # Both units on, design setpoint 7 °C, load 904.449492 kW = 0.6 × 1507.41582: PLR 0.6 each.
    # EIRFPLR(0.6) = 0.222903 + 0.1880322 + 0.1669356 = 0.5778708; cycling min(1, 6) = 1
    # P_A = 1.1 · 200 · 1.00702174 · 0.5778708 = 128.024261 kW
    # P_B = 1.0 · 83.333333 · 1.00702174 · 0.5778708 = 48.494038 kW
    # plant: 176.518299 kW over 1 h = 176.518299 kWh
    out = simulate(_plant([904.449492]), ALL_DAY)
    units = {u["asset_id"]: u for u in out.details["units"]}
    assert units["CH-T-A"]["energy_kwh"] == pytest.approx(128.024261, abs=1e-3)
    assert units["CH-T-B"]["energy_kwh"] == pytest.approx(48.494038, abs=1e-3)
    assert units["CH-T-A"]["lowest_plr"] == pytest.approx(0.6, abs=1e-4)
    assert out.operating_cost == pytest.approx(176.518299, abs=1e-3)
    assert out.feasible and out.details["unmet_cooling_kwh"] == 0.0


def test_an_energy_sum_over_a_small_day_by_hand() -> None:
    # Three hours, day period [1, 3): A all day (2), B in the day period only (1).
    # h0: A alone, 301.483164 kW = 0.3 × 1004.94388: EIRFPLR(0.3) = 0.222903 + 0.0940161
    #     + 0.0417339 = 0.358653; P = 220 · 1.00702174 · 0.358653 = 79.457701
    # h1: both at PLR 0.6 (previous test): 176.518299
    # h2: both, 226.112373 kW = 0.15 × 1507.41582: PLR 0.15 < MUR 0.2, so EIRFPLR(0.2)
    #     = 0.222903 + 0.0626774 + 0.0185484 = 0.3041288, cycling min(1, 0.15/0.1) = 1;
    #     P = (220 + 83.333333) · 1.00702174 · 0.3041288 = 67.378149 + 25.522026 = 92.900175
    # E = 79.457701 + 176.518299 + 92.900175 = 348.876175 kWh
    out = simulate(_plant([301.483164, 904.449492, 226.112373], day_hours=(1, 3)),
                   {"run_ch_t_a": 2.0, "run_ch_t_b": 1.0})
    assert out.operating_cost == pytest.approx(348.876175, abs=2e-3)
    assert out.details["hourly_power_kw"] == pytest.approx([79.5, 176.5, 92.9])
    assert [u["hours_run"] for u in out.details["units"]] == [3, 2]
    assert out.feasible


def test_the_action_cost_sum_and_the_plans_cost() -> None:
    t = task(reset_cost_kwh=25.0)
    # run levels cost nothing; reset 1.5 K = 3 steps of 0.5 K × 25 kWh = 75 kWh
    values = {"run_ch_t_01": 2.0, "run_ch_t_02": 1.0, "run_ch_t_03": 2.0, "chws_reset_k": 1.5}
    assert plan_cost(t.actions, values) == 75.0
    plan = {"actions": [{"id": k, "value": v} for k, v in values.items()]}
    ev = evaluate_plan(t, plan)
    energy = simulate(t.situation, values).operating_cost
    assert ev.feasible and ev.action_cost == 75.0 and ev.operating_cost == energy
    # the plan's cost C = 75 + E enters the score: 0.5 + 0.5·(C_max − C)/(C_max − C*)
    ref = t.reference
    c = 75.0 + energy
    assert ev.score == pytest.approx(0.5 + 0.5 * (ref.max_cost - c)
                                     / (ref.max_cost - ref.oracle.cost))


def test_limits_in_documented_points_by_hand() -> None:
    # Load 75.370791 kW = 0.05 × 1507.41582 with both on: PLR 0.05 < 0.1 on each unit,
    # 100·(0.1 − 0.05) = 5 points each = 10; cycling 0.05/0.1 = 0.5, EIRFPLR(0.2):
    # P_A = 220 · 1.00702174 · 0.3041288 · 0.5 = 33.689075 kW
    low = simulate(_plant([75.370791]), ALL_DAY)
    assert {v.quantity for v in low.violations} == {"min_part_load_ratio"}
    assert low.violation_score == pytest.approx(10.0, abs=1e-4)
    assert low.details["units"][0]["energy_kwh"] == pytest.approx(33.689075, abs=1e-3)
    # Load 2000 kW, both on: delivered 1507.41582, unmet 492.58418 kWh = 24.629209 % of the day
    high = simulate(_plant([2000.0]), ALL_DAY)
    (v,) = high.violations
    assert v.quantity == "unmet_cooling" and v.value == pytest.approx(492.584, abs=1e-3)
    assert high.violation_score == pytest.approx(24.629209, abs=1e-5)
    # every unit off: the whole day's cooling unmet, 100 points
    assert simulate(_plant([500.0, 700.0]), {}).violation_score == 100.0


@pytest.mark.parametrize(("plan", "words"), [
    ({"actions": [{"id": "run_ch_t_01", "value": 1.5}]}, "off the step grid"),
    ({"actions": [{"id": "chws_reset_k", "value": 0.3}]}, "off the step grid"),
    ({"actions": [{"id": "run_ch_t_01", "value": 3}]}, "outside [0, 2]"),
    ({"actions": [{"id": "chws_reset_k", "value": 2.5}]}, "outside [0, 2]"),
    ({"actions": [{"id": "run_ch_x", "value": 1}]}, "unknown action id 'run_ch_x'"),
    ({"actions": [{"id": "run_ch_t_01", "value": 2}, {"id": "run_ch_t_01", "value": 1}]},
     "given twice"),
])
def test_invalid_plans_are_named_with_the_fix(plan: object, words: str) -> None:
    t = task()
    _, errors = check_plan(t.actions, plan)
    assert len(errors) == 1 and words in errors[0], errors
    ev = evaluate_plan(t, plan)
    assert not ev.valid and ev.score == 0.0


def test_the_oracle_scores_one_and_baselines_below() -> None:
    t = task()
    ref = t.reference
    oracle = {"actions": [p.model_dump() for p in ref.oracle.plan]}
    # the degraded CH-T-02 (best nameplate COP, measured 25 % worse) stays off; the others
    # run all day at the full reset
    assert oracle == {"actions": [{"id": "run_ch_t_01", "value": 2.0},
                                  {"id": "run_ch_t_03", "value": 2.0},
                                  {"id": "chws_reset_k", "value": 2.0}]}
    assert evaluate_plan(t, oracle).score == 1.0
    assert evaluate_plan(t, {"actions": []}).score == 0.0  # every unit off: 100 % unmet
    every = {"actions": [{"id": a.id, "value": 2} for a in t.actions[:-1]]}
    ev = evaluate_plan(t, every)  # all on all day at the design setpoint: the costliest
    assert ev.feasible and ev.score == pytest.approx(0.5)
    best_cop = next(h for h in ref.heuristics if h.name == "best_nameplate_cop")
    assert best_cop.feasible and best_cop.cost > ref.oracle.cost * 1.05
    assert all(evaluate_plan(t, {"actions": [p.model_dump() for p in plan]}).score == 1.0
               for plan in ref.optimal_plans)


def test_the_gate() -> None:
    # all optimal plans are accepted: two identical units give two plans of equal cost
    # (two 600 kW twins and a 1000 kW unit: the optimum runs the big unit and either twin)
    twins = [unit("CH-T-01", 600.0, 5.5, 1.0), unit("CH-T-02", 600.0, 5.5, 1.0),
             unit("CH-T-03", 1000.0, 6.5, 1.0)]
    t = task(units=twins)
    optimal = [{p.id: p.value for p in plan} for plan in t.reference.optimal_plans]
    swapped = [{"run_ch_t_02" if k == "run_ch_t_01" else "run_ch_t_01" if k == "run_ch_t_02"
                else k: v for k, v in o.items()} for o in optimal]
    def key(o: dict[str, float]) -> str:
        return json.dumps(o, sort_keys=True)
    assert sorted(map(key, optimal)) == sorted(map(key, swapped))
    assert {("run_ch_t_01" in o) + ("run_ch_t_02" in o) for o in optimal} == {1}
    assert all(evaluate_plan(t, {"actions": [p.model_dump() for p in plan]}).score == 1.0
               for plan in t.reference.optimal_plans)
    # a peak above the whole plant's capacity: nothing is feasible, the draw is dropped
    with pytest.raises(GateFailure, match="no plan"):
        task(load=[3000.0] * 24)
    # a night load below every unit's minimum part load: nothing is feasible either
    with pytest.raises(GateFailure, match="no plan"):
        task(load=[20.0] * 7 + [1200.0] * 17)


def test_the_audit_agrees_and_catches_a_wrong_reference() -> None:
    t = task().model_dump(mode="json")
    assert audit_task(t) == []
    t["reference"]["oracle"]["operating_cost"] += 5.0
    assert any("oracle energy" in p for p in audit_task(t))
    t = task().model_dump(mode="json")
    t["reference"]["oracle"]["plan"] = [{"id": "run_ch_t_03", "value": 2.0}]  # too small
    assert any("oracle: audit finds" in p for p in audit_task(t))


class _Ctx:
    """A stand-in tool context (the operate tools only key their sessions by it)."""


def test_tools_budget_invalid_plans_and_submission() -> None:
    t = task()
    ctx = _Ctx()
    register(ctx, [t])
    view = describe_action_space(TaskArgs(task_id=t.task_id), ctx).model_dump()
    assert "reference" not in json.dumps(view) and view["budget"] == 10
    assert PlantSituation.model_validate(view["situation"]).units[1].degradation == 1.25
    bad = simulate_plan(PlanArgs(task_id=t.task_id, plan={"actions": [
        {"id": "chws_reset_k", "value": 0.7}]}), ctx)
    assert not bad.ok and bad.invalid_calls == 1 and "off the step grid" in bad.errors[0]
    oracle = {"actions": [p.model_dump() for p in t.reference.oracle.plan]}
    ok = simulate_plan(PlanArgs(task_id=t.task_id, plan=oracle), ctx)
    assert ok.ok and ok.feasible and ok.operating_cost == t.reference.oracle.operating_cost
    assert ok.outcome["energy_kwh"] == ok.operating_cost
    for _ in range(t.budget - 2):
        assert simulate_plan(PlanArgs(task_id=t.task_id, plan='{"actions": []}'), ctx).ok
    spent = simulate_plan(PlanArgs(task_id=t.task_id, plan=oracle), ctx)
    assert not spent.ok and "budget of 10 calls is spent" in spent.errors[0]
    first = submit(PlanArgs(task_id=t.task_id, plan=oracle), ctx)
    assert first.ok and not submit(PlanArgs(task_id=t.task_id, plan=oracle), ctx).ok
    with pytest.raises(UserError, match="not served here"):
        simulate_plan(PlanArgs(task_id="op-00000000", plan={"actions": []}), ctx)


def test_the_chiller_class_serves_the_operate_tools_through_its_registry() -> None:
    from generator.assetdef import load_asset_class
    from generator.tools.registry import ToolContext, load_tools, tools_for, validate_args

    load_tools()
    specs = tools_for("chiller")
    assert {"describe_action_space", "simulate_plan", "submit_plan"} <= set(specs)
    t = task()
    ctx = ToolContext(load_asset_class("chiller"))
    register(ctx, [t])
    oracle = {"actions": [p.model_dump() for p in t.reference.oracle.plan]}
    spec = specs["simulate_plan"]
    out = spec.fn(validate_args(spec, {"task_id": t.task_id, "plan": json.dumps(oracle)}), ctx)
    assert isinstance(out, SimulationResult) and out.ok and out.feasible
    sub = specs["submit_plan"]
    done = sub.fn(validate_args(sub, {"task_id": t.task_id, "plan": oracle}), ctx)
    assert isinstance(done, SubmissionResult) and done.ok
    assert "EIR" in specs["simulate_plan"].description
    ctx.close()


def _record() -> dict[str, object]:
    t = task()
    oracle = {"actions": [p.model_dump() for p in t.reference.oracle.plan]}
    return {"id": "chiller_operate_01", "type": "fmsr", "kind": "operate",
            "reference_answer": oracle, "operate": t.model_dump(mode="json")}


def test_the_grader_reads_and_scores_a_plan() -> None:
    good = ("Run CH-T-01 and CH-T-03 all day, reset 2 K: run_ch_t_01 = 2, run_ch_t_03 = 2, "
            "chws_reset_k = 2")
    g = grade(_record(), good)
    assert g.kind == "operate" and g.score == 1.0 and g.feasible
    worse = grade(_record(), {"actions": [{"id": "run_ch_t_01", "value": 2},
                                          {"id": "run_ch_t_02", "value": 2}]})
    assert 0.5 <= worse.score < 1.0 and {v.name for v in worse.violations} == {"suboptimal"}
    assert "operation" in worse.violations[0].message
    assert grade(_record(), '{"actions": []}').score == 0.0


def test_draws_from_the_store_pass_the_gate(settings_for: Callable[..., StoreSettings]
                                            ) -> None:
    from generator.assetdef import load_asset_class
    from generator.generate.draw.operate_run import draw_operate
    from generator.generate.model import ScenarioRecord
    from generator.tools.registry import ToolContext
    from tests.assets.chiller.chiller_fleet import seed_chiller

    settings = seed_chiller(settings_for)
    asset = load_asset_class("chiller")
    ctx = ToolContext(asset, settings)
    run = asyncio.run(draw_operate("chiller", list(asset.tools), ctx.store, 2, run_seed=5))
    ctx.close()
    assert len(run.records) == 2
    for r in run.records:
        rec = ScenarioRecord.model_validate(r.model_dump(mode="json"))
        assert rec.kind == "operate" and rec.operate is not None
        ref = rec.operate.reference
        assert not ref.do_nothing.feasible and ref.oracle.feasible
        assert max(u["degradation"] for u in rec.operate.situation["units"]) >= 1.05
        assert rec.operate.task_id in rec.text
        assert grade(rec.model_dump(mode="json"), rec.reference_answer).score == 1.0
        assert audit_task(rec.operate.model_dump(mode="json")) == []
