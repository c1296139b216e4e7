"""Budget allocation: weights from the profile, rounding, the multi-agent cap, overrides, LLM."""

from __future__ import annotations

import pytest

from generator.errors import UserError
from generator.generate.run.budget import (
    allocate,
    largest_remainder,
    parse_budget,
    profile_weights,
    propose_budget,
)
from generator.generate.run.policy import load_policies
from generator.llm.client import LLMClient
from generator.llm.fake import ScriptedChatModel

from ._factories import make_profile, simple_asset

POLICIES = load_policies()


def _profile(**kw: object) -> object:
    # 2 assets × 720 h telemetry (coverage 1), 2 modalities, 6 observable modes, 30 WOs.
    return make_profile(
        [simple_asset("A-TX01", "A"), simple_asset("B-TX01", "B")], **kw  # type: ignore[arg-type]
    )


def test_weights_worked_by_hand() -> None:
    weights, lines = profile_weights(_profile(), POLICIES)  # type: ignore[arg-type]
    # iot 5 tools + 2 modalities × 1; fmsr 9 + 6/2; tsfm 4 + 2×1; wo 8 + 3×min(1, 30/30);
    # multiagent = mean(7, 12, 6, 11) = 9; vibration unsupported.
    assert weights == {"iot": 7.0, "fmsr": 12.0, "tsfm": 6.0, "wo": 11.0,
                       "vibration": 0.0, "multiagent": 9.0}
    assert any(line.startswith("vibration: weight 0 — unsupported (no vibration") for line in lines)


def test_allocation_worked_by_hand_sums_to_n() -> None:
    budget = allocate(_profile(), POLICIES, 50)  # type: ignore[arg-type]
    # quotas 50·w/45: iot 7.78, fmsr 13.33, tsfm 6.67, wo 12.22, ma 10 → floors 48;
    # the two largest remainders (iot .78, tsfm .67) get one more.
    assert budget.per_domain == {"iot": 8, "fmsr": 13, "tsfm": 7, "wo": 12,
                                 "vibration": 0, "multiagent": 10}
    assert budget.total == 50 and budget.source == "weights"
    assert "iot: 8 scenarios (share 15.6% of 50, largest-remainder rounding)" in budget.reasoning


def test_multiagent_cap_spreads_the_overflow_by_weight() -> None:
    budget = allocate(_profile(), POLICIES, 50, multiagent_cap=0.1)  # type: ignore[arg-type]
    # cap floor(0.1·50) = 5: overflow 5 over weights 7/12/6/11 (36): quotas .97, 1.67, .83,
    # 1.53 → floors 0,1,0,1, then iot, tsfm, fmsr by remainder.
    assert budget.per_domain == {"iot": 9, "fmsr": 15, "tsfm": 8, "wo": 13,
                                 "vibration": 0, "multiagent": 5}
    assert any(line.startswith("multiagent capped at 5") for line in budget.reasoning)


def test_ties_go_to_the_domain_first_in_fixed_order() -> None:
    assert largest_remainder({"iot": 1.0, "fmsr": 1.0, "tsfm": 1.0}, 4) == {
        "iot": 2, "fmsr": 1, "tsfm": 1}
    assert largest_remainder({"iot": 1.0, "fmsr": 0.0}, 3) == {"iot": 3, "fmsr": 0}
    assert largest_remainder({"iot": 1.0}, 0) == {"iot": 0}


@pytest.mark.parametrize("n", [0, 1, 3, 7, 50, 1000])
def test_any_n_sums_exactly_and_respects_the_cap(n: int) -> None:
    budget = allocate(_profile(), POLICIES, n, multiagent_cap=0.2)  # type: ignore[arg-type]
    assert budget.total == n
    assert budget.per_domain["multiagent"] <= int(0.2 * n)
    assert budget.per_domain["vibration"] == 0


def test_multiagent_needs_two_supported_single_domains() -> None:
    profile = _profile(supported={"iot": ["sites"], "multiagent": []},
                       unsupported={"fmsr": "no", "tsfm": "no", "wo": "no", "vibration": "no"})
    budget = allocate(profile, POLICIES, 10)  # type: ignore[arg-type]
    assert budget.per_domain["iot"] == 10 and budget.per_domain["multiagent"] == 0
    assert any("a chain needs two" in line for line in budget.reasoning)


def test_no_supported_domain_is_a_user_error() -> None:
    profile = _profile(supported={}, unsupported={d: "no data" for d in
                                                  ("iot", "fmsr", "tsfm", "wo", "vibration")})
    with pytest.raises(UserError, match="supports no scenario domain"):
        allocate(profile, POLICIES, 10)  # type: ignore[arg-type]


def test_parse_budget() -> None:
    assert parse_budget(" iot=10, fmsr=15 ,") == {"iot": 10, "fmsr": 15}
    with pytest.raises(UserError) as err:
        parse_budget("iot=10,fmrs=3")
    assert "fmrs" in str(err.value) and "fmsr" in (err.value.options or [])
    for bad in ("iot", "iot=-1", "iot=x", "iot=1,iot=2", ""):
        with pytest.raises(UserError):
            parse_budget(bad)


def test_override_defines_n_and_is_validated() -> None:
    profile = _profile()
    budget = allocate(profile, POLICIES, None, override={"iot": 10, "fmsr": 15})  # type: ignore[arg-type]
    assert budget.source == "override" and budget.total == 25
    assert budget.per_domain["iot"] == 10 and budget.per_domain["tsfm"] == 0
    same = allocate(profile, POLICIES, 25, override={"iot": 10, "fmsr": 15})  # type: ignore[arg-type]
    assert same.per_domain == budget.per_domain
    with pytest.raises(UserError, match="sums to 25 but -n is 50"):
        allocate(profile, POLICIES, 50, override={"iot": 10, "fmsr": 15})  # type: ignore[arg-type]
    with pytest.raises(UserError) as err:
        allocate(profile, POLICIES, None, override={"vibration": 3})  # type: ignore[arg-type]
    assert "no vibration sensors in the store" in str(err.value)
    assert allocate(profile, POLICIES, None,  # type: ignore[arg-type]
                    override={"vibration": 0, "iot": 2}).total == 2
    with pytest.raises(UserError, match="above the cap 7"):
        allocate(profile, POLICIES, None, override={"iot": 2, "multiagent": 8})  # type: ignore[arg-type]


async def test_llm_proposal_is_normalised_like_profile_weights() -> None:
    profile = _profile()
    reply = ('{"weights": {"iot": 1, "fmsr": 3, "vibration": 5, "chiller": 2, "multiagent": 0},'
             ' "rationale": "diagnosis matters most"}')
    model = ScriptedChatModel([reply])
    proposal = await propose_budget(profile, 8, LLMClient.from_model(model))  # type: ignore[arg-type]
    assert proposal == {"iot": 1.0, "fmsr": 3.0, "vibration": 5.0, "chiller": 2.0,
                        "multiagent": 0.0}
    assert "no vibration sensors" in model.prompts[0] and "Scenarios wanted: 8" in model.prompts[0]
    budget = allocate(profile, POLICIES, 8, proposal=proposal)  # type: ignore[arg-type]
    # vibration unsupported → 0, unknown domain dropped; 8 split 1:3 → 2 and 6.
    assert budget.source == "llm"
    assert budget.per_domain == {"iot": 2, "fmsr": 6, "tsfm": 0, "wo": 0,
                                 "vibration": 0, "multiagent": 0}
    assert "llm proposal: vibration set to 0 — not supported or no policy" in budget.reasoning
    assert "llm proposal: dropped unknown domain 'chiller'" in budget.reasoning


async def test_unusable_llm_reply_falls_back_to_profile_weights() -> None:
    profile = _profile()
    garbled = await propose_budget(  # type: ignore[arg-type]
        profile, 10, LLMClient.from_model(ScriptedChatModel(["weights: lots"])))
    assert garbled is None
    zero = allocate(profile, POLICIES, 50, proposal={"vibration": 4.0})  # type: ignore[arg-type]
    assert zero.source == "weights"
    assert zero.per_domain == allocate(profile, POLICIES, 50).per_domain  # type: ignore[arg-type]
    assert any("profile weights used" in line for line in zero.reasoning)
