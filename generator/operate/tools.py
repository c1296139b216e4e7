"""The operate tools' arguments, results and bodies (a class registers them with ``tool``).

* ``describe_action_space(task_id)``: the task as the agent may see it: situation (asset
  states and forecast), actions, constraints, budget and what is used, solution template,
  the scoring rule; never the oracle.
* ``simulate_plan(task_id, plan)``: consumes one call of the budget (valid or not); a valid
  plan is simulated with the class's simulator (outcomes, violations, violation score, action
  cost); a malformed or invalid plan or a spent budget gives ``ok: false`` and the reasons,
  one line each, and no simulation.
* ``submit_plan(task_id, plan)``: records the final plan (once; a later submission is refused
  with ``ok: false``); an invalid plan is refused and counted as an invalid call, and may be
  corrected and submitted again. Free of budget.

An unknown task id is a user error (one line naming the ids served).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.operate.model import (
    ActionSpec,
    Constraint,
    LimitExcess,
    PlanValue,
    as_plan,
    check_plan,
    plan_cost,
    simulate,
)
from generator.operate.session import session

TASK_ID = Field(min_length=1, max_length=64, description="The operate task id the request "
                "states (op-xxxxxxxx)")
PLAN = Field(description='The plan: {"actions": [{"id": "<action id>", "value": <number>}]} '
             "(omitted actions are 0), as an object or a JSON string")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskArgs(_Model):
    """Arguments naming an operate task."""

    task_id: str = TASK_ID


class PlanArgs(_Model):
    """Arguments of simulate_plan and submit_plan."""

    task_id: str = TASK_ID
    plan: dict[str, Any] | str = PLAN


class ActionSpaceResult(_Model):
    """What describe_action_space returns."""

    task_id: str = Field(description="The task")
    situation: dict[str, Any] = Field(description="Asset states and the forecast window")
    actions: list[ActionSpec] = Field(description="The action space")
    constraints: list[Constraint] = Field(description="Limits the plan must respect")
    budget: int = Field(description="simulate_plan calls allowed")
    budget_used: int = Field(description="simulate_plan calls made so far")
    solution_template: dict[str, Any] = Field(description="Shape of a plan")
    scoring: str = Field(description="How a submitted plan is scored")
    submitted: bool = Field(description="A plan was already submitted")


class SimulationResult(_Model):
    """What simulate_plan returns."""

    task_id: str = Field(description="The task")
    ok: bool = Field(description="The plan was valid and simulated")
    errors: list[str] = Field(default_factory=list, description="Why not (one line each)")
    plan: list[PlanValue] = Field(default_factory=list, description="The plan read (non-zero)")
    feasible: bool | None = Field(default=None, description="No limit exceeded (None: not run)")
    violations: list[LimitExcess] = Field(default_factory=list, description="Limits exceeded")
    violation_score: float | None = Field(default=None, description="Σ violation points")
    action_cost: float | None = Field(default=None, description="Σ action cost")
    operating_cost: float | None = Field(default=None, description="The outcome's operating "
                                         "cost (e.g. energy, kWh), added to the action cost")
    outcome: dict[str, Any] = Field(default_factory=dict, description="Simulated details")
    budget: int = Field(description="Calls allowed")
    budget_used: int = Field(description="Calls made, this one included")
    invalid_calls: int = Field(description="Calls with an invalid plan so far")


class SubmissionResult(_Model):
    """What submit_plan returns."""

    task_id: str = Field(description="The task")
    ok: bool = Field(description="The plan was recorded")
    errors: list[str] = Field(default_factory=list, description="Why not (one line each)")
    plan: list[PlanValue] = Field(default_factory=list, description="The plan recorded")
    action_cost: float | None = Field(default=None, description="Its action cost")
    budget_used: int = Field(description="simulate_plan calls made")
    invalid_calls: int = Field(description="Calls with an invalid plan")


def describe_action_space(args: TaskArgs, ctx: Any) -> ActionSpaceResult:
    """The agent's view of the task (module docstring)."""
    s = session(ctx, args.task_id)
    t = s.task
    return ActionSpaceResult(task_id=t.task_id, situation=t.situation, actions=t.actions,
                             constraints=t.constraints, budget=t.budget,
                             budget_used=s.budget_used, solution_template=t.solution_template,
                             scoring=t.scoring, submitted=s.submitted is not None)


def simulate_plan(args: PlanArgs, ctx: Any) -> SimulationResult:
    """Simulate a plan against the task's budget (module docstring)."""
    s = session(ctx, args.task_id)
    t = s.task
    if s.budget_used >= t.budget:
        return SimulationResult(
            task_id=t.task_id, ok=False, budget=t.budget, budget_used=s.budget_used,
            invalid_calls=s.invalid_calls,
            errors=[f"simulate_plan: budget of {t.budget} calls is spent "
                    f"({s.budget_used} made); submit a plan with submit_plan"])
    s.budget_used += 1
    values, errors = check_plan(t.actions, args.plan)
    if errors:
        s.invalid_calls += 1
        return SimulationResult(task_id=t.task_id, ok=False, errors=errors, budget=t.budget,
                                budget_used=s.budget_used, invalid_calls=s.invalid_calls)
    out = simulate(t, values)
    return SimulationResult(
        task_id=t.task_id, ok=True, plan=as_plan(t.actions, values), feasible=out.feasible,
        violations=out.violations, violation_score=out.violation_score,
        action_cost=plan_cost(t.actions, values), operating_cost=out.operating_cost,
        outcome=out.details, budget=t.budget,
        budget_used=s.budget_used, invalid_calls=s.invalid_calls)


def submit_plan(args: PlanArgs, ctx: Any) -> SubmissionResult:
    """Record the final plan (module docstring)."""
    s = session(ctx, args.task_id)
    t = s.task
    if s.submitted is not None:
        return SubmissionResult(task_id=t.task_id, ok=False, plan=s.submitted,
                                budget_used=s.budget_used, invalid_calls=s.invalid_calls,
                                errors=["submit_plan: a plan was already submitted for "
                                        f"{t.task_id}; the first submission is final"])
    values, errors = check_plan(t.actions, args.plan)
    if errors:
        s.invalid_calls += 1
        return SubmissionResult(task_id=t.task_id, ok=False, errors=errors,
                                budget_used=s.budget_used, invalid_calls=s.invalid_calls)
    s.submitted = as_plan(t.actions, values)
    s.submissions += 1
    return SubmissionResult(task_id=t.task_id, ok=True, plan=s.submitted,
                            action_cost=plan_cost(t.actions, values),
                            budget_used=s.budget_used, invalid_calls=s.invalid_calls)
