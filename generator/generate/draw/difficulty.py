"""Difficulty from the work a task takes, scored per seed (issue 15, item 4).

A family used to declare its seeds' difficulty; it counted output fields, so a one-call
lookup with three outputs was "hard" and every multi-agent chain was hard. The score here is
computed from what answering takes, read off the seed alone (deterministic, no store):

============================  =====================================================  ======
feature                       how it is counted                                      weight
============================  =====================================================  ======
``extra_tools``               distinct tools beyond the first                        0.75
``repeat_calls``              calls beyond one per distinct tool (a scan over        0.25
                              units), at most 4
``cross_domain``              tool domains beyond the first (iot, fmsr, tsfm, wo)    0.75
``chained``                   1 when the seed was composed from parent seeds         0.5
``outputs``                   answer fields beyond the first, at most 4              0.25
``steps``                     reasoning steps of the family's derive: answer         1.0
                              fields whose value no tool output holds (a count, a
                              comparison, a change, a decision, a filtered list;
                              a yes/no field always counts), at most 3
``distractors``               entities the calls read that the answer does not      0.5
                              name (units of a site scan the task must rule out),
                              at most 4
``constraints``               a stated constraint or conditional the answer must     1.0
                              honour (``constraint``, or ``hard_features``
                              constraint/conditional)
``pinned_readings``           other readings of the request the text rules out      0.25
                              (``stated``: a window end excluded, a default
                              paper), at most 2
============================  =====================================================  ======

Output fields count little on purpose: a lookup that returns four fields is no harder than
one that returns one (the issue's complaint against the declared labels). ``steps`` needs the
tool outputs; :func:`scored` without them (a seed read back from a file) estimates it from
the answer alone: yes/no fields and aggregates (a list of two or more items, a mapping).

``score = Σ weight × min(count, cap)`` is one scale for every domain. The level is relative
to the domain (the grader balances its classes ``domain/difficulty``, and a policy's
``hardness_mix`` asks for a share of a domain's harder tasks): ``easy`` below the domain's
first cut point (:data:`CUTS_BY_DOMAIN`, :data:`CUTS` for a domain not listed), ``hard``
from its second on, ``medium`` between.

Fitting the cut points
----------------------

The cuts follow one rule on the scores of a domain's *natural* draws (what each family draws
on the seeded fleet, every family alike, without the run's hard share or non-trivial
targets steering them; :func:`cuts_from_scores`):

1. the cut points are observed scores ``c1 < c2``;
2. a single call whose answer is read back (at most four fields: score <= 1.0) is never
   hard: ``c2 > 1.0``; the domain's least work (its lowest score) is always easy;
3. every level holds at least 15 % of the draws (no degenerate level);
4. among the pairs left, the one whose level shares come closest to a third each (least
   squares) wins; ties go to the lower cuts.

So "easy" is the third of a domain's tasks with the least work (in iot, a value read back;
in multi-agent, a two-domain chain with nothing computed), "hard" the third with the most
(joins across units or domains, chains, computed steps, stated constraints). Fitted with
``scenariogen difficulty-cuts`` (40 natural draws per family, run seed 1, the seeded default
fleet: 3 sites × 4 units × 90 days, fleet seed 42), session 5, 59 families:

===========  =====  =====  =====  ==========================  ============================
domain       draws  cut 1  cut 2  shares now (easy/med/hard)  shares before (old cuts)
===========  =====  =====  =====  ==========================  ============================
iot          484    1.25   2.5    32 / 37 / 31 %              15 / 34 / 51 % (0.5, 1.75)
fmsr         603    2.0    3.75   33 / 36 / 31 %              22 / 28 / 51 % (1.0, 3.0)
tsfm         146    2.0    3.0    26 / 34 / 40 %              21 / 23 / 56 % (1.25, 2.25)
wo           376    1.75   3.0    34 / 30 / 36 %              19 /  2 / 79 % (0.75, 1.5)
multiagent   278    6.25   7.0    29 / 34 / 37 %              11 / 51 / 37 % (5.25, 7.0)
===========  =====  =====  =====  ==========================  ============================

The old cuts were set by hand to leave about a third of the draws hard and were degenerate
in wo (2 % medium: its scores jump from 0.75 to 1.5). A class whose families hold few hard
tasks in a domain gets few hard scenarios there: the run pursues the policy's
``hardness_mix`` over the first half of its candidate bound, then fills its quota
(generator/generate/run/domain_run.py).

Refit them from a dry run with ``scenariogen difficulty-report`` (pass rate per level and
per score bucket, :func:`eval.difficulty_fit.fit_cuts` per domain): where a dry run's pass
rate steps down elsewhere than these cuts, its fit is the evidence to move them.

Examples: one ``history`` call returning one value read off its output scores 0 (easy);
a stored DGA sample interpreted (``oil_samples`` then ``interpret_dga``: two tools of two
domains, two fields read off the outputs) scores 0.75 + 0.75 + 0.25 = 1.75 (easy in fmsr,
where most tasks interpret a reading; medium in wo's scale); an anomaly scan followed by the
window's corrective work orders with a stated threshold (two tools, two domains, chained,
four fields of which two computed, one constraint) scores 0.75 + 0.75 + 0.5 + 0.75 + 2 + 1
= 5.75: hard on the default scale, easy among the multi-agent chains (their hard ones add a
third domain and a decision).
"""

from __future__ import annotations

import itertools
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from generator.generate.model import Difficulty, TaskSeed

WEIGHTS: dict[str, float] = {
    "extra_tools": 0.75,
    "repeat_calls": 0.25,
    "cross_domain": 0.75,
    "chained": 0.5,
    "outputs": 0.25,
    "steps": 1.0,
    "distractors": 0.5,
    "constraints": 1.0,
    "pinned_readings": 0.25,
}
CAPS: dict[str, int] = {
    "repeat_calls": 4, "outputs": 4, "steps": 3, "distractors": 4, "constraints": 1,
    "pinned_readings": 2,
}
# easy < cuts[0] <= medium < cuts[1] <= hard; per domain (see the module docstring), CUTS
# for a domain not listed.
CUTS: tuple[float, float] = (1.0, 2.5)
CUTS_BY_DOMAIN: dict[str, tuple[float, float]] = {
    "iot": (1.25, 2.5),
    "fmsr": (2.0, 3.75),
    "tsfm": (2.0, 3.0),
    "wo": (1.75, 3.0),
    "multiagent": (6.25, 7.0),
}


def cuts_for(domain: str) -> tuple[float, float]:
    """The cut points of ``domain``."""
    return CUTS_BY_DOMAIN.get(domain, CUTS)


# The rule the cut points follow (module docstring, "Fitting the cut points"): target shares
# of easy, medium and hard among a domain's natural draws, the smallest share a level may
# hold, and the most a single call whose answer is read back can score (one call, at most
# four output fields: 4 × 0.25), which is never hard.
LEVEL_SHARES: tuple[float, float, float] = (1 / 3, 1 / 3, 1 / 3)
MIN_LEVEL_SHARE = 0.15
ONE_CALL_READ_BACK = 1.0


def cuts_from_scores(
    scores: list[float],
    shares: tuple[float, float, float] = LEVEL_SHARES,
    min_share: float = MIN_LEVEL_SHARE,
) -> tuple[float, float] | None:
    """Cut points of one domain from the scores of its natural draws.

    Among every pair ``c1 < c2`` of observed scores with ``c2 > ONE_CALL_READ_BACK`` (a
    single call read back is never hard), take the pair whose level shares (easy
    ``< c1``, medium ``[c1, c2)``, hard ``>= c2``) come closest to ``shares`` (least
    squares), with every level holding at least ``min_share`` of the draws; ties go to the
    lower cuts. The lowest score is always easy (``c1`` is above it).

    Returns:
        The cuts, or None when no pair leaves every level ``min_share`` of the draws.
    """
    n = len(scores)
    values = sorted(set(scores))
    best: tuple[float, tuple[float, float]] | None = None
    for i, c1 in enumerate(values[1:], start=1):
        easy = sum(1 for x in scores if x < c1)
        for c2 in values[i + 1:]:
            if c2 <= ONE_CALL_READ_BACK:
                continue
            hard = sum(1 for x in scores if x >= c2)
            got = (easy / n, (n - easy - hard) / n, hard / n)
            if min(got) < min_share:
                continue
            err = sum((g - t) ** 2 for g, t in zip(got, shares, strict=True))
            if best is None or err < best[0] - 1e-12:
                best = (err, (c1, c2))
    return None if best is None else best[1]


def level_shares(scores: list[float], cuts: tuple[float, float]) -> dict[str, float]:
    """Share of easy, medium and hard among ``scores`` under ``cuts``."""
    n = len(scores) or 1
    counts = {"easy": 0, "medium": 0, "hard": 0}
    for x in scores:
        counts[level(x, cuts)] += 1
    return {k: round(v / n, 3) for k, v in counts.items()}
# Arguments that name one entity a call reads (a unit, a sensor).
_ENTITY_ARGS = ("asset_id", "equipment_id", "asset_name")


@lru_cache(maxsize=1)
def _registered_domains() -> dict[str, str]:
    from generator.tools.registry import load_tools

    return {spec.name: spec.domain for spec in load_tools().all()}


def _leaves(value: Any, out: set[str]) -> set[str]:
    """Every scalar of a JSON value, as a canonical string (numbers rounded to 6 places)."""
    if isinstance(value, dict):
        for v in value.values():
            _leaves(v, out)
    elif isinstance(value, list):
        for v in value:
            _leaves(v, out)
    else:
        out.add(_canon(value))
    return out


def _canon(value: Any) -> str:
    if isinstance(value, float) and not isinstance(value, bool):
        return repr(round(value, 6))
    return json.dumps(value, default=str)


_PLAIN_KEYS = frozenset({str, int, bool, type(None)})
# Outputs whose leaves are indexed (the last used kept): a draw's outputs are the run's
# memoised tool outputs, shared by the many draws and readings that make the same call,
# mostly close together; kept small, as each entry keeps its output alive.
MAX_INDEXED_OUTPUTS = 512
# A float rounds to a target t at 6 places only within 5e-7 of it (plus half an ulp of t):
# the floats inside this window of t are the only ones rounded exactly.
_NEAR = 1e-6
_NEAR_REL = 1e-12


@dataclass(frozen=True)
class _Leaves:
    """The scalars of one JSON value, ready for :func:`_present`'s lookups."""

    floats: NDArray[np.float64]  # every float leaf, sorted (nan last)
    strings: frozenset[str]  # every str leaf
    plain: dict[Any, dict[type, Any]]  # int/bool/None leaves: value -> type -> value
    odd: frozenset[str]  # canonical form of every other leaf (a subclass, a tuple)


def _collect(value: Any) -> _Leaves:
    """Sort the scalars of ``value`` into floats, plain leaves and odd ones (a leaf's kind is
    its type alone; rows of a table are walked together)."""
    floats: list[float] = []
    strings: set[str] = set()
    plain: list[Any] = []
    odd: list[Any] = []
    stack: list[Any] = [[value]]
    while stack:
        node = stack.pop()
        values = list(node.values()) if isinstance(node, dict) else node
        kinds = set(map(type, values))
        if kinds == {str}:
            strings.update(values)
            continue
        if kinds <= _PLAIN_KEYS:
            plain += values
            continue
        if kinds == {float}:
            floats += values
            continue
        if kinds == {dict}:  # rows: walk their values together
            stack.append(list(itertools.chain.from_iterable(map(dict.values, values))))
            continue
        if float in kinds:
            floats += [v for v in values if type(v) is float]
            values = [v for v in values if type(v) is not float]
            kinds.discard(float)
        if kinds == {str}:
            strings.update(values)
            continue
        if kinds <= _PLAIN_KEYS:
            plain += values
            continue
        for v in values:
            if type(v) in _PLAIN_KEYS:
                plain.append(v)
            elif isinstance(v, dict | list):
                stack.append(v)
            else:
                odd.append(v)
    by_value: dict[Any, dict[type, Any]] = {}
    for v in plain:
        if type(v) is str:
            strings.add(v)
        else:
            by_value.setdefault(v, {}).setdefault(type(v), v)
    return _Leaves(
        floats=np.sort(np.array(floats, dtype=np.float64)),
        strings=frozenset(strings),
        plain=by_value,
        odd=frozenset(map(_canon, odd)),
    )


_indexed: OrderedDict[int, tuple[Any, _Leaves]] = OrderedDict()
_indexed_lock = threading.Lock()


def _leaves_of(value: Any) -> _Leaves:
    """:func:`_collect` of ``value``, kept by identity (with ``value`` itself, so the id
    cannot be reused while kept) for the :data:`MAX_INDEXED_OUTPUTS` last used values."""
    key = id(value)
    with _indexed_lock:
        hit = _indexed.get(key)
        if hit is not None and hit[0] is value:
            _indexed.move_to_end(key)
            return hit[1]
    leaves = _collect(value)
    with _indexed_lock:
        _indexed[key] = (value, leaves)
        _indexed.move_to_end(key)
        while len(_indexed) > MAX_INDEXED_OUTPUTS:
            _indexed.popitem(last=False)
    return leaves


def _present(outputs: Any, wanted: set[str]) -> set[str]:
    """The members of ``wanted`` (canonical leaves, :func:`_canon`) that ``outputs`` holds.

    The same set as ``wanted & _leaves(outputs, set())`` without canonicalising every scalar
    of the outputs (a telemetry window holds tens of thousands). Each output's leaves are
    sorted once (:func:`_leaves_of`; tool outputs are shared by many draws): floats into a
    sorted array where only those near a wanted number are rounded and compared; strings,
    integers, flags and nulls looked up raw, and only the few candidates found that way
    canonicalised and compared exactly; anything else (a subclass, a tuple) canonicalised.
    Tool outputs must not change once indexed (they are the run's memoised outputs).
    """
    found: set[str] = set()
    if not wanted:
        return found
    # Floats: canonical form repr(round(v, 6)). For a finite non-zero target t, repr(x) is
    # the target exactly when x == t; zeros (0.0 and -0.0 compare equal) and nan are
    # compared by their canonical string.
    targets: dict[float, str] = {}
    for c in wanted:
        if c[0] in "-0123456789i" and not c.lstrip("-").isdigit():
            try:
                t = float(c)
            except ValueError:
                continue
            if t == t and t != 0.0 and repr(t) == c:
                targets[t] = c
    zeros = "nan" in wanted or "0.0" in wanted or "-0.0" in wanted
    # Strings, integers, flags, nulls: candidates by value (1 == True == 1.0 collide, so
    # each distinct (type, value) pair is then canonicalised and compared exactly).
    raw: set[Any] = set()
    for c in wanted:
        if c.startswith('"'):
            raw.add(json.loads(c))
        elif c.lstrip("-").isdigit():
            raw.add(int(c))
        elif c in ("true", "false", "null"):
            raw.add(json.loads(c))
    parts = outputs if type(outputs) is list else [outputs]
    for part in parts:
        leaves = _leaves_of(part)
        floats = leaves.floats
        if floats.size:
            for t, c in targets.items():
                if c not in found and any(round(x, 6) == t for x in _near(floats, t)):
                    found.add(c)
            if zeros:
                forms = {repr(r) for r in (round(x, 6) for x in _near(floats, 0.0)) if r == 0}
                if floats[-1] != floats[-1]:  # nan sorts last
                    forms.add("nan")
                found.update(forms & wanted)
        for r in raw:
            if type(r) is str:  # a string equals only a string
                if r in leaves.strings and (c := _canon(r)) in wanted:
                    found.add(c)
                continue
            for value in leaves.plain.get(r, {}).values():
                c = _canon(value)
                if c in wanted:
                    found.add(c)
        found.update(leaves.odd & wanted)
    return found


def _near(floats: NDArray[np.float64], t: float) -> list[float]:
    """The floats of the sorted array that may round (to 6 places) to ``t``: those within
    :data:`_NEAR` (and a relative hair) of it; for an infinite ``t``, those equal to it."""
    if math.isinf(t):
        return floats[floats == t].tolist()
    w = _NEAR + _NEAR_REL * abs(t)
    lo = int(np.searchsorted(floats, t - w, side="left"))
    hi = int(np.searchsorted(floats, t + w, side="right"))
    return floats[lo:hi].tolist()


def _computed(value: Any, leaves: set[str] | None) -> bool:
    """True when an answer field is the derive's own work, not a value read off an output."""
    if isinstance(value, bool):
        return True  # a yes/no is a judgement, even when an output holds a flag
    if leaves is None:  # no outputs: aggregates count
        return (isinstance(value, list) and len(value) >= 2) or isinstance(value, dict)
    if isinstance(value, (dict, list)):
        return not _leaves(value, set()) <= leaves
    return _canon(value) not in leaves


def difficulty_features(
    seed: TaskSeed,
    tool_domains: Mapping[str, str] | None = None,
    outputs: list[dict[str, Any]] | None = None,
) -> dict[str, int]:
    """The counts of the module docstring's features for ``seed`` (before capping).

    Args:
        seed: The seed.
        tool_domains: Tool name → domain (default: the registered tools').
        outputs: The tool outputs the answer was derived from, in call order; without them
            ``steps`` is estimated from the answer alone.
    """
    domains_of = _registered_domains() if tool_domains is None else tool_domains
    names = seed.expected_tools
    domains = {domains_of.get(n, n) for n in names}
    entities: set[str] = set()
    for call in seed.tool_sequence:
        for arg in _ENTITY_ARGS:
            value = call.args.get(arg)
            if isinstance(value, str) and value:
                entities.add(value)
    answer_text = json.dumps(seed.answer, default=str)
    distractors = sum(1 for e in entities if e not in answer_text) if len(entities) > 1 else 0
    constraints = int(seed.constraint is not None or any(
        f in ("constraint", "conditional") for f in seed.hard_features
    ))
    fields = [v for v in seed.answer.values() if v is not None]
    leaves = None
    if outputs is not None:
        # Only the answer's own leaves are ever looked up in the outputs' leaves.
        wanted: set[str] = set()
        for v in fields:
            if not isinstance(v, bool):
                _leaves(v, wanted)
        leaves = _present(outputs, wanted)
    return {
        "extra_tools": max(0, len(names) - 1),
        "repeat_calls": len(seed.tool_sequence) - len(names),
        "cross_domain": max(0, len(domains) - 1),
        "chained": int(bool(seed.parents)),
        "outputs": max(0, len(fields) - 1),
        "steps": sum(1 for v in fields if _computed(v, leaves)),
        "distractors": distractors,
        "constraints": constraints,
        "pinned_readings": sum(1 for r in seed.readings if r.outcome == "stated"),
    }


def difficulty_score(features: Mapping[str, int]) -> float:
    """``Σ weight × min(count, cap)`` over the features."""
    return round(
        sum(WEIGHTS[k] * min(v, CAPS.get(k, v)) for k, v in features.items() if k in WEIGHTS), 3
    )


def level(score: float, cuts: tuple[float, float] = CUTS) -> Difficulty:
    """The level of a score under the cut points."""
    if score >= cuts[1]:
        return "hard"
    return "medium" if score >= cuts[0] else "easy"


def scored(
    seed: TaskSeed,
    outputs: list[dict[str, Any]] | None = None,
    tool_domains: Mapping[str, str] | None = None,
) -> TaskSeed:
    """``seed`` with its difficulty, score and features computed from the work (see
    :func:`difficulty_features` for ``outputs`` and ``tool_domains``)."""
    features = difficulty_features(seed, tool_domains, outputs)
    score = difficulty_score(features)
    return seed.model_copy(
        update={
            "difficulty": level(score, cuts_for(seed.domain)),
            "difficulty_score": score,
            "difficulty_features": features,
            "declared_difficulty": seed.declared_difficulty or seed.difficulty,
        }
    )


def difficulty_report(seeds: list[TaskSeed]) -> dict[str, Any]:
    """Levels per domain, the family-declared levels beside them, and the cut points."""
    per_domain: dict[str, dict[str, int]] = {}
    declared: dict[str, int] = {}
    for seed in seeds:
        counts = per_domain.setdefault(seed.domain, {"easy": 0, "medium": 0, "hard": 0})
        counts[seed.difficulty] += 1
        old = seed.declared_difficulty or seed.difficulty
        declared[old] = declared.get(old, 0) + 1
    total = {lvl: sum(c[lvl] for c in per_domain.values()) for lvl in ("easy", "medium", "hard")}
    return {
        "cuts": {d: list(cuts_for(d)) for d in sorted(per_domain)},
        "levels": total,
        "per_domain": dict(sorted(per_domain.items())),
        "declared_levels": dict(sorted(declared.items())),
    }
