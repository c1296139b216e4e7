"""The audit's framework: cases, readings, the family registry and answer comparison.

A *case* is one scenario of a run: its text, its family's parameters and its reference
answer. A family's audit function re-derives the answer from raw documents under every
*reading* of the text a competent engineer could take (readings the text pins are not
tried) and reports premises the raw documents contradict.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from generator.registry import Registry

if TYPE_CHECKING:
    from eval.audit.raw import RawStore


class NoSingleAnswer(Exception):
    """The raw documents admit no single answer under a reading (a tie, missing data)."""


class NotApplicable(Exception):
    """A reading that does not apply to this case (e.g. an own-history estimate without any
    own history): it is skipped, not counted against the reference."""


@dataclass(frozen=True)
class Case:
    """One scenario to audit."""

    id: str
    family: str
    text: str
    params: dict[str, Any]
    grounding: dict[str, Any]
    answer: dict[str, Any]
    tolerance: dict[str, float]
    rel_tolerance: dict[str, float]
    record: dict[str, Any] | None = None
    seed: dict[str, Any] | None = None

    def p(self, key: str, default: Any = None) -> Any:
        """A parameter, read defensively (families change while the audit stays)."""
        return self.params.get(key, self.grounding.get(key, default))


@dataclass
class Reading:
    """One reading's re-derived answer (None with a note when it admits no answer)."""

    name: str
    answer: dict[str, Any] | None
    note: str = ""


@dataclass
class TruthCheck:
    """A classification reference set against an independent method's class and the fault
    the simulator injected (a class's audit chooses the method, e.g. a standard's own
    graphical method)."""

    method: str
    reference: str
    method_class: str
    truth: str | None

    @property
    def both_contradict(self) -> bool:
        """The reference differs from the method's class and from the truth (when known)."""
        return self.truth is not None and self.reference not in (self.method_class, self.truth)


@dataclass
class Derivation:
    """What a family's audit found for one case."""

    readings: list[Reading]
    premises_false: list[str] = field(default_factory=list)
    truth_check: TruthCheck | None = None


@dataclass
class AuditContext:
    """What audit functions may use: raw documents and the asset class's definition (its
    failure modes and its sensors with source and unit)."""

    raw: RawStore
    failure_modes: list[dict[str, Any]]
    # The class's sensors as its definition declares them (name, source, unit, ...).
    sensors: list[dict[str, Any]] = field(default_factory=list)


AuditFn = Callable[[AuditContext, Case], Derivation]
AUDITS: Registry[AuditFn] = Registry("audited family")


def audits(name: str) -> Callable[[AuditFn], AuditFn]:
    """Register the decorated function as the independent re-derivation of family ``name``."""
    return AUDITS.register(name)


# family -> why it has no independent re-derivation (reported as ``unsupported``)
UNSUPPORTED: Registry[str] = Registry("family without a re-derivation")


def unsupported(name: str, why: str) -> None:
    """Declare that family ``name`` has no independent re-derivation, and why."""
    UNSUPPORTED.add(name, why)


# -- readings ------------------------------------------------------------------------------


def grid(**dims: list[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every combination of the reading dimensions, with a name listing the non-first choices
    (the first choice of every dimension is the primary reading, named "primary")."""
    keys = list(dims)
    for combo in itertools.product(*(dims[k] for k in keys)):
        choice = dict(zip(keys, combo, strict=True))
        parts = [f"{k}={v}" for k, v in choice.items() if v != dims[k][0]]
        shown = ",".join(f"{k}={v}" for k, v in choice.items() if k != "_")
        yield (",".join(parts) or f"primary({shown})"), choice


def derive_all(
    dims: dict[str, list[Any]], fn: Callable[[dict[str, Any]], dict[str, Any]]
) -> list[Reading]:
    """Run ``fn`` under every combination of ``dims``; a :class:`NoSingleAnswer` becomes a
    reading without an answer, a :class:`NotApplicable` reading is left out."""
    out = []
    for name, choice in grid(**dims):
        try:
            out.append(Reading(name, fn(choice)))
        except NotApplicable:
            continue
        except NoSingleAnswer as exc:
            out.append(Reading(name, None, str(exc)))
    return out


# -- time windows ----------------------------------------------------------------------------


def stamp(value: str) -> str:
    """``YYYY-MM-DD`` or a timestamp as ``YYYY-MM-DDTHH:MM:SS``."""
    return value + "T00:00:00" if len(value) == 10 else value[:19]


def next_day(value: str) -> str:
    """The midnight after the day of ``value``."""
    d = date.fromisoformat(value[:10]) + timedelta(days=1)
    return d.isoformat() + "T00:00:00"


def in_window(ts: str, start: str | None, end: str | None, mode: str) -> bool:
    """Whether ``ts`` lies in the window under a reading of its end.

    ``end_exclusive`` [start, end); ``end_instant_inclusive`` [start, end] (the reading at
    end 00:00 counts); ``end_day_inclusive`` [start, end + 1 day) (the end date is a whole
    day of the window).
    """
    t = ts[:19]
    if start is not None and t < stamp(start):
        return False
    if end is None:
        return True
    if mode == "end_instant_inclusive":
        return t <= stamp(end)
    if mode == "end_day_inclusive":
        return t < next_day(end)
    return t < stamp(end)


_EXCLUSIVE_MARKERS = ("not including", "excluded", "exclusive", "up to but not")


_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)
# Words that make a named day the LAST day of the window ("through 19 August", "up to and
# including 2026-08-19", "to the end of 19 August").
_THROUGH = ("through", "up to and including", "to the end of", "until the end of", "thru", "ending",
            "to and including", "the whole of")


def _day_forms(day: date) -> tuple[str, ...]:
    """How a text may name ``day``: ISO, '19 august', 'august 19', '19 aug', 'the 19th of
    august'."""
    month = _MONTH_NAMES[day.month - 1]
    n = day.day
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return (day.isoformat(), f"{n} {month}", f"{month} {n}", f"{n} {month[:3]}",
            f"the {n}{suffix} of {month}")


def _names_day(low: str, day: date) -> list[int]:
    """Positions where the lower-cased text names ``day`` (a day number not followed by
    another digit, so '1 august' does not match '11 august')."""
    out = []
    for form in _day_forms(day):
        for m in re.finditer(r"(?<![\d-])" + re.escape(form) + r"(?!\d)", low):
            out.append(m.start())
    return out


# Words that leave "today" out of a window whose end the text states as today ("up to
# yesterday (today is 2026-08-20)", "since 14 July, not counting today", "last week").
_BEFORE_TODAY = ("up to yesterday", "until yesterday", "yesterday (", "not counting today",
                 "before today", "last week", "last month")


def _pins_end(low: str, end: date) -> bool:
    """The text names the window's end itself: its last day with an inclusive word before
    it (or closing an en-dash range), or after it "inclusive" / "included" / "both days";
    or the end day with 'before', or as today (the word "today" beside it) with today
    left out ("yesterday", "not counting today", "last week", ...)."""
    last = end - timedelta(days=1)
    for pos in _names_day(low, last):
        if any(w in low[max(0, pos - 40):pos] for w in _THROUGH):
            return True
        if "\u2013" in low[max(0, pos - 4):pos]:  # "over 12–19 July"
            return True
        if "days from" in low[max(0, pos - 70):pos]:  # "across the five days from A to B"
            return True
        if any(w in low[pos:pos + 40] for w in ("inclusive", "included", "both days")):
            return True
        # "on 15 August" (or "on Saturday 15 August", "for Sunday 3 August"): one day, when the
        # end day is not named.
        one_day = re.search(r"\b(?:on|for) (?:[a-z]+day,? )?(?:the )?$", low[max(0, pos - 20):pos])
        if one_day and not _names_day(low, end):
            return True
    for pos in _names_day(low, end):
        before = low[max(0, pos - 40):pos]
        if "before" in before:
            return True
        beside = before + low[pos:pos + 25]
        if "today" in beside and any(w in low for w in _BEFORE_TODAY):
            return True
    return False


def window_modes(text: str, end: str | None = None) -> list[str]:
    """The readings of a window's end that the text allows, primary first.

    A text that says the end is excluded pins ``end_exclusive``, and so does one that names
    the window's last day as its last ("from 13 August through 19 August" for an end of 20
    August), or the end day as a bound it stops before ("the seven days before 20 August",
    "up to yesterday (today is 2026-08-20)"); ``end`` is the case's end day (ISO). "between
    D1 00:00 and D2 00:00" still lets a reader count the reading stamped D2 00:00; a bare
    date range lets a reader include the whole end date.
    """
    low = text.lower()
    if any(m in low for m in _EXCLUSIVE_MARKERS):
        return ["end_exclusive"]
    end_day = _iso_day(end)
    if end_day is not None and _pins_end(low, end_day):
        return ["end_exclusive"]
    if "00:00" in low:
        return ["end_exclusive", "end_instant_inclusive"]
    return ["end_exclusive", "end_day_inclusive"]


def _iso_day(value: object) -> date | None:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value[:10]):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def day_of(ts: str) -> str:
    """The date part of a timestamp."""
    return str(ts)[:10]


def parse(ts: str) -> datetime:
    """A naive datetime of an ISO timestamp."""
    return datetime.fromisoformat(str(ts)[:19])


# -- answers -----------------------------------------------------------------------------------


def _top(path: str) -> str:
    return path.split(".")[0].split("[")[0]


def differences(
    expected: Any,
    actual: Any,
    tol: dict[str, float],
    rel: dict[str, float],
    path: str = "",
) -> list[str]:
    """Where ``actual`` departs from ``expected``; a number passes within the absolute or the
    relative tolerance of its top-level key (|e − a| ≤ abs or ≤ rel·|e|)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        same = type(expected) is type(actual) and expected == actual
        return [] if same else [f"{path}: reference {expected!r}, re-derived {actual!r}"]
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        key = _top(path)
        diff = abs(float(expected) - float(actual))
        if diff <= tol.get(key, 0.0) + 1e-9 or diff <= rel.get(key, 0.0) * abs(float(expected)):
            return []
        if math.isclose(float(expected), float(actual), rel_tol=1e-9, abs_tol=1e-9):
            return []
        return [f"{path}: reference {expected!r}, re-derived {actual!r}"]
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for k in sorted(set(expected) | set(actual), key=str):
            sub = f"{path}.{k}" if path else str(k)
            if k not in actual:
                out.append(f"{sub}: in the reference, not re-derived")
            elif k not in expected:
                out.append(f"{sub}: re-derived, not in the reference")
            else:
                out.extend(differences(expected[k], actual[k], tol, rel, sub))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: reference has {len(expected)} items, re-derived {len(actual)}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            out.extend(differences(e, a, tol, rel, f"{path}[{i}]"))
        return out
    return [] if expected == actual else [f"{path}: reference {expected!r}, re-derived {actual!r}"]
