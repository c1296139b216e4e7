"""LLMClient.ask_json / ask_text offline: parsing, retries, timeouts, rate limit, tokens."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Literal

import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from generator.errors import UserError
from generator.llm.client import (
    LLMClient,
    _is_sync_only,
    extract_json,
    grammar_safe,
    make_client,
)
from generator.llm.fake import ScriptedChatModel
from generator.llm.spec import LLMSpec, parse_llm


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=200, description="The question")
    category: Literal["dga", "thermal"] = Field(description="Topic")


GOOD = '{"text": "Which gas dominates?", "category": "dga"}'


async def _no_sleep(_: float) -> None:
    return None


class Status429(Exception):
    """Shaped like openai.RateLimitError / ollama.ResponseError: carries status_code."""

    status_code = 429


class Status401(Exception):
    status_code = 401


class ActionModel(BaseChatModel):
    """Async-native test model: each action is a reply, an exception, or ('sleep', s)."""

    actions: list[Any]
    usage: bool = True
    _calls: int = PrivateAttr(default=0)
    _starts: list[float] = PrivateAttr(default_factory=list)
    clock: Any = None

    @property
    def _llm_type(self) -> str:
        return "action-test"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise NotImplementedError("async only")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.clock is not None:
            self._starts.append(self.clock())
        action = self.actions[self._calls]
        self._calls += 1
        if isinstance(action, BaseException):
            raise action
        if isinstance(action, tuple) and action[0] == "sleep":
            await asyncio.sleep(action[1])
            action = GOOD
        usage = {"input_tokens": 11, "output_tokens": 5, "total_tokens": 16}
        message = AIMessage(content=action, usage_metadata=usage if self.usage else None)
        return ChatResult(generations=[ChatGeneration(message=message)])


def _client(model: BaseChatModel, **spec: Any) -> LLMClient:
    return LLMClient.from_model(
        model, label="test", spec=LLMSpec(backend="fake", **spec), sleep=_no_sleep
    )


async def test_happy_path_sends_schema_and_validates() -> None:
    model = ScriptedChatModel([GOOD])
    client = LLMClient.from_model(model)
    result = await client.ask_json("stage", "You ask.", "One please.", Question)
    assert result.ok and result.error is None
    assert result.value == Question(text="Which gas dominates?", category="dga")
    assert result.attempts == 1
    assert result.raw == GOOD
    assert '"maxLength":200' in model.prompts[0]  # the schema travels in the prompt
    assert "One please." in model.prompts[0]


async def test_garbled_json_is_data_not_an_exception() -> None:
    garbled = '{"text": "Which gas", "category": dga}'
    result = await LLMClient.from_model(ScriptedChatModel([garbled])).ask_json(
        "s", "sys", "user", Question
    )
    assert not result.ok and result.value is None
    assert result.raw == garbled
    assert result.error is not None and result.error.startswith("reply is not JSON:")
    assert result.attempts == 1  # parse errors are not retried here


async def test_prose_only_reply() -> None:
    result = await LLMClient.from_model(ScriptedChatModel(["Sure! I can help."])).ask_json(
        "s", "sys", "user", Question
    )
    assert not result.ok
    assert result.error is not None and "no JSON object or array found" in result.error


async def test_fenced_json_with_leading_prose() -> None:
    reply = f"Here you go:\n```json\n{GOOD}\n```\nAnything else?"
    result = await LLMClient.from_model(ScriptedChatModel([reply])).ask_json(
        "s", "sys", "user", Question
    )
    assert result.ok and result.value is not None
    assert result.value.category == "dga"


async def test_missing_field_names_the_field() -> None:
    result = await LLMClient.from_model(ScriptedChatModel(['{"category": "dga"}'])).ask_json(
        "s", "sys", "user", Question
    )
    assert not result.ok
    assert result.error == "reply does not match the schema: field 'text': Field required"


async def test_bad_enum_and_too_long_are_named() -> None:
    reply = json.dumps({"text": "x" * 201, "category": "vibration"})
    result = await LLMClient.from_model(ScriptedChatModel([reply])).ask_json(
        "s", "sys", "user", Question
    )
    assert result.error is not None
    assert "field 'text'" in result.error and "field 'category'" in result.error


async def test_timeout_is_retried_then_reported() -> None:
    model = ActionModel(actions=[("sleep", 30), ("sleep", 30)])
    result = await _client(model, timeout_s=0.05, retries=1).ask_json("s", "a", "b", Question)
    assert not result.ok
    assert result.error == "timeout: no reply within 0.05 s after 2 attempts"
    assert result.attempts == 2


async def test_429_then_success_is_retried() -> None:
    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    model = ActionModel(actions=[Status429("rate limited"), GOOD])
    client = LLMClient.from_model(model, spec=LLMSpec(backend="fake"), sleep=record)
    result = await client.ask_json("s", "a", "b", Question)
    assert result.ok and result.attempts == 2
    assert slept == [1.0]  # first backoff step
    assert client.usage["s"]["attempts"] == 2 and client.usage["s"]["failures"] == 0


async def test_retries_exhausted_on_5xx() -> None:
    class Status503(Exception):
        status_code = 503

    model = ActionModel(actions=[Status503("busy")] * 3)
    result = await _client(model, retries=2).ask_json("s", "a", "b", Question)
    assert not result.ok and result.attempts == 3
    assert result.error is not None and "HTTP 503" in result.error


async def test_unreachable_server_is_a_user_error() -> None:
    model = ActionModel(actions=[ConnectionRefusedError("refused")] * 2)
    with pytest.raises(UserError, match="cannot reach the LLM server"):
        await _client(model, retries=1).ask_json("s", "a", "b", Question)


async def test_bad_credentials_are_a_user_error_without_retry() -> None:
    model = ActionModel(actions=[Status401("no")])
    with pytest.raises(UserError, match="credentials"):
        await _client(model, retries=3).ask_json("s", "a", "b", Question)


async def test_bugs_propagate_and_exhausted_fake_is_loud() -> None:
    client = LLMClient.from_model(ScriptedChatModel([GOOD]))
    await client.ask_json("s", "a", "b", Question)
    with pytest.raises(RuntimeError, match="exhausted"):
        await client.ask_json("s", "a", "b", Question)


async def test_token_accounting_per_stage() -> None:
    usage = {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}
    replies = [AIMessage(content=GOOD, usage_metadata=usage) for _ in range(2)]
    replies.append(AIMessage(content="oops", usage_metadata=usage))
    client = LLMClient.from_model(ScriptedChatModel(replies))
    await client.ask_json("verbalise", "a", "b", Question)
    await client.ask_json("verbalise", "a", "b", Question)
    await client.ask_json("repair", "a", "b", Question)
    assert client.usage["verbalise"] == {
        "calls": 2,
        "attempts": 2,
        "failures": 0,
        "input_tokens": 20,
        "output_tokens": 8,
        "estimated": 0,
        "latency_ms": client.usage["verbalise"]["latency_ms"],
    }
    assert client.usage["repair"]["failures"] == 1
    assert client.usage["repair"]["input_tokens"] == 10


async def test_tokens_estimated_when_model_reports_none() -> None:
    client = _client(ActionModel(actions=[GOOD], usage=False))
    await client.ask_json("s", "a", "b", Question)
    counts = client.usage["s"]
    assert counts["estimated"] == 1
    assert counts["output_tokens"] == len(GOOD) // 4
    assert counts["input_tokens"] > 0


async def test_rate_limit_spaces_call_starts() -> None:
    now = [100.0]

    def clock() -> float:
        return now[0]

    async def fake_sleep(seconds: float) -> None:
        now[0] += seconds

    model = ActionModel(actions=[GOOD] * 4, clock=clock)
    client = LLMClient.from_model(
        model, spec=LLMSpec(backend="fake", min_interval_s=2.5), sleep=fake_sleep, clock=clock
    )
    for _ in range(4):
        await client.ask_json("s", "a", "b", Question)
    assert model._starts == [100.0, 102.5, 105.0, 107.5]


async def test_rate_limit_serialises_concurrent_starts() -> None:
    now = [0.0]
    granted: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        now[0] += seconds
        granted.append(now[0])

    model = ActionModel(actions=[GOOD] * 4)
    client = LLMClient.from_model(
        model,
        spec=LLMSpec(backend="fake", min_interval_s=2.0),
        sleep=fake_sleep,
        clock=lambda: now[0],
    )
    results = await client.ask_json_many("s", "a", ["1", "2", "3", "4"], Question)
    assert all(r.ok for r in results)
    # The first call starts at once; each later one waits for its own slot.
    assert granted == [2.0, 4.0, 6.0]


async def test_rate_limit_does_not_wait_when_calls_are_far_apart() -> None:
    now = [0.0]
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    model = ActionModel(actions=[GOOD] * 2)
    client = LLMClient.from_model(
        model,
        spec=LLMSpec(backend="fake", min_interval_s=1.0),
        sleep=fake_sleep,
        clock=lambda: now[0],
    )
    await client.ask_json("s", "a", "b", Question)
    now[0] = 10.0
    await client.ask_json("s", "a", "b", Question)
    assert slept == []


async def test_structured_path_reads_tool_call_arguments() -> None:
    reply = AIMessage(
        content="",
        tool_calls=[
            {"name": "Question", "args": {"text": "Why?", "category": "thermal"}, "id": "1"}
        ],
    )
    client = _client(ScriptedChatModel([reply]), structured=True)
    result = await client.ask_json("s", "a", "b", Question)
    assert result.ok and result.value == Question(text="Why?", category="thermal")
    assert json.loads(result.raw) == {"text": "Why?", "category": "thermal"}


async def test_structured_path_reports_invalid_arguments() -> None:
    reply = AIMessage(
        content="", tool_calls=[{"name": "Question", "args": {"text": "Why?"}, "id": "1"}]
    )
    result = await _client(ScriptedChatModel([reply]), structured=True).ask_json(
        "s", "a", "b", Question
    )
    assert not result.ok
    assert result.error is not None and "field 'category': Field required" in result.error


async def test_ask_text() -> None:
    client = LLMClient.from_model(ScriptedChatModel(["  a sentence  ", " "]))
    first = await client.ask_text("t", "sys", "user")
    assert first.ok and first.value == "a sentence"
    second = await client.ask_text("t", "sys", "user")
    assert not second.ok and second.error == "reply is empty"
    assert client.usage["t"]["failures"] == 1


def test_label_and_usage_hold_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-SECRET-abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    client = make_client(parse_llm("openai:gpt-4o-mini"))
    assert client is not None
    assert client.label == "openai:gpt-4o-mini"
    assert secret not in json.dumps(client.usage) + client.label + repr(client.spec)


def test_make_client_none() -> None:
    assert make_client(parse_llm("none")) is None
    with pytest.raises(ValueError):
        LLMClient(parse_llm("none"))


def test_extract_json_variants() -> None:
    assert extract_json("[1, 2]") == [1, 2]
    assert extract_json('Answer: {"a": "}{"} done') == {"a": "}{"}
    assert extract_json('see {this} and then {"a": 1}') == {"a": 1}
    with pytest.raises(ValueError, match="cut off"):
        extract_json('{"a": "unterminated')


def test_grammar_safe() -> None:
    assert grammar_safe(Question.model_json_schema())

    class Loose(BaseModel):
        text: str

    assert not grammar_safe(Loose.model_json_schema())

    class Nested(BaseModel):
        items: list[Question]

    assert grammar_safe(Nested.model_json_schema())


def test_sync_only_detection() -> None:
    assert not _is_sync_only(ScriptedChatModel([]))
    assert not _is_sync_only(ActionModel(actions=[]))

    class SyncOnly(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "sync"

        def _generate(
            self,
            messages: list[BaseMessage],
            stop: list[str] | None = None,
            run_manager: CallbackManagerForLLMRun | None = None,
            **kwargs: Any,
        ) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=GOOD))])

    assert _is_sync_only(SyncOnly())


async def test_sync_only_model_runs_in_the_pool_one_call_at_a_time() -> None:
    import threading

    seen: list[str] = []
    inside = [0]
    most = [0]
    guard = threading.Lock()

    class SyncOnly(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "sync"

        def _generate(
            self,
            messages: list[BaseMessage],
            stop: list[str] | None = None,
            run_manager: CallbackManagerForLLMRun | None = None,
            **kwargs: Any,
        ) -> ChatResult:
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            seen.append(threading.current_thread().name)
            time.sleep(0.02)  # long enough for overlapping calls to show up
            with guard:
                inside[0] -= 1
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=GOOD))])

    model = SyncOnly()
    first, second = LLMClient.from_model(model), LLMClient.from_model(model)
    results = await asyncio.gather(
        first.ask_json_many("s", "a", ["1", "2", "3"], Question),
        second.ask_json_many("s", "a", ["4", "5"], Question),
    )
    assert all(r.ok for batch in results for r in batch)
    assert len(seen) == 5
    assert all(name.startswith("scenariogen-io") for name in seen)
    assert most[0] == 1  # llama.cpp is not thread-safe: never two calls inside the model


async def test_a_generation_client_stops_on_an_outage_instead_of_failing_the_reply() -> None:
    from generator.errors import LLMUnavailable

    class Status503(Exception):
        status_code = 503

    timeouts = _client(ActionModel(actions=[("sleep", 30)] * 2), timeout_s=0.05, retries=1)
    timeouts.stop_on_outage = True
    with pytest.raises(LLMUnavailable, match=r"kept failing .*timeout.* after 2 attempts"):
        await timeouts.ask_json("s", "a", "b", Question)
    busy = _client(ActionModel(actions=[Status503("busy")] * 2), retries=1)
    busy.stop_on_outage = True
    with pytest.raises(LLMUnavailable, match="HTTP 503"):
        await busy.ask_json("s", "a", "b", Question)
    # a reply the server refused (400) is about this request, not an outage
    class Status400(Exception):
        status_code = 400

    refused = _client(ActionModel(actions=[Status400("bad")]), retries=1)
    refused.stop_on_outage = True
    assert not (await refused.ask_json("s", "a", "b", Question)).ok
