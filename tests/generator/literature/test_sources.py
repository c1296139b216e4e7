"""arXiv and Semantic Scholar retrievers against a local fixture server (offline)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from generator.assetdef import load_asset_class
from generator.literature.arxiv_source import ArxivRetriever, build_query
from generator.literature.corpus import search_terms
from generator.literature.polite import RateLimiter, RetrievalError
from generator.literature.retrievers import make_retriever
from generator.literature.s2_source import SemanticScholarRetriever
from tests.generator.literature.conftest import FixtureServer, Reply, SleepRecorder

SEARCH = search_terms(load_asset_class("transformer"))


def _frozen_clock() -> float:
    return 0.0


def _arxiv(server: FixtureServer, sleeps: SleepRecorder, **kw: object) -> ArxivRetriever:
    return ArxivRetriever(
        base_url=f"{server.url}/api/query",
        search=SEARCH,
        sleep=sleeps,
        clock=_frozen_clock,
        limiter=RateLimiter(),
        **kw,  # type: ignore[arg-type]
    )


def test_arxiv_success_through_real_client(
    server: FixtureServer, sleeps: SleepRecorder, atom_feed: bytes
) -> None:
    server.script.append(Reply(body=atom_feed))
    refs = _arxiv(server, sleeps).search("power transformer dissolved gas analysis", 4)
    assert [r.ref_id for r in refs] == [
        "arxiv:2401.00001",
        "arxiv:2401.00002",
        "arxiv:2401.00003",
        "arxiv:2401.00004",
    ]
    first = refs[0]
    assert first.source == "arxiv"
    assert first.year == 2024
    assert first.authors == ["A. Fixture"]
    assert "\n" not in first.title and first.title.startswith("Fixture: Ratio-based")
    assert refs[1].venue == "Fixture Journal of Power Engineering 1 (2024)"
    assert refs[0].venue == "arXiv (eess.SP)"
    # The request went to the override with an anchored, filtered query.
    assert len(server.paths) == 1
    url = urlparse(server.paths[0])
    assert url.path == "/api/query"
    query = parse_qs(url.query)["search_query"][0]
    assert 'all:"power transformer"' in query
    assert "ANDNOT" in query and 'all:"language model"' in query
    assert "all:dissolved" in query
    assert sleeps.calls == []


def test_arxiv_query_keeps_to_power_engineering() -> None:
    q = build_query("oil-immersed power transformer partial discharge UHF detection", SEARCH)
    assert q.startswith('(all:"power transformer" OR')
    assert "(all:partial OR all:discharge OR all:uhf OR all:detection)" in q
    assert "all:oil-immersed" not in q.split(" AND ")[1]


def test_arxiv_429_then_success_backs_off_with_injected_sleep(
    server: FixtureServer, sleeps: SleepRecorder, atom_feed: bytes
) -> None:
    server.script.extend([Reply(status=429, body=b"slow down"), Reply(body=atom_feed)])
    refs = _arxiv(server, sleeps).search("power transformer thermal fault", 4)
    assert len(refs) == 4
    assert len(server.paths) == 2
    # Backoff 2 s after the 429, then the limiter keeps 3 s after the first request
    # (the frozen clock never advances, so the whole interval is slept).
    assert sleeps.calls == [2.0, 3.0]


def test_arxiv_persistent_429_raises_typed_error(
    server: FixtureServer, sleeps: SleepRecorder
) -> None:
    server.default = Reply(status=429)
    with pytest.raises(RetrievalError) as info:
        _arxiv(server, sleeps, max_retries=2, min_interval_s=0.0).search("power transformer", 3)
    err = info.value
    assert (err.service, err.status, err.attempts) == ("arxiv", 429, 3)
    assert str(err) == "arxiv: HTTP 429 after 3 attempts"
    assert len(server.paths) == 3
    assert sleeps.calls == [2.0, 4.0]


def test_arxiv_client_error_is_not_retried(server: FixtureServer, sleeps: SleepRecorder) -> None:
    server.default = Reply(status=400)
    with pytest.raises(RetrievalError, match=r"HTTP 400 after 1 attempt$"):
        _arxiv(server, sleeps).search("power transformer", 3)
    assert len(server.paths) == 1


def test_arxiv_timeout_is_retried_then_raises(
    server: FixtureServer, sleeps: SleepRecorder, atom_feed: bytes
) -> None:
    server.default = Reply(body=atom_feed, delay_s=1.5)
    retriever = _arxiv(server, sleeps, timeout_s=0.5, max_retries=1, min_interval_s=0.0)
    with pytest.raises(RetrievalError, match="arxiv: timeout after 2 attempts"):
        retriever.search("power transformer", 3)
    assert len(server.paths) == 2


def test_arxiv_env_override_through_registry(
    server: FixtureServer, atom_feed: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_ARXIV_URL", f"{server.url}/env/query")
    server.script.append(Reply(body=atom_feed))
    retriever = make_retriever("arxiv", "transformer")
    assert retriever.name == "arxiv"
    refs = retriever.search("power transformer", 2)
    assert len(refs) == 2
    assert urlparse(server.paths[0]).path == "/env/query"


def test_limiter_spaces_requests_across_calls() -> None:
    clock = [10.0]
    slept: list[float] = []
    lim = RateLimiter()
    for _ in range(3):
        lim.wait(3.0, sleep=slept.append, clock=lambda: clock[0])
    assert slept == [3.0, 6.0]
    clock[0] = 100.0
    assert lim.wait(3.0, sleep=slept.append, clock=lambda: clock[0]) == 0.0


def _s2(server: FixtureServer, sleeps: SleepRecorder, **kw: object) -> SemanticScholarRetriever:
    return SemanticScholarRetriever(
        api_url=server.url,
        search=SEARCH,
        sleep=sleeps,
        clock=_frozen_clock,
        limiter=RateLimiter(),
        **kw,  # type: ignore[arg-type]
    )


def test_semantic_scholar_success(
    server: FixtureServer, sleeps: SleepRecorder, s2_json: bytes
) -> None:
    server.script.append(Reply(body=s2_json, content_type="application/json"))
    refs = _s2(server, sleeps).search("health index fleet ranking", 5)
    assert [r.ref_id for r in refs] == [
        "s2:f1x7ure0000000000000000000000000000000a1",
        "s2:f1x7ure0000000000000000000000000000000b2",
    ]
    assert refs[0].source == "semanticscholar"
    assert refs[0].year == 2021 and refs[0].authors == ["F. Fixture"]
    assert refs[1].url is None
    url = urlparse(server.paths[0])
    assert url.path == "/graph/v1/paper/search"
    assert parse_qs(url.query)["query"][0].startswith("power transformer health index")
    assert len(server.paths) == 1


def test_semantic_scholar_429_retried_with_our_backoff_then_raises(
    server: FixtureServer, sleeps: SleepRecorder
) -> None:
    server.default = Reply(status=429, body=b"{}", content_type="application/json")
    with pytest.raises(RetrievalError) as info:
        _s2(server, sleeps, max_retries=1).search("power transformer", 5)
    assert (info.value.status, info.value.attempts) == (429, 2)
    # The package's own tenacity retry is off: exactly our 2 attempts reached the server.
    assert len(server.paths) == 2
    assert sleeps.calls == [2.0, 1.0]


def test_semantic_scholar_uses_key_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", "k-test")
    monkeypatch.setenv("SCENARIOGEN_S2_URL", "http://127.0.0.1:9")
    retriever = make_retriever("semanticscholar", "transformer")
    assert isinstance(retriever, SemanticScholarRetriever)
    assert retriever.endpoint == "http://127.0.0.1:9"
    assert retriever.client._AsyncSemanticScholar.auth_header == {"x-api-key": "k-test"}
