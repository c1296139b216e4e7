"""Two scripted LLM judges that disagree; an unparseable verdict; a refused self-judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.judge import refuse_self_judge
from eval.judge_llm import LLMJudge
from eval.score import score_path, score_records
from generator.errors import UserError
from generator.llm.client import LLMClient
from generator.llm.fake import ScriptedChatModel

DIMS = ("answerability", "tool_usability", "difficulty", "characteristic_form", "clarity")


def _reply(*ratings: int) -> str:
    return json.dumps({d: {"rating": r, "reason": f"{d} is {r}"}
                       for d, r in zip(DIMS, ratings, strict=True)})


def _judge(label: str, replies: list[str]) -> LLMJudge:
    # concurrency 1: the script is consumed in scenario order.
    client = LLMClient.from_model(ScriptedChatModel(replies), label=label, concurrency=1)
    return LLMJudge(label, client=client)


RECORDS: list[dict[str, Any]] = [
    {"id": 1, "type": "IoT", "category": "Knowledge Query",
     "text": "Which sites hold transformers?",
     "characteristic_form": "The response should list every site, using the sites tool."},
    {"id": 2, "type": "IoT", "category": "Knowledge Query",
     "text": "Which assets are installed at site EAST?",
     "characteristic_form": "The response should list the assets of site EAST (assets tool)."},
]


def test_two_disagreeing_judges_median_and_cohen_kappa() -> None:
    a = _judge("fake:a", [_reply(5, 5, 5, 5, 5), _reply(3, 3, 1, 5, 4)])
    b = _judge("fake:b", [_reply(4, 2, 5, 5, 1), _reply(3, 4, 1, 2, 4)])
    score = score_records(RECORDS, judges=[a, b])
    # Medians of two ratings are their mean.
    # s1: (5,4)=4.5, (5,2)=3.5, (5,5)=5, (5,5)=5, (5,1)=3
    # s2: (3,3)=3, (3,4)=3.5, (1,1)=1, (5,2)=3.5, (4,4)=4
    assert score.scenarios[0].judge_ratings == {
        "answerability": 4.5, "tool_usability": 3.5, "difficulty": 5.0,
        "characteristic_form": 5.0, "clarity": 3.0}
    # Points = weight * (rating - 1) / 4:
    # s1: 10*3.5/4 + 8*2.5/4 + 6*4/4 + 4*4/4 + 2*2/4 = 8.75 + 5 + 6 + 4 + 1 = 24.75
    # s2: 10*2/4 + 8*2.5/4 + 0 + 4*2.5/4 + 2*3/4 = 5 + 5 + 0 + 2.5 + 1.5 = 14.0
    assert score.scenarios[0].judge == pytest.approx(24.75)
    assert score.scenarios[1].judge == pytest.approx(14.0)
    assert score.part("judge").points == pytest.approx((24.75 + 14.0) / 2)
    # Levels (low 1-2, mid 3, high 4-5) over the 10 (scenario, dimension) items:
    # A: H H H H H | M M L H H      B: H L H H L | M H L L H
    # agree on items 1, 3, 4, 6, 8, 10: p_o = 6/10 = 0.6
    # A: H 7, M 2, L 1;  B: H 5, M 1, L 4 (of 10)
    # p_e = .7*.5 + .2*.1 + .1*.4 = .35 + .02 + .04 = .41
    # kappa = (.6 - .41) / (1 - .41) = .19 / .59 = 0.32203
    agreement = score.agreement
    assert agreement is not None
    assert agreement.statistic == "cohen"
    assert agreement.items == 10
    assert agreement.observed_agreement == pytest.approx(0.6)
    assert agreement.kappa == pytest.approx(0.19 / 0.59, abs=1e-4)


def test_three_judges_use_fleiss() -> None:
    judges = [_judge(f"fake:{k}", [_reply(5, 5, 5, 5, 5), _reply(1, 1, 1, 1, 1)])
              for k in "abc"]
    score = score_records(RECORDS, judges=judges)
    assert score.agreement is not None
    assert score.agreement.statistic == "fleiss"
    # Perfect agreement over two levels (5 items high, 5 low): P_bar = 1, p_e = .5, kappa 1.
    assert score.agreement.kappa == pytest.approx(1.0)


def test_unparseable_verdict_is_unscored_with_a_reason_not_zero() -> None:
    a = _judge("fake:a", ["I think this scenario is fine.", _reply(5, 5, 5, 5, 5)])
    b = _judge("fake:b", ["{not json", _reply(1, 1, 1, 1, 1)])
    score = score_records(RECORDS, judges=[a, b])
    assert len(score.unscored) == 2
    assert all(v.unscored_reason and "JSON" in v.unscored_reason for v in score.unscored)
    # Scenario 1: no judge scored it, so no judge points (not zero) and it is left out.
    assert score.scenarios[0].judge is None
    assert score.scenarios[1].judge == pytest.approx((30 + 0) / 2)  # median 3 everywhere
    assert score.part("judge").points == pytest.approx(15.0)
    assert "unscored" in score.part("judge").note


def test_one_judge_unscored_leaves_the_other() -> None:
    a = _judge("fake:a", ['{"answerability": {"rating": 9, "reason": "x"}}',
                          _reply(5, 5, 5, 5, 5)])
    b = _judge("fake:b", [_reply(3, 3, 3, 3, 3), _reply(5, 5, 5, 5, 5)])
    score = score_records(RECORDS, judges=[a, b])
    assert [v.judge for v in score.unscored] == ["fake:a"]
    assert score.scenarios[0].judge == pytest.approx(15.0)  # b alone: rating 3 everywhere
    # Agreement counts only items both judges scored: scenario 2's five.
    assert score.agreement is not None and score.agreement.items == 5


def test_self_judge_is_refused_unless_allowed(tmp_path: Path) -> None:
    records = [dict(RECORDS[0], provenance={"model": "openai:gpt-4o-mini"})]
    path = tmp_path / "set.json"
    path.write_text(json.dumps(records))
    judge = _judge("openai:gpt-4o-mini", [_reply(5, 5, 5, 5, 5)])
    with pytest.raises(UserError, match=r"generated this set.*--allow-self-judge"):
        score_path(path, judges=[judge])
    score = score_path(path, judges=[judge], allow_self_judge=True)
    assert score.judges == ["openai:gpt-4o-mini"]
    # A different model, or the template verbaliser, is not a self-judge.
    refuse_self_judge(["openai:gpt-4o"], "openai:gpt-4o-mini", allow=False)
    refuse_self_judge(["rules"], "none", allow=False)


def test_self_judge_from_the_run_manifest(tmp_path: Path) -> None:
    (tmp_path / "scenarios.json").write_text(json.dumps(RECORDS))
    (tmp_path / "manifest.json").write_text(json.dumps({"config": {"llm": "ollama:llama3.2"}}))
    with pytest.raises(UserError, match="generated this set"):
        score_path(tmp_path / "scenarios.json", judge="llm:ollama:llama3.2")


def test_judge_prompt_never_carries_reference_values() -> None:
    rec = dict(RECORDS[0], reference_answer={"fault_type": "SECRET-T3", "ppm": 123.456})
    a = _judge("fake:a", [_reply(5, 5, 5, 5, 5)])
    score_records([rec], judges=[a])
    model = a.client.model
    assert isinstance(model, ScriptedChatModel)
    prompt = model.prompts[0]
    assert "fault_type" in prompt and "SECRET-T3" not in prompt and "123.456" not in prompt
