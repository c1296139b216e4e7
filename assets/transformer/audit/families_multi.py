"""Re-derivations of the transformer's multi-agent families."""

from __future__ import annotations

from typing import Any

from assets.transformer.audit import standards
from assets.transformer.audit.common import (
    NO_FAULT,
    anomaly_dims,
    assess,
    code_for,
    count_flagged,
    dga_check,
    dga_dims,
    flagged_anomalies,
    is_preventive,
    paper_choices,
    pick_sample,
    sample_gases,
)
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    argmax,
    asset_work_orders,
    audits,
    derive_all,
    in_window,
    sensor_pairs,
    stamp,
    window_docs,
    window_modes,
)


@audits("ma_dga_to_workorder")
def ma_dga_to_workorder(ctx: AuditContext, case: Case) -> Derivation:
    """Sample → DGA class → failure code → corrective work since the sample."""
    asset, which = case.p("asset_id"), case.p("which", "latest")
    sample = pick_sample(ctx, asset, which)
    gases = sample_gases(sample)
    corrective = [o for o in asset_work_orders(ctx, asset) if not is_preventive(o)]
    ts = str(sample["timestamp"])[:19]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        fault = standards.dga_fault(gases, c["method"], c["gate"], c["precedence"])
        answer: dict[str, Any] = {"sample_timestamp": ts, "fault_type": fault}
        if fault in NO_FAULT:
            return answer | {"failure_code": None, "work_orders": [],
                             "decision": "no corrective work needed"}
        code = code_for(ctx, fault)
        edge = stamp(ts[:10]) if c["since"] == "sample_day" else ts
        accepted = {code} | ({"DGA-ABN"} if c["codes"] == "generic_counts" else set())
        raised = [str(o["wo_id"]) for o in corrective if str(o["primary_code"]) in accepted
                  and (str(o["reported_date"])[:19] >= edge if c["since"] == "sample_day"
                       else str(o["reported_date"])[:19] > edge)]
        return answer | {
            "failure_code": code, "work_orders": raised,
            "decision": "already raised" if raised else f"raise a corrective work order ({code})",
        }

    dims = dga_dims(case.text, False) | {"since": ["sample_day", "after_sample_time"],
                                          "codes": ["exact", "generic_counts"]}
    ref = str(case.answer.get("fault_type"))
    return Derivation(derive_all(dims, derive), truth_check=dga_check(ctx, asset, sample, ref))


@audits("ma_anomaly_to_workorder")
def ma_anomaly_to_workorder(ctx: AuditContext, case: Case) -> Derivation:
    """Anomalies in a window → corrective work orders of the window."""
    asset = case.p("asset_id")
    corrective = [o for o in asset_work_orders(ctx, asset) if not is_preventive(o)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        found = flagged_anomalies(ctx, case, c)
        first = found[0][0] if found else None
        orders = [o for o in corrective if in_window(str(o["reported_date"]), case.p("start"),
                                                     case.p("end"), c["window"])]
        after = [o for o in orders if first is not None and str(o["reported_date"])[:19] > first]
        return {
            "anomalies": count_flagged(found, c["count"]),
            "first_anomaly": first,
            "corrective_work_orders": [str(o["wo_id"]) for o in orders],
            "followed_by_corrective": bool(after) if first is not None else None,
        }

    return Derivation(derive_all(anomaly_dims(case), derive))


@audits("ma_peak_winding_review")
def ma_peak_winding_review(ctx: AuditContext, case: Case) -> Derivation:
    """Window's winding peak → its assessment → alarm events of the window."""
    asset = case.p("asset_id")
    plate = ctx.raw.nameplate(asset)
    events = [e for e in ctx.raw.work_db("events") if e.get("equipment_id") == asset
              and e.get("event_group") == "ALERT"]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, case.p("start"), case.p("end"), c["window"])
        ts, wti = argmax(sensor_pairs(docs, "wti"))
        r = next(d for d in docs if str(d["timestamp"])[:19] == ts)
        contacts = {k: r.get(k) for k in ("oti_a", "oti_t", "wti_a", "wti_t")}
        assessed = assess(wti, float(r["oti"]), c["paper"], plate, contacts)
        alarms = [e for e in events
                  if in_window(str(e["event_time"]), case.p("start"), case.p("end"), c["window"])
                  and (c["alarms"] == "all_alerts" or "TRIP" not in str(e.get("event_type")))]
        return {
            "timestamp": ts, "hot_spot_c": wti,
            "thermal_status": assessed["thermal_status"], "risk_level": assessed["risk_level"],
            "alarm_events": len(alarms),
        }

    dims = {"window": window_modes(case.text, case.p("end")), "paper": paper_choices(case, plate),
            # "alarm and trip events" pins the count to every alert; "alarm events" alone
            # lets a reader leave the trips out.
            "alarms": ["all_alerts"] if "trip" in case.text.lower()
            else ["all_alerts", "alarms_only"]}
    return Derivation(derive_all(dims, derive))
