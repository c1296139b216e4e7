"""Language checks of a request's text: tool parameters leaking into it, and grammar slips.

Both are registered as ``early`` checks by :mod:`generator.generate.checks` (the rules live
here, the registration there, so they run wherever the registry runs): a rejected draft goes
back to repair like any other, the template verbaliser taking its next phrasing and the LLM
getting the reasons.

**parameter_leak** flags words a person would not write to a colleague:

- *argument*: a snake_case argument name of a registered tool (``asset_id``, ``start_date``,
  ``wti_alarm``), read from the tools' pydantic argument models; a whole word only, so an
  identifier that merely contains one does not match;
- *sensor_code*: a sensor's code where a class vocabulary gives it a spoken name
  (``sensor_names`` in ``assets/<class>/vocabulary.yaml``). A code with ``_`` is flagged
  anywhere; a code without one only when it is a lower-case abbreviation of at most four
  letters (``wti``), since a longer plain word (``tonnage``) is also ordinary English and an
  upper-case abbreviation (``WTI``) is how engineers write it;
- *window_jargon*: ``(inclusive)`` / ``(exclusive)`` after a date, ``end-exclusive`` and a
  half-open interval written as ``[a, b)``;
- *setting*: a tool setting stated as a parameter: ``name=value`` for any tool argument
  name (``threshold=4.9``), and a z-score cut-off (``z-score magnitude exceeds 4.9``,
  ``|z| > 3``).

**grammar** flags slips a template or an LLM makes when it fills values in:

- *agreement*: ``1`` before a plural noun (``1 work orders``, ``within 1 days``) and a
  whole number above one before a singular count noun at the end of a phrase (``2 alarm``,
  ``within 3 day.``); a noun used as a modifier (``a 3 day window``) is left alone;
- *doubled_word*: the same word twice in a row (``the the``), except ``that that`` and
  ``had had``;
- *article*: ``a`` before a vowel sound, ``an`` before a consonant sound, for words (with the
  usual exceptions: ``a unit``, ``an hour``, ``an MVA``) and numbers (``an 8``, ``a 11``);
- *garble*: unit or formatting debris: ``=/``, ``/=``, an unfilled ``{placeholder}``, empty
  brackets, a ``None``/``nan`` value inside a sentence;
- *brackets*: brackets that do not pair up and an odd number of double quotes.
"""

from __future__ import annotations

import re
from functools import lru_cache

# -- vocabulary from the registries -----------------------------------------------------------


@lru_cache(maxsize=1)
def tool_argument_names() -> frozenset[str]:
    """Every argument name of every registered tool (from the pydantic argument models)."""
    from generator.tools.registry import load_tools

    names: set[str] = set()
    for spec in load_tools().all():
        names.update(spec.args.model_fields)
    return frozenset(names)


@lru_cache(maxsize=1)
def spoken_sensor_codes() -> dict[str, str]:
    """Sensor code → spoken name, over every class vocabulary that lists one."""
    from generator.assetdef import available_asset_classes
    from generator.vocabulary import load_vocabulary, vocabulary_path

    out: dict[str, str] = {}
    for name in available_asset_classes():
        if vocabulary_path(name).is_file():
            out.update(load_vocabulary(name).sensor_names)
    return out


def _word(name: str) -> str:
    # a whole word: not part of a longer identifier, a hyphenated word or an id
    return rf"(?<![\w-]){re.escape(name)}(?![\w-])"


# (kind, what, pattern, a literal every match contains or None)
_Leak = tuple[str, str, re.Pattern[str], str | None]


@lru_cache(maxsize=8)
def _leak_patterns(
    arguments: frozenset[str], codes: tuple[tuple[str, str], ...]
) -> tuple[_Leak, ...]:
    """(kind, what, pattern, literal) for the argument names and sensor codes; the literal
    (the name itself, matched case-sensitively, or the ``=`` of name=value) is in every
    text the pattern matches."""
    out: list[_Leak] = []
    code_names = {c for c, _ in codes}
    for code, spoken in codes:
        if "_" in code or (len(code) <= 4 and code.isalpha()):
            out.append(
                ("sensor_code", f"{code!r} (say {spoken!r})", re.compile(_word(code)), code)
            )
    for arg in sorted(arguments):
        if "_" in arg and arg not in code_names:
            out.append(("argument", repr(arg), re.compile(_word(arg)), arg))
    # name=value for any argument name (plain words included: threshold=4.9)
    alt = "|".join(re.escape(a) for a in sorted(arguments, key=len, reverse=True))
    if alt:
        out.append((
            "setting",
            "an argument given as name=value",
            re.compile(rf"(?<![\w-])(?:{alt})\s*=\s*\S", re.IGNORECASE),
            "=",
        ))
    return tuple(out)


_HALF_OPEN = re.compile(r"\[[^\[\]()]+,[^\[\]()]+\)")
_JARGON: tuple[_Leak, ...] = (
    (
        "window_jargon",
        "'(inclusive)'/'(exclusive)'",
        re.compile(r"\(\s*(?:in|ex)clusive\s*\)", re.I),
        None,
    ),
    (
        "window_jargon",
        "'end-exclusive'/'start-inclusive'",
        re.compile(r"\b(?:start|end)[- ](?:in|ex)clusive\b|\b(?:in|ex)clusive of the end\b", re.I),
        None,
    ),
    ("window_jargon", "a half-open interval '[a, b)'", _HALF_OPEN, None),
    (
        "setting",
        "a z-score cut-off",
        re.compile(r"\bz-?scores?\b(?:\W+\w+){0,4}?\W+\d|\|\s*z\s*\|\s*[<>≥≤]", re.I),
        None,
    ),
)


def parameter_leaks(
    text: str,
    arguments: frozenset[str] | None = None,
    codes: dict[str, str] | None = None,
) -> list[tuple[str, str]]:
    """The leaks in ``text`` as (kind, what) pairs, in a fixed order.

    Args:
        text: The request.
        arguments: Tool argument names (default: every registered tool's).
        codes: Sensor code → spoken name (default: every class vocabulary's).
    """
    args = tool_argument_names() if arguments is None else arguments
    spoken = spoken_sensor_codes() if codes is None else codes
    found: list[tuple[str, str]] = []
    for kind, what, pat, needle in _leak_patterns(args, tuple(sorted(spoken.items()))) + _JARGON:
        # A text without the pattern's literal cannot match it: no search.
        if (needle is None or needle in text) and pat.search(text):
            found.append((kind, what))
    return found


LEAK_REASON = (
    "a request that carries a tool's argument names, raw sensor codes, window jargon "
    "('(exclusive)') or a tool setting ('z-score magnitude exceeds 4.9') reads as generated "
    "and hands the agent its tool call; people name a sensor by its spoken name and state a "
    "constraint in words"
)


def leak_problems(text: str) -> list[str]:
    """The ``parameter_leak`` check's problems: ``kind: what`` per leak."""
    return [f"{kind}: {what}" for kind, what in parameter_leaks(text)]


# -- grammar -------------------------------------------------------------------------------------

# Singular count nouns a value is put before (generic: time units and maintenance records).
_COUNT_NOUNS = (
    "day", "hour", "week", "month", "year", "minute", "second", "alarm", "trip", "event",
    "sample", "reading", "record", "anomaly", "unit", "site", "asset", "sensor", "order",
    "work order", "time", "value", "fault", "failure",
)
# After "N noun": where a phrase ends, so the noun is not a modifier ("a 3 day window").
_PHRASE_END = (
    r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:of|in|at|on|for|and|or|with|since|before|after|to|from|"
    r"ago|that|were|was|are|is|have|had|by|per|apart|earlier|later|long|old)\b)"
)
_NUM_START = r"(?<![\w.,/:-])"
_NUM_END = r"(?![\w.,/-]*\d)"
_SINGULAR_S = re.compile(r"(?:ss|us|is|as|os)$")
_NOT_PLURAL = frozenset({"series", "species", "news", "gas", "bias", "status", "analysis", "basis",
                         "this", "its", "has", "was", "is", "does", "yes", "plus", "less",
                         "across", "thus", "always", "perhaps", "whereas", "towards"})
# A number after these names a thing ("condition 1 makes", "Table 1 lists"); it is no count.
_LABEL_BEFORE = re.compile(
    r"\b(?:condition|table|clause|stage|level|category|class|tier|type|phase|step|zone|"
    r"annex|part|section|figure|note|no\.)\s*$",
    re.I,
)
_MODIFIERS = ("work", "maintenance", "corrective", "preventive", "open", "closed")

_MODIFIERS_ALT = "|".join(_MODIFIERS)
_ONE_PLURAL = re.compile(rf"{_NUM_START}1\s+(?:(?:{_MODIFIERS_ALT})\s+)?([a-z]+s)\b", re.I)
_NOUNS_ALT = "|".join(n.replace(" ", r"\s+") for n in _COUNT_NOUNS)
_MANY_SINGULAR = re.compile(
    rf"{_NUM_START}(?:[2-9]|[1-9]\d+)\s+({_NOUNS_ALT}){_PHRASE_END}", re.I
)
_DOUBLED = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.I)
# A year written after a day and month ("29 June 2026", "June 29, 2026"): a date, no count.
_YEAR_OF_A_DATE = re.compile(
    r"(?:\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:January|February|March|April|May|June|July|"
    r"August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|"
    r"Nov|Dec),? |(?:January|February|March|April|May|June|July|August|September|October|"
    r"November|December) \d{1,2}(?:st|nd|rd|th)?, )\d{4}\b")
_DOUBLE_OK = frozenset({"that", "had"})
_ARTICLE = re.compile(r"(?<![\w-])(a|an)\s+([A-Za-z][\w-]*|\d+(?:[.,]\d+)*)", re.I)
_AN_WORDS = ("hour", "honest", "honor", "honour", "heir")
_A_VOWEL_WORDS = ("one", "once", "uni", "use", "usu", "usa", "uti", "ura", "ure", "uri", "eu",
                  "ewe", "uk", "u-")
_VOWEL_LETTER_NAMES = frozenset("AEFHILMNORSX")
_NOT_AFTER_ARTICLE = frozenset({"is", "was", "are", "were", "and", "or", "has", "had", "to",
                                "of", "in", "on", "at", "for", "with", "by", "if"})
_GARBLES = (
    ("'=/' or '/='", re.compile(r"=\s*/|/\s*=")),
    ("an unfilled placeholder", re.compile(r"\{[A-Za-z_][\w.]*\}")),
    ("empty brackets", re.compile(r"\(\s*\)|\[\s*\]")),
    ("a missing value", re.compile(r"(?<=[\w,] )(?:None|nan|NaN)\b")),
)
_PAIRS = {")": "(", "]": "[", "}": "{"}


def _number_takes_an(number: str) -> bool | None:
    """True when ``number`` is read with a vowel sound first (8, 11, 18, 80...); None when
    unsure (``1100``: 'eleven hundred' or 'one thousand one hundred')."""
    digits = number.replace(",", "").split(".")[0]
    if not digits.isdigit():
        return None
    if digits[0] == "8":
        return True
    if digits in ("11", "18"):
        return True
    if digits.startswith(("11", "18")) and len(digits) > 2:
        return None if len(digits) in (4, 5) else False
    return False


def _word_takes_an(word: str) -> bool | None:
    """True when ``word`` starts with a vowel sound; None when unsure."""
    if word[0].isdigit():
        return _number_takes_an(word)
    letters = re.match(r"[A-Za-z]+", word)
    if letters is None or any(c.isdigit() for c in word):
        return None  # an id (spoken as a word or letter by letter): unsure
    head = letters.group(0)
    if len(head) >= 2 and head.isupper():  # an abbreviation, spoken letter by letter
        return head[0] in _VOWEL_LETTER_NAMES
    low = word.lower()
    if low.startswith(_AN_WORDS):
        return True
    if low.startswith(_A_VOWEL_WORDS):
        return False
    if low[0] == "u":
        return None if len(low) < 3 else low.startswith(("un", "up", "ul", "um", "ur", "us"))
    return low[0] in "aeio"


def _sentence_start(text: str, at: int) -> bool:
    return at == 0 or re.search(r"[.?!:]\s*$", text[:at]) is not None


_LIST_MARKER = re.compile(r"(?:^|(?<=\s))[a-z0-9]\)")


def _bracket_problems(text: str) -> list[str]:
    text = _HALF_OPEN.sub("", text)  # '[a, b)' is window jargon (parameter_leak), not a slip
    stack: list[str] = []
    markers = {m.end() - 1 for m in _LIST_MARKER.finditer(text)}  # 'a) ... b)' lists
    for i, ch in enumerate(text):
        if ch in "([{":
            stack.append(ch)
        elif ch in _PAIRS:
            if ch == ")" and i in markers and "(" not in stack:
                continue
            if not stack or stack[-1] != _PAIRS[ch]:
                return [f"brackets: {ch!r} without its {_PAIRS[ch]!r}"]
            stack.pop()
    problems = [f"brackets: {stack[-1]!r} never closed"] if stack else []
    if text.count('"') % 2:
        problems.append('brackets: an odd number of double quotes (")')
    if text.count("“") != text.count("”"):
        problems.append("brackets: curly quotes do not pair up")
    return problems


def grammar_problems(text: str) -> list[str]:
    """Grammar slips in ``text`` as ``kind: what`` lines (see the module docstring)."""
    problems: list[str] = []
    for m in _ONE_PLURAL.finditer(text):
        noun = m.group(1).lower()
        if noun in _NOT_PLURAL or _SINGULAR_S.search(noun):
            continue
        if _LABEL_BEFORE.search(text[: m.start()]):
            continue  # 'condition 1 makes': a label, not one of a plural
        problems.append(f"agreement: {m.group(0)!r} (one of a plural)")
    years = {d.end() for d in _YEAR_OF_A_DATE.finditer(text)}
    for m in _MANY_SINGULAR.finditer(text):
        count_end = m.start() + len(m.group(0).split()[0])
        if count_end in years:
            continue  # '29 June 2026 trip': the year of a date, not a count
        problems.append(f"agreement: {m.group(0)!r} (a count with a singular noun)")
    for m in _DOUBLED.finditer(text):
        if m.group(1).lower() not in _DOUBLE_OK:
            problems.append(f"doubled_word: {m.group(0)!r}")
    for m in _ARTICLE.finditer(text):
        article, word = m.group(1).lower(), m.group(2)
        if m.group(1)[0].isupper() and not _sentence_start(text, m.start()):
            continue  # a label ('site A is'), not the article
        if word.lower() in _NOT_AFTER_ARTICLE:
            continue  # 'A is the older one': a label again
        vowel = _word_takes_an(word)
        if vowel is None:
            continue
        if article == "a" and vowel:
            problems.append(f"article: {m.group(0)!r} (an before a vowel sound)")
        elif article == "an" and not vowel:
            problems.append(f"article: {m.group(0)!r} (a before a consonant sound)")
    for what, pat in _GARBLES:
        hit = pat.search(text)
        if hit:
            problems.append(f"garble: {what} ({hit.group(0)!r})")
    problems += _bracket_problems(text)
    return problems


GRAMMAR_REASON = (
    "number agreement ('1 work orders', 'within 1 days'), doubled words, a/an before numbers "
    "and vowels, garbled units ('S =/√3') and unbalanced brackets or quotes mark a text as "
    "machine-filled; each is decided by a precise rule with tested false positives"
)
