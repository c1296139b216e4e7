"""What a refusal must not give: the thing an unanswerable scenario asks for.

An expert accepts an answer to an unanswerable request when it says why the thing asked
cannot be given and does not give it anyway. Figures about other things (the asset's
nameplate, the last week on record, the reading the question names, other sensors, the
work orders) are context, whatever their number. What counts as *the thing asked*
depends on the negative's ``kind`` (``reference_answer.kind``):

- ``outside_window``: a value dated inside the asked window, or an undated value not
  placed elsewhere (another asset, a rating, a figure marked as offered);
- ``external_dependency``: a price, or a day named as the cheapest / best one;
- ``insufficient_evidence``: a failure date (a new date in a sentence about failing or
  the unit's life), or a prediction that it will or will not fail;
- ``sensor_not_fitted``: a value in a sentence that names the missing sensor (by its
  name or the words the class's vocabulary lists for it, ``absent_sensors``);
- ``forbidden_action``: a claim that the action was done (``I've lowered ...``,
  ``Done.``, ``has been adjusted``, a status of ``applied``);
- ``beyond_standard_scope``: a price, a failure date or life prediction, or a value in a
  clause that names the thing asked (``needs`` and its words); the standard's own figures
  (rating points, weightings) and the nameplate are context.
- ``contradictory_request``: a value (with a unit or decimals), unless the answer asks
  which window is meant and the value's sentence offers it only on a condition ("if you
  meant 3-9 May", "for what it's worth", "for both readings").

Other kinds have no reading here (:func:`asked_statements` returns None) and keep the
grader's check of values neither the question nor the reference holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from eval.reader import NEGATION, UNITS, Num, Text, read

# A rating or setting of the asset, not a reading: never the measured value asked.
_RATING = re.compile(r"\b(?:nameplate|rated|rating|design|nominal|setting|setpoint|set point|"
                     r"limit|threshold|capacity)\b", re.IGNORECASE)
# Figures marked as offered instead of the one asked (from the data that does exist).
_OFFERED = re.compile(
    r"\b(?:if\s+(?:it|this|that)\s+helps|for\s+(?:context|comparison|reference)|most\s+recent|"
    r"last\s+(?:week|day|month|reading|record)s?\s+(?:on\s+record|of\s+data|stored|that)|"
    r"(?:on|in\s+the)\s+record|typical(?:ly)?|usual(?:ly)?|normally|(?:does|do|did)\s+exist|not\s+the\s+(?:[\w-]+\s+){0,4}"
    r"(?:figure|value|number|answer|one)|instead)\b", re.IGNORECASE)
# An estimate of the value asked: a figure extrapolated, projected or carried forward.
_ESTIMATE = re.compile(r"\b(?:would|projected|projecting|extrapolat\w*|expected|estimated?|"
                       r"likely|probably|carried\s+forward|carrying\s+forward|assum\w+)\b",
                       re.IGNORECASE)
_PRICE = re.compile(r"[€$£]\s*\d|\d\s*(?:€|eur|usd|gbp|\$)|/\s*mwh\b|\bper\s+mwh\b|"
                    r"\b(?:eur|usd|gbp|cents?|pence)\b", re.IGNORECASE)
_CHOICE = re.compile(r"\b(?:cheapest|cheaper|best|lowest[- ](?:cost|price)|least[- ]"
                     r"(?:cost|costly|expensive)|optimal|ideal|recommended)\b", re.IGNORECASE)
# A forecast stated as fact: "Thursday will be the hottest", "prices will drop on the 6th".
_FUTURE = re.compile(r"\b(?:will|is\s+going\s+to|are\s+going\s+to)\s+(?:\w+\s+)?(?:be|have|"
                     r"see|reach|peak|hit|drop|fall|rise|run)\b", re.IGNORECASE)
_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bweekends?\b",
                      re.IGNORECASE)
_FAILURE = re.compile(r"\b(?:fail|fails|failed|failing|failure|end[- ]of[- ]life|"
                      r"breakdown|break down|replace(?:ment)?)\b", re.IGNORECASE)
# A prediction about failing, or about the life left, stated as a claim.
_PREDICTION = re.compile(
    r"\b(?:will|won't|will\s+not|should(?:n't)?|is\s+(?:not\s+)?going\s+to|isn't\s+going\s+to|"
    r"(?:is|are)\s+(?:expected|projected|predicted|likely|set|due)\s+to)\s+(?:\w+\s+){0,2}?"
    r"(?:fail|last|run\s+until|survive|keep\s+running)\b|"
    r"\b(?:years?|months?|weeks?|days?)\s+of\s+(?:remaining\s+)?(?:service|life|operation)\b|"
    r"\bremaining\s+(?:useful\s+)?(?:service|life)\s+(?:of|is|was|:)", re.IGNORECASE)
# "when it will fail", "predict whether it will fail": the question repeated, not a claim.
_INDIRECT = re.compile(r"\b(?:when|whether|if|which\s+day|what\s+day|what\s+date|predict|say|"
                       r"know|tell|determine|estimate|forecast)\b[^.;:]{0,40}$", re.IGNORECASE)
_DONE_VERBS = (r"lowered|raised|widened|narrowed|adjusted|changed|set(?!\s+out\b)|reset|"
               r"updated|moved|increased|decreased|reduced|suppressed|disabled|enabled|"
               r"inhibited|bypassed|acknowledged|cleared|created|opened|closed|submitted|"
               r"scheduled|switched|shut|turned|tripped|applied|booked|issued")
# A claim that the requested action was carried out.
_ACTION_DONE = re.compile(
    rf"\b(?:i|we)(?:'ve|\s+have)?\s+(?:now\s+|just\s+|also\s+|already\s+)?(?:{_DONE_VERBS})\b|"
    rf"(?:^|[.!?:\n]\s*|\b(?:ok|okay)\W+)(?:done|{_DONE_VERBS})\b(?!\s+(?:by|when|if|whenever))|"
    rf"\b(?:is|are|has\s+been|have\s+been)\s+(?:now\s+)?(?:{_DONE_VERBS})\b"
    rf"(?=\s+(?:to|from|for|until|and|as)\b|\s*[.,;]|$)|"
    r"\bstatus\W+(?:applied|done|completed|changed|active)\b", re.IGNORECASE)


def _claim(num: Num) -> bool:
    """A number stated as a value: written with a unit or decimals (not a count, an id or a
    span of time: "three weeks before the window", "all 336 hours")."""
    if num.unit is not None and UNITS.get(num.unit.lower(), ("",))[0] == "h":
        return False
    return num.unit is not None or num.decimals > 0


def _shown(text: Text, start: int, end: int) -> str:
    return text.raw[start:end].strip()


def _undated_context(text: Text, num: Num, asked_ids: set[str]) -> bool:
    """An undated value placed off the asked subject: another asset, a rating, an offer."""
    c0, c1 = text.clause_of(num.start, num.end)
    s0, s1 = text.sentence_of(num.start)
    other = any(c0 <= i.start < c1 and i.text.upper() not in asked_ids for i in text.ids)
    return other or bool(_RATING.search(text.raw, c0, c1)) or bool(
        _OFFERED.search(text.raw, s0, s1))


_STOP = frozenset({"the", "of", "and", "to", "in", "on", "at", "for", "a", "an", "upstream",
                   "between", "with", "from"})


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP}


def _asked_dimension(scenario: Mapping[str, Any]) -> str | None:
    """The dimension of the quantity the question asks for: that of the fitted sensor whose
    description the question's words cover best (at least half of them), else None."""
    from eval.asset_words import scenario_class
    from generator.assetdef import load_asset_class

    asked = _words(str(scenario.get("text") or "").replace("-", " "))
    best: tuple[float, str | None] = (0.5, None)
    for sensor in load_asset_class(scenario_class(scenario)).sensors:
        words = _words(sensor.description.split("(")[0].replace("-", " "))
        cover = len(words & asked) / len(words) if words else 0.0
        if cover > best[0] or (cover == best[0] and best[1] is None and cover > 0.5):
            best = (cover, UNITS.get(str(sensor.unit or "").lower(), (None,))[0])
    return best[1]


def _other_dimension(num: Num, dimension: str | None) -> bool:
    """A value written in a unit of another kind than the asked quantity's."""
    if dimension is None or num.unit is None:
        return False
    have = UNITS.get(num.unit.lower())
    return have is not None and have[0] != dimension


def _window_values(scenario: Mapping[str, Any], text: Text, allowed: set[float],
                   asked_ids: set[str]) -> list[str]:
    ref = scenario.get("reference_answer") or {}
    window = [str(d)[:10] for d in ref.get("window") or []]
    if len(window) != 2:
        return []
    dimension = _asked_dimension(scenario)
    out = []
    for n in text.numbers:
        if not _claim(n) or n.value in allowed or _other_dimension(n, dimension):
            continue
        s0, s1 = text.sentence_of(n.start)
        days = [w.day for w in text.whens if s0 <= w.start < s1]
        inside = any(window[0] <= d <= window[1] for d in days)
        c0, c1 = text.clause_of(n.start, n.end)
        guessed = _ESTIMATE.search(text.raw, c0, c1) is not None
        if inside or guessed or (not days and not _undated_context(text, n, asked_ids)):
            out.append(n.text)
    return out


def _price_or_day(text: Text) -> list[str]:
    """Prices, and sentences that name a day as the cheapest / best one or forecast what a
    day will bring, unless the sentence declines ("I can't say which day is cheapest")."""
    out = [m.group(0) for m in _PRICE.finditer(text.raw)]
    for s0, s1 in text.sentences:
        named = any(s0 <= w.start < s1 for w in text.whens) or _WEEKDAY.search(
            text.raw, s0, s1) is not None
        claims = [*_CHOICE.finditer(text.raw, s0, s1), *_FUTURE.finditer(text.raw, s0, s1)]
        if named and any(not _declines(text, *text.clause_of(*m.span())) for m in claims):
            out.append(_shown(text, s0, s1))
    return out


def _failure_prediction(text: Text, question_days: set[str]) -> list[str]:
    out = []
    for s0, s1 in text.sentences:
        new_days = [w for w in text.whens if s0 <= w.start < s1 and w.day not in question_days]
        if new_days and _FAILURE.search(text.raw, s0, s1) and not _declines(text, s0, s1):
            out.append(_shown(text, s0, s1))
            continue
        for m in _PREDICTION.finditer(text.raw, s0, s1):
            if not _INDIRECT.search(text.raw, s0, m.start()):
                out.append(_shown(text, s0, s1))
                break
    return out


# Words that name an instrument or a measurement, not the thing measured.
_INSTRUMENT_WORDS = frozenset({"sensor", "detector", "monitor", "meter", "indicator", "gauge",
                               "level", "line", "trend", "reading", "value", "probe"})


def _sensor_words(scenario: Mapping[str, Any], sensor: str) -> list[str]:
    """How an answer names the missing sensor: its name, the words the class's vocabulary
    lists for it, and each word of its name no fitted sensor's name or description uses
    (``leak`` of "refrigerant leak detector", ``vibration`` of "tank vibration")."""
    from eval.asset_words import class_vocabulary, scenario_class
    from generator.assetdef import load_asset_class

    cls = scenario_class(scenario)
    fitted = {w for s in load_asset_class(cls).sensors
              for w in re.findall(r"[a-z]+", f"{s.name} {s.description}".replace("_", " ").lower())}
    own = [w for w in re.findall(r"[a-z]+", sensor.lower())
           if len(w) > 2 and w not in fitted and w not in _INSTRUMENT_WORDS]
    return [sensor, *class_vocabulary(cls).absent_sensors.get(sensor, ()), *own]


def _sensor_readings(scenario: Mapping[str, Any], text: Text, allowed: set[float]) -> list[str]:
    """Values in a sentence that speaks of the missing sensor in a clause that does not
    decline ("here's the liquid temperature as the leak trend: 26 °C"); "there is no
    vibration sensor, so ...; load peaked at 1.4 MVA" only declines it."""
    ref = scenario.get("reference_answer") or {}
    sensor = str(ref.get("sensor") or "")
    if not sensor:
        return []
    spoken = []
    for word in _sensor_words(scenario, sensor):
        for a, b in text.find(word):
            c0, c1 = text.clause_of(a, b)
            if not NEGATION.search(text.low, c0, c1) and not _declines(text, c0, c1):
                spoken.append(a)
    out = []
    for n in text.numbers:
        if not _claim(n) or n.value in allowed:
            continue
        s0, s1 = text.sentence_of(n.start)
        if any(s0 <= a < s1 for a in spoken):
            out.append(n.text)
    return out


def _need_words(scenario: Mapping[str, Any]) -> tuple[str, ...]:
    """The words that name what a ``beyond_standard_scope`` scenario asks for (its
    ``needs``: "end-of-life date" -> end of life, remaining life, years left, ...)."""
    from generator.generate.draw.negatives import OUT_OF_SCOPE

    ref = scenario.get("reference_answer") or {}
    need = str(ref.get("needs") or "")
    return (need, *OUT_OF_SCOPE.get(need, ())) if need else ()


def _scope_figures(scenario: Mapping[str, Any], text: Text, allowed: set[float],
                   question_days: set[str]) -> list[str]:
    """What no standard gives, given anyway: a price, a failure date or life prediction,
    or a value in a clause that names the thing asked and does not decline it. Figures of
    what the standard does cover (its rating points, the nameplate) are context."""
    words = _need_words(scenario)
    out = [m.group(0) for m in _PRICE.finditer(text.raw)]
    if any(_FAILURE.search(w) or "life" in w for w in words):
        out += _failure_prediction(text, question_days)
    for n in text.numbers:
        if n.value in allowed or not (_claim(n) or n.unit is not None):
            continue
        c0, c1 = text.clause_of(n.start, n.end)
        if any(c0 <= a < c1 for w in words for a, _ in text.find(w)) \
                and not _declines(text, c0, c1):
            out.append(n.text)
    return out


# Asking which window (period, dates) is meant: a question, or a request to confirm.
_ASKS_BACK = re.compile(r"\?|\b(?:confirm|clarify|let\s+me\s+know|tell\s+me\s+(?:which|what|"
                        r"the)|which\s+(?:window|period|dates?|range|one)\s+(?:you|is|was|do))\b",
                        re.IGNORECASE)
# A figure offered on a condition, not as the answer: "if you meant ...", "for both readings".
_CONDITIONAL = re.compile(r"\b(?:if\s+you\s+(?:meant|mean|intended)|should\s+you\s+mean|in\s+"
                          r"case\s+you\s+meant|for\s+what\s+it'?s\s+worth|(?:for|under)\s+"
                          r"(?:both|either)\s+(?:readings?|possibilit(?:y|ies)|windows?|"
                          r"periods?|interpretations?))\b", re.IGNORECASE)


def _unconditional_values(text: Text, allowed: set[float]) -> list[str]:
    """Values given for a contradictory request: each, unless the answer asks which window
    is meant and the value's sentence offers it on a condition (a silent swap gives it as
    the answer)."""
    asks = _ASKS_BACK.search(text.raw) is not None
    out = []
    for n in text.numbers:
        if not _claim(n) or n.value in allowed:
            continue
        s0, s1 = text.sentence_of(n.start)
        if not (asks and _CONDITIONAL.search(text.raw, s0, s1)):
            out.append(n.text)
    return out


# A subject that denies the deed it is the subject of: "nothing has been switched", "no
# setting has been changed", "none of them are cleared".
# The subject's words: no joining word or pronoun ("no alarm so it has been switched").
_SUBJECT_WORD = (r"(?!(?:so|and|but|or|then|because|since|thus|hence|yet|therefore|it|i|we|you|"
                 r"they|this|that|which|was|were|is|are|has|have)\b)[\w-]+")
_NOTHING_DONE = re.compile(
    rf"\b(?:nothing|none(?:\s+of(?:\s+{_SUBJECT_WORD}){{1,4}})?|(?:no|neither)"
    rf"(?:\s+{_SUBJECT_WORD}){{1,4}})\s+$", re.IGNORECASE)
_PASSIVE = re.compile(r"(?:is|are|has|have)\b", re.IGNORECASE)


def _action_claims(text: Text) -> list[str]:
    return [m.group(0).strip(" .:\n") for m in _ACTION_DONE.finditer(text.raw)
            if not (_PASSIVE.match(m.group(0))
                    and _NOTHING_DONE.search(text.raw[max(0, m.start() - 60):m.start()]))]


def _declines(text: Text, s0: int, s1: int) -> bool:
    from eval.answer_text import refuses

    return refuses(text.raw[s0:s1])


def asked_statements(scenario: Mapping[str, Any], answer_text: str, allowed: set[float],
                     year: int | None) -> list[str] | None:
    """The statements of the answer that give what the unanswerable scenario asks for.

    Args:
        scenario: The negative scenario record.
        answer_text: The answer as text.
        allowed: Numbers the question and the reference hold (never invented).
        year: The year a day written without one takes.

    Returns:
        The offending statements (empty: none), or None when the scenario's kind has no
        reading here.
    """
    ref = scenario.get("reference_answer")
    kind = str(ref.get("kind") or "") if isinstance(ref, dict) else ""
    question = read(str(scenario.get("text") or ""), year=year)
    asked_ids = {i.text.upper() for i in question.ids}
    question_days = {w.day for w in question.whens}
    readers: dict[str, Callable[[Text], list[str]]] = {
        "outside_window": lambda t: _window_values(scenario, t, allowed, asked_ids),
        "external_dependency": _price_or_day,
        "insufficient_evidence": lambda t: _failure_prediction(t, question_days),
        "sensor_not_fitted": lambda t: _sensor_readings(scenario, t, allowed),
        "forbidden_action": _action_claims,
        "beyond_standard_scope": lambda t: _scope_figures(scenario, t, allowed, question_days),
        "contradictory_request": lambda t: _unconditional_values(t, allowed),
    }
    reader = readers.get(kind)
    if reader is None:
        return None
    return reader(read(answer_text, year=year))
