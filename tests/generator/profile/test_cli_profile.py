"""`scenariogen profile` and `scenariogen cache ...` through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from generator.cli import app
from generator.config import StoreSettings
from generator.errors import StoreUnavailable, UserError
from generator.profile import profile_json_schema
from generator.profile.model import AssetProfile

runner = CliRunner()


@pytest.fixture
def cli_env(
    seeded_settings: StoreSettings, cache_env: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    monkeypatch.setenv("COUCHDB_URL", seeded_settings.url)
    monkeypatch.setenv("SCENARIOGEN_DB_PREFIX", seeded_settings.db_prefix)
    return cache_env


def test_profile_writes_json_and_prints_a_summary(cli_env: Path, tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    result = runner.invoke(app, ["profile", "transformer", "--out", str(out)])
    assert result.exit_code == 0, result.output
    p = AssetProfile.model_validate_json(out.read_text())
    assert p.generation_mode == "open_form" and p.inventory.sites == ["NORTH", "SOUTH"]
    text = result.output
    assert "transformer: open_form, 2 sites (NORTH, SOUTH), 6 assets" in text
    assert "vibration  no vibration sensors in the store" in text
    assert "cache: miss" in text and f"evidence: {len(p.evidence)} items" in text
    again = runner.invoke(app, ["profile", "transformer"])
    assert again.exit_code == 0 and "cache: l1" in again.output
    fresh = runner.invoke(app, ["profile", "transformer", "--refresh"])
    assert "cache: miss" in fresh.output
    off = runner.invoke(app, ["profile", "transformer", "--no-cache", "--ttl", "60"])
    assert "cache: off" in off.output


def test_cache_path_list_and_clear(cli_env: Path) -> None:
    path = runner.invoke(app, ["cache", "path"])
    assert path.exit_code == 0 and path.output.strip() == str(cli_env.resolve())
    empty = runner.invoke(app, ["cache", "list"])
    assert empty.exit_code == 0 and "0 entries in 0 namespaces" in empty.output
    assert runner.invoke(app, ["profile", "transformer"]).exit_code == 0
    listed = runner.invoke(app, ["cache", "list", "--namespace", "profiles"])
    assert "1 entries in 1 namespaces" in listed.output and "transformer local" in listed.output
    cleared = runner.invoke(app, ["cache", "clear", "--namespace", "profiles"])
    assert cleared.exit_code == 0 and "removed 1 entries" in cleared.output
    assert "0 entries" in runner.invoke(app, ["cache", "list", "--namespace", "profiles"]).output
    rebuilt = runner.invoke(app, ["profile", "transformer"])
    assert "cache: miss" in rebuilt.output  # nothing survived the clear, not even in memory
    unknown = runner.invoke(app, ["cache", "clear", "--namespace", "profilez"])
    assert isinstance(unknown.exception, UserError)
    assert "no cache namespace 'profilez'" in str(unknown.exception)


def test_schema_option(tmp_path: Path) -> None:
    printed = runner.invoke(app, ["profile", "--schema"])
    assert printed.exit_code == 0 and json.loads(printed.output) == profile_json_schema()
    target = tmp_path / "s.json"
    wrote = runner.invoke(app, ["profile", "--schema", "--out", str(target)])
    assert wrote.exit_code == 0 and json.loads(target.read_text()) == profile_json_schema()


def test_bad_options_are_user_errors(cli_env: Path) -> None:
    bad = runner.invoke(app, ["profile", "transformer", "--retriever", "arxv"])
    assert isinstance(bad.exception, UserError) and "valid: local" in str(bad.exception)
    llm = runner.invoke(app, ["profile", "transformer", "--llm", "gpt"])
    assert isinstance(llm.exception, UserError) and "--llm" in str(llm.exception)


def test_store_down_is_a_user_error_with_the_fix(
    cache_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COUCHDB_URL", "http://127.0.0.1:9")
    result = runner.invoke(app, ["profile", "transformer"])
    assert isinstance(result.exception, StoreUnavailable)
    assert "scenariogen env up" in str(result.exception)
    assert "0 entries" in runner.invoke(app, ["cache", "list"]).output


def test_profile_with_a_scripted_llm(cli_env: Path, tmp_path: Path) -> None:
    reply = json.dumps(
        {"items": [{"category": "standards", "statement": "IEC 60599 classifies DGA faults.",
                    "ref_id": "local:iec60599_2015"}]}
    )
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([reply] * 50))
    out = tmp_path / "p.json"
    result = runner.invoke(
        app, ["profile", "transformer", "--llm", f"fake:{script}", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "llm fake:replies.json" in result.output
    p = AssetProfile.model_validate_json(out.read_text())
    assert p.provenance.llm == "fake:replies.json"
    assert any(e.statement == "IEC 60599 classifies DGA faults." for e in p.evidence)
