"""Draw operate scenarios: operate families → scenario records of kind ``operate``.

The families of a class (:func:`generator.operate.families.operate_families_of`) are drawn in
turn, each draw with its own local generator (:func:`generator.generate.families.rng_for`
of run seed, family and draw index); a draw the gate rejects
(:class:`~generator.operate.oracle.GateFailure`) or that finds no data is counted and the
next index is tried, up to :data:`MAX_DRAWS_PER_RECORD` per wanted record.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from generator.generate.families import rng_for
from generator.generate.model import (
    GENERATOR_VERSION,
    ScenarioProvenance,
    ScenarioRecord,
    ToolCall,
)
from generator.operate.families import OperateDraw, operate_families_of
from generator.operate.oracle import GateFailure

MAX_DRAWS_PER_RECORD = 20
OPERATE_UUID_NAMESPACE = uuid.UUID("6f0b8f1e-3c52-4c1f-9a57-5b0f6c2f3a32")
OPERATE_TOOLS = ["describe_action_space", "simulate_plan", "submit_plan"]


@dataclass
class OperateRun:
    """Records drawn and why other draws were dropped."""

    records: list[ScenarioRecord] = field(default_factory=list)
    drops: dict[str, int] = field(default_factory=dict)


def operate_record(asset_class: str, family: str, category: str, domain: str, draw: int,
                   d: OperateDraw, index: int, run_id: str) -> ScenarioRecord:
    """The scenario record of one accepted draw."""
    task = d.task
    oracle = {"actions": [p.model_dump() for p in task.reference.oracle.plan]}
    tid = d.params.get("task_id", "")
    params = json.dumps(d.params, sort_keys=True, default=str)
    return ScenarioRecord(
        id=f"{asset_class}_operate_{index + 1:02d}",
        type=domain,
        text=d.text,
        category=category,
        characteristic_form=d.characteristic_form,
        deterministic=True,
        uuid=str(uuid.uuid5(OPERATE_UUID_NAMESPACE, f"{asset_class}|{family}|{params}|"
                                                    f"{d.text}")),
        asset_class=asset_class,
        difficulty="hard",
        expected_tools=list(OPERATE_TOOLS),
        tool_sequence=[
            ToolCall(name="describe_action_space", args={"task_id": tid}),
            ToolCall(name="simulate_plan", args={"task_id": tid, "plan": oracle}),
            ToolCall(name="submit_plan", args={"task_id": tid, "plan": oracle}),
        ],
        reference_answer=oracle | {"action_cost": task.reference.oracle.action_cost,
                                   "feasible": True} | (
            {"operating_cost": task.reference.oracle.operating_cost,
             "cost": task.reference.oracle.cost}
            if task.reference.oracle.operating_cost else {}),
        tolerance={},
        family=family,
        grounding=dict(d.grounding),
        provenance=ScenarioProvenance(
            generator_version=GENERATOR_VERSION, run_id=run_id, verbaliser="template",
            model="none", prompt_version="operate-1", batch=0, attempts=1, family=family,
            draw=draw, outcome="relief_needed", nontrivial=True,
        ),
        kind="operate",
        operate=task,
    )


async def draw_operate(asset_class: str, tool_modules: list[str], store: Any, n: int,
                       run_seed: int, run_id: str = "operate") -> OperateRun:
    """Draw ``n`` operate records of ``asset_class`` (its families in turn)."""
    specs = operate_families_of(asset_class, tool_modules)
    run = OperateRun()
    if not specs:
        return run
    next_draw = {s.name: 0 for s in specs}
    tries = 0
    while len(run.records) < n and tries < MAX_DRAWS_PER_RECORD * n:
        spec = specs[len(run.records) % len(specs)]
        draw = next_draw[spec.name]
        next_draw[spec.name] += 1
        tries += 1
        try:
            d = await spec.draw(store, rng_for(run_seed, spec.name, draw))
        except GateFailure as e:
            reason = str(e).split(":")[0]
            run.drops[reason] = run.drops.get(reason, 0) + 1
            continue
        if d is None:
            run.drops["no data"] = run.drops.get("no data", 0) + 1
            continue
        run.records.append(operate_record(asset_class, spec.name, spec.category, spec.domain,
                                          draw, d, len(run.records), run_id))
    return run
