"""The real offline LLM: SmolLM2-135M-Instruct through llama.cpp (the ``smollm2`` extra).

Quality is not judged (a 135M model); the test checks the whole path works: the backend
is built from ``parse_llm("smollm2")``, the grammar-constrained structured output yields
schema-valid JSON, tokens are counted, and calls run in the thread pool under the model
lock. Without the extra the test is skipped, unless ``SCENARIOGEN_REQUIRE_SMOLLM2=1``
(set in CI), where a missing extra is a failure.
"""

from __future__ import annotations

import time
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from generator.llm.client import LLMClient
from generator.llm.spec import parse_llm

pytestmark = pytest.mark.smollm2

class Question(BaseModel):
    text: str = Field(max_length=200, description="A question an operator asks")
    category: Literal["dga", "thermal", "load"] = Field(description="Its topic")


SYSTEM = "You write short questions that power transformer operators ask an assistant."


async def test_structured_json_from_the_real_model(smollm2_ready: None) -> None:
    client = LLMClient(parse_llm("smollm2", max_tokens=200))
    assert client.label == "smollm2"
    prompts = [
        "Write one question about dissolved gas analysis of the oil.",
        "Write one question about the winding hot-spot temperature.",
        "Write one question about overloading the unit during a heat wave.",
    ]
    seconds = []
    for prompt in prompts:
        started = time.perf_counter()
        result = await client.ask_json("smoke", SYSTEM, prompt, Question)
        seconds.append(time.perf_counter() - started)
        assert result.ok, f"{result.error}; raw: {result.raw!r}"
        assert result.value is not None and len(result.value.text) <= 200
    counts = client.usage["smoke"]
    assert counts["calls"] == 3 and counts["failures"] == 0
    assert counts["output_tokens"] > 0 and counts["estimated"] == 0
    print(f"\nsmollm2 seconds per call: {', '.join(f'{s:.2f}' for s in seconds)}")


async def test_concurrent_calls_share_one_locked_model(smollm2_ready: None) -> None:
    client = LLMClient(parse_llm("smollm2", max_tokens=120))
    again = LLMClient(parse_llm("smollm2", max_tokens=120))
    assert again.model is client.model  # one loaded model per process and settings
    results = await client.ask_json_many(
        "smoke", SYSTEM, ["Ask about DGA.", "Ask about oil temperature."], Question
    )
    assert all(r.ok for r in results), [r.error for r in results]
    text = await again.ask_text("smoke", SYSTEM, "Ask one question about transformer load.")
    assert text.ok and text.value
