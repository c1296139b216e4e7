"""The static 20, worked by hand on a hand-built set."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from eval.score import load_set
from eval.score_static import score_static
from generator.generate.run.policy import load_policies

CF = "The response should list what was asked, using the sites tool of the store."


def _set() -> list[dict[str, object]]:
    return [
        {"id": "a", "type": "IoT", "category": "Knowledge Query",
         "text": "Which sites hold our transformers today?", "characteristic_form": CF},
        # Same id as a; text a near-copy of a; a category our wo policy lacks, but the
        # file uses it twice for wo (with c): a consistent vocabulary, so it fits.
        {"id": "a", "type": "Workorder", "category": "Fleet Trivia",
         "text": "Which sites hold our transformers today??", "characteristic_form": CF},
        {"id": "c", "type": "Workorder", "category": "Fleet Trivia",
         "text": "How many corrective work orders did EAST-TX01 get in July?",
         "characteristic_form": CF},
        # No type (schema fails; widest length bounds, 20..800); a one-off misspelt
        # category; a text of 5 characters.
        {"id": "d", "category": "Fleet Trivai", "text": "Hello", "characteristic_form": CF},
    ]


def test_static_points_by_hand() -> None:
    # c fails a deterministic check; the others pass them.
    result = score_static(_set(), load_policies(),
                          check_failures={"c": ["no_tool_name_in_text: names get_events"]})
    comp = {c.name: c for c in result.part.components}
    assert comp["checks"].points == pytest.approx(6 * 3 / 4)  # c
    assert comp["schema"].points == pytest.approx(4 * 3 / 4)  # d lacks `type`
    assert comp["category_alignment"].points == pytest.approx(3 * 3 / 4)  # d's typo fails
    assert comp["text_length"].points == pytest.approx(2 * 3 / 4)  # "Hello": 5 < 20
    assert comp["unique_id"].points == pytest.approx(1 * 3 / 4)  # second "a"
    assert comp["unique_text"].points == pytest.approx(1 * 3 / 4)  # b ~ a (ratio > 0.9)
    # Domains: iot 1, wo 2, d unknown. Coverage 2/5 = 0.4.
    # Entropy -(1/3 ln 1/3 + 2/3 ln 2/3) = 0.63651; / ln 5 (1.60944) = 0.39548.
    # Share 0.5*0.4 + 0.5*0.39548 = 0.39774; points 3 * 0.39774 = 1.19322.
    entropy = -(1 / 3 * math.log(1 / 3) + 2 / 3 * math.log(2 / 3))
    assert entropy == pytest.approx(0.63651, abs=1e-5)
    assert comp["type_diversity"].points == pytest.approx(1.193, abs=1e-3)
    assert result.part.points == pytest.approx(4.5 + 3 + 1.193 + 2.25 + 1.5 + 0.75 + 0.75,
                                               abs=1e-3)
    # Per record: a passes all six record checks: 6+4+3+2+1+1 + diversity 1.193.
    assert result.per_record[0] == pytest.approx(17 + 1.193, abs=1e-3)
    # b: fails unique id and unique text.
    assert result.per_record[1] == pytest.approx(17 - 2 + 1.193, abs=1e-3)
    # c: fails the checks.
    assert result.per_record[2] == pytest.approx(17 - 6 + 1.193, abs=1e-3)
    assert any("also used by record 1" in p for p in result.problems[1])
    assert any("checks: no_tool_name_in_text" in p for p in result.problems[2])
    assert any("Fleet Trivai" in p for p in result.problems[3])


def test_upstream_vocabulary_is_not_rejected(project_root: Path) -> None:
    # The paper's file uses its own categories for every domain; none is rejected.
    path = project_root / "tests/fixtures/upstream/paper_generated_transformer_scenarios.json"
    result = score_static(load_set(path), load_policies())
    comp = {c.name: c for c in result.part.components}
    assert comp["category_alignment"].share == 1.0
    assert comp["schema"].share == 1.0
    assert comp["text_length"].share == 1.0


def test_upstream_141_missing_fields_cost_schema_points(project_root: Path) -> None:
    path = project_root / "tests/fixtures/upstream/assetopsbench_all_utterance.jsonl"
    records = load_set(path)
    result = score_static(records, load_policies())
    comp = {c.name: c for c in result.part.components}
    # Records carrying both `type` and `category` (the schema's required fields) pass.
    complete = sum(1 for r in records if "type" in r and "category" in r
                   and "characteristic_form" in r)
    assert comp["schema"].share == pytest.approx(round(complete / len(records), 4))
    assert 0 < complete < len(records)
