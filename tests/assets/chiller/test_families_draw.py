"""Chiller task families over a small seeded fleet: every family draws distinct seeds whose
answers recompute from the tools, and the template grammar words them without tool names,
sensor codes or another class's words."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from generator.config import StoreSettings
from generator.generate.families import (
    draw_many,
    families_of,
    load_families,
    params_key,
    recompute,
)
from generator.generate.model import TaskSeed
from generator.generate.surface_forms import missing_mentions
from generator.generate.verbalise_template import TemplateVerbaliser, load_templates
from generator.profile.model import AssetProfile
from tests.assets.chiller.chiller_fleet import (
    ASSET,
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
