"""Contracts of the generation stages: task seeds, drafts, scenario records, rejections.

A :class:`TaskSeed` is a task family's draw: parameters over the grounded inventory, the
tool calls that answer it and the answer those calls computed. A verbaliser turns a seed
into a :class:`Draft` (the words); checks and repair turn seed + draft into a
:class:`ScenarioRecord`, the AssetOpsBench record plus our extra fields.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from generator.contract import AnswerContract
from generator.operate.model import OperateTask

Difficulty = Literal["easy", "medium", "hard"]
Role = Literal["operator", "manager"]
HardFeature = Literal["multi_output", "constraint", "conditional"]
GENERATOR_VERSION = "0.3.0"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(_Strict):
    """One call of the expected tool sequence, with concrete arguments."""

    name: str = Field(description="Registered tool name")
    args: dict[str, Any] = Field(description="Arguments, valid against the tool's schema")


class ReadingCheck(_Strict):
    """What another reading of the request gave (the interpretation gate's record)."""

    name: str = Field(description="Reading identifier, e.g. paper_kraft_default")
    description: str = Field(description="What a reader taking this reading does differently")
    outcome: Literal["same", "stated", "differs"] = Field(
        description="same: the reading gives the reference answer (within tolerance); "
        "stated: it gives another answer but the text pins the reference reading; "
        "differs: another answer the text does not rule out (such seeds are dropped)"
    )
    answer: dict[str, Any] | None = Field(
        default=None,
        description="The reading's answer when it differs (stated readings); None otherwise "
        "or when that reading admits no single answer",
    )


RubricFactKind = Literal["label", "number", "date", "fault_code", "asset_id", "id"]
ForbiddenKind = Literal["phrase", "fault_code", "number_outside"]


class RubricFact(_Strict):
    """A fact a good answer to an open scenario must state, backed by the reference."""

    id: str = Field(description="Short identifier, e.g. 'iec_class'")
    key: str = Field(
        description="Dot path of the reference_answer value that backs the fact, e.g. "
        "'methods.iec' or 'corrective_ids' (a list: the expected value is one of its items)"
    )
    kind: RubricFactKind = Field(
        description="How the grader finds it: label (whole words, not negated), number "
        "(within tolerance), date (ISO day), fault_code (IEC 60599 code or its name), "
        "asset_id or id (the token, verbatim)"
    )
    expected: str | int | float = Field(description="The value the answer must contain")
    synonyms: list[str] = Field(
        default_factory=list, description="Other wordings accepted for a label"
    )
    tolerance: float = Field(
        default=0.0, ge=0.0, description="Absolute tolerance: of a number, or in days of a date"
    )
    why: str = Field(description="Why a good answer states it (one line)")


class ForbiddenClaim(_Strict):
    """A claim a good answer must not make, checkable in the text."""

    id: str = Field(description="Short identifier, e.g. 'claims_agreement'")
    kind: ForbiddenKind = Field(
        description="phrase: a pattern that must not match (unless negated just before); "
        "fault_code: asserting one of `codes` (as a token or its name, not negated); "
        "number_outside: a number written right after `near` words outside [low, high]"
    )
    patterns: list[str] = Field(
        default_factory=list, description="Case-insensitive regular expressions (phrase)"
    )
    codes: list[str] = Field(default_factory=list, description="IEC 60599 codes (fault_code)")
    near: list[str] = Field(
        default_factory=list, description="Words the number follows (number_outside)"
    )
    low: float | None = Field(default=None, description="Lowest allowed value (number_outside)")
    high: float | None = Field(
        default=None, description="Highest allowed value (number_outside)"
    )
    why: str = Field(description="Why the claim is wrong given the computed facts (one line)")


class Rubric(_Strict):
    """How an open scenario is graded: required facts and forbidden claims.

    Score = matched required facts / all required − ``forbidden_penalty`` per forbidden claim
    made, clipped to [0, 1]; ``pass_rule`` ``all_required_no_forbidden`` passes an answer
    that states every required fact and makes no forbidden claim.
    """

    required: list[RubricFact] = Field(min_length=1, description="Facts the answer must state")
    forbidden: list[ForbiddenClaim] = Field(
        default_factory=list, description="Claims the answer must not make"
    )
    pass_rule: Literal["all_required_no_forbidden"] = Field(
        default="all_required_no_forbidden", description="When an answer passes"
    )
    forbidden_penalty: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Score lost per forbidden claim made"
    )


class TaskSeed(_Strict):
    """A structured task whose answer code computed by running the tools."""

    family: str = Field(description="Registered task family")
    domain: str = Field(description="iot, fmsr, tsfm, wo, vibration or multiagent")
    category: str = Field(description="AssetOpsBench category, allowed by the domain policy")
    role: Role = Field(description="Who asks: an operator or a manager")
    draw: int = Field(description="Draw index within (run seed, family); fixes the RNG stream")
    params: dict[str, Any] = Field(description="JSON parameters the family drew")
    grounding: dict[str, str] = Field(
        default_factory=dict,
        description="Store entities the task names (site, asset_id, sensor, start, end)",
    )
    mentions: list[str] = Field(
        description="Every value of the seed that the text must contain, verbatim"
    )
    tool_sequence: list[ToolCall] = Field(min_length=1, description="Expected tool calls")
    answer: dict[str, Any] = Field(description="Reference answer computed from the tool outputs")
    answer_summary: str = Field(description="Key values of the answer, one line, for rubrics")
    tolerance: dict[str, float] = Field(
        default_factory=dict, description="Absolute tolerance per numeric answer key (else exact)"
    )
    rel_tolerance: dict[str, float] = Field(
        default_factory=dict,
        description="Relative tolerance per numeric answer key: a number passes when "
        "|e - a| <= tolerance[key] or |e - a| <= rel_tolerance[key] * |e|",
    )
    difficulty: Difficulty = Field(description="easy, medium or hard")
    hard_features: list[HardFeature] = Field(
        default_factory=list, description="What makes it hard: outputs, constraint, fallback"
    )
    difficulty_score: float | None = Field(
        default=None,
        description="Score of the work the task takes (generator/generate/draw/difficulty.py); "
        "difficulty is its level under the documented cut points",
    )
    difficulty_features: dict[str, int] = Field(
        default_factory=dict,
        description="The counts the score is made of (extra_tools, repeat_calls, "
        "cross_domain, chained, steps, distractors, constraints)",
    )
    declared_difficulty: Difficulty | None = Field(
        default=None, description="The level the family declared, before scoring"
    )
    constraint: str | None = Field(
        default=None, description="An explicit constraint or conditional the text must state"
    )
    closed_form: bool = Field(
        default=False, description="True when inputs are synthesised, not read from the store"
    )
    parents: list[str] = Field(
        default_factory=list, description="Seed keys a multi-agent chain was composed from"
    )
    readings: list[ReadingCheck] = Field(
        default_factory=list,
        description="Other readings of the request and what each gave (interpretation gate)",
    )
    outcome: str | None = Field(
        default=None, description="The family's label of the answer (fault, normal, alarm, ...)"
    )
    nontrivial: bool | None = Field(
        default=None,
        description="False when the outcome is one of the family's trivial labels; None when "
        "the family labels no outcomes",
    )
    deterministic: bool = Field(
        default=True,
        description="False for an open (decision-support) task: the answer holds computed "
        "facts, graded with `rubric` rather than as the single correct answer",
    )
    rubric: Rubric | None = Field(
        default=None, description="Required facts and forbidden claims (open tasks)"
    )
    as_of: str | None = Field(
        default=None,
        description="The moment the text asks as of (ISO day or timestamp, exclusive): no "
        "document the reference rests on is time-stamped at or after it; None = none",
    )

    @property
    def key(self) -> str:
        """Stable identity of the seed within a run: family and draw index."""
        return f"{self.family}#{self.draw}"

    @property
    def expected_tools(self) -> list[str]:
        """Tool names in call order, without repeats."""
        return list(dict.fromkeys(c.name for c in self.tool_sequence))


class Draft(_Strict):
    """A verbaliser's words for one seed."""

    seed_key: str = Field(description="TaskSeed.key of the seed it verbalises")
    text: str = Field(description="The request as an operator or a manager would write it")
    characteristic_form: str = Field(
        description="What a correct response does and contains (tools, key values)"
    )
    category: str = Field(description="AssetOpsBench category")
    verbaliser: str = Field(description="template or llm")
    surfaces: dict[str, str] = Field(
        default_factory=dict,
        description="Mention -> the words the text wrote for it where it is not verbatim: a "
        "sensor code's spoken name, an ISO day's natural phrasing (checked by "
        "seed_values_in_text against the class vocabulary and the seed's window)",
    )


class ScenarioProvenance(_Strict):
    """How a scenario was made."""

    generator_version: str = Field(description="scenariogen version")
    run_id: str = Field(description="Run folder name")
    verbaliser: str = Field(description="template or llm")
    model: str = Field(description="LLM spec, or 'none'")
    prompt_version: str = Field(description="Version of the verbalisation prompts or templates")
    batch: int = Field(description="Batch number within the domain")
    attempts: int = Field(description="Verbalisations tried before acceptance (1 = first)")
    family: str | None = Field(default=None, description="Task family, None for open scenarios")
    draw: int | None = Field(default=None, description="Draw index of the seed")
    outcome: str | None = Field(
        default=None, description="The family's label of the answer (fault, normal, alarm, ...)"
    )
    nontrivial: bool | None = Field(
        default=None, description="False for a trivial outcome; None when unlabelled"
    )
    readings: list[ReadingCheck] = Field(
        default_factory=list,
        description="Other readings of the request the generator checked and what each gave",
    )
    surfaces: dict[str, str] = Field(
        default_factory=dict,
        description="Mention -> the words the text wrote for it (Draft.surfaces), so the "
        "mention check can be repeated on the record",
    )
    difficulty_score: float | None = Field(
        default=None,
        description="The seed's difficulty score (the record's difficulty is its level)",
    )
    difficulty_features: dict[str, int] = Field(
        default_factory=dict, description="The counts the difficulty score is made of"
    )


class ScenarioRecord(_Strict):
    """An AssetOpsBench scenario (first six fields) with our extra fields."""

    id: str = Field(description="<asset_class>_scenario_NN, unique in the set")
    type: str = Field(description="Domain: iot, fmsr, tsfm, wo, vibration, multiagent")
    text: str = Field(description="The utterance")
    category: str = Field(description="AssetOpsBench category")
    characteristic_form: str = Field(description="What a correct response does and contains")
    deterministic: bool = Field(description="True when the task has a single correct answer")
    uuid: str = Field(description="Stable UUID5 of asset class, family, parameters and text")
    asset_class: str = Field(description="Asset class slug")
    difficulty: Difficulty = Field(description="easy, medium or hard")
    expected_tools: list[str] = Field(description="Tools a correct response uses")
    tool_sequence: list[ToolCall] = Field(description="Ideal tool calls with arguments")
    reference_answer: dict[str, Any] | None = Field(
        description="Answer computed by running tool_sequence (an open family's computed "
        "facts); None for open scenarios without a seed"
    )
    tolerance: dict[str, float] = Field(description="Absolute tolerance per numeric answer key")
    rel_tolerance: dict[str, float] = Field(
        default_factory=dict,
        description="Relative tolerance per numeric answer key: a number passes when "
        "|e - a| <= tolerance[key] or |e - a| <= rel_tolerance[key] * |e|",
    )
    family: str | None = Field(description="Task family; None for open scenarios")
    grounding: dict[str, str] = Field(description="Store entities the scenario names")
    negative: bool = Field(default=False, description="True for an unanswerable scenario")
    rubric: Rubric | None = Field(
        default=None,
        description="Open scenarios generated from a seed: required facts (backed by "
        "reference_answer, which then holds the computed facts) and forbidden claims",
    )
    answer_contract: AnswerContract | None = Field(
        default=None,
        description="How an answer is graded: each reference key's kind, unit, phrasings "
        "and whether this text asks for it (generator/contract.py); None for records whose "
        "family declares none (negatives, clarifications, open scenarios without a seed)",
    )
    provenance: ScenarioProvenance = Field(description="How it was made")
    kind: Literal["operate"] | None = Field(
        default=None,
        description="'operate' when the agent acts (a plan over an action space, graded by "
        "simulation, generator/operate/model.py); None for facts and open tasks",
    )
    operate: OperateTask | None = Field(
        default=None,
        description="An operate task's situation, action space, budget, constraints and "
        "oracle (kind 'operate' only)",
    )

    @model_validator(mode="after")
    def _operate_kind(self) -> ScenarioRecord:
        if (self.kind == "operate") != (self.operate is not None):
            raise ValueError("kind 'operate' and the `operate` task go together")
        return self


class Rejection(_Strict):
    """A line of rejected.jsonl: what failed, where, why, with the raw text."""

    domain: str = Field(description="Domain of the candidate")
    seed_key: str | None = Field(description="TaskSeed.key, if a seed existed")
    stage: Literal["draw", "verbalise", "early", "check", "repair", "compose", "negative"] = Field(
        description="Stage that rejected it"
    )
    reasons: list[str] = Field(min_length=1, description="Check name: reason, one per failure")
    raw: str = Field(description="Raw LLM reply or draft text")
    attempt: int = Field(description="Attempt number (1-based)")
