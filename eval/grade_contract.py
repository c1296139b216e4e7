"""Grading an answer by its family's answer contract (:mod:`generator.contract`).

Only the facts the text asks for are graded; each weighs the same (``1/K``), and the parts
of a set, mapping or list of records share their fact's weight. The answer is read once
(:func:`eval.reader.read`) and every fact is looked for by its kind:

- **count** / **quantity**: a number (digits or words) equal to the reference, within the
  tolerance or the rounding it was written with, in the fact's unit or a convertible one
  (°F for °C, K or °F steps for a difference, pu for %, COP for kW/ton, kVA for MVA ...). A
  number written in a unit of another kind does not count.
- **timestamp** / **date**: a date (and time, at the contract's granularity) in any form the
  reader knows; a time written alone counts for the question's own day.
- **id** / **ids**: the id as a token; a set's members, and (``exact``) no other member; an
  id of their shape written in one list with every member is a further member either way.
- **label** / **labels**: the label or one of its phrasings as whole words, not negated,
  not inside a longer label's phrasing.
- **boolean**: the contract's phrasings for true and false (a negated phrasing counts for
  the other side), else the answer's leading yes/no when the fact is the text's yes/no
  question, else the clause that names the fact, read for a negation.
- **mapping**: each key (or its phrasing) with its value next to it, before the next key.
- **records**: each record found by its first field, its other fields in the same sentence.

**Binding.** Every fact's ``means`` words are anchors. A value whose clause holds another
fact's anchor nearer than any of this fact's is that other fact's value: the hot-spot
number written next to "top oil" is not the hot spot. An id or label fact whose anchor
appears must have its value as the nearest value of that kind to one of its anchors.

**Hedges.** A value joined by "or" to another value of the same kind ("T2 or T3", "3 or 4
orders") states two answers for one fact: no match.

**Stated wrong.** A fact the text does not ask for is not graded, but one the answer states
against the reference is a miss: a time or label tied to its words, a count in its words'
clause, a list of times (none on record: any), a mapping value next to its key, a record
field by its own words, a time right after the value it is the time of (``time_of``). An
asked set or list also fails on another size written before its words ("four sites"), on a
label in the one list that holds all its members, and a stretch on a range of hours that
gives another end (``stretch``). A count fails on more ids or codes enumerated right
after it than it says ("one repair: A, then B").

A structured answer (a JSON object) that has a fact's key is read at that key (the value's
text, without binding); a fact whose key it lacks is read from the whole answer's text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from eval.reader import CONTRACT_UNITS, NEGATION, Num, Span, Text, When, read, stem
from generator.contract import AnswerContract, FactSpec
from generator.generate.tolerance import within

# Two values joined by "or" ("T2 or T3", "3 or 4 orders", "no corrective job or one").
_HEDGE = re.compile(r"\s*,?\s*(?:[a-z-]+\s+){0,3}(?:or|or maybe|or possibly|or perhaps|"
                    r"or about|or around|and/or|either)\s*", re.IGNORECASE)
_ASIDE_IN_GAP = re.compile(r"\s*(?:\([^()]{0,40}\)|\[[^\[\]]{0,40}\])\s*")
_NONE_PHRASE = re.compile(r"\b(?:not (?:a single|any|one)|not applicable|n/a|no|none|zero|nil|"
                          r"nothing|neither)\b", re.IGNORECASE)
# Facts that are themselves totals ("264 of 264 expected hours", "0 of 6 modes").
_TOTAL_FACT = re.compile(r"total|expected", re.IGNORECASE)
_DOUBT = re.compile(r"\b(?:maybe|perhaps|possibly|might|may or may not|not sure|unclear|"
                    r"uncertain|borderline)\b")
# "very poor" is not the band "poor" (unless a label's own phrasing says "very").
_INTENSIFIED = re.compile(r"\b(?:very|extremely|highly|severely|critically)\s+$")
# A number said relative to another ("40 K above normal"): a difference, not the value.
_RELATIVE = re.compile(r"\s*(?:above|below|over|under|higher than|lower than|more than|"
                       r"less than|warmer than|cooler than|hotter than)\b")
# One end of a range of numbers ("73-80 °C", "2 to 3 orders").
_RANGED = re.compile(r"\s*(?:-|–|—|to|and)\s*\d")
# A bound written before a number ("the > 30 years band", "at least 5 orders"): a threshold
# the value is compared with, not the value.
_BOUND_BEFORE = re.compile(r"(?:[<>≤≥]=?|\b(?:over|under|above|below|more than|less than|"
                           r"fewer than|at least|at most|up to|beyond))\s*$")
# An aside about what lies outside the window asked ("looking past the window, ...").
_ASIDE = re.compile(r"\b(?:past|beyond|outside|after|before)\s+(?:the|this|that|your)\s+"
                    r"(?:asked\s+)?(?:window|period|range|interval|time frame|timeframe)\b")
# "that's also the", "which is also the": what follows names the value before it again.
_ALSO_THE = re.compile(r"\b(?:that|which|this|it)(?:'s|’s|\s+is|\s+was|\s+being)\s+also\s+"
                       r"(?:the\s+)?$")
# Words saying a phrase is said of several things ("both stood out", "these stand out").
_SEVERAL = re.compile(r"\b(?:both|several|these|those|multiple)[ \t]+(?:[a-z-]+[ \t]+){0,2}$")
_ISO_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2}))?")


@dataclass(frozen=True)
class Part:
    """The outcome of one gradable part of a fact."""

    path: str
    ok: bool
    expected: Any
    given: Any = None
    why: str = ""


@dataclass
class Context:
    """What every matcher needs: the answer read, the tolerances, the question read."""

    text: Text
    question: Text
    contract: AnswerContract
    abs_tol: dict[str, float]
    rel_tol: dict[str, float]
    bind: bool = True
    # Keys the reference holds a value for: an absent fact's words bind nothing.
    present: frozenset[str] | None = None
    # While a list of records is matched: its fact's key, which its fields' values may bind to.
    parent: str | None = None
    # While a value is read inside its record's or mapping entry's window.
    windowed: bool = False
    # The reference answer: a total's value is no size of a set ("the six modes").
    reference: Mapping[str, Any] = field(default_factory=dict)
    _anchors: dict[str, list[tuple[int, int]]] | None = None

    def anchors(self) -> dict[str, list[tuple[int, int]]]:
        """Spans of every fact's `means` words in the answer, by fact key."""
        if self._anchors is None:
            self._anchors = {}
            for f in self.contract.facts:
                if self.present is not None and f.key not in self.present:
                    continue
                spans: list[tuple[int, int]] = []
                for phrase in f.means:
                    spans.extend(self.text.find(phrase))
                self._anchors[f.key] = [s for s in spans if not _compound_tail(self.text, *s)]
        return self._anchors

    def owners(self, start: int, end: int, group: str | None = None,
               num: Num | None = None) -> set[str] | None:
        """The facts (of the value's kind group) whose anchor is nearest to a value: in its
        clause, else before it in its sentence; None when no anchor is near (unbound)."""
        if not self.bind:
            return None
        c0, c1 = self.text.clause_of(start, end)
        s0, _ = self.text.sentence_of(start)
        best: dict[str, int] = {}
        totals = {f.key for f in self.contract.facts if _TOTAL_FACT.search(f.key)}
        for key, spans in self.anchors().items():
            if group is not None and self.groups().get(key) != group:
                continue
            if self.kinds().get(key) == "mapping" and self.parent != key:
                continue  # a mapping's values are read next to its keys, not its words
            if num is not None and not _unit_fits(self.contract.fact(key), num):
                continue  # "1.31 h" is no value of a unitless factor
            if num is not None and num.total and totals and key not in totals:
                continue  # "264 of 264 records": the second is the expected count's
            total = self._total_of(num, key) if num is not None else None
            for a, b in spans:
                if a <= start < b or a < end <= b or (start <= a and b <= end):
                    continue
                if total is not None and re.fullmatch(r"\s*", self.text.raw[total:a]):
                    continue  # "1 of 2 alerts": the words right after the total are its
                if a >= end and self._other_value_between(group, (start, end), (a, b)):
                    continue  # that anchor names a nearer value ("192 hourly readings")
                if self._said_of_several(key, a):
                    continue  # "two hours stand out: ...": a list's words, not the one value's
                if c0 <= a and b <= c1:
                    dist = start - b if b <= start else a - end
                elif s0 <= a and b <= start:
                    dist = 10_000 + start - b
                else:
                    continue
                best[key] = min(best.get(key, 1 << 30), dist)
        if not best:
            return None
        nearest = min(best.values())
        return {k for k, d in best.items() if d == nearest}

    def _total_of(self, num: Num, key: str) -> int | None:
        """Where the total after a number ends ("1 of 2 alerts") when that total is the
        reference's value of the fact ``key``: that fact's words right after the total
        name the total, not the number ("1 of 2 alerts led to work": 2 alerts, 1 followed)."""
        ref = self.reference.get(key)
        if not isinstance(ref, int | float) or isinstance(ref, bool):
            return None
        for n in self.text.numbers:
            if n.total and n.start >= num.end and re.fullmatch(
                    r"\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?", self.text.raw[num.end:n.start]):
                return n.end if n.value == ref else None
        return None

    def _said_of_several(self, key: str, anchor: int) -> bool:
        """True when the words of a one-value fact (a worst time, a label) are said of
        several things ("two hours stand out", "both stood out"): they describe a list."""
        fact = self.contract.fact(key)
        if fact is None or kind_group(fact) == "number" or key not in self.reference or (
                isinstance(self.reference[key], list | dict)):
            return False
        low = self.text.low
        if _SEVERAL.search(low[max(0, anchor - 40):anchor]):
            return True
        return any(n.value >= 2 and not n.total and not n.decimals and n.end <= anchor and (
            re.fullmatch(r"[ \t]+(?:[a-z-]+[ \t]+){0,2}", low[n.end:anchor])) and not any(
            w.start <= n.start < w.end for w in self.text.whens) for n in self.text.numbers)

    def _other_value_between(self, group: str | None, value: tuple[int, int],
                             anchor: tuple[int, int]) -> bool:
        """True when another value of the group stands between a value and an anchor."""
        lo, hi = (value[1], anchor[0]) if anchor[0] >= value[1] else (anchor[1], value[0])
        if group == "number":
            # "1 of 2 alerts led to work": the words after a total are the total's.
            spans = [(n.start, n.end) for n in self.text.numbers if not n.total]
        elif group == "time":
            spans = [(w.start, w.end) for w in self.text.whens]
        elif group == "id":
            spans = [(i.start, i.end) for i in self.text.ids]
        else:
            return False
        return any(lo <= x and y <= hi and (x, y) != value for x, y in spans)

    def kinds(self) -> dict[str, str]:
        """Each fact's kind."""
        return {f.key: f.kind for f in self.contract.facts}

    def groups(self) -> dict[str, str]:
        """Each fact's kind group: values only compete with facts of the same group."""
        return {f.key: kind_group(f) for f in self.contract.facts}

    def bound(self, fact: FactSpec, start: int, end: int, num: Num | None = None) -> bool:
        """True unless the value is bound to another fact's words (of the same group); a
        value read in a record's or a mapping entry's own window is that entry's."""
        if self.windowed:
            return True
        owners = self.owners(start, end, kind_group(fact), num)
        return owners is None or fact.key in owners or self.parent in owners or (
            self.restated_as(fact, end))

    def restated_as(self, fact: FactSpec, end: int) -> bool:
        """True when the value is restated as this fact right after it, before any other
        number: "9.2 °C at 05:00; that's also the peak", "…, which is also the maximum"."""
        numbers = [n.start for n in self.text.numbers]
        for a, _b in self.anchors().get(fact.key, []):
            if not end <= a <= end + 80 or any(end <= x < a for x in numbers):
                continue
            if _ALSO_THE.search(self.text.low, max(end, a - 40), a):
                return True
        return False


def _compound_tail(t: Text, start: int, end: int) -> bool:
    """Whether a word is the tail of a hyphenated compound that qualifies the noun after it
    ("the day-ahead forecast", "off-peak hours"): it names the noun, not the fact."""
    return bool(re.match(r"[A-Za-z0-9]-", t.raw[max(0, start - 2):start])) \
        and " " not in t.raw[start:end] and re.match(r"[ \t]+[A-Za-z]", t.raw[end:]) is not None


def _unit_fits(fact: FactSpec | None, num: Num) -> bool:
    """Whether a written number could be a value of the fact, by its unit."""
    if fact is None or num.unit is None:
        return True
    spec = fact.value if fact.kind == "mapping" and fact.value else fact
    if spec.kind == "count" and spec.unit is None:
        return num.unit is None and not num.decimals  # counts are whole and bare
    if spec.unit is None:
        # A unitless quantity (a factor, a ratio) is not written with a physical unit.
        return spec.kind != "quantity" or bool(num.as_unit("pu"))
    return bool(num.as_unit(spec.unit))


def kind_group(fact: FactSpec) -> str:
    """What kind of value a fact is stated with: number, time, id or word."""
    kind = fact.value.kind if fact.kind == "mapping" and fact.value else fact.kind
    if kind in ("count", "quantity"):
        return "number"
    if kind in ("timestamp", "date"):
        return "time"
    if kind in ("id", "ids"):
        return "id"
    if kind == "records":
        return "records"
    return "word"


# -- numbers ------------------------------------------------------------------------------


def _tol_ok(ctx: Context, top: str, expected: float, given: float, slack: float) -> bool:
    if not (math.isfinite(expected) and math.isfinite(given)):
        return False
    diff = abs(expected - given)
    if diff <= 1e-9 * max(1.0, abs(expected)):
        return True
    if within(expected, given, ctx.abs_tol.get(top, 0.0), ctx.rel_tol.get(top, 0.0)):
        return True
    return diff <= slack + 1e-12


def number_matches(ctx: Context, top: str, fact: FactSpec, n: Num, expected: float) -> bool:
    """Whether a written number states ``expected`` (in the fact's unit)."""
    # A factor written in % ("58 %") is 0.58 of one.
    unit = "pu" if fact.unit is None and fact.kind == "quantity" and n.unit is not None \
        and n.as_unit("pu") else fact.unit
    values = n.as_unit(unit)
    if not values:
        return False
    if n.falling:
        values = [-abs(v) for v in values]  # "down 5.3 ppm" states a change of -5.3
    totals = n.total and not _TOTAL_FACT.search(fact.key)
    if fact.kind == "count" and (n.decimals > 0 or totals
                                 or (n.unit is not None and fact.unit is None)):
        return False
    scale = 1.0
    if n.unit is not None and values:
        bumped = Num(n.start, n.end, n.value + 1.0, n.unit, 0, 0, "").as_unit(unit)
        scale = abs(bumped[0] - values[0]) if bumped else 1.0
    # Digits are read to the rounding they were written with; words too when they say a
    # fraction ("twenty-five point eight"), whole number words only as they are; any
    # number said to be approximate ("about two hours", "roughly 3 h") to its last digit.
    rounded = (n.sig >= 2 and (not n.word or n.decimals > 0)) or _approximate(ctx, n)
    slack = 0.5 * 10.0 ** (-n.decimals) * scale if rounded else 0.0
    if fact.kind == "count":
        slack = 0.0
    return any(_tol_ok(ctx, top, expected, v * f, slack * f) for v in values
               for f in [1.0, *_share_factors(ctx, fact, n)])


# The scale a score is written on, right after it: "0.91 on a 0–1 scale", "(0-10 scale)",
# "on a scale of 0 to 100", "7 out of 10", "91/100".
_ON_SCALE = re.compile(r"\s*\(?\s*(?:(?:on\s+(?:a|the)\s+)?(?:scale\s+(?:of|from)\s+0\s*"
                       r"(?:[-–—]|to)\s*(1|5|10|100)\b|0\s*(?:[-–—]|to)\s*(1|5|10|100)[-\s]+(?:point\s+)?scale)"
                       r"|out\s+of\s+(1|5|10|100)\b|/\s*(1|5|10|100)\b)", re.IGNORECASE)
_SCORE_WORDS = re.compile(r"\b(?:index|score)\b")


def _share_factors(ctx: Context, fact: FactSpec, n: Num) -> list[float]:
    """What turns a unitless score written as a share of its scale into the reference's
    scale, 0–1 or 0–100: a number with its scale after it ("0.91 on a 0–1 scale" is 91 on
    a 0–100 one), and, for a fact named an index or a score, a percent (read first as a
    share of one: "90.6 %" is 90.6 points of 100)."""
    if fact.kind != "quantity" or fact.unit is not None:
        return []
    m = _ON_SCALE.match(ctx.text.low, n.end) if n.unit is None else None
    if m is not None:
        top = float(next(g for g in m.groups() if g))
        return [1.0 / top, 100.0 / top]
    named = " ".join([fact.key.replace("_", " "), *fact.means]).lower()
    return [100.0] if n.unit == "%" and _SCORE_WORDS.search(named) else []


_APPROX = re.compile(r"\b(?:about|around|roughly|approximately|approx\.?|some|nearly|almost|"
                     r"just over|just under|a bit over|a bit under|a little over|close to)\s*$"
                     r"|[~≈]\s*$")


def _approximate(ctx: Context, n: Num) -> bool:
    """Whether a number is said to be approximate ("about two hours", "~3 h")."""
    return _APPROX.search(ctx.text.low[max(0, n.start - 16):n.start]) is not None


def _hedged(ctx: Context, first: tuple[int, int], others: list[tuple[int, int]]) -> bool:
    """True when another value is joined to this one by "or" (two answers for one fact)."""
    raw = ctx.text.raw
    for a, b in others:
        gap = raw[first[1]:a] if a >= first[1] else raw[b:first[0]] if b <= first[0] else None
        if gap is not None:  # "T2 (300-700 °C) or T3": an aside on the first is no answer
            gap = _ASIDE_IN_GAP.sub(" ", gap)
        if gap is not None and len(gap) <= 32 and _HEDGE.fullmatch(gap):
            return True
    return False


def _match_number(ctx: Context, top: str, fact: FactSpec, expected: float,
                  used: set[int] | None = None, within_span: tuple[int, int] | None = None,
                  ) -> Part:
    t = ctx.text
    hits, others = [], []
    for i, n in enumerate(t.numbers):
        if within_span and not (within_span[0] <= n.start < within_span[1]):
            continue
        if used is not None and i in used:
            continue
        if number_matches(ctx, top, fact, n, expected):
            hits.append((i, n))
        elif n.as_unit(fact.unit) and not (fact.kind == "count" and n.decimals):
            others.append((n.start, n.end))
    if any(_hedged(ctx, (n.start, n.end), others) for _, n in hits
           if (ctx.owners(n.start, n.end, "number", n) or {fact.key}) >= {fact.key}):
        return Part(top, False, expected, None, "hedged: another value is given with 'or'")
    for i, n in hits:
        if not ctx.bound(fact, n.start, n.end, n):
            continue
        if _told_elsewhere(ctx, fact, n, others):
            continue
        if used is not None:
            used.add(i)
        listed = _items_listed_after(ctx, n) if fact.kind == "count" else []
        if listed and len(listed) > n.value:
            return Part(top, False, expected, listed,
                        f"{n.text!r}, but {len(listed)} items are listed with it")
        return Part(top, True, expected, n.text, f"{n.text!r}")
    counted = _counted_by_pronoun(ctx, fact, expected, within_span)
    if counted is not None:
        return Part(top, True, expected, counted.text, f"{counted.text!r} (by a pronoun)")
    periods = _counted_periods(ctx, fact, expected, within_span)
    if periods is not None:
        return Part(top, True, expected, periods.text, f"{periods.text!r} (periods counted)")
    if fact.kind == "count" and expected == 0:
        return _match_none(ctx, fact, top)
    given = [n.text for _, n in hits][:3] or [n.text for n in t.numbers][:5] or None
    why = "written next to another quantity's words" if hits else ""
    return Part(top, False, expected, given, why)


def _told_elsewhere(ctx: Context, fact: FactSpec, n: Num,
                    others: list[tuple[int, int]]) -> bool:
    """Whether a quantity's value, bound to none of its kind's words, is said of another
    fact (whose words, of any kind, stand before it in its sentence, with none of this
    fact's) while the answer plainly gives this fact another value by its own words ("first
    over rating at 09:00 (~105 %). Peak: 115.5 % of rating": the peak is 115.5 %)."""
    if fact.kind != "quantity" or not ctx.bind or ctx.windowed \
            or ctx.owners(n.start, n.end, "number", n) is not None:
        return False
    s0, s1 = ctx.text.sentence_of(n.start)
    anchors = ctx.anchors()
    if any(s0 <= a < s1 for a, _b in anchors.get(fact.key, [])) or not any(
            s0 <= a and b <= n.start for k, spans in anchors.items() if k != fact.key
            for a, b in spans):
        return False
    low = ctx.text.low
    for a, b in others:
        m = next((x for x in ctx.text.numbers if (x.start, x.end) == (a, b)), None)
        if m is None or m.unit is None or _RELATIVE.match(low, b) or _RANGED.match(low, b) \
                or _BOUND_BEFORE.search(low[max(0, a - 16):a]):
            continue
        c0, c1 = ctx.text.clause_of(a, b)
        if fact.key in (ctx.owners(a, b, "number", m) or ()) and any(
                c0 <= x and y <= c1 for x, y in anchors.get(fact.key, [])):
            return True
    return False


# Where what a count's list says stops: a new clause of its own, a contrast.
_LIST_SCOPE_END = re.compile(r";|\b(?:but|while|whereas|although|though|except)\b")
_ATTRIBUTE_ASIDE = re.compile(r"\s*[(\[]\s*$")


def _items_listed_after(ctx: Context, n: Num) -> list[str]:
    """The items a count enumerates right after it in its sentence ("One repair in May, P-SL
    on 3 May ..., then P-BW on 20 May"; "2 jobs: A and B"): the ids and codes written from
    a first one within a few words of the number up to a contrast, a ";" or the next number
    (which opens a list of its own), not the question's ids, not a code in brackets right
    after an id (an attribute of it), not one left out there. Of ids of one shape or of
    codes, the larger set."""
    t = ctx.text
    _, s1 = t.sentence_of(n.start)
    stop = _LIST_SCOPE_END.search(t.low, n.end, s1)
    end = min([stop.start() if stop else s1,  # another number opens a list of its own
               *(m.start for m in t.numbers if n.end <= m.start < s1)])
    asked = {s.text.upper() for s in ctx.question.ids}
    tokens = [s for s in t.ids if n.end <= s.start and s.end <= end
              and s.text.upper() not in asked]
    if not tokens or len(re.findall(r"[a-z]+", t.low[n.end:tokens[0].start])) > 5:
        return []
    groups: dict[str, set[str]] = {}
    for i, s in enumerate(tokens):
        attribute = any(_ATTRIBUTE_ASIDE.fullmatch(t.raw, o.end, s.start) for o in tokens[:i])
        own_end = tokens[i + 1].start if i + 1 < len(tokens) else end
        if attribute or t.negated(s.start) or _ID_LEFT_OUT.search(t.low, s.end, own_end) \
                or _LEFT_OUT.search(t.low, s.end, own_end):
            continue
        parts = s.text.split("-")
        numbered = parts[-1].isdigit() or len(parts) >= 3
        groups.setdefault(_shape(s.text) if numbered else "code", set()).add(s.text.upper())
    largest: set[str] = max(groups.values(), key=len, default=set())
    return sorted(largest)


# A pronoun for the whole of what was just counted, right before a count's words ("one
# alert, and it was followed", "3 alarms and all of them got a repair"); "it" is one thing.
_PRONOUN_OF_ALL = re.compile(r"\b(?:(?P<one>it)|all of them|they all|they were all|all of "
                             r"these|all of those|each of them|every one of them|each one)"
                             r"\s+(?:(?!not\b|never\b|n't\b)[a-z]+\s+){0,2}$")


def _counted_by_pronoun(ctx: Context, fact: FactSpec, expected: float,
                        within_span: tuple[int, int] | None) -> Num | None:
    """A count stated by a pronoun for the whole of the number counted just before it in
    its sentence ("one alert (...), and it was followed within 2 days": 1 followed): that
    bare whole number, with no other number between, equals the count (1 for "it")."""
    if fact.kind != "count" or not ctx.bind:
        return None
    t = ctx.text
    for a, _b in ctx.anchors().get(fact.key, []):
        if within_span and not within_span[0] <= a < within_span[1]:
            continue
        s0, _ = t.sentence_of(a)
        m = _PRONOUN_OF_ALL.search(t.low, max(s0, a - 60), a)
        if m is None or t.negated(a):
            continue
        before = [n for n in t.numbers if s0 <= n.start and n.end <= m.start()]
        if not before:
            continue
        n = before[-1]
        if n.unit is None and not n.decimals and not n.total and n.value == expected and (
                m.group("one") is None or n.value == 1):
            return n
    return None


def _counted_periods(ctx: Context, fact: FactSpec, expected: float,
                     within_span: tuple[int, int] | None) -> Num | None:
    """A count written as a number of periods ("43 hours came out anomalous", "on 3 days"):
    a whole number of hours or days equal to the count, tied to the count's own words."""
    if fact.kind != "count" or fact.unit is not None:
        return None
    for n in ctx.text.numbers:
        if n.unit is None or n.decimals or n.total or n.value != expected \
                or n.as_unit("h") == [] or n.as_unit("years"):
            continue
        if within_span and not within_span[0] <= n.start < within_span[1]:
            continue
        if ctx.windowed or fact.key in (ctx.owners(n.start, n.end, "number") or ()):
            return n
    return None


def _stated_for(ctx: Context, fact: FactSpec, vocab: Mapping[str, list[str]]) -> bool:
    """Whether the answer gives a value of the fact's kind tied to the fact's words (a
    label of its vocabulary anywhere it is not tied to another fact)."""
    group = kind_group(fact)
    if group == "word":
        values = {*fact.labels, *vocab} - {"true", "false"}
        spans = [sp for v in values for sp in _label_spans(ctx, label_phrasings(fact, v, vocab))]
        return any(not ctx.text.negated(a) and ctx.bound(fact, a, b) for a, b in spans)
    if group == "number":
        spots = [(n.start, n.end) for n in ctx.text.numbers if n.value != 0]
    elif group == "time":
        spots = [(w.start, w.end) for w in ctx.text.whens]
    elif group == "id":
        spots = [(i.start, i.end) for i in ctx.text.ids]
    else:
        return False
    return any(fact.key in (ctx.owners(a, b, group) or set()) for a, b in spots)


def _match_none(ctx: Context, fact: FactSpec, path: str) -> Part:
    """An empty answer (0, [], {}): the text says none for the fact."""
    spans = [m.span() for m in _NONE_PHRASE.finditer(ctx.text.low)]
    spans += [(n.start, n.end) for n in ctx.text.numbers if n.value == 0 and not n.word]
    has_anchor = bool(ctx.anchors().get(fact.key)) and ctx.bind
    others = [(n.start, n.end) for n in ctx.text.numbers if n.value != 0]
    for a, b in spans:
        owners = ctx.owners(a, b, kind_group(fact))
        mine = (owners is not None and fact.key in owners) or (
            not has_anchor and (owners is None or not ctx.bind)) or (
            owners is None and _opening_reply(ctx, fact, a))
        if mine and _hedged(ctx, (a, b), others):
            return Part(path, False, "none", ctx.text.raw[a:b], "hedged: none or a value")
        if mine:
            return Part(path, True, "none", ctx.text.raw[a:b], "stated as none")
    return Part(path, False, "none", None, "the text does not say there are none")


def _opening_reply(ctx: Context, fact: FactSpec, start: int) -> bool:
    """A value that opens the answer in a sentence naming no fact ("None of them. The run
    status ...") replies to the question itself: it is the fact the question names."""
    s0, s1 = ctx.text.sentence_of(start)
    if ctx.text.raw[:start].strip() or any(
            s0 <= a < s1 for spans in ctx.anchors().values() for a, _ in spans):
        return False
    return any(ctx.question.find(phrase) for phrase in fact.means)


# -- times --------------------------------------------------------------------------------


def _expected_when(value: str) -> tuple[str, int | None, int | None] | None:
    m = _ISO_STAMP.match(value.strip())
    if not m:
        return None
    try:
        date.fromisoformat(m.group(1))
    except ValueError:
        return None
    if m.group(2) is None:
        return m.group(1), None, None
    return m.group(1), int(m.group(2)), int(m.group(3))


def _when_ok(w: When, day: str, hour: int | None, minute: int | None, granularity: str) -> bool:
    if w.day != day:
        return False
    if granularity == "day" or hour is None:
        return True
    if w.hour != hour:
        return False
    return granularity == "hour" or (w.minute or 0) == (minute or 0)


def _whens_on(ctx: Context, day: str) -> list[When]:
    """The dates and times written, with the bare times ("16:18") read on ``day`` when the
    question names that day (or nothing is bound)."""
    whens = list(ctx.text.whens)
    if any(w.day == day for w in ctx.question.whens) or not ctx.bind:
        whens += [When(w.start, w.end, day, w.hour, w.minute) for w in ctx.text.times]
    return whens


def _match_time(ctx: Context, path: str, fact: FactSpec, expected: str,
                within_span: tuple[int, int] | None = None, member: bool = False) -> Part:
    parsed = _expected_when(expected)
    if parsed is None:
        return _match_label(ctx, path, fact, expected)
    day, hour, minute = parsed
    granularity = "day" if fact.kind == "date" else fact.granularity
    for w in _whens_on(ctx, day):
        if within_span and not (within_span[0] <= w.start < within_span[1]):
            continue
        if _when_ok(w, day, hour, minute, granularity) and ctx.bound(fact, w.start, w.end):
            return Part(path, True, expected, ctx.text.raw[w.start:w.end], "date/time found")
    if member and hour is not None and granularity == "hour" and within_span is None and (any(
            d == day and lo <= hour <= hi for d, lo, hi in ctx.text.ranges)
            or _in_day_range(ctx, fact, day, hour)):
        return Part(path, True, expected, f"{day} {hour:02d}:00", "inside a range of hours")
    given = [ctx.text.raw[w.start:w.end] for w in ctx.text.whens[:5]] or None
    return Part(path, False, expected, given, f"not stated at {granularity} precision")


def _in_day_range(ctx: Context, fact: FactSpec, day: str, hour: int) -> bool:
    """Whether a member hour lies in a range of hours written across days ("1 May 22:00
    through 2 May 03:00"): such a range states every hour it covers, when each of them is
    a member; one that also covers other hours (the whole window) states none of them."""
    members = ctx.reference.get(fact.key)
    if not isinstance(members, list):
        return False
    want = {str(v)[:13] for v in members}  # "YYYY-MM-DDTHH"
    at = datetime.fromisoformat(day) + timedelta(hours=hour)
    for d0, h0, d1, h1 in ctx.text.day_ranges:
        first = datetime.fromisoformat(d0) + timedelta(hours=h0)
        steps = int((datetime.fromisoformat(d1) + timedelta(hours=h1) - first).total_seconds()
                    // 3600)
        if first <= at <= first + timedelta(hours=steps) and all(
                (first + timedelta(hours=i)).strftime("%Y-%m-%dT%H") in want
                for i in range(steps + 1)):
            return True
    return False


# -- ids and labels -----------------------------------------------------------------------


def _id_spans(ctx: Context, value: str) -> list[tuple[int, int]]:
    """Where an id (or a name) is written: an id token, or the words outside any id token
    (the site "MAIN" is not written inside "CH-MAIN-03")."""
    if re.fullmatch(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z]{2,}\d{2,}[A-Z0-9]*", value):
        spans = [(s.start, s.end) for s in ctx.text.ids if s.text.upper() == value.upper()]
        if spans:
            return spans
    return [(a, b) for a, b in ctx.text.find(value)
            if not any(i.start <= a and b <= i.end and (i.start, i.end) != (a, b)
                       for i in ctx.text.ids)]


def _shape(value: str) -> str:
    return re.sub(r"\d+$", "#", value.rsplit("-", 1)[0] if "-" in value else value)


def _asserted(ctx: Context, spans: list[tuple[int, int]], fact: FactSpec,
              inside: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """The spans that state the value: not inside a longer rival, not negated, bound."""
    inside = inside or []
    out = []
    for a, b in spans:
        if any(x <= a and b <= y and (x, y) != (a, b) for x, y in inside):
            continue
        if ctx.text.negated(a) or _DENIED.match(ctx.text.low, b):
            continue
        if fact.kind in ("label", "labels") and ctx.text.denied_after(a, b):
            continue  # "evaporator fouling is not linked": a label its verb denies
        c0, c1 = ctx.text.clause_of(a, b)
        if _DOUBT.search(ctx.text.low, c0, c1):
            continue  # "EAST-TX02 maybe": a member the answer does not assert
        if not ctx.bound(fact, a, b):
            continue
        out.append((a, b))
    return out


def _nearest_to_anchor(ctx: Context, fact: FactSpec, candidates: list[tuple[int, int, str]],
                       ) -> set[str]:
    """The values (of the fact's kind) nearest to each of its anchors, in its sentence."""
    stated: set[str] = set()
    if not ctx.bind:
        return stated
    for a, b in ctx.anchors().get(fact.key, []):
        for lo, hi in (ctx.text.clause_of(a, b), ctx.text.sentence_of(a)):
            near = [(min(abs(x - b), abs(a - y)), v) for x, y, v in candidates
                    if lo <= x < hi]
            if near:
                stated.add(min(near)[1])
                break
    return stated


def label_phrasings(fact: FactSpec, value: str, vocab: Mapping[str, list[str]]) -> list[str]:
    """Every phrasing of a label: the value itself, the contract's and the vocabulary's."""
    out = [value, value.replace("_", " ")]
    out += fact.labels.get(value, [])
    out += vocab.get(value, [])
    out += [v for p in out for v in _idiom_variants(p)]
    return [p for p in dict.fromkeys(out) if p.strip()]


# Idioms that say the same of a record: an order "on file" is "on record".
_SAME_IDIOMS = (("on file", "on record"),)
# Words of degree that say the same of the quantity they qualify: a "short" refrigerant
# charge is a low one, an "elevated" discharge superheat a high one.
_SAME_DEGREE = (("low", "short", "insufficient", "inadequate", "deficient"),
                ("high", "excessive", "elevated"))


def _idiom_variants(phrase: str) -> list[str]:
    """A phrasing written with the other idiom of a pair that says the same thing."""
    low = f" {phrase.lower()} "
    return [low.replace(f" {a} ", f" {b} ").strip() for pair in _SAME_IDIOMS
            for a, b in (pair, pair[::-1]) if f" {a} " in low] + _degree_variants(phrase)


def _degree_variants(phrase: str) -> list[str]:
    """A phrasing of several words with one word of degree written as another that says
    the same of its quantity ("short refrigerant charge" for "low refrigerant charge"); a
    one-word phrasing ("low", a band) has none."""
    words = phrase.lower().split()
    if len(words) < 2:
        return []
    return [" ".join([*words[:i], other, *words[i + 1:]])
            for i, w in enumerate(words) for group in _SAME_DEGREE if w in group
            for other in group if other != w]


def _label_spans(ctx: Context, phrasings: list[str],
                 rivals: list[str] | None = None) -> list[tuple[int, int]]:
    """Where a label's phrasings are written; read loosely (:func:`_phrasing_spans`) only
    where no rival phrasing is written word for word."""
    spans: list[tuple[int, int]] = []
    for p in phrasings:
        spans.extend(_id_spans(ctx, p) if p.isupper() else _phrasing_spans(ctx.text, p, rivals))
    return list(dict.fromkeys(spans))


def _phrasing_spans(text: Text, phrase: str,
                    rivals: list[str] | None = None) -> list[tuple[int, int]]:
    """Where a phrasing is written: word for word, or with its words varied (stems, a few
    words between, an aside) where no rival phrasing is written word for word over it
    ("more slowly than normal" is not "more than normal"), unless wholly inside it."""
    exact = text.find(phrase)
    taken = [s for r in rivals or [] if r != phrase for s in text.find(r)]
    loose = [(a, b) for a, b, c in text.find_loose(phrase)
             if (a, b) not in exact and not any(a < y and x < c and not (
                 a <= x and y <= c and (x, y) != (a, c)) for x, y in taken)]
    return exact + loose


# "tripped: no", "inspection_needed = false": a phrasing with its answer (no) after it; a
# JSON key may qualify it with a date or number first ("trip_on_2026-08-10": false).
_DENIED = re.compile(r"(?:[_-]\d[\w-]*)?[\"']?\s*\**\s*[:=]\s*[*\"']*\s*(?:no|false|none|never)\b"
                     r"[*\"']*\s*(?:[.;,)}\n|]|$)")
_NEGATIVE_PHRASING = re.compile(r"(?:no|not)\s+(.+)", re.IGNORECASE)
# A question echoed and then answered in one clause ("can TX03 carry 125 % for 4 h at 35 °C
# (normal cyclic limits)? no, ..."): the phrasing takes the reply written after it.
_ECHO_REPLY = re.compile(r"[^.;!\n]{0,160}?[:?]\s*[*\"']*\s*(yes|no)[*\"']*(?=\s*(?:[,.;:!—–)]|$))")


def _denied_stems(ctx: Context, phrasings: list[str],
                  within_span: tuple[int, int] | None) -> list[tuple[int, int]]:
    """Where a negative phrasing ("no inspection needed") is written as its stem with the
    answer no after it ("inspection needed: no", "inspection_needed = false")."""
    out = []
    for p in phrasings:
        m = _NEGATIVE_PHRASING.fullmatch(p.strip())
        if m is None:
            continue
        out += [(a, b) for a, b in ctx.text.find(m.group(1))
                if _DENIED.match(ctx.text.low, b) and not ctx.text.negated(a) and (
                    within_span is None or within_span[0] <= a < within_span[1])]
    return out


def _rival_phrasings(phrasings: Mapping[str, list[str]], value: str) -> list[str]:
    """The phrasings of every other value (those it shares are no rivals)."""
    own = set(phrasings[value])
    return [p for v, ps in phrasings.items() if v != value for p in ps if p not in own]


def _match_label(ctx: Context, path: str, fact: FactSpec, expected: str,
                 vocab: Mapping[str, list[str]] | None = None,
                 within_span: tuple[int, int] | None = None,
                 also_expected: frozenset[str] = frozenset()) -> Part:
    """A label stated as the fact's value: asserted, not a hedge with a rival label, and,
    when the fact's words are written, the label nearest to them (``also_expected``: the
    other members of a set, which are no rivals)."""
    vocab = vocab or {}
    other_values = [v for v in {*fact.labels, *vocab}
                    if v != expected and v not in ("true", "false")]
    phrasings = {v: label_phrasings(fact, v, vocab) for v in [expected, *other_values]}
    mine = _label_spans(ctx, phrasings[expected], _rival_phrasings(phrasings, expected))
    others = {v: _label_spans(ctx, phrasings[v], _rival_phrasings(phrasings, v))
              for v in other_values}
    longer = [s for spans in others.values() for s in spans]
    rival_spans = [s for v, spans in others.items() if v not in also_expected for s in spans]
    if within_span:
        mine = [s for s in mine if within_span[0] <= s[0] < within_span[1]]
        rival_spans = [s for s in rival_spans if within_span[0] <= s[0] < within_span[1]]
    # A phrasing answered no ("repair needed: no") asserts none of the words inside it.
    denied = [s for s in mine + longer if _DENIED.match(ctx.text.low, s[1])]
    denied += [s for v in other_values
               for s in _denied_stems(ctx, label_phrasings(fact, v, vocab), None)]
    good = [(a, b) for a, b in _asserted(ctx, mine, fact, inside=longer + denied)
            if not _INTENSIFIED.search(ctx.text.low[max(0, a - 12):a])]
    good += _denied_stems(ctx, label_phrasings(fact, expected, vocab), within_span)
    if not good:
        return Part(path, False, expected, None, "label not stated (or negated)")
    rivals = [s for s in rival_spans if not ctx.text.negated(s[0])
              and not _DENIED.match(ctx.text.low, s[1])
              and not any(x <= s[0] and s[1] <= y for x, y in mine)]
    if _hedged(ctx, good[0], rivals):  # its first statement gives two answers
        return Part(path, False, expected, None, "hedged with another label")
    if fact.kind == "label" and within_span is None:
        candidates = [(a, b, "mine") for a, b in good] + [(a, b, "rival") for a, b in rivals]
        stated = _nearest_to_anchor(ctx, fact, candidates)
        if stated == {"rival"}:
            return Part(path, False, expected, None, "another label is given for this fact")
    a, b = good[0]
    return Part(path, True, expected, ctx.text.raw[a:b], "label stated")


def _match_id(ctx: Context, path: str, fact: FactSpec, expected: str,
              member: bool = False) -> Part:
    """An id stated for the fact; a single id must also be the one nearest the fact's
    words and not hedged with another (a set's members need only be stated)."""
    spans = _id_spans(ctx, expected)
    good = _asserted(ctx, spans, fact)
    if not good:
        return Part(path, False, expected, [s.text for s in ctx.text.ids[:5]] or None,
                    "id not stated for this fact")
    shape = _shape(expected)
    same = [(s.start, s.end, s.text.upper()) for s in ctx.text.ids if _shape(s.text) == shape]
    # A name written as words ("the EASTPLANT site") is a candidate as much as an id token.
    same += [(a, b, expected.upper()) for a, b in good if (a, b, expected.upper()) not in same]
    stated = set() if member else _nearest_to_anchor(ctx, fact, same)
    if stated and expected.upper() not in stated:
        return Part(path, False, expected, sorted(stated), "another id is named for this fact")
    rivals = [(a, b) for a, b, v in same if v != expected.upper()]
    if _hedged(ctx, good[0], rivals):
        return Part(path, False, expected, ctx.text.raw[good[0][0]:good[0][1]], "hedged")
    return Part(path, True, expected, expected, "id stated")


def _match_members(ctx: Context, path: str, fact: FactSpec, expected: list[Any],
                   vocab: Mapping[str, list[str]]) -> list[Part]:
    """A set (or ordered list) of ids or labels; an empty one is said as none, or by
    stating nothing for it."""
    if not expected:
        part = _match_none(ctx, fact, path)
        return [part if part.ok or _stated_for(ctx, fact, vocab) else Part(
            path, True, [], None, "none, and nothing is stated for it")]
    parts: list[Part] = []
    positions: list[int] = []
    member_spans: list[list[tuple[int, int]]] = []
    for i, value in enumerate(expected):
        sub = f"{path}[{i}]"
        if not isinstance(value, str):
            parts.append(_match_scalar(ctx, sub, fact, value, vocab))
            continue
        if _expected_when(value) is not None:
            part = _match_time(ctx, sub, fact, value, member=True)
            spans = [(w.start, w.end) for w in ctx.text.whens if w.day == value[:10]]
        elif fact.kind == "ids":
            part = _match_id(ctx, sub, fact, value, member=True)
            spans = _id_spans(ctx, value)
        else:
            part = _match_label(ctx, sub, fact, value, vocab, also_expected=frozenset(
                str(v) for v in expected))
            spans = _label_spans(ctx, label_phrasings(fact, value, vocab))
        parts.append(part)
        member_spans.append(spans)
        if spans:
            positions.append(min(a for a, _ in spans))
    if fact.ordered and len(positions) == len(expected) and positions != sorted(positions) \
            and not _ranked_in_order(ctx, member_spans):
        parts.append(Part(f"{path}.order", False, expected, None, "not in the order asked"))
    if fact.exact and all(p.ok for p in parts):
        extra = _extra_members(ctx, fact, expected, vocab)
        if extra:
            parts.append(Part(f"{path}.extra", False, expected, extra,
                              f"states members beyond the reference: {', '.join(extra)}"))
    elif fact.kind == "ids" and all(p.ok for p in parts):
        listed = _listed_extra_ids(ctx, expected)
        if listed:
            parts.append(Part(f"{path}.extra", False, expected, listed,
                              f"lists ids beyond the reference with the members: "
                              f"{', '.join(listed)}"))
    return parts


# What joins the ids of one list: separators, an aside in brackets after an id, a bullet
# line (with a description after its id).
_ID_LIST_GAP = re.compile(r"(?:[ \t,/&+]|\band\b|\bas well as\b|\bplus\b|\([^()\n]{0,160}\)"
                          r"|\[[^\[\]\n]{0,160}\]|(?:[ \t]*[:–—-][^\n]{0,160})?\n[ \t]*"
                          r"(?:[-*•]|\d+[.)])[ \t]+)*", re.IGNORECASE)
# Words saying an id written in a list is left out of it ("outside the window", "too late",
# "not counted"; also ``_LEFT_OUT``).
_ID_LEFT_OUT = re.compile(NEGATION.pattern + r"|\b(?:outside|beyond|too late|too early)\b",
                          re.IGNORECASE)


def _listed_extra_ids(ctx: Context, expected: list[Any]) -> list[str]:
    """Ids written in one list with every member, of the members' shape, and not left out
    there ("WO-4 and WO-5 (outside the window)"): the answer claims them as members too,
    whether or not the fact is exact. A list of more than the members is context when the
    answer also lists exactly the members ("on record: A, B and C; of these A and B ...")."""
    want = {str(v).upper() for v in expected}
    shapes = {_shape(str(v)) for v in expected}
    asked = {s.text.upper() for s in ctx.question.ids}
    raw = ctx.text.raw
    chains: list[list[Span]] = []
    for s in sorted((s for s in ctx.text.ids if _shape(s.text) in shapes),
                    key=lambda s: s.start):
        last = chains[-1][-1] if chains else None
        if last is not None and _ID_LIST_GAP.fullmatch(raw, last.end, s.start):
            chains[-1].append(s)
        else:
            chains.append([s])
    if any({s.text.upper() for s in c} == want for c in chains):
        return []
    out = []
    for chain in chains:
        if not want <= {s.text.upper() for s in chain}:
            continue
        for i, s in enumerate(chain):
            if s.text.upper() in want | asked or ctx.text.negated(s.start) or \
                    ctx.text.denied_after(s.start, s.end):
                continue
            own_end = chain[i + 1].start if i + 1 < len(chain) else _own_end(ctx, s)
            low = ctx.text.low
            if not (_ID_LEFT_OUT.search(low, s.end, own_end)
                    or _LEFT_OUT.search(low, s.end, own_end)):
                out.append(s.text)
    return sorted(set(out))


def _own_end(ctx: Context, s: Span) -> int:
    """Where what an id's list says of it alone ends: its aside in brackets and the rest of
    its clause, or its bullet line."""
    raw = ctx.text.raw
    aside = re.compile(r"\s*(?:\([^()\n]{0,160}\)|\[[^\[\]\n]{0,160}\])").match(raw, s.end)
    at = aside.end() if aside else s.end
    line_end = raw.find("\n", at)
    _, c1 = ctx.text.clause_of(at, at + 1) if at < len(raw) else (at, at)
    end = max(c1, at)
    return min(end, line_end) if line_end >= 0 and end > line_end else end


_RANK_MARK = re.compile(r"(?:^|[\s(:;,])#?([1-9])[.)]\s*[*_]*$")
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
             "4th": 4, "fifth": 5, "5th": 5}
_ORDINAL = re.compile(r"\b(?:" + "|".join(_ORDINALS) + r")\b", re.IGNORECASE)


def _ranked_in_order(ctx: Context, spans: list[list[tuple[int, int]]]) -> bool:
    """Whether the answer states a ranking of the members in their order, though it first
    mentions them in another: each member numbered ("1) A ... 2) B"), or given an ordinal
    in its clause ("B goes second ... First out is A"), or a concluding sentence ("So: A,
    then B") that names them all in order."""
    t = ctx.text
    def ranks(rank_of: Callable[[int, int], int | None]) -> list[int] | None:
        out = []
        for member in spans:
            got = {r for a, b in member for r in [rank_of(a, b)] if r is not None}
            if len(got) != 1:
                return None
            out.append(got.pop())
        return out if len(set(out)) == len(out) else None

    def numbered(a: int, _b: int) -> int | None:
        m = _RANK_MARK.search(t.raw, max(0, a - 8), a)
        return int(m.group(1)) if m else None

    def ordinal(a: int, b: int) -> int | None:
        c0, c1 = t.clause_of(a, b)
        found = {_ORDINALS[m.group(0).lower()] for m in _ORDINAL.finditer(t.raw, c0, c1)}
        return found.pop() if len(found) == 1 else None

    for rank_of in (numbered, ordinal):
        got = ranks(rank_of)
        if got is not None:
            return got == sorted(got)
    for s0, s1 in t.sentences:
        if not _CONCLUDING.match(t.raw, s0, s1):
            continue
        firsts = [min((a for a, _ in m if s0 <= a < s1), default=-1) for m in spans]
        if -1 not in firsts:
            return firsts == sorted(firsts)
    return False


def _extra_members(ctx: Context, fact: FactSpec, expected: list[Any],
                   vocab: Mapping[str, list[str]]) -> list[str]:
    want = {str(v).upper() for v in expected}
    asked_ids = {s.text.upper() for s in ctx.question.ids}
    if fact.kind == "ids":
        shapes = {_shape(str(v)) for v in expected}
        return sorted({
            s.text for s in ctx.text.ids
            if _shape(s.text) in shapes and s.text.upper() not in want
            and s.text.upper() not in asked_ids and not ctx.text.negated(s.start)
            and (fact.key in (ctx.owners(s.start, s.end, "id") or set())
                 or _DOUBT.search(ctx.text.low, *ctx.text.clause_of(s.start, s.end)))
        })  # a further member stated for the fact, or one the answer hedges on
    out = []
    for value in {*fact.labels, *vocab} - {str(v) for v in expected}:
        spans = _label_spans(ctx, label_phrasings(fact, value, vocab))
        inside = [s for v in expected
                  for s in _label_spans(ctx, label_phrasings(fact, str(v), vocab))]
        asserted = _asserted(ctx, spans, fact, inside=inside)
        def mine(a: int, b: int) -> bool:
            return fact.key in (ctx.owners(a, b, kind_group(fact)) or set())

        doubtful = [(a, b) for a, b in spans if not ctx.text.negated(a)
                    and not ctx.text.denied_after(a, b)
                    and not any(x <= a and b <= y for x, y in inside)
                    and _DOUBT.search(ctx.text.low, *ctx.text.clause_of(a, b))]
        each = [_label_spans(ctx, label_phrasings(fact, str(v), vocab)) for v in expected]
        asserted = [(a, b) for a, b in asserted if not _enumerates_another_count(
            ctx, a, len(expected), each) and not ctx.text.contrasted_away(a, b)
            and not _negated_aside(ctx, a) and not _ruled_out_after(ctx, fact, b)
            and not _catalogue_in_brackets(ctx, fact, vocab, a, len(expected), each)]
        if (asserted and any(mine(a, b) for a, b in asserted)) or doubtful:
            out.append(value)  # a further member, or one the answer hedges on
    context = _narrowed(ctx, fact, expected, vocab)
    return sorted({*out, *_listed_extras(ctx, fact, expected, vocab)} - context)


def _aside_brackets(ctx: Context, pos: int, members: list[list[tuple[int, int]]]
                    ) -> tuple[int, int] | None:
    """The bracket (opening and closing offsets) of ``pos``'s sentence that ``pos`` lies in,
    when every member is also written outside it; else None."""
    s0, _ = ctx.text.sentence_of(pos)
    raw = ctx.text.raw
    opened = raw.rfind("(", s0, pos)
    if opened < 0 or ")" in raw[opened:pos]:
        return None
    closed = raw.find(")", pos)
    closed = len(raw) if closed < 0 else closed
    if not all(any(not opened < a < closed for a, _ in spans) for spans in members):
        return None
    return opened, closed


def _enumerates_another_count(ctx: Context, pos: int, size: int,
                              members: list[list[tuple[int, int]]]) -> bool:
    """Whether ``pos`` lies in brackets that list the things a number before them counts
    when that number is not the set's size and the members (their spans) are written
    outside them too ("hydrogen alone points to six modes (T1, T2, ...). Both reveal:
    ..."): another set, not the answer's."""
    bracket = _aside_brackets(ctx, pos, members)
    if bracket is None:
        return False
    opened, _ = bracket
    return any(n.end <= opened and not n.unit and not n.decimals and n.value != size
               and re.fullmatch(r"\s+(?:[\w-]+\s+){0,3}", ctx.text.raw[n.end:opened])
               for n in ctx.text.numbers)


def _catalogue_in_brackets(ctx: Context, fact: FactSpec, vocab: Mapping[str, list[str]],
                           pos: int, size: int, members: list[list[tuple[int, int]]]) -> bool:
    """Whether ``pos`` lies in brackets that name as many of the fact's labels as a number
    written before them in the sentence, when that number is not the set's size and the
    members are written outside them too ("of the five modes known for the class (A, B, C,
    D, E), the gauge reveals two: B and D"): the catalogue the number counts, not members."""
    bracket = _aside_brackets(ctx, pos, members)
    if bracket is None:
        return False
    opened, closed = bracket
    s0, _ = ctx.text.sentence_of(pos)
    named = {v for chain in _label_chains(ctx, fact, vocab) for a, _, v in chain
             if opened < a < closed}
    return any(s0 <= n.start and n.end <= opened and not n.unit and not n.decimals
               and n.value == len(named) != size for n in ctx.text.numbers)


# What joins the items of one list: commas, "and", slashes, brackets, a new bullet line.
_LIST_SEP = re.compile(r"(?:[ \t,;/&+()\[\]*•]|\band\b|\bas well as\b|\bplus\b"
                       r"|\n[ \t]*(?:[-*•]|\d+[.)])[ \t]+)*", re.IGNORECASE)


def _label_chains(ctx: Context, fact: FactSpec, vocab: Mapping[str, list[str]],
                  ) -> list[list[tuple[int, int, str]]]:
    """The fact's labels as written, grouped into the lists they are written in."""
    spans = [(a, b, v) for v in {*fact.labels, *vocab} - {"true", "false"}
             for a, b in _label_spans(ctx, label_phrasings(fact, v, vocab))]
    spans = sorted((a, b, v) for a, b, v in spans
                   if not any(x <= a and b <= y and (x, y) != (a, b) for x, y, _ in spans))
    chains: list[list[tuple[int, int, str]]] = []
    for a, b, v in spans:
        last = chains[-1][-1] if chains else None
        if last is not None and (a < last[1] or _LIST_SEP.fullmatch(ctx.text.raw[last[1]:a])):
            chains[-1].append((a, b, v))
        else:
            chains.append([(a, b, v)])
    return chains


def _narrowed(ctx: Context, fact: FactSpec, expected: list[Any],
              vocab: Mapping[str, list[str]]) -> set[str]:
    """Labels written only in a broader list that holds every member, when the answer
    also lists exactly the members ("hydrogen alone points to T1, T2, T3, D1 and D2; both
    gases reveal T3, D1 and D2"): the broader list is context, not the answer."""
    want = {str(v) for v in expected}
    chains = _label_chains(ctx, fact, vocab)
    if not any({v for _, _, v in c} == want for c in chains):
        return set()
    broader = [c for c in chains if {v for _, _, v in c} > want]
    seen = {v for c in chains if c not in broader for a, _, v in c if not ctx.text.negated(a)}
    return {v for c in broader for _, _, v in c} - want - seen


def _listed_extras(ctx: Context, fact: FactSpec, expected: list[Any],
                   vocab: Mapping[str, list[str]]) -> list[str]:
    """Labels written in one list with the members ("condenser fouling, sensor drift and low
    charge"): each is a further member, whatever words the list is written next to, when
    that list holds every member and they are written nowhere else (a list of another
    thing, "the gauge ties to A, B and C, but the contact only to C", is not the answer's)."""
    want = {str(v) for v in expected}
    chains = _label_chains(ctx, fact, vocab)
    out = []
    for chain in chains:
        inside = {v for _, _, v in chain}
        elsewhere = any(v in want for c in chains if c is not chain for _, _, v in c)
        if want <= inside and not elsewhere:
            out += [v for a, b, v in chain if v not in want and not ctx.text.negated(a)
                    and not ctx.text.denied_after(a, b) and not _negated_aside(ctx, a)
                    and not _ruled_out_after(ctx, fact, b)]
    return out


# The names before it denied what was asked by a negative pronoun in a contrast ("ethane
# also fits T2 and the gauge fits overloading, but neither covers both", ", none of which
# explains all three"), in the same clause run (no stop, colon or bracket between).
_NONE_OF_THEM = re.compile(
    r"[^.;:!?()\[\]\n]*?(?:\b(?:but|yet|though|although|while|whereas)\s+|,\s*)"
    r"(?:neither|none)(?:\s+of\s+(?:them|these|those|which|the\s+two))?\b"
    r"(?P<rest>[^.;:!?()\[\]\n]*)")
_ALL_ASKED = re.compile(r"\b(?:both|all|each|every)\b")


def _ruled_out_after(ctx: Context, fact: FactSpec, end: int) -> bool:
    """True when the names ending at ``end`` are followed by a contrast that denies all of
    them what the fact asks: its subject a negative pronoun ("but neither", "none of
    which"), not "neither X nor Y", and its words the fact's own or "both"/"all" (what
    the answer must cover), so "but neither is severe" denies nothing asked."""
    m = _NONE_OF_THEM.match(ctx.text.low, end)
    if m is None or re.search(r"\bnor\b", m.group("rest")):
        return False
    rest = m.group("rest")
    return _ALL_ASKED.search(rest) is not None or any(
        re.search(rf"\b{re.escape(w.lower())}\b", rest) for w in fact.means)


# A bracket of bare names: no clause of its own (no verb, no stop).
_NAMES_ONLY = re.compile(r"[^()\[\];:.!?\n]{1,40}")
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|"
                   r"would|should|must|may|might)\b")


def _negated_aside(ctx: Context, pos: int) -> bool:
    """True when ``pos`` lies in a bracket of bare names right after words a negation
    denies ("it does not catch the electrical faults (D1/D2)"): the bracket names what
    those words name, and is denied with them."""
    t = ctx.text
    s0, _ = t.sentence_of(pos)
    opened = max(t.raw.rfind("(", s0, pos), t.raw.rfind("[", s0, pos))
    if opened < 0 or re.search(r"[)\]]", t.raw[opened:pos]):
        return False
    closed = re.search(r"[)\]]", t.raw[pos:])
    inside = t.low[opened + 1:pos + closed.start()] if closed else ""
    return bool(_NAMES_ONLY.fullmatch(inside)) and not _VERB.search(inside) \
        and NEGATION.search(inside) is None and t.negated(opened)


# -- booleans -----------------------------------------------------------------------------


# A multiple written before a phrasing ("four times normal ageing", "2× the rated life").
_MULTIPLE_OF = re.compile(r"(?:\btimes|×|\d\s*x)\s*(?:the\s+)?$")


def _match_bool(ctx: Context, path: str, fact: FactSpec, expected: bool) -> Part:
    t = ctx.text
    votes: list[tuple[int, bool]] = []
    for side in ("true", "false"):
        rivals = fact.labels.get("false" if side == "true" else "true", [])
        for phrase in fact.labels.get(side, []):
            # A phrasing that says "no" itself ("no work order") is not negated again by a
            # "none" before it ("none -> no work order").
            self_negated = NEGATION.match(phrase.strip()) is not None
            for a, b in _phrasing_spans(t, phrase, rivals) + _verdict_spans(t, phrase):
                if _MULTIPLE_OF.search(t.low, max(0, a - 12), a):
                    continue  # "four times normal ageing" is a multiple of it, not it
                # "tripped: no", "trip = false": the phrasing with its answer after it.
                denied = _DENIED.match(t.low, b)
                echoed = None if denied else _ECHO_REPLY.match(t.low, b)
                if echoed is not None and echoed.group(1) == "no":
                    denied = echoed
                negated = (not self_negated and t.negated(a)) or bool(denied)
                votes.append((a, (side == "true") != negated))
            # "no trip on" written as "trip on ...: no": the negative phrasing's side.
            votes += [(a, side == "true") for a, _ in _denied_stems(ctx, [phrase], None)]
            votes += [(a, side == "true") for a in _found_none(t, phrase)]
    if fact.assumed is True:  # a premise, disputed in so many words
        votes += [(a, False) for a in premise_disputed(t)]
    if votes:
        sides = {v for _, v in votes}
        if len(sides) == 1:
            value = sides.pop()
            return Part(path, value == expected, expected, value, "stated by a phrasing")
        # Both sides said: what an answer supposes ("if you want it hourly you would need a
        # monitor") states neither, and a conclusion ("So ...") settles the rest; else the
        # first statement in the text counts unless they conflict in one sentence (a hedge).
        votes = [v for v in votes if not _supposed(t, v[0])] or votes
        settled = _concluded(t, votes)
        if settled is not None:
            return Part(path, settled == expected, expected, settled, "stated by a conclusion")
        votes.sort()
        first = votes[0]
        s = t.sentence_of(first[0])
        if any(s[0] <= pos < s[1] and v != first[1] for pos, v in votes):
            return Part(path, False, expected, None, "states both yes and no")
        return Part(path, first[1] == expected, expected, first[1], "stated by a phrasing")
    if fact.yes_no and t.leading is not None:
        return Part(path, t.leading == expected, expected, t.leading, "leading yes/no")
    if fact.yes_no and t.replies:  # "... table ... Yes — it is above both."
        reply = t.replies[0][1]
        return Part(path, reply == expected, expected, reply, "a sentence opens with yes/no")
    for a, _b in sorted(s for spans in [ctx.anchors().get(fact.key, [])] for s in spans):
        _c0, c1 = t.clause_of(a, a)
        _s0, _s1 = t.sentence_of(a)
        negated = t.negated(a) or re.search(
            r"\b(?:not|no|never|none|nor|without|isn't|aren't|wasn't|weren't|didn't|doesn't|"
            r"hasn't|haven't|false)\b", t.low[a:c1]) is not None
        # "corrective work after the first anomaly: no" - the answer after the colon.
        after = re.match(r"\s*[:=]\s*\**\s*(yes|no|true|false|none)\b", t.low[c1:c1 + 16])
        if after:
            negated = after.group(1) in ("no", "false", "none")
        return Part(path, (not negated) == expected, expected, not negated,
                    "read from the clause that names it")
    if t.leading is not None and not fact.means:
        return Part(path, t.leading == expected, expected, t.leading, "leading yes/no")
    return _reply_to_question(ctx, path, fact, expected) or Part(
        path, False, expected, None, "no statement of this yes/no found")


# "No such trip" said as the search that found none: "I couldn't find any such trip".
_FOUND_NONE = ("find any", "find a", "find an", "find", "locate any", "see any")


def _found_none(t: Text, phrase: str) -> list[int]:
    """Where a phrasing that opens with "no" ("no such trip", "no record of") is written as
    a search that found none ("couldn't find any such trip", "can't find a record of")."""
    m = re.fullmatch(r"no\s+(.+)", phrase.strip(), re.IGNORECASE)
    if m is None:
        return []
    return [a for lead in _FOUND_NONE for a, _ in t.find(f"{lead} {m.group(1)}")
            if _denied_before(t, a, 24)]


# Any negation, with every "n't" ("couldn't", "wouldn't") the reader's list leaves out.
_ANY_NEGATION = re.compile(NEGATION.pattern + r"|n['’]t\b", re.IGNORECASE)


def _denied_before(t: Text, pos: int, limit: int = 48) -> bool:
    """True when the clause before ``pos`` (up to ``limit`` characters) holds a negation."""
    c0, _ = t.clause_of(pos, pos)
    return _ANY_NEGATION.search(t.low, max(c0, pos - limit), pos) is not None


# A premise disputed in so many words: the claim (report, premise) said not to stand or to
# be wrong, or what it says said not to have happened. The subject is the claim itself, so
# "no corrective order was opened" (which goes along with it) is no dispute.
_CLAIM_WORDS = (r"(?:claim|report|premise|statement|assumption|story|information|assertion|"
                r"allegation)(?:\s+of\s+(?:an?\s+|the\s+)?[\w-]+)?")
_PREMISE_DISPUTED = re.compile(
    rf"\b{_CLAIM_WORDS}\s+(?:(?:does|did|do|will|can|could)(?:n['’]t|\s+not)|cannot|won['’]t)\s+"
    r"(?:stand(?:\s+up)?|hold(?:\s+up|\s+water)?|check\s+out|add\s+up|survive)\b|"
    rf"\b{_CLAIM_WORDS}(?:['’]s|\s+is|\s+was|\s+(?:seems|appears|looks)(?:\s+to\s+be)?)\s+"
    r"(?:(?:simply|plainly|clearly|just)\s+)?(?:mistaken|wrong|incorrect|false|untrue|inaccurate|"
    r"in\s+error|unfounded|baseless|groundless|not\s+(?:right|correct|accurate|true|borne\s+out))\b|"
    rf"\b{_CLAIM_WORDS}\s+(?:isn['’]t|wasn['’]t)\s+(?:right|correct|accurate|true|borne\s+out)\b|"
    r"\b(?:that|this)\s+(?:(?:did|does)(?:n['’]t|\s+not)|never)\s+(?:happen|occur|take\s+place)"
    r"(?:ed)?\b(?!\s+(?:again|yet))|"
    r"\b(?:that|this)(?:['’]s|\s+is|\s+was)\s+not\s+(?:the\s+case|what\s+happened)\b|"
    r"\b(?:that|this)\s+(?:isn['’]t|wasn['’]t)\s+(?:the\s+case|what\s+happened)\b",
    re.IGNORECASE)


def premise_disputed(t: Text) -> list[int]:
    """Where the answer disputes the text's premise in so many words ("the report is
    mistaken", "the claim doesn't stand up", "that didn't happen"), not denied in turn ("I
    wouldn't say the report is wrong") nor supposed ("if the claim is false")."""
    return [m.start() for m in _PREMISE_DISPUTED.finditer(t.low)
            if not _denied_before(t, m.start()) and not _supposed(t, m.start())]


# A verdict said with its bare adjective ("TX01, 105 % for 2 h: OK under normal cyclic
# limits"): after a colon or dash, or opening a sentence or line, and followed by a stop
# (not a comma: "OK, so ..." is no verdict) or a word that says by what rule.
_COPULA_PHRASING = re.compile(r"(?:is|are)\s+([a-z]+)")
_VERDICT_BEFORE = re.compile(r"(?:^|[:=–—→]|\s-|[.!?\n])[\s*_\"'>#•-]*$")
_VERDICT_AFTER = re.compile(r"[*_\"']*(?:\s*(?:[.;:!—–()]|\s-\s|$)|\s+(?:under|within|per|for|"
                            r"by|against|according|in line)\b)")


def _verdict_spans(t: Text, phrase: str) -> list[tuple[int, int]]:
    """Where a copula phrasing ("is ok", "is acceptable") is written as its bare adjective
    standing as the verdict of its clause."""
    m = _COPULA_PHRASING.fullmatch(phrase.strip().lower())
    if m is None:
        return []
    return [(a, b) for a, b in t.find(m.group(1))
            if _VERDICT_BEFORE.search(t.low, max(0, a - 12), a)
            and _VERDICT_AFTER.match(t.low, b)]


_SUPPOSING = re.compile(r"\b(?:if|unless|would|could)\b")
_CONCLUDING = re.compile(r"[\s*_#>-]*(?:so|therefore|thus|hence|in short|in summary|to sum up|"
                         r"overall|bottom line|short answer|in other words|net|conclusion|verdict)"
                         r"\b", re.IGNORECASE)


def _supposed(t: Text, pos: int) -> bool:
    """Whether a phrasing stands in a clause that supposes ("if you want ...", "you would
    need ...") rather than states."""
    c0, _ = t.clause_of(pos, pos)
    return _SUPPOSING.search(t.low, c0, pos) is not None


def _concluded(t: Text, votes: list[tuple[int, bool]]) -> bool | None:
    """The side the answer's concluding sentences ("So ...", "In short, ...") take, when
    they take one side only."""
    sides = {v for pos, v in votes
             if _CONCLUDING.match(t.raw, t.sentence_of(pos)[0], pos)}
    return sides.pop() if len(sides) == 1 else None


# A question that asks yes or no: it opens with a verb, after any lead-in ("Quick one: did").
_POLAR = re.compile(r"(?:^|[:;,—–]\s*(?:(?:and|but|so|then)\s+)?)(?:did|does|do|is|are|was|"
                    r"were|has|have|had|can|could|will|would|should|must|any)\b", re.IGNORECASE)
# What a question asks about a duty is the other way round ("do we still need one?").
_DUTY = re.compile(r"\b(?:need|needs|needed|should|must|owe|owed|have to|has to|required|"
                   r"require)\b", re.IGNORECASE)
# A yes or no given as a key's value: "matching_order_in_system": "no", "Already raised: yes".
_KEYED_REPLY = re.compile(r"([a-z][\w -]{2,80}?)[\"']?\s*[:=]\s*[\"'*]*\s*(yes|no|true|false)\b")
_FUNCTION_WORDS = frozenset((
    "the", "a", "an", "in", "on", "of", "to", "for", "is", "are", "was", "were", "any", "there",
    "it", "this", "that", "be", "been", "has", "have", "had", "did", "do", "does", "we", "i",
    "you", "since", "by", "at", "with", "or", "and", "not", "no", "yes", "its", "from", "then"))


def _is_polar(sentence: str) -> bool:
    """A question that opens with a verb (at its start or after a lead-in: "Counting only
    orders since May: is one on file?") and offers no other answer than yes or no ("...
    or reclaim?" does; "... or not?" does not)."""
    if re.search(r"\bor not\?$", sentence.lower()):
        return True
    m = _POLAR.search(sentence)
    if not sentence.endswith("?") or m is None:
        return False
    asked = sentence[m.end():].lower()
    return re.search(r"\bor\b(?! not\b)", asked) is None


def _polar_question(ctx: Context, fact: FactSpec) -> tuple[int, int] | None:
    """The text's yes/no question that this boolean fact answers (yes: true): the first
    one for a fact declared the text's yes/no; else the text's only one, when the fact is
    the only yes/no asked and the question asks neither a duty nor the fact's false side."""
    q = ctx.question
    polar = [(a, b) for a, b in q.sentences if _is_polar(q.raw[a:b].strip())]
    if not polar:
        return None
    if fact.yes_no:
        return polar[0]
    booleans = [f for f in ctx.contract.facts if f.kind == "boolean" and f.asked]
    if len(polar) != 1 or booleans != [fact]:
        return None
    a, b = polar[0]
    if _DUTY.search(q.low, a, b) or any(
            q.find(p) and any(a <= x < b for x, _ in q.find(p))
            for p in fact.labels.get("false", [])):
        return None
    return polar[0]


def _reply_to_question(ctx: Context, path: str, fact: FactSpec, expected: bool) -> Part | None:
    """A yes or no that answers the text's yes/no question when this fact is what it asks:
    the answer's reply ("Yes, someone did."), or a key's value whose words are the
    question's ("matching_order_in_system": "no")."""
    question = _polar_question(ctx, fact)
    if question is None:
        return None
    t = ctx.text
    if t.replies:
        reply = t.replies[0][1]
        return Part(path, reply == expected, expected, reply, "replies yes/no to the question")
    a, b = question
    asked = {stem(w) for w in re.findall(r"[a-z]+", ctx.question.low[a:b])} - _FUNCTION_WORDS
    for m in _KEYED_REPLY.finditer(t.low):
        words = {stem(w) for w in re.split(r"[\s_-]+", m.group(1)) if w.isalpha()}
        if len((words - _FUNCTION_WORDS) & asked) >= 2:
            reply = m.group(2) in ("yes", "true")
            return Part(path, reply == expected, expected, reply, "a key that restates the "
                        "question answers it")
    return None


# -- composite ----------------------------------------------------------------------------


def _key_spans(ctx: Context, fact: FactSpec, key: str) -> list[tuple[int, int]]:
    """Where a mapping's key is written: as itself or a phrasing; a day key as any form of
    that day ("19 Aug" for 2026-08-19)."""
    day = _expected_when(key)
    if day is not None and day[1] is None:
        return sorted((w.start, w.end) for w in ctx.text.whens if w.day == day[0])
    spans = _id_spans(ctx, key)
    for p in fact.keys.get(key, []):
        spans += _id_spans(ctx, p) if p.isupper() else ctx.text.find(p)
    return sorted(spans)


def _match_mapping(ctx: Context, path: str, fact: FactSpec, expected: Mapping[str, Any],
                   vocab: Mapping[str, list[str]]) -> list[Part]:
    if not expected:
        return [_mapping_none(ctx, fact, path)]
    spec = fact.value
    assert spec is not None  # validated: a mapping has a value spec
    outer, ctx.parent = ctx.parent, fact.key
    try:
        return _match_entries(ctx, path, fact, spec, expected, vocab)
    finally:
        ctx.parent = outer


def _mapping_none(ctx: Context, fact: FactSpec, path: str) -> Part:
    """An empty mapping said as none next to its own words ("no failure codes to log"):
    the mapping's words bind its none as they bind its entries."""
    outer, ctx.parent = ctx.parent, fact.key
    try:
        return _match_none(ctx, fact, path)
    finally:
        ctx.parent = outer


def _match_entries(ctx: Context, path: str, fact: FactSpec, spec: FactSpec,
                   expected: Mapping[str, Any], vocab: Mapping[str, list[str]]) -> list[Part]:
    """Each entry of a mapping: its key, and its value on the sentence's side of it."""
    all_keys = {k: _key_spans(ctx, fact, k) for k in expected}
    mentions = sorted(s for spans in all_keys.values() for s in spans)
    parts: list[Part] = []
    for key, value in expected.items():
        sub = f"{path}.{key}"
        found = None
        for a, b in all_keys[key]:
            for span in _entry_windows(ctx, spec, (a, b), mentions):
                ctx.windowed = True
                try:
                    part = _match_value(ctx, sub, spec, value, vocab, span)
                finally:
                    ctx.windowed = False
                if part.ok:
                    found = part
                    break
            if found:
                break
        if found is None:
            found = _distributed(ctx, sub, spec, value, vocab, all_keys[key]) or \
                _label_for_all(ctx, sub, spec, value, vocab, all_keys[key]) or \
                _label_for_list(ctx, sub, spec, value, vocab, all_keys[key], mentions)
        if found is None:
            why = "key not named" if not all_keys[key] else "value not stated next to its key"
            found = Part(sub, False, value, None, why)
        parts.append(found)
    return parts


def _entry_windows(ctx: Context, spec: FactSpec, key: tuple[int, int],
                   mentions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where the value of a mapping key written at ``key`` is read, given every key's
    mentions: after it up to the next key, or before it from the previous one."""
    a, b = key
    s0, s1 = ctx.text.sentence_of(a)
    nxt = min([x for x, _ in mentions if x > a] + [s1])
    prev_end = max([y for _, y in mentions if y <= a] + [s0])
    # A sentence writes its values after their keys ("EAST 4, NORTH 4") or before
    # them ("three preventive and two corrective", "68.3 (19 Aug)"): its first key
    # tells which; a value is never read from another key's side.
    before = _values_before_keys(ctx, spec, [m for m in mentions if s0 <= m[0] < s1])
    windows = [(prev_end, a)] if before else [(b, nxt)]
    if not before and prev_end == s0 and spec.kind not in ("count", "quantity"):
        windows.append((s0, a))  # "good water content": a label before its key
    return windows


_EACH = re.compile(r"\s+(?:[a-z-]+\s+){0,2}(?:each|apiece|a piece)\b", re.IGNORECASE)
# "each" before the number it shares out: "and each of them holds four units", "every one
# has 4", "each site with 4".
_EACH_BEFORE = re.compile(r"\b(?:each|every)(?:\s+one)?(?:\s+of\s+(?:them|these|those))?\s+"
                          r"(?:[a-z-]+\s+){0,2}$", re.IGNORECASE)


def _distributed(ctx: Context, path: str, spec: FactSpec, value: Any,
                 vocab: Mapping[str, list[str]], keys: list[tuple[int, int]]) -> Part | None:
    """A value said once for every key of its sentence ("East, North and South, with four
    units apiece"): a number followed by "each" / "apiece" in a key's sentence."""
    if spec.kind not in ("count", "quantity"):
        return None
    for a, _ in keys:
        s0, s1 = ctx.text.sentence_of(a)
        for n in ctx.text.numbers:
            if s0 <= n.start < s1 and (_EACH.match(ctx.text.raw, n.end, s1)
                                       or _EACH_BEFORE.search(ctx.text.raw, s0, n.start)):
                ctx.windowed = True
                try:
                    part = _match_value(ctx, path, spec, value, vocab, (n.start, n.end))
                finally:
                    ctx.windowed = False
                if part.ok:
                    return part
    return None


_FOR_ALL = re.compile(r"\b(?:all|each|every|both)\b", re.IGNORECASE)


def _label_for_all(ctx: Context, path: str, spec: FactSpec, value: Any,
                   vocab: Mapping[str, list[str]], key_spans: list[tuple[int, int]],
                   ) -> Part | None:
    """A label said once for every entry ("all four are in good shape: water at 16 ppm,
    ..."): the key's sentence says all / each / every / both and states that one label of
    the mapping, and no other."""
    if spec.kind != "label" or not isinstance(value, str):
        return None
    for a, _b in key_spans:
        s0, s1 = ctx.text.sentence_of(a)
        if not _FOR_ALL.search(ctx.text.low, s0, s1):
            continue
        stated = {v for v in {*spec.labels, *vocab} if any(
            s0 <= x < s1 and not ctx.text.negated(x)
            for x, _y in _label_spans(ctx, label_phrasings(spec, v, vocab)))}
        if stated == {value}:
            return Part(path, True, value, value, "one label said for all entries")
    return None


# What joins the keys of one list: a comma, "and", a slash, each key with its reading in
# brackets ("BDV (65 kV), acidity (0.05 mg KOH/g) and IFT (37 mN/m)").
_KEY_JOIN = re.compile(r"\s*(?:\([^()\n]{0,40}\)\s*)?(?:,\s*(?:and\s+)?|and\s+|&\s*|/\s*)"
                       r"(?:the\s+)?")


def _label_for_list(ctx: Context, path: str, spec: FactSpec, value: Any,
                    vocab: Mapping[str, list[str]], key_spans: list[tuple[int, int]],
                    mentions: list[tuple[int, int]]) -> Part | None:
    """A label said once for a list of keys ("BDV, acidity and IFT are all good, but the
    water is poor"): a key joined to the keys after it by list marks takes the label
    written after the list's last key, before the next key."""
    if spec.kind != "label" or not isinstance(value, str):
        return None
    labels = [x for v in {*spec.labels, *vocab}
              for x, _ in _label_spans(ctx, label_phrasings(spec, v, vocab))]
    labels += [i.start for i in ctx.text.ids]  # a code in brackets is that key's own value
    for a, b in key_spans:
        last = (a, b)
        for x, y in mentions:
            if x >= last[1] and _KEY_JOIN.fullmatch(ctx.text.low, last[1], x) \
                    and not any(last[1] <= z < x for z in labels):
                last = (x, y)  # no label of its own in between ("T2 (TH-T2), T3 ...")
        if last == (a, b):
            continue
        _, s1 = ctx.text.sentence_of(last[0])
        nxt = min([x for x, _ in mentions if x > last[0]] + [s1])
        ctx.windowed = True
        try:
            part = _match_value(ctx, path, spec, value, vocab, (last[1], nxt))
        finally:
            ctx.windowed = False
        if part.ok:
            return part
    return None


def _values_before_keys(ctx: Context, spec: FactSpec, keys: list[tuple[int, int]]) -> bool:
    """Whether a sentence writes its mapping values before their keys ("three preventive
    and two corrective") rather than after them ("EAST 4, NORTH 4"): the side on which more
    keys have a value of the kind (after, on a tie)."""
    if not keys or spec.kind not in ("count", "quantity"):
        return False  # labels and ids: after the key, or before the sentence's first key
    s0, s1 = ctx.text.sentence_of(keys[0][0])
    spots = [n.start for n in ctx.text.numbers if not n.total and _unit_fits(spec, n)]
    after = before = 0
    for j, (a, b) in enumerate(keys):
        nxt = keys[j + 1][0] if j + 1 < len(keys) else s1
        prv = keys[j - 1][1] if j else s0
        after += any(b <= x < nxt for x in spots)
        before += any(prv <= x < a for x in spots)
    if before == after:
        return _joined_before(ctx, spec, keys)
    return before > after


# What separates one entry of a list from the next: a comma, a semicolon, "and", a dash.
_ENTRY_BREAK = re.compile(r"[,;–—]|\s-\s|and", re.IGNORECASE)


def _joined_before(ctx: Context, spec: FactSpec, keys: list[tuple[int, int]]) -> bool:
    """On a tie, the side each key is joined to its nearest value without a list break
    ("1.2 A on 3 May, 1.4 A on 10 May": before; "3 May: 1.2 A, 10 May: 1.4 A": after)."""
    nums = [(n.start, n.end) for n in ctx.text.numbers if not n.total and _unit_fits(spec, n)]
    raw = ctx.text.raw
    before = after = 0
    for a, b in keys:
        prv = max((e for _, e in nums if e <= a), default=None)
        nxt = min((x for x, _ in nums if x >= b), default=None)
        before += prv is not None and _ENTRY_BREAK.search(raw, prv, a) is None
        after += nxt is not None and _ENTRY_BREAK.search(raw, b, nxt) is None
    return before > after


def _match_records(ctx: Context, path: str, fact: FactSpec, expected: list[Any],
                   vocab: Mapping[str, list[str]]) -> list[Part]:
    if not expected:
        return [_match_none(ctx, fact, path)]
    outer, ctx.parent = ctx.parent, fact.key
    try:
        return _match_record_list(ctx, path, fact, expected, vocab)
    finally:
        ctx.parent = outer


def json_key(value: Any) -> str:
    """A value as a comparable string."""
    return json.dumps(value, sort_keys=True, default=str)


def _head_spots(ctx: Context, fact: FactSpec, value: Any,
                vocab: Mapping[str, list[str]]) -> list[int]:
    """Every place a record's identifying value is written (a list: its first member)."""
    if isinstance(value, list):
        return _head_spots(ctx, fact, value[0], vocab) if value else []
    if not isinstance(value, str):
        return []
    parsed = _expected_when(value)
    if parsed is not None:
        granularity = "day" if fact.kind == "date" else fact.granularity
        return sorted(w.start for w in _whens_on(ctx, parsed[0])
                      if _when_ok(w, *parsed, granularity))
    spans = _id_spans(ctx, value)
    if fact.kind in ("label", "labels"):
        spans += _label_spans(ctx, label_phrasings(fact, value, vocab))
    # A quotation (an order's description) names no record of its own.
    return sorted({a for a, _ in spans if not ctx.text.negated(a) and not ctx.text.quoted(a)})


def _match_record_list(ctx: Context, path: str, fact: FactSpec, expected: list[Any],
                       vocab: Mapping[str, list[str]]) -> list[Part]:
    """Each record found by its first asked field; its other fields read in that field's
    clause or in its segment: up to the next record's first field when the records write
    their values after it ("TX04 28.1, TX01 53.1"), from the previous one when before."""
    return _RecordList(ctx, path, fact, expected, vocab).match()


class _RecordList:
    """The records of a list fact as the text writes them (see :func:`_match_record_list`)."""

    def __init__(self, ctx: Context, path: str, fact: FactSpec, expected: list[Any],
                 vocab: Mapping[str, list[str]]) -> None:
        self.ctx, self.path, self.fact, self.expected, self.vocab = (
            ctx, path, fact, expected, vocab)
        self.rows = [(i, r, [f for f in fact.fields if f.key in r and f.asked])
                     for i, r in enumerate(expected) if isinstance(r, Mapping)]
        self.spots = {i: _head_spots(ctx, specs[0], r[specs[0].key], vocab)
                      for i, r, specs in self.rows if specs}
        self.starts = sorted({p for ps in self.spots.values() for p in ps})

    def segments(self, where: int) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
        s0, s1 = self.ctx.text.sentence_of(where)
        nxt = min([p for p in self.starts if p > where] + [s1])
        prv = max([p + 1 for p in self.starts if p < where] + [s0])
        return self.ctx.text.clause_of(where, where + 1), (where, max(nxt, where + 1)), (
            prv, where)

    def alone(self, where: int) -> bool:
        """Whether a record's first field is the only one written in its sentence (a line
        of a JSON answer): the whole sentence is that record's."""
        s0, s1 = self.ctx.text.sentence_of(where)
        return not any(s0 <= p < s1 and p != where for p in self.starts)

    def shared(self, key: str) -> bool:
        values = [json_key(r.get(key)) for _, r, _ in self.rows]
        return len(values) > 1 and len(set(values)) == 1

    def windows(self, f: FactSpec, where: int | None, mode: int,
                whole: bool) -> list[tuple[int, int] | None]:
        """Where a record's field is read: its first field's clause and side of the text
        (``mode`` 1: after it, -1: before it), more when that side holds nothing of its
        kind or the sentence is the record's alone, the whole text for a shared value."""
        if where is None:
            return [None]
        clause, after, before = self.segments(where)
        side, other = (after, before) if mode == 1 else (before, after)
        windows: list[tuple[int, int] | None] = [clause, side]
        if whole and not _holds_kind(self.ctx, f, side):
            windows.append(other)  # nothing of its kind on the text's side: this
            # line writes it on the other ("- 16:57 WTI alarm", "- WO-4, 21 Jul")
        if whole and self.alone(where):
            windows.append(self.ctx.text.sentence_of(where))
        if self.shared(f.key):
            windows.append(None)  # one value for every record, said once
        return windows

    def fields(self, i: int, record: Mapping[str, Any], specs: list[FactSpec],
               where: int | None, mode: int, whole: bool = True) -> list[Part]:
        ctx, out = self.ctx, []
        for f in specs[1:]:
            sub = f"{self.path}[{i}].{f.key}"
            part = Part(sub, False, record[f.key], None, "not stated with its record")
            for span in self.windows(f, where, mode, whole):
                ctx.windowed = span is not None
                try:
                    part = _match_value(ctx, sub, f, record[f.key], self.vocab, span)
                finally:
                    ctx.windowed = False
                if part.ok:
                    break
            out.append(part)
        return out

    def mode(self) -> int:
        """Do this text's records write their values after their first field (1), or before
        it (-1)? The first record whose values are found on one side only tells
        ("NORTH-TX02 tripped at 17:30." names no step; "WTI alarm 16:18 → OTI alarm 17:03"
        writes them before)."""
        for where0, i0 in sorted((p, i) for i, ps in self.spots.items() for p in ps):
            _, r0, specs0 = next(row for row in self.rows if row[0] == i0)
            if not specs0[1:]:
                break
            after = all(p.ok for p in self.fields(i0, r0, specs0, where0, 1, False))
            if after != all(p.ok for p in self.fields(i0, r0, specs0, where0, -1, False)):
                return 1 if after else -1
        return 1

    def match(self) -> list[Part]:
        ctx, path, fact, expected, vocab = (
            self.ctx, self.path, self.fact, self.expected, self.vocab)
        mode = self.mode()
        parts: list[Part] = []
        for i, record in enumerate(expected):
            if not isinstance(record, Mapping):
                parts.append(_match_scalar(ctx, f"{path}[{i}]", fact, record, vocab))
                continue
            specs = [f for f in fact.fields if f.key in record and f.asked]
            if not specs:
                continue
            head = specs[0]
            head_part = _match_value(ctx, f"{path}[{i}].{head.key}", head, record[head.key],
                                     vocab)
            parts.append(head_part)
            best: list[Part] | None = None
            candidates: list[int | None] = list(self.spots.get(i) or []) if head_part.ok else []
            for where in candidates or [None]:
                got = self.fields(i, record, specs, where, mode)
                if best is None or sum(p.ok for p in got) > sum(p.ok for p in best):
                    best = got
            parts.extend(best or [])
        if fact.ordered and _sequence_reversed(ctx, [self.spots.get(i, [])
                                                     for i, _, _ in self.rows]):
            parts.append(Part(f"{path}.order", False, expected, None,
                              "states a sequence against the order asked"))
        extra = _extra_steps(ctx, [specs[0] for _, _, specs in self.rows if specs], expected,
                             vocab)
        if extra and all(p.ok for p in parts):
            parts.append(Part(f"{path}.extra", False, expected, extra,
                              "states a step no record has"))
        return parts


def _extra_steps(ctx: Context, heads: list[FactSpec], expected: list[Any],
                 vocab: Mapping[str, list[str]]) -> list[str]:
    """The labels of a sequence's steps ("WTI trip") that the answer asserts, not negated
    and not in a quotation, when no record of the sequence has them: a step the data does
    not hold ("the alarm was followed by a trip" when there was none)."""
    head = heads[0] if heads and all(h.key == heads[0].key for h in heads) else None
    if head is None or head.kind != "label" or not head.labels:
        return []
    have = {str(r.get(head.key)) for r in expected if isinstance(r, Mapping)}
    out = []
    for value in set(head.labels) - have:
        spans = _label_spans(ctx, label_phrasings(head, value, vocab))
        inside = [s for v in have for s in _label_spans(ctx, label_phrasings(head, v, vocab))]
        if any(not ctx.text.negated(a) and not ctx.text.quoted(a) and not _DENIED.match(
                ctx.text.low, b) and not any(x <= a and b <= y and (x, y) != (a, b)
                                             for x, y in inside) for a, b in spans):
            out.append(value)
    return sorted(out)


def _holds_kind(ctx: Context, fact: FactSpec, span: tuple[int, int]) -> bool:
    """Whether a stretch of the answer holds a value of the fact's kind (a time, a number,
    an id); a word fact's is always taken as held."""
    group = kind_group(fact)
    if group == "time":
        spots = [w.start for w in [*ctx.text.whens, *ctx.text.times]]
    elif group == "number":
        spots = [n.start for n in ctx.text.numbers if _unit_fits(fact, n)]
    elif group == "id":
        spots = [i.start for i in ctx.text.ids]
    else:
        return True
    return any(span[0] <= x < span[1] for x in spots)


_THEN = re.compile(r"\b(?:then|followed by|after which|and after that|next came)\b",
                   re.IGNORECASE)


def _sequence_reversed(ctx: Context, spots: list[list[int]]) -> bool:
    """Whether the answer says one record came before another ("A, then B") when the
    reference has them the other way round."""
    heads = sorted((p, i) for i, ps in enumerate(spots) for p in ps)
    for m in _THEN.finditer(ctx.text.low):
        s0, s1 = ctx.text.sentence_of(m.start())
        before = [(p, i) for p, i in heads if s0 <= p < m.start()]
        after = [(p, i) for p, i in heads if m.end() <= p < s1]
        if not before or not after:
            continue
        first = {i for p, i in before if p == before[-1][0]}
        second = {i for p, i in after if p == after[0][0]}
        if min(first) > max(second):
            return True
    return False


def _locate(ctx: Context, fact: FactSpec, value: Any) -> int | None:
    """Where a record's identifying value is written (a list: its first member)."""
    if isinstance(value, list) and value:
        return _locate(ctx, fact, value[0])
    if isinstance(value, str):
        parsed = _expected_when(value)
        if parsed is not None:
            for w in ctx.text.whens:
                if _when_ok(w, *parsed, "day" if fact.kind == "date" else fact.granularity):
                    return w.start
        spans = _id_spans(ctx, value)
        return spans[0][0] if spans else None
    return None


def _match_scalar(ctx: Context, path: str, fact: FactSpec, value: Any,
                  vocab: Mapping[str, list[str]], within_span: tuple[int, int] | None = None,
                  ) -> Part:
    if isinstance(value, bool):
        return _match_bool(ctx, path, fact, value)
    if isinstance(value, int | float):
        return _match_number(ctx, path.split(".")[0].split("[")[0], fact, float(value),
                             within_span=within_span)
    if isinstance(value, str):
        if fact.kind in ("timestamp", "date") or _expected_when(value):
            return _match_time(ctx, path, fact, value, within_span)
        if fact.kind in ("id", "ids"):
            return _match_id(ctx, path, fact, value)
        return _match_label(ctx, path, fact, value, vocab, within_span)
    return Part(path, False, value, None, "unsupported reference value")


def _match_value(ctx: Context, path: str, fact: FactSpec, value: Any,
                 vocab: Mapping[str, list[str]], within_span: tuple[int, int] | None = None,
                 ) -> Part:
    """One value of a mapping or a record (no set semantics)."""
    if isinstance(value, list):
        parts = _match_members(ctx, path, fact, value, vocab)
        ok = all(p.ok for p in parts)
        return Part(path, ok, value, None, "all members" if ok else "members missing")
    return _match_scalar(ctx, path, fact, value, vocab, within_span)


def match_fact(ctx: Context, fact: FactSpec, value: Any,
               vocab: Mapping[str, list[str]]) -> list[Part]:
    """The parts of one top-level fact, each matched or not; a set or list also fails when
    the answer states another size for it ("four sites", "18 gaps", "none of the modes")."""
    parts = _fact_parts(ctx, fact, value, vocab)
    misread = _stretch_misread(ctx, fact, value) if fact.stretch else None
    if misread is not None:
        parts.append(misread)
    if isinstance(value, list) and value:
        size = _size_stated(ctx, fact, len(value), _member_spans(ctx, fact, value, vocab))
        if size is not None:
            parts.append(size)
    return parts


# "none of the other modes", "no further gaps", "no models beyond these": a size of what is
# beyond the members named, not of the set.
_BEYOND = re.compile(r"\b(?:other|others|else|further|more|remaining|additional|new)\b")
_BEYOND_AFTER = re.compile(r"\s*(?:beyond|besides|other than|apart from|except|but)\b")
# "no separate dropouts": a zero said of things apart from those named (a number other than
# zero counts them: "two separate gaps").
_APART = re.compile(r"\b(?:separate|distinct|independent)\b")


# A sentence about the members already named: "These are ...", "Both are ...".
_OF_THE_MEMBERS = re.compile(r"\s*(?:these|those|they|both|all of them|both of them)\s+"
                             r"(?:are|were|is|remain)\b", re.IGNORECASE)


def _said_of_the_members(ctx: Context, n: Num, gap: str) -> bool:
    """Whether a "no" with words of its own before the fact's words says what the members
    are not, in a sentence about them ("These are classical methods, no learned
    model"): a kind they are not, not a count of zero."""
    if n.value != 0 or not gap.strip():
        return False
    s0, _ = ctx.text.sentence_of(n.start)
    return _OF_THE_MEMBERS.match(ctx.text.raw, s0, n.start) is not None


def _member_spans(ctx: Context, fact: FactSpec, value: list[Any],
                  vocab: Mapping[str, list[str]]) -> list[tuple[int, int]]:
    """Where the members' labels are written (a label may hold a number: "no fault")."""
    if fact.kind not in ("label", "labels"):
        return []
    return [s for v in value if isinstance(v, str)
            for s in _label_spans(ctx, label_phrasings(fact, v, vocab))]


def _size_stated(ctx: Context, fact: FactSpec, size: int,
                 members: list[tuple[int, int]] | None = None) -> Part | None:
    """A miss when a whole number written right before the fact's words ("four sites", "no
    gaps", "none of the six failure modes") is not the number of its members. A number of
    the catalogue ("of the 6 modes", the value of a total) is no size, nor one inside a
    member's label (``members``: "no fault" is the member normal, not zero faults)."""
    low = ctx.text.low
    values = {float(v) for k, v in ctx.reference.items()
              if _TOTAL_FACT.search(k) and isinstance(v, int | float)}
    for n in ctx.text.numbers:
        if n.total or n.unit or n.decimals or n.value == size or n.value in values \
                or ctx.text.negated(n.start) or any(a <= n.start < b for a, b in members or []):
            continue
        said = n.text.lower()
        if n.word and n.value == 0 and not (said == "no" or (
                said == "none" and low.startswith(" of ", n.end))):
            continue  # "genuine: none": a value, not a determiner of the fact's words
        if re.search(r"\b(?:of|out of|from)\s+(?:the\s+|all\s+|its\s+)?$",
                     low[max(0, n.start - 12):n.start]):
            continue  # "of the 6 failure modes": the catalogue, not the answer
        if ctx.owners(n.start, n.end, "number", n):
            continue  # the value of a number fact
        if _names_not_counts(ctx, n) or _in_breakdown(ctx, fact, n, size):
            continue
        for a, b in ctx.anchors().get(fact.key, []):
            gap = low[n.end:a]
            if a >= n.end and _counts_members(ctx, n, gap) \
                    and not _BEYOND.search(gap) and not _BEYOND_AFTER.match(low, b) \
                    and not (n.value == 0 and _APART.search(gap)) \
                    and not _said_of_the_members(ctx, n, gap):
                return Part(f"{fact.key}.size", False, size, n.text,
                            "states another number of members")
    return None


def _in_breakdown(ctx: Context, fact: FactSpec, n: Num, size: int) -> bool:
    """Whether a number counts a part of the set after its size in the same sentence ("4
    units in total: two grid units and two distribution units"): the numbers counting the
    fact's words after the size add up to no more than it."""
    s0, s1 = ctx.text.sentence_of(n.start)
    low = ctx.text.low

    def counting(m: Num) -> bool:
        return not (m.unit or m.decimals or m.total) and any(
            a >= m.end and _counts_members(ctx, m, low[m.end:a])
            for a, _b in ctx.anchors().get(fact.key, []))

    sizes = [m for m in ctx.text.numbers
             if s0 <= m.start < n.start and m.value == size and counting(m)]
    if not sizes:
        return False
    parts = [m for m in ctx.text.numbers if sizes[0].end <= m.start < s1 and counting(m)]
    return sum(m.value for m in parts) <= size


# Words that end a noun phrase: a number before them counts another noun ("no tie at the
# bottom" counts ties, not what is at the bottom).
_NOT_MODIFIER = re.compile(
    r"\b(?:at|in|on|of|for|to|by|from|with|into|over|under|per|than|as|the|a|an|is|are|was|"
    r"were|be|been|being|has|have|had|do|does|did|that|this|these|those|it|its|their|and|or|"
    r"but|so|not)\b")


def _counts_members(ctx: Context, n: Num, gap: str) -> bool:
    """Whether a number counts the noun written after it: only modifiers stand between
    ("four large units"), no preposition, article or verb ("no tie at the bottom").
    A definite number with a modifier names a subset ("the two grid units" of four)."""
    if n.text.lower() == "none" and re.match(r"\s+of\s+(?:which|them)\b", gap):
        return False  # "A and B, none of which ...": the things just named, not a count
    if n.text.lower() == "none":  # "none of the (six) modes": none of the members
        gap = re.sub(r"^\s+of\s+(?:(?:the|its|all|these|those)\s+)?(?:[\w-]+\s+)?", " ", gap)
    if not re.fullmatch(r"\s+(?:[a-z-]+\s+){0,3}", gap) or _NOT_MODIFIER.search(gap):
        return False
    if "\n" in gap:
        return False  # "cutoff = 5\nanomalous hours = 2": a line's last number ends there
    definite = re.search(r"\bthe\s+$", ctx.text.low[max(0, n.start - 8):n.start])
    return not (definite and gap.strip() and ctx.text.raw[n.end:n.end + len(gap)].islower())


def _names_not_counts(ctx: Context, n: Num) -> bool:
    """A number that is part of a name, not a count: joined to a word by a hyphen
    ("phase-2"), or written after a word as the question writes it ("phase 2 current")."""
    raw = ctx.text.raw
    if n.start >= 2 and raw[n.start - 1] == "-" and raw[n.start - 2].isalpha():
        return True
    word = re.search(r"([A-Za-z]+)[ \t]+$", raw[max(0, n.start - 20):n.start])
    return word is not None and not n.word and re.search(
        rf"\b{re.escape(word.group(1))}[ \t-]+{re.escape(n.text.strip())}\b",
        ctx.question.raw, re.IGNORECASE) is not None


def _fact_parts(ctx: Context, fact: FactSpec, value: Any,
                vocab: Mapping[str, list[str]]) -> list[Part]:
    """The parts of one top-level fact, each matched or not."""
    if value is None:
        part = _match_none(ctx, fact, fact.key)
        if not part.ok:
            part = _none_by_denial(ctx, fact) or part
        return [part if part.ok or _stated_for(ctx, fact, vocab) else Part(
            fact.key, True, None, None, "none, and nothing is stated for it")]
    if fact.kind == "mapping" and isinstance(value, Mapping):
        return _match_mapping(ctx, fact.key, fact, value, vocab)
    if fact.kind == "records" and isinstance(value, list):
        return _match_records(ctx, fact.key, fact, value, vocab)
    if isinstance(value, list):
        if value and all(isinstance(v, Mapping) for v in value):
            return _match_records(ctx, fact.key, fact, value, vocab)
        if value and all(isinstance(v, list) for v in value):
            # Pairs such as [first, last] of a gap: records of their positions.
            width = max(len(v) for v in value)
            fields = [fact.model_copy(update={"key": str(j), "kind": fact.kind if fact.kind
                                              in ("timestamp", "date") else "label"})
                      for j in range(width)]
            rows = [{str(j): x for j, x in enumerate(v)} for v in value]
            return _match_records(ctx, fact.key, fact.model_copy(
                update={"kind": "records", "fields": fields}), rows, vocab)
        return _match_members(ctx, fact.key, fact, value, vocab)
    if isinstance(value, Mapping):
        return _match_mapping(ctx, fact.key, fact.model_copy(update={
            "value": fact.value or FactSpec(key=fact.key, kind="label")}), value, vocab)
    if fact.kind == "id" and isinstance(value, str):
        return [_match_id(ctx, fact.key, fact, value)]
    if fact.kind == "text" and isinstance(value, str):
        return [_match_text(ctx, fact, value)]
    return [_match_scalar(ctx, fact.key, fact, value, vocab)]


def _none_by_denial(ctx: Context, fact: FactSpec) -> Part | None:
    """A fact that would imply a yes/no (its ``implied_by``: the start of a fault implies
    a fault) is said as none when the answer says no to that yes/no ("never stuck, so
    nothing to order" has no start of a run, whatever it adds about later data)."""
    for f in ctx.contract.facts:
        if f.kind != "boolean" or fact.key not in f.implied_by or (
                ctx.present is not None and f.key not in ctx.present):
            continue
        said = _match_bool(ctx, f.key, f, False)
        if said.ok and said.given is False:
            return Part(fact.key, True, None, False, f"none: the answer says no to {f.key}")
    return None


def _match_text(ctx: Context, fact: FactSpec, value: str) -> Part:
    if fact.labels:
        return _match_label(ctx, fact.key, fact, value)
    words = {w for w in re.findall(r"[a-z0-9]+", value.lower().replace("_", " "))
             if len(w) >= 3}
    have = set(re.findall(r"[a-z0-9]+", ctx.text.low))
    ok = bool(words) and len(words & have) >= 0.6 * len(words)
    return Part(fact.key, ok, value, None, "content words found" if ok else "content missing")


# -- the whole answer ---------------------------------------------------------------------


def _same_value(fact: FactSpec, value: Any, given: Any, abs_tol: dict[str, float],
                rel_tol: dict[str, float]) -> Part | None:
    """A JSON value of the reference's own type compared directly (None: read it as text).

    A boolean against a boolean, a number against a number (within the key's tolerance),
    a string equal to the reference string; anything else is read as text.
    """
    if isinstance(value, bool) and isinstance(given, bool):
        return Part(fact.key, given == value, value, given, "JSON boolean")
    if isinstance(value, list | dict) and given == value:
        return Part(fact.key, True, value, given, "the reference's own JSON")
    if value in ([], {}) and given in ([], {}, None):
        return Part(fact.key, True, value, given, "JSON empty")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (value, given))
    if numbers and (fact.kind != "count" or isinstance(given, int)):
        ok = math.isfinite(float(given)) and (float(given) == float(value) or within(
            float(value), float(given), abs_tol.get(fact.key, 0.0), rel_tol.get(fact.key, 0.0)))
        return Part(fact.key, ok, value, given, "JSON number") if ok else None
    if isinstance(value, str) and isinstance(given, str) and given.strip().lower().replace(
            " ", "_") == value.strip().lower().replace(" ", "_"):
        return Part(fact.key, True, value, given, "the reference's own string")
    return None




def _stem_key(key: str) -> tuple[str, ...]:
    """A JSON key's words without their endings ("tripped" and "trip", "was_tripped" too):
    a key written in another form of the fact's own word names the fact."""
    words = [w for w in re.split(r"[\s_\-]+", key.lower()) if w not in ("", "is", "was", "has")]
    out = []
    for w in words:
        w = re.sub(r"(?:ed|ing|es|s)$", "", w) if len(w) > 4 else w
        out.append(re.sub(r"([b-df-hj-np-tv-z])\1$", r"\1", w))
    return tuple(out)


def year_of(scenario: Mapping[str, Any]) -> int | None:
    """The year a day written without one takes: the first year in the text, else in the
    reference, the grounding, the tool calls or the characteristic form (the data's year)."""
    for source in (scenario.get("text"), str(scenario.get("reference_answer")),
                   str(scenario.get("grounding")), str(scenario.get("tool_sequence")),
                   scenario.get("characteristic_form")):
        if isinstance(source, str):
            m = re.search(r"\b(19|20)\d{2}\b", source)
            if m:
                return int(m.group(0))
    return None


def grade_facts(scenario: Mapping[str, Any], contract: AnswerContract, answer_text: str,
                structured: Mapping[str, Any] | None, abs_tol: dict[str, float],
                rel_tol: dict[str, float], vocab_of: Callable[[FactSpec], dict[str, list[str]]],
                ) -> tuple[float, list[Part], list[str]]:
    """Score, the parts graded, and the supporting facts left ungraded.

    Args:
        scenario: The record (its text and reference).
        contract: The record's resolved contract.
        answer_text: The answer as text (a JSON answer as the text of keys and values).
        structured: The answer as a JSON object, when it is one.
        abs_tol: Absolute tolerance per top-level key.
        rel_tol: Relative tolerance per top-level key.
        vocab_of: A fact's vocabulary phrasings (failure modes, codes).
    """
    reference = scenario.get("reference_answer") or {}
    year = year_of(scenario)
    question = read(str(scenario.get("text") or ""), year=year)
    present = frozenset(reference)  # a null value is a fact too ("no lead time")
    whole = Context(read(answer_text, year=year), question, contract, abs_tol, rel_tol,
                    present=present, reference=reference)
    # An asked fact whose reference is null (no fault, no lead time) is answered by saying
    # there is none.
    asked = [f for f in contract.facts if f.asked and f.key in reference]
    asked.sort(key=lambda f: bool(f.implied_by))  # what implies a yes/no is read first
    supporting = [f.key for f in contract.facts if not f.asked and f.key in reference]
    lowered = {str(k).lower(): k for k in structured} if structured else {}
    score = 0.0
    parts: list[Part] = []
    for fact in asked:
        value = reference[fact.key]
        ctx = whole
        if structured is not None and fact.key.lower() in lowered:
            given = structured[lowered[fact.key.lower()]]
            direct = _same_value(fact, value, given, abs_tol, rel_tol)
            if direct is not None:
                score += direct.ok / len(asked)
                parts.append(direct)
                continue
            from eval.answer_text import safe_text

            ctx = Context(read(given if isinstance(given, str) else safe_text(given),
                               year=year), question, contract, abs_tol, rel_tol, bind=False)
        elif structured is not None:
            stem = _stem_key(fact.key)
            same = [k for k in structured if _stem_key(str(k)) == stem]
            direct = _same_value(fact, value, structured[same[0]], abs_tol, rel_tol) \
                if len(same) == 1 and isinstance(value, bool) else None
            if direct is not None:  # "trip": false for the fact "tripped"
                score += direct.ok / len(asked)
                parts.append(direct)
                continue
        fact_parts = match_fact(ctx, fact.model_copy(update={"yes_no": True})
                                if not ctx.bind and not fact.yes_no else fact,
                                value, vocab_of(fact))
        if not fact_parts:
            continue
        if fact.kind == "boolean" and len(fact_parts) == 1 and fact_parts[0].given is None \
                and structured is not None:
            fact_parts = [_bool_by_key_words(fact, value, structured, question)
                          or fact_parts[0]]
        if fact.kind == "boolean" and len(fact_parts) == 1 and fact_parts[0].given is None:
            fact_parts = [_unstated_bool(fact, value, parts + _unasked_stated(
                ctx, contract, fact.implied_by, reference, vocab_of), reference) or fact_parts[0]]
        score += sum(p.ok for p in fact_parts) / len(fact_parts) / len(asked)
        parts.extend(fact_parts)
    if structured is not None:
        rescued = _labels_by_json_yes_no(contract, parts, vocab_of, lowered)
        rescued += _labels_by_key_reply(contract, parts, vocab_of, structured)
        score += len(rescued) / len(asked) if asked else 0.0
    wrong = _stated_wrong(whole, contract, structured, vocab_of)
    if wrong:
        score = score * len(asked) / (len(asked) + len(wrong))
        parts.extend(wrong)
    return score, parts, supporting


def _stated_wrong(whole: Context, contract: AnswerContract,
                  structured: Mapping[str, Any] | None,
                  vocab_of: Callable[[FactSpec], dict[str, list[str]]]) -> list[Part]:
    """The unasked facts the answer states wrong. A fact the text does not ask for is not
    graded, but an answer that states it wrong (a forecast for the wrong hour, the wrong
    band) is not right: each counts as a miss."""
    reference, abs_tol, rel_tol = whole.reference, whole.abs_tol, whole.rel_tol
    keyed = _units_from_keys(contract)
    told = whole if keyed is contract else Context(
        whole.text, whole.question, keyed, abs_tol, rel_tol, present=whole.present,
        reference=reference)
    return [c for f in keyed.facts if not f.asked and reference.get(f.key) is not None
            and not _given_at_key(f, reference[f.key], structured, abs_tol, rel_tol)
            for c in [contradicted(told, f, reference[f.key], vocab_of(f))] if c]


def _given_at_key(fact: FactSpec, value: Any, structured: Mapping[str, Any] | None,
                  abs_tol: dict[str, float], rel_tol: dict[str, float]) -> bool:
    """Whether a JSON answer gives an unasked fact the reference's value at its own key
    (``"followed_by_corrective": false``): its key's words are then no statement of it."""
    keys = {str(k).lower(): k for k in structured or {}}
    if structured is None or fact.key.lower() not in keys:
        return False
    direct = _same_value(fact, value, structured[keys[fact.key.lower()]], abs_tol, rel_tol)
    return direct is not None and direct.ok


def _units_from_keys(contract: AnswerContract) -> AnswerContract:
    """The contract with each count that declares no unit but whose key ends in one
    (``age_years``) counted in that unit, as an unasked fact is read for being stated
    wrong: "41 years old" states an age of 41."""
    facts = []
    for f in contract.facts:
        tail = f.key.rsplit("_", 1)[-1].lower() if "_" in f.key else ""
        unit = next((u for u in CONTRACT_UNITS if u.lower() == tail and len(u) > 1), None)
        facts.append(f.model_copy(update={"unit": unit})
                     if f.kind == "count" and f.unit is None and unit else f)
    return contract.model_copy(update={"facts": facts}) if facts != contract.facts else contract


def _labels_by_json_yes_no(contract: AnswerContract, parts: list[Part],
                           vocab_of: Callable[[FactSpec], dict[str, list[str]]],
                           keys: Mapping[str, Any]) -> list[str]:
    """Label facts a JSON answer states through a yes/no key: ``"oil_work_needed": false``
    answers the yes/no fact, and so states the label whose phrasings are that side's ("no
    work order" is both the yes/no's false side and the label none), when the answer has no
    key of the label's own (``keys``: its keys, lowered) and states no label for it. Flips
    those label parts (in ``parts``) to stated; returns their keys."""
    sides: list[list[str]] = []
    for p in parts:
        spec = contract.fact(p.path)
        if p.ok and spec is not None and spec.kind == "boolean" and isinstance(p.expected, bool):
            sides.append([x.lower() for x in spec.labels.get(str(p.expected).lower(), [])])
    out = []
    for i, p in enumerate(parts):
        spec = contract.fact(p.path)
        if p.ok or spec is None or spec.kind != "label" or p.path.lower() in keys \
                or not p.why.startswith("label not stated"):
            continue
        mine = {x.lower() for x in label_phrasings(spec, str(p.expected), vocab_of(spec))}
        if any(mine & set(side) for side in sides):
            parts[i] = Part(p.path, True, p.expected, None,
                            "stated by the JSON yes/no that shares its phrasings")
            out.append(p.path)
    return out


# A JSON value that opens with a bare yes or no ("no - ageing is slow", true).
_REPLY_VALUE = re.compile(r"\s*(yes|no|true|false)\b", re.IGNORECASE)


def _labels_by_key_reply(contract: AnswerContract, parts: list[Part],
                         vocab_of: Callable[[FactSpec], dict[str, list[str]]],
                         structured: Mapping[str, Any]) -> list[str]:
    """Label facts a JSON answer states as a key's words answered yes or no: with
    ``"repair_needed": "no - ..."`` it says "no repair needed", with ``true`` "repair
    needed", which states the label with that phrasing. Flips those label parts (in
    ``parts``) to stated; returns their keys."""
    said: set[str] = set()
    for k, v in structured.items():
        m = _REPLY_VALUE.match(v) if isinstance(v, str) else None
        yes = v if isinstance(v, bool) else m.group(1).lower() in ("yes", "true") if m else None
        if yes is not None:
            words = " ".join(re.split(r"[\s_-]+", str(k).strip().lower()))
            said.add(words if yes else f"no {words}")
    out = []
    for i, p in enumerate(parts):
        spec = contract.fact(p.path)
        if p.ok or spec is None or spec.kind != "label" or not p.why.startswith(
                "label not stated"):
            continue
        mine = {x.lower() for x in label_phrasings(spec, str(p.expected), vocab_of(spec))}
        if mine & said:
            parts[i] = Part(p.path, True, p.expected, sorted(mine & said)[0],
                            "stated by a JSON key answered yes or no")
            out.append(p.path)
    return out


def _key_word_stems(words: str) -> tuple[set[str], bool]:
    """The stems of a key's or phrasing's words, without function words or numbers, and
    whether they say no ("not the highest")."""
    found = re.findall(r"[a-z]+(?:n't)?", words.lower())
    return {stem(w) for w in found} - _FUNCTION_WORDS, any(
        w in ("no", "not", "never") or w.endswith("n't") for w in found)


def _bool_by_key_words(fact: FactSpec, value: Any, structured: Mapping[str, Any],
                       question: Text) -> Part | None:
    """A yes/no a JSON answer gives under a key of its own choosing whose words are one of
    the fact's phrasings, with at most the question's own words besides: with
    ``"pump_needs_a_repair": true`` it says "needs a repair", with ``"3_may_lowest": false``
    "not the lowest" of the day asked. True states the phrasing's side (a phrasing that says
    no, the other side), false the other side; None unless the keys say one side only."""
    asked = {stem(w) for w in re.findall(r"[a-z]+", question.low)}
    said: set[bool] = set()
    for k, v in structured.items():
        m = _REPLY_VALUE.fullmatch(v) if isinstance(v, str) else None
        yes = v if isinstance(v, bool) else m.group(1).lower() in ("yes", "true") if m else None
        words, _ = _key_word_stems(str(k))
        if yes is None or not words:
            continue
        for side in ("true", "false"):
            for phrase in fact.labels.get(side, []):
                mine, negative = _key_word_stems(phrase)
                if mine and mine <= words and words - mine <= asked:
                    said.add(((side == "true") != negative) == yes)
    if len(said) != 1:
        return None
    got = said.pop()
    return Part(fact.key, got == value, value, got, "a JSON key whose words are its phrasing")


def _unasked_stated(ctx: Context, contract: AnswerContract, keys: list[str],
                    reference: Mapping[str, Any],
                    vocab_of: Callable[[FactSpec], dict[str, list[str]]]) -> list[Part]:
    """The parts of unasked facts among ``keys`` that the answer states in full (listed
    orders imply that an order was raised even when the text does not ask which)."""
    out: list[Part] = []
    for key in keys:
        spec = contract.fact(key)
        if spec is None or spec.asked or reference.get(key) in (None, [], {}):
            continue
        got = match_fact(ctx, spec, reference[key], vocab_of(spec))
        if got and all(p.ok for p in got):
            out.extend(got)
    return out


def _unstated_bool(fact: FactSpec, value: Any, done: list[Part],
                   reference: Mapping[str, Any]) -> Part | None:
    """A yes/no the answer does not state: true when a fact that implies it was stated with
    a value (``implied_by``; "none" implies nothing), else the contract's ``assumed`` value;
    None when neither applies."""
    def top(p: Part) -> str:
        return p.path.split(".")[0].split("[")[0]

    stated = {top(p) for p in done if p.ok and reference.get(top(p)) not in (None, [], {})}
    said_none = {top(p) for p in done if p.ok and reference.get(top(p)) in (None, [], {})}
    if fact.implied_by and all(k in said_none for k in fact.implied_by):
        return Part(fact.key, value is False, value, False,
                    f"implied false: no {', '.join(fact.implied_by)}")
    if any(k in stated for k in fact.implied_by):
        return Part(fact.key, value is True, value, True,
                    f"implied by {', '.join(k for k in fact.implied_by if k in stated)}")
    if fact.assumed is not None:
        return Part(fact.key, value == fact.assumed, value, fact.assumed,
                    "not disputed, so taken as " + str(fact.assumed).lower())
    return None


def contradicted(ctx: Context, fact: FactSpec, value: Any,
                 vocab: Mapping[str, list[str]]) -> Part | None:
    """A miss when the answer states an unasked fact with another value than the reference.

    Only what is plainly the fact's statement counts: times (and labels) tied to the fact's
    words; when one of them is the reference's, nothing is contradicted.
    """
    if fact.kind in ("timestamp", "date") and isinstance(value, str):
        parsed = _expected_when(value)
        if parsed is None:
            return None
        granularity = "day" if fact.kind == "date" else fact.granularity
        mine = []
        for w in ctx.text.whens:
            owners = ctx.owners(w.start, w.end, "time")
            if owners is not None and fact.key in owners:
                mine.append(w)
        mine += [w for w in _times_of_value(ctx, fact) if w not in mine]
        # A day written without its time does not contradict the reference's time.
        if mine and not any(_when_ok(w, *parsed, granularity if w.hour is not None else "day")
                            for w in mine):
            said = [ctx.text.raw[w.start:w.end] for w in mine[:3]]
            return Part(fact.key, False, value, said,
                        "not asked, but stated with another time")
    if fact.kind == "label" and isinstance(value, str) and ctx.anchors().get(fact.key):
        if _match_label(ctx, fact.key, fact, value, vocab).ok:
            return None
        rivals = [(a, b, v) for v in {*fact.labels, *vocab} - {value}
                  for a, b in _label_spans(ctx, label_phrasings(fact, v, vocab))
                  if not ctx.text.negated(a)]
        stated = _nearest_to_anchor(ctx, fact, rivals)
        if stated:
            return Part(fact.key, False, value, sorted(stated),
                        "not asked, but stated as another label")
    return _contradicted_more(ctx, fact, value) or _contradicted_members(ctx, fact, value, vocab) \
        or _contradicted_bool(ctx, fact, value)


def _contradicted_bool(ctx: Context, fact: FactSpec, value: Any) -> Part | None:
    """A miss when an unasked yes/no is said the other way by one of its own phrasings
    ("the anomalies were followed by corrective work" when the order came before them); a
    leading yes/no or a clause read for a negation answers the question, not this fact, and
    a phrasing that states a rule ("between equal scores the older unit first", "it must
    ...") or the question's own words says nothing of what the data showed."""
    if fact.kind != "boolean" or not isinstance(value, bool) or not any(fact.labels.values()):
        return None
    t = ctx.text
    own = {side: [p for p in ps if not _phrasing_spans(ctx.question, p) and any(
               not _RULE_FRAME.search(t.low, t.sentence_of(a)[0], a)
               for a, _b in _phrasing_spans(t, p))]
           for side, ps in fact.labels.items()}
    part = _match_bool(ctx, fact.key, fact.model_copy(update={"labels": own}), value)
    if part.ok or part.why not in ("stated by a phrasing", "stated by a conclusion"):
        return None
    return Part(fact.key, False, value, part.given, "not asked, but stated the other way")


# Words that make what follows a rule or a supposition, not a finding.
_RULE_FRAME = re.compile(r"\b(?:if|unless|would|could|must|should|between equal|on equal|"
                         r"among equal|in case of)\b")


def _contradicted_members(ctx: Context, fact: FactSpec, value: Any,
                          vocab: Mapping[str, list[str]]) -> Part | None:
    """A miss when an unasked set of codes (labels with no words of their own: each is its
    own token) is stated in full with a further code the answer asserts ("DGA-ABN on 1 July
    and IC-SENS on 29 July" for the one order in the window)."""
    if fact.kind != "labels" or fact.means or any(fact.labels.values()) \
            or not isinstance(value, list) or not value \
            or not all(isinstance(v, str) for v in value):
        return None
    if not all(p.ok for p in _match_members(ctx, fact.key, fact, value, vocab)):
        return None
    extra = sorted(v for v in {*fact.labels, *vocab} - set(value)
                   if any(not _ASIDE.search(ctx.text.low, *ctx.text.sentence_of(a))
                          and not _set_aside(ctx, b)
                          for a, b in _asserted(ctx, _label_spans(
                              ctx, label_phrasings(fact, v, vocab)), fact)))
    if not extra:
        return None
    return Part(fact.key, False, value, extra, "not asked, but stated with further members")


# Said after a thing to leave it out of what is counted ("PM-INSP is preventive, not counted").
_LEFT_OUT = re.compile(r"\b(?:not|isn't|aren't|wasn't|weren't)\s+(?:being\s+)?(?:counted|included|"
                       r"in scope|part of (?:it|this|that|them|the (?:count|set|list)))\b|"
                       r"\b(?:excluded|left out|set aside|out of scope)\b|"
                       r"\b(?:does|do|did)(?:\s+not|n't)\s+count\b")


def _set_aside(ctx: Context, end: int) -> bool:
    """True when the rest of the sentence after a member says it is left out of the set
    ("the 11 May PM job is preventive, not counted", "... was excluded")."""
    return _LEFT_OUT.search(ctx.text.low, end, ctx.text.sentence_of(end)[1]) is not None


def _times_of_value(ctx: Context, fact: FactSpec) -> list[When]:
    """The times written right after the stated value of the quantity a timestamp is the
    time of (``time_of``): "83 kW at 05:00 on 30 June"."""
    quantity = ctx.contract.fact(fact.time_of) if fact.time_of else None
    value = ctx.reference.get(fact.time_of) if fact.time_of else None
    if quantity is None or not isinstance(value, int | float) or isinstance(value, bool):
        return []
    out = []
    for n in ctx.text.numbers:
        if not number_matches(ctx, quantity.key, quantity, n, float(value)):
            continue
        out += [w for w in ctx.text.whens if w.start >= n.end and _VALUE_TIME_GAP.fullmatch(
            ctx.text.raw, n.end, w.start)]
    return out


# What may stand between a value and its time: a preposition, after the horizon the value
# is for ("665 A six hours out, at 05:00", "12 °C 3 h ahead on 2 July at 09:00").
_VALUE_TIME_GAP = re.compile(
    r"\s*(?:(?:[\w.-]+\s*){1,2}(?:hours?|hrs?|h|steps?)\s+(?:out|ahead|later|on|from now)"
    r"\s*,?\s*)?(?:at|on|for|by|around|@)?\s*", re.IGNORECASE)


def _stretch_misread(ctx: Context, fact: FactSpec, value: Any) -> Part | None:
    """A miss when a range of hours that starts (ends) at the stretch's reference start
    (end) ends (starts) at another hour than this end (start) of it (``stretch``)."""
    other = next((f for f in ctx.contract.facts if f.stretch and f.stretch != fact.stretch),
                 None)
    mine = _expected_when(value) if isinstance(value, str) else None
    theirs = ctx.reference.get(other.key) if other is not None else None
    far = _expected_when(theirs) if isinstance(theirs, str) else None
    if mine is None or far is None or mine[1] is None or far[1] is None:
        return None
    at = 1 if fact.stretch == "start" else 2  # the end of a range this fact sits at
    for day, first, last in ctx.text.ranges:
        ends = (day, first, last)
        if day == far[0] and ends[3 - at] == far[1] and (day != mine[0] or ends[at] != mine[1]):
            return Part(f"{fact.key}.range", False, value, f"{day} {first:02d}:00-{last:02d}:00",
                        f"the range of hours written gives another {fact.stretch}")
    return None


def _contradicted_more(ctx: Context, fact: FactSpec, value: Any) -> Part | None:
    """The other kinds of an unasked fact an answer can state wrong: a number (a count, a
    quantity), the members of a list of times (none on record: any time stated for it), a
    mapping's values next to their keys, a record's fields by their own words."""
    if fact.kind in ("count", "quantity") and isinstance(value, int | float) \
            and not isinstance(value, bool):
        return _contradicted_values(ctx, fact.key, fact, [float(value)])
    if fact.kind in ("timestamp", "date") and isinstance(value, list) \
            and all(isinstance(v, str) and _expected_when(v) for v in value):
        return _contradicted_values(ctx, fact.key, fact, value)
    if fact.kind == "mapping" and isinstance(value, Mapping) and fact.value is not None:
        return _contradicted_entries(ctx, fact, fact.value, value)
    if fact.kind == "records" and isinstance(value, list) and value \
            and all(isinstance(r, Mapping) for r in value):
        return _contradicted_fields(ctx, fact, value)
    return None


def _stated_values(ctx: Context, key: str, fact: FactSpec) -> list[tuple[int, int, Any, bool]]:
    """The values of the fact's kind the answer ties to the fact's words (``key``): whole
    numbers of a count, times; each with whether it plainly states the fact, in the clause
    of the fact's words and not said relative to another value ("40 K above normal") or as
    one end of a range ("73-80"). A negated one ("no trip on 3 July") or one in an aside
    about what lies outside the window asked ("past the window, it stays frozen until ...")
    states nothing."""
    if kind_group(fact) == "number" and fact.kind in ("count", "quantity"):
        found: list[tuple[int, int, Any, bool]] = [
            (n.start, n.end, n, not _RELATIVE.match(ctx.text.low, n.end)
             and not _RANGED.match(ctx.text.low, n.end) and not _BOUND_BEFORE.search(
                 ctx.text.low[max(0, n.start - 16):n.start])) for n in ctx.text.numbers
            if not n.total and not (n.word and n.value == 0) and _unit_fits(fact, n)
            and n.as_unit(fact.unit) and not _a_year(ctx, n)
            # a quantity is stated in its unit (or one convertible to it), not bare
            and (fact.kind == "count" or fact.unit is None or n.unit is not None)
            and key in (ctx.owners(n.start, n.end, "number", n) or ())]
    elif kind_group(fact) == "time":
        found = [(w.start, w.end, w, True) for w in ctx.text.whens
                 if key in (ctx.owners(w.start, w.end, "time") or ())]
    else:
        return []

    def in_clause(a: int, b: int) -> bool:
        c0, c1 = ctx.text.clause_of(a, b)
        return any(c0 <= x and y <= c1 for x, y in ctx.anchors().get(key, []))

    return [(a, b, v, plain and in_clause(a, b)) for a, b, v, plain in found
            if not ctx.text.negated(a)
            and not _ASIDE.search(ctx.text.low, *ctx.text.sentence_of(a))]


def _contradicted_values(ctx: Context, key: str, fact: FactSpec, expected: list[Any],
                         top: str | None = None) -> Part | None:
    """A miss when the values tied to an unasked fact's words are none of the reference's
    (an empty reference: any value), or one that is comes with another joined by "or"."""
    stated = _stated_values(ctx, key, fact)
    if not stated:
        return None

    def ok(v: Any) -> bool:
        if isinstance(v, Num):
            return any(number_matches(ctx, top or key, fact, v, float(e)) for e in expected)
        parsed = [p for e in expected for p in [_expected_when(str(e))] if p]
        granularity = "day" if fact.kind == "date" or v.hour is None else fact.granularity
        return any(_when_ok(v, *p, granularity) for p in parsed)

    hits = [(a, b) for a, b, v, _ in stated if ok(v)]
    misses = [(a, b) for a, b, v, plain in stated if plain and not ok(v)]
    if hits:
        # A value of its kind joined to a right one by "or" ("three or four pick-ups").
        kin: list[Any] = list(ctx.text.whens) if kind_group(fact) == "time" else [
            n for n in ctx.text.numbers if _unit_fits(fact, n) and n.as_unit(fact.unit)]
        rivals = [(v.start, v.end) for v in kin if not ok(v)]
        misses = [h for h in hits if _hedged(ctx, h, rivals)]
    if not misses:
        return None
    said = [ctx.text.raw[a:b] for a, b in misses[:3]]
    why = "hedged with another value" if hits else "stated with another value"
    return Part(key, False, expected if len(expected) != 1 else expected[0], said,
                f"not asked, but {why}")


_YEAR_BEFORE = re.compile(r"(?:\(|\b(?:installed|built|commissioned|manufactured|made|"
                          r"since|in|from|year|of|dating from|new in)\s+)$")
# A year said of the noun after it ("this 2026 sample", "the 2019 edition").
_YEAR_OF_NOUN = re.compile(r"\b(?:this|that|the|its|their|each)\s+$")


def _a_year(ctx: Context, n: Num) -> bool:
    """Whether a number is written as a year ("installed 2006", "(2016)"), no value."""
    return n.unit is None and not n.word and n.text.isdigit() and len(n.text) == 4 \
        and 1900 <= n.value <= 2100 and (_YEAR_BEFORE.search(
            ctx.text.low[max(0, n.start - 24):n.start]) is not None or (
            _YEAR_OF_NOUN.search(ctx.text.low[max(0, n.start - 8):n.start]) is not None
            and re.match(r"[ \t]+[a-z]", ctx.text.raw[n.end:]) is not None))


def _contradicted_entries(ctx: Context, fact: FactSpec, spec: FactSpec,
                          expected: Mapping[str, Any]) -> Part | None:
    """A miss when a mapping key is written with a number of the value's kind next to it
    and none of its mentions has the reference's value."""
    if spec.kind == "label":
        return _contradicted_label_entries(ctx, fact, spec, expected)
    if spec.kind not in ("count", "quantity"):
        return None
    spans = {k: _key_spans(ctx, fact, k) for k in expected}
    mentions = sorted(s for ks in spans.values() for s in ks)
    for key, value in expected.items():
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        written = [n for span in spans[key] for a, b in _entry_windows(ctx, spec, span, mentions)
                   for n in ctx.text.numbers
                   if a <= n.start < b and not n.total and _unit_fits(spec, n)
                   and n.as_unit(spec.unit) and not _a_year(ctx, n)]
        if written and not any(number_matches(ctx, fact.key, spec, n, float(value))
                               for n in written):
            return Part(f"{fact.key}.{key}", False, value, [n.text for n in written[:3]],
                        "not asked, but stated with another value next to its key")
    return None


def _contradicted_label_entries(ctx: Context, fact: FactSpec, spec: FactSpec,
                                expected: Mapping[str, Any]) -> Part | None:
    """A miss when a mapping key is written with another label of the value's vocabulary
    next to it (not negated) and none of its mentions has the reference's label: "IEC and
    Rogers both give T1" when Rogers gives PD."""
    vocab = {v: spec.labels.get(v, []) for v in spec.labels}
    spans = {k: _key_spans(ctx, fact, k) for k in expected}
    mentions = sorted(s for ks in spans.values() for s in ks)
    for key, value in expected.items():
        if not isinstance(value, str) or not spans[key]:
            continue
        windows = [w for span in spans[key] for w in _entry_windows(ctx, spec, span, mentions)]
        mine = _label_spans(ctx, label_phrasings(spec, value, vocab))
        if any(a <= x < b for a, b in windows for x, _ in mine):
            continue
        rivals = [ctx.text.raw[x:y] for v in vocab if v != value
                  and not set(label_phrasings(spec, v, vocab)) & set(
                      label_phrasings(spec, value, vocab))
                  for x, y in _label_spans(ctx, label_phrasings(spec, v, vocab))
                  if any(a <= x < b for a, b in windows) and not ctx.text.negated(x)]
        if rivals:
            return Part(f"{fact.key}.{key}", False, value, sorted(set(rivals))[:3],
                        "not asked, but stated as another label next to its key")
    return None


def stated_wrong_entries(scenario: Mapping[str, Any], contract: AnswerContract,
                         answer_text: str, keys: frozenset[str]) -> list[Part]:
    """The mapping facts among ``keys`` whose entries an answer states with another value
    next to their keys (:func:`_contradicted_entries`): what an open (rubric) answer ties
    to the wrong member ("IEC gives T1" when IEC gives PD)."""
    reference = scenario.get("reference_answer") or {}
    year = year_of(scenario)
    ctx = Context(read(answer_text, year=year), read(str(scenario.get("text") or ""),
                                                     year=year),
                  contract, {}, {}, present=frozenset(reference), reference=reference)
    out = []
    for f in contract.facts:
        value = reference.get(f.key)
        if f.key in keys and f.kind == "mapping" and f.value is not None \
                and isinstance(value, Mapping):
            part = _contradicted_entries(ctx, f, f.value, value)
            if part is not None:
                out.append(part)
    return out


def _contradicted_fields(ctx: Context, fact: FactSpec,
                         expected: list[Mapping[str, Any]]) -> Part | None:
    """A miss when a record field's own words ("from", "consecutive") carry a value that
    no record has: the fields are read as facts of their own, beside the other facts."""
    fields = [f.model_copy(update={"key": f"{fact.key}.{f.key}"}) for f in fact.fields]
    others = [f for f in ctx.contract.facts if f.key != fact.key]
    sub = ctx.contract.model_copy(update={"facts": others + fields})
    present = (ctx.present or frozenset(f.key for f in others)) | {f.key for f in fields}
    sctx = Context(ctx.text, ctx.question, sub, ctx.abs_tol, ctx.rel_tol, present=present)
    for spec, own in zip(fact.fields, fields, strict=True):
        values = [r[spec.key] for r in expected if r.get(spec.key) is not None]
        if not values or kind_group(spec) not in ("number", "time"):
            continue
        if kind_group(spec) == "time" and not all(isinstance(v, str) and _expected_when(v)
                                                  for v in values):
            continue
        if kind_group(spec) == "number" and not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            continue
        miss = _contradicted_values(sctx, own.key, own, values, top=fact.key)
        if miss is not None:
            return miss
    return None
