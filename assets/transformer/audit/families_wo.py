"""Re-derivations of the transformer's work-order families."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta
from typing import Any

from assets.transformer.audit import standards
from assets.transformer.audit.common import code_for, is_preventive, sample_gases
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    Doc,
    NoSingleAnswer,
    NotApplicable,
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


@audits("wo_count")
def wo_count(ctx: AuditContext, case: Case) -> Derivation:
    """Work orders of a kind reported in a window."""
    asset, kind = case.p("asset_id"), case.p("kind", "all")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = [o for o in asset_work_orders(ctx, asset)
                  if in_window(str(o["reported_date"]), case.p("start"), case.p("end"),
                               c["window"])
                  and (kind == "all" or is_preventive(o) == (kind == "preventive"))]
        answer: dict[str, Any] = {"count": len(orders)}
        if case.p("with_codes"):
            answer["wo_codes"] = {str(o["wo_id"]): str(o["primary_code"]) for o in orders}
        return answer

    return Derivation(derive_all({"window": window_modes(case.text, case.p("end"))}, derive))


@audits("wo_distribution")
def wo_distribution(ctx: AuditContext, case: Case) -> Derivation:
    """Preventive / corrective split in a window (and the most common code)."""
    asset = case.p("asset_id")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = [o for o in asset_work_orders(ctx, asset)
                  if in_window(str(o["reported_date"]), case.p("start"), case.p("end"),
                               c["window"])]
        prev = sum(1 for o in orders if is_preventive(o))
        answer: dict[str, Any] = {
            "total": len(orders),
            "by_type": {"preventive": prev, "corrective": len(orders) - prev},
        }
        if case.p("with_mode"):
            ranked = Counter(str(o["primary_code"]) for o in orders).most_common()
            if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
                raise NoSingleAnswer("no single most common code")
            answer["most_common_code"] = ranked[0][0]
        return answer

    return Derivation(derive_all({"window": window_modes(case.text, case.p("end"))}, derive))


def _markov(own: list[str], fleet: list[list[str]], catalogue: list[str], estimator: str
            ) -> dict[str, Any]:
    """Next code after ``own[-1]`` by a first-order Markov chain.

    ``fleet_prior``: P(b|a) = (n[a][b] + q(b|a)) / (n[a] + 1) with the Laplace-smoothed fleet
    prior q(b|a) = (f[a][b] + 1) / (f[a] + |C|) (the estimator the tool catalogue
    documents); ``own_mle``: P(b|a) = n[a][b] / n[a] from the unit's own history alone.
    Ties go to the code that sorts first.
    """
    last = own[-1]
    codes = sorted(set(catalogue) | {c for s in fleet for c in s} | set(own))

    def counts(seqs: list[list[str]]) -> Counter[str]:
        c: Counter[str] = Counter()
        for s in seqs:
            for a, b in itertools.pairwise(s):
                if a == last:
                    c[b] += 1
        return c

    n, f = counts([own]), counts(fleet)
    n_tot, f_tot = sum(n.values()), sum(f.values())
    if estimator == "own_mle":
        if n_tot == 0:
            raise NotApplicable(f"no own transition out of {last}")
        probs = {b: n[b] / n_tot for b in codes}
    else:
        probs = {b: (n[b] + (f[b] + 1) / (f_tot + len(codes))) / (n_tot + 1) for b in codes}
    best = max(probs.values())
    predicted = next(b for b in codes if probs[b] == best)
    return {"last_code": last, "predicted_code": predicted, "probability": probs[predicted]}


@audits("wo_next_prediction")
def wo_next_prediction(ctx: AuditContext, case: Case) -> Derivation:
    """Most likely next work-order code (as of a date)."""
    asset, as_of = case.p("asset_id"), case.p("as_of") or ""
    catalogue = [str(c["code"]) for c in ctx.raw.work_db("failure_codes")]
    everything = sorted(ctx.raw.work_db("wo_events"),
                        key=lambda d: (str(d["reported_date"]), str(d["wo_id"])))
    # "before 8 July 2026", "that day excluded": the as-of day is left out (as a window end)
    pinned = not as_of or window_modes(case.text, as_of) == ["end_exclusive"]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        end = None
        if as_of:
            end = stamp(as_of) if c["as_of"] == "exclusive" else next_day(as_of)
        kept = [d for d in everything if end is None or str(d["reported_date"])[:19] < end]
        seqs: dict[str, list[str]] = {}
        for d in kept:
            seqs.setdefault(str(d["equipment_id"]), []).append(str(d["primary_code"]))
        own = seqs.get(asset, [])
        if not own:
            raise NoSingleAnswer("no work orders")
        return _markov(own, [seqs[e] for e in sorted(seqs)], catalogue, c["estimator"])

    named = "fleet" in case.text.lower()  # "fleet-smoothed ... Markov estimate" pins it
    dims = {"as_of": ["exclusive"] if pinned else ["exclusive", "inclusive"],
            "estimator": ["fleet_prior"] if named else ["fleet_prior", "own_mle"]}
    return Derivation(derive_all(dims, derive))


@audits("wo_alert_followup")
def wo_alert_followup(ctx: AuditContext, case: Case) -> Derivation:
    """Alerts in a window followed by corrective work within N days."""
    asset = case.p("asset_id")
    within = float(case.p("within_days"))
    alerts_all = sorted((a for a in ctx.raw.work_db("alert_events")
                         if a.get("equipment_id") == asset), key=lambda a: str(a["start_time"]))
    corrective = [o for o in asset_work_orders(ctx, asset) if not is_preventive(o)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        start, end = case.p("start"), case.p("end")
        alerts = [a for a in alerts_all if in_window(str(a["start_time"]), start, end,
                                                     c["window"])]
        pool = [o for o in corrective if str(o["reported_date"])[:19] >= stamp(start)]
        if c["orders"] == "window_only":
            pool = [o for o in pool if in_window(str(o["reported_date"]), start, end, c["window"])]
        followed, ids = 0, set()
        for a in alerts:
            t = parse(a["start_time"])
            if c["horizon"] == "exact":
                last = t + timedelta(days=within)
            else:  # any time on the N-th calendar day after the alert's day
                last = parse(next_day(stamp(day_of(a["start_time"])))) + timedelta(days=within)
                last -= timedelta(microseconds=1)
            hits = sorted((o for o in pool if t < parse(o["reported_date"]) <= last),
                          key=lambda o: (str(o["reported_date"]), str(o["wo_id"])))
            if hits:
                followed += 1
                # every order that follows the alert, or the first only
                ids |= {str(o["wo_id"]) for o in (hits if c["listed"] == "every" else hits[:1])}
        return {"alerts": len(alerts), "followed": followed, "work_orders": sorted(ids)}

    window = window_modes(case.text, case.p("end"))
    # "the orders" is the complete list (project convention); a text may still be read as
    # asking for the first order after each alert unless it says "not only the first"
    every = "not only the first" in case.text.lower()
    dims = {"window": window, "orders": ["window_only", "through_horizon"],
            "horizon": ["exact", "calendar_days"],
            "listed": ["every"] if every else ["every", "first_per_alert"]}
    return Derivation(derive_all(dims, derive))


def _dga_on(ctx: AuditContext, asset: str, day: str) -> tuple[Doc | None, set[str]]:
    """The sample taken on ``day`` and every class a reading of the text gives it."""
    hits = [s for s in ctx.raw.oil(asset) if day_of(s["timestamp"]) == day]
    if len(hits) != 1:
        return None, set()
    gases = sample_gases(hits[0])
    classes = {standards.dga_fault(gases, m, g, p)
               for m in ("iec", "duval", "rogers")
               for g in ("iec_and_ieee", "iec_typical", "ieee_condition1")
               for p in ("severe_first", "d1_first")}
    return hits[0], classes


@audits("wo_decision_after_diagnosis")
def wo_decision_after_diagnosis(ctx: AuditContext, case: Case) -> Derivation:
    """Corrective work for a stated diagnosis since its date; the premise is checked."""
    asset, fault, since = case.p("asset_id"), case.p("fault"), case.p("start")
    code = code_for(ctx, fault)
    corrective = [o for o in asset_work_orders(ctx, asset) if not is_preventive(o)]

    sample, classes = _dga_on(ctx, asset, since)
    generic = [str(c["code"]) for c in ctx.raw.work_db("failure_codes")
               if not c.get("fault_type") and "DGA" in str(c["code"]).upper()] or ["DGA-ABN"]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        if c["since"] == "from_the_date":
            edge = stamp(since)
        elif sample is None:
            raise NotApplicable("no sample to take the time of")
        else:
            edge = str(sample["timestamp"])[:19]
        accepted = {code} | (set(generic) if c["codes"] == "generic_counts" else set())
        raised = [str(o["wo_id"]) for o in corrective
                  if str(o["primary_code"]) in accepted and str(o["reported_date"])[:19] >= edge]
        return {
            "failure_code": code,
            "already_raised": bool(raised),
            "work_orders": raised,
            "decision": "already raised" if raised else f"raise a corrective work order ({code})",
        }

    premises = []
    if sample is None:
        premises.append(f"no oil sample of {asset} on {since}: the stated DGA diagnosis has no "
                        "sample behind it")
    elif fault not in classes:
        premises.append(f"the {since} sample of {asset} classifies as {sorted(classes)} under "
                        f"every method, never {fault}")
    dims = {"since": ["from_the_date", "from_the_sample_time"],
            "codes": ["exact", "generic_counts"]}
    return Derivation(derive_all(dims, derive), premises_false=premises)
