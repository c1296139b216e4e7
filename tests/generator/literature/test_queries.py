"""Query expansion: deterministic, anchored, shaped by the inventory; the LLM only adds."""

from __future__ import annotations

import json

from generator.assetdef import load_asset_class
from generator.literature.corpus import search_terms
from generator.literature.queries import expand_queries, expand_queries_llm
from generator.llm.client import LLMClient
from generator.llm.fake import ScriptedChatModel
from generator.profile.model import EVIDENCE_CATEGORIES, GroundedInventory, SensorCoverage
from generator.store.query import TimeRange


def _inventory(sources: list[str]) -> GroundedInventory:
    sensors = [
        SensorCoverage(name="oti", unit="degC", source="telemetry", description="top oil"),
        SensorCoverage(name="hydrogen", unit="ppm", source="oil_sample", description="H2"),
    ]
    empty = TimeRange(start=None, end=None, count=0)
    return GroundedInventory(
        sites=[],
        assets=[],
        sensors=[s for s in sensors if s.source in sources],
        coverage={"telemetry": empty, "oil_sample": empty},
        work_orders=0,
        fingerprint="x",
    )


def test_every_category_has_anchored_queries_and_expansion_is_deterministic() -> None:
    asset = load_asset_class("transformer")
    queries = expand_queries(asset, None)
    search = search_terms(asset)
    anchors = (*search.anchor_terms, search.anchor)
    assert list(queries) == list(EVIDENCE_CATEGORIES)
    for category, qs in queries.items():
        assert qs, category
        assert len(qs) == len(set(qs))
        for q in qs:
            assert any(t in q.lower() for t in anchors), q
    assert expand_queries(asset, None) == queries
    assert any("vibration" in q for q in queries["gaps"])
    assert any("partial discharge" in q for q in queries["failure_modes"])
    assert any("oil quality degradation" in q for q in queries["failure_modes"])


def test_inventory_decides_the_sensor_modalities() -> None:
    asset = load_asset_class("transformer")
    both = expand_queries(asset, _inventory(["telemetry", "oil_sample"]))
    telemetry_only = expand_queries(asset, _inventory(["telemetry"]))
    assert any("dissolved gases" in q for q in both["sensor_modalities"])
    assert not any("dissolved gases" in q for q in telemetry_only["sensor_modalities"])
    assert not any("dissolved gas" in q for q in telemetry_only["condition_monitoring"])


async def test_llm_expansion_only_adds_anchored_queries() -> None:
    asset = load_asset_class("transformer")
    reply = {
        "queries": [
            {"category": "gaps", "query": "bushing capacitance monitoring"},
            {"category": "gaps", "query": "power transformer sound level"},
            {"category": "gaps", "query": "third one is over the cap"},
        ]
    }
    client = LLMClient.from_model(ScriptedChatModel([json.dumps(reply)]))
    queries, problem = await expand_queries_llm(asset, None, client)
    base = expand_queries(asset, None)
    assert problem is None
    assert queries["gaps"][: len(base["gaps"])] == base["gaps"]
    added = queries["gaps"][len(base["gaps"]) :]
    assert added == [
        "power transformer bushing capacitance monitoring",
        "power transformer sound level",
    ]
    assert {c: q for c, q in queries.items() if c != "gaps"} == {
        c: q for c, q in base.items() if c != "gaps"
    }


async def test_llm_expansion_failure_keeps_the_deterministic_queries() -> None:
    asset = load_asset_class("transformer")
    client = LLMClient.from_model(ScriptedChatModel(["not json at all"]))
    queries, problem = await expand_queries_llm(asset, None, client)
    assert queries == expand_queries(asset, None)
    assert problem is not None and problem.startswith("query expansion by LLM failed")
