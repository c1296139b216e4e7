"""Contracts of the evaluation stage: graded answers, dry-run trajectories, set scores.

These records are what `scenariogen evaluate`, `scenariogen dryrun` and `scenariogen score`
write and read. Everything here is plain data (JSON-serialisable pydantic), so a grade, a
trajectory or a report can be produced on one machine and aggregated on another.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FailureClass = Literal[
    "wrong_answer",
    "wrong_tools",
    "max_steps",
    "no_final_answer",
    "asked_clarification",
    "tool_error",
    "infrastructure",
    "over_budget",  # operate: simulate_plan called past the task's budget (eval.dryrun_operate)
    "invalid_plan",  # operate: the plan graded is invalid (eval.dryrun_operate)
]
StepKind = Literal["thought", "tool_call", "observation", "answer"]
GradeKind = Literal["facts", "refusal", "rubric", "clarification", "operate"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Violation(_Strict):
    """One way an answer differs from the reference."""

    name: str = Field(description="What failed, e.g. 'value_mismatch', 'missing_key', 'no_refusal'")
    path: str = Field(description="Answer key path, e.g. 'fault_type' or 'readings[2].value'")
    expected: Any = Field(default=None, description="The reference value (None if not applicable)")
    given: Any = Field(default=None, description="The value found in the answer (None if absent)")
    message: str = Field(description="One line a person can act on")


class GradeResult(_Strict):
    """The grade of one answer to one scenario."""

    id: str = Field(description="Scenario id (as a string, whatever the file used)")
    domain: str = Field(description="Scenario type: iot, fmsr, tsfm, wo, multiagent, ...")
    difficulty: str = Field(description="easy, medium, hard, or 'unknown'")
    negative: bool = Field(description="True for an unanswerable scenario, graded on refusal")
    feasible: bool = Field(description="True when the answer is acceptable in full")
    score: float = Field(ge=0.0, le=1.0, description="Share of reference facts matched, in [0, 1]")
    violations: list[Violation] = Field(default_factory=list, description="What differed")
    evidence: list[str] = Field(
        default_factory=list, description="What matched, and how each value was extracted"
    )
    gradable: bool = Field(
        default=True, description="False when the scenario has no reference to grade against"
    )
    kind: GradeKind = Field(
        default="facts",
        description="How it was graded: facts of the reference, refusal (negatives), rubric "
        "(open scenarios: required facts, forbidden claims) or clarification (asks back)",
    )


class ClassScore(_Strict):
    """Aggregate over one domain × difficulty class."""

    n: int = Field(description="Scenarios in the class")
    mean_score: float = Field(description="Mean score in the class")
    feasible_rate: float = Field(description="Share of feasible answers in the class")


class EvaluationReport(_Strict):
    """`scenariogen evaluate --json`: aggregates and per-scenario grades."""

    mean_score: float = Field(description="Class-balanced mean score (mean over classes)")
    feasible_rate: float = Field(description="Class-balanced feasible rate")
    by_class: dict[str, ClassScore] = Field(description="Key 'domain/difficulty'")
    by_kind: dict[str, ClassScore] = Field(
        default_factory=dict,
        description="Per grading kind (facts, refusal, rubric, clarification), gradable only",
    )
    results: list[GradeResult] = Field(description="One per scenario, in file order")


class TrajectoryStep(_Strict):
    """One step of an agent's attempt."""

    kind: StepKind = Field(description="thought, tool_call, observation or answer")
    content: str = Field(description="Text of the step (tool output as JSON text)")
    tool: str | None = Field(default=None, description="Tool name for tool_call / observation")
    args: dict[str, Any] | None = Field(default=None, description="Arguments of a tool_call")
    is_error: bool = Field(default=False, description="A tool observation that is an error")
    tokens: int = Field(default=0, description="Tokens spent on this step (prompt + completion)")
    latency_s: float = Field(default=0.0, description="Wall time of this step, seconds")


class DryRunResult(_Strict):
    """One agent's attempt at one scenario, graded."""

    id: str = Field(description="Scenario id")
    agent: str = Field(description="'reference' or the llm:SPEC that ran")
    domain: str = Field(description="Scenario type")
    difficulty: str = Field(description="Scenario difficulty, or 'unknown'")
    grade: GradeResult = Field(description="The grader's verdict on the final answer")
    failure_class: FailureClass | None = Field(description="None when the attempt passed")
    final_answer: str | None = Field(description="The agent's final answer text, if any")
    expected_tools: list[str] = Field(description="Tools the scenario expects")
    tools_called: list[str] = Field(description="Tools the agent called, in order")
    tool_errors: int = Field(description="Tool calls that returned an error")
    steps: list[TrajectoryStep] = Field(description="The trajectory")
    tokens: int = Field(description="Tokens over the attempt")
    latency_s: float = Field(description="Wall time of the attempt, seconds")
    retries: int = Field(default=0, description="Infrastructure retries taken (at most 1)")
    error: str | None = Field(
        default=None, description="Why the attempt failed outside the answer (timeout, crash)"
    )


class DryRunReport(_Strict):
    """A dry run over a scenario set: per-scenario results and aggregates."""

    agent: str = Field(description="'reference' or llm:SPEC")
    scenarios: int = Field(description="Scenarios attempted")
    mean_score: float = Field(description="Class-balanced mean grade score")
    pass_rate: float = Field(description="Share of attempts with no failure class")
    failure_classes: dict[str, int] = Field(description="Count per failure class")
    by_kind: dict[str, ClassScore] = Field(
        default_factory=dict,
        description="Per grading kind (facts, refusal, rubric, clarification): attempts, mean "
        "grade score and pass rate (no failure class)",
    )
    tokens: int = Field(description="Tokens over the run")
    seconds: float = Field(description="Wall time of the run")
    results: list[DryRunResult] = Field(description="One per scenario, in file order")
