"""The acceptance gate: every held-out instance proves it is fair before it is kept.

Steps, each recorded in the private gate record (:class:`GateRecord`):

1. ``reference_score``: the reference answer scores 1.0 in the grader (``eval.grade.grade``,
   reached through :func:`generator.plugins.evaluation`);
2. ``readings``: every reading the text allows gives the same answer (the interpretation
   gate's record, ``TaskSeed.readings``: each reading ``same`` or pinned by the text,
   ``stated``);
3. ``margins``: the inputs sit outside the margin of every classification boundary the answer
   depends on (:mod:`generator.heldout.margins`);
4. ``decoys``: every decoy (:mod:`generator.heldout.decoys`) that differs from the reference
   scores below 1.

The first failing step is the rejection reason; the caller redraws (bounded).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from generator.generate.draw.families import FamilyContext
from generator.generate.model import TaskSeed
from generator.heldout.decoys import DecoyInput, is_inert, make_decoys
from generator.heldout.margins import MarginResult, check_margins
from generator.plugins import evaluation


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DecoyCheck(_Strict):
    """One decoy kind on one instance."""

    kind: str = Field(description="Decoy kind (see generator.heldout.decoys)")
    outcome: Literal["scored", "inert", "not_applicable"] = Field(
        description="scored: graded; inert: equal to the reference; not_applicable: kind "
        "does not apply to this instance"
    )
    score: float | None = Field(default=None, description="The grader's score of the decoy")


class GateStep(_Strict):
    """One step of the gate."""

    name: str = Field(description="reference_score, readings, margins or decoys")
    ok: bool = Field(description="True when the step passed")
    detail: str = Field(description="What was checked and found")


class GateRecord(_Strict):
    """The gate's verdict on one drawn instance (private)."""

    accepted: bool = Field(description="True when every step passed")
    reason: str | None = Field(default=None, description="First failing step (and its cause)")
    steps: list[GateStep] = Field(description="Steps in order")
    margins: list[MarginResult] = Field(default_factory=list, description="Margin checks")
    decoys: list[DecoyCheck] = Field(default_factory=list, description="Decoy checks")


async def run_gate(
    seed: TaskSeed,
    record: dict[str, Any],
    ctx: FamilyContext,
    asset_ids: tuple[str, ...],
) -> GateRecord:
    """Run every step on one instance (all steps run, so the record is complete).

    Args:
        seed: The drawn seed (parameters, calls, reference, readings).
        record: The scenario record the grader sees (private form, with the reference).
        ctx: The family context on the private fleet.
        asset_ids: The private fleet's asset ids, sorted (for the neighbouring-asset decoy).
    """
    steps: list[GateStep] = []
    grade = evaluation().grade
    ref = grade(record, seed.answer)
    steps.append(GateStep(name="reference_score", ok=ref.score == 1.0 and ref.feasible,
                          detail=f"reference scores {ref.score:g}"))
    bad = [r.name for r in seed.readings if r.outcome not in ("same", "stated")]
    steps.append(GateStep(
        name="readings", ok=not bad,
        detail=f"{len(seed.readings)} readings: "
        + (", ".join(f"{r.name}={r.outcome}" for r in seed.readings) or "none open"),
    ))
    outputs = await ctx.run(seed.tool_sequence)
    margins = check_margins(seed, outputs, ctx.profile.asset_class)
    failed = [m for m in margins if not m.ok]
    steps.append(GateStep(
        name="margins", ok=not failed,
        detail="; ".join(f"{m.kind}: {m.detail}" for m in (failed or margins))
        or "no classification boundary in this answer",
    ))
    decoys: list[DecoyCheck] = []
    inp = DecoyInput(seed=seed, ctx=ctx, asset_ids=asset_ids)
    for kind, answer in await make_decoys(inp):
        if answer is None:
            decoys.append(DecoyCheck(kind=kind, outcome="not_applicable"))
        elif is_inert(seed, answer):
            decoys.append(DecoyCheck(kind=kind, outcome="inert"))
        else:
            decoys.append(DecoyCheck(kind=kind, outcome="scored",
                                     score=grade(record, answer).score))
    passing = [d.kind for d in decoys if d.score is not None and d.score >= 1.0]
    scored = [d for d in decoys if d.outcome == "scored"]
    steps.append(GateStep(
        name="decoys", ok=not passing,
        detail=(f"decoys scoring 1: {', '.join(passing)}" if passing else
                f"{len(scored)} decoys scored < 1"
                + (f" (max {max(d.score or 0.0 for d in scored):.2f})" if scored else "")),
    ))
    first = next((s for s in steps if not s.ok), None)
    reason = None
    if first is not None:
        cause = {"margins": ",".join(m.kind for m in failed),
                 "decoys": ",".join(passing)}.get(first.name, "")
        reason = first.name + (f":{cause}" if cause else "")
    return GateRecord(accepted=first is None, reason=reason, steps=steps, margins=margins,
                      decoys=decoys)
