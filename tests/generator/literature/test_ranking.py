"""Ranking: TF-IDF relevance, domain bonus, neural-network transformers flagged and last."""

from __future__ import annotations

from generator.assetdef import load_asset_class
from generator.literature.model import Reference
from generator.literature.ranking import is_off_domain, rank

ASSET = load_asset_class("transformer")


def _ref(ref_id: str, title: str, abstract: str) -> Reference:
    return Reference(ref_id=ref_id, source="arxiv", title=title, abstract=abstract)


NEURAL = _ref(
    "arxiv:2401.00003",
    "Fixture: A Transformer language model with sparse self-attention",
    "This fixture paper trains a Transformer language model whose self-attention layers "
    "attend to a sparse subset of tokens.",
)
DGA = _ref(
    "arxiv:2401.00001",
    "Fixture: Ratio-based dissolved gas analysis for oil-immersed power transformers",
    "Thermal faults and arcing are separated by gas ratios in the insulating oil.",
)
THERMAL = _ref(
    "arxiv:2401.00002",
    "Fixture: Estimating top-oil and hot-spot temperature of power transformers",
    "A thermal model of the winding hot-spot follows the loading guide.",
)


def test_neural_network_transformer_is_flagged_and_ranked_last() -> None:
    asset = load_asset_class("transformer")
    # The neural entry shares the query's word "transformer" and comes first in the input.
    ranked = rank([NEURAL, THERMAL, DGA], "transformer dissolved gas analysis", asset)
    assert [r.reference.ref_id for r in ranked][-1] == NEURAL.ref_id
    flags = {r.reference.ref_id: r.off_domain for r in ranked}
    assert flags == {NEURAL.ref_id: True, DGA.ref_id: False, THERMAL.ref_id: False}
    assert ranked[0].reference.ref_id == DGA.ref_id
    neural = ranked[-1]
    assert neural.score < 0 < ranked[1].score
    assert all(r.query == "transformer dissolved gas analysis" for r in ranked)


def test_power_terms_dominating_keep_an_attention_paper_on_domain() -> None:
    text = (
        "An attention-based network for dissolved gas analysis fault diagnosis of power "
        "transformers using insulating oil samples"
    )
    assert not is_off_domain(text, ASSET)
    assert is_off_domain("Vision transformer with token pruning for image classification", ASSET)


def test_ordering_is_deterministic_with_ties_by_ref_id() -> None:
    a = _ref("arxiv:b", "Same title about power transformers", "Same text.")
    b = _ref("arxiv:a", "Same title about power transformers", "Same text.")
    ranked = rank([a, b], "power transformer", ASSET)
    assert [r.reference.ref_id for r in ranked] == ["arxiv:a", "arxiv:b"]
    assert rank([b, a], "power transformer", ASSET) == ranked
    assert rank([], "anything", ASSET) == []
