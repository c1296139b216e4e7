"""Dry runs and audits on a real two-node Ray cluster give the local results: same masked
``dryrun.json`` and trajectories, same audit; a worker node lost mid-run does not change
them, and a resumed run redoes only what is missing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from eval.audit.raw import RawStore
from eval.audit.run import AuditReport, audit_run
from eval.bench_scale import masked_timings
from eval.dryrun import run_dry
from eval.grade_answers import load_scenarios
from eval.model import DryRunResult
from generator.config import StoreSettings
from generator.executor import RayExecutor

NODE = {"num_cpus": 1, "object_store_memory": 100 * 1024 * 1024}


@pytest.fixture(scope="module")
def small_run(seeded_settings: StoreSettings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A template run of 8 scenarios and 2 negatives on the session's seeded fleet."""
    from generator.generate.run.pipeline import Pipeline
    from generator.generate.run.run_config import GenerateConfig

    out = tmp_path_factory.mktemp("rayrun")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCENARIOGEN_CACHE_DIR", str(out / "cache"))
        cfg = GenerateConfig(n=8, seed=11, out_dir=str(out), run_id="r", negatives=2)
        asyncio.run(Pipeline(cfg, settings=seeded_settings).run())
    return out / "r"


def _folder(out: Path) -> dict[str, Any]:
    files = {"dryrun.json": out / "dryrun.json",
             **{f"trajectories/{p.name}": p for p in (out / "trajectories").glob("*.json")}}
    return {name: masked_timings(json.loads(p.read_text())) for name, p in sorted(files.items())}


def _dry(run: Path, settings: StoreSettings, out: Path, **kw: Any) -> Any:
    return asyncio.run(run_dry(load_scenarios(run), "reference", scenarios_path=run,
                               settings=settings, out=out, **kw))


@pytest.fixture(scope="module")
def local_dry(small_run: Path, seeded_settings: StoreSettings,
              tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("dry-local")
    report = _dry(small_run, seeded_settings, out, concurrency=1)
    assert report.scenarios == 10 and report.pass_rate == 1.0
    return _folder(out)


@pytest.mark.couch
def test_a_dry_run_on_ray_writes_what_a_local_one_does_and_survives_a_lost_node(
    ray_cluster: Any, small_run: Path, seeded_settings: StoreSettings,
    local_dry: dict[str, Any], tmp_path: Path,
) -> None:
    worker = next(iter(ray_cluster.worker_nodes))
    seen: list[str] = []
    lost_at: list[int] = []

    def progress(r: DryRunResult) -> None:
        seen.append(r.id)
        if len(seen) == 1:  # the worker node dies with its actor mid-run
            ray_cluster.remove_node(worker)
            lost_at.append(len(seen))

    executor = RayExecutor(ray_cluster.address)
    try:
        _dry(small_run, seeded_settings, tmp_path / "ray", executor=executor, workers=2,
             concurrency=1, progress=progress)
    finally:
        executor.close()
        # the lost node must be seen dead before its replacement joins: otherwise the live
        # count can match with the stale node and the next test deals actors onto it
        ray_cluster.wait_for_nodes()
        ray_cluster.add_node(**NODE)
        ray_cluster.wait_for_nodes()
    assert lost_at == [1] and len(seen) == 10 and len(set(seen)) == 10
    assert _folder(tmp_path / "ray") == local_dry


@pytest.mark.couch
def test_a_resumed_dry_run_on_ray_redoes_only_what_is_missing(
    ray_cluster: Any, small_run: Path, seeded_settings: StoreSettings,
    local_dry: dict[str, Any], tmp_path: Path,
) -> None:
    out = tmp_path / "partial"
    _dry(small_run, seeded_settings, out)
    missing = sorted((out / "trajectories").glob("*.json"))[::3]  # a run that died early
    for path in missing:
        path.unlink()
    (out / "dryrun.json").unlink()
    redone: list[str] = []
    executor = RayExecutor(ray_cluster.address)
    try:
        _dry(small_run, seeded_settings, out, executor=executor, workers=2, resume=True,
             progress=lambda r: redone.append(f"{r.id}.json"))
    finally:
        executor.close()
    assert sorted(redone) == sorted(p.name for p in missing)
    assert _folder(out) == local_dry


@pytest.mark.couch
def test_an_audit_split_by_family_on_ray_finds_what_a_local_one_does(
    ray_cluster: Any, small_run: Path, seeded_settings: StoreSettings,
) -> None:
    def audit(executor: RayExecutor | None) -> AuditReport:
        raw = RawStore({"telemetry": "transformer", "oil_samples": "transformer_oil",
                        "nameplate": "transformer_assets", "workorders": "workorder"},
                       settings=seeded_settings, asset_class="transformer")
        try:
            return audit_run(small_run, raw=raw, executor=executor, workers=2)
        finally:
            raw.close()

    local = audit(None)
    executor = RayExecutor(ray_cluster.address)
    try:
        on_ray = audit(executor)
    finally:
        executor.close()
    assert local.audited == 8 and len(local.counts) >= 3  # several families, so a real split
    assert on_ray.model_dump() == local.model_dump()
