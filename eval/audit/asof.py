"""Does a reference rest on a document from after the moment its text asks as of?

The generator's gate (:mod:`generator.generate.draw.asof`) refuses such draws from the tool
outputs it made; this check re-does it on a written run from the raw documents, with no
tool: the moment is the earliest of the seed's declared ``as_of`` and the day the text calls
today ("today is 2026-06-11", "taking 2026-06-11 as today"), an ISO day standing for its
midnight; a document counts as after it when it is time-stamped at or after it (a day-only
stamp covers its whole day). The documents a reference rests on are

- those its expected tool calls read: the work orders, events or alerts of the equipment a
  work-order call names in its window (``start_date`` / ``end_date``; no end = to the
  last), and the telemetry or oil samples of the asset a data call names in its window
  (``start`` / ``final``);
- those its answer names: a work order or event by id, or a time stamp under a document's
  key (``timestamp``, ``reported_date``, ``event_time``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from eval.reader import read

if TYPE_CHECKING:
    from eval.audit.core import AuditContext, Case

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# "today is D", "today being D", "today's date is D", "today: D", "as of today, D", "with
# today as D", "counting from today, D", "today D"
_TODAY_BEFORE = re.compile(
    r"\btoday(?:'s date)?\s*(?:is|being|as|:|,|=)?\s*(?:\(|the\s+)?$", re.IGNORECASE)
# "D today", "D as today", "D as the current date"
_TODAY_AFTER = re.compile(r"\s*\)?\s*(?:as\s+)?(?:today\b|the current date\b)", re.IGNORECASE)
# A forecast's `timestamp` is no document: only the stamps of orders and events count.
_ANSWER_STAMPS = ("reported_date", "event_time", "start_time")


def _instant(value: str) -> datetime:
    text = str(value)
    if _DAY.fullmatch(text[:10]) and len(text) == 10:
        return datetime.combine(date.fromisoformat(text), datetime.min.time())
    return datetime.fromisoformat(text[:19])


def after(stamp: str, moment: datetime) -> bool:
    """A document stamped ``stamp`` may postdate ``moment`` (a day-only stamp: any hour)."""
    try:
        t = _instant(stamp)
    except ValueError:
        return False
    if len(str(stamp)) == 10:
        return t + timedelta(days=1) > moment
    return t >= moment


def stated_today(text: str) -> date | None:
    """The day a text calls today: a date right after "today is", "today being", "taking
    ... as today", "as of today,", "today:" and the like, or right before "today" ("it's
    2026-06-11 today", "2026-06-11 as today"). A "today" of its own ("I'm at the plant
    today.") states no day."""
    for w in read(text).whens:
        before, rest = text[max(0, w.start - 30):w.start], text[w.end:w.end + 12]
        if _TODAY_BEFORE.search(before) or _TODAY_AFTER.match(rest):
            return date.fromisoformat(w.day)
    return None


def as_of_moment(case: Case) -> tuple[datetime, str] | None:
    """The earliest of the seed's declared moment and the text's today, with where it came
    from; None when neither is there."""
    found: list[tuple[datetime, str]] = []
    declared = (case.seed or {}).get("as_of")
    if isinstance(declared, str) and declared:
        with contextlib.suppress(ValueError):
            found.append((_instant(declared), f"declared as of {declared}"))
    today = stated_today(case.text)
    if today is not None:
        found.append((datetime.combine(today, datetime.min.time()),
                      f"the text's today {today.isoformat()}"))
    return min(found) if found else None


def _wo_docs(ctx: AuditContext, name: str, equipment: str) -> Iterator[tuple[str, str, str]]:
    """(id, stamp, kind) of the documents a work-order call of ``name`` reads."""
    low = name.lower()
    if re.search(r"(?:^|_)events?(?:_|$)", low):
        for d in ctx.raw.work_db("events"):
            if d.get("equipment_id") == equipment:
                yield str(d.get("event_id")), str(d.get("event_time")), "event"
        return
    if re.search(r"(?:^|_)alerts?(?:_|$)", low):
        for d in ctx.raw.work_db("alert_events"):
            if d.get("equipment_id") == equipment:
                yield str(d.get("rule_id")), str(d.get("start_time")), "alert"
    for d in ctx.raw.work_db("wo_events"):
        if d.get("equipment_id") != equipment:
            continue
        kind = str(d.get("wo_type") or "")
        if ("corrective" in low and kind != "corrective") or (
                "preventive" in low and kind != "preventive"):
            continue
        yield str(d.get("wo_id")), str(d.get("reported_date")), "work order"


def _linked_orders(ctx: AuditContext, equipment: str, args: Mapping[str, Any],
                   horizon: float) -> list[tuple[str, str]]:
    """(id, stamp) of the corrective order an alert-to-work-order call links to each alert of
    its window: the first reported within ``horizon`` days after the alert (it may lie past
    the window's end)."""
    alerts = [_instant(str(a["start_time"])) for a in ctx.raw.work_db("alert_events")
              if a.get("equipment_id") == equipment
              and _in(str(a.get("start_time")), args.get("start_date"), args.get("end_date"))]
    orders = sorted((_instant(str(o["reported_date"])), str(o["wo_id"]), str(o["reported_date"]))
                    for o in ctx.raw.work_db("wo_events")
                    if o.get("equipment_id") == equipment and o.get("wo_type") == "corrective")
    out = []
    for t in alerts:
        hit = next((o for o in orders if t < o[0] <= t + timedelta(days=horizon)), None)
        if hit is not None:
            out.append((hit[1], hit[2]))
    return list(dict.fromkeys(out))


def _in(stamp: str, start: Any, end: Any) -> bool:
    try:
        t = _instant(stamp)
        return (not start or t >= _instant(str(start))) and (not end or t < _instant(str(end)))
    except ValueError:
        return False


def _call_documents(ctx: AuditContext, call: Mapping[str, Any],
                    moment: datetime) -> list[str]:
    name, args = str(call.get("name", "")), call.get("args") or {}
    if not isinstance(args, Mapping):
        return []
    out: list[str] = []
    equipment = args.get("equipment_id")
    if isinstance(equipment, str):
        horizon = args.get("within_days")
        if isinstance(horizon, int | float):
            return [f"{name} links {doc_id} of {stamp[:19]} to an alert" for doc_id, stamp
                    in _linked_orders(ctx, equipment, args, float(horizon))
                    if after(stamp, moment)]
        for doc_id, stamp, kind in _wo_docs(ctx, name, equipment):
            if _in(stamp, args.get("start_date"), args.get("end_date")) and after(stamp, moment):
                out.append(f"{name} reads {kind} {doc_id} of {stamp[:19]}")
        return out
    asset = args.get("asset_id")
    if isinstance(asset, str) and "start" in args:
        docs = ctx.raw.oil(asset) if "oil" in name.lower() else ctx.raw.telemetry(asset)
        late = [str(d["timestamp"]) for d in docs
                if _in(str(d["timestamp"]), args.get("start"), args.get("final"))
                and after(str(d["timestamp"]), moment)]
        if late:
            out.append(f"{name} reads {len(late)} record(s) of {asset} from {late[0][:19]} on")
    return out


def _answer_values(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _answer_values(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _answer_values(v, key)
    elif isinstance(value, str):
        yield key, value


def documents_after(ctx: AuditContext, case: Case) -> list[str]:
    """The documents after the case's as-of moment its reference rests on (one line each)."""
    found = as_of_moment(case)
    if found is None:
        return []
    moment, source = found
    calls = (case.seed or {}).get("tool_sequence") or (case.record or {}).get(
        "tool_sequence") or []
    problems: list[str] = []
    for call in calls:
        if isinstance(call, Mapping):
            problems += _call_documents(ctx, call, moment)
    stamps = {str(d.get("wo_id")): str(d.get("reported_date"))
              for d in ctx.raw.work_db("wo_events")}
    stamps |= {str(d.get("event_id")): str(d.get("event_time"))
               for d in ctx.raw.work_db("events")}
    for key, value in _answer_values(case.answer):
        stamp = stamps.get(value)
        if stamp is not None and after(stamp, moment):
            problems.append(f"the answer names {value} of {stamp[:19]}")
        elif key in _ANSWER_STAMPS and _DAY.match(value) and after(value, moment):
            problems.append(f"the answer's {key} {value[:19]}")
    return [f"{p} ({source})" for p in dict.fromkeys(problems)]
