"""`scenariogen generate ... --score`: the score lands in the run's manifest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eval.score import dryrun_available
from generator.cli import app
from generator.config import StoreSettings


@pytest.mark.couch
def test_generate_with_score_writes_the_score_into_the_manifest(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COUCHDB_URL", seeded_settings.url)
    monkeypatch.setenv("SCENARIOGEN_DB_PREFIX", seeded_settings.db_prefix)
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(
        app,
        ["generate", "transformer", "-n", "8", "--negatives", "0", "--out", str(tmp_path),
         "--run-id", "r", "--no-progress", "--score"],
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    score = manifest["score"]
    assert score["judges"] == ["rules"]
    assert score["parts"]["static"] is not None and score["parts"]["judge"] is not None
    if dryrun_available():
        assert score["max_points"] == 100.0 or any("dry run" in n for n in score["notes"])
    else:
        assert score["max_points"] == 50.0 and score["parts"]["dry_run"] is None
        assert any("eval.dryrun is not in this build" in n for n in score["notes"])
    assert 0.0 < score["score_100"] <= 100.0
    assert (tmp_path / "r" / "score" / "score.html").is_file()
    assert "score: " in result.output
