"""ScriptedChatModel: order, loud exhaustion, prompts, usage, structured output."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel

from generator.llm.fake import ScriptedChatModel


class _Answer(BaseModel):
    text: str
    score: int


def test_replies_in_order_and_records_prompts() -> None:
    model = ScriptedChatModel(["first", "second"])
    assert model.invoke("hello").content == "first"
    assert model.invoke([("system", "be brief"), ("human", "again")]).content == "second"
    assert model.prompts[0] == "Human: hello"
    assert "System: be brief" in model.prompts[1]
    assert model.remaining == 0


def test_exhaustion_raises_loudly_and_never_cycles() -> None:
    model = ScriptedChatModel(["only"])
    model.invoke("a")
    with pytest.raises(RuntimeError, match="scripted fake exhausted after 1 replies"):
        model.invoke("b")
    with pytest.raises(RuntimeError, match="exhausted"):
        model.invoke("c")


async def test_async_path_and_usage_metadata() -> None:
    model = ScriptedChatModel(
        [
            "x" * 40,
            AIMessage(
                content="y",
                usage_metadata={"input_tokens": 7, "output_tokens": 3, "total_tokens": 10},
            ),
        ]
    )
    first = await model.ainvoke("p" * 80)
    assert isinstance(first, AIMessage)
    assert first.usage_metadata is not None
    assert first.usage_metadata["input_tokens"] > 0
    assert first.usage_metadata["output_tokens"] == 10
    second = await model.ainvoke("q")
    assert isinstance(second, AIMessage)
    assert second.usage_metadata == {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}


def test_structured_output_through_tool_calls() -> None:
    reply = AIMessage(
        content="",
        tool_calls=[{"name": "_Answer", "args": {"text": "ok", "score": 3}, "id": "c1"}],
    )
    model = ScriptedChatModel([reply])
    assert model.bind_tools([_Answer]) is model
    out = model.with_structured_output(_Answer).invoke("go")
    assert out == _Answer(text="ok", score=3)
