"""Tamper evidence of accepted.jsonl: each line's digest is chained to the line before and to
the manifest, keyed with the installation's run key; a resume refuses lines that do not
verify, naming the first bad one.

Issue 28: a resume took accepted.jsonl as it was, so a record edited by hand (valid JSON,
changed reference) went into scenarios.json without a word.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.config import StoreSettings
from generator.errors import UserError
from generator.generate.run.run_folder import RunFolder
from tests.generator.generate.test_run_folder import _line

BIND = {"run_id": "run", "options_digest": "d" * 64}


def _run(tmp_path: Path, n: int = 4, name: str = "run") -> RunFolder:
    """A run folder with ``n`` accepted lines and the manifest the pipeline writes."""
    folder = RunFolder(tmp_path / name)
    folder.create(bind=BIND)
    folder.write_manifest({"run_id": name, "accepted_chain": folder.chain_entry()})
    for i in range(1, n + 1):
        folder.accept(_line(i))
    return folder


def _lines(folder: RunFolder) -> list[str]:
    return (folder.path / "accepted.jsonl").read_text().splitlines()


def _write(folder: RunFolder, lines: list[str]) -> None:
    (folder.path / "accepted.jsonl").write_text("".join(ln + "\n" for ln in lines))


def _resume(folder: RunFolder, bind: dict[str, str] = BIND) -> list[int]:
    again = RunFolder(folder.path)
    return [ln.slot for ln in again.resume_accepted(again.manifest(), bind=bind)]


def test_each_line_carries_a_digest_and_an_intact_run_resumes(tmp_path: Path) -> None:
    folder = _run(tmp_path)
    digests = [json.loads(raw)["digest"] for raw in _lines(folder)]
    assert len(set(digests)) == 4 and all(len(d) == 64 for d in digests)
    again = RunFolder(folder.path)
    assert [ln.slot for ln in again.resume_accepted(again.manifest(), bind=BIND)] == [1, 2, 3, 4]
    again.accept(_line(5))  # the chain goes on from the last verified line
    assert _resume(folder) == [1, 2, 3, 4, 5]
    # the readers that only parse (export, audit, counts) take the digest as a field
    assert [ln.slot for ln in RunFolder(folder.path).accepted()] == [1, 2, 3, 4, 5]


def test_a_record_edited_by_hand_is_refused_naming_its_line_and_the_fix(tmp_path: Path) -> None:
    folder = _run(tmp_path)
    good = _lines(folder)
    data = json.loads(good[1])
    data["record"]["reference_answer"] = {"value": 99.9}  # valid JSON, changed reference
    _write(folder, [good[0], json.dumps(data), *good[2:]])
    with pytest.raises(UserError) as err:
        _resume(folder)
    msg = str(err.value)
    assert "accepted.jsonl line 2 " in msg and "does not verify" in msg
    assert "head -n 1 " in msg and "\n" not in msg
    # an edit of the bytes alone, the digest left as it was
    assert '"value":61.2' in good[1]
    _write(folder, [good[0], good[1].replace('"value":61.2', '"value":61.3'), *good[2:]])
    with pytest.raises(UserError, match="line 2 "):
        _resume(folder)


def test_reordered_deleted_foreign_and_unsigned_lines_are_refused(tmp_path: Path) -> None:
    folder = _run(tmp_path)
    good = _lines(folder)
    cases = {
        "swapped": [good[0], good[2], good[1], good[3]],
        "deleted": [good[0], good[2], good[3]],
        # the same line from another run with the same options (another manifest)
        "foreign": [good[0], _lines(_run(tmp_path, name="other"))[1], *good[2:]],
        "unsigned": [good[0], good[1].split(',"digest"')[0] + "}", *good[2:]],
    }
    for name, lines in cases.items():
        _write(folder, lines)
        with pytest.raises(UserError, match="line 2 "):
            _resume(folder)
        assert name
    _write(folder, good)
    with pytest.raises(UserError, match="line 1 "):  # the manifest's options differ
        _resume(folder, bind={**BIND, "options_digest": "e" * 64})
    assert _resume(folder) == [1, 2, 3, 4]
    # a cut tail verifies (its candidates are drawn again on resume)
    _write(folder, good[:2])
    assert _resume(folder) == [1, 2]


def test_a_run_written_before_digests_is_refused_with_a_fix(tmp_path: Path) -> None:
    folder = _run(tmp_path)
    legacy = [raw.split(',"digest"')[0] + "}" for raw in _lines(folder)]
    _write(folder, legacy)
    folder.write_manifest({"run_id": "run", "versions": {"scenariogen": "0.9.0"}})
    with pytest.raises(UserError) as err:
        _resume(folder)
    msg = str(err.value)
    assert "before accepted lines carried digests" in msg
    assert "scenariogen 0.9.0" in msg and "start a new run" in msg and "\n" not in msg
    # a run of that age with nothing accepted yet has nothing to verify: it resumes
    _write(folder, [])
    assert _resume(folder) == []


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator.cli", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.couch
def test_generate_resume_refuses_an_edited_reference_with_exit_2(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's reproduction through the CLI: before, the resume exited 0 and the edited
    reference was in scenarios.json."""
    monkeypatch.setenv("COUCHDB_URL", seeded_settings.url)
    monkeypatch.setenv("SCENARIOGEN_DB_PREFIX", seeded_settings.db_prefix)
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    args = ["generate", "transformer", "-n", "4", "--budget", "iot=2,fmsr=2", "--negatives",
            "0", "--seed", "1234567", "--out", str(out), "--no-progress"]
    first = _cli(*args, "--run-id", "r")
    assert first.returncode == 0, first.stderr
    path = out / "r" / "accepted.jsonl"
    good = path.read_text().splitlines()
    assert all("digest" in json.loads(raw) for raw in good)
    intact = _cli(*args, "--resume", "r")
    assert intact.returncode == 0, intact.stderr

    data = json.loads(good[2])
    data["record"]["reference_answer"] = {k: "edited" for k in data["record"]["reference_answer"]}
    path.write_text("".join(ln + "\n" for ln in [*good[:2], json.dumps(data), *good[3:]]))
    edited = _cli(*args, "--resume", "r")
    assert edited.returncode == 2, edited.stdout + edited.stderr
    lines = edited.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "accepted.jsonl line 3 " in lines[0] and "head -n 2 " in lines[0]
    assert "edited" not in (out / "r" / "scenarios.json").read_text()

    # a run written before digests: refused with the fix, never taken as it is
    path.write_text("".join(raw.split(',"digest"')[0] + "}\n" for raw in good))
    manifest = json.loads((out / "r" / "manifest.json").read_text())
    manifest.pop("accepted_chain")
    (out / "r" / "manifest.json").write_text(json.dumps(manifest))
    legacy = _cli(*args, "--resume", "r")
    assert legacy.returncode == 2, legacy.stdout + legacy.stderr
    assert "before accepted lines carried digests" in legacy.stderr
