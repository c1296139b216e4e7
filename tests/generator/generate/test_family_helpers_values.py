"""``values_of``: (timestamp, value) pairs of the records carrying a sensor.

Its comprehension skips ``str``/``float`` on values that already are one; it must give what
the plain definition gives, value and type, on every kind of record.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from generator.generate.draw.family_helpers import values_of


def _plain(records: list[dict[str, Any]], sensor: str) -> list[tuple[str, float]]:
    return [(str(r["timestamp"]), float(r[sensor])) for r in records if r.get(sensor) is not None]


class _Stamp(str):
    """A str subclass: ``str()`` turns it into a plain str."""


RECORDS: list[dict[str, Any]] = [
    {"timestamp": "2026-01-01T00:00:00", "oti": 55.5},
    {"timestamp": "2026-01-01T01:00:00", "oti": 56},  # int -> 56.0
    {"timestamp": "2026-01-01T02:00:00", "oti": None},  # null: left out
    {"timestamp": "2026-01-01T03:00:00"},  # no such key: left out
    {"timestamp": "2026-01-01T04:00:00", "oti": True},  # bool -> 1.0
    {"timestamp": "2026-01-01T05:00:00", "oti": np.float64(57.25)},  # subclass -> float
    {"timestamp": _Stamp("2026-01-01T06:00:00"), "oti": -0.0},
    {"timestamp": 20260101, "oti": "58.5"},  # odd stamp and a numeric string
]


def test_same_pairs_and_types_as_the_plain_definition() -> None:
    got = values_of(RECORDS, "oti")
    assert got == _plain(RECORDS, "oti")
    assert [(type(t), type(v)) for t, v in got] == [(str, float)] * 6
    # by hand: six records carry oti; the int, bool and string become 56.0, 1.0 and 58.5
    assert [v for _, v in got] == [55.5, 56.0, 1.0, 57.25, -0.0, 58.5]
    assert got[4][0] == "2026-01-01T06:00:00" and got[5][0] == "20260101"


def test_errors_match_the_plain_definition() -> None:
    bad: list[dict[str, Any]] = [{"timestamp": "t", "oti": "warm"}]
    with pytest.raises(ValueError):
        _plain(bad, "oti")
    with pytest.raises(ValueError):
        values_of(bad, "oti")
    missing: list[dict[str, Any]] = [{"oti": 1.0}]
    with pytest.raises(KeyError):
        values_of(missing, "oti")
    assert values_of([{"oti": None}], "oti") == _plain([{"oti": None}], "oti") == []
