"""The task-family framework: registry, RNG streams, redraws, answer comparison, recompute."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import StoreUnavailable
from generator.generate.draw.families import (
    CATEGORIES,
    FAMILIES,
    Ambiguous,
    FamilyContext,
    FamilySpec,
    Plan,
    compare,
    compose_seed,
    draw_many,
    draw_seed,
    families_of,
    family,
    load_families,
    recompute,
    rng_for,
)
from generator.generate.model import TaskSeed, ToolCall
from generator.profile.grounding import ground
from generator.profile.model import AssetProfile
from generator.tools.registry import ToolContext
from tests.family_profile import profile_from_inventory

ASSET = load_asset_class("transformer")


async def grounded_profile(settings: StoreSettings) -> AssetProfile:
    """The profile of the seeded test fleet, grounded through the profiling layer."""
    inventory = await ground(ASSET, settings)
    if inventory is None:
        raise RuntimeError("the seeded store holds no transformer data")
    return profile_from_inventory(ASSET, inventory)


def family_context(profile: AssetProfile, settings: StoreSettings, run_seed: int) -> FamilyContext:
    """A fresh family context (fresh memo, fresh store connection)."""
    return FamilyContext(profile, ToolContext(ASSET, settings), run_seed)


def _empty_profile() -> AssetProfile:
    from generator.profile.grounding import empty_inventory

    return profile_from_inventory(ASSET, empty_inventory())


# -- a store-free family: draws every odd index, answers from `get_ai_tasks` ---------------


def _tasks_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    if params.get("tie"):
        raise Ambiguous("forced tie")
    return {"n_tasks": len(outputs[0]["tasks"]), "first": outputs[0]["tasks"][0]["task_id"]}


async def _odd_draws(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    if int(rng.integers(0, 1_000_000)) % 2 == 0:
        return None  # an "ambiguous" draw: the caller moves to the next index
    return Plan(
        params={"pick": int(rng.integers(0, 3)), "tie": False},
        tool_sequence=[ToolCall(name="get_ai_tasks", args={})],
        mentions=[],
    )


def _ai_tasks_plan(**params: Any) -> Plan:
    """A plan of one ``get_ai_tasks`` call (no store) with these parameters."""
    return Plan(params=params, tool_sequence=[ToolCall(name="get_ai_tasks", args={})],
                mentions=[])


ODD = FamilySpec(
    name="test_odd", domain="tsfm", category="Knowledge Query", draw=_odd_draws,
    derive=_tasks_derive, summarise=lambda p, a: f"{a['n_tasks']} tasks",
)


async def _tied(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    return Plan(
        params={"tie": True}, tool_sequence=[ToolCall(name="get_ai_tasks", args={})], mentions=[]
    )


TIED = FamilySpec(
    name="test_tied", domain="tsfm", category="Knowledge Query", draw=_tied,
    derive=_tasks_derive, summarise=lambda p, a: "",
)


@pytest.fixture
def offline_ctx() -> FamilyContext:
    # get_ai_tasks never touches the store, so no settings are needed.
    return FamilyContext(_empty_profile(), ToolContext(ASSET), run_seed=5)


def _is_odd_draw(run_seed: int, draw: int) -> bool:
    rng = rng_for(run_seed, "test_odd", draw)
    rng.integers(len(ODD.roles))  # the role pick comes first in draw_seed
    return int(rng.integers(0, 1_000_000)) % 2 == 1


# -- RNG ---------------------------------------------------------------------------------


def test_rng_streams_are_stable_and_distinct() -> None:
    a = rng_for(1, "fam", 0).integers(0, 2**31, 4).tolist()
    assert a == rng_for(1, "fam", 0).integers(0, 2**31, 4).tolist()
    assert a != rng_for(1, "fam", 1).integers(0, 2**31, 4).tolist()
    assert a != rng_for(2, "fam", 0).integers(0, 2**31, 4).tolist()
    assert a != rng_for(1, "other", 0).integers(0, 2**31, 4).tolist()


def test_rng_is_the_same_in_another_process() -> None:
    # Python's hash() is salted per process; the stream must not depend on it.
    code = (
        "from generator.generate.draw.families import rng_for;"
        "print(rng_for(11, 'iot_sensor_stat', 3).integers(0, 2**31, 3).tolist())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
        cwd=str(Path(__file__).resolve().parents[3]),
    ).stdout.strip()
    assert out == str(rng_for(11, "iot_sensor_stat", 3).integers(0, 2**31, 3).tolist())


# -- comparison --------------------------------------------------------------------------


def test_compare_numbers_within_tolerance_of_their_key() -> None:
    assert compare({"value": 1.0}, {"value": 1.004}, {"value": 0.005}) == []
    assert compare({"value": 1.0}, {"value": 1.006}, {"value": 0.005})
    assert compare({"value": 1.0}, {"value": 1.0000001}, {}) != []  # exact without tolerance
    assert compare({"peaks": {"A": 2.0}}, {"peaks": {"A": 2.009}}, {"peaks": 0.01}) == []


def test_compare_lists_dicts_and_types() -> None:
    assert compare({"ids": ["a", "b"]}, {"ids": ["a", "b"]}, {}) == []
    assert compare({"ids": ["a", "b"]}, {"ids": ["b", "a"]}, {})
    assert compare({"ids": ["a"]}, {"ids": ["a", "b"]}, {}) == ["ids: expected 1 items, got 2"]
    assert compare({"x": 1}, {}, {}) == ["x: missing from the recomputed answer"]
    assert compare({}, {"x": 1}, {}) == ["x: not in the stored answer"]
    assert compare({"flag": True}, {"flag": 1}, {"flag": 1.0})  # a bool is not a number
    assert compare({"code": None}, {"code": None}, {}) == []


# -- drawing -----------------------------------------------------------------------------


async def test_draw_seed_returns_none_for_an_unusable_draw(offline_ctx: FamilyContext) -> None:
    results = [await draw_seed(ODD, offline_ctx, d) for d in range(12)]
    expected = [_is_odd_draw(5, d) for d in range(12)]
    assert [r is not None for r in results] == expected
    assert any(expected) and not all(expected)


async def test_draw_seed_returns_none_when_derive_finds_a_tie(offline_ctx: FamilyContext) -> None:
    assert await draw_seed(TIED, offline_ctx, 0) is None


async def test_draw_many_skips_unusable_draws_and_respects_max_tries(
    offline_ctx: FamilyContext,
) -> None:
    usable = [d for d in range(40) if _is_odd_draw(5, d)]
    seeds = await draw_many(ODD, offline_ctx, 0, 3, 40, unique=False)
    assert [s.draw for s in seeds] == usable[:3]
    limited = await draw_many(ODD, offline_ctx, 0, 100, 6, unique=False)
    assert [s.draw for s in limited] == [d for d in usable if d < 6]


async def test_draw_many_unique_skips_repeated_parameters(offline_ctx: FamilyContext) -> None:
    seeds = await draw_many(ODD, offline_ctx, 0, 10, 60)
    picks = [s.params["pick"] for s in seeds]
    assert len(picks) == len(set(picks)) == 3  # only three distinct parameter sets exist


async def test_seed_carries_the_answer_computed_by_derive(offline_ctx: FamilyContext) -> None:
    seed = (await draw_many(ODD, offline_ctx, 0, 1, 10))[0]
    assert seed.answer == {"n_tasks": 2, "first": "tsad"}
    assert seed.answer_summary == "2 tasks"
    assert seed.family == "test_odd" and seed.key == f"test_odd#{seed.draw}"
    assert seed.role in ODD.roles


def test_family_rejects_an_unknown_category() -> None:
    with pytest.raises(ValueError, match="unknown category"):
        family("test_bad_category", domain="iot", category="Gossip",
               derive=_tasks_derive, summarise=lambda p, a: "")


def test_categories_cover_the_assetopsbench_set() -> None:
    for c in ("Data Query", "Knowledge Query", "Diagnostic Assessment", "Decision Support",
              "Anomaly Detection Query", "Prediction", "Workflow Coordination"):
        assert c in CATEGORIES


# -- registry --------------------------------------------------------------------------


def test_load_families_registers_every_domain_of_the_transformer() -> None:
    load_families(ASSET)
    load_families(ASSET)  # idempotent: a second import would raise on duplicate names
    for domain in ("iot", "fmsr", "tsfm", "wo", "multiagent"):
        specs = families_of(ASSET, domain)
        assert len(specs) >= 3, domain
        assert all(s.domain == domain and s.category in CATEGORIES for s in specs)
    for spec in families_of(ASSET, "multiagent"):
        if not spec.deterministic:
            # An open family carries a rubric; it either draws its own cross-domain task
            # (ma_open_maintenance_plan) or extends a single-domain parent's calls with
            # another domain's (ma_open_condition_review: an anomaly scan, then oil and work
            # orders), like a deterministic chain.
            assert spec.rubric is not None
            if not spec.compose_from:
                continue
        assert spec.compose_from and all(p in FAMILIES for p in spec.compose_from)
        assert all(FAMILIES.get(p).domain != "multiagent" for p in spec.compose_from)
    assert "test_odd" not in FAMILIES  # test specs are never registered


def test_unknown_family_suggests_names() -> None:
    from generator.errors import UserError

    load_families(ASSET)
    with pytest.raises(UserError, match="did you mean"):
        FAMILIES.get("iot_sensor_stats")


# -- recompute -----------------------------------------------------------------------------


async def test_recompute_reports_an_unknown_family(offline_ctx: FamilyContext) -> None:
    seed = (await draw_many(ODD, offline_ctx, 0, 1, 10))[0]
    problems = await recompute(seed, offline_ctx)
    assert problems and problems[0].startswith("family:")


async def test_recompute_and_tampering(seeded_settings: StoreSettings) -> None:
    load_families(ASSET)
    profile = await grounded_profile(seeded_settings)
    ctx = family_context(profile, seeded_settings, 1)
    seed = (await draw_many(FAMILIES.get("iot_sensor_stat"), ctx, 0, 1, 10))[0]
    fresh = family_context(profile, seeded_settings, 1)
    assert await recompute(seed, fresh) == []
    tampered = seed.model_copy(update={"answer": dict(seed.answer, value=seed.answer["value"] + 1)})
    problems = await recompute(tampered, fresh)
    assert problems and problems[0].startswith("value: expected")
    bad_call = ToolCall(
        name="history", args={"site_name": "NOWHERE", "asset_id": "X", "start": "2026-06-01"}
    )
    broken = seed.model_copy(update={"tool_sequence": [bad_call]})
    assert (await recompute(broken, fresh))[0].startswith("tools:")


async def test_compose_seed_checks_the_parent_family(seeded_settings: StoreSettings) -> None:
    load_families(ASSET)
    profile = await grounded_profile(seeded_settings)
    ctx = family_context(profile, seeded_settings, 2)
    parent = (await draw_many(FAMILIES.get("fmsr_dga_stored"), ctx, 0, 1, 20))[0]
    spec = FAMILIES.get("ma_dga_to_workorder")
    seed = await compose_seed(spec, [parent], ctx, 0)
    assert seed is not None and seed.parents == [parent.key]
    assert seed.tool_sequence[: len(parent.tool_sequence)] == parent.tool_sequence
    wrong = (await draw_many(FAMILIES.get("iot_sensor_stat"), ctx, 0, 1, 10))[0]
    with pytest.raises(ValueError, match="composes from"):
        await compose_seed(spec, [wrong], ctx, 0)


# -- relative tolerance ----------------------------------------------------------------------


def test_compare_relative_tolerance_passes_either_bound() -> None:
    # An ageing rate of 0.0055: an absolute 0.01 would pass 0.0155 (nearly three times it);
    # 2 % relative allows |e - a| <= 0.02 * 0.0055 = 0.00011.
    rel = {"rate": 0.02}
    assert compare({"rate": 0.0055}, {"rate": 0.00560}, {}, rel_tolerance=rel) == []  # 0.0001
    assert compare({"rate": 0.0055}, {"rate": 0.00562}, {}, rel_tolerance=rel)  # 0.00012 > 0.00011
    # Either bound suffices: 100 vs 101.5 fails 1 % relative (1.0) but passes absolute 2.
    assert compare({"x": 100.0}, {"x": 101.5}, {"x": 2.0}, rel_tolerance={"x": 0.01}) == []
    assert compare({"x": 100.0}, {"x": 101.5}, {"x": 1.0}, rel_tolerance={"x": 0.01})
    # Relative to the expected value, not the actual one: |e| = 0 admits only equality.
    assert compare({"x": 0.0}, {"x": 1e-6}, {}, rel_tolerance={"x": 0.5})
    # Nested numbers use their top-level key's tolerances.
    assert compare({"p": {"A": 10.0}}, {"p": {"A": 10.4}}, {}, rel_tolerance={"p": 0.05}) == []


# -- interpretation gate -----------------------------------------------------------------


def _reading_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    # The "reader" adds params["shift"] tasks; a plan's reading may change the shift.
    return {"n_tasks": len(outputs[0]["tasks"]) + params.get("shift", 0)}


def _gated(readings: list[Any], stated: list[str]) -> FamilySpec:
    async def draw(
        ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
    ) -> Plan | None:
        return Plan(
            params={"shift": 0}, tool_sequence=[ToolCall(name="get_ai_tasks", args={})],
            mentions=[], readings=readings, stated=stated, tolerance={"n_tasks": 0.5},
        )

    return FamilySpec(
        name="test_gated", domain="tsfm", category="Knowledge Query", draw=draw,
        derive=_reading_derive, summarise=lambda p, a: "",
        outcome=lambda a: "many" if a["n_tasks"] > 2 else "few", trivial=frozenset({"few"}),
    )


async def test_gate_keeps_a_reading_that_gives_the_same_answer(offline_ctx: FamilyContext) -> None:
    from generator.generate.draw.families import Reading

    spec = _gated([Reading("shift_within_tol", "off by a fraction", params={"shift": 0.4})], [])
    seed = await draw_seed(spec, offline_ctx, 0)
    assert seed is not None and seed.answer == {"n_tasks": 2}
    assert [(r.name, r.outcome, r.answer) for r in seed.readings] == [
        ("shift_within_tol", "same", None)
    ]
    assert seed.outcome == "few" and seed.nontrivial is False
    assert offline_ctx.gate_drops == {}


async def test_gate_drops_an_unstated_reading_that_differs(offline_ctx: FamilyContext) -> None:
    from generator.generate.draw.families import Reading

    spec = _gated([Reading("plus_one", "counts one more", params={"shift": 1})], [])
    assert await draw_seed(spec, offline_ctx, 0) is None
    assert await draw_seed(spec, offline_ctx, 1) is None
    assert await draw_seed(spec, offline_ctx, 1) is None  # the same draw counts once
    assert offline_ctx.gate_drops == {"test_gated": {"plus_one": 2}}


async def test_gate_keeps_a_stated_reading_and_records_its_answer(
    offline_ctx: FamilyContext,
) -> None:
    from generator.generate.draw.families import Reading

    spec = _gated([Reading("plus_one", "counts one more", params={"shift": 1})], ["plus_one"])
    seed = await draw_seed(spec, offline_ctx, 0)
    assert seed is not None
    assert [(r.name, r.outcome, r.answer) for r in seed.readings] == [
        ("plus_one", "stated", {"n_tasks": 3})
    ]


async def test_gate_runs_a_readings_own_calls(offline_ctx: FamilyContext) -> None:
    from generator.generate.draw.families import Reading

    # A call that fails gives that reader no answer: the task is ambiguous for them.
    bad = [ToolCall(name="get_ai_tasks", args={"no_such_argument": 1})]
    spec = _gated([Reading("broken", "another call", tool_sequence=bad)], [])
    assert await draw_seed(spec, offline_ctx, 0) is None
    assert offline_ctx.gate_drops == {"test_gated": {"broken": 1}}


# -- non-trivial share -------------------------------------------------------------------------


def test_designated_slots_spread_the_share_over_every_prefix() -> None:
    from generator.generate.draw.families import designated_nontrivial

    flags = [designated_nontrivial(k, 0.4) for k in range(10)]
    # ceil(0.4 n) for n = 1..10 is 1,1,2,2,2,3,3,4,4,4: designated slots 0, 2, 5, 7.
    assert [k for k, f in enumerate(flags) if f] == [0, 2, 5, 7]
    assert not any(designated_nontrivial(k, 0.0) for k in range(10))
    assert all(designated_nontrivial(k, 1.0) for k in range(10))


async def test_draw_for_slot_prefers_a_nontrivial_draw_and_falls_back() -> None:
    from generator.generate.draw.families import EXTRA_BASE, EXTRA_DRAWS, draw_for_slot

    spec = _gated([], [])
    made: list[int] = []

    def seed_for(index: int, nontrivial: bool) -> TaskSeed:
        return TaskSeed(
            family="test_gated", domain="tsfm", category="Knowledge Query", role="operator",
            draw=index, params={}, mentions=[], answer={},
            tool_sequence=[ToolCall(name="get_ai_tasks", args={})], answer_summary="",
            difficulty="easy", outcome="many" if nontrivial else "few", nontrivial=nontrivial,
        )

    async def only_third_extra(index: int) -> TaskSeed | None:
        made.append(index)
        return seed_for(index, index == EXTRA_BASE + 2)

    got = await draw_for_slot(spec, 0, 0.4, only_third_extra)  # slot 0 is designated
    assert got is not None and got.draw == EXTRA_BASE + 2
    assert made == [0, EXTRA_BASE, EXTRA_BASE + 1, EXTRA_BASE + 2]
    made.clear()
    got = await draw_for_slot(spec, 1, 0.4, only_third_extra)  # slot 1 is not
    assert got is not None and got.draw == 1 and made == [1]

    async def all_trivial(index: int) -> TaskSeed | None:
        return None if index == 2 else seed_for(index, False)

    got = await draw_for_slot(spec, 2, 0.4, all_trivial)  # designated, nothing interesting
    assert got is not None and got.draw == EXTRA_BASE + 2 * EXTRA_DRAWS  # first usable


async def test_draw_for_slot_with_peek_gates_only_what_it_may_return() -> None:
    """With ``peek`` (the draw before its gate) a designated slot gives the seed it gives
    without, but makes (gates) only the draws it may return: not a repeated task, and not a
    trivial one once it holds a fallback. Slot 0 at share 0.4 is designated: its draws are
    0, then EXTRA_BASE + j. Here draw 0 is a repeat (skipped), EXTRA_BASE the first trivial
    one (the fallback, so gated; the gate drops it here: None), EXTRA_BASE + 1 trivial (now
    the fallback, gated), EXTRA_BASE + 2 and + 3 trivial (passed over ungated), EXTRA_BASE + 4
    non-trivial (gated, returned)."""
    from generator.generate.draw.families import EXTRA_BASE, draw_for_slot, params_key

    spec = _gated([], [])

    def seed_for(index: int) -> TaskSeed:
        return TaskSeed(
            family="test_gated", domain="tsfm", category="Knowledge Query", role="operator",
            draw=index, params={"i": index}, mentions=[], answer={},
            tool_sequence=[ToolCall(name="get_ai_tasks", args={})], answer_summary="",
            difficulty="easy", outcome="many" if index == EXTRA_BASE + 4 else "few",
            nontrivial=index == EXTRA_BASE + 4,
        )

    made: list[int] = []

    async def gated(index: int) -> TaskSeed | None:
        made.append(index)
        return None if index == EXTRA_BASE else seed_for(index)

    asked: list[tuple[int, bool]] = []

    async def peek(index: int, trivial_unwanted: bool) -> TaskSeed | None:
        asked.append((index, trivial_unwanted))
        return seed_for(index)

    repeat = {params_key(seed_for(0))}
    without = await draw_for_slot(spec, 0, 0.4, gated, skip=lambda s: params_key(s) in repeat)
    made_without = list(made)
    made.clear()
    got = await draw_for_slot(
        spec, 0, 0.4, gated, skip=lambda s: params_key(s) in repeat, peek=peek
    )
    assert without is not None and got is not None
    assert got.draw == without.draw == EXTRA_BASE + 4
    assert made_without == [0] + [EXTRA_BASE + j for j in range(5)]
    assert made == [EXTRA_BASE, EXTRA_BASE + 1, EXTRA_BASE + 4]
    # a trivial answer is unwanted once the slot holds a fallback (from EXTRA_BASE + 1 on)
    assert asked == [(0, False), (EXTRA_BASE, False), (EXTRA_BASE + 1, False)] + [
        (EXTRA_BASE + j, True) for j in (2, 3, 4)
    ]


# -- a draw that stops once it knows its answer is trivial (PassedOver) --------------------


async def test_a_peek_that_passes_over_trivial_answers_lets_a_draw_stop(
    offline_ctx: FamilyContext,
) -> None:
    """Asked with ``trivial_unwanted``, a family that finds its answer trivial stops
    (``PassedOver``) and the peek gives None, keeping nothing: the full draw of that index
    later is the one an uncut draw makes. The family is told only in that peek; a draw of
    another family inside it (a parent), and every other draw, is not told."""
    from generator.generate.draw.families import PassedOver, peek_seed

    told: list[tuple[str, bool]] = []

    async def parent_draw(
        ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
    ) -> Plan | None:
        told.append(("parent", ctx.passes_over_trivial))
        return _ai_tasks_plan(p=1)

    parent = FamilySpec(
        name="test_cut_parent", domain="tsfm", category="Knowledge Query", draw=parent_draw,
        derive=_tasks_derive, summarise=lambda p, a: "",
    )

    async def cut_draw(
        ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
    ) -> Plan | None:
        told.append(("cut", ctx.passes_over_trivial))
        await draw_seed(parent, ctx, 7)  # a draw of another family on the way
        told.append(("cut", ctx.passes_over_trivial))  # back: told again
        if ctx.passes_over_trivial:
            raise PassedOver("trivial (test)")
        return _ai_tasks_plan(shift=0)

    spec = FamilySpec(
        name="test_cut", domain="tsfm", category="Knowledge Query", draw=cut_draw,
        derive=_reading_derive, summarise=lambda p, a: "",
        outcome=lambda a: "many" if a["n_tasks"] > 2 else "few", trivial=frozenset({"few"}),
    )
    assert await peek_seed(spec, offline_ctx, 3, trivial_unwanted=True) is None
    assert told == [("cut", True), ("parent", False), ("cut", True)]
    assert not offline_ctx.probing("test_cut", 3)
    assert offline_ctx.kept_draw("test_cut", 3) == (False, None)
    assert not offline_ctx.passes_over_trivial  # the flag ends with the peek
    told.clear()
    seed = await draw_seed(spec, offline_ctx, 3)  # the whole draw, as if never cut
    assert seed is not None and seed.params == {"shift": 0}
    assert told == [("cut", False), ("cut", False)]  # the parent's draw 7 is kept
    # a draw that gives its probe whole keeps it, as the plain peek does
    told.clear()
    probe = await peek_seed(parent, offline_ctx, 8, trivial_unwanted=True)
    assert probe is not None and offline_ctx.probing("test_cut_parent", 8)
    assert await peek_seed(parent, offline_ctx, 8) is probe
    assert told == [("parent", True)]


async def test_a_draw_that_stops_when_nobody_passes_over_trivial_answers_is_a_bug(
    offline_ctx: FamilyContext,
) -> None:
    from generator.generate.draw.families import PassedOver

    async def always_stops(
        ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
    ) -> Plan | None:
        raise PassedOver("trivial (test)")

    spec = FamilySpec(
        name="test_stops", domain="tsfm", category="Knowledge Query", draw=always_stops,
        derive=_tasks_derive, summarise=lambda p, a: "",
    )
    with pytest.raises(RuntimeError, match="'test_stops' raised PassedOver on draw 2"):
        await draw_seed(spec, offline_ctx, 2)


# -- a draw whose tool call the tool refuses (data too thin for that window) --------------
async def _refused_in_plan(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    # get_ai_tasks takes no arguments: the call is refused with a UserError, as a tool
    # refuses a window with too few readings.
    return Plan(
        params={}, tool_sequence=[ToolCall(name="get_ai_tasks", args={"bogus": 1})], mentions=[]
    )


async def _refused_in_draw(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    await ctx.run1("get_ai_tasks", bogus=1)
    return None  # never reached


@pytest.mark.parametrize("draw_fn", [_refused_in_plan, _refused_in_draw])
async def test_a_refused_tool_call_drops_the_draw_not_the_run(
    offline_ctx: FamilyContext, draw_fn: Any
) -> None:
    spec = FamilySpec(
        name="test_refused", domain="tsfm", category="Knowledge Query", draw=draw_fn,
        derive=_tasks_derive, summarise=lambda p, a: "",
    )
    assert await draw_seed(spec, offline_ctx, 0) is None
    assert offline_ctx.gate_drops == {"test_refused": {"tool_refused": 1}}


# -- a draw is made once per (run seed, family, index) ------------------------------------


async def test_a_draw_is_made_once_and_kept(offline_ctx: FamilyContext) -> None:
    """The same index drawn again (one after the other, or while it is being made) is the
    same seed and the family's draw runs once; another run seed draws anew; a draw that
    failed is made again."""
    made: list[int] = []
    fail = [True]

    async def counted(
        ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
    ) -> Plan | None:
        made.append(ctx.run_seed)
        await asyncio.sleep(0)  # let a concurrent caller ask meanwhile
        if fail[0]:
            fail[0] = False
            raise StoreUnavailable("store down (test)")
        return _ai_tasks_plan(pick=1)

    spec = FamilySpec(
        name="test_counted", domain="tsfm", category="Knowledge Query", draw=counted,
        derive=_tasks_derive, summarise=lambda p, a: "",
    )
    with pytest.raises(StoreUnavailable):
        await draw_seed(spec, offline_ctx, 3)
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(draw_seed(spec, offline_ctx, 3)) for _ in range(3)]
    first = tasks[0].result()
    assert first is not None and all(t.result() is first for t in tasks)
    assert await draw_seed(spec, offline_ctx, 3) is first
    assert made == [5, 5]  # the failed attempt, then one draw for the four asks
    offline_ctx.run_seed = 6
    other = await draw_seed(spec, offline_ctx, 3)
    assert other is not None and other is not first and made == [5, 5, 6]
