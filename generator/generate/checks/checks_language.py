"""Language checks of a request's text: tool parameters leaking into it, and grammar slips.

Both are registered as ``early`` checks by :mod:`generator.generate.checks.checks` (the rules live
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
- *brackets*: brackets that do not pair up and an odd number of double quotes;
- *doubled_phrase*: words followed by the same words in brackets (``winding temperature
  (winding temperature)``, ``tons (tons)``): a label and its spoken name that came out equal;
- *broken_phrase*: phrasings a filled-in window or label breaks: two prepositions in a row
  (``based on during``, ``based on since``, ``over during``), ``N hours past the data/window
  for ...``, ``ways of failing of``, ``What lowest ... value`` (a superlative without
  ``the``).

**register** flags openers and asides that assert what the data may not hold: an
observation the writer claims to have made (``I noticed a step in the readings``, ``I'm
seeing spikes``), a screen or system that "flagged something", "something looks off", an
alarm, event, heatwave or load the text takes as given (``We had a temperature alarm``,
``There was an alarm on ...``, ``Load was high``). A clause opened by *if*/*when* is a
supposition and is left alone. The phrasings are listed, not inferred: a family that grounds
such a fact in the data says it with the date and value, in its own words.

**multiagent_repeat** (:func:`request_sentences`, with the run's near-duplicate index)
flags a multi-agent text that repeats, word for word, a request sentence of a single-domain
text of the same run: a sentence of at least ``REQUEST_MIN_WORDS`` words naming one of the
text's entities (asset, site) and a number or date. Pinned notes, openers and closers carry
no such sentence and may repeat.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
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
# "1 temperature alarm events": one, one or two modifiers, then the plural of a count noun.
_PLURALS = {n.split()[-1]: n.split()[-1] + "s" for n in _COUNT_NOUNS}
_PLURALS["anomaly"] = "anomalies"
_FUNCTION_WORDS = frozenset({
    "and", "or", "of", "in", "on", "at", "to", "the", "a", "an", "per", "out", "more", "less",
    "than", "for", "from", "by", "with", "over", "is", "was", "are", "were", "each", "every",
    "other", "such", "this", "that", "these", "those", "its", "their", "our", "my", "your",
})
_ONE_MODIFIED_PLURAL = re.compile(
    rf"{_NUM_START}1\s+((?:[a-z][a-z-]*\s+){{1,2}})"
    rf"({'|'.join(sorted(set(_PLURALS.values()), key=len, reverse=True))})\b",
    re.I,
)
# "winding temperature (winding temperature)": up to four words, then the same in brackets.
_DOUBLED_PHRASE = re.compile(r"(?<![\w-])((?:[\w-]+\s+){0,3}[\w-]+)\s+\(\s*\1\s*\)", re.I)
_BROKEN_PHRASES = (
    ("two prepositions in a row",
     re.compile(r"\bbased on (?:during|since|over|from|between|for|in|across|within|up to)\b"
                r"|\b(?:in|at|over|for|from|of|by|with|during|since|on) during\b"
                r"|\b(?:at|over|for|from|of|by|with|during) since\b", re.I)),
    ("'hours past the data/window' before a window",
     re.compile(r"\b(?:hours?|h) past the (?:data|window|readings)\b", re.I)),
    ("'ways of failing of'", re.compile(r"\bways? of failing of\b", re.I)),
    ("a superlative after 'what' without 'the'",
     re.compile(r"\bwhat (?:lowest|highest|largest|smallest|biggest|greatest|hottest|coldest|"
                r"warmest|coolest|longest|shortest|earliest|latest|worst|least)\b", re.I)),
)
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
    ones = {m.start() for m in _ONE_PLURAL.finditer(text)}
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
    for m in _ONE_MODIFIED_PLURAL.finditer(text):
        if m.start() in ones:
            continue  # '1 work orders': found above
        words = m.group(1).lower().split()
        if any(w in _FUNCTION_WORDS for w in words) or _LABEL_BEFORE.search(text[: m.start()]):
            continue
        problems.append(f"agreement: {m.group(0)!r} (one of a plural)")
    for m in _DOUBLED.finditer(text):
        if m.group(1).lower() not in _DOUBLE_OK:
            problems.append(f"doubled_word: {m.group(0)!r}")
    for m in _DOUBLED_PHRASE.finditer(text):
        problems.append(f"doubled_phrase: {m.group(0)!r}")
    for what, pat in _BROKEN_PHRASES:
        hit = pat.search(text)
        if hit:
            problems.append(f"broken_phrase: {what} ({hit.group(0)!r})")
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
    "number agreement ('1 work orders', '1 temperature alarm events'), doubled words and "
    "phrases ('winding temperature (winding temperature)'), broken phrasings ('based on "
    "during', 'hours past the data for', 'What lowest value'), a/an before numbers and "
    "vowels, garbled units ('S =/√3') and unbalanced brackets or quotes mark a text as "
    "machine-filled; each is decided by a precise rule with tested false positives"
)


# -- register: claims the data may not hold -------------------------------------------------

_CLAIMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (what, re.compile(pat, re.I)) for what, pat in (
        ("an observation the writer claims", r"\bI (?:noticed|spotted|saw|observed)\b"
         r"|\bI'm seeing (?:an? |some )?(?:spikes?|steps?|jumps?|drops?|dips?)\b"),
        ("a screen or system that flagged something",
         r"\b(?:flagged|reported) something\b"),
        ("'something looks off'",
         r"\bsomething (?:looked|looks|seemed|seems|is) (?:odd|off|strange|wrong|different)\b"
         r"|\bsomething (?:odd|strange) is showing\b"
         r"|\blooks? (?:different|odd|strange) (?:this|last|today)\b"),
        ("an alarm or event taken as given",
         r"\bwe had an? (?:[\w-]+ )?(?:alarm|trip|event)s?\b|\ban? (?:[\w-]+ )?alarm came in\b"
         r"|\bthere (?:was|were) (?:an? )?(?:[\w-]+ )?(?:alarms?|trips?|events?|spikes?)\b"
         r"|\b(?:reported|escalated) (?:an? )?(?:alarms?|events?)\b"),
        ("weather or load taken as given",
         r"\bheatwave\b|\bhot week\b|\bran (?:warm|hot)\b|\bload was high\b"
         r"|\bmoved some load\b|\bhave been running all\b"),
    )
)
_SUPPOSITION = re.compile(r"\b(?:if|when|whether|suppose|assuming)\b[^.?!]*$", re.I)


def register_problems(text: str) -> list[str]:
    """Claims in ``text`` that the data may not hold, as ``claim: what (words)`` lines (see
    the module docstring); a claim inside an *if*/*when* clause is a supposition."""
    problems: list[str] = []
    for what, pat in _CLAIMS:
        for m in pat.finditer(text):
            if _SUPPOSITION.search(text[: m.start()]):
                continue
            problems.append(f"claim: {what} ({m.group(0)!r})")
            break
    return problems


REGISTER_REASON = (
    "an opener or aside that asserts an observation ('I noticed a step in the readings', "
    "'the screen flagged something', 'we had a temperature alarm') tells the agent a fact "
    "the data may not hold, and the answer can contradict it; context is given without "
    "claims about the asset"
)


# -- a multi-agent text that repeats a single-domain request --------------------------------

REQUEST_MIN_WORDS = 10
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")
_SPACES = re.compile(r"\s+")


def request_sentences(text: str, entities: Iterable[str] | None = None) -> list[str]:
    """The sentences of ``text`` (lower case, spaces collapsed) of at least
    ``REQUEST_MIN_WORDS`` words that carry a number or a date, and, when ``entities`` is
    given, name one of them: a request about a particular asset, not a pinned note, an
    opener or a closer."""
    names = [e.lower() for e in entities or () if e]
    out = []
    for sentence in _SENTENCE_END.split(_SPACES.sub(" ", text).strip().lower()):
        if len(sentence.split()) < REQUEST_MIN_WORDS:
            continue
        if not any(c.isdigit() for c in sentence):
            continue
        if entities is not None and not any(name in sentence for name in names):
            continue
        out.append(sentence)
    return out


MULTIAGENT_REPEAT_REASON = (
    "a multi-agent request that repeats, word for word, the question of a single-domain "
    "scenario of the same run tests nothing new and reads as pasted; it is reworded or "
    "rejected"
)
