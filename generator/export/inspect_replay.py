"""``scenariogen-replay``: an inspect_ai model that replays scripted turns, for ``inspect eval``.

Registered with inspect_ai through the ``inspect_ai`` entry-point group (see
``pyproject.toml``), so the command line finds it like any provider::

    inspect eval task.py --model scenariogen-replay/scripted -M script=turns.json

Use it to check an exported task end to end without a model server, or to replay a recorded
agent (the tool calls it made and the answer it gave) through inspect's tools and our
grader. The script is JSON::

    {"samples": [
       {"input": "<the scenario text>",
        "turns": [{"tool": "history", "args": {...}}, {"answer": "..."}]}
    ]}

A sample is found by its user message (the scenario text); the turn played is the number
of assistant messages already in the conversation, so samples may run concurrently. When
the script has no (more) turns for a conversation, the model answers
:data:`NO_SCRIPT_ANSWER`. Every output carries token usage, so inspect never counts
tokens itself (which would need a tokenizer download).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from generator.errors import UserError
from generator.safeparse import REPLY, load_json_file

PROVIDER = "scenariogen-replay"
NO_SCRIPT_ANSWER = "I have no scripted answer for this request."
# Replies are short and fixed: a plausible token count, never a tokenizer.
_USAGE = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)


class ReplayTurn(BaseModel):
    """One scripted model turn: a tool call or a final answer (exactly one of the two)."""

    model_config = ConfigDict(extra="forbid")

    tool: str | None = Field(default=None, description="Name of the tool to call")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments of the call")
    answer: str | None = Field(default=None, description="Final answer text")

    @model_validator(mode="after")
    def _one_kind(self) -> ReplayTurn:
        if (self.tool is None) == (self.answer is None):
            raise ValueError("a turn has either 'tool' (with 'args') or 'answer'")
        return self


class ReplaySample(BaseModel):
    """The turns played for one scenario, found by its text."""

    model_config = ConfigDict(extra="forbid")

    input: str = Field(description="The scenario text (the sample's user message)")
    turns: list[ReplayTurn] = Field(description="Turns in order: tool calls, then an answer")


class ReplayScript(BaseModel):
    """A replay script file."""

    model_config = ConfigDict(extra="forbid")

    samples: list[ReplaySample] = Field(description="One entry per scripted scenario")


def load_script(path: str | Path) -> dict[str, list[ReplayTurn]]:
    """Read a replay script: scenario text → turns.

    Raises:
        UserError: the file is missing, not bounded JSON, or not a replay script.
    """
    file = Path(path)
    raw = load_json_file(file, "replay script", REPLY)
    try:
        script = ReplayScript.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"replay script {file} is not valid at {where}: {first['msg']}",
                        fix='write {"samples": [{"input": TEXT, "turns": [...]}]}') from None
    return {sample.input: sample.turns for sample in script.samples}


def _user_text(messages: list[ChatMessage]) -> str:
    for message in messages:
        if isinstance(message, ChatMessageUser):
            return message.text
    return ""


class ReplayModel(ModelAPI):
    """Plays the script's next turn for the conversation it is given."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - inspect's own signature
        script: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if not script:
            raise UserError(f"the {PROVIDER} model needs a script",
                            fix=f"inspect eval ... --model {PROVIDER}/NAME -M script=PATH")
        self.turns = load_script(script)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """The next scripted turn of this conversation (or the no-script answer)."""
        turns = self.turns.get(_user_text(input), [])
        played = sum(1 for m in input if isinstance(m, ChatMessageAssistant))
        if played < len(turns):
            turn = turns[played]
            if turn.tool is not None:
                output = ModelOutput.for_tool_call(self.model_name, turn.tool, dict(turn.args))
            else:
                output = ModelOutput.from_content(self.model_name, turn.answer or "")
        else:
            output = ModelOutput.from_content(self.model_name, NO_SCRIPT_ANSWER)
        output.usage = _USAGE
        return output


@modelapi(name=PROVIDER)
def replay() -> type[ModelAPI]:
    """The replay model API (inspect calls this to get the class)."""
    return ReplayModel


def script_for(samples: list[tuple[str, list[dict[str, Any]]]]) -> str:
    """A replay script's JSON text for ``(scenario text, turns)`` pairs (for tests, tools)."""
    return json.dumps(
        {"samples": [{"input": text, "turns": turns} for text, turns in samples]}, indent=1
    )
