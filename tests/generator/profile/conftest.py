"""Fixtures of the profile tests: a private cache directory and a stand-in literature stage."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from generator.literature.corpus import LocalCorpus
from generator.literature.model import Reference
from generator.profile import build
from generator.profile.model import EVIDENCE_CATEGORIES, Citation, EvidenceItem


@pytest.fixture
def cache_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """SCENARIOGEN_CACHE_DIR in a tmp dir; the cache objects of earlier tests forgotten."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(directory))
    monkeypatch.delenv("SCENARIOGEN_PROFILE_TTL_S", raising=False)
    build._caches.clear()
    yield directory
    for cache in build._caches.values():
        cache.close()
    build._caches.clear()


@dataclass
class StubResult:
    """The shape of the literature stage's ResearchResult (what build_profile reads)."""

    evidence: list[EvidenceItem]
    references: list[Reference]
    retrievers_used: list[str] = field(default_factory=lambda: ["local"])
    fallbacks: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)


@dataclass
class StubResearch:
    """A stand-in for generator.literature.research.research: one cited item per category.

    It counts its calls, so tests can tell a cache hit from a rebuild.
    """

    calls: int = 0
    fail: bool = False
    seen: list[dict[str, Any]] = field(default_factory=list)

    async def __call__(
        self,
        asset: Any,
        inventory: Any,
        retriever: str,
        llm: Any,
        *,
        cache: Any = None,
        unsupported: Any = (),
    ) -> StubResult:
        self.calls += 1
        self.seen.append(
            {"inventory": inventory, "retriever": retriever, "unsupported": list(unsupported),
             "cache": cache}
        )
        if self.fail:
            raise RuntimeError("literature stage failed")
        corpus = LocalCorpus(asset.asset_class)
        evidence, refs = [], []
        for cat in EVIDENCE_CATEGORIES:
            ref = corpus.in_category(cat)[0]
            refs.append(ref)
            evidence.append(
                EvidenceItem(
                    category=cat,  # type: ignore[arg-type]
                    statement=f"{ref.title} informs {cat}.",
                    citation=Citation(
                        ref_id=ref.ref_id, source=ref.source, title=ref.title, year=ref.year
                    ),
                )
            )
        unique = list({r.ref_id: r for r in refs}.values())
        return StubResult(
            evidence=evidence, references=unique, queries=[f"{asset.asset_class} stub"],
            timings={"retrieval": 0.001, "digests": 0.002, "merge": 0.003},
        )


@pytest.fixture
def stub_research() -> StubResearch:
    """A fresh stand-in literature stage."""
    return StubResearch()
