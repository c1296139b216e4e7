"""The language checks: parameter leaks and grammar, true and false positives."""

from __future__ import annotations

import asyncio

import pytest

from generator.generate.checks.checks import CheckContext, CheckItem, check_names, run_checks
from generator.generate.checks.checks_language import grammar_problems, parameter_leaks

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
    from generator.generate.checks.checks_language import tool_argument_names

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


# -- the phrasings an engineer marked (issue 29) ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Were there 1 temperature alarm events on the unit?", ["agreement"]),
        ("in dissolved ethane and also in winding temperature (winding temperature)?",
         ["doubled_phrase"]),
        ("the average cooling load in tons (tons) of chiller CH-1", ["doubled_phrase"]),
        ("the condenser-water temperature at MAIN based on during the 17 days", ["broken_phrase"]),
        ("forecast it based on since 4 July up to yesterday", ["broken_phrase"]),
        ("6 hours past the data for 7 July through 12 July 2026, where will it be?",
         ["broken_phrase"]),
        ("Which ways of failing of transformer NORTH-TX02 would show up in load?",
         ["broken_phrase"]),
        ("What lowest load value did NORTH-TX01 (site NORTH) log?", ["broken_phrase"]),
    ],
)
def test_marked_phrasings_found(text: str, expected: list[str]) -> None:
    assert grammar_kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Phase 1 current readings of NORTH-TX01, and 1 of 3 events.",
        "The supply temperature (chilled-water supply) and the load (MVA).",
        "Is a matching corrective order in since? Has the unit been on since 3 July?",
        "What was the lowest load value NORTH-TX01 logged? Based on the past 7 days.",
        "Forecast it 6 hours after the last reading for 7 July through 12 July 2026.",
    ],
)
def test_marked_phrasings_not_found(text: str) -> None:
    assert grammar_problems(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I noticed a step in the readings of unit EAST-TX01.",
        "I'm seeing spikes on the load trend of NORTH-TX02.",
        "The building automation screen flagged something on my shift.",
        "Something looked odd on the trend screen.",
        "We had a temperature alarm on the panel earlier.",
        "There was an alarm on SOUTH-TX01 this week and I want to understand it.",
        "After last week's heatwave I'm worried about thermal ageing.",
    ],
)
def test_claims_the_data_may_not_hold_found(text: str) -> None:
    from generator.generate.checks.checks_language import register_problems

    assert [p.split(":")[0] for p in register_problems(text)] == ["claim"]


@pytest.mark.parametrize(
    "text",
    [
        "If the condenser-water flow of CH-1 looks off, which failure modes could be behind it?",
        "I'm going through the readings of EAST-TX01. When was an alarm raised?",
        "The control room just rang me about NORTH-TX01.",
        "Check the evening peak loads of SOUTH-TX02.",
    ],
)
def test_claims_the_data_may_not_hold_not_found(text: str) -> None:
    from generator.generate.checks.checks_language import register_problems

    assert register_problems(text) == []


def test_the_templates_assert_nothing_the_data_may_not_hold() -> None:
    # Every opener and closer of both classes' templates (top level, themes, families)
    # passes the register check.
    from typing import Any

    import yaml

    from generator.assetdef import ASSETS_DIR
    from generator.generate.checks.checks_language import register_problems

    def frames(node: Any, inside: bool = False) -> list[str]:
        if isinstance(node, str):
            return [node] if inside else []
        if isinstance(node, list):
            return [x for v in node for x in frames(v, inside)]
        if isinstance(node, dict):
            return [x for k, v in node.items()
                    for x in frames(v, inside or k in ("openers", "closers"))]
        return []

    for name in ("transformer", "chiller"):
        data = yaml.safe_load((ASSETS_DIR / name / "templates.yaml").read_text())
        found = frames(data)
        assert len(found) > 10
        assert [f for f in found if register_problems(f)] == [], name


def test_a_multiagent_text_repeating_a_single_domain_request_is_found() -> None:
    from generator.generate.checks.checks import CheckContext, CheckItem, evaluate
    from generator.generate.checks.dedup import DedupIndex

    question = ("Scan the power input of CH-MAIN-01 (MAIN) from 2 August through 8 August "
                "2025 for readings more than 4 robust standard deviations from the usual level.")
    note = "Usual level: same weekday and hour over the window and the 4 weeks before."
    index = DedupIndex()
    index.add(f"I'm on the morning round. {question} {note}", "chiller_tsfm_anomalies#3",
              domain="tsfm")
    index.add("Preparing notes for the technicians, CH-MAIN-02 at MAIN, 2025-08-09 and more "
              "words.", "chiller_ma_x#1", domain="multiagent")

    def item(text: str) -> CheckItem:
        return CheckItem(key="chiller_ma_anomaly_to_workorder#1", type="multiagent", text=text,
                         category="Workflow Coordination", characteristic_form="x" * 50,
                         grounding={"asset_id": "CH-MAIN-01", "site": "MAIN"})

    async def run(text: str) -> list[str]:
        ctx = CheckContext(policies={}, dedup=index)
        out = await evaluate("early", item(text), ctx)
        return next(o.problems for o in out if o.check == "multiagent_repeat")

    import asyncio

    repeated = asyncio.run(run(f"{question} Then list the corrective work orders. {note}"))
    assert len(repeated) == 1 and "chiller_tsfm_anomalies#3" in repeated[0]
    # the shared note alone, or a request reworded, is no repeat
    assert asyncio.run(run(f"Check CH-MAIN-01 (MAIN) from 2 August through 8 August 2025 "
                           f"for anomalies and corrective work orders. {note}")) == []
