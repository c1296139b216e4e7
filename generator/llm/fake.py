"""A scripted langchain chat model for offline tests and ``--llm fake:PATH``.

langchain's own fakes either cycle their list (``FakeListChatModel`` never runs out, so a
test that makes one call too many passes silently) or refuse ``bind_tools``. This one
replies in order, fails loudly when the script is exhausted, records every prompt, and
returns itself from ``bind_tools`` so ``with_structured_output`` works when the script
holds ``AIMessage``s carrying ``tool_calls``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, get_buffer_string
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import Field, PrivateAttr

from generator.errors import UserError


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters a token) for models that report no usage."""
    return max(1, len(text) // 4) if text else 0


class ScriptExhausted(UserError, RuntimeError):
    """The scripted fake ran out of replies: loud (a ``RuntimeError`` in tests) and, on the
    command line (``--llm fake:FILE``), one line naming the script's length and the fix."""


class ScriptedChatModel(BaseChatModel):
    """Replies with ``replies`` in order; raises :class:`ScriptExhausted` once they run out."""

    replies: list[str | AIMessage] = Field(description="The replies, in the order given out")
    _index: int = PrivateAttr(default=0)
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, replies: Sequence[str | AIMessage], **kwargs: Any) -> None:
        super().__init__(replies=list(replies), **kwargs)

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedChatModel:
        """Load a script: a JSON list of reply strings.

        Raises:
            UserError: The file is missing, not JSON, or not a list of strings.
        """
        from generator.safeparse import load_json_file

        p = Path(path)
        data = load_json_file(p, "fake LLM script")
        if not isinstance(data, list) or not all(isinstance(r, str) for r in data):
            raise UserError(
                f"fake LLM script {str(p)!r} is not a JSON list of strings",
                fix='write e.g. ["{\\"text\\": \\"...\\"}", "second reply"]',
            )
        return cls(data)

    @property
    def prompts(self) -> list[str]:
        """Every prompt received so far, rendered as ``Role: content`` lines."""
        return list(self._prompts)

    @property
    def remaining(self) -> int:
        """Replies not yet given out."""
        return len(self.replies) - self._index

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def _next(self, messages: list[BaseMessage]) -> ChatResult:
        prompt = get_buffer_string(messages)
        with self._lock:
            self._prompts.append(prompt)
            if self._index >= len(self.replies):
                raise ScriptExhausted(
                    f"scripted fake exhausted after {len(self.replies)} replies",
                    fix="add replies to the fake:FILE script (one per LLM call)",
                )
            reply = self.replies[self._index]
            self._index += 1
        message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
        if message.usage_metadata is None:
            # Token accounting downstream needs usage; a real server would report it.
            text = message.text + "".join(json.dumps(c["args"]) for c in message.tool_calls)
            usage = UsageMetadata(
                input_tokens=estimate_tokens(prompt),
                output_tokens=estimate_tokens(text),
                total_tokens=estimate_tokens(prompt) + estimate_tokens(text),
            )
            message = message.model_copy(update={"usage_metadata": usage})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._next(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._next(messages)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Ignore the tools: the script already says what the model "calls"."""
        return self
