"""The `operate` task kind: a situation, a discrete action space, a budget, an oracle.

An operate task asks the agent to act, not to report: relieve a forecast overload, stage
plant for a day's load. The record carries (PowerAgentBench-style, seed paper 003):

* the **situation** (asset states read from the store and a forecast window), a JSON object
  the class's simulator reads (``simulator``: ``"module:function"``);
* the **action space**: ``actions: [{id, description, min, max, step, unit,
  cost_per_step}]``. A plan is ``{"actions": [{"id", "value"}]}``; an omitted action is 0
  (do nothing); a value off the action's grid (min + k·step), out of [min, max], an unknown id
  or an id given twice makes the plan **invalid** (:func:`check_plan`);
* the **validation budget**: how many ``simulate_plan`` calls the agent may make;
* the **constraints**: limits from the standards and the nameplate, per asset;
* the **reference**: the oracle (exhaustive search over the whole discrete space at generation
  time), the do-nothing outcome and the costliest plan's cost, which normalise the score.

Action cost = Σ cost_per_step·|value|/step over the actions (steps away from 0). A family
whose outcome itself costs something (a plant's electric energy over the day) has its
simulator return it as the outcome's **operating cost**; the plan's cost C is then the action
cost plus the operating cost, in one unit (0 operating cost: C is the action cost alone).

Score of a valid plan (:func:`score_outcome`), lexicographic in (violation score, cost C),
where the violation score V ≥ 0 is the class simulator's documented sum of limit excesses
(0 = feasible):

* feasible (V = 0): 0.5 + 0.5·(C_max − C)/(C_max − C*), C* the oracle's cost, C_max the
  largest cost of any plan of the space (with no operating cost: every action at its largest
  magnitude) (1.0 when C_max = C*): every optimal plan scores 1.0, the costliest feasible
  plan at least 0.5; a family with continuous costs may set a relative ``cost_tolerance``:
  a feasible plan within it of C* is optimal too and scores 1.0;
* infeasible (V > 0): 0.4·max(0, 1 − V/V0), V0 the do-nothing violation score (> 0 by the
  gate): do-nothing and anything worse score 0; every infeasible plan scores below every
  feasible one;
* invalid plan: 0.

``regret`` = 1 − score.
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
from collections.abc import Callable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

FEASIBLE_FLOOR = 0.5
"""Score of the costliest feasible plan; every feasible plan scores in [0.5, 1]."""
INFEASIBLE_CEILING = 0.4
"""Infeasible plans score in [0, 0.4): below every feasible plan."""
GRID_TOL = 1e-6
"""How far (in steps) a value may sit from the grid and still count as on it."""
COST_TOL = 1e-9
"""Two plan costs this close are equal (optimal-plan ties)."""
MAX_PLANS = 5000
"""Largest discrete space the oracle searches exhaustively (families keep below it)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ActionSpec(_Strict):
    """One action of the space: a value on the grid min + k·step within [min, max]."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="Action id used in a plan")
    description: str = Field(min_length=1, description="What the action does, in words")
    min: float = Field(description="Smallest value (≤ 0: omitting the action means 0)")
    max: float = Field(description="Largest value (≥ 0)")
    step: float = Field(gt=0, description="Grid step: valid values are min + k·step")
    unit: str = Field(description="Unit of the value (MVA, stage, ...)")
    cost_per_step: float = Field(ge=0, description="Cost of each step away from 0")

    @model_validator(mode="after")
    def _zero_on_grid(self) -> ActionSpec:
        if not (self.min <= 0.0 <= self.max):
            raise ValueError(f"action {self.id!r}: 0 (the omitted value) must lie in [min, max]")
        if not _on_grid(0.0, self.min, self.step):
            raise ValueError(f"action {self.id!r}: 0 must be on the grid min + k·step")
        return self

    def levels(self) -> list[float]:
        """Every valid value, ascending (rounded to the step's decimals)."""
        n = math.floor((self.max - self.min) / self.step + GRID_TOL)
        return [_tidy(self.min + k * self.step) for k in range(n + 1)]

    def cost(self, value: float) -> float:
        """cost_per_step·|value|/step."""
        return self.cost_per_step * abs(value) / self.step


class Constraint(_Strict):
    """One limit the plan must respect, with where it comes from."""

    asset_id: str = Field(description="Asset the limit applies to")
    quantity: str = Field(description="What is limited (hot_spot, top_oil, current, ...)")
    limit: float = Field(description="Largest allowed value")
    unit: str = Field(description="Unit of the limit")
    source: str = Field(description="Standard or nameplate field the limit comes from")


class PlanValue(_Strict):
    """One entry of a plan."""

    id: str = Field(description="Action id")
    value: float = Field(description="Value on the action's grid")


class LimitExcess(_Strict):
    """A limit the simulated plan exceeds."""

    asset_id: str = Field(description="Asset")
    quantity: str = Field(description="Limited quantity")
    value: float = Field(description="Simulated value (peak or total)")
    limit: float = Field(description="Limit")
    unit: str = Field(description="Unit")
    excess: float = Field(ge=0, description="value − limit, in the unit")
    points: float = Field(ge=0, description="What it adds to the violation score")


class Outcome(_Strict):
    """What the class simulator computed for a plan."""

    violations: list[LimitExcess] = Field(description="Limits exceeded")
    violation_score: float = Field(ge=0, description="Σ points of the violations (0 = feasible)")
    operating_cost: float = Field(
        default=0.0, ge=0, description="What running the plan costs (e.g. electric energy, "
        "kWh), added to the action cost; 0 when only the actions cost")
    details: dict[str, Any] = Field(
        default_factory=dict, description="Per-asset peaks, loss of life, served load, ..."
    )

    @property
    def feasible(self) -> bool:
        """True when no limit is exceeded."""
        return self.violation_score <= 0.0


class PlanResult(_Strict):
    """A plan's outcome and cost, as the oracle search and the gate record them."""

    plan: list[PlanValue] = Field(description="Non-zero actions, in action-space order")
    feasible: bool = Field(description="No limit exceeded")
    violation_score: float = Field(description="Σ violation points")
    action_cost: float = Field(description="Σ cost_per_step·|value|/step")
    operating_cost: float = Field(default=0.0, description="The outcome's operating cost")

    @property
    def cost(self) -> float:
        """The plan's cost C: action cost + operating cost."""
        return _tidy(self.action_cost + self.operating_cost)


class HeuristicResult(PlanResult):
    """A simple rule-of-thumb plan (the gate's discrimination check)."""

    name: str = Field(description="Which rule made it")
    rule: str = Field(description="The rule in words")


class OperateReference(_Strict):
    """What the generator computed: oracle, baselines, normalisation."""

    oracle: PlanResult = Field(description="Cheapest feasible plan (first in search order)")
    optimal_plans: list[list[PlanValue]] = Field(
        description="Every feasible plan within COST_TOL (or cost_tolerance) of the oracle's "
        "cost (all score 1)"
    )
    do_nothing: PlanResult = Field(description="The empty plan")
    max_cost: float = Field(description="Largest plan cost of the space (no operating cost: "
                            "every action at its largest magnitude)")
    plans_searched: int = Field(description="Size of the discrete space searched")
    feasible_plans: int = Field(description="How many of them are feasible")
    heuristics: list[HeuristicResult] = Field(description="Simple plans the gate checked")
    cost_tolerance: float = Field(
        default=0.0, ge=0, description="Relative tolerance on the oracle's cost within which a "
        "feasible plan is optimal too and scores 1 (0: exact ties only)")


class OperateTask(_Strict):
    """The operate part of a scenario record."""

    kind: Literal["operate"] = Field(default="operate", description="Task kind")
    task_id: str = Field(pattern=r"^op-[0-9a-f]{8}$",
                         description="Stable id the tools take (hash of situation and space)")
    family: str = Field(description="Operate family that drew it")
    simulator: str = Field(description="'module:function' simulating (situation, values)")
    situation: dict[str, Any] = Field(description="Asset states and forecast (class-specific)")
    actions: list[ActionSpec] = Field(min_length=1, description="The action space")
    budget: int = Field(ge=1, description="simulate_plan calls allowed")
    constraints: list[Constraint] = Field(description="Limits from standards and nameplates")
    solution_template: dict[str, Any] = Field(
        default_factory=lambda: {"actions": [{"id": "<action id>", "value": 0}]},
        description="Shape of a plan; omitted actions are 0",
    )
    scoring: str = Field(
        default="feasible: 0.5 + 0.5*(C_max - C)/(C_max - C*); infeasible: "
        "0.4*max(0, 1 - V/V0); invalid: 0; regret = 1 - score",
        description="The scoring rule (generator/operate/model.py)",
    )
    reference: OperateReference = Field(description="Oracle and baselines (hidden from agents)")

    def public(self) -> dict[str, Any]:
        """What an agent may see: everything but the reference."""
        return self.model_dump(mode="json", exclude={"reference"})

    def action(self, action_id: str) -> ActionSpec | None:
        """The action named ``action_id``, or None."""
        return next((a for a in self.actions if a.id == action_id), None)


# -- plans -----------------------------------------------------------------------------------


def _tidy(v: float) -> float:
    return round(v, 9) + 0.0


def _on_grid(value: float, low: float, step: float) -> bool:
    k = (value - low) / step
    return abs(k - round(k)) <= GRID_TOL


def plan_cost(actions: list[ActionSpec], values: dict[str, float]) -> float:
    """Σ cost_per_step·|value|/step (module docstring)."""
    return _tidy(sum(a.cost(values.get(a.id, 0.0)) for a in actions))


def as_plan(actions: list[ActionSpec], values: dict[str, float]) -> list[PlanValue]:
    """The non-zero values as plan entries, in action-space order."""
    return [PlanValue(id=a.id, value=values[a.id]) for a in actions
            if values.get(a.id, 0.0) != 0.0]


def _fmt(v: float) -> str:
    return f"{v:g}"


def check_plan(actions: list[ActionSpec], raw: Any) -> tuple[dict[str, float], list[str]]:
    """Read a plan; return every action's value (omitted = 0) and the reasons it is invalid.

    ``raw`` is ``{"actions": [{"id": ..., "value": ...}]}`` or that object as a JSON string.
    Each reason is one line naming the entry, the bad value, the valid options and the fix.
    """
    values = {a.id: 0.0 for a in actions}
    if isinstance(raw, str | bytes):
        try:
            raw = json.loads(raw)
        except ValueError:
            return values, ['plan: not JSON; send {"actions": [{"id": "<action id>", '
                            '"value": <number>}]}']
    if not isinstance(raw, dict) or set(raw) != {"actions"} or not isinstance(
            raw["actions"], list):
        shown = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        return values, [f"plan: got {shown}; a plan is an object with the one key 'actions' "
                        'holding a list: {"actions": [{"id": "<action id>", "value": '
                        "<number>}]} (an empty list does nothing)"]
    by_id = {a.id: a for a in actions}
    seen: set[str] = set()
    errors: list[str] = []
    for i, entry in enumerate(raw["actions"]):
        where = f"plan actions[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"id", "value"}:
            keys = sorted(entry) if isinstance(entry, dict) else type(entry).__name__
            errors.append(f"{where}: got {keys}; each entry is {{\"id\": ..., \"value\": ...}} "
                          "with exactly these two keys")
            continue
        aid, value = entry["id"], entry["value"]
        if not isinstance(aid, str) or aid not in by_id:
            errors.append(f"{where}: unknown action id {aid!r}; valid ids: "
                          f"{', '.join(by_id)}")
            continue
        if aid in seen:
            errors.append(f"{where}: action {aid!r} given twice; give each action at most "
                          "once")
            continue
        seen.add(aid)
        a = by_id[aid]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
                value):
            errors.append(f"{where}: value {value!r} of {aid!r} is not a finite number; give "
                          f"a number in [{_fmt(a.min)}, {_fmt(a.max)}] in steps of "
                          f"{_fmt(a.step)} {a.unit}")
            continue
        v = float(value)
        if v < a.min - GRID_TOL * a.step or v > a.max + GRID_TOL * a.step:
            errors.append(f"{where}: value {_fmt(v)} of {aid!r} is outside [{_fmt(a.min)}, "
                          f"{_fmt(a.max)}] {a.unit}; pick a value in that range")
            continue
        if not _on_grid(v, a.min, a.step):
            errors.append(f"{where}: value {_fmt(v)} of {aid!r} is off the step grid; valid "
                          f"values are {_fmt(a.min)} + k·{_fmt(a.step)} {a.unit} (e.g. "
                          f"{', '.join(_fmt(x) for x in a.levels()[:6])}...)")
            continue
        values[aid] = _tidy(a.min + round((v - a.min) / a.step) * a.step)
    return values, errors


def space_size(actions: list[ActionSpec]) -> int:
    """Number of plans in the discrete space."""
    return math.prod(len(a.levels()) for a in actions)


def all_plans(actions: list[ActionSpec]) -> Iterator[dict[str, float]]:
    """Every plan of the space, in lexicographic order of the action levels."""
    for combo in itertools.product(*(a.levels() for a in actions)):
        yield dict(zip((a.id for a in actions), combo, strict=True))


# -- simulation and scoring ------------------------------------------------------------------

SimulateFn = Callable[[dict[str, Any], dict[str, float]], Outcome]


def load_simulator(hook: str) -> SimulateFn:
    """Import the ``"module:function"`` simulator of an operate task."""
    module, _, name = hook.partition(":")
    fn = getattr(importlib.import_module(module), name, None)
    if not callable(fn):
        raise ValueError(f"operate simulator {hook!r}: {name!r} is not a function of {module}")
    return fn


def simulate(task: OperateTask, values: dict[str, float]) -> Outcome:
    """Run the task's simulator on a checked plan's values."""
    return load_simulator(task.simulator)(task.situation, values)


def score_outcome(violation: float, cost: float, ref: OperateReference) -> float:
    """The normalised lexicographic score of a valid plan (module docstring)."""
    if violation <= 0.0:
        if cost <= ref.oracle.cost + max(COST_TOL, ref.cost_tolerance * abs(ref.oracle.cost)):
            return 1.0
        span = ref.max_cost - ref.oracle.cost
        if span <= COST_TOL:
            return 1.0
        return min(1.0, FEASIBLE_FLOOR + (1 - FEASIBLE_FLOOR) * (ref.max_cost - cost) / span)
    v0 = ref.do_nothing.violation_score
    if v0 <= 0.0:  # the gate keeps do-nothing infeasible; be total anyway
        return 0.0
    return INFEASIBLE_CEILING * max(0.0, 1.0 - violation / v0)


class PlanEvaluation(_Strict):
    """The deterministic evaluator's verdict on one plan."""

    valid: bool = Field(description="The plan is well formed and every value on its grid")
    errors: list[str] = Field(default_factory=list, description="Why the plan is invalid")
    feasible: bool = Field(description="Valid and no limit exceeded")
    score: float = Field(ge=0, le=1, description="Normalised score (module docstring)")
    violations: list[LimitExcess] = Field(default_factory=list, description="Limits exceeded")
    violation_score: float | None = Field(description="Σ violation points; None if invalid")
    action_cost: float | None = Field(description="Σ action cost; None if invalid")
    operating_cost: float | None = Field(default=None,
                                         description="The outcome's operating cost; None if "
                                         "invalid")
    regret: float = Field(description="1 − score")
    plan: list[PlanValue] = Field(default_factory=list, description="The plan read (non-zero)")
    details: dict[str, Any] = Field(default_factory=dict, description="Simulator details")


def evaluate_plan(task: OperateTask, raw: Any) -> PlanEvaluation:
    """Check, simulate and score a plan (never raises on a malformed plan)."""
    values, errors = check_plan(task.actions, raw)
    if errors:
        return PlanEvaluation(valid=False, errors=errors, feasible=False, score=0.0,
                              violation_score=None, action_cost=None, regret=1.0)
    out = simulate(task, values)
    cost = plan_cost(task.actions, values)
    score = round(score_outcome(out.violation_score, _tidy(cost + out.operating_cost),
                                task.reference), 9)
    return PlanEvaluation(
        valid=True, feasible=out.feasible, score=score, violations=out.violations,
        violation_score=out.violation_score, action_cost=cost,
        operating_cost=out.operating_cost, regret=round(1.0 - score, 9),
        plan=as_plan(task.actions, values), details=out.details,
    )


def plan_result(task_actions: list[ActionSpec], values: dict[str, float],
                out: Outcome) -> PlanResult:
    """A :class:`PlanResult` of simulated values."""
    return PlanResult(plan=as_plan(task_actions, values), feasible=out.feasible,
                      violation_score=out.violation_score,
                      action_cost=plan_cost(task_actions, values),
                      operating_cost=out.operating_cost)
