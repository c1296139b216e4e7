"""Reading an answer's text: the text of any JSON value, refusals and fault names.

Shared by the grader's modules (:mod:`eval.grade`, :mod:`eval.grade_contract`,
:mod:`eval.grade_negative`, :mod:`eval.grade_rubric`), which import it and not each other
for these.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from eval.asset_words import asset_nouns_pattern

# Bounds on reading a structured answer (a deeply nested or huge JSON object).
MAX_DEPTH = 64
MAX_NODES = 20_000


def safe_text(obj: Any) -> str:
    """Text of any JSON-like value (keys and scalars), without recursion, bounded."""
    parts: list[str] = []
    stack: list[tuple[Any, int]] = [(obj, 0)]
    nodes = 0
    while stack and nodes < MAX_NODES:
        value, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            continue
        if isinstance(value, dict):
            for k, v in reversed(list(value.items())):
                stack.append((v, depth + 1))
                stack.append((f"{k}:", depth + 1))
        elif isinstance(value, list | tuple):
            stack.extend((v, depth + 1) for v in reversed(value))
        elif isinstance(value, bytes):
            parts.append(value.decode("utf-8", errors="replace"))
        elif isinstance(value, float) and not math.isfinite(value):
            parts.append("nan" if math.isnan(value) else "inf")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**300:
            parts.append("<huge integer>")
        else:
            parts.append(str(value))
    return " ".join(parts)


# Refusal: the answer says the request cannot be answered from what is available.
REFUSAL_PATTERNS: tuple[str, ...] = (
    r"\bcannot\b", r"\bcan ?not\b", r"\bcan't\b", r"\bcould not\b", r"\bcouldn't\b",
    r"\bunable to\b", r"\bnot (?:be )?(?:possible|determin|answer|availab|predict|know)",
    r"\bimpossible\b", r"\bno (?:data|records?|readings?|samples?|telemetry|information|tool)\b",
    r"\b(?:does|do|did) not (?:contain|exist|hold|have|include|provide)",
    r"\b(?:doesn't|don't|didn't) (?:contain|exist|hold|have|include|provide)",
    r"\bnot (?:found|in the (?:data|store|database))\b", r"\bunknown (?:asset|unit)\b",
    r"\bno such\b", r"\binsufficient\b", r"\bnot enough\b", r"\boutside (?:the )?(?:available|"
    r"data|recorded|stored)", r"\bno (?:available|registered) tool\b", r"\bnot supported\b",
    r"\bnothing to report\b", r"\bno (?:figure|value|answer|number|result)\b",
    r"\b(?:is|are|was|were)(?:n't| not) (?:a single|any)\b",
    r"\bthere(?:['’]s| is| are| was| were) no\b",
    r"\bnot (?:on record|in the (?:register|fleet|list))",
    # "there's no way to get a date out of that", "I'm not able to do that".
    r"\bno way (?:to|of)\b", r"\bnot able to\b",
    # "has no refrigerant leak detector", "no tank vibration sensor": the instrument absent.
    r"\bno (?:[\w/-]+ ){0,4}(?:sensors?|detectors?|monitors?|probes?|gauges?|meters?|"
    r"transducers?|instruments?|channels?)\b",
    # "no phase 1 voltage record", "no kW/ton readings": the data named, then said absent.
    r"\bno (?:[\w/-]+ ){1,4}(?:data|records?|readings?|samples?|measurements?|telemetry)\b",
    # "the store rejects EAST-TX09 as unknown": a tool's refusal of the id, reported.
    r"\b(?:rejects?|rejected|flags?|flagged)\b[^.;]{0,40}\bas (?:an? )?unknown\b",
    # "that isn't something the standard gives", "none of the tools computes it": the thing
    # asked put out of reach.
    r"\b(?:is|are)(?:n['’]t| not) (?:something|anything)\b",
    r"\bnone of (?:the |my |our )?(?:available )?tools\b",
    # "Not done: my tools are read-only": an action declined.
    r"(?:^|[.!?\n]\s*)not done\b", r"\b(?:tools?|access) (?:is |are )?read[- ]only\b",
    # "I haven't calculated a mean", "we won't give a date": the figure asked withheld.
    r"\b(?:i|we)(?:['’]d| would)? (?:have(?:n['’]t| not)|did(?:n['’]t| not)|won['’]t|will not|"
    r"(?:can|could|would)(?:n['’]t| not)|rather not|am not going to|['’]m not going to) "
    r"(?:\w+ )?(?:calculat|comput|work(?:ed)? out|estimat|predict|deriv|produc|give|given|"
    r"provid|quot|guess|speculat|invent|make up)",
    # "any average would be meaningless", "isn't possible", "makes no sense": no answer exists.
    r"\bmeaningless\b", r"\b(?:is|are|was|were)(?:n['’]t| not) (?:possible|feasible|meaningful|"
    r"defined|answerable)\b", r"\b(?:makes?|made) no sense\b",
    r"\b(?:does|do|did)(?:n['’]t| not) make (?:any )?sense\b",
    r"\bnothing to (?:report|calculate|compute|average|give|show|predict|return)\b",
    # "I'm not authorised to", "that is beyond what I may do": an action out of bounds.
    r"\bnot (?:allowed|permitted|authori[sz]ed|able|in a position) to\b",
    r"\b(?:beyond|outside) what (?:i|we) (?:can|may|am able to|am allowed to|are allowed to)\b",
)


@cache
def _refusal_re() -> re.Pattern[str]:
    """REFUSAL_PATTERNS, and "unknown <noun>" for every asset class's noun (its vocabulary)."""
    unknown_class = r"\bunknown (?:" + asset_nouns_pattern() + r")\b"
    return re.compile("|".join((*REFUSAL_PATTERNS, unknown_class)), re.IGNORECASE)


def refuses(text: str) -> bool:
    """True when the text says the request cannot be answered (see REFUSAL_PATTERNS; an
    "unknown <asset noun>" of any class counts too)."""
    return _refusal_re().search(text[:100_000]) is not None


FAULT_NAMES = {
    "PD": "partial discharge", "D1": "low-energy discharge", "D2": "high-energy discharge",
    "DT": "thermal and electrical fault", "T1": "thermal fault below 300 °C",
    "T2": "thermal fault between 300 and 700 °C", "T3": "thermal fault above 700 °C",
}
