"""Re-derivations of the transformer's fmsr families: DGA, thermal, loading, health index and
false premises."""

from __future__ import annotations

from typing import Any

from assets.transformer.audit import standards
from assets.transformer.audit.common import (
    GASES,
    assess,
    dga_answer,
    dga_check,
    dga_dims,
    paper_choices,
    pick_sample,
    sample_gases,
)
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    Reading,
    argmax,
    audits,
    day_of,
    derive_all,
    next_day,
    sensor_pairs,
    window_docs,
)


@audits("fmsr_dga_stored")
def fmsr_dga_stored(ctx: AuditContext, case: Case) -> Derivation:
    """DGA class of a stored sample, under each method / significance gate / precedence."""
    asset, which = case.p("asset_id"), case.p("which", "latest")
    details = bool(case.p("with_details"))
    sample = pick_sample(ctx, asset, which)
    gases = sample_gases(sample)

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        return {"sample_timestamp": str(sample["timestamp"])[:19]} | dga_answer(gases, c, details)

    ref = str(case.answer.get("fault_type"))
    return Derivation(derive_all(dga_dims(case.text, details), derive),
                      truth_check=dga_check(ctx, asset, sample, ref))


@audits("fmsr_dga_given")
def fmsr_dga_given(ctx: AuditContext, case: Case) -> Derivation:
    """DGA class of gas concentrations stated in the text."""
    stated = case.p("gases") or {}
    gases = {g: (None if stated.get(g) is None else float(stated[g])) for g in GASES}
    details = bool(case.p("with_details"))
    return Derivation(derive_all(dga_dims(case.text, details),
                                 lambda c: dga_answer(gases, c, details)))


@audits("fmsr_winding_assessment")
def fmsr_winding_assessment(ctx: AuditContext, case: Case) -> Derivation:
    """Thermal status, risk and ageing rate of a winding reading (a day's peak or given)."""
    asset = case.p("asset_id")
    plate = ctx.raw.nameplate(asset)
    stored = bool(case.p("stored"))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        if not stored:
            return assess(float(case.p("wti")), float(case.p("oti")), c["paper"], plate, None)
        day = case.p("day")
        docs = window_docs(ctx, asset, day, next_day(day)[:10], "end_exclusive")
        ts, wti = argmax(sensor_pairs(docs, "wti"))
        reading = next(d for d in docs if str(d["timestamp"])[:19] == ts)
        contacts = {k: reading.get(k) for k in ("oti_a", "oti_t", "wti_a", "wti_t")}
        return {"timestamp": ts, "hot_spot_c": wti} | assess(
            wti, float(reading["oti"]), c["paper"], plate, contacts
        )

    return Derivation(derive_all({"paper": paper_choices(case, plate)}, derive))


@audits("fmsr_load_assessment")
def fmsr_load_assessment(ctx: AuditContext, case: Case) -> Derivation:
    """Loading band, load factor and imbalance at the hour of a day's peak phase-1 current."""
    asset, day = case.p("asset_id"), case.p("day")
    plate = ctx.raw.nameplate(asset)
    if plate is None or plate.get("rated_mva") is None:
        return Derivation([Reading("primary", None, "no nameplate rating")])
    rated = float(plate["rated_mva"])

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, day, next_day(day)[:10], "end_exclusive")
        ts, _ = argmax(sensor_pairs(docs, "il1"))
        r = next(d for d in docs if str(d["timestamp"])[:19] == ts)
        s = standards.apparent_power_mva(float(r["vl12"]), float(r["vl23"]), float(r["vl31"]),
                                         float(r["il1"]), float(r["il2"]), float(r["il3"]))
        lf = s / rated * 100.0
        return {
            "timestamp": ts,
            "loading_status": standards.loading_status(lf, c["size"], c["light_band"]),
            "load_factor_pct": lf,
            "current_imbalance_pct": standards.current_imbalance_pct(
                float(r["il1"]), float(r["il2"]), float(r["il3"])),
        }

    # The unit's size class from its rating; a reader who does not look the rating up may
    # apply the large-power limits (the strictest), unless the text states the size class.
    own = standards.size_class_of(rated)
    stated = any(f"{c} power transformer" in case.text.lower() or
                 f"{c} transformer" in case.text.lower() for c in ("distribution", "medium",
                                                                    "large"))
    dims: dict[str, list[Any]] = {
        "size": [own] if stated else list(dict.fromkeys([own, "large"])),
        "light_band": [True, False],
    }
    return Derivation(derive_all(dims, derive))


@audits("fmsr_sensor_failure_modes")
def fmsr_sensor_failure_modes(ctx: AuditContext, case: Case) -> Derivation:
    """Failure modes (asset.yaml) revealed by every one of the named sensors."""
    sensors = list(case.p("sensors") or [case.p("sensor")])

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        modes = [str(fm["id"]) for fm in ctx.failure_modes
                 if all(s in (fm.get("sensors") or []) for s in sensors)]
        return {"failure_modes": sorted(modes)}

    return Derivation(derive_all({"_": [None]}, derive))


@audits("fmsr_false_premise")
def fmsr_false_premise(ctx: AuditContext, case: Case) -> Derivation:
    """A claimed DGA diagnosis on a date: is there a sample that day, and what does it show?"""
    asset, claimed = case.p("asset_id"), case.p("claimed_fault")
    claim_day = case.p("claim_date")
    samples = ctx.raw.oil(asset)
    on_day = [s for s in samples if day_of(s["timestamp"]) == claim_day]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = {"claimed_fault": claimed}
        if not on_day:
            stamps = [str(s["timestamp"])[:19] for s in samples]
            before = [t for t in stamps if t[:10] < claim_day]
            after = [t for t in stamps if t[:10] > claim_day]
            if not before or not after:
                raise NoSingleAnswer("the claimed date is outside the sampled period")
            prev = next(s for s in samples if str(s["timestamp"])[:19] == before[-1])
            prev_fault = standards.dga_fault(sample_gases(prev), c["method"], c["gate"],
                                             c["precedence"])
            return answer | {"premise_holds": False, "sample_on_date": False,
                             "previous_sample": before[-1], "next_sample": after[0],
                             "previous_fault_type": prev_fault}
        if len(on_day) != 1:
            raise NoSingleAnswer(f"{len(on_day)} samples on {claim_day}")
        fault = standards.dga_fault(sample_gases(on_day[0]), c["method"], c["gate"],
                                    c["precedence"])
        return answer | {"premise_holds": fault == claimed, "sample_on_date": True,
                         "sample_timestamp": str(on_day[0]["timestamp"])[:19],
                         "actual_fault_type": fault}

    readings = derive_all(dga_dims(case.text, False), derive)
    holds = any(r.answer and r.answer.get("premise_holds") for r in readings)
    premises = [] if holds else [f"no reading supports {claimed} on {claim_day} for {asset}"]
    return Derivation(readings, premises_false=premises)


HI_FIELDS: tuple[str, ...] = (
    *GASES, "dielectric_rigidity", "interfacial_v", "acidity", "water_content", "power_factor",
)


@audits("fmsr_health_index")
def fmsr_health_index(ctx: AuditContext, case: Case) -> Derivation:
    """Rule-based health index and band of a stored sample, with and without its acidity.

    Only the documented rule score is re-derived: the learned estimate is the project's own
    artefact (the family gates band-only requests on it agreeing with the rule band).
    """
    sample = pick_sample(ctx, case.p("asset_id"), case.p("which", "latest"))
    values = {f: (None if sample.get(f) is None else float(sample[f])) for f in HI_FIELDS}

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        hi, band = standards.health_index(values, with_acidity=c["acidity"] == "scored")
        answer: dict[str, Any] = {"sample_timestamp": str(sample["timestamp"])[:19],
                                  "condition": band}
        if "health_index" in case.answer:
            answer["health_index"] = hi
        return answer

    choices = ["scored", "left_out"] if values["acidity"] is not None else ["left_out"]
    return Derivation(derive_all({"acidity": choices}, derive))
