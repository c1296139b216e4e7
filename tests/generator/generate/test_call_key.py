"""Memo keys of tool calls: equal arguments share a key, different ones never do."""

from __future__ import annotations

from generator.generate.families import _call_key
from generator.generate.model import ToolCall


def _key(name: str, **args: object) -> str:
    return _call_key(ToolCall(name=name, args=args))


def test_argument_order_does_not_matter() -> None:
    assert _key("history", asset_id="T1", start="2026-01-01") == _key(
        "history", start="2026-01-01", asset_id="T1"
    )


def test_values_json_tells_apart_stay_apart() -> None:
    keys = {
        _key("history", asset_id="T1"),
        _key("history", asset_id="T2"),
        _key("forecast", asset_id="T1"),
        _key("t", x=1), _key("t", x=1.0), _key("t", x=True), _key("t", x=None),
        _key("t", x="1"), _key("t", x=["a", "b"]), _key("t", x=["b", "a"]),
        _key("t", x={"a": 1}),  # not plain: the sorted-JSON form
    }
    assert len(keys) == 11


def test_nested_values_use_sorted_json() -> None:
    assert _key("t", x={"a": 1, "b": 2}) == _key("t", x={"b": 2, "a": 1})
    assert _key("t", x={"a": 1}).startswith('t{"x": {"a": 1}}')
