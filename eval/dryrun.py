"""Dry runs: an agent attempts every scenario, the grader grades its final answer.

Agents (:func:`make_agent`):

- ``reference``: replays each scenario's expected tool sequence in a fresh tool context and
  derives the answer from the outputs with the family's own ``derive`` (seed parameters from
  the run's ``accepted.jsonl``); negatives answer with the refusal the calls demonstrate. A
  reference that fails here is a scenario defect, not an agent's.
- ``llm:SPEC``: langgraph's prebuilt ReAct agent over our MCP tool server, any ``--llm``
  backend (:mod:`eval.dryrun_llm`).

Each attempt records its trajectory (thought / tool call / observation / answer, tokens,
latency) and gets one failure class, decided in this order: ``infrastructure`` (the model or
the tool server failed, or the attempt timed out: retried once), ``max_steps``,
``no_final_answer``, then for a feasible answer ``wrong_tools`` if an expected tool was never
called (positives only) else none; for an infeasible one ``asked_clarification`` (the answer
asks back), ``tool_error`` (an expected tool was called but every call of it failed),
``wrong_tools`` (an expected tool was never called), else ``wrong_answer``. Operate scenarios
add ``over_budget`` and ``invalid_plan`` and grade the submitted plan (:mod:`eval.dryrun_operate`,
which also holds the ``scripted`` agents).
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from eval.dryrun_attempt import Agent, Attempt, _expected_tools, classify
from eval.dryrun_attempt import _clarify_re as _clarify_re
from eval.grade import aggregate, grade, scenario_difficulty, scenario_domain
from eval.model import (
    ClassScore,
    DryRunReport,
    DryRunResult,
    TrajectoryStep,
)
from generator.config import StoreSettings
from generator.errors import UserError

if TYPE_CHECKING:
    from generator.executor import Executor

AGENT_FORMS = ["reference", "text", "scripted", "scripted:over_budget", "scripted:invalid_plan",
               "llm:smollm2", "llm:openai:MODEL", "llm:ollama:MODEL",
               "llm:fake:PATH"]


def make_agent(
    spec: str,
    *,
    scenarios_path: Path | None = None,
    chat_model_factory: Callable[[dict[str, Any]], Any] | None = None,
    server_env: dict[str, str] | None = None,
    errlog: Path | None = None,
    settings: StoreSettings | None = None,
) -> Agent:
    """The agent named by ``spec``: ``reference`` (replays the recorded calls), ``text``
    (acts on what the text determines, :mod:`eval.dryrun_text`) or ``llm:SPEC``.

    Raises:
        UserError: Unknown form, or an invalid LLM spec.
    """
    if spec == "reference":
        from eval.dryrun_reference import ReferenceAgent

        return ReferenceAgent(scenarios_path, settings)
    if spec == "text":
        from eval.dryrun_text import TextAgent

        return TextAgent(scenarios_path, settings)
    if spec == "scripted" or spec.startswith("scripted:"):
        from eval.dryrun_operate import BEHAVIOURS
        from eval.dryrun_scripted import ScriptedAgent

        behaviour = spec.partition(":")[2] or "good"
        if behaviour not in BEHAVIOURS:
            raise UserError("unknown scripted agent behaviour", value=spec,
                            options=[f"scripted:{b}" for b in BEHAVIOURS],
                            fix="pass --agent scripted (good), scripted:over_budget or "
                            "scripted:invalid_plan")
        env = {**settings_env(settings), **(server_env or {})}
        return ScriptedAgent(behaviour, scenarios_path=scenarios_path, settings=settings,
                             server_env=env, errlog=errlog)
    if spec.startswith("llm:") and spec[4:].strip():
        from eval.dryrun_llm import LLMAgent

        env = {**settings_env(settings), **(server_env or {})}
        return LLMAgent(spec[4:].strip(), chat_model_factory=chat_model_factory,
                        server_env=env, errlog=errlog)
    raise UserError("unknown --agent", value=spec, options=AGENT_FORMS,
                    fix="pass --agent reference or --agent llm:smollm2 (any --llm form after llm:)")


def settings_env(settings: StoreSettings | None) -> dict[str, str]:
    """Environment that points a tool-server child process at the same store."""
    if settings is None:
        return {}
    env = {"COUCHDB_URL": settings.url, "SCENARIOGEN_DB_PREFIX": settings.db_prefix}
    if settings.username:
        env["COUCHDB_USERNAME"] = settings.username
    if settings.password:
        env["COUCHDB_PASSWORD"] = settings.password
    return env


def sample_scenarios(scenarios: list[dict[str, Any]], k: int | None,
                     seed: int = 0) -> list[dict[str, Any]]:
    """Up to ``k`` scenarios, spread over domains (round robin), in file order.

    Within a domain the order is shuffled by a generator seeded with ``seed``.
    """
    if k is None or k >= len(scenarios):
        return list(scenarios)
    rng = random.Random(seed)
    buckets: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(scenarios):
        buckets[scenario_domain(s)].append(i)
    for idx in buckets.values():
        rng.shuffle(idx)
    chosen: list[int] = []
    while len(chosen) < k:
        for name in sorted(buckets):
            if buckets[name] and len(chosen) < k:
                chosen.append(buckets[name].pop())
    return [scenarios[i] for i in sorted(chosen)]


def _safe_name(sid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", sid)[:120] or "_"


async def _attempt_once(agent: Agent, scenario: dict[str, Any], max_steps: int,
                        timeout: float) -> Attempt:
    import asyncio

    attempt = Attempt()
    try:
        await asyncio.wait_for(agent.run(scenario, attempt, max_steps), timeout)
    except TimeoutError:
        attempt.outcome, attempt.error = "infrastructure", f"timed out after {timeout:g} s"
    except Exception as exc:  # a model or tool-server failure is data about this attempt
        attempt.outcome = "infrastructure"
        attempt.error = f"{type(exc).__name__}: {str(exc)[:500]}"
    return attempt


async def run_one(agent: Agent, scenario: dict[str, Any], index: int, *, max_steps: int = 15,
                  timeout: float = 120.0) -> DryRunResult:
    """One scenario: attempt (one retry for infrastructure failures), grade, classify."""
    t0 = time.perf_counter()
    retries = 0
    attempt = await _attempt_once(agent, scenario, max_steps, timeout)
    if attempt.outcome == "infrastructure":
        retries = 1
        attempt = await _attempt_once(agent, scenario, max_steps, timeout)
    expected = _expected_tools(scenario)
    from eval.dryrun_operate import classify_operate, grade_attempt, is_operate

    if is_operate(scenario):
        result, use = grade_attempt(scenario, attempt, index)
        failure = classify_operate(attempt, result, use, expected)
    else:
        answer = attempt.answer if attempt.answer is not None else attempt.final_answer
        result = grade(scenario, answer, index=index)
        failure = classify(attempt, result, expected, attempt.steps)
    steps = attempt.steps
    if attempt.error:
        steps = [*steps, TrajectoryStep(kind="thought", content=f"error: {attempt.error}")]
    return DryRunResult(
        id=result.id,
        agent=agent.name,
        domain=scenario_domain(scenario),
        difficulty=scenario_difficulty(scenario),
        grade=result,
        failure_class=failure,
        final_answer=attempt.final_answer,
        expected_tools=expected,
        tools_called=[s.tool for s in attempt.steps if s.kind == "tool_call" and s.tool],
        tool_errors=sum(1 for s in attempt.steps if s.kind == "observation" and s.is_error),
        steps=steps,
        tokens=sum(s.tokens for s in attempt.steps),
        latency_s=round(time.perf_counter() - t0, 3),
        retries=retries,
        error=attempt.error,
    )


def summarise(agent: str, results: list[DryRunResult], seconds: float) -> DryRunReport:
    """Aggregate per-scenario results into a report (pass rate over gradable scenarios)."""
    mean, _, _ = aggregate(r.grade for r in results)
    gradable = [r for r in results if r.grade.gradable]
    classes: dict[str, int] = defaultdict(int)
    for r in results:
        if r.failure_class is not None:
            classes[r.failure_class] += 1
    kinds: dict[str, list[DryRunResult]] = defaultdict(list)
    for r in gradable:
        kinds[r.grade.kind].append(r)
    return DryRunReport(
        agent=agent,
        scenarios=len(results),
        mean_score=mean,
        pass_rate=round(sum(r.failure_class is None for r in gradable) / len(gradable), 6)
        if gradable else 0.0,
        failure_classes=dict(sorted(classes.items())),
        by_kind={
            kind: ClassScore(
                n=len(rs),
                mean_score=round(sum(r.grade.score for r in rs) / len(rs), 6),
                feasible_rate=round(sum(r.failure_class is None for r in rs) / len(rs), 6),
            )
            for kind, rs in sorted(kinds.items())
        },
        tokens=sum(r.tokens for r in results),
        seconds=round(seconds, 3),
        results=results,
    )


class DryRunWorkerSpec(BaseModel):
    """What a dry-run worker needs to build its own agent (and with it its tool session)."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(description="The --agent form: reference, text or llm:SPEC")
    scenarios_path: Path | None = Field(
        default=None, description="The scenario file or run folder (the reference agent reads "
        "the seeds beside it)")
    server_env: dict[str, str] | None = Field(
        default=None, description="Extra environment for the MCP tool server")
    errlog: Path | None = Field(default=None, description="Where the tool server logs errors")
    settings: StoreSettings | None = Field(
        default=None, description="The store the scenarios were generated from")
    call_latency_s: float = Field(
        default=0.0, ge=0, description="A stand-in wait per model call (bench scale): the "
        "agent waits this long per tool call and once for its answer")


class DelayedAgent:
    """An agent that also waits as an LLM agent would: ``latency`` seconds per model call
    (one per tool call it made, one for its answer), on the event loop so attempts overlap.
    Its results are the inner agent's but for the latencies."""

    def __init__(self, inner: Agent, latency: float) -> None:
        self.inner, self.latency = inner, latency
        self.name = inner.name

    async def run(self, scenario: dict[str, Any], attempt: Attempt, max_steps: int) -> None:
        """Attempt with the inner agent, then wait its model calls' stand-in latency."""
        import asyncio

        await self.inner.run(scenario, attempt, max_steps)
        calls = 1 + sum(1 for s in attempt.steps if s.kind == "tool_call")
        await asyncio.sleep(self.latency * calls)


class DryRunUnit(BaseModel):
    """One scenario to attempt: a dry run's unit of work."""

    model_config = ConfigDict(extra="forbid")

    scenario: dict[str, Any] = Field(description="The scenario record")
    index: int = Field(description="Its position in the scenario file (the id of one without)")
    max_steps: int = Field(description="Model calls an LLM agent may make")
    timeout: float = Field(description="Seconds per attempt")


def dryrun_worker(spec: DryRunWorkerSpec) -> Agent:
    """A worker's own agent, built from the spec (Ray runs this once per worker)."""
    agent = make_agent(spec.agent, scenarios_path=spec.scenarios_path,
                       server_env=spec.server_env, errlog=spec.errlog, settings=spec.settings)
    return DelayedAgent(agent, spec.call_latency_s) if spec.call_latency_s else agent


def _given(agent: Agent) -> Agent:
    return agent


async def dryrun_unit(agent: Agent, unit: DryRunUnit) -> DryRunResult:
    """Attempt, grade and class one scenario (a pure function of the agent and the unit)."""
    return await run_one(agent, unit.scenario, unit.index, max_steps=unit.max_steps,
                         timeout=unit.timeout)


def _resumed(traj: Path, chosen: list[dict[str, Any]], index: dict[int, int],
             agent: str) -> dict[int, DryRunResult]:
    """Results already in ``trajectories/`` for this agent, by position in ``chosen``; a file
    that is missing, unreadable or from another agent or scenario is redone."""
    from pydantic import ValidationError

    from eval.grade import scenario_id

    kept: dict[int, DryRunResult] = {}
    for pos, s in enumerate(chosen):
        sid = scenario_id(s, index[id(s)])
        path = traj / f"{_safe_name(sid)}.json"
        try:
            result = DryRunResult.model_validate_json(path.read_bytes())
        except (OSError, ValidationError):
            continue
        if result.agent == agent and result.id == sid:
            kept[pos] = result
    return kept


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


async def run_dry(
    scenarios: list[dict[str, Any]],
    agent: str | Agent,
    *,
    sample: int | None = None,
    seed: int = 0,
    max_steps: int = 15,
    timeout: float = 120.0,
    concurrency: int = 2,
    out: Path | None = None,
    scenarios_path: Path | None = None,
    chat_model_factory: Callable[[dict[str, Any]], Any] | None = None,
    server_env: dict[str, str] | None = None,
    settings: StoreSettings | None = None,
    progress: Callable[[DryRunResult], None] | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    resume: bool = False,
    call_latency: float = 0.0,
) -> DryRunReport:
    """Run ``agent`` on the scenarios (concurrently, at most ``concurrency`` at once).

    Args:
        scenarios: Scenario records.
        agent: ``reference``, ``llm:SPEC`` or an :class:`Agent`.
        sample: Attempt only this many (spread over domains, see :func:`sample_scenarios`).
        seed: Seed of the sample.
        max_steps: Model calls an LLM agent may make.
        timeout: Seconds per attempt.
        concurrency: Scenarios in flight at once (per worker on Ray).
        out: Folder for ``dryrun.json`` and ``trajectories/<id>.json`` (each written as its
            scenario finishes).
        scenarios_path: The scenario file (the reference agent finds seeds beside it).
        chat_model_factory: For ``llm:`` agents, a chat model per scenario (tests; local only).
        server_env: Extra environment for the MCP tool server.
        settings: The store (default: from the environment, as the CLI reads it).
        progress: Called with each result as it completes.
        executor: Where the scenarios run (default: this process); on Ray every worker
            builds its own agent and tool session.
        workers: Ray workers (default: the cluster's CPUs).
        resume: Keep the results already in ``out/trajectories`` for this agent and attempt
            only the scenarios without one.
        call_latency: A stand-in wait per model call (``bench scale``, see
            :class:`DelayedAgent`).

    Returns:
        The report; results keep file order.

    Raises:
        UserError: An agent object or chat-model factory (test fakes) given to Ray.
    """
    from generator.executor import LocalExecutor

    executor = executor or LocalExecutor()
    chosen = sample_scenarios(scenarios, sample, seed)
    errlog = None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        errlog = out / "tool_server.log"
    with tempfile.TemporaryDirectory(prefix="scenariogen-dryrun-") as scratch:
        # the operate tasks a tool server serves (eval.dryrun_operate): beside the report
        from eval.dryrun_operate import tasks_file
        from generator.operate.session import TASKS_ENV

        served = tasks_file(chosen, out if out is not None else Path(scratch))
        if served is not None:
            server_env = {**(server_env or {}), TASKS_ENV: str(served.resolve())}
        return await _run_dry(
            scenarios, chosen, agent, seed=seed, max_steps=max_steps, timeout=timeout,
            concurrency=concurrency, out=out, errlog=errlog, scenarios_path=scenarios_path,
            chat_model_factory=chat_model_factory, server_env=server_env, settings=settings,
            progress=progress, executor=executor, workers=workers, resume=resume,
            call_latency=call_latency)


async def _run_dry(
    scenarios: list[dict[str, Any]],
    chosen: list[dict[str, Any]],
    agent: str | Agent,
    *,
    seed: int,
    max_steps: int,
    timeout: float,
    concurrency: int,
    out: Path | None,
    errlog: Path | None,
    scenarios_path: Path | None,
    chat_model_factory: Callable[[dict[str, Any]], Any] | None,
    server_env: dict[str, str] | None,
    settings: StoreSettings | None,
    progress: Callable[[DryRunResult], None] | None,
    executor: Executor,
    workers: int | None,
    resume: bool,
    call_latency: float,
) -> DryRunReport:
    if isinstance(agent, str):
        runner = make_agent(agent, scenarios_path=scenarios_path,
                            chat_model_factory=chat_model_factory, server_env=server_env,
                            errlog=errlog, settings=settings)
    else:
        runner = agent
    if call_latency:
        runner = DelayedAgent(runner, call_latency)
    if executor.name == "local":
        setup: Callable[[Any], Agent] = _given
        spec: Any = runner
    elif isinstance(agent, str) and chat_model_factory is None:
        if settings is None:
            from generator.config import store_settings

            settings = store_settings(role="tools")  # resolved here: workers read no env
        setup, spec = dryrun_worker, DryRunWorkerSpec(
            agent=agent, scenarios_path=scenarios_path.resolve() if scenarios_path else None,
            server_env=server_env, errlog=errlog.resolve() if errlog else None,
            settings=settings, call_latency_s=call_latency)
    else:
        raise UserError("an agent object or chat-model factory runs in this process only",
                        value=executor.name, options=["local"],
                        fix="pass --agent as text (reference, text, llm:SPEC) to run on Ray")
    index = {id(s): i for i, s in enumerate(scenarios)}
    traj = out / "trajectories" if out is not None else None
    if traj is not None:
        traj.mkdir(parents=True, exist_ok=True)
    done = _resumed(traj, chosen, index, runner.name) if traj is not None and resume else {}
    todo = [pos for pos in range(len(chosen)) if pos not in done]
    units = [DryRunUnit(scenario=chosen[pos], index=index[id(chosen[pos])],
                        max_steps=max_steps, timeout=timeout) for pos in todo]

    t0 = time.perf_counter()
    results: dict[int, DryRunResult] = dict(done)
    result: DryRunResult
    async for k, result in executor.stream(setup, spec, dryrun_unit, units,
                                           concurrency=max(1, concurrency), workers=workers):
        results[todo[k]] = result
        if traj is not None:
            _write_atomic(traj / f"{_safe_name(result.id)}.json",
                          result.model_dump_json(indent=2))
        if progress is not None:
            progress(result)
    report = summarise(runner.name, [results[pos] for pos in range(len(chosen))],
                       time.perf_counter() - t0)
    if out is not None:
        _write_atomic(out / "dryrun.json", report.model_dump_json(indent=2))
    return report
