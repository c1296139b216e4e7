"""arXiv retriever through the ``arxiv`` client, paced and retried by :mod:`polite`.

arXiv's terms of use ask for no more than one request every three seconds; the client's
own delay and retries are switched off and :class:`~generator.literature.polite.Politeness`
does both, process-wide and with injectable sleep/clock for tests.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any

import arxiv
import requests

from generator.literature.corpus import SearchTerms
from generator.literature.model import Reference
from generator.literature.polite import Failure, Politeness, RateLimiter

ENV_URL = "SCENARIOGEN_ARXIV_URL"
DEFAULT_URL = arxiv.Client.query_url_format

# Function words left out of the keyword group; the class's own words come from its
# search vocabulary (``arxiv_stopwords``).
_STOP = ("a", "an", "and", "for", "in", "of", "on", "the", "to", "with", "by", "using")
_WORD = re.compile(r"[a-z0-9][a-z0-9\-]*")


def build_query(text: str, search: SearchTerms, max_terms: int = 4) -> str:
    """An arXiv search_query anchored on the class's domain.

    ``text`` is a free-text query; its first ``max_terms`` content words (neither function
    words nor the class's ``arxiv_stopwords``) become an OR group that must co-occur with
    one of the ``arxiv_anchors`` phrases, and the ``excluded`` phrases are excluded with
    ANDNOT.

    Example:
        With anchors ``[a b, c d]`` and exclusions ``[x y]``, ``build_query("a b gas
        analysis", ...)`` → ``(all:"a b" OR all:"c d") AND (all:gas OR all:analysis)
        ANDNOT (all:"x y")``.
    """
    stop = {*_STOP, *(w.lower() for w in search.arxiv_stopwords)}
    words: list[str] = []
    for w in _WORD.findall(text.lower()):
        if w not in stop and w not in words:
            words.append(w)
    anchor = "(" + " OR ".join(f"all:{_phrase(a)}" for a in search.arxiv_anchors) + ")"
    parts = [anchor]
    if words:
        parts.append("(" + " OR ".join(f"all:{w}" for w in words[:max_terms]) + ")")
    query = " AND ".join(parts)
    if not search.excluded:
        return query
    return query + " ANDNOT (" + " OR ".join(f"all:{_phrase(e)}" for e in search.excluded) + ")"


def _phrase(text: str) -> str:
    """A phrase as arXiv searches it: quoted unless it is one plain word."""
    text = text.strip()
    return text if re.fullmatch(r"[A-Za-z0-9]+", text) else f'"{text}"'


class _TimeoutSession(requests.Session):
    """A session that applies a default timeout; the arxiv client passes none."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__()
        self.timeout_s = timeout_s

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout_s)
        return super().request(*args, **kwargs)


def classify(exc: BaseException) -> Failure | None:
    """Map an exception of the arxiv client to a retry decision."""
    if isinstance(exc, arxiv.HTTPError):
        status = int(exc.status)
        return Failure(status == 429 or status >= 500, status, f"HTTP {status}")
    if isinstance(exc, requests.Timeout):
        return Failure(True, None, "timeout")
    if isinstance(exc, requests.ConnectionError):
        return Failure(False, None, f"connection failed ({type(exc).__name__})")
    if isinstance(exc, arxiv.ArxivError | requests.RequestException):
        return Failure(False, None, f"{type(exc).__name__}")
    return None


def _short_id(result: arxiv.Result) -> str:
    # Drop the version so that v1 and v2 of a paper are one reference.
    return re.sub(r"v\d+$", "", result.get_short_id())


def to_reference(result: arxiv.Result) -> Reference:
    """An arXiv result as a :class:`Reference` (``arxiv:<id>`` without version)."""
    year = result.published.year if result.published.year > 1 else None
    return Reference(
        ref_id=f"arxiv:{_short_id(result)}",
        source="arxiv",
        title=" ".join(result.title.split()),
        year=year,
        authors=[a.name for a in result.authors],
        venue=result.journal_ref or f"arXiv ({result.primary_category})",
        url=result.entry_id or None,
        abstract=" ".join(result.summary.split()),
    )


class ArxivRetriever:
    """Search arXiv for an asset class's literature (anchored by its search vocabulary)."""

    name = "arxiv"

    def __init__(
        self,
        base_url: str | None = None,
        timeout_s: float = 20,
        max_retries: int = 3,
        min_interval_s: float = 3.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        *,
        search: SearchTerms,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.search_terms = search
        url = base_url or os.environ.get(ENV_URL) or None
        # The client formats the url-encoded arguments into this template.
        if url:
            self.endpoint = url if "{}" in url else url.rstrip("?") + "?{}"
        else:
            self.endpoint = DEFAULT_URL
        self._session = _TimeoutSession(timeout_s)
        self.timeout_s = timeout_s
        self.polite = Politeness(
            service="arxiv",
            min_interval_s=max(min_interval_s, 0.0),
            max_retries=max_retries,
            sleep=sleep,
            clock=clock,
            limiter=limiter,
        )

    def _client(self, page_size: int) -> arxiv.Client:
        """A client for one search; its own delay and retries are off (polite does both)."""
        client = arxiv.Client(page_size=page_size, delay_seconds=0, num_retries=0)
        client.query_url_format = self.endpoint
        # The client passes no timeout; the shared session adds ours.
        client._session = self._session
        return client

    def search(self, query: str, limit: int) -> list[Reference]:
        """Up to ``limit`` references; raises RetrievalError when arXiv does not answer."""
        if limit <= 0:
            return []
        search = arxiv.Search(query=build_query(query, self.search_terms), max_results=limit)
        client = self._client(limit)

        def fetch() -> list[arxiv.Result]:
            out: list[arxiv.Result] = []
            try:
                out.extend(client.results(search))
            except arxiv.UnexpectedEmptyPageError:
                # A later page came back empty: keep what the first page gave.
                if not out:
                    raise
            return out

        results = self.polite.call(fetch, classify)
        refs: dict[str, Reference] = {}
        for r in results:
            ref = to_reference(r)
            refs.setdefault(ref.ref_id, ref)
        return list(refs.values())
