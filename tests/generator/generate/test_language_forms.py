"""Words as people write them: natural windows pin the seed's days, spoken sensor names and
date phrasings satisfy the mention check only when they stand for that very mention, and
openers and closers come from themes the family declares."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import pytest

from generator.errors import UserError
from generator.generate.checks.checks import CHECKS, CheckContext, CheckItem
from generator.generate.model import Draft, TaskSeed, ToolCall
from generator.generate.verbalise.dates_natural import day_phrases, window_phrases
from generator.generate.verbalise.verbalise_template import (
    TemplateVerbaliser,
    load_templates,
    parse_templates,
)

MONTHS = {
    "January": 1, "February": 2, "March": 3, "April": 4, "May": 5, "June": 6, "July": 7,
    "August": 8, "September": 9, "October": 10, "November": 11, "December": 12,
}


def _seed(**update: Any) -> TaskSeed:
    base = TaskSeed(
        family="iot_sensor_stat", domain="iot", category="Data Query", role="operator",
        draw=0,
        params={"asset_id": "NORTH-TX01", "site": "NORTH", "sensor": "wti",
                "sensor_label": "winding temperature indicator", "start": "2026-08-13",
                "end": "2026-08-20", "stat": "max", "stat_word": "highest",
                "with_time": False, "unit": "°C"},
        grounding={"site": "NORTH", "asset_id": "NORTH-TX01", "sensor": "wti"},
        mentions=["NORTH-TX01", "NORTH", "wti", "2026-08-13", "2026-08-20"],
        tool_sequence=[ToolCall(name="history", args={"site_name": "NORTH"})],
        answer={"value": 90.0}, answer_summary="highest wti: 90", difficulty="easy",
    )
    return base.model_copy(update=update)


def _check(text: str, surfaces: dict[str, str], seed: TaskSeed | None = None) -> list[str]:
    seed = seed or _seed()
    draft = Draft(seed_key=seed.key, text=text, characteristic_form="x", category="Data Query",
                  verbaliser="template", surfaces=surfaces)
    item = CheckItem.from_draft(draft, seed, "iot", "transformer")
    return CHECKS.get("seed_values_in_text").fn(item, CheckContext(policies={}))


# -- windows ---------------------------------------------------------------------------------


def _read_relative(phrase: str) -> tuple[date, date]:
    """How a reader turns a relative phrasing into [start, end): worked by hand here, not
    with the module under test. 'today' is the ISO date in brackets; 'up to yesterday' and
    'not counting today' end the window at today's midnight."""
    today = date.fromisoformat(re.search(r"\d{4}-\d{2}-\d{2}", phrase)[0])  # type: ignore[index]
    if m := re.match(r"(?:over the last|over the past|in the past|during the) (\w+) days,? "
                     r"(?:up to yesterday|not counting today|before today)", phrase):
        n = {"seven": 7, "three": 3}.get(m[1]) or int(m[1])
        return today - timedelta(days=n), today
    if m := re.match(r"during the (\w+) days before today", phrase):
        n = {"seven": 7, "three": 3}.get(m[1]) or int(m[1])
        return today - timedelta(days=n), today
    if m := re.match(r"(?:since|from) (\d+) (\w+),? (?:up to|until) yesterday", phrase):
        return date(today.year, MONTHS[m[2]], int(m[1])), today
    if phrase.startswith("last week, Monday to Sunday"):
        this_monday = today - timedelta(days=today.weekday())
        return this_monday - timedelta(days=7), this_monday
    if m := re.match(r"since (\d+) (\w+), not counting today", phrase):
        return date(today.year, MONTHS[m[2]], int(m[1])), today
    if phrase.startswith("yesterday"):
        return today - timedelta(days=1), today
    raise AssertionError(phrase)


def test_relative_phrasings_map_to_the_seed_window() -> None:
    # 2026-08-10 is a Monday (1 Jan 2026 is a Thursday; 1 Aug is day 212 = 30 weeks + 2
    # days later, a Saturday; 10 Aug is 9 days after that). [10 Aug, 17 Aug) is last week
    # when today is Monday 17 August.
    for start, end in (("2026-08-10", "2026-08-17"), ("2026-08-13", "2026-08-20"),
                       ("2026-07-19", "2026-07-20")):
        fixed, relative = window_phrases(start, end)
        assert fixed and relative
        for phrase in relative:
            assert _read_relative(phrase) == (date.fromisoformat(start), date.fromisoformat(end))
        assert ("last week, Monday to Sunday (today is 2026-08-17)" in relative) == (
            start == "2026-08-10")


def test_fixed_phrasings_name_the_last_day_not_the_exclusive_end() -> None:
    fixed, _ = window_phrases("2026-08-13", "2026-08-20")
    # [13 Aug, 20 Aug) holds the days 13..19 August: an end-inclusive phrasing says 19.
    assert "from 13 August through 19 August 2026" in fixed
    assert "over the seven days before 20 August 2026" in fixed
    for phrase in fixed:
        assert "inclusive" not in phrase and "exclusive" not in phrase
        assert "20 August" not in phrase or "before 20 August" in phrase
    assert window_phrases("2026-08-20", "2026-08-13") == ((), ())  # no empty windows
    assert window_phrases("2026-08-13T05:00:00", "2026-08-20") == ((), ())


def test_a_year_boundary_names_both_years() -> None:
    fixed, _ = window_phrases("2025-12-30", "2026-01-03")
    assert "from 30 December 2025 through 2 January 2026" in fixed


# -- the mention check -----------------------------------------------------------------------


TEXT = "What was the highest {s} of NORTH-TX01 at NORTH {w}?"
RIGHT = "from 13 August through 19 August 2026"


def test_mention_check_accepts_the_spoken_name_and_a_faithful_window() -> None:
    text = TEXT.format(s="winding temperature", w=RIGHT)
    surfaces = {"wti": "winding temperature", "2026-08-13": RIGHT, "2026-08-20": RIGHT}
    assert _check(text, surfaces) == []


def test_mention_check_rejects_a_wrong_name_a_wrong_window_or_no_record() -> None:
    # The other temperature's spoken name does not stand for wti.
    text = TEXT.format(s="top-oil temperature", w=RIGHT)
    bad = {"wti": "top-oil temperature", "2026-08-13": RIGHT, "2026-08-20": RIGHT}
    assert "'wti'" in _check(text, bad)[0]
    # "through 20 August" includes the end day: it stands for [13 Aug, 21 Aug), not the seed.
    wrong = "from 13 August through 20 August 2026"
    text = TEXT.format(s="winding temperature", w=wrong)
    bad = {"wti": "winding temperature", "2026-08-13": wrong, "2026-08-20": wrong}
    assert "2026-08-20" in _check(text, bad)[0]
    # The words alone, unrecorded, prove nothing.
    assert _check(TEXT.format(s="winding temperature", w=RIGHT), {})
    # A recorded surface that the text does not carry proves nothing either.
    assert _check("What was the highest wti of NORTH-TX01 at NORTH?", {"2026-08-13": RIGHT})


def test_a_single_day_may_be_written_naturally() -> None:
    seed = _seed(params={"day": "2026-08-13"}, mentions=["2026-08-13"])
    # 2026-08-13 is a Thursday (2026-01-01 is a Thursday; 13 August is day 225, 224 = 32 * 7).
    assert day_phrases("2026-08-13") == (
        "13 August 2026", "Thursday 13 August 2026", "August 13, 2026", "13 Aug 2026",
        "the 13th of August 2026",
    )
    assert "the 1st of July 2026" in day_phrases("2026-07-01")
    assert "the 22nd of July 2026" in day_phrases("2026-07-22")
    assert "the 11th of July 2026" in day_phrases("2026-07-11")
    assert _check("On Thursday 13 August 2026?", {"2026-08-13": "Thursday 13 August 2026"},
                  seed) == []
    assert _check("On Friday 14 August 2026?", {"2026-08-13": "Friday 14 August 2026"}, seed)


def test_drafts_record_surfaces_that_pass_the_check() -> None:
    verbaliser = TemplateVerbaliser(5, "transformer")
    seen_relative = seen_spoken = 0
    for draw in range(60):
        seed = _seed(draw=draw, role="manager" if draw % 2 else "operator")
        draft = verbaliser.verbalise_one(seed)
        assert _check(draft.text, draft.surfaces, seed) == [], draft.text
        assert "wti" not in draft.text and "(inclusive)" not in draft.text
        seen_spoken += draft.surfaces.get("wti") == "winding temperature"
        seen_relative += "today" in draft.text
    assert seen_spoken == 60 and 5 < seen_relative < 40


# -- openers and closers ---------------------------------------------------------------------


def test_openers_and_closers_come_from_the_family_themes_only() -> None:
    templates = load_templates("transformer")
    verbaliser = TemplateVerbaliser(1, "transformer")
    themes = templates.frames.themes
    for name, fam in templates.families.items():
        for role in ("operator", "manager"):
            seed = _seed(family=name, role=role)
            allowed_closers = set(getattr(templates.closers, role)) | set(
                getattr(fam.closers, role))
            situations = set(getattr(templates.openers, role)) | set(getattr(fam.openers, role))
            for t in fam.themes:
                allowed_closers |= set(getattr(themes[t].closers, role))
                situations |= set(getattr(themes[t].openers, role))
            assert set(verbaliser.frame_pool(seed, "closers")) <= allowed_closers
            for opener in verbaliser.frame_pool(seed, "openers"):
                assert any(opener.lower().endswith(s.lower()) for s in situations), opener


def test_records_and_thermal_families_get_no_mismatched_frames() -> None:
    """The issue's examples: no switching-operation closer on a records clean-up, no
    'plain language' on an ageing-rate figure, no alarm context on a work-order count."""
    verbaliser = TemplateVerbaliser(1, "transformer")
    for family in ("wo_count", "wo_distribution", "wo_alert_followup"):
        for role in ("operator", "manager"):
            pool = verbaliser.frame_pool(_seed(family=family, role=role), "closers")
            pool += verbaliser.frame_pool(_seed(family=family, role=role), "openers")
            assert not any("switching" in f or "alarm" in f for f in pool), family
    for role in ("operator", "manager"):
        pool = verbaliser.frame_pool(_seed(family="fmsr_winding_assessment", role=role),
                                     "closers")
        assert not any("plain language" in f.lower() for f in pool)


def test_loader_rejects_an_unknown_theme_and_a_lexicon_group_that_drops_a_value() -> None:
    import yaml

    from generator.config import PROJECT_ROOT
    from generator.tools.registry import load_tools

    def data() -> dict[str, Any]:
        path = PROJECT_ROOT / "assets/transformer/templates.yaml"
        loaded: dict[str, Any] = yaml.safe_load(path.read_text())
        return loaded

    bad = data()
    bad["families"]["wo_count"]["themes"] = ["records", "gossip"]
    with pytest.raises(UserError, match="gossip"):
        parse_templates(bad, "t.yaml", load_tools().names())
    bad = data()
    bad["lexicon"].append(["{asset_id} at {site}", "{asset_id}"])
    with pytest.raises(UserError, match="same placeholders"):
        parse_templates(bad, "t.yaml", load_tools().names())


def test_tidy_says_a_weekday_please_and_the_once() -> None:
    from generator.generate.verbalise.verbalise_template import _tidy

    # A weekday slot before a natural day that names its weekday; a lead ending in
    # "please" before a request starting with it.
    assert _tidy("is the Friday Friday 3 July 2026 peak usual?") == (
        "Is the Friday 3 July 2026 peak usual?")
    assert _tidy("Please please give me the load.") == "Please give me the load."
    assert _tidy("Friday, Saturday and Sunday") == "Friday, Saturday and Sunday"
    # A slot's "the" before a day written "the 2nd of June" is said once.
    assert _tidy("the sequence for the the 2nd of June 2026 trip") == (
        "The sequence for the 2nd of June 2026 trip")
    assert _tidy("in the theatre, the the end") == "In the theatre, the end"
    # "the {day} peak" with the day written "the 23rd of August 2026".
    assert _tidy("What did the the 23rd of August 2026 peak cost?") == (
        "What did the 23rd of August 2026 peak cost?")
    assert _tidy("The the 1st of July trip") == "The 1st of July trip"


# -- pinned notes ----------------------------------------------------------------------------


def test_a_note_of_several_sentences_is_worded_sentence_by_sentence() -> None:
    # The overload-episode texts pin a hot-spot method sentence and the nameplate's paper in
    # one note; neither the pair has equivalents of its own, each sentence has.
    equivalents = load_templates("transformer").equivalents
    method = next(k for k in equivalents if k.startswith("Model the hot spot"))
    paper = "Its nameplate lists thermally upgraded paper."
    note = f"{method} {paper}"
    assert note not in equivalents and equivalents[method] and equivalents[paper]
    seed = _seed(
        family="fmsr_overload_ageing", domain="fmsr", category="Diagnostic Assessment",
        params={"asset_id": "NORTH-TX01", "site": "NORTH", "day": "2026-08-13", "note": note},
        grounding={"site": "NORTH", "asset_id": "NORTH-TX01"},
        mentions=["NORTH-TX01", "NORTH", "2026-08-13", note],
    )
    other_method, other_paper = equivalents[method][0], equivalents[paper][-1]
    ok = [f"{other_method} {other_paper}", f"{method} {other_paper}", f"{other_method} {paper}"]
    for surface in ok:
        assert _check(f"NORTH-TX01 at NORTH on 2026-08-13. {surface}", {note: surface}, seed) == []
    wrong = [
        f"{other_paper} {other_method}",  # sentences swapped
        other_method,  # the paper left out
        f"{other_method} Its nameplate lists non-upgraded Kraft paper.",  # another paper
        f"{other_method}  {other_paper}",  # not the sentences as written
    ]
    for surface in wrong:
        text = f"NORTH-TX01 at NORTH on 2026-08-13. {surface}"
        assert _check(text, {note: surface}, seed) != [], surface
    verbaliser = TemplateVerbaliser(3, "transformer")
    reworded = kept_method = 0
    for draw in range(30):
        draft = verbaliser.verbalise_one(seed.model_copy(update={"draw": draw}))
        assert _check(draft.text, draft.surfaces, seed) == [], draft.text
        reworded += note not in draft.text
        kept_method += method in draft.text
    # Each sentence is drawn on its own: the method sentence (2 equivalents) stays as it is
    # in about a third of the texts, the whole note (13 paper wordings) almost never.
    assert reworded > 20 and 0 < kept_method < 30
