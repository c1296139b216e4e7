"""The run-wide near-duplicate index."""

from __future__ import annotations

import threading

import pytest
from rapidfuzz import fuzz

from generator.generate.checks.dedup import DedupIndex, normalise, similarity

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


def _real_texts() -> list[str]:
    import json
    from pathlib import Path

    up = Path(__file__).resolve().parents[2] / "fixtures" / "upstream"
    lines = (up / "assetopsbench_all_utterance.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    paper = json.loads((up / "paper_generated_transformer_scenarios.json").read_text())
    return texts + [r["text"] for r in paper]


def _perturbed(texts: list[str], n: int, seed: int) -> list[str]:
    """Word-level edits a near-duplicate would show: digits changed, words dropped, added,
    swapped; 1-4 edits each, so some clones stay above 0.9 and some fall below."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choice(texts).split(" ")
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(words))
            op = rng.random()
            if op < 0.3:
                words[i] = "".join(str(rng.randint(0, 9)) if c.isdigit() else c for c in words[i])
            elif op < 0.5 and len(words) > 1:
                del words[i]
            elif op < 0.75:
                words.insert(i, rng.choice(["please", "now", "the", "unit", "asset"]))
            else:
                j = rng.randrange(len(words))
                words[i], words[j] = words[j], words[i]
        out.append(" ".join(words))
    return out


def test_the_indexed_search_decides_as_the_full_scan_on_real_texts() -> None:
    import random

    real = _real_texts()
    pool = real + _perturbed(real, 450, seed=3)
    random.Random(1).shuffle(pool)
    full = DedupIndex(0.9, exact_below=10**9)
    indexed = DedupIndex(0.9, exact_below=0)  # every search goes through the anchor index
    hits_full, hits_indexed = [], []
    for i, text in enumerate(pool):
        hits_full.append(full.is_duplicate(text))
        hits_indexed.append(indexed.is_duplicate(text))
        full.add(text, str(i))
        indexed.add(text, str(i))
    assert hits_indexed == hits_full
    scores = [h[1] for h in hits_full if h is not None]
    assert len(scores) > 100  # many near-duplicates ...
    assert any(0.9 <= s < 0.95 for s in scores)  # ... some just above the threshold
    # check_and_add (the generator's path) accepts and rejects the same texts, too.
    a, b = DedupIndex(0.9, exact_below=10**9), DedupIndex(0.9, exact_below=0)
    assert [a.check_and_add(t, str(i)) for i, t in enumerate(pool)] == [
        b.check_and_add(t, str(i)) for i, t in enumerate(pool)
    ]
    # Below INDEX_MIN_CUTOFF (e.g. "the nearest text, however far") the index does a full scan.
    assert indexed.nearest(pool[0] + " zz", cutoff=0.0) == full.nearest(pool[0] + " zz", cutoff=0.0)


def test_fingerprints_survive_an_edit_elsewhere_in_the_text() -> None:
    from generator.generate.checks.dedup import anchors, fingerprints

    a = normalise(A)
    assert fingerprints(a) == fingerprints(a) and len(fingerprints(a)) >= len(a) // 8
    # A and B differ in one character: most anchors are shared (winnowing is local).
    shared = anchors(a) & anchors(normalise(B))
    assert len(shared) >= len(anchors(a)) // 2
    assert not anchors(a) & anchors(normalise(C))
    assert fingerprints("") == [] and len(anchors("short")) == 1


def test_the_character_count_bound_never_exceeds_the_ratio() -> None:
    from generator.generate.checks.dedup import char_counts

    # "abcd" vs "abxy": counts differ in c, d, x, y (L1 = 4), lengths 4 + 4, so the bound is
    # 100 (1 - 4/8) = 50; the Indel distance is 4 too (delete c, d; insert x, y): ratio 50.
    l1 = int(abs(char_counts("abcd") - char_counts("abxy")).sum())
    assert l1 == 4 and fuzz.ratio("abcd", "abxy") == 50.0
    # "abc" vs "cab": same counts (bound 100), but order differs: ratio 100 (1 - 2/6).
    assert int(abs(char_counts("abc") - char_counts("cab")).sum()) == 0
    assert fuzz.ratio("abc", "cab") == pytest.approx(100 * (1 - 2 / 6))
    # code points 64 apart share a class: the bound stays a lower one ('a' = 97, '!' = 33)
    assert int(abs(char_counts("a") - char_counts("!")).sum()) == 0


def test_searches_answer_as_an_unfiltered_scan_of_every_text() -> None:
    # The reference: rapidfuzz over every indexed text, no length or count filter, first of
    # the best; the index (full scan below exact_below, anchors above) must agree at every
    # cutoff, with and without an excluded key.
    import random

    from rapidfuzz import process

    real = _real_texts()
    pool = real + _perturbed(real, 300, seed=5) + ["", "ab", "ǅ abc", "ı ſ K"]
    random.Random(2).shuffle(pool)
    for exact_below in (10**9, 0):
        index = DedupIndex(0.9, exact_below=exact_below)
        norms: list[str] = []
        for i, text in enumerate(pool):
            for cutoff in (0.0, 0.5, 0.85, 0.9, 0.97):
                for exclude in (None, str(i - 1)):
                    kept = [j for j in range(len(norms)) if str(j) != exclude]
                    ref = process.extractOne(
                        normalise(text), [norms[j] for j in kept], scorer=fuzz.ratio,
                        score_cutoff=max(0.0, cutoff * 100 - 0.01),
                    )
                    got = index.nearest(text, cutoff=cutoff, exclude=exclude)
                    if ref is None or ref[1] < cutoff * 100 - 1e-9:
                        assert got is None
                    elif exact_below == 0 and cutoff >= 0.8:
                        # the anchor index may only miss, never find another text
                        assert got is None or got == (str(kept[ref[2]]), ref[1] / 100)
                    else:
                        assert got == (str(kept[ref[2]]), ref[1] / 100)
            index.add(text, str(i))
            norms.append(normalise(text))
