"""Issue 28.5: names are checked before any path is built, options before a run folder is made.

Before: ``assets check ../..`` read outside ``assets/`` and ended in a UnicodeDecodeError
traceback, a 300-character class name in ENAMETOOLONG; ``--resume`` of a run that never
existed started a new run (exit 0); a bad ``--llm``, ``--retriever`` or ``--against`` was
found only after the run folder existed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.assetdef import available_asset_classes, load_asset_class
from generator.errors import UserError

BAD_NAMES = ["../..", "..", "a" * 300, "transformer/", "./transformer", "Transformer",
             "transformer/../chiller", "/etc", "trans former", "tränsformer", "",
             "transformer\x00"]
VALID = "valid: " + ", ".join(available_asset_classes(drafts=True))


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store URL nobody answers on: every case must fail before any store access."""
    monkeypatch.setenv("COUCHDB_URL", "http://127.0.0.1:9")


@pytest.mark.parametrize("name", BAD_NAMES)
def test_assets_check_refuses_a_bad_name_in_one_line(cli: Any, name: str) -> None:
    line = cli("assets", "check", name).one_line()
    assert "asset class name" in line and VALID in line, line
    assert "fix: " in line


@pytest.mark.parametrize("name", BAD_NAMES)
def test_loading_a_class_refuses_a_bad_name(name: str) -> None:
    load_asset_class.cache_clear()
    with pytest.raises(UserError) as err:
        load_asset_class(name)
    assert "asset class name" in str(err.value) and VALID in str(err.value)


@pytest.mark.parametrize("argv", [["profile", "{n}", "--no-cache"], ["inventory", "{n}"],
                                  ["generate", "{n}", "-n", "2", "--out", "{o}"],
                                  ["serve-tools", "--asset", "{n}"]],
                         ids=["profile", "inventory", "generate", "serve-tools"])
@pytest.mark.parametrize("name", ["../..", "a" * 300])
def test_commands_refuse_a_bad_class_name(
    cli: Any, offline: None, tmp_path: Path, argv: list[str], name: str
) -> None:
    line = cli(*[a.format(n=name, o=tmp_path) for a in argv]).one_line()
    assert "asset class name" in line and VALID in line, line
    assert not any(tmp_path.iterdir())


# -- generate: --resume and every option before the run folder ----------------------------


def test_resume_of_a_run_that_never_existed_names_the_runs(
    cli: Any, offline: None, tmp_path: Path
) -> None:
    for run in ("run-a", "run-b"):
        (tmp_path / run).mkdir()
        (tmp_path / run / "manifest.json").write_text("{}")
    (tmp_path / "not-a-run").mkdir()  # no manifest: nothing to resume
    line = cli("generate", "transformer", "-n", "2", "--resume", "nosuchrun",
               "--out", str(tmp_path)).one_line()
    assert "--resume nosuchrun" in line and "no run folder" in line, line
    assert "valid: run-a, run-b;" in line and "not-a-run" not in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-run", "run-a", "run-b"]


def test_resume_with_no_runs_at_all(cli: Any, offline: None, tmp_path: Path) -> None:
    line = cli("generate", "transformer", "-n", "2", "--resume", "nosuchrun",
               "--out", str(tmp_path)).one_line()
    assert "--resume nosuchrun" in line and f"no runs under {tmp_path}" in line, line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        (["--llm", "bogus"], "unknown --llm value"),
        (["--llm", "openai:"], "needs a model name"),
        (["--llm", "fake:{t}/missing.json"], "does not exist"),
        (["--llm", "fake:{t}/notalist.json"], "is not a JSON list of strings"),
        (["--base-url", "http://127.0.0.1:1/v1"], "--base-url applies only to openai"),
        (["--retriever", "bogus"], "unknown retriever 'bogus'"),
        (["--against", "{t}/missing.json"], "does not exist"),
        (["--against", "{t}/broken.json"], "not valid JSON"),
    ],
    ids=["llm", "llm-no-model", "fake-missing", "fake-not-a-list", "base-url", "retriever",
         "against-missing", "against-broken"],
)
def test_every_option_is_checked_before_a_run_folder(
    cli: Any, offline: None, tmp_path: Path, option: list[str], expected: str
) -> None:
    (tmp_path / "notalist.json").write_text(json.dumps({"a": 1}))
    (tmp_path / "broken.json").write_text("[{")
    out = tmp_path / "out"
    argv = [a.format(t=tmp_path) for a in option]
    line = cli("generate", "transformer", "-n", "2", *argv, "--out", str(out)).one_line()
    assert expected in line, line
    assert "cannot reach CouchDB" not in line  # the option first, not the store
    assert not out.exists() or not any(out.iterdir()), list(out.iterdir())
