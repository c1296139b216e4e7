"""Re-derivations of the chiller's work-order families from the raw work-order, alert and
failure-code documents.

A text that sets "today" is also read as of that day (``as_of=text_today``): documents
stamped after it were not written when the question was asked.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from datetime import timedelta
from typing import Any

from assets.chiller.audit.common import asset_alerts, is_preventive, known_by
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    Doc,
    NoSingleAnswer,
    asset_work_orders,
    audits,
    day_of,
    derive_all,
    in_window,
    next_day,
    parse,
    stamp,
    window_modes,
)


def as_of_dims(case: Case) -> list[str]:
    """``unbounded``, plus ``text_today`` when the text sets a today."""
    return ["unbounded", "text_today"] if known_by(case.text) else ["unbounded"]


def known(case: Case, c: dict[str, Any], when: str) -> bool:
    """Whether a document stamped ``when`` existed under the reading's as-of day."""
    edge = known_by(case.text) if c.get("as_of") == "text_today" else None
    return edge is None or str(when)[:19] < edge


def _orders(ctx: AuditContext, case: Case, c: dict[str, Any]) -> list[Doc]:
    return [o for o in asset_work_orders(ctx, case.p("asset_id"))
            if known(case, c, str(o["reported_date"]))]


def _in(case: Case, c: dict[str, Any], ts: str) -> bool:
    return in_window(ts, case.p("start"), case.p("end"), c["window"])


def _window_dims(case: Case) -> dict[str, list[Any]]:
    return {"window": window_modes(case.text, case.p("end")), "as_of": as_of_dims(case)}


@audits("chiller_wo_corrective_window")
def corrective_window(ctx: AuditContext, case: Case) -> Derivation:
    """Corrective work orders reported in a window, with their codes."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = [o for o in _orders(ctx, case, c)
                  if not is_preventive(o) and _in(case, c, str(o["reported_date"]))]
        return {"count": len(orders),
                "work_orders": {str(o["wo_id"]): str(o["primary_code"]) for o in orders}}

    return Derivation(derive_all(_window_dims(case), derive))


@audits("chiller_wo_window_orders")
def window_orders(ctx: AuditContext, case: Case) -> Derivation:
    """Work orders reported in a window, planned and corrective."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = [o for o in _orders(ctx, case, c) if _in(case, c, str(o["reported_date"]))]
        planned = sum(1 for o in orders if is_preventive(o))
        return {"count": len(orders), "preventive": planned, "corrective": len(orders) - planned}

    return Derivation(derive_all(_window_dims(case), derive))


@audits("chiller_wo_event_log")
def event_log(ctx: AuditContext, case: Case) -> Derivation:
    """Alerts (alert documents, by start time) and work orders (by reported date) of a
    window, and the alert rules seen."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        alerts = [a for a in asset_alerts(ctx, case.p("asset_id"))
                  if known(case, c, str(a["start_time"])) and _in(case, c, str(a["start_time"]))]
        orders = [o for o in _orders(ctx, case, c) if _in(case, c, str(o["reported_date"]))]
        return {"alerts": len(alerts), "work_orders": len(orders),
                "alert_types": sorted({str(a["rule_id"]) for a in alerts})}

    return Derivation(derive_all(_window_dims(case), derive))


@audits("chiller_wo_planned_visits")
def planned_visits(ctx: AuditContext, case: Case) -> Derivation:
    """Preventive work orders of a unit: how many and the day of the latest."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        days = sorted(day_of(str(o["reported_date"])) for o in _orders(ctx, case, c)
                      if is_preventive(o))
        return {"count": len(days), "latest": days[-1] if days else None}

    return Derivation(derive_all({"as_of": as_of_dims(case)}, derive))


@audits("chiller_wo_code_mix")
def code_mix(ctx: AuditContext, case: Case) -> Derivation:
    """A unit's work orders counted by primary code."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = _orders(ctx, case, c)
        counts = Counter(str(o["primary_code"]) for o in orders)
        return {"total": len(orders), "by_code": dict(sorted(counts.items()))}

    return Derivation(derive_all({"as_of": as_of_dims(case)}, derive))


def markov_next(own: list[str], fleet: list[list[str]], catalogue: list[str]
                ) -> tuple[str, float]:
    """Most likely code after ``own[-1]``: P(b|a) = (n[a][b] + q(b|a)) / (n[a] + 1) with the
    Laplace-smoothed fleet prior q(b|a) = (f[a][b] + 1) / (f[a] + |C|), C the catalogue and
    every code seen; a tie has no single answer."""
    last = own[-1]
    codes = sorted(set(catalogue) | set(own) | {x for s in fleet for x in s})

    def counts(seqs: list[list[str]]) -> Counter[str]:
        out: Counter[str] = Counter()
        for s in seqs:
            out.update(b for a, b in itertools.pairwise(s) if a == last)
        return out

    n, f = counts([own]), counts(fleet)
    n_tot, f_tot = sum(n.values()), sum(f.values())
    probs = {b: (n[b] + (f[b] + 1) / (f_tot + len(codes))) / (n_tot + 1) for b in codes}
    best = max(probs.values())
    top = [b for b in codes if abs(probs[b] - best) < 1e-12]
    if len(top) > 1:
        raise NoSingleAnswer(f"codes {top} are equally likely")
    return top[0], best


@audits("chiller_wo_next_code")
def next_code(ctx: AuditContext, case: Case) -> Derivation:
    """Next work-order code by the fleet-smoothed first-order Markov estimate (the text names
    the estimator)."""
    catalogue = [str(c["code"]) for c in ctx.raw.work_db("failure_codes")]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        everything = sorted((d for d in ctx.raw.work_db("wo_events")
                             if known(case, c, str(d["reported_date"]))),
                            key=lambda d: (str(d["reported_date"]), str(d["wo_id"])))
        seqs: dict[str, list[str]] = {}
        for d in everything:
            seqs.setdefault(str(d["equipment_id"]), []).append(str(d["primary_code"]))
        own = seqs.get(case.p("asset_id"), [])
        if not own:
            raise NoSingleAnswer("no work orders")
        code, p = markov_next(own, [seqs[e] for e in sorted(seqs)], catalogue)
        return {"last_code": own[-1], "predicted_code": code, "probability": p}

    return Derivation(derive_all({"as_of": as_of_dims(case)}, derive))


@audits("chiller_wo_alert_to_failure")
def alert_to_failure(ctx: AuditContext, case: Case) -> Derivation:
    """Alerts of a window followed by a corrective work order within N days, the mean lead
    time to the first order after each alert, and those orders."""
    asset, within = case.p("asset_id"), float(case.p("within_days"))
    start, end = case.p("start"), case.p("end")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        alerts = [a for a in asset_alerts(ctx, asset) if _in(case, c, str(a["start_time"]))
                  and known(case, c, str(a["start_time"]))]
        pool = [o for o in _orders(ctx, case, c) if not is_preventive(o)
                and str(o["reported_date"])[:19] >= stamp(start)]
        leads, ids, followed = [], set(), 0
        for a in alerts:
            t = parse(a["start_time"])
            if c["horizon"] == "exact":
                last = t + timedelta(days=within)
            else:  # any time on the N-th calendar day after the alert's day
                last = parse(next_day(stamp(day_of(a["start_time"])))) + timedelta(days=within)
                last -= timedelta(microseconds=1)
            hits = [o for o in pool if t < parse(o["reported_date"]) <= last]
            if c["lead"] == "first":
                hits = hits[:1]  # the pool is in reported order
            if hits:
                followed += 1
            for hit in hits:
                leads.append((parse(hit["reported_date"]) - t).total_seconds() / 3600.0)
                ids.add(str(hit["wo_id"]))
        return {"alerts": len(alerts), "followed": followed,
                "mean_lead_time_hours": sum(leads) / len(leads) if leads else None,
                "work_orders": sorted(ids)}

    # Orders up to N days after the window's end count ("followed within N days"); "within N
    # days" read as N × 24 h, or through the N-th calendar day after the alert's day. The lead
    # time runs to the first order after the alert where the text says so; otherwise every
    # order within the horizon may be taken as a lead time of its own (and listed).
    dims = {"window": window_modes(case.text, end), "as_of": as_of_dims(case),
            "horizon": ["exact", "calendar_days"],
            "lead": ["first"] if first_order_lead(case.text) else ["first", "every_order"]}
    return Derivation(derive_all(dims, derive))


_FIRST_ORDER = re.compile(r"\bto the first (?:corrective )?(?:work )?order\b")


def first_order_lead(text: str) -> bool:
    """Whether the text measures each lead time to the first corrective order after the
    alert ("... from the alert to the first corrective work order after it")."""
    return _FIRST_ORDER.search(text.lower()) is not None
