"""The acceptance run: `scenariogen generate transformer -n 50` on the embedded defaults
(the default simulated fleet, the template verbaliser, no LLM), through the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections import Counter
from pathlib import Path

import pytest
from rapidfuzz import fuzz
from typer.testing import CliRunner

from assets.transformer.simulator import FleetSpec
from generator.assetdef import load_asset_class
from generator.cli import app
from generator.config import StoreSettings
from generator.generate.draw.families import FamilyContext, load_families, recompute
from generator.generate.run.run_folder import RunFolder
from generator.profile.build import build_profile
from generator.store.couch import CouchClient
from generator.store.seed import seed
from generator.tools.registry import ToolContext


@pytest.fixture(scope="module")
def default_fleet(couch_server: str) -> StoreSettings:
    """The default fleet (3 sites × 4 units × 90 days, seed 42) under its own prefix."""
    settings = StoreSettings(
        url=couch_server,
        username=os.environ.get("COUCHDB_USERNAME") or None,
        password=os.environ.get("COUCHDB_PASSWORD") or None,
        db_prefix=f"d{uuid.uuid4().hex[:8]}_",
        external=False,
    )
    with CouchClient(settings) as client:
        seed(client, load_asset_class("transformer"), FleetSpec(), prefix=settings.db_prefix)
    return settings


def test_generate_50_on_the_embedded_defaults(
    default_fleet: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COUCHDB_URL", default_fleet.url)
    monkeypatch.setenv("SCENARIOGEN_DB_PREFIX", default_fleet.db_prefix)
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(
        app,
        ["generate", "transformer", "-n", "50", "--out", str(tmp_path), "--run-id", "r",
         "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    run = tmp_path / "r"
    records = json.loads((run / "scenarios.json").read_text())
    manifest = json.loads((run / "manifest.json").read_text())
    budget = manifest["budget"]["per_domain"]

    assert len(records) == 50
    assert Counter(r["type"] for r in records) == Counter({d: k for d, k in budget.items() if k})
    assert budget["vibration"] == 0 and set(budget) >= {"iot", "fmsr", "tsfm", "wo"}
    texts = [r["text"].lower() for r in records]
    assert all(
        fuzz.ratio(a, b) < 90 for i, a in enumerate(texts) for b in texts[i + 1 :]
    )

    # Every scenario is answerable: its expected tool sequence, run against the store in a
    # fresh context, reproduces its reference answer (an open scenario's computed facts,
    # which its rubric rests on, included).
    seeds = {ln.record.id: ln.seed for ln in RunFolder(run).accepted()}

    async def problems() -> dict[str, list[str]]:
        asset = load_asset_class("transformer")
        load_families(asset)
        profile = await build_profile("transformer", settings=default_fleet)
        fresh = FamilyContext(profile, ToolContext(asset, default_fleet), run_seed=0)
        out = {}
        for rec in records:
            s = seeds[rec["id"]]
            assert s is not None and s.answer == rec["reference_answer"]
            assert rec["deterministic"] == (rec.get("rubric") is None)
            out[rec["id"]] = await recompute(s, fresh)
        return out

    found = asyncio.run(problems())
    assert len(found) == 50 and all(p == [] for p in found.values()), found
