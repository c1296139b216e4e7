"""Issue 28.4: a file the user names must be a regular file, read at most up to its limit.

``stat`` reports size 0 for a FIFO or a device, so the old size checks passed them: a FIFO
with no writer hung the command and ``/dev/zero`` was read until memory ran out
(MemoryError traceback, or the kernel's OOM killer). Each input below now gets one line
naming the file and what it is, exit 2.

The FIFO fixture keeps opening the FIFO for writing (without blocking) and closing it, so
a reader that still opens it (the old code) sees end-of-file instead of waiting forever:
the test then fails on the message rather than hanging.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.errors import UserError
from generator.userfile import read_bytes, read_text

SCENARIO = {"id": "s1", "type": "IoT", "text": "List the sites.", "category": "Knowledge Query",
            "characteristic_form": "uses sites", "reference_answer": {"sites": ["EAST"]}}


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store URL nobody answers on: every case must fail before any store access."""
    monkeypatch.setenv("COUCHDB_URL", "http://127.0.0.1:9")


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO, with a thread that unblocks any reader that opened it (see module doc)."""
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    stop = threading.Event()

    def unblock() -> None:
        while not stop.wait(0.5):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: nobody reads it
                continue
            os.close(fd)

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    yield path
    stop.set()
    thread.join()


def _special(kind: str, tmp_path: Path, fifo: Path) -> Path:
    if kind == "dev_zero":
        return Path("/dev/zero")
    if kind == "fifo":
        return fifo
    if kind == "symlink_to_device":
        link = tmp_path / "link.json"
        link.symlink_to("/dev/zero")
        return link
    folder = tmp_path / "folder.json"
    folder.mkdir()
    return folder


KINDS = ["dev_zero", "fifo", "symlink_to_device", "directory"]
WHAT = {"dev_zero": "character device", "fifo": "FIFO", "symlink_to_device": "character device",
        "directory": "directory"}

# {f}: the special file; {s}: a good scenario file; {a}: a good answers file; {o}: --out.
# folder_ok: the command takes a folder there (a run folder), so "directory" is not refused
# as a file.
CASES = [
    ("validate", ["validate", "{f}"], False),
    ("validate-against", ["validate", "{s}", "--against", "{f}"], False),
    ("evaluate-scenarios", ["evaluate", "{f}", "{a}"], True),
    ("evaluate-answers", ["evaluate", "{s}", "{f}"], False),
    ("generate-against",
     ["generate", "transformer", "-n", "2", "--against", "{f}", "--out", "{o}"], False),
    ("generate-fake",
     ["generate", "transformer", "-n", "2", "--llm", "fake:{f}", "--out", "{o}"], False),
    ("profile-fake", ["profile", "transformer", "--llm", "fake:{f}", "--no-cache"], False),
    ("score", ["score", "{f}"], True),
    ("score-dry-run-file", ["score", "{s}", "--dry-run-file", "{f}"], False),
    ("dryrun-report", ["dryrun-report", "{f}"], True),
    ("difficulty-report", ["difficulty-report", "{f}", "--scenarios", "{s}"], True),
    ("heldout-secret-file", ["heldout", "scan", "{o}", "--secret-file", "{f}"], False),
    ("serve-tools-env-file", ["serve-tools", "--env-file", "{f}"], False),
    ("bench-validate", ["bench", "validate", "{f}"], False),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("argv", "folder_ok"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_special_files_are_one_line(
    cli: Any, offline: None, tmp_path: Path, fifo: Path, kind: str, argv: list[str],
    folder_ok: bool,
) -> None:
    if kind == "directory" and folder_ok:
        pytest.skip("this argument takes a run folder")
    special = _special(kind, tmp_path, fifo)
    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(json.dumps([SCENARIO]))
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"id": "s1", "answer": "EAST"}]))
    out = tmp_path / "out"
    out.mkdir()
    filled = [a.format(f=special, s=scenarios, a=answers, o=out) for a in argv]
    line = cli(*filled).one_line()
    assert line.startswith("error: ") and str(special) in line, line
    if kind == "directory":  # typer refuses some folders itself (dir_okay=False)
        assert "is a directory" in line, line
    else:
        assert f"is a {WHAT[kind]}, not a regular file" in line, line
    assert not any(out.iterdir()), "no run folder before the inputs are checked"


@pytest.mark.parametrize("kind", ["dev_zero", "fifo"])
def test_audit_refuses_a_special_accepted_jsonl(
    cli: Any, offline: None, tmp_path: Path, fifo: Path, kind: str
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "accepted.jsonl").symlink_to(_special(kind, tmp_path, fifo))
    line = cli("audit", str(run)).one_line()
    assert "accepted.jsonl" in line and "not a regular file" in line


# -- the helper itself -----------------------------------------------------------------------


def test_read_refuses_every_kind_of_special_file(tmp_path: Path, fifo: Path) -> None:
    for kind in KINDS:
        with pytest.raises(UserError) as err:
            read_text(_special(kind, tmp_path, fifo), "scenario file", max_bytes=1000)
        assert f"is a {WHAT[kind]}, not a regular file" in str(err.value)
        assert "fix: give a regular file" in str(err.value)


def test_read_is_bounded_and_names_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 5000)
    assert read_bytes(big, "x", max_bytes=5000) == b"x" * 5000
    with pytest.raises(UserError, match=r"big.json is too large \(5,000 bytes, over the limit "
                       r"of 4,999\)"):
        read_bytes(big, "scenario file", max_bytes=4999)


def test_read_of_a_file_stat_calls_empty(tmp_path: Path) -> None:
    # /proc files are regular with st_size 0: read in chunks up to the limit.
    status = read_text(Path("/proc/self/status"), "x", max_bytes=1_000_000)
    assert "Pid:" in status
    with pytest.raises(UserError, match="over the limit of 10"):
        read_text(Path("/proc/self/status"), "x", max_bytes=10)


def test_read_names_missing_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"answers file .*nope does not exist; fix: give"):
        read_text(tmp_path / "nope", "answers file", max_bytes=10)
    with pytest.raises(UserError, match="NUL"):
        read_text(Path("a\x00b"), "answers file", max_bytes=10)
    with pytest.raises(UserError, match="File name too long"):
        read_text(tmp_path / ("a" * 300), "answers file", max_bytes=10)
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'["caf\xe9"]')
    with pytest.raises(UserError, match=r"latin1.json is not UTF-8 .*byte 5"):
        read_text(bad, "answers file", max_bytes=100)
    assert read_text(bad, "answers file", max_bytes=100, errors="replace") == '["caf\ufffd"]'


def test_the_leak_scan_refuses_a_special_file_it_was_given(tmp_path: Path, fifo: Path) -> None:
    from generator.heldout.leakscan import LeakScanner

    # It skipped it before: a log named with --also that is a FIFO was reported clean.
    with pytest.raises(UserError, match="is a FIFO, not a regular file"):
        LeakScanner().scan([fifo], tmp_path)
