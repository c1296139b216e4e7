"""`inspect` export: the task runs under inspect_ai with a scripted model; our grader scores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.config import StoreSettings
from generator.export import export_run

HELPER = Path(__file__).with_name("scripted_inspect_eval.py")


def test_exported_task_runs_and_scores_with_a_scripted_model(
    run50: Path, seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    pytest.importorskip("inspect_ai")
    out = tmp_path / "task"
    result = export_run(run50, "inspect", out)
    assert [p.name for p in result.files] == ["task.py", "dataset.jsonl", "id_map.json"]
    rows = [json.loads(x) for x in (out / "dataset.jsonl").read_text().splitlines()]
    assert len(rows) == 52 and all(r["input"] and r["scenario"]["text"] == r["input"]
                                   for r in rows)
    env = {**os.environ, "COUCHDB_URL": seeded_settings.url,
           "SCENARIOGEN_DB_PREFIX": seeded_settings.db_prefix,
           "XDG_DATA_HOME": str(tmp_path / "xdg"), "INSPECT_LOG_DIR": str(tmp_path / "logs")}
    if seeded_settings.username:
        env["COUCHDB_USERNAME"] = seeded_settings.username
    if seeded_settings.password:
        env["COUCHDB_PASSWORD"] = seeded_settings.password
    proc = subprocess.run(
        [sys.executable, str(HELPER), str(out), str(tmp_path / "logs")],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["status"] == "success", summary["error"]
    assert summary["ids"] == [r["id"] for r in rows[:3]]
    first, second, third = summary["scores"]
    # 1: the right tools, then the computed reference → every fact matched.
    assert first == 1.0 and summary["feasible"][0] is True
    assert summary["tool_results"][0] == summary["expected_tools"][0]
    assert summary["tool_errors"][0] == []
    # 2: no tool, no value → the grader finds none of the reference facts.
    assert second == 0.0 and summary["feasible"][1] is False
    # 3: an impossible argument comes back as our one-line tool error with its fix.
    (err,) = summary["tool_errors"][2]
    assert "fix:" in err and "\n" not in err and ("not-a-date" in err or "NOPE-TX99" in err)
    assert third == 1.0
    assert summary["metrics"]["mean"] == pytest.approx(2 / 3)


def test_inspect_eval_cli_scores_a_replayed_agent(
    run50: Path, seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    """The literal `inspect eval` command line, with our `scenariogen-replay` model found
    through inspect_ai's entry points: a replayed agent that calls the expected tools and
    answers the computed reference scores 1; one that answers without values scores 0."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    from generator.export.inspect_replay import PROVIDER, script_for

    out = tmp_path / "task"
    export_run(run50, "inspect", out)
    rows = [json.loads(x) for x in (out / "dataset.jsonl").read_text().splitlines()]
    first, second = rows[0]["scenario"], rows[1]["scenario"]
    right = [{"tool": c["name"], "args": c["args"]} for c in first["tool_sequence"]]
    right.append({"answer": json.dumps(first["reference_answer"])})
    script = tmp_path / "turns.json"
    script.write_text(script_for([
        (first["text"], right),
        (second["text"], [{"answer": "I could not work that out."}]),
    ]))
    logs = tmp_path / "logs"
    env = {**os.environ, "COUCHDB_URL": seeded_settings.url,
           "SCENARIOGEN_DB_PREFIX": seeded_settings.db_prefix,
           "XDG_DATA_HOME": str(tmp_path / "xdg")}
    if seeded_settings.username:
        env["COUCHDB_USERNAME"] = seeded_settings.username
    if seeded_settings.password:
        env["COUCHDB_PASSWORD"] = seeded_settings.password
    inspect_cli = Path(sys.executable).with_name("inspect")
    proc = subprocess.run(
        [str(inspect_cli), "eval", "task.py", "--model", f"{PROVIDER}/scripted",
         "-M", f"script={script}", "--limit", "2", "--max-samples", "1",
         "--log-dir", str(logs), "--log-format", "json", "--display", "none"],
        cwd=out, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, (proc.stdout[-1500:], proc.stderr[-1500:])
    (log_file,) = logs.glob("*.json")
    log = read_eval_log(str(log_file))
    assert log.status == "success", log.error
    scores = {s.id: next(iter(s.scores.values())).value for s in log.samples or [] if s.scores}
    assert scores == {rows[0]["id"]: 1.0, rows[1]["id"]: 0.0}
    tool_msgs = [m for m in (log.samples or [])[0].messages if m.role == "tool"]
    assert len(tool_msgs) == len(first["tool_sequence"])
    assert all(m.error is None for m in tool_msgs)
