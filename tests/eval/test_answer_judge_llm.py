"""The LLM judge of open answers: scored by the rubric's rule, agreement with the labels."""

from __future__ import annotations

import json
from typing import Any

from eval.answer_judge_llm import AnswerReply, LLMAnswerJudge, verdict_of
from eval.grade_rubric import rubric_of
from eval.grader_corpus import CORPUS_DIR, CorpusFile, load_corpus, run_corpus
from generator.generate.model import Rubric
from generator.llm.client import LLMClient
from generator.llm.fake import ScriptedChatModel


def _open_family() -> tuple[dict[str, Any], list[CorpusFile]]:
    files = [f for f in load_corpus(CORPUS_DIR) if f.family == "open_health_drivers"]
    assert files, "the corpus holds open_health_drivers"
    return files[0].scenarios[0], files


def _reply(rubric: Rubric | None, stated: bool, made: bool) -> str:
    assert rubric is not None
    return json.dumps({"required": [{"id": f.id, "yes": stated} for f in rubric.required],
                       "forbidden": [{"id": c.id, "yes": made} for c in rubric.forbidden]})


def test_verdict_follows_the_rubric_rule() -> None:
    record, _ = _open_family()
    rubric = rubric_of(record)
    assert rubric is not None
    good = verdict_of(rubric, AnswerReply.model_validate_json(_reply(rubric, True, False)))
    assert good.scored and good.feasible and good.score == 1.0
    bad = verdict_of(rubric, AnswerReply.model_validate_json(_reply(rubric, True, True)))
    assert bad.scored and not bad.feasible
    partial = AnswerReply.model_validate({"required": [], "forbidden": []})
    assert not verdict_of(rubric, partial).scored


def test_bench_reports_each_judge_agreement_with_the_labels() -> None:
    record, files = _open_family()
    rubric = rubric_of(record)
    assert rubric is not None
    answers = [a for f in files for a in f.answers]
    # A judge that passes every answer: it agrees on the right ones only; one reply garbled.
    replies = ["not json"] + [_reply(rubric_of(next(
        s for s in files[0].scenarios if str(s["id"]) == a.scenario)), True, False)
        for a in answers[1:]]
    client = LLMClient.from_model(ScriptedChatModel(replies), label="fake:yes",
                                  concurrency=1)
    report = run_corpus(files, judges=[LLMAnswerJudge("fake:yes", client=client)])
    rows = {j.judge: j for j in report.judges}
    assert set(rows) == {"rules", "fake:yes"}
    llm = rows["fake:yes"]
    assert llm.items == len(answers) and llm.unscored == 1
    assert llm.tally.right_ok == llm.tally.right and llm.tally.wrong_ok == 0
    assert rows["rules"].agreement is not None and rows["rules"].agreement > 0.5
