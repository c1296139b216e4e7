"""Inter-judge agreement: Cohen's kappa (two judges) and Fleiss' kappa (three or more).

Both are chance-corrected agreement, ``κ = (P̄ − P̄e) / (1 − P̄e)``:

- Cohen (1960), two raters: ``P̄`` is the share of items both put in the same category,
  ``P̄e = Σ_k p1k · p2k`` with ``pjk`` the share of items rater j put in category k.
- Fleiss (1971), n raters per item: with ``n_ik`` the raters putting item i in category k,
  ``P_i = (Σ_k n_ik² − n) / (n (n − 1))``, ``P̄`` the mean of ``P_i``,
  ``p_k = Σ_i n_ik / (N n)`` and ``P̄e = Σ_k p_k²``.

Kappa is undefined when ``P̄e = 1`` (every rating in one category): None, not a number.
Judge ratings (1–5) are binned to three levels before counting, so "4 vs 5" is
agreement and "2 vs 4" is not: low (1–2), mid (3), high (4–5).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from eval.judge import DIMENSIONS
from eval.score_model import Agreement, JudgeVerdict

LEVELS = ("low", "mid", "high")


def level(rating: float) -> str:
    """Bin a 1–5 rating: low (≤ 2), mid (3), high (≥ 4)."""
    if rating <= 2:
        return "low"
    return "mid" if rating < 4 else "high"


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' labels for the same items (None when undefined)."""
    if len(a) != len(b):
        raise ValueError(f"raters labelled different numbers of items ({len(a)} vs {len(b)})")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    cats = set(a) | set(b)
    expected = sum((list(a).count(k) / n) * (list(b).count(k) / n) for k in cats)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa from a subjects × categories table of rater counts (None: undefined).

    Raises:
        ValueError: Rows with different rater totals, or fewer than two raters.
    """
    if not counts:
        return None
    n = sum(counts[0])
    if n < 2:
        raise ValueError("Fleiss' kappa needs at least two raters per subject")
    if any(sum(row) != n for row in counts):
        raise ValueError("every subject must be rated by the same number of raters")
    big_n = len(counts)
    p_i = [(sum(c * c for c in row) - n) / (n * (n - 1)) for row in counts]
    p_bar = sum(p_i) / big_n
    k = len(counts[0])
    p_k = [sum(row[j] for row in counts) / (big_n * n) for j in range(k)]
    p_e = sum(p * p for p in p_k)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def _kappa(labels_by_judge: list[list[str]]) -> float | None:
    if len(labels_by_judge) == 2:
        return cohen_kappa(labels_by_judge[0], labels_by_judge[1])
    items = list(zip(*labels_by_judge, strict=True))
    return fleiss_kappa([[item.count(lv) for lv in LEVELS] for item in items])


def agreement(judges: Sequence[str], verdicts: Sequence[Sequence[JudgeVerdict]]
              ) -> Agreement | None:
    """Agreement over (scenario, dimension) items every judge scored; None for one judge.

    Args:
        judges: Judge labels.
        verdicts: ``verdicts[j][i]``: judge j's verdict on scenario i.
    """
    if len(judges) < 2:
        return None
    labels: list[list[str]] = [[] for _ in judges]
    per_dim: dict[str, list[list[str]]] = {d: [[] for _ in judges] for d in DIMENSIONS}
    for i in range(len(verdicts[0])):
        row = [verdicts[j][i] for j in range(len(judges))]
        if not all(v.scored for v in row):
            continue
        for dim in DIMENSIONS:
            if not all(dim in v.dimensions for v in row):
                continue
            for j, v in enumerate(row):
                lv = level(v.dimensions[dim].rating)
                labels[j].append(lv)
                per_dim[dim][j].append(lv)
    items = len(labels[0])
    kappa = _kappa(labels) if items else None
    observed = (
        sum(len(set(col)) == 1 for col in zip(*labels, strict=True)) / items if items else None
    )
    note = ""
    if items == 0:
        note = "no item was scored by every judge"
    elif kappa is None:
        note = "kappa undefined: every rating fell in one level (chance agreement is 1)"
    return Agreement(
        judges=list(judges),
        statistic="cohen" if len(judges) == 2 else "fleiss",
        levels=[f"{lv}" for lv in LEVELS],
        items=items,
        kappa=None if kappa is None else round(kappa, 4),
        per_dimension={
            d: (None if (k := _kappa(cols) if cols[0] else None) is None else round(k, 4))
            for d, cols in per_dim.items()
        },
        observed_agreement=None if observed is None else round(observed, 4),
        note=note,
    )
