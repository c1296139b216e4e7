"""Re-derivations of the transformer's iot families (readings, coverage, sites)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    argmax,
    audits,
    day_of,
    derive_all,
    sensor_pairs,
    window_docs,
    window_modes,
)


@audits("iot_latest_value")
def iot_latest_value(ctx: AuditContext, case: Case) -> Derivation:
    """Latest reading of a sensor (and the last day's peak)."""
    asset, sensor = case.p("asset_id"), case.p("sensor")
    last_day = case.p("last_day")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        pairs = sensor_pairs(ctx.raw.telemetry(asset), sensor)
        if not pairs:
            raise NoSingleAnswer("no readings")
        ts, value = pairs[-1]
        answer: dict[str, Any] = {"timestamp": ts, "value": value}
        if case.p("with_day_max"):
            day = last_day or day_of(ts)
            t_max, v_max = argmax([(t, v) for t, v in pairs if day_of(t) == day])
            answer |= {"day_max": v_max, "day_max_timestamp": t_max}
        return answer

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_sensor_stat")
def iot_sensor_stat(ctx: AuditContext, case: Case) -> Derivation:
    """Max, min or mean of a sensor over a window."""
    asset, sensor, stat = case.p("asset_id"), case.p("sensor"), case.p("stat")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, case.p("start"), case.p("end"), c["window"])
        pairs = sensor_pairs(docs, sensor)
        if not pairs:
            raise NoSingleAnswer("no readings in the window")
        if stat == "mean":
            return {"value": float(np.mean([v for _, v in pairs])), "count": len(pairs)}
        ts, value = argmax(pairs, 1.0 if stat == "max" else -1.0)
        answer: dict[str, Any] = {"value": value}
        if case.p("with_time"):
            answer["timestamp"] = ts
        return answer

    return Derivation(derive_all({"window": window_modes(case.text, case.p("end"))}, derive))


@audits("iot_site_threshold")
def iot_site_threshold(ctx: AuditContext, case: Case) -> Derivation:
    """Units of a site whose sensor went strictly above a threshold in a window."""
    site, sensor, threshold = case.p("site"), case.p("sensor"), float(case.p("threshold"))
    units = [str(n["asset_id"]) for n in ctx.raw.nameplates() if n.get("site_name") == site]
    units = [u for u in units if ctx.raw.telemetry(u)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        peaks = {}
        for u in units:
            docs = window_docs(ctx, u, case.p("start"), case.p("end"), c["window"])
            pairs = sensor_pairs(docs, sensor)
            if not pairs:
                raise NoSingleAnswer(f"{u} has no readings in the window")
            peaks[u] = max(v for _, v in pairs)
        above = sorted(u for u, v in peaks.items() if v > threshold)
        answer: dict[str, Any] = {"assets_above": above}
        if case.p("with_peaks"):
            answer["peaks"] = {u: peaks[u] for u in above}
        return answer

    return Derivation(derive_all({"window": window_modes(case.text, case.p("end"))}, derive))


@audits("iot_data_coverage")
def iot_data_coverage(ctx: AuditContext, case: Case) -> Derivation:
    """First, last and count of a sensor's telemetry or of the oil samples."""
    asset = case.p("asset_id")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        if case.p("source") == "oil":
            stamps = [str(d["timestamp"])[:19] for d in ctx.raw.oil(asset)]
        else:
            stamps = [t for t, _ in sensor_pairs(ctx.raw.telemetry(asset), case.p("sensor"))]
        if not stamps:
            raise NoSingleAnswer("no records")
        return {"first": stamps[0], "last": stamps[-1], "count": len(stamps)}

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_oil_latest")
def iot_oil_latest(ctx: AuditContext, case: Case) -> Derivation:
    """A quantity of the latest oil sample (and its change since the previous one)."""
    asset, q = case.p("asset_id"), case.p("quantity")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        rows = [d for d in ctx.raw.oil(asset) if d.get(q) is not None]
        if not rows:
            raise NoSingleAnswer("no sample carries the quantity")
        answer: dict[str, Any] = {"timestamp": str(rows[-1]["timestamp"])[:19],
                                  "value": rows[-1][q]}
        if case.p("with_change"):
            if len(rows) < 2:
                raise NoSingleAnswer("one sample only")
            answer["change"] = float(rows[-1][q]) - float(rows[-2][q])
            answer["previous_timestamp"] = str(rows[-2]["timestamp"])[:19]
        return answer

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_site_units")
def iot_site_units(ctx: AuditContext, case: Case) -> Derivation:
    """Units of a site (and the one with the highest rating)."""
    site = case.p("site")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        plates = [n for n in ctx.raw.nameplates() if n.get("site_name") == site]
        answer: dict[str, Any] = {"asset_ids": sorted(str(n["asset_id"]) for n in plates)}
        if case.p("with_largest"):
            largest, mva = argmax([(str(n["asset_id"]), float(n.get("rated_mva") or 0))
                                    for n in plates])
            answer |= {"largest": largest, "largest_rated_mva": mva}
        return answer

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_fleet_overview")
def iot_fleet_overview(ctx: AuditContext, case: Case) -> Derivation:
    """Sites and unit counts."""

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        counts = Counter(str(n["site_name"]) for n in ctx.raw.nameplates())
        sites = sorted(counts)
        return {"sites": sites, "units_per_site": {s: counts[s] for s in sites}}

    return Derivation(derive_all({"_": [None]}, derive))
