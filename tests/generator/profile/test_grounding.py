"""Grounding reads the store and the tool registry, and nothing else decides the domains."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import StoreUnavailable
from generator.profile import grounding
from generator.profile.build import build_profile
from generator.store.couch import CouchClient
from generator.store.seed import database_names
from generator.tools.registry import load_tools
from tests.generator.profile.conftest import StubResearch

ASSET = load_asset_class("transformer")
RAW_META = {"_id", "_rev", "asset_id", "site_name", "timestamp", "dataset"}


def _tools() -> list[Any]:
    registry = load_tools()
    return [registry.get(n) for n in registry.names()]


def _raw_store(settings: StoreSettings) -> dict[str, Any]:
    """What the store holds, read document by document with the plain client."""
    names = database_names(ASSET, settings.db_prefix)
    with CouchClient(settings) as client:
        plates = list(client.all_docs(names["nameplate"]))
        telemetry = list(client.all_docs(names["telemetry"]))
        oil = list(client.all_docs(names["oil_samples"]))
        orders = [d for d in client.all_docs(names["workorders"]) if d["dataset"] == "wo_events"]
    stamps: dict[str, list[str]] = defaultdict(list)
    oil_stamps: dict[str, list[str]] = defaultdict(list)
    for d in telemetry:
        stamps[d["asset_id"]].append(d["timestamp"])
    for d in oil:
        oil_stamps[d["asset_id"]].append(d["timestamp"])
    return {
        "sites": sorted({p["site_name"] for p in plates}),
        "assets": {p["asset_id"]: p["site_name"] for p in plates},
        "telemetry_keys": sorted({k for d in telemetry for k in d} - RAW_META),
        "oil_keys": sorted({k for d in oil for k in d} - RAW_META),
        "telemetry": {a: (min(s), max(s), len(s)) for a, s in stamps.items()},
        "oil": {a: (min(s), max(s), len(s)) for a, s in oil_stamps.items()},
        "orders": len(orders),
    }


async def test_profile_lists_exactly_what_the_store_holds(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    raw = _raw_store(seeded_settings)
    profile = await build_profile(
        "transformer", settings=seeded_settings, research_fn=stub_research
    )
    assert profile.generation_mode == "open_form"
    inv = profile.inventory
    assert inv.sites == raw["sites"]
    assert {a.asset_id: a.site_name for a in inv.assets} == raw["assets"]
    assert [a.asset_id for a in inv.assets] == sorted(raw["assets"])
    by_source: dict[str, set[str]] = defaultdict(set)
    for s in inv.sensors:
        by_source[s.source].add(s.name)
    assert sorted(by_source["telemetry"]) == raw["telemetry_keys"]
    assert sorted(by_source["oil_sample"]) == raw["oil_keys"]
    assert "vibration" not in by_source
    for a in inv.assets:
        assert sorted(a.sensors) == raw["telemetry_keys"]
        start, end, n = raw["telemetry"][a.asset_id]
        assert (a.telemetry.start, a.telemetry.end) == (start, end)
        assert a.enough_history is (n >= grounding.MIN_HOURLY_READINGS) is True
        assert (a.oil_samples.start, a.oil_samples.end, a.oil_samples.count) == raw["oil"][
            a.asset_id
        ]
    assert inv.telemetry.start == min(v[0] for v in raw["telemetry"].values())
    assert inv.telemetry.end == max(v[1] for v in raw["telemetry"].values())
    assert inv.work_orders == raw["orders"] == sum(a.work_orders for a in inv.assets)
    # Units and descriptions come from the asset definition, not from the data.
    units = {s.name: s.unit for s in ASSET.sensors}
    assert all(s.unit == units[s.name] for s in inv.sensors)
    again = await grounding.ground(ASSET, seeded_settings)
    assert again is not None and again.fingerprint == inv.fingerprint


async def test_domains_vibration_unsupported_multiagent_supported(
    seeded_settings: StoreSettings,
) -> None:
    inv = await grounding.ground(ASSET, seeded_settings)
    supported, unsupported = grounding.domain_support(ASSET, inv, _tools())
    assert [d.domain for d in supported] == ["iot", "fmsr", "tsfm", "wo", "multiagent"]
    assert [d.domain for d in unsupported] == ["vibration"]
    vib = unsupported[0]
    assert vib.tools == [] and not vib.supported
    assert vib.reason.startswith(
        "no vibration sensors in the store or the asset definition; "
        "vibration tools are not registered for transformer"
    )
    by_name = {d.domain: d for d in supported}
    registry = load_tools()
    # Only the class's own tools count (the registry also holds other classes' tools).
    assert by_name["fmsr"].tools == sorted(
        n for n in registry.names()
        if registry.get(n).domain == "fmsr" and ASSET.asset_class in registry.get(n).asset_classes
    )
    assert "interpret_dga" in by_name["fmsr"].tools
    assert "iot, fmsr, tsfm, wo" in by_name["multiagent"].reason
    assert inv is not None
    assert f"{inv.work_orders} work orders" in by_name["wo"].reason
    assert "6 of 6 assets have ≥ 48 hourly readings" in by_name["tsfm"].reason
    # Too little history: tsfm goes, the other domains (and multi-agent) stay.
    short = inv.model_copy(
        update={"assets": [a.model_copy(update={"enough_history": False}) for a in inv.assets]}
    )
    supported, unsupported = grounding.domain_support(ASSET, short, _tools())
    assert [d.domain for d in unsupported] == ["tsfm", "vibration"]
    assert unsupported[0].reason == "no asset has ≥ 48 hourly readings"
    assert "multiagent" in [d.domain for d in supported]


async def test_a_domain_missing_from_asset_yaml_is_unsupported(
    seeded_settings: StoreSettings,
) -> None:
    inv = await grounding.ground(ASSET, seeded_settings)
    narrowed = ASSET.model_copy(update={"domains": ["iot"]})
    supported, unsupported = grounding.domain_support(narrowed, inv, _tools())
    assert [d.domain for d in supported] == ["iot"]
    wo = next(d for d in unsupported if d.domain == "wo")
    assert wo.reason == "not listed in assets/transformer/asset.yaml `domains`"
    multi = next(d for d in unsupported if d.domain == "multiagent")
    assert "needs ≥ 2 supported single domains, has 1 (iot)" in multi.reason


async def test_failure_modes_split_sensors_from_gases(seeded_settings: StoreSettings) -> None:
    inv = await grounding.ground(ASSET, seeded_settings)
    modes = {m.id: m for m in grounding.failure_mode_profiles(ASSET, inv)}
    t1 = modes["thermal_fault_t1"]
    assert t1.gases == ["methane", "ethane", "hydrogen", "co", "co2"]
    assert t1.sensors == ["oti", "wti"] and t1.iec60599_code == "T1" and t1.observable
    assert modes["oil_degradation"].gases == []
    assert all(m.observable for m in modes.values())
    # Without the oil database's fields, no DGA failure mode is observable.
    kept = [s for s in inv.sensors if s.source != "oil_sample"]
    no_oil = inv.model_copy(update={"sensors": kept})
    blind = {m.id: m for m in grounding.failure_mode_profiles(ASSET, no_oil)}
    assert not blind["thermal_fault_t3"].observable and blind["phase_imbalance"].observable


async def test_empty_store_is_closed_form(store_settings: StoreSettings) -> None:
    assert await grounding.ground(ASSET, store_settings) is None
    supported, unsupported = grounding.domain_support(ASSET, None, _tools())
    assert [d.domain for d in supported] == ["iot", "fmsr", "tsfm", "wo", "multiagent"]
    assert all("judged from the asset definition and tools" in d.reason for d in supported[:4])
    assert [d.domain for d in unsupported] == ["vibration"]
    modes = grounding.failure_mode_profiles(ASSET, None)
    assert modes and not any(m.observable for m in modes)


async def test_unreachable_store_is_a_user_error_with_the_fix() -> None:
    down = StoreSettings(url="http://127.0.0.1:9", external=True, timeout_s=2)
    with pytest.raises(StoreUnavailable, match="scenariogen env up"):
        await grounding.ground(ASSET, down)
    with pytest.raises(StoreUnavailable, match="scenariogen env up"):
        await grounding.store_fingerprint(ASSET, down)


def test_task_themes_follow_the_supported_domains() -> None:
    supported, _ = grounding.domain_support(ASSET, None, _tools())
    modes = grounding.failure_mode_profiles(ASSET, None)
    themes = grounding.task_themes(supported, modes)
    assert {t.role for t in themes} == {"operator", "manager"}
    assert themes == grounding.task_themes(supported, modes)  # deterministic
    only_wo = [d for d in supported if d.domain == "wo"]
    narrow = grounding.task_themes(only_wo, modes)
    assert narrow and all(t.domains == ["wo"] for t in narrow)
    # Closed form: no failure mode is observable, so no per-mode themes.
    assert not any(t.theme.startswith("Recognise") for t in themes)


def test_public_url_drops_credentials() -> None:
    assert grounding.public_url("http://admin:secret@db.example:5984/") == "http://db.example:5984/"
