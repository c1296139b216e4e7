"""The LLM verbaliser: up to B seeds per call, repair with reasons, open scenarios.

The model only words a seed: entities, values, the answer and the tools come from the
seed, which code computed. A reply that is not JSON, misses a seed or a field, is data:
it comes back as a :class:`VerbaliseFailure` with the raw text, never an exception.
"""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, create_model

from generator.generate.model import Draft, TaskSeed
from generator.generate.verbalise.surface_forms import spoken_sensor
from generator.llm.timing import join
from generator.vocabulary import Vocabulary, load_vocabulary

if TYPE_CHECKING:
    from generator.llm.client import LLMClient
    from generator.profile.model import AssetProfile

PROMPT_VERSION = "verbalise-v1"

# The rules every asset class shares; the persona comes from the class's vocabulary.
SYSTEM_RULES = (
    "You are given structured tasks; for each, write the request (field "
    "'text') and a rubric (field 'characteristic_form') saying what a correct response does "
    "and contains. Rules: keep every listed mention verbatim in the text; state the "
    "constraint when one is given; never write a tool name in the text; name the listed "
    "tools in the rubric together with the key values of the answer. Reply with JSON only."
)


def system_prompt(vocabulary: Vocabulary) -> str:
    """The verbaliser's system prompt: who writes the requests (the class's persona), then
    the shared rules."""
    return f"You write requests that {vocabulary.persona} send to an AI assistant. " + SYSTEM_RULES


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore")

    seed_key: str = Field(max_length=80, description="The task's key, copied")
    text: str = Field(min_length=1, max_length=700, description="The request")
    characteristic_form: str = Field(
        min_length=1, max_length=900, description="What a correct response does and contains"
    )


class _Batch(BaseModel):
    model_config = ConfigDict(extra="ignore")

    items: list[_Item] = Field(description="One item per task, same keys")


@lru_cache(maxsize=64)
def _batch_of(k: int) -> type[_Batch]:
    """The batch schema for exactly ``k`` items (a grammar-constrained model then cannot
    answer with an empty list)."""
    return create_model(
        f"Batch{k}",
        __base__=_Batch,
        items=(list[_Item], Field(min_length=k, max_length=k, description="One per task")),
    )


class _Open(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1, max_length=700, description="The request")
    characteristic_form: str = Field(min_length=1, max_length=900, description="The rubric")
    category: str = Field(max_length=40, description="AssetOpsBench category")


class _OpenBatch(BaseModel):
    model_config = ConfigDict(extra="ignore")

    items: list[_Open] = Field(description="The open scenarios")


class VerbaliseFailure(BaseModel):
    """A seed the model did not word usably."""

    model_config = ConfigDict(extra="forbid")

    seed_key: str = Field(description="TaskSeed.key")
    raw: str = Field(description="The raw reply")
    reason: str = Field(description="What was wrong")


_OpenReply = list[Draft] | VerbaliseFailure


def _worded(mention: str, asset_class: str) -> str:
    """The words a mention is listed with: a sensor code as its spoken name (the
    ``parameter_leak`` check rejects a raw code the vocabulary names), else verbatim."""
    return spoken_sensor(asset_class, mention) or mention


def _task_block(seed: TaskSeed, tools: list[str], asset_class: str) -> dict[str, object]:
    return {
        "seed_key": seed.key,
        "role": seed.role,
        "category": seed.category,
        "task": seed.family.replace("_", " "),
        "mentions": [_worded(m, asset_class) for m in seed.mentions],
        "constraint": seed.constraint,
        "answer": seed.answer_summary,
        "tools_for_rubric": tools,
    }


class LLMVerbaliser:
    """Words seeds in batches through an :class:`LLMClient`."""

    name = "llm"

    def __init__(
        self, client: LLMClient, asset_class: str, *, prompt_version: str = PROMPT_VERSION
    ) -> None:
        self.client = client
        self.prompt_version = prompt_version
        self.asset_class = asset_class
        self.system = system_prompt(load_vocabulary(asset_class))
        # Open-scenario calls started ahead of their domain (prefetch_open), by request.
        self._early: dict[tuple[str, int, tuple[str, ...]], asyncio.Task[_OpenReply]] = {}

    async def verbalise(
        self, seeds: list[TaskSeed], core_tools: dict[str, list[str]]
    ) -> list[Draft | VerbaliseFailure]:
        """One call for the whole batch; results in input order."""
        tasks = [_task_block(s, _rubric_tools(s, core_tools), self.asset_class) for s in seeds]
        user = (
            "Tasks (JSON):\n" + json.dumps(tasks, indent=1) + "\n\nReply as "
            '{"items": [{"seed_key": ..., "text": ..., "characteristic_form": ...}, ...]} '
            "with one item per task."
        )
        result = await self.client.ask_json("verbalise", self.system, user, _batch_of(len(seeds)))
        if not result.ok or result.value is None:
            reason = result.error or "no reply"
            return [VerbaliseFailure(seed_key=s.key, raw=result.raw, reason=reason) for s in seeds]
        by_key = {item.seed_key: item for item in result.value.items}
        out: list[Draft | VerbaliseFailure] = []
        for seed in seeds:
            item = by_key.get(seed.key)
            if item is None:
                out.append(
                    VerbaliseFailure(
                        seed_key=seed.key, raw=result.raw, reason="reply has no item for this task"
                    )
                )
                continue
            out.append(self._draft(seed, item))
        return out

    async def repair(
        self, seed: TaskSeed, draft: Draft | None, reasons: list[str], core_tools: list[str]
    ) -> Draft | VerbaliseFailure:
        """Ask again for one seed, quoting the previous attempt and what failed."""
        previous = (
            {"text": draft.text, "characteristic_form": draft.characteristic_form}
            if draft
            else None
        )
        user = (
            "Task (JSON):\n"
            + json.dumps(
                _task_block(seed, _rubric_tools(seed, {seed.domain: core_tools}), self.asset_class)
            )
            + "\n\nPrevious attempt (JSON):\n"
            + json.dumps(previous)
            + "\n\nIt failed these checks:\n- "
            + "\n- ".join(reasons)
            + '\n\nReply as {"seed_key": ..., "text": ..., "characteristic_form": ...}.'
        )
        result = await self.client.ask_json("repair", self.system, user, _Item)
        if not result.ok or result.value is None:
            return VerbaliseFailure(seed_key=seed.key, raw=result.raw, reason=result.error or "")
        return self._draft(seed, result.value)

    def prefetch_open(
        self, profile: AssetProfile, domain: str, k: int, tools: list[str]
    ) -> None:
        """Start :meth:`open_scenarios` now (it needs only the profile and the budget);
        the later call with the same ``domain``, ``k`` and ``tools`` takes its reply."""
        key = (domain, k, tuple(tools))
        if key not in self._early:
            self._early[key] = asyncio.create_task(self._open_call(profile, domain, k, tools))

    def cancel_prefetched(self) -> int:
        """Cancel the prefetched calls no domain took (e.g. the run stopped); how many."""
        left = [t for t in self._early.values() if not t.done()]
        for task in left:
            task.cancel()
        self._early.clear()
        return len(left)

    async def open_scenarios(
        self, profile: AssetProfile, domain: str, k: int, tools: list[str]
    ) -> list[Draft] | VerbaliseFailure:
        """Ask for ``k`` open (non-deterministic) scenarios of ``domain`` (the reply of a
        :meth:`prefetch_open` call with the same request, when one was made)."""
        early = self._early.pop((domain, k, tuple(tools)), None)
        if early is not None:
            drafts = await early
            join([early])
            return drafts
        return await self._open_call(profile, domain, k, tools)

    async def _open_call(
        self, profile: AssetProfile, domain: str, k: int, tools: list[str]
    ) -> list[Draft] | VerbaliseFailure:
        facts = {
            "asset_class": profile.display_name,
            "sites": profile.inventory.sites,
            "assets": [a.asset_id for a in profile.inventory.assets][:12],
            "failure_modes": [f.name for f in profile.failure_modes],
            "standards": [f"{s.id} ({s.edition})" for s in profile.standards],
            "tools_for_rubric": tools,
        }
        user = (
            f"Write {k} open {domain} requests (knowledge or decision support, no single "
            "correct answer) grounded in these facts (JSON):\n"
            + json.dumps(facts)
            + '\n\nReply as {"items": [{"text": ..., "characteristic_form": ..., '
            '"category": "Knowledge Query" or "Decision Support"}]}.'
        )
        result = await self.client.ask_json("open", self.system, user, _OpenBatch)
        if not result.ok or result.value is None:
            return VerbaliseFailure(
                seed_key=f"open:{domain}", raw=result.raw, reason=result.error or ""
            )
        return [
            Draft(
                seed_key=f"open:{domain}#{i}",
                text=item.text.strip(),
                characteristic_form=item.characteristic_form.strip(),
                category=item.category.strip(),
                verbaliser=self.name,
            )
            for i, item in enumerate(result.value.items[:k])
        ]

    def _draft(self, seed: TaskSeed, item: _Item) -> Draft:
        text = item.text.strip()
        return Draft(
            seed_key=seed.key,
            text=text,
            characteristic_form=item.characteristic_form.strip(),
            category=seed.category,
            verbaliser=self.name,
            surfaces=self._surfaces(seed, text),
        )

    def _surfaces(self, seed: TaskSeed, text: str) -> dict[str, str]:
        """The spoken sensor names the text wrote for listed codes (``Draft.surfaces``)."""
        out: dict[str, str] = {}
        for mention in seed.mentions:
            spoken = spoken_sensor(self.asset_class, mention)
            if spoken is None or mention in text:
                continue
            for surface in (spoken, spoken[:1].upper() + spoken[1:]):
                if surface in text:
                    out[mention] = surface
                    break
        return out


def _rubric_tools(seed: TaskSeed, core_tools: dict[str, list[str]]) -> list[str]:
    return seed.expected_tools or core_tools.get(seed.domain, [])
