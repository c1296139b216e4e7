"""Literature queries per evidence category, derived from the asset definition and inventory.

The deterministic expansion is the contract: same asset and inventory, same queries.
Every query carries a domain anchor (the class's ``search.anchor`` or one of its
``anchor_terms``, from ``assets/<class>/literature.yaml``) so that no search drifts to
another field that shares the class's name. The query templates per category come from
the same section; the failure modes, sensors and standards from asset.yaml. An LLM may
only ADD queries; when it fails, the deterministic set stands and the failure is reported.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from generator.assetdef import AssetClass, FailureMode
from generator.literature.corpus import QueryTemplate, SearchTerms, search_terms
from generator.literature.model import EVIDENCE_CATEGORIES, EvidenceCategory, Holdings

QUERY_STAGE = "literature_queries"
QUERY_PROMPT_VERSION = "lit-queries-1"
MAX_FAILURE_MODE_QUERIES = 7
MAX_STANDARD_QUERIES = 4
MAX_LLM_QUERIES_PER_CATEGORY = 2
# Generic queries of a category the class's templates leave empty.
_FALLBACK = {
    "condition_monitoring": "{anchor} condition monitoring diagnostics review",
    "maintenance_practice": "{anchor} maintenance condition-based strategy",
    "sensor_modalities": "{anchor} monitoring sensors",
    "failure_modes": "{anchor} failure modes faults",
    "standards": "{anchor} standard guide interpretation",
    "operator_manager_tasks": "{anchor} asset management fleet decisions",
    "gaps": "{anchor} monitoring techniques not in use",
}

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


def failure_mode_code(fm: FailureMode, scheme: str) -> str | None:
    """The failure mode's code under ``scheme`` (None when it has none)."""
    code = fm.codes.get(scheme)
    return str(code) if code else None


def _sources(asset: AssetClass, inventory: Holdings | None) -> set[str]:
    """Sensor sources that actually hold data (the inventory wins over the definition)."""
    if inventory is not None:
        return {s.source for s in inventory.sensors}
    return {s.source for s in asset.sensors}


def _sensor_names(asset: AssetClass, inventory: Holdings | None) -> set[str]:
    if inventory is not None:
        return {s.name for s in inventory.sensors}
    return {s.name for s in asset.sensors}


def _anchored(query: str, terms: SearchTerms) -> str:
    """``query`` prefixed with the anchor unless it already names a domain term."""
    low = query.lower()
    return (
        query
        if any(t in low for t in (*terms.anchor_terms, terms.anchor))
        else f"{terms.anchor} {query}"
    )


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(" ".join(q.split()) for q in items if q.strip()))


def _applies(t: QueryTemplate, sources: set[str], names: set[str]) -> bool:
    if t.when_sources and not sources & set(t.when_sources):
        return False
    if t.unless_sources and sources & set(t.unless_sources):
        return False
    return not (t.when_sensors and not names & set(t.when_sensors))


def _failure_mode_queries(asset: AssetClass, terms: SearchTerms) -> list[str]:
    """One query per code family (so three thermal classes do not crowd out the rest), and
    one per other failure mode, by name."""
    a = terms.anchor
    out: list[str] = []
    seen: set[str] = set()
    codes = terms.code_queries
    prefixes = sorted(codes.families, key=len, reverse=True) if codes else []
    for fm in asset.failure_modes:
        code = failure_mode_code(fm, codes.scheme) if codes else None
        family = next((p for p in prefixes if code and code.startswith(p)), None)
        if codes is not None and family is not None:
            if family not in seen:
                seen.add(family)
                out.append(f"{a} {codes.families[family]}")
            continue
        # "(< 300 °C)" and similar asides only add noise to a keyword search.
        name = re.sub(r"\(.*?\)", " ", fm.name.lower())
        out.append(f"{a} {name}")
    return out[:MAX_FAILURE_MODE_QUERIES]


def expand_queries(asset: AssetClass, inventory: Holdings | None) -> dict[str, list[str]]:
    """Queries per evidence category (every category present, each list non-empty).

    Args:
        asset: The asset class definition (failure modes, sensors, standards); its search
            vocabulary (templates, anchor) is read from its literature.yaml.
        inventory: What the store holds; ``None`` falls back to the definition's sensors.
    """
    terms = search_terms(asset)
    a = terms.anchor
    sources = _sources(asset, inventory)
    names = _sensor_names(asset, inventory)
    q: dict[str, list[str]] = {c: [] for c in EVIDENCE_CATEGORIES}
    for category, templates in terms.queries.items():
        q[category] += [t.text.format(anchor=a) for t in templates if _applies(t, sources, names)]
    q["failure_modes"] += _failure_mode_queries(asset, terms)
    q["failure_modes"] = q["failure_modes"][:MAX_FAILURE_MODE_QUERIES]
    for std in asset.standards[:MAX_STANDARD_QUERIES]:
        title = " ".join(std.title.split()[:10])
        q["standards"].append(_anchored(f"{std.id} {title}", terms))
    for name, qs in q.items():
        if not qs:
            qs.append(_FALLBACK[name].format(anchor=a))
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
    asset: AssetClass, inventory: Holdings | None, client: JsonLLM
) -> tuple[dict[str, list[str]], str | None]:
    """The deterministic queries plus up to two LLM queries per category.

    Returns:
        ``(queries, problem)``: ``problem`` is None on success, else a one-line reason
        (the deterministic queries are returned unchanged).
    """
    base = expand_queries(asset, inventory)
    terms = search_terms(asset)
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
        out[item.category].append(_anchored(text, terms))
        added[item.category] += 1
    return {c: _dedupe(v) for c, v in out.items()}, None
