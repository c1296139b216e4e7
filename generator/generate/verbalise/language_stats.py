"""Language statistics of a set of requests: how varied the words are, measured with n.

Definitions (issue 15; they reproduce the issue's figures: the 141 human AssetOpsBench
utterances give a masked distinct 3-gram ratio of 0.527):

- **masking**: ISO dates and timestamps → ``<date>``, ids (``[A-Z]{1,5}[-_]?digits...``) →
  ``<id>``, numbers → ``<num>``, then lower case. Masking keeps the values a seed draws from
  counting as variety: two texts that differ only in their unit and dates are one phrasing.
- **distinct 3-gram ratio**: tokens are the masked text split on whitespace; the ratio is the
  number of distinct 3-grams over the whole set divided by the number of all 3-grams (a set
  that repeats its phrasings tends to 0, one that never repeats a 3-gram is 1). It falls with
  n for a fixed stock of phrasings, so it is compared at a stated n (the acceptance: ≥ 0.5 at
  n = 1000).
- **opener share**: the share of texts whose first sentence (masked; a sentence ends at
  ``.``, ``?`` or ``!`` followed by white space) is the most common first sentence.
- **closer share**: the same for the last sentence, over texts of two sentences or more
  (a one-sentence text has no closer); the share is still of all texts.
- **mean words**: whitespace tokens per text (unmasked).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?")
_ID = re.compile(r"\b[A-Z]{1,5}[-_]?\d+[A-Z0-9-]*\b")
_NUM = re.compile(r"\d+(?:\.\d+)?")
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


class LanguageStats(BaseModel):
    """The language figures of a set (see the module docstring for each definition)."""

    model_config = ConfigDict(extra="forbid")

    texts: int = Field(description="Texts measured")
    distinct_3gram_ratio: float = Field(
        description="Distinct masked 3-grams / all masked 3-grams over the set (0..1)"
    )
    top_opener: str = Field(description="The most common masked first sentence")
    top_opener_share: float = Field(description="Share of texts that open with it (0..1)")
    top_closer: str = Field(description="The most common masked last sentence ('' if none)")
    top_closer_share: float = Field(description="Share of texts that close with it (0..1)")
    mean_words: float = Field(description="Mean whitespace tokens per text")


def mask(text: str) -> str:
    """``text`` with dates, ids and numbers masked, lower-cased."""
    text = _DATE.sub("<date>", text)
    text = _ID.sub("<id>", text)
    text = _NUM.sub("<num>", text)
    return text.lower()


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split after ``.``, ``?`` or ``!`` and white space)."""
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def distinct_3gram_ratio(texts: Sequence[str]) -> float:
    """Distinct masked 3-grams over all masked 3-grams of ``texts`` (0.0 when none)."""
    seen: set[tuple[str, ...]] = set()
    total = 0
    for text in texts:
        tokens = mask(text).split()
        grams = [tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)]
        total += len(grams)
        seen.update(grams)
    return len(seen) / total if total else 0.0


def _top(items: list[str], n: int) -> tuple[str, float]:
    if not items or not n:
        return "", 0.0
    text, count = Counter(items).most_common(1)[0]
    return text, count / n


def language_stats(texts: Sequence[str]) -> LanguageStats:
    """The language figures of ``texts``, rounded to 4 decimals (3 for the words)."""
    n = len(texts)
    split = [sentences(mask(t)) for t in texts]
    opener, opener_share = _top([s[0] for s in split if s], n)
    closer, closer_share = _top([s[-1] for s in split if len(s) >= 2], n)
    words = sum(len(t.split()) for t in texts)
    return LanguageStats(
        texts=n,
        distinct_3gram_ratio=round(distinct_3gram_ratio(texts), 4),
        top_opener=opener,
        top_opener_share=round(opener_share, 4),
        top_closer=closer,
        top_closer_share=round(closer_share, 4),
        mean_words=round(words / n, 3) if n else 0.0,
    )


def format_stats(stats: LanguageStats) -> str:
    """The figures in one line, for the CLI."""
    return (
        f"{stats.texts} texts: distinct 3-gram ratio {stats.distinct_3gram_ratio:.3f}, "
        f"top opener {stats.top_opener_share:.1%} ({stats.top_opener[:60]!r}), top closer "
        f"{stats.top_closer_share:.1%}, {stats.mean_words:.1f} words per text"
    )
