"""Re-derivations of the chiller's fmsr families: approaches, efficiency, fault rules, IPLV and
the failure-mode ↔ sensor map.

A record-level reference is also read by an engineer who will not turn a reading outside the
range the class declares for its sensor (a faulty sensor) into a figure: that reading
(``validity=invalid_excluded``) has no answer, so such a reference is never a clean match.
"""

from __future__ import annotations

from typing import Any

from assets.chiller.audit import standards
from assets.chiller.audit.common import invalid_readings, numbers, record_at
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    audits,
    derive_all,
)

APPROACH_FIELDS = ["supply_temperature", "evaporator_refrigerant_temperature",
                   "condenser_water_return_temperature", "condenser_refrigerant_temperature",
                   "percent_loaded", "setpoint_temperature"]
EFFICIENCY_FIELDS = ["power_input", "tonnage", "supply_temperature",
                     "condenser_water_supply_temperature", "kw_per_ton"]
DIAGNOSIS_FIELDS = [*APPROACH_FIELDS, "condenser_liquid_temperature", "discharge_temperature"]


def validity(invalid: list[str]) -> list[str]:
    """The validity readings of a record: as recorded, and (when some reading lies outside
    its declared range) with the faulty readings excluded."""
    return ["as_recorded", "invalid_excluded"] if invalid else ["as_recorded"]


def refuse(c: dict[str, Any], invalid: list[str]) -> None:
    """Under ``validity=invalid_excluded`` a record with a faulty reading gives no figure."""
    if c.get("validity") == "invalid_excluded":
        raise NoSingleAnswer("faulty reading: " + "; ".join(invalid))


def codes_of(ctx: AuditContext) -> dict[str, str]:
    """Failure mode → work-order code, from the raw failure-code catalogue."""
    return {str(c["fault_type"]): str(c["code"]) for c in ctx.raw.work_db("failure_codes")
            if c.get("fault_type")}


STATUS = {(False, False): "normal", (True, False): "evaporator_approach_high",
          (False, True): "condenser_approach_high", (True, True): "both_high"}
FOULING = {"normal": "none", "evaporator_approach_high": "evaporator",
           "condenser_approach_high": "condenser", "both_high": "both"}


@audits("chiller_fmsr_approach_check")
def approach_check(ctx: AuditContext, case: Case) -> Derivation:
    """Approaches of one record against the load-scaled nameplate design approach."""
    asset = case.p("asset_id")
    doc = record_at(ctx, asset, case.p("timestamp"))
    rec = numbers(doc, APPROACH_FIELDS)
    design = standards.plate_design(ctx.raw.nameplate(asset))
    invalid = invalid_readings(ctx, doc, APPROACH_FIELDS)
    drifting = standards.drift_suspected(rec)

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        refuse(c, invalid)
        leaving = rec.get("setpoint_temperature") if c["supply"] == "setpoint" else None
        ap = standards.approaches(rec, design, True, leaving)
        if not ap.running:
            raise NoSingleAnswer("the unit was not running")
        status = STATUS[(ap.evap_high, ap.cond_high)]
        return {"evaporator_approach_k": ap.evap_k, "condenser_approach_k": ap.cond_k,
                "status": status, "fouling_suspected": FOULING[status]}

    # A supply reading 1 K or more over setpoint below 95 % load is the drift rule's case:
    # the fault rules then take the leaving water from the setpoint; a reader who knows the
    # rules may do the same here (the text does not say which tool's view counts).
    dims = {"validity": validity(invalid),
            "supply": ["measured", "setpoint"] if drifting else ["measured"]}
    return Derivation(derive_all(dims, derive))


@audits("chiller_fmsr_efficiency")
def efficiency(ctx: AuditContext, case: Case) -> Derivation:
    """Measured kW/ton against the design EIR model at the hour's load and water
    temperatures."""
    asset = case.p("asset_id")
    doc = record_at(ctx, asset, case.p("timestamp"))
    rec = numbers(doc, EFFICIENCY_FIELDS)
    plate = ctx.raw.nameplate(asset) or {}
    invalid = invalid_readings(ctx, doc, EFFICIENCY_FIELDS)
    chw, cw = rec["supply_temperature"], rec["condenser_water_supply_temperature"]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        refuse(c, invalid)
        tons = rec["tonnage"]
        if tons <= 0:
            raise NoSingleAnswer(f"tonnage {tons}: no kW/ton")
        measured = rec["power_input"] / tons
        try:
            design = standards.design_kw_per_ton(
                float(plate["design_capacity_tons"]), float(plate["design_kw_per_ton"]), tons,
                chw, cw, limit=c["curves"] == "limited")
        except standards.OverCapacity as exc:
            raise NoSingleAnswer(str(exc)) from None
        degradation = standards.degradation_pct(measured, design)
        return {"measured_kw_per_ton": measured, "degradation_pct": degradation,
                "status": standards.efficiency_band(degradation)}

    # EnergyPlus holds curve inputs to the fitted range; outside it a reader evaluating the
    # published biquadratics may extrapolate them.
    curves = ["limited"] if standards.temperatures_inside(chw, cw) else ["limited",
                                                                        "extrapolated"]
    return Derivation(derive_all({"validity": validity(invalid), "curves": curves}, derive))


def record_diagnosis(ctx: AuditContext, asset: str, ts: str
               ) -> tuple[dict[str, float], standards.Diagnosis, list[str]]:
    doc = record_at(ctx, asset, ts)
    rec = numbers(doc, DIAGNOSIS_FIELDS)
    diag = standards.diagnose(rec, standards.plate_design(ctx.raw.nameplate(asset)))
    return rec, diag, invalid_readings(ctx, doc, DIAGNOSIS_FIELDS)


def diagnosis_answer(ctx: AuditContext, diag: standards.Diagnosis) -> dict[str, Any]:
    """Findings, codes and status of a diagnosis (no single answer when not running)."""
    if diag.findings == ["not_running"]:
        raise NoSingleAnswer("the unit was not running")
    codes = codes_of(ctx)
    faults = [f for f in diag.findings if f != "normal"]
    if any(f not in codes for f in faults):
        raise NoSingleAnswer(f"no catalogued code for {faults}")
    return {"findings": sorted(diag.findings), "failure_codes": sorted(codes[f] for f in faults),
            "status": "fault" if faults else "normal"}


@audits("chiller_fmsr_diagnose_fault")
def diagnose_fault(ctx: AuditContext, case: Case) -> Derivation:
    """The service rules on one record: findings and failure codes."""
    _, diag, invalid = record_diagnosis(ctx, case.p("asset_id"), case.p("timestamp"))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        refuse(c, invalid)
        return diagnosis_answer(ctx, diag)

    return Derivation(derive_all({"validity": validity(invalid)}, derive))


@audits("chiller_fmsr_iplv")
def iplv(ctx: AuditContext, case: Case) -> Derivation:
    """AHRI 550/590 IPLV of the four stated part-load kW/ton points."""
    points = [float(x) for x in case.p("kw_per_ton")]

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        return {"iplv_kw_per_ton": standards.iplv_kw_per_ton(points)}

    return Derivation(derive_all({"_": [None]}, derive))


@audits("chiller_fmsr_mode_sensors")
def mode_sensors(ctx: AuditContext, case: Case) -> Derivation:
    """Sensors revealing a failure mode, or failure modes a sensor reveals (asset.yaml)."""

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        if case.p("direction") == "mode_to_sensors":
            fm = next((m for m in ctx.failure_modes if m["id"] == case.p("failure_mode")), None)
            if fm is None:
                raise NoSingleAnswer(f"no failure mode {case.p('failure_mode')}")
            return {"sensors": sorted(fm.get("sensors") or [])}
        return {"failure_modes": sorted(str(m["id"]) for m in ctx.failure_modes
                                        if case.p("sensor") in (m.get("sensors") or []))}

    return Derivation(derive_all({"_": [None]}, derive))


@audits("chiller_fmsr_sensor_modes")
def sensor_modes(ctx: AuditContext, case: Case) -> Derivation:
    """Failure modes (by name) a sensor helps reveal, of how many."""

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        hits = sorted(str(m["name"]) for m in ctx.failure_modes
                      if case.p("sensor") in (m.get("sensors") or []))
        return {"failure_modes": hits, "of_total": len(ctx.failure_modes)}

    return Derivation(derive_all({"_": [None]}, derive))
