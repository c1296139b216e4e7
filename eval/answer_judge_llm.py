"""An LLM that grades answers to open scenarios against their rubric (``--judge llm:SPEC``).

The rule grader (:func:`eval.grade_rubric.grade_rubric`) reads each required fact and each
forbidden claim with :mod:`eval.reader`. An LLM judge does the same reading in its own way:
it is shown the request, every required fact (the value a good answer states and why),
every forbidden claim (what it is and why it is wrong) and the answer, and it says for each
fact whether the answer states it and for each claim whether the answer makes it. The
verdict is scored with the rubric's own rule (all required stated and no forbidden claim
made = pass; score = stated / required − penalty × claims made), so the two graders differ
only in how they read.

A reply that is not JSON, or names facts the rubric does not have, is *unscored* with the
reason, never a zero.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from generator.generate.model import Rubric

if TYPE_CHECKING:
    from generator.llm.client import LLMClient

STAGE = "answer_judge"
PROMPT_VERSION = "answer-judge-1"


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="The fact's or claim's id, as given")
    yes: bool = Field(description="Required fact: the answer states it; claim: it makes it")
    why: str = Field(default="", max_length=300, description="One short sentence")


class AnswerReply(BaseModel):
    """What the judge returns for one answer."""

    model_config = ConfigDict(extra="forbid")

    required: list[_Item] = Field(description="One item per required fact")
    forbidden: list[_Item] = Field(default_factory=list,
                                   description="One item per forbidden claim")


SYSTEM = (
    f"You grade an engineer's answer to an operations request ({PROMPT_VERSION}). You are "
    "given the request, the facts a good answer must state (with the value and why) and the "
    "claims it must not make. For each required fact say whether the answer states it "
    "(any wording, units or rounding an engineer would accept; a fact stated only as "
    "negated, or hedged between two values, is not stated). For each forbidden claim say "
    "whether the answer makes it (a claim the answer explicitly rejects is not made). "
    "Reply with JSON only."
)


def render_prompt(record: dict[str, Any], rubric: Rubric, answer: str) -> str:
    """The user prompt for one answer."""
    shown = {
        "request": record.get("text"),
        "required_facts": [{"id": f.id, "value": f.expected, "synonyms": f.synonyms,
                            "why": f.why} for f in rubric.required],
        "forbidden_claims": [{"id": c.id, "what": c.why} for c in rubric.forbidden],
        "answer": answer[:20_000],
    }
    return json.dumps(shown, indent=1, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class AnswerVerdict:
    """One judged answer: pass/fail and score by the rubric's rule, or unscored."""

    scored: bool
    feasible: bool = False
    score: float = 0.0
    reason: str = ""


def verdict_of(rubric: Rubric, reply: AnswerReply) -> AnswerVerdict:
    """Score a reply by the rubric's rule; unscored when it does not cover the rubric."""
    stated = {i.id: i.yes for i in reply.required}
    made = {i.id: i.yes for i in reply.forbidden}
    missing = [f.id for f in rubric.required if f.id not in stated]
    if missing:
        return AnswerVerdict(scored=False, reason=f"reply omits required facts {missing}")
    found = sum(stated[f.id] for f in rubric.required)
    claims = sum(made.get(c.id, False) for c in rubric.forbidden)
    feasible = found == len(rubric.required) and claims == 0
    score = 1.0 if feasible else max(0.0, min(1.0, found / len(rubric.required)
                                             - rubric.forbidden_penalty * claims))
    return AnswerVerdict(scored=True, feasible=feasible, score=round(score, 6))


class LLMAnswerJudge:
    """Grades open answers with one chat model (concurrently through the shared client)."""

    def __init__(self, spec: str, *, client: LLMClient | None = None,
                 base_url: str | None = None) -> None:
        from eval.judge_llm import judge_client

        client = judge_client(spec, client, base_url)
        self.client = client
        self.label = client.label

    async def grade(self, items: Sequence[tuple[dict[str, Any], Rubric, str]],
                    ) -> list[AnswerVerdict]:
        """One verdict per (record, rubric, answer text), in input order."""
        prompts = [render_prompt(rec, rubric, answer) for rec, rubric, answer in items]
        results = await self.client.ask_json_many(STAGE, SYSTEM, prompts, AnswerReply)
        out = []
        for (_rec, rubric, _answer), res in zip(items, results, strict=True):
            if not res.ok or res.value is None:
                raw = (res.raw or "").replace("\n", " ")[:80]
                out.append(AnswerVerdict(scored=False, reason=f"{res.error or 'no reply'}"
                                         + (f" (reply began: {raw!r})" if raw else "")))
                continue
            out.append(verdict_of(rubric, res.value))
        return out
