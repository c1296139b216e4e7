"""Fixtures of the literature tests: a scripted local HTTP server and an isolated cache."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generator.literature import polite

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "literature"


@dataclass
class Reply:
    """One scripted HTTP reply."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/atom+xml"
    delay_s: float = 0.0


@dataclass
class FixtureServer:
    """A stdlib HTTP server on 127.0.0.1 that answers from a script, then a default."""

    url: str = ""
    script: deque[Reply] = field(default_factory=deque)
    default: Reply = field(default_factory=lambda: Reply(status=500, body=b"{}"))
    paths: list[str] = field(default_factory=list)

    def next_reply(self, path: str) -> Reply:
        self.paths.append(path)
        return self.script.popleft() if self.script else self.default


def _handler(state: FixtureServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reply = state.next_reply(self.path)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                # The client gave up (timeout test): nothing left to answer.
                pass

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    """A fresh scripted server per test."""
    state = FixtureServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No endpoint overrides from the environment, a tmp cache dir, fresh limiters."""
    for var in ("SCENARIOGEN_ARXIV_URL", "SCENARIOGEN_S2_URL", "SEMANTIC_SCHOLAR_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    polite.reset_limiters()
    yield
    polite.reset_limiters()


@pytest.fixture
def atom_feed() -> bytes:
    """The arXiv fixture feed (synthetic ids, see the comment in the file)."""
    return (FIXTURES / "arxiv_feed.xml").read_bytes()


@pytest.fixture
def s2_json() -> bytes:
    """The Semantic Scholar fixture search response (synthetic records)."""
    return (FIXTURES / "s2_search.json").read_bytes()


class SleepRecorder:
    """An injected sleep that records instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(round(seconds, 6))


@pytest.fixture
def sleeps() -> SleepRecorder:
    """A fresh sleep recorder."""
    return SleepRecorder()
