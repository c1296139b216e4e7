"""The words an asset class is spoken of with, for prompts and answer patterns.

Everything class-specific that the eval side says (the agent's persona, the noun a
clarifying question or a refusal names) comes from the class's vocabulary, never from code.
:func:`class_vocabulary` is the one accessor of that vocabulary, :func:`scenario_class` says
which class a scenario is about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from generator.assetdef import available_asset_classes, default_asset_class, load_asset_class
from generator.vocabulary import Vocabulary, load_vocabulary


@cache
def class_vocabulary(asset_class: str) -> Vocabulary:
    """The vocabulary of ``asset_class`` (its ``assets/<class>/vocabulary.yaml``).

    Raises:
        UserError: an unknown class (listing the classes), or a class without a valid file.
    """
    load_asset_class(asset_class)
    return load_vocabulary(asset_class)


def agent_persona(asset_class: str) -> str:
    """The system-prompt line that tells an agent whose fleet it works on."""
    return class_vocabulary(asset_class).agent_persona


@cache
def asset_nouns_pattern() -> str:
    """A regex alternation of every discovered class's noun and plural (longest first)."""
    words: set[str] = set()
    for cls in available_asset_classes():
        v = class_vocabulary(cls)
        words |= {v.noun, v.plural}
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def default_class() -> str:
    """The class to assume when a scenario names none (the default class)."""
    return default_asset_class()

def scenario_class(scenario: Mapping[str, Any]) -> str:
    """The asset class a scenario is about: its ``asset_class``, else the default class."""
    named = scenario.get("asset_class")
    return str(named) if named else default_class()
