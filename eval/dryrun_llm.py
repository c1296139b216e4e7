"""The LLM agent of a dry run: langgraph's prebuilt ReAct agent over our MCP tool server.

Per scenario it starts ``scenariogen serve-tools`` (a fresh tool server and store
connection), loads its tools through :mod:`eval.dryrun_mcp`, and runs
``langgraph.prebuilt.create_react_agent`` with the chat model of any ``--llm`` backend on the
scenario text alone. A step is one model call plus the tool calls it asks for; the graph's
recursion limit is ``2 × max_steps`` (a model node and a tool node per step), so hitting it
is the ``max_steps`` outcome. The trajectory is streamed: every model reply becomes a
``thought`` (text beside tool calls) or the ``answer`` (a reply without tool calls), every
tool call a ``tool_call`` step and every tool result an ``observation`` (``is_error`` when
the server answered with ``isError``), with tokens (reported usage, else ~4 characters a
token) and the wall time since the previous step.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from eval.asset_words import agent_persona, scenario_class
from eval.dryrun_attempt import Attempt, steps_json
from eval.model import TrajectoryStep

# What langgraph's prebuilt agent answers in place of a tool-calling reply when the step
# budget is spent (chat_agent_executor, `_are_more_steps_needed`): the max_steps outcome.
OUT_OF_STEPS = "Sorry, need more steps to process this request."
# The instructions after the persona line of the scenario's asset class (its vocabulary).
INSTRUCTIONS = (
    "Answer the operator's request by calling the tools; they read the fleet's data store and "
    "run the standards' calculations. Call a tool whenever a value must come from the data. "
    "When you have the result, reply with the final answer: the exact values, identifiers, "
    "dates and units, briefly. If the request cannot be answered from the data and the tools "
    "(unknown asset, no data in the period, information no tool provides), say that it cannot "
    "be answered and why; never invent a value."
)


def system_prompt(scenario: dict[str, Any]) -> str:
    """The agent's system prompt: its class's persona line, then :data:`INSTRUCTIONS`."""
    return f"{agent_persona(scenario_class(scenario))} {INSTRUCTIONS}"


def _tokens(message: AIMessage, prompt_chars: int) -> int:
    usage = message.usage_metadata
    if usage and usage.get("total_tokens"):
        return int(usage["total_tokens"])
    from generator.llm.fake import estimate_tokens

    text = message.text + "".join(steps_json(c.get("args")) for c in message.tool_calls)
    return estimate_tokens(text) + max(0, prompt_chars // 4)


class LLMAgent:
    """A tool-calling agent on any chat model we support."""

    def __init__(
        self,
        llm: str,
        *,
        chat_model_factory: Callable[[dict[str, Any]], Any] | None = None,
        server_env: dict[str, str] | None = None,
        errlog: Path | None = None,
    ) -> None:
        from generator.llm.spec import parse_llm

        self.spec = parse_llm(llm) if chat_model_factory is None else None
        self.name = f"llm:{self.spec.label if self.spec else llm}"
        self.factory = chat_model_factory
        self.server_env = server_env
        self.errlog = errlog

    def _model(self, scenario: dict[str, Any]) -> Any:
        if self.factory is not None:
            return self.factory(scenario)
        from generator.llm.backends import make_chat_model

        if self.spec is None or self.spec.backend == "none":
            from generator.errors import UserError

            raise UserError("--agent llm:none has no model", fix="use llm:smollm2 or another")
        return make_chat_model(self.spec)

    async def run(self, scenario: dict[str, Any], attempt: Attempt, max_steps: int) -> None:
        """Run the ReAct agent on the scenario text; fill the attempt as steps stream in."""
        from langgraph.errors import GraphRecursionError

        from eval.dryrun_mcp import mcp_tools

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_react_agent's deprecation notice
            from langgraph.prebuilt import create_react_agent

        model = self._model(scenario)
        text = str(scenario.get("text") or "")
        prompt = system_prompt(scenario)
        async with mcp_tools(self.server_env, self.errlog) as tools:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                graph = create_react_agent(model, tools, prompt=prompt)
            messages: list[BaseMessage] = [HumanMessage(text)]
            prompt_chars = len(prompt) + len(text)
            last = time.perf_counter()
            try:
                async for update in graph.astream(
                    {"messages": messages}, {"recursion_limit": 2 * max_steps + 1},
                    stream_mode="updates",
                ):
                    now = time.perf_counter()
                    for payload in update.values():
                        new = payload.get("messages", []) if isinstance(payload, dict) else []
                        for message in new:
                            self._record(message, attempt, round(now - last, 4), prompt_chars)
                            prompt_chars += len(str(message.content))
                    last = now
            except GraphRecursionError:
                attempt.final_answer = OUT_OF_STEPS
        if attempt.final_answer == OUT_OF_STEPS:
            attempt.outcome, attempt.final_answer = "max_steps", None
            attempt.error = f"no final answer within {max_steps} steps"
        elif attempt.final_answer is None or not attempt.final_answer.strip():
            attempt.outcome = "no_final_answer"

    @staticmethod
    def _record(message: BaseMessage, attempt: Attempt, latency: float, prompt_chars: int
                ) -> None:
        steps = attempt.steps
        if isinstance(message, AIMessage):
            tokens = _tokens(message, prompt_chars)
            text = message.text.strip()
            if message.tool_calls:
                if text:
                    steps.append(TrajectoryStep(kind="thought", content=text, tokens=tokens,
                                                latency_s=latency))
                    tokens, latency = 0, 0.0
                for call in message.tool_calls:
                    args = call.get("args") if isinstance(call.get("args"), dict) else {}
                    steps.append(TrajectoryStep(kind="tool_call", tool=str(call.get("name")),
                                                args=args, content=steps_json(args),
                                                tokens=tokens, latency_s=latency))
                    tokens, latency = 0, 0.0
            else:
                steps.append(TrajectoryStep(kind="answer", content=text, tokens=tokens,
                                            latency_s=latency))
                attempt.final_answer = text
        elif isinstance(message, ToolMessage):
            content = message.content if isinstance(message.content, str) else steps_json(
                message.content)
            steps.append(TrajectoryStep(
                kind="observation", tool=message.name, content=content[:20_000],
                is_error=message.status == "error", latency_s=latency))
