"""Memo keys of tool calls: equal arguments share a key, different ones never do."""

from __future__ import annotations

import math

from generator.generate.draw.families import CallKey, _call_key
from generator.generate.model import ToolCall


def _key(name: str, **args: object) -> CallKey:
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
    key = _key("t", x={"a": 1})
    assert isinstance(key, str) and key.startswith('t{"x": {"a": 1}}')


def test_floats_equality_cannot_tell_apart_stay_apart() -> None:
    # 0.0 == -0.0 and a tool may treat them differently; NaN != NaN yet is one argument.
    assert _key("t", x=0.0) != _key("t", x=-0.0)
    assert _key("t", x=math.nan) == _key("t", x=math.nan)
    assert _key("t", x=0.1) == _key("t", x=0.1) != _key("t", x=0.30000000000000004 - 0.2)
    assert _key("t", x=math.inf) != _key("t", x=-math.inf)


def test_plain_and_json_forms_never_meet() -> None:
    # a plain call (tuple key) and a nested one (string key) with the same text inside
    assert _key("t", x="a") != _key("t", x={"a": "a"})
    assert isinstance(_key("t", x=["a"]), tuple)
    assert isinstance(_key("t", x=[1]), str)  # a list of non-strings goes through JSON
    assert _key("t", x=["a", "b"]) != _key("t", x="('a', 'b')")
