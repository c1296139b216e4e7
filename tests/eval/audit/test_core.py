"""Readings of a text, windows and the comparison rule of the audit."""

from __future__ import annotations

import pytest

from eval.audit.core import differences, grid, in_window, window_modes


def test_window_text_pins_or_leaves_the_end() -> None:
    assert window_modes("from 2026-06-01 up to (not including) 2026-06-03") == ["end_exclusive"]
    assert window_modes("in the window 2026-06-01 to 2026-06-03 (end date excluded)") == [
        "end_exclusive"
    ]
    assert window_modes("between 2026-06-01 00:00 and 2026-06-03 00:00") == [
        "end_exclusive", "end_instant_inclusive",
    ]
    assert window_modes("from 2026-06-01 to 2026-06-03") == ["end_exclusive", "end_day_inclusive"]


def test_window_membership_under_each_reading() -> None:
    at_end = "2026-06-03T00:00:00"
    late = "2026-06-03T13:00:00"
    assert not in_window(at_end, "2026-06-01", "2026-06-03", "end_exclusive")
    assert in_window(at_end, "2026-06-01", "2026-06-03", "end_instant_inclusive")
    assert not in_window(late, "2026-06-01", "2026-06-03", "end_instant_inclusive")
    assert in_window(late, "2026-06-01", "2026-06-03", "end_day_inclusive")
    assert not in_window("2026-05-31T23:00:00", "2026-06-01", "2026-06-03", "end_day_inclusive")


def test_readings_grid_names_the_departures_from_the_primary() -> None:
    names = [n for n, _ in grid(a=["x", "y"], b=[1, 2])]
    assert names == ["primary(a=x,b=1)", "b=2", "a=y", "a=y,b=2"]


def test_absolute_or_relative_tolerance_and_flags() -> None:
    assert differences({"v": 10.0}, {"v": 10.04}, {"v": 0.05}, {}) == []
    assert differences({"v": 100.0}, {"v": 100.9}, {}, {"v": 0.01}) == []
    assert differences({"v": 100.0}, {"v": 102.0}, {"v": 0.5}, {"v": 0.01}) != []
    # A flag stays a flag: True is not 1.
    assert differences({"f": True}, {"f": 1}, {}, {}) != []
    assert differences({"l": ["a"]}, {"l": ["a", "b"]}, {}, {}) != []


@pytest.mark.parametrize(
    ("text", "end", "modes"),
    [
        # The last day named as the last: the end (20 August, exclusive) is pinned.
        ("Alarms of X from 13 August through 19 August 2026?", "2026-08-20", ["end_exclusive"]),
        ("Alarms of X up to and including 2026-08-19?", "2026-08-20", ["end_exclusive"]),
        ("During the seven days ending Friday 19 June 2026?", "2026-06-20", ["end_exclusive"]),
        ("Between 14 June and 23 June 2026 (both days included)?", "2026-06-24",
         ["end_exclusive"]),
        # The end day named as a bound the window stops before.
        ("Over the seven days before 20 August 2026?", "2026-08-20", ["end_exclusive"]),
        ("Since the start of July, up to yesterday (assume today is 2026-08-20)?",
         "2026-08-20", ["end_exclusive"]),
        # Relative windows that state today and leave it out (generator/generate/verbalise/
        # dates_natural.py), "today" before or after the date (found on an n = 1000 run).
        ("Over the last seven days, up to yesterday (we're on 2026-07-15 today)?",
         "2026-07-15", ["end_exclusive"]),
        ("Since 14 July, not counting today (as of today, 2026-07-21)?", "2026-07-21",
         ["end_exclusive"]),
        ("From 4 June until yesterday (it's 2026-06-11 today)?", "2026-06-11",
         ["end_exclusive"]),
        ("Yesterday (taking 2026-07-15 as today)?", "2026-07-15", ["end_exclusive"]),
        ("Last week, Monday to Sunday (today is 2026-07-20)?", "2026-07-20", ["end_exclusive"]),
        ("Last month (today being 2026-08-01)?", "2026-08-01", ["end_exclusive"]),
        # The last day closing a range with both days counted, or after an en dash.
        ("Between 24 June and 9 July 2026 (both days counted)?", "2026-07-10",
         ["end_exclusive"]),
        ("For 29 June to 13 August 2026, both days in?", "2026-08-14", ["end_exclusive"]),
        ("Over 12\u201319 July 2026?", "2026-07-20", ["end_exclusive"]),
        ("From 2 Jul 2026 through 9 Jul 2026?", "2026-07-10", ["end_exclusive"]),
        ("From the 2nd of July up to and including the 9th of July 2026?", "2026-07-10",
         ["end_exclusive"]),
        # A stated number of days from the first to the last day.
        ("Mean voltage across the five days from 22 August to 26 August 2026?", "2026-08-27",
         ["end_exclusive"]),
        # "today" named without leaving it out does not pin the end.
        ("Since 14 July (today is 2026-07-21)?", "2026-07-21",
         ["end_exclusive", "end_day_inclusive"]),
        # "through" the end day itself, or a bare range: a reader may include that day.
        ("From 13 August through 20 August 2026?", "2026-08-20",
         ["end_exclusive", "end_day_inclusive"]),
        ("Between 2026-08-13 and 2026-08-20?", "2026-08-20",
         ["end_exclusive", "end_day_inclusive"]),
        # One day named with "on": that day, nothing of the next.
        ("The peak of SOUTH-TX04 on 15 August 2026?", "2026-08-16", ["end_exclusive"]),
        ("What happened on Saturday 15 August 2026?", "2026-08-16", ["end_exclusive"]),
        ("What happened on 15 August 2026 and on 16 August 2026?", "2026-08-16",
         ["end_exclusive", "end_day_inclusive"]),
        # One whole day named with "the whole of" or "for" (the chiller's site-cooling texts).
        ("Ton-hours at MAIN over the whole of 22 August 2025?", "2025-08-23", ["end_exclusive"]),
        ("Cooling at MAIN for Sunday 3 August 2025 in ton-hours?", "2025-08-04",
         ["end_exclusive"]),
        # '1 August' is not '11 August'.
        ("From 1 August through 11 August 2026?", "2026-08-02",
         ["end_exclusive", "end_day_inclusive"]),
    ],
)
def test_window_modes_read_natural_dates(text: str, end: str, modes: list[str]) -> None:
    assert window_modes(text, end) == modes
