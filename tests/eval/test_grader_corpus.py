"""The grader against the hand-labelled answer corpus (``tests/fixtures/grader_corpus``).

Every answer there was written from a scenario's text and the tools' data, then checked
against the reference: ``right`` ones an expert accepts, ``wrong`` ones an expert rejects.
The grader must agree with at least 98 % of each, overall and in every domain, and with
at least 90 % of each in every family; every family of every shipped class has items.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.grader_corpus import CORPUS_DIR, GraderBenchReport, load_corpus, run_corpus
from generator.assetdef import available_asset_classes, load_asset_class
from generator.generate.families import FAMILIES, load_families

HELD_OUT = CORPUS_DIR.parent / "grader_heldout"


@pytest.fixture(scope="module")
def report() -> GraderBenchReport:
    return run_corpus(load_corpus())


def _shipped_families() -> set[str]:
    names: set[str] = set()
    for cls in available_asset_classes():
        load_families(load_asset_class(cls))
        modules = set(load_asset_class(cls).families)
        names |= {n for n in FAMILIES if FAMILIES.get(n).draw.__module__ in modules}
    return names


def test_every_family_of_every_shipped_class_has_items() -> None:
    have = {f.family for f in load_corpus()}
    assert not sorted(_shipped_families() - have)


def test_agreement_overall_and_per_domain(report: GraderBenchReport) -> None:
    for name, tally in [("overall", report.overall), *report.by_domain.items()]:
        assert tally.right_rate is not None and tally.right_rate >= 0.98, (name, tally)
        assert tally.wrong_rate is not None and tally.wrong_rate >= 0.98, (name, tally)


def test_agreement_per_family(report: GraderBenchReport) -> None:
    low = {name: t for name, t in report.by_family.items()
           if (t.right_rate or 0) < 0.9 or (t.wrong_rate if t.wrong else 1.0) < 0.9}
    assert not low, sorted(low)


@pytest.mark.skipif(not HELD_OUT.is_dir(), reason="no held-out answers in this checkout")
def test_answers_the_grader_was_never_tuned_on(tmp_path: Path) -> None:
    held = run_corpus(load_corpus(HELD_OUT))
    assert held.overall.right_rate is not None and held.overall.right_rate >= 0.95
    assert held.overall.wrong_rate is not None and held.overall.wrong_rate >= 0.95
