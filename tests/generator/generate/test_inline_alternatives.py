"""Every inline ``[a|b]`` alternative of every shipped template is resolved.

A phrasing whose alternatives held a placeholder (``[... after {as_of}?|...]``) was left as
written, brackets and bars in the text an agent reads.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import yaml

from generator.assetdef import ASSETS_DIR, available_asset_classes
from generator.generate.verbalise.verbalise_template import Paraphraser

_LEFT = re.compile(r"\[[^\[\]]*\|[^\[\]]*\]")


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


def test_no_alternative_is_left_in_a_text() -> None:
    phrasings = [s for asset_class in available_asset_classes()
                 for s in _strings(yaml.safe_load(
                     (Path(ASSETS_DIR) / asset_class / "templates.yaml").read_text()))
                 if _LEFT.search(s)]
    assert phrasings, "the templates use inline alternatives"
    paraphraser = Paraphraser([])
    left = [p for p in phrasings for seed in range(4)
            if _LEFT.search(paraphraser.apply(p, np.random.default_rng(seed)))]
    assert not left, left[:3]


def test_an_alternative_may_hold_placeholders() -> None:
    out = {Paraphraser([]).apply("Due [after {as_of}?|since {as_of}, then?]",
                                 np.random.default_rng(seed)) for seed in range(16)}
    assert out == {"Due after {as_of}?", "Due since {as_of}, then?"}
