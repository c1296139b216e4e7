"""Chiller task families over a small seeded fleet: every family draws distinct seeds whose
answers recompute from the tools, and the template grammar words them without tool names,
sensor codes or another class's words."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

import pytest

from assets.chiller.families_tsfm import ZERO_WHEN_OFF
from assets.chiller.simulator import FleetSpec, simulate_fleet
from generator.api import history_call
from generator.config import StoreSettings
from generator.generate.draw.families import (
    draw_many,
    families_of,
    load_families,
    params_key,
    recompute,
)
from generator.generate.model import TaskSeed
from generator.generate.verbalise.surface_forms import missing_mentions
from generator.generate.verbalise.verbalise_template import TemplateVerbaliser, load_templates
from generator.profile.model import AssetProfile
from tests.assets.chiller.chiller_fleet import (
    ASSET,
    SPEC_ARGS,
    chiller_context,
    chiller_profile,
    seed_chiller,
)

RUN_SEED = 13
PER_FAMILY = 5
DOMAINS = ("iot", "fmsr", "tsfm", "wo", "multiagent")
# The knowledge lookup has 6 modes + the sensors they name; every other family draws from
# units × windows × sensors (or hours), so 5 draws are 5 distinct tasks.
OTHER_CLASS_WORDS = ("transformer", "substation", "oil sample", "winding", "dga", "mva")


@pytest.fixture(scope="module")
def chiller_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    return seed_chiller(settings_for)


@pytest.fixture(scope="module")
async def profile(chiller_settings: StoreSettings) -> AssetProfile:
    return await chiller_profile(chiller_settings)


@pytest.fixture(scope="module")
async def seeds(
    chiller_settings: StoreSettings, profile: AssetProfile
) -> dict[str, list[TaskSeed]]:
    load_families(ASSET)
    ctx = chiller_context(profile, chiller_settings, RUN_SEED)
    out = {}
    for spec in families_of(ASSET):
        out[spec.name] = await draw_many(spec, ctx, 0, PER_FAMILY, PER_FAMILY * 8)
    return out


def test_at_least_two_families_per_domain() -> None:
    for domain in DOMAINS:
        assert len(families_of(ASSET, domain)) >= 2, domain


def test_every_family_draws_distinct_nonempty_plans(seeds: dict[str, list[TaskSeed]]) -> None:
    assert set(seeds) == {spec.name for spec in families_of(ASSET)}
    for name, drawn in seeds.items():
        assert len(drawn) == PER_FAMILY, name
        assert len({params_key(s) for s in drawn}) == PER_FAMILY, name
        for s in drawn:
            assert s.tool_sequence and s.answer, name
            json.dumps(s.model_dump(mode="json"), allow_nan=False)


def test_multiagent_seeds_span_two_domains(seeds: dict[str, list[TaskSeed]]) -> None:
    from generator.tools.registry import TOOLS

    for spec in families_of(ASSET, "multiagent"):
        for s in seeds[spec.name]:
            domains = {TOOLS.get(c.name).domain for c in s.tool_sequence}
            assert len(domains) >= 2, (spec.name, domains)


def test_draws_reach_faults_and_normal_answers(seeds: dict[str, list[TaskSeed]]) -> None:
    # The fleet holds every failure mode once: the diagnosis draws (mostly at alert hours)
    # must find faults, and the approach check must find at least one fouled side.
    outcomes = {s.outcome for s in seeds["chiller_fmsr_diagnose_fault"]}
    assert "fault" in outcomes
    assert {s.outcome for s in seeds["chiller_fmsr_approach_check"]} & {"fouling"}


async def test_seeds_recompute_in_a_fresh_context(
    seeds: dict[str, list[TaskSeed]], chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    ctx = chiller_context(profile, chiller_settings, RUN_SEED)
    for drawn in seeds.values():
        for s in drawn[:2]:
            assert await recompute(s, ctx) == [], s.family


async def test_a_tampered_answer_is_caught(
    seeds: dict[str, list[TaskSeed]], chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    ctx = chiller_context(profile, chiller_settings, RUN_SEED)
    s = seeds["chiller_iot_window_stat"][0]
    bad = s.model_copy(update={"answer": {**s.answer, "value": s.answer["value"] + 1.0}})
    assert await recompute(bad, ctx)


async def test_same_run_seed_gives_identical_seeds(
    seeds: dict[str, list[TaskSeed]], chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    ctx = chiller_context(profile, chiller_settings, RUN_SEED)
    spec = families_of(ASSET, "fmsr")[0]
    again = await draw_many(spec, ctx, 0, PER_FAMILY, PER_FAMILY * 8)
    assert [params_key(s) for s in again] == [params_key(s) for s in seeds[spec.name]]
    assert [s.answer for s in again] == [s.answer for s in seeds[spec.name]]


def test_every_family_has_templates() -> None:
    templates = load_templates("chiller")
    assert set(templates.families) == {spec.name for spec in families_of(ASSET)}


def test_requests_name_no_tool_sensor_code_or_other_class(
    seeds: dict[str, list[TaskSeed]],
) -> None:
    verbaliser = TemplateVerbaliser(RUN_SEED, asset_class="chiller")
    codes = [s.name for s in ASSET.sensors]
    for drawn in seeds.values():
        for s in drawn:
            draft = verbaliser.verbalise_one(s)
            text = draft.text
            low = text.lower()
            for word in OTHER_CLASS_WORDS:
                assert not re.search(rf"\b{word}\b", low), (s.family, word, text)
            for code in codes:
                assert code not in text, (s.family, code, text)
            # Every mention verbatim, or in a recorded surface form that stands for it.
            assert not missing_mentions(text, s, draft.surfaces, "chiller"), (s.family, text)


# Families that report a figure read from the supply sensor or computed from it (tonnage,
# kW/ton), with the parameter naming that sensor (None: the family's fixed sensor).
READS_SUPPLY: dict[str, tuple[str, ...] | None] = {
    "chiller_iot_window_stat": ("supply_temperature", "tonnage", "kw_per_ton"),
    "chiller_iot_site_cooling": None,
    "chiller_fmsr_approach_check": None,
    "chiller_fmsr_efficiency": None,
    "chiller_tsfm_forecast": ("tonnage",),
    "chiller_tsfm_anomalies": ("kw_per_ton",),
}


async def test_no_figure_is_read_from_a_drifting_supply_sensor(
    chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    # The fleet's drifting unit (truth, which the families never read): every draw about it
    # that reads the supply sensor or tonnage / kW/ton ends, whole end day included, before
    # the drift began; and no drawn efficiency is beyond the kW/ton point's 0-3 range.
    truth = simulate_fleet(FleetSpec(**SPEC_ARGS)).docs["truth"]
    drift = next(t for t in truth if t["fault_mode"] == "sensor_drift")
    ctx = chiller_context(profile, chiller_settings, RUN_SEED + 1)
    specs = {spec.name: spec for spec in families_of(ASSET)}
    near_drift = 0
    for name, sensors in READS_SUPPLY.items():
        for s in await draw_many(specs[name], ctx, 0, 25, 25 * 8):
            p = s.params
            if sensors is not None and p["sensor"] not in sensors:
                continue
            if p.get("asset_id", "") != drift["asset_id"] and not (
                "asset_id" not in p and p["site"] == drift["site_name"]
            ):
                continue
            near_drift += 1
            if "timestamp" in p:
                last = datetime.fromisoformat(p["timestamp"]) + timedelta(hours=1)
            else:
                last = datetime.fromisoformat(p["end"]) + timedelta(days=1)
            assert last <= datetime.fromisoformat(drift["onset"]), (name, p, drift["onset"])
            if name == "chiller_fmsr_efficiency":
                assert s.answer["measured_kw_per_ton"] <= 3.0
                assert s.answer["degradation_pct"] <= 100.0
    assert near_drift  # the drifting unit is still drawn, before its drift


async def test_tonnage_and_power_forecasts_fit_running_hours_only(
    chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    # A unit staged off logs 0 tons and 0 kW: a forecast of those is asked only of a window
    # (whole end day included) the unit ran throughout, and never comes out negative.
    ctx = chiller_context(profile, chiller_settings, RUN_SEED + 2)
    spec = next(s for s in families_of(ASSET) if s.name == "chiller_tsfm_forecast")
    checked = 0
    for s in await draw_many(spec, ctx, 0, 30, 30 * 8):
        p = s.params
        if p["sensor"] not in ZERO_WHEN_OFF:
            continue
        a = next(x for x in ctx.assets if x.asset_id == p["asset_id"])
        last = (date.fromisoformat(p["end"]) + timedelta(days=1)).isoformat()
        out = (await ctx.run([history_call(a, p["start"], last, ["run_status"])]))[0]
        assert all(r["run_status"] == 1 for r in out["records"]), p
        assert s.answer["value"] >= 0 and s.answer["peak"] >= 0, (p, s.answer)
        checked += 1
    assert checked
