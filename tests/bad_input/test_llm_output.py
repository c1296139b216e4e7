"""Issue 13.6: LLM output is sanitised at the boundary, and a rubric that contradicts the
computed reference is rejected by a deterministic check."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from generator.generate.checks.checks import CheckContext, CheckItem, GroundingSets, run_checks
from generator.generate.checks.rubric_check import (
    count_claims,
    fleet_claims,
    negated_labels,
    value_claims,
)
from generator.generate.run.policy import load_policies
from generator.llm.client import LLMClient, parse_reply
from generator.llm.fake import ScriptedChatModel
from generator.llm.sanitise import clean_text, unsafe_characters

# -- the sanitiser -----------------------------------------------------------------------

UNSAFE = "\x00\x07\x1b\x7f\x85\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"


def test_clean_text_strips_controls_and_bidi_and_keeps_the_rest() -> None:
    text = "Top-oil 85 °C at NORTH-TX01\tµ ñ 変圧器 ✓\nline two\r\n"
    assert clean_text(text) == text  # tabs, newlines, non-ASCII letters and symbols stay
    assert clean_text("ab" + UNSAFE + "cd") == "abcd"
    # The Trojan-Source shape: an RLO hides reversed text inside an innocent sentence.
    assert clean_text("report D1\u202e2D ton\u202c.") == "report D12D ton."
    assert unsafe_characters("x\u202ey\x00") == ["U+202E", "U+0000"]


class _Reply(BaseModel):
    text: str
    characteristic_form: str


def test_parse_reply_cleans_every_string_escaped_or_raw() -> None:
    raw = '{"text": "Check EAST-TX01\\u0000\\u202e now", "characteristic_form": "use x\u2066y"}'
    value, error = parse_reply(raw, _Reply)
    assert error is None and value is not None
    assert value.text == "Check EAST-TX01 now" and value.characteristic_form == "use xy"


async def test_ask_text_is_cleaned() -> None:
    client = LLMClient.from_model(ScriptedChatModel(["digest\x00 with \u202eRLO"]))
    result = await client.ask_text("digest", "system", "user")
    assert result.ok and result.value == "digest with RLO"


# -- rubric against the reference --------------------------------------------------------

ANSWER: dict[str, Any] = {
    "asset_ids": ["SOUTH-TX01", "SOUTH-TX02", "SOUTH-TX03"],
    "alerts": 4,
    "health_index": 90.625,
    "fault_type": "D1",
    "condition": "very good",
    "claimed_fault": "T3",
}


@pytest.mark.parametrize(
    ("rubric", "problem"),
    [
        ("The response should report 2 units at SOUTH.",
         "'2 units' but the computed asset_ids is 3"),
        ("It lists five alerts.", "'five alerts' but the computed alerts is 4"),
        ("Say there are no alerts.", "'no alerts' but the computed alerts is 4"),
        ("It reveals 2 of 7 units.", "'2 of 7 units' but the computed asset_ids is 3"),
    ],
)
def test_count_contradictions(rubric: str, problem: str) -> None:
    assert any(problem in p for p in count_claims(rubric, ANSWER))


@pytest.mark.parametrize(
    "rubric",
    [
        "The response should report the 3 units at SOUTH and 4 alerts.",
        "It says three transformers.",
        "If no alerts exist, say that no work is needed.",  # a condition, not a count
        "Report the alerts within 2 days of 2026-06-01.",  # numbers of other nouns
        "It reveals 3 of 7 units, and 4 out of 9 alerts.",  # the total of "N of M"
    ],
)
def test_counts_that_agree_or_are_not_counts(rubric: str) -> None:
    assert count_claims(rubric, ANSWER) == []


def test_keys_of_one_noun_share_their_counts() -> None:
    layout = {"site": "MAIN", "units_at_site": 4, "sites": 3}
    assert count_claims("CH-MAIN-01 is at MAIN, one of 4 chillers there; the fleet has "
                        "3 sites.", layout) == []
    assert count_claims("The fleet has 5 sites.", layout) != []
    gaps = {"expected_hours": 288, "records": 288, "missing_hours": 0}
    assert count_claims("288 of 288 hourly records; 0 hours missing.", gaps) == []
    assert count_claims("288 of 288 hourly records; 2 hours missing.", gaps) != []


def test_values_agree_within_written_rounding_only() -> None:
    # 90.625 written with one decimal is 90.6 (|90.6 − 90.625| = 0.025 ≤ 0.05); 90 with none
    # is within 0.5 only if |90 − 90.625| ≤ 0.5, which it is not (0.625), so 90 disagrees.
    assert value_claims("report a health index of 90.6", ANSWER) == []
    assert value_claims("report a health index of 91", ANSWER) == []  # round(90.625) = 91
    assert value_claims("health index: 90", ANSWER) != []
    assert value_claims("health index is 75.2", ANSWER) == [
        "rubric says 'health index is 75.2' but the computed health_index is 90.625"
    ]
    # An absolute tolerance of 1 makes 90 agree (|90 − 90.625| = 0.625 ≤ 1).
    assert value_claims("health index: 90", ANSWER, {"health_index": 1.0}) == []


def test_negated_labels() -> None:
    assert negated_labels("Say the sample does not show D1.", ANSWER) == [
        "rubric negates the computed fault_type 'D1' ('not show D1')"
    ]
    assert negated_labels("Rule out D1 and report T2.", ANSWER) != []
    assert negated_labels("The condition is not very good.", ANSWER) != []
    # Affirming the label, or negating the refuted claim of a false premise, is fine.
    assert negated_labels("Report fault D1 and a very good condition.", ANSWER) == []
    assert negated_labels("Correct the premise: the oil does not show T3.", ANSWER) == []


def test_fleet_size_against_the_store() -> None:
    assert fleet_claims("Say the fleet has zero sites.", sites=3, assets=12) == [
        "rubric says 'fleet has zero sites' but the store holds 3"
    ]
    assert fleet_claims("The fleet has 12 transformers at 3 sites.", sites=3, assets=12) == []


def _grounding() -> GroundingSets:
    return GroundingSets(
        sites=["EAST", "NORTH", "SOUTH"],
        asset_sites={"SOUTH-TX01": "SOUTH", "SOUTH-TX02": "SOUTH", "SOUTH-TX03": "SOUTH"},
        sensors=["oti"], start="2026-06-01T00:00:00", end="2026-06-30T23:00:00",
    )


def _item(rubric: str, answer: dict[str, Any] | None, text: str = "Which units are at SOUTH?"
          ) -> CheckItem:
    return CheckItem(key="k", type="iot", text=text, category="Data Query",
                     characteristic_form=rubric, deterministic=answer is not None,
                     reference_answer=answer)


async def test_the_registered_check_rejects_an_llm_rubric_and_passes_a_faithful_one() -> None:
    ctx = CheckContext(policies=load_policies(), grounding=_grounding())
    bad = await run_checks("deterministic", _item(
        "The response should use `assets` and say the fleet has zero sites and 2 units at "
        "SOUTH.", ANSWER), ctx)
    assert [p for p in bad if p.startswith("rubric_agrees_with_reference:")] == [
        "rubric_agrees_with_reference: rubric says '2 units' but the computed asset_ids is 3",
        "rubric_agrees_with_reference: rubric says 'fleet has zero sites' but the store holds 3",
    ]
    good = await run_checks("deterministic", _item(
        "The response should use `assets` and list the 3 units at SOUTH.", ANSWER), ctx)
    assert not [p for p in good if p.startswith("rubric_agrees_with_reference:")]
    # An open scenario (no reference) is still held to the store's fleet size.
    open_bad = await run_checks("deterministic", _item(
        "A good answer notes the fleet has 7 sites.", None), ctx)
    assert "rubric_agrees_with_reference: rubric says 'fleet has 7 sites' but the store " \
        "holds 3" in open_bad


async def test_unsafe_characters_in_a_record_are_rejected_early() -> None:
    ctx = CheckContext(policies=load_policies())
    problems = await run_checks("early", _item("Use `assets`.", ANSWER,
                                               text="Which units\u202e are at SOUTH?\x00"), ctx)
    assert "no_unsafe_characters: text holds unsafe characters U+202E, U+0000" in problems
