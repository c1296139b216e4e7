"""As-of discipline: a task asked "as of" a moment rests on no document time-stamped after it.

A text may set a "today" ("last week (today is 2026-08-17)", "assume today is ...") or an
as-of moment ("orders reported before 3 May", "the diagnosis at 14:00": what was on record
then). Its reference must then rest only on documents that existed at that moment: a work
order reported the day after "today" is not "already raised", and a reading after the
moment is not "the latest".

**Convention.** The as-of moment is an ISO day (its midnight) or timestamp, exclusive: a
document counts as *after* it when it is time-stamped at or after it; a document stamped
with a day only (a work order's ``reported_date``) is taken as possibly reported at any time
of that day, so it is after a moment that falls before the end of that day. Every family
has one, declared on its spec (``family(..., as_of=...)``, a function of the draw's
parameters, see :func:`declared_as_of`):

- by default (:func:`default_as_of`) the whole-day window's end ``params["end"]``: a window
  may be written relative to a stated today that is that very day ("the past seven days,
  not counting today (today is 2026-08-17)"), so no reference may rest on that day or a
  later one; without a window, the end of the hour of a single record
  ``params["timestamp"]`` (what was on record when that reading came in);
- :func:`as_of_param` for a family that names its moment in a parameter of its own;
- :data:`NO_AS_OF` for a family whose text sets no today and may look forward (the first
  preventive visit after a date): its texts then never state a today (the check
  ``as_of_stated_today`` keeps it so).

The gate (:func:`documents_after`, called by :func:`~generator.generate.draw.families.draw_seed`)
fails a draw when any tool output its reference rests on holds a document after the moment;
it is counted as ``after_as_of`` with the interpretation gate's drops in the manifest. The
moment is recorded on the seed (``TaskSeed.as_of``), and ``scenariogen audit`` checks the
written run against the raw documents (:mod:`eval.audit.asof`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from typing import Any

# The draw's parameters -> its as-of moment (ISO day or timestamp), or None for none.
AsOfFn = Callable[[dict[str, Any]], "str | None"]

# The reason a refused draw is counted under (manifest: families.<name>.gate_drops).
AFTER_AS_OF = "after_as_of"

# Keys that stamp a document in a tool output: a telemetry record or oil sample
# (`timestamp`), a work order (`reported_date`), an event (`event_time`), an alert
# (`alert_time`). Computed times (forecast steps, a window's bounds echoed back) use others.
DOCUMENT_STAMPS = ("timestamp", "reported_date", "event_time", "alert_time")
# Keys that name a document in a tool output, for the message.
_IDS = ("wo_id", "event_id", "id")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def window_end_as_of(params: dict[str, Any]) -> str | None:
    """The whole-day window's end (``params["end"]``), else None."""
    start, end = params.get("start"), params.get("end")
    if isinstance(start, str) and isinstance(end, str) and _is_day(start) and _is_day(end):
        return end
    return None


def default_as_of(params: dict[str, Any]) -> str | None:
    """The default moment: the whole-day window's end, else the end of the hour of a single
    record ``params["timestamp"]``, else None."""
    return window_end_as_of(params) or hour_end_as_of()(params)


def as_of_param(key: str, fallback: AsOfFn | None = default_as_of) -> AsOfFn:
    """A declaration reading the moment from ``params[key]`` (a day or timestamp); when the
    parameter is absent or empty, ``fallback``'s moment."""

    def read(params: dict[str, Any]) -> str | None:
        value = params.get(key)
        if isinstance(value, str) and value:
            return value
        return fallback(params) if fallback is not None else None

    read.__name__ = f"as_of_param_{key}"
    return read


def hour_end_as_of(key: str = "timestamp") -> AsOfFn:
    """A declaration for a task about one hourly record: what was on record at the end of
    the hour that starts at ``params[key]``."""

    def read(params: dict[str, Any]) -> str | None:
        value = params.get(key)
        if not isinstance(value, str) or not value:
            return None
        try:
            return (_instant(value) + timedelta(hours=1)).isoformat()
        except ValueError:
            return None

    read.__name__ = f"hour_end_as_of_{key}"
    return read


def no_as_of(params: dict[str, Any]) -> str | None:
    """The declaration of a family whose text sets no today (it may look forward)."""
    return None


NO_AS_OF: AsOfFn = no_as_of


def declared_as_of(as_of: AsOfFn | None, params: dict[str, Any]) -> str | None:
    """The as-of moment of a draw under its family's declaration (None = the default)."""
    return (as_of or default_as_of)(params)


def _is_day(value: str) -> bool:
    return bool(_DAY.fullmatch(value))


def _instant(value: str) -> datetime:
    """The naive instant of an ISO day (its midnight) or timestamp."""
    text = str(value)
    if _is_day(text):
        return datetime.combine(date.fromisoformat(text), datetime.min.time())
    return datetime.fromisoformat(text[:19])


def is_after(stamp: str, moment: str) -> bool:
    """Whether a document stamped ``stamp`` may postdate ``moment`` (at or after it; a
    day-only stamp covers its whole day)."""
    try:
        m = _instant(moment)
        if _is_day(str(stamp)[:10]) and len(str(stamp)) == 10:
            return _instant(stamp) + timedelta(days=1) > m
        return _instant(stamp) >= m
    except ValueError:
        return False


def _documents(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict in a JSON value that carries a document stamp."""
    if isinstance(value, dict):
        if any(isinstance(value.get(k), str) for k in DOCUMENT_STAMPS):
            yield value
        for v in value.values():
            yield from _documents(v)
    elif isinstance(value, list):
        for v in value:
            yield from _documents(v)


def _linked_order(doc: dict[str, Any]) -> str | None:
    """When ``doc`` links an alert to the work order that followed it (``alert_time``,
    ``wo_id``, ``lead_time_hours``), the time that order was reported: the link names the
    order without its stamp."""
    lead, alert = doc.get("lead_time_hours"), doc.get("alert_time")
    if not doc.get("wo_id") or not isinstance(lead, int | float) or not isinstance(alert, str):
        return None
    try:
        return (_instant(alert) + timedelta(hours=float(lead))).isoformat()
    except ValueError:
        return None


def documents_after(outputs: list[dict[str, Any]], moment: str | None) -> list[str]:
    """The documents in the tool outputs time-stamped after ``moment`` (one line each, e.g.
    ``"WO-0042 reported_date 2026-06-12"``); empty when none, or without a moment."""
    if not moment:
        return []
    found: list[str] = []
    for doc in _documents(outputs):
        linked = _linked_order(doc)
        if linked is not None and is_after(linked, moment):
            found.append(f"{doc['wo_id']} reported {linked} (linked to an alert)")
            continue
        for key in DOCUMENT_STAMPS:
            stamp = doc.get(key)
            if isinstance(stamp, str) and is_after(stamp, moment):
                name = next((str(doc[k]) for k in _IDS if doc.get(k)), "a document")
                found.append(f"{name} {key} {stamp}")
                break
    return found
