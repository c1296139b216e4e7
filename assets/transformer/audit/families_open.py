"""Re-derivations of the transformer's open (rubric-graded) families: their computed facts.

Only the facts are re-derived (the method classes, the worst class, the health band, the
work-order facts); the tool's recommended-action wording and the plan's step labels are
the generator's own conventions and stay unverified keys.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from assets.transformer.audit import standards
from assets.transformer.audit.common import asset_work_orders, is_preventive, sample_gases
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    Reading,
    audits,
    day_of,
    parse,
)

# Severity of the IEC 60599 classes (most severe first), as the family documents it.
SEVERITY = ("D2", "T3", "D1", "T2", "DT", "T1", "PD")
# The tool's spellings of "no class": Rogers' UD is "undetermined"; Duval's NA likewise.
_SPELLING = {"iec": {"UD": "ND"}, "rogers": {"UD": "undetermined"},
             "duval": {"UD": "undetermined"}}


def _classes(gases: dict[str, float | None]) -> dict[str, str]:
    raw = standards.method_classes(gases)
    return {m: _SPELLING[m].get(c, c) for m, c in raw.items()}


@audits("open_dga_disagreement")
def open_dga_disagreement(ctx: AuditContext, case: Case) -> Derivation:
    """Each method's class on the sample, and the most severe of them."""
    hits = [s for s in ctx.raw.oil(case.p("asset_id"))
            if day_of(s["timestamp"]) == case.p("sample_day")]
    if len(hits) != 1:
        raise NoSingleAnswer(f"{len(hits)} samples on {case.p('sample_day')}")
    methods = _classes(sample_gases(hits[0]))
    worst = next((c for c in SEVERITY if c in methods.values()), None)
    return Derivation([Reading("primary", {
        "asset_id": case.p("asset_id"),
        "sample_timestamp": str(hits[0]["timestamp"])[:19],
        "methods": methods,
        "worst_class": worst,
    })])


@audits("open_outage_bundle")
def open_outage_bundle(ctx: AuditContext, case: Case) -> Derivation:
    """Corrective orders of the 30 days before the as-of date; the monthly inspection due."""
    as_of = parse(case.p("as_of")).date()
    start = as_of + timedelta(days=int(case.p("lead_days")))
    end = start + timedelta(days=2)
    before = [o for o in asset_work_orders(ctx, case.p("asset_id"))
              if parse(str(o["reported_date"])).date() < as_of]
    pm = [parse(str(o["reported_date"])).date() for o in before if is_preventive(o)]
    if not pm:
        raise NoSingleAnswer("no inspection before the as-of date")
    due = max(pm) + timedelta(days=30)
    recent = [o for o in before if not is_preventive(o)
              and (as_of - parse(str(o["reported_date"])).date()).days <= 30]
    return Derivation([Reading("primary", {
        "asset_id": case.p("asset_id"),
        "outage_start": start.isoformat(),
        "outage_end": end.isoformat(),
        "last_inspection": max(pm).isoformat(),
        "inspection_due": due.isoformat(),
        "bundle_inspection": due <= end + timedelta(days=15),
        "corrective_ids": [str(o["wo_id"]) for o in recent],
        "corrective_codes": sorted({str(o["primary_code"]) for o in recent}),
    })])


@audits("ma_open_maintenance_plan")
def ma_open_maintenance_plan(ctx: AuditContext, case: Case) -> Derivation:
    """DGA class and condition of the latest sample, its health band, corrective work."""
    samples = ctx.raw.oil(case.p("asset_id"))
    if not samples:
        raise NoSingleAnswer("no oil samples")
    latest = samples[-1]
    gases = sample_gases(latest)
    fault = standards.dga_fault(gases, "iec", "iec_and_ieee")
    values: dict[str, float | None] = {
        k: (None if v is None else float(v)) for k, v in latest.items()
        if isinstance(v, int | float) and not isinstance(v, bool)}
    hi, band = standards.health_index(values, with_acidity=latest.get("acidity") is not None)
    corrective = [o for o in asset_work_orders(ctx, case.p("asset_id"))
                  if not is_preventive(o)]
    answer: dict[str, Any] = {
        "asset_id": case.p("asset_id"),
        "sample_timestamp": str(latest["timestamp"])[:19],
        "dga_class": "ND" if fault == "UD" else fault,
        "ieee_condition": standards.ieee_condition(gases),
        "health_index": round(hi, 1),
        "health_condition": band,
        "corrective_count": len(corrective),
        "corrective_codes": sorted({str(o["primary_code"]) for o in corrective}),
    }
    return Derivation([Reading("primary", answer)])
