"""`scenariogen evaluate` with one and several answer files; bad agent specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from generator.cli import app
from generator.errors import UserError

RECORDS = [
    {"id": 1, "type": "IoT", "difficulty": "easy", "text": "count?",
     "reference_answer": {"count": 13}, "tolerance": {}},
    {"id": 2, "type": "fmsr", "difficulty": "hard", "text": "fault?",
     "reference_answer": {"fault_type": "D2"}, "tolerance": {}},
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    scenarios = tmp_path / "s.json"
    scenarios.write_text(json.dumps(RECORDS))
    a = tmp_path / "a.jsonl"
    a.write_text('{"id": 1, "answer": "13 samples"}\n{"id": "2", "answer": "T3"}\n')
    b = tmp_path / "b.json"
    b.write_text(json.dumps({"1": {"count": 12}, "2": "high-energy discharge"}))
    return scenarios, a, b


def test_one_answers_file_prints_the_report(files: tuple[Path, Path, Path]) -> None:
    scenarios, a, _ = files
    out = CliRunner().invoke(app, ["evaluate", str(scenarios), str(a), "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    # iot/easy 1.0 and fmsr/hard 0.0 → class-balanced mean 0.5.
    assert report["mean_score"] == 0.5 and set(report["by_class"]) == {"iot/easy", "fmsr/hard"}
    text = CliRunner().invoke(app, ["evaluate", str(scenarios), str(a)]).stdout
    assert "mean score 0.500" in text and "2 score 0.00" in text


def test_several_files_list_unanimous_failures_first(files: tuple[Path, Path, Path]) -> None:
    scenarios, a, b = files
    both = {**json.loads(b.read_text()), "2": "T3 again"}
    b.write_text(json.dumps(both))
    out = CliRunner().invoke(app, ["evaluate", str(scenarios), str(a), str(b), "--json"])
    assert out.exit_code == 0, out.output
    unanimous = json.loads(out.stdout)["unanimous"]
    assert [s["id"] for s in unanimous["unanimous_failures"]] == ["2"]
    assert [t["answer"] for t in unanimous["unanimous_failures"][0]["attempts"]] == [
        "T3", "T3 again"]
    assert [s["id"] for s in unanimous["split_failures"]] == ["1"]  # b said 12, not 13


def test_unknown_agent_is_one_line_user_error(files: tuple[Path, Path, Path]) -> None:
    scenarios, _, _ = files
    out = CliRunner().invoke(app, ["dryrun", str(scenarios), "--agent", "gpt"])
    assert isinstance(out.exception, UserError)
    assert ("valid: reference, text, scripted, scripted:over_budget, scripted:invalid_plan, "
            "llm:smollm2") in str(out.exception)


def test_bad_answers_are_one_line_each_and_never_a_traceback(tmp_path: Path) -> None:
    scenarios = tmp_path / "s.json"
    scenarios.write_text(json.dumps(RECORDS))
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps([
        {"id": 1, "answer": ""},                              # empty
        {"id": 2, "answer": "T2 " * 350_000},                 # a 1 MB answer
        {"id": "ghost", "answer": "13"},                      # an id no scenario has
    ]))
    out = CliRunner().invoke(app, ["evaluate", str(scenarios), str(answers)])
    assert out.exit_code == 0, out.output
    assert "Traceback" not in out.output
    assert "answer id 'ghost' names no scenario" in out.stderr
    assert "no answer was given for 1" in out.stdout
    binary = tmp_path / "b.json"
    binary.write_bytes(bytes(range(256)) * 64)
    out = CliRunner().invoke(app, ["evaluate", str(scenarios), str(binary)])
    assert isinstance(out.exception, UserError)  # the CLI prints it as one line, exit 2
    assert "holds no usable" in str(out.exception)
