"""Operate scenarios in dry runs: the plan graded, the budget counted, the scripted agents.

**What is graded.** An operate attempt is graded on the plan the agent's last accepted
``submit_plan`` call recorded (read from that call's observation: the tool server's record);
without an accepted submission, on the plan its final answer states
(:func:`eval.grade_operate.plan_of_answer`). The grade is :func:`eval.grade_operate.grade_plan`
with the attempt's ``budget_used`` and ``invalid_calls``, the tool server's own counters as
its last ``simulate_plan`` / ``submit_plan`` observation reports them.

**Failure classes** (:func:`classify_operate`), in this order:

1. ``infrastructure`` as for every scenario;
2. ``over_budget``: the agent called ``simulate_plan`` more times than the task's budget (the
   server refuses every call past it); the attempt fails whatever its plan scores (the
   grade's score is still the plan's);
3. ``max_steps``, ``no_final_answer`` (no submission and no final answer) as for every
   scenario;
4. ``invalid_plan``: the plan graded is invalid (malformed, an unknown or repeated id, a
   value off its grid or out of range): score 0. Invalid ``simulate_plan`` calls on the way
   are counted (``invalid_calls``) but are no failure by themselves;
5. then the classes of :func:`eval.dryrun_attempt.classify` (``wrong_tools`` for an optimal plan
   without every operate tool called, ``wrong_answer`` for a valid plan that is not
   optimal, ...).

**Scripted agents** (``--agent scripted[:BEHAVIOUR]``, :mod:`eval.dryrun_scripted`): on an
operate scenario they start the MCP tool server (``scenariogen serve-tools``, the path an
LLM agent uses, serving the scenario's class and the operate tasks of the dry run) and
call, through it, ``describe_action_space`` on the task id the text states,
``simulate_plan`` on candidate plans, then ``submit_plan``, and answer with the plan
submitted. Candidates, in order:
doing nothing, every action at its largest magnitude, and the record's oracle plan (the
scripted agents know the answer; they test the path, not a search). Behaviours:

* ``good`` (``scripted``): simulates the candidates (within the budget) and submits the
  one the simulations report feasible at the least cost (action plus operating cost);
* ``over_budget``: simulates the candidates in turn until it has made budget + 1 calls (the
  last is refused), then submits as ``good`` does;
* ``invalid_plan``: simulates the first two candidates, then submits a plan whose first
  action sits half a step off its grid (refused) and states that plan as its answer.

On other scenarios they act as the reference agent (:mod:`eval.dryrun_reference`).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from eval.dryrun_attempt import Attempt, classify, steps_json
from eval.model import FailureClass, GradeResult, TrajectoryStep

if TYPE_CHECKING:
    from generator.config import StoreSettings

BEHAVIOURS = ("good", "over_budget", "invalid_plan")
SIMULATE, SUBMIT, DESCRIBE = "simulate_plan", "submit_plan", "describe_action_space"
_TASK_ID = re.compile(r"\bop-[0-9a-f]{8}\b")


def is_operate(scenario: Mapping[str, Any]) -> bool:
    """True for a record of kind ``operate`` carrying its task."""
    return scenario.get("kind") == "operate" and isinstance(scenario.get("operate"), dict)


class OperateUse(BaseModel):
    """How an attempt used an operate task's tools (read from its trajectory)."""

    model_config = ConfigDict(extra="forbid")

    budget: int = Field(description="simulate_plan calls the task allows")
    simulate_calls: int = Field(description="simulate_plan calls the agent made")
    budget_used: int = Field(description="Calls the server counted (its last report)")
    invalid_calls: int = Field(description="Calls with an invalid plan (the server's count)")
    submitted: list[dict[str, Any]] | None = Field(
        description="The plan of the last accepted submit_plan (None: none accepted)")

    @property
    def over_budget(self) -> bool:
        """More simulate_plan calls than the budget."""
        return self.simulate_calls > self.budget


def operate_use(scenario: Mapping[str, Any], steps: list[TrajectoryStep]) -> OperateUse:
    """Read the operate tools' use from a trajectory (module docstring)."""
    budget = int(scenario["operate"]["budget"])
    calls = sum(1 for s in steps if s.kind == "tool_call" and s.tool == SIMULATE)
    used = invalid = 0
    submitted: list[dict[str, Any]] | None = None
    for s in steps:
        if s.kind != "observation" or s.is_error or s.tool not in (SIMULATE, SUBMIT):
            continue
        try:
            out = json.loads(s.content)
        except ValueError:
            continue
        if not isinstance(out, dict):
            continue
        used = max(used, int(out.get("budget_used") or 0))
        invalid = max(invalid, int(out.get("invalid_calls") or 0))
        if s.tool == SUBMIT and out.get("ok") is True and isinstance(out.get("plan"), list):
            submitted = out["plan"]
    return OperateUse(budget=budget, simulate_calls=calls, budget_used=used,
                      invalid_calls=invalid, submitted=submitted)


def graded_answer(attempt: Attempt, use: OperateUse) -> Any:
    """The answer an operate attempt is graded on (module docstring)."""
    if use.submitted is not None:
        return {"actions": use.submitted}
    return attempt.answer if attempt.answer is not None else attempt.final_answer


def grade_attempt(scenario: dict[str, Any], attempt: Attempt, index: int
                  ) -> tuple[GradeResult, OperateUse]:
    """Grade an operate attempt: the plan graded, with the budget counters in the evidence."""
    from eval.grade import grade
    from eval.grade_operate import grade_fields, grade_plan

    use = operate_use(scenario, attempt.steps)
    answer = graded_answer(attempt, use)
    result = grade(scenario, answer, index=index)
    if result.kind == "operate" and not (answer is None or (
            isinstance(answer, str) and not answer.strip())):
        fields = grade_fields(grade_plan(scenario, answer, budget_used=use.budget_used,
                                         invalid_calls=use.invalid_calls))
        result = result.model_copy(update={"evidence": fields["evidence"]})
    note = (f"operate use: {use.simulate_calls} simulate_plan call(s) for a budget of "
            f"{use.budget}, {use.invalid_calls} invalid call(s), "
            + ("a plan submitted" if use.submitted is not None else "no plan submitted"))
    return result.model_copy(update={"evidence": [*result.evidence, note]}), use


def classify_operate(attempt: Attempt, result: GradeResult, use: OperateUse,
                     expected: list[str]) -> FailureClass | None:
    """The failure class of a graded operate attempt (order in the module docstring)."""
    if attempt.outcome == "infrastructure":
        return "infrastructure"
    if use.over_budget:
        return "over_budget"
    answered = attempt
    if use.submitted is not None and attempt.answer is None and not (
            attempt.final_answer or "").strip():
        answered = Attempt(answer={"actions": use.submitted}, outcome=attempt.outcome,
                           steps=attempt.steps)
    if attempt.outcome in ("max_steps", "no_final_answer") or (
            answered.answer is None and not (answered.final_answer or "").strip()):
        return classify(answered, result, expected, attempt.steps)
    if any(v.name == "invalid_plan" for v in result.violations):
        return "invalid_plan"
    return classify(answered, result, expected, attempt.steps)


# -- the reference agent's replay ------------------------------------------------------------


async def replay_operate(scenario: dict[str, Any], attempt: Attempt,
                         settings: StoreSettings | None) -> None:
    """The reference agent on an operate scenario: replay its tool sequence in process (the
    task served to a fresh tool context) and answer with the plan it submitted."""
    from eval.asset_words import scenario_class
    from generator.assetdef import load_asset_class
    from generator.errors import UserError
    from generator.generate.model import ToolCall
    from generator.operate.model import OperateTask
    from generator.operate.session import register
    from generator.tools.registry import ToolContext, call_tool

    ctx = ToolContext(load_asset_class(scenario_class(scenario)), settings)
    register(ctx, [OperateTask.model_validate(scenario["operate"])])
    submitted: list[dict[str, Any]] | None = None
    try:
        for raw in scenario.get("tool_sequence") or []:
            c = ToolCall.model_validate(raw)
            attempt.steps.append(TrajectoryStep(kind="tool_call", tool=c.name, args=c.args,
                                                content=steps_json(c.args)))
            t = time.perf_counter()
            try:
                out = (await call_tool(c.name, dict(c.args), ctx)).model_dump(mode="json")
            except UserError as exc:
                attempt.steps.append(TrajectoryStep(
                    kind="observation", tool=c.name, content=f"error: {exc}", is_error=True,
                    latency_s=round(time.perf_counter() - t, 4)))
                continue
            attempt.steps.append(TrajectoryStep(
                kind="observation", tool=c.name, content=steps_json(out),
                latency_s=round(time.perf_counter() - t, 4)))
            if c.name == SUBMIT and out.get("ok"):
                submitted = out["plan"]
    finally:
        ctx.close()
    if submitted is None:
        attempt.outcome, attempt.error = "no_final_answer", "submit_plan recorded no plan"
        return
    attempt.answer = {"actions": submitted}
    attempt.final_answer = steps_json(attempt.answer)
    attempt.steps.append(TrajectoryStep(kind="answer", content=attempt.final_answer))


def tasks_file(scenarios: list[dict[str, Any]], folder: Path) -> Path | None:
    """Write the operate records among ``scenarios`` to ``folder/operate_tasks.jsonl`` (the
    file the tool server reads, ``$SCENARIOGEN_OPERATE_TASKS``); None when there are none."""
    ops = [s for s in scenarios if is_operate(s)]
    if not ops:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "operate_tasks.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in ops), encoding="utf-8")
    return path
