"""Re-derivations of the transformer's open (rubric-graded) families: their computed facts.

Only the facts are re-derived (the method classes, the worst class, the health band, the
work-order facts); the tool's recommended-action wording and the plan's step labels are
the generator's own conventions and stay unverified keys.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from assets.transformer.audit import standards
from assets.transformer.audit.common import (
    anomaly_dims,
    count_flagged,
    flagged_anomalies,
    is_preventive,
    pick_sample,
    sample_gases,
)
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    Reading,
    asset_work_orders,
    audits,
    day_of,
    derive_all,
    in_window,
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


# -- open2: health drivers, condition review -----------------------------------------------------

# Condition-criterion weights of the health-index factors (DGA 10, oil quality 6; 4·ΣK = 64).
_K = {"dga": 10, "oil_quality": 6}
# The family's words for the factors and parameters (its convention, not a standard value).
_FACTOR_WORDS = {"dga": "dissolved gases", "oil_quality": "oil quality"}
_PARAMETER_WORDS = {
    "co": "carbon monoxide", "co2": "carbon dioxide", "dielectric_rigidity": "breakdown voltage",
    "interfacial_v": "interfacial tension", "water_content": "water content",
    "power_factor": "power factor",
}


def _score(value: float, bounds: tuple[float, ...], higher_better: bool, worst: int) -> int:
    if higher_better:
        return next((i + 1 for i, b in enumerate(bounds) if value >= b), worst)
    return next((i + 1 for i, b in enumerate(bounds) if value <= b), worst)


def _factor_scores(sample: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per factor, each measured parameter's score (gases 1..6, oil quality 1..4)."""
    gases = {g: _score(float(sample[g]), bounds, False, 6)
             for g, (bounds, _) in standards.HI_GAS_TABLE.items() if sample.get(g) is not None}
    oil = {n: _score(float(sample[n]), edges, higher, 4)
           for n, (higher, edges, _) in standards.HI_OIL_TABLE.items()
           if sample.get(n) is not None}
    return {"dga": gases, "oil_quality": oil}


def _hif(scores: dict[str, int], weights: dict[str, int]) -> tuple[str, int]:
    value = sum(scores[k] * weights[k] for k in scores) / sum(weights[k] for k in scores)
    for upper, rating, hif in ((1.2, "A", 4), (1.5, "B", 3), (2.0, "C", 2), (3.0, "D", 1)):
        if value < upper:
            return rating, hif
    return "E", 0


@audits("open_health_drivers")
def open_health_drivers(ctx: AuditContext, case: Case) -> Derivation:
    """Factor ratings of the sample, the points each costs, the main driver, the worst
    parameters of each costly factor, the index and band (rule table, standards.py)."""
    sample = pick_sample(ctx, case.p("asset_id"), case.p("which", "latest"))
    scores = _factor_scores(sample)
    weights = {"dga": {g: w for g, (_, w) in standards.HI_GAS_TABLE.items()},
               "oil_quality": {n: w for n, (_, _, w) in standards.HI_OIL_TABLE.items()}}
    rated = {f: _hif(scores[f], weights[f]) for f in scores}
    lost = {f: round(100.0 * _K[f] * (4 - rated[f][1]) / 64, 2) for f in rated}
    hi = 100.0 * sum(_K[f] * rated[f][1] for f in rated) / 64
    band = next((name for bound, name in standards.HI_BANDS if hi >= bound), "very poor")
    costly = [f for f in ("dga", "oil_quality") if lost[f] > 0]
    main = ("none" if not costly else "both" if len(costly) == 2
            and lost["dga"] == lost["oil_quality"]
            else _FACTOR_WORDS[max(costly, key=lambda f: lost[f])])
    worst: dict[str, list[str]] = {}
    for f in costly:
        top = max(scores[f].values())
        worst[f] = sorted(_PARAMETER_WORDS.get(k, k) for k, v in scores[f].items()
                          if v == top) if top > 1 else []
    return Derivation([Reading("primary", {
        "asset_id": case.p("asset_id"),
        "sample_timestamp": str(sample["timestamp"])[:19],
        "health_index": round(hi, 1),
        "condition": band,
        "ratings": {f: r[0] for f, r in rated.items()},
        "points_lost": lost,
        "main_driver": main,
        "worst_parameters": worst,
    })])


@audits("ma_open_condition_review")
def ma_open_condition_review(ctx: AuditContext, case: Case) -> Derivation:
    """Anomalies of the window (every reading of the scan), the IEC class of the latest oil
    sample before the window ends and the window's corrective work orders."""
    asset, end = case.p("asset_id"), case.p("end")
    before = [s for s in ctx.raw.oil(asset) if str(s["timestamp"])[:19] < end]
    if not before:
        raise NoSingleAnswer("no oil sample before the window ends")
    sample = before[-1]
    gases = sample_gases(sample)
    fault = standards.dga_fault(gases, "iec", "iec_and_ieee")
    corrective = [o for o in asset_work_orders(ctx, asset) if not is_preventive(o)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        found = flagged_anomalies(ctx, case, c)
        orders = [o for o in corrective if in_window(str(o["reported_date"]), case.p("start"),
                                                     end, c["window"])]
        return {
            "asset_id": asset,
            "anomalies": count_flagged(found, c["count"]),
            "first_anomaly": found[0][0] if found else None,
            "sample_timestamp": str(sample["timestamp"])[:19],
            "dga_class": "ND" if fault == "UD" else fault,
            "ieee_condition": standards.ieee_condition(gases),
            "corrective_work_orders": [str(o["wo_id"]) for o in orders],
            "corrective_count": len(orders),
        }

    return Derivation(derive_all(anomaly_dims(case), derive))
