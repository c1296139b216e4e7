"""The real ChatOpenAI against a scripted OpenAI-compatible server on 127.0.0.1.

openai 3.x sends through ``httpx2`` (its own fork of httpx), which respx cannot intercept;
a stdlib HTTP server on a free loopback port tests the exact production path (ChatOpenAI,
the openai client, a real socket) with no outside network.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field

from generator.errors import UserError
from generator.llm.client import LLMClient
from generator.llm.spec import parse_llm


class Finding(BaseModel):
    text: str = Field(max_length=200, description="One finding")
    severity: Literal["low", "high"] = Field(description="How bad")


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_780_000_000,
        "model": "local-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 42, "completion_tokens": 9, "total_tokens": 51},
    }


async def _no_sleep(_: float) -> None:
    return None


@dataclass
class FakeServer:
    """Replies to POST /v1/chat/completions from a script of (status, json body)."""

    base: str = ""
    script: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    requests: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    state = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append((self.path, dict(self.headers.items()), body))
            if not state.script:
                status, payload = 500, {"error": {"message": "script exhausted"}}
            else:
                status, payload = state.script.pop(0)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _client(server: FakeServer, **settings: Any) -> LLMClient:
    spec = parse_llm("openai:local-model", base_url=server.base, **settings)
    return LLMClient(spec, sleep=_no_sleep)


async def test_text_json_round_trip(server: FakeServer) -> None:
    client = _client(server)
    assert isinstance(client.model, ChatOpenAI)
    assert client.model.openai_api_base == server.base
    content = '```json\n{"text": "H2 rising", "severity": "high"}\n```'
    server.script.append((200, _completion({"role": "assistant", "content": content})))
    result = await client.ask_json("digest", "You summarise.", "Oil sample 3.", Finding)
    assert result.ok, result.error
    assert result.value == Finding(text="H2 rising", severity="high")
    path, headers, body = server.requests[-1]
    assert path == "/v1/chat/completions"
    assert {k.lower(): v for k, v in headers.items()}["authorization"] == "Bearer not-needed"
    assert body["model"] == "local-model"
    assert "tools" not in body  # text mode by default
    assert '"maxLength":200' in body["messages"][0]["content"]
    assert body["messages"][1] == {"role": "user", "content": "Oil sample 3."}
    assert client.usage["digest"]["input_tokens"] == 42
    assert client.usage["digest"]["output_tokens"] == 9
    assert client.usage["digest"]["estimated"] == 0


async def test_structured_round_trip_uses_function_calling(server: FakeServer) -> None:
    client = _client(server, structured=True)
    arguments = json.dumps({"text": "C2H2 present", "severity": "high"})
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "Finding", "arguments": arguments},
    }
    server.script.append(
        (200, _completion({"role": "assistant", "content": None, "tool_calls": [call]}))
    )
    result = await client.ask_json("digest", "sys", "user", Finding)
    assert result.ok, result.error
    assert result.value == Finding(text="C2H2 present", severity="high")
    body = server.requests[-1][2]
    assert body["tools"][0]["function"]["name"] == "Finding"
    assert "response_format" not in body  # function_calling, not json_schema


async def test_server_errors_are_retried_through_the_real_client(server: FakeServer) -> None:
    good = {"role": "assistant", "content": '{"text": "ok", "severity": "low"}'}
    server.script += [
        (503, {"error": {"message": "loading model"}}),
        (429, {"error": {"message": "slow down"}}),
        (200, _completion(good)),
    ]
    result = await _client(server).ask_json("s", "sys", "user", Finding)
    assert result.ok and result.attempts == 3
    assert len(server.requests) == 3


async def test_unauthorised_is_a_user_error(server: FakeServer) -> None:
    server.script.append((401, {"error": {"message": "bad key"}}))
    with pytest.raises(UserError, match="credentials"):
        await _client(server).ask_json("s", "sys", "user", Finding)


async def test_bad_request_is_not_retried(server: FakeServer) -> None:
    server.script.append((400, {"error": {"message": "context too long"}}))
    result = await _client(server).ask_json("s", "sys", "user", Finding)
    assert not result.ok and result.attempts == 1 and len(server.requests) == 1
    assert result.error is not None and "HTTP 400" in result.error


async def test_unreachable_server_is_a_user_error(server: FakeServer) -> None:
    spec = parse_llm("openai:local-model", base_url="http://127.0.0.1:9/v1", retries=1)
    client = LLMClient(spec, sleep=_no_sleep)
    with pytest.raises(UserError, match="cannot reach the LLM server"):
        await client.ask_json("s", "sys", "user", Finding)
