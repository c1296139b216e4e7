"""`scenariogen score` on the upstream files and on bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from generator.cli import app

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"


def test_score_upstream_files_writes_self_contained_reports(tmp_path: Path) -> None:
    runner = CliRunner()
    for name in ("paper_generated_transformer_scenarios.json",
                 "assetopsbench_all_utterance.jsonl"):
        out = tmp_path / name
        result = runner.invoke(app, ["score", str(UPSTREAM / name), "--out", str(out),
                                     "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads((out / "score.json").read_text())
        assert data["max_points"] == 50.0  # dry run off: not run, not zero
        assert [p["name"] for p in data["parts"]] == ["static", "judge", "dry_run"]
        page = (out / "score.html").read_text()
        assert page.count("<svg") >= 5
        # Self-contained: nothing is fetched (the SVG namespace is an identifier, not a fetch).
        assert not re.search(r"(src|href)\s*=\s*[\"']?https?:", page)
        assert "<script" not in page
        assert "# Scenario set score" in (out / "score.md").read_text()


def test_self_judge_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text(json.dumps([{"id": 1, "type": "iot", "text": "Which sites are there?",
                                 "category": "Knowledge Query", "characteristic_form": "x",
                                 "provenance": {"model": "ollama:llama3.2"}}]))
    proc = subprocess.run(
        [sys.executable, "-m", "generator.cli", "score", str(path),
         "--judge", "llm:ollama:llama3.2"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--allow-self-judge" in lines[0]
    assert "Traceback" not in proc.stderr


def test_bad_options_are_user_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    path = UPSTREAM / "paper_generated_transformer_scenarios.json"
    for args, needle in (
        (["--judge", "gpt4"], "unknown --judge entry"),
        (["--dry-run", "maybe"], "unknown --dry-run value"),
        (["--dry-run-file", str(tmp_path / "missing.json")], "does not exist"),
    ):
        result = runner.invoke(app, ["score", str(path), *args])
        assert result.exit_code != 0
        assert needle in str(result.exception)


def test_run_folder_without_scenarios_is_one_user_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["score", str(tmp_path)])
    assert result.exit_code != 0
    assert "holds no scenarios.json" in str(result.exception)


def test_a_run_folder_scores_its_scenarios_json(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "scenarios.json").write_text(
        (UPSTREAM / "paper_generated_transformer_scenarios.json").read_text()
    )
    result = CliRunner().invoke(app, ["score", str(run), "--json"])
    assert result.exit_code == 0, result.output
    assert '"score_100"' in result.output


def test_cli_rules_and_a_scripted_llm_judge(tmp_path: Path) -> None:
    records = [{"id": i, "type": "iot", "category": "Knowledge Query",
                "text": f"Which transformers are installed at site EAST, part {i}?",
                "characteristic_form": "The response should list the assets using `assets`."}
               for i in (1, 2)]
    path = tmp_path / "set.json"
    path.write_text(json.dumps(records))
    dims = ("answerability", "tool_usability", "difficulty", "characteristic_form", "clarity")
    replies = [json.dumps({d: {"rating": 5, "reason": "ok"} for d in dims}), "not json"]
    script = tmp_path / "judge.json"
    script.write_text(json.dumps(replies))
    result = CliRunner().invoke(app, ["score", str(path), "--judge",
                                      f"rules,llm:fake:{script}", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["judges"] == ["rules", "fake:judge.json"]
    assert data["agreement"]["statistic"] == "cohen"
    assert len(data["unscored"]) == 1  # which one depends on the call order
    assert "not JSON" in data["unscored"][0]["unscored_reason"]
