"""Literature queries per evidence category, derived from the asset definition and inventory.

The deterministic expansion is the contract: same asset and inventory, same queries.
Every query carries a domain anchor ("power transformer", "oil-immersed", "insulating
oil"...) so that no search drifts to neural-network transformers. An LLM may only ADD
queries; when it fails, the deterministic set stands and the failure is reported.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import AssetClass
from generator.profile.model import EVIDENCE_CATEGORIES, EvidenceCategory, GroundedInventory

QUERY_STAGE = "literature_queries"
QUERY_PROMPT_VERSION = "lit-queries-1"
MAX_FAILURE_MODE_QUERIES = 7
_DGA_FAMILIES = {"T": "thermal fault", "P": "partial discharge", "D": "arcing discharge"}
MAX_STANDARD_QUERIES = 4
MAX_LLM_QUERIES_PER_CATEGORY = 2
ANCHOR_TERMS = ("power transformer", "oil-immersed", "insulating oil", "transformer oil")

M = TypeVar("M", bound=BaseModel)


class JsonLLM(Protocol):
    """The part of ``generator.llm.LLMClient`` the literature stage uses."""

    @property
    def usage(self) -> dict[str, dict[str, int]]:
        """Per-stage calls, input_tokens, output_tokens, failures."""
        ...

    async def ask_json(self, stage: str, system: str, user: str, schema: type[M]) -> Any:
        """Return an ``LLMResult`` (ok, value, raw, error, attempts); never raises."""
        ...


def _anchor(asset: AssetClass) -> str:
    name = asset.display_name.lower()
    return name if "transformer" in name else f"{name} power transformer"


def _sources(asset: AssetClass, inventory: GroundedInventory | None) -> set[str]:
    """Sensor sources that actually hold data (the inventory wins over the definition)."""
    if inventory is not None:
        return {s.source for s in inventory.sensors}
    return {s.source for s in asset.sensors}


def _sensor_names(asset: AssetClass, inventory: GroundedInventory | None) -> set[str]:
    if inventory is not None:
        return {s.name for s in inventory.sensors}
    return {s.name for s in asset.sensors}


def _anchored(query: str, anchor: str) -> str:
    """``query`` prefixed with the anchor unless it already names a domain term."""
    low = query.lower()
    return query if any(t in low for t in (*ANCHOR_TERMS, anchor)) else f"{anchor} {query}"


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(" ".join(q.split()) for q in items if q.strip()))


def expand_queries(asset: AssetClass, inventory: GroundedInventory | None) -> dict[str, list[str]]:
    """Queries per evidence category (every category present, each list non-empty).

    Args:
        asset: The asset class definition (display name, failure modes, sensors, standards).
        inventory: What the store holds; ``None`` falls back to the definition's sensors.
    """
    a = _anchor(asset)
    sources = _sources(asset, inventory)
    names = _sensor_names(asset, inventory)
    temps = {"oti", "wti"} & names
    q: dict[str, list[str]] = {c: [] for c in EVIDENCE_CATEGORIES}

    q["condition_monitoring"] += [f"{a} condition monitoring diagnostics review"]
    if "oil_sample" in sources:
        q["condition_monitoring"].append(f"{a} dissolved gas analysis insulating oil monitoring")
    if temps:
        q["condition_monitoring"].append(f"{a} top-oil hot-spot temperature thermal model")

    q["maintenance_practice"] += [
        f"{a} maintenance condition-based strategy",
        f"oil-immersed {a} insulating oil testing supervision maintenance",
    ]

    if "telemetry" in sources:
        q["sensor_modalities"].append(f"{a} online monitoring load current temperature sensors")
    if "oil_sample" in sources:
        q["sensor_modalities"].append(
            f"{a} insulating oil tests moisture acidity breakdown voltage dissolved gases"
        )
    if not q["sensor_modalities"]:
        q["sensor_modalities"].append(f"{a} monitoring sensors")

    seen_families: set[str] = set()
    for fm in asset.failure_modes:
        iec = fm.codes.get("iec60599")
        if iec:
            # One query per IEC 60599 family (thermal, partial discharge, discharge), so
            # three thermal classes do not crowd out ageing or oil degradation.
            family = iec[0]
            if family in seen_families:
                continue
            seen_families.add(family)
            q["failure_modes"].append(f"{a} {_DGA_FAMILIES[family]} dissolved gas analysis")
        else:
            # "(< 300 °C)" and similar asides only add noise to a keyword search.
            name = re.sub(r"\(.*?\)", " ", fm.name.lower())
            q["failure_modes"].append(f"{a} {name}")
    q["failure_modes"] = q["failure_modes"][:MAX_FAILURE_MODE_QUERIES]
    if not q["failure_modes"]:
        q["failure_modes"].append(f"{a} failure modes faults")

    for std in asset.standards[:MAX_STANDARD_QUERIES]:
        title = " ".join(std.title.split()[:10])
        q["standards"].append(_anchored(f"{std.id} {title}", a))
    if not q["standards"]:
        q["standards"].append(f"{a} standard guide interpretation")

    q["operator_manager_tasks"] += [
        f"{a} asset management health index fleet ranking",
        f"{a} loading guide overload decision loss of life",
    ]

    # Gaps: modalities the literature uses that the store does not hold.
    if "vibration" not in sources:
        q["gaps"].append(f"{a} tank vibration monitoring winding deformation")
    q["gaps"] += [
        f"{a} frequency response analysis winding deformation",
        f"{a} partial discharge UHF acoustic detection",
    ]
    return {c: _dedupe(v) for c, v in q.items()}


class _ExtraQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    category: EvidenceCategory = Field(description="Evidence category the query serves")
    query: str = Field(max_length=120, description="Search query, a few keywords")


class QueryExpansion(BaseModel):
    """LLM reply: extra queries only."""

    model_config = ConfigDict(extra="forbid")

    queries: list[_ExtraQuery] = Field(max_length=14, description="Additional queries")


_SYSTEM = (
    "You help search the engineering literature about one class of industrial asset. "
    "Propose additional short keyword queries for the listed evidence categories. "
    "Reply with JSON matching the schema; queries only, no commentary."
)


async def expand_queries_llm(
    asset: AssetClass, inventory: GroundedInventory | None, client: JsonLLM
) -> tuple[dict[str, list[str]], str | None]:
    """The deterministic queries plus up to two LLM queries per category.

    Returns:
        ``(queries, problem)``: ``problem`` is None on success, else a one-line reason
        (the deterministic queries are returned unchanged).
    """
    base = expand_queries(asset, inventory)
    a = _anchor(asset)
    user = "\n".join(
        [
            f"Asset class: {asset.display_name}. {asset.description}",
            "Failure modes: " + "; ".join(fm.name for fm in asset.failure_modes),
            "Standards: " + "; ".join(s.id for s in asset.standards),
            "Existing queries per category:",
            *(f"- {c}: {' | '.join(qs)}" for c, qs in base.items()),
            f"Give at most {MAX_LLM_QUERIES_PER_CATEGORY} new queries per category.",
        ]
    )
    result = await client.ask_json(QUERY_STAGE, _SYSTEM, user, QueryExpansion)
    if not getattr(result, "ok", False) or result.value is None:
        reason = getattr(result, "error", None) or "no valid reply"
        return base, f"query expansion by LLM failed ({reason}); deterministic queries used"
    out = {c: list(v) for c, v in base.items()}
    added = {c: 0 for c in base}
    for item in result.value.queries:
        text = " ".join(item.query.split())
        if not text or added[item.category] >= MAX_LLM_QUERIES_PER_CATEGORY:
            continue
        out[item.category].append(_anchored(text, a))
        added[item.category] += 1
    return {c: _dedupe(v) for c, v in out.items()}, None
