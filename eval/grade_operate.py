"""Grading an operate answer: the submitted plan, simulated and scored (deterministic).

The plan is read from the answer (:func:`plan_of_answer`), in this order:

1. an object with the key ``actions`` (the answer itself, or under ``plan``); other keys of
   it (a stated cost, a note) are ignored, the tools' strict template is not required;
2. in text: the last JSON object holding ``"actions"`` (fenced or inline);
3. in text: each action id written literally and followed by ``:``, ``=``, ``of`` or ``to``
   and a number (``transfer_mva = 5``); an id written twice is a duplicate (invalid).

An answer with no plan scores 0 (``no_plan``): stating nothing is not a decision to do
nothing, which is written ``{"actions": []}``.

The plan is checked, simulated and scored by
:func:`generator.operate.model.evaluate_plan` (the task's own simulator, the oracle and
do-nothing references stored at generation time). The grade's ``score`` is the evaluator's;
``feasible`` (the answer is acceptable in full) is True exactly when the score is 1 (an
optimal plan). :class:`OperateGrade` holds every evaluator output: feasible (the plan's),
score, violations, action_cost, operating_cost, regret, budget_used and invalid_calls (the
last two from the trajectory when the caller has one, else None).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from eval.model import Violation
from generator.operate.model import LimitExcess, OperateTask, PlanValue, evaluate_plan

MAX_TEXT = 100_000
_NUMBER = r"(-?\d+(?:\.\d+)?)"


class OperateGrade(BaseModel):
    """The evaluator's outputs for one answer."""

    model_config = ConfigDict(extra="forbid")

    plan_found: bool = Field(description="A plan was read from the answer")
    read_as: str = Field(description="object, json_in_text, ids_in_text or none")
    valid: bool = Field(description="The plan is well formed and on the grid")
    errors: list[str] = Field(default_factory=list, description="Why it is invalid")
    feasible: bool = Field(description="The plan exceeds no limit")
    score: float = Field(description="Normalised score (generator/operate/model.py)")
    violations: list[LimitExcess] = Field(default_factory=list, description="Limits exceeded")
    violation_score: float | None = Field(description="Σ violation points")
    action_cost: float | None = Field(description="Σ action cost")
    operating_cost: float | None = Field(default=None, description="The outcome's operating "
                                         "cost (0 when only the actions cost)")
    oracle_cost: float = Field(description="The oracle's cost (action + operating cost)")
    regret: float = Field(description="1 − score")
    plan: list[PlanValue] = Field(default_factory=list, description="The plan read")
    budget_used: int | None = Field(default=None, description="simulate_plan calls made")
    invalid_calls: int | None = Field(default=None, description="Calls with an invalid plan")


def _objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object decodable from a '{' in ``text`` (outermost first, in order)."""
    dec = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    i, end = 0, len(text)
    while i < end:
        j = text.find("{", i)
        if j < 0:
            break
        try:
            obj, stop = dec.raw_decode(text, j)
        except (ValueError, RecursionError):
            i = j + 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        i = stop
    return out


def plan_of_answer(answer: Any, task: OperateTask) -> tuple[Any, str]:
    """The raw plan in an answer and how it was read (module docstring); (None, "none")."""
    if isinstance(answer, Mapping):
        if "actions" in answer:
            return {"actions": answer["actions"]}, "object"
        if isinstance(answer.get("plan"), Mapping | str):
            return plan_of_answer(answer["plan"], task)
        answer = json.dumps(answer)
    if isinstance(answer, bytes):
        answer = answer.decode("utf-8", errors="replace")
    if not isinstance(answer, str):
        return None, "none"
    text = answer[:MAX_TEXT]
    found = [o for o in _objects(text) if "actions" in o]
    if found:
        return {"actions": found[-1]["actions"]}, "json_in_text"
    entries: list[dict[str, Any]] = []
    for a in task.actions:
        for m in re.finditer(rf"\b{re.escape(a.id)}\b\s*(?::|=|\bof\b|\bto\b)\s*{_NUMBER}",
                             text):
            entries.append({"id": a.id, "value": float(m.group(1))})
    if entries:
        return {"actions": entries}, "ids_in_text"
    return None, "none"


def grade_plan(scenario: Mapping[str, Any], answer: Any, *, budget_used: int | None = None,
               invalid_calls: int | None = None) -> OperateGrade:
    """Read, check, simulate and score the plan of an answer to an operate scenario."""
    task = OperateTask.model_validate(scenario["operate"])
    raw, how = plan_of_answer(answer, task)
    oracle_cost = task.reference.oracle.cost
    if raw is None:
        return OperateGrade(plan_found=False, read_as=how, valid=False, feasible=False,
                            score=0.0, violation_score=None, action_cost=None,
                            oracle_cost=oracle_cost, regret=1.0,
                            errors=['no plan found in the answer; state it as {"actions": '
                                    '[{"id": ..., "value": ...}]}'],
                            budget_used=budget_used, invalid_calls=invalid_calls)
    ev = evaluate_plan(task, raw)
    return OperateGrade(plan_found=True, read_as=how, valid=ev.valid, errors=ev.errors,
                        feasible=ev.feasible, score=ev.score, violations=ev.violations,
                        violation_score=ev.violation_score, action_cost=ev.action_cost,
                        operating_cost=ev.operating_cost, oracle_cost=oracle_cost,
                        regret=ev.regret, plan=ev.plan,
                        budget_used=budget_used, invalid_calls=invalid_calls)


def grade_fields(g: OperateGrade) -> dict[str, Any]:
    """The :class:`eval.model.GradeResult` fields of an operate grade: feasible when optimal,
    the evaluator's score, one violation per reason, the outputs as one evidence line."""
    violations: list[Violation] = []
    if not g.plan_found:
        violations.append(Violation(name="no_plan", path="actions", message=g.errors[0]))
    elif not g.valid:
        violations += [Violation(name="invalid_plan", path="actions", message=e)
                       for e in g.errors]
    else:
        violations += [Violation(
            name="limit_exceeded", path=f"{v.asset_id}.{v.quantity}", expected=v.limit,
            given=v.value, message=f"{v.asset_id} {v.quantity} {v.value:g} {v.unit} above "
            f"its limit {v.limit:g} {v.unit}") for v in g.violations]
        if g.feasible and g.score < 1.0:
            operating = g.operating_cost or 0.0
            cost = round((g.action_cost or 0.0) + operating, 9)
            what = (f"action cost {cost:g}" if not operating else
                    f"cost {cost:g} (actions {g.action_cost:g} + operation {operating:g})")
            violations.append(Violation(
                name="suboptimal", path="action_cost", expected=g.oracle_cost,
                given=cost, message=f"feasible plan of {what}; the least feasible cost is "
                f"{g.oracle_cost:g}"))
    evidence = ["operate evaluation: " + g.model_dump_json(
        include={"read_as", "valid", "feasible", "score", "violation_score", "action_cost",
                 "operating_cost", "oracle_cost", "regret", "budget_used", "invalid_calls"})]
    return {"feasible": g.score >= 1.0, "score": g.score, "violations": violations,
            "evidence": evidence}
