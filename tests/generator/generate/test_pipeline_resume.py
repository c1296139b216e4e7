"""Resume on a seeded store: outages stop the run and resume ends identical, options are
compared, the lock refuses a second process, nothing public is computed from the seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings
from generator.errors import RunStopped, StoreUnavailable, UserError
from generator.generate.draw.families import FamilyContext
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig
from generator.generate.run.run_folder import RunBusy, RunFolder
from tests.generator.generate.test_run_safety import old_fingerprints

pytestmark = pytest.mark.couch
BUDGET = {"iot": 2, "fmsr": 2, "wo": 2}


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def _cfg(tmp_path: Path, run_id: str, **kw: Any) -> GenerateConfig:
    base: dict[str, Any] = dict(
        n=6, seed=1234567, out_dir=str(tmp_path), run_id=run_id, negatives=1, budget=BUDGET
    )
    return GenerateConfig(**{**base, **kw})


def _comparable(run: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((run / "scenarios.json").read_text())
    records += json.loads((run / "negative_scenarios.json").read_text())
    for rec in records:
        rec["provenance"].pop("batch")  # counts the batches of the accepting process
        rec["provenance"].pop("run_id")
    return records


async def test_a_store_outage_in_recompute_stops_the_run_and_resume_ends_identical(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_run = FamilyContext.run
    fresh_calls = 0
    limit: int | None = None

    async def outage_on_recompute(self: FamilyContext, calls: Any, *, fresh: bool = False) -> Any:
        nonlocal fresh_calls
        if fresh:
            fresh_calls += 1
            if limit is not None and fresh_calls > limit:
                raise StoreUnavailable("cannot reach CouchDB at http://u:pw@127.0.0.1:9",
                                       fix="start it")
        return await real_run(self, calls, fresh=fresh)

    monkeypatch.setattr(FamilyContext, "run", outage_on_recompute)
    one_at_a_time = {"concurrency": 1}
    # The live-store path (as `--baseline` runs): recompute queries the store again there.
    # A run on a pinned snapshot recomputes from memory, so no outage can reach recompute.
    live = {"live_store": True}
    await Pipeline(
        _cfg(tmp_path, "whole", **one_at_a_time), settings=seeded_settings, **live
    ).run()
    whole = tmp_path / "whole"
    # Before issue 13.2 recompute turned this outage into a rejection and the run went on.
    limit, fresh_calls = fresh_calls // 2, 0
    cut = _cfg(tmp_path, "cut")
    # one domain at a time, so the outage lands half-way (concurrency is not an output
    # option: the resume below runs with the default 3)
    with pytest.raises(RunStopped) as info:
        await Pipeline(
            cut.model_copy(update=one_at_a_time), settings=seeded_settings, **live
        ).run()
    message = str(info.value)
    assert "u:***@127.0.0.1" in message and "pw@" not in message
    assert f"--resume cut --out {tmp_path}" in message
    rejected = (tmp_path / "cut" / "rejected.jsonl")
    assert not rejected.exists() or "StoreUnavailable" not in rejected.read_text()
    kept = RunFolder(tmp_path / "cut").accepted()
    assert 0 < len(kept) < 6
    # scenarios.json follows accepted.jsonl at every batch, also in a stopped run
    on_disk = json.loads((tmp_path / "cut" / "scenarios.json").read_text())
    assert sorted(r["id"] for r in on_disk) == sorted(ln.record.id for ln in kept)

    monkeypatch.setattr(FamilyContext, "run", real_run)
    await Pipeline(cut, settings=seeded_settings, resume="cut", **live).run()
    assert _comparable(tmp_path / "cut") == _comparable(whole)

    # every public file: no unsalted digest of the 7-digit seed, and not the seed itself
    for path in [*(tmp_path / "cut").iterdir(), *whole.iterdir()]:
        text = path.read_text()
        assert not any(fp in text for fp in old_fingerprints(1234567)), path
        assert "1234567" not in text, path


async def test_resume_refuses_changed_options_and_a_second_process(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    cfg = _cfg(tmp_path, "r", n=2, budget={"iot": 2}, negatives=0)
    await Pipeline(cfg, settings=seeded_settings).run()
    changed = cfg.model_copy(update={"max_repairs": 5})
    with pytest.raises(UserError, match=r"--max-repairs was 3 when the run started, now 5"):
        await Pipeline(changed, settings=seeded_settings, resume="r").run()
    with pytest.raises(UserError, match=r"--batch-size was 10 when the run started, now 4"):
        await Pipeline(cfg.model_copy(update={"batch_size": 4}), settings=seeded_settings,
                       resume="r").run()
    with pytest.raises(UserError, match=r"--seed .* differs"):
        await Pipeline(cfg.model_copy(update={"seed": 7654321}), settings=seeded_settings,
                       resume="r").run()
    with RunFolder(tmp_path / "r").lock(), pytest.raises(RunBusy, match="in use by process"):
        await Pipeline(cfg, settings=seeded_settings, resume="r").run()
    # the run id is random, not a digest of the seed
    auto = Pipeline(cfg.model_copy(update={"run_id": None}), settings=seeded_settings)
    assert not any(fp[:6] in auto.folder.run_id for fp in old_fingerprints(1234567))


async def test_a_run_that_died_before_its_manifest_resumes_or_restarts(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    notes: list[str] = []
    for run_id, resume in (("a", "a"), ("b", None)):
        folder = tmp_path / run_id
        folder.mkdir()
        (folder / "manifest.json.tmp").write_text('{"run_id": "')
        cfg = _cfg(tmp_path, run_id, n=2, budget={"iot": 2}, negatives=0)
        summary = await Pipeline(cfg, settings=seeded_settings, resume=resume,
                                 notice=notes.append).run()
        assert summary.total == 2
        assert json.loads((folder / "manifest.json").read_text())["status"] == "complete"
    assert notes == ["run a stopped before writing its manifest; starting it afresh"]
    # c: no folder at all (never started, or a typo): --resume is refused, naming the runs
    cfg = _cfg(tmp_path, "c", n=2, budget={"iot": 2}, negatives=0)
    with pytest.raises(UserError, match=r"--resume c: no run folder .*; valid: a, b;"):
        Pipeline(cfg, settings=seeded_settings, resume="c")
    assert not (tmp_path / "c").exists()
