"""Value extraction from a free-text answer: what the grader can read out of prose.

Deterministic, regex-based, no LLM. :func:`extract` reads, in this order (each kind's spans
are blanked before the next, so the digits of a date or an asset id never count as a
number):

1. **Timestamps and dates**: ISO 8601 (``2026-01-03``, ``2026-01-03T14:00``,
   ``2026-01-03 14:00:00Z``), ``2026/01/03``, and month names (``3 January 2026``,
   ``Jan 3, 2026``, optionally followed by ``at 14:00``). Normalised to ``YYYY-MM-DD`` and
   ``YYYY-MM-DDTHH:MM`` (``:SS`` kept only when not zero); a trailing ``Z`` or UTC offset
   is dropped (the store's timestamps are one local clock).
2. **Asset ids**: upper-case tokens with a digit, joined by hyphens (``EAST-TX01``) or a
   letter prefix and at least two digits (``CWC04013``).
3. **IEC 60599 fault codes**: ``PD``, ``D1``, ``D2``, ``DT``, ``T1``, ``T2``, ``T3``,
   ``ND`` as tokens, and their names in words (``partial discharge`` → PD, ``low-energy
   discharge`` → D1, ``high-energy discharge`` → D2, ``thermal fault below 300 °C`` → T1,
   ``between 300 and 700 °C`` → T2, ``above 700 °C`` → T3).
4. **Numbers with units**: ``-1,234.5 kV``, ``3.2e-4``, ``45 %``, ``98.3 °C``; the number
   keeps how many decimals and significant digits it was written with (the grader accepts
   a rounded value on that basis).
5. **Yes / no**: the answer's first word when it is yes/no/true/false.

Words such as condition labels are not extracted into a list: the grader looks for the
reference's own string as whole words in the normalised text (:func:`normalise_text`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from eval.reader import MONTHS, parse_number, precision

MAX_TEXT_CHARS = 100_000

_MONTHS = MONTHS
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_TIME = r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.\d+)?)?"
_TZ = r"(?:Z|[+-]\d{2}:?\d{2}|\s?UTC)?"
_ISO_RE = re.compile(
    rf"(?<![\d-])(?P<y>\d{{4}})[-/](?P<m>\d{{1,2}})[-/](?P<d>\d{{1,2}})"
    rf"(?:(?:T|\s+(?:at\s+)?){_TIME}{_TZ})?(?![\d])"
)
_DMY_RE = re.compile(
    rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH_RE})\.?,?\s+(?P<y>\d{{4}})"
    rf"(?:,?\s+(?:at\s+)?{_TIME})?\b",
    re.IGNORECASE,
)
_MDY_RE = re.compile(
    rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})"
    rf"(?:,?\s+(?:at\s+)?{_TIME})?\b",
    re.IGNORECASE,
)
_ASSET_RE = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z]{2,}\d{2,}[A-Z0-9]*)(?![\w-])"
)
FAULT_CODES = ("PD", "D1", "D2", "DT", "T1", "T2", "T3", "ND")
_CODE_RE = re.compile(r"(?<![\w-])(PD|D1|D2|DT|T1|T2|T3|ND)(?![\w-])")
_FAULT_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("PD", re.compile(r"partial[- ]discharges?", re.I)),
    ("D1", re.compile(r"(?:low[- ]energy\s+discharges?|discharges?\s+of\s+low\s+energy)", re.I)),
    ("D2", re.compile(r"(?:high[- ]energy\s+discharges?|discharges?\s+of\s+high\s+energy)",
                      re.I)),
    ("DT", re.compile(r"(?:mix(?:ture|ed)\s+of\s+)?thermal\s+and\s+electrical\s+faults?", re.I)),
    ("T1", re.compile(r"thermal\s+fault[^.;]{0,30}?(?:<|below|under|less\s+than)\s*300", re.I)),
    ("T2", re.compile(r"thermal\s+fault[^.;]{0,30}?300\s*(?:°\s*C)?\s*(?:-|–|to|and)\s*700",
                      re.I)),
    ("T3", re.compile(r"thermal\s+fault[^.;]{0,30}?(?:>|above|over|more\s+than)\s*700", re.I)),
)
# Units, longest spelling first; each maps to (canonical unit, factor to it).
UNITS: dict[str, tuple[str, float]] = {
    "%": ("%", 1.0), "percent": ("%", 1.0), "per cent": ("%", 1.0),
    "°c": ("°C", 1.0), "° c": ("°C", 1.0), "degc": ("°C", 1.0), "deg c": ("°C", 1.0),
    "degrees c": ("°C", 1.0), "degrees celsius": ("°C", 1.0), "celsius": ("°C", 1.0),
    "ppm": ("ppm", 1.0), "µl/l": ("ppm", 1.0), "ul/l": ("ppm", 1.0),
    "kv": ("V", 1e3), "v": ("V", 1.0), "volts": ("V", 1.0),
    "ka": ("A", 1e3), "a": ("A", 1.0), "amps": ("A", 1.0), "amperes": ("A", 1.0),
    "mva": ("VA", 1e6), "kva": ("VA", 1e3), "va": ("VA", 1.0),
    "mw": ("W", 1e6), "kw": ("W", 1e3), "w": ("W", 1.0),
    "hours": ("h", 1.0), "hour": ("h", 1.0), "hrs": ("h", 1.0), "h": ("h", 1.0),
    "days": ("d", 1.0), "day": ("d", 1.0), "years": ("y", 1.0), "year": ("y", 1.0),
    "mn/m": ("mN/m", 1.0), "dyn/cm": ("mN/m", 1.0), "mg koh/g": ("mgKOH/g", 1.0),
}
_UNIT_RE = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_NUM_RE = re.compile(
    r"(?<![\w.])(?P<num>[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
    r"|[-+−]?\.\d+)"
    rf"(?:\s?(?P<unit>{_UNIT_RE})(?![a-zA-Z]))?",
    re.IGNORECASE,
)
_YES = ("yes", "true", "correct", "affirmative")
_NO = ("no", "false", "incorrect", "negative", "none")


@dataclass(frozen=True)
class Quantity:
    """A number read from text, with the unit and precision it was written with."""

    value: float
    unit: str | None
    text: str
    decimals: int
    sig_digits: int

    def in_unit(self, canonical: str, factor: float) -> float | None:
        """The value expressed in a unit that is ``factor`` × ``canonical`` (None if other)."""
        if self.unit is None:
            return None
        unit, scale = UNITS[self.unit.lower()]
        if unit != canonical:
            return None
        return self.value * scale / factor


@dataclass
class Extracted:
    """Everything :func:`extract` read from one answer text."""

    text: str
    numbers: list[Quantity] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    datetimes: list[str] = field(default_factory=list)
    asset_ids: list[str] = field(default_factory=list)
    fault_codes: list[str] = field(default_factory=list)
    yes_no: bool | None = None
    truncated: bool = False


def normalise_text(text: str) -> str:
    """Lower case, underscores and hyphens as spaces, whitespace collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"[_\-–]", " ", text.lower())).strip()


def _date_iso(y: int, m: int, d: int) -> str | None:
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _time_part(match: re.Match[str]) -> str | None:
    if match.group("h") is None:
        return None
    h, mi = int(match.group("h")), int(match.group("mi"))
    s = int(match.group("s") or 0)
    if h > 23 or mi > 59 or s > 59:
        return None
    return f"{h:02d}:{mi:02d}" + (f":{s:02d}" if s else "")


def normalise_timestamp(value: str) -> tuple[str, str | None] | None:
    """``(date, datetime-or-None)`` of a string that is one timestamp or date, else None."""
    found = _read_times(value.strip())
    if len(found) != 1:
        return None
    span, day, stamp = found[0]
    if span != (0, len(value.strip())):
        return None
    return day, stamp


def _read_times(text: str) -> list[tuple[tuple[int, int], str, str | None]]:
    out: list[tuple[tuple[int, int], str, str | None]] = []
    taken: list[tuple[int, int]] = []
    for regex in (_ISO_RE, _DMY_RE, _MDY_RE):
        for m in regex.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            month = (
                int(m.group("m")) if "m" in m.groupdict() and m.groupdict().get("m")
                else _MONTHS.get((m.groupdict().get("mon") or "").lower(), 0)
            )
            day = _date_iso(int(m.group("y")), month, int(m.group("d")))
            if day is None:
                continue
            hm = _time_part(m)
            taken.append(m.span())
            out.append((m.span(), day, f"{day}T{hm}" if hm else None))
    out.sort(key=lambda t: t[0])
    return out


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            chars[i] = " "
    return "".join(chars)


def extract(text: str) -> Extracted:
    """Read timestamps, asset ids, fault codes, numbers with units and a yes/no from text.

    Args:
        text: The answer; only its first :data:`MAX_TEXT_CHARS` characters are read.

    Returns:
        The values found, in text order within each kind.
    """
    truncated = len(text) > MAX_TEXT_CHARS
    text = text[:MAX_TEXT_CHARS]
    out = Extracted(text=normalise_text(text), truncated=truncated)
    times = _read_times(text)
    for _, day, stamp in times:
        out.dates.append(day)
        if stamp:
            out.datetimes.append(stamp)
    rest = _blank(text, [span for span, _, _ in times])
    codes = list(_CODE_RE.finditer(rest))
    out.fault_codes.extend(m.group(1) for m in codes)
    assets = [m for m in _ASSET_RE.finditer(rest) if m.group(0) not in FAULT_CODES]
    out.asset_ids.extend(m.group(0) for m in assets)
    for code, regex in _FAULT_WORDS:
        if regex.search(rest):
            out.fault_codes.append(code)
    rest = _blank(rest, [m.span() for m in codes] + [m.span() for m in assets])
    for m in _NUM_RE.finditer(rest):
        raw = m.group("num")
        value = parse_number(raw)
        if value is None:
            continue
        decimals, sig = precision(raw)
        unit = m.group("unit")
        out.numbers.append(Quantity(value, unit, m.group(0).strip(), decimals, sig))
    first = re.match(r"\s*([A-Za-z]+)", text)
    if first:
        word = first.group(1).lower()
        out.yes_no = True if word in _YES else False if word in _NO else None
    return out


def fault_code_spans(text: str) -> list[tuple[str, int]]:
    """Every IEC 60599 code the text asserts, as a token or its name, with its offset.

    The same reading as :func:`extract` (dates blanked first, so their digits never read as
    a code), but positional, so a caller can look at what precedes a mention (a negation).
    """
    text = text[:MAX_TEXT_CHARS]
    rest = _blank(text, [span for span, _, _ in _read_times(text)])
    spans = [(m.group(1), m.start()) for m in _CODE_RE.finditer(rest)]
    for code, regex in _FAULT_WORDS:
        spans.extend((code, m.start()) for m in regex.finditer(rest))
    return sorted(spans, key=lambda s: s[1])
