"""Golden tests of the agreement statistics, worked by hand from textbook examples."""

from __future__ import annotations

import pytest

from eval.judge_agreement import cohen_kappa, fleiss_kappa, level


def test_cohen_kappa_textbook_example() -> None:
    # The worked example in Cohen's-kappa textbooks (and Wikipedia): 50 proposals, two
    # readers. Both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    # p_o = (20 + 15) / 50 = 0.70
    # A says yes 25/50 = 0.5, B says yes 30/50 = 0.6
    # p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.30 + 0.20 = 0.50
    # kappa = (0.70 - 0.50) / (1 - 0.50) = 0.40
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.40)


def test_cohen_kappa_perfect_and_undefined() -> None:
    assert cohen_kappa(["x", "y"], ["x", "y"]) == pytest.approx(1.0)
    # Both raters always choose one category: p_e = 1, kappa undefined (not 0, not 1).
    assert cohen_kappa(["x", "x"], ["x", "x"]) is None
    with pytest.raises(ValueError):
        cohen_kappa(["x"], ["x", "y"])


def test_fleiss_kappa_textbook_example() -> None:
    # Fleiss (1971) style worked example (Wikipedia "Fleiss' kappa"): 10 subjects,
    # 14 raters each, 5 categories.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    # Column totals 20, 28, 39, 21, 32 of 140: p_j = .143, .200, .279, .150, .229
    # P_e = .143² + .200² + .279² + .150² + .229² = 0.2128 (exactly 0.21275510...)
    # P_1 = (14² - 14) / (14 * 13) = 182 / 182 = 1.000
    # P_2 = (4 + 36 + 16 + 4 - 14) / 182 = 46 / 182 = 0.2527
    # P_3 = (9 + 25 + 36 - 14) / 182 = 56 / 182 = 0.3077
    # P_4 = (9 + 81 + 4 - 14) / 182 = 80 / 182 = 0.4396
    # P_5 = (4 + 4 + 64 + 1 + 1 - 14) / 182 = 60 / 182 = 0.3297
    # P_6 = (49 + 49 - 14) / 182 = 84 / 182 = 0.4615
    # P_7 = (9 + 4 + 36 + 9 - 14) / 182 = 44 / 182 = 0.2418
    # P_8 = (4 + 25 + 9 + 4 + 4 - 14) / 182 = 32 / 182 = 0.1758
    # P_9 = (36 + 25 + 4 + 1 - 14) / 182 = 52 / 182 = 0.2857
    # P_10 = (4 + 4 + 9 + 49 - 14) / 182 = 52 / 182 = 0.2857
    # P_bar = (182 + 46 + 56 + 80 + 60 + 84 + 44 + 32 + 52 + 52) / 1820 = 688 / 1820 = 0.37802
    # kappa = (0.37802 - 0.21276) / (1 - 0.21276) = 0.16527 / 0.78724 = 0.2099
    assert fleiss_kappa(table) == pytest.approx(0.2099, abs=5e-4)


def test_fleiss_kappa_rejects_ragged_tables() -> None:
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 1], [2, 1]])
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 0], [0, 1]])  # one rater per subject
    assert fleiss_kappa([[3, 0], [3, 0]]) is None  # every rating in one category


def test_levels_bin_ratings() -> None:
    assert [level(r) for r in (1, 2, 2.5, 3, 3.5, 4, 5)] == [
        "low", "low", "mid", "mid", "mid", "high", "high"
    ]
