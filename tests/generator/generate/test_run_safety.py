"""Run-folder safety: names and paths, the lock, torn lines, full disks, restarts before the
first manifest, options compared on resume, the keyed seed fingerprint."""

from __future__ import annotations

import errno
import hashlib
import json
import os
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.generate.model import Rejection
from generator.generate.run import run_folder as rf
from generator.generate.run.run_config import GenerateConfig
from generator.generate.run.run_folder import (
    OutputUnwritable,
    RunBusy,
    RunFolder,
    run_folder_path,
    validate_run_id,
)
from generator.generate.run.run_key import installation_key, key_path, seed_fingerprint
from tests.generator.generate.test_run_folder import _line

# -- names and paths ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad", ["../x", "..", "a/../b", "/etc", "a/b", "", ".hidden", "x" * 65, "a b", "a\x00b"]
)
def test_run_ids_must_be_plain_names(bad: str, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="plain folder name"):
        run_folder_path(tmp_path, bad)
    assert list(tmp_path.iterdir()) == []  # nothing written anywhere


def test_a_good_run_id_stays_inside_out(tmp_path: Path) -> None:
    assert validate_run_id("transformer-20261201T000000-a1b2c3") == (
        "transformer-20261201T000000-a1b2c3"
    )
    assert run_folder_path(tmp_path / "new", "r.1_x").parent == tmp_path / "new"


def test_a_run_folder_that_is_a_symlink_outside_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "scenarios.json").write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "r").symlink_to(victim)
    with pytest.raises(UserError, match="is a symlink"):
        run_folder_path(out, "r", option="--resume")
    assert (victim / "scenarios.json").read_text() == "precious\n"


def test_out_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(UserError, match="is a file, not a folder"):
        run_folder_path(tmp_path / "f", "r")


def test_a_planted_symlink_inside_the_run_folder_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = RunFolder(tmp_path / "run")
    folder.create()
    (folder.path / "rejected.jsonl").symlink_to(victim)
    with pytest.raises(OutputUnwritable):
        folder.reject(Rejection(domain="iot", seed_key=None, stage="early", reasons=["a: b"],
                                raw="r", attempt=1))
    assert victim.read_text() == "precious\n"


# -- the lock ------------------------------------------------------------------------------


def test_a_second_holder_is_refused_and_a_dead_holders_lock_is_free(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    with folder.lock():
        assert (folder.path / ".lock").read_text().strip() == str(os.getpid())
        with pytest.raises(RunBusy, match=f"in use by process {os.getpid()}"), \
                RunFolder(tmp_path / "run").lock():
            pass
    # the holder let go (as a killed process does): the stale PID in the file is no obstacle
    with RunFolder(tmp_path / "run").lock():
        pass


# -- torn lines and full disks ---------------------------------------------------------------


def test_torn_tails_are_cut_from_both_logs_and_said_so(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.create()
    folder.accept(_line(1))
    folder.reject(Rejection(domain="iot", seed_key=None, stage="early", reasons=["a: b"],
                            raw="r", attempt=1))
    good = (folder.path / "accepted.jsonl").read_bytes()
    with (folder.path / "accepted.jsonl").open("a") as fh:
        fh.write(_line(2).model_dump_json()[:55])
    with (folder.path / "rejected.jsonl").open("a") as fh:
        fh.write('{"domain": "io')
    notices = folder.repair_tails()
    assert len(notices) == 2 and all("torn last line" in n for n in notices)
    assert (folder.path / "accepted.jsonl").read_bytes() == good
    assert folder.rejected_count() == 1
    folder.accept(_line(2))  # appends after the cut, not onto the fragment
    assert [ln.slot for ln in folder.accepted()] == [1, 2]
    assert folder.repair_tails() == []


def test_a_failed_append_leaves_no_partial_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.create()
    folder.accept(_line(1))
    before = (folder.path / "accepted.jsonl").read_bytes()

    def half_then_full(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(rf, "_write_all", half_then_full)
    with pytest.raises(OutputUnwritable, match="No space left on device"):
        folder.accept(_line(2))
    assert (folder.path / "accepted.jsonl").read_bytes() == before


def test_scenarios_json_is_byte_identical_to_a_plain_dump(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.create()
    for i in (3, 1, 2):
        folder.accept(_line(i))
    folder.write_scenarios({"iot": 0})
    records = [_line(i).record.model_dump(mode="json") for i in (1, 2, 3)]
    assert (folder.path / "scenarios.json").read_text() == json.dumps(records, indent=2) + "\n"
    empty = RunFolder(tmp_path / "empty")
    empty.create()
    empty.write_scenarios({})
    assert (empty.path / "scenarios.json").read_text() == json.dumps([], indent=2) + "\n"


def test_a_folder_that_died_before_its_manifest_is_taken_over(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    folder.path.mkdir()
    (folder.path / "manifest.json.tmp").write_text('{"run_id": "ru')
    (folder.path / ".lock").write_text("123\n")
    assert folder.never_started()
    folder.create()
    assert not (folder.path / "manifest.json.tmp").exists()


# -- secrets -------------------------------------------------------------------------------


def test_the_run_key_is_private_and_the_fingerprint_needs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path / "a"))
    fp_a = seed_fingerprint(4711)
    assert key_path().stat().st_mode & 0o777 == 0o600
    assert seed_fingerprint(4711) == fp_a  # stable on one installation (resume works)
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path / "b"))
    assert seed_fingerprint(4711) != fp_a  # another key: the seed alone does not fix it
    assert installation_key() != bytes.fromhex((tmp_path / "a" / "run-key").read_text())


def test_a_password_in_base_url_never_reaches_the_manifest_config() -> None:
    cfg = GenerateConfig(llm="openai:m", base_url="https://bob:s3cr3t-pw@llm.example/v1")
    text = json.dumps([cfg.public(), cfg.output_options()])
    assert "s3cr3t-pw" not in text and "bob:***@llm.example" in text


def old_fingerprints(seed: int) -> list[str]:
    """What an unsalted fingerprint of ``seed`` looks like (the pre-13.4 scheme and plain
    sha256 of the number), as full digests and the prefixes a manifest or run id took."""
    digests = [
        hashlib.sha256(f"scenariogen-run-seed:{seed}".encode()).hexdigest(),
        hashlib.sha256(str(seed).encode()).hexdigest(),
    ]
    return [d[:k] for d in digests for k in (64, 16, 6)]


def test_old_fingerprints_of_the_true_seed_are_found_when_present() -> None:
    planted = f'{{"seed_fingerprint": "{old_fingerprints(1234567)[1]}"}}'
    assert any(fp in planted for fp in old_fingerprints(1234567))


# -- the CLI: one line, exit 2, nothing written outside --out ---------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--resume", "../victim"], "--resume must be a plain folder name"),
        (["--run-id", "/tmp/abs"], "--run-id must be a plain folder name"),
        (["--run-id", "x" * 300], "--run-id must be a plain folder name"),
        (["--run-id", "a", "--resume", "b"], "name different runs"),
    ],
)
def test_the_cli_refuses_escaping_run_ids_with_one_line(
    args: list[str], says: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    out = tmp_path / "out"
    victim = tmp_path / "victim"
    victim.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "generator.cli", "generate", "transformer", "-n", "2",
         "--out", str(out), "--no-progress", *args],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], proc.stderr
    assert list(victim.iterdir()) == []
