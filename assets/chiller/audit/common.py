"""Shared reading of raw documents for the chiller's family re-derivations."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import numpy as np

from eval.audit.api import (
    AuditContext,
    Case,
    Doc,
    NoSingleAnswer,
    next_day,
    parse,
    sensor_pairs,
    series,
    stamp,
    window_docs,
    window_modes,
)

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")


def record_at(ctx: AuditContext, asset_id: str, ts: str) -> Doc:
    """The unit's one telemetry record stamped ``ts``."""
    hits = [d for d in ctx.raw.telemetry(asset_id) if str(d["timestamp"])[:19] == ts[:19]]
    if len(hits) != 1:
        raise NoSingleAnswer(f"{len(hits)} records of {asset_id} at {ts}")
    return hits[0]


def declared_ranges(ctx: AuditContext) -> dict[str, tuple[float, float]]:
    """Each sensor's range as the class definition declares it."""
    out = {}
    for s in ctx.sensors:
        rng = s.get("range")
        if isinstance(rng, list | tuple) and len(rng) == 2:
            out[str(s["name"])] = (float(rng[0]), float(rng[1]))
    return out


def invalid_readings(ctx: AuditContext, doc: Doc, fields: list[str]) -> list[str]:
    """The fields of a record whose value lies outside the declared range (a faulty reading
    an engineer would not report as a figure), described."""
    ranges = declared_ranges(ctx)
    out = []
    for f in fields:
        v = doc.get(f)
        if f in ranges and isinstance(v, int | float) and not isinstance(v, bool):
            lo, hi = ranges[f]
            if not lo <= float(v) <= hi:
                out.append(f"{f} {v} at {str(doc['timestamp'])[:19]} outside the declared "
                           f"range [{lo:g}, {hi:g}]")
    return out


def numbers(doc: Doc, fields: list[str]) -> dict[str, float]:
    """The named readings of a record as floats (absent ones left out)."""
    return {f: float(doc[f]) for f in fields if isinstance(doc.get(f), int | float)}


# -- work orders, alerts -----------------------------------------------------------------------


def is_preventive(d: Doc) -> bool:
    """Whether a work order is preventive (``wo_type``, else the upstream "TRUE"/"FALSE")."""
    if isinstance(d.get("wo_type"), str):
        return str(d["wo_type"]).lower() == "preventive"
    value = d.get("preventive")
    return value.strip().upper() == "TRUE" if isinstance(value, str) else bool(value)


def asset_alerts(ctx: AuditContext, asset_id: str) -> list[Doc]:
    """The unit's alerts by start time."""
    return sorted((a for a in ctx.raw.work_db("alert_events") if a.get("equipment_id") == asset_id),
                  key=lambda a: str(a["start_time"]))


# -- "today" in a text ---------------------------------------------------------------------------

_TODAY = re.compile(r"today(?: is|,| being| =)?\s*(?:is\s+)?(\d{4}-\d{2}-\d{2})")


def text_today(text: str) -> date | None:
    """The day a text calls today ("today is 2025-07-20", "as of today, 2025-07-12",
    "assume today is ...", "today being ..."), if it names one."""
    m = _TODAY.search(text.lower())
    if m is None:
        return None
    try:
        return date.fromisoformat(m.group(1))
    except ValueError:
        return None


def known_by(text: str) -> str | None:
    """The first instant after the text's "today" (documents stamped from then on were not
    yet written when the question was asked), or None when the text sets no today."""
    today = text_today(text)
    return None if today is None else (today + timedelta(days=1)).isoformat() + "T00:00:00"


# -- anomalies ----------------------------------------------------------------------------------

BASELINE_WEEKS = 4


def anomaly_dims(ctx: AuditContext, case: Case) -> dict[str, list[Any]]:
    """Readings of a chiller anomaly question.

    The texts pin the usual level (same weekday and hour over the window and the four weeks
    before, gaps filled linearly), the counting (hours singly) and the cut-off; not where the
    robust spread (the MAD) is taken unless they say so: over the residuals of that whole
    reference (primary), or of the window alone. Nor, unless they say "from its first
    reading", whether hours of the window before its first reading (filled in linearly from
    the reference) are scored.
    """
    low = case.text.lower()
    spread = ["reference", "window_only"]
    if "spread" in low or "mad " in low or "median absolute" in low:
        spread = ["window_only"] if ("window alone" in low or "window only" in low) \
            else ["reference"]
    dims: dict[str, list[Any]] = {"window": window_modes(case.text, case.p("end")),
                                  "spread": spread}
    start, sensor = stamp(case.p("start")), case.p("sensor")
    day = [d for d in ctx.raw.telemetry(case.p("asset_id"))
           if start <= str(d["timestamp"])[:19] < next_day(start)]
    if not any(str(d["timestamp"])[:19] == start and d.get(sensor) is not None for d in day):
        dims["scored"] = (["from_first_reading"] if "from its first reading" in low
                          or "from the window's first reading" in low
                          else ["from_window_start", "from_first_reading"])
    return dims


def flagged_anomalies(ctx: AuditContext, case: Case, c: dict[str, Any]
                      ) -> list[tuple[str, float]]:
    """The readings flagged under one reading of a chiller anomaly question: weekday × hour
    median baseline over the window and the four weeks before (the audit's series module),
    the MAD over that reference or the window alone."""
    start = case.p("start")
    begin = (parse(stamp(start)) - timedelta(weeks=BASELINE_WEEKS)).isoformat()
    docs = window_docs(ctx, case.p("asset_id"), begin, case.p("end"), c["window"])
    pairs = sensor_pairs(docs, case.p("sensor"))
    inside = [p for p in pairs if p[0] >= stamp(start)]
    if len(inside) < 2 * series.PERIOD:
        raise NoSingleAnswer(f"{len(inside)} readings in the window, fewer than two days")
    grid, values = series.hourly_grid([t for t, _ in pairs], [v for _, v in pairs])
    # Hours of the window before its first reading are filled from the reference's last
    # reading: scored as the window's (primary) or left to the reference.
    first = inside[0][0] if c.get("scored") == "from_first_reading" else stamp(start)
    score_from = series.epoch(first)
    threshold = float(case.p("threshold", 3.5))
    if c["spread"] == "reference":
        return series.weekly_anomalies(grid, values, score_from, threshold)
    # The same baseline, residuals scored with the window's own median and MAD.
    expected = _weekly_expected(grid, values)
    idx = [i for i, g in enumerate(grid) if g >= score_from]
    z = series.modified_z(np.array([values[i] - expected[i] for i in idx]))
    return [(series.iso(grid[i]), float(s)) for i, s in zip(idx, z, strict=True)
            if abs(s) > threshold]


def _weekly_expected(grid: list[int], values: list[float], min_weeks: int = 3) -> list[float]:
    """The weekday × hour median baseline of :func:`series.weekly_anomalies` (day type and
    hour, then hour, when a slot holds fewer than ``min_weeks`` readings)."""
    x = np.array(values, dtype=float)
    secs = np.array(grid, dtype=np.int64)
    hours = (secs // 3600) % series.PERIOD
    days = np.array([series.weekday(int(t)) for t in secs])
    weekend = days >= 5
    out = []
    for i in range(x.size):
        for sel in ((days == days[i]) & (hours == hours[i]),
                    (weekend == weekend[i]) & (hours == hours[i]), hours == hours[i]):
            if sel.sum() >= min_weeks:
                break
        out.append(float(np.median(x[sel])))
    return out
