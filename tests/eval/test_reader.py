"""The free-text reader: values as people write them, with their places in the text."""

from __future__ import annotations

import pytest

from eval.reader import read


def _values(text: str) -> list[tuple[float, str | None]]:
    return [(n.value, n.unit) for n in read(text, year=2026).numbers]


@pytest.mark.parametrize(("text", "expected"), [
    ("none of them", [(0.0, None)]),
    ("three work orders and a dozen alerts", [(3.0, None), (12.0, None)]),
    ("twenty-one hours", [(21.0, "hours")]),
    ("a hundred and sixteen point six", [(116.6, None)]),
    ("three point seven percent", [(3.7, "percent")]),
    ("41,129 ton-hours", [(41129.0, "ton-hours")]),
    ("41\u202f129 tons", [(41129.0, "tons")]),
    ("a single job", [(1.0, None)]),
    ("COP of 5.5", [(5.5, "COP")]),
    ("a COP of roughly 6.1", [(6.1, "COP")]),
    ("COP is about 5.2", [(5.2, "COP")]),
    ("850 kW of cooling", [(850.0, "kW of cooling")]),
    ("95 minutes", [(95.0, "minutes")]),
    ("293 °F", [(293.0, "°F")]),
    ("three tenths of a ppm", [(0.3, "ppm")]),
    ("a quarter of an hour", [(0.25, "hour")]),
])
def test_numbers_as_people_write_them(text: str, expected: list[tuple[float, str | None]]) -> None:
    assert _values(text) == expected


def test_cooling_power_in_kw_is_tons_of_refrigeration_and_electrical_kw_is_not() -> None:
    cooling, electrical = read("703.4 kW of refrigeration for 160 kW", year=2026).numbers
    assert cooling.as_unit("ton") == pytest.approx([200.0], abs=0.01)
    assert electrical.as_unit("ton") == []


def test_no_number_is_read_from_an_id_a_date_or_a_time() -> None:
    t = read("WO-0012 on EAST-TX01 was reported at 19:00 on 25 August 2026.", year=2026)
    assert t.numbers == []
    assert [s.text for s in t.ids] == ["WO-0012", "EAST-TX01"]


def test_one_of_names_an_item_and_does_not_count() -> None:
    assert _values("one of the units failed") == []


@pytest.mark.parametrize(("text", "day", "hour"), [
    ("19:00 on 25 August 2026", "2026-08-25", 19),
    ("25 Aug 2026 at 7 pm", "2026-08-25", 19),
    ("Aug 25th, 2026, 7:30 p.m.", "2026-08-25", 19),
    ("2026-08-25T19:00:00", "2026-08-25", 19),
    ("On Tuesday 25 August the peak came at 19:00", "2026-08-25", 19),
    ("25 August at noon", "2026-08-25", 12),
])
def test_dates_and_times_in_natural_forms(text: str, day: str, hour: int) -> None:
    whens = read(text, year=2026).whens
    assert [(w.day, w.hour) for w in whens if w.hour is not None] == [(day, hour)]


def test_a_time_alone_stays_loose_when_its_sentence_has_no_date() -> None:
    t = read("The busiest hour was 19:00.", year=2026)
    assert t.whens == []
    assert [(w.hour, w.minute) for w in t.times] == [(19, 0)]


def test_clauses_and_negation() -> None:
    t = read("The premise is not supported, and the sample was normal.")
    assert t.negated(t.low.index("supported"))
    assert not t.negated(t.low.index("normal"))


def test_leading_yes_no() -> None:
    assert read("Yes: two anomalies.").leading is True
    assert read("No, it cannot.").leading is False
    assert read("Two anomalies.").leading is None


def test_hour_ranges_on_one_day() -> None:
    t = read("Anomalous every hour from 04:00 through 16:00 on 20 July 2026.", year=2026)
    assert t.ranges == [("2026-07-20", 4, 16)]
    assert read("At 04:00 and at 16:00 on 20 July 2026.", year=2026).ranges == []


def test_relative_days_and_ordinals() -> None:
    t = read("The alarm came first at 16:57 on 20 July 2026; WO-5 at 19:03 the same evening "
             "and WO-4 at 04:57 the next morning.", year=2026)
    stamps = [w.stamp() for w in t.whens if w.hour is not None]
    assert stamps == ["2026-07-20T16:57", "2026-07-20T19:03", "2026-07-21T04:57"]
    t = read("Anomalies on 5 August 2025 at 17:00 and at noon on the 6th.", year=2025)
    assert "2025-08-06T12:00" in [w.stamp() for w in t.whens]


def test_a_word_ordinal_is_a_day_only_where_a_preposition_or_a_list_puts_it() -> None:
    t = read("Five trips from 3 to 9 May, the first at ten in the morning on Sunday 4 May. "
             "The second came later.", year=2026)
    assert [(w.day, w.hour) for w in t.whens] == [("2026-05-09", None), ("2026-05-04", 10)]
    t = read("Inspected on 2 May and again on the fourth, the fifth and the ninth.", year=2026)
    assert [w.day for w in t.whens] == ["2026-05-02", "2026-05-04", "2026-05-05",
                                        "2026-05-09"]


def test_a_day_without_a_year_takes_the_year_the_answer_writes_when_none_is_given() -> None:
    t = read("Record for 2024: orders on 3 March and 9 April.")
    assert [w.day for w in t.whens] == ["2024-03-03", "2024-04-09"]
    assert [n.value for n in t.numbers] == [2024.0]


def test_times_shared_by_a_list_of_days_and_days_shared_by_a_list_of_times() -> None:
    t = read("Peaks at 9 am and 3 pm on Friday 12 June, then at 8 pm on the 13th, 14th and "
             "15th.", year=2026)
    assert [w.stamp() for w in t.whens] == ["2026-06-12T09:00", "2026-06-12T15:00",
                                            "2026-06-13T20:00", "2026-06-14T20:00",
                                            "2026-06-15T20:00"]


def test_a_clock_in_words_takes_the_part_of_the_day_its_sentence_names() -> None:
    t = read("In the afternoon: pump stop at 13:10 and restart at quarter past two.")
    assert [(w.hour, w.minute) for w in t.times] == [(13, 10), (14, 15)]
    assert read("Restart at half past five.").times == []


def test_a_time_before_a_day_that_has_its_own_time_is_on_the_day_written_last() -> None:
    t = read("The fault came on 2 May 2026. Order A was raised at 21:40 and order B the "
             "next morning at 06:10, both closed by 09:00 on 4 May.", year=2026)
    assert [w.stamp() for w in t.whens if w.hour is not None] == [
        "2026-05-02T21:40", "2026-05-03T06:10", "2026-05-04T09:00"]


def test_a_time_restated_in_brackets_or_going_into_a_day_is_on_that_day() -> None:
    t = read("The low came at noon (12:00) on Fri 3 April.", year=2026)
    assert [w.stamp() for w in t.whens if w.hour is not None] == ["2026-04-03T12:00"] * 2
    t = read("Flow stopped from 2 May to 9 May, first at midnight going into 5 May.",
             year=2026)
    assert [w.stamp() for w in t.whens if w.hour is not None] == ["2026-05-05T00:00"]


def test_a_quotation_ends_no_sentence_and_emphasis_joins_a_phrase() -> None:
    t = read("Order WO-7, 'swap fan; check belt. Urgent', opened at 09:10 on 4 May.",
             year=2026)
    assert len(t.sentences) == 1 and t.quoted(t.raw.index("check"))
    assert read("The pump **trip** came first.").find("pump trip") == [(4, 15)]


def test_a_day_written_without_any_known_year_is_no_number() -> None:
    assert _values_no_year("two pumps, one overhauled on 8 July") == [2.0, 1.0]


def _values_no_year(text: str) -> list[float]:
    return [n.value for n in read(text).numbers]


def test_a_month_and_day_with_a_time_takes_the_question_year() -> None:
    t = read("hours: 05-30 22:00, 05-31T03:00; range 10-20 kW", year=2026)
    assert [w.stamp() for w in t.whens] == ["2026-05-30T22:00", "2026-05-31T03:00"]


def test_thousands_in_words() -> None:
    assert _values("one thousand and forty readings, two thousand three hundred and six "
                   "hours") == [(1040.0, None), (2306.0, "hours")]


def test_ids_written_by_their_end_and_ranges_of_ids() -> None:
    t = read("WO-0107 was first, -0109 came after it; cooled to -05 °C.")
    assert [s.text for s in t.ids] == ["WO-0107", "WO-0109"]
    assert [(n.value, n.unit) for n in t.numbers] == [(-5.0, "°C")]
    t = read("Units WEST-T07 to WEST-T10 are in service, as is WEST-T12.")
    assert [s.text for s in t.ids] == ["WEST-T07", "WEST-T08", "WEST-T09", "WEST-T10",
                                       "WEST-T12"]
    t = read("Line A runs DEPOT-PM01, -PM02 and -PM05; -PM03 is spare.")
    assert [s.text for s in t.ids] == ["DEPOT-PM01", "DEPOT-PM02", "DEPOT-PM05", "DEPOT-PM03"]
    t = read("The HILL yard holds HILL-07 to -09 (three cranes).")
    assert [s.text for s in t.ids] == ["HILL-07", "HILL-08", "HILL-09"]


def test_a_number_with_an_ordinal_ending_is_no_count() -> None:
    assert _values("jobs on the 3rd and the 21st, 2 in all") == [(2.0, None)]


def test_an_ordinal_said_of_the_latest_item_is_a_count() -> None:
    assert _values("Its last flush was on 9 May; the fourth flush on record.") == [(4.0, None)]
    assert _values("The fourth flush on record was on 9 May.") == []


@pytest.mark.parametrize(("text", "phrase", "found"), [
    ("the pump bearings are wearing out", "pump bearing worn", []),  # "worn" is no stem of wear
    ("the pump bearings are wearing out", "pump bearings wear", ["pump bearings are wearing"]),
    ("the inlet screen is getting clogged", "inlet screen clogged",
     ["inlet screen is getting clogged"]),
    ("design pressure (16 bar) exceeded", "design pressure exceeded",
     ["design pressure (16 bar) exceeded"]),
    ("the inlet screen is not clogged", "inlet screen clogged", []),
    ("the inlet screen is clean and the outlet clogged", "inlet screen clogged", []),
    ("inlet screen (not the outlet) clogged", "inlet screen clogged", []),
    ("inlet screen; outlet clogged", "inlet screen clogged", []),
    ("no spare or replacement part is needed", "no replacement part needed",
     ["no spare or replacement part is needed"]),
    ("inlet and outlet screens clogged", "inlet screen clogged", ["inlet"]),
    ("inlet and outlet screens clogged", "outlet screen clogged", ["outlet screens clogged"]),
    ("the seal wasn't replaced", "not replaced", ["wasn't replaced"]),
    ("the seal was replaced", "not replaced", []),
    # A hedge on the verb ("appears to", "seem to") says what the verb says.
    ("the pump doesn't appear to have stalled at all", "not stall",
     ["doesn't appear to have stalled"]),
    ("the strainer seems to be partly clogged", "strainer clogged",
     ["strainer seems to be partly clogged"]),
    ("the pump doesn't appear to run; it stalled", "not stall", []),
])
def test_a_phrase_read_loosely(text: str, phrase: str, found: list[str]) -> None:
    t = read(text)
    assert [t.raw[a:b] for a, b, _ in t.find_loose(phrase)] == found


@pytest.mark.parametrize(("text", "phrase", "denied"), [
    ("Seal leak and bearing wear are not tied to it.", "bearing wear", True),
    ("Seal leak and bearing wear are not tied to it.", "seal leak", True),
    ("The seal leak isn't one of them.", "seal leak", True),
    ("Flow also shows seal leak, but vibration does not.", "seal leak", False),
    ("P-7 doesn't need a seal leak check.", "p-7", True),
    ("We found seal leak and it is not urgent.", "seal leak", False),
])
def test_a_subject_denied_by_its_verb(text: str, phrase: str, denied: bool) -> None:
    t = read(text)
    a = t.low.find(phrase)
    assert t.denied_after(a, a + len(phrase)) is denied


@pytest.mark.parametrize(("text", "days"), [
    ("Log of 4–7 May 2025: dark from 02:00 to 09:00 on 5 May.",
     [("2025-05-07", None), ("2025-05-05", 2), ("2025-05-05", 9)]),
    ("Log of 4–7 May 2025: dark from 02:00 through 09:00 on 5 May.",
     [("2025-05-07", None), ("2025-05-05", 2), ("2025-05-05", 9)]),
])
def test_a_range_of_hours_takes_the_day_written_after_it(
        text: str, days: list[tuple[str, int | None]]) -> None:
    assert [(w.day, w.hour) for w in read(text, year=2025).whens] == days


def test_a_contrast_that_denies_a_clause_for_another_subject() -> None:
    t = read("Both show cavitation. The probe also shows bearing wear, but the meter does not.")
    at = t.low.index("bearing wear")
    assert t.contrasted_away(at, at + len("bearing wear"))
    at = t.low.index("cavitation")
    assert not t.contrasted_away(at, at + len("cavitation"))
    t = read("The probe shows bearing wear, but that is not surprising here.")
    at = t.low.index("bearing wear")
    assert not t.contrasted_away(at, at + len("bearing wear"))


def test_times_listed_after_a_day_are_that_day_s_before_the_next_day_starts() -> None:
    t = read("Pump stops: 4 May 06:00 and 19:30, 5 May 11:00 and 22:15, 6 May 03:45.",
             year=2026)
    assert [w.stamp() for w in t.whens] == ["2026-05-04T06:00", "2026-05-04T19:30",
                                            "2026-05-05T11:00", "2026-05-05T22:15",
                                            "2026-05-06T03:45"]
    t = read("Stops on 4 May at 06:00 and 19:30 on 5 May.", year=2026)
    assert [w.stamp() for w in t.whens] == ["2026-05-04T06:00", "2026-05-05T19:30"]


def test_the_day_a_text_is_written_on() -> None:
    from eval.reader import stated_now

    assert stated_now("It's Friday 3 July 2026; which jobs go in?") == "2026-07-03"
    assert stated_now("Going by the orders on file as of 2026-07-03, what next?") == "2026-07-03"
    assert stated_now("Assume today is the 3rd of July 2026.") == "2026-07-03"
    assert stated_now("Planning the 2026-07-20 outage (it is 2026-07-03 now).") == "2026-07-03"
    assert stated_now("The outage starts on 20 July 2026. What goes in?") is None


def test_a_singular_in_y_shares_its_stem_with_its_plural_in_ies() -> None:
    from eval.reader import stem

    assert stem("battery") == stem("batteries") == stem("batteried")
    assert stem("delivery") == stem("deliveries")
    assert stem("day") == stem("days") and stem("any") == "any"


def test_an_abbreviation_inside_a_sentence_does_not_end_it() -> None:
    t = read("Two pumps failed (e.g. P-3 on Monday), i.e. both of the older pair, vs. none "
             "of the new ones, pipes etc. included. Next week we check P-4.")
    assert len(t.sentences) == 2
    assert len(read("We replaced seals, gaskets etc. The pump runs again.").sentences) == 2


def test_a_range_of_hours_across_days_is_read_with_both_days() -> None:
    t = read("Down from 30 April 21:00 to 1 May 04:00, then 1 May 10:00-12:00.", year=2026)
    assert t.day_ranges == [("2026-04-30", 21, "2026-05-01", 4)]
    assert t.ranges == [("2026-05-01", 10, 12)]


def test_a_fall_said_after_a_bracketed_restatement_applies_to_both_values() -> None:
    t = read("The pump draws roughly 0.03 (3 %) less than rated today.")
    assert [(n.value, n.falling) for n in t.numbers] == [(0.03, True), (3.0, True)]
    t = read("Output is 4 % [0.04] lower than expected.")
    assert [n.falling for n in t.numbers] == [True, True]
    t = read("Flow is 12 m3/h (pump B) and 3 % higher than expected.")
    assert not any(n.falling for n in t.numbers)


def test_a_value_with_its_unit_inside_a_loose_phrase_is_one_word() -> None:
    phrase = "above the rated casing limit"
    assert read("It ran above the 80 °C rated casing temperature limit.").find_loose(phrase)
    assert read("Load stayed above the 95 % rated casing stress limit.").find_loose(phrase)
    assert not read("It ran above the 80 °C rated casing outer skin temperature limit."
                    ).find_loose(phrase)
