"""The run folder: durable appends, torn last lines, resume checks, no seed in the output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.generate.model import (
    Rejection,
    ScenarioProvenance,
    ScenarioRecord,
    TaskSeed,
    ToolCall,
)
from generator.generate.run.pipeline import _id_offsets
from generator.generate.run.run_config import GenerateConfig
from generator.generate.run.run_folder import AcceptedLine, RunFolder
from generator.generate.run.run_key import seed_fingerprint
from generator.generate.run.run_resume import check_resume

KEY = bytes(range(32))


def _record(i: int) -> ScenarioRecord:
    return ScenarioRecord(
        id=f"transformer_scenario_{i:02d}",
        type="iot",
        text=f"What was the top-oil temperature of NORTH-TX0{i} at 2026-06-02?",
        category="Data Query",
        characteristic_form="The response uses `history` and reports 61.2 degC.",
        deterministic=True,
        uuid=f"u{i}",
        asset_class="transformer",
        difficulty="easy",
        expected_tools=["history"],
        tool_sequence=[ToolCall(name="history", args={"asset_id": f"NORTH-TX0{i}"})],
        reference_answer={"value": 61.2},
        tolerance={"value": 0.05},
        family="latest_value",
        grounding={"asset_id": f"NORTH-TX0{i}"},
        provenance=ScenarioProvenance(
            generator_version="t", run_id="r", verbaliser="template", model="none",
            prompt_version="p", batch=1, attempts=1, family="latest_value", draw=i,
        ),
    )


def _line(i: int) -> AcceptedLine:
    return AcceptedLine(domain="iot", slot=i, cursor=i * 2, record=_record(i), seed=None)


def test_accepted_lines_round_trip_and_a_torn_last_line_is_dropped(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.create()
    folder.accept(_line(1))
    folder.accept(_line(2))
    with (folder.path / "accepted.jsonl").open("a") as fh:
        fh.write(_line(3).model_dump_json()[:40])  # the write a kill interrupted
    lines = folder.accepted()
    assert [ln.record.id for ln in lines] == ["transformer_scenario_01", "transformer_scenario_02"]
    assert lines[1].cursor == 4


def test_the_lines_held_are_the_lines_the_file_holds(tmp_path: Path) -> None:
    """Resumed lines first, then those accepted since, in the file's order."""
    first = RunFolder(tmp_path / "run")
    first.create()
    first.write_manifest({"accepted_chain": first.chain_entry()})
    for i in (1, 2):
        first.accept(_line(i))
    again = RunFolder(tmp_path / "run")
    again.load_records(again.resume_accepted(again.manifest(), {"run_id": "run"}))
    for i in (3, 4):
        again.accept(_line(i))
    assert [ln.slot for ln in again.lines_held] == [1, 2, 3, 4]
    assert again.lines_held == again.accepted()


def test_a_corrupt_line_in_the_middle_is_a_user_error(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.create()
    folder.accept(_line(1))
    with (folder.path / "accepted.jsonl").open("a") as fh:
        fh.write("{not json}\n")
    folder.accept(_line(2))
    with pytest.raises(UserError, match="line 2"):
        folder.accepted()


def test_an_existing_run_folder_is_not_overwritten(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.create()
    folder.reject(
        Rejection(domain="iot", seed_key=None, stage="early", reasons=["x: y"], raw="r", attempt=1)
    )
    with pytest.raises(UserError, match="--resume run"):
        RunFolder(tmp_path / "run").create()
    assert folder.rejected_count() == 1


def test_resume_refuses_other_options_and_a_missing_manifest(tmp_path: Path) -> None:
    cfg = GenerateConfig(n=10, seed=1234)
    fp = seed_fingerprint(1234, KEY)
    manifest = {"run_id": "r", "options": cfg.output_options(), "seed_fingerprint": fp}
    check_resume(manifest, cfg, fp, "v")
    with pytest.raises(UserError, match=r"-n was 10 when the run started, now 11"):
        check_resume(manifest, GenerateConfig(n=11, seed=1234), fp, "v")
    with pytest.raises(UserError, match=r"--max-repairs was 3 when the run started, now 5"):
        check_resume(manifest, GenerateConfig(n=10, seed=1234, max_repairs=5), fp, "v")
    with pytest.raises(UserError, match=r"--seed .* differs"):
        check_resume(manifest, cfg, seed_fingerprint(99, KEY), "v")
    with pytest.raises(UserError, match=r"manifest\.json missing"):
        RunFolder(tmp_path / "nope").manifest()


def test_the_manifest_config_never_holds_the_seed() -> None:
    cfg = GenerateConfig(seed=987654321)
    public = json.dumps(cfg.public())
    assert "987654321" not in public and "seed" not in cfg.public()
    assert seed_fingerprint(987654321, KEY) != seed_fingerprint(987654322, KEY)


def test_ids_are_offset_by_domain_in_a_fixed_order() -> None:
    offsets, width = _id_offsets({"wo": 3, "iot": 5, "multiagent": 2}, 10)
    assert offsets["iot"] == 0 and offsets["wo"] == 5 and offsets["multiagent"] == 8
    assert width == 2
    assert _id_offsets({"iot": 1000}, 1000)[1] == 4


def test_task_seed_key_and_expected_tools() -> None:
    seed = TaskSeed(
        family="f", domain="fmsr", category="Diagnostic Assessment", role="operator", draw=3,
        params={}, mentions=[], answer={}, answer_summary="", difficulty="easy",
        tool_sequence=[
            ToolCall(name="oil_samples", args={}),
            ToolCall(name="interpret_dga", args={}),
            ToolCall(name="oil_samples", args={}),
        ],
    )
    assert seed.key == "f#3" and seed.expected_tools == ["oil_samples", "interpret_dga"]


def test_group_commit_defers_fsync_to_one_per_file_and_keeps_every_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    folder = RunFolder(tmp_path / "run")
    folder.create()
    folder.group_commit = True
    for i in range(3):
        folder.accept(_line(i))
    folder.reject(Rejection(domain="iot", seed_key="k", stage="check", reasons=["x: y"],
                            raw="t", attempt=1))
    assert synced == []  # appends are written, not yet flushed
    assert [ln.slot for ln in folder.accepted()] == [0, 1, 2]
    folder.sync()
    assert len(synced) == 2  # accepted.jsonl and rejected.jsonl, once each
    folder.sync()
    assert len(synced) == 2  # nothing new to flush
    folder.group_commit = False
    folder.accept(_line(3))
    assert len(synced) == 3  # without group commit every append is flushed
