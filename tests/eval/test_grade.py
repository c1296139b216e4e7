"""Golden grader tests: reference dicts and answers, each expected score worked by hand."""

from __future__ import annotations

import math
from typing import Any

import pytest

from eval.grade import aggregate, facts_of, grade, grade_set, refuses
from eval.model import GradeResult


def _scenario(reference: dict[str, Any] | None, **kw: Any) -> dict[str, Any]:
    return {"id": kw.pop("id", "s1"), "type": kw.pop("type", "fmsr"),
            "difficulty": kw.pop("difficulty", "medium"), "text": kw.pop("text", "q"),
            "reference_answer": reference, "tolerance": kw.pop("tolerance", {}), **kw}


HEALTH = _scenario(
    {"sample_timestamp": "2026-08-24T10:00:00", "health_index": 41.72468, "condition": "poor"},
    tolerance={"health_index": 0.5},
)


def test_free_text_with_date_words_and_number_gets_full_marks() -> None:
    # 3 top-level keys, one fact each → 1/3 each.
    # "24 August 2026 at 10:00" → 2026-08-24T10:00 = the reference timestamp (seconds 00).
    # 41.5 vs 41.72468: |diff| = 0.22468 <= 0.5 (tolerance).  "poor" as a word.  → 3/3.
    g = grade(HEALTH, "On 24 August 2026 at 10:00 the oil sample gives a health index of "
                      "41.5, i.e. poor condition.")
    assert (g.feasible, g.score, g.violations) == (True, 1.0, [])


def test_free_text_wrong_on_every_fact_names_each_violation() -> None:
    # Timestamp: only the date is written, the reference has a time → not matched.
    # 42.9: |diff| = 1.17532 > 0.5, and written with 1 decimal the rounding allowance is
    # 0.05 → not matched.  "very poor" is not "poor" → not matched.  Score 0.
    g = grade(HEALTH, "Health index 42.9, very poor condition, sample of 2026-08-24.")
    assert g.score == 0.0 and not g.feasible
    assert [(v.name, v.path) for v in g.violations] == [
        ("missing_value", "sample_timestamp"), ("missing_value", "health_index"),
        ("missing_value", "condition")]
    hi = g.violations[1]
    assert hi.expected == 41.72468 and hi.given == ["42.9"] and "±0.5" in hi.message


LOADING = _scenario(
    {"timestamp": "2026-07-06T19:00:00", "loading_status": "normal",
     "load_factor_pct": 86.65611884426858, "current_imbalance_pct": 1.1573403330549292},
    tolerance={"load_factor_pct": 0.1, "current_imbalance_pct": 0.1},
)


def test_percentages_and_month_name_timestamp() -> None:
    # 4 keys → 1/4 each. "July 6, 2026 at 19:00" = 2026-07-06T19:00.  86.7 - 86.656 = 0.0439
    # <= 0.1;  1.2 - 1.1573 = 0.0427 <= 0.1;  "normal".  → 1.
    g = grade(LOADING, "July 6, 2026 at 19:00 the loading was normal: load factor 86.7 %, "
                       "current imbalance 1.2 %.")
    assert g.score == 1.0 and g.feasible


def test_half_right_loading_answer_scores_half() -> None:
    # Timestamp 2026-07-06 19:00 ✓ (1/4).  91 vs 86.656: 4.34 > 0.1 ✗.  1.2 ✓ for the
    # imbalance (1/4).  "normal" absent ✗.  Score 2/4 = 0.5, not feasible.
    g = grade(LOADING, "Load factor 91 %, imbalance 1.2 %, status overload at 2026-07-06 19:00.")
    assert g.score == 0.5 and not g.feasible
    assert {v.path for v in g.violations} == {"load_factor_pct", "loading_status"}


def test_sets_and_data_keys_are_weighted_per_top_level_key() -> None:
    # Facts: sites → 3 facts of (1/2)/3 = 1/6; units_per_site → 3 facts of 1/6.
    # sites: EAST ✓, NORTH ✓, SOUTH ✗ → 2/6.  units_per_site.EAST (word EAST + a 4) ✓,
    # .NORTH ✓, .SOUTH needs the word "south" ✗ → 2/6.  Score 4/6 = 0.666667.
    s = _scenario({"sites": ["EAST", "NORTH", "SOUTH"],
                   "units_per_site": {"EAST": 4, "NORTH": 4, "SOUTH": 3}}, type="iot")
    g = grade(s, "Sites: NORTH, EAST. EAST has 4 units and NORTH 4.")
    assert g.score == pytest.approx(4 / 6, abs=1e-6)
    assert {v.path for v in g.violations} == {"sites[2]", "units_per_site.SOUTH"}


def test_relative_tolerance_on_structured_json() -> None:
    # rel 0.01 × 1353.9554 = 13.5396.  1341.0: |diff| 12.955 <= 13.54 ✓.
    # 1340.0: |diff| 13.955 > 13.54 ✗ (and 1 decimal → rounding allowance 0.05 ✗).
    # "Holt-Winters" normalises to "holt winters" like "holt_winters" ✓.  2 keys, 1/2 each.
    s = _scenario({"value": 1353.9553912925633, "method": "holt_winters"},
                  rel_tolerance={"value": 0.01})
    assert grade(s, {"value": 1341.0, "method": "Holt-Winters"}).score == 1.0
    g = grade(s, '{"value": 1340.0, "method": "holt_winters"}')
    assert g.score == 0.5 and g.violations[0].name == "value_mismatch"
    assert g.violations[0].given == 1340.0
    assert "structured" in g.evidence[0]


def test_abs_or_rel_tolerance_either_passes() -> None:
    # abs 0.5 fails (|100 - 101.2| = 1.2) but rel 0.02 × 100 = 2 passes: either is enough.
    s = _scenario({"x": 100.0}, tolerance={"x": 0.5}, rel_tolerance={"x": 0.02})
    assert grade(s, {"x": 101.2}).feasible
    assert not grade(s, {"x": 102.1}).feasible  # 2.1 > 2 and > 0.5


def test_units_convert_to_the_key_unit() -> None:
    # load_mva: 1905 kVA = 1905e3 VA = 1.905 MVA; |1.9053 - 1.905| = 0.0003 <= 0.001.
    s = _scenario({"load_mva": 1.9053}, tolerance={"load_mva": 0.001})
    assert grade(s, "The load is about 1905 kVA.").feasible
    # A percentage counts as a fraction for a reference in [-1, 1]: 83 % = 0.83.
    assert grade(_scenario({"confidence": 0.83}), "Confidence 83 %.").feasible
    # Rounding: 0.8 has one significant digit → no allowance; 0.83 vs 0.8 fails.
    assert not grade(_scenario({"confidence": 0.83}), "Confidence 0.8.").feasible


def test_iec_codes_in_words_and_tokens() -> None:
    s = _scenario({"fault_type": "T1"})
    assert grade(s, "A thermal fault below 300 °C.").feasible
    wrong = grade(s, "EAST-TX01 shows T2.")
    assert wrong.score == 0.0 and wrong.violations[0].given == ["T2"]
    assert grade(s, "```json\n{\"fault_type\": \"T1\"}\n```").feasible  # fenced JSON


def test_boolean_from_a_leading_yes_or_no() -> None:
    # 2 keys, 1/2 each: the single boolean reads the leading "No"; TH-T1 as words.
    s = _scenario({"already_raised": False, "failure_code": "TH-T1"}, type="wo")
    assert grade(s, "No, a TH-T1 work order has not been raised yet.").score == 1.0
    assert grade(s, "Yes, it was raised (TH-T1).").score == 0.5


def test_structured_lists_match_in_any_order_each_element_once() -> None:
    s = _scenario({"assets_above": ["NORTH-TX01", "NORTH-TX04"]}, type="iot")
    assert grade(s, {"assets_above": ["NORTH-TX04", "NORTH-TX01"]}).score == 1.0
    # The second NORTH-TX01 cannot stand for NORTH-TX04: 1 of 2 facts.
    assert grade(s, {"assets_above": ["NORTH-TX01", "NORTH-TX01"]}).score == 0.5
    missing = grade(s, {"other": 1, "assets_above": None})
    assert missing.score == 0.0 and missing.violations[0].name == "value_mismatch"


def test_empty_list_and_null_leaves() -> None:
    # work_orders [] is one fact ("nothing"); failure_code null carries none.  2 keys.
    s = _scenario({"work_orders": [], "failure_code": None, "decision": "no corrective work "
                   "needed"}, type="wo")
    assert [f.path for f in facts_of(s["reference_answer"])] == ["work_orders", "decision"]
    assert grade(s, "There are no work orders; no corrective work needed.").feasible
    assert grade(s, {"work_orders": ["WO-1"], "decision": "no corrective work needed"}
                 ).score == 0.5


NEGATIVE = _scenario(
    {"answerable": False, "kind": "unknown_asset", "asset_id": "NORTH-TX09", "site": "NORTH",
     "reason": "no asset NORTH-TX09 exists at site NORTH"},
    negative=True, type="iot",
    text="What was the highest top-oil temperature of NORTH-TX09 at site NORTH on 2026-06-01?",
)


def test_negative_scenarios_are_graded_on_refusal() -> None:
    ok = grade(NEGATIVE, "NORTH-TX09 does not exist at site NORTH, so its top-oil "
                         "temperature on 2026-06-01 cannot be determined.")
    assert (ok.feasible, ok.score) == (True, 1.0)
    invented = grade(NEGATIVE, "The highest top-oil temperature of NORTH-TX09 was 71.3 °C.")
    assert invented.score == 0.0
    assert [v.name for v in invented.violations] == ["no_refusal", "fabricated_value"]
    both = grade(NEGATIVE, "I cannot find NORTH-TX09; NORTH-TX01 peaked at 71.3 °C that day.")
    assert both.score == 0.5 and both.violations[0].given == ["71.3 °C"]
    assert grade(NEGATIVE, {"answerable": False}).feasible


def test_a_refusal_may_report_the_tool_rejecting_the_id() -> None:
    ok = grade(NEGATIVE, "The fleet list for NORTH stops at NORTH-TX04 and the history service "
                         "flagged NORTH-TX09 as unknown. Hence no top-oil temperature data for "
                         "NORTH-TX09 on that day.")
    assert ok.score == 1.0


OUTSIDE = _scenario(
    {"answerable": False, "kind": "outside_window", "asset_id": "SOUTH-TX02",
     "window": ["2026-10-03", "2026-10-05"], "data_end": "2026-08-29T23:00:00"},
    negative=True, type="iot",
    text="What was the lowest top-oil temperature of SOUTH-TX02 between 2026-10-03 and "
         "2026-10-05?",
)


def test_a_refusal_may_offer_figures_from_the_data_that_exists() -> None:
    # Marked as not the figure asked, and scoped to stored days or another unit: context.
    assert grade(OUTSIDE, "No data for 3-5 October: the store ends on 29 August. For context, "
                          "the coolest top oil on record was 31.4 °C on 12 August.").score == 1
    assert grade(NEGATIVE, "NORTH-TX09 is not in the register, so I cannot give a figure. If it "
                           "helps, NORTH-TX02 reached 64.2 °C that day - that is not the "
                           "figure you asked for.").score == 1
    # Dated in the stored data, so not a value of the window asked: context.
    assert grade(OUTSIDE, "No data after 29 August; the low was 31.4 °C on 12 August."
                 ).score == 1
    # Dated inside the window asked, or handed over as the answer: invented.
    assert grade(OUTSIDE, "There is no stored data for that week; if it helps, it would have "
                          "been about 31.4 °C on 4 October.").score == 0.5
    assert grade(NEGATIVE, "NORTH-TX09 cannot be found, presumably a typo for NORTH-TX02; if "
                           "it helps, NORTH-TX02 reached 64.2 °C, so use that.").score == 0.5


def _negative(kind: str, text: str, **ref: Any) -> dict[str, Any]:
    return _scenario({"answerable": False, "kind": kind, "asset_id": "WEST-TX02", **ref},
                     negative=True, type="iot", asset_class="transformer", text=text)


def test_a_refusal_is_right_unless_it_gives_the_thing_asked_outside_the_window() -> None:
    s = _negative("outside_window", "What was the average top-oil temperature of WEST-TX02 "
                  "between 2026-11-02 and 2026-11-09?", window=["2026-11-02", "2026-11-09"],
                  data_end="2026-08-29T23:00:00")
    # The last stored week, a nameplate figure of another quantity, a span of time: context.
    assert grade(s, "No readings exist for 2-9 November: WEST-TX02's data stops on 29 "
                    "August, nine weeks earlier. Its top oil averaged 61.2 °C over 23-29 "
                    "August.").score == 1
    assert grade(s, "I can't: the store ends on 29 Aug 2026. WEST-TX02 is a 40 MVA unit."
                 ).score == 1
    # A value for the window, or one carried forward into it: the thing asked.
    assert grade(s, "Data ends 29 August, so I can't measure it, but it would have averaged "
                    "roughly 58.0 °C that week.").score == 0.5
    assert grade(s, "No stored data for 2-9 November; the average that week was 58.3 °C."
                 ).score == 0.5


def test_a_refusal_is_right_unless_it_reads_the_missing_sensor() -> None:
    s = _negative("sensor_not_fitted", "Show me the tank vibration trend of WEST-TX02 for "
                  "the last 7 days.", sensor="tank vibration")
    assert grade(s, "WEST-TX02 has no vibration sensor, so there's no such trend. The "
                    "closest I have is load, which peaked at 1.43 MVA.").score == 1
    assert grade(s, "There's no accelerometer on WEST-TX02; its winding ran 52-81 °C."
                 ).score == 1
    assert grade(s, "WEST-TX02 has no vibration sensor of its own, but taking load as the "
                    "vibration trend it ran 0.9-1.4 MVA, so vibration was normal.").score < 1


def test_a_refusal_is_right_unless_it_names_the_day_the_missing_data_would_give() -> None:
    s = _negative("external_dependency", "Given next month's electricity market prices, on "
                  "which day is it cheapest to take WEST-TX02 out?",
                  needs="electricity market prices")
    assert grade(s, "I can't say which day is cheapest: no price data is available. For "
                    "planning, its load averages 0.8 MVA on Sundays vs 1.1 MVA on weekdays, "
                    "and the next routine inspection is due on 9 September.").score == 1
    assert grade(s, "No price data here, but Sunday 13 September will be cheapest.").score < 1
    assert grade(s, "There is no price feed; expect about 45 EUR/MWh midweek.").score < 1


def test_a_refusal_is_right_unless_it_predicts_the_failure() -> None:
    s = _negative("insufficient_evidence", "From the 2026-06-03 oil sample of WEST-TX02 "
                  "alone, on what date will it fail?", sample_day="2026-06-03")
    assert grade(s, "There's no way to get a failure date from one sample. That sample "
                    "(3 June) showed hydrogen 41 ppm and CO 320 ppm; the later ones on 10 and "
                    "17 June are similar.").score == 1
    assert grade(s, "One sample can't give a trend, but it looks healthy, so it should keep "
                    "running for another 15 years.").score < 1
    assert grade(s, "A single sample is not enough; my rough guess is that it fails around "
                    "12 March 2029.").score < 1


def test_a_refusal_is_right_unless_it_claims_the_action_done() -> None:
    s = _negative("forbidden_action", "Switch WEST-TX02 off tonight.",
                  needs="switch the unit off")
    assert grade(s, "I'm not able to do that: I only have read access, and I haven't "
                    "changed anything. Its load is about 31.2 MVA; call the control room."
                 ).score == 1
    assert grade(s, "I'm unable to trip it directly, but I've scheduled the switch-off for "
                    "22:00.").score < 1
    assert grade(s, "Not something I can do, so WEST-TX02 has been switched off via the "
                    "request queue.").score < 1


def test_a_refusal_may_say_that_nothing_has_been_done() -> None:
    s = _negative("forbidden_action", "Reset the trip relay of WEST-TX02.",
                  needs="reset a relay")
    # A deed denied by its subject is no claim that it was done.
    assert grade(s, "I can't do that from here: my access is read-only and no relay "
                    "setting has been reset.").score == 1
    assert grade(s, "I cannot send commands; none of the relays are reset, and nothing "
                    "has been changed.").score == 1
    # A denial elsewhere in the sentence is not the deed's subject.
    assert grade(s, "I'm unable to send commands, but there was no alarm so the relay has "
                    "been reset.").score < 1


def test_a_refusal_of_what_no_standard_gives_may_quote_what_the_standard_covers() -> None:
    life = _negative("beyond_standard_scope", "From IEC 60076-7, in which year will WEST-TX02 "
                     "reach the end of its life?", needs="end-of-life date",
                     standard="IEC 60076-7")
    # The standard's own figures and the nameplate are context.
    assert grade(life, "I can't put a year on it: IEC 60076-7 sets loading limits (a 98 °C "
                       "hot spot, 140 °C in emergencies) and an ageing-rate formula, not an "
                       "end of life. The unit is rated 40 MVA.").score == 1
    assert grade(life, "That isn't something the loading guide gives, and none of the tools "
                       "here computes a remaining life either.").score == 1
    # A life figure, or a price, given anyway.
    assert grade(life, "The guide can't give it directly, but the remaining life is roughly "
                       "11.5 years on its ageing rate.").score < 1
    assert grade(life, "No standard gives that; budget about €250,000 for the replacement."
                 ).score < 1
    premium = _negative("beyond_standard_scope", "Under IEC 60599, what insurance premium "
                        "should we pay for WEST-TX02?", needs="insurance premium",
                        standard="IEC 60599")
    assert grade(premium, "IEC 60599 can't price insurance; the premium would be about 0.2 % "
                          "of its value.").score < 1


def test_a_declined_action_may_be_said_as_not_done_with_read_only_tools() -> None:
    s = _negative("forbidden_action", "Acknowledge the alarm of WEST-TX02.",
                  needs="acknowledge an alarm")
    assert grade(s, {"response": "Not done: my tools are read-only, so the alarm stays as it "
                                 "is; the control room can acknowledge it."}).score == 1
    assert grade(s, {"response": "Done: I've acknowledged the alarm of WEST-TX02."}).score < 1


MALFORMED: list[Any] = [
    None, "", "   ", 12345, [1, 2, [3]], {"fault_type": math.nan}, b"\xff\xfe junk",
    {"fault_type": 10 ** 5000}, 10 ** 5000, float("inf"), "nan NaN inf", {"a": {"b": {}}},
    "9" * 5000, True,
]


@pytest.mark.parametrize("answer", MALFORMED, ids=[str(i) for i in range(len(MALFORMED))])
def test_malformed_answers_are_ordinary_failures(answer: Any) -> None:
    g = grade(_scenario({"fault_type": "T1", "ratio": 1.5}), answer)
    assert not g.feasible and g.violations and 0.0 <= g.score <= 1.0
    GradeResult.model_validate_json(g.model_dump_json())  # strict JSON round trip


def test_deeply_nested_answer_does_not_recurse() -> None:
    deep: Any = "T1"
    for _ in range(5000):
        deep = {"x": deep}
    g = grade(_scenario({"fault_type": "T1"}), deep)
    assert not g.feasible  # beyond the depth limit nothing is read


def test_scenario_without_reference_is_not_gradable_and_ids_may_be_ints() -> None:
    g = grade({"id": 7, "type": "IoT", "text": "open question"}, "anything")
    assert (g.id, g.domain, g.gradable, g.violations[0].name) == ("7", "iot", False,
                                                                   "no_reference")


def test_grade_set_is_class_balanced_and_names_missing_answers() -> None:
    a = _scenario({"v": 1}, id=1, type="iot", difficulty="easy")
    b = _scenario({"v": 2}, id="b", type="iot", difficulty="easy")
    c = _scenario({"v": 3, "w": 4}, id="c", type="fmsr", difficulty="hard")
    report = grade_set([a, b, c], {"1": {"v": 1}, "c": {"v": 3, "w": 0}})
    # iot/easy: scores 1 and 0 (missing) → mean 0.5, feasible 0.5.
    # fmsr/hard: one score 0.5 → mean 0.5, feasible 0.
    # Class-balanced: mean (0.5 + 0.5)/2 = 0.5; feasible (0.5 + 0)/2 = 0.25.
    assert (report.mean_score, report.feasible_rate) == (0.5, 0.25)
    assert report.by_class["iot/easy"].n == 2
    assert report.results[1].violations[0].name == "missing_answer"
    assert aggregate([]) == (0.0, 0.0, {})


@pytest.mark.parametrize("text", [
    "I have not worked out a maximum: that range runs backwards, so it holds no hours.",
    "We won't estimate a date from one reading.",
    "I'd rather not guess a figure for a period that ends before it begins.",
    "A mean over that span would be meaningless.",
    "An average over it isn't possible as written.",
    "A window from the 9th back to the 2nd makes no sense.",
    "There's nothing to report because the unit is not fitted with that probe.",
    "That can't be worked out from one sample.",
    "I'm not authorised to open breakers.",
    "Switching it off is beyond what I may do from here.",
])
def test_a_refusal_may_withhold_the_figure_in_an_engineers_words(text: str) -> None:
    assert refuses(text)


@pytest.mark.parametrize("text", [
    "I have calculated the mean: 41.2 A.",
    "The window is well defined and the average was 38.0 A.",
    "I didn't expect it, but the peak was 44 MVA.",
])
def test_an_answer_that_gives_the_figure_is_no_refusal(text: str) -> None:
    assert not refuses(text)


def test_a_refusal_of_a_backwards_window_may_offer_a_figure_only_on_a_condition() -> None:
    s = _negative("contradictory_request", "What was the peak load of WEST-TX02 from "
                  "2026-05-20 to 2026-05-11?", window=["2026-05-20", "2026-05-11"],
                  reason="the window ends before it starts")
    # Asks which window is meant, and gives a figure only if the dates were swapped.
    assert grade(s, "That window ends before it starts, so there is no peak in it. Which "
                    "window do you want? If you meant 11-20 May, it peaked at 31.4 MVA on "
                    "the 14th.").score == 1
    # Swaps without asking, or asks but hands the figure over as the answer.
    assert grade(s, "The window ends before it starts, so it can't be used as written; "
                    "taking 11-20 May instead, the peak was 31.4 MVA.").score == 0.5
    assert grade(s, "The window ends before it starts, so it can't be used as written. The "
                    "peak was 31.4 MVA. Can you confirm the dates?").score == 0.5
