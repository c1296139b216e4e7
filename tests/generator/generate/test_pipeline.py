"""The whole generation pipeline on a seeded store: template path, resume, fake LLMs."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr
from rapidfuzz import fuzz

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.generate.draw.families import FamilyContext, load_families, recompute
from generator.generate.model import ScenarioRecord, TaskSeed
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.policy import load_policies
from generator.generate.run.run_config import GenerateConfig
from generator.generate.run.run_folder import RunFolder
from generator.llm.client import LLMClient
from generator.profile.build import build_profile
from generator.tools.registry import ToolContext

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def _load(run: Path, name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((run / name).read_text())
    return data


async def _run(cfg: GenerateConfig, settings: StoreSettings, **kw: Any) -> Any:
    return await Pipeline(cfg, settings=settings, **kw).run()


# -- the template path (embedded default) -------------------------------------------------


async def test_template_run_is_answerable_distinct_and_loads(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    cfg = GenerateConfig(n=24, seed=918273645, out_dir=str(tmp_path), run_id="t1", negatives=2)
    summary = await _run(cfg, seeded_settings)
    run = tmp_path / "t1"
    records = _load(run, "scenarios.json")

    assert summary.shortfalls == [] and summary.total == 24 and len(records) == 24
    assert Counter(r["type"] for r in records) == Counter(
        {d: k for d, k in summary.budget.items() if k}
    )
    assert len({r["id"] for r in records}) == 24 and len({r["uuid"] for r in records}) == 24
    # No two texts at similarity >= 0.9 (computed here, independently of the dedup index).
    texts = [r["text"].lower() for r in records]
    worst = max(
        fuzz.ratio(a, b) / 100 for i, a in enumerate(texts) for b in texts[i + 1 :]
    )
    assert worst < 0.9

    # AssetOpsBench core fields, and the exported JSON Schema.
    schema = json.loads((SCHEMAS / "scenario.schema.json").read_text())
    for rec in records:
        assert {"id", "type", "text", "category", "characteristic_form", "deterministic"} <= set(
            rec
        )
        jsonschema.validate(rec, schema)
    negatives = _load(run, "negative_scenarios.json")
    assert len(negatives) == 2 and all(r["negative"] for r in negatives)

    # Every scenario: its tool sequence, re-run in a fresh context, gives back its reference
    # answer (an open scenario's computed facts too); open ones carry their rubric.
    asset = load_asset_class("transformer")
    load_families(asset)
    profile = await build_profile("transformer", settings=seeded_settings)
    fresh = FamilyContext(profile, ToolContext(asset, seeded_settings), run_seed=0)
    lines = {ln.record.id: ln for ln in RunFolder(run).accepted()}
    # No task twice, in whatever words: family + parameters are unique.
    tasks = [ln.seed.family + json.dumps(ln.seed.params, sort_keys=True) for ln in lines.values()
             if ln.seed is not None]
    assert len(set(tasks)) == len(tasks) == 24
    for rec in records:
        assert rec["deterministic"] is (rec.get("rubric") is None)
        seed = lines[rec["id"]].seed
        assert isinstance(seed, TaskSeed) and seed.answer == rec["reference_answer"]
        assert await recompute(seed, fresh) == [], rec["id"]

    # The policy's minimum share of hard scenarios holds in every domain.
    policies = load_policies()
    for domain, quota in summary.budget.items():
        hard = sum(r["type"] == domain and r["difficulty"] == "hard" for r in records)
        assert hard >= math.ceil(quota * policies[domain].hardness_mix), domain

    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["counts"]["accepted"] == 24
    assert "seed" not in manifest["config"]
    assert "918273645" not in (run / "manifest.json").read_text()
    assert all("918273645" not in p.read_text() for p in run.iterdir())
    assert manifest["budget"]["per_domain"] == summary.budget
    # Per family: the outcome mix of the accepted seeds, the gate's drops and, where the
    # policy sets one, the non-trivial target next to the share achieved.
    families = manifest["families"]
    for line in lines.values():
        assert line.seed is not None and line.seed.family in families
    for name, entry in families.items():
        mine = [ln.seed for ln in lines.values() if ln.seed and ln.seed.family == name]
        assert entry["accepted"] == len(mine)
        assert sum(entry["outcomes"].values()) == len(mine)
        labelled = [s for s in mine if s.nontrivial is not None]
        if labelled:
            share = sum(bool(s.nontrivial) for s in labelled) / len(labelled)
            assert entry["nontrivial_achieved"] == round(share, 3)
    targets = {n: t for p in policies.values() for n, t in p.nontrivial_share.items()}
    for name, target in targets.items():
        assert families[name]["nontrivial_target"] == target


async def test_a_killed_run_resumes_to_the_same_scenarios(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    cfg = GenerateConfig(n=14, seed=5, out_dir=str(tmp_path), run_id="whole", negatives=1)
    await _run(cfg, seeded_settings)
    whole = _load(tmp_path / "whole", "scenarios.json")

    class Killed(Exception):
        pass

    seen = 0

    def kill_after_six(domain: str, accepted: int, quota: int) -> None:
        nonlocal seen
        seen += 1
        if seen == 6:
            raise Killed

    cut = cfg.model_copy(update={"run_id": "cut"})
    with pytest.raises(Killed):
        await _run(cut, seeded_settings, progress=kill_after_six)
    partial = RunFolder(tmp_path / "cut").accepted()
    assert 0 < len(partial) < 14

    summary = await _run(cut, seeded_settings, resume="cut")
    resumed = _load(tmp_path / "cut", "scenarios.json")
    assert summary.total == 14
    assert [(r["id"], r["uuid"], r["text"]) for r in resumed] == [
        (r["id"], r["uuid"], r["text"]) for r in whole
    ]
    assert len(RunFolder(tmp_path / "cut").accepted()) == 14  # nothing accepted twice
    # the manifest's reports are those of every line the file holds, resumed ones first
    from generator.generate.draw.difficulty import difficulty_report
    from generator.generate.verbalise.language_stats import language_stats

    held = RunFolder(tmp_path / "cut").accepted()
    report = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert report["language"] == language_stats([ln.record.text for ln in held]).model_dump()
    assert report["difficulty"] == difficulty_report([ln.seed for ln in held if ln.seed])


# -- a scripted fake LLM -------------------------------------------------------------------


def _tasks(prompt: str) -> list[dict[str, Any]]:
    match = re.search(r"Task[s]? \(JSON\):\n(.*?)\n\n", prompt, re.S)
    assert match, prompt[:300]
    data = json.loads(match.group(1))
    return data if isinstance(data, list) else [data]


LONG = (
    " Background for the control room: we are reconciling last month's condition report "
    "with the maintenance planner, the regional manager wants the figure before the "
    "Thursday review, and the numbers must come from the stored records only."
)


def _good(task: dict[str, Any], salt: str, long: bool = False) -> dict[str, Any]:
    text = (
        f"Request {salt} from the {task['role']} desk: please give me the figures for "
        + "; ".join(task["mentions"])
        + (f". Constraint: {task['constraint']}" if task.get("constraint") else ".")
        + (LONG if long else "")
    )
    cf = (
        "The response should use "
        + ", ".join(f"`{t}`" for t in task["tools_for_rubric"])
        + f" and report: {task['answer']}"
    )
    return {"seed_key": task["seed_key"], "text": text, "characteristic_form": cf}


class PromptFake(BaseChatModel):
    """A scripted fake whose reply to a task depends on how often that task was asked.

    Attempt 1 of every task: garbled JSON. Attempt 2: task 0 names a tool in its text,
    task 1 copies task 0's (long) good text plus its own values, a near-duplicate caught
    when task 0 is accepted first; task 2 misses a field. Attempt 3+: good.
    """

    _attempts: Counter[str] = PrivateAttr(default_factory=Counter)
    _order: list[str] = PrivateAttr(default_factory=list)
    _tasks: dict[str, dict[str, Any]] = PrivateAttr(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "prompt-fake"

    def _reply(self, prompt: str) -> str:
        tasks = _tasks(prompt)
        if len(tasks) != 1 or "Previous attempt" not in prompt:
            for t in tasks:
                self._attempts[t["seed_key"]] += 1
                self._tasks[t["seed_key"]] = t
                if t["seed_key"] not in self._order:
                    self._order.append(t["seed_key"])
            return '{"items": [ {"seed_key": "broken'
        task = tasks[0]
        key = task["seed_key"]
        self._attempts[key] += 1
        which = self._order.index(key)
        good = _good(task, key, long=which == 0)
        if self._attempts[key] == 2:
            if which == 0:
                good["text"] += " Run interpret_dga first."
            elif which == 2:
                del good["characteristic_form"]
            elif which == 1:
                first = self._order[0]
                copied = _good(self._tasks[first], first, long=True)["text"]
                good["text"] = copied + " " + " ".join(task["mentions"])
        return json.dumps(good)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self._reply(prompt)))])


async def test_fake_llm_garbage_is_rejected_with_reasons_and_repaired(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    cfg = GenerateConfig(
        n=3, seed=2, out_dir=str(tmp_path), run_id="fake", negatives=0, budget={"iot": 3},
        llm="fake", concurrency=1, batch_size=3, max_repairs=3, open_share=0,
    )
    client = LLMClient.from_model(PromptFake(), label="fake:prompt")
    summary = await _run(cfg, seeded_settings, llm_client=client)
    run = tmp_path / "fake"
    assert summary.total == 3 and summary.shortfalls == []
    rejected = [json.loads(x) for x in (run / "rejected.jsonl").read_text().splitlines()]
    reasons = " | ".join(r for rej in rejected for r in rej["reasons"])
    assert "reply is not JSON" in reasons or "verbalise:" in reasons
    assert "no_tool_name_in_text" in reasons
    assert "characteristic_form" in reasons
    assert "near_duplicate" in reasons
    assert all(rej["raw"] is not None and rej["stage"] for rej in rejected)
    records = [ScenarioRecord.model_validate(r) for r in _load(run, "scenarios.json")]
    assert all(r.provenance.verbaliser == "llm" and r.provenance.attempts >= 2 for r in records)
    assert "verbalise" in summary.tokens and summary.tokens["repair"]["calls"] >= 6
    # the manifest's bound is the client's recorded calls put through the documented formula
    timing = json.loads((run / "manifest.json").read_text())["llm_timing"]
    recorded = client.timings
    assert timing["calls"] == len(recorded) == sum(
        u["attempts"] for u in summary.tokens.values()
    )
    assert timing["critical_rounds"] == max(t.round for t in recorded) >= 2  # repairs follow
    # median_s and bound_s are each rounded to the ms: equal up to rounds x 0.5 ms + 0.5 ms
    rounds = timing["critical_rounds"]
    assert abs(timing["bound_s"] - rounds * timing["median_s"]) <= rounds * 0.0005 + 0.0005
    assert timing["wall_s"] == round(summary.timings["total"], 3)
    # the critical path of the call graph: repairs depend on the call that worded their
    # seed, so the chain holds at least two calls, and it never exceeds the wall
    path = timing["critical_path"]
    assert path["chain_calls"] >= 2 and 0 < path["bound_s"] <= path["wall_s"]
    assert path["wall_over_bound"] >= 1


def test_a_fake_that_always_fails_gives_a_shortfall_and_exit_code_3(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from generator.cli import app

    script = tmp_path / "garbage.json"
    script.write_text(json.dumps(["I cannot help with that."] * 400))
    monkeypatch.setenv("COUCHDB_URL", seeded_settings.url)
    monkeypatch.setenv("SCENARIOGEN_DB_PREFIX", seeded_settings.db_prefix)
    result = CliRunner().invoke(
        app,
        [
            "generate", "transformer", "-n", "2", "--budget", "iot=2", "--llm", f"fake:{script}",
            "--out", str(tmp_path), "--run-id", "bad", "--negatives", "0", "--max-repairs", "1",
            "--concurrency", "1", "--no-progress",
        ],
    )
    assert result.exit_code == 3, result.output
    assert "shortfall" in result.output and "iot" in result.output
    run = tmp_path / "bad"
    assert _load(run, "scenarios.json") == []
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["shortfalls"][0]["domain"] == "iot"
    assert (run / "rejected.jsonl").read_text().count("\n") >= 2


async def test_against_an_earlier_set_rejects_its_texts_and_its_tasks(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    first = GenerateConfig(n=8, seed=4, out_dir=str(tmp_path), run_id="a", negatives=0)
    await _run(first, seeded_settings)
    earlier = _load(tmp_path / "a", "scenarios.json")
    # The same seed draws the same tasks again: every one must be refused, reworded or not.
    second = first.model_copy(
        update={"run_id": "b", "against": str(tmp_path / "a" / "scenarios.json")}
    )
    await _run(second, seeded_settings)
    later = _load(tmp_path / "b", "scenarios.json")
    old_tasks = {
        r["family"] + json.dumps(r["tool_sequence"], sort_keys=True) for r in earlier
    }
    for rec in later:
        assert rec["family"] + json.dumps(rec["tool_sequence"], sort_keys=True) not in old_tasks
        assert max(fuzz.ratio(rec["text"].lower(), e["text"].lower()) for e in earlier) < 90
    reasons = (tmp_path / "b" / "rejected.jsonl").read_text()
    assert "duplicate_against_file: same task" in reasons


async def test_a_store_outage_mid_run_says_how_to_resume_and_keeps_the_work(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.errors import StoreUnavailable, UserError

    real_run = FamilyContext.run
    calls = 0

    async def flaky(self: FamilyContext, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > 40:
            raise StoreUnavailable(
                "cannot reach the store at http://127.0.0.1:1", fix="start it: scenariogen env up"
            )
        return await real_run(self, *args, **kwargs)

    monkeypatch.setattr(FamilyContext, "run", flaky)
    cfg = GenerateConfig(n=12, seed=8, out_dir=str(tmp_path), run_id="out", negatives=0)
    with pytest.raises(UserError) as info:
        await _run(cfg, seeded_settings)
    message = str(info.value)
    assert "cannot reach the store" in message and "scenariogen env up" in message
    assert f"--resume out --out {tmp_path}" in message and "kept" in message
    kept = RunFolder(tmp_path / "out").accepted()

    monkeypatch.setattr(FamilyContext, "run", real_run)
    summary = await _run(cfg, seeded_settings, resume="out")
    assert summary.total == 12
    ids = [r["id"] for r in _load(tmp_path / "out", "scenarios.json")]
    assert {ln.record.id for ln in kept} <= set(ids) and len(set(ids)) == 12
