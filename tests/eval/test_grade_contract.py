"""Grading by an answer contract: right answers in people's words score 1, near misses do not.

Every record here is built by hand with its contract inline, so the tests do not depend on
the shipped contracts files; the answers are written as engineers write them.
"""

from __future__ import annotations

from typing import Any

import pytest

from eval.grade import grade
from generator.contract import AnswerContract, parse_contracts, resolve
from generator.errors import UserError

LOADING = {
    "can_carry": {
        "kind": "boolean", "yes_no": True, "means": ["carry", "acceptable"],
        "labels": {"true": ["can carry", "is acceptable"],
                   "false": ["cannot carry", "can't carry", "not acceptable"]},
    },
    "limiting_quantity": {
        "kind": "label", "means": ["limiting", "limited by"],
        "labels": {"hot_spot": ["hot spot", "hot-spot"], "top_oil": ["top oil"],
                   "current": ["current"]},
    },
    "peak_hot_spot_c": {"kind": "quantity", "unit": "°C", "means": ["hot spot", "hot-spot"]},
    "peak_top_oil_c": {"kind": "quantity", "unit": "°C", "means": ["top oil", "top-oil"]},
}


def _record(reference: dict[str, Any], facts: dict[str, Any], text: str,
            tolerance: dict[str, float] | None = None) -> dict[str, Any]:
    contract = parse_contracts({"fam": facts}, "test")["fam"]
    return {
        "id": "s1", "type": "fmsr", "text": text, "reference_answer": reference,
        "tolerance": tolerance or {}, "family": "fam",
        "answer_contract": resolve(contract, text).model_dump(),
    }


LOADING_RECORD = _record(
    {"can_carry": False, "limiting_quantity": "hot_spot", "peak_hot_spot_c": 145.197,
     "peak_top_oil_c": 101.003},
    LOADING,
    "Is 150 % for 4 hours OK on NORTH-TX01 with 20 °C ambient? Tell me the limiting "
    "quantity and both peak temperatures.",
    {"peak_hot_spot_c": 0.5, "peak_top_oil_c": 0.5},
)


@pytest.mark.parametrize("answer", [
    "No, it cannot carry it: the hot spot is the limiting quantity, peaking at 145.2 °C, "
    "with top oil at 101.0 °C.",
    "Not acceptable. Limited by hot spot: 145 °C peak hot spot and 101 °C top oil.",
    "No - limited by hot spot: 293 °F hot spot, 101 °C top oil.",
    {"verdict": "cannot carry", "limiting": "hot spot", "hot spot": "145.2 °C",
     "top oil": "101 °C"},
    {"can_carry": False, "limiting_quantity": "hot spot", "peak_hot_spot_c": 145.2,
     "peak_top_oil_c": 101.0},
])
def test_right_loading_answers_score_one(answer: Any) -> None:
    result = grade(LOADING_RECORD, answer)
    assert result.score == 1.0, result.violations


@pytest.mark.parametrize(("answer", "flaw"), [
    ("No, it cannot carry it: the hot spot is the limiting quantity, peaking at 101.0 °C, "
     "with top oil at 145.2 °C.", "values swapped between quantities"),
    ("No - limited by hot spot: 145 °F hot spot, 101 °C top oil.", "°C value labelled °F"),
    ("Yes, it can carry it. Limited by hot spot: 145 °C hot spot, 101 °C top oil.",
     "inverted yes/no"),
    ("No, it cannot carry it; limited by hot spot or top oil: 145 °C hot spot, "
     "101 °C top oil.", "hedged label"),
    ("No, it cannot carry it; limited by hot spot: 146 or 145 °C hot spot, 101 °C top oil.",
     "hedged number"),
])
def test_near_misses_score_below_one(answer: str, flaw: str) -> None:
    assert grade(LOADING_RECORD, answer).score < 1.0, flaw


SITE_COOLING = _record(
    {"unit": "CH-PLANT2-04", "ton_hours": {"CH-PLANT2-01": 16309.0, "CH-PLANT2-02": 26959.6,
                                           "CH-PLANT2-04": 41128.6}},
    {"unit": {"kind": "id", "means": ["most", "highest"]},
     "ton_hours": {"kind": "mapping", "means": ["ton-hours"],
                   "value": {"key": "ton_hours", "kind": "quantity", "unit": "ton-h"}}},
    "Which unit delivered the most cooling at PLANT2? List all units' ton-hours.",
    {"ton_hours": 0.5}) | {"rel_tolerance": {"ton_hours": 0.001}}


def test_a_mapping_reads_each_value_next_to_its_key() -> None:
    table = ("| unit | ton-h |\n|---|---|\n| CH-PLANT2-01 | 16,309 |\n"
             "| CH-PLANT2-02 | 26,960 |\n| CH-PLANT2-04 | 41,129 (highest) |")
    assert grade(SITE_COOLING, table).score == 1.0
    prose = ("CH-PLANT2-04 delivered the most cooling, 41,129 ton-hours; CH-PLANT2-01 "
             "16,309 and CH-PLANT2-02 26,960 ton-h.")
    assert grade(SITE_COOLING, prose).score == 1.0


def test_the_wrong_unit_named_is_wrong_even_when_the_right_id_appears() -> None:
    answer = ("CH-PLANT2-02 delivered the most cooling, 26,960 ton-hours. The others: "
              "CH-PLANT2-01 16,309; CH-PLANT2-04 41,129 ton-h.")
    result = grade(SITE_COOLING, answer)
    assert result.score < 1.0
    assert any(v.path == "unit" for v in result.violations)


ANOMALY = _record(
    {"anomalies": 2, "first_anomaly": "2026-08-25T19:00:00", "corrective_work_orders": [],
     "followed_by_corrective": False},
    {"anomalies": {"kind": "count", "means": ["anomalies", "anomalous"]},
     "first_anomaly": {"kind": "timestamp", "granularity": "hour",
                       "means": ["first", "earliest"]},
     "corrective_work_orders": {"kind": "ids", "means": ["corrective", "work order"]},
     "followed_by_corrective": {
         "kind": "boolean", "asked_when": ["follow|react"],
         "means": ["followed", "reacted"],
         "labels": {"true": ["followed by", "was followed"],
                    "false": ["no corrective work followed", "not followed"]}}},
    "Did the compressor power of CH-PLANT2-03 behave unusually over 20 to 28 August 2026? "
    "Count the anomalies and give the first.")


def test_a_fact_the_text_does_not_ask_is_not_graded() -> None:
    answer = "Yes: two anomalies, the first at 19:00 on 25 August 2026. No work orders."
    result = grade(ANOMALY, answer)
    assert result.score == 1.0, result.violations
    assert any("not asked" in e for e in result.evidence)


def test_a_leading_yes_does_not_answer_another_yes_no() -> None:
    record = _record(ANOMALY["reference_answer"], {
        "anomalies": {"kind": "count", "means": ["anomalies"]},
        "first_anomaly": {"kind": "timestamp", "granularity": "hour", "means": ["first"]},
        "corrective_work_orders": {"kind": "ids", "means": ["corrective", "work order"]},
        "followed_by_corrective": {"kind": "boolean", "means": ["followed"], "labels": {
            "true": ["was followed"], "false": ["no corrective work followed"]}}},
        "Did maintenance react to the anomalies of CH-PLANT2-03 over 20 to 28 August 2026? "
        "Count them, give the first and say whether corrective work followed.")
    right = ("Yes: the compressor power showed 2 anomalies, the first on 25 Aug 2026 at "
             "7 pm; no corrective work followed.")
    assert grade(record, right).score == 1.0
    wrong = ("Yes: the compressor power showed 2 anomalies, the first on 25 Aug 2026 at "
             "7 pm, and it was followed by corrective work order WO-0031.")
    assert grade(record, wrong).score < 1.0


def test_neighbouring_day_and_off_by_one_count_fail() -> None:
    assert grade(ANOMALY, "Two anomalies, the first at 19:00 on 24 August 2026.").score < 1
    assert grade(ANOMALY, "Three anomalies, the first at 19:00 on 25 August 2026.").score < 1


def test_a_time_alone_counts_for_the_day_the_question_names() -> None:
    record = _record({"timestamp": "2026-07-19T19:00:00", "load_factor_pct": 108.35},
                     {"timestamp": {"kind": "timestamp", "granularity": "hour",
                                    "means": ["busiest", "peak"]},
                      "load_factor_pct": {"kind": "quantity", "unit": "%",
                                          "means": ["load factor", "loading"]}},
                     "Find the busiest hour of SOUTH-TX02 on July 19, 2026 and its load "
                     "factor.", {"load_factor_pct": 0.1})
    assert grade(record, "Peak at 19:00, load factor 108 %.").score == 1.0
    assert grade(record, "Peak at 7 pm; loading 1.083 pu.").score == 1.0
    assert grade(record, "Peak at 18:00, load factor 108 %.").score < 1.0


def test_granularity_day_takes_the_date_alone() -> None:
    record = _record({"sample_timestamp": "2026-08-13T10:00:00", "fault_type": "T2"},
                     {"sample_timestamp": {"kind": "timestamp", "granularity": "day"},
                      "fault_type": {"kind": "label", "vocabulary": "fault_codes"}},
                     "On which day was the last oil sample of EAST-TX04, and its fault?")
    assert grade(record, "13 August 2026: a thermal fault between 300 and 700 °C.").score == 1
    assert grade(record, "Sampled Aug 13, 2026 - T2.").score == 1
    assert grade(record, "Sampled Aug 13, 2026 - T2 or T3.").score < 1
    assert grade(record, "Sampled Aug 13, 2026 - not T2, it is T3.").score < 1


def test_mode_aware_answers() -> None:
    negative = {"id": "n1", "type": "iot", "text": "Latest load of WEST-TX09?",
                "negative": True,
                "reference_answer": {"answerable": False, "kind": "unknown_asset"}}
    assert grade(negative, {"abstain": "WEST-TX09 is not in the fleet"}).score == 1.0
    assert grade(negative, '{"response": "12.4 MVA"}').score < 1.0
    assert grade(LOADING_RECORD, {"abstain": "cannot tell"}).score == 0.0
    assert grade(LOADING_RECORD, {"response": "No, it cannot carry it: limited by hot spot, "
                                              "145 °C hot spot, 101 °C top oil."}).score == 1


def test_a_mode_answer_keeps_its_mode_beside_further_keys() -> None:
    negative = {"id": "n2", "type": "iot", "text": "On what day will WEST-TX03 fail?",
                "negative": True,
                "reference_answer": {"answerable": False, "kind": "insufficient_evidence"}}
    # The abstention stands with what it offers instead beside it.
    assert grade(negative, {"abstain": "A fail date needs a degradation model here.",
                            "alternatives": "a review of its oil history"}).score == 1.0
    assert grade(LOADING_RECORD, '{"abstain": "I would rather not say.", "why": "a guess"}'
                 ).score == 0.0
    # An abstain key that is false abstains from nothing.
    assert grade(negative, {"abstain": False, "response": "It will fail on 3 May 2031."}
                 ).score < 1.0


def test_contract_errors_name_the_family_and_the_fix() -> None:
    with pytest.raises(UserError, match=r"fam.*kind"):
        parse_contracts({"fam": {"x": {"kind": "colour"}}}, "f.yaml")
    with pytest.raises(UserError, match="mapping needs `value`"):
        parse_contracts({"fam": {"x": {"kind": "mapping"}}}, "f.yaml")
    with pytest.raises(UserError, match="not a regular expression"):
        parse_contracts({"fam": {"x": {"kind": "count", "asked_when": ["("]}}}, "f.yaml")


def test_resolve_decides_asked_from_the_text() -> None:
    contract = AnswerContract.model_validate({"family": "f", "facts": [
        {"key": "a", "kind": "count"},
        {"key": "b", "kind": "boolean", "asked_when": ["faster than 10"]},
        {"key": "c", "kind": "date", "asked": False}]})
    asked = {f.key: f.asked for f in resolve(contract, "Was it faster than 10 ppm?").facts}
    assert asked == {"a": True, "b": True, "c": False}
    asked = {f.key: f.asked for f in resolve(contract, "How fast was it?").facts}
    assert asked == {"a": True, "b": False, "c": False}


def test_pairs_and_records_are_read_item_by_item() -> None:
    record = _record(
        {"gaps": [["2025-06-03T04:00:00", "2025-06-03T06:00:00"],
                  ["2025-06-05T10:00:00", "2025-06-05T10:00:00"]], "missing_hours": 4},
        {"gaps": {"kind": "timestamp", "granularity": "hour", "means": ["gap", "missing"]},
         "missing_hours": {"kind": "count", "unit": "h", "means": ["missing"]}},
        "Where are the gaps in the records of CH-MAIN-01 over 1 to 12 June 2025, and how "
        "many hours are missing?")
    right = "Two gaps, 4 hours missing: 3 June 04:00-06:00 and 5 June at 10:00."
    assert grade(record, right).score == 1.0
    assert grade(record, right.replace("5 June", "6 June")).score < 1.0
    assert grade(record, right.replace("4 hours", "five hours")).score < 1.0


def test_totals_and_null_facts() -> None:
    record = _record({"agreeing": 2, "fault_type": None},
                     {"agreeing": {"kind": "count", "means": ["agree", "methods"]},
                      "fault_type": {"kind": "label", "means": ["fault"],
                                     "vocabulary": "fault_codes"}},
                     "How many of the three methods agree on a fault class for EAST-TX01, "
                     "and which class?")
    assert grade(record, "Two of the three methods agree; no fault class is found.").score == 1
    assert grade(record, "Three methods agree; no fault class is found.").score < 1
    assert grade(record, "Two of the three methods agree, on T2.").score < 1


def test_fractional_number_words() -> None:
    record = _record({"degradation_pct": 3.75}, {"degradation_pct": {
        "kind": "quantity", "unit": "%", "means": ["above", "degradation"]}},
        "How far is CH-EASTPLANT-03 above its design kW per ton?", {"degradation_pct": 0.1})
    assert grade(record, "About three point seven percent above design.").score == 1
    assert grade(record, "About four point two percent above design.").score < 1
    exact = _record({"peak_mva": 31.46}, {"peak_mva": {"kind": "quantity", "unit": "MVA",
                                                       "means": ["peak"]}},
                    "What was the peak load of NORTH-TX01 on 3 May 2026?")
    assert grade(exact, "The peak was thirty-one point five MVA.").score == 1
    assert grade(exact, "The peak was thirty-one point three MVA.").score < 1


def test_unstated_yes_no_implied_or_assumed() -> None:
    facts = {"fault_found": {"kind": "boolean", "implied_by": ["fault_start"],
                             "labels": {"true": ["fault found"], "false": ["no fault"]}},
             "fault_start": {"kind": "timestamp", "granularity": "hour",
                             "means": ["from", "since"]},
             "premise_holds": {"kind": "boolean", "assumed": True,
                               "labels": {"false": ["premise does not hold"]}}}
    text = "Is the WTI contact of NORTH-TX04 faulty as the report says, and since when?"
    record = _record({"fault_found": True, "fault_start": "2026-07-30T02:00:00",
                      "premise_holds": True}, facts, text)
    assert grade(record, "Faulty contact since 02:00 on 30 July 2026.").score == 1.0
    assert grade(record, "The premise does not hold; faulty since 02:00 on 30 July 2026."
                 ).score < 1.0
    false_record = _record({"fault_found": True, "fault_start": "2026-07-30T02:00:00",
                            "premise_holds": False}, facts, text)
    assert grade(false_record, "Faulty since 02:00 on 30 July 2026.").score < 1.0
    assert grade(record, "Trip: no; tripped: no; faulty since 02:00 on 30 July 2026."
                 ).score == 1.0


def test_a_yes_no_implied_by_a_fact_the_text_does_not_ask_for() -> None:
    facts = {"order_raised": {"kind": "boolean", "yes_no": True, "implied_by": ["orders"],
                              "labels": {"true": ["was raised"], "false": ["none raised"]}},
             "orders": {"kind": "ids", "asked": False, "means": ["orders"]}}
    text = "Did anyone raise corrective work on SOUTH-TX01 after its alarm?"
    record = _record({"order_raised": True, "orders": ["WO-SOUTH-TX01-007"]}, facts, text)
    assert grade(record, "Corrective orders since the alarm: WO-SOUTH-TX01-007.").score == 1.0
    # a listed order that is not the reference's states nothing
    assert grade(record, "Corrective orders since the alarm: WO-SOUTH-TX01-003.").score < 1.0
    assert grade(record, "The alarm was logged at 14:00.").score < 1.0


def test_the_reference_itself_scores_one() -> None:
    for record in (LOADING_RECORD, SITE_COOLING, ANOMALY):
        assert grade(record, record["reference_answer"]).score == 1.0, record["id"]
    empty = _record({"count": 0, "work_orders": [], "by_code": {}},
                    {"count": {"kind": "count", "means": ["jobs"]},
                     "work_orders": {"kind": "ids", "means": ["orders"]},
                     "by_code": {"kind": "mapping", "value": {"key": "by_code",
                                                              "kind": "count"}}},
                    "Which work orders, per code, did CH-MAIN-04 get in July?")
    assert grade(empty, empty["reference_answer"]).score == 1.0


def test_hedges_over_several_words_and_doubtful_members() -> None:
    record = _record({"count": 0, "modes": ["condenser_fouling"]},
                     {"count": {"kind": "count", "means": ["corrective"]},
                      "modes": {"kind": "labels", "means": ["modes"],
                                "labels": {"condenser_fouling": ["condenser fouling"],
                                           "purge_problem": ["purge failure"]}}},
                     "How many corrective jobs did CH-MAIN-04 get, and which failure modes "
                     "does its condenser temperature reveal?")
    right = "No corrective jobs. The modes: condenser fouling."
    assert grade(record, right).score == 1.0
    assert grade(record, "Either no corrective job or one. The modes: condenser fouling."
                 ).score < 1.0
    assert grade(record, "No corrective jobs. The modes: condenser fouling, and possibly "
                 "purge failure as well.").score < 1.0


def test_an_unasked_count_stated_wrong_or_hedged_fails() -> None:
    record = _record({"pickups": 4, "faulty": True},
                     {"pickups": {"kind": "count", "asked": False,
                                  "means": ["pick-ups", "operations"]},
                      "faulty": {"kind": "boolean", "yes_no": True, "means": ["faulty"]}},
                     "Is the OTI alarm contact of WEST-TX07 faulty?")
    assert grade(record, "Yes, faulty: four pick-ups, none at a high reading.").score == 1
    assert grade(record, "Yes, faulty - the indicator never reached its setting.").score == 1
    assert grade(record, "Yes, faulty: six pick-ups, none at a high reading.").score < 1
    assert grade(record, "Yes, faulty: three or four pick-ups, none at a high reading."
                 ).score < 1


def test_an_unasked_count_in_the_unit_its_key_names_is_read_in_that_unit() -> None:
    record = _record({"band": "old", "service_years": 27},
                     {"band": {"kind": "label", "means": ["band"],
                               "labels": {"old": ["older units"], "new": ["newer units"]}},
                      "service_years": {"kind": "count", "asked": False,
                                        "means": ["in service", "service life"]}},
                     "Which age band does pump P-104 fall in for the 2024 survey?")
    # A year said of a noun, a bound of the band: neither states the years in service.
    assert grade(record, "It is in the band of older units: in service since 1997, so "
                 "27 years in service for this 2024 survey.").score == 1
    assert grade(record, "Band of older units, as it is in service for more than 20 years."
                 ).score == 1
    assert grade(record, "Band of older units; its service life counts from this 2024 survey."
                 ).score == 1
    assert grade(record, "Band of older units: in service for 25 years.").score < 1


def test_an_unasked_quantity_stated_in_its_unit_with_another_value_fails() -> None:
    record = _record({"action": "regrease", "bearing_c": 71.4},
                     {"action": {"kind": "label", "means": ["action"],
                                 "labels": {"regrease": ["regrease the bearing"],
                                            "none": ["no action"]}},
                      "bearing_c": {"kind": "quantity", "unit": "°C", "asked": False,
                                    "means": ["bearing temperature", "bearing runs"]}},
                     "What should we do about fan F-7 on the roof?")
    assert grade(record, "Regrease the bearing: bearing temperature 71.4 °C.").score == 1
    assert grade(record, "Regrease the bearing: the bearing temperature is 71 °C, with the "
                 "alarm at 65 °C.").score == 1
    assert grade(record, "Regrease the bearing: bearing temperature over 65 °C.").score == 1
    assert grade(record, "Regrease the bearing: bearing temperature 64.9 °C.").score < 1


def test_an_unasked_yes_no_said_the_other_way_by_its_phrasing_fails() -> None:
    record = _record({"leaks": 2, "fixed": False},
                     {"leaks": {"kind": "count", "means": ["leaks"]},
                      "fixed": {"kind": "boolean", "asked": False, "means": ["fixed"],
                                "labels": {"true": ["was fixed", "were fixed", "got fixed"],
                                           "false": ["not fixed", "still open"]}}},
                     "How many leaks did valve V-3 have in May 2026?")
    assert grade(record, "Two leaks in May; both are still open.").score == 1
    assert grade(record, "Two leaks in May.").score == 1
    assert grade(record, "Two leaks in May; both were fixed by the night shift.").score < 1
    # A rule or a supposition states nothing of what happened.
    assert grade(record, "Two leaks in May. A leak must be closed once it was fixed on site."
                 ).score == 1


def test_a_multiple_of_a_phrasing_does_not_state_it() -> None:
    record = _record({"wear": 3.9, "worse": True},
                     {"wear": {"kind": "quantity", "means": ["wear"]},
                      "worse": {"kind": "boolean", "asked": False, "means": ["wear"],
                                "labels": {"true": ["faster than usual"],
                                           "false": ["usual wear", "normal wear"]}}},
                     "How fast does chain C-1 wear at full speed, relative to usual?")
    assert grade(record, "Wear is 3.9, about four times normal wear.").score == 1
    assert grade(record, "Wear is 3.9: normal wear.").score < 1


def test_an_unasked_empty_list_of_times_is_contradicted_by_any_time_stated() -> None:
    record = _record({"premise_holds": False, "trips_on_record": []},
                     {"premise_holds": {"kind": "boolean", "assumed": True, "labels": {
                         "false": ["did not trip"]}},
                      "trips_on_record": {"kind": "timestamp", "granularity": "day",
                                          "asked": False, "means": ["its trip", "tripped on"]}},
                     "After the trip of WEST-TX07 on 3 May 2026, was the cooling repaired?")
    assert grade(record, "WEST-TX07 did not trip on 3 May; there is no trip on record."
                 ).score == 1
    assert grade(record, "WEST-TX07 did not trip on 3 May; its trip was on 9 May at 14:10."
                 ).score < 1


def test_unasked_mapping_values_written_next_to_their_keys_must_hold() -> None:
    record = _record({"sensors": ["oti", "wti"], "latest": {"oti": 40.2, "wti": 47.9}},
                     {"sensors": {"kind": "labels", "means": ["measures"], "labels": {
                         "oti": ["top oil"], "wti": ["winding"]}},
                      "latest": {"kind": "mapping", "asked": False,
                                 "keys": {"oti": ["top oil"], "wti": ["winding"]},
                                 "value": {"key": "latest", "kind": "quantity", "unit": "°C"}}},
                     "What temperatures does WEST-TX07 measure?", {"latest": 0.2})
    assert grade(record, "It measures top oil and winding temperature.").score == 1
    assert grade(record, "It measures top oil and winding; now top oil 40.2 °C, winding "
                 "47.9 °C.").score == 1
    assert grade(record, "It measures top oil and winding; now top oil 44.0 °C, winding "
                 "51.3 °C.").score < 1


def test_a_year_written_next_to_a_key_is_no_value_of_it() -> None:
    record = _record({"pick": ["P-2", "P-3"], "wear": {"P-1": 12.5, "P-2": 70.0, "P-3": 70.0}},
                     {"pick": {"kind": "ids", "ordered": True, "means": ["replace"]},
                      "wear": {"kind": "mapping", "asked": False, "keys": {},
                               "value": {"key": "wear", "kind": "quantity"}}},
                     "Which two pumps do we replace first, oldest breaking ties?")
    said = "P-1 is fine at 12.5; P-2 and P-3 both sit at 70. Replace P-2 (installed 2004) "
    assert grade(record, said + "first, then P-3 (2011).").score == 1
    assert grade(record, said.replace("P-2 and P-3 both sit at 70", "P-2 at 70, P-3 at 64")
                 + "first, then P-3 (2011).").score < 1


def test_unasked_record_fields_are_read_by_their_own_words() -> None:
    record = _record({"frozen": True, "runs": [{"first": "2026-05-04T06:00:00",
                                                "last": "2026-05-04T20:00:00", "count": 15}]},
                     {"frozen": {"kind": "boolean", "yes_no": True, "implied_by": ["runs"]},
                      "runs": {"kind": "records", "asked": False, "means": ["run"], "fields": [
                          {"key": "first", "kind": "timestamp", "granularity": "hour",
                           "means": ["from", "since"]},
                          {"key": "last", "kind": "timestamp", "granularity": "hour",
                           "means": ["to", "until"]},
                          {"key": "count", "kind": "count", "means": ["readings in a row"]}]}},
                     "Did the WTI of WEST-TX07 freeze in the week to 4 May 2026?")
    right = "Yes: 15 readings in a row, from 06:00 to 20:00 on 4 May."
    assert grade(record, right).score == 1
    assert grade(record, right + " (Beyond the window, it stays put until 09:00 on 5 May.)"
                 ).score == 1
    assert grade(record, right.replace("06:00", "07:00")).score < 1
    assert grade(record, right.replace("15", "14")).score < 1


def test_a_set_or_list_stated_with_another_size_fails() -> None:
    record = _record({"depots": ["ALPHA", "BRAVO"], "spans": [
        {"first": "2026-03-02T05:00:00", "last": "2026-03-02T09:00:00"}], "depot_total": 5},
        {"depots": {"kind": "ids", "means": ["depots"]},
         "spans": {"kind": "records", "means": ["outage", "outages"], "fields": [
             {"key": "first", "kind": "timestamp", "granularity": "hour"},
             {"key": "last", "kind": "timestamp", "granularity": "hour"}]},
         "depot_total": {"kind": "count", "asked": False, "means": ["in all"]}},
        "Which depots hold spares, and when was the feed of ALPHA out on 2 March 2026?")
    right = "Two depots, ALPHA and BRAVO; one outage, 05:00 to 09:00 on 2 March."
    assert grade(record, right).score == 1
    assert grade(record, "ALPHA and BRAVO, of the 5 depots; 05:00 to 09:00 on 2 March, no "
                 "other outages.").score == 1
    assert grade(record, right.replace("Two depots", "Three depots")).score < 1
    assert grade(record, right.replace("one outage", "four outages")).score < 1
    assert grade(record, "No depots hold spares: ALPHA and BRAVO are empty; one outage, "
                 "05:00 to 09:00 on 2 March.").score < 1


def test_a_size_is_read_only_from_a_number_that_counts_the_members() -> None:
    record = _record({"pumps": ["P-11", "P-12", "P-13"]},
                     {"pumps": {"kind": "ids", "means": ["pumps", "pump", "duty"]}},
                     "Which pumps of line 2 serve the boiler house?")
    named = "P-11, P-12 and P-13"
    assert grade(record, f"Three pumps: {named}. No spare at the duty end.").score == 1
    assert grade(record, f"Three pumps: {named}; the two older pumps run on line 2 duty."
                 ).score == 1
    assert grade(record, f"{named}, all on stage-2 duty; no new pump needed.").score == 1
    assert grade(record, f"Two pumps: {named}.").score < 1
    assert grade(record, f"{named} - four pumps in all.").score < 1


def test_the_counts_of_a_breakdown_after_the_size_are_no_size_of_the_set() -> None:
    record = _record({"pumps": ["P-21", "P-22", "P-23", "P-24", "P-25"]},
                     {"pumps": {"kind": "ids", "means": ["pumps"]}},
                     "Which pumps are on the cooling loop?")
    named = "P-21, P-22, P-23, P-24 and P-25"
    assert grade(record, f"{named}. That makes 5 pumps overall: three duty pumps and two "
                 "standby pumps.").score == 1
    assert grade(record, f"{named}. That makes 5 pumps overall: four duty pumps and two "
                 "standby pumps.").score < 1


def test_a_name_written_as_a_word_is_the_one_nearest_its_words() -> None:
    record = _record({"yard": "HILL", "cranes": 3},
                     {"yard": {"kind": "id", "means": ["yard", "based"]},
                      "cranes": {"kind": "count", "means": ["cranes"]}},
                     "Where is crane HILL-08 based, and how many cranes are there?")
    assert grade(record, "HILL-08 is based at the HILL yard, with three cranes there "
                 "(HILL-07 to -09).").score == 1
    assert grade(record, "HILL-08 is based at the DALE yard, with three cranes there "
                 "(HILL-07 to -09).").score < 1


def test_a_bracketed_list_of_another_count_is_another_set() -> None:
    record = _record({"causes": ["bearing_wear", "misalignment"]},
                     {"causes": {"kind": "labels", "means": ["shows", "show"], "labels": {
                         "bearing_wear": ["bearing wear"], "misalignment": ["misalignment"],
                         "cavitation": ["cavitation"], "imbalance": ["imbalance"]}}},
                     "Which faults do both the vibration and the noise sensor of pump P-7 show?")
    assert grade(record, "Vibration alone shows four faults (bearing wear, misalignment, "
                 "cavitation, imbalance). Both show: bearing wear and misalignment.").score == 1
    assert grade(record, "Both together show three faults (bearing wear, misalignment, "
                 "cavitation).").score < 1


def test_a_bracketed_catalogue_a_number_counts_is_not_the_answer() -> None:
    record = _record({"causes": ["bearing_wear", "misalignment"]},
                     {"causes": {"kind": "labels", "means": ["faults", "fault"], "labels": {
                         "bearing_wear": ["bearing wear"], "misalignment": ["misalignment"],
                         "cavitation": ["cavitation"], "imbalance": ["imbalance"]}}},
                     "Which faults does the vibration sensor of pump P-7 show?")
    catalogue = ("Of the four faults listed for this pump family (cavitation, bearing wear, "
                 "imbalance, misalignment), vibration is a telltale for ")
    assert grade(record, catalogue + "two: bearing wear (a pitted race rings at high "
                 "frequency) and misalignment (a strong 2x peak).").score == 1
    assert grade(record, catalogue + "three: bearing wear (a pitted race), misalignment "
                 "(a 2x peak) and imbalance.").score < 1


def test_a_label_listed_with_the_members_is_a_further_member() -> None:
    record = _record({"causes": ["bearing_wear", "misalignment"]},
                     {"causes": {"kind": "labels", "means": ["causes"], "labels": {
                         "bearing_wear": ["bearing wear", "worn bearing"],
                         "misalignment": ["misalignment", "misaligned shaft"],
                         "cavitation": ["cavitation"], "imbalance": ["imbalance"]}}},
                     "What can the vibration sensor of pump P-7 tell us about?")
    assert grade(record, "It shows bearing wear and misalignment.").score == 1
    assert grade(record, "It shows bearing wear and misalignment.\n\nCavitation shows up "
                 "in the suction pressure instead.").score == 1
    assert grade(record, "The pump as a whole suffers bearing wear, misalignment and "
                 "cavitation, but vibration only sees bearing wear and misalignment.").score == 1
    assert grade(record, "It shows bearing wear, misalignment and cavitation.").score < 1
    assert grade(record, "It shows:\n- bearing wear\n- misalignment\n- imbalance").score < 1


def test_a_time_written_after_the_value_it_is_the_time_of_must_be_the_reference() -> None:
    record = _record({"at": "2026-02-10T03:00:00", "level": 412.0},
                     {"at": {"kind": "timestamp", "granularity": "hour", "asked": False,
                             "time_of": "level"},
                      "level": {"kind": "quantity", "unit": "A", "means": ["current"]}},
                     "What current will feeder F-2 carry four hours after the last reading "
                     "(9 February 2026, 23:00)?", {"level": 15.0})
    assert grade(record, "About 412 A at 03:00 on 10 February.").score == 1
    assert grade(record, "About 405 A, four hours ahead.").score == 1
    assert grade(record, "About 405 A at 02:00 on 10 February.").score < 1
    assert grade(record, "Roughly 409 A four hours out, at 03:00 on 10 Feb.").score == 1
    assert grade(record, "Roughly 409 A four hours out, at 02:00 on 10 Feb.").score < 1
    assert grade(record, "Roughly 409 A 4 h ahead on 10 February at 01:00.").score < 1
    with pytest.raises(UserError, match="time_of 'lvl' is no fact"):
        parse_contracts({"fam": {"at": {"kind": "timestamp", "time_of": "lvl"}}}, "f.yaml")


def test_a_range_of_hours_from_the_right_start_states_the_end() -> None:
    record = _record({"start": "2026-04-08T09:00:00", "end": "2026-04-08T12:00:00",
                      "peak": 1.31},
                     {"start": {"kind": "timestamp", "granularity": "hour", "stretch": "start"},
                      "end": {"kind": "timestamp", "granularity": "hour", "stretch": "end"},
                      "peak": {"kind": "quantity", "unit": "pu", "means": ["peak"]}},
                     "When was WEST-TX07 above rating on 8 April 2026, and how high?",
                     {"peak": 0.01})
    assert grade(record, "09:00 to 12:00 on 8 April, peak 1.31 pu at 11:00.").score == 1
    assert grade(record, "09:00 to 13:00 on 8 April, peak 1.31 pu at 12:00.").score < 1
    assert grade(record, "08:00 to 12:00 on 8 April, peak 1.31 pu at 09:00.").score < 1


def _sequence_facts(labels: dict[str, list[str]]) -> dict[str, Any]:
    """An ordered ``steps`` record list: each step a label (``labels``) and its minute."""
    return {"steps": {"kind": "records", "ordered": True, "means": ["sequence"], "fields": [
        {"key": "step", "kind": "label", "labels": labels},
        {"key": "time", "kind": "timestamp", "granularity": "minute"}]}}


def test_a_sequence_said_against_the_order_asked() -> None:
    facts = _sequence_facts({
        "PUMP_STOP": ["pump stop"], "LOW_FLOW": ["low flow alarm"],
        "HIGH_TEMP": ["high temperature alarm"]})
    record = _record({"steps": [
        {"step": "PUMP_STOP", "time": "2026-05-02T10:05:00"},
        {"step": "LOW_FLOW", "time": "2026-05-02T10:07:00"},
        {"step": "HIGH_TEMP", "time": "2026-05-02T10:31:00"}]}, facts,
        "On 2 May 2026, what happened on CH-MAIN-02, in order?")
    right = ("The high temperature alarm (10:31) was the end of it. Pump stop at 10:05, then "
             "low flow alarm at 10:07, then high temperature alarm at 10:31.")
    assert grade(record, right).score == 1.0
    wrong = ("Pump stop at 10:05, high temperature alarm at 10:31, then the low flow alarm "
             "at 10:07.")
    assert grade(record, wrong).score < 1.0


def test_a_record_line_writes_its_time_on_either_side_of_its_step() -> None:
    facts = _sequence_facts({
        "PUMP_STOP": ["pump stop"], "LOW_FLOW": ["low flow alarm"], "WO-0042": ["WO-0042"]})
    record = _record({"steps": [
        {"step": "PUMP_STOP", "time": "2026-05-02T22:05:00"},
        {"step": "LOW_FLOW", "time": "2026-05-02T22:07:00"},
        {"step": "WO-0042", "time": "2026-05-03T07:40:00"}]}, facts,
        "On 2 May 2026, what happened on CH-MAIN-02, in order, and what work followed?")
    right = ("**CH-MAIN-02, 2 May 2026**\n\n- 22:05 - **pump stop**\n- 22:07 - low flow "
             "alarm\n\nWork:\n- WO-0042, 3 May 07:40 - check the low flow alarm switch")
    assert grade(record, right).score == 1.0
    assert grade(record, right.replace("3 May 07:40", "3 May 08:40")).score < 1.0
    said = ("Pump stop at 22:05 on 2 May, low flow alarm at 22:07. WO-0042, 'low flow alarm; check "
            "the switch', was opened at 07:40 on the 3rd.")
    assert grade(record, said).score == 1.0
    assert grade(record, said.replace("07:40", "09:40")).score < 1.0


def test_mapping_values_written_before_their_keys_in_a_sentence_with_undated_days() -> None:
    record = _record({"all_jobs": 5, "by_kind": {"PM": 4, "CM": 1}},
                     {"all_jobs": {"kind": "count", "means": ["in all"]},
                      "by_kind": {"kind": "mapping", "means": ["kind"],
                                  "keys": {"PM": ["planned visits"], "CM": ["breakdown"]},
                                  "value": {"key": "by_kind", "kind": "count"}}},
                     "How many jobs did fan F-3 have, by kind?")
    assert grade(record, "Five jobs in all: four of them planned visits (PM, March to June) "
                 "and one breakdown repair (CM, done 9 May).").score == 1
    assert grade(record, "Five jobs in all: three of them planned visits (PM, March to June) "
                 "and one breakdown repair (CM, done 9 May).").score < 1


def test_in_n_of_m_things_the_things_are_counted_by_the_total() -> None:
    record = _record({"trips": 4, "answered": 1},
                     {"trips": {"kind": "count", "means": ["trips", "trip"]},
                      "answered": {"kind": "count", "means": ["answered", "led to"]}},
                     "How many trips did feeder F-9 have in May, and how many led to a "
                     "callout?")
    assert grade(record, "Four trips in May; 1 of 4 trips led to a callout.").score == 1
    assert grade(record, "Four trips in May; 2 of 4 trips led to a callout.").score < 1


def test_a_number_said_to_be_approximate_is_read_to_its_last_digit() -> None:
    record = _record({"downtime_h": 3.27}, {"downtime_h": {
        "kind": "quantity", "unit": "h", "means": ["down", "downtime"]}},
        "How long was conveyor C-4 down on 3 June?")
    assert grade(record, "It was down for about three hours.").score == 1
    assert grade(record, "Downtime came to roughly 3 h.").score == 1
    assert grade(record, "It was down for three hours.").score < 1
    assert grade(record, "It was down for about four hours.").score < 1


def test_a_value_said_of_another_fact_is_not_taken_when_its_own_words_give_another() -> None:
    record = _record({"first_hot": "2026-05-04T08:00:00", "peak_pct": 91.2},
                     {"first_hot": {"kind": "timestamp", "granularity": "hour",
                                    "means": ["first ran hot", "first hot"]},
                      "peak_pct": {"kind": "quantity", "unit": "%",
                                   "means": ["peak", "of capacity"]}},
                     "When did press P-9 first run hot on 4 May 2026, and what was its peak "
                     "in percent before the stop?")
    assert grade(record, "It first ran hot at 08:00 (about 91 %). Peak before the stop: "
                 "97.5 % of capacity at 13:00.").score < 1
    assert grade(record, "It first ran hot at 08:00 (about 91 %), which was also its peak "
                 "before the stop.").score == 1
    assert grade(record, "It first ran hot at 08:00 (about 91 %). Peak before the stop: "
                 "91.2 % of capacity.").score == 1


def test_a_factor_written_in_percent_is_a_share_of_one() -> None:
    record = _record({"speed_factor": 12.4}, {"speed_factor": {
        "kind": "quantity", "means": ["wear rate", "wears"]}},
        "How fast does belt B-2 wear at 130 % of rated speed, relative to rated?")
    assert grade(record, "At 130 % it wears about 12.4 times as fast.").score == 1
    assert grade(record, "At 130 % the relative wear rate is 12.4 %.").score < 1
    assert grade(record, "At 130 % the wear rate is 1240 %.").score == 1


def test_a_count_of_periods_is_written_with_the_period_as_its_unit() -> None:
    record = _record({"hot_days": 6, "peak_c": 951.0},
                     {"hot_days": {"kind": "count", "means": ["above", "exceeded"]},
                      "peak_c": {"kind": "quantity", "unit": "°C", "means": ["peak"]}},
                     "On how many days of May 2026 did kiln K-1 run above 900 °C, and what "
                     "was its peak?", {"peak_c": 0.5})
    assert grade(record, "6 days came out above 900 °C; the peak was 951 °C.").score == 1
    assert grade(record, "7 days came out above 900 °C; the peak was 951 °C.").score < 1
    assert grade(record, "The peak was 951 °C after 6 days of firing.").score < 1


def test_a_sequence_with_a_step_no_record_has_is_wrong() -> None:
    facts = _sequence_facts({
        "PUMP_STOP": ["pump stop"], "LOW_FLOW": ["low flow alarm"],
        "HIGH_TEMP": ["high temperature alarm"]})
    record = _record({"steps": [
        {"step": "PUMP_STOP", "time": "2026-05-02T10:05:00"},
        {"step": "LOW_FLOW", "time": "2026-05-02T10:07:00"}]}, facts,
        "On 2 May 2026, what happened on CH-MAIN-02, in order?")
    right = "Pump stop at 10:05, then a low flow alarm at 10:07"
    assert grade(record, right + "; no high temperature alarm followed.").score == 1
    assert grade(record, right + ", and a high temperature alarm after it.").score < 1


def test_a_leading_yes_answers_the_texts_one_yes_no_question() -> None:
    record = _record({"callouts": 2, "answered": True},
                     {"callouts": {"kind": "count", "means": ["callouts"]},
                      "answered": {"kind": "boolean", "means": ["answered"],
                                   "labels": {"true": ["answered"], "false": ["unanswered"]}}},
                     "Did anyone act on the pressure drops of pump P-7 last week? Give the "
                     "number of callouts.")
    assert grade(record, "Yes, the crew did: two callouts, on Monday and Friday.").score == 1
    assert grade(record, "No: two callouts were logged but nobody came.").score < 1


def test_an_id_range_states_its_members_and_a_hedged_extra_id_is_wrong() -> None:
    record = _record({"units": ["WEST-T07", "WEST-T08", "WEST-T09"]},
                     {"units": {"kind": "ids", "means": ["units"]}},
                     "Which units does site WEST have?")
    assert grade(record, "WEST has WEST-T07 through WEST-T09.").score == 1.0
    assert grade(record, "Its units are WEST-T07 through WEST-T10.").score < 1.0
    assert grade(record, "WEST-T07 to WEST-T09, perhaps WEST-T11 too.").score < 1.0


def test_json_records_on_their_own_lines_and_a_yes_no_under_another_form_of_its_key() -> None:
    facts = {"events": {"kind": "records", "means": ["events"], "fields": [
        {"key": "what", "kind": "label", "labels": {"PUMP_STOP": ["pump stop"]}},
        {"key": "time", "kind": "timestamp", "granularity": "minute"}]},
        "restarted": {"kind": "boolean", "asked_when": ["restarted"]}}
    record = _record({"events": [{"what": "PUMP_STOP", "time": "2026-05-02T10:05:00"},
                                 {"what": "WO-0201", "time": "2026-05-03T08:40:00"}],
                      "restarted": False}, facts,
                     "What happened on CH-MAIN-02 on 2026-05-02, and was it restarted?")
    answer = {"day": "2026-05-02", "log": [{"at": "10:05", "type": "pump stop"}],
              "restart": False, "orders": [{"id": "WO-0201", "opened": "2026-05-03 08:40"}]}
    assert grade(record, answer).score == 1.0
    assert grade(record, {**answer, "restart": True}).score < 1.0
    late = {**answer, "orders": [{"id": "WO-0201", "opened": "2026-05-03 09:40"}]}
    assert grade(record, late).score < 1.0


def test_a_value_said_once_for_every_key_with_each_or_apiece() -> None:
    record = _record({"pumps": {"LOOP-A": 3, "LOOP-B": 3}},
                     {"pumps": {"kind": "mapping", "means": ["pumps"],
                                "value": {"key": "pumps", "kind": "count"}}},
                     "How many pumps does each chilled-water loop have?")
    assert grade(record, "LOOP-A and LOOP-B have three pumps each.").score == 1.0
    assert grade(record, "LOOP-A and LOOP-B, with two pumps apiece.").score < 1.0
def test_json_records_with_a_list_field_are_read_one_record_at_a_time() -> None:
    record = _record(
        {"groups": [{"units": ["WEST-TX02"], "score": 21.0},
                    {"units": ["WEST-TX01", "WEST-TX03"], "score": 55.5}]},
        {"groups": {"kind": "records", "ordered": True, "means": ["ranking"],
                    "fields": [{"key": "units", "kind": "ids"},
                               {"key": "score", "kind": "quantity", "means": ["pts", "score"]}]}},
        "Rank the WEST units by score, worst first, ties together.")
    right = {"worst_first": [{"units": ["WEST-TX02"], "pts": 21.0},
                             {"units": ["WEST-TX01", "WEST-TX03"], "pts": 55.5}]}
    assert grade(record, right).score == 1.0
    swapped = {"worst_first": [{"units": ["WEST-TX02"], "pts": 55.5},
                               {"units": ["WEST-TX01", "WEST-TX03"], "pts": 21.0}]}
    assert grade(record, swapped).score < 1.0


def test_one_label_said_for_every_entry_of_a_mapping() -> None:
    record = _record(
        {"grades": {"vibration": "normal", "noise": "normal", "leakage": "normal"}},
        {"grades": {"kind": "mapping", "means": ["condition"],
                    "keys": {"vibration": ["vibration"], "noise": ["noise"],
                             "leakage": ["leakage", "leaks"]},
                    "value": {"key": "grades", "kind": "label",
                              "labels": {"normal": ["normal"], "abnormal": ["abnormal"]}}}},
        "Grade the vibration, noise and leakage checks of pump P-7.")
    assert grade(record, "Every check came back normal: vibration at 2.1 mm/s, noise at 71 "
                         "dB and leakage nil.").score == 1.0
    assert grade(record, "Each of vibration, noise and leakage is normal.").score == 1.0
    # Two labels in the sentence: neither is said for all.
    assert grade(record, "All checks done: vibration, noise and leakage are abnormal or "
                         "normal.").score < 1.0
    assert grade(record, "Vibration, noise and leakage were all checked, and leakage is "
                         "abnormal.").score < 1.0


def test_a_negative_label_written_as_its_stem_with_no_after_it() -> None:
    facts = {"action": {"kind": "label", "means": ["action"],
                        "labels": {"leave": ["no repair needed", "leave it"],
                                   "repair": ["repair needed", "repair it"]}}}
    record = _record({"action": "leave"}, facts, "Does pump P-7 need a repair?")
    assert grade(record, {"pump": "P-7", "repair_needed": False}).score == 1.0
    assert grade(record, "Pump P-7 - repair needed: no.").score == 1.0
    assert grade(record, {"pump": "P-7", "repair_needed": True}).score < 1.0
    repair = _record({"action": "repair"}, facts, "Does pump P-7 need a repair?")
    assert grade(repair, {"pump": "P-7", "repair_needed": False}).score < 1.0
    assert grade(repair, "Pump P-7 - repair needed: yes.").score == 1.0


def test_no_to_a_yes_no_says_none_for_the_fact_that_implies_it() -> None:
    facts = {"fault_found": {"kind": "boolean", "implied_by": ["fault_start"],
                             "labels": {"true": ["stuck", "froze"], "false": ["never stuck"]}},
             "fault_start": {"kind": "timestamp", "granularity": "hour",
                             "means": ["since", "froze"]}}
    record = _record({"fault_found": False, "fault_start": None}, facts,
                     "Was the WTI of NORTH-TX04 stuck during 1-7 July 2026, and since when?")
    assert grade(record, "The WTI was never stuck in that week. Later on it froze, at 05:00 "
                         "on 9 July 2026, outside the week.").score == 1.0
    assert grade(record, "The WTI froze at 05:00 on 3 July 2026.").score < 1.0


def test_a_json_key_qualified_by_a_date_answers_its_yes_no() -> None:
    facts = {"premise_holds": {"kind": "boolean", "assumed": True,
                               "labels": {"false": ["no leak on", "did not leak"]}}}
    text = "Which order followed the oil leak of pump P-7 on 2026-05-02?"
    record = _record({"premise_holds": False}, facts, text)
    assert grade(record, {"pump": "P-7", "leak_on_2026-05-02": False, "orders": []}
                 ).score == 1.0
    assert grade(record, "Leak on: no.").score == 1.0
    assert grade(record, {"pump": "P-7", "leak_on_2026-05-02": True, "orders": []}
                 ).score < 1.0


def test_a_value_restated_as_another_fact() -> None:
    record = _record({"final": 41.5, "peak": 41.5},
                     {"final": {"kind": "quantity", "unit": "°C", "means": ["final", "ends"]},
                      "peak": {"kind": "quantity", "unit": "°C", "means": ["peak", "highest"]}},
                     "Forecast the bearing temperature of pump P-7 for 4 hours: final value "
                     "and peak?")
    assert grade(record, "Final value 41.5 °C at 04:00; that's also the peak.").score == 1.0
    assert grade(record, "It ends at 41.5 °C, which was also the highest.").score == 1.0
    assert grade(record, "Final value 41.5 °C; from 39.0 °C it is also the peak.").score < 1.0


def test_a_json_key_names_the_unit_of_its_number() -> None:
    record = _record({"downtime_h": 2.5, "rate_kw_per_ton": 0.61},
                     {"downtime_h": {"kind": "quantity", "unit": "h", "means": ["downtime"]},
                      "rate_kw_per_ton": {"kind": "quantity", "unit": "kW/ton",
                                          "means": ["rate"]}},
                     "How long was pump P-7 down, and at what kW/ton did its chiller run?")
    assert grade(record, {"outage_min": 150, "efficiency_kw_per_ton": 0.61}).score == 1.0
    assert grade(record, {"outage_min": 2.5, "efficiency_kw_per_ton": 0.61}).score < 1.0


def test_shipped_dga_contract_reads_no_code_to_put_on_an_order_as_no_work() -> None:
    record = {"id": "d1", "type": "", "family": "ma_dga_to_workorder",
              "text": "Was the DGA of WEST-TX01 taken on 2026-05-04 followed by corrective "
                      "work? If not, which failure code goes on my order?",
              "reference_answer": {"sample_timestamp": "2026-05-04T09:00:00",
                                   "fault_type": "normal", "failure_code": None,
                                   "work_orders": [], "decision": "no corrective work needed"}}
    assert grade(record, "WEST-TX01's 4 May oil is healthy: nothing to follow up and no "
                         "code to put on any order.").score == 1.0
    assert grade(record, "WEST-TX01's 4 May oil is healthy, but raise a new order anyway."
                 ).score < 1.0


PUMP_STATE = {
    "state": {"kind": "label", "means": ["state", "verdict"],
              "labels": {"clogged": ["inlet screen clogged", "clogged inlet screen"],
                         "normal": ["screen clean", "inlet screen clean"],
                         "worn": ["impeller worn", "worn impeller"]}},
    "faster": {"kind": "boolean", "means": ["wear"],
               "labels": {"true": ["more than normal", "faster than normal"],
                          "false": ["more slowly than normal", "slower than normal"]}},
}


def test_a_label_written_with_its_words_varied() -> None:
    record = _record({"state": "clogged", "faster": False}, PUMP_STATE,
                     "What state is pump P-7 in, and is it wearing faster than normal?")
    for answer in ["P-7: the inlet screen is getting clogged (about 40 % blocked); it wears "
                   "more slowly than normal.",
                   "The inlet screens are clogging up. Wear: slower than normal."]:
        assert grade(record, answer).score == 1.0, answer
    for answer in ["P-7: the inlet screen is not clogged; it wears more slowly than normal.",
                   "P-7: the inlet screen clean, impeller worn; it wears more slowly than "
                   "normal.",
                   # "more slowly than normal" is not read as "more than normal"
                   "The inlet screen is clogged, and it wears more than normal."]:
        assert grade(record, answer).score < 1.0, answer


def test_a_yes_or_no_opening_a_later_sentence_answers_the_yes_no() -> None:
    facts = {"above": {"kind": "boolean", "yes_no": True, "means": ["above all"],
                       "labels": {"true": ["above all"], "false": ["below all"]}}}
    record = _record({"above": True}, facts,
                     "Compare pump P-7's flow at 09:00 today with the two previous Mondays. "
                     "Higher than both or not?")
    table = "| day | flow |\n|---|---|\n| 4 May | 41 l/s |\n| 11 May | 43 l/s |\n\n"
    assert grade(record, table + "Yes — today's 45 l/s beats both Mondays.").score == 1.0
    assert grade(record, table + "No. Today's 42 l/s trails 11 May.").score < 1.0
    # a sentence opening with "No need ..." is no reply
    assert grade(record, table + "No need to worry, it is fine.").score < 1.0


def test_the_text_s_only_yes_no_question_is_answered_by_a_reply() -> None:
    facts = {"serviced": {"kind": "boolean", "means": ["acted on"],
                          "labels": {"true": ["acted on"], "false": ["not acted on"]}},
             "orders": {"kind": "ids", "means": ["orders"]}}
    record = _record({"serviced": True, "orders": ["WO-7"]}, facts,
                     "Over the last week, did the crew get round to pump P-7 after its seal "
                     "alarm? List the orders.")
    assert grade(record, "Yes, they did: WO-7 was opened the next morning.").score == 1.0
    assert grade(record, "No, they didn't; WO-7 is older than the alarm.").score < 1.0
    assert grade(record, {"crew_got_round_to_pump": "yes", "orders": ["WO-7"]}).score == 1.0
    assert grade(record, {"crew_got_round_to_pump": "no", "orders": ["WO-7"]}).score < 1.0
    # a question about a duty runs the other way: its "yes" is no reply to the fact
    duty = _record({"serviced": True, "orders": ["WO-7"]}, facts,
                   "Do we still need to send the crew to pump P-7 after its seal alarm? List "
                   "the orders.")
    assert grade(duty, "Yes, they did: WO-7 was opened the next morning.").score < 1.0


def test_a_hedge_between_labels_with_an_aside_on_the_first() -> None:
    facts = {"grade": {"kind": "label", "means": ["grade"],
                       "labels": {"G1": [], "G2": [], "G3": []}}}
    record = _record({"grade": "G3"}, facts, "Which vibration grade is pump P-7 in?")
    assert grade(record, "P-7 sits in G3 (above 7 mm/s).").score == 1.0
    assert grade(record, "P-7 is either G2 (2.8-7 mm/s) or G3 (above 7 mm/s).").score < 1.0
    assert grade(record, "P-7 is G2 (2.8-7 mm/s) or maybe G3.").score < 1.0


def test_a_conclusion_settles_a_yes_no_said_both_ways() -> None:
    facts = {"logged": {"kind": "boolean", "means": ["logged"],
                        "labels": {"true": ["logged", "online", "live"],
                                   "false": ["only on paper", "by hand", "manual rounds"]}}}
    record = _record({"logged": False}, facts,
                     "Is the seal-pot level of pump P-7 logged by the plant system or read by "
                     "hand?")
    answer = ("The plant system has live flow and pressure tags for P-7, but no seal-pot "
              "tag. Operators note the level on manual rounds. So the seal-pot level is read "
              "by hand; if you want it logged you would need a level transmitter.")
    assert grade(record, answer).score == 1.0
    flipped = answer.replace("So the seal-pot level is read by hand", "So the level is logged")
    assert grade(record, flipped).score < 1.0


def test_a_phrasing_in_the_past_tense_and_a_quoted_json_no() -> None:
    facts = {"state": {"kind": "label", "means": ["decision"],
                       "labels": {"on_file": ["has been ordered", "already on file"],
                                  "to_order": ["order one", "order a new one"]}},
             "leaking": {"kind": "boolean", "means": ["leaking"],
                         "labels": {"true": ["leaking"], "false": ["dry"]}}}
    record = _record({"state": "on_file", "leaking": False}, facts,
                     "Is pump P-7 leaking, and is a new seal ordered or should I order one?")
    assert grade(record, "The seal was ordered on 3 May (WO-7); pump P-7 is dry.").score == 1.0
    assert grade(record, 'Summary {"leaking": "no"}. The seal was ordered on 3 May.'
                 ).score == 1.0
    assert grade(record, 'Summary {"leaking": "yes"}. The seal was ordered on 3 May.'
                 ).score < 1.0
    assert grade(record, "No seal was ordered; pump P-7 is dry, so order one.").score < 1.0


def test_a_broader_list_before_the_exact_one_is_context() -> None:
    facts = {"modes": {"kind": "labels", "means": ["shows", "reveal", "reveals"],
                       "labels": {"wear": ["bearing wear"], "cavitation": ["cavitation"],
                                  "misalignment": ["misalignment"], "leak": ["seal leak"]}}}
    record = _record({"modes": ["cavitation", "misalignment"]}, facts,
                     "Which faults of pump P-7 do vibration and flow reveal together?")
    assert grade(record, "Vibration alone shows four (bearing wear, cavitation, misalignment "
                         "and seal leak). Both together reveal: cavitation and misalignment."
                 ).score == 1.0
    assert grade(record, "Vibration alone shows four (bearing wear, cavitation, misalignment "
                         "and seal leak). Both together reveal: cavitation, misalignment and "
                         "seal leak.").score < 1.0
    assert grade(record, "Both together reveal bearing wear, cavitation and misalignment."
                 ).score < 1.0


def test_a_question_echoed_then_answered_in_its_clause() -> None:
    facts = {"fits": {"kind": "boolean", "yes_no": True,
                      "labels": {"true": ["can take", "fits"], "false": ["cannot take"]}}}
    record = _record({"fits": False}, facts,
                     "Can pump P-7 take 120 % flow for 2 hours at 40 °C?")
    assert grade(record, "Can P-7 take 120 % for 2 h at 40 °C (design limits): no, the "
                 "bearing runs hot.").score == 1.0
    assert grade(record, "Can P-7 take 120 % for 2 h at 40 °C (design limits)? Yes, with "
                 "margin.").score < 1.0
    # a colon that explains is no reply
    assert grade(record, "It can take it: no bearing limit is reached.").score < 1.0


def test_labels_whose_verb_denies_them_are_no_further_members() -> None:
    facts = {"modes": {"kind": "labels", "means": ["shows", "reveal", "points to"],
                       "labels": {"wear": ["bearing wear"], "cavitation": ["cavitation"],
                                  "misalignment": ["misalignment"], "leak": ["seal leak"]}}}
    record = _record({"modes": ["cavitation", "misalignment"]}, facts,
                     "What can a rise in the vibration of pump P-7 point to?")
    assert grade(record, "It points to:\n- cavitation\n- misalignment\n\nBearing wear and "
                         "seal leak aren't tied to vibration here.").score == 1.0
    assert grade(record, "It points to cavitation and misalignment; seal leak is not one "
                         "of them.").score == 1.0
    assert grade(record, "It points to cavitation and misalignment, and also to bearing wear "
                         "and seal leak.").score < 1.0
    assert grade(record, "It points to cavitation, misalignment and seal leak, but flow "
                         "does not.").score < 1.0


def test_a_number_inside_a_members_label_is_no_size() -> None:
    facts = {"findings": {"kind": "labels", "means": ["fault", "faults", "finding"],
                          "labels": {"healthy": ["no fault", "healthy"],
                                     "cavitation": ["cavitation"], "leak": ["seal leak"]}}}
    record = _record({"findings": ["healthy"]}, facts,
                     "What fault does pump P-7 show at 06:00 on 3 May?")
    assert grade(record, "P-7 @ 06:00: no fault – head and flow on curve.").score == 1.0
    assert grade(record, "P-7 @ 06:00: healthy, no faults at all.").score == 1.0
    assert grade(record, "P-7 @ 06:00: two faults, cavitation and seal leak.").score < 1.0


def test_an_empty_mapping_said_as_none_next_to_its_words() -> None:
    facts = {"count": {"kind": "count", "means": ["repairs", "repair jobs"]},
             "jobs": {"kind": "mapping", "means": ["code", "codes", "fault codes"],
                      "value": {"key": "jobs", "kind": "label",
                                "labels": {"P-SL": ["seal leak"], "P-BW": ["bearing wear"]}}}}
    record = _record({"count": 0, "jobs": {}}, facts,
                     "Which repairs were logged for pump P-7 in May? Give their codes.")
    assert grade(record, "Zero – no repairs were logged on P-7 in May 2025, so there are no "
                         "fault codes to give.").score == 1.0
    assert grade(record, "Zero repairs on P-7 in May 2025; fault codes: P-SL.").score < 1.0


STOP_FACTS = {"chain": {"kind": "records", "ordered": True, "means": ["sequence", "events"],
                        "fields": [{"key": "time", "kind": "timestamp"},
                                   {"key": "step", "kind": "label",
                                    "labels": {"FLOW_ALARM": ["low-flow alarm"],
                                               "TEMP_ALARM": ["high-temperature alarm"],
                                               "DRY_STOP": ["dry-run stop"]}}]}}
STOP_RECORD = _record(
    {"chain": [{"time": "2025-05-03T13:05:00", "step": "FLOW_ALARM"},
               {"time": "2025-05-03T13:50:00", "step": "TEMP_ALARM"},
               {"time": "2025-05-03T14:20:00", "step": "DRY_STOP"}]}, STOP_FACTS,
    "Why did pump P-7 stop on 3 May 2025? Give the sequence of events with their times.")


@pytest.mark.parametrize(("answer", "right"), [
    ("P-7 stopped at 14:20 on 3 May 2025, running dry.\n\nSequence: low-flow alarm 13:05 → "
     "high-temperature alarm 13:50 → dry-run stop 14:20.", True),
    ("P-7 stopped at 14:20 on 3 May 2025, running dry.\n\nSequence: high-temperature alarm "
     "13:05 → low-flow alarm 13:50 → dry-run stop 14:20.", False),
])
def test_a_sequence_of_bare_times_after_a_summary_line(answer: str, right: bool) -> None:
    assert (grade(STOP_RECORD, answer).score == 1.0) is right


def test_a_number_ending_a_line_counts_nothing_on_the_next() -> None:
    facts = {"count": {"kind": "count", "means": ["spikes"]},
             "times": {"kind": "timestamp", "granularity": "hour", "means": ["spikes"]}}
    record = _record({"count": 2, "times": ["2025-05-04T03:00:00", "2025-05-06T21:00:00"]},
                     facts, "Which hours of pump P-7 bearing temperature from 1 to 7 May 2025 "
                            "spike beyond 4 robust SDs? Number and times.")
    assert grade(record, {"pump": "P-7", "threshold": "|z| > 4", "spikes": 2,
                          "times": ["2025-05-04 03:00", "2025-05-06 21:00"]}).score == 1.0
    assert grade(record, "Threshold: |z| above 4\nSpikes: 2, at 03:00 on 4 May and 21:00 on "
                         "6 May 2025").score == 1.0
    assert grade(record, "Threshold |z| above 4: three spikes, at 03:00 on 4 May and 21:00 on "
                         "6 May 2025").score < 1.0


def test_a_worst_value_s_words_said_of_several_values_describe_the_list() -> None:
    facts = {"count": {"kind": "count", "means": ["spikes", "abnormal"]},
             "times": {"kind": "timestamp", "granularity": "hour",
                       "means": ["spikes", "abnormal"]},
             "worst": {"kind": "timestamp", "granularity": "hour",
                       "means": ["worst", "stood out", "stand out"]}}
    record = _record({"count": 2, "times": ["2025-05-04T03:00:00", "2025-05-06T21:00:00"],
                      "worst": "2025-05-06T21:00:00"}, facts,
                     "Were there abnormal bearing temperatures on pump P-7 from 1 to 7 May "
                     "2025? Give the count, the hours and the worst.")
    assert grade(record, "Yes, twice. Two readings stood out: 3 am on Sunday 4 May and 9 pm "
                         "on Tuesday 6 May 2025. The Tuesday evening one was the worst."
                 ).score == 1.0
    assert grade(record, "Yes, twice. Both hours stand out: 3 am on 4 May and 9 pm on 6 May "
                         "2025, the latter the worst.").score == 1.0
    assert grade(record, "Yes, twice. Two readings stood out: 3 am on Sunday 4 May and 8 pm "
                         "on Tuesday 6 May 2025. The Tuesday evening one was the worst."
                 ).score < 1.0


def test_a_bare_none_opening_the_answer_replies_to_the_question() -> None:
    facts = {"faults": {"kind": "labels", "means": ["faults", "fault modes"],
                        "labels": {"cavitation": ["cavitation"], "leak": ["seal leak"]}},
             "of_total": {"kind": "count", "asked": False, "means": ["in all", "total"]}}
    record = _record({"faults": [], "of_total": 5}, facts,
                     "Which faults of pump P-7 would its door switch reveal?")
    assert grade(record, "None at all. The door switch on P-7 only says whether the cabinet "
                         "is shut; for cavitation or a seal leak watch pressure and "
                         "vibration.").score == 1.0
    assert grade(record, "Not one. That switch is wired to the alarm panel; watch the "
                         "faults list for cavitation and seal leak instead.").score == 1.0
    assert grade(record, "Seal leak. The door switch on P-7 trips when the faults list "
                         "shows a wet cabinet.").score < 1.0


@pytest.mark.parametrize(("answer", "right"), [
    ("P-7 at 120 % for 2 h, 40 °C: OK under the design limits. Bearing peaks at 80 °C.", True),
    ("P-7 at 120 % for 2 h, 40 °C — acceptable per the pump curve.", True),
    ("P-7 at 120 % for 2 h, 40 °C: not OK, the bearing peaks at 95 °C.", False),
    ("OK, so P-7 cannot take 120 % for 2 h; the bearing peaks at 95 °C.", False),
])
def test_a_verdict_said_with_its_bare_adjective(answer: str, right: bool) -> None:
    facts = {"fits": {"kind": "boolean", "yes_no": True, "means": ["take"],
                      "labels": {"true": ["can take", "is ok", "is acceptable"],
                                 "false": ["cannot take", "not ok"]}}}
    record = _record({"fits": True}, facts,
                     "Please confirm whether pump P-7 may run 2 hours at 120 % flow at 40 °C.")
    assert (grade(record, answer).score == 1.0) is right


def test_a_label_said_once_for_a_list_of_keys() -> None:
    facts = {"state": {"kind": "mapping", "means": ["condition"],
                       "value": {"key": "state", "kind": "label",
                                 "labels": {"ok": ["ok", "fine"], "worn": ["worn"]}},
                       "keys": {"seal": ["seal"], "bearing": ["bearing"],
                                "impeller": ["impeller"], "shaft": ["shaft"]}}}
    record = _record({"state": {"seal": "ok", "bearing": "ok", "impeller": "ok",
                                "shaft": "worn"}}, facts,
                     "What condition are the parts of pump P-7 in?")
    assert grade(record, "The seal (dry), bearing (62 °C) and impeller are all fine, but the "
                         "shaft is worn.").score == 1.0
    assert grade(record, "The seal, bearing and impeller are all worn, but the shaft is fine."
                 ).score < 1.0
    assert grade(record, "The seal (ok), bearing (worn) and impeller are fine; shaft worn."
                 ).score < 1.0


@pytest.mark.parametrize(("answer", "right"), [
    ("One repair in May, P-SL on 3 May: a seal leak fault. (The P-BW job of 20 May was a "
     "routine regrease and isn't counted.)", True),
    ("One repair in May, P-SL on 3 May: a seal leak fault; P-BW on 20 May is left out, "
     "being planned work.", True),
    ("Repairs in May: P-SL on 3 May and P-BW on 20 May, not counting the regrease; i.e. the "
     "seal leak fault.", False),
])
def test_a_further_code_the_answer_leaves_out_is_no_member(answer: str, right: bool) -> None:
    facts = {"codes": {"kind": "labels", "asked": False,
                       "labels": {"P-SL": [], "P-BW": [], "P-CV": []}},
             "modes": {"kind": "labels", "means": ["fault", "faults"],
                       "labels": {"leak": ["seal leak"], "wear": ["bearing wear"]}}}
    record = _record({"codes": ["P-SL"], "modes": ["leak"]}, facts,
                     "Which faults did the corrective repairs of pump P-7 in May deal with?")
    assert (grade(record, answer).score == 1.0) is right


def test_an_unasked_set_of_codes_stated_with_a_further_code() -> None:
    facts = {"codes": {"kind": "labels", "asked": False,
                       "labels": {"P-SL": [], "P-BW": [], "P-CV": []}},
             "modes": {"kind": "labels", "means": ["fault", "faults"],
                       "labels": {"leak": ["seal leak"], "wear": ["bearing wear"]}}}
    record = _record({"codes": ["P-SL"], "modes": ["leak"]}, facts,
                     "Which faults did the repairs of pump P-7 in May deal with?")
    assert grade(record, "One repair in May, P-SL on 3 May: a seal leak fault.").score == 1.0
    assert grade(record, "Repairs in May: P-SL on 3 May and P-BW on 9 June, i.e. the seal "
                         "leak fault.").score < 1.0


def test_a_label_one_side_covers_but_the_other_is_said_not_to_is_no_further_member() -> None:
    facts = {"modes": {"kind": "labels", "means": ["shows", "reveal", "covers", "cover"],
                       "labels": {"wear": ["bearing wear"], "cavitation": ["cavitation"],
                                  "leak": ["seal leak"]}}}
    record = _record({"modes": ["cavitation"]}, facts,
                     "Which faults of pump P-7 do both the flow meter and the vibration probe "
                     "reveal?")
    assert grade(record, "Just cavitation. The vibration probe also covers bearing wear, "
                         "whereas the flow meter doesn't.").score == 1.0
    assert grade(record, "Cavitation; the vibration probe also covers bearing wear, and so "
                         "does the flow meter.").score < 1.0


def test_a_zero_said_of_separate_things_is_no_size_of_the_set() -> None:
    record = _record({"spans": [{"first": "2026-03-02T05:00:00", "last": "2026-03-02T09:00:00"}]},
                     {"spans": {"kind": "records", "means": ["outage", "outages", "dropouts"],
                                "fields": [{"key": "first", "kind": "timestamp",
                                            "granularity": "hour"},
                                           {"key": "last", "kind": "timestamp",
                                            "granularity": "hour"}]}},
                     "When was the feed of depot ALPHA out on 2 March 2026?")
    right = "One outage, 05:00 to 09:00 on 2 March 2026"
    assert grade(record, f"{right}; no separate meter-only dropouts.").score == 1
    assert grade(record, f"{right}; no distinct dropouts besides it.").score == 1
    assert grade(record, f"{right}, in two separate outages.").score < 1


def test_a_json_yes_no_key_states_the_label_that_shares_its_phrasings() -> None:
    facts = {"decision": {"kind": "label", "means": ["decision", "action"],
                          "labels": {"none": ["no work order", "no repair", "leave it"],
                                     "repair": ["repair", "replace the seal"]}},
             "raise_order": {"kind": "boolean", "yes_no": True,
                             "labels": {"true": ["raise a work order"],
                                        "false": ["no work order", "no order"]}}}
    text = "Vibration on pump P-7 is 2.1 mm/s: should we raise a work order for the pump?"
    record = _record({"decision": "none", "raise_order": False}, facts, text)
    assert grade(record, {"pump": "P-7", "work_order_needed": False}).score == 1.0
    assert grade(record, {"pump": "P-7", "work_order_needed": True}).score < 1.0
    assert grade(record, {"pump": "P-7", "decision": "repair",
                          "work_order_needed": False}).score < 1.0
    repair = _record({"decision": "repair", "raise_order": True}, facts, text)
    assert grade(repair, {"pump": "P-7", "work_order_needed": True}).score < 1.0


def test_a_json_key_restating_the_question_in_the_singular_answers_it() -> None:
    facts = {"repaired": {"kind": "boolean", "means": ["repaired", "fixed"],
                          "labels": {"true": ["was repaired"], "false": ["not repaired"]}}}
    record = _record({"repaired": True}, facts,
                     "Were the charge anomalies of UPS-4 in May followed by a replacement?")
    assert grade(record, {"ups": "UPS-4", "replacement_after_anomaly": "yes"}).score == 1
    assert grade(record, {"ups": "UPS-4", "replacement_after_anomaly": "no"}).score < 1


def test_a_label_said_with_the_other_idiom_of_a_record_is_stated() -> None:
    facts = {"decision": {"kind": "label", "means": ["decision"],
                          "labels": {"exists": ["already on file"], "raise": ["raise one"]}}}
    record = _record({"decision": "exists"}, facts,
                     "Pump P-7 has a leaking seal: is a repair order on file, or do I raise one?")
    assert grade(record, "A seal repair for P-7 is already on record (WO-77).").score == 1
    assert grade(record, "Nothing is on record for P-7; raise one.").score < 1


def test_values_written_before_their_days_in_a_list_are_those_days_values() -> None:
    facts = {"current": {"kind": "mapping", "means": ["drew", "current"],
                         "value": {"key": "current", "kind": "quantity", "unit": "A"}}}
    record = _record({"current": {"2026-05-03": 1.2, "2026-05-10": 1.4, "2026-05-17": 1.1}},
                     facts, "What current did pump P-7 draw at 08:00 on the Sundays 3, 10 "
                            "and 17 May 2026?")
    tail = " and 1.1 A on 17 May – about 0.3 A under its usual draw."
    assert grade(record, "It drew 1.2 A on 3 May, 1.4 A on 10 May" + tail).score == 1
    assert grade(record, "It drew 1.4 A on 3 May, 1.2 A on 10 May" + tail).score < 1
    assert grade(record, "3 May: 1.2 A, 10 May: 1.4 A, 17 May: 1.1 A.").score == 1


def test_an_order_stated_as_a_ranking_counts_though_first_mentions_differ() -> None:
    facts = {"queue": {"kind": "ids", "ordered": True, "means": ["queue", "first", "order"]}}
    record = _record({"queue": ["PUMP-3", "PUMP-1", "PUMP-2"]}, facts,
                     "In which order should pumps PUMP-1, PUMP-2 and PUMP-3 be overhauled, "
                     "worst vibration first?")
    survey = "PUMP-1 runs at 4.1 mm/s, PUMP-2 at 3.2 mm/s and PUMP-3 at 7.9 mm/s. "
    assert grade(record, survey + "Queue: 1) PUMP-3, 2) PUMP-1, 3) PUMP-2.").score == 1
    assert grade(record, survey + "PUMP-3 is overhauled first, PUMP-1 goes second and "
                                  "PUMP-2 third.").score == 1
    assert grade(record, survey + "So the queue is PUMP-3, then PUMP-1, then PUMP-2."
                 ).score == 1
    assert grade(record, survey + "Queue: 1) PUMP-1, 2) PUMP-3, 3) PUMP-2.").score < 1
    assert grade(record, survey + "PUMP-1 is overhauled first, PUMP-3 goes second and "
                                  "PUMP-2 third.").score < 1


JOBS = {"alarms": {"kind": "count", "means": ["alarms", "alarm"]},
        "answered": {"kind": "count", "means": ["answered", "got a repair"]},
        "jobs": {"kind": "ids", "exact": False, "means": ["repair jobs", "jobs", "job"]}}
JOBS_RECORD = _record({"alarms": 2, "answered": 2, "jobs": ["JOB-P7-101", "JOB-P7-104"]}, JOBS,
                      "For pump P-7 in March 2026, how many alarms were answered by a repair "
                      "job within 3 days, and which jobs? List every job within that time.")


@pytest.mark.parametrize("tail", [
    "JOB-P7-101 (2 Mar) and JOB-P7-104 (9 Mar); JOB-P7-109 (27 Mar) came too late.",
    "JOB-P7-101, JOB-P7-104 and JOB-P7-109 (outside the 3-day window).",
    "JOB-P7-101 and JOB-P7-104, not JOB-P7-109 (planned, so not counted).",
    "JOB-P7-101 and JOB-P7-104.\n- JOB-P7-109: lubrication round, not included.",
])
def test_a_further_job_the_answer_excludes_is_not_claimed(tail: str) -> None:
    answer = "P-7, March 2026: 2 alarms, 2 answered within 3 days. Repair jobs: " + tail
    assert grade(JOBS_RECORD, answer).score == 1.0


def test_a_further_id_listed_with_the_members_is_wrong_even_when_not_exact() -> None:
    head = "P-7, March 2026: 2 alarms, 2 answered within 3 days. "
    assert grade(JOBS_RECORD, head + "Repair jobs: JOB-P7-101 (2 Mar, bearing), JOB-P7-104 "
                 "(9 Mar) and JOB-P7-109 (27 Mar, seal swap).").score < 1.0
    assert grade(JOBS_RECORD, head + "Repair jobs:\n- JOB-P7-101\n- JOB-P7-104\n- JOB-P7-109"
                 ).score < 1.0
    # a list of everything on record, then the members alone: the list is context
    assert grade(JOBS_RECORD, head + "Jobs on record: JOB-P7-101, JOB-P7-104 and JOB-P7-109; "
                 "of these JOB-P7-101 and JOB-P7-104 came within 3 days.").score == 1.0
    # a further job written apart from the list is said of no member
    assert grade(JOBS_RECORD, head + "Repair jobs: JOB-P7-101 and JOB-P7-104. A planned "
                 "service, JOB-P7-109, followed on 27 March.").score == 1.0


def test_a_pronoun_before_a_counts_words_takes_the_number_just_counted() -> None:
    facts = {"alarms": {"kind": "count", "means": ["alarms", "alarm"]},
             "answered": {"kind": "count", "means": ["answered", "got a repair"]}}
    one = _record({"alarms": 1, "answered": 1}, facts,
                  "How many alarms did pump P-7 raise in March, and how many were answered "
                  "within 3 days?")
    assert grade(one, "P-7, March: one alarm (low suction, 4 Mar 09:10), and it was "
                      "answered within a day by JOB-P7-101.").score == 1.0
    assert grade(one, "P-7, March: one alarm (low suction, 4 Mar 09:10), and it was not "
                      "answered within 3 days.").score < 1.0
    three = _record({"alarms": 3, "answered": 3}, facts, one["text"])
    assert grade(three, "P-7 raised 3 alarms in March (4, 9 and 20 Mar) and all of them "
                        "got a repair within 3 days.").score == 1.0
    # "it" is one thing: it does not take a count of three
    assert grade(three, "P-7 raised 3 alarms in March; it was answered within a day."
                 ).score < 1.0
    two = _record({"alarms": 3, "answered": 2}, facts, one["text"])
    assert grade(two, "P-7 raised 3 alarms in March, and all of them were answered within "
                      "3 days.").score < 1.0


REPAIRS = {"count": {"kind": "count", "means": ["repairs", "repair", "jobs", "job"]},
           "job_codes": {"kind": "mapping", "asked": False, "means": ["code", "codes"],
                         "value": {"key": "job_codes", "kind": "label"}}}


@pytest.mark.parametrize(("count", "answer"), [
    (1, "One repair in May: PX-SEAL on 4 May (seal weeping); PX-INSP on 12 May was the "
        "planned round, not counted."),
    (1, "One repair in May, JOB-P7-101 (PX-SEAL, 4 May)."),
    (1, "Pump P-7 had one repair job in May 2026 - JOB-P7-101, code PX-SEAL, on 4 May."),
    (2, "Two repairs: JOB-P7-101 (PX-SEAL) and JOB-P7-102 (PX-SEAL), on 4 and 21 May."),
    (2, "Two repairs in May: PX-SEAL on 4 May, then PX-BRG on 21 May."),
])
def test_a_count_with_as_many_items_listed_stands(count: int, answer: str) -> None:
    record = _record({"count": count}, REPAIRS,
                     "How many corrective repairs did pump P-7 get in May 2026?")
    assert grade(record, answer).score == 1.0


@pytest.mark.parametrize("answer", [
    "One repair in May: PX-SEAL on 4 May, a weeping seal, then PX-BRG on 21 May.",
    "One repair job: JOB-P7-101 and JOB-P7-102.",
    "1 repair (PX-SEAL, PX-BRG) in May.",
    "Just one repair in May, ME-BRG on 4 May: a worn bearing, then EL-MTR on 21 May.",
])
def test_a_count_contradicted_by_the_items_it_lists_is_wrong(answer: str) -> None:
    record = _record({"count": 1}, REPAIRS,
                     "How many corrective repairs did pump P-7 get in May 2026?")
    assert grade(record, answer).score < 1.0
def test_a_word_in_a_hyphenated_compound_does_not_bind_a_value_to_its_fact() -> None:
    record = _record({"level": 3.4, "top": 5.9},
                     {"level": {"kind": "quantity", "unit": "m", "means": ["ahead", "final"]},
                      "top": {"kind": "quantity", "unit": "m", "means": ["highest", "top"]}},
                     "What river level do you forecast 12 hours ahead at gauge G-4, and the "
                     "highest level on the way?", {"level": 0.1, "top": 0.1})
    assert grade(record, "The level 12 hours ahead is 3.4 m. The highest point of the "
                 "half-day-ahead curve is 5.9 m.").score == 1
    assert grade(record, "The level 12 hours ahead is 3.4 m. The highest point of the "
                 "half-day-ahead curve is 6.6 m.").score < 1


def test_a_value_said_once_for_every_key_after_each() -> None:
    record = _record({"pumps": {"LOOP-A": 3, "LOOP-B": 3}},
                     {"pumps": {"kind": "mapping", "means": ["pumps"],
                                "value": {"key": "pumps", "kind": "count"}}},
                     "How many pumps does each chilled-water loop have?")
    assert grade(record, "Two loops, LOOP-A and LOOP-B, and each of them runs three "
                 "pumps.").score == 1.0
    assert grade(record, "LOOP-A and LOOP-B, every one with 3 pumps.").score == 1.0
    assert grade(record, "LOOP-A and LOOP-B, and each of them runs two pumps.").score < 1.0


def test_a_no_in_a_sentence_about_the_members_says_what_they_are_not() -> None:
    record = _record({"methods": ["arima", "ets"]},
                     {"methods": {"kind": "labels", "means": ["methods", "method", "model"],
                                  "labels": {"arima": ["ARIMA"], "ets": ["ETS"],
                                             "lstm": ["LSTM"]}}},
                     "Which forecasting methods can I pick from?")
    assert grade(record, "You can pick ARIMA or ETS. Both are plain statistical methods, "
                 "no neural network model.").score == 1
    assert grade(record, "ARIMA and ETS are listed, but no usable forecasting model is "
                 "offered.").score < 1


def test_a_range_of_hours_across_midnight_states_each_hour_it_covers() -> None:
    hours = ["2026-03-04T22:00:00", "2026-03-04T23:00:00", "2026-03-05T00:00:00",
             "2026-03-05T01:00:00", "2026-03-05T02:00:00"]
    record = _record({"hours": hours},
                     {"hours": {"kind": "timestamp", "granularity": "hour",
                                "means": ["flagged", "anomalous"]}},
                     "Which hours of pump P-2's flow were anomalous between 1 and 7 March?")
    assert grade(record, "Flagged: 4 March 22:00 through 5 March 02:00, five hours in a "
                 "row.").score == 1
    assert grade(record, "Flagged: 4 March 20:00 through 5 March 02:00.").score < 1
    assert grade(record, "Flagged: 4 March 22:00 through 5 March 00:00.").score < 1


def test_a_json_key_answered_yes_or_no_states_the_label_it_words() -> None:
    record = _record({"wear_mm": 0.4, "action": "none"},
                     {"wear_mm": {"kind": "quantity", "unit": "mm", "means": ["wear"]},
                      "action": {"kind": "label", "means": ["action", "repair"], "labels": {
                          "none": ["no repair needed", "nothing to do"],
                          "repair": ["repair needed", "repair it"]}}},
                     "How worn is the impeller of pump P-5, and what action do you take?",
                     {"wear_mm": 0.05})
    assert grade(record, {"wear": "0.4 mm", "repair_needed": "no - within the 1 mm limit, "
                          "the last repair order covers it"}).score == 1
    assert grade(record, {"wear": "0.4 mm", "repair needed": False}).score == 1
    assert grade(record, {"wear": "0.4 mm", "repair_needed": "yes - replace it"}).score < 1
    assert grade(record, {"wear": "0.4 mm", "Repair-Needed": True}).score < 1


PREMISE_FACTS = {"premise_holds": {"kind": "boolean", "assumed": True, "labels": {
    "false": ["no such stall", "did not stall", "not stall"]}},
    "orders": {"kind": "ids", "means": ["order", "orders"]}}
PREMISE_RECORD = _record({"premise_holds": False, "orders": []}, PREMISE_FACTS,
                         "Which order was raised after pump P-7 stalled on 2026-05-02?")


@pytest.mark.parametrize("answer", [
    "The report is mistaken: P-7 ran normally all day on 2 May, so no order was needed.",
    "That claim doesn't hold up - P-7's log has nothing on 2 May and there is no order.",
    "That didn't happen. P-7 ran all day on 2 May; no order exists.",
    "I couldn't find any such stall of P-7 on 2 May, and no order was raised.",
    "P-7 doesn't seem to have stalled on 2 May at all; there is no order.",
    "The report of a stall is wrong: P-7 ran all day on 2 May, and there is no order.",
])
def test_a_premise_disputed_in_an_engineers_words(answer: str) -> None:
    assert grade(PREMISE_RECORD, answer).score == 1.0


@pytest.mark.parametrize("answer", [
    # Going along with the premise: what is denied is the order, not the stall.
    "P-7 stalled on 2 May; I couldn't find any order raised after it, so there is none.",
    "After the stall on 2 May no order was raised; the log is not wrong about that.",
    "P-7 stalled on 2 May. An order after it? That didn't happen yet; there is no order.",
    # Supposed or denied, not said.
    "If the report is mistaken there would be no order, but P-7 did stall; there is no order.",
    "I wouldn't say the claim is wrong: P-7 stalled on 2 May and there is no order.",
])
def test_a_premise_gone_along_with_is_not_disputed(answer: str) -> None:
    assert grade(PREMISE_RECORD, answer).score < 1.0


def test_a_json_yes_no_under_a_key_of_its_own_words() -> None:
    facts = {"new_bearing": {"kind": "boolean", "yes_no": True, "labels": {
        "true": ["needs a new bearing", "replace the bearing", "is the worst"],
        "false": ["no new bearing", "keep the bearing"]}}}
    record = _record({"new_bearing": True}, facts,
                     "Pump P-7 ran rough on 4 May: should we plan a bearing job for it?")
    assert grade(record, {"pump": "P-7", "new_bearing_needed": True}).score == 1
    assert grade(record, {"pump": "P-7", "p7_worst": "yes"}).score == 1
    assert grade(record, {"pump": "P-7", "new_bearing_needed": False}).score < 1
    assert grade(record, {"pump": "P-7", "may_4_no_new_bearing": True}).score < 1
    # words beyond the phrasing that the question does not use name something else
    assert grade(record, {"pump": "P-7", "spare_new_bearing_needed": True}).score < 1


def test_a_label_with_a_word_of_degree_said_another_way() -> None:
    facts = {"causes": {"kind": "labels", "means": ["causes"], "labels": {
        "low_suction": ["low suction pressure"], "high_discharge": ["high discharge pressure"],
        "seal_leak": ["seal leak"], "low": ["low"]}}}
    record = _record({"causes": ["low_suction", "high_discharge"]}, facts,
                     "What could make pump P-7 cavitate?")
    assert grade(record, "An insufficient suction pressure or an elevated discharge "
                         "pressure.").score == 1
    assert grade(record, "A short suction pressure or an excessive discharge "
                         "pressure.").score == 1
    # words of the other degree say the opposite
    assert grade(record, "A high suction pressure or a low discharge pressure.").score < 1


@pytest.mark.parametrize(("answer", "right"), [
    ("P-7's health score is 0.72 on a 0–1 scale.", True),
    ("P-7 scores 7.2 out of 10 for health.", True),
    ("Health score of P-7: 72.4 %.", True),
    ("P-7's health score is 0.62 on a 0–1 scale.", False),
    ("Health score of P-7: 62.4 %.", False),
])
def test_a_score_written_as_a_share_of_its_scale(answer: str, right: bool) -> None:
    record = _record({"health_score": 72.4}, {"health_score": {
        "kind": "quantity", "means": ["health score", "score", "scores"]}},
        "What health score does pump P-7 get from its last vibration survey?",
        {"health_score": 0.5})
    assert (grade(record, answer).score == 1) == right


def test_names_in_brackets_after_denied_words_are_denied_with_them() -> None:
    facts = {"modes": {"kind": "labels", "exact": True, "means": ["shows", "reveals"],
                       "labels": {"wear": ["bearing wear"], "misalignment": ["misalignment"],
                                  "cavitation": ["cavitation"], "leak": ["seal leak"]}}}
    record = _record({"modes": ["wear", "misalignment"]}, facts,
                     "What does the vibration sensor of pump P-7 reveal?")
    assert grade(record, "It reveals bearing wear and misalignment. It never reveals the "
                         "fluid-side faults (cavitation/seal leak); watch suction pressure "
                         "for those.").score == 1
    assert grade(record, "It reveals bearing wear and misalignment. It also reveals the "
                         "fluid-side faults (cavitation/seal leak).").score < 1


def test_names_a_negative_pronoun_then_denies_what_was_asked_are_ruled_out() -> None:
    facts = {"modes": {"kind": "labels", "exact": True, "means": ["explain", "explains", "fit",
                                                                  "fits"],
                       "labels": {"wear": ["bearing wear"], "misalignment": ["misalignment"],
                                  "cavitation": ["cavitation"], "leak": ["seal leak"]}}}
    record = _record({"modes": ["wear"]}, facts,
                     "What would explain both high vibration and a hot bearing on pump P-7?")
    assert grade(record, "Bearing wear alone explains both. Vibration also fits misalignment "
                         "and heat fits seal leak, but neither covers both.").score == 1
    assert grade(record, "Bearing wear explains both; vibration fits misalignment and heat "
                         "fits seal leak, none of which explains the pair.").score == 1
    # a contrast that denies something else, or other subjects, rules nothing out
    assert grade(record, "Bearing wear explains both, and so do misalignment and seal leak, "
                         "but neither is urgent.").score < 1
    assert grade(record, "Bearing wear and misalignment explain both, but neither cavitation "
                         "nor seal leak does.").score < 1
