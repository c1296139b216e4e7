"""An LLM judge through langchain (``--judge llm:SPEC``), with a versioned rubric prompt.

The reply must be JSON matching :class:`JudgeReply` (the client appends the schema to the
system prompt, or uses the backend's structured output). A reply that is not JSON or
misses a field is an *unscored* verdict carrying the client's error and the start of the
raw reply; it is never turned into a zero.

The prompt carries the scenario's fields, the tools it needs with whether each exists in
the live registry, and its tool calls; it never carries the reference answer's values
(only whether one exists and its keys), so a held-out answer does not leave the machine.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from eval.judge import DIMENSIONS, RUBRIC, RUBRIC_VERSION
from eval.score_model import DimensionVerdict, JudgeVerdict

if TYPE_CHECKING:
    from generator.llm.client import LLMClient

STAGE = "judge"


class _Rated(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rating: int = Field(ge=1, le=5, description="1 = fails the rubric, 5 = fully meets it")
    reason: str = Field(max_length=300, description="Why, in one sentence")


class JudgeReply(BaseModel):
    """What the LLM judge must return: a rating and a reason per dimension."""

    model_config = ConfigDict(extra="forbid")

    answerability: _Rated = Field(description=RUBRIC["answerability"])
    tool_usability: _Rated = Field(description=RUBRIC["tool_usability"])
    difficulty: _Rated = Field(description=RUBRIC["difficulty"])
    characteristic_form: _Rated = Field(description=RUBRIC["characteristic_form"])
    clarity: _Rated = Field(description=RUBRIC["clarity"])


SYSTEM = (
    f"You judge evaluation scenarios for AI agents that operate industrial assets "
    f"(rubric {RUBRIC_VERSION}). Rate each dimension from 1 (fails) to 5 (fully meets it) "
    "and give a one-sentence reason. Dimensions:\n"
    + "\n".join(f"- {d}: {RUBRIC[d]}" for d in DIMENSIONS)
    + "\nJudge only what is shown; the tool list is the live registry."
)


def render_prompt(rec: dict[str, Any], tool_domains: dict[str, str],
                  needed: Sequence[str]) -> str:
    """The user prompt for one scenario (no reference-answer values)."""
    reference = rec.get("reference_answer")
    shown = {
        "id": rec.get("id"),
        "type": rec.get("type"),
        "category": rec.get("category"),
        "difficulty": rec.get("difficulty", "not stated"),
        "deterministic": rec.get("deterministic"),
        "negative": rec.get("negative", False),
        "text": rec.get("text"),
        "characteristic_form": rec.get("characteristic_form"),
        "tools_needed": [
            {"name": t, "exists": t in tool_domains, "domain": tool_domains.get(t)}
            for t in needed
        ],
        "tool_sequence": rec.get("tool_sequence"),
        "reference_answer": (
            f"computed; keys {sorted(reference)}" if isinstance(reference, dict) else "none"
        ),
    }
    tools = ", ".join(f"{n} ({d})" for n, d in sorted(tool_domains.items()))
    return (
        f"Live tools: {tools}\n\nScenario:\n"
        + json.dumps(shown, indent=1, ensure_ascii=False, default=str)
    )


def judge_client(spec: str, client: LLMClient | None, base_url: str | None) -> LLMClient:
    """The chat client a judge spec names (or the one given).

    Raises:
        UserError: ``llm:none``, which is no judge; or an invalid spec.
    """
    from generator.llm.client import LLMClient
    from generator.llm.spec import parse_llm

    if client is not None:
        return client
    parsed = parse_llm(spec, base_url=base_url)
    if parsed.backend == "none":
        from generator.errors import UserError

        raise UserError("--judge llm:none is not a judge", fix="use --judge rules, or llm:MODEL")
    return LLMClient(parsed)


class LLMJudge:
    """Judges with one chat model; several run concurrently through the shared client."""

    def __init__(self, spec: str, *, client: LLMClient | None = None,
                 base_url: str | None = None) -> None:
        client = judge_client(spec, client, base_url)
        self.client = client
        self.label = client.label
        from eval.judge_rules import RuleJudge

        self._rules = RuleJudge()

    @property
    def usage(self) -> dict[str, dict[str, int]]:
        """Token accounting of the judge's calls (the client's per-stage usage)."""
        return self.client.usage

    async def judge(self, records: Sequence[dict[str, Any]]) -> list[JudgeVerdict]:
        """One verdict per record; an unusable reply is unscored with its reason."""
        domains = self._rules.tool_domains
        prompts = [render_prompt(r, domains, self._rules.needed_tools(r)) for r in records]
        results = await self.client.ask_json_many(STAGE, SYSTEM, prompts, JudgeReply)
        out = []
        for rec, res in zip(records, results, strict=True):
            rid = str(rec.get("id", ""))
            if not res.ok or res.value is None:
                raw = (res.raw or "").replace("\n", " ")
                out.append(JudgeVerdict(
                    judge=self.label, id=rid, scored=False,
                    unscored_reason=f"{res.error or 'no reply'}"
                    + (f" (reply began: {raw[:80]!r})" if raw else ""),
                ))
                continue
            reply = res.value
            dims = {
                d: DimensionVerdict(rating=getattr(reply, d).rating,
                                    reason=getattr(reply, d).reason)
                for d in DIMENSIONS
            }
            out.append(JudgeVerdict(judge=self.label, id=rid, scored=True, dimensions=dims))
        return out
