"""``num``: numbers for request texts (rounded, trailing zeros of the fraction dropped)."""

from __future__ import annotations

import pytest

from generator.generate.draw.family_helpers import num


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (50, 0, "50"),  # no fraction: the integer's own zeros stay
        (100.4, 0, "100"),
        (12.50, 2, "12.5"),
        (3.0, 1, "3"),
        (0.004, 2, "0"),
        (-0.001, 2, "0"),  # no "-0"
        (-2.25, 1, "-2.2"),  # Python rounds half to even: -2.25 -> -2.2
        (1200.0, 2, "1200"),
    ],
)
def test_num(value: float, digits: int, text: str) -> None:
    assert num(value, digits) == text
