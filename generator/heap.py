"""The cyclic garbage collector during a generation run: the set-up's objects frozen, and
sweeps of the young objects rarer.

A run allocates millions of short-lived dicts (tool outputs, rows, seeds) while holding a
large, long-lived heap it never frees before the end: the fleet snapshot, the profile, the
registries, the templates. With the interpreter's defaults each full collection walks all
of it again (n = 1000 on the template path: 7 full collections, ~0.6 s of a ~5.5 s run).
So once the set-up is done the run freezes what exists (``gc.freeze``: the collector no
longer walks those objects; a draw-ahead worker forked then inherits them frozen, which
also spares its copy-on-write pages) and collects the young generation every
:data:`RUN_THRESHOLDS` allocations instead of every 700. Reference counting still frees
every object that is not in a cycle at once; only cycles wait for a sweep. The end of the
run puts everything back (:func:`thaw`), so frozen objects that became garbage are
collected as usual and a process that runs again starts from the same state.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

# Allocations between young-generation sweeps, and sweeps of each generation between
# sweeps of the next (the interpreter's defaults are 700, 10, 10).
RUN_THRESHOLDS = (50_000, 20, 20)


@dataclass(frozen=True)
class HeapState:
    """The collector's thresholds before :func:`freeze`."""

    thresholds: tuple[int, int, int]


def freeze() -> HeapState:
    """Freeze every object that exists now and make sweeps rarer; what :func:`thaw` needs."""
    before = HeapState(thresholds=gc.get_threshold())
    gc.freeze()
    gc.set_threshold(*RUN_THRESHOLDS)
    return before


def thaw(state: HeapState) -> None:
    """Undo :func:`freeze`: frozen objects back in the oldest generation, thresholds back."""
    gc.unfreeze()
    gc.set_threshold(*state.thresholds)
