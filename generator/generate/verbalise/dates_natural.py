"""Dates and windows as people write them, each phrasing pinning the seed's exact days.

A family's window is ``[start, end)`` of whole days (``YYYY-MM-DD``; the end is exclusive at
midnight). People do not write "(inclusive) ... (exclusive)"; they write "from 13 August
through 19 August 2026", "the seven days before 20 August 2026", "last week (today is
2026-08-17)". Every phrasing here names its days so that neither of the gate's other
readings of a window's end (:func:`~generator.generate.draw.family_helpers.window_end_readings`:
the end day included, the end midnight included) fits it: an end-day-inclusive phrasing
names the LAST day (``end - 1``), a relative one states the as-of date ("today") and leaves
today out.

:func:`window_phrases` lists every phrasing of a window and :func:`day_phrases` every
phrasing of a single day; the verbaliser picks one and records it as the surface form of the
ISO mention, and the ``seed_values_in_text`` check accepts the surface form only when it is
one of these lists for that very mention (see :func:`stands_for_date`).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_WORDS = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten", 11: "eleven", 12: "twelve",
}
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# How the as-of date ("today") is stated inside a relative phrasing.
AS_OF = (
    "assume today is {d}", "today is {d}", "taking {d} as today", "today being {d}",
    "it's {d} today", "we're on {d} today", "as of today, {d}",
)


def parse_day(value: object) -> date | None:
    """The date of a plain ``YYYY-MM-DD`` string; None for anything else."""
    if not isinstance(value, str) or not _ISO_DAY.fullmatch(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def day_text(d: date, *, year: bool = True, weekday: bool = False) -> str:
    """'13 August 2026', '13 August', 'Thursday 13 August 2026'."""
    text = f"{d.day} {MONTHS[d.month - 1]}" + (f" {d.year}" if year else "")
    return f"{WEEKDAYS[d.weekday()]} {text}" if weekday else text


def count_words(n: int) -> str:
    """'seven' for small counts, digits otherwise."""
    return _WORDS.get(n, str(n))


@lru_cache(maxsize=4096)
def day_phrases(value: str) -> tuple[str, ...]:
    """The ways a single day ``YYYY-MM-DD`` may be written (empty for other strings)."""
    d = parse_day(value)
    if d is None:
        return ()
    month = MONTHS[d.month - 1]
    return (
        day_text(d), day_text(d, weekday=True), f"{month} {d.day}, {d.year}",
        f"{d.day} {month[:3]} {d.year}", f"the {_ordinal(d.day)} of {month} {d.year}",
    )


def _ordinal(n: int) -> str:
    """'1st', '2nd', '13th', '22nd'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _span(start: date, last: date) -> str:
    """'13 August' (the first day, year only when it differs from the last day's)."""
    return day_text(start, year=start.year != last.year)


@lru_cache(maxsize=4096)
def window_phrases(start: str, end: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(fixed, relative) phrasings of the window ``[start, end)``; empty when not whole days.

    Fixed phrasings name the dates; relative ones ("last week", "since the start of July",
    "over the last ten days") state the as-of date ``end`` as today, in ISO form, and leave
    today out. Each pins the window: its first day and its last day ``end - 1``.
    """
    s, e = parse_day(start), parse_day(end)
    if s is None or e is None or e <= s:
        return (), ()
    last = e - timedelta(days=1)
    n = (e - s).days
    first = _span(s, last)
    fixed: list[str] = []
    relative: list[str] = []
    nw = count_words(n)
    if n == 1:
        fixed += [f"on {day_text(s)}", f"on {day_text(s, weekday=True)}",
                  f"over the whole of {day_text(s)}", f"for {day_text(s, weekday=True)}"]
    else:
        fixed += [
            f"from {first} through {day_text(last)}",
            f"between {first} and {day_text(last)} (both days included)",
            f"between {first} and {day_text(last)} (both days counted)",
            f"from {first} up to and including {day_text(last)}",
            f"starting {first} and running through {day_text(last)}",
            f"over the {nw} days before {day_text(e)}",
            f"in the {nw} days before {day_text(e)}",
            f"during the {nw} days ending {day_text(last, weekday=True)}",
            f"in the {nw} days up to and including {day_text(last)}",
            f"for {first} through {day_text(last)}",
            f"across the {nw} days from {first} to {day_text(last)}",
            f"for {first} to {day_text(last)}, both days in",
        ]
        if (s.year, s.month) == (last.year, last.month):
            fixed.append(f"over {s.day}\u2013{day_text(last)}")
    if n == 7 and s.weekday() == 0:
        fixed += [f"in the week from Monday {first} to Sunday {day_text(last)}"]
    month_aligned = s.day == 1 and e.day == 1 and (
        (e.year, e.month) == ((s.year, s.month + 1) if s.month < 12 else (s.year + 1, 1))
    )
    if month_aligned:
        fixed += [f"in {MONTHS[s.month - 1]} {s.year}", f"during {MONTHS[s.month - 1]} {s.year}"]
    since = day_text(s, year=False)
    for form in AS_OF:
        today = form.format(d=end)
        if n == 1:
            relative.append(f"yesterday ({today})")
        else:
            relative += [
                f"over the last {nw} days, up to yesterday ({today})",
                f"in the past {nw} days, not counting today ({today})",
                f"during the {nw} days before today ({today})",
                f"since {since}, not counting today ({today})",
                f"since {since} up to yesterday ({today})",
                f"from {since} until yesterday ({today})",
                f"over the past {nw} days up to yesterday ({today})",
            ]
        if s.day == 1 and n > 1 and not month_aligned:
            relative.append(
                f"since the start of {MONTHS[s.month - 1]}, up to yesterday ({today})"
            )
        if n == 7 and s.weekday() == 0:
            relative.append(f"last week, Monday to Sunday ({today})")
        if month_aligned:
            relative.append(f"last month ({today})")
    return tuple(fixed), tuple(relative)


def stands_for_date(mention: str, surface: str, window: tuple[str, str] | None) -> bool:
    """True when ``surface`` is a phrasing of the ISO day ``mention``.

    Args:
        mention: The ISO day the seed names.
        surface: What the text wrote for it.
        window: The seed's ``(start, end)`` when it has a window; the mention may then be
            either end and the surface one of the window's phrasings.
    """
    # A phrasing that opens a sentence starts with a capital letter.
    surface = surface[:1].lower() + surface[1:] if surface[:2].istitle() else surface
    candidates = set(day_phrases(mention))
    if window is not None and mention in window:
        fixed, relative = window_phrases(*window)
        candidates |= set(fixed) | set(relative)
    return surface in candidates or (surface[:1].upper() + surface[1:]) in candidates
