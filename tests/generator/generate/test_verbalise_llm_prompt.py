"""The LLM verbaliser's system prompt comes from the class's vocabulary."""

from __future__ import annotations

from typing import Any, cast

from generator.generate.verbalise.verbalise_llm import (
    LLMVerbaliser,
    VerbaliseFailure,
    system_prompt,
)
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


async def test_sensor_codes_are_listed_by_their_spoken_names_and_recorded() -> None:
    # transformer/vocabulary.yaml: wti -> "winding temperature". The parameter_leak check
    # rejects a raw code the vocabulary names, so the prompt lists the spoken name (the
    # rule is "keep every listed mention verbatim") and the draft records it as the
    # surface of the mention 'wti', which seed_values_in_text then accepts.
    from generator.generate.checks.checks import CheckItem
    from generator.generate.model import TaskSeed, ToolCall
    from generator.generate.verbalise.surface_forms import missing_mentions
    from generator.llm.client import LLMClient
    from generator.llm.fake import ScriptedChatModel

    seed = TaskSeed(
        family="iot_extreme", domain="iot", category="Inference Query", role="operator",
        draw=3, params={"sensor": "wti"},
        grounding={"site": "NORTH", "asset_id": "NORTH-TX01", "sensor": "wti"},
        mentions=["NORTH-TX01", "wti"],
        tool_sequence=[ToolCall(name="history", args={"asset_id": "NORTH-TX01"})],
        answer={"max": 81.2}, answer_summary="max 81.2 degC", difficulty="easy",
    )
    text = "What was the highest Winding temperature of NORTH-TX01 this week?"
    reply = (
        '{"items": [{"seed_key": "' + seed.key + '", "text": "' + text + '", '
        '"characteristic_form": "Uses `history`; reports 81.2 degC."}]}'
    )
    model = ScriptedChatModel([reply])
    words = LLMVerbaliser(LLMClient.from_model(model), "transformer")
    [draft] = await words.verbalise([seed], {"iot": ["history"]})
    assert '"winding temperature"' in model.prompts[0]
    assert '"wti"' not in model.prompts[0]
    assert not isinstance(draft, VerbaliseFailure)
    assert draft.surfaces == {"wti": "Winding temperature"}  # capitalised where it stands
    assert missing_mentions(draft.text, seed, draft.surfaces, "transformer") == []
    assert CheckItem.from_draft(draft, seed, "iot", "transformer").surfaces == draft.surfaces
