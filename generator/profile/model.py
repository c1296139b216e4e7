"""The asset profile: what scenarios can be about, grounded in the store and the literature.

Everything under ``inventory``, ``failure_modes`` and the domain lists comes from the
store and the tool registry through code, never from an LLM or retrieved text.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# Evidence items and their categories are the literature stage's contracts (defined there so
# that the literature package imports nothing of the profile).
from generator.literature.model import (
    EVIDENCE_CATEGORIES,
    Citation,
    EvidenceCategory,
    EvidenceItem,
    Reference,
)
from generator.store.query import TimeRange

PROFILE_SCHEMA_VERSION = 2

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SensorCoverage(_Strict):
    """A sensor present in the store."""

    name: str = Field(description="Field name in the stored documents")
    unit: str = Field(description="Engineering unit (from the asset definition)")
    source: str = Field(description="Where its readings live (a key of asset.yaml `sources`)")
    description: str = Field(description="What it measures")


class GroundedAsset(_Strict):
    """One asset instance found in the store."""

    asset_id: str = Field(description="Asset id")
    site_name: str = Field(description="Site")
    nameplate: dict[str, Any] = Field(
        default_factory=dict,
        description="The nameplate fields the class declares (asset.yaml `nameplate_fields`) "
        "that this asset's nameplate records",
    )
    sensors: list[str] = Field(description="Telemetry sensors present for this asset")
    coverage: dict[str, TimeRange] = Field(
        description="Coverage per sensor source (keys of asset.yaml `sources`); telemetry's "
        "count is left None (counting every reading is costly), other sources are counted"
    )
    work_orders: int = Field(description="Number of work orders")
    enough_history: bool = Field(
        default=False,
        description="At least 48 hourly telemetry readings (what tsfm tasks need), checked "
        "in the store",
    )

    def covered(self, source: str) -> TimeRange:
        """Coverage of ``source``; an empty range when the asset has none."""
        return self.coverage.get(source) or TimeRange(start=None, end=None)

    @property
    def telemetry(self) -> TimeRange:
        """Telemetry coverage (``coverage["telemetry"]``)."""
        return self.covered("telemetry")


class GroundedInventory(_Strict):
    """The store's holdings for the asset class, read through the query layer."""

    sites: list[str] = Field(description="Sites, sorted")
    assets: list[GroundedAsset] = Field(description="Assets, sorted by id")
    sensors: list[SensorCoverage] = Field(
        description="Sensors present in the store (telemetry keys and the declared fields of "
        "the other sources' records)"
    )
    coverage: dict[str, TimeRange] = Field(
        description="Per sensor source: earliest start and latest end over all assets"
    )
    work_orders: int = Field(description="Work orders over all assets")
    fingerprint: str = Field(
        description="sha256 of the inventory content; changes when the store's holdings change"
    )

    def covered(self, source: str) -> TimeRange:
        """Coverage of ``source`` over all assets; an empty range when none."""
        return self.coverage.get(source) or TimeRange(start=None, end=None)

    @property
    def telemetry(self) -> TimeRange:
        """Telemetry coverage over all assets (``coverage["telemetry"]``)."""
        return self.covered("telemetry")


class FailureModeProfile(_Strict):
    """A failure mode with what reveals it and whether the store can show it."""

    id: str = Field(description="Failure mode id from the asset definition")
    name: str = Field(description="Human name")
    failure_code: str = Field(description="Work-order failure code")
    codes: dict[str, str] = Field(
        default_factory=dict,
        description="Classification codes by scheme from the asset definition (may be empty)",
    )
    sensors: list[str] = Field(description="Non-gas sensors that reveal it")
    gases: list[str] = Field(description="Dissolved gases that reveal it")
    observable: bool = Field(description="True when every revealing sensor/gas is in the store")


class DomainSupport(_Strict):
    """Whether a scenario domain is supported, with its tools and the reason."""

    domain: str = Field(description="iot, fmsr, tsfm, wo, vibration or multiagent")
    supported: bool = Field(description="True when scenarios of this domain can be answered")
    tools: list[str] = Field(description="Registered tools of the domain for this asset class")
    reason: str = Field(description="Why the domain is (not) supported, citing the data")


class TaskTheme(_Strict):
    """A kind of task an operator or a manager asks about."""

    role: Literal["operator", "manager"] = Field(description="Who asks")
    theme: str = Field(description="The task theme in a few words")
    domains: list[str] = Field(description="Supported domains the theme draws on")


class StandardRef(_Strict):
    """A standard the tools follow."""

    id: str = Field(description="Designation, e.g. IEC 60599")
    edition: str = Field(description="Edition implemented")
    title: str = Field(description="Full title")


class ProfileProvenance(_Strict):
    """How the profile was made: inputs, fallbacks, timings."""

    created_at: str = Field(description="UTC time of the build (ISO 8601)")
    generator_version: str = Field(description="scenariogen version")
    schema_version: int = Field(default=PROFILE_SCHEMA_VERSION, description="Profile schema")
    retriever: str = Field(description="Retriever asked for")
    retrievers_used: list[str] = Field(description="Retrievers that actually answered")
    llm: str = Field(description="LLM spec used for expansion/digests/merge, or 'none'")
    prompt_version: str = Field(description="Version of the profiling prompts")
    cache_key: str = Field(description="Key of the profile in the two-level cache")
    store_url: str = Field(description="Store the inventory was read from (no credentials)")
    fallbacks: list[str] = Field(
        default_factory=list, description="What failed and what replaced it (arXiv 429 → local)"
    )
    timings: dict[str, float] = Field(
        default_factory=dict,
        description="Seconds per phase: tools, discovery, retrieval, digests, merge, total",
    )
    queries: list[str] = Field(default_factory=list, description="Literature queries issued")
    tokens: dict[str, int] = Field(default_factory=dict, description="LLM tokens per phase")


class AssetProfile(_Strict):
    """Stage-1 output: the contract the budget and the generator read."""

    asset_class: str = Field(description="Asset class slug")
    display_name: str = Field(description="Human name")
    description: str = Field(description="What the class covers")
    generation_mode: Literal["open_form", "closed_form"] = Field(
        description="open_form when live instances exist in the store, else closed_form"
    )
    inventory: GroundedInventory = Field(description="Grounded from the store")
    failure_modes: list[FailureModeProfile] = Field(description="Failure modes and revealers")
    supported_domains: list[DomainSupport] = Field(description="Domains with tools and data")
    unsupported_domains: list[DomainSupport] = Field(description="Domains that cannot be served")
    task_themes: list[TaskTheme] = Field(description="Operator and manager task themes")
    standards: list[StandardRef] = Field(description="Standards the tools follow")
    evidence: list[EvidenceItem] = Field(description="Evidence brief; every item cited")
    references: list[Reference] = Field(description="Every record the evidence cites")
    provenance: ProfileProvenance = Field(description="How the profile was made")

    @model_validator(mode="after")
    def _citations_resolve(self) -> AssetProfile:
        # The evidence brief is only as good as its citations: each must name a record here.
        known = {r.ref_id for r in self.references}
        dangling = sorted({e.citation.ref_id for e in self.evidence} - known)
        if dangling:
            raise ValueError(f"evidence cites records missing from references: {dangling}")
        return self

    def domain(self, name: str) -> DomainSupport | None:
        """The support record of a domain, if listed."""
        for d in (*self.supported_domains, *self.unsupported_domains):
            if d.domain == name:
                return d
        return None

    @property
    def supported(self) -> list[str]:
        """Names of the supported domains."""
        return [d.domain for d in self.supported_domains]


__all__ = [
    "EVIDENCE_CATEGORIES",
    "PROFILE_SCHEMA_VERSION",
    "AssetProfile",
    "Citation",
    "DomainSupport",
    "EvidenceCategory",
    "EvidenceItem",
    "FailureModeProfile",
    "GroundedAsset",
    "GroundedInventory",
    "ProfileProvenance",
    "SensorCoverage",
    "StandardRef",
    "TaskTheme",
]
