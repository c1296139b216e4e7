"""The run-wide near-duplicate index."""

from __future__ import annotations

import threading

import pytest
from rapidfuzz import fuzz

from generator.generate.dedup import DedupIndex, normalise, similarity

A = "What was the highest winding temperature of NORTH-TX01 at site NORTH on 2026-06-03?"
B = "What was the highest winding temperature of NORTH-TX02 at site NORTH on 2026-06-03?"
C = "How many corrective work orders did SOUTH-TX03 get in June 2026?"


def test_normalise_and_similarity() -> None:
    assert normalise("  Hello\n\tWORLD  ") == "hello world"
    assert similarity("Hello  World", "hello world") == 1.0
    # One character of 84 differs: Indel similarity 1 - 2/168.
    assert similarity(A, B) == pytest.approx(1 - 2 / (2 * len(A)))
    assert similarity(A, C) < 0.6


def test_check_and_add_rejects_a_near_duplicate_across_keys() -> None:
    index = DedupIndex(0.9)
    assert index.check_and_add(A, "iot#0") == (True, None, 0.0)
    ok, nearest, score = index.check_and_add(B, "fmsr#4")
    assert not ok and nearest == "iot#0" and score == pytest.approx(similarity(A, B))
    assert index.check_and_add(C, "wo#1")[0]
    assert len(index) == 2


def test_threshold_is_inclusive() -> None:
    score = fuzz.ratio(normalise(A), normalise(B)) / 100
    at = DedupIndex(threshold=score)
    at.add(A, "a")
    assert at.is_duplicate(B) == ("a", pytest.approx(score))
    above = DedupIndex(threshold=min(1.0, score + 0.001))
    above.add(A, "a")
    assert above.is_duplicate(B) is None


def test_nearest_and_exclude() -> None:
    index = DedupIndex()
    assert index.load([(A, "x"), (C, "y")]) == 2
    assert index.nearest(A) == ("x", 1.0)
    hit = index.nearest(A, exclude="x")
    assert hit is not None and hit[0] == "y" and hit[1] < 0.6
    assert index.nearest(A, cutoff=0.95, exclude="x") is None
    assert DedupIndex().nearest(A) is None


def test_invalid_threshold() -> None:
    with pytest.raises(ValueError):
        DedupIndex(0.0)
    with pytest.raises(ValueError):
        DedupIndex(1.5)


def test_check_and_add_is_atomic_across_threads() -> None:
    index = DedupIndex(0.9)
    results: list[bool] = []
    lock = threading.Lock()
    barrier = threading.Barrier(16)

    def worker(i: int) -> None:
        barrier.wait()
        ok, _, _ = index.check_and_add(f"{A} ", f"k{i}")  # same text after normalisation
        with lock:
            results.append(ok)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 1 and len(index) == 1


def test_a_pair_at_exactly_the_default_threshold_is_a_duplicate() -> None:
    # One substitution in ten characters: Indel similarity 1 - 2/20 = 0.9 exactly.
    index = DedupIndex()
    index.add("abcdefghij", "a")
    assert similarity("abcdefghij", "abcdefghiX") == 0.9
    assert index.check_and_add("abcdefghiX", "b") == (False, "a", 0.9)
    assert index.check_and_add("abcdefghXY", "c")[0]  # 0.8: not a duplicate
