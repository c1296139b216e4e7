"""Multi-agent task families of the chiller class: chains across domains.

Each family extends a single-domain parent seed (``compose_from``): it keeps the parent's
entities and tool calls and appends the calls of another domain, so the answer is computed
from the outputs of both.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from assets.chiller.families_fmsr import diagnosis_answer
from generator.api import (
    Ambiguous,
    FamilyContext,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    and_join,
    anomaly_workorder_derive,
    anomaly_workorder_outcome,
    anomaly_workorder_plan,
    anomaly_workorder_summary,
    family,
    hour_end_as_of,
)

# Corrective work reported this long before the diagnosed hour, up to that hour's end, counts
# as raised; an order reported after the hour did not exist when its reading came in
# (generator.generate.draw.asof: the family's as-of moment is the end of the diagnosed hour).
LOOKBACK_DAYS = 14
# The reading that stops at the start of the diagnosed hour (the record's own time stamp).
HOUR_START = "orders_before_the_record_time"

# -- anomalies -> corrective work in the window ---------------------------------------------


@family(
    "chiller_ma_anomaly_to_workorder",
    domain="multiagent",
    category="Workflow Coordination",
    derive=anomaly_workorder_derive,
    summarise=anomaly_workorder_summary,
    compose_from=("chiller_tsfm_anomalies",),
    outcome=anomaly_workorder_outcome,
    trivial=("none",),
)
async def anomaly_to_workorder(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Anomalies of a chiller's series in a window → corrective work orders in that window,
    and whether corrective work followed the first anomaly."""
    return anomaly_workorder_plan(parents[0], rng) if parents else None


# -- diagnosis -> recommended corrective action -----------------------------------------------


def _action_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    hist, diag, catalogue, corrective = outputs
    if len(hist["records"]) != 1:
        raise Ambiguous("not one record in the hour")
    found = diagnosis_answer(dict(hist["records"][0]), diag)
    if found["status"] != "fault":
        return {"findings": found["findings"], "failure_codes": [], "existing_work_orders": [],
                "codes_to_raise": [], "decision": "no corrective work needed"}
    known = {str(c["code"]): str(c["description"]) for c in catalogue["failure_codes"]}
    codes = found["failure_codes"]
    if any(c not in known for c in codes):
        raise Ambiguous("a diagnosed code is not in the catalogue")
    existing = sorted(str(o["wo_id"]) for o in corrective["work_orders"]
                      if str(o["primary_code"]) in codes)
    open_codes = {str(o["primary_code"]) for o in corrective["work_orders"]}
    to_raise = [c for c in codes if c not in open_codes]
    decision = (
        "raise corrective work orders for " + and_join(to_raise) if to_raise
        else "corrective work already raised"
    )
    return {"findings": found["findings"], "failure_codes": codes,
            "existing_work_orders": existing, "codes_to_raise": to_raise, "decision": decision}


def _action_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = f"{params['asset_id']} at {params['timestamp']}: {and_join(answer['findings'])}"
    if answer["failure_codes"]:
        text += f" ({and_join(answer['failure_codes'])})"
        if answer["existing_work_orders"]:
            text += f"; already raised: {and_join(answer['existing_work_orders'])}"
    return text + f"; decision: {answer['decision']}"


def action_outcome(answer: dict[str, Any]) -> str:
    """none (no fault), raise (work to raise) or raised (already on record)."""
    if not answer["failure_codes"]:
        return "none"
    return "raise" if answer["codes_to_raise"] else "raised"


@family(
    "chiller_ma_diagnosis_to_action",
    domain="multiagent",
    category="Decision Support",
    derive=_action_derive,
    summarise=_action_summary,
    compose_from=("chiller_fmsr_diagnose_fault",),
    outcome=action_outcome,
    trivial=("none",),
    as_of=hour_end_as_of(),
)
async def diagnosis_to_action(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Fault diagnosis of a chiller at an hour → failure code → is corrective work with that
    code on record from two weeks before that hour up to its end, or which code to raise.

    Gated reading: orders counted up to the record's time stamp (the start of the hour)
    instead of the hour's end."""
    if not parents:
        return None
    parent = parents[0]
    p = parent.params
    hour = datetime.fromisoformat(p["timestamp"])
    since = (hour - timedelta(days=LOOKBACK_DAYS)).isoformat()
    until = (hour + timedelta(hours=1)).isoformat()

    def calls_until(end: str) -> list[ToolCall]:
        return [
            *parent.tool_sequence,
            ToolCall(name="get_failure_codes", args={}),
            ToolCall(name="get_corrective_work_orders",
                     args={"equipment_id": p["asset_id"], "start_date": since,
                           "end_date": end}),
        ]

    calls = calls_until(until)
    keep = ("asset_id", "site", "timestamp", "note")
    return Plan(
        params={k: p[k] for k in keep if k in p},
        tool_sequence=calls,
        mentions=list(parent.mentions),
        grounding=dict(parent.grounding),
        difficulty="hard",
        hard_features=["conditional"],
        constraint="if the readings show a fault and no corrective work order with its failure "
        f"code was reported from {LOOKBACK_DAYS} days before that hour up to the end of that "
        "hour, say which failure code to raise",
        readings=[Reading(HOUR_START, "counts orders reported up to the record's time stamp, "
                          "not to the end of its hour",
                          tool_sequence=calls_until(hour.isoformat()))],
    )
