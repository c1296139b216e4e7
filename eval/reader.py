"""Reading a free-text answer as an engineer reads it: values with their places in the text.

:func:`read` turns an answer into a :class:`Text`: the sentences and clauses, and every
value written in it with its span, so the grader can ask what a value is written next to.

- **Dates and times** in the forms people write: ISO (``2026-08-25 19:00``,
  ``2026-08-25T19:00:00``; ``08-25 19:00`` in the question's year), ``25 August 2026``,
  ``Aug 25th, 2026``, ``25 Aug``, with a time
  before or after (``19:00 on 25 August 2026``, ``25 Aug 2026 at 7 pm``, ``7:30 p.m.``,
  ``noon``). A day without a year takes the year of the question. A time written alone
  belongs to the one date of its sentence, if there is one.
- **Ids**: upper-case tokens joined by hyphens with a letter first (``EAST-TX01``,
  ``CH-PLANT2-04``, ``WO-0012``, ``CH-EF``) or letters then digits (``CWC04013``). Their
  digits never count as numbers, and neither do a date's or a time's. An id written by its
  end after a full one (``CH-MAIN-03 … then -04``) is that id with this end; a range
  (``EAST-TX01 through EAST-TX04``) names the ids between.
- **Numbers**: digits with thousands separators (``41,129``, ``41 129`` with a thin or
  no-break space), decimals and exponents, signs; words (``none``, ``one`` to ``twenty``,
  ``thirty`` … ``ninety`` and compounds, ``a dozen``, ``a single``, ``once``, ``twice``);
  each with the unit written after it (or ``COP`` before it) and the precision it was
  written with. An ordinal said of the latest item (``last serviced on 5 August, the third
  job on record``) is a count.
- **Clauses**: a sentence splits at ``, ; :`` and at ``and / but / while / whereas / with /
  which``; a negation (``not``, ``no``, ``never`` …) counts in the clause before a mention.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

MAX_CHARS = 100_000
_ANY_YEAR = 2000  # a leap year: where a day is written when no year is known

# Units: spelling -> (dimension, factor to the dimension's base, offset). Temperatures have
# an offset (°F, K absolute); differences use `DIFFERENCE_UNITS`.
UNITS: dict[str, tuple[str, float, float]] = {
    "%": ("ratio", 0.01, 0.0), "percent": ("ratio", 0.01, 0.0), "per cent": ("ratio", 0.01, 0.0),
    "pct": ("ratio", 0.01, 0.0), "pu": ("ratio", 1.0, 0.0), "p.u.": ("ratio", 1.0, 0.0),
    "per unit": ("ratio", 1.0, 0.0), "x": ("ratio", 1.0, 0.0), "×": ("ratio", 1.0, 0.0),
    "times": ("ratio", 1.0, 0.0),
    "°c": ("temp", 1.0, 0.0), "° c": ("temp", 1.0, 0.0), "ºc": ("temp", 1.0, 0.0),
    "degc": ("temp", 1.0, 0.0), "deg c": ("temp", 1.0, 0.0), "degrees c": ("temp", 1.0, 0.0),
    "degrees celsius": ("temp", 1.0, 0.0), "celsius": ("temp", 1.0, 0.0), "c": ("temp", 1.0, 0.0),
    "°f": ("temp", 5 / 9, -32 * 5 / 9), "° f": ("temp", 5 / 9, -32 * 5 / 9),
    "degf": ("temp", 5 / 9, -32 * 5 / 9), "deg f": ("temp", 5 / 9, -32 * 5 / 9),
    "degrees f": ("temp", 5 / 9, -32 * 5 / 9), "fahrenheit": ("temp", 5 / 9, -32 * 5 / 9),
    "degrees fahrenheit": ("temp", 5 / 9, -32 * 5 / 9), "f": ("temp", 5 / 9, -32 * 5 / 9),
    "k": ("temp", 1.0, -273.15), "kelvin": ("temp", 1.0, -273.15),
    "ppm/day": ("ppm/d", 1.0, 0.0), "ppm per day": ("ppm/d", 1.0, 0.0),
    "ppm/d": ("ppm/d", 1.0, 0.0), "ppm a day": ("ppm/d", 1.0, 0.0),
    "ppm": ("ppm", 1.0, 0.0), "µl/l": ("ppm", 1.0, 0.0), "ul/l": ("ppm", 1.0, 0.0),
    "μl/l": ("ppm", 1.0, 0.0),
    "kv": ("V", 1e3, 0.0), "v": ("V", 1.0, 0.0), "volts": ("V", 1.0, 0.0),
    "ka": ("A", 1e3, 0.0), "a": ("A", 1.0, 0.0), "amps": ("A", 1.0, 0.0),
    "amperes": ("A", 1.0, 0.0),
    "mva": ("VA", 1e6, 0.0), "kva": ("VA", 1e3, 0.0), "va": ("VA", 1.0, 0.0),
    "mw": ("W", 1e6, 0.0), "kw": ("W", 1e3, 0.0), "w": ("W", 1.0, 0.0),
    "kw/ton": ("kW/ton", 1.0, 0.0), "kw/tr": ("kW/ton", 1.0, 0.0),
    "kw per ton": ("kW/ton", 1.0, 0.0), "kw/t": ("kW/ton", 1.0, 0.0),
    "ton-hours": ("ton-h", 1.0, 0.0), "ton-hour": ("ton-h", 1.0, 0.0),
    "ton hours": ("ton-h", 1.0, 0.0), "ton-h": ("ton-h", 1.0, 0.0), "ton·h": ("ton-h", 1.0, 0.0),
    "tonne-hours": ("ton-h", 1.0, 0.0), "tr-h": ("ton-h", 1.0, 0.0), "trh": ("ton-h", 1.0, 0.0),
    "tons of refrigeration": ("ton", 1.0, 0.0), "tons": ("ton", 1.0, 0.0),
    # Cooling (not electrical) power in kW: 1 ton of refrigeration is 3.51685 kW.
    "kw of refrigeration": ("ton", 1 / 3.51685, 0.0), "kw of cooling": ("ton", 1 / 3.51685, 0.0),
    "kw refrigeration": ("ton", 1 / 3.51685, 0.0), "kwr": ("ton", 1 / 3.51685, 0.0),
    "kw(r)": ("ton", 1 / 3.51685, 0.0), "kw cooling": ("ton", 1 / 3.51685, 0.0),
    "ton": ("ton", 1.0, 0.0), "tr": ("ton", 1.0, 0.0), "rt": ("ton", 1.0, 0.0),
    "hours": ("h", 1.0, 0.0), "hour": ("h", 1.0, 0.0), "hrs": ("h", 1.0, 0.0),
    "minutes": ("h", 1 / 60, 0.0), "minute": ("h", 1 / 60, 0.0), "mins": ("h", 1 / 60, 0.0),
    "min": ("h", 1 / 60, 0.0),
    "hr": ("h", 1.0, 0.0), "h": ("h", 1.0, 0.0),
    "days": ("h", 24.0, 0.0), "day": ("h", 24.0, 0.0), "d": ("h", 24.0, 0.0),
    "weeks": ("h", 168.0, 0.0), "week": ("h", 168.0, 0.0),
    "years": ("y", 1.0, 0.0), "year": ("y", 1.0, 0.0),
    "kwh": ("ton-h", 1 / 3.51685, 0.0), "mwh": ("ton-h", 1e3 / 3.51685, 0.0),
    "mn/m": ("mN/m", 1.0, 0.0), "dyn/cm": ("mN/m", 1.0, 0.0), "dynes/cm": ("mN/m", 1.0, 0.0),
    "mg koh/g": ("mgKOH/g", 1.0, 0.0), "mgkoh/g": ("mgKOH/g", 1.0, 0.0),
}
# A temperature difference: °C and K are the same step, °F is 5/9 of one.
DIFFERENCE_UNITS: dict[str, float] = {
    "°c": 1.0, "° c": 1.0, "ºc": 1.0, "degc": 1.0, "deg c": 1.0, "degrees c": 1.0,
    "degrees celsius": 1.0, "celsius": 1.0, "c": 1.0, "k": 1.0, "kelvin": 1.0,
    "°f": 5 / 9, "° f": 5 / 9, "degf": 5 / 9, "deg f": 5 / 9, "degrees f": 5 / 9,
    "fahrenheit": 5 / 9, "degrees fahrenheit": 5 / 9, "f": 5 / 9,
}
# The unit a contract names, as a dimension and factor (the contract's unit is the
# reference value's unit).
CONTRACT_UNITS: dict[str, tuple[str, float, float]] = {
    "°C": ("temp", 1.0, 0.0), "K": ("dtemp", 1.0, 0.0), "%": ("ratio", 0.01, 0.0),
    "pu": ("ratio", 1.0, 0.0), "ppm": ("ppm", 1.0, 0.0), "ppm/day": ("ppm/d", 1.0, 0.0),
    "kW/ton": ("kW/ton", 1.0, 0.0), "ton": ("ton", 1.0, 0.0), "ton-h": ("ton-h", 1.0, 0.0),
    "MVA": ("VA", 1e6, 0.0), "kVA": ("VA", 1e3, 0.0), "kV": ("V", 1e3, 0.0),
    "V": ("V", 1.0, 0.0), "A": ("A", 1.0, 0.0), "kW": ("W", 1e3, 0.0), "MW": ("W", 1e6, 0.0),
    "h": ("h", 1.0, 0.0), "days": ("h", 24.0, 0.0), "mN/m": ("mN/m", 1.0, 0.0),
    "mgKOH/g": ("mgKOH/g", 1.0, 0.0), "years": ("y", 1.0, 0.0),
}
KW_PER_TON_COP = 3.51685  # kW of cooling in one ton of refrigeration: kW/ton = 3.517 / COP

MONTHS = {
    name: i + 1
    for i, names in enumerate([
        ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
        ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
        ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
        ("december", "dec"),
    ])
    for name in names
}
_MONTHS = MONTHS  # month name or abbreviation -> number (eval.extract reads them too)
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINALS = {w: i + 1 for i, w in enumerate((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth", "twenty-first", "twenty-second",
    "twenty-third", "twenty-fourth", "twenty-fifth", "twenty-sixth", "twenty-seventh",
    "twenty-eighth", "twenty-ninth", "thirtieth", "thirty-first"))}
_ORDINAL = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_ISO = re.compile(
    r"(?<![\d-])(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})"
    r"(?:(?:T|\s+(?:at\s+)?)(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.\d+)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2}|\s?UTC)?)?(?![\d])"
)
_MONTH_DAY_TIME = re.compile(r"(?<![\w./:-])(?P<m>\d{1,2})-(?P<d>\d{1,2})(?:T|\s+)"
                             r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?![\d:-])")
_ORDINAL_DAY = re.compile(
    rf"(?<![\w-])(?P<d>\d{{1,2}}(?=st|nd|rd|th)|(?<=the\s)(?:{_ORDINAL}))(?:st|nd|rd|th)?\b"
    rf"(?!\s+(?:of\s+)?(?:{_MONTH})\b)(?!\s+(?:planned|time|place|quarter|week|unit|"
    r"sample|job|order|alarm|alert|reading|hour|day|of\s+the))", re.IGNORECASE)
_DMY = re.compile(
    rf"\b{_WEEKDAY}(?:the\s+)?(?P<d>\d{{1,2}}|{_ORDINAL})(?:st|nd|rd|th)?\s+(?:of\s+)?"
    rf"(?P<mon>{_MONTH})\b\.?"
    r"(?:,?\s+(?P<y>\d{4})\b)?", re.IGNORECASE)
_MDY = re.compile(
    rf"\b{_WEEKDAY}(?P<mon>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
    r"(?:,?\s+(?P<y>\d{4})\b)?", re.IGNORECASE)
_CLOCK_WORDS = {w: i + 1 for i, w in enumerate(
    ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
     "twelve"))}
_HOUR = r"(?:\d{1,2}|" + "|".join(_CLOCK_WORDS) + r")"
_TIME = re.compile(
    r"(?<![\d:.])(?:(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?(?:\s*(?P<ap>[ap])\.?m\.?\b)?"
    r"(?:\s*(?:h|hrs|hours)\b)?"
    r"|(?P<h2>\d{1,2})\s*(?P<ap2>[ap])\.?m\.?(?![a-z])"
    # "five in the afternoon", "one in the morning", "seven o'clock in the evening",
    # "half past five" (in the afternoon): hours in words, as people say them.
    r"|\b(?P<half>half past\s+)?(?P<h3>" + _HOUR + r")(?:\s+o'?clock)?\s+(?P<part>in the "
    r"morning|in the afternoon|in the evening|at night)\b"
    r"|\b(?P<word>noon|midday|midnight)"
    # "half past five", "seven o'clock" with no part of the day: the sentence's says it.
    r"|\b(?P<past>half past|quarter past|quarter to)\s+(?P<h4>" + _HOUR + r")\b"
    r"|\b(?P<h5>" + _HOUR + r")\s+o'?clock\b)(?![\d])", re.IGNORECASE)
_ID = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z]{2,}\d{2,}[A-Z0-9]*)(?![\w-])")
_SEP = "[,\u00a0\u202f\u2009]"
_NUM = re.compile(
    rf"(?<![\w.])(?P<num>[-+−]?(?:\d{{1,3}}(?:{_SEP}\d{{3}})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
    r"|[-+−]?\.\d+)(?!\d|(?:st|nd|rd|th)\b)")  # "the 5th" is an ordinal, not a number
_UNIT_AFTER = re.compile(
    r"[ \t\u00a0\u202f]?(?P<unit>"
    + "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
    + r")(?![a-zA-Z0-9])", re.IGNORECASE)
_COP = re.compile(r"\bCOP\b\s*(?:(?:of|=|:|is|was|at|about|around|roughly|~|≈)\s*){0,2}$",
                  re.IGNORECASE)
_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_DIGIT_WORDS = "|".join(k for k in _SMALL if _SMALL[k] < 10)
_BELOW_100 = (r"(?:(?:" + "|".join(_TENS) + r")(?:[- ](?:" + _DIGIT_WORDS + r"))?|(?:"
              + "|".join(sorted(_SMALL, key=len, reverse=True)) + r"))")
_BELOW_1000 = (r"(?:(?:a|one|two|three|four|five|six|seven|eight|nine)\s+hundred"
               r"(?:\s+(?:and\s+)?" + _BELOW_100 + r")?|" + _BELOW_100 + r")")
_WORD_NUM = re.compile(
    r"\b(?:(?P<number>(?:(?:a|" + _BELOW_1000 + r")\s+thousand(?:,?\s+(?:and\s+)?"
    + _BELOW_1000 + r")?|" + _BELOW_1000 + r")"
    r"(?:\s+point(?P<frac>(?:\s+(?:" + _DIGIT_WORDS + r"))+))?)"
    r"|(?P<dozen>a dozen|one dozen)|(?P<single>a single|single|once)|(?P<twice>twice)"
    r"|(?P<none>none|no|nil|nothing))\b", re.IGNORECASE)


# Fractions in words: "two tenths of a ppm", "a hundredth of a ppm per day", "half a degree".
_PARTS = {"half": (2, 1), "halves": (2, 1), "third": (3, 2), "thirds": (3, 2),
          "quarter": (4, 2), "quarters": (4, 2), "fifth": (5, 1), "fifths": (5, 1),
          "tenth": (10, 1), "tenths": (10, 1), "hundredth": (100, 2), "hundredths": (100, 2),
          "thousandth": (1000, 3), "thousandths": (1000, 3)}  # denominator, decimals
_FRACTION = re.compile(
    r"\b(?:(?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|\d)\s+(?P<d>"
    + "|".join(sorted(_PARTS, key=len, reverse=True)) + r")\s+of\s+(?:a|an|one)"
    r"|(?P<half>half)\s+(?:a|an))\b(?=\s)", re.IGNORECASE)


def _fractions(text: str, rest: str) -> list[Num]:
    """Fractions said in words, with the unit written after them."""
    out = []
    for m in _FRACTION.finditer(rest):
        u = _UNIT_AFTER.match(rest, m.end())
        if u is None:
            continue  # "a third of the samples" is a share, not a value
        if m.group("half"):
            value, decimals = 0.5, 1
        else:
            raw = m.group("n").lower()
            count = int(raw) if raw.isdigit() else 1 if raw in ("a", "an") else _SMALL[raw]
            den, decimals = _PARTS[m.group("d").lower()]
            value = count / den
        out.append(Num(m.start(), u.end(), value, u.group("unit"), decimals, 99,
                       text[m.start():u.end()], word=True))
    return out


# A change written as a fall: the number is the size of a negative change.
_FALL_BEFORE = re.compile(r"\b(?:down|fell|fallen|dropped|decreased|declined|lower|less|"
                          r"reduced|drop|decrease|decline|reduction|fall)\s+(?:by\s+|of\s+)?"
                          r"(?:about\s+|around\s+|some\s+|~\s*)?$")
_FALL_AFTER = re.compile(r"\s*(?:lower|less|better|below)\s+than\s+(?:the\s+)?(?:design|"
                         r"expected|rated|nameplate|before|the previous|previous)|\s*(?:down|"
                         r"lower)\b")
# Between a number and the words that make it a fall: a bracketed restatement of it ("0.002
# (0.2 %) better than design"), or the bracket's end when the number is that restatement.
_RESTATED_GAP = re.compile(r"\s*(?:\([^()]{1,40}\)|\[[^\[\]]{1,40}\]|[)\]])")


def _fall_after(after: str) -> bool:
    """Whether the words after a number make it a fall, past a bracketed restatement."""
    gap = _RESTATED_GAP.match(after)
    return _FALL_AFTER.match(after) is not None or (
        gap is not None and _FALL_AFTER.match(after, gap.end()) is not None)


def _words_value(words: str) -> int:
    """The whole number some number words say ("a hundred and sixteen" → 116, "two
    thousand one hundred and sixty" → 2160)."""
    total, current = 0, 0
    for w in re.split(r"[\s,-]+", words.lower()):
        if w in ("and", ""):
            continue
        if w == "hundred":
            current = max(current, 1) * 100
        elif w == "thousand":
            total, current = total + max(current, 1) * 1000, 0
        elif w == "a":
            current += 1
        elif w in _TENS:
            current += _TENS[w]
        elif w in _SMALL:
            current += _SMALL[w]
    return total + current


NEGATION = re.compile(
    r"\b(?:not|no|never|none|nor|neither|without|isn't|aren't|wasn't|weren't|don't|doesn't|"
    r"didn't|hasn't|haven't|hadn't|cannot|can't|won't|shouldn't|nothing|nobody|rather than|"
    r"instead of|unlike|rule out|rules out|ruled out|excludes?|excluding|nowhere|false)\b",
    re.IGNORECASE)
# A subject denied by its verb ("evaporator fouling and sensor drift are not linked"): the
# rest of the subject's list, then an auxiliary with "not" (or its contraction).
_AUX = (r"(?:is|are|was|were|be|been|do|does|did|has|have|had|can|could|may|might|will|would|"
        r"should|must)")
_NOT_MEMBER = (rf"(?!{_AUX}\b|not\b|but\b|while\b|whereas\b|though\b|although\b|so\b|it\b|this\b|"
               r"that\b|they\b|these\b|those\b|which\b|we\b|i\b|you\b)")
_SUBJECT_DENIED = re.compile(
    rf"(?:[\s*_]*+(?:,|\band\b|\bor\b|&|/)(?:[\s*()]++{_NOT_MEMBER}\w[\w'-]*+){{1,5}}?)*?"
    rf"[\s*_]*+(?:{_AUX}\s+(?:not|never)\b|(?:isn't|aren't|wasn't|weren't|doesn't|don't|didn't|"
    rf"cannot|can't|won't)\b)", re.IGNORECASE)
# Where a subject's clause opens: a sentence or line, or a stop, a colon or a contrast.
_SUBJECT_OPEN = re.compile(r"[;:\n]|\b(?:but|while|whereas|although|though)\b", re.IGNORECASE)
# Words a subject may open with before its first member.
_DETERMINERS = frozenset({"the", "a", "an", "both", "either", "its", "their", "also", "only"})
# What separates the members of a subject's list.
_SUBJECT_SEP = re.compile(r",|\band\b|\bor\b|&|/")
_AUX_WORD = re.compile(rf"\b{_AUX}\b|" + NEGATION.pattern, re.IGNORECASE)
_CLAUSE_END = re.compile(
    r"[,;:()\[\]|]|\s[-–—]\s|\b(?:and|but|while|whereas|with|which|although|though|however|"
    r"so|because|since|then)\b", re.IGNORECASE)
# A contrast that denies what its clause said of another subject, with no object of its own
# ("X also covers phase imbalance, but the trip does not"): the sentence's rest after a span.
_CONTRASTED_AWAY = re.compile(
    rf"[^.;!?\n]*?\b(?:but|whereas|while|though|although)\s+"
    rf"(?!(?:it|this|that|which|they|these|those|there|so)\b)(?:[\w'-]+\s+){{1,6}}?"
    rf"(?:{_AUX}\s+(?:not|never)|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|cannot|"
    rf"can't|won't)\b(?:\s+[\w'-]+){{0,2}}?\s*(?:[.;:)!?\n]|$)", re.IGNORECASE)


@dataclass(frozen=True)
class Num:
    """A number written in the text."""

    start: int
    end: int
    value: float
    unit: str | None
    decimals: int
    sig: int
    text: str
    word: bool = False
    total: bool = False  # the M of "N of M": a total, not a count of the thing
    falling: bool = False  # written as a fall ("down 5.3 ppm", "37 % better than design")

    def as_unit(self, contract_unit: str | None) -> list[float]:
        """The value in the contract's unit: [] when the written unit is of another kind."""
        if self.unit is None:
            return [self.value]
        unit = self.unit.lower()
        if unit == "cop":
            return [KW_PER_TON_COP / self.value] if contract_unit == "kW/ton" and self.value else []
        if contract_unit is None:
            return [self.value]  # the contract names no unit: the number as written
        want = CONTRACT_UNITS.get(contract_unit)
        if want is None:
            return [self.value]
        dim, factor, _ = want
        if dim == "dtemp":
            step = DIFFERENCE_UNITS.get(unit)
            return [self.value * step] if step is not None else []
        have = UNITS[unit]
        if have[0] != dim:
            return []
        base = self.value * have[1] + have[2]
        return [base / factor]


@dataclass(frozen=True)
class When:
    """A date, with its time when one was written."""

    start: int
    end: int
    day: str
    hour: int | None = None
    minute: int | None = None

    def stamp(self) -> str | None:
        """``YYYY-MM-DDTHH:MM`` when the time is known."""
        if self.hour is None:
            return None
        return f"{self.day}T{self.hour:02d}:{self.minute or 0:02d}"


@dataclass(frozen=True)
class Span:
    """A token (id, word) with its place."""

    start: int
    end: int
    text: str


@dataclass
class Text:
    """An answer read for grading."""

    raw: str
    low: str
    sentences: list[tuple[int, int]] = field(default_factory=list)
    whens: list[When] = field(default_factory=list)
    times: list[When] = field(default_factory=list)
    ids: list[Span] = field(default_factory=list)
    numbers: list[Num] = field(default_factory=list)
    leading: bool | None = None
    # Sentences or lines that open with a bare yes or no ("Yes — 27 July is above both"),
    # wherever they stand: (position, the answer).
    replies: list[tuple[int, bool]] = field(default_factory=list)
    truncated: bool = False
    # Hour ranges on one day ("from 04:00 through 16:00 on 20 July"): (day, first, last).
    ranges: list[tuple[str, int, int]] = field(default_factory=list)
    # Hour ranges across days ("1 July 22:00 through 2 July 03:00"): (first day, first hour,
    # last day, last hour).
    day_ranges: list[tuple[str, int, str, int]] = field(default_factory=list)
    _tokens: list[Token] | None = field(default=None, repr=False)
    _found: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    _loose: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict, repr=False)

    def quoted(self, pos: int) -> bool:
        """True when ``pos`` lies inside a quotation (a title, a description)."""
        return any(a < pos < b for a, b in (m.span() for m in _QUOTED.finditer(self.raw)))

    def sentence_of(self, pos: int) -> tuple[int, int]:
        """The span of the sentence that holds ``pos``."""
        for a, b in self.sentences:
            if a <= pos < b:
                return a, b
        return 0, len(self.raw)

    def clause_of(self, start: int, end: int) -> tuple[int, int]:
        """The span of the clause that holds ``[start, end)``."""
        s0, s1 = self.sentence_of(start)
        lo, hi = s0, s1
        for m in _CLAUSE_END.finditer(self.raw, s0, s1):
            if m.end() <= start:
                lo = max(lo, m.end())
            elif m.start() >= end:
                hi = min(hi, m.start())
                break
        return lo, hi

    def negated(self, start: int, limit: int = 48) -> bool:
        """True when the clause before ``start`` holds a negation."""
        lo, _ = self.clause_of(start, start)
        lo = max(lo, start - limit)
        return NEGATION.search(self.low, lo, start) is not None

    def denied_after(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` is (in) the subject of a negated verb: "X and Y are
        not linked", "X isn't one of them": the list it is in opens its clause (after "the",
        "both" and the like; no verb or negation before it)."""
        s0, _ = self.sentence_of(start)
        opens = [m.end() for m in _SUBJECT_OPEN.finditer(self.low, s0, start)]
        lo = max([s0, *opens])
        before = self.low[lo:start]
        if _AUX_WORD.search(before):
            return False  # a verb or a negation before it: not the subject
        head, *items = [re.findall(r"\w+", p) for p in _SUBJECT_SEP.split(before)]
        lead = list(itertools.takewhile(lambda w: w in _DETERMINERS, head))
        if (items and items[-1]) or len(head) - len(lead) > (5 if items else 0) \
                or any(len(i) > 5 for i in items[:-1]):
            return False  # not in the list that opens its clause
        return _SUBJECT_DENIED.match(self.low, end) is not None

    def contrasted_away(self, start: int, end: int) -> bool:
        """True when the sentence goes on from ``[start, end)`` to a contrast that denies it
        for another subject, with no object of its own ("phase 3 current also covers phase
        imbalance, but the top-oil trip does not"): said of one side only, the span is
        excluded from what both share, not claimed."""
        return _CONTRASTED_AWAY.match(self.low, end) is not None

    def tokens(self) -> list[Token]:
        """The answer's words (stemmed), asides in brackets and marks, in order."""
        if self._tokens is None:
            self._tokens = tokenize(self.low)
        return self._tokens

    def find_loose(self, phrase: str) -> list[tuple[int, int, int]]:
        """Spans of a phrase of two or more words written as an engineer varies it: each
        word by its stem ("evaporator tubes are fouling" for "evaporator tubes fouled"), a
        few words in between ("normal cyclic hot-spot limit exceeded") and asides in
        brackets skipped, but never across a mark, a negation or a joining word. Each
        match is (start, end, end of the words read): a list of words sharing the rest of
        the phrase ends the phrase before the list goes on (:func:`_loose_rest`)."""
        if phrase not in self._loose:
            self._loose[phrase] = [m for p in _tenses(phrase) for m in self._find_loose(p)]
        return list(self._loose[phrase])

    def _find_loose(self, phrase: str) -> list[tuple[int, int, int]]:
        words = tokenize(phrase.lower())
        if len(words) < 2 or any(w.kind != "word" for w in words):
            return []
        stems = [w.stem for w in words]
        budget = _LOOSE_GAPS if len(stems) <= 3 else _LOOSE_GAPS + 1
        tokens = self.tokens()
        out = []
        for i, t in enumerate(tokens):
            if t.kind == "word" and t.stem == stems[0]:
                end = _loose_rest(tokens, i, stems, budget)
                if end is not None:
                    out.append((t.start, *end))
        return out

    def find(self, phrase: str) -> list[tuple[int, int]]:
        """Spans of a phrase as whole words (case-insensitive; ``_``/``-`` read as spaces, and
        markdown emphasis between its words too)."""
        if phrase not in self._found:
            self._found[phrase] = self._find(phrase)
        return list(self._found[phrase])

    def _find(self, phrase: str) -> list[tuple[int, int]]:
        words = [w for w in re.split(r"[\s_\-–]+", phrase.lower().strip()) if w]
        if not words:
            return []
        pattern = r"[\s_\-–*]+".join(re.escape(w) for w in words)  # "**" is emphasis
        regex = re.compile(rf"(?<![a-z0-9]){pattern}(?![a-z0-9])")
        return [m.span() for m in regex.finditer(self.low)]


# A quotation inside a sentence (a work order's description): its stops end no sentence.
_QUOTED = re.compile(r"(?<![\w'])'[^'\n]{1,200}'(?![\w'])|\"[^\"\n]{1,200}\"|‘[^’\n]{1,200}’"
                     r"|“[^”\n]{1,200}”")


@dataclass(frozen=True)
class Token:
    """A word of the answer with its stem, an aside in brackets, or a mark."""

    start: int
    end: int
    kind: str  # "word" (words, numbers, unit symbols), "aside" or "mark"
    text: str
    stem: str


_TOKEN = re.compile(r"(?P<aside>\([^()]{0,40}\)|\[[^\[\]]{0,40}\])"
                    r"|(?P<word>[^\W_]+(?:[.,'’][^\W_]+)*|[°%≈~×±])"
                    r"|(?P<join>[^\S\n]+|[_\-–])|(?P<mark>.)", re.DOTALL)
# Words that join or bound clauses: a phrase's words are never read across one.
_JOINING = frozenset(("and", "but", "or", "while", "whereas", "which", "although", "though",
                      "however", "because", "since", "than", "then", "so", "if", "unless",
                      "whether", "except", "instead", "both", "either"))
_NEGATIVE_LEAD = frozenset(("no", "not", "nothing", "none", "never", "neither"))
_LOOSE_GAPS = 2  # words a loosely read phrase may have between its own (3 for 4+ words)


def stem(word: str) -> str:
    """A light stem: "fouling", "fouled", "fouls" -> "foul"; "tubes", "tube" -> "tub";
    "anomaly", "anomalies" -> "anomali"; a negative contraction ("isn't", "didn't") -> "not"."""
    w = word.lower()
    if w.endswith(("n't", "n’t")):
        return "not"
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            w = w[:-len(suffix)]
            if suffix in ("ing", "ed") and len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "ls":
                w = w[:-1]  # "running" -> "run", not "fall" -> "fal"
            break
    if w.endswith("y") and len(w) >= 4 and w[-2] not in "aeiouy":
        return w[:-1] + "i"  # "anomaly" -> "anomali", as "anomalies" and "applied" are
    return w[:-1] if w.endswith("e") and len(w) >= 4 else w


def tokenize(low: str) -> list[Token]:
    """Words (with stems), bracketed asides and marks of a lower-cased text."""
    out = []
    for m in _TOKEN.finditer(low):
        kind, word = m.lastgroup or "mark", m.group()
        if kind == "aside" and not all(_skippable(t, "", False) for t in tokenize(word[1:-1])
                                       if t.kind == "word"):
            kind = "mark"  # "(not the condenser)": an aside that negates or joins bounds
        if kind != "join":
            out.append(Token(m.start(), m.end(), kind, word,
                             stem(word) if kind == "word" else ""))
    return out


_PERFECT = re.compile(r"(?:has|have|had) been (?P<done>\w.*)", re.IGNORECASE)


def _tenses(phrase: str) -> list[str]:
    """A phrase and its tense variants: "has been raised" is also "was raised"."""
    m = _PERFECT.fullmatch(phrase.strip())
    return [phrase] if m is None else [phrase, f"was {m['done']}", f"were {m['done']}"]


def _skippable(token: Token, lead: str, first_gap: bool) -> bool:
    """Whether a loosely read phrase may skip this token: not a mark, a negation or a
    joining word, nor an aside that holds one; after a leading negation ("no order or
    code needed"), an "or" too, for a negation holds over every item it lists."""
    if token.kind != "word":
        return token.kind == "aside"
    if NEGATION.fullmatch(token.text):
        return False
    if token.text in ("or", "nor") and first_gap and lead in _NEGATIVE_LEAD:
        return True
    return token.text not in _JOINING


_COORDINATOR = frozenset((",", "/", "&", "and", "or"))


# A hedge on the verb that follows ("doesn't appear to have tripped", "seems to be
# fouling"): it says what the verb says, so a loosely read phrase skips it for free.
_HEDGE_VERBS = frozenset(("appear", "appears", "appeared", "seem", "seems", "seemed"))


def _hedge(tokens: list[Token], j: int) -> bool:
    """True when tokens ``j`` and ``j + 1`` are a hedge ("appears to", "seemed to")."""
    return (tokens[j].text in _HEDGE_VERBS and j + 1 < len(tokens)
            and tokens[j + 1].text == "to")
def _unit_of_value(tokens: list[Token], j: int) -> bool:
    """Whether token ``j`` is the unit written after a number ("120 °C", "30 %", "63 MVA"):
    a value with its unit is one word between a phrase's words ("the 120 °C normal cyclic
    limit")."""
    if j == 0 or tokens[j - 1].kind != "word":
        return False
    prev, word = tokens[j - 1].text, tokens[j].text
    if prev == "°":
        return word in ("c", "f")
    return prev[:1].isdigit() and (word in ("°", "%") or word in UNITS)


def _loose_rest(tokens: list[Token], i: int, stems: list[str],
                budget: int) -> tuple[int, int] | None:
    """The end of a phrase whose first stem is token ``i`` and the end of the words read,
    or None. A list of single words that share the rest of the phrase ("OTI and WTI alarm
    contacts", "top-oil, winding and ambient temperature alarms") names the phrase for its
    first word: the phrase then ends before the list goes on."""
    j, cut, items = i, None, 0
    for k, want in enumerate(stems[1:], start=1):
        j += 1
        listed = False
        while (items < 3 and j + 2 < len(tokens) and tokens[j].text in _COORDINATOR
               and tokens[j + 1].kind == "word" and tokens[j + 1].stem != want
               and _skippable(tokens[j + 1], "", False)):
            cut = tokens[j - 1].end if cut is None else cut
            items += 1
            j += 2
            listed = True
        if listed and tokens[j].stem != want:
            return None  # a list goes straight on to the words it shares
        while j < len(tokens) and tokens[j].stem != want:
            t = tokens[j]
            if not _skippable(t, stems[0], k == 1):
                return None
            if _hedge(tokens, j):
                j += 2
                continue
            if t.kind == "word" and not _unit_of_value(tokens, j):
                budget -= 1
                if budget < 0:
                    return None
            j += 1
        if j >= len(tokens):
            return None
    return (cut if cut is not None else tokens[j].end), tokens[j].end



# An abbreviation inside a sentence: its dots end no sentence ("i.e.", "e.g.", "vs.", and
# "etc." when the sentence goes on after it in lower case).
_ABBREVIATION = re.compile(r"(?<![A-Za-z])(?:(?i:[ie]\.\s?[eg]\.|(?:viz|cf|vs|approx|incl|resp)\.)"
                           r"|(?i:etc)\.(?=\s*[a-z,;:)]))")


def _sentences(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    abbreviated = [m.span() for m in _ABBREVIATION.finditer(text)]
    for m in re.finditer(r"(?<!\d)\.(?!\d)|[!?\n;]|\.(?=\s)", text):
        if any(a < m.start() and m.end() < b for a, b in quoted):
            continue
        if any(a <= m.start() < b for a, b in abbreviated):
            continue  # "..., i.e. three orders": the sentence goes on
        if m.end() - start > 0:
            out.append((start, m.end()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


def _day(y: int, m: int, d: int) -> str | None:
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _clock(m: re.Match[str]) -> tuple[int, int] | None:
    if m.group("h4") or m.group("h5"):
        return None  # read with its sentence's part of the day (_word_clock)
    if m.group("word"):
        return (12, 0) if m.group("word").lower() in ("noon", "midday") else (0, 0)
    if m.group("h3"):
        raw = m.group("h3").lower()
        h = _CLOCK_WORDS[raw] if raw in _CLOCK_WORDS else int(raw)
        if not 1 <= h <= 12:
            return None
        part = m.group("part").lower()
        late = part in ("in the afternoon", "in the evening") or (part == "at night" and h < 12)
        return h % 12 + (12 if late else 0), 30 if m.group("half") else 0
    h = int(m.group("h") or m.group("h2"))
    mi = int(m.group("mi") or 0)
    ap = (m.group("ap") or m.group("ap2") or "").lower()
    if ap:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ap == "p" else 0)
    if h > 23 or mi > 59:
        return None
    return h, mi


_PART_OF_DAY = re.compile(r"\b(?:(?:in|during) the|this|that|on the same|the next|the following)\s+"
                          r"(morning|afternoon|evening|night)\b|\b(tonight|overnight)\b",
                          re.IGNORECASE)


def _word_clock(m: re.Match[str], text: str, s0: int) -> tuple[int, int] | None:
    """A clock said in words with no part of the day ("half past five", "six o'clock"):
    the part of the day written last before it in its sentence ("in the evening: ... at
    half past five" is 17:30); None when the sentence names none."""
    raw = (m.group("h4") or m.group("h5")).lower()
    h = _CLOCK_WORDS[raw] if raw in _CLOCK_WORDS else int(raw)
    parts = list(_PART_OF_DAY.finditer(text, s0, m.start()))
    if not 1 <= h <= 12 or not parts:
        return None
    part = (parts[-1].group(1) or parts[-1].group(2)).lower()
    late = part in ("afternoon", "evening", "tonight") or (part == "night" and h >= 6)
    past = (m.group("past") or "").lower()
    minute = {"half past": 30, "quarter past": 15, "quarter to": 45}.get(past, 0)
    if past == "quarter to":
        h = h - 1 or 12
    return h % 12 + (12 if late else 0), minute


def _read_dates(text: str, year: int | None) -> list[When]:
    found: list[When] = []
    taken: list[tuple[int, int]] = []
    for m in _ISO.finditer(text):
        day = _day(int(m.group("y")), int(m.group("m")), int(m.group("d")))
        if day is None:
            continue
        hour = int(m.group("h")) if m.group("h") else None
        minute = int(m.group("mi")) if m.group("mi") else None
        if hour is not None and (hour > 23 or (minute or 0) > 59):
            hour = minute = None
        found.append(When(m.start(), m.end(), day, hour, minute))
        taken.append(m.span())
    for m in _MONTH_DAY_TIME.finditer(text):  # "08-23 11:00": ISO without its year
        day = _day(year, int(m.group("m")), int(m.group("d"))) if year is not None else None
        if day is None or int(m.group("h")) > 23 or int(m.group("mi")) > 59 or any(
                a < m.end() and m.start() < b for a, b in taken):
            continue
        found.append(When(m.start(), m.end(), day, int(m.group("h")), int(m.group("mi"))))
        taken.append(m.span())
    for regex in (_DMY, _MDY):
        for m in regex.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            y = int(m.group("y")) if m.group("y") else year
            if y is None:
                continue
            raw_day = m.group("d").lower()
            day_n = _ORDINALS[raw_day] if raw_day in _ORDINALS else int(raw_day)
            day = _day(y, _MONTHS[m.group("mon").lower().rstrip(".")], day_n)
            if day is None:
                continue
            found.append(When(m.start(), m.end(), day))
            taken.append(m.span())
    # "the 20th", "on the 6th, 7th and 8th": a day of the month of the nearest day before.
    listed_end = -1
    for m in _ORDINAL_DAY.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        if not _ordinal_is_day(text, m, listed_end):
            continue
        earlier = [w for w in found if w.end <= m.start()]
        if not earlier:
            continue
        last = date.fromisoformat(max(earlier, key=lambda w: w.end).day)
        raw = m.group("d").lower()
        day = _day(last.year, last.month, _ORDINALS[raw] if raw in _ORDINALS else int(raw))
        if day is not None:
            found.append(When(m.start(), m.end(), day))
            taken.append(m.span())
            listed_end = m.end()
    return sorted(found, key=lambda w: w.start)


# A word ordinal is a day when a preposition of time puts it there ("on the fifth", "until
# the ninth") or it continues a list of days ("on the fifth, the sixth"); otherwise it names
# an item ("the first at 11:00 on 23 August", "The fourth is a corrective job").
_DAY_PREPOSITION = re.compile(r"\b(?:on|from|to|until|till|through|thru|by|since|"
                              r"between)\s+the\s+$", re.IGNORECASE)
_LIST_JOIN = re.compile(r"\s*(?:,|,?\s*and|,?\s*or)\s+the\s+$", re.IGNORECASE)


def _ordinal_is_day(text: str, m: re.Match[str], listed_end: int) -> bool:
    """Whether an ordinal without a month is a day of the month (digits always are)."""
    if m.group("d")[0].isdigit():
        return True
    before = text[max(0, m.start() - 24):m.start()]
    if _DAY_PREPOSITION.search(before):
        return True
    joined = _LIST_JOIN.search(before)
    return joined is not None and listed_end == m.start() - len(joined.group(0))


def _date_before(text: str, d: When, m: re.Match[str]) -> bool:
    """A date written right before a time ("25 Aug 2026 at 19:00")."""
    return 0 <= m.start() - d.end <= 6 and re.fullmatch(
        r"[\s,]*(?:at)?[\s,]*", text[d.end:m.start()], re.I) is not None


def _date_after(text: str, d: When, m: re.Match[str]) -> bool:
    """A date written right after a time ("19:00 on 25 Aug 2026", "noon on the 6th",
    "(00:00) on 10 June", "midnight going into 1 July")."""
    return 0 <= d.start - m.end() <= 20 and re.fullmatch(
        r"[\s,)\]]*(?:on|(?:(?:going|heading|leading|turning)\s+)?into)?\s*(?:the)?[\s,]*",
        text[m.end():d.start], re.I) is not None


# A list of times, or a time restated in brackets ("midnight (00:00)").
_TIME_LIST_JOIN = re.compile(r"\s*(?:,|and|or|,\s*and|,\s*or|\()\s*(?:at\s+)?", re.IGNORECASE)
_DAY_LIST_JOIN = re.compile(r"\s*(?:,|and|,\s*and)\s*(?:the\s+)?", re.IGNORECASE)
_RELATIVE_BEFORE = re.compile(r"(?:on\s+)?the\s+(same|next|following)\s+(?:day|morning|"
                              r"afternoon|evening|night)\s*,?\s*(?:at\s+)?$", re.IGNORECASE)


def _listed_date(text: str, k: int, times: list[re.Match[str]], dates: list[When]) -> int | None:
    """The date a list of times shares ("2 pm and 6 pm on 11 August"): the one written
    right after the list's last time, for each time of the list."""
    j = k
    while j + 1 < len(times) and _TIME_LIST_JOIN.fullmatch(
            text[times[j].end():times[j + 1].start()]):
        j += 1
    if j == k:
        return None
    return next((i for i, d in enumerate(dates) if _date_after(text, d, times[j])), None)


def _headed_date(text: str, k: int, times: list[re.Match[str]], dates: list[When]) -> int | None:
    """The day a time continues a list of times written after that day ("29 Jul 02:00 and
    17:00, 30 Jul 08:00"): the date right before the list's first time, unless the time is
    put on a day written after it with a word ("02:00 and 17:00 on 30 Jul")."""
    j = k
    while j > 0 and _TIME_LIST_JOIN.fullmatch(text[times[j - 1].end():times[j].start()]) \
            and not any(times[j - 1].end() <= d.start < times[j].start() for d in dates):
        j -= 1  # (the dates are blanked out of ``text``)
    if j == k or any(_date_after(text, d, times[k]) and re.search(
            r"[a-z]", text[times[k].end():d.start], re.IGNORECASE) for d in dates):
        return None
    return next((i for i, d in enumerate(dates) if _date_before(text, d, times[j])), None)


def _ranged_date(text: str, k: int, times: list[re.Match[str]], clocks: list[tuple[int, int]],
                 dates: list[When]) -> int | None:
    """The date a range of hours on one day shares ("from 03:00 to 23:00 on 20 August"): the
    one written right after its end, when the range does not run past midnight."""
    if k + 1 >= len(times) or clocks[k] > clocks[k + 1] or not _RANGE_GAP.fullmatch(
            text[times[k].end():times[k + 1].start()]):
        return None
    return next((i for i, d in enumerate(dates) if _date_after(text, d, times[k + 1])), None)


def _listed_days(text: str, out: list[When], first: When) -> list[int]:
    """The days listed after a day that a time is written before ("noon on the 6th, 7th
    and 8th"): the time is each day's too."""
    found: list[int] = []
    end = first.end
    while True:
        nxt = next((i for i, d in enumerate(out) if d.hour is None and d.start >= end
                    and _DAY_LIST_JOIN.fullmatch(text[end:d.start])), None)
        if nxt is None:
            return found
        found.append(nxt)
        end = out[nxt].end


def _attach_times(text: str, dates: list[When], sentences: list[tuple[int, int]],
                  ) -> tuple[list[When], list[When], list[tuple[int, int]]]:
    """Dates with their times; times with no date of their own; the spans the times took."""
    out = list(dates)
    loose: list[When] = []
    spans: list[tuple[int, int]] = []
    times: list[re.Match[str]] = []
    clocks: list[tuple[int, int]] = []
    for m in _TIME.finditer(text):
        if any(d.start <= m.start() < d.end for d in dates):
            continue
        s0 = next((a for a, b in sentences if a <= m.start() < b), 0)
        clock = _word_clock(m, text, s0) if m.group("h4") or m.group("h5") else _clock(m)
        if clock is not None:
            times.append(m)
            clocks.append(clock)
    # The dates that a time is written right next to: their sentences' other times are not
    # theirs when written before them ("-005 at 18:30, ..., finished at 08:18 on 3 July").
    timed = {i for i, d in enumerate(dates)
             if any(_date_before(text, d, m) or _date_after(text, d, m) for m in times)}
    bare = _blank(text, [m.span() for m in times])  # "16:00" holds no clause's colon
    for k, m in enumerate(times):
        clock = clocks[k]
        spans.append(m.span())
        # A date right before or after ("25 Aug 2026 at 19:00", "19:00 on 25 Aug 2026").
        near = [i for i, d in enumerate(out) if d.hour is None and (
            _date_before(text, d, m) or _date_after(text, d, m))]
        adjacent = bool(near)
        relative = _RELATIVE_DAY.match(text, m.end()) or _RELATIVE_BEFORE.search(
            text, max(0, m.start() - 40), m.start())
        headed = None if relative else _headed_date(text, k, times, dates)
        if headed is not None:
            out.append(When(m.start(), m.end(), out[headed].day, *clock))
            continue
        if not near and relative:
            # "19:03 the same evening", "the next morning at 04:18": the day written last.
            earlier = [d for d in out if d.end <= m.start() and d.day]
            if earlier:
                last = max(earlier, key=lambda d: d.end)
                shift = 0 if relative.group(1).lower() == "same" else 1
                day = (date.fromisoformat(last.day) + timedelta(days=shift)).isoformat()
                out.append(When(m.start(), m.end(), day, *clock))
                continue
        if not near:
            listed = _listed_date(text, k, times, dates)
            if listed is None:
                listed = _ranged_date(text, k, times, clocks, dates)
            near = [] if listed is None else [listed]
        if not near:
            # Else the day of its sentence: the one day it names, or in a list ("11 Aug
            # 15:00, 16:00; 12 Aug 14:00") the nearest day written before the time.
            s0, s1 = next(((a, b) for a, b in sentences if a <= m.start() < b), (0, len(text)))
            in_sentence = [i for i, d in enumerate(out) if s0 <= d.start < s1]
            before = [i for i in in_sentence if out[i].end <= m.start()]
            if len({out[i].day for i in in_sentence}) == 1:
                near = in_sentence
                if not before and all(i in timed for i in in_sentence) and _CLAUSE_END.search(
                        bare, m.end(), min(out[i].start for i in in_sentence)):
                    # That day has a time of its own in a later clause: this one is on the
                    # day written last.
                    written = [i for i, d in enumerate(out) if d.end <= m.start()]
                    near = [max(written, key=lambda i: out[i].end)] if written else []
            elif before:
                near = [max(before, key=lambda i: out[i].end)]
        if near:
            i = near[0]
            d = out[i]
            if d.hour is None and adjacent:
                out[i] = When(min(d.start, m.start()), max(d.end, m.end()), d.day, *clock)
                if m.end() <= d.start:  # "noon on the 6th, 7th and 8th"
                    for j in _listed_days(text, out, d):
                        out[j] = When(out[j].start, out[j].end, out[j].day, *clock)
            else:  # a time elsewhere in the sentence: its own mention, on that day
                out.append(When(m.start(), m.end(), d.day, *clock))
        else:
            loose.append(When(m.start(), m.end(), "", *clock))
    return sorted(out, key=lambda w: w.start), loose, spans


_RELATIVE_DAY = re.compile(r"\s*(?:on\s+)?the\s+(same|next|following)\s+(?:day|morning|"
                           r"afternoon|evening|night)\b", re.IGNORECASE)
_RANGE_GAP = re.compile(r"\s*(?:to|through|thru|until|till|-|–|—)\s*", re.IGNORECASE)


def _ranges(text: str, whens: list[When]) -> list[tuple[str, int, int]]:
    """Hour ranges: two times of one day joined by to / through / until / a dash."""
    out = []
    timed = sorted((w for w in whens if w.hour is not None), key=lambda w: w.start)
    for a, b in itertools.pairwise(timed):
        if a.day == b.day and a.hour is not None and b.hour is not None and a.hour < b.hour \
                and _RANGE_GAP.fullmatch(text[a.end:b.start]):
            out.append((a.day, a.hour, b.hour))
    return out


def _day_ranges(text: str, whens: list[When]) -> list[tuple[str, int, str, int]]:
    """Hour ranges across days: a time on one day and a later day's time joined by to /
    through / until / a dash ("2 July 22:00 – 3 July 04:00")."""
    timed = sorted((w for w in whens if w.hour is not None), key=lambda w: w.start)
    return [(a.day, a.hour, b.day, b.hour) for a, b in itertools.pairwise(timed)
            if a.hour is not None and b.hour is not None and a.day < b.day
            and _RANGE_GAP.fullmatch(text[a.end:b.start])]


def parse_number(raw: str) -> float | None:
    """A finite float from a written number (thousands separators, unicode minus)."""
    cleaned = re.sub(_SEP, "", raw).replace("−", "-")
    try:
        value = float(cleaned)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def precision(raw: str) -> tuple[int, int]:
    """``(decimals, significant digits)`` of a written number, e.g. ``98.30`` → (2, 4)."""
    mantissa = re.split(r"[eE]", re.sub(_SEP, "", raw).lstrip("+-−"))[0]
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    if not frac:
        digits = digits.rstrip("0") or digits
    return len(frac), (len(digits) if digits else 1)


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, min(b, len(chars))):
            chars[i] = " "
    return "".join(chars)


def _numbers(text: str, rest: str) -> list[Num]:
    out: list[Num] = []
    for m in _NUM.finditer(rest):
        raw = m.group("num")
        value = parse_number(raw)
        if value is None:
            continue
        end = m.end()
        unit = None
        u = _UNIT_AFTER.match(rest, end)
        if u:
            unit = u.group("unit")
            end = u.end()
        if unit is None and _COP.search(rest[max(0, m.start() - 24):m.start()]):
            unit = "COP"
        decimals, sig = precision(raw)
        out.append(Num(m.start(), end, value, unit, decimals, sig, text[m.start():end]))
    for m in _WORD_NUM.finditer(rest):
        g = m.groupdict()
        decimals = 0
        if g["number"]:
            whole = g["number"][: len(g["number"]) - len(g["frac"] or "")]
            whole = re.sub(r"\s+point$", "", whole.strip())
            value = float(_words_value(whole))
            if g["frac"]:
                digits = "".join(str(_SMALL[w]) for w in g["frac"].lower().split())
                value += float("0." + digits)
                decimals = len(digits)
        elif g["dozen"]:
            value = 12.0
        elif g["single"]:
            value = 1.0
        elif g["twice"]:
            value = 2.0
        else:
            value = 0.0
        if (g["number"] or "").strip().lower() == "one" and re.match(
                r"\s+(?:of|another)\b", rest[m.end():m.end() + 9], re.I):
            continue  # "one of the units" names an item, it does not count them
        end, unit = m.end(), None
        u = _UNIT_AFTER.match(rest, end) if g["number"] else None
        if u:
            unit, end = u.group("unit"), u.end()
        out.append(Num(m.start(), end, value, unit, decimals, 99, text[m.start():end],
                       word=True))
    out.extend(_ordinal_counts(text, rest))
    fractions = _fractions(text, rest)
    out = [n for n in out if not any(f.start <= n.start < f.end for f in fractions)]
    out.extend(fractions)
    out.sort(key=lambda n: n.start)
    for i, n in enumerate(out):
        before = rest[max(0, n.start - 24):n.start].lower()
        after = rest[n.end:n.end + 72].lower()
        if _FALL_BEFORE.search(before) or _fall_after(after):
            out[i] = Num(n.start, n.end, n.value, n.unit, n.decimals, n.sig, n.text, n.word,
                         n.total, falling=True)
    # "two of the three methods", "165 of 168 records": the second number is a total.
    for prev, num in itertools.pairwise(list(out)):
        if re.fullmatch(r"\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?", rest[prev.end:num.start]):
            out[out.index(num)] = Num(num.start, num.end, num.value, num.unit, num.decimals,
                                      num.sig, num.text, num.word, total=True,
                                      falling=num.falling)
    return out


_SHORT_ID = re.compile(r"(?<![\w.,-])-(?P<tail>(?P<letters>[A-Z]{1,4})\d+|0\d+)(?![\w-]|[.,]\d)")
_ID_TAIL = re.compile(r"(?P<head>.+-)(?P<tail>(?P<letters>[A-Z]*)\d+)")
_ID_NUMBER = re.compile(r"(?P<head>.*\D)(?P<tail>\d+)")
_ID_RANGE_GAP = re.compile(r"\s*(?:through|thru|to|–|—|\.\.)\s*", re.IGNORECASE)
MAX_RANGE = 50


def _sibling_ids(rest: str, ids: list[Span]) -> list[Span]:
    """Ids written by their last part after a full one ("CH-MAIN-03 ..., then -04",
    "WEST-PM01, -PM02"): a hyphen and digits with a leading zero (or the letters of the
    id's last part and digits), as wide as the end of an id written before it (else after
    it), are that id with this end."""
    out: list[Span] = []
    for m in _SHORT_ID.finditer(rest):
        if _UNIT_AFTER.match(rest, m.end()):
            continue  # "-05 °C" is a number with its unit
        tail = m.group("tail")
        letters = m.group("letters") or ""
        fits = [(s, t) for s in ids for t in [_ID_TAIL.fullmatch(s.text)]
                if t and len(t.group("tail")) == len(tail) and t.group("letters") == letters]
        before = [(s, t) for s, t in fits if s.end <= m.start()]
        after = [(s, t) for s, t in fits if s.start >= m.end()]
        pick = max(before, key=lambda f: f[0].end) if before else (
            min(after, key=lambda f: f[0].start) if after else None)
        if pick is not None:
            out.append(Span(m.start(), m.end(), pick[1].group("head") + tail))
    return out


def _id_ranges(text: str, ids: list[Span]) -> list[Span]:
    """The ids inside a range of two ("EAST-TX01 through EAST-TX04" names TX02 and TX03),
    each placed at the range."""
    out: list[Span] = []
    for a, b in itertools.pairwise(ids):
        ta, tb = _ID_NUMBER.fullmatch(a.text), _ID_NUMBER.fullmatch(b.text)
        if not (ta and tb and ta.group("head") == tb.group("head")
                and _ID_RANGE_GAP.fullmatch(text[a.end:b.start])):
            continue
        lo, hi, width = int(ta.group("tail")), int(tb.group("tail")), len(ta.group("tail"))
        if lo < hi <= lo + MAX_RANGE:
            out.extend(Span(a.start, b.end, f"{ta.group('head')}{n:0{width}d}")
                       for n in range(lo + 1, hi))
    return out


_ORDINAL_COUNT = re.compile(
    rf"\bthe\s+(?P<o>{_ORDINAL}|\d{{1,3}}(?:st|nd|rd|th))\s+(?:[a-z-]+\s+){{0,2}}"
    r"(?:on record|in the record|on file|so far|to date)\b", re.IGNORECASE)
_LATEST = re.compile(r"\b(?:last|latest|most recent|final)\b", re.IGNORECASE)


def _ordinal_counts(text: str, rest: str) -> list[Num]:
    """The count an ordinal says of the latest item ("last serviced on 5 August; that is
    the third planned job on record": three on record)."""
    out = []
    for m in _ORDINAL_COUNT.finditer(rest):
        if not _LATEST.search(rest, max(0, m.start() - 120), m.start()):
            continue
        raw = m.group("o").lower()
        value = _ORDINALS[raw] if raw in _ORDINALS else int(raw[:-2])
        a, b = m.span("o")
        out.append(Num(a, b, float(value), None, 0, 99, text[a:b], word=True))
    return out


# "Yes", "**No.**", "- Yes, it did": a yes or no opening a sentence or line; a "no" only
# when a mark follows it ("No need to raise another" is no reply).
_REPLY = re.compile(r"[\s*_#>•-]*(?:(?P<yes>yes|yep|yeah)\b|(?P<no>no|nope)\b(?=[\s*_]*"
                    r"(?:[,.;:!—–]|\s-\s|$)))", re.IGNORECASE)


def _replies(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, bool]]:
    """Where a sentence or line opens with a bare yes or no, and which."""
    out = []
    for a, b in sentences:
        m = _REPLY.match(text, a, b)
        if m:
            out.append((m.start(), m.group("yes") is not None))
    return out


def read(text: str, *, year: int | None = None) -> Text:
    """Read an answer (its first :data:`MAX_CHARS` characters).

    Args:
        text: The answer text.
        year: The year a day written without one takes (the question's); without one,
            the first year the answer writes.
    """
    truncated = len(text) > MAX_CHARS
    text = text[:MAX_CHARS]
    # Lower case that keeps every offset (a few characters lower to two).
    low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    out = Text(raw=text, low=low, truncated=truncated)
    out.sentences = _sentences(text)
    if year is None:  # no year in the question: the one the answer writes, if any
        written = re.search(r"(?<![\w-])(?:19|20)\d{2}(?![\w-])", text)
        year = int(written.group(0)) if written else None
    dates = _read_dates(text, year)
    date_spans = [(d.start, d.end) for d in dates]
    out.whens, out.times, time_spans = _attach_times(_blank(text, date_spans), dates,
                                                     out.sentences)
    if year is None:  # no year known: "8 July" is still a day, and its 8 no number
        date_spans += [(d.start, d.end) for d in _read_dates(text, _ANY_YEAR)]
    out.ranges = _ranges(text, out.whens)
    out.day_ranges = _day_ranges(text, out.whens)
    rest = _blank(text, date_spans + time_spans)
    ids = [m for m in _ID.finditer(rest)]
    out.ids = [Span(m.start(), m.end(), m.group(0)) for m in ids]
    rest = _blank(rest, [m.span() for m in ids])
    siblings = _sibling_ids(rest, out.ids)
    rest = _blank(rest, [(s.start, s.end) for s in siblings])
    out.ids = sorted(out.ids + siblings, key=lambda s: s.start)
    out.ids = sorted(out.ids + _id_ranges(text, out.ids), key=lambda s: s.start)
    out.numbers = _numbers(text, rest)
    out.replies = _replies(text, out.sentences)
    # The first word, or the first after a leading id ("NORTH-TX04: yes - ...").
    first = re.match(r"\s*\W*\s*(?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\s*[:,\-–—]\s*)?([A-Za-z]+)",
                     text)
    if first:
        word = first.group(1).lower()
        out.leading = True if word in ("yes", "yep", "yeah", "correct", "true") else (
            False if word in ("no", "nope", "false", "incorrect") else None)
    return out


# What sets the day a text is written on, right before the day ("today is", "Today:", "it's",
# "we're on", "as of", "dated", "writing this on", a weekday and "the" between) ...
_NOW_BEFORE = re.compile(
    r"(?:\btoday(?:'s date)?(?:\s+(?:is|being|as))?\s*[:,=]?|\b(?:it|we)(?:'s|'re|\s+is|\s+are)"
    r"(?:\s+(?:on|at))?|\bas of|\bdated|\bwriting this on|\bstands on)\s*\(?\s*"
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:the\s+)?$", re.IGNORECASE)
# ... or right after it ("2026-06-11 today", "taking 2026-06-11 as today", "(it is D now)").
_NOW_AFTER = re.compile(r"\s*\)?\s*(?:as\s+)?(?:today|now)\b", re.IGNORECASE)


def stated_now(text: str, year: int | None = None) -> str | None:
    """The ISO day a text sets as the moment it is written ("It's Tuesday 16 June 2026",
    "today is 2026-08-09", "Dated 26 July 2026:", "the orders on record as of 2026-08-12"):
    what the writer knows ends before that day is out, so a record dated after it does not
    exist yet for the writer. None when the text sets no such day."""
    for w in read(text, year=year).whens:
        if _NOW_BEFORE.search(text, max(0, w.start - 40), w.start) \
                or _NOW_AFTER.match(text, w.end):
            return w.day
    return None
