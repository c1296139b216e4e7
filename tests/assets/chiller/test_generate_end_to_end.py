"""`generate chiller` end to end on a seeded chiller fleet: every domain, no other class's words.

The words come from the other classes' own vocabularies and sensor names, so the check
follows whatever classes are installed; the run's scenarios, negatives, manifest and the
profile it built (in the run's cache folder) are all scanned.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.assetdef import available_asset_classes, load_asset_class
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig
from generator.generate.verbalise.verbalise_llm import system_prompt
from generator.vocabulary import load_vocabulary
from tests.assets.chiller.chiller_fleet import seed_chiller


def _foreign_words() -> set[str]:
    """Nouns, class slugs and sensor names of every class but the chiller."""
    words: set[str] = set()
    for cls in available_asset_classes():
        if cls == "chiller":
            continue
        vocab = load_vocabulary(cls)
        words |= {cls, vocab.noun, vocab.plural}
        words |= {s.name for s in load_asset_class(cls).sensors if len(s.name) > 2}
    return {w.lower() for w in words}


def _hits(text: str, words: set[str]) -> list[str]:
    return sorted(w for w in words if re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE))


def test_the_scan_finds_a_foreign_word() -> None:
    words = _foreign_words() | {"transformer"}
    assert _hits("The Transformer's top oil", words) == ["transformer"]
    assert _hits("chiller CH-MAIN-01 tonnage", _foreign_words()) == []


async def test_generate_chiller_covers_every_domain_without_foreign_words(
    settings_for: Callable[..., StoreSettings], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    settings = seed_chiller(settings_for)
    cfg = GenerateConfig(asset_class="chiller", n=20, seed=20261201, out_dir=str(tmp_path),
                         run_id="c1", negatives=2)
    summary = await Pipeline(cfg, settings=settings).run()
    run = tmp_path / "c1"
    records = json.loads((run / "scenarios.json").read_text())

    assert summary.shortfalls == [] and len(records) == 20
    assert set(Counter(r["type"] for r in records)) == {"iot", "fmsr", "tsfm", "wo", "multiagent"}
    assert {r["asset_class"] for r in records} == {"chiller"}

    words = _foreign_words()
    assert words, "no other class installed: nothing to check"
    # Not the YAML parse cache (cache/yaml): it holds parses of the installed files as they
    # are, e.g. the other classes' asset.yaml read while resolving the default class; which
    # of them it holds depends on what the process parsed before (test order).
    scanned = [p for p in tmp_path.rglob("*")
               if p.is_file() and not {"cache", "yaml"} <= set(p.relative_to(tmp_path).parts)]
    assert any("cache" in p.parts for p in scanned), "the run built no profile"
    found = {str(p.relative_to(tmp_path)): _hits(p.read_text(errors="replace"), words)
             for p in scanned}
    assert {k: v for k, v in found.items() if v} == {}
    assert _hits(system_prompt(load_vocabulary("chiller")), words) == []
