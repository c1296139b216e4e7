"""A set whose texts ask other scenarios' questions: the score and the audit read the text.

A generated run is copied with each text moved to the next scenario of the same domain
(references, tool calls and seeds unchanged). Every record then asks a question its
reference does not answer; the audit must flag them and the set score must fall below 50,
while the original run keeps no flag and a high score.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from eval.audit.raw import RawStore
from eval.audit.run import audit_run
from eval.score import score_path
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig

pytestmark = pytest.mark.couch


def rotate(run: Path, out: Path) -> Path:
    """Copy ``run`` with every text moved to the next scenario of its domain."""
    shutil.copytree(run, out)
    records = json.loads((run / "scenarios.json").read_text())
    by_domain: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        by_domain[r["type"]].append(i)
    moved: dict[str, str] = {}
    for idx in by_domain.values():
        for k, i in enumerate(idx):
            moved[records[i]["id"]] = records[idx[(k + 1) % len(idx)]]["text"]
    for r in records:
        r["text"] = moved[r["id"]]
    (out / "scenarios.json").write_text(json.dumps(records))
    lines = []
    for raw in (run / "accepted.jsonl").read_text().splitlines():
        line = json.loads(raw)
        record = line.get("record") or {}
        if record.get("id") in moved:
            record["text"] = moved[record["id"]]
        lines.append(json.dumps(line))
    (out / "accepted.jsonl").write_text("\n".join(lines) + "\n")
    return out


@pytest.fixture(scope="module")
def runs(seeded_settings: StoreSettings, tmp_path_factory: pytest.TempPathFactory,
         ) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("rotation")
    cfg = GenerateConfig(n=50, seed=4242, out_dir=str(out), run_id="orig", negatives=0)
    asyncio.run(Pipeline(cfg, settings=seeded_settings).run())
    return out / "orig", rotate(out / "orig", out / "rotated")


def _audit(run: Path, settings: StoreSettings) -> list[tuple[str, bool]]:
    raw = RawStore({"telemetry": "transformer", "oil_samples": "transformer_oil",
                    "nameplate": "transformer_assets", "workorders": "workorder"},
                   settings=settings, asset_class="transformer")
    try:
        return [(s.family, bool(s.text_undetermined))
                for s in audit_run(run, raw=raw).scenarios]
    finally:
        raw.close()


def test_the_audit_flags_rotated_texts_and_not_the_originals(
        runs: tuple[Path, Path], seeded_settings: StoreSettings) -> None:
    original, rotated = runs
    assert not [f for f, flagged in _audit(original, seeded_settings) if flagged]
    flags = _audit(rotated, seeded_settings)
    missed = [f for f, flagged in flags if not flagged]
    assert len(missed) <= 0.05 * len(flags), f"not flagged: {missed}"


def test_the_set_score_reads_the_text(runs: tuple[Path, Path],
                                      seeded_settings: StoreSettings,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COUCHDB_URL", seeded_settings.url)
    monkeypatch.setenv("SCENARIOGEN_DB_PREFIX", seeded_settings.db_prefix)
    if seeded_settings.username:
        monkeypatch.setenv("COUCHDB_USERNAME", seeded_settings.username)
    if seeded_settings.password:
        monkeypatch.setenv("COUCHDB_PASSWORD", seeded_settings.password)
    original, rotated = runs
    good = score_path(original, dry_run="reference")
    bad = score_path(rotated, dry_run="reference")
    assert good.score_100 > 90, good.notes
    assert bad.score_100 < 50, (bad.score_100, [(p.name, p.points) for p in bad.parts])
    dry = next(p for p in bad.parts if p.name == "dry_run")
    assert "replay" in (dry.note or "")
