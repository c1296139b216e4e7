"""The generation run's configuration and summary (serialisable, so a run can be mapped
over workers and resumed from its manifest)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.generate.model import GENERATOR_VERSION
from generator.redact import redact_url

# Options that change what a run generates: recorded in the manifest and compared on resume.
# Left out: the seed (compared through its keyed fingerprint), where the run is written
# (out_dir, run_id) and how fast it goes (concurrency, threads, draw_workers).
OUTPUT_OPTIONS: tuple[str, ...] = (
    "asset_class",
    "n",
    "llm",
    "base_url",
    "negatives",
    "budget",
    "multiagent_cap",
    "baseline",
    "retriever",
    "against",
    "dedup_threshold",
    "open_share",
    "candidates_per_slot",
    "batch_size",
    "max_repairs",
)


def option_flag(name: str) -> str:
    """How the CLI spells option ``name`` (``max_repairs`` -> ``--max-repairs``)."""
    if name == "asset_class":
        return "the ASSET argument"
    if name == "n":
        return "-n"
    if name == "against_sha256":
        return "the content of the --against file"
    if name in ("dedup_threshold", "open_share", "candidates_per_slot"):
        return f"config {name}"
    return "--" + name.replace("_", "-")


def _file_digest(path: str) -> str | None:
    from generator.errors import UserError
    from generator.safeparse import FILE
    from generator.userfile import read_bytes

    try:
        return hashlib.sha256(read_bytes(path, "--against file", max_bytes=FILE.max_bytes)
                              ).hexdigest()
    except UserError:
        return None


def _default_asset_class() -> str:
    from generator.assetdef import default_asset_class

    return default_asset_class()


class GenerateConfig(BaseModel):
    """Everything that decides what a run generates (plus how fast it goes)."""

    model_config = ConfigDict(extra="forbid")

    asset_class: str = Field(
        default_factory=_default_asset_class,
        description="Asset class to generate for (default: the class asset.yaml marks "
        "`default: true`)",
    )
    n: int = Field(default=50, ge=1, le=100_000, description="Accepted scenarios wanted (N)")
    llm: str = Field(default="none", description="LLM spec: none, smollm2, openai:M, ollama:M")
    base_url: str | None = Field(default=None, description="OpenAI-compatible server URL")
    negatives: int = Field(default=2, ge=0, description="Negative scenarios (not counted in N)")
    operate: int = Field(
        default=0, ge=0, le=100_000,
        description="Operate scenarios (not counted in N), written to operate_scenarios.json",
    )
    seed: int = Field(default=0, description="Run seed (recorded only as a fingerprint)")
    out_dir: str = Field(default="scenarios", description="Parent folder of run folders")
    run_id: str | None = Field(default=None, description="Run folder name (default: generated)")
    concurrency: int = Field(default=3, ge=1, description="Domains generated in parallel")
    threads: int = Field(default=4, ge=1, description="Thread pool for blocking calls")
    draw_workers: int | None = Field(
        default=None,
        ge=0,
        description="Processes drawing ahead of the run (default 0: the run draws "
        "in-process, which measured faster as a whole command on 2 cores)",
    )
    batch_size: int = Field(default=10, ge=1, description="Seeds per verbalisation call")
    max_repairs: int = Field(default=3, ge=0, description="Repair attempts per candidate (R)")
    budget: dict[str, int] | None = Field(default=None, description="Manual budget override")
    multiagent_cap: float = Field(
        default=0.75, gt=0, le=1, description="Largest share of N for multi-agent scenarios"
    )
    baseline: bool = Field(
        default=False,
        description="Unoptimised path: sequential domains, no cache, one seed per call, "
        "no early rejection",
    )
    retriever: str = Field(default="local", description="Literature retriever for the profile")
    against: str | None = Field(
        default=None, description="Earlier scenario file: near-duplicates of it are rejected"
    )
    dedup_threshold: float = Field(
        default=0.9, gt=0, le=1, description="Text similarity at which scenarios are duplicates"
    )
    open_share: float = Field(
        default=0.1, ge=0, le=0.5, description="Share of each domain for open LLM scenarios"
    )
    candidates_per_slot: int = Field(
        default=8, ge=1, description="Candidates tried per requested scenario before a shortfall"
    )

    def public(self) -> dict[str, Any]:
        """The config as the manifest records it: the run seed is left out and a password
        in ``base_url`` is masked."""
        data = self.model_dump(exclude={"seed"})
        if self.base_url:
            data["base_url"] = redact_url(self.base_url)
        return data

    def output_options(self) -> dict[str, Any]:
        """The options that change the output (:data:`OUTPUT_OPTIONS`), as the manifest
        records them (URL redacted), plus the content digest of the ``--against`` file."""
        data = self.public()
        out = {name: data[name] for name in OUTPUT_OPTIONS}
        if self.operate:  # only when asked for: runs without operate keep their digests
            out["operate"] = self.operate
        out["against_sha256"] = _file_digest(self.against) if self.against else None
        return out

    def options_digest(self, seed_fingerprint: str) -> str:
        """sha256 over :meth:`output_options`, the seed's keyed fingerprint and the generator
        version (a run folder started by another version would mix draws): equal digests,
        same run."""
        payload = json.dumps(
            {"options": self.output_options(), "seed": seed_fingerprint,
             "generator": GENERATOR_VERSION},
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()


class Shortfall(BaseModel):
    """A domain that ended with fewer scenarios than budgeted."""

    model_config = ConfigDict(extra="forbid")

    domain: str = Field(description="Domain")
    requested: int = Field(description="Budgeted scenarios")
    accepted: int = Field(description="Scenarios accepted")
    reason: str = Field(description="Why it fell short")


class RunSummary(BaseModel):
    """What a run produced; the CLI prints it and picks the exit code from it."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(description="Run folder name")
    path: str = Field(description="Run folder")
    requested: int = Field(description="N")
    accepted: dict[str, int] = Field(description="Accepted scenarios per domain")
    budget: dict[str, int] = Field(description="Budget per domain")
    negatives: int = Field(description="Negative scenarios written")
    operate: int = Field(default=0, description="Operate scenarios written")
    rejected: int = Field(description="Lines in rejected.jsonl")
    shortfalls: list[Shortfall] = Field(description="Domains that fell short")
    timings: dict[str, float] = Field(description="Seconds per phase")
    tokens: dict[str, dict[str, int]] = Field(description="LLM tokens per stage")

    @property
    def total(self) -> int:
        """Accepted scenarios over all domains."""
        return sum(self.accepted.values())
