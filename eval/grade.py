"""The answer grader: an answer against a scenario's computed reference, deterministically.

No LLM and no tool is involved: the grader reads the scenario's ``reference_answer``,
``tolerance`` and ``rel_tolerance`` and the answer, nothing else.

**Facts.** The reference is flattened into leaf facts: every scalar (string, number,
bool) under a dict key or list index. A list of scalars is a *set* of facts (matched in any
order, each given element used once); a list of dicts is matched position by position. An
empty list is one fact ("nothing": matched by an empty list, or in text by no / none / zero /
nothing / empty); ``null`` leaves carry no fact and are skipped.

**Score.** Every top-level key that holds at least one fact weighs the same, ``1/K``, and
shares its weight equally among its facts; ``score`` is the matched weight. So
``{"asset_id": "X", "readings": [5 numbers]}`` gives the asset id 1/2 and each reading
1/10. ``feasible`` means every fact matched (score 1).

**Answers.** A dict (or a string holding a JSON object, bare or in a code fence) that
shares a top-level key with the reference is *structured*: each fact is looked up at its
path (keys compared exactly, then case-insensitively). Anything else is *free text* (a
dict or list without shared keys is read as the text of its keys and values), and each fact
is searched for with :mod:`eval.extract`:

- numbers: any extracted number within tolerance; with a unit of the same dimension as the
  key's suffix (``_kv``, ``_mva``, ``_a``, ...) the converted value counts too, and a
  percentage also counts divided by 100 when the reference is a fraction in [-1, 1];
- timestamps / dates: the normalised timestamp (minute precision) or date must occur;
- IEC 60599 codes (PD, D1, D2, DT, T1, T2, T3, ND): must be among the codes read (token or
  the fault's name in words);
- booleans: a leading yes/no when the reference has exactly one boolean; otherwise a
  sentence naming the key's words is read as true, or false when it holds a negation;
- other strings: the normalised string as whole words, not preceded by a negation (``not``,
  ``no``, ``non``) or an intensifier (``very``) it does not itself contain; strings of more
  than four words match when 60 % of their content words occur.

**Tolerance** (shared with the generator, see contracts): a number passes when
``|e - a| <= tolerance[key]`` or ``|e - a| <= rel_tolerance[key] * |e|`` for its top-level
key; additionally a value written with ``d`` decimals and at least two significant digits
passes when it is the reference rounded to ``d`` decimals (``|e - a| <= 0.5·10^-d``).

**Negatives** (``negative: true`` or ``reference_answer.answerable == false``) are graded
on refusal, see :func:`grade_refusal`. **Open scenarios** (a ``rubric``) are graded on their
rubric's required facts and forbidden claims, and **clarification requests**
(``reference_answer.clarification_needed``) on asking back and naming the options; see
:mod:`eval.grade_rubric`. Every result says which way it was graded (``kind``).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from eval.answer_text import (
    FAULT_NAMES,
    MAX_DEPTH,
    MAX_NODES,
    refuses,
    safe_text,
)
from eval.extract import (
    FAULT_CODES,
    UNITS,
    Extracted,
    Quantity,
    extract,
    normalise_text,
    normalise_timestamp,
    precision,
)
from eval.model import ClassScore, EvaluationReport, GradeResult, Violation
from generator import safeparse
from generator.contract import AnswerContract, FactSpec, complete, contract_of_record
from generator.errors import UserError
from generator.generate.tolerance import within

_SHOWN = 200

# Key suffix → (canonical unit, factor of the key's unit to it): `load_mva` is in MVA.
_KEY_UNITS: dict[str, tuple[str, float]] = {
    "kv": ("V", 1e3), "v": ("V", 1.0), "ka": ("A", 1e3), "a": ("A", 1.0),
    "mva": ("VA", 1e6), "kva": ("VA", 1e3), "mw": ("W", 1e6), "kw": ("W", 1e3),
    "pct": ("%", 1.0), "percent": ("%", 1.0), "c": ("°C", 1.0), "ppm": ("ppm", 1.0),
    "hours": ("h", 1.0), "h": ("h", 1.0), "days": ("d", 1.0),
}
_DOMAIN_ALIASES = {
    "iot": "iot", "fmsr": "fmsr", "tsfm": "tsfm", "wo": "wo", "workorder": "wo",
    "work_order": "wo", "vibration": "vibration", "multiagent": "multiagent",
    "multi-agent": "multiagent", "multi_agent": "multiagent", "": "multiagent",
}
_NEGATION = re.compile(r"\b(?:not|no|non|never|without|none|isn't|aren't|wasn't|doesn't|"
                       r"didn't|cannot|can't|neither|nor|false)\b")
_STOPWORDS = frozenset({
    "the", "a", "an", "of", "to", "in", "on", "at", "for", "and", "or", "is", "are", "was",
    "were", "be", "by", "with", "from", "as", "it", "its", "this", "that", "any", "has",
    "have", "had", "flag", "status", "value",
})
_EMPTY_WORDS = re.compile(r"\b(?:no|none|zero|0|nothing|empty)\b")

# -- scenario fields ----------------------------------------------------------------------


def scenario_id(scenario: Mapping[str, Any], index: int | None = None) -> str:
    """The scenario's id as a string (upstream files use ints), or ``#index`` without one."""
    raw = scenario.get("id")
    if raw is None or isinstance(raw, dict | list):
        return f"#{index}" if index is not None else "#?"
    return str(raw)


def scenario_domain(scenario: Mapping[str, Any]) -> str:
    """The scenario's domain, normalised (``IoT`` → iot, empty → multiagent, absent → fmsr).

    Upstream FMSR records carry no ``type``; everything else unknown stays as written.
    """
    raw = scenario.get("type")
    if raw is None:
        return "fmsr"
    if not isinstance(raw, str):
        return "unknown"
    key = raw.strip().lower()
    return _DOMAIN_ALIASES.get(key, key)


def scenario_difficulty(scenario: Mapping[str, Any]) -> str:
    """``easy`` / ``medium`` / ``hard``, or ``unknown``."""
    raw = scenario.get("difficulty")
    return raw if raw in ("easy", "medium", "hard") else "unknown"


def is_negative(scenario: Mapping[str, Any]) -> bool:
    """True for an unanswerable scenario (flag, or a reference that says so)."""
    ref = scenario.get("reference_answer")
    return scenario.get("negative") is True or (
        isinstance(ref, dict) and ref.get("answerable") is False
    )


def _tolerances(scenario: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    def clean(raw: Any) -> dict[str, float]:
        if not isinstance(raw, dict):
            return {}
        out = {}
        for k, v in raw.items():
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
                out[str(k)] = abs(float(v))
        return out

    return clean(scenario.get("tolerance")), clean(scenario.get("rel_tolerance"))


# -- facts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """One leaf of the reference."""

    path: str
    keys: tuple[str | int, ...]
    top: str
    value: Any
    in_set: bool = False
    empty_list: bool = False


def _is_scalar(v: Any) -> bool:
    return isinstance(v, str | int | float | bool)


def facts_of(reference: Mapping[str, Any]) -> list[Fact]:
    """The reference's leaf facts (see the module docstring), in key order."""
    out: list[Fact] = []
    stack: list[tuple[tuple[str | int, ...], str, Any]] = [
        ((str(k),), str(k), v) for k, v in reversed(list(reference.items()))
    ]
    while stack and len(out) < MAX_NODES:
        keys, path, value = stack.pop()
        top = str(keys[0])
        if len(keys) > MAX_DEPTH or value is None:
            continue
        if _is_scalar(value):
            out.append(Fact(path, keys, top, value))
        elif isinstance(value, dict):
            stack.extend(
                ((*keys, str(k)), f"{path}.{k}", v) for k, v in reversed(list(value.items()))
            )
        elif isinstance(value, list):
            if not value:
                out.append(Fact(path, keys, top, [], empty_list=True))
            elif all(_is_scalar(v) for v in value):
                out.extend(Fact(f"{path}[{i}]", keys, top, v, in_set=True)
                           for i, v in enumerate(value))
            else:
                stack.extend(((*keys, i), f"{path}[{i}]", v)
                             for i, v in reversed(list(enumerate(value))))
    return out


# -- answer normalisation -----------------------------------------------------------------



# A JSON key's last word that names the unit of its number ("life_consumed_min": 671 is
# 671 minutes); counts never carry these (hours and days may be counts, so they are not here).
_KEY_SUFFIX_UNITS = {
    "min": "min", "mins": "min", "minutes": "min", "degc": "°C", "c": "°C", "degf": "°F",
    "f": "°F", "k": "K", "pct": "%", "percent": "%", "ppm": "ppm", "kv": "kV", "kw": "kW",
    "mw": "MW", "mva": "MVA", "kva": "kVA", "kwh": "kWh", "mwh": "MWh", "ton": "tons",
    "tons": "tons",
}


def _with_key_unit(path: str, value: Any) -> str:
    """A number as text, with the unit its key's last word names ("x_per_ton" names none)."""
    words = re.split(r"[_\s]+", path.strip().lower())
    unit = _KEY_SUFFIX_UNITS.get(words[-1]) if len(words) > 1 and words[-2] != "per" else None
    shown = safe_text(value)
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    return f"{shown} {unit}" if unit and numeric else shown


def _flat(value: Any) -> bool:
    """A scalar, or a list of scalars (a record field such as the units of a tie)."""
    return _is_scalar(value) or (isinstance(value, list) and all(_is_scalar(v) for v in value))


def answer_lines(obj: Any) -> str:
    """A JSON answer as text, one ``key = value`` line per scalar (nested keys joined by
    spaces), so each value is read next to its own key."""
    lines: list[str] = []
    stack: list[tuple[str, Any, int]] = [("", obj, 0)]
    while stack and len(lines) < MAX_NODES:
        path, value, depth = stack.pop()
        if depth > MAX_DEPTH:
            continue
        if isinstance(value, dict | list | tuple) and not value:
            lines.append(f"{path} = none" if path else "none")  # [] and {} say "none"
        elif isinstance(value, dict):
            stack.extend((f"{path} {k}".strip(), v, depth + 1)
                         for k, v in reversed(list(value.items())))
        elif isinstance(value, list | tuple) and value and all(
                isinstance(v, dict) and all(_flat(x) for x in v.values()) for v in value):
            # A record of scalars (or lists of them) on one line, so its fields are read
            # together.
            lines.extend(f"{path} = " + ", ".join(f"{k} {safe_text(x)}" for k, x in v.items())
                         for v in value)
        elif isinstance(value, list | tuple) and not all(_is_scalar(v) for v in value):
            stack.extend((path, v, depth + 1) for v in reversed(value))
        else:
            shown = ", ".join(safe_text(v) for v in value) if isinstance(value, list | tuple) \
                else _with_key_unit(path, value)
            lines.append(f"{path} = {shown}" if path else shown)
    return "\n".join(lines)


_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def _json_object(text: str) -> dict[str, Any] | None:
    candidates = [text.strip()]
    candidates.extend(m.group(1) for m in _FENCE.finditer(text))
    for cand in candidates:
        if not cand.startswith("{") or len(cand) > 1_000_000:
            continue
        try:
            parsed = safeparse.loads(cand, safeparse.REPLY)
        except (ValueError, RecursionError):
            continue
        if isinstance(parsed, dict):
            return parsed
    return None


def _shares_keys(given: Mapping[Any, Any], reference: Mapping[str, Any]) -> bool:
    have = {str(k).lower() for k in given}
    return any(str(k).lower() in have for k in reference)


def _shown(value: Any) -> Any:
    """A value as shown in a violation: JSON-safe and short."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**15:
        return "<huge integer>"
    if isinstance(value, str | int | float | bool) or value is None:
        return value[:_SHOWN] if isinstance(value, str) else value
    if isinstance(value, list) and len(value) <= 10 and all(_is_scalar(v) for v in value):
        return [_shown(v) for v in value]
    text = safe_text(value)
    return text[:_SHOWN]


# -- matching -----------------------------------------------------------------------------


class _Tol:
    def __init__(self, abs_tol: dict[str, float], rel_tol: dict[str, float]) -> None:
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol

    def describe(self, top: str) -> str:
        parts = []
        if top in self.abs_tol:
            parts.append(f"±{self.abs_tol[top]:g}")
        if top in self.rel_tol:
            parts.append(f"±{self.rel_tol[top]:g}×|e|")
        return " or ".join(parts) or "exact"

    def ok(self, top: str, expected: float, given: float, decimals: int | None, sig: int) -> bool:
        if not (math.isfinite(expected) and math.isfinite(given)):
            return False
        diff = abs(expected - given)
        if diff <= 1e-9 * max(1.0, abs(expected)):
            return True
        if within(expected, given, self.abs_tol.get(top, 0.0), self.rel_tol.get(top, 0.0)):
            return True
        return decimals is not None and sig >= 2 and diff <= 0.5 * 10.0 ** (-decimals) + 1e-12


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return None


def _key_unit(fact: Fact) -> tuple[str, float] | None:
    last = next((k for k in reversed(fact.keys) if isinstance(k, str)), "")
    suffix = last.lower().rsplit("_", 1)[-1]
    return _KEY_UNITS.get(suffix) if "_" in last else None


def _candidates(fact: Fact, q: Quantity, expected: float) -> list[float]:
    values = [q.value]
    unit = _key_unit(fact)
    if unit is not None:
        converted = q.in_unit(*unit)
        if converted is not None and converted != q.value:
            values.append(converted)
    if q.unit is not None and UNITS[q.unit.lower()][0] == "%" and abs(expected) <= 1 and (
        unit is None or unit[0] != "%"
    ):
        values.append(q.value / 100.0)
    return values


def _match_number_text(fact: Fact, expected: float, ex: Extracted, tol: _Tol,
                       used: set[int]) -> tuple[bool, str]:
    for i, q in enumerate(ex.numbers):
        if fact.in_set and i in used:
            continue
        for v in _candidates(fact, q, expected):
            if tol.ok(fact.top, expected, v, q.decimals, q.sig_digits):
                if fact.in_set:
                    used.add(i)
                return True, f"{fact.path}: {expected!r} matched {q.text!r} in the text"
    return False, ""


def _word_match(expected: str, text: str) -> bool:
    needle = normalise_text(expected)
    if not needle:
        return False
    words = needle.split()
    if len(words) > 4:
        content = {w for w in words if len(w) >= 3 and w not in _STOPWORDS}
        if not content:
            return needle in text
        have = set(re.findall(r"[a-z0-9.]+", text))
        return len(content & have) >= 0.6 * len(content)
    for m in re.finditer(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", text):
        before = text[max(0, m.start() - 12):m.start()].split()
        prev = before[-1] if before else ""
        if prev in ("not", "no", "non") or (prev == "very" and not needle.startswith("very")):
            continue
        return True
    return False


def _match_bool_text(fact: Fact, expected: bool, ex: Extracted, n_bools: int) -> tuple[bool, Any]:
    if n_bools == 1 and ex.yes_no is not None:
        return ex.yes_no == expected, ex.yes_no
    last = next((k for k in reversed(fact.keys) if isinstance(k, str)), fact.top)
    words = [w for w in normalise_text(last).split() if w not in _STOPWORDS and len(w) > 1]
    if not words:
        return False, None
    stems = [w[:5] for w in words]
    for sentence in re.split(r"[.;\n!?]", ex.text):
        if all(s in sentence for s in stems):
            said = _NEGATION.search(sentence) is None
            return said == expected, said
    return False, None


def _match_text(fact: Fact, ex: Extracted, tol: _Tol, used: set[int],
                n_bools: int) -> tuple[bool, str, Any]:
    """(matched, evidence, given) for one fact against a free-text answer.

    A fact under a nested dict key (``units_per_site.EAST``, ``by_type.preventive``) also
    needs that key as words in the text: there the key is data, not a label.
    """
    for key in fact.keys[1:]:
        if isinstance(key, str) and not _word_match(key, ex.text):
            return False, "", None
    v = fact.value
    if fact.empty_list:
        ok = _EMPTY_WORDS.search(ex.text) is not None
        return ok, f"{fact.path}: empty, and the text says none", None
    if isinstance(v, bool):
        ok, said = _match_bool_text(fact, v, ex, n_bools)
        return ok, f"{fact.path}: {v!r} read as a yes/no statement", said
    number = _float(v)
    if number is not None:
        ok, why = _match_number_text(fact, number, ex, tol, used)
        return ok, why, [q.text for q in ex.numbers[:5]] or None
    if not isinstance(v, str):
        return False, "", None
    stamp = normalise_timestamp(v)
    if stamp is not None:
        day, when = stamp
        if when is not None:
            ok = when[:16] in {t[:16] for t in ex.datetimes}
            return ok, f"{fact.path}: timestamp {when} found", ex.datetimes[:5] or None
        return day in ex.dates, f"{fact.path}: date {day} found", ex.dates[:5] or None
    if v.strip().upper() in FAULT_CODES and v.strip() == v.strip().upper():
        code = v.strip().upper()
        ok = code in ex.fault_codes or (code == "ND" and "not determined" in ex.text)
        return ok, f"{fact.path}: IEC code {code} found", ex.fault_codes[:5] or None
    ok = _word_match(v, ex.text)
    return ok, f"{fact.path}: {v!r} found as words", None


def _lookup(given: Any, keys: tuple[str | int, ...]) -> tuple[bool, Any]:
    node = given
    for k in keys:
        if isinstance(k, int):
            if isinstance(node, list) and -len(node) <= k < len(node):
                node = node[k]
                continue
            return False, None
        if not isinstance(node, dict):
            return False, None
        if k in node:
            node = node[k]
            continue
        lowered = {str(key).lower(): key for key in node}
        if k.lower() not in lowered:
            return False, None
        node = node[lowered[k.lower()]]
    return True, node


def _scalar_equal(fact: Fact, expected: Any, given: Any, tol: _Tol) -> bool:
    if isinstance(expected, bool):
        if isinstance(given, bool):
            return given == expected
        if isinstance(given, str):
            word = given.strip().lower()
            return (word in ("yes", "true")) if expected else (word in ("no", "false"))
        return False
    number = _float(expected)
    if number is not None:
        if isinstance(given, bool):
            return False
        got = _float(given)
        if got is not None:
            decimals, sig = precision(repr(given)) if isinstance(given, float) else (0, 99)
            return tol.ok(fact.top, number, got, decimals, sig)
        if isinstance(given, str):
            ex = extract(given[:1000])
            return _match_number_text(fact, number, ex, tol, set())[0]
        return False
    if isinstance(expected, str):
        if not isinstance(given, str | int | float) or isinstance(given, bool):
            return False
        text = given if isinstance(given, str) else str(_shown(given))
        stamp, got_stamp = normalise_timestamp(expected), normalise_timestamp(text)
        if stamp is not None and got_stamp is not None:
            if stamp[1] is not None:
                return got_stamp[1] is not None and got_stamp[1][:16] == stamp[1][:16]
            return got_stamp[0] == stamp[0]
        return normalise_text(expected) == normalise_text(text[:10_000])
    return False


def _match_structured(fact: Fact, given: dict[str, Any], tol: _Tol,
                      used: dict[str, set[int]]) -> tuple[bool, str, Any, str]:
    """(matched, evidence, given value, violation name) for a structured answer."""
    found, node = _lookup(given, fact.keys)
    if not found:
        return False, "", None, "missing_key"
    if fact.empty_list:
        return (isinstance(node, list) and not node), f"{fact.path}: empty list", node, \
            "value_mismatch"
    if fact.in_set:
        if not isinstance(node, list):
            node = [node]
        taken = used.setdefault(fact.path.rsplit("[", 1)[0], set())
        for i, item in enumerate(node[:MAX_NODES]):
            if i not in taken and _scalar_equal(fact, fact.value, item, tol):
                taken.add(i)
                return True, f"{fact.path}: {fact.value!r} in the given list", item, ""
        return False, "", node, "value_mismatch"
    if _scalar_equal(fact, fact.value, node, tol):
        return True, f"{fact.path}: {fact.value!r} given as {_shown(node)!r}", node, ""
    return False, "", node, "value_mismatch"


# -- grading ------------------------------------------------------------------------------


def _result(scenario: Mapping[str, Any], sid: str, **kw: Any) -> GradeResult:
    if "kind" not in kw:
        kw["kind"] = "refusal" if is_negative(scenario) else "facts"
    return GradeResult(
        id=sid,
        domain=scenario_domain(scenario),
        difficulty=scenario_difficulty(scenario),
        negative=is_negative(scenario),
        **kw,
    )


def _answer_text(answer: Any) -> str:
    if isinstance(answer, bytes):
        return answer.decode("utf-8", errors="replace")
    if isinstance(answer, str):
        return answer
    return safe_text(answer)


def grade(scenario: Mapping[str, Any], answer: Any, *, index: int | None = None) -> GradeResult:
    """Grade one answer against one scenario (never raises on a malformed answer).

    Args:
        scenario: The scenario record (ours or upstream; int or string id).
        answer: A dict keyed like the reference, a string (JSON object or free text), or
            anything else (read as text); ``None`` means no answer was given.
        index: Position of the scenario in its file, to name a record without an id.

    Returns:
        The grade; ``gradable`` is False when the scenario has no reference.
    """
    sid = scenario_id(scenario, index)
    reference = scenario.get("reference_answer")
    if not isinstance(reference, dict):
        return _result(scenario, sid, feasible=False, score=0.0, gradable=False, violations=[
            Violation(name="no_reference", path="", message=f"scenario {sid} has no "
                      "reference_answer to grade against (open scenario); judge it instead")])
    if answer is None or (isinstance(answer, str | bytes) and not answer.strip()):
        return _result(scenario, sid, feasible=False, score=0.0, violations=[
            Violation(name="no_answer", path="", message=f"no answer was given for {sid}")])
    mode, answer = unwrap_mode(answer)
    if scenario.get("kind") == "operate" and isinstance(scenario.get("operate"), dict):
        from eval.grade_operate import grade_fields, grade_plan

        return _result(scenario, sid, kind="operate", **grade_fields(grade_plan(scenario,
                                                                                answer)))
    if is_negative(scenario):
        return grade_refusal(scenario, answer, sid, abstained=mode == "abstain")
    if scenario.get("rubric") is not None or reference.get("clarification_needed") is True:
        return _grade_open(scenario, answer, sid)
    if mode == "abstain":
        return _result(scenario, sid, feasible=False, score=0.0, violations=[Violation(
            name="abstained", path="", message=f"the answer abstains, but {sid} is answerable")])
    contract = contract_of_record(scenario)
    if contract is not None:
        return _grade_by_contract(scenario, answer, sid, reference, contract)
    return _grade_by_facts(scenario, answer, sid, reference)


def _grade_by_facts(scenario: Mapping[str, Any], answer: Any, sid: str,
                    reference: dict[str, Any]) -> GradeResult:
    """A record without an answer contract: every fact of the reference, matched in the
    structured answer or read in the text."""
    facts = facts_of(reference)
    if not facts:
        return _result(scenario, sid, feasible=False, score=0.0, gradable=False, violations=[
            Violation(name="no_reference", path="", message=f"the reference of {sid} holds "
                      "no facts (only nulls); nothing to grade")])
    tol = _Tol(*_tolerances(scenario))
    structured: dict[str, Any] | None = None
    if isinstance(answer, dict) and _shares_keys(answer, reference):
        structured = answer
    elif isinstance(answer, str | bytes):
        parsed = _json_object(_answer_text(answer)[:1_000_000])
        if parsed is not None and _shares_keys(parsed, reference):
            structured = parsed
    ex = extract(_answer_text(answer)) if structured is None else None

    weights: dict[str, int] = defaultdict(int)
    for f in facts:
        weights[f.top] += 1
    n_bools = sum(isinstance(f.value, bool) for f in facts)
    score = 0.0
    violations: list[Violation] = []
    evidence: list[str] = [
        "answer read as structured JSON" if structured is not None else "answer read as free "
        "text" + (" (truncated to its first 100000 characters)" if ex and ex.truncated else "")
    ]
    used_text: set[int] = set()
    used_sets: dict[str, set[int]] = {}
    for f in facts:
        if structured is not None:
            ok, why, given, name = _match_structured(f, structured, tol, used_sets)
        elif ex is not None:
            ok, why, given = _match_text(f, ex, tol, used_text, n_bools)
            name = "missing_value"
        else:  # unreachable: ex is set whenever structured is None
            raise RuntimeError("grader: neither a structured nor a text answer")
        if ok:
            score += 1.0 / (len(weights) * weights[f.top])
            evidence.append(why)
            continue
        expected = f.value if not f.empty_list else []
        what = {
            "missing_key": f"key {f.path!r} is absent from the answer",
            "value_mismatch": f"{f.path}: expected {_shown(expected)!r}, got {_shown(given)!r}",
            "missing_value": f"{f.path}: {_shown(expected)!r} not found in the text",
        }[name]
        if isinstance(expected, int | float) and not isinstance(expected, bool):
            what += f" (tolerance {tol.describe(f.top)})"
        violations.append(Violation(name=name, path=f.path, expected=_shown(expected),
                                    given=_shown(given), message=what))
    score = min(1.0, max(0.0, score))
    feasible = not violations
    return _result(scenario, sid, feasible=feasible, score=1.0 if feasible else round(score, 6),
                   violations=violations, evidence=evidence)


MODES = ("response", "clarification", "abstain")


def unwrap_mode(answer: Any) -> tuple[str | None, Any]:
    """Upstream's mode-aware answer (``{"response": …}``, ``{"clarification": …}``,
    ``{"abstain": …}``, also as a JSON string) as (mode, what it holds); else (None, answer).
    With further keys beside its one mode key (``{"abstain": …, "offer": …}``) the answer
    keeps its mode and is read whole, so what the other keys say counts too."""
    obj = answer
    if isinstance(answer, str | bytes):
        obj = _json_object(_answer_text(answer)[:1_000_000])
    if isinstance(obj, dict) and len(obj) == 1:
        key = next(iter(obj))
        if isinstance(key, str) and key.lower() in MODES:
            inner = obj[key]
            return key.lower(), inner if inner not in (None, "", {}) else key.lower()
    if isinstance(obj, dict):
        modes = [k.lower() for k, v in obj.items() if isinstance(k, str)
                 and k.lower() in MODES and v not in (None, "", {}, [], False)]
        if len(modes) == 1:
            return modes[0], obj
    return None, answer


def _vocabulary(asset_class: str | None) -> Callable[[FactSpec], dict[str, list[str]]]:
    """A fact's vocabulary phrasings from the scenario's asset class."""
    from generator.assetdef import load_asset_class

    modes: list[Any] = []
    if isinstance(asset_class, str):
        try:
            modes = list(load_asset_class(asset_class).failure_modes)
        except (UserError, OSError, ValueError):
            modes = []

    def vocab(fact: FactSpec) -> dict[str, list[str]]:
        if fact.vocabulary == "failure_modes":
            return {m.id: [m.name, m.failure_code] if m.failure_code else [m.name]
                    for m in modes}
        if fact.vocabulary == "failure_codes":
            return {m.failure_code: [m.id, m.name] for m in modes if m.failure_code}
        if fact.vocabulary == "fault_codes":
            return {code: [name] for code, name in FAULT_NAMES.items()}
        return {}

    return vocab



# Sensor units as asset.yaml writes them -> the units a contract names.
_SENSOR_UNITS = {"degC": "°C", "°C": "°C", "ton": "ton", "kW": "kW", "kW/ton": "kW/ton",
                 "MVA": "MVA", "kV": "kV", "A": "A", "V": "V", "%": "%", "ppm": "ppm",
                 "mN/m": "mN/m", "mgKOH/g": "mgKOH/g"}


def _units_of_record(contract: AnswerContract, scenario: Mapping[str, Any]) -> AnswerContract:
    """Facts whose unit is ``sensor`` take the unit of the sensor the record reads (its
    grounding's ``sensor``, as the class's asset.yaml declares it); unknown: as written."""
    if not any(f.unit == "sensor" or (f.value is not None and f.value.unit == "sensor")
               for f in contract.facts):
        return contract
    from generator.assetdef import load_asset_class

    unit: str | None = None
    grounding = scenario.get("grounding")
    sensor = grounding.get("sensor") if isinstance(grounding, dict) else None
    asset_class = scenario.get("asset_class")
    if isinstance(sensor, str) and isinstance(asset_class, str):
        try:
            declared = load_asset_class(asset_class).sensor(sensor).unit
            unit = _SENSOR_UNITS.get(declared)
        except (UserError, OSError, ValueError):
            unit = None

    def fix(f: FactSpec) -> FactSpec:
        value = fix(f.value) if f.value is not None else None
        return f.model_copy(update={"unit": unit if f.unit == "sensor" else f.unit,
                                    "value": value})

    return contract.model_copy(update={"facts": [fix(f) for f in contract.facts]})


def _grade_by_contract(scenario: Mapping[str, Any], answer: Any, sid: str,
                       reference: dict[str, Any], contract: AnswerContract) -> GradeResult:
    """Grade the facts the text asks for, each read by its kind (see eval.grade_contract)."""
    from eval.grade_contract import grade_facts

    family = contract.family or (scenario.get("family") if isinstance(
        scenario.get("family"), str) else None)
    contract = _units_of_record(complete(contract, family, reference), scenario)
    structured: dict[str, Any] | None = None
    if isinstance(answer, dict):
        structured = answer
    elif isinstance(answer, str | bytes):
        structured = _json_object(_answer_text(answer)[:1_000_000])
    text = answer_lines(answer) if isinstance(answer, dict | list) else _answer_text(
        answer)[:1_000_000]
    tol = _tolerances(scenario)
    asset_class = scenario.get("asset_class")
    score, parts, supporting = grade_facts(
        scenario, contract, text, structured, tol[0], tol[1],
        _vocabulary(asset_class if isinstance(asset_class, str) else None))
    if not parts:
        return _result(scenario, sid, feasible=False, score=0.0, gradable=False, violations=[
            Violation(name="no_reference", path="", message=f"the reference of {sid} holds "
                      "no fact its text asks for; nothing to grade")])
    violations = [Violation(
        name="missing_value", path=p.path, expected=_shown(p.expected), given=_shown(p.given),
        message=f"{p.path}: {_shown(p.expected)!r} not stated" + (f" ({p.why})" if p.why
                                                                    else ""))
        for p in parts if not p.ok]
    evidence = [f"graded by the answer contract of {contract.family or 'the reference'}"]
    evidence += [f"{p.path}: {_shown(p.expected)!r} matched {p.given!r} ({p.why})"
                 for p in parts if p.ok]
    if supporting:
        evidence.append(f"not asked by the text, not graded: {', '.join(supporting)}")
    feasible = not violations
    return _result(scenario, sid, feasible=feasible,
                   score=1.0 if feasible else round(min(1.0, max(0.0, score)), 6),
                   violations=violations, evidence=evidence)


def _grade_open(scenario: Mapping[str, Any], answer: Any, sid: str) -> GradeResult:
    """An open scenario (graded with its rubric) or a clarification request."""
    from eval.grade_rubric import first_step_late, grade_clarification, grade_rubric, rubric_of

    text = _answer_text(answer)[:1_000_000]
    if scenario.get("rubric") is None:
        structured = answer if isinstance(answer, dict) else (
            _json_object(text) if isinstance(answer, str | bytes) else None)
        feasible, score, violations, evidence = grade_clarification(scenario, text, structured)
        return _result(scenario, sid, feasible=feasible, score=score, violations=violations,
                       evidence=evidence, kind="clarification")
    try:
        rubric = rubric_of(scenario)
    except ValueError as exc:
        return _result(scenario, sid, feasible=False, score=0.0, gradable=False, kind="rubric",
                       violations=[Violation(name="no_reference", path="rubric",
                                             message=f"scenario {sid}: {exc}")])
    if rubric is None:  # unreachable: the caller saw a rubric
        raise RuntimeError("grader: rubric vanished")
    feasible, score, violations, evidence = grade_rubric(rubric, text,
                                                         str(scenario.get("text") or ""))
    wrong = _open_entries_wrong(scenario, answer, text,
                                frozenset(f.key.split(".")[0] for f in rubric.required))
    late = first_step_late(scenario, text)
    wrong += [late] if late is not None else []
    if wrong:
        violations = [*violations, *wrong]
        feasible, score = False, round(max(0.0, min(score, 1.0) - 0.5 * len(wrong)), 6)
    return _result(scenario, sid, feasible=feasible, score=score, violations=violations,
                   evidence=evidence, kind="rubric")


def _open_entries_wrong(scenario: Mapping[str, Any], answer: Any, text: str,
                        keys: frozenset[str]) -> list[Violation]:
    """The entries of the mappings a rubric requires (``methods.iec``) that an open answer
    ties to another value, read by the family's answer contract (which says how each key
    is spoken): the rubric finds a class anywhere, the contract sees whose it is."""
    from eval.grade_contract import stated_wrong_entries

    contract = contract_of_record(scenario)
    reference = scenario.get("reference_answer")
    if contract is None or not isinstance(reference, dict):
        return []
    family = contract.family or (scenario.get("family") if isinstance(
        scenario.get("family"), str) else None)
    contract = complete(contract, family, reference)
    body = answer_lines(answer) if isinstance(answer, dict | list) else text
    return [Violation(name="stated_wrong", path=p.path, expected=_shown(p.expected),
                      given=_shown(p.given), message=f"{p.path}: {_shown(p.expected)!r} is "
                      f"stated as {p.given!r} ({p.why})")
            for p in stated_wrong_entries(scenario, contract, body, keys)]


def _allowed_values(scenario: Mapping[str, Any]) -> tuple[set[str], set[float]]:
    """Dates and numbers an answer to a negative may repeat (from its text and reference)."""
    text = safe_text([scenario.get("text"), scenario.get("reference_answer")])
    ex = extract(text)
    return set(ex.dates), {q.value for q in ex.numbers}


# A figure marked as not the one asked: from the data that does exist, offered for context.
_OFFERED = re.compile(
    r"\b(?:that|which)\s+(?:does|do|did)\s+exist\b|\bdata\s+(?:that\s+)?(?:we|i)\s+(?:do\s+)?"
    r"(?:have|hold)\b|\bexisting\b|\bif\s+(?:it|this|that)\s+helps\b|\bfor\s+(?:context|"
    r"comparison)\b|\bnot\s+the\s+(?:[\w-]+\s+){0,4}(?:figure|value|number|answer|one)\s+you\s+"
    r"asked\b|\b(?:not|never|haven't|hasn't)\s+(?:been\s+)?substitut", re.IGNORECASE)
# Telling the reader to take such a figure for the one asked ("use that for the report",
# "put about 0.24 kV in your notes", "presumably a typo for EAST-TX04") substitutes it.
_SUBSTITUTES = re.compile(
    r"\b(?:use|take|put|enter|record|quote)\s+(?:that|this|it|those|these|(?:about|roughly|"
    r"around|approximately|some)\s+\d)\b|\b(?:probably|presumably|likely|must be)\s+(?:a\s+)?"
    r"(?:typo|mistake|misprint|meant)\b", re.IGNORECASE)


def offered_context(scenario: Mapping[str, Any], text: str) -> set[float]:
    """Numbers a refusal offers from data that does exist, not as the answer.

    A number counts when its sentence marks it as not the figure asked (:data:`_OFFERED`:
    "from the data we do have", "but that is not the figure you asked for") and scopes it
    to stored data: another asset than the question's named in its clause, or dates that
    all lie before the end of the stored data. None counts when the answer substitutes a
    figure for the one asked (:data:`_SUBSTITUTES`).
    """
    from eval.grade_contract import year_of
    from eval.reader import read

    if _SUBSTITUTES.search(text[:100_000]):
        return set()
    year = year_of(scenario)
    read_text = read(text, year=year)
    asked_ids = {i.text.upper() for i in read(str(scenario.get("text") or ""), year=year).ids}
    ref = scenario.get("reference_answer")
    data_end = str(ref.get("data_end") or "")[:10] if isinstance(ref, dict) else ""
    out: set[float] = set()
    for n in read_text.numbers:
        s0, s1 = read_text.sentence_of(n.start)
        if not _OFFERED.search(read_text.raw, s0, s1):
            continue
        c0, c1 = read_text.clause_of(n.start, n.end)
        other_asset = any(c0 <= i.start < c1 and i.text.upper() not in asked_ids
                          for i in read_text.ids)
        days = [w.day for w in read_text.whens if s0 <= w.start < s1]
        stored = bool(data_end) and bool(days) and all(d <= data_end for d in days)
        if other_asset or stored:
            out.add(n.value)
    return out


def fabricated_values(scenario: Mapping[str, Any], ex: Extracted,
                      offered: set[float] | None = None) -> list[str]:
    """Values an answer states that neither the question nor the reference holds.

    A date, or a number written with a unit or decimals, counts; bare integers (counts,
    unit numbers) do not, nor do the ``offered`` numbers (:func:`offered_context`).
    """
    dates, numbers = _allowed_values(scenario)
    numbers |= offered or set()
    ref = scenario.get("reference_answer")
    # Outside the stored window, the days the data does cover are facts of the store: an
    # answer may say where the data ends (or starts) without inventing anything.
    covered = str(ref.get("data_end") or "")[:10] if isinstance(ref, dict) else ""
    out = [d for d in ex.dates if d not in dates and not (covered and d <= covered)]
    out.extend(
        q.text for q in ex.numbers
        if (q.unit is not None or q.decimals > 0) and q.value not in numbers
    )
    return out


def _asked_given(scenario: Mapping[str, Any], text: str) -> list[str] | None:
    """What the answer gives of the thing the negative asks for (by its kind, see
    :mod:`eval.grade_negative`); None for a kind without such a reading. A figure handed
    over as the answer (:data:`_SUBSTITUTES`) defers to :func:`fabricated_values`."""
    from eval.grade_contract import year_of
    from eval.grade_negative import asked_statements

    if _SUBSTITUTES.search(text[:100_000]):
        return None
    return asked_statements(scenario, text, _allowed_values(scenario)[1], year_of(scenario))


def grade_refusal(scenario: Mapping[str, Any], answer: Any, sid: str, *,
                  abstained: bool = False) -> GradeResult:
    """Grade an answer to an unanswerable scenario.

    Score 1 (feasible) when the answer refuses (a structured ``{"answerable": false}`` or
    text matching :data:`REFUSAL_PATTERNS`: cannot / unable / the data does not contain /
    unknown asset / insufficient ...) and does not give the thing asked anyway: for the
    kinds :mod:`eval.grade_negative` reads, a value for the asked window, a price or cheapest
    day, a failure date, a reading of the missing sensor, a claim the action was done
    (figures about other things are context); for other kinds, no fabricated value
    (:func:`fabricated_values`). 0.5 when it refuses but also gives such a thing; 0 when it
    does not refuse.
    """
    if isinstance(answer, str | bytes):
        answer = _json_object(_answer_text(answer)[:1_000_000]) or answer
    if abstained or (isinstance(answer, dict) and answer.get("answerable") is False):
        refused = True
    else:
        refused = refuses(_answer_text(answer))
    ex = extract(_answer_text(answer))
    asked = _asked_given(scenario, _answer_text(answer))
    invented = asked if asked is not None else fabricated_values(
        scenario, ex, offered_context(scenario, _answer_text(answer)) if refused else None)
    violations: list[Violation] = []
    evidence: list[str] = []
    if refused:
        evidence.append("the answer refuses (refusal detector matched)")
    else:
        violations.append(Violation(
            name="no_refusal", path="", expected="a refusal", given=_shown(ex.text[:_SHOWN]),
            message="the scenario is unanswerable but the answer does not say it cannot be "
            "answered"))
    if invented:
        violations.append(Violation(
            name="fabricated_value", path="", expected=None, given=invented[:5],
            message=(f"the answer gives the thing asked, which the data cannot support: "
                     f"{invented[:5]}" if asked is not None else
                     f"the answer states values the data cannot support: {invented[:5]}")))
    else:
        evidence.append("no value beyond the question's and the reference's")
    score = 0.0 if not refused else 0.5 if invented else 1.0
    return _result(scenario, sid, feasible=score == 1.0, score=score, violations=violations,
                   evidence=evidence)


# -- sets ---------------------------------------------------------------------------------


def aggregate(results: Iterable[GradeResult]) -> tuple[float, float, dict[str, ClassScore]]:
    """Class-balanced mean score and feasible rate over the gradable results, and per class.

    A class is ``domain/difficulty``; each class weighs the same whatever its size.
    """
    groups: dict[str, list[GradeResult]] = defaultdict(list)
    for r in results:
        if r.gradable:
            groups[f"{r.domain}/{r.difficulty}"].append(r)
    by_class = {
        key: ClassScore(
            n=len(rs),
            mean_score=round(sum(r.score for r in rs) / len(rs), 6),
            feasible_rate=round(sum(r.feasible for r in rs) / len(rs), 6),
        )
        for key, rs in sorted(groups.items())
    }
    if not by_class:
        return 0.0, 0.0, by_class
    mean = sum(c.mean_score for c in by_class.values()) / len(by_class)
    rate = sum(c.feasible_rate for c in by_class.values()) / len(by_class)
    return round(mean, 6), round(rate, 6), by_class


def by_kind(results: Iterable[GradeResult]) -> dict[str, ClassScore]:
    """Mean score and feasible rate per grading kind (facts, refusal, rubric, clarification),
    over the gradable results; open and clarification scenarios count in the set's classes
    like any other, this says how each kind fared."""
    groups: dict[str, list[GradeResult]] = defaultdict(list)
    for r in results:
        if r.gradable:
            groups[r.kind].append(r)
    return {
        kind: ClassScore(
            n=len(rs),
            mean_score=round(sum(r.score for r in rs) / len(rs), 6),
            feasible_rate=round(sum(r.feasible for r in rs) / len(rs), 6),
        )
        for kind, rs in sorted(groups.items())
    }


def grade_set(scenarios: list[dict[str, Any]], answers: Mapping[str, Any]) -> EvaluationReport:
    """Grade every scenario against ``answers`` (keyed by scenario id as a string).

    A scenario without an answer gets a ``missing_answer`` violation and score 0.
    """
    results = []
    for i, scenario in enumerate(scenarios):
        sid = scenario_id(scenario, i)
        if sid not in answers:
            result = grade(scenario, None, index=i)
            if result.gradable:
                result = result.model_copy(update={"violations": [Violation(
                    name="missing_answer", path="",
                    message=f"the answers file holds no answer with id {sid!r}")]})
            results.append(result)
            continue
        results.append(grade(scenario, answers[sid], index=i))
    mean, rate, by_class = aggregate(results)
    return EvaluationReport(mean_score=mean, feasible_rate=rate, by_class=by_class,
                            by_kind=by_kind(results), results=results)
