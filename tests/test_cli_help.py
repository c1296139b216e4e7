"""The CLI's help: every option and argument explains itself, the top-level help says which
checking verb answers which question, and the exit codes a help text promises are the ones
the command returns."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer.main
from typer import _click as click

from generator.cli import VERB_GUIDE, app


def _walk(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    yield path, command
    if hasattr(command, "list_commands"):
        ctx = click.core.Context(command, info_name=path[-1])
        for name in command.list_commands(ctx):
            yield from _walk(command.get_command(ctx, name), [*path, name])


def _commands() -> list[tuple[list[str], Any]]:
    return list(_walk(typer.main.get_command(app), ["scenariogen"]))


def test_every_option_and_argument_has_help() -> None:
    commands = _commands()
    params = [(p, c) for _, c in commands for p in c.params]
    assert len(commands) > 40 and len(params) > 150  # the walk reached the sub-apps
    missing = sorted(
        f"{' '.join(path)} {p.param_type_name} {p.name}"
        for path, c in commands for p in c.params
        if p.name != "help" and not (getattr(p, "help", None) or "").strip()
    )
    assert missing == []


def test_every_command_has_a_docstring() -> None:
    missing = [" ".join(path) for path, c in _commands() if not (c.help or "").strip()]
    assert missing == []


def test_top_level_help_says_which_verb_answers_which_question() -> None:
    names = {path[1] for path, _ in _commands() if len(path) == 2}
    verbs = ["validate", "audit", "evaluate", "dryrun", "score"]
    rows = [line.split()[0] for line in VERB_GUIDE.splitlines()
            if line.startswith("  ") and not line.startswith("    ")]
    assert rows == verbs and set(verbs) <= names
    out = subprocess.run([sys.executable, "-m", "generator.cli", "--help"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    for verb in verbs:
        assert any(line.split()[:1] == [verb] and "?" in line for line in out.splitlines()), verb


def _dead_store_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "COUCHDB_URL": "http://127.0.0.1:9", "SCENARIOGEN_HOME": str(tmp_path),
            "SCENARIOGEN_SECRET": "k" * 48}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "generator.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


def _help(args: list[str]) -> str:
    out = _run([*args, "--help"], dict(os.environ)).stdout
    return " ".join(out.split())


def test_heldout_generate_with_the_store_down_exits_as_its_help_says(tmp_path: Path) -> None:
    proc = _run(["heldout", "generate", "-n", "1", "--out", str(tmp_path / "h")],
                _dead_store_env(tmp_path))
    assert proc.returncode == 2, proc.stderr
    text = _help(["heldout", "generate"])
    assert "2 usage or the store unreachable" in text and "4" not in text.split("Exit")[1][:80]


def test_heldout_nightly_exit_codes_for_one_class_and_several(tmp_path: Path) -> None:
    env = _dead_store_env(tmp_path)
    one = _run(["heldout", "nightly", "-n", "1", "--root", str(tmp_path / "n1")], env)
    several = _run(["heldout", "nightly", "-n", "1", "--root", str(tmp_path / "n2"),
                    "--asset", "all"], env)
    assert (one.returncode, several.returncode) == (2, 4), (one.stderr, several.stdout)
    text = _help(["heldout", "nightly"])
    assert "2 usage, or the store unreachable with one class" in text
    assert "4 a class stopped on an outage (store, LLM server) while several ran" in text
