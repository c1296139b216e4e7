"""Rubric and clarification grading: open scenarios and requests that need a question back.

Deterministic, like :mod:`eval.grade` (which calls in here): no LLM, no tool.

**Open scenarios** (a ``rubric`` on the record, ``deterministic: false``) are graded on the
rubric's facts, read from the answer's text (a dict answer is read as the text of its keys
and values) with the extractors of :mod:`eval.extract`:

- ``asset_id`` / ``id``: the token verbatim (whole token);
- ``fault_code``: an IEC 60599 code the text asserts (token or the fault's name);
- ``number``: an extracted number within the fact's tolerance (or the rounding the answer
  wrote, as for reference facts);
- ``date``: a day read within the fact's tolerance (in days) of the ISO day;
- ``label``: the label or one of its synonyms as whole words, not negated right before.

A forbidden claim is made when: ``phrase``: one of its patterns matches and the clause
before the match holds no negation ("we should NOT say nothing needs to be done");
``fault_code``: the text asserts one of its codes outside a negated clause ("not T3",
"rules out D2" do not count); ``number_outside``: a number written right after the claim's
words (within a few words) lies outside [low, high]. Whatever the rubric lists, an answer to
a question that says the day it is written on ("today is ...", "it's ...", "as of ...") makes
a forbidden claim when it names an event (a trip, an alarm, an order raised) dated after
that day (:func:`after_as_of`): it rests on records that did not exist yet. A plan whose
reference orders its ``steps`` and that numbers its items must put the first step in item 1
(:func:`first_step_late`, read with the family contract's ``steps`` phrasings).

Score = matched required / all required − ``forbidden_penalty`` × forbidden claims made,
clipped to [0, 1]; feasible (pass) when every required fact is stated and no forbidden claim
is made (``pass_rule: all_required_no_forbidden``).

**Clarification scenarios** (``reference_answer.clarification_needed: true`` with
``options``): the answer passes when it asks back (the dry run's clarifying-question reader,
or a question mark) and names every option, or says how many there are; score 0.5 when it
asks back without naming them, 0 when it just answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from functools import cache
from typing import Any

from pydantic import ValidationError

from eval.asset_words import asset_nouns_pattern
from eval.extract import extract, fault_code_spans, normalise_text, normalise_timestamp
from eval.model import Violation
from generator.generate.model import ForbiddenClaim, Rubric, RubricFact

Graded = tuple[bool, float, list[Violation], list[str]]

_NEGATED_CLAUSE = re.compile(
    r"\b(?:not|no|never|isn't|aren't|wasn't|don't|doesn't|didn't|cannot|can't|shouldn't|"
    r"without|neither|nor|rather than|instead of|unlike|rule out|rules out|ruled out|"
    r"excludes?|excluding|against|clear of|away from|short of)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.;:!?,()\n]|\b(?:but|while|whereas|so|and)\b")
_NUMBER_AFTER = r"(?:\s+(?:is|of|=|was|at|about|around|approximately|:|now|stands at))*\s*[:=]?\s*"
_NUMBER = r"(?P<x>-?\d+(?:\.\d+)?)"
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10,
}


def _clause_before(text: str, start: int, limit: int = 40) -> str:
    """The text of the clause that holds ``start``, up to ``start`` (at most ``limit``)."""
    lo = max(0, start - limit)
    head = text[lo:start]
    ends = list(_CLAUSE_END.finditer(head))
    return head[ends[-1].end():] if ends else head


def negated_at(text: str, start: int) -> bool:
    """True when the clause before offset ``start`` holds a negation."""
    return _NEGATED_CLAUSE.search(_clause_before(text, start)) is not None


# A class named as the name of a thing: a row or zone of a method's table, a test or a
# measurement for it ("the PD row", "a partial-discharge measurement").
_CLASS_AS_NAME = re.compile(
    r"[\w-]*(?:\s+discharges?)?[\s/-]+(?:[\w-]+\s+)?(?:rows?|zones?|regions?|areas?|boundar"
    r"(?:y|ies)|limits?|box(?:es)?|tests?|testing|measurements?|monitor(?:s|ing)?|surveys?|"
    r"detectors?|checks?)\b", re.IGNORECASE)
# A class named as one of a list of tests ("plan electrical tests (PD, winding checks)",
# "field measurements such as PD and tan delta"): the test for it, not a diagnosis.
_CLASS_AS_TEST_ITEM = re.compile(
    r"\b(?:tests?|testing|measurements?|checks?|monitoring|surveys?)\s*(?:\(|:|,?\s+(?:such as|"
    r"like|including|e\.g\.,?))\s*(?:[^().;:]*,\s*)?$", re.IGNORECASE)
# A class raised as a hypothesis beside the methods' findings, not as what one gives.
_CLASS_AS_HYPOTHESIS = re.compile(
    r"\b(?:possibilit(?:y|ies)|candidates?|hypothes[ie]s|alternative explanations?)\b",
    re.IGNORECASE)


def _not_asserted(text: str, at: int) -> bool:
    """True when the fault class named at ``at`` names a table row or zone, a test or a
    measurement, or is raised as a possibility in its clause: it asserts no diagnosis."""
    if _CLASS_AS_NAME.match(text, at) or _CLASS_AS_TEST_ITEM.search(text, max(0, at - 80), at):
        return True
    ends = _CLAUSE_END.search(text, at + 2)
    clause = text[at:ends.start() if ends else len(text)]
    return _CLASS_AS_HYPOTHESIS.search(clause) is not None


_NOT_CONTRACTED = re.compile(r"\b(is|are|was|were|does|do|did|has|have|had)n['’]t\b",
                             re.IGNORECASE)


def rubric_of(scenario: Mapping[str, Any]) -> Rubric | None:
    """The scenario's rubric, or None when it carries none.

    Raises:
        ValueError: the record carries a rubric that does not validate.
    """
    raw = scenario.get("rubric")
    if raw is None:
        return None
    try:
        return Rubric.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(f"malformed rubric: {exc.errors()[0]['msg']}") from exc


def _token_in(token: str, text: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", text) is not None


def _label_in(fact: RubricFact, norm: str) -> bool:
    for word in [str(fact.expected), *fact.synonyms]:
        needle = normalise_text(word)
        for m in re.finditer(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", norm):
            before = norm[max(0, m.start() - 12):m.start()].split()
            prev = before[-1] if before else ""
            if prev in ("not", "no", "non") and not needle.startswith(("not", "no ")):
                continue
            if prev == "very" and not needle.startswith("very"):
                continue  # "very poor" is not the band "poor"
            return True
    return False


def _number_in(fact: RubricFact, text: str) -> bool:
    expected = float(fact.expected)
    ex = extract(text)
    for q in ex.numbers:
        if abs(q.value - expected) <= fact.tolerance + 1e-9:
            return True
        if q.decimals and q.sig_digits >= 2 and abs(q.value - expected) <= 0.5 * 10.0 ** (
            -q.decimals
        ) + 1e-12:
            return True
    if expected.is_integer() and 0 <= expected <= 10:
        words = [w for w, n in _NUMBER_WORDS.items() if n == int(expected)]
        return any(re.search(rf"\b{w}\b", text, re.IGNORECASE) for w in words)
    return False


def fact_found(fact: RubricFact, text: str) -> bool:
    """True when the answer text states the required fact (see the module docstring).

    Read with :mod:`eval.reader` as the contract grader reads facts: numbers in words or
    with units, dates in the forms people write, labels by their synonyms and not negated,
    a fault class by its code or its name.
    """
    from eval.grade_contract import Context, match_fact
    from eval.reader import read
    from generator.contract import AnswerContract, FactSpec

    if fact.kind == "date":
        stamp = normalise_timestamp(str(fact.expected))
        if stamp is None:
            return False
        want = date.fromisoformat(stamp[0])
        year = want.year
        return any(abs((date.fromisoformat(w.day) - want).days) <= fact.tolerance
                   for w in read(text, year=year).whens)
    if fact.kind in ("asset_id", "id"):
        spec = FactSpec(key=fact.id, kind="id")
        vocab: dict[str, list[str]] = {}
    elif fact.kind == "number":
        spec = FactSpec(key=fact.id, kind="quantity")
        vocab = {}
    elif fact.kind == "fault_code":
        from eval.answer_text import FAULT_NAMES

        spec = FactSpec(key=fact.id, kind="label")
        vocab = {code: [name] for code, name in FAULT_NAMES.items()}
    else:
        spec = FactSpec(key=fact.id, kind="label",
                        labels={str(fact.expected): list(fact.synonyms)})
        vocab = {}
        text = _NOT_CONTRACTED.sub(r"\1 not", text)  # "isn't due" says "not due"
    ctx = Context(read(text), read(""), AnswerContract(family="rubric", facts=[spec]),
                  {fact.id: fact.tolerance}, {}, bind=False)
    parts = match_fact(ctx, spec, fact.expected, vocab)
    return bool(parts) and all(p.ok for p in parts)


def claim_made(claim: ForbiddenClaim, text: str) -> str | None:
    """The words of the forbidden claim the answer makes, or None."""
    if claim.kind == "phrase":
        for pattern in claim.patterns:
            for m in re.finditer(pattern, text, re.IGNORECASE):
                if not negated_at(text, m.start()):
                    return m.group(0)
        return None
    if claim.kind == "fault_code":
        for code, at in fault_code_spans(text):
            if code in claim.codes and not negated_at(text, at) and not _not_asserted(text, at):
                return code
        return None
    for words in claim.near:
        pattern = (r"\b" + r"[\s_-]+".join(re.escape(w) for w in words.split())
                   + r"(?:\s+\w+){0,2}?" + _NUMBER_AFTER + _NUMBER + r"(?![\d\-:T])")
        for m in re.finditer(pattern, text, re.IGNORECASE):
            x = float(m.group("x"))
            if (claim.low is not None and x < claim.low) or (
                claim.high is not None and x > claim.high
            ):
                return m.group(0).strip()
    return None


# The question asks what to do: the answer owes a recommendation, whatever the rubric lists.
_ASKS_ACTION = re.compile(
    r"\bwhat (?:should|must|do|shall|would you have) (?:i|we)\b[^.?]{0,20}\bdo\b|\bwhat to do\b|"
    r"\bhow (?:to|should (?:i|we)|do (?:i|we)) (?:act|proceed|respond|handle)\b|"
    r"\brecommend\w*\b|\bwhat action\b|\bnext steps?\b", re.IGNORECASE)
# A recommendation: an action proposed, advised or put first.
_RECOMMENDS = re.compile(
    r"\b(?:recommend\w*|advis\w+|suggest\w*|should|must|need(?:s)? to|ought to|"
    r"re-?sample|re-?test|sample|schedule|plan|check|inspect|investigate|monitor|measure|"
    r"arrange|consider|keep|reduce|remove|replace|repair|trend|track|watch|do an?|carry out|"
    r"take|get|send|book|raise|call|bundle|include|combine|fold|put|add|go(?:es)? into|"
    r"action|next step|first|priorit\w+)\b", re.IGNORECASE)


def _recommendation_missing(question: str, text: str) -> Violation | None:
    """A missing fact when the question asks what to do and the answer proposes nothing."""
    if not _ASKS_ACTION.search(question) or _RECOMMENDS.search(text):
        return None
    return Violation(name="missing_fact", path="recommendation", expected="an action",
                     message="the question asks what to do, but the answer recommends nothing")


# An event that has happened (not a plan): its noun right after the day ("the 1 July
# temperature trip"), or its noun or verb right before ("tripped on 1 July", "the alarm of
# 3 July", "raised on 2 July").
_EVENT_NOUN = (r"(?:trip|trips|tripped|alarms?|alerts?|faults?|failures?|incidents?|events?|"
               r"breakdowns?|fires?)")
_EVENT_AFTER = re.compile(rf"(?:\s+[\w/-]+){{0,2}}?\s+{_EVENT_NOUN}\b", re.IGNORECASE)
_EVENT_BEFORE = re.compile(
    rf"\b(?:{_EVENT_NOUN}|raised|reported|logged|occurred|happened|fired|opened)\s+"
    r"(?:[\w/-]+\s+){0,2}?(?:on|of|at|dated|from)\s+(?:the\s+)?$", re.IGNORECASE)


def after_as_of(question: str, text: str) -> Violation | None:
    """A forbidden claim when the answer names an event (a trip, an alarm, an order raised)
    dated after the day the question is written on (:func:`eval.reader.stated_now`: "today
    is ...", "it's ...", "as of ..."): the writer cannot know of it yet, so a plan resting
    on it rests on records that did not exist then. Plans and due dates after that day
    ("the outage on 4 July", "due 5 July") are no events."""
    from eval.reader import read, stated_now

    now = stated_now(question)
    if now is None:
        return None
    for w in read(text, year=int(now[:4])).whens:
        if w.day <= now or negated_at(text, w.start):
            continue
        if _EVENT_AFTER.match(text, w.end) or _EVENT_BEFORE.search(
                text, max(0, w.start - 40), w.start):
            said = text[w.start:w.end]
            return Violation(
                name="forbidden_claim", path="as_of", given=said,
                message=f"forbidden claim 'after_as_of' made ({said!r}): the question is "
                f"written on {now}, so an event dated after it is not on record yet")
    return None


# A numbered item of a list: "1." / "1)" / "(1)" after a space, a colon or a line start, or a
# table row opening with its number ("| 1 | ...").
_ITEM = re.compile(r"(?:(?<=[\s:;(*])|^)\(?(\d{1,2})[.)](?=\s)|^\|\s*(\d{1,2})\s*\|",
                   re.MULTILINE)


def numbered_items(text: str) -> list[tuple[int, int]]:
    """The spans of a list's items numbered 1, 2, 3, ... in order (a number out of turn, a
    date's "3." or a second list's "1.", is no item of it); [] without two of them."""
    marks: list[re.Match[str]] = []
    for m in _ITEM.finditer(text):
        if int(m.group(1) or m.group(2)) == len(marks) + 1:
            marks.append(m)
    if len(marks) < 2:
        return []
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [(m.end(), end) for m, end in zip(marks, ends, strict=True)]


def first_step_late(scenario: Mapping[str, Any], text: str) -> Violation | None:
    """A plan that numbers its items must put first the reference's first step (its ordered
    ``steps``, said in the words of the family contract's ``steps`` fact): a wrong answer
    when that step is written only in a later item, after an action the reference does not
    put first ("1) reclaim the oil, 2) resample the DGA" when the DGA finding comes first)."""
    from eval.grade_contract import Context, _label_spans, label_phrasings
    from eval.reader import read
    from generator.contract import contract_of_record

    reference = scenario.get("reference_answer")
    steps = reference.get("steps") if isinstance(reference, Mapping) else None
    contract = contract_of_record(scenario)
    fact = contract.fact("steps") if contract is not None else None
    if contract is None or not isinstance(steps, list) or not steps or fact is None \
            or not fact.ordered:
        return None
    items = numbered_items(text)
    if not items:
        return None
    ctx = Context(read(text), read(str(scenario.get("text") or "")), contract, {}, {},
                  bind=False)
    spans = _label_spans(ctx, label_phrasings(fact, str(steps[0]), {}))
    where = {i for a, _ in spans for i, (lo, hi) in enumerate(items) if lo <= a < hi}
    if not where or 0 in where:
        return None
    head = text[items[0][0]:items[0][1]].strip()[:60]
    return Violation(name="forbidden_claim", path="steps", expected=steps[0], given=head,
                     message=f"the plan puts {head!r} first, but the first step is "
                     f"{steps[0]!r}, written only in item {min(where) + 1}")


def grade_rubric(rubric: Rubric, text: str, question: str = "") -> Graded:
    """(feasible, score, violations, evidence) of an answer text against a rubric; with
    the ``question``, an answer to one that asks what to do must also recommend an action."""
    violations: list[Violation] = []
    evidence: list[str] = ["graded with the rubric (open scenario)"]
    found = 0
    unadvised = _recommendation_missing(question, text)
    if unadvised is not None:
        violations.append(unadvised)
    for fact in rubric.required:
        if fact_found(fact, text):
            found += 1
            evidence.append(f"required {fact.id}: {fact.expected!r} stated")
        else:
            violations.append(Violation(
                name="missing_fact", path=fact.key, expected=fact.expected,
                message=f"required fact {fact.id!r} ({fact.expected!r}) not stated: {fact.why}",
            ))
    made = 0
    for claim in rubric.forbidden:
        words = claim_made(claim, text)
        if words is None:
            continue
        made += 1
        violations.append(Violation(
            name="forbidden_claim", path=claim.id, given=words,
            message=f"forbidden claim {claim.id!r} made ({words!r}): {claim.why}",
        ))
    future = after_as_of(question, text)
    if future is not None:
        made += 1
        violations.append(future)
    if made == 0 and rubric.forbidden:
        evidence.append("no forbidden claim made")
    score = found / (len(rubric.required) + (unadvised is not None)) \
        - rubric.forbidden_penalty * made
    feasible = found == len(rubric.required) and made == 0 and unadvised is None
    return feasible, 1.0 if feasible else round(min(1.0, max(0.0, score)), 6), violations, \
        evidence


# -- clarification ---------------------------------------------------------------------------


def needs_clarification(scenario: Mapping[str, Any]) -> bool:
    """True when the reference says the request must be answered with a question back."""
    ref = scenario.get("reference_answer")
    return isinstance(ref, dict) and ref.get("clarification_needed") is True


@cache
def clarify_re() -> re.Pattern[str]:
    """A question back to the operator: "could you clarify", "which unit do you mean" (the
    unit named by any asset class's noun), "do you mean", "did you mean"."""
    return re.compile(
        r"\b(?:could|can|would) you (?:please )?(?:clarify|specify|confirm|provide|tell me|let "
        r"me know|say)|\bplease (?:clarify|specify|provide|confirm)\b|\bwhich (?:asset|unit|"
        + asset_nouns_pattern() + r"|site|sensor|date|period|one|option) (?:do|did) you mean\b"
        r"|\b(?:do|did) you mean\b|\bwhich (?:of (?:these|them|the)\b|one\b)"
        # "Need a clarification before answering": upstream's way of asking back.
        r"|\b(?:need|needs|require|requires) (?:a |some |your )?clarification\b"
        r"|\bclarification (?:is )?(?:needed|required)\b",
        re.IGNORECASE,
    )


def asks_back(text: str) -> bool:
    """True when the text asks the operator a question back."""
    return clarify_re().search(text) is not None or "?" in text


def _option_named(option: Any, text: str, norm: str,
                  names: Mapping[str, str] | None = None) -> bool:
    value = str(option)
    if re.search(r"[A-Z0-9]", value) and _token_in(value, text):
        return True
    synonyms = [names[value]] if names and value in names else []
    return _label_in(RubricFact(id="option", key="options", kind="label", expected=value,
                                synonyms=synonyms, why="an option"), norm)


@cache
def sensor_names(asset_class: str) -> dict[str, str]:
    """Each sensor of an asset class by what it measures, in words: its description up to
    any parenthesis ("il1" -> "Phase 1 current"); {} for an unknown class."""
    from generator.assetdef import load_asset_class
    from generator.errors import UserError

    try:
        sensors = load_asset_class(asset_class).sensors
    except (UserError, OSError, ValueError):
        return {}
    return {s.name: s.description.split("(")[0].strip() for s in sensors}


def grade_clarification(scenario: Mapping[str, Any], text: str,
                        structured: Mapping[str, Any] | None = None) -> Graded:
    """(feasible, score, violations, evidence) of an answer to an ambiguous request.

    A structured answer (a JSON object) with ``clarification_needed: true`` asks back; its
    ``options`` are then read as the options it names.
    """
    ref = scenario.get("reference_answer") or {}
    raw = ref.get("options")
    options: list[Any] = raw if isinstance(raw, list) else []
    norm = normalise_text(text)
    violations: list[Violation] = []
    evidence: list[str] = ["graded as a clarification request"]
    flagged = structured is not None and structured.get("clarification_needed") is True
    if not flagged and not asks_back(text):
        violations.append(Violation(
            name="no_clarification", path="", expected="a question back",
            given=text[:200], message="the request is ambiguous "
            f"({ref.get('ambiguity', 'see the scenario')}) but the answer does not ask back"))
        return False, 0.0, violations, evidence
    evidence.append("the answer asks back")
    asset_class = scenario.get("asset_class")
    names = sensor_names(asset_class) if isinstance(asset_class, str) else {}
    named = [o for o in options if _option_named(o, text, norm, names)]
    # An option offered that the reference does not hold (a third order of the same kind)
    # is a wrong question back.
    shapes = {re.sub(r"\d+$", "", str(o)) for o in options if re.search(r"[A-Z]-", str(o))}
    extra = sorted({t for t in re.findall(r"(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+", text)
                    if re.sub(r"\d+$", "", t) in shapes and t not in {str(o) for o in options}})
    if extra:
        violations.append(Violation(
            name="wrong_option", path="options", expected=options, given=extra,
            message=f"the answer offers options the data does not hold: {extra[:5]}"))
        return False, 0.5, violations, evidence
    count_said = bool(options) and _number_in(RubricFact(
        id="n_options", key="options", kind="number", expected=float(len(options)),
        why="how many options"), text)
    if not options or len(named) == len(options) or count_said:
        evidence.append("names the options" if len(named) == len(options) and options
                        else "says how many options there are" if count_said
                        else "no options to name")
        return True, 1.0, violations, evidence
    missing = [o for o in options if o not in named]
    violations.append(Violation(
        name="options_not_named", path="options", expected=options, given=named,
        message=f"the answer asks back but names {len(named)} of {len(options)} options "
        f"(missing {missing[:5]}) and does not say how many there are"))
    return False, 0.5, violations, evidence
