"""Issue 13.5: every bad input the issue lists is one line on stderr and exit 2 (or 130).

Each case was a traceback (exit 1) before: integers over 4 300 digits and deep nesting in
``--args`` / ``validate`` / ``--against`` / ``fake:`` files, out-of-range options, an
``--out`` that is a file, a 100 000-character ``equipment_id``, an exhausted ``fake:``
script, an unseeded store, typer's 5-6-line usage boxes and Ctrl-C.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings

BIG_INT = "9" * 5000  # CPython refuses int() of more than 4 300 digits
DEEP = "[" * 100_000 + "]" * 100_000  # json's C scanner: RecursionError


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store URL nobody answers on: cases that must fail before any store access."""
    monkeypatch.setenv("COUCHDB_URL", "http://127.0.0.1:9")


def _use_store(monkeypatch: pytest.MonkeyPatch, settings: StoreSettings) -> None:
    monkeypatch.setenv("COUCHDB_URL", settings.url)
    monkeypatch.setenv("SCENARIOGEN_DB_PREFIX", settings.db_prefix)
    for name, value in (("COUCHDB_USERNAME", settings.username),
                        ("COUCHDB_PASSWORD", settings.password)):
        if value:
            monkeypatch.setenv(name, value)


# -- --args --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ('{"hydrogen": ' + BIG_INT + "}", "integer has 5,000 digits"),
        ("[" * 60_000 + "]" * 60_000, "nested deeper than"),
        ('{"hydrogen": NaN}', "NaN is not strict JSON"),
        ('{"hydrogen": Infinity}', "Infinity is not strict JSON"),
    ],
    ids=["bigint", "deep", "nan", "infinity"],
)
def test_args_out_of_bounds(cli: Any, offline: None, args: str, expected: str) -> None:
    line = cli("tools", "call", "interpret_dga", "--args", args).one_line()
    assert line.startswith("error: --args is refused") and expected in line


def test_long_equipment_id_is_refused_before_the_store(cli: Any, offline: None) -> None:
    args = json.dumps({"equipment_id": "A" * 100_000})
    line = cli("tools", "call", "get_events", "--args", args).one_line()
    # Names the tool, the argument, its length, the bound and the valid fields.
    assert "tool 'get_events': argument 'equipment_id' is 100,000 characters long" in line
    assert "at most 256" in line and "equipment_id, start_date, end_date" in line


# -- files -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('[{"id": ' + BIG_INT + "}]", "integer has 5,000 digits"),
        (DEEP, "nested deeper than 64"),
        ('[{"id": 1, "x": NaN}]', "NaN is not strict JSON"),
    ],
    ids=["bigint", "deep", "nan"],
)
def test_validate_and_against_files(
    cli: Any, offline: None, tmp_path: Path, content: str, expected: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    good = tmp_path / "good.json"
    good.write_text("[]")
    assert expected in cli("validate", str(bad)).one_line()
    line = cli("validate", str(good), "--against", str(bad)).one_line()
    assert "bad.json" in line and expected in line


def test_jsonl_line_too_deep(cli: Any, offline: None, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n' + DEEP + "\n")
    line = cli("validate", str(bad)).one_line()
    assert "bad.jsonl line 2: refused" in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [(DEEP, "nested deeper than 64"), ("[" + BIG_INT + "]", "integer has 5,000 digits")],
    ids=["deep", "bigint"],
)
def test_fake_script_out_of_bounds(
    cli: Any, offline: None, tmp_path: Path, content: str, expected: str
) -> None:
    script = tmp_path / "script.json"
    script.write_text(content)
    line = cli("generate", "transformer", "-n", "2", "--llm", f"fake:{script}",
               "--out", str(tmp_path / "out"), "--no-progress").one_line()
    assert "fake LLM script" in line and expected in line


# -- option ranges -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-n", "1000000000"], "'-n' / '--n'"),
        (["-n", "0"], "'-n' / '--n'"),
        (["--multiagent-cap", "0"], "0.0 is not a share in (0, 1]"),
        (["--multiagent-cap", "2"], "2.0 is not a share in (0, 1]"),
        (["--multiagent-cap", "nan"], "nan is not a share in (0, 1]"),
        (["--seed", "-1"], "'--seed'"),
        (["--negatives", "-3"], "'--negatives'"),
        (["--batch-size", "0"], "'--batch-size'"),
    ],
)
def test_generate_option_ranges(
    cli: Any, offline: None, tmp_path: Path, argv: list[str], expected: str
) -> None:
    line = cli("generate", "transformer", *argv, "--out", str(tmp_path)).one_line()
    assert line.startswith("error: scenariogen generate: Invalid value for")
    assert expected in line and "fix: see `scenariogen generate --help`" in line


def test_out_is_a_file(cli: Any, offline: None, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    line = cli("generate", "transformer", "-n", "2", "--out", str(afile)).one_line()
    assert f"--out {afile} is a file, not a folder" in line


def test_out_cannot_be_created(cli: Any, offline: None, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    line = cli("generate", "transformer", "-n", "2", "--out", str(afile / "sub")).one_line()
    assert f"--out {afile / 'sub'} cannot be created" in line


# -- typer usage errors and Ctrl-C -------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["generate", "transformer", "--bogus"], "No such option: --bogus"),
        (["generate", "transformer", "-n", "abc"], "Invalid value for '-n' / '--n'"),
        # `generate` alone uses the default class; a second argument is a usage error.
        (["generate", "transformer", "extra"], "Got unexpected extra argument(s) (extra)"),
        (["nosuchcommand"], "No such command 'nosuchcommand'"),
    ],
)
def test_usage_errors_are_one_line(cli: Any, argv: list[str], expected: str) -> None:
    line = cli(*argv).one_line()
    assert line.startswith("error: scenariogen") and expected in line
    assert "╭" not in line and "--help" in line


def test_ctrl_c_is_one_line_and_130(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import generator.tools.registry as registry

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(registry, "load_tools", interrupted)
    assert cli("tools", "list").one_line(code=130).startswith("interrupted:")


def test_bare_command_group_prints_help_not_an_error(cli: Any) -> None:
    outcome = cli("tools")
    assert outcome.code == 0 and "Usage:" in outcome.out and not outcome.err


# -- a scripted LLM that runs out, an unseeded store -------------------------------------


@pytest.mark.couch
def test_fake_script_exhausted(
    cli: Any, monkeypatch: pytest.MonkeyPatch, seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    _use_store(monkeypatch, seeded_settings)
    script = tmp_path / "script.json"
    script.write_text("[]")
    line = cli("generate", "transformer", "-n", "1", "--negatives", "0", "--llm",
               f"fake:{script}", "--out", str(tmp_path / "out"), "--no-progress").one_line()
    assert "scripted fake exhausted after 0 replies" in line
    assert "add replies to the fake:FILE script" in line


@pytest.mark.couch
def test_unseeded_store(
    cli: Any, monkeypatch: pytest.MonkeyPatch, store_settings: StoreSettings, tmp_path: Path
) -> None:
    _use_store(monkeypatch, store_settings)  # a fresh prefix: nothing seeded under it
    line = cli("generate", "transformer", "-n", "2", "--out", str(tmp_path / "out"),
               "--no-progress").one_line()
    assert "has no transformer data" in line and "seed the store first" in line
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    args = json.dumps({"site_name": "EAST", "asset_id": "EAST-TX01", "start": "2025-01-01"})
    line = cli("tools", "call", "history", "--args", args).one_line()
    assert "tool 'history': the store has no transformer data" in line
    assert "seed the store first: `scenariogen env seed`" in line


@pytest.mark.parametrize("out", ["\x00", "a\x00b", " "])
def test_out_with_a_nul_byte(cli: Any, offline: None, out: str) -> None:
    # Found by the fuzz suite (seed 0): pathlib raised "embedded null byte" as a traceback.
    assert "--out is empty or holds a NUL character" in cli(
        "generate", "transformer", "--out", out).one_line()


def test_difficulty_cuts_unknown_class_is_one_line(cli: Any, offline: None) -> None:
    out = cli("difficulty-cuts", "no-such-class")
    assert out.code == 2
    line = out.one_line()
    assert "no-such-class" in line and "transformer" in line


def test_bench_validate_of_an_empty_set_is_one_line(cli: Any, tmp_path: Path) -> None:
    # Found by `bench fuzz` (special files: a FIFO read to its end gives an empty file).
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    line = cli("bench", "validate", str(empty)).one_line()
    assert "empty.json holds no scenario records to clone" in line


def test_nightly_unknown_class_fails_before_any_night(
    cli: Any, offline: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ``--asset`` of a nightly is checked before the first class's night runs."""
    monkeypatch.setenv("SCENARIOGEN_SECRET", "n" * 40)
    line = cli("heldout", "nightly", "--root", str(tmp_path / "nights"),
               "--asset", "transformer", "--asset", "boiler").one_line()
    assert "'boiler'" in line and "chiller, transformer" in line
    assert not (tmp_path / "nights").exists()
