"""Successful LLM answers are cached under the profile; failures never are."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from generator.cache import TwoLevelCache
from generator.config import StoreSettings
from generator.llm.client import LLMClient
from generator.llm.fake import ScriptedChatModel
from generator.profile.build import CachingLLM, build_profile


class Echo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str


async def test_ok_answers_are_reused_and_bad_ones_asked_again(tmp_path: Path) -> None:
    model = ScriptedChatModel(['{"text": "a"}', "not json", "still not json", '{"text": "c"}'])
    cache = TwoLevelCache("llm", directory=tmp_path)
    llm = CachingLLM(LLMClient.from_model(model, label="fake:t"), cache)
    first = await llm.ask_json("s", "system", "u1", Echo)
    again = await llm.ask_json("s", "system", "u1", Echo)
    assert first.ok and again.ok and again.value == first.value == Echo(text="a")
    assert len(model.prompts) == 1 and llm.hits == 1
    bad = await llm.ask_json("s", "system", "u2", Echo)
    retried = await llm.ask_json("s", "system", "u2", Echo)
    assert not bad.ok and not retried.ok and len(model.prompts) == 3
    # Another model (label) never reads this one's answers.
    other = CachingLLM(LLMClient.from_model(model, label="fake:other"), cache)
    assert (await other.ask_json("s", "system", "u1", Echo)).value == Echo(text="c")
    assert len(model.prompts) == 4
    assert llm.usage["s"]["calls"] >= 1


async def test_a_rebuilt_profile_reasks_only_what_was_not_answered(
    seeded_settings: StoreSettings, cache_env: Path
) -> None:
    reply = json.dumps(
        {"items": [{"category": "standards", "statement": "IEC 60599 classifies DGA faults.",
                    "ref_id": "local:iec60599_2015"}]}
    )
    first = ScriptedChatModel([reply] * 50)
    p1 = await build_profile(
        "transformer", settings=seeded_settings,
        llm=LLMClient.from_model(first, label="fake:script"),
    )
    second = ScriptedChatModel([reply] * 50)
    p2 = await build_profile(
        "transformer", settings=seeded_settings, refresh=True,
        llm=LLMClient.from_model(second, label="fake:script"),
    )
    assert p2.provenance.created_at != p1.provenance.created_at
    assert 0 < len(second.prompts) < len(first.prompts)
    assert p2.evidence == p1.evidence
