"""A latency-simulating chat model for speed experiments (langchain ``BaseChatModel``).

It stands in for a real endpoint. Each call waits

    delay = call_latency_s                       (time to first token)
          + token_latency_s       × output tokens (the reply)
          + input_token_latency_s × input tokens  (the prompt: every message's text)

with tokens counted from the text by one rule, :func:`count_tokens`: a token is four
characters, rounded up (``ceil(len(text) / 4)``; an empty text is 0 tokens). The input
text is the messages' contents joined by newlines, as the prompt the model reads.

The wait is an asyncio sleep on the async path, so concurrent calls overlap as they would
against a server. ``bench experiments`` defaults to 0.5 s + 10 ms per output token
(``DEFAULT_*`` below); the flat model (``token_latency_s = input_token_latency_s = 0``,
1 s a call) is the old zero-token-cost stand-in, on request only.

A call fails with probability ``failure_rate`` (a garbled reply, which the pipeline rejects
and repairs), and otherwise replies with valid JSON for the generator's prompts: verbalise
and repair (one item per task in the prompt, built from the task's mentions, constraint,
rubric tools and answer; a repair words the task afresh, its choices drawn with the failed
attempt), open scenarios (with their category) and the budget proposal (an empty proposal:
the profile's weights are used). Replies are deterministic given the prompt and the seed.
Every call's start and duration is recorded (``calls``); tests inject the clock and the
sleep (:meth:`LatencyChatModel.use_clock`) so no test waits for real.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr

# The default latency model of `bench experiments` and the old flat one (on request).
DEFAULT_TTFT_S = 0.5
DEFAULT_OUTPUT_TOKEN_S = 0.010
DEFAULT_INPUT_TOKEN_S = 0.0
FLAT_CALL_S = 1.0
TOKEN_RULE = "ceil(characters / 4) per text; input = the messages joined by newlines"

_TASKS = re.compile(r"Tasks? \(JSON\):\n(.*?)\n\n", re.S)
_OPEN = re.compile(r"Write (\d+) open (\w+) requests")
_OPENERS = (
    "For the condition review", "Before the outage meeting", "For the monthly report",
    "For the planner", "Quick check", "For the asset manager", "For the shift log",
    "Ahead of the inspection",
)
# Three independent choices per task (512 combinations of whole phrases), so two tasks
# with similar facts still read differently, as a real model's texts would.
_WHYS = (
    "we are reconciling the fleet records", "the regional manager asked this morning",
    "the maintenance crew needs it before dispatch", "it goes into the risk register",
    "the insurer wants the figure", "we are preparing the winter readiness review",
    "the control room flagged the unit", "the budget round closes this week",
)
_CLOSERS = (
    "Thanks.", "Please keep it brief.", "A short answer is fine.", "Numbers only, please.",
    "I need it within the hour.", "Add the units you used.", "Say which records you read.",
    "Keep the wording plain.",
)


def _digest(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:8], "big")


def _item(task: dict[str, Any], salt: str = "") -> dict[str, Any]:
    key = str(task.get("seed_key", ""))
    h = _digest(key, salt) if salt else _digest(key)
    opener, why = _OPENERS[h % 8], _WHYS[(h >> 8) % 8]
    closer = _CLOSERS[(h >> 16) % 8]
    text = (
        f"{opener}, because {why}: the {task.get('role', 'operator')} asks about "
        + "; ".join(str(m) for m in task.get("mentions", []))
        + (f". Constraint: {task['constraint']}" if task.get("constraint") else ".")
        + f" {closer}"
    )
    form = (
        "The response should use "
        + ", ".join(f"`{t}`" for t in task.get("tools_for_rubric", []))
        + f" and report: {task.get('answer')}"
    )
    return {"seed_key": key, "text": text, "characteristic_form": form}


def count_tokens(text: str) -> int:
    """Tokens of ``text`` by the stand-in's rule: four characters a token, rounded up."""
    return math.ceil(len(text) / 4)


def call_delay(
    prompt: str, reply: str, *, ttft_s: float, output_token_s: float, input_token_s: float = 0.0
) -> float:
    """Seconds one call takes under the token-priced model (formula in the module docstring)."""
    return ttft_s + output_token_s * count_tokens(reply) + input_token_s * count_tokens(prompt)


def reply_for(prompt: str) -> str:
    """A valid reply to one of the generator's prompts."""
    match = _TASKS.search(prompt)
    if match:
        data = json.loads(match.group(1))
        tasks = data if isinstance(data, list) else [data]
        if "Tasks (JSON)" in prompt:
            return json.dumps({"items": [_item(t) for t in tasks]})
        # A repair: words the task afresh (choices drawn with the failed attempt and its
        # reasons), as a model told what failed would, instead of repeating the attempt.
        _, _, failed = prompt.partition("Previous attempt (JSON):")
        return json.dumps(_item(tasks[0], salt=failed))
    opened = _OPEN.search(prompt)
    if opened:
        k, domain = int(opened.group(1)), opened.group(2)
        items = [
            {"text": f"{_OPENERS[i % len(_OPENERS)]}: what would you weigh before deciding "
                     f"on {domain} measure {i + 1} for the fleet, and why?",
             "characteristic_form": "A reasoned answer naming the evidence to check.",
             "category": "Decision Support" if i % 2 else "Knowledge Query"}
            for i in range(k)
        ]
        return json.dumps({"items": items})
    return "{}"


class LatencyChatModel(BaseChatModel):
    """Valid replies after a simulated latency; see the module docstring."""

    call_latency_s: float = Field(
        default=1.0, ge=0, description="Seconds per call before the first token"
    )
    token_latency_s: float = Field(default=0.0, ge=0, description="Seconds per reply token")
    input_token_latency_s: float = Field(
        default=0.0, ge=0, description="Seconds per prompt token"
    )
    failure_rate: float = Field(default=0.0, ge=0, le=1, description="Share of garbled replies")
    seed: int = Field(default=0, description="Seed of the failure draws")
    _calls: list[tuple[float, float]] = PrivateAttr(default_factory=list)
    _clock: Callable[[], float] = PrivateAttr(default_factory=lambda: time.perf_counter)
    _sleep: Callable[[float], Awaitable[Any]] = PrivateAttr(default_factory=lambda: asyncio.sleep)
    _sync_sleep: Callable[[float], Any] = PrivateAttr(default_factory=lambda: time.sleep)

    @property
    def _llm_type(self) -> str:
        return "latency-sim"

    @property
    def calls(self) -> list[tuple[float, float]]:
        """(start, seconds) of every call, on the model's clock (perf_counter unless set)."""
        return list(self._calls)

    def parameters(self) -> dict[str, Any]:
        """The latency model as the bench report states it."""
        flat = self.token_latency_s == 0 and self.input_token_latency_s == 0
        return {
            "kind": "flat" if flat else "tokens",
            "ttft_s": self.call_latency_s,
            "output_token_s": self.token_latency_s,
            "input_token_s": self.input_token_latency_s,
            "token_rule": TOKEN_RULE,
            "failure_rate": self.failure_rate,
        }

    def use_clock(
        self,
        clock: Callable[[], float],
        sleep: Callable[[float], Awaitable[Any]],
        sync_sleep: Callable[[float], Any] | None = None,
    ) -> LatencyChatModel:
        """Wait and time with these instead of the real clock (tests); returns the model."""
        self._clock, self._sleep = clock, sleep
        if sync_sleep is not None:
            self._sync_sleep = sync_sleep
        return self

    def _plan(self, messages: list[BaseMessage]) -> tuple[str, float]:
        prompt = "\n".join(str(m.content) for m in messages)
        reply = reply_for(prompt)
        draw = _digest(str(self.seed), prompt, str(len(self._calls))) / 2**64
        if draw < self.failure_rate:
            reply = '{"items": [ {"seed_key": "garbled'
        return reply, call_delay(
            prompt, reply, ttft_s=self.call_latency_s, output_token_s=self.token_latency_s,
            input_token_s=self.input_token_latency_s,
        )

    def _result(self, reply: str) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply, wait = self._plan(messages)
        start = self._clock()
        self._sync_sleep(wait)
        self._calls.append((start, self._clock() - start))
        return self._result(reply)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply, wait = self._plan(messages)
        start = self._clock()
        await self._sleep(wait)
        self._calls.append((start, self._clock() - start))
        return self._result(reply)
