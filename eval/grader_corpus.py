"""The labelled answer corpus and the grader's benchmark on it (`scenariogen bench grader`).

The corpus (``tests/fixtures/grader_corpus/<class>/<family>.json``) holds, per task family,
the scenario records it answers and answers written by hand from each scenario's text and
the raw data, each labelled ``right`` (an expert accepts it) or ``wrong`` (an expert
rejects it), with the style it was written in or the flaw it carries. The benchmark grades
every answer with :func:`eval.grade.grade` and counts, per family, domain and class, the
share of right answers scored 1 and of wrong answers scored below 1, and lists every
disagreement with the grader's reasons.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator import safeparse
from generator.config import PROJECT_ROOT
from generator.errors import UserError

if TYPE_CHECKING:
    from eval.answer_judge_llm import LLMAnswerJudge

CORPUS_DIR = PROJECT_ROOT / "tests" / "fixtures" / "grader_corpus"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CorpusAnswer(_Strict):
    """One hand-written answer and its label."""

    id: str = Field(description="<family>/r<N> (right) or <family>/w<N> (wrong)")
    scenario: str = Field(description="Id of the scenario record it answers")
    label: Literal["right", "wrong"] = Field(description="What an expert says of it")
    style: str | None = Field(default=None, description="How a right answer is written")
    flaw: str | None = Field(default=None, description="What makes a wrong answer wrong")
    answer: Any = Field(description="The answer: text, or a JSON object")
    note: str = Field(default="", description="How it was worked out / what is wrong")


class CorpusFile(_Strict):
    """One family's items."""

    family: str = Field(description="The task family")
    asset_class: str = Field(description="Its asset class")
    remarks: str = Field(default="", description="What the writer noticed")
    batch: int = Field(default=1, ge=1, description="Held-out batch it was written in")
    scenarios: list[dict[str, Any]] = Field(min_length=1, description="The records answered")
    answers: list[CorpusAnswer] = Field(min_length=1, description="The labelled answers")


class Tally(_Strict):
    """Agreement of the grader with the labels over a group of answers."""

    right: int = 0
    right_ok: int = 0
    wrong: int = 0
    wrong_ok: int = 0

    def add(self, label: str, score: float) -> None:
        """Count one answer."""
        if label == "right":
            self.right += 1
            self.right_ok += score >= 1.0
        else:
            self.wrong += 1
            self.wrong_ok += score < 1.0

    @property
    def right_rate(self) -> float | None:
        """Share of right answers scored 1."""
        return self.right_ok / self.right if self.right else None

    @property
    def wrong_rate(self) -> float | None:
        """Share of wrong answers scored below 1."""
        return self.wrong_ok / self.wrong if self.wrong else None


class Disagreement(_Strict):
    """An answer the grader scored against its label."""

    id: str
    family: str
    label: str
    style_or_flaw: str | None
    score: float
    reasons: list[str]
    answer: str


class JudgeAgreement(_Strict):
    """How one judge of open answers agrees with the hand labels."""

    judge: str = Field(description="rules, or an LLM judge's label")
    items: int = Field(description="Open answers judged")
    unscored: int = Field(description="Answers the judge gave no usable verdict on")
    tally: Tally = Field(description="Right answers passed, wrong answers failed")

    @property
    def agreement(self) -> float | None:
        """Share of scored answers whose verdict matches the label."""
        n = self.tally.right + self.tally.wrong
        return (self.tally.right_ok + self.tally.wrong_ok) / n if n else None


class GraderBenchReport(_Strict):
    """What `bench grader` prints."""

    judges: list[JudgeAgreement] = Field(
        default_factory=list, description="Agreement of each judge on the open answers")
    overall: Tally
    by_class: dict[str, Tally]
    by_domain: dict[str, Tally]
    by_family: dict[str, Tally]
    disagreements: list[Disagreement]


def load_corpus(root: Path = CORPUS_DIR) -> list[CorpusFile]:
    """Every family file under ``root`` (``<class>/<family>.json``), validated.

    Raises:
        UserError: The folder is missing or empty, or a file is not a valid corpus file.
    """
    if not root.is_dir():
        raise UserError(f"grader corpus folder {root} does not exist",
                        fix="give --corpus a folder of <class>/<family>.json files")
    out = []
    for path in sorted(root.glob("*/*.json")):
        try:
            data = safeparse.loads(path.read_text(encoding="utf-8"), safeparse.FILE)
            item = CorpusFile.model_validate(data)
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0][:200]
            raise UserError(f"corpus file {path} is not valid: {first}",
                            fix="see eval/grader_corpus.py for the layout") from None
        ids = {str(s.get("id")) for s in item.scenarios}
        if len(ids) != len(item.scenarios):
            raise UserError(f"corpus file {path}: two scenario records share an id",
                            fix="keep one record per scenario id in a family file")
        missing = [a.id for a in item.answers if a.scenario not in ids]
        if missing:
            raise UserError(f"corpus file {path}: answers {missing[:3]} name scenarios the "
                            f"file does not hold (it holds {sorted(ids)})",
                            fix="copy the answered scenario records into `scenarios`")
        out.append(item)
    if not out:
        raise UserError(f"grader corpus folder {root} holds no <class>/<family>.json file",
                        fix="give --corpus the corpus folder")
    return out


def run_corpus(files: list[CorpusFile], family: str | None = None,
               judges: Sequence[LLMAnswerJudge] = ()) -> GraderBenchReport:
    """Grade every answer of the corpus and tally the agreement with its label; with
    ``judges``, also have each LLM judge grade the open answers (rubric scenarios)."""
    from eval.grade import grade, scenario_domain
    from eval.grade_rubric import rubric_of

    open_items: list[tuple[dict[str, Any], Any, str, str]] = []
    rules = JudgeAgreement(judge="rules", items=0, unscored=0, tally=Tally())

    overall = Tally()
    by_class: dict[str, Tally] = defaultdict(Tally)
    by_domain: dict[str, Tally] = defaultdict(Tally)
    by_family: dict[str, Tally] = defaultdict(Tally)
    disagreements = []
    for item in files:
        if family is not None and item.family != family:
            continue
        records = {str(s.get("id")): s for s in item.scenarios}
        for a in item.answers:
            record = records[a.scenario]
            result = grade(record, a.answer)
            for tally in (overall, by_class[item.asset_class],
                          by_domain[scenario_domain(record)], by_family[item.family]):
                tally.add(a.label, result.score)
            if record.get("rubric") is not None:
                rules.items += 1
                rules.tally.add(a.label, result.score)
                text = a.answer if isinstance(a.answer, str) else json.dumps(a.answer)
                open_items.append((record, rubric_of(record), text, a.label))
            agrees = (result.score >= 1.0) == (a.label == "right")
            if not agrees:
                reasons = [v.message for v in result.violations] or result.evidence[1:7]
                text = a.answer if isinstance(a.answer, str) else json.dumps(a.answer)
                disagreements.append(Disagreement(
                    id=a.id, family=item.family, label=a.label,
                    style_or_flaw=a.style if a.label == "right" else a.flaw,
                    score=result.score, reasons=reasons[:6], answer=str(text)[:400]))
    agreements = [rules] if rules.items else []
    for judge in judges:
        verdicts = asyncio.run(judge.grade([(r, rb, t) for r, rb, t, _ in open_items]))
        row = JudgeAgreement(judge=judge.label, items=len(open_items), unscored=0,
                             tally=Tally())
        for (_r, _rb, _t, label), v in zip(open_items, verdicts, strict=True):
            if not v.scored:
                row.unscored += 1
                continue
            row.tally.add(label, 1.0 if v.feasible else 0.0)
        agreements.append(row)
    return GraderBenchReport(judges=agreements, overall=overall,
                             by_class=dict(sorted(by_class.items())),
                             by_domain=dict(sorted(by_domain.items())),
                             by_family=dict(sorted(by_family.items())),
                             disagreements=disagreements)


def _pct(rate: float | None) -> str:
    return "   -  " if rate is None else f"{100 * rate:5.1f}%"


def render(report: GraderBenchReport) -> str:
    """The report as the lines `bench grader` prints."""
    lines = ["group                                   right→1          wrong→<1"]

    def row(name: str, t: Tally) -> str:
        return (f"{name:<38} {_pct(t.right_rate)} ({t.right_ok}/{t.right})"
                f"   {_pct(t.wrong_rate)} ({t.wrong_ok}/{t.wrong})")

    lines.append(row("overall", report.overall))
    lines += [row(f"class {k}", t) for k, t in report.by_class.items()]
    lines += [row(f"domain {k}", t) for k, t in report.by_domain.items()]
    lines += [row(f"  {k}", t) for k, t in report.by_family.items()]
    for j in report.judges:
        rate = j.agreement
        lines.append(f"judge {j.judge} on {j.items} open answers: agreement "
                     f"{_pct(rate).strip()}, right passed {j.tally.right_ok}/{j.tally.right}, "
                     f"wrong failed {j.tally.wrong_ok}/{j.tally.wrong}, unscored {j.unscored}")
    lines.append(f"disagreements: {len(report.disagreements)}")
    for d in report.disagreements:
        lines.append(f"- {d.id} [{d.label}, {d.style_or_flaw}] score {d.score:.3f}: "
                     + "; ".join(d.reasons)[:300])
        lines.append(f"    answer: {d.answer[:200]!r}")
    return "\n".join(lines)
