"""The language checks: parameter leaks and grammar, true and false positives."""

from __future__ import annotations

import asyncio

import pytest

from generator.generate.checks import CheckContext, CheckItem, check_names, run_checks
from generator.generate.checks_language import grammar_problems, parameter_leaks

ARGS = frozenset({"asset_id", "start_date", "wti_alarm", "threshold", "sensor", "method"})
CODES = {"wti": "winding temperature", "load_mva": "load", "tonnage": "cooling load in tons"}


def kinds(text: str) -> list[str]:
    return [k for k, _ in parameter_leaks(text, ARGS, CODES)]


def grammar_kinds(text: str) -> list[str]:
    return [p.split(":")[0] for p in grammar_problems(text)]


# -- parameter_leak ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Give the asset_id of the unit with the highest load.", ["argument"]),
        ("Use start_date 2024-03-01 for T-101.", ["argument"]),
        ("What was the wti of T-101 yesterday?", ["sensor_code"]),
        ("Peak load_mva of T-101 in March?", ["sensor_code"]),
        ("From 2024-03-01 (inclusive) to 2024-03-08 (exclusive), any trips?", ["window_jargon"]),
        ("Count the alarms over [2024-03-01, 2024-03-08) on T-101.", ["window_jargon"]),
        ("Flag a reading only when its robust z-score magnitude exceeds 4.9.", ["setting"]),
        ("Run it with threshold=4.9 on T-101.", ["setting"]),
        ("Anomalies where |z| > 3 on T-101?", ["setting"]),
    ],
)
def test_leaks_found(text: str, expected: list[str]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # spoken names, an upper-case abbreviation, an English word that is also a code
        "What was the winding temperature of T-101 yesterday?",
        "Has the WTI of T-101 gone above its alarm level this week?",
        "What tonnage did the chiller deliver on 2024-03-01?",
        # plain argument words in ordinary English; a code inside a longer word or an id
        "Which method would you use, and what threshold do operators set for this sensor?",
        "Check unit wti-2 and the twtid report.",
        # a z-score named without a setting; brackets that are not an interval
        "Explain what a robust z-score says about a reading.",
        "Between 2024-03-01 and 2024-03-08 (one week), how many alarms [on T-101]?",
    ],
)
def test_leaks_not_found(text: str) -> None:
    assert kinds(text) == []


def test_leak_names_the_spoken_form() -> None:
    assert parameter_leaks("Peak wti?", ARGS, CODES) == [
        ("sensor_code", "'wti' (say 'winding temperature')")
    ]


def test_registered_vocabulary_is_read() -> None:
    # the defaults come from the tool registry and the class vocabularies: every argument
    # name with '_' is a leak
    from generator.generate.checks_language import tool_argument_names

    args = tool_argument_names()
    assert "asset_id" in args and "start_date" in args
    assert parameter_leaks("the asset_id please") == [("argument", "'asset_id'")]


# -- grammar -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("There were 1 work orders last week.", ["agreement"]),
        ("Any trips within 1 days of the alarm?", ["agreement"]),
        ("The unit raised 2 alarm.", ["agreement"]),
        ("Over the last 3 day, what happened?", ["agreement"]),
        ("Check the the unit.", ["doubled_word"]),
        ("Plan a 8-hour outage.", ["article"]),
        ("It ran at a 11 % overload.", ["article"]),
        ("Give an 5-day forecast.", ["article"]),
        ("Wait a hour.", ["article"]),
        ("Is this an unit fault?", ["article"]),
        ("Is it a MVA rating?", ["article"]),
        ("apparent power S =/√3 times the voltage", ["garble"]),
        ("What was the {sensor} of T-101?", ["garble"]),
        ("Is the reading above None kV?", ["garble"]),
        ("Read the load (in MVA of T-101.", ["brackets"]),
        ("Read the load in MVA) of T-101.", ["brackets"]),
        ('He said "check it.', ["brackets"]),
    ],
)
def test_grammar_found(text: str, expected: list[str]) -> None:
    assert grammar_kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "There was 1 work order and 1 alarm within 1 day; 2 alarms over 3 days.",
        "Use the 3 day window and a 24 hour average.",  # nouns as modifiers
        "1 analysis of 1 gas; 1.5 days; 0.1 days; on 2024-03-01 day shift at 10:00 hours.",
        "Did 1 sample show a fault? One has.",
        "I know that that unit had had trouble.",
        "An 8-hour outage, an 11 % overload, a 100 kVA unit, an 18 h run, a 1,200 MVA bus.",
        "An hour, a unit, a one-off, a user, an MVA rating, a USB stick, an honest answer.",
        "Does site A or site B carry more load? A is the older one.",
        "Compare a) the peak and b) the mean load.",
        "None of the units tripped.",
        'The "emergency" rating (IEC 60076-7) applies [see the nameplate].',
        # '1' as a label, not a count: the verb after it agrees with the phrase.
        "Any gas over IEEE C57.104 condition 1 makes a sample abnormal.",
        "Table 1 lists the limits; stage 1 starts when level 1 trips; phase 1 reads high.",
    ],
)
def test_grammar_not_found(text: str) -> None:
    assert grammar_problems(text) == []


# -- registry ----------------------------------------------------------------------------------


def test_registered_as_early_checks_and_reject() -> None:
    assert {"parameter_leak", "grammar"} <= set(check_names("early"))
    item = CheckItem(key="x", type=None, text="Peak load_mva of 1 units?", category=None,
                     characteristic_form=None)
    problems = asyncio.run(run_checks("early", item, CheckContext(policies={})))
    assert any(p.startswith("parameter_leak: sensor_code") for p in problems)
    assert any(p.startswith("grammar: agreement") for p in problems)


def test_the_year_of_a_date_is_not_a_count() -> None:
    # "the 29 June 2026 trip": 2026 is the year of a date; "3 trip" is a slip.
    assert grammar_problems("Did the 29 June 2026 trip on X get a work order?") == []
    assert grammar_problems("Did the June 29, 2026 trip get a work order?") == []
    assert grammar_problems("We had 3 trip.") == ["agreement: '3 trip' (a count with a "
                                                  "singular noun)"]
