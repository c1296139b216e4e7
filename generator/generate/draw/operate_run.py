"""Draw operate scenarios: operate families → scenario records of kind ``operate``.

The families of a class (:func:`generator.operate.families.operate_families_of`) are drawn in
turn, each draw with its own local generator (:func:`generator.generate.draw.families.rng_for`
of run seed, family and draw index); a draw the gate rejects
(:class:`~generator.operate.oracle.GateFailure`), that finds no data or repeats a task already
drawn (same task id: same situation and action space) is counted and the next index is
tried, up to :data:`MAX_DRAWS_PER_RECORD` per wanted record.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.errors import UserError
from generator.generate.draw.families import rng_for
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


class OperateLine(BaseModel):
    """One accepted operate record and the draw loop's state right after it.

    A run folder keeps these lines (``operate_accepted.jsonl``); a resumed run takes the last
    line's state and draws on from there, so finished records are never drawn again and the
    records are those of an uninterrupted run.
    """

    model_config = ConfigDict(extra="forbid")

    index: int = Field(description="0-based position among the run's operate records")
    family: str = Field(description="Operate family that drew it")
    draw: int = Field(description="The family's draw index that gave it")
    record: ScenarioRecord = Field(description="The accepted record")
    next_draw: dict[str, int] = Field(description="Next draw index per family")
    tries: int = Field(description="Draws made so far, kept or dropped")
    drops: dict[str, int] = Field(description="Draws dropped so far, by reason")
    digest: str | None = Field(
        default=None, exclude=True,  # a dump is the body the digest covers; the seal adds it
        description="HMAC chained to the line before (generator.generate.run.run_chain)")


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


def operate_classes(classes: list[str] | None = None) -> dict[str, list[str]]:
    """Asset class → names of its operate families, for the classes that have any."""
    from generator.assetdef import available_asset_classes, load_asset_class

    out: dict[str, list[str]] = {}
    for name in classes if classes is not None else available_asset_classes():
        specs = operate_families_of(name, list(load_asset_class(name).tools))
        if specs:
            out[name] = [s.name for s in specs]
    return out


def require_operate_families(asset_class: str, tool_modules: list[str]) -> None:
    """Refuse ``--operate`` for a class without operate families, naming those that have.

    Raises:
        UserError: The class registers no operate family.
    """
    if operate_families_of(asset_class, tool_modules):
        return
    having = operate_classes()
    raise UserError(
        f"asset class {asset_class!r} has no operate family, so --operate cannot draw "
        "operate scenarios for it",
        value=asset_class,
        options=[f"{c} ({', '.join(f)})" for c, f in sorted(having.items())] or None,
        fix="drop --operate (or pass --operate 0), or generate for a class listed, or add "
        f"families in assets/{asset_class}/operate.py",
    )


async def draw_operate(asset_class: str, tool_modules: list[str], store: Any, n: int,
                       run_seed: int, run_id: str = "operate", *,
                       resumed: Sequence[OperateLine] = (),
                       on_accept: Callable[[OperateLine], Awaitable[None] | None] | None = None,
                       ) -> OperateRun:
    """Draw ``n`` operate records of ``asset_class`` (its families in turn).

    Args:
        resumed: Lines a run folder kept (in order); drawing goes on from the last one's
            state and their records come first.
        on_accept: Called with each newly accepted record's line before the next draw (the
            run folder appends it durably).
    """
    specs = operate_families_of(asset_class, tool_modules)
    run = OperateRun()
    if not specs:
        return run
    next_draw = {s.name: 0 for s in specs}
    tries = 0
    for line in resumed:
        run.records.append(line.record)
        next_draw |= line.next_draw
        tries = line.tries
        run.drops = dict(line.drops)
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
        if any(r.operate is not None and r.operate.task_id == d.task.task_id
               for r in run.records):  # the same situation and space drawn again
            run.drops["repeated task"] = run.drops.get("repeated task", 0) + 1
            continue
        record = operate_record(asset_class, spec.name, spec.category, spec.domain, draw, d,
                                len(run.records), run_id)
        run.records.append(record)
        if on_accept is not None:
            done = on_accept(OperateLine(index=len(run.records) - 1, family=spec.name,
                                         draw=draw, record=record, next_draw=dict(next_draw),
                                         tries=tries, drops=dict(run.drops)))
            if done is not None:
                await done
    return run
