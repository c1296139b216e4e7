"""One near-duplicate index per run, shared by every domain.

Upstream de-duplicated per domain, so domains generated in parallel could repeat each
other; here all domains of a run (and, for ``--against FILE`` or ``--resume``, an earlier
set) go through one index guarded by one lock.

Similarity is rapidfuzz's ``fuzz.ratio`` / 100 (normalised Indel similarity,
``1 - edits / (len(a) + len(b))``) on normalised text (lower case, whitespace collapsed).
We use ``ratio`` rather than ``token_sort_ratio`` because word order carries meaning in a
request ("NORTH-TX01 before SOUTH-TX02"), and because two template requests differ by
phrasing, opener, closer and entities, which ``ratio`` weighs by their length.
``process.extractOne`` with ``score_cutoff`` skips candidates whose length alone rules them
out.

**Indexed search.** Scoring every indexed text is quadratic over a set (7 s at 3 000 texts,
hours at 200 000). Past ``exact_below`` texts, a search at a cutoff of at least
``INDEX_MIN_CUTOFF`` scores only the *candidates*: texts that share an anchor with the
query. Anchors come from winnowing (Schleimer et al. 2003): the k-grams (k = 8) whose hash
is the smallest in each window of 8 consecutive k-grams, so two texts sharing a verbatim run
of 15 characters or more share a fingerprint; an anchor is a pair of consecutive
fingerprints (a shared run of about 23 characters), which is rare enough to keep candidate
lists short where single fingerprints ("of the unit at site") are in every text. An anchor
found in more than ``max_postings`` texts stops being indexed (a stop-anchor). The nearest
text is then the best-scoring candidate, ties to the earliest indexed, as in a full scan.
A pair of texts at similarity ≥ 0.9 differs in at most a tenth of their characters, so in
practice shares several runs of 23 characters; texts whose every shared run is shorter (an
edit every ~20 characters) would be missed: ``exact_below`` keeps small sets exact, and
``tests/generator/generate/test_dedup.py`` compares both searches on real scenario texts.
"""

from __future__ import annotations

import itertools
import re
import threading
import zlib
from collections import Counter, OrderedDict
from collections.abc import Iterable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from rapidfuzz import fuzz, process

_SPACE = re.compile(r"\s+")
# process.extractOne turns score_cutoff into an internal distance bound that can lose a
# match scoring within ~1e-6 of the cutoff (and 0.9 * 100 is 90.00000000000001), so the
# prefilter runs with a little slack and the exact score is compared afterwards.
_PREFILTER_SLACK = 0.01
_EPS = 1e-9

# Winnowing: k-gram length and window (guaranteed shared fingerprint for a shared run of
# K + W - 1 characters).
K = 8
W = 8
# The index answers searches at this cutoff or above; below it a full scan runs.
INDEX_MIN_CUTOFF = 0.8
EXACT_BELOW = 1500
MAX_POSTINGS = 64
# Texts whose anchors an index keeps at hand (a batch's searches before its claims).
_RECENT = 256
# Character classes of the count filter, and its margin (score points) against rounding.
BUCKETS = 64
_REACH_MARGIN = 1e-6


_SHIFTS = np.arange(K, dtype=np.uint64) * np.uint64(8)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: spreads the k-gram codes


def fingerprints(norm: str) -> list[int]:
    """Winnowed k-gram hashes of a normalised text, in text order (each chosen position once).

    A k-gram of UTF-8 bytes (k = 8) is one 64-bit code, multiplied by an odd constant
    modulo 2^64 (a bijection, so the hash order is a fixed pseudo-random order of k-grams).
    """
    data = np.frombuffer(norm.encode(), dtype=np.uint8).astype(np.uint64)
    if data.size < K:
        return [int(zlib.crc32(norm.encode()))] if norm else []
    codes = (sliding_window_view(data, K) << _SHIFTS).sum(axis=1, dtype=np.uint64)
    hashes = (codes * _MIX) >> np.uint64(1)
    if hashes.size <= W:
        return [int(hashes.min())]
    windows = sliding_window_view(hashes, W)
    # rightmost minimum of each window (robust winnowing)
    pos = np.arange(windows.shape[0]) + (W - 1 - np.argmin(windows[:, ::-1], axis=1))
    keep = np.concatenate(([True], pos[1:] != pos[:-1]))
    return [int(h) for h in hashes[pos[keep]]]


def char_counts(norm: str) -> np.ndarray:
    """How many code points of the text fall in each of ``BUCKETS`` classes (code point
    mod ``BUCKETS``)."""
    points = np.frombuffer(norm.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return np.bincount(points % BUCKETS, minlength=BUCKETS).astype(np.int32)


def anchors(norm: str) -> set[tuple[int, int]]:
    """Pairs of consecutive fingerprints (a lone fingerprint pairs with itself)."""
    fps = fingerprints(norm)
    if len(fps) == 1:
        return {(fps[0], fps[0])}
    return set(itertools.pairwise(fps))


def normalise(text: str) -> str:
    """Lower case, whitespace collapsed, ends stripped."""
    return _SPACE.sub(" ", text).strip().lower()


def similarity(a: str, b: str) -> float:
    """Similarity in [0, 1] of two texts after normalisation (the index's measure)."""
    return float(fuzz.ratio(normalise(a), normalise(b))) / 100.0


class DedupIndex:
    """Normalised texts with their keys; near-duplicates are texts at ``threshold`` or above.

    Thread-safe and safe under asyncio: every method takes one lock and never awaits, so
    :meth:`check_and_add` is atomic — two candidates racing cannot both be accepted.
    """

    def __init__(
        self,
        threshold: float = 0.9,
        *,
        exact_below: int = EXACT_BELOW,
        max_postings: int = MAX_POSTINGS,
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.exact_below = exact_below
        self.max_postings = max_postings
        self._texts: list[str] = []
        self._keys: list[str] = []
        self._postings: dict[tuple[int, int], list[int]] = {}
        self._stop: set[tuple[int, int]] = set()
        # Anchors of recently seen texts: a text is searched (the early check), then
        # claimed (check_and_add) after other domains' texts went through; hash it once.
        self._recent: OrderedDict[str, set[tuple[int, int]]] = OrderedDict()
        # How many entries each key has (a search excluding a key no entry has scans as one
        # excluding nothing).
        self._key_count: Counter[str] = Counter()
        # Per indexed text: its character counts (:func:`char_counts`) and length, rows
        # allocated ahead (see _within_reach)
        self._counts = np.zeros((64, BUCKETS), dtype=np.int32)
        self._lens = np.zeros(64, dtype=np.int64)
        # Request sentences of the single-domain texts (checks_language.request_sentences)
        # -> the first key that wrote them: a multi-agent text must not repeat one.
        self._requests: dict[str, str] = {}
        self._lock = threading.Lock()

    def _anchors(self, norm: str) -> set[tuple[int, int]]:
        found = self._recent.get(norm)
        if found is None:
            found = self._recent[norm] = anchors(norm)
            if len(self._recent) > _RECENT:
                self._recent.popitem(last=False)
        else:
            self._recent.move_to_end(norm)
        return found

    def _append(self, norm: str, key: str) -> None:
        index = len(self._texts)
        if index == self._lens.size:  # grow the count rows by doubling
            self._counts = np.concatenate([self._counts, np.zeros_like(self._counts)])
            self._lens = np.concatenate([self._lens, np.zeros_like(self._lens)])
        self._counts[index] = char_counts(norm)
        self._lens[index] = len(norm)
        self._texts.append(norm)
        self._keys.append(key)
        self._key_count[key] += 1
        for anchor in self._anchors(norm):
            if anchor in self._stop:
                continue
            posting = self._postings.setdefault(anchor, [])
            posting.append(index)
            if len(posting) > self.max_postings:
                self._stop.add(anchor)
                del self._postings[anchor]

    def _within_reach(
        self, norm: str, rows: list[int] | None, score_cutoff: float
    ) -> list[int]:
        """``rows`` (None: every indexed text), in order, less the texts whose character
        counts alone keep them below ``score_cutoff``.

        An insertion or deletion changes one character count by one, so the Indel distance
        is at least the L1 distance of the two texts' counts (of code points folded mod
        64: a sum of differences is at most the sum of their magnitudes), and ``fuzz.ratio
        = 100 (1 - distance / (len(a) + len(b)))`` is at most ``100 (1 - L1 / (len(a) +
        len(b)))``. A text dropped here could not reach the cutoff, so the scan of the
        rest returns what a scan of all of them returns (the same best, the same tie).
        """
        at = np.arange(len(self._texts)) if rows is None else np.asarray(rows, dtype=np.intp)
        room = 100.0 - score_cutoff + _REACH_MARGIN
        total = self._lens[at] + len(norm)
        # the length difference first (a lower bound of the count distance), then the counts
        near = np.abs(self._lens[at] - len(norm)) * 100.0 <= room * total
        at, total = at[near], total[near]
        l1 = np.abs(self._counts[at] - char_counts(norm)).sum(axis=1)
        out: list[int] = at[l1 * 100.0 <= room * total].tolist()
        return out

    def _candidates(self, norm: str) -> list[int]:
        found: set[int] = set()
        for anchor in self._anchors(norm):
            posting = self._postings.get(anchor)
            if posting is not None:
                found.update(posting)
        return sorted(found)

    def __len__(self) -> int:
        with self._lock:
            return len(self._texts)

    def _nearest(
        self, norm: str, cutoff: float, exclude: str | None
    ) -> tuple[str, float] | None:
        if exclude is not None and exclude not in self._key_count:
            exclude = None  # no entry to leave out
        score_cutoff = max(0.0, cutoff * 100 - _PREFILTER_SLACK)
        kept: list[int] | None = None  # None: every indexed text
        if len(self._texts) >= self.exact_below and cutoff >= INDEX_MIN_CUTOFF:
            kept = [
                i for i in self._candidates(norm) if exclude is None or self._keys[i] != exclude
            ]
        elif exclude is not None:
            # Rare path (re-checking an item that is itself indexed): filter, then score.
            kept = [i for i, k in enumerate(self._keys) if k != exclude]
        if score_cutoff > 0:
            kept = self._within_reach(norm, kept, score_cutoff)
        if kept is None:
            texts, keys = self._texts, self._keys
        else:
            texts = [self._texts[i] for i in kept]
            keys = [self._keys[i] for i in kept]
        hit = process.extractOne(norm, texts, scorer=fuzz.ratio, score_cutoff=score_cutoff)
        if hit is None or hit[1] < cutoff * 100 - _EPS:
            return None
        return keys[hit[2]], float(hit[1]) / 100.0

    def nearest(
        self, text: str, *, cutoff: float = 0.0, exclude: str | None = None
    ) -> tuple[str, float] | None:
        """The most similar indexed text's key and similarity (≥ ``cutoff``), or None.

        Args:
            text: The candidate text.
            cutoff: Ignore texts less similar than this (0 = return the best match).
            exclude: A key to leave out (the candidate's own entry when re-checking).
        """
        norm = normalise(text)
        with self._lock:
            return self._nearest(norm, cutoff, exclude)

    def is_duplicate(self, text: str, *, exclude: str | None = None) -> tuple[str, float] | None:
        """The nearest indexed key and score when at or above the threshold, else None."""
        return self.nearest(text, cutoff=self.threshold, exclude=exclude)

    def add(self, text: str, key: str, *, domain: str | None = None) -> None:
        """Index ``text`` under ``key`` unconditionally (``domain``: see
        :meth:`repeated_request`)."""
        norm = normalise(text)
        with self._lock:
            self._append(norm, key)
            self._add_requests(text, key, domain)

    def check_and_add(
        self, text: str, key: str, *, domain: str | None = None
    ) -> tuple[bool, str | None, float]:
        """Atomically: index ``text`` unless a near-duplicate is there already.

        Returns:
            ``(ok, nearest_key, score)``: ok is True when the text was added; nearest_key and
            score describe the duplicate when it was not (None and 0.0 otherwise).
        """
        norm = normalise(text)
        with self._lock:
            hit = self._nearest(norm, self.threshold, None)
            if hit is not None:
                return False, hit[0], hit[1]
            self._append(norm, key)
            self._add_requests(text, key, domain)
            return True, None, 0.0

    def _add_requests(self, text: str, key: str, domain: str | None) -> None:
        if domain is None or domain == "multiagent":
            return
        from generator.generate.checks.checks_language import request_sentences

        for sentence in request_sentences(text):
            self._requests.setdefault(sentence, key)

    def repeated_request(self, text: str, entities: Iterable[str]) -> tuple[str, str] | None:
        """``(sentence, key)``: a request sentence of ``text`` naming one of ``entities`` that
        a single-domain text indexed with its ``domain`` already wrote, word for word."""
        from generator.generate.checks.checks_language import request_sentences

        with self._lock:
            for sentence in request_sentences(text, entities):
                key = self._requests.get(sentence)
                if key is not None:
                    return sentence, key
        return None

    def load(self, items: Iterable[tuple[str, str]]) -> int:
        """Index ``(text, key)`` pairs unconditionally (an earlier set, or a resumed run).

        The pair order matches :meth:`add` and :meth:`check_and_add` (text first).

        Returns:
            The number of texts added.
        """
        pairs = [(normalise(text), key) for text, key in items]
        with self._lock:
            for norm, key in pairs:
                self._append(norm, key)
        return len(pairs)
