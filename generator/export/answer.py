"""``expected_answer`` (a string) and ``scoring_method`` for upstream's deterministic scorers.

Upstream's offline ``evaluate`` module (IBM/AssetOpsBench ``src/evaluation/evaluator.py``)
scores each scenario with the scorer its ``scoring_method`` names, else the default
``llm_judge``. The deterministic ones (read, not copied):

- ``numeric_match`` (``src/evaluation/scorers/code_based.py``): the first number in
  ``expected_answer`` against the first number in the answer, passing within the
  scenario's top-level ``tolerance`` (a number = absolute, or ``{"absolute", "relative"}``;
  default relative 0.01).
- ``exact_string_match`` (same file): the whole answer, whitespace-collapsed and
  lower-cased, equals ``expected_answer``; too strict for a sentence, so not used.
  ``numeric_match`` is not used either (see below).
- ``static_json`` (``src/evaluation/scorers/static_json.py``): ``expected_answer`` parsed
  as JSON and flattened to ``answer.<key>`` leaves; passes when every gold key is matched
  and the answer has no extra key (numbers compared with tolerance bands).

Upstream's ``scorers/__init__.py`` notes that the code-based scorers register only when
``code_based.install()`` is called, which the ``evaluate`` CLI (``src/evaluation/cli.py``)
does not do; ``static_json`` is the documented deterministic scorer
(``docs/static-json-evaluation.md``: JSON objects, arrays and count-only answers such as
"34" or "The answer is 34."). So every computed reference becomes ``static_json``: a
one-number reference (``{"count": 2}``) as the count-only string "2", any other as compact
JSON of the reference object. An unanswerable (negative) scenario or one without a computed
reference keeps the rubric scorer ``llm_judge`` (its refusal is judged against
``characteristic_form``), and so do open scenarios (``deterministic: false``: their reference
holds the computed facts, which a good answer states in its own words, and
``characteristic_form`` gains their rubric, see :func:`rubric_text`) and clarification
requests (``clarification_needed``: the answer is a question back). Our own grader
(``eval.grade``) stays the finer measure: it reads free text, units and per-key tolerances,
and grades open scenarios on their rubric; the full reference travels in the ``scenariogen``
key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from generator.generate.model import ScenarioRecord

SCORING_METHODS = ("static_json", "llm_judge")


@dataclass(frozen=True)
class UpstreamAnswer:
    """What goes into the upstream fields of one record."""

    expected_answer: str | None
    scoring_method: str


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def upstream_answer(record: ScenarioRecord) -> UpstreamAnswer:
    """Pick the upstream scorer for a record and write its ``expected_answer``."""
    ref = record.reference_answer
    if ref is None or record.negative or ref.get("answerable") is False \
            or not record.deterministic or ref.get("clarification_needed") is True:
        text = json.dumps(ref, ensure_ascii=False) if ref is not None else None
        return UpstreamAnswer(expected_answer=text, scoring_method="llm_judge")
    if len(ref) == 1:
        (value,) = ref.values()
        if _is_number(value):
            return UpstreamAnswer(expected_answer=json.dumps(value),
                                  scoring_method="static_json")
    return UpstreamAnswer(
        expected_answer=json.dumps(ref, ensure_ascii=False, separators=(", ", ": ")),
        scoring_method="static_json",
    )


def rubric_text(record: ScenarioRecord) -> str:
    """An open scenario's rubric in words, for an LLM judge ("" without a rubric)."""
    rubric = record.rubric
    if rubric is None:
        return ""
    facts = "; ".join(f"{f.expected} ({f.why})" for f in rubric.required)
    claims = "; ".join(f.why for f in rubric.forbidden)
    text = f" Rubric: a passing answer states every one of: {facts}."
    if claims:
        text += f" It fails if it makes a claim these facts rule out: {claims}."
    return text
