"""The token-priced latency stand-in: its delay for a given prompt and reply, worked by hand
(an injected clock: nothing sleeps for real), and the CLI's choice of model."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from generator.bench.latency_llm import LatencyChatModel, call_delay, count_tokens
from generator.cli import main


class FakeClock:
    """A clock that only moves when the model sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_tokens_are_four_characters_rounded_up() -> None:
    assert count_tokens("") == 0
    assert count_tokens("abcd") == 1  # 4 / 4 = 1
    assert count_tokens("abcde") == 2  # 5 / 4 = 1.25 -> 2
    assert count_tokens("x" * 41) == 11  # 41 / 4 = 10.25 -> 11


async def test_delay_of_one_call_worked_by_hand() -> None:
    clock = FakeClock()
    model = LatencyChatModel(call_latency_s=0.5, token_latency_s=0.01,
                             input_token_latency_s=0.002).use_clock(clock, clock.sleep)
    # Prompt: "You are terse." (14 chars) + "\n" + "Propose weights per domain" (26 chars)
    # = 41 chars -> ceil(41 / 4) = 11 input tokens. The stand-in answers a budget proposal
    # with "{}" (2 chars) -> ceil(2 / 4) = 1 output token.
    # delay = 0.5 + 0.01 × 1 + 0.002 × 11 = 0.5 + 0.01 + 0.022 = 0.532 s
    out = await model.ainvoke([SystemMessage("You are terse."),
                               HumanMessage("Propose weights per domain")])
    assert out.content == "{}"
    assert len(clock.slept) == 1 and abs(clock.slept[0] - 0.532) < 1e-12
    start, seconds = model.calls[0]
    assert start == 100.0 and abs(seconds - 0.532) < 1e-12


async def test_reply_tokens_cost_and_the_flat_model_ignores_them() -> None:
    # A three-item open batch vs a one-item one: same prompt length up to the digit, so the
    # token model charges their reply length difference at 10 ms a token; flat charges 1 s.
    one, three = "Write 1 open wo requests (x)", "Write 3 open wo requests (x)"
    clock = FakeClock()
    tokens = LatencyChatModel(call_latency_s=0.5, token_latency_s=0.01).use_clock(
        clock, clock.sleep)
    r1 = str((await tokens.ainvoke([HumanMessage(one)])).content)
    r3 = str((await tokens.ainvoke([HumanMessage(three)])).content)
    assert len(json.loads(r3)["items"]) == 3
    assert clock.slept[1] - clock.slept[0] == call_delay(
        three, r3, ttft_s=0, output_token_s=0.01) - call_delay(one, r1, ttft_s=0,
                                                               output_token_s=0.01)
    assert clock.slept[1] > clock.slept[0] + 0.5  # two more items: well over 50 tokens
    flat_clock = FakeClock()
    flat = LatencyChatModel(call_latency_s=1.0).use_clock(flat_clock, flat_clock.sleep)
    await flat.ainvoke([HumanMessage(one)])
    await flat.ainvoke([HumanMessage(three)])
    assert flat_clock.slept == [1.0, 1.0]
    assert flat.parameters()["kind"] == "flat" and tokens.parameters()["kind"] == "tokens"


def test_flat_model_with_a_token_cost_is_one_error_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bench", "experiments", "--latency-model", "flat", "--token-latency", "0.01",
              "--no-score"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert err.startswith("error: --latency-model flat charges nothing per token")
    with pytest.raises(SystemExit) as stop:
        main(["bench", "experiments", "--latency-model", "slow"])
    assert stop.value.code == 2 and "valid: tokens, flat" in capsys.readouterr().err
