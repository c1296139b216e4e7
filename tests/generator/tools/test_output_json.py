"""``output_json``: a tool result as JSON data, by ``RecordsResult.plain_json`` when it applies.

The shortcut must give exactly ``model_dump(mode="json")``; these results are built by hand
(``model_construct``, as the ``history`` tool builds them from the store's rows).
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

import numpy as np
import pytest

from generator.tools.data_iot import RecordsResult, SitesResult
from generator.tools.registry import output_json


def _records(rows: list[dict[str, Any]], final: str | None = "2024-01-02") -> RecordsResult:
    return RecordsResult.model_construct(
        asset_id="T-1", start="2024-01-01", final=final, count=len(rows), records=rows
    )


PLAIN_ROWS = [
    [{"timestamp": "2024-01-01T00:00:00", "oti": 55.5}, {"timestamp": "2024-01-01T01:00:00",
                                                       "oti": 56}],
    [{"timestamp": "2024-01-01T00:00:00", "oti": None, "tap": 3, "alarm": True, "tag": "x"}],
    # pydantic's JSON form writes a non-finite float as null
    [{"timestamp": "t", "oti": math.nan, "wti": math.inf, "il1": -math.inf, "zero": -0.0}],
    [],
]


@pytest.mark.parametrize("rows", PLAIN_ROWS)
@pytest.mark.parametrize("final", ["2024-01-02", None])
def test_plain_rows_take_the_shortcut_and_equal_the_dump(
    rows: list[dict[str, Any]], final: str | None
) -> None:
    result = _records(rows, final)
    fast = result.plain_json()
    assert fast is not None
    assert fast == result.model_dump(mode="json")
    # the same text too (tells -0.0 from 0.0 and 1 from 1.0, which == does not)
    assert json.dumps(fast) == json.dumps(result.model_dump(mode="json"))
    assert output_json(result) == result.model_dump(mode="json")
    # copies: changing the output leaves the result's rows alone
    for out_row, row in zip(fast["records"], rows, strict=True):
        assert out_row is not row


def test_non_finite_float_becomes_none() -> None:
    out = _records([{"timestamp": "t", "oti": math.nan, "wti": 1.5}]).plain_json()
    assert out is not None
    assert out["records"] == [{"timestamp": "t", "oti": None, "wti": 1.5}]


@pytest.mark.parametrize(
    "value",
    [
        np.float64(1.5),  # a float subclass
        datetime.date(2024, 1, 1),
        {"nested": 1},
        [1, 2],
        (1, 2),
    ],
)
def test_other_values_fall_back_to_the_dump(value: object) -> None:
    result = _records([{"timestamp": "t", "x": value}])
    assert result.plain_json() is None
    assert output_json(result) == result.model_dump(mode="json")


def test_results_without_a_shortcut_are_dumped() -> None:
    result = SitesResult(sites=["A", "B"])
    assert output_json(result) == {"sites": ["A", "B"]}
