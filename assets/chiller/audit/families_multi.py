"""Re-derivations of the chiller's multi-agent families: anomalies → corrective work, and
diagnosis → the code to raise."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from assets.chiller.audit.common import anomaly_dims, flagged_anomalies, is_preventive
from assets.chiller.audit.families_fmsr import (
    diagnosis_answer,
    record_diagnosis,
    refuse,
    validity,
)
from assets.chiller.audit.families_wo import as_of_dims, known
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    asset_work_orders,
    audits,
    derive_all,
    in_window,
    parse,
)

LOOKBACK_DAYS = 14  # "from 14 days before that hour on", as the texts state


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@audits("chiller_ma_anomaly_to_workorder")
def anomaly_to_workorder(ctx: AuditContext, case: Case) -> Derivation:
    """Anomalies of a window → the window's corrective work orders → any after the first
    anomaly."""
    corrective = [o for o in asset_work_orders(ctx, case.p("asset_id")) if not is_preventive(o)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        found = flagged_anomalies(ctx, case, c)
        first = found[0][0] if found else None
        orders = [o for o in corrective
                  if in_window(str(o["reported_date"]), case.p("start"), case.p("end"),
                               c["window"]) and known(case, c, str(o["reported_date"]))]
        after = [o for o in orders if first is not None and str(o["reported_date"])[:19] > first]
        return {"anomalies": len(found), "first_anomaly": first,
                "corrective_work_orders": [str(o["wo_id"]) for o in orders],
                "followed_by_corrective": bool(after) if first is not None else None}

    return Derivation(derive_all(anomaly_dims(ctx, case) | {"as_of": as_of_dims(case)}, derive))


@audits("chiller_ma_diagnosis_to_action")
def diagnosis_to_action(ctx: AuditContext, case: Case) -> Derivation:
    """The service rules on one record → failure codes → corrective orders with those codes
    from 14 days before the hour (up to the hour's end where the text says so) → the codes
    still to raise."""
    asset, ts = case.p("asset_id"), str(case.p("timestamp"))
    _, diag, invalid = record_diagnosis(ctx, asset, ts)
    since = (parse(ts) - timedelta(days=LOOKBACK_DAYS)).isoformat()
    corrective = [o for o in asset_work_orders(ctx, asset) if not is_preventive(o)
                  and str(o["reported_date"])[:19] >= since]

    hour_end = (parse(ts) + timedelta(hours=1)).isoformat()[:19]

    def counted(reported: str, until: str) -> bool:
        """Whether an order reported at ``reported`` is on record under reading ``until``."""
        if until == "hour_end":
            return reported < hour_end
        return until == "unbounded" or reported <= ts

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        refuse(c, invalid)
        found = diagnosis_answer(ctx, diag)
        if found["status"] != "fault":
            return {"findings": found["findings"], "failure_codes": [],
                    "existing_work_orders": [], "codes_to_raise": [],
                    "decision": "no corrective work needed"}
        codes = found["failure_codes"]
        pool = [o for o in corrective if known(case, c, str(o["reported_date"]))
                and counted(str(o["reported_date"])[:19], c["until"])]
        existing = sorted(str(o["wo_id"]) for o in pool if str(o["primary_code"]) in codes)
        to_raise = [x for x in codes if x not in {str(o["primary_code"]) for o in pool}]
        decision = ("raise corrective work orders for " + _joined(to_raise) if to_raise
                    else "corrective work already raised")
        return {"findings": found["findings"], "failure_codes": codes,
                "existing_work_orders": existing, "codes_to_raise": to_raise,
                "decision": decision}

    dims = {"validity": validity(invalid), "until": until_dims(case.text),
            "as_of": as_of_dims(case)}
    return Derivation(derive_all(dims, derive))


def until_dims(text: str) -> list[str]:
    """Which corrective orders the text counts as already raised, by when they were reported.

    "... reported from 14 days before that hour up to the end of that hour" counts the orders
    of the diagnosed hour itself and none after (``hour_end``). "From 14 days before that hour
    on" leaves the end open: to the record's time stamp (``the_hour``), to the hour's end, or
    every later order (``unbounded``).
    """
    if re.search(r"\bup to the end of (?:that|the|this) hour\b", text.lower()):
        return ["hour_end"]
    return ["unbounded", "the_hour", "hour_end"]
