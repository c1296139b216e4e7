"""The literature stage: queries → retrieval (with fallbacks) → ranking → digests → merge.

Failures of an online retriever never stop a profile build: the cached answer of the same
(retriever, endpoint, query) stands in, then the local corpus, and each substitution is
recorded as one readable line in ``fallbacks``. Only successful answers are cached.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import AssetClass
from generator.cache import TwoLevelCache, cache_key
from generator.concurrency import fan_out, to_thread
from generator.literature.corpus import LocalCorpus
from generator.literature.digest import (
    DIGEST_STAGE,
    DigestOutcome,
    extractive_digest,
    llm_digest,
    trim,
)
from generator.literature.model import (
    EVIDENCE_CATEGORIES,
    DomainGap,
    EvidenceCategory,
    EvidenceItem,
    Holdings,
    RankedReference,
    Reference,
    Retriever,
)
from generator.literature.polite import RetrievalError
from generator.literature.queries import (
    QUERY_STAGE,
    JsonLLM,
    expand_queries,
    expand_queries_llm,
)
from generator.literature.ranking import rank
from generator.literature.retrievers import make_retriever

HITS_PER_QUERY = 5
REMOTE_QUERIES_PER_CATEGORY = 2
REMOTE_LLM_QUERIES = 1
CATEGORY_FAN_OUT = 2
# The local corpus's category tags are curated, so they weigh more than a few shared words.
CATEGORY_TAG_BONUS = 0.3
RETRIEVAL_NAMESPACE = "retrieval"


class RetrievalHits(BaseModel):
    """A successful answer of a retriever, as cached in the ``retrieval`` namespace."""

    model_config = ConfigDict(extra="forbid")

    references: list[Reference] = Field(description="The references returned, in order")


class ResearchResult(BaseModel):
    """What the literature stage hands to the profile."""

    model_config = ConfigDict(extra="forbid")

    evidence: list[EvidenceItem] = Field(description="Evidence items, every one cited")
    references: list[Reference] = Field(description="Every record an evidence item cites")
    retrievers_used: list[str] = Field(
        description="Retrievers that answered: 'arxiv', 'arxiv (cached)', 'local'..."
    )
    fallbacks: list[str] = Field(description="What failed and what replaced it, one line each")
    queries: list[str] = Field(description="Queries issued, in order")
    timings: dict[str, float] = Field(description="Seconds per phase: retrieval, digests, merge")
    tokens: dict[str, int] = Field(description="LLM tokens (input + output) per phase")
    off_domain: list[str] = Field(
        default_factory=list, description="ref_ids flagged off-domain by ranking (never cited)"
    )


@dataclass
class _Run:
    """Mutable state of one research() call; touched only on the event loop."""

    asset: AssetClass
    retriever: Retriever
    local: LocalCorpus
    cache: TwoLevelCache | None
    fallbacks: list[str] = field(default_factory=list)
    used: list[str] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)
    broken: str | None = None
    # Online calls of one run go one at a time: the service's limiter spaces them anyway
    # (3 s for arXiv), and after a failure no second call is already in flight.
    gate: asyncio.Lock = field(default_factory=asyncio.Lock)

    def mark_used(self, name: str) -> None:
        if name not in self.used:
            self.used.append(name)

    @property
    def remote(self) -> bool:
        return self.retriever.name != "local"


async def _fetch(run: _Run, query: str) -> list[Reference]:
    """Answer ``query`` from the retriever, else its cached answer, else the local corpus."""
    run.issued.append(query)
    if not run.remote:
        run.mark_used("local")
        return run.local.search(query, HITS_PER_QUERY)
    name = run.retriever.name
    key = cache_key(
        RETRIEVAL_NAMESPACE, name, getattr(run.retriever, "endpoint", None), query, HITS_PER_QUERY
    )
    async with run.gate:
        if run.broken is not None:
            # One failure after full retries is enough: do not hammer a struggling service.
            reason = f"{run.broken} (earlier query; not retried)"
        else:
            try:
                refs = await to_thread(run.retriever.search, query, HITS_PER_QUERY)
            except RetrievalError as exc:
                run.broken = str(exc)
                reason = str(exc)
            else:
                if run.cache is not None:
                    hits = RetrievalHits(references=refs)
                    await to_thread(run.cache.set, key, hits, label=f"{name}: {query}")
                run.mark_used(name)
                return refs
        # Still under the gate, so fallbacks are recorded in the order queries were asked.
        if run.cache is not None:
            cached, _level = await to_thread(run.cache.get, key, RetrievalHits)
            if cached is not None:
                run.fallbacks.append(f"{reason} for {query!r} → cached result")
                run.mark_used(f"{name} (cached)")
                return cached.references
        run.fallbacks.append(f"{reason} for {query!r} → local corpus")
        run.mark_used("local")
        return run.local.search(query, HITS_PER_QUERY)


def _merge_ranked(
    category: str, lists: Sequence[Sequence[RankedReference]]
) -> list[RankedReference]:
    """One list per category: best score per ref_id, a bonus for the category's own tag."""
    best: dict[str, RankedReference] = {}
    for ranked in lists:
        for r in ranked:
            score = r.score + (CATEGORY_TAG_BONUS if category in r.reference.categories else 0.0)
            cur = best.get(r.reference.ref_id)
            if cur is None or score > cur.score:
                best[r.reference.ref_id] = r.model_copy(update={"score": round(score, 6)})
    return sorted(best.values(), key=lambda r: (r.off_domain, -r.score, r.reference.ref_id))


def _usage_tokens(llm: JsonLLM | None, stage: str) -> int:
    if llm is None:
        return 0
    u = llm.usage.get(stage, {})
    return int(u.get("input_tokens", 0)) + int(u.get("output_tokens", 0))


def _gap_items(run: _Run, unsupported: Sequence[DomainGap], anchor: str) -> list[EvidenceItem]:
    """One "gaps" item per unsupported domain, citing the closest local gaps record."""
    candidates = run.local.in_category("gaps") or run.local.all()
    items: list[EvidenceItem] = []
    for d in unsupported:
        query = f"{anchor} {d.domain} monitoring"
        ranked = rank(candidates, query, run.asset)
        picked = extractive_digest("gaps", query, ranked, max_items=1)
        if not picked:
            continue
        item = picked[0]
        statement = trim(
            f"No {d.domain} data or tools for this asset class ({d.reason}). "
            f"Literature: {item.statement}"
        )
        items.append(item.model_copy(update={"statement": statement}))
    return items


def _merge_evidence(
    run: _Run,
    by_category: dict[EvidenceCategory, list[EvidenceItem]],
    topic: Callable[[str], str],
    unsupported: Sequence[DomainGap],
) -> list[EvidenceItem]:
    """Every category with at least one item (the local corpus fills holes), gaps, deduped."""
    evidence: list[EvidenceItem] = []
    for c, items in by_category.items():
        if not items:
            pool = run.local.in_category(c) or run.local.all()
            items = extractive_digest(c, topic(c), rank(pool, topic(c), run.asset), max_items=2)
            if run.remote:
                run.fallbacks.append(f"evidence {c}: no on-domain hit → local corpus")
            run.mark_used("local")
        evidence.extend(items)
    anchor = run.asset.display_name.lower()
    gaps = _gap_items(run, [d for d in unsupported if not d.supported], anchor)
    if gaps:
        run.mark_used("local")
    evidence.extend(gaps)
    seen: set[tuple[str, str, str]] = set()
    unique: list[EvidenceItem] = []
    for item in evidence:
        k = (item.category, item.citation.ref_id, item.statement)
        if k not in seen:
            seen.add(k)
            unique.append(item)
    return unique


def _cited_references(
    evidence: Sequence[EvidenceItem],
    local: LocalCorpus,
    ranked: Iterable[Sequence[RankedReference]],
) -> list[Reference]:
    """The records the evidence cites, in first-citation order; an unknown one is a bug."""
    known: dict[str, Reference] = {r.ref_id: r for r in local.all()}
    for lst in ranked:
        for r in lst:
            known.setdefault(r.reference.ref_id, r.reference)
    references: dict[str, Reference] = {}
    for item in evidence:
        ref = known.get(item.citation.ref_id)
        if ref is None:
            raise RuntimeError(f"evidence cites unknown reference {item.citation.ref_id!r}")
        references.setdefault(ref.ref_id, ref)
    return list(references.values())


async def research(
    asset: AssetClass,
    inventory: Holdings | None,
    retriever: str | Retriever,
    llm: JsonLLM | None,
    *,
    cache: TwoLevelCache | None = None,
    unsupported: Sequence[DomainGap] = (),
) -> ResearchResult:
    """Gather cited evidence for every category of the asset profile.

    Args:
        asset: The asset class definition.
        inventory: What the store holds (None: use the definition's sensors).
        retriever: ``local``, ``arxiv``, ``semanticscholar`` or a retriever object.
        llm: Expands queries and writes digests when given; None means deterministic.
        cache: The ``retrieval`` cache namespace: successful online answers are stored
            there and serve as the first fallback. None (``--no-cache``) neither reads nor
            writes, so a failure falls back straight to the local corpus.
        unsupported: Domains the profile cannot serve; each gets a "gaps" item.

    Returns:
        A :class:`ResearchResult` whose every evidence item cites one of its references.
    """
    t0 = time.perf_counter()
    local = LocalCorpus(asset.asset_class)
    retr = make_retriever(retriever, asset.asset_class) if isinstance(retriever, str) else retriever
    run = _Run(asset=asset, retriever=retr, local=local, cache=cache)
    tokens_before = {s: _usage_tokens(llm, s) for s in (QUERY_STAGE, DIGEST_STAGE)}

    base = expand_queries(asset, inventory)
    queries = base
    if llm is not None:
        queries, problem = await expand_queries_llm(asset, inventory, llm)
        if problem:
            run.fallbacks.append(problem)

    async def retrieve(category: str) -> list[RankedReference]:
        qs = queries[category]
        if run.remote:
            # Online services are slow and rate-limited: the first deterministic queries
            # plus the first LLM addition, if any.
            extra = [q for q in qs if q not in base[category]]
            qs = base[category][:REMOTE_QUERIES_PER_CATEGORY] + extra[:REMOTE_LLM_QUERIES]
        lists = []
        for q in qs:
            lists.append(rank(await _fetch(run, q), q, asset))
        return _merge_ranked(category, lists)

    categories = [cast(EvidenceCategory, c) for c in EVIDENCE_CATEGORIES]
    ranked_lists = await fan_out(categories, retrieve, limit=CATEGORY_FAN_OUT)
    ranked = dict(zip(categories, ranked_lists, strict=True))
    t1 = time.perf_counter()

    def topic(category: str) -> str:
        return "; ".join(queries[category])

    if llm is not None:
        client = llm

        async def digest(category: EvidenceCategory) -> DigestOutcome:
            return await llm_digest(category, topic(category), ranked[category], client)

        outcomes = await fan_out(categories, digest, limit=CATEGORY_FAN_OUT)
    else:
        outcomes = [
            DigestOutcome(extractive_digest(c, topic(c), ranked[c]), []) for c in categories
        ]
    by_cat = dict(zip(categories, outcomes, strict=True))
    for outcome in outcomes:
        run.fallbacks.extend(outcome.notes)
    t2 = time.perf_counter()

    evidence = _merge_evidence(run, {c: by_cat[c].items for c in categories}, topic, unsupported)
    references = _cited_references(evidence, local, ranked.values())
    off_domain = sorted(
        {r.reference.ref_id for lst in ranked.values() for r in lst if r.off_domain}
    )
    t3 = time.perf_counter()

    tokens: dict[str, int] = {}
    if llm is not None:
        tokens = {
            "queries": _usage_tokens(llm, QUERY_STAGE) - tokens_before[QUERY_STAGE],
            "digests": _usage_tokens(llm, DIGEST_STAGE) - tokens_before[DIGEST_STAGE],
        }
    return ResearchResult(
        evidence=evidence,
        references=references,
        retrievers_used=run.used,
        fallbacks=run.fallbacks,
        queries=list(dict.fromkeys(run.issued)),
        timings={
            "retrieval": round(t1 - t0, 3),
            "digests": round(t2 - t1, 3),
            "merge": round(t3 - t2, 3),
        },
        tokens=tokens,
        off_domain=off_domain,
    )
