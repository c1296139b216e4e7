"""The bounded tool-output memo: least recently used out first, never more than the bound."""

from __future__ import annotations

import pytest

from generator.generate.draw.memo import BoundedMemo


def test_the_least_recently_used_entry_is_evicted_first() -> None:
    memo = BoundedMemo(max_entries=2)
    memo.put("a", {"v": 1})
    memo.put("b", {"v": 2})
    assert memo.get("a") == {"v": 1}  # "a" is now more recent than "b"
    memo.put("c", {"v": 3})  # over the bound: "b" goes
    assert "b" not in memo and "a" in memo and "c" in memo
    assert len(memo) == 2
    assert memo.get("b") is None
    assert (memo.hits, memo.misses, memo.evictions) == (1, 1, 1)


def test_a_put_of_an_existing_key_replaces_it_without_eviction() -> None:
    memo = BoundedMemo(max_entries=2)
    memo.put("a", {"v": 1})
    memo.put("b", {"v": 2})
    memo.put("a", {"v": 9})
    assert len(memo) == 2 and memo.evictions == 0
    memo.put("c", {"v": 3})  # "b" is now the oldest
    assert memo.get("a") == {"v": 9} and "b" not in memo


def test_a_bound_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        BoundedMemo(max_entries=0)
