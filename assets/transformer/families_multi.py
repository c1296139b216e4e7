"""Multi-agent task families of the transformer class: chains across domains.

Each family extends a single-domain parent seed (``compose_from``): it keeps the parent's
entities and tool calls and appends the calls of another domain, so the tool sequence spans
two or three domains and the answer is computed from all of their outputs.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import assets_call, full_days, iso_day, nameplate_of
from assets.transformer.families_fmsr import (
    DGA_READING_NAMES,
    DGA_READINGS,
    NORMALITY_READING,
    WINDING_SENSORS,
    dga_answer,
    paper_gate,
    pick_sample,
    same_gases,
    winding_args,
    winding_stable,
)
from assets.transformer.family_sensor_faults import sensor_fault_free
from generator.api import (
    Ambiguous,
    FamilyContext,
    Plan,
    TaskSeed,
    ToolCall,
    and_join,
    anomaly_workorder_derive,
    anomaly_workorder_outcome,
    anomaly_workorder_plan,
    anomaly_workorder_summary,
    day,
    family,
    history_call,
    num,
    pick,
    unique_argmax,
    values_of,
)

NO_FAULT = ("normal", "ND")


# -- latest oil sample → diagnosis → work-order decision ----------------------------------


def _dga_wo_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    oil, dga, codes, corrective = outputs
    sample = pick_sample(oil["records"], params["which"])
    if not same_gases(sample, dga["sample"]):
        raise Ambiguous("the interpreted gases are not those of the chosen sample")
    method = params.get("method", "iec")
    if method == "iec" and not params.get("method_named") and dga["confidence"] < 1.0:
        raise Ambiguous("DGA near a boundary")
    fault = dga_answer(dga, False, method)["fault_type"]
    answer: dict[str, Any] = {"sample_timestamp": sample["timestamp"], "fault_type": fault}
    if fault in NO_FAULT:
        return answer | {
            "failure_code": None, "work_orders": [], "decision": "no corrective work needed",
        }
    matching = [c["code"] for c in codes["failure_codes"] if c["fault_type"] == fault]
    if len(matching) != 1:
        raise Ambiguous(f"{len(matching)} failure codes for {fault}")
    code = matching[0]
    since = str(sample["timestamp"])[:10]
    raised = [
        o["wo_id"] for o in corrective["work_orders"]
        if o["primary_code"] == code and str(o["reported_date"])[:10] >= since
    ]
    return answer | {
        "failure_code": code,
        "work_orders": raised,
        "decision": "already raised" if raised else f"raise a corrective work order ({code})",
    }


def dga_wo_outcome(answer: dict[str, Any]) -> str:
    """none (no fault), raise (work to raise) or raised (already on record)."""
    if answer["failure_code"] is None:
        return "none"
    return "raised" if answer["work_orders"] else "raise"


def _dga_wo_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{params['asset_id']} oil sample {answer['sample_timestamp']}: DGA {answer['fault_type']}"
    )
    if answer["failure_code"]:
        text += f", failure code {answer['failure_code']}"
        if answer["work_orders"]:
            text += f", corrective work already raised ({and_join(answer['work_orders'])})"
    return text + f"; decision: {answer['decision']}"


@family(
    "ma_dga_to_workorder",
    domain="multiagent",
    category="Decision Support",
    derive=_dga_wo_derive,
    summarise=_dga_wo_summary,
    compose_from=("fmsr_dga_stored",),
    outcome=dga_wo_outcome,
    trivial=("none",),
)
async def dga_to_workorder(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Oil sample → DGA diagnosis → is corrective work raised for the fault since the sample?

    Gated like the parent DGA: Duval and Rogers readings must give the same class (and so
    the same decision) unless the text names the IEC method.
    """
    if not parents:
        return None
    parent = parents[0]
    p = parent.params
    since = str(parent.answer["sample_timestamp"])[:10]
    calls = [
        *parent.tool_sequence,
        ToolCall(name="get_failure_codes", args={}),
        ToolCall(name="get_corrective_work_orders",
                 args={"equipment_id": p["asset_id"], "start_date": since}),
    ]
    keep = ("asset_id", "site", "which", "method_named", "note")
    params: dict[str, Any] = {k: p[k] for k in keep if k in p}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=list(parent.mentions),
        grounding=dict(parent.grounding),
        difficulty="hard",
        hard_features=["conditional"],
        readings=[*DGA_READINGS, NORMALITY_READING],
        stated=DGA_READING_NAMES if p.get("method_named") else [],
        constraint="if the sample shows a fault and no corrective work order with the matching "
        "failure code exists since the sample, say which failure code to raise",
    )


# -- anomalies → corrective work in the window ---------------------------------------------


@family(
    "ma_anomaly_to_workorder",
    domain="multiagent",
    category="Workflow Coordination",
    derive=anomaly_workorder_derive,
    summarise=anomaly_workorder_summary,
    compose_from=("tsfm_anomalies",),
    outcome=anomaly_workorder_outcome,
    trivial=("none",),
)
async def anomaly_to_workorder(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Sensor anomalies in a window → corrective work orders in the same window."""
    return anomaly_workorder_plan(parents[0], rng) if parents else None


# -- window peak → winding assessment → alarms ---------------------------------------------


def _peak_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    _, hist, assessment, events = outputs
    ts, wti = unique_argmax(values_of(hist["records"], "wti"))
    if abs(wti - assessment["hot_spot_c"]) > 1e-9:
        raise Ambiguous("the assessed reading is not the window's peak")
    alarms = [e for e in events["events"] if e["event_group"] == "ALERT"]
    return {
        "timestamp": ts,
        "hot_spot_c": wti,
        "thermal_status": assessment["thermal_status"],
        "risk_level": assessment["risk_level"],
        "alarm_events": len(alarms),
    }


def peak_outcome(answer: dict[str, Any]) -> str:
    """alarm (alarm events logged), stress (no alarm, status or risk raised) or normal."""
    if answer["alarm_events"] > 0:
        return "alarm"
    calm = answer["thermal_status"] == "normal" and answer["risk_level"] == "low"
    return "normal" if calm else "stress"


async def alarm_window(
    ctx: FamilyContext, rng: np.random.Generator, asset_id: str, start: str, end: str
) -> tuple[str, str]:
    """The parent's window, or (75 % of the time, when the unit logged temperature alarms)
    a window of the same length that holds one of its alarms."""
    every = await ctx.run1("get_events", equipment_id=asset_id)
    alarms = sorted({str(e["event_time"])[:10] for e in every["events"]
                     if e["event_group"] == "ALERT"})
    if not alarms or rng.random() >= 0.75:
        return start, end
    length = (day(end) - day(start)).days
    hit = day(pick(rng, alarms))
    first = hit - timedelta(days=int(rng.integers(0, length)))
    return iso_day(first), iso_day(first + timedelta(days=length))


def _peak_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} winding peak in [{params['start']}, {params['end']}): "
        f"{num(answer['hot_spot_c'], 1)} °C at {answer['timestamp']}, thermal status "
        f"{answer['thermal_status']}, risk {answer['risk_level']}; "
        f"{answer['alarm_events']} temperature alarm events in the window"
    )


@family(
    "ma_peak_winding_review",
    domain="multiagent",
    category="Diagnostic Assessment",
    derive=_peak_derive,
    summarise=_peak_summary,
    compose_from=("iot_sensor_stat",),
    outcome=peak_outcome,
    trivial=("normal",),
)
async def peak_winding_review(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Winding-temperature peak of a window → thermal assessment → alarm events logged.

    Windows are moved onto a logged alarm of the unit when it has one (75 %); the assessment
    uses the nameplate's paper, stated in the text when it is not Kraft (gated reading: the
    Kraft default).
    """
    if not parents:
        return None
    p = parents[0].params
    a = ctx.asset(p["asset_id"])
    start, end = p["start"], p["end"]
    if day(end) - day(start) > timedelta(days=14):
        end = iso_day(day(start) + timedelta(days=14))
    start, end = await alarm_window(ctx, rng, a.asset_id, start, end)
    first, last = full_days(a)
    if day(start) < first or day(end) > last:
        return None
    if not await sensor_fault_free(ctx, a, start, end, WINDING_SENSORS):
        return None  # a stuck indicator could hide the window's true peak
    plates = assets_call(a.site_name)
    paper = nameplate_of((await ctx.run([plates]))[0], a.asset_id).get("paper")
    hist = history_call(a, start, end, WINDING_SENSORS)
    records = (await ctx.run([hist]))[0]["records"]
    try:
        ts, _ = unique_argmax(values_of(records, "wti"))
    except Ambiguous:
        return None
    reading = next(r for r in records if r["timestamp"] == ts)
    args = winding_args(a.asset_id, reading, paper)
    if not await winding_stable(ctx, args):
        return None
    calls = [
        plates,
        hist,
        ToolCall(name="assess_winding_temperature", args=args),
        ToolCall(name="get_events",
                 args={"equipment_id": a.asset_id, "start_date": start, "end_date": end}),
    ]
    readings, stated, note = await paper_gate(ctx, calls, ("thermal_status", "risk_level"))
    params = {"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end}
    params |= {"note": note} if note else {}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, start, end] + ([note] if note else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": start, "end": end,
                   "sensor": "wti"},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"hot_spot_c": 0.01},
        readings=readings,
        stated=stated,
    )
