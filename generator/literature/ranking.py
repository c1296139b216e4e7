"""Ranking retrieved references for an asset class, with domain disambiguation.

"Transformer" names both the power equipment and a neural-network architecture; online
searches drift toward the second. A reference whose text uses neural-network/NLP/vision
vocabulary at least as much as power-engineering vocabulary is flagged ``off_domain``,
penalised and always ranked after every on-domain reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel

from generator.assetdef import AssetClass
from generator.literature.corpus import reference_text
from generator.literature.model import RankedReference, Reference

POWER_TERMS: tuple[str, ...] = (
    "power transformer",
    "distribution transformer",
    "oil-immersed",
    "oil-filled",
    "insulating oil",
    "transformer oil",
    "mineral oil",
    "dissolved gas",
    "gas-in-oil",
    "dga",
    "winding",
    "hot-spot",
    "hot spot",
    "top-oil",
    "top oil",
    "tap changer",
    "bushing",
    "partial discharge",
    "cellulose",
    "paper insulation",
    "insulation",
    "substation",
    "power system",
    "dielectric",
    "acetylene",
    "ethylene",
    "methane",
    "thermal fault",
    "arcing",
    "frequency response",
    "loading guide",
    "condition monitoring",
    "kv",
    "mva",
    "utility",
    "utilities",
)
NEURAL_TERMS: tuple[str, ...] = (
    "attention",
    "self-attention",
    "bert",
    "gpt",
    "language model",
    "large language",
    "vision transformer",
    "vit",
    "token",
    "tokens",
    "tokenizer",
    "nlp",
    "natural language",
    "machine translation",
    "image classification",
    "pre-trained",
    "pretrained",
    "pretraining",
    "encoder-decoder",
    "sequence-to-sequence",
    "transformer architecture",
    "neural machine",
)
DOMAIN_BONUS = 0.05
MAX_BONUS_TERMS = 5
OFF_DOMAIN_PENALTY = 1.0


def _pattern(terms: Iterable[str]) -> re.Pattern[str]:
    alts = sorted({re.escape(t) for t in terms}, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alts) + r")(?![a-z0-9])")


_NEURAL = _pattern(NEURAL_TERMS)


def domain_terms(asset: AssetClass | None) -> tuple[str, ...]:
    """Power-engineering vocabulary, plus the asset class's own display name."""
    extra = (asset.display_name.lower(),) if asset is not None else ()
    return tuple(dict.fromkeys((*POWER_TERMS, *extra)))


def term_hits(text: str, pattern: re.Pattern[str]) -> set[str]:
    """Distinct vocabulary terms found in ``text`` (case-insensitive, whole words)."""
    return set(pattern.findall(text.lower()))


def is_off_domain(text: str, asset: AssetClass | None = None) -> bool:
    """True when neural-network terms are present and power terms do not dominate them."""
    neural = term_hits(text, _NEURAL)
    if not neural:
        return False
    power = term_hits(text, _pattern(domain_terms(asset)))
    return len(power) <= len(neural)


def rank(
    refs: Sequence[Reference], query: str, asset: AssetClass | None = None
) -> list[RankedReference]:
    """Score ``refs`` against ``query``: TF-IDF cosine + domain bonus − off-domain penalty.

    Ordering is deterministic: on-domain before off-domain, then by descending score,
    then by ref_id.
    """
    if not refs:
        return []
    texts = [reference_text(r) for r in refs]
    vectorizer = TfidfVectorizer(stop_words="english", ngram_range=(1, 2), sublinear_tf=True)
    try:
        matrix = vectorizer.fit_transform([*texts, query])
        cosine = linear_kernel(matrix[-1], matrix[:-1]).ravel()
    except ValueError:
        # Every text was empty or stop words only: nothing to compare.
        cosine = [0.0] * len(refs)
    power_pattern = _pattern(domain_terms(asset))
    ranked: list[RankedReference] = []
    for ref, text, cos in zip(refs, texts, cosine, strict=True):
        power = term_hits(text, power_pattern)
        neural = term_hits(text, _NEURAL)
        off = bool(neural) and len(power) <= len(neural)
        score = float(cos) + DOMAIN_BONUS * min(len(power), MAX_BONUS_TERMS)
        if off:
            score -= OFF_DOMAIN_PENALTY
        ranked.append(
            RankedReference(reference=ref, score=round(score, 6), query=query, off_domain=off)
        )
    ranked.sort(key=lambda r: (r.off_domain, -r.score, r.reference.ref_id))
    return ranked
