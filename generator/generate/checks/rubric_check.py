"""Rubrics that contradict the computed answer, and unsafe characters in texts.

An LLM writes the rubric (``characteristic_form``) and open scenarios' texts; code computed
the reference answer. The rubric is what a judge grades against, so a rubric that says
something else than the reference ("say the fleet has zero sites" when it has 3, a load
factor of 95 % when the reference computed 122.5 %, "the sample does not show D1" when the
reference class is D1) must never leave the generator. This module reads three kinds of
claim, deterministically, and compares each with the reference (and, for fleet sizes, with
the store's grounded inventory):

* **counts**: a number (digits or a word, "zero"/"no" included) in front of a noun that
  names a count or a list of the reference (``alerts: 4`` ↔ "4 alerts"; ``asset_ids``
  with 2 items ↔ "two units");
* **values**: a number written right after the words of a numeric key of the reference
  ("health index of 90.6"), which must equal the reference within the scenario's
  tolerance or when rounded to the decimals written;
* **negated labels**: a code-like class label of the reference (``D1``, ``EL-D2``) or a
  label of two or more words ("very good") preceded by a negation ("not", "no", "rule
  out", ...). Keys that hold a claim being refuted (``claimed_*``, ``*premise*``) are
  exempt: a false-premise rubric is meant to negate them.

What is not read is not judged: free prose without numbers or labels passes. The checks
``rubric_agrees_with_reference`` and ``no_unsafe_characters`` that call these functions are
registered in :mod:`generator.generate.checks.checks` (this module imports no check machinery).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from generator.generate.model import Rubric
from generator.vocabulary import asset_nouns, site_nouns

_NUMBER_WORDS = {
    "zero": 0, "no": 0, "none": 0, "one": 1, "a single": 1, "two": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12,
}
_COUNT = r"(?P<n>\d+|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
# Nouns a list or count key is also written as; "asset" and "site" add every class's words
# for them (its vocabulary's noun and plural, its site_words).
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "work_order": ("work order", "work-order", "workorder"),
    "model": ("model", "method"),
    "anomaly": ("anomaly", "anomalies"),
}


@lru_cache(maxsize=1)
def _site_words() -> tuple[str, ...]:
    return ("site", *site_nouns())


@lru_cache(maxsize=1)
def _synonyms() -> dict[str, tuple[str, ...]]:
    asset = ("asset", "unit", *asset_nouns())
    return {"asset": asset, "unit": asset, "site": _site_words(), **_SYNONYMS}


_NEGATION = (
    r"(?i:not|no|never|isn't|is not|aren't|are not|wasn't|was not|without|"
    r"rule out|rules out|ruled out|instead of|rather than|cannot be|can't be)"
)
_CODE_LABEL = re.compile(r"^[A-Z][A-Z0-9]{0,3}(?:-[A-Z0-9]{1,6})?$")
_EXEMPT_KEY = re.compile(r"claim|premise", re.IGNORECASE)


@lru_cache(maxsize=1)
def _fleet_count() -> re.Pattern[str]:
    """'the fleet has N sites / units / <class plural>'."""
    nouns = sorted({*_site_words(), *_synonyms()["asset"]}, key=len, reverse=True)
    return re.compile(
        r"\b(?:fleet|store|data|utility|company|operator)\s+(?:has|holds|contains|includes|"
        r"counts|comprises|with|of)\s+(?:only\s+|exactly\s+)?" + _COUNT
        + r"\s+(?P<noun>" + "|".join(re.escape(n) + "s?" for n in nouns) + r")\b",
        re.IGNORECASE,
    )


_CONDITION = re.compile(r"\b(?:if|whether|unless|when|in case|otherwise)\b", re.IGNORECASE)
_ASSERTED_NONE = re.compile(
    r"\b(?:has|have|had|holds?|contains?|there (?:are|were|is|was)|found|finds|shows?|"
    r"reports?|lists?|with|say|says|states?)\s*$",
    re.IGNORECASE,
)


def _hypothetical(text: str, start: int) -> bool:
    """True when the clause holding ``start`` is a condition ("if no work order exists")."""
    clause_start = max(text.rfind(ch, 0, start) for ch in ".;:!?(") + 1
    return _CONDITION.search(text, clause_start, start) is not None


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _key_nouns(key: str) -> tuple[str, ...]:
    """Ways the rubric may write a count key: ``corrective_work_orders`` → work order(s)."""
    base = re.sub(r"_ids?$|_list$|^n_|^num_|_count$", "", key)
    words = base.split("_")
    tail = "_".join(words[-2:]) if len(words) >= 2 else words[-1]
    for candidate in (_singular(tail), _singular(words[-1])):
        if candidate in _synonyms():
            return _synonyms()[candidate]
    return (" ".join(_singular(w) for w in words[-2:]) if len(words) >= 2 else "",
            _singular(words[-1]))


def _leaves(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, str(k))
    else:
        yield key, value


def _count_of(match: re.Match[str]) -> int:
    raw = match.group("n").lower()
    return int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]


def _noun_pattern(nouns: tuple[str, ...]) -> str:
    parts = []
    for noun in nouns:
        if not noun:
            continue
        stem = re.escape(noun[:-1]) + r"(?:y|ies)" if noun.endswith("y") else re.escape(noun)
        parts.append(stem + r"s?")
    return "|".join(parts)


# The patterns below depend on a key or label alone; they are compiled once per run for
# each (re's own cache holds 512 patterns and is shared by every module).


@lru_cache(maxsize=4096)
def _count_pattern(key: str) -> re.Pattern[str] | None:
    """A count of a count key's noun: "4 alerts", "two corrective work orders", "zero
    sites", "2 of 6 failure modes" (at most two words between the number and the noun);
    None without a noun."""
    nouns = _noun_pattern(_key_nouns(key))
    if not nouns:
        return None
    # "2 of 7 failure modes" counts 2 of them: the total after "of" is read with the count.
    total = r"(?:\s+(?:out\s+)?of\s+(?:the\s+)?(?:\d+|" + "|".join(_NUMBER_WORDS) + r"))?"
    return re.compile(
        r"(?<![\w.\-/:])" + _COUNT + total + r"\s+(?:[A-Za-z][\w-]*\s+){0,2}?(?:" + nouns
        + r")\b",
        re.IGNORECASE,
    )


@lru_cache(maxsize=4096)
def _value_pattern(key: str) -> re.Pattern[str] | None:
    """A number written right after the words of a numeric key (units dropped); None when
    only units are left."""
    words = [w for w in key.split("_") if w not in ("pct", "ppm", "c", "mva", "kv", "h")]
    if not words:
        return None
    return re.compile(
        r"\b" + r"[\s_-]+".join(re.escape(w) for w in words)
        + r"s?(?:\s+(?:is|of|=|was|at|equals|reads|about|around|approximately|:))*\s*[:=]?\s*"
        r"(?P<x>-?\d+(?:\.(?P<d>\d+))?)(?![\d\-:T])",
        re.IGNORECASE,
    )


@lru_cache(maxsize=4096)
def _negation_pattern(label: str) -> re.Pattern[str]:
    """A negation before ``label`` (case-sensitive for a code-like label)."""
    return re.compile(
        r"\b" + _NEGATION + r"\s+(?i:(?:a|an|the|be|been|show|shows|showing|indicate|"
        r"indicates|of|fault|type|class)\s+){0,3}" + re.escape(label) + r"(?![\w-])",
        re.IGNORECASE if not _CODE_LABEL.match(label) else 0,
    )


def count_claims(rubric: str, answer: dict[str, Any]) -> list[str]:
    """Counts in the rubric that differ from the reference's counts and list lengths.

    Keys written with the same noun (``units_at_site`` and ``sites``, ``expected_hours``
    and ``missing_hours``) share their counts: a count of that noun agrees when it is any
    of theirs.
    """
    counts: list[tuple[str, int]] = []
    for key, value in _leaves(answer):
        if _EXEMPT_KEY.search(key) or isinstance(value, bool):
            continue
        if isinstance(value, list):
            counts.append((key, len(value)))
        elif isinstance(value, int):
            counts.append((key, value))
    shared: dict[str, set[int]] = {}
    for key, n in counts:
        for noun in _key_nouns(key):
            shared.setdefault(noun, set()).add(n)
    problems = []
    for key, expected in counts:
        pattern = _count_pattern(key)
        if pattern is None:
            continue
        allowed = set().union(*(shared[noun] for noun in _key_nouns(key)))
        for m in pattern.finditer(rubric):
            if _hypothetical(rubric, m.start()):
                continue
            said = _count_of(m)
            if m.group("n").lower() in ("no", "none") and not _ASSERTED_NONE.search(
                rubric[max(0, m.start() - 30):m.start()]
            ):
                continue  # "no work order exists" in an instruction is not a count
            if said not in allowed:
                problems.append(
                    f"rubric says {m.group(0)!r} but the computed {key} is {expected}"
                )
                break
    return problems


def _agrees(said: float, expected: float, decimals: int, tol: float, rel: float) -> bool:
    if math.isclose(said, expected, abs_tol=max(tol, 1e-9), rel_tol=rel):
        return True
    return round(expected, decimals) == said or abs(said - expected) <= 0.5 * 10.0**-decimals


def value_claims(
    rubric: str,
    answer: dict[str, Any],
    tolerance: dict[str, float] | None = None,
    rel_tolerance: dict[str, float] | None = None,
) -> list[str]:
    """Numbers written right after a numeric key's words that disagree with the reference."""
    problems = []
    tolerance, rel_tolerance = tolerance or {}, rel_tolerance or {}
    for key, value in _leaves(answer):
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if _EXEMPT_KEY.search(key) or not math.isfinite(value):
            continue
        pattern = _value_pattern(key)
        if pattern is None:
            continue
        for m in pattern.finditer(rubric):
            said = float(m.group("x"))
            decimals = len(m.group("d") or "")
            if not _agrees(said, float(value), decimals, tolerance.get(key, 0.0),
                           rel_tolerance.get(key, 0.0)):
                problems.append(
                    f"rubric says {m.group(0).strip()!r} but the computed {key} is {value:g}"
                )
                break
    return problems


def negated_labels(rubric: str, answer: dict[str, Any]) -> list[str]:
    """Code-like or multi-word class labels of the reference that the rubric negates."""
    problems = []
    for key, value in _leaves(answer):
        if not isinstance(value, str) or _EXEMPT_KEY.search(key):
            continue
        label = value.strip()
        if not (_CODE_LABEL.match(label) or (len(label.split()) >= 2 and len(label) <= 40)):
            continue
        m = _negation_pattern(label).search(rubric)
        if m is not None:
            problems.append(f"rubric negates the computed {key} {label!r} ({m.group(0)!r})")
    return problems


def fleet_claims(rubric: str, sites: int, assets: int) -> list[str]:
    """'the fleet has N sites / units' against the store's grounded inventory."""
    problems = []
    for m in _fleet_count().finditer(rubric):
        noun = m.group("noun").lower()
        expected = sites if noun.startswith(_site_words()) else assets
        if _count_of(m) != expected:
            problems.append(f"rubric says {m.group(0)!r} but the store holds {expected}")
    return problems


def _at_path(answer: dict[str, Any], path: str) -> tuple[bool, Any]:
    node: Any = answer
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False, None
    return True, node


def _same(expected: str | float, value: Any, tol: float) -> bool:
    if isinstance(value, bool) or isinstance(expected, bool):
        return str(expected).lower() == str(value).lower()
    if isinstance(value, int | float) and isinstance(expected, int | float):
        return abs(float(value) - float(expected)) <= tol + 1e-9
    return str(value).strip().lower() == str(expected).strip().lower()


def _codes_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return {c for v in value.values() for c in _codes_in(v)}
    if isinstance(value, list):
        return {c for v in value for c in _codes_in(v)}
    return {value} if isinstance(value, str) else set()


def rubric_backing(rubric: Rubric, answer: dict[str, Any]) -> list[str]:
    """Required facts the reference does not back, and forbidden claims it makes itself.

    A required fact is backed when ``answer`` holds a value at the fact's ``key`` equal to
    its ``expected`` (numbers within the fact's tolerance; a list holds it as an item). A
    forbidden fault code must not be one the reference states; a forbidden number range must
    not hold a reference number stated at a key named like its ``near`` words.
    """
    problems = []
    for fact in rubric.required:
        found, value = _at_path(answer, fact.key)
        if not found:
            problems.append(f"required fact {fact.id!r}: the reference has no {fact.key!r}")
            continue
        values = value if isinstance(value, list) else [value]
        if not any(_same(fact.expected, v, fact.tolerance) for v in values):
            problems.append(
                f"required fact {fact.id!r} expects {fact.expected!r} but the reference's "
                f"{fact.key} is {value!r}"
            )
    own_codes = _codes_in(answer)
    for claim in rubric.forbidden:
        if claim.kind == "fault_code":
            clash = sorted(set(claim.codes) & own_codes)
            if clash:
                problems.append(f"forbidden claim {claim.id!r} forbids the reference's own "
                                f"class {', '.join(clash)}")
        if claim.kind == "number_outside":
            words = [w.lower().replace(" ", "_") for w in claim.near]
            for key, value in _leaves(answer):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    continue
                if not any(w and w in key.lower() for w in words):
                    continue
                low = -math.inf if claim.low is None else claim.low
                high = math.inf if claim.high is None else claim.high
                if not low <= value <= high:
                    problems.append(f"forbidden claim {claim.id!r}: the reference's {key} "
                                    f"{value:g} lies outside [{low:g}, {high:g}]")
    return problems
