"""Records of `scenariogen score`: the set score (static 20 + judge 30 + dry run 50).

The point weights are the paper's; how each is computed is documented beside its
computation (:mod:`eval.score_static`, :mod:`eval.judge`, :mod:`eval.score_dryrun`).
Everything here is plain data, so a score written on one machine can be reported on
another (Markdown, HTML, W&B).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from generator.generate.verbalise.language_stats import LanguageStats

# The paper's weights. Static 20, judge 30, dry run 50.
STATIC_WEIGHTS: dict[str, float] = {
    "checks": 6.0,
    "schema": 4.0,
    "type_diversity": 3.0,
    "category_alignment": 3.0,
    "text_length": 2.0,
    "unique_id": 1.0,
    "unique_text": 1.0,
}
JUDGE_WEIGHTS: dict[str, float] = {
    "answerability": 10.0,
    "tool_usability": 8.0,
    "difficulty": 6.0,
    "characteristic_form": 4.0,
    "clarity": 2.0,
}
DRYRUN_WEIGHTS: dict[str, float] = {
    "plausible": 20.0,
    "correct_tools": 15.0,
    "no_errors": 15.0,
}
PART_MAX: dict[str, float] = {"static": 20.0, "judge": 30.0, "dry_run": 50.0}
HIGH_QUALITY = 70.0  # the paper's threshold, on the 100-point scale

PartName = Literal["static", "judge", "dry_run"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Component(_Strict):
    """One weighted component of a part (e.g. static/schema, 6 points)."""

    name: str = Field(description="Component name, e.g. 'schema' or 'answerability'")
    max_points: float = Field(description="The paper's weight")
    points: float | None = Field(description="Points earned (None: not scored)")
    share: float | None = Field(
        description="Fraction of the weight earned, in [0, 1] (None: not scored)"
    )
    reason: str = Field(description="One line: how the points came about, or why none")


class Part(_Strict):
    """Static, judge or dry run: its components and its total."""

    name: PartName = Field(description="static, judge or dry_run")
    max_points: float = Field(description="20, 30 or 50")
    ran: bool = Field(description="False when the part was not run (its points are omitted)")
    points: float | None = Field(description="Sum of the components (None when not run)")
    components: list[Component] = Field(description="In the paper's order")
    note: str = Field(default="", description="Why the part did not run, or caveats")


class DimensionVerdict(_Strict):
    """One judge's rating of one dimension of one scenario."""

    rating: int = Field(ge=1, le=5, description="1 (fails) .. 5 (fully meets the rubric)")
    reason: str = Field(description="Why, one line")


class JudgeVerdict(_Strict):
    """One judge's verdict on one scenario (or why it has none)."""

    judge: str = Field(description="'rules' or the llm:SPEC label")
    id: str = Field(description="Scenario id")
    scored: bool = Field(description="False when the verdict could not be obtained or parsed")
    dimensions: dict[str, DimensionVerdict] = Field(
        default_factory=dict, description="Dimension name → rating and reason (when scored)"
    )
    unscored_reason: str | None = Field(
        default=None, description="Why there is no verdict (unparseable reply, timeout, ...)"
    )


class Agreement(_Strict):
    """Agreement of several judges on the binned per-dimension ratings."""

    judges: list[str] = Field(description="Judge labels, in the order given")
    statistic: Literal["cohen", "fleiss"] = Field(description="Cohen (2 judges) or Fleiss (≥3)")
    levels: list[str] = Field(description="The bins ratings are mapped to before counting")
    items: int = Field(description="(scenario, dimension) pairs every judge scored")
    kappa: float | None = Field(description="Overall kappa (None when undefined)")
    per_dimension: dict[str, float | None] = Field(description="Kappa per dimension")
    observed_agreement: float | None = Field(
        description="Share of items on which all judges chose the same level"
    )
    note: str = Field(default="", description="Why a kappa is undefined, if it is")


class ScenarioScore(_Strict):
    """Per-scenario points (the set score is the mean over scenarios, per part)."""

    id: str = Field(description="Scenario id (as a string)")
    domain: str = Field(description="Normalised domain, or 'unknown'")
    difficulty: str = Field(description="easy, medium, hard or 'unknown'")
    static: float = Field(description="Static points (of 20)")
    judge: float | None = Field(description="Judge points (of 30); None when unscored")
    dry_run: float | None = Field(description="Dry-run points (of 50); None when not run")
    total_100: float | None = Field(
        description="Points over the parts that ran, rescaled to 100 (None: nothing scored)"
    )
    judge_ratings: dict[str, float] = Field(
        default_factory=dict, description="Median rating per dimension over the judges"
    )
    problems: list[str] = Field(default_factory=list, description="What cost points, one line each")


class StageCost(_Strict):
    """Tokens, time and cost of one stage (generation, judging, dry run)."""

    stage: str = Field(description="e.g. 'generate:verbalise', 'judge:llm:…', 'dry_run'")
    tokens: int = Field(description="Tokens (prompt + completion)")
    seconds: float | None = Field(description="Wall time, when known")
    cost_usd: float | None = Field(description="tokens × --usd-per-1k-tokens / 1000, if given")


class SetScore(_Strict):
    """`scenariogen score --json`: the set's score, its parts and the reasons."""

    path: str = Field(description="The scored file")
    records: int = Field(description="Records read")
    has_references: int = Field(description="Records with a computed reference answer")
    generator_model: str | None = Field(description="provenance.model / manifest llm, if known")
    judges: list[str] = Field(description="Judge labels")
    dry_run_agent: str | None = Field(description="The dry run's agent, or None when not run")
    parts: list[Part] = Field(description="static, judge, dry_run")
    points: float = Field(description="Points earned over the parts that ran")
    max_points: float = Field(description="Maximum over the parts that ran (100 when all ran)")
    score_100: float = Field(
        description="points / max_points × 100: the parts not run are left out, not zeroed"
    )
    high_quality: bool = Field(description="score_100 > 70 (the paper's threshold)")
    by_domain: dict[str, float] = Field(description="Mean per-scenario total_100 per domain")
    by_difficulty: dict[str, float] = Field(description="Mean total_100 per difficulty")
    failure_classes: dict[str, int] = Field(description="From the dry run (empty when not run)")
    agreement: Agreement | None = Field(description="Judge agreement (None for one judge)")
    unscored: list[JudgeVerdict] = Field(description="Verdicts that could not be obtained")
    verdicts: list[JudgeVerdict] = Field(description="Every judge's verdict on every scenario")
    scenarios: list[ScenarioScore] = Field(description="Per scenario, in file order")
    stages: list[StageCost] = Field(description="Tokens, time and cost per stage")
    notes: list[str] = Field(default_factory=list, description="What a reader must know")
    language: LanguageStats | None = Field(
        default=None,
        description="Language figures of the texts "
        "(generator/generate/verbalise/language_stats.py): masked distinct 3-gram ratio, top "
        "opener and closer share, words per text; reported, not scored",
    )

    def part(self, name: PartName) -> Part:
        """The part called ``name``."""
        return next(p for p in self.parts if p.name == name)
