"""Re-derivations of the transformer's data-quality families from the raw telemetry.

Own code, not the data-quality tool: consecutive equal readings, expected whole hours without
a record, and alarm contacts coming on judged against the nameplate's alarm settings.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from assets.transformer.audit.common import plate_settings
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    asset_work_orders,
    audits,
    derive_all,
    in_window,
    stamp,
    window_docs,
    window_modes,
)

ALARM_SETTING = {"oti_a": "oti_alarm", "wti_a": "wti_alarm"}


def _runs(docs: list[dict[str, Any]], sensor: str, n: int) -> list[dict[str, Any]]:
    vals = [(str(d["timestamp"]), d[sensor]) for d in docs if d.get(sensor) is not None]
    out: list[dict[str, Any]] = []
    start = 0
    for i in range(1, len(vals) + 1):
        if i == len(vals) or vals[i][1] != vals[start][1]:
            if i - start >= n and vals[start][1] != 0:
                out.append({"first": vals[start][0], "last": vals[i - 1][0],
                            "count": i - start, "value": float(vals[start][1])})
            start = i
    return out


def _alarms(ctx: AuditContext, asset: str, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    settings = plate_settings(ctx.raw.nameplate(asset))
    found = []
    for flag, key in ALARM_SETTING.items():
        sensor, before = flag[:3], 0
        for d in docs:
            if d.get(flag) is None:
                continue
            if int(d[flag]) == 1 and before != 1:
                reading = d.get(sensor)
                found.append({"timestamp": str(d["timestamp"]), "contact": flag,
                              "reading": reading, "setting": settings[key],
                              "real": reading is not None and reading >= settings[key]})
            before = int(d[flag])
    return sorted(found, key=lambda r: (r["timestamp"], r["contact"]))


@audits("iot_sensor_stuck")
def iot_sensor_stuck(ctx: AuditContext, case: Case) -> Derivation:
    """Runs of at least N equal hourly readings of an indicator in a window."""
    asset, sensor, n = case.p("asset_id"), case.p("sensor"), int(case.p("min_run", 6))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, case.p("start"), case.p("end"), c["window"])
        runs = _runs(docs, sensor, n)
        return {"stuck": bool(runs), "runs": runs}

    return Derivation(derive_all({"window": window_modes(case.text, case.p("end"))}, derive))


@audits("iot_telemetry_gaps")
def iot_telemetry_gaps(ctx: AuditContext, case: Case) -> Derivation:
    """Whole hours of the window without a reading of the sensor."""
    asset, sensor = case.p("asset_id"), case.p("sensor")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, case.p("start"), case.p("end"), c["window"])
        have = {str(d["timestamp"])[:19] for d in docs if d.get(sensor) is not None}
        t = datetime.fromisoformat(str(case.p("start"))[:10])
        end = datetime.fromisoformat(str(case.p("end"))[:10])
        if c["window"] == "end_day_inclusive":
            end += timedelta(days=1)
        elif c["window"] == "end_instant_inclusive":
            end += timedelta(hours=1)
        gaps: list[dict[str, Any]] = []
        expected = 0
        while t < end:
            expected += 1
            ts = t.isoformat()
            if ts not in have:
                if gaps and gaps[-1]["next"] == ts:
                    gaps[-1] |= {"last": ts, "missing": gaps[-1]["missing"] + 1}
                else:
                    gaps.append({"first": ts, "last": ts, "missing": 1})
                gaps[-1]["next"] = (t + timedelta(hours=1)).isoformat()
            t += timedelta(hours=1)
        return {"missing_hours": sum(g["missing"] for g in gaps), "expected_hours": expected,
                "gaps": [{k: g[k] for k in ("first", "last", "missing")} for g in gaps]}

    return Derivation(derive_all({"window": window_modes(case.text, case.p("end"))}, derive))


@audits("iot_alarm_triage")
def iot_alarm_triage(ctx: AuditContext, case: Case) -> Derivation:
    """Alarm contacts coming on, genuine when the indicator was at or above the setting."""
    asset = case.p("asset_id")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, case.p("start"), case.p("end"), c["window"])
        alarms = _alarms(ctx, asset, docs)

        def rows(real: bool) -> list[dict[str, Any]]:
            return [{k: a[k] for k in ("timestamp", "contact", "reading", "setting")}
                    for a in alarms if a["real"] is real]

        return {"alarms": len(alarms), "genuine": rows(True), "spurious": rows(False)}

    return Derivation(derive_all({"window": window_modes(case.text, case.p("end"))}, derive))


def _followup_dims(case: Case) -> dict[str, list[Any]]:
    """The window's end readings, and whether orders after the window count as "since" (not
    when the text calls the window's end today: nothing after it was on record then)."""
    today = re.search(r"\btoday\b", case.text, re.IGNORECASE) is not None
    return {"window": window_modes(case.text, case.p("end")),
            "orders": ["to_window_end"] if today else ["to_window_end", "after_window_too"]}


def _followup(ctx: AuditContext, case: Case, began: str | None,
              c: dict[str, Any]) -> dict[str, Any]:
    if began is None:
        return {"fault_found": False, "fault_start": None, "instrument_orders": [],
                "action": "none", "code": None}
    codes = {str(c["code"]) for c in ctx.raw.work_db("failure_codes")}
    code = "IC-SENS" if "IC-SENS" in codes else None
    # reported from the fault's day up to the window's end (as the text's window reads)
    end = None if c["orders"] == "after_window_too" else str(case.p("end"))
    found = sorted(str(o["wo_id"]) for o in asset_work_orders(ctx, case.p("asset_id"))
                   if o.get("primary_code") == code
                   and str(o["reported_date"])[:10] >= began[:10]
                   and in_window(stamp(str(o["reported_date"])), None, end, c["window"]))
    return {"fault_found": True, "fault_start": began, "instrument_orders": found,
            "action": "already_raised" if found else "raise_order", "code": code}


@audits("ma_stuck_sensor_workorder")
def ma_stuck_sensor_workorder(ctx: AuditContext, case: Case) -> Derivation:
    """A stuck indicator's first reading in the window, then instrument orders since."""
    asset, sensor, n = case.p("asset_id"), case.p("sensor"), int(case.p("min_run", 6))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, case.p("start"), case.p("end"), c["window"])
        runs = _runs(docs, sensor, n)
        return _followup(ctx, case, runs[0]["first"] if runs else None, c)

    return Derivation(derive_all(_followup_dims(case), derive))


@audits("ma_alarm_contact_workorder")
def ma_alarm_contact_workorder(ctx: AuditContext, case: Case) -> Derivation:
    """The first alarm from a faulty contact in the window, then instrument orders since."""
    asset = case.p("asset_id")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = window_docs(ctx, asset, case.p("start"), case.p("end"), c["window"])
        bad = [a for a in _alarms(ctx, asset, docs) if not a["real"]]
        return _followup(ctx, case, bad[0]["timestamp"] if bad else None, c)

    return Derivation(derive_all(_followup_dims(case), derive))
