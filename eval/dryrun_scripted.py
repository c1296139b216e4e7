"""Scripted agents for operate scenarios (``--agent scripted[:BEHAVIOUR]``): they call the
tools over the MCP tool server, as an LLM agent does (behaviours and candidates in
:mod:`eval.dryrun_operate`'s docstring); other scenarios go to the reference agent.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.dryrun_attempt import Attempt, steps_json
from eval.dryrun_operate import _TASK_ID, DESCRIBE, SIMULATE, SUBMIT, is_operate
from eval.model import TrajectoryStep

if TYPE_CHECKING:
    from generator.config import StoreSettings


# -- the tool server over MCP ----------------------------------------------------------------


class _Caller:
    """Calls tools over an MCP session, recording each call and observation as steps."""

    def __init__(self, session: Any, attempt: Attempt) -> None:
        self.session, self.attempt = session, attempt

    async def __call__(self, name: str, args: dict[str, Any]) -> dict[str, Any] | None:
        from generator.mcp import compat

        steps = self.attempt.steps
        steps.append(TrajectoryStep(kind="tool_call", tool=name, args=args,
                                    content=steps_json(args)))
        t = time.perf_counter()
        result = await self.session.call_tool(name, args)
        text = compat.result_text(result) or json.dumps(compat.result_structured(result))
        error = bool(compat.result_is_error(result))
        steps.append(TrajectoryStep(kind="observation", tool=name, content=text[:20_000],
                                    is_error=error,
                                    latency_s=round(time.perf_counter() - t, 4)))
        if error:
            return None
        try:
            out = json.loads(text)
        except ValueError:
            return None
        return out if isinstance(out, dict) else None


def candidates(actions: list[dict[str, Any]], oracle: list[dict[str, Any]]
               ) -> list[list[dict[str, Any]]]:
    """Do nothing, every action at its largest magnitude, the oracle plan (module
    docstring)."""
    most = [{"id": a["id"], "value": a["max"] if abs(a["max"]) >= abs(a["min"]) else a["min"]}
            for a in actions]
    return [[], most, list(oracle)]


def cheapest_feasible(
    tried: list[tuple[list[dict[str, Any]], dict[str, Any]]],
) -> list[dict[str, Any]] | None:
    """The feasible simulated plan of least cost (action cost plus the outcome's operating
    cost, as the oracle counts it; the first on a tie), None when none is feasible."""
    feasible = [
        (float(o["action_cost"]) + float(o.get("operating_cost") or 0.0), i, p)
        for i, (p, o) in enumerate(tried) if o.get("feasible")
    ]
    return min(feasible)[2] if feasible else None


def off_grid(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A plan whose first action is half a step off its grid (inside its range)."""
    a = actions[0]
    half = a["step"] / 2
    return [{"id": a["id"], "value": half if a["max"] >= a["step"] else -half}]


class ScriptedAgent:
    """A scripted agent: operate tasks over MCP (module docstring), else the reference."""

    def __init__(self, behaviour: str, *, scenarios_path: Path | None = None,
                 settings: StoreSettings | None = None,
                 server_env: dict[str, str] | None = None, errlog: Path | None = None) -> None:
        from eval.dryrun_reference import ReferenceAgent

        self.behaviour = behaviour
        self.name = "scripted" if behaviour == "good" else f"scripted:{behaviour}"
        self.fallback = ReferenceAgent(scenarios_path, settings)
        self.server_env = dict(server_env or {})
        self.errlog = errlog

    async def run(self, scenario: dict[str, Any], attempt: Attempt, max_steps: int) -> None:
        """Attempt the scenario (operate: over MCP; else as the reference agent)."""
        if not is_operate(scenario):
            await self.fallback.run(scenario, attempt, max_steps)
            return
        from eval.asset_words import scenario_class
        from generator.mcp.server import ASSET_CLASS_ENV

        task = scenario["operate"]
        found = _TASK_ID.search(str(scenario.get("text") or ""))
        task_id = found.group(0) if found else str(task["task_id"])
        env = {**self.server_env, ASSET_CLASS_ENV: scenario_class(scenario)}
        from eval.dryrun_mcp import mcp_session

        async with mcp_session(env, self.errlog) as session:
            call = _Caller(session, attempt)
            view = await call(DESCRIBE, {"task_id": task_id})
            if view is None:
                attempt.outcome, attempt.error = "no_final_answer", "describe_action_space failed"
                return
            oracle = (scenario.get("reference_answer") or {}).get("actions") or []
            plans = candidates(view["actions"], oracle)
            budget = int(view["budget"])
            tried: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
            if self.behaviour == "invalid_plan":
                for plan in plans[:2]:
                    await call(SIMULATE, {"task_id": task_id, "plan": {"actions": plan}})
                final = off_grid(view["actions"])
                await call(SUBMIT, {"task_id": task_id, "plan": {"actions": final}})
                self._answer(attempt, final)
                return
            calls = min(len(plans), budget) if self.behaviour == "good" else budget + 1
            for i in range(calls):
                plan = plans[i % len(plans)]
                out = await call(SIMULATE, {"task_id": task_id, "plan": {"actions": plan}})
                if out is not None and out.get("ok"):
                    tried.append((plan, out))
            best = cheapest_feasible(tried)
            final = best if best is not None else plans[-1]
            await call(SUBMIT, {"task_id": task_id, "plan": {"actions": final}})
            self._answer(attempt, final)

    @staticmethod
    def _answer(attempt: Attempt, plan: list[dict[str, Any]]) -> None:
        attempt.final_answer = json.dumps({"actions": plan})
        attempt.steps.append(TrajectoryStep(kind="answer", content=attempt.final_answer))
