"""The local corpus: loads, covers every category, rejects malformed files in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.errors import UserError
from generator.literature.corpus import LocalCorpus, load_corpus
from generator.literature.digest import split_sentences
from generator.literature.model import Retriever
from generator.literature.retrievers import RETRIEVERS, make_retriever
from generator.profile.model import EVIDENCE_CATEGORIES


def test_corpus_loads_with_every_category_covered_twice() -> None:
    corpus = LocalCorpus("transformer")
    refs = corpus.all()
    assert len(refs) >= 24
    ids = [r.ref_id for r in refs]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("local:") for i in ids)
    for category in EVIDENCE_CATEGORIES:
        assert len(corpus.in_category(category)) >= 2, category
    for r in refs:
        assert r.source == "local" and r.year and r.authors and r.venue
        assert 2 <= len(split_sentences(r.abstract)) <= 4, r.ref_id


def test_corpus_names_the_standards_the_tools_follow() -> None:
    titles = " ".join(r.title for r in LocalCorpus("transformer").all())
    for needle in ("IEC 60599", "Loading guide", "Interpretation of Gases", "Oil-Immersed"):
        assert needle in titles


def test_search_ranks_by_tfidf_and_is_a_retriever() -> None:
    corpus = LocalCorpus("transformer")
    assert isinstance(corpus, Retriever)
    hits = corpus.search("power transformer tank vibration monitoring", 3)
    assert hits[0].ref_id.startswith("local:garcia_burgos_alonso_2006")
    assert corpus.search("health index asset management", 1)[0].ref_id == "local:jahromi_2009"
    assert corpus.search("power transformer", 0) == []
    assert corpus.search("zzzz qqqq", 5) == []


def test_make_retriever_local_and_unknown_name() -> None:
    assert make_retriever("local", "transformer").name == "local"
    assert RETRIEVERS.names() == ["arxiv", "local", "semanticscholar"]
    with pytest.raises(UserError) as info:
        make_retriever("arxv", "transformer")
    assert "did you mean 'arxiv'" in str(info.value)


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "literature.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _entry(**overrides: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "key": "k1",
        "title": "A title",
        "year": 2001,
        "authors": ["A. Author"],
        "venue": "A venue",
        "digest": "A digest written for the project, long enough.",
        "categories": ["standards"],
    }
    entry.update(overrides)
    return entry


@pytest.mark.parametrize(
    ("entry", "needles"),
    [
        (_entry(abstract="copied"), ["(key 'k1')", "field abstract", "valid: key"]),
        (_entry(categories=["vibes"]), ["(key 'k1')", "field categories.0"]),
        (_entry(year="old"), ["(key 'k1')", "field year"]),
        ({k: v for k, v in _entry().items() if k != "title"}, ["field title", "Field required"]),
    ],
)
def test_malformed_corpus_is_one_line_user_error(
    tmp_path: Path, entry: dict[str, object], needles: list[str]
) -> None:
    good = _entry(key="k0")
    path = _write(tmp_path, {"asset_class": "x", "references": [good, entry]})
    with pytest.raises(UserError) as info:
        load_corpus("x", path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path.resolve()))
    assert "references[1]" in message
    for needle in needles:
        assert needle in message


def test_duplicate_keys_and_missing_file(tmp_path: Path) -> None:
    path = _write(tmp_path, {"asset_class": "x", "references": [_entry(), _entry()]})
    with pytest.raises(UserError, match="duplicate key 'k1'"):
        load_corpus("x", path)
    with pytest.raises(UserError, match="has no literature corpus"):
        load_corpus("x", tmp_path / "missing.yaml")
