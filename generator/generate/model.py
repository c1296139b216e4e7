"""Contracts of the generation stages: task seeds, drafts, scenario records, rejections.

A :class:`TaskSeed` is a task family's draw: parameters over the grounded inventory, the
tool calls that answer it and the answer those calls computed. A verbaliser turns a seed
into a :class:`Draft` (the words); checks and repair turn seed + draft into a
:class:`ScenarioRecord`, the AssetOpsBench record plus our extra fields.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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
        description="Score of the work the task takes (generator/generate/difficulty.py); "
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
        description="Answer computed by running tool_sequence; None for open scenarios"
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
    provenance: ScenarioProvenance = Field(description="How it was made")


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
