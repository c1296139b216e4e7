"""Dry runs with scripted tool-calling fake agents over the real MCP tool server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from typer.testing import CliRunner

from eval.dryrun import run_dry, sample_scenarios
from eval.grade_unanimous import load_dryrun
from eval.model import DryRunReport, DryRunResult
from generator.cli import app
from generator.llm.fake import ScriptedChatModel

# IEC 60599 Table 1 by hand: C2H2/C2H4 = 0/2 = 0, CH4/H2 = 36/412 = 0.087 (< 0.1),
# C2H4/C2H6 = 2/21 = 0.095 (< 0.2) → the PD row.
GASES = {"asset_name": "EAST-TX04", "hydrogen": 412, "methane": 36, "ethane": 21,
         "ethylene": 2, "acetylene": 0}
DGA: dict[str, Any] = {
    "id": "dga_1", "type": "fmsr", "difficulty": "medium",
    "text": "Dissolved gases of EAST-TX04: H2 412 ppm, CH4 36 ppm, C2H6 21 ppm, C2H4 2 ppm, "
            "C2H2 0 ppm. What fault do they point to?",
    "expected_tools": ["interpret_dga"],
    "tool_sequence": [{"name": "interpret_dga", "args": GASES}],
    "reference_answer": {"fault_type": "PD"}, "tolerance": {},
}


def _call(name: str, args: dict[str, Any], i: int = 0) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{i}"}])


def _factory(replies: list[str | AIMessage]) -> Any:
    return lambda _scenario: ScriptedChatModel(replies)


async def _run(replies: list[str | AIMessage], out: Path | None = None, **kw: Any
               ) -> DryRunResult:
    report = await run_dry([DGA], "llm:scripted", chat_model_factory=_factory(replies),
                           concurrency=1, out=out, **kw)
    assert report.scenarios == 1
    return report.results[0]


async def test_right_tools_and_right_answer_get_full_marks(tmp_path: Path) -> None:
    r = await _run([_call("interpret_dga", GASES),
                    "The gases point to partial discharge (PD)."], out=tmp_path)
    assert (r.grade.feasible, r.grade.score, r.failure_class) == (True, 1.0, None)
    assert r.tools_called == ["interpret_dga"] and r.tool_errors == 0
    assert [s.kind for s in r.steps] == ["tool_call", "observation", "answer"]
    # The observation is the real tool's output, served over MCP.
    assert json.loads(r.steps[1].content)["fault_type"] == "PD"
    assert r.tokens > 0 and all(s.latency_s >= 0 for s in r.steps)
    saved = DryRunResult.model_validate_json((tmp_path / "trajectories" / "dga_1.json"
                                              ).read_text())
    assert saved.steps == r.steps
    assert DryRunReport.model_validate_json((tmp_path / "dryrun.json").read_text()
                                            ).pass_rate == 1.0


async def test_a_wrong_answer_scores_low_and_names_the_violation() -> None:
    r = await _run([_call("interpret_dga", GASES), "It is a T2 thermal fault."])
    assert r.grade.score < 0.5 and r.failure_class == "wrong_answer"
    v = r.grade.violations[0]
    assert (v.path, v.expected, v.given) == ("fault_type", "PD", ["T2"])


async def test_a_looping_agent_hits_max_steps() -> None:
    loop: list[str | AIMessage] = [_call("interpret_dga", GASES, i) for i in range(10)]
    r = await _run(loop, max_steps=3)
    assert r.failure_class == "max_steps" and r.final_answer is None
    assert r.tools_called == ["interpret_dga"] * 3  # three model calls, each one tool call
    assert r.retries == 0


async def test_failure_classes_for_skipped_tools_tool_errors_and_questions() -> None:
    guessed = await _run(["PD."])
    assert guessed.grade.feasible and guessed.failure_class == "wrong_tools"
    bad = await _run([_call("interpret_dga", {**GASES, "hydrogen": "lots"}), "Unclear, T1."])
    assert bad.tool_errors == 1 and bad.failure_class == "tool_error"
    assert "hydrogen" in bad.steps[1].content and bad.steps[1].is_error
    asked = await _run(["Which transformer do you mean?"])
    assert asked.failure_class == "asked_clarification"
    silent = await _run([""])
    assert silent.failure_class == "no_final_answer"


async def test_infrastructure_failures_are_retried_once_then_classed() -> None:
    calls = []

    def broken(scenario: dict[str, Any]) -> Any:
        calls.append(scenario["id"])
        raise ConnectionError("model server unreachable")

    report = await run_dry([DGA], "llm:scripted", chat_model_factory=broken)
    r = report.results[0]
    assert (r.failure_class, r.retries, len(calls)) == ("infrastructure", 1, 2)
    assert r.error is not None and "unreachable" in r.error
    assert report.failure_classes == {"infrastructure": 1}


def test_sample_spreads_over_domains_and_keeps_file_order() -> None:
    kinds = ["iot", "iot", "iot", "wo", "wo", "fmsr"]
    recs = [{"id": i, "type": t} for i, t in enumerate(kinds)]
    chosen = sample_scenarios(recs, 3, seed=1)
    assert sorted(r["type"] for r in chosen) == ["fmsr", "iot", "wo"]
    assert [r["id"] for r in chosen] == sorted(r["id"] for r in chosen)


async def test_dryrun_report_lists_unanimous_failures_first(tmp_path: Path) -> None:
    other = {**DGA, "id": "dga_2"}
    scripts: dict[str, dict[str, list[str | AIMessage]]] = {
        "a": {"dga_1": [_call("interpret_dga", GASES), "PD"],
              "dga_2": [_call("interpret_dga", GASES), "D1"]},
        "b": {"dga_1": ["D2"], "dga_2": ["T3"]},
    }
    for agent, by_id in scripts.items():
        await run_dry([DGA, other], f"llm:{agent}", concurrency=1, out=tmp_path / agent,
                      chat_model_factory=lambda s, by_id=by_id: ScriptedChatModel(by_id[s["id"]]))
    assert load_dryrun(tmp_path / "a").agent == "llm:a"
    result = CliRunner().invoke(app, ["dryrun-report", str(tmp_path / "a"),
                                      str(tmp_path / "b"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # dga_2: agent a answered D1, agent b T3 → both fail; dga_1: only b fails.
    assert [s["id"] for s in report["unanimous_failures"]] == ["dga_2"]
    assert [a["answer"] for a in report["unanimous_failures"][0]["attempts"]] == ["D1", "T3"]
    assert [s["id"] for s in report["split_failures"]] == ["dga_1"]
    assert report["sources"] == ["llm:a", "llm:b"]
