"""The reference agent: replays a scenario's expected tool calls and derives its answer.

It runs ``tool_sequence`` in a fresh :class:`~generator.tools.registry.ToolContext` (one per
scenario, closed after), then derives the answer from those outputs with the task family's
``derive`` and the seed parameters recorded in the run's ``accepted.jsonl``. The grader then
compares that answer with the stored reference, so a stored answer that the data no longer
supports, or a tool that now fails, shows up as a failed scenario. For a negative it
re-checks the gap with :func:`generator.generate.draw.negatives.verify_negative` and refuses
with the scenario's reason only when the gap is real.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.dryrun_attempt import Attempt, steps_json
from eval.grade import is_negative, scenario_id
from eval.model import TrajectoryStep
from generator.errors import StoreUnavailable, UserError

if TYPE_CHECKING:
    from generator.config import StoreSettings


class ReferenceAgent:
    """Replay + derive; needs the store the scenarios were generated from."""

    name = "reference"

    def __init__(self, scenarios_path: Path | None = None,
                 settings: StoreSettings | None = None) -> None:
        from generator.generate.model import TaskSeed

        self.settings = settings
        self.seeds: dict[str, TaskSeed] = {}
        if scenarios_path is not None and scenarios_path.exists():
            from generator.generate.checks.validate import (
                load_scenario_file,
                seeds_beside,
                split_accepted,
            )

            base = scenarios_path / "scenarios.json" if scenarios_path.is_dir() else scenarios_path
            self.seeds = seeds_beside(base)
            if base.name == "accepted.jsonl":
                self.seeds.update(split_accepted(load_scenario_file(base))[1])

    async def run(self, scenario: dict[str, Any], attempt: Attempt, max_steps: int) -> None:
        """Replay the calls, then derive (positives) or refuse (negatives); an operate task
        answers with the plan its replayed calls submitted."""
        from eval.asset_words import scenario_class
        from eval.dryrun_operate import is_operate, replay_operate

        if is_operate(scenario):
            await replay_operate(scenario, attempt, self.settings)
            return
        from generator.assetdef import load_asset_class
        from generator.generate.model import ToolCall
        from generator.tools.registry import ToolContext, call_tool

        asset = load_asset_class(scenario_class(scenario))
        raw_calls = scenario.get("tool_sequence")
        calls = [ToolCall.model_validate(c) for c in raw_calls] if isinstance(
            raw_calls, list) else []
        ctx = ToolContext(asset, self.settings)
        outputs: list[dict[str, Any] | None] = []
        try:
            for call in calls:
                attempt.steps.append(TrajectoryStep(kind="tool_call", tool=call.name,
                                                    args=call.args, content=steps_json(call.args)))
                t = time.perf_counter()
                try:
                    out = (await call_tool(call.name, dict(call.args), ctx)).model_dump(mode="json")
                except StoreUnavailable:
                    raise  # infrastructure, not the scenario's fault
                except UserError as exc:
                    attempt.steps.append(TrajectoryStep(
                        kind="observation", tool=call.name, content=f"error: {exc}",
                        is_error=True, latency_s=round(time.perf_counter() - t, 4)))
                    outputs.append(None)
                    continue
                attempt.steps.append(TrajectoryStep(
                    kind="observation", tool=call.name, content=steps_json(out),
                    latency_s=round(time.perf_counter() - t, 4)))
                outputs.append(out)
            if is_negative(scenario):
                await self._refuse(scenario, calls, ctx, attempt)
            else:
                self._derive(scenario, asset, outputs, attempt)
        finally:
            ctx.close()

    async def _refuse(self, scenario: dict[str, Any], calls: list[Any], ctx: Any,
                      attempt: Attempt) -> None:
        from generator.generate.draw.negatives import verify_negative

        ref = scenario.get("reference_answer")
        problems = await verify_negative(ref if isinstance(ref, dict) else None, calls, ctx)
        if problems:
            text = "The calls did not show the gap the scenario claims: " + "; ".join(problems)
        else:
            reason = ref.get("reason") if isinstance(ref, dict) else None
            text = f"This cannot be answered: {reason or 'the data does not contain it'}."
        attempt.final_answer = text
        attempt.steps.append(TrajectoryStep(kind="answer", content=text))

    def _derive(self, scenario: dict[str, Any], asset: Any, outputs: list[dict[str, Any] | None],
                attempt: Attempt) -> None:
        from generator.generate.draw.families import Ambiguous, load_families

        sid = scenario_id(scenario)
        seed = self.seeds.get(sid)
        if seed is None:
            attempt.outcome = "no_final_answer"
            attempt.error = (f"no task seed for {sid} (the reference agent derives answers with "
                             "the seed parameters in the run's accepted.jsonl)")
            return
        if any(o is None for o in outputs) or not outputs:
            attempt.outcome = "no_final_answer"
            attempt.error = "a tool call of the expected sequence failed"
            return
        families = load_families(asset)
        if seed.family not in families:
            attempt.outcome = "no_final_answer"
            attempt.error = f"unknown task family {seed.family!r}"
            return
        try:
            answer = families.get(seed.family).derive(
                seed.params, [o for o in outputs if o is not None])
        except Ambiguous as exc:
            attempt.outcome = "no_final_answer"
            attempt.error = f"the outputs admit no single answer ({exc})"
            return
        attempt.answer = answer
        attempt.final_answer = steps_json(answer)
        attempt.steps.append(TrajectoryStep(kind="answer", content=attempt.final_answer))
