"""Upstream's answer fields of one record: mode, ``expected_answer``, scorer, scoring metadata.

Upstream's offline ``evaluate`` module (IBM/AssetOpsBench ``src/evaluation/evaluator.py``)
scores each scenario with the scorer its ``scoring_method`` names, else the default
``llm_judge``; the deterministic one its CLI registers is ``static_json``
(``src/evaluation/scorers/static_json.py``; the newest we read is IBM commit 19ae5d62, PRs
#439 and #442). It knows three answer **modes**: a gold that is a one-key object
``{"response": ...}``, ``{"clarification": ...}`` or ``{"abstain": ...}`` is scored on the
answer being a one-key object with the same key whose text holds the gold's *required
terms* (its quoted phrases, its identifiers such as ``NORTH-TX04``, a few domain words
such as "date" or "pump", and a leading yes/no); any other gold is compared key by key
with the specs of ``evaluation_metadata.keys`` (see :mod:`generator.export.aob_keys`).

Every record gets its mode (``answer_mode``) and, whenever its answer is rule-checkable,
``static_json``:

- **response**, a deterministic scenario with a computed reference: the gold is the
  reference's asked keys (:func:`generator.export.aob_keys.static_gold`: tolerances as
  ranges, timestamps and sets with their specs in ``evaluation_metadata.keys``); a single
  asked whole count goes out as the bare number ("7"), static_json's count-only form;
- **clarification** (``clarification_needed``): ``{"clarification": "Which one do you
  mean: 'a', 'b'?"}``; the options, quoted, are the required terms, so the answer must ask
  back (the mode key) and name every option;
- **abstain** (a negative): ``{"abstain": "Cannot be answered from the store for X: <kind>."}``;
  the required term is the asset the question names (none when it names no asset), so the
  answer must refuse and say which asset it is about;
- an **open** scenario (``deterministic: false``, graded on a rubric with forbidden claims)
  stays with ``llm_judge``: its gold is ``{"response": ...}`` with the rubric's facts quoted
  (the facts a judge checks), and its ``characteristic_form`` states the rubric in words
  (:func:`rubric_text`).

Our own grader (``eval.grade``) stays the finer measure (free text, units, phrasings,
granularity, "says how many options"); the full reference travels as ``expected_result``
and in the ``scenariogen`` key. (``numeric_match`` / ``exact_string_match`` are not used:
the ``evaluate`` CLI does not register the code-based scorers.)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from generator.export.aob_keys import static_gold
from generator.generate.model import ScenarioRecord

SCORING_METHODS = ("static_json", "llm_judge")
AnswerMode = Literal["response", "clarification", "abstain"]


@dataclass(frozen=True)
class UpstreamAnswer:
    """What goes into the upstream fields of one record."""

    expected_answer: str | None
    scoring_method: str
    answer_mode: AnswerMode = "response"
    evaluation_metadata: dict[str, Any] | None = None
    answer_keys: list[str] = field(default_factory=list)


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def answer_mode(record: ScenarioRecord) -> AnswerMode:
    """response, clarification or abstain: what a correct answer does."""
    ref = record.reference_answer or {}
    if record.negative or ref.get("answerable") is False:
        return "abstain"
    if ref.get("clarification_needed") is True:
        return "clarification"
    return "response"


def _quoted(value: object) -> str:
    # Upstream reads a quoted phrase of 2-80 characters as a required term.
    return "'" + re.sub(r"[\"'“”‘’]", "", str(value))[:80] + "'"


def clarification_text(record: ScenarioRecord) -> str:
    """The gold of a clarification: the options, quoted (each a required term)."""
    options = (record.reference_answer or {}).get("options") or []
    if not isinstance(options, list) or not options:
        return "Which one do you mean?"
    return "Which one do you mean: " + ", ".join(_quoted(o) for o in options) + "?"


def abstain_text(record: ScenarioRecord) -> str:
    """The gold of a refusal: the asset it is about is its one required term."""
    ref = record.reference_answer or {}
    kind = str(ref.get("kind") or "not answerable").replace("_", " ")
    asset = ref.get("asset_id") or record.grounding.get("asset_id")
    about = f" for {asset}" if asset else ""
    return f"Cannot be answered from the store{about}: {kind}."


def _open_text(record: ScenarioRecord) -> str:
    rubric = record.rubric
    if rubric is None:
        return record.characteristic_form
    return "; ".join(f"{f.key}: {_quoted(f.expected)}" for f in rubric.required)


def _one(mode: str, text: str) -> str:
    return json.dumps({mode: text}, ensure_ascii=False)


def upstream_answer(record: ScenarioRecord) -> UpstreamAnswer:
    """Pick the upstream mode and scorer for a record and write its gold."""
    ref = record.reference_answer
    mode = answer_mode(record)
    if mode == "abstain":
        return UpstreamAnswer(_one("abstain", abstain_text(record)), "static_json", mode,
                              {"keys": {}})
    if mode == "clarification":
        return UpstreamAnswer(_one("clarification", clarification_text(record)),
                              "static_json", mode, {"keys": {}})
    if ref is None or not record.deterministic:
        text = _one("response", _open_text(record)) if ref is not None else None
        return UpstreamAnswer(text, "llm_judge", mode)
    gold = static_gold(record)
    meta: dict[str, Any] = {"keys": gold.keys}
    if gold.not_expressible:
        meta["not_expressible"] = gold.not_expressible
    keys = list(gold.answer)
    if len(gold.answer) == 1 and not gold.keys:
        (value,) = gold.answer.values()
        if _is_number(value) and isinstance(value, int):
            return UpstreamAnswer(json.dumps(value), "static_json", mode, meta, [])
    return UpstreamAnswer(
        json.dumps(gold.answer, ensure_ascii=False, separators=(", ", ": ")),
        "static_json", mode, meta, keys,
    )


def output_format(ans: UpstreamAnswer) -> str:
    """The answer format a question states (upstream's suite questions state theirs).

    The same three choices for every record, so the format does not tell which mode is
    right; an answerable record also names its keys (or asks for the number alone).
    """
    if ans.answer_mode == "response" and ans.scoring_method == "static_json":
        shape = ("the number alone" if not ans.answer_keys else
                 "one JSON object with exactly the keys " + ", ".join(ans.answer_keys))
        answer = f"If it can be answered, reply with {shape}."
    else:
        answer = "If it can be answered, reply with {\"response\": \"<your answer>\"}."
    return (f"{answer} If the request is ambiguous, reply with "
            "{\"clarification\": \"<your question back>\"}. If it cannot be answered from "
            "the data, reply with {\"abstain\": \"<why>\"}.")


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
