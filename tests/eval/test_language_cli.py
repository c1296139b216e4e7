"""`scenariogen score` reports the language figures; `bench language --from` prints them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from generator.cli import app
from generator.errors import UserError

UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "upstream"


def test_score_reports_the_language_figures(tmp_path: Path) -> None:
    out = tmp_path / "s"
    result = CliRunner().invoke(app, ["score", str(UPSTREAM / "assetopsbench_all_utterance.jsonl"),
                                      "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    language = json.loads((out / "score.json").read_text())["language"]
    # the figure for the 141 human utterances
    assert language["texts"] == 141 and round(language["distinct_3gram_ratio"], 3) == 0.527
    assert "language: 141 texts" in (out / "score.md").read_text()


def test_bench_language_from_a_run_folder(tmp_path: Path) -> None:
    # a run folder by hand: two accepted lines, one with a leak and a slip
    records = [
        {"id": "x_1", "type": "iot", "difficulty": "easy",
         "text": "What was the wti of T-1 within 1 days?"},
        {"id": "x_2", "type": "iot", "difficulty": "hard",
         "text": "What was the winding temperature of T-2 yesterday?"},
    ]
    seeds = [{"difficulty": "easy", "declared_difficulty": "hard"}, {"difficulty": "hard"}]
    lines = [json.dumps({"record": r, "seed": s}) for r, s in zip(records, seeds, strict=True)]
    (tmp_path / "accepted.jsonl").write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, ["bench", "language", "--from", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "2 texts: distinct 3-gram ratio" in result.output
    assert "parameter_leak: texts by kind: sensor_code 1" in result.output
    assert "grammar: texts by kind: agreement 1" in result.output
    assert "difficulty iot: easy 1, medium 0, hard 1" in result.output
    assert "declared by the families: easy 0, medium 0, hard 2" in result.output


def test_bench_language_bad_source_is_one_line(tmp_path: Path) -> None:
    # main() prints a UserError as one line and exits 2; the runner hands it back raised
    result = CliRunner().invoke(app, ["bench", "language", "--from", str(tmp_path)])
    assert isinstance(result.exception, UserError)
    assert "is not a run folder (no accepted.jsonl)" in str(result.exception)
