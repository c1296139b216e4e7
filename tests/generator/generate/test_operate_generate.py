"""`generate --operate K`: operate records in the run folder, counted, resumable, valid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings
from generator.errors import UserError
from generator.generate.draw import operate_run
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig

N_OPERATE = 3


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def _cfg(tmp_path: Path, run_id: str, **kw: Any) -> GenerateConfig:
    return GenerateConfig(n=6, seed=424242, out_dir=str(tmp_path), run_id=run_id,
                          negatives=0, operate=N_OPERATE, **kw)


def _records(run: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((run / "operate_scenarios.json").read_text())
    return data


def _comparable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records less the run id their provenance names."""
    out = []
    for r in records:
        r = json.loads(json.dumps(r))
        r["provenance"].pop("run_id")
        out.append(r)
    return out


class _Killed(Exception):
    pass


@pytest.fixture
def counted_draws(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every operate family draw made, as (family, call number)."""
    calls: list[tuple[str, int]] = []
    real = operate_run.operate_families_of

    def wrapped(asset_class: str, modules: list[str]) -> list[Any]:
        specs = real(asset_class, modules)
        out = []
        for spec in specs:
            async def draw(store: Any, rng: Any, _spec: Any = spec) -> Any:
                calls.append((_spec.name, len(calls)))
                return await _spec.draw(store, rng)
            out.append(type(spec)(spec.name, spec.asset_class, spec.domain, spec.category,
                                  draw, spec.description))
        return out

    monkeypatch.setattr(operate_run, "operate_families_of", wrapped)
    return calls


async def test_operate_records_are_written_counted_and_validate(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    summary = await Pipeline(_cfg(tmp_path, "a"), settings=seeded_settings).run()
    run = tmp_path / "a"
    records = _records(run)
    assert summary.operate == N_OPERATE and not summary.shortfalls
    assert [r["id"] for r in records] == [f"transformer_operate_{i:02d}" for i in (1, 2, 3)]
    assert {r["kind"] for r in records} == {"operate"}
    assert all(r["operate"]["task_id"] in r["text"] for r in records)
    assert not any(r.get("kind") == "operate"
                   for r in json.loads((run / "scenarios.json").read_text()))
    counts = json.loads((run / "manifest.json").read_text())["counts"]["operate"]
    lines = (run / "operate_accepted.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    assert counts == {"requested": 3, "accepted": 3,
                      "per_family": {"relieve_forecast_overload": 3},
                      "gate_drops": last["drops"]}
    # every draw was kept or dropped for a counted reason
    assert last["tries"] == 3 + sum(last["drops"].values())

    from generator.generate.checks.validate import validate_file

    report = await validate_file(run / "operate_scenarios.json")  # `scenariogen validate`
    assert report.failures == [] and report.checks["operate_task"].passed == 3
    # the fact checks tied to the domain policy do not apply to an operate task
    assert report.checks["category_allowed"].skip_reasons == {
        "operate scenario (checked by operate_task)": 3}

    # the AssetOpsBench export takes them and gives them back
    from generator.export.aob_records import from_upstream, to_upstream
    from generator.export.vocab import JSON_TYPES
    from generator.generate.model import ScenarioRecord

    for i, r in enumerate(records):
        rec = ScenarioRecord.model_validate(r)
        assert from_upstream(to_upstream(rec, i, JSON_TYPES)) == rec


async def test_a_killed_run_resumes_without_redrawing_its_operate_records(
    seeded_settings: StoreSettings, tmp_path: Path, counted_draws: list[tuple[str, int]]
) -> None:
    await Pipeline(_cfg(tmp_path, "whole"), settings=seeded_settings).run()
    whole = _records(tmp_path / "whole")
    whole_draws = len(counted_draws)

    def kill_after_two(domain: str, accepted: int, quota: int) -> None:
        if domain == "operate" and accepted == 2:
            raise _Killed

    counted_draws.clear()
    with pytest.raises(_Killed):
        await Pipeline(_cfg(tmp_path, "cut"), settings=seeded_settings,
                       progress=kill_after_two).run()
    kept = [json.loads(x) for x in
            (tmp_path / "cut" / "operate_accepted.jsonl").read_text().splitlines()]
    assert len(kept) == 2 and not (tmp_path / "cut" / "operate_scenarios.json").exists()
    shutil.copytree(tmp_path / "cut", tmp_path / "edited")

    counted_draws.clear()
    summary = await Pipeline(_cfg(tmp_path, "cut"), settings=seeded_settings,
                             resume="cut").run()
    assert summary.operate == 3
    assert _comparable(_records(tmp_path / "cut")) == _comparable(whole)
    # only the draws after the second record were made again
    assert len(counted_draws) == whole_draws - kept[-1]["tries"]

    # a hand-edited line is refused on resume
    path = tmp_path / "edited" / "operate_accepted.jsonl"
    path.write_text(path.read_text().replace("Operate task", "Operate  task", 1))
    with pytest.raises(UserError, match="line 1 does not verify"):
        await Pipeline(_cfg(tmp_path, "edited"), settings=seeded_settings,
                       resume="edited").run()
    # and another --operate is refused
    with pytest.raises(UserError, match="--operate was 3"):
        await Pipeline(_cfg(tmp_path, "whole").model_copy(update={"operate": 4}),
                       settings=seeded_settings, resume="whole").run()
