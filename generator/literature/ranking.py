"""Ranking retrieved references for an asset class, with domain disambiguation.

A class's name may also name something in another field, and online searches drift
there. A reference whose text uses the class's off-domain vocabulary (``search.
off_domain_terms`` of its literature.yaml) at least as much as its domain vocabulary
(``search.domain_terms`` plus the display name) is flagged ``off_domain``, penalised and
always ranked after every on-domain reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel

from generator.assetdef import AssetClass
from generator.literature.corpus import SearchTerms, reference_text, search_terms
from generator.literature.model import RankedReference, Reference

DOMAIN_BONUS = 0.05
MAX_BONUS_TERMS = 5
OFF_DOMAIN_PENALTY = 1.0


def _pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    alts = sorted({re.escape(t.lower()) for t in terms if t.strip()}, key=len, reverse=True)
    if not alts:
        return None
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alts) + r")(?![a-z0-9])")


def domain_terms(asset: AssetClass, search: SearchTerms | None = None) -> tuple[str, ...]:
    """The class's domain vocabulary, plus its own display name."""
    terms = search or search_terms(asset)
    return tuple(dict.fromkeys((*terms.domain_terms, asset.display_name.lower())))


def term_hits(text: str, pattern: re.Pattern[str] | None) -> set[str]:
    """Distinct vocabulary terms found in ``text`` (case-insensitive, whole words)."""
    return set(pattern.findall(text.lower())) if pattern is not None else set()


def is_off_domain(text: str, asset: AssetClass) -> bool:
    """True when off-domain terms are present and domain terms do not dominate them."""
    off = term_hits(text, _pattern(search_terms(asset).off_domain_terms))
    if not off:
        return False
    on = term_hits(text, _pattern(domain_terms(asset)))
    return len(on) <= len(off)


def rank(refs: Sequence[Reference], query: str, asset: AssetClass) -> list[RankedReference]:
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
    search = search_terms(asset)
    on_pattern = _pattern(domain_terms(asset, search))
    off_pattern = _pattern(search.off_domain_terms)
    ranked: list[RankedReference] = []
    for ref, text, cos in zip(refs, texts, cosine, strict=True):
        on = term_hits(text, on_pattern)
        wrong = term_hits(text, off_pattern)
        off = bool(wrong) and len(on) <= len(wrong)
        score = float(cos) + DOMAIN_BONUS * min(len(on), MAX_BONUS_TERMS)
        if off:
            score -= OFF_DOMAIN_PENALTY
        ranked.append(
            RankedReference(reference=ref, score=round(score, 6), query=query, off_domain=off)
        )
    ranked.sort(key=lambda r: (r.off_domain, -r.score, r.reference.ref_id))
    return ranked
