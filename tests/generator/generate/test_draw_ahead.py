"""Family lanes made ahead in worker processes (generator.generate.draw.ahead) change who makes a
slot, never the run: the same scenarios, negatives, rejections and gate-drop counts as a
run that makes every slot itself; a worker that fails hands its family back; no worker
outlives the run."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings
from generator.generate.draw import ahead
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def _masked(run: Path, name: str) -> str:
    text = (run / name).read_text()
    # an accepted line's digest chains it to its run and the lines before (interleaving)
    return re.sub(r',"digest":"[0-9a-f]{64}"', "", text.replace(run.name, "RUN"))


async def _run(
    settings: StoreSettings, tmp: Path, name: str, workers: int, n: int = 60
) -> tuple[Pipeline, Path, Any]:
    cfg = GenerateConfig(
        n=n, seed=4242, out_dir=str(tmp), run_id=name, negatives=2, draw_workers=workers
    )
    pipeline = Pipeline(cfg, settings=settings)
    summary = await pipeline.run()
    assert summary.total == n
    return pipeline, tmp / name, summary


def _same_lines(plain: Path, helped: Path) -> None:
    """The same accepted and rejected lines (domains append as they go, so perhaps
    interleaved otherwise: who waits for whom is timing, as on the LLM path)."""
    for name in ("accepted.jsonl", "rejected.jsonl"):
        runs = [d for d in (plain, helped) if (d / name).exists()]
        lines = [sorted(_masked(d, name).splitlines()) for d in runs]
        assert len(runs) in (0, 2) and lines[:1] == lines[1:], name


def _families(run: Path) -> dict[str, Any]:
    return json.loads((run / "manifest.json").read_text())["families"]


async def test_workers_make_the_same_run(seeded_settings: StoreSettings, tmp_path: Path) -> None:
    plain, plain_dir, plain_sum = await _run(seeded_settings, tmp_path, "aheadoff-x7", 0)
    helped, helped_dir, helped_sum = await _run(seeded_settings, tmp_path, "aheadon-x7", 1)

    assert plain.draw_ahead is None
    assert helped.draw_ahead is not None
    assert helped.draw_ahead["workers"] == 1
    assert helped.draw_ahead["families"] > 0 and helped.draw_ahead["slots_taken"] > 0
    assert helped.draw_ahead["failed"] == []
    assert helped.draw_ahead["vetted"] > 0  # drafts worded and vetted in the worker
    for name in ("scenarios.json", "negative_scenarios.json"):
        assert _masked(plain_dir, name) == _masked(helped_dir, name), name
    _same_lines(plain_dir, helped_dir)
    assert plain_sum.rejected == helped_sum.rejected
    # the gate's drops are counted for the slots the run reached, whoever made them
    fams = _families(plain_dir)
    assert fams == _families(helped_dir)
    assert any(f["gate_drops"] for f in fams.values())
    assert multiprocessing.active_children() == []


async def test_families_the_run_kept_are_handed_over_midway(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every family starts with the run (no backlog is small enough) and goes to the worker
    from the slot the run reached, with the lane's state: the same run. Large enough for
    lanes to meet repeated tasks (the state's task set decides those slots)."""
    _, plain_dir, plain_sum = await _run(seeded_settings, tmp_path, "aheadoff-x7", 0, 400)
    monkeypatch.setattr(ahead, "MAX_BACKLOG", 0)
    monkeypatch.setattr(ahead, "IDLE_BACKLOG", 10**6)
    monkeypatch.setattr(ahead, "BEHIND_BACKLOG", 10**6)  # none is taken back
    helped, helped_dir, helped_sum = await _run(
        seeded_settings, tmp_path, "aheadon-x7", 1, 400
    )

    assert helped.draw_ahead is not None
    assert helped.draw_ahead["adopted"] > 0
    assert helped.draw_ahead["adopted"] == helped.draw_ahead["families"]
    assert helped.draw_ahead["slots_taken"] > 0 and helped.draw_ahead["failed"] == []
    # the multi-agent streams' parent draws came from the worker too, and drafts worded and
    # vetted there, some of them rejected
    assert helped.draw_ahead["draws_taken"] > 0 and helped.draw_ahead["vetted"] > 0
    for name in ("scenarios.json", "negative_scenarios.json"):
        assert _masked(plain_dir, name) == _masked(helped_dir, name), name
    _same_lines(plain_dir, helped_dir)
    assert plain_sum.rejected == helped_sum.rejected > 0
    assert _families(plain_dir) == _families(helped_dir)
    assert multiprocessing.active_children() == []


async def test_families_are_taken_back_from_a_worker_behind_with_its_work(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every family goes to the worker at first, so its queue is long: the run takes a
    family back whenever the chunk it waits for is queued behind another, and goes on from
    the worker's last slot with the lane's state rebuilt (the tasks of the worker's slots,
    its run lengths); slots the worker made and the run had not taken are taken later."""
    _, plain_dir, plain_sum = await _run(seeded_settings, tmp_path, "aheadoff-x7", 0, 400)
    monkeypatch.setattr(ahead, "MAX_BACKLOG", 10**6)
    monkeypatch.setattr(ahead, "BEHIND_BACKLOG", 1)
    helped, helped_dir, helped_sum = await _run(
        seeded_settings, tmp_path, "aheadon-x7", 1, 400
    )

    assert helped.draw_ahead is not None
    assert helped.draw_ahead["taken_back"] > 0 and helped.draw_ahead["adopted"] > 0
    assert helped.draw_ahead["failed"] == []  # a family taken back goes to a worker again
    for name in ("scenarios.json", "negative_scenarios.json"):
        assert _masked(plain_dir, name) == _masked(helped_dir, name), name
    _same_lines(plain_dir, helped_dir)
    assert plain_sum.rejected == helped_sum.rejected
    assert _families(plain_dir) == _families(helped_dir)
    assert multiprocessing.active_children() == []


def _failing_for(family: str) -> Any:
    real = ahead.make_slots

    async def make_slots(ctx: Any, lanes: Any, fam: str, *args: Any) -> Any:
        if fam == family:
            raise RuntimeError(f"worker broke on {fam}")
        return await real(ctx, lanes, fam, *args)

    return make_slots


async def test_a_failing_worker_gives_its_family_back(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, plain_dir, _ = await _run(seeded_settings, tmp_path, "aheadoff-x7", 0)
    # patched before the fork: the worker has the patched function, the run does not use it
    monkeypatch.setattr(ahead, "make_slots", _failing_for("iot_sensor_stat"))
    monkeypatch.setattr(ahead, "MAX_BACKLOG", 10**6)  # every family goes to the worker
    monkeypatch.setattr(ahead, "BEHIND_BACKLOG", 10**6)  # and stays there until it fails
    helped, helped_dir, _ = await _run(seeded_settings, tmp_path, "aheadon-x7", 1)

    assert helped.draw_ahead is not None
    assert helped.draw_ahead["failed"] == ["iot_sensor_stat"]
    for name in ("scenarios.json", "negative_scenarios.json"):
        assert _masked(plain_dir, name) == _masked(helped_dir, name), name
    assert _families(plain_dir) == _families(helped_dir)
    assert multiprocessing.active_children() == []



async def test_a_worker_failing_on_plain_draws_gives_them_back(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, plain_dir, _ = await _run(seeded_settings, tmp_path, "aheadoff-x7", 0, 200)

    async def broken(ctx: Any, family: str, *args: Any) -> Any:
        raise RuntimeError(f"worker broke drawing {family}")

    monkeypatch.setattr(ahead, "make_draws", broken)
    monkeypatch.setattr(ahead, "IDLE_BACKLOG", 10**6)  # every plain draw is asked of it
    monkeypatch.setattr(ahead, "BEHIND_BACKLOG", 10**6)  # and waited for
    # and nothing else: its chunks start at once (a queued one is not waited for)
    monkeypatch.setattr(ahead.DrawAhead, "_lane", lambda self, family, kept: None)
    helped, helped_dir, _ = await _run(seeded_settings, tmp_path, "aheadon-x7", 1, 200)

    assert helped.draw_ahead is not None
    assert helped.draw_ahead["draws_taken"] == 0 and helped.draw_ahead["failed"]
    for name in ("scenarios.json", "negative_scenarios.json"):
        assert _masked(plain_dir, name) == _masked(helped_dir, name), name
    assert _families(plain_dir) == _families(helped_dir)
    assert multiprocessing.active_children() == []


def _state(pid: int) -> str | None:
    """The process's state letter (``Z``: a zombie), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_worker_ends_when_its_run_is_killed() -> None:
    """A run killed with SIGKILL (no finally, no pool shutdown) leaves no worker behind."""
    script = (
        "import time\n"
        "from generator.generate.draw.ahead import DrawAhead\n"
        "helper = DrawAhead(object(), 1)\n"  # the context is only used once a slot is asked
        "time.sleep(1)\n"
        "print(*helper._pools[0]._processes, flush=True)\n"
        "time.sleep(120)\n"
    )
    run = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert run.stdout is not None
        worker = int(run.stdout.readline())
        assert _state(worker) not in (None, "Z")  # alive while the run is
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _state(worker) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _state(worker) in (None, "Z"), "the worker outlived its run"
    finally:
        run.kill()
        run.wait(timeout=30)


async def test_a_lane_being_made_has_no_state_and_a_resumed_lane_goes_on() -> None:
    from generator.generate.draw.families import FamilySpec
    from generator.generate.draw.lanes import LaneState, SlotSeeds, slot_seed
    from generator.generate.model import TaskSeed

    async def no_plan(*_: Any) -> None:
        return None

    # slot_seed reads a family's name and outcome; `one` stands for its draws
    spec = FamilySpec(
        name="fam", domain="iot", category="test", draw=no_plan,
        derive=lambda params, outputs: {}, summarise=lambda params, answer: "",
    )
    release = asyncio.Event()
    drawn: list[int] = []

    async def one(draw: int) -> TaskSeed | None:
        drawn.append(draw)
        await release.wait()
        return None

    kept = SlotSeeds()
    assert kept.state("fam") == LaneState(0, frozenset(), 0, 0)
    making = asyncio.create_task(slot_seed(kept, spec, 1, 0.0, one))
    await asyncio.sleep(0)
    assert kept.state("fam") is None  # slot 0 is being made
    release.set()
    assert await making is None
    # two slots without a task: stale twice
    assert kept.state("fam") == LaneState(2, frozenset(), 0, 2)

    other = SlotSeeds()
    other.resume("fam", LaneState(2, frozenset({"t"}), 0, 2))
    assert await slot_seed(other, spec, 2, 0.0, one) is None
    assert drawn == [0, 1, 2]  # the resumed lane drew only its own next slot
    assert other.state("fam") == LaneState(3, frozenset({"t"}), 0, 3)
    # a lane made here before, up to an earlier slot, is replaced (handed back and forth)
    other.resume("fam", LaneState(5, frozenset({"t", "u"}), 1, 0))
    assert other.state("fam") == LaneState(5, frozenset({"t", "u"}), 1, 0)
    # so is one holding later slots (a worker's chunk the run could no longer cancel)
    other.resume("fam", LaneState(2, frozenset(), 0, 0))
    assert other.state("fam") == LaneState(2, frozenset(), 0, 0)
    assert await slot_seed(other, spec, 2, 0.0, one) is None
    assert drawn == [0, 1, 2, 2]


async def test_plain_draws_carry_all_their_drops(seeded_settings: StoreSettings) -> None:
    """A worker's plain draw carries every drop making it recorded, each under its own
    index, so the run can count them as if it had drawn, whether the worker made them or had
    them kept."""
    from generator.generate.draw.families import FAMILIES, draw_seed, load_families, params_key
    from tests.generator.generate.test_families import ASSET, family_context, grounded_profile

    load_families(ASSET)
    profile = await grounded_profile(seeded_settings)
    reference = family_context(profile, seeded_settings, 4242)
    draws = range(40)
    found = None
    # families whose gate drops draws of the sample fleet (see their manifests' gate_drops)
    for name in ("open_health_drivers", "tsfm_forecast", "fmsr_dga_stored"):
        spec = FAMILIES.get(name)
        seeds = [await draw_seed(spec, reference, d) for d in draws]
        if reference.gate_drops.get(spec.name):
            found = spec, seeds
            break
    assert found is not None, "no family of the test fleet drops a draw"
    spec, seeds = found
    made = await ahead.make_draws(reference.fresh(), spec.name, draws.start, draws.stop)

    assert [params_key(m.seed) if m.seed else None for m in made] == [
        params_key(s) if s else None for s in seeds
    ]
    assert all(m.base_draw == (d, m.seed) for d, m in zip(draws, made, strict=True))
    assert all(drop[2] == d for d, m in zip(draws, made, strict=True) for drop in m.drops)
    counted: dict[str, int] = {}
    for m in made:
        for _, reason, _ in set(m.drops):
            counted[reason] = counted.get(reason, 0) + 1
    assert counted == reference.gate_drops[spec.name]
    # a context that drew them before hands the same drops over: a worker's chunk the run
    # could not cancel any more (it was running) leaves its draws kept in the worker
    again = await ahead.make_draws(reference, spec.name, draws.start, draws.stop)
    assert [set(m.drops) for m in again] == [set(m.drops) for m in made]
    assert any(m.drops for m in again)


def test_a_lane_is_taken_back_only_where_the_run_left_it() -> None:
    from generator.generate.draw.lanes import LaneState, SlotSeeds

    kept = SlotSeeds()
    start = LaneState(0, frozenset({"a"}), 0, 0)
    assert kept.can_take_back("fam", 0) and not kept.can_take_back("fam", 2)
    with pytest.raises(ValueError, match="holds 0 slots, not 2"):
        kept.take_back("fam", LaneState(2, frozenset(), 0, 0), [], (0, 0))
    kept.take_back("fam", start, [None, None], (1, 2))
    # two slots made elsewhere, no task: the worker's run lengths, the start's tasks
    assert kept.state("fam") == LaneState(2, frozenset({"a"}), 1, 2)


async def test_by_default_the_run_draws_in_its_own_process(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    # Measured on 2 cores (issue 31): the fork pool made the whole command slower, so it is
    # opt-in (--draw-workers N); the default run forks nothing.
    cfg = GenerateConfig(n=12, seed=4242, out_dir=str(tmp_path), run_id="dflt", negatives=0)
    pipeline = Pipeline(cfg, settings=seeded_settings)
    summary = await pipeline.run()
    assert summary.total == 12 and pipeline.draw_ahead is None


async def test_a_worker_hands_over_the_drops_of_slots_it_made_for_work_the_run_dropped(
    seeded_settings: StoreSettings,
) -> None:
    """A chunk the run could no longer cancel (it was running when the run took the family
    back) still ran in the worker: its draws stay kept there. When the family comes back to
    that worker, the slots it makes carry the same drops as a worker that never ran it."""
    from generator.generate.draw.families import FAMILIES, load_families
    from generator.generate.draw.lanes import SlotSeeds
    from tests.generator.generate.test_families import ASSET, family_context, grounded_profile

    load_families(ASSET)
    profile = await grounded_profile(seeded_settings)
    spec = FAMILIES.get("fmsr_health_index")  # its gate drops extra draws of the test fleet
    share, stop = 0.5, 24

    clean = await ahead.make_slots(
        family_context(profile, seeded_settings, 4242), SlotSeeds(), spec.name, share, 0, stop
    )
    assert any(m.drops for m in clean[8:])
    # the worker ran a chunk of slots 0..stop-1 whose results the run dropped
    ctx, lanes = family_context(profile, seeded_settings, 4242), SlotSeeds()
    await ahead.make_slots(ctx, lanes, spec.name, share, 0, stop)
    # ...then the family comes back to it from slot 8, as the run left the lane there
    run_lanes = SlotSeeds()
    await ahead.make_slots(
        family_context(profile, seeded_settings, 4242), run_lanes, spec.name, share, 0, 8
    )
    state = run_lanes.state(spec.name)
    assert state is not None
    again = await ahead.make_slots(ctx, lanes, spec.name, share, 8, stop, resume=state)

    assert [m.seed for m in again] == [m.seed for m in clean[8:]]
    assert [set(m.drops) for m in again] == [set(m.drops) for m in clean[8:]]


async def test_a_family_taken_back_counts_the_drops_of_every_slot_the_worker_made(
    seeded_settings: StoreSettings,
) -> None:
    """The run takes a family back when it asks for a slot past the worker's last one: it
    goes on from there, so it has reached every slot the worker made (as a run making its
    slots itself would, slot by slot) and counts their drops now, even those of slots whose
    candidates it never asks for again."""
    from generator.generate.draw.lanes import LaneState, SlotSeeds
    from tests.generator.generate.test_families import family_context, grounded_profile

    ctx = family_context(await grounded_profile(seeded_settings), seeded_settings, 4242)
    helper = ahead.DrawAhead(ctx, workers=0)
    kept = SlotSeeds()
    start = kept.state("fam")
    assert start is not None
    lane = ahead._Lane(pool=None, share=0.0, start=start)  # type: ignore[arg-type]
    lane.made = [
        ahead.SlotMade(None, (("fam", "reading", 1000 + k),), None, after=(0, k + 1))
        for k in range(5)
    ]
    for made in lane.made[:2]:  # slots 0 and 1 taken as the run reached them
        helper._record("fam", made)
    lane.taken = 2
    helper._lanes["fam"] = lane

    helper._take_back("fam", lane, kept)

    assert ctx.gate_drops == {"fam": {"reading": 5}}
    assert kept.state("fam") == LaneState(5, frozenset(), 0, 5)
