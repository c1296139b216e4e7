"""build_profile: assembly, the two-level cache, invalidation and failures."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from assets.transformer.simulator import FleetSpec
from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import UserError
from generator.literature.corpus import LocalCorpus
from generator.profile import build
from generator.profile.build import build_profile, profile_cache, profile_for
from generator.profile.model import EVIDENCE_CATEGORIES
from generator.store.couch import CouchClient
from generator.store.seed import seed
from tests.generator.profile.conftest import StubResearch

ASSET = load_asset_class("transformer")


async def test_profile_is_assembled_from_grounding_and_research(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    p = await build_profile("transformer", settings=seeded_settings, research_fn=stub_research)
    assert p.generation_mode == "open_form"
    assert p.supported == ["iot", "fmsr", "tsfm", "wo", "multiagent"]
    vibration = p.domain("vibration")
    assert vibration is not None and not vibration.supported
    assert [s.id for s in p.standards] == [s.id for s in ASSET.standards]
    assert {t.role for t in p.task_themes} == {"operator", "manager"}
    cited = {e.citation.ref_id for e in p.evidence}
    assert cited == {r.ref_id for r in p.references}
    assert {e.category for e in p.evidence} == set(EVIDENCE_CATEGORIES)
    prov = p.provenance
    assert prov.retriever == "local" and prov.retrievers_used == ["local"] and prov.llm == "none"
    assert set(prov.timings) >= {"tools", "discovery", "retrieval", "digests", "merge", "total"}
    assert prov.timings["merge"] == 0.003 and prov.store_url == seeded_settings.url
    assert len(prov.cache_key) == 64
    # The literature stage saw the grounded inventory and the unsupported domains.
    seen = stub_research.seen[0]
    assert seen["inventory"] == p.inventory
    assert [d.domain for d in seen["unsupported"]] == ["vibration"]
    assert seen["cache"] is not None and seen["cache"].namespace == "retrieval"


async def test_warm_cache_l1_then_l2(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    first = await profile_for("transformer", settings=seeded_settings, research_fn=stub_research)
    assert first.cache_level == "miss" and stub_research.calls == 1
    # Warm lookups are served without rebuilding (the time is measured by
    # `scenariogen bench profile`, not in a unit test).
    for _ in range(3):
        warm = await build_profile(
            "transformer", settings=seeded_settings, research_fn=stub_research
        )
        assert warm == first.profile
    assert stub_research.calls == 1
    again = await profile_for("transformer", settings=seeded_settings, research_fn=stub_research)
    assert again.cache_level == "l1"
    profile_cache().clear_memory()
    disk = await profile_for("transformer", settings=seeded_settings, research_fn=stub_research)
    assert disk.cache_level == "l2" and disk.profile == first.profile
    assert stub_research.calls == 1
    assert (cache_env / "profiles").is_dir()


async def test_refresh_rebuilds_and_no_cache_neither_reads_nor_writes(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    first = await build_profile("transformer", settings=seeded_settings, research_fn=stub_research)
    fresh = await profile_for(
        "transformer", settings=seeded_settings, research_fn=stub_research, refresh=True
    )
    assert fresh.cache_level == "miss" and stub_research.calls == 2
    assert fresh.profile.provenance.created_at != first.provenance.created_at
    # The refreshed profile replaced the cached one.
    cached = await build_profile("transformer", settings=seeded_settings, research_fn=stub_research)
    assert cached.provenance.created_at == fresh.profile.provenance.created_at
    off = await profile_for(
        "transformer", settings=seeded_settings, research_fn=stub_research, use_cache=False
    )
    assert off.cache_level == "off" and stub_research.calls == 3
    assert stub_research.seen[-1]["cache"] is None
    assert [e["key"] for e in profile_cache().entries()] == [off.cache_key]


async def test_corrupted_disk_entry_is_dropped_with_a_warning_and_rebuilt(
    seeded_settings: StoreSettings,
    cache_env: Path,
    stub_research: StubResearch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    first = await profile_for("transformer", settings=seeded_settings, research_fn=stub_research)
    cache = profile_cache()
    entry = cache._disk().get(first.cache_key)
    entry["json"] = entry["json"].replace('"open_form"', '"closed_form"')  # bit rot
    cache._disk().set(first.cache_key, entry)
    cache.clear_memory()
    with caplog.at_level(logging.WARNING, logger="generator.cache"):
        rebuilt = await profile_for(
            "transformer", settings=seeded_settings, research_fn=stub_research
        )
    assert rebuilt.cache_level == "miss" and stub_research.calls == 2
    assert rebuilt.profile.generation_mode == "open_form"
    assert any("corrupted" in r.getMessage() for r in caplog.records)
    cache.clear_memory()
    healed = await profile_for("transformer", settings=seeded_settings, research_fn=stub_research)
    assert healed.cache_level == "l2"


async def test_failures_are_not_cached(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    stub_research.fail = True
    with pytest.raises(RuntimeError, match="literature stage failed"):
        await build_profile("transformer", settings=seeded_settings, research_fn=stub_research)
    assert list(profile_cache().entries()) == []
    stub_research.fail = False
    built = await profile_for("transformer", settings=seeded_settings, research_fn=stub_research)
    assert built.cache_level == "miss" and len(list(profile_cache().entries())) == 1


async def test_a_fallback_away_from_the_requested_retriever_is_not_cached(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    # The stub answers from the local corpus only, as after an arXiv outage.
    built = await profile_for(
        "transformer", settings=seeded_settings, retriever="arxiv", research_fn=stub_research
    )
    assert built.profile.provenance.retrievers_used == ["local"]
    assert list(profile_cache().entries()) == []


async def test_key_hashes_what_changes_the_output_only(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    base = await profile_for("transformer", settings=seeded_settings, research_fn=stub_research)
    slow = seeded_settings.model_copy(update={"timeout_s": 99.0})
    same = await profile_for(
        "transformer", settings=slow, research_fn=stub_research, ttl_s=60.0, use_cache=False
    )
    assert same.cache_key == base.cache_key
    other = await profile_for(
        "transformer", settings=seeded_settings, research_fn=stub_research,
        retriever="semanticscholar", use_cache=False,
    )
    assert other.cache_key != base.cache_key


async def test_reseeding_another_fleet_invalidates(
    store_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    prefix = store_settings.db_prefix
    with CouchClient(store_settings) as client:
        seed(client, ASSET, FleetSpec(seed=1, sites=1, units_per_site=2, days=7), prefix=prefix)
    a = await profile_for("transformer", settings=store_settings, research_fn=stub_research)
    with CouchClient(store_settings) as client:
        seed(
            client, ASSET, FleetSpec(seed=2, sites=2, units_per_site=1, days=8),
            prefix=prefix, replace=True,
        )
    b = await profile_for("transformer", settings=store_settings, research_fn=stub_research)
    assert b.cache_level == "miss" and b.cache_key != a.cache_key
    assert len(a.profile.inventory.sites) == 1 and len(b.profile.inventory.sites) == 2
    assert b.profile.inventory.fingerprint != a.profile.inventory.fingerprint
    assert b.profile.inventory.telemetry.end != a.profile.inventory.telemetry.end


async def test_empty_store_gives_a_closed_form_profile(
    store_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    p = await build_profile("transformer", settings=store_settings, research_fn=stub_research)
    assert p.generation_mode == "closed_form"
    assert p.inventory.assets == [] and p.inventory.sites == []
    assert stub_research.seen[0]["inventory"] is None
    assert "vibration" not in p.supported and "iot" in p.supported


async def test_ttl_from_env_and_bad_values(
    cache_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_PROFILE_TTL_S", "120")
    assert build.profile_ttl() == 120.0 and profile_cache().ttl_s == 120.0
    assert build.profile_ttl(5.0) == 5.0
    monkeypatch.setenv("SCENARIOGEN_PROFILE_TTL_S", "soon")
    with pytest.raises(UserError, match="SCENARIOGEN_PROFILE_TTL_S"):
        build.profile_ttl()
    with pytest.raises(UserError, match="positive"):
        build.profile_ttl(0)


async def test_unknown_retriever_is_a_user_error(cache_env: Path) -> None:
    with pytest.raises(UserError, match="unknown retriever 'arxv'"):
        await build_profile("transformer", retriever="arxv")


async def test_evidence_citing_an_unknown_record_is_dropped_and_reported(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    async def sloppy(*args: Any, **kwargs: Any) -> Any:
        result = await stub_research(*args, **kwargs)
        bad = result.evidence[0].model_copy(
            update={"citation": result.evidence[0].citation.model_copy(
                update={"ref_id": "arxiv:0000.00000"})}
        )
        result.evidence.append(bad)
        result.references.append(
            LocalCorpus("transformer").all()[-1].model_copy(update={"ref_id": "local:uncited"})
        )
        return result

    p = await build_profile("transformer", settings=seeded_settings, research_fn=sloppy)
    assert len(p.evidence) == len(EVIDENCE_CATEGORIES)
    assert "1 evidence items with an unresolved citation were dropped" in p.provenance.fallbacks
    assert {r.ref_id for r in p.references} == {e.citation.ref_id for e in p.evidence}
