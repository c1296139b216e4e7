"""Re-derivations of the chiller's iot families: window statistics, site cooling, layout,
sensor listing and record gaps, from the raw telemetry and nameplates.

Window statistics of a quantity a faulty sensor corrupts (tonnage and kW/ton from a drifting
supply sensor) are also read with the readings outside the class's declared range left out
(``validity=invalid_excluded``): a reference whose figure changes then is reading-dependent.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from assets.chiller.audit.common import declared_ranges
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    Doc,
    NoSingleAnswer,
    argmax,
    audits,
    derive_all,
    sensor_pairs,
    window_docs,
    window_modes,
)

META = frozenset({"_id", "_rev", "asset_id", "site_name", "timestamp", "asset_class", "dataset"})


def _valid(ctx: AuditContext, doc: Doc, fields: list[str]) -> bool:
    ranges = declared_ranges(ctx)
    for f in fields:
        v = doc.get(f)
        if f in ranges and isinstance(v, int | float) and not isinstance(v, bool):
            lo, hi = ranges[f]
            if not lo <= float(v) <= hi:
                return False
    return True


def _any_invalid(ctx: AuditContext, docs: list[Doc], fields: list[str]) -> bool:
    return any(not _valid(ctx, d, fields) for d in docs)


@audits("chiller_iot_window_stat")
def window_stat(ctx: AuditContext, case: Case) -> Derivation:
    """Max, min or mean of a sensor over a window (the mean kW/ton over the hours that carry
    one; the mean tonnage over every hour, as the texts state)."""
    asset, sensor, stat = case.p("asset_id"), case.p("sensor"), case.p("stat")
    start, end = case.p("start"), case.p("end")
    checked = [sensor] + (["power_input", "tonnage"] if sensor == "kw_per_ton" else [])

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, start, end, c["window"])
        if c["hours"] == "running_only":
            docs = [d for d in docs if d.get("run_status") == 1]
        if c["validity"] == "invalid_excluded":
            docs = [d for d in docs if _valid(ctx, d, checked)]
        pairs = sensor_pairs(docs, sensor)
        if not pairs:
            raise NoSingleAnswer("no readings in the window")
        if stat == "mean":
            return {"value": float(np.mean([v for _, v in pairs])), "hours": len(pairs)}
        ts, value = argmax(pairs, 1.0 if stat == "max" else -1.0)
        return {"value": value, "timestamp": ts}

    window = window_modes(case.text, end)
    widest = window_docs(ctx, asset, start, end, "end_day_inclusive")
    dims: dict[str, list[Any]] = {
        "window": window,
        # An extreme may be read over the running hours only (the idle loop still logs
        # temperatures); the mean texts say which hours count.
        "hours": ["all"] if stat == "mean" else ["all", "running_only"],
        "validity": ["as_recorded", "invalid_excluded"] if _any_invalid(ctx, widest, checked)
        else ["as_recorded"],
    }
    return Derivation(derive_all(dims, derive))


@audits("chiller_iot_site_cooling")
def site_cooling(ctx: AuditContext, case: Case) -> Derivation:
    """Ton-hours of every chiller of a site over a window (Σ hourly tons × 1 h) and the
    largest contributor."""
    site, start, end = case.p("site"), case.p("start"), case.p("end")
    units = sorted(str(n["asset_id"]) for n in ctx.raw.nameplates() if n.get("site_name") == site)
    units = [u for u in units if ctx.raw.telemetry(u)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        totals = {}
        for u in units:
            docs = window_docs(ctx, u, start, end, c["window"])
            if c["validity"] == "invalid_excluded":
                docs = [d for d in docs if _valid(ctx, d, ["tonnage"])]
            totals[u] = float(sum(float(d.get("tonnage") or 0.0) for d in docs))
        if not totals:
            raise NoSingleAnswer(f"no unit with telemetry at {site}")
        unit, _ = argmax(list(totals.items()))
        return {"unit": unit, "ton_hours": totals}

    invalid = any(_any_invalid(ctx, window_docs(ctx, u, start, end, "end_day_inclusive"),
                               ["tonnage"]) for u in units)
    dims = {"window": window_modes(case.text, end),
            "validity": ["as_recorded", "invalid_excluded"] if invalid else ["as_recorded"]}
    return Derivation(derive_all(dims, derive))


@audits("chiller_iot_fleet_layout")
def fleet_layout(ctx: AuditContext, case: Case) -> Derivation:
    """The plant of a chiller, how many chillers it holds and how many plants there are."""
    asset = case.p("asset_id")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        plates = ctx.raw.nameplates()
        plate = ctx.raw.nameplate(asset)
        if plate is None:
            raise NoSingleAnswer(f"no nameplate of {asset}")
        site = str(plate["site_name"])
        return {"site": site,
                "units_at_site": sum(1 for p in plates if p.get("site_name") == site),
                "sites": len({str(p["site_name"]) for p in plates})}

    return Derivation(derive_all({"_": [None]}, derive))


@audits("chiller_iot_sensor_list")
def sensor_list(ctx: AuditContext, case: Case) -> Derivation:
    """How many quantities a unit's telemetry carries, and whether a named one is among them."""
    asset = case.p("asset_id")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        docs = ctx.raw.telemetry(asset)
        if not docs:
            raise NoSingleAnswer(f"no telemetry of {asset}")
        names = {k for d in docs for k in d if k not in META}
        return {"sensor_count": len(names), "streams_sensor": case.p("sensor") in names}

    return Derivation(derive_all({"_": [None]}, derive))


@audits("chiller_iot_record_gaps")
def record_gaps(ctx: AuditContext, case: Case) -> Derivation:
    """Whole hours of the window without a record."""
    asset, start, end = case.p("asset_id"), case.p("start"), case.p("end")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, start, end, c["window"])
        have = {str(d["timestamp"])[:19] for d in docs}
        t = datetime.fromisoformat(str(start)[:10])
        stop = datetime.fromisoformat(str(end)[:10])
        if c["window"] == "end_day_inclusive":
            stop += timedelta(days=1)
        elif c["window"] == "end_instant_inclusive":
            stop += timedelta(hours=1)
        gaps: list[list[str]] = []
        expected, missing, prev_missing = 0, 0, False
        while t < stop:
            expected += 1
            ts = t.isoformat()
            if ts not in have:
                missing += 1
                if prev_missing:
                    gaps[-1][1] = ts
                else:
                    gaps.append([ts, ts])
            prev_missing = ts not in have
            t += timedelta(hours=1)
        return {"expected_hours": expected, "records": len(docs), "missing_hours": missing,
                "gaps": gaps}

    return Derivation(derive_all({"window": window_modes(case.text, end)}, derive))
