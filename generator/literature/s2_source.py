"""Semantic Scholar retriever through the ``semanticscholar`` client, paced by :mod:`polite`.

Published limits we follow: without a key, requests share an unauthenticated pool that
Semantic Scholar throttles as a whole (HTTP 429 when it is busy); with a key the default
rate is 1 request per second. We therefore keep 1 s between requests in any case and back
off exponentially on 429. The package's own tenacity retry (5–60 s waits, 10 tries) is
switched off with ``retry=False`` so that our limiter and backoff are the only ones.

Known limit of the package: it turns HTTP 502/503 into an empty result instead of an
error, so those look like "no hits" (the research stage then fills from the local corpus).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

import httpx
from semanticscholar import SemanticScholar
from semanticscholar.SemanticScholarException import (
    BadQueryParametersException,
    ObjectNotFoundException,
    ServerErrorException,
)
from tenacity import RetryError

from generator.literature.corpus import SearchTerms
from generator.literature.model import Reference
from generator.literature.polite import Failure, Politeness, RateLimiter

ENV_URL = "SCENARIOGEN_S2_URL"
ENV_KEY = "SEMANTIC_SCHOLAR_API_KEY"
FIELDS = ["paperId", "title", "abstract", "year", "venue", "authors", "url", "externalIds"]


def classify(exc: BaseException) -> Failure | None:
    """Map an exception of the semanticscholar client to a retry decision."""
    if isinstance(exc, RetryError):
        # retry=False still wraps the last attempt of a 429 in tenacity's RetryError.
        inner = exc.last_attempt.exception()
        if inner is None:
            return None
        exc = inner
    if isinstance(exc, ConnectionRefusedError):
        return Failure(True, 429, "HTTP 429")
    if isinstance(exc, ServerErrorException):
        status = 504 if "Gateway" in type(exc).__name__ else 500
        return Failure(True, status, f"HTTP {status}")
    if isinstance(exc, httpx.TimeoutException):
        return Failure(True, None, "timeout")
    if isinstance(exc, PermissionError):
        return Failure(False, 403, "HTTP 403")
    if isinstance(exc, BadQueryParametersException | ObjectNotFoundException):
        return Failure(False, 400, f"rejected query ({exc})")
    if isinstance(exc, httpx.HTTPError):
        return Failure(False, None, f"connection failed ({type(exc).__name__})")
    if isinstance(exc, json.JSONDecodeError):
        return Failure(False, None, "unreadable error body")
    return None


def to_reference(paper: Any) -> Reference | None:
    """A semanticscholar ``Paper`` as a :class:`Reference`; None without id or title."""
    pid = getattr(paper, "paperId", None)
    title = getattr(paper, "title", None)
    if not pid or not title:
        return None
    authors = [a.name for a in (getattr(paper, "authors", None) or []) if getattr(a, "name", None)]
    return Reference(
        ref_id=f"s2:{pid}",
        source="semanticscholar",
        title=" ".join(str(title).split()),
        year=getattr(paper, "year", None),
        authors=authors,
        venue=getattr(paper, "venue", None) or None,
        url=getattr(paper, "url", None) or None,
        abstract=" ".join(str(getattr(paper, "abstract", None) or "").split()),
    )


class SemanticScholarRetriever:
    """Search the Semantic Scholar Graph API for an asset class's literature.

    A query that lacks the class's ``s2_anchor`` phrase (its search anchor by default) is
    prefixed with it.
    """

    name = "semanticscholar"

    def __init__(
        self,
        api_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 20,
        max_retries: int = 3,
        min_interval_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        *,
        search: SearchTerms,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.anchor = search.semantic_scholar_anchor
        url = api_url or os.environ.get(ENV_URL) or None
        key = api_key or os.environ.get(ENV_KEY) or None
        self.client = SemanticScholar(
            timeout=timeout_s,
            api_key=key,
            api_url=url,
            retry=False,
        )
        self.endpoint = url or "https://api.semanticscholar.org"
        self.polite = Politeness(
            service="semanticscholar",
            min_interval_s=max(min_interval_s, 0.0),
            max_retries=max_retries,
            sleep=sleep,
            clock=clock,
            limiter=limiter,
        )

    def search(self, query: str, limit: int) -> list[Reference]:
        """Up to ``limit`` references; raises RetrievalError when the API does not answer."""
        if limit <= 0:
            return []
        text = query if self.anchor in query.lower() else f"{self.anchor} {query}"

        def fetch() -> list[Any]:
            results = self.client.search_paper(text, limit=min(limit, 100), fields=FIELDS)
            # Only the first page: iterating the results object would fetch more pages.
            return list(results.items)[:limit]

        papers = self.polite.call(fetch, classify)
        refs: dict[str, Reference] = {}
        for paper in papers:
            ref = to_reference(paper)
            if ref is not None:
                refs.setdefault(ref.ref_id, ref)
        return list(refs.values())
