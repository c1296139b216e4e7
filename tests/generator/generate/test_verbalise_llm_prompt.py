"""The LLM verbaliser's system prompt comes from the class's vocabulary."""

from __future__ import annotations

from typing import Any, cast

from generator.generate.verbalise_llm import LLMVerbaliser, system_prompt
from generator.vocabulary import Vocabulary


def test_transformer_prompt_is_the_recorded_one() -> None:
    # Written out by hand: the prompt before the vocabulary existed, so that recorded and
    # cached LLM replies keyed by it stay valid.
    expected = (
        "You write requests that operators and maintenance managers of power transformers "
        "send to an AI assistant. You are given structured tasks; for each, write the "
        "request (field 'text') and a rubric (field 'characteristic_form') saying what a "
        "correct response does and contains. Rules: keep every listed mention verbatim in "
        "the text; state the constraint when one is given; never write a tool name in the "
        "text; name the listed tools in the rubric together with the key values of the "
        "answer. Reply with JSON only."
    )
    assert LLMVerbaliser(cast(Any, None), "transformer").system == expected


def test_another_class_speaks_its_own_persona() -> None:
    pump = Vocabulary(
        asset_class="pump", noun="pump", plural="pumps", domain_phrase="centrifugal pumps",
        fleet_phrase="a fleet of pumps", persona="operators of centrifugal pumps",
        agent_persona="You assist the operators of a fleet of pumps.",
        task_themes=[{"role": "operator", "theme": "Read flows", "needs": ["iot"]}],  # type: ignore[list-item]
    )
    prompt = system_prompt(pump)
    assert prompt.startswith("You write requests that operators of centrifugal pumps send")
    assert "transformer" not in prompt.lower()
