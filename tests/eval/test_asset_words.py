"""Prompts and answer patterns take the class's words from its vocabulary, not from code."""

from __future__ import annotations

import pytest

import eval.asset_words as words
from eval.dryrun import _clarify_re
from eval.dryrun_llm import INSTRUCTIONS, system_prompt
from eval.grade import refuses
from generator.assetdef import default_asset_class, load_asset_class
from generator.errors import UserError


def test_the_refusal_and_clarification_patterns_name_the_class_noun() -> None:
    noun = words.class_vocabulary("transformer").noun
    assert refuses(f"Unknown {noun} EAST-TX99: no such unit in the fleet.")
    assert refuses("unknown asset EAST-TX99")
    # "unknown" before any other word is not a refusal
    assert not refuses("The fault has an unknown cause; the hot spot peaked at 98.2 °C.")
    assert _clarify_re().search(f"Which {noun} do you mean?")
    assert not _clarify_re().search("Which pressure do you mean?")


def test_the_dry_run_prompt_is_the_class_persona_then_the_shared_instructions() -> None:
    prompt = system_prompt({"asset_class": "transformer", "text": "q"})
    assert prompt == f"{words.agent_persona('transformer')} {INSTRUCTIONS}"
    assert words.class_vocabulary("transformer").plural in prompt


def test_the_inspect_prompt_lists_the_class_standards() -> None:
    from generator.export.inspect_runtime import system_prompt as inspect_prompt

    prompt = inspect_prompt("transformer")
    assert prompt.startswith(words.agent_persona("transformer"))
    for standard in load_asset_class("transformer").standards:
        assert standard.id in prompt


def test_a_scenario_without_a_class_is_about_the_default_class(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    assert words.scenario_class({"asset_class": "chiller"}) == "chiller"
    assert words.scenario_class({"id": "s1"}) == default_asset_class() == "transformer"
    monkeypatch.setattr(words, "default_asset_class", lambda: "pump")
    assert words.scenario_class({"id": "s1"}) == "pump"


def test_an_unknown_class_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown asset class"):
        words.class_vocabulary("no_such_class")
