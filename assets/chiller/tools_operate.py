"""The operate tools of the chiller class over MCP (bodies in the extension API).

``describe_action_space``, ``simulate_plan`` and ``submit_plan`` serve the class's operate
tasks (:mod:`assets.chiller.operate`); the task is found by the id its request states
(``$SCENARIOGEN_OPERATE_TASKS`` names the scenarios file an MCP server reads). The simulator
is the EIR model of :mod:`assets.chiller.operate_staging`.
"""

from __future__ import annotations

from typing import Any

from assets.chiller.operate_staging import STANDARD
from generator.api import (
    ActionSpaceResult,
    PlanArgs,
    SimulationResult,
    SubmissionResult,
    TaskArgs,
    describe_action_space,
    simulate_plan,
    submit_plan,
    tool,
)

DOMAIN = "fmsr"
ASSET_CLASSES = ("chiller",)


@tool("describe_action_space", domain=DOMAIN, asset_classes=ASSET_CLASSES, args=TaskArgs,
      result=ActionSpaceResult, standard=STANDARD)
def describe_action_space_tool(args: TaskArgs, ctx: Any) -> ActionSpaceResult:
    """Describe an operate task: the situation (the plant's chillers with nameplate capacity,
    COP and measured efficiency degradation, the hourly cooling-load and condenser-water
    forecast), the actions with their ranges, steps, units and costs, the limits to respect,
    the validation budget and how much of it is used, and the plan template
    {"actions": [{"id", "value"}]} (omitted actions are 0)."""
    return describe_action_space(args, ctx)


@tool("simulate_plan", domain=DOMAIN, asset_classes=ASSET_CLASSES, args=PlanArgs,
      result=SimulationResult, standard=STANDARD)
def simulate_plan_tool(args: PlanArgs, ctx: Any) -> SimulationResult:
    """Simulate a plan for an operate task with the DOE-2 / EnergyPlus electric EIR chiller
    model, hour by hour: the plant's electric energy (the operating cost, kWh), each unit's
    hours, energy and part-load ratios, unmet cooling, the limits exceeded and the action
    cost. Each call uses one unit of the task's budget; an invalid plan or a spent budget
    returns ok=false with the reasons."""
    return simulate_plan(args, ctx)


@tool("submit_plan", domain=DOMAIN, asset_classes=ASSET_CLASSES, args=PlanArgs,
      result=SubmissionResult, standard=STANDARD)
def submit_plan_tool(args: PlanArgs, ctx: Any) -> SubmissionResult:
    """Submit the final plan of an operate task (the first valid submission is final; an
    invalid plan is refused with the reasons)."""
    return submit_plan(args, ctx)


TOOL_NAMES: tuple[str, ...] = ("describe_action_space", "simulate_plan", "submit_plan")
