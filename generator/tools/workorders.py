"""Work-order computations behind the generic wo tools: Markov next code, alert lead times.

Next work order (first-order Markov chain over primary codes). For equipment e, let
``n[a][b]`` count consecutive work orders of e (by reported date) with codes a → b, and
``f[a][b]`` the same over all equipment. With the code set C (catalogue plus codes seen),
the fleet prior is add-one (Laplace) smoothed,
``q(b|a) = (f[a][b] + 1) / (f[a] + |C|)``, and the estimate mixes it in as ``λ`` pseudo
transitions, ``P(b|a) = (n[a][b] + λ·q(b|a)) / (n[a] + λ)`` (λ = 1 by default). The
prediction is the argmax of ``P(·|last code of e)``; ties go to the code that sorts first.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

PRIOR_WEIGHT = 1.0
LAPLACE = 1.0


def transition_counts(sequences: Iterable[Sequence[str]]) -> dict[str, Counter[str]]:
    """Counts of consecutive pairs a → b in each sequence (pairs never span sequences)."""
    counts: dict[str, Counter[str]] = {}
    for seq in sequences:
        for a, b in itertools.pairwise(seq):
            counts.setdefault(a, Counter())[b] += 1
    return counts


@dataclass(frozen=True)
class MarkovEstimate:
    """The next-code estimate and everything used to compute it."""

    last_code: str
    predicted_code: str
    probabilities: dict[str, float]  # P(b | last_code) for every code b, summing to 1
    own_counts: dict[str, int]  # n[last_code][b] > 0
    fleet_counts: dict[str, int]  # f[last_code][b] > 0
    own_total: int
    fleet_total: int


def predict_next_code(
    own: Sequence[str],
    fleet: Iterable[Sequence[str]],
    codes: Iterable[str],
    prior_weight: float = PRIOR_WEIGHT,
    laplace: float = LAPLACE,
) -> MarkovEstimate:
    """Predict the code following the last of ``own`` (see the module docstring).

    Args:
        own: The equipment's codes in date order (non-empty).
        fleet: The code sequences of all equipment (including this one), each in date order.
        codes: The code catalogue; codes seen in the sequences are added.
        prior_weight: λ, the weight of the fleet prior in pseudo transitions.
        laplace: Additive smoothing of the fleet counts (1 = Laplace).

    Returns:
        The estimate.
    """
    if not own:
        raise ValueError("need at least one code")
    fleet = [list(s) for s in fleet]
    universe = sorted(set(codes) | set(own) | {c for s in fleet for c in s})
    last = own[-1]
    n = transition_counts([own]).get(last, Counter())
    f = transition_counts(fleet).get(last, Counter())
    n_tot, f_tot = sum(n.values()), sum(f.values())
    probs = {}
    for b in universe:
        q = (f[b] + laplace) / (f_tot + laplace * len(universe))
        probs[b] = (n[b] + prior_weight * q) / (n_tot + prior_weight)
    # max over sorted codes keeps the first (alphabetically smallest) on ties.
    predicted = max(universe, key=lambda c: (probs[c], -universe.index(c)))
    return MarkovEstimate(
        last_code=last,
        predicted_code=predicted,
        probabilities=probs,
        own_counts=dict(sorted(n.items())),
        fleet_counts=dict(sorted(f.items())),
        own_total=n_tot,
        fleet_total=f_tot,
    )


@dataclass(frozen=True)
class AlertMatch:
    """An alert and the first corrective work order after it (if any within the horizon)."""

    alert_index: int
    wo_index: int | None
    lead_hours: float | None


def match_alerts(
    alert_times: Sequence[str], wo_times: Sequence[str], within_days: float
) -> list[AlertMatch]:
    """For each alert, the first work order with ``alert < reported ≤ alert + within_days``.

    Args:
        alert_times: ISO 8601 alert start times.
        wo_times: ISO 8601 reported dates of the candidate (corrective) work orders.
        within_days: The horizon N in days.

    Returns:
        One match per alert, in input order; lead time in hours.
    """
    wos = sorted(((datetime.fromisoformat(t), i) for i, t in enumerate(wo_times)), key=lambda p: p)
    horizon = timedelta(days=within_days)
    out = []
    for k, t in enumerate(alert_times):
        at = datetime.fromisoformat(t)
        hit = next(((w, i) for w, i in wos if at < w <= at + horizon), None)
        if hit is None:
            out.append(AlertMatch(alert_index=k, wo_index=None, lead_hours=None))
        else:
            lead = (hit[0] - at).total_seconds() / 3600
            out.append(AlertMatch(alert_index=k, wo_index=hit[1], lead_hours=lead))
    return out


def is_preventive(doc: dict[str, object]) -> bool:
    """Whether a stored work order is preventive, whichever convention it carries.

    ``wo_type`` (ours) wins; else upstream's ``preventive`` string ("TRUE" / "FALSE") or a
    boolean.
    """
    wo_type = doc.get("wo_type")
    if isinstance(wo_type, str):
        return wo_type.lower() == "preventive"
    value = doc.get("preventive")
    if isinstance(value, str):
        return value.strip().upper() == "TRUE"
    return bool(value)
