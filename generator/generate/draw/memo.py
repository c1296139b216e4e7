"""A bounded, least-recently-used memo of tool outputs (one per run).

Tools are deterministic functions of their arguments and the pinned fleet snapshot, so an
evicted output is recomputed identically when it is asked for again: the bound changes
only how much work is repeated, never a result. Unbounded, the memo of a 10 000-scenario
run held several gigabytes of telemetry windows.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

# Outputs kept. A draw, its interpretation-gate readings, its chained parent and its
# recompute at vetting reuse outputs within one batch (tens of calls); a few thousand
# entries keep every reuse of a batch and of the recent slots a designated slot revisits.
DEFAULT_MAX_ENTRIES = 4096


class BoundedMemo:
    """Key → tool output, evicting the least recently used beyond ``max_entries``.

    Counts hits, misses and evictions (for the benchmarks).
    """

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.max_entries = max_entries
        self._data: OrderedDict[Hashable, dict[str, Any]] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: Hashable) -> dict[str, Any] | None:
        """The output under ``key`` (now the most recently used), or None."""
        out = self._data.get(key)
        if out is None:
            self.misses += 1
            return None
        self.hits += 1
        self._data.move_to_end(key)
        return out

    def put(self, key: Hashable, value: dict[str, Any]) -> None:
        """Store ``value`` as the most recently used; evict the oldest past the bound."""
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)
            self.evictions += 1
