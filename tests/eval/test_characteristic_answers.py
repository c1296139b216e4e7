"""A scripted agent that answers with each scenario's characteristic text scores 1.

The characteristic form ends "... and report: <answer summary>": the reference in words, as
a person would put it. Graded as a free-text answer (not the JSON reference), every record
of a 300-scenario run of each shipped class must score 1; a summary that does not state an
asked fact plainly, or a reader that misreads one, fails here with the record named.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from eval.grade import grade
from generator.assetdef import available_asset_classes, load_asset_class
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig
from generator.store.couch import CouchClient
from generator.store.seed import seed

pytestmark = pytest.mark.couch

_REPORT = re.compile(r"\band report:\s*(.*)$", re.S)


def _said(record: dict[str, object]) -> str | None:
    """What the characteristic form tells the agent to report (None: no such part)."""
    found = _REPORT.search(str(record.get("characteristic_form") or ""))
    return found.group(1) if found else None


@pytest.mark.parametrize("asset_class", available_asset_classes())
def test_the_characteristic_text_of_every_scenario_scores_one(
    asset_class: str, settings_for: Callable[..., StoreSettings], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asset = load_asset_class(asset_class)
    settings = settings_for(f"k{uuid.uuid4().hex[:8]}_")
    with CouchClient(settings) as client:
        seed(client, asset, asset.load_fleet_spec()(), prefix=settings.db_prefix)
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    cfg = GenerateConfig(asset_class=asset_class, n=300, seed=770031, out_dir=str(tmp_path),
                         run_id="run", negatives=0)
    asyncio.run(Pipeline(cfg, settings=settings).run())
    records = json.loads((tmp_path / "run" / "scenarios.json").read_text())
    assert len(records) == 300
    graded = [(r, _said(r)) for r in records]
    assert all(said for _, said in graded), "a form without its 'report:' part"
    misses = []
    for record, said in graded:
        result = grade(record, said or "")
        if result.score < 1.0:
            misses.append(f"{record['id']} ({record['family']}): "
                          f"{[v.message for v in result.violations][:2]} <- {said!r}")
    assert not misses, "\n".join(misses)
