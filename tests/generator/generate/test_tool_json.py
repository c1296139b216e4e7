"""``tool_json`` takes a `history` window as it is: the same dict ``model_dump`` makes."""

from __future__ import annotations

from generator.generate.draw.families import tool_json
from generator.tools.data_iot import RecordsResult


def _history_like() -> RecordsResult:
    # What `history` builds: model_construct from validated arguments and fresh rows of
    # JSON scalars (str, float, int, bool, None), keys in the store's order.
    rows = [
        {"timestamp": "2026-06-01T00:00:00", "oti": 50.5, "oti_a": 0, "note": None},
        {"timestamp": "2026-06-01T01:00:00", "oti": -0.0, "oti_a": 1, "ok": True},
        {"timestamp": "2026-06-01T02:00:00", "load": 3},
    ]
    return RecordsResult.model_construct(
        asset_id="T-1", start="2026-06-01", final=None, count=len(rows), records=rows
    )


def test_history_window_is_the_dumped_dict_in_the_same_key_order() -> None:
    result = _history_like()
    fast, dumped = tool_json("history", result), result.model_dump(mode="json")
    assert fast == dumped
    assert list(fast) == list(dumped) == ["asset_id", "start", "final", "count", "records"]
    assert [list(r) for r in fast["records"]] == [list(r) for r in dumped["records"]]


def test_other_tools_and_types_are_dumped() -> None:
    result = _history_like()
    # Any other tool name: a fresh dump (its rows are copies, not the result's own).
    out = tool_json("oil_samples", result)
    assert out == result.model_dump(mode="json")
    assert out["records"][0] is not result.records[0]
    # The history fast path hands out the window's own rows (made fresh by the tool).
    assert tool_json("history", result)["records"][0] is result.records[0]
