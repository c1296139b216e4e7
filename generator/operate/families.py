"""Operate families: draws that build an :class:`~generator.operate.model.OperateTask`.

An asset class offers operate families in the module ``operate`` next to its tools modules
(``assets/<class>/operate.py``), registering each with :func:`operate_family`. A family's
``draw(store, rng)`` reads the store (the query layer a tool context gives), builds the
situation and action space, runs the oracle and the gate
(:func:`generator.operate.oracle.search`) and returns an :class:`OperateDraw`, or raises
:class:`~generator.operate.oracle.GateFailure` / returns None when the draw is unusable.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from generator.operate.model import OperateTask
from generator.registry import Registry


def task_instructions(gives: str, budget: int) -> str:
    """The closing sentences of an operate request: what the three tools do and the answer's
    form (``gives``: what describe_action_space gives, e.g. "the actions and the forecast")."""
    return (
        f"describe_action_space gives {gives}; simulate_plan checks a plan (budget: {budget} "
        'calls); submit_plan records it. Answer with the plan as JSON {"actions": [{"id": ..., '
        '"value": ...}]}.'
    )


def tool_use_form(budget: int) -> str:
    """The opening of an operate record's characteristic form: the tools used in order."""
    return (
        "Reads the action space (describe_action_space), checks plans with simulate_plan "
        f"within the budget of {budget}, submits (submit_plan) and states "
    )


@dataclass(frozen=True)
class OperateDraw:
    """A family's draw: the task and the words the record needs."""

    task: OperateTask
    text: str
    characteristic_form: str
    grounding: dict[str, str]
    params: dict[str, Any] = field(default_factory=dict)
    difficulty: str = "hard"


DrawFn = Callable[[Any, np.random.Generator], Awaitable[OperateDraw | None]]


@dataclass(frozen=True)
class OperateFamilySpec:
    """One registered operate family."""

    name: str
    asset_class: str
    domain: str
    category: str
    draw: DrawFn
    description: str


OPERATE_FAMILIES: Registry[OperateFamilySpec] = Registry("operate family")


def operate_family(name: str, *, asset_class: str, domain: str = "fmsr",
                   category: str = "Decision Support") -> Callable[[DrawFn], DrawFn]:
    """Register the decorated ``draw(store, rng)`` as operate family ``name``."""

    def deco(fn: DrawFn) -> DrawFn:
        doc = (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        OPERATE_FAMILIES.add(name, OperateFamilySpec(name, asset_class, domain, category, fn,
                                                     doc))
        return fn

    return deco


def operate_module(tool_modules: list[str]) -> str | None:
    """The class's ``operate`` module (next to its first tools module), if it exists."""
    if not tool_modules:
        return None
    name = tool_modules[0].rpartition(".")[0] + ".operate"
    try:
        found = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    return name if found is not None else None


def operate_families_of(asset_class: str, tool_modules: list[str]) -> list[OperateFamilySpec]:
    """The operate families of a class (importing its ``operate`` module), by name."""
    module = operate_module(tool_modules)
    if module is not None:
        importlib.import_module(module)
    return [OPERATE_FAMILIES.get(n) for n in OPERATE_FAMILIES
            if OPERATE_FAMILIES.get(n).asset_class == asset_class]
