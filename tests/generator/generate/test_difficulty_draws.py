"""Fitting the difficulty cut points to natural draws (generator/generate/draw/difficulty_draws.py).

The seeds are made here with hand-chosen scores, so the fitted cuts and level shares follow
from the rule (difficulty.cuts_from_scores) worked by hand in the comments.
"""

from __future__ import annotations

from generator.generate.draw.difficulty import cuts_for
from generator.generate.draw.difficulty_draws import fit_domains
from generator.generate.model import TaskSeed, ToolCall


def _seed(family: str, domain: str, score: float) -> TaskSeed:
    return TaskSeed(
        family=family, domain=domain, category="Data Query", role="operator", draw=0,
        params={}, mentions=[], tool_sequence=[ToolCall(name="history", args={})],
        answer={"v": 1}, answer_summary="", difficulty="easy", difficulty_score=score,
    )


def test_fit_domains_reports_current_and_fitted_cuts() -> None:
    # wo: 12 draws of two families, scores 0 ×3, 0.5, 1.25 ×4, 2.5 ×3, 4.0 -> the rule's
    # best pair is (1.25, 2.5) with 4 / 4 / 4 (worked in test_difficulty). Under wo's
    # current cuts (1.75, 3.0): easy 0,0,0,0.5,1.25×4 = 8, medium 2.5×3 = 3, hard 4.0 = 1.
    scores = [0.0] * 3 + [0.5] + [1.25] * 4 + [2.5] * 3 + [4.0]
    seeds = {"wo": [_seed("a" if i % 2 else "b", "wo", s) for i, s in enumerate(scores)],
             "iot": []}
    got = fit_domains(seeds)
    assert set(got) == {"wo"}  # a domain without draws is left out
    wo = got["wo"]
    assert (wo.draws, wo.families) == (12, 2)
    assert wo.cuts_now == cuts_for("wo") == (1.75, 3.0)
    assert wo.shares_now == {"easy": 0.667, "medium": 0.25, "hard": 0.083}
    assert wo.cuts_fitted == (1.25, 2.5)
    assert wo.shares_fitted == {"easy": 0.333, "medium": 0.333, "hard": 0.333}


def test_a_domain_without_three_levels_is_left_unfitted() -> None:
    # Every draw scores 0.25 (one call read back): no second cut above 1.0 exists.
    got = fit_domains({"iot": [_seed("a", "iot", 0.25) for _ in range(10)]})
    assert got["iot"].cuts_fitted is None and got["iot"].shares_fitted is None
