"""The bench machinery without timings: stand-in LLM replies, the plan
and the summary arithmetic (timing goals live in `scenariogen bench`, not here)."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from generator.bench.experiments import (
    BenchConfig,
    RunResult,
    plan,
    render_markdown,
    summarise,
)
from generator.bench.latency_llm import LatencyChatModel, reply_for
from generator.bench.synthetic import clones, perturb

TASK = {"seed_key": "iot_latest#3", "role": "operator", "mentions": ["EAST-TX01", "oti"],
        "constraint": None, "tools_for_rubric": ["history"], "answer": {"oti": 61.2}}


def test_replies_fit_each_prompt_kind() -> None:
    batch = json.loads(reply_for("Tasks (JSON):\n" + json.dumps([TASK, TASK]) + "\n\nReply"))
    assert [i["seed_key"] for i in batch["items"]] == ["iot_latest#3"] * 2
    item = batch["items"][0]
    assert "EAST-TX01" in item["text"] and "oti" in item["text"] and "`history`" in item[
        "characteristic_form"]
    repair = json.loads(reply_for("Task (JSON):\n" + json.dumps(TASK) + "\n\nPrevious attempt"))
    assert repair["seed_key"] == "iot_latest#3"
    opened = json.loads(reply_for("Write 3 open fmsr requests (knowledge ...)"))
    assert len(opened["items"]) == 3
    assert reply_for("Propose weights per domain") == "{}"


async def test_the_stand_in_waits_records_and_fails_at_its_rate() -> None:
    fast = LatencyChatModel(call_latency_s=0.0)
    msg = [HumanMessage("Tasks (JSON):\n" + json.dumps([TASK]) + "\n\n")]
    out = await fast.ainvoke(msg)
    assert json.loads(str(out.content))["items"][0]["seed_key"] == "iot_latest#3"
    assert len(fast.calls) == 1
    always = LatencyChatModel(call_latency_s=0.0, failure_rate=1.0)
    with pytest.raises(json.JSONDecodeError):
        json.loads(str((await always.ainvoke(msg)).content))


def test_plan_and_summary_ratios() -> None:
    configs = plan(["concurrency", "baseline"], base_n=50, ns=[10], cs=[1, 5], batches=[1],
                   concurrency=3, batch_size=10)
    assert [(c.experiment, c.label) for c in configs] == [
        ("concurrency", "C=1"), ("concurrency", "C=5"),
        ("baseline", "baseline"), ("baseline", "optimised")]
    assert configs[1].concurrency == 5 and configs[2].baseline and not configs[3].baseline

    def res(cfg: BenchConfig, wall: float, q: float) -> RunResult:
        return RunResult(config=cfg, repeat=0, wall_s=wall, accepted=50, llm_calls=10,
                         critical_calls=5, bound_s=5.0, quality=q, timings={})

    results = [res(configs[0], w, 80) for w in (10.0, 12.0, 30.0)] + [
        res(configs[1], w, 82) for w in (4.0, 5.0, 6.0)]
    rows = summarise(results)
    # C=1 median 12, C=5 median 5 → speed-up 12 / 5 = 2.4; wall / bound median 5 / 5 = 1.
    assert (rows[0].wall_min, rows[0].wall_median, rows[0].wall_max) == (10.0, 12.0, 30.0)
    assert rows[0].speedup == 1.0 and rows[1].speedup == 2.4
    assert rows[1].wall_over_bound == 1.0 and rows[1].quality == 82
    assert rows[1].accepted_per_s == 10.0  # 50 / 5
    assert "| concurrency | C=5 | 3 | 4.00 / 5.00 / 6.00 | 2.40× |" in render_markdown(rows, {})
    with pytest.raises(ValueError, match="unknown experiment"):
        plan(["speedy"], base_n=1, ns=[], cs=[], batches=[], concurrency=1, batch_size=1)


def test_clones_keep_fields_and_perturb_texts() -> None:
    import random

    base = [{"id": "a", "text": "What is the oil temperature of EAST-TX01 on 2026-01-03?",
             "type": "iot"}]
    out = list(clones(base, 5, seed=1))
    assert out[0] == base[0] and len({r["id"] for r in out}) == 5
    assert all(r["type"] == "iot" for r in out) and any(r["text"] != base[0]["text"]
                                                       for r in out[1:])
    assert perturb("one", random.Random(0))  # a one-word text stays non-empty


def test_open_replies_validate_and_a_repair_words_the_task_afresh() -> None:
    from generator.generate.verbalise.verbalise_llm import _OpenBatch

    opened = _OpenBatch.model_validate_json(reply_for("Write 2 open wo requests (x)"))
    assert [i.category for i in opened.items] == ["Knowledge Query", "Decision Support"]
    # A repair quoting a failed attempt gets other wording choices; repeating the failed
    # text would fail the same check every time. Five different failed attempts cannot
    # all draw the same opener, reason and closer if the attempt is taken into account.
    task = "Task (JSON):\n" + json.dumps(TASK) + "\n\nPrevious attempt (JSON):\n"
    texts = {json.loads(reply_for(task + f'{{"text": "attempt {i}"}}\n\nIt failed'))["text"]
             for i in range(5)}
    assert len(texts) > 1
