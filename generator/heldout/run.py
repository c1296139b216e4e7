"""One held-out run: private fleet, gated draws, split output, leak scan.

Per family ``f`` and instance index ``i`` the draw's generator comes from the 256-bit
``HMAC(secret, "instance", f, i)`` (the family context's run seed is set to it before the
draw, so :func:`generator.generate.draw.families.rng_for` derives the stream from it). A slot
takes indices until an instance passes the gate (:mod:`generator.heldout.gate`), at most
``max_attempts`` of them; each rejected index is counted by reason.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.config import StoreSettings, store_settings
from generator.generate.draw.families import (
    FamilyContext,
    FamilySpec,
    draw_seed,
    families_of,
    params_key,
)
from generator.generate.model import TaskSeed
from generator.heldout import split
from generator.heldout.fleet import SIZES, fleet_spec, seed_private_fleet
from generator.heldout.gate import GateRecord, run_gate
from generator.heldout.leakscan import LeakReport
from generator.heldout.secret import Secret

# Families whose instances do not depend on the private data: their answers follow from the
# public asset definition or tool catalogue, so a held-out copy hides nothing.
EXCLUDED: dict[str, str] = {
    "fmsr_sensor_failure_modes": "answer follows from the public asset.yaml (sensor → failure "
    "mode map), not from the private fleet",
    "tsfm_methods": "answer is the public tool catalogue, not private data",
    "iot_fleet_overview": "one instance per fleet whose answer (sites, units per site) takes "
    "few values: `heldout validate --variants 8` found 5 distinct instances in 8 fleets, so "
    "nights would repeat it",
}
MAX_ATTEMPTS = 24


def _default_asset_class() -> str:
    from generator.assetdef import default_asset_class

    return default_asset_class()


class HeldoutConfig(BaseModel):
    """Options of one held-out run (no secret here: it is passed separately)."""

    model_config = ConfigDict(extra="forbid")

    asset_class: str = Field(
        default_factory=_default_asset_class,
        description="Asset class (default: the class asset.yaml marks `default: true`)",
    )
    n: int = Field(default=40, ge=1, le=2000, description="Instances wanted")
    out: Path = Field(description="Output folder (public/ and private/ inside)")
    size: str = Field(default="default", description="Private fleet size preset")
    max_attempts: int = Field(default=MAX_ATTEMPTS, ge=1, le=500,
                              description="Draw indices a slot may try (redraw budget)")
    night: date | None = Field(default=None, description="Night whose key derives the set")
    per_family: int | None = Field(
        default=None, ge=1, description="Instances per family instead of n split over them"
    )


class FamilyStats(BaseModel):
    """Gate statistics of one family (public aggregate)."""

    model_config = ConfigDict(extra="forbid")

    requested: int = Field(description="Instances asked of the family")
    accepted: int = Field(description="Instances that passed the gate")
    attempts: int = Field(description="Draw indices tried")
    redraws: int = Field(description="Attempts beyond one per accepted instance")
    exhausted: int = Field(description="Slots that ran out of redraw budget")
    saturated: bool = Field(
        default=False,
        description="The fleet held no further distinct instance (its slots went to others)",
    )
    unsupported: bool = Field(
        default=False,
        description="Every draw of a slot was unusable on this fleet and none was ever accepted "
        "(e.g. a cooling plant in winter has no hour at the load the family asks about): its "
        "slots went to others",
    )
    rejections: dict[str, int] = Field(default_factory=dict, description="Per reason")
    decoys: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="Decoy kind → outcome → count, accepted instances"
    )
    max_decoy_score: float | None = Field(default=None, description="Best decoy score seen")


class Instance(BaseModel):
    """One accepted instance (private)."""

    model_config = ConfigDict(extra="forbid")

    record: dict[str, Any] = Field(description="Graded scenario record, with the reference")
    seed: dict[str, Any] = Field(description="The task seed (parameters, calls, answer)")
    gate: GateRecord = Field(description="The gate's record")
    fingerprint: str = Field(description="Keyed fingerprint of (family, params, answer)")
    identity: str = Field(description="Unkeyed sha256 of (family, params, answer)")


class RunResult(BaseModel):
    """What a run produced (the CLI prints aggregates of it)."""

    model_config = ConfigDict(extra="forbid")

    instances: list[Instance] = Field(description="Accepted instances")
    stats: dict[str, FamilyStats] = Field(description="Per family")
    excluded: dict[str, str] = Field(description="Families left out, with the reason")
    fleet: dict[str, Any] = Field(description="Private fleet spec and counts (private)")
    leak: LeakReport | None = Field(default=None, description="Leak scan (None before it)")
    seconds: float = Field(description="Wall time")
    wanted: int = Field(default=0, description="Instances asked of the run")

    @property
    def shortfall(self) -> bool:
        """True when fewer instances were accepted than requested (by a family, or in all:
        slots handed on by saturated or unsupported families found no other family)."""
        return (any(s.accepted < s.requested for s in self.stats.values())
                or len(self.instances) < self.wanted)


def _canonical(seed: TaskSeed) -> str:
    return json.dumps({"family": seed.family, "params": seed.params, "answer": seed.answer},
                      sort_keys=True, default=str)


def instance_identity(seed: TaskSeed) -> str:
    """Unkeyed identity of an instance: the same question with the same answer."""
    import hashlib

    return hashlib.sha256(_canonical(seed).encode()).hexdigest()


def quotas(families: list[FamilySpec], n: int) -> dict[str, int]:
    """``n`` split over the families in name order, as evenly as possible."""
    names = sorted(f.name for f in families)
    base, extra = divmod(n, len(names))
    return {name: base + (1 if i < extra else 0) for i, name in enumerate(names)}


def eligible_families(asset: Any, profile: Any) -> list[FamilySpec]:
    """The asset's families of supported domains, minus :data:`EXCLUDED`."""
    supported = {d.domain for d in profile.supported_domains}
    return [f for f in families_of(asset) if f.name not in EXCLUDED
            and (f.domain in supported or f.domain == "multiagent")]


class HeldoutRun:
    """Generate one held-out set from a secret."""

    def __init__(self, config: HeldoutConfig, secret: Secret, *,
                 master: Secret | None = None, settings: StoreSettings | None = None,
                 exclude: set[str] | None = None) -> None:
        self.config = config
        self.secret = secret.night(config.night) if config.night else secret
        self.master = master or secret  # fingerprints stay comparable across nights
        self.settings = settings or store_settings()
        self.exclude = exclude or set()

    async def generate(self) -> RunResult:
        """Seed the private fleet, draw and gate, and write the split output."""
        from generator.assetdef import load_asset_class
        from generator.generate.verbalise.verbalise_template import TemplateVerbaliser
        from generator.profile.build import build_profile
        from generator.tools.registry import ToolContext, load_tools

        t0 = time.perf_counter()
        cfg = self.config
        asset = load_asset_class(cfg.asset_class)
        priv, report = seed_private_fleet(asset, self.settings, self.secret, SIZES[cfg.size])
        profile = await build_profile(cfg.asset_class, settings=priv, use_cache=False)
        load_tools()
        ctx = FamilyContext(profile, ToolContext(asset, priv), 0)
        asset_ids = tuple(a.asset_id for a in ctx.assets)
        verbaliser = TemplateVerbaliser(self.secret.key("verbaliser"), cfg.asset_class)
        families = eligible_families(asset, profile)
        want = ({f.name: cfg.per_family for f in families} if cfg.per_family
                else quotas(families, cfg.n))
        instances: list[Instance] = []
        stats = {name: FamilyStats(requested=0, accepted=0, attempts=0, redraws=0, exhausted=0)
                 for name in want}
        next_index = dict.fromkeys(want, 0)
        by_name = {f.name: f for f in families}
        pending = dict(want)
        while any(pending.values()):
            freed = 0
            for name in sorted(pending):
                if pending[name]:
                    freed += await self._family(by_name[name], pending[name], ctx, verbaliser,
                                                asset_ids, instances, stats[name], next_index)
            # a family whose instances ran out (every draw a repeat) hands its slots on
            open_families = [n for n in sorted(want)
                             if not (stats[n].saturated or stats[n].unsupported)]
            pending = dict.fromkeys(want, 0)
            for k in range(freed if open_families else 0):
                pending[open_families[k % len(open_families)]] += 1
        spec_doc = fleet_spec(asset, self.secret, SIZES[cfg.size]).model_dump(mode="json")
        fleet = {"spec": spec_doc, "counts": report.total, "fingerprint": report.fingerprint,
                 "assets": list(asset_ids), "prefix": priv.db_prefix}
        return RunResult(instances=instances, stats=stats, excluded=dict(EXCLUDED), fleet=fleet,
                         seconds=round(time.perf_counter() - t0, 2), wanted=sum(want.values()))

    async def _family(self, spec: FamilySpec, quota: int, ctx: FamilyContext,
                      verbaliser: Any, asset_ids: tuple[str, ...], out: list[Instance],
                      stats: FamilyStats, next_index: dict[str, int]) -> int:
        """Fill ``quota`` slots of a family; returns the slots it gave up as saturated."""
        seen: set[str] = {params_key_of(i) for i in out}
        stats.requested += quota
        freed = 0
        for _slot in range(quota):
            if stats.saturated or stats.unsupported:
                stats.requested -= 1
                freed += 1
                continue
            repeats = 0
            for _try in range(self.config.max_attempts):
                stats.attempts += 1
                index = next_index[spec.name]
                next_index[spec.name] += 1
                reason, inst = await self._attempt(spec, index, ctx, verbaliser, asset_ids, seen)
                if inst is None:
                    stats.rejections[reason] = stats.rejections.get(reason, 0) + 1
                    repeats += reason == "repeat_in_run"
                    continue
                out.append(inst)
                seen.add(params_key_of(inst))
                stats.accepted += 1
                for d in inst.gate.decoys:
                    stats.decoys.setdefault(d.kind, {}).setdefault(d.outcome, 0)
                    stats.decoys[d.kind][d.outcome] += 1
                    if d.score is not None:
                        stats.max_decoy_score = max(stats.max_decoy_score or 0.0, d.score)
                break
            else:
                if stats.accepted and repeats * 2 >= self.config.max_attempts:
                    # the fleet holds no further instance of this family: not a failure
                    stats.saturated = True
                    stats.requested -= 1
                    freed += 1
                elif not stats.accepted and stats.rejections.get("unusable_draw") == stats.attempts:
                    # the fleet cannot support the family at all: not a failure either
                    stats.unsupported = True
                    stats.requested -= 1
                    freed += 1
                else:
                    stats.exhausted += 1
        stats.redraws = stats.attempts - stats.accepted
        return freed

    async def _attempt(self, spec: FamilySpec, index: int, ctx: FamilyContext, verbaliser: Any,
                       asset_ids: tuple[str, ...], seen: set[str]
                       ) -> tuple[str, Instance | None]:
        ctx.run_seed = self.secret.key("instance", spec.name, index)
        before = sum(sum(v.values()) for v in ctx.gate_drops.values())
        seed = await draw_seed(spec, ctx, index)
        if seed is None:
            after = sum(sum(v.values()) for v in ctx.gate_drops.values())
            return ("reading_dependent" if after > before else "unusable_draw"), None
        if params_key(seed) in seen:
            return "repeat_in_run", None
        fp = self.master.hex("instance-fingerprint", _canonical(seed), n=32)
        if fp in self.exclude:
            return "repeat_of_previous_night", None
        draft = verbaliser.verbalise_one(seed)
        sid = "ho-" + self.secret.hex("instance-id", spec.name, index, n=12)
        record = {
            "id": sid, "type": seed.domain, "text": draft.text, "category": seed.category,
            "characteristic_form": split.public_form(draft.characteristic_form,
                                                     seed.answer_summary, seed.answer),
            "deterministic": True, "asset_class": self.config.asset_class,
            "difficulty": seed.difficulty, "expected_tools": seed.expected_tools,
            "reference_answer": seed.answer, "tolerance": seed.tolerance,
            "rel_tolerance": seed.rel_tolerance, "family": seed.family,
            "full_characteristic_form": draft.characteristic_form,
        }
        gate = await run_gate(seed, record, ctx, asset_ids)
        if not gate.accepted:
            return f"gate:{gate.reason}", None
        return "accepted", Instance(record=record, seed=seed.model_dump(mode="json"), gate=gate,
                                    fingerprint=fp, identity=instance_identity(seed))


def params_key_of(inst: Instance) -> str:
    """The in-run task identity of an accepted instance (family and parameters)."""
    return str(inst.seed["family"]) + json.dumps(inst.seed["params"], sort_keys=True,
                                                 default=str)


def gate_totals(result: RunResult) -> dict[str, Any]:
    """Aggregate gate statistics (public)."""
    scored = [d for i in result.instances for d in i.gate.decoys if d.outcome == "scored"]
    return {
        "accepted": len(result.instances),
        "attempts": sum(s.attempts for s in result.stats.values()),
        "redraws": sum(s.redraws for s in result.stats.values()),
        "exhausted_slots": sum(s.exhausted for s in result.stats.values()),
        "reference_scores_1": sum(
            1 for i in result.instances if i.gate.steps[0].ok),
        "decoys_scored": len(scored),
        "decoys_below_1": sum(1 for d in scored if (d.score or 0.0) < 1.0),
        "decoys_inert": sum(1 for i in result.instances for d in i.gate.decoys
                            if d.outcome == "inert"),
    }


def write_run(result: RunResult, config: HeldoutConfig, secret: Secret) -> None:
    """Write the split output: public texts and aggregates, private everything else."""
    root = config.out
    public = [split.public_record(i.record) for i in result.instances]
    split.write_public(root, "scenarios.json", public)
    manifest = {
        "status": "complete",
        "asset_class": config.asset_class,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "secret_id": secret.public_id,
        "night": config.night.isoformat() if config.night else None,
        "requested": config.n,
        "fleet_size": config.size,
        "max_attempts": config.max_attempts,
        "gate": gate_totals(result),
        "families": {k: v.model_dump() for k, v in result.stats.items()},
        "excluded_families": result.excluded,
        "seconds": result.seconds,
    }
    split.write_public(root, "manifest.json", manifest)
    split.write_private(root, "instances.json", [i.model_dump(mode="json")
                                                 for i in result.instances])
    split.write_private(root, "fleet.json", result.fleet)
    split.write_private(root, "fingerprints.json", sorted(i.fingerprint
                                                          for i in result.instances))


class ExitCodes:
    """Exit codes of the held-out commands (documented in docs/heldout.md)."""

    OK = 0
    USER_ERROR = 2
    SHORTFALL = 3  # some family fell short of its quota (redraw budget exhausted)
    LEAK = 6  # the leak scan found a secret, an answer value or a private asset id
    REPEAT = 5  # nightly: an instance of a previous night came back


def summary_lines(result: RunResult) -> list[str]:
    """Aggregate lines for the console and the public log (no instance detail)."""
    totals = gate_totals(result)
    lines = [
        f"held-out set: {totals['accepted']} instances accepted of {totals['attempts']} draws "
        f"({totals['redraws']} redraws, {totals['exhausted_slots']} exhausted slots) "
        f"in {result.seconds:.1f} s",
        f"gate: references scoring 1.0: {totals['reference_scores_1']}/{totals['accepted']}; "
        f"decoys below 1: {totals['decoys_below_1']}/{totals['decoys_scored']} "
        f"({totals['decoys_inert']} inert)",
    ]
    short = [f"{k} {v.accepted}/{v.requested}" for k, v in result.stats.items()
             if v.accepted < v.requested]
    if short:
        lines.append("shortfall: " + ", ".join(short))
    if len(result.instances) < result.wanted and not short:
        lines.append(f"shortfall: {len(result.instances)}/{result.wanted} instances (no family "
                     "left to take the slots of saturated or unsupported families)")
    unsupported = [k for k, v in result.stats.items() if v.unsupported]
    if unsupported:
        lines.append("not supported by this fleet (no usable draw; slots went to other "
                     "families): " + ", ".join(unsupported))
    return lines


async def execute(config: HeldoutConfig, secret: Secret, *,
                  settings: StoreSettings | None = None, exclude: set[str] | None = None,
                  extra_logs: tuple[Path, ...] = ()) -> tuple[RunResult, int]:
    """Generate, write, log aggregates, leak-scan; the result and the exit code."""
    from generator.heldout.leakscan import scan_run

    run = HeldoutRun(config, secret, settings=settings, exclude=exclude)
    result = await run.generate()
    write_run(result, config, secret)
    log_path = split.public_dir(config.out) / "heldout.log"
    with log_path.open("a", encoding="utf-8") as fh:
        for line in summary_lines(result):
            fh.write(f"{datetime.now(UTC).isoformat(timespec='seconds')} {line}\n")
    secrets = [secret.reveal, run.secret.reveal]
    result.leak = scan_run(config.out, secrets, extra_logs)
    code = ExitCodes.OK
    if not result.leak.clean:
        code = ExitCodes.LEAK
    elif result.shortfall:
        code = ExitCodes.SHORTFALL
    manifest_path = split.public_dir(config.out) / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["leak_scan"] = result.leak.model_dump()
    manifest["status"] = {ExitCodes.OK: "complete", ExitCodes.LEAK: "leak",
                          ExitCodes.SHORTFALL: "shortfall"}[code]
    split.write_public(config.out, "manifest.json", manifest)
    return result, code
