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
out, so a check against thousands of accepted texts stays fast.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from rapidfuzz import fuzz, process

_SPACE = re.compile(r"\s+")
# process.extractOne turns score_cutoff into an internal distance bound that can lose a
# match scoring within ~1e-6 of the cutoff (and 0.9 * 100 is 90.00000000000001), so the
# prefilter runs with a little slack and the exact score is compared afterwards.
_PREFILTER_SLACK = 0.01
_EPS = 1e-9


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

    def __init__(self, threshold: float = 0.9) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self._texts: list[str] = []
        self._keys: list[str] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._texts)

    def _nearest(
        self, norm: str, cutoff: float, exclude: str | None
    ) -> tuple[str, float] | None:
        if exclude is None:
            texts, keys = self._texts, self._keys
        else:
            # Rare path (re-checking an item that is itself indexed): filter, then score.
            kept = [i for i, k in enumerate(self._keys) if k != exclude]
            texts = [self._texts[i] for i in kept]
            keys = [self._keys[i] for i in kept]
        hit = process.extractOne(
            norm, texts, scorer=fuzz.ratio,
            score_cutoff=max(0.0, cutoff * 100 - _PREFILTER_SLACK),
        )
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

    def add(self, text: str, key: str) -> None:
        """Index ``text`` under ``key`` unconditionally."""
        norm = normalise(text)
        with self._lock:
            self._texts.append(norm)
            self._keys.append(key)

    def check_and_add(self, text: str, key: str) -> tuple[bool, str | None, float]:
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
            self._texts.append(norm)
            self._keys.append(key)
            return True, None, 0.0

    def load(self, items: Iterable[tuple[str, str]]) -> int:
        """Index ``(text, key)`` pairs unconditionally (an earlier set, or a resumed run).

        The pair order matches :meth:`add` and :meth:`check_and_add` (text first).

        Returns:
            The number of texts added.
        """
        pairs = [(normalise(text), key) for text, key in items]
        with self._lock:
            for norm, key in pairs:
                self._texts.append(norm)
                self._keys.append(key)
        return len(pairs)
