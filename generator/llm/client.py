"""One client for every LLM call: JSON or text out, retries, timeouts, rate limit, tokens.

A bad reply is data, not an exception: :meth:`LLMClient.ask_json` returns an
:class:`LLMResult` with ``ok=False``, the raw text and what was wrong, and the caller's
repair loop decides what to do. Only transient failures (timeouts, connection errors,
HTTP 429 and 5xx) are retried here, with exponential backoff; a reply that does not parse
is never retried here because a repair prompt that names the error does better than the
same prompt again.

Structured output, one code path for every backend: the prompt always carries the JSON
Schema and the reply's raw text is always extracted and validated by us. What differs is
only how the model is asked to produce that text:

* text mode (the default for openai, ollama and fake): the plain chat model;
* structured mode (default for smollm2, opt-in elsewhere with ``LLMSpec.structured``):
  ``with_structured_output(schema, include_raw=True)`` (openai: ``function_calling``,
  which works against llama.cpp's server where ``json_schema`` gets HTTP 500; ollama:
  its ``format``; smollm2: a llama.cpp grammar). The raw tool-call arguments are then
  validated like text. smollm2 only gets a grammar when every string in the schema has a
  ``maxLength`` (or an enum): an unbounded string lets the 135M model ramble until
  ``max_tokens`` and return truncated JSON, so such schemas fall back to text mode.

Prompts are never logged at INFO or above: they may hold held-out answers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import httpx
import openai
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import LLMResult as LCResult
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator import safeparse
from generator.concurrency import fan_out, semaphore, to_thread
from generator.errors import LLMUnavailable, UserError
from generator.llm import timing as call_graph
from generator.llm.backends import make_chat_model
from generator.llm.fake import estimate_tokens
from generator.llm.sanitise import clean_text, clean_value
from generator.llm.spec import LLMSpec
from generator.llm.timing import CallTiming, next_round

log = logging.getLogger(__name__)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

DEFAULT_CONCURRENCY = 4
BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 30.0
USAGE_KEYS = (
    "calls",
    "attempts",
    "failures",
    "input_tokens",
    "output_tokens",
    "estimated",
    "latency_ms",
)


class LLMResult(BaseModel, Generic[T]):
    """The outcome of one ask: a validated value, or the raw reply and what was wrong."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ok: bool = Field(description="True when value holds a reply that parsed and validated")
    value: T | None = Field(default=None, description="The validated value when ok")
    raw: str = Field(default="", description="The reply text as received ('' if none came)")
    error: str | None = Field(default=None, description="What was wrong when not ok")
    attempts: int = Field(default=0, ge=0, description="Model calls made, retries included")


ErrorKind = Literal["timeout", "connection", "status", "rejected"]


@dataclass
class _Failure:
    kind: ErrorKind
    message: str
    retry_after_s: float | None = None


class _UsageHandler(BaseCallbackHandler):
    """Collects token usage of one model call, whatever runnable wraps the model."""

    # Called in the model's own thread/task rather than through an executor.
    run_inline = True

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.reported = False

    def on_llm_end(self, response: LCResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for gen in generations:
                message = getattr(gen, "message", None)
                usage = getattr(message, "usage_metadata", None)
                if usage:
                    self.input_tokens += int(usage.get("input_tokens", 0))
                    self.output_tokens += int(usage.get("output_tokens", 0))
                    self.reported = True
        if self.reported:
            return
        # llama.cpp (ChatLlamaCpp) reports OpenAI-style counts only in llm_output.
        token_usage = (response.llm_output or {}).get("token_usage") or {}
        if token_usage:
            self.input_tokens += int(token_usage.get("prompt_tokens", 0))
            self.output_tokens += int(token_usage.get("completion_tokens", 0))
            self.reported = True


_MODEL_LOCKS: dict[int, tuple[BaseChatModel, threading.Lock]] = {}
_MODEL_GATES: dict[tuple[int, int], tuple[BaseChatModel, asyncio.Lock]] = {}
_MODEL_LOCKS_GUARD = threading.Lock()


def _model_lock(model: BaseChatModel) -> threading.Lock:
    """One lock per sync-only model object: llama.cpp contexts are not thread-safe."""
    with _MODEL_LOCKS_GUARD:
        entry = _MODEL_LOCKS.get(id(model))
        if entry is None or entry[0] is not model:
            entry = _MODEL_LOCKS[id(model)] = (model, threading.Lock())
        return entry[1]


def _model_gate(model: BaseChatModel) -> asyncio.Lock:
    """Per model and event loop: queue calls here, not as pool threads blocked on the lock.

    Waiting in the event loop keeps the shared thread pool free for store I/O while a
    sync-only model works through its queue.
    """
    key = (id(model), id(asyncio.get_running_loop()))
    with _MODEL_LOCKS_GUARD:
        entry = _MODEL_GATES.get(key)
        if entry is None or entry[0] is not model:
            entry = _MODEL_GATES[key] = (model, asyncio.Lock())
        return entry[1]


def _is_sync_only(model: BaseChatModel) -> bool:
    """True when ``ainvoke`` would just run ``invoke`` in the default executor."""
    return type(model)._agenerate is BaseChatModel._agenerate


def _status_code(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    if code is None:
        code = getattr(getattr(exc, "response", None), "status_code", None)
    return code if isinstance(code, int) else None


def _short(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ").strip() or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    try:
        return float(headers.get("retry-after"))
    except (TypeError, ValueError):
        return None


def classify_error(exc: BaseException) -> _Failure | None:
    """Sort an exception from a model call; None means it is a bug and must propagate.

    ``timeout``/``connection``/``status`` (429, 408, 5xx) are retried; ``rejected`` (the
    server refused this request: 400, 413, 422, prompt over the context window) is not.
    """
    if isinstance(exc, (TimeoutError, openai.APITimeoutError, httpx.TimeoutException)):
        return _Failure("timeout", f"timeout: {_short(exc)}")
    if isinstance(exc, (openai.APIConnectionError, httpx.TransportError, ConnectionError)):
        return _Failure("connection", f"connection error: {_short(exc)}")
    code = _status_code(exc)
    if code is not None and (code in (408, 429) or code >= 500):
        return _Failure("status", f"HTTP {code}: {_short(exc)}", _retry_after(exc))
    if code is not None and code in (400, 413, 422):
        return _Failure("rejected", f"request rejected (HTTP {code}): {_short(exc)}")
    if isinstance(exc, ValueError) and "context window" in str(exc):
        return _Failure("rejected", f"prompt too long: {_short(exc)}")
    return None


def _config_error(exc: BaseException, label: str) -> UserError | None:
    code = _status_code(exc)
    if code in (401, 403):
        return UserError(
            f"the LLM server refused the credentials for {label} (HTTP {code})",
            fix="check OPENAI_API_KEY (or the server's key) and --base-url",
        )
    if code == 404:
        return UserError(
            f"the LLM server does not know model {label} (HTTP 404)",
            fix="check the model name and --base-url (ollama: `ollama pull MODEL`)",
        )
    return None


# --- JSON extraction -------------------------------------------------------------------

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_STARTS = 20


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing ``text[start]``, string-aware; None if open."""
    depth = 0
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def extract_json(text: str) -> Any:
    """The first JSON value in ``text``: whole text, a fenced block, or a balanced span.

    Tolerates ```json fences and prose before or after the value.

    Raises:
        ValueError: No JSON value could be found; the message says why.
    """
    stripped = text.strip()
    if not stripped:
        raise ValueError("reply is empty")
    if len(stripped) > safeparse.REPLY.max_chars:
        raise ValueError(
            f"reply is {len(stripped):,} characters, over the limit of "
            f"{safeparse.REPLY.max_chars:,}"
        )
    candidates = [m.group(1).strip() for m in _FENCE.finditer(stripped)] + [stripped]
    first_error: str | None = None
    for candidate in candidates:
        try:
            return safeparse.loads(candidate, safeparse.REPLY)
        except json.JSONDecodeError:
            pass
        starts = [i for i, ch in enumerate(candidate) if ch in "{["][:_MAX_STARTS]
        for start in starts:
            end = _balanced_end(candidate, start)
            if end is None:
                first_error = first_error or (
                    "unterminated JSON (the reply may be cut off at max_tokens)"
                )
                continue
            try:
                return safeparse.loads(candidate[start:end], safeparse.REPLY)
            except json.JSONDecodeError as exc:
                first_error = first_error or f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    head = stripped[:60].replace("\n", " ")
    raise ValueError(first_error or f"no JSON object or array found (reply starts {head!r})")


def describe_validation_error(exc: ValidationError) -> str:
    """``field 'a.0.b': Field required; ...`` for the first few errors."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"])
        parts.append(f"field '{loc}': {err['msg']}" if loc else err["msg"])
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def parse_reply(raw: str, schema: type[M]) -> tuple[M | None, str | None]:
    """Extract, sanitise and validate; returns (value, None) or (None, error).

    Every string of the value is cleaned of control and bidirectional-override
    characters (:mod:`generator.llm.sanitise`) before validation.
    """
    try:
        data = clean_value(extract_json(raw))
    except safeparse.UnsafeInput as exc:
        return None, f"reply is not acceptable JSON: {exc}"
    except ValueError as exc:
        return None, f"reply is not JSON: {exc}"
    try:
        return schema.model_validate(data), None
    except ValidationError as exc:
        return None, f"reply does not match the schema: {describe_validation_error(exc)}"


def grammar_safe(json_schema: Any) -> bool:
    """True when every string in the schema is bounded (``maxLength``, ``enum``, ``const``)."""
    if isinstance(json_schema, list):
        return all(grammar_safe(item) for item in json_schema)
    if not isinstance(json_schema, dict):
        return True
    kind = json_schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    bounded = any(k in json_schema for k in ("maxLength", "enum", "const"))
    if "string" in kinds and not bounded:
        return False
    return all(grammar_safe(v) for v in json_schema.values() if isinstance(v, (dict, list)))


def json_instructions(schema: type[BaseModel]) -> str:
    """The prompt suffix that asks for JSON validating against ``schema``."""
    compact = json.dumps(schema.model_json_schema(), separators=(",", ":"))
    return (
        "\n\nReply with one JSON value only: no prose, no code fences. "
        f"It must validate against this JSON Schema:\n{compact}"
    )


# --- the client -----------------------------------------------------------------------


@dataclass
class _Outcome:
    raw: str | None
    error: str | None
    attempts: int


class LLMClient:
    """Asks a langchain chat model for JSON or text with retries, limits and accounting.

    Args:
        spec: Backend and call settings (timeouts, retries, rate limit).
        model: The chat model; built from ``spec`` when omitted.
        label: Name used in provenance; defaults to ``spec.label``.
        concurrency: Size of the process-wide named semaphore ``llm`` (set by its first
            user per event loop).
        sleep: Awaitable sleep used for backoff and rate limiting (tests inject a no-op).
        clock: Monotonic clock for the rate limiter (tests inject a fake).

    Raises:
        UserError: The backend cannot be built (missing package, weights or key).
        ValueError: ``spec.backend`` is ``none`` and no model was given (a caller bug:
            check for ``none`` before building a client, or use :func:`make_client`).
    """

    def __init__(
        self,
        spec: LLMSpec,
        model: BaseChatModel | None = None,
        *,
        label: str | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if model is None:
            model = make_chat_model(spec)
            if model is None:
                raise ValueError("LLM backend 'none' has no model; do not build a client")
        self.spec = spec
        self.model = model
        self.label = label or spec.label
        self.concurrency = concurrency
        self._sleep = sleep
        self._clock = clock
        self._sync_only = _is_sync_only(model)
        self._usage: dict[str, dict[str, int]] = {}
        self._timings: list[CallTiming] = []
        self._rate_locks: dict[int, asyncio.Lock] = {}
        self._next_start: float | None = None
        self._structured_logged: set[str] = set()
        # Generation sets this: a timeout or server failure after the retries is an outage
        # that stops the run (LLMUnavailable), not a failed reply to reject.
        self.stop_on_outage = False

    @classmethod
    def from_model(
        cls,
        model: BaseChatModel,
        label: str = "fake",
        *,
        spec: LLMSpec | None = None,
        **kwargs: Any,
    ) -> LLMClient:
        """A client around an already built model (tests, notebooks)."""
        return cls(spec or LLMSpec(backend="fake"), model, label=label, **kwargs)

    @property
    def parallel_calls(self) -> int:
        """Calls the endpoint serves at once: the client's concurrency, or 1 for a
        sync-only local model (its calls queue on one lock)."""
        return 1 if self._sync_only else self.concurrency

    @property
    def usage(self) -> dict[str, dict[str, int]]:
        """Per stage: calls, attempts, failures, input/output tokens, estimated, latency_ms.

        ``estimated`` counts attempts whose tokens were estimated (4 characters a token)
        because the model reported no usage.
        """
        return {stage: dict(counts) for stage, counts in self._usage.items()}

    @property
    def timings(self) -> list[CallTiming]:
        """Every model invocation so far (retries included): start, end, round, stage.

        Times come from :func:`time.monotonic` and cover the invocation only, not the
        wait for a concurrency slot or the rate limit (a sync-only local model's time
        also holds its wait for the model's lock); rounds are defined in
        :mod:`generator.llm.timing`.
        """
        return list(self._timings)

    def _record(
        self, stage: str, start: float, ok: bool, request: tuple[float, float, tuple[int, ...]]
    ) -> None:
        """Record one invocation; ``request`` is (monotonic, loop CPU, dependencies) at the
        request, before the queue (see :func:`generator.llm.timing.critical_path`)."""
        call_id = call_graph.new_call_id()
        self._timings.append(CallTiming(
            start=start, end=time.monotonic(), round=next_round(self._timings, start),
            stage=stage, ok=ok, call_id=call_id, requested=request[0], after=request[2],
            cpu_requested=request[1], cpu_end=time.thread_time(), thread=threading.get_ident(),
        ))
        call_graph.advance(call_id)

    def _stage(self, stage: str) -> dict[str, int]:
        return self._usage.setdefault(stage, dict.fromkeys(USAGE_KEYS, 0))

    # --- public asks -------------------------------------------------------------------

    async def ask_json(self, stage: str, system: str, user: str, schema: type[M]) -> LLMResult[M]:
        """Ask for one JSON value validating against ``schema``; never raises on a bad reply.

        Args:
            stage: Accounting bucket, e.g. ``"verbalise"``.
            system: System prompt; the JSON Schema instructions are appended.
            user: User prompt.
            schema: Pydantic model the reply must validate against.

        Returns:
            ``ok=True`` with the value, or ``ok=False`` with the raw reply and an error such
            as ``reply is not JSON: ...`` or ``reply does not match the schema: field
            'text': Field required`` or ``timeout: ...`` after the retries.

        Raises:
            UserError: Bad credentials, unknown model, or the server stayed unreachable.
            RuntimeError: A scripted fake ran out of replies (a test bug, loud on purpose).
        """
        messages: list[BaseMessage] = [
            SystemMessage(content=system + json_instructions(schema)),
            HumanMessage(content=user),
        ]
        runnable: Runnable[Any, Any] = self.model
        structured = self._use_structured(schema)
        if structured:
            kwargs: dict[str, Any] = {"include_raw": True}
            if self.spec.backend == "openai":
                kwargs["method"] = "function_calling"
            runnable = self.model.with_structured_output(schema, **kwargs)
        outcome = await self._call(stage, messages, runnable, structured=structured)
        counts = self._stage(stage)
        if outcome.raw is None:
            counts["failures"] += 1
            return LLMResult(ok=False, error=outcome.error, attempts=outcome.attempts)
        value, error = parse_reply(outcome.raw, schema)
        if value is None:
            counts["failures"] += 1
            log.debug("llm %s stage %s: unusable reply: %s", self.label, stage, error)
            return LLMResult(ok=False, raw=outcome.raw, error=error, attempts=outcome.attempts)
        return LLMResult(ok=True, value=value, raw=outcome.raw, attempts=outcome.attempts)

    async def ask_text(self, stage: str, system: str, user: str) -> LLMResult[str]:
        """Ask for free text; ``ok=False`` on an empty reply or after failed retries.

        Raises:
            UserError: As :meth:`ask_json`.
        """
        messages: list[BaseMessage] = [SystemMessage(content=system), HumanMessage(content=user)]
        outcome = await self._call(stage, messages, self.model, structured=False)
        counts = self._stage(stage)
        raw = clean_text(outcome.raw or "").strip()
        if not raw:
            counts["failures"] += 1
            error = outcome.error or "reply is empty"
            return LLMResult(
                ok=False, raw=outcome.raw or "", error=error, attempts=outcome.attempts
            )
        return LLMResult(ok=True, value=raw, raw=outcome.raw or "", attempts=outcome.attempts)

    async def ask_json_many(
        self, stage: str, system: str, users: Sequence[str], schema: type[M]
    ) -> list[LLMResult[M]]:
        """:meth:`ask_json` for each user prompt, concurrently; results in input order."""
        return await fan_out(
            users, lambda user: self.ask_json(stage, system, user, schema), limit=self.concurrency
        )

    # --- machinery ---------------------------------------------------------------------

    def _use_structured(self, schema: type[BaseModel]) -> bool:
        wanted = self.spec.structured
        if wanted is None:
            wanted = self.spec.backend == "smollm2"
        if not wanted:
            return False
        if self.spec.backend == "smollm2" and not grammar_safe(schema.model_json_schema()):
            if schema.__name__ not in self._structured_logged:
                self._structured_logged.add(schema.__name__)
                log.debug(
                    "schema %s has unbounded strings; smollm2 uses text JSON", schema.__name__
                )
            return False
        return True

    def _rate_lock(self) -> asyncio.Lock:
        # asyncio locks bind to the loop of first use; the CLI may run several loops.
        key = id(asyncio.get_running_loop())
        lock = self._rate_locks.get(key)
        if lock is None:
            lock = self._rate_locks[key] = asyncio.Lock()
        return lock

    async def _wait_turn(self) -> None:
        """Space call starts by ``min_interval_s`` (per client)."""
        interval = self.spec.min_interval_s
        if interval <= 0:
            return
        async with self._rate_lock():
            now = self._clock()
            start = now if self._next_start is None else max(now, self._next_start)
            if start > now:
                await self._sleep(start - now)
            self._next_start = start + interval

    def _backoff(self, attempt: int, failure: _Failure) -> float:
        delay = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
        if failure.retry_after_s is not None:
            delay = min(max(delay, failure.retry_after_s), 2 * BACKOFF_CAP_S)
        return delay

    async def _invoke_once(
        self, runnable: Runnable[Any, Any], messages: list[BaseMessage], handler: _UsageHandler
    ) -> Any:
        config: RunnableConfig = {"callbacks": [handler]}
        if not self._sync_only:
            return await asyncio.wait_for(
                runnable.ainvoke(messages, config=config), timeout=self.spec.timeout_s
            )
        lock = _model_lock(self.model)

        def run() -> Any:
            # Still locked in the thread: a call abandoned by a timeout keeps running, and
            # the next one must not enter llama.cpp beside it.
            with lock:
                return runnable.invoke(messages, config=config)

        async with _model_gate(self.model):
            # The deadline covers the call, not the queue in front of it.
            return await asyncio.wait_for(to_thread(run), timeout=self.spec.timeout_s)

    async def _call(
        self,
        stage: str,
        messages: list[BaseMessage],
        runnable: Runnable[Any, Any],
        *,
        structured: bool,
    ) -> _Outcome:
        counts = self._stage(stage)
        counts["calls"] += 1
        max_attempts = self.spec.retries + 1
        prompt_chars = sum(len(str(m.content)) for m in messages)
        failure: _Failure | None = None
        attempt = 0
        while attempt < max_attempts:
            attempt += 1
            counts["attempts"] += 1
            handler = _UsageHandler()
            started = time.perf_counter()
            request = (time.monotonic(), time.thread_time(), call_graph.frontier())
            try:
                async with semaphore("llm", self.concurrency):
                    await self._wait_turn()
                    call_start = time.monotonic()
                    try:
                        reply = await self._invoke_once(runnable, messages, handler)
                    except BaseException:
                        self._record(stage, call_start, False, request)
                        raise
                    self._record(stage, call_start, True, request)
            except Exception as exc:
                failure = classify_error(exc)
                if failure is None:
                    config_error = _config_error(exc, self.label)
                    if config_error is not None:
                        raise config_error from None
                    raise
                if failure.kind == "timeout" and isinstance(exc, TimeoutError):
                    failure.message = f"timeout: no reply within {self.spec.timeout_s:g} s"
                if failure.kind == "rejected":
                    break
                if attempt < max_attempts:
                    delay = self._backoff(attempt, failure)
                    log.warning(
                        "llm %s stage %s attempt %d/%d failed (%s); retrying in %.1fs",
                        self.label,
                        stage,
                        attempt,
                        max_attempts,
                        failure.message,
                        delay,
                    )
                    await self._sleep(delay)
                continue
            finally:
                counts["latency_ms"] += int((time.perf_counter() - started) * 1000)
            raw = _reply_text(reply, structured=structured)
            self._account(counts, handler, prompt_chars, raw)
            return _Outcome(raw=raw, error=None, attempts=attempt)
        if failure is None:  # unreachable: the loop runs at least once
            raise RuntimeError("LLM call loop ended without an outcome")
        if failure.kind == "connection":
            raise LLMUnavailable(
                f"cannot reach the LLM server for {self.label} after {attempt} attempts "
                f"({failure.message})",
                fix="start the server or fix --base-url (ollama: `ollama serve`)",
            )
        suffix = f" after {attempt} attempt{'s' if attempt > 1 else ''}"
        if self.stop_on_outage and failure.kind in ("timeout", "status"):
            raise LLMUnavailable(
                f"the LLM server for {self.label} kept failing ({failure.message}{suffix})",
                fix="check the server (or its rate limits) and --base-url",
            )
        return _Outcome(raw=None, error=failure.message + suffix, attempts=attempt)

    def _account(
        self, counts: dict[str, int], handler: _UsageHandler, prompt_chars: int, raw: str
    ) -> None:
        if handler.reported:
            counts["input_tokens"] += handler.input_tokens
            counts["output_tokens"] += handler.output_tokens
        else:
            counts["estimated"] += 1
            counts["input_tokens"] += max(1, prompt_chars // 4)
            counts["output_tokens"] += estimate_tokens(raw)


def _reply_text(reply: Any, *, structured: bool) -> str:
    """The raw text of a reply: tool-call arguments as JSON in structured mode, else text."""
    message = reply.get("raw") if structured and isinstance(reply, dict) else reply
    if not isinstance(message, AIMessage):
        return str(message)
    if message.tool_calls:
        return json.dumps(message.tool_calls[0]["args"], ensure_ascii=False)
    if message.invalid_tool_calls:
        return str(message.invalid_tool_calls[0].get("args") or "")
    return message.text


def make_client(spec: LLMSpec, **kwargs: Any) -> LLMClient | None:
    """An :class:`LLMClient` for ``spec``, or None for backend ``none``.

    Raises:
        UserError: The backend cannot be built.
    """
    if spec.backend == "none":
        return None
    return LLMClient(spec, **kwargs)


__all__ = [
    "LLMClient",
    "LLMResult",
    "classify_error",
    "extract_json",
    "grammar_safe",
    "make_client",
    "parse_reply",
]
