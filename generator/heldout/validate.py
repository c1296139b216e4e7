"""``heldout validate --variants V``: can every family make fair held-out instances?

Each variant is a secret derived from the given one (``HMAC(secret, "variant", v)``), so it
simulates its own private fleet; every eligible family draws one instance per variant through
the acceptance gate. Per family: acceptance rate (accepted / draws), redraws, exhausted redraw
budgets, distinct instances (by the unkeyed identity of family, parameters and answer) and the
parameter spread (distinct values per parameter). A family passes when every variant accepted
an instance, no budget ran out and all instances differ; otherwise it is listed with the
reason. Variant fleets are dropped afterwards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator.config import StoreSettings, store_settings
from generator.heldout.fleet import drop_private_fleet
from generator.heldout.run import EXCLUDED, HeldoutConfig, HeldoutRun
from generator.heldout.secret import Secret


class FamilyValidation(BaseModel):
    """One family over the variants."""

    model_config = ConfigDict(extra="forbid")

    passed: bool = Field(description="True when the family meets every criterion")
    reason: str | None = Field(default=None, description="Why not, when it does not")
    accepted: int = Field(description="Variants that accepted an instance")
    attempts: int = Field(description="Draws over the variants")
    acceptance_rate: float = Field(description="accepted / attempts")
    redraws: int = Field(description="attempts - accepted")
    exhausted: int = Field(description="Slots whose redraw budget ran out")
    distinct: int = Field(description="Distinct instances among the accepted")
    spread: dict[str, int] = Field(description="Distinct values per parameter")
    rejections: dict[str, int] = Field(description="Rejections per reason")


class ValidationReport(BaseModel):
    """``heldout validate`` output (aggregates only)."""

    model_config = ConfigDict(extra="forbid")

    variants: int = Field(description="Variants (private fleets) drawn")
    families: dict[str, FamilyValidation] = Field(description="Per eligible family")
    excluded: dict[str, str] = Field(description="Families left out of held-out sets, why")
    seconds: float = Field(description="Wall time")

    @property
    def passed(self) -> bool:
        """True when every eligible family passed."""
        return all(f.passed for f in self.families.values())


@dataclass
class _Tally:
    accepted: int = 0
    attempts: int = 0
    exhausted: int = 0
    ids: set[str] = field(default_factory=set)
    params: dict[str, set[str]] = field(default_factory=dict)
    rejections: dict[str, int] = field(default_factory=dict)


def _verdict(t: _Tally, variants: int) -> FamilyValidation:
    reason = None
    if t.accepted < variants:
        reason = f"accepted in {t.accepted} of {variants} variants"
    elif t.exhausted:
        reason = f"redraw budget exhausted {t.exhausted} times"
    elif len(t.ids) < t.accepted:
        reason = f"only {len(t.ids)} distinct instances of {t.accepted}"
    if reason and t.rejections:
        top = max(t.rejections.items(), key=lambda kv: kv[1])
        reason += f" (most rejections: {top[0]} ×{top[1]})"
    return FamilyValidation(
        passed=reason is None, reason=reason, accepted=t.accepted, attempts=t.attempts,
        acceptance_rate=round(t.accepted / t.attempts, 4) if t.attempts else 0.0,
        redraws=t.attempts - t.accepted, exhausted=t.exhausted, distinct=len(t.ids),
        spread={k: len(v) for k, v in sorted(t.params.items())}, rejections=dict(t.rejections),
    )


def variant_secret(secret: Secret, v: int) -> Secret:
    """The secret of variant ``v``."""
    return Secret(secret.digest("variant", v).hex().encode())


async def validate(secret: Secret, *, asset_class: str, variants: int = 8,
                   size: str = "default", max_attempts: int = 24,
                   settings: StoreSettings | None = None, workdir: Path) -> ValidationReport:
    """Draw one gated instance per family in each of ``variants`` private fleets."""
    import time

    from generator.assetdef import load_asset_class

    t0 = time.perf_counter()
    settings = settings or store_settings()
    asset = load_asset_class(asset_class)
    per: dict[str, _Tally] = {}
    for v in range(variants):
        sv = variant_secret(secret, v)
        cfg = HeldoutConfig(asset_class=asset_class, out=workdir / f"variant-{v}", size=size,
                            max_attempts=max_attempts, per_family=1)
        try:
            result = await HeldoutRun(cfg, sv, settings=settings).generate()
        finally:
            drop_private_fleet(asset, settings, sv)
        for name, st in result.stats.items():
            tally = per.setdefault(name, _Tally())
            tally.accepted += st.accepted
            tally.attempts += st.attempts
            tally.exhausted += st.exhausted
            for k, n in st.rejections.items():
                tally.rejections[k] = tally.rejections.get(k, 0) + n
        for inst in result.instances:
            tally = per[str(inst.seed["family"])]
            tally.ids.add(inst.identity)
            for k, val in inst.seed["params"].items():
                tally.params.setdefault(k, set()).add(json.dumps(val, sort_keys=True, default=str))
    families = {name: _verdict(t, variants) for name, t in sorted(per.items())}
    return ValidationReport(variants=variants, families=families, excluded=dict(EXCLUDED),
                            seconds=round(time.perf_counter() - t0, 1))
