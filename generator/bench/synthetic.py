"""Synthetic scenario sets for scale benchmarks: real records cloned with perturbed texts.

A clone keeps every field of its source record except its id (``<id>~<k>``) and its text,
which gets 1-4 word-level edits a near-duplicate shows in practice (a digit changed, a word
dropped, inserted or swapped). Some clones stay near-duplicates of their source (similarity
≥ 0.9) and some do not, so the near-duplicate search does real work at every size.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_FILLERS = ("please", "now", "the", "unit", "asset", "kindly", "today", "exactly")


def perturb(text: str, rng: random.Random) -> str:
    """``text`` with 1-4 word-level edits drawn from ``rng``."""
    words = text.split(" ")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(words))
        op = rng.random()
        if op < 0.3:
            words[i] = "".join(str(rng.randint(0, 9)) if c.isdigit() else c for c in words[i])
        elif op < 0.5 and len(words) > 1:
            del words[i]
        elif op < 0.75:
            words.insert(i, rng.choice(_FILLERS))
        else:
            j = rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
    return " ".join(words)


def clones(records: list[dict[str, Any]], n: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    """``n`` records: the sources first, then perturbed clones of random sources."""
    if not records:
        raise ValueError("no source records to clone")
    rng = random.Random(seed)
    for i in range(n):
        if i < len(records):
            yield records[i]
            continue
        src = records[rng.randrange(len(records))]
        clone = dict(src)
        clone["id"] = f"{src.get('id', 'r')}~{i}"
        clone["text"] = perturb(str(src.get("text", "")), rng)
        yield clone


def write_jsonl(records: Iterator[dict[str, Any]], path: Path) -> int:
    """Write records one per line; returns how many."""
    count = 0
    with path.open("w") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
            count += 1
    return count
