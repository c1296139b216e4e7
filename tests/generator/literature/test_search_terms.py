"""The class's search vocabulary (``search:`` of literature.yaml) drives queries and ranking."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.assetdef import load_asset_class
from generator.errors import UserError
from generator.literature.arxiv_source import build_query
from generator.literature.corpus import SearchTerms, parse_corpus, search_terms
from generator.literature.queries import expand_queries, failure_mode_code

REF = {
    "key": "pump_handbook",
    "title": "Pump handbook",
    "year": 2008,
    "authors": ["Karassik"],
    "venue": "McGraw-Hill",
    "digest": "A handbook of centrifugal pump design, operation and maintenance.",
    "categories": ["maintenance_practice"],
}
PUMP_SEARCH = {
    "anchor": "centrifugal pump",
    "anchor_terms": ["centrifugal pump", "impeller"],
    "arxiv_anchors": ["centrifugal pump", "impeller"],
    "arxiv_stopwords": ["pump", "pumps", "centrifugal"],
    "excluded": ["heat pump", "charge-pump"],
    "domain_terms": ["centrifugal pump", "impeller", "cavitation"],
    "off_domain_terms": ["heat pump", "charge pump"],
    "queries": {
        "gaps": [{"text": "{anchor} acoustic cavitation detection",
                  "unless_sources": ["vibration"]}],
        "condition_monitoring": [{"text": "{anchor} bearing temperature trend",
                                  "when_sensors": ["bearing_temp"]}],
    },
}


def test_pump_search_section_builds_its_own_arxiv_query() -> None:
    corpus = parse_corpus(
        {"asset_class": "pump", "search": PUMP_SEARCH, "references": [REF]}, "pump.yaml"
    )
    terms = corpus.search
    assert terms is not None and terms.semantic_scholar_anchor == "centrifugal pump"
    q = build_query("centrifugal pump cavitation erosion of the impeller", terms)
    # Anchors quoted (impeller is one plain word, unquoted); class words and function
    # words dropped from the keyword group; exclusions quoted after ANDNOT.
    assert q == (
        '(all:"centrifugal pump" OR all:impeller) AND (all:cavitation OR all:erosion OR '
        'all:impeller) ANDNOT (all:"heat pump" OR all:"charge-pump")'
    )


def test_queries_follow_templates_and_holdings(tmp_path: Path) -> None:
    asset = load_asset_class("transformer").model_copy(
        update={"asset_class": "pump", "display_name": "Centrifugal pump",
                "failure_modes": [], "standards": [], "sensors": []}
    )
    path = tmp_path / "literature.yaml"
    path.write_text(yaml.safe_dump(
        {"asset_class": "pump", "search": PUMP_SEARCH, "references": [REF]}))
    assert search_terms(asset, path).anchor == "centrifugal pump"
    # Without a literature.yaml for "pump" in assets/, the display name is the anchor and
    # every category gets one generic query naming it.
    generic = expand_queries(asset, None)
    assert all(qs and all(q.startswith("centrifugal pump ") for q in qs)
               for qs in generic.values())
    assert not any("transformer" in q for qs in generic.values() for q in qs)


def test_failure_mode_code_reads_the_scheme() -> None:
    asset = load_asset_class("transformer")
    by_id = {fm.id: fm for fm in asset.failure_modes}
    coded = [fm for fm in by_id.values() if failure_mode_code(fm, "iec60599")]
    assert coded and all(str(failure_mode_code(fm, "iec60599"))[0] in "TPD" for fm in coded)
    assert all(failure_mode_code(fm, "no_such_scheme") is None for fm in by_id.values())


def test_transformer_failure_mode_queries_one_per_code_family() -> None:
    asset = load_asset_class("transformer")
    fm_queries = expand_queries(asset, None)["failure_modes"]
    families = search_terms(asset).code_queries
    assert families is not None
    # Each family of the modes' codes named exactly once, however many modes carry it
    # (T1, T2 and T3 are one thermal query).
    used = {str(failure_mode_code(fm, "iec60599"))[0] for fm in asset.failure_modes
            if failure_mode_code(fm, "iec60599")}
    assert used
    for prefix, words in families.families.items():
        assert sum(q.endswith(words) for q in fm_queries) == (prefix in used)


def test_bad_search_section_is_one_line_naming_the_key() -> None:
    with pytest.raises(UserError) as err:
        parse_corpus({"asset_class": "pump", "search": {**PUMP_SEARCH, "anchors": ["x"]},
                      "references": [REF]}, "pump.yaml")
    msg = str(err.value)
    assert msg.startswith("pump.yaml: search: field anchors: Extra inputs")
    assert "valid: anchor, anchor_terms, arxiv_anchors" in msg
    bad_category = {**PUMP_SEARCH, "queries": {"gapz": [{"text": "{anchor} x"}]}}
    with pytest.raises(UserError) as err:
        parse_corpus({"asset_class": "pump", "search": bad_category, "references": [REF]},
                     "pump.yaml")
    assert "search: field queries.gapz" in str(err.value) and "gaps" in str(err.value)
    bad_template = {**PUMP_SEARCH, "queries": {"gaps": [{"text": "x y z", "when": ["a"]}]}}
    with pytest.raises(UserError) as err:
        parse_corpus({"asset_class": "pump", "search": bad_template, "references": [REF]},
                     "pump.yaml")
    assert "valid: text, when_sources, unless_sources, when_sensors" in str(err.value)


def test_search_terms_model_documents_every_field() -> None:
    assert all(f.description for f in SearchTerms.model_fields.values())
