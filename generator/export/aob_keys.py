"""A computed reference as upstream's ``static_json`` gold plus ``evaluation_metadata.keys``.

Upstream's newest static scorer (IBM/AssetOpsBench ``src/evaluation/scorers/static_json.py``
at 19ae5d62, read, not copied) flattens gold and answer to ``answer.<key>`` leaves and
passes an answer when every gold key is *satisfied* and the answer has no other key. A leaf
is satisfied by an equal normalised value (floats at 6 decimals, strings lower-cased), or by
what the per-key spec in ``evaluation_metadata.keys`` allows, read only for top-level keys:

- ``{"mode": "timestamp", "tolerance_s": s}``: both sides parse as ISO 8601
  (``YYYY-MM-DDTHH:MM:SS``, ``...THH:MM`` or a date) and lie within ``s`` seconds;
- ``{"mode": "measure"}``: a number within ±1 of the gold number, or inside the gold's
  range when the gold is a range string (``"lo to hi"``, also ``lo..hi``, ``lo-hi``);
- ``{"mode": "set_match"}`` (with ``match_on`` fields for lists of objects, and
  ``tolerance_s`` for timestamps): the list is judged whole, in any order, same length,
  no repeats; ``set_contained`` (n answered items out of the gold's) is not used.

We fill both from the record's answer contract (:mod:`generator.contract`; a key the
contract does not declare gets :func:`generator.contract.infer_spec`'s guess):

- only the keys the text **asks for** go into the gold (supporting evidence is not graded
  by our grader either, and upstream fails an answer on a key the gold lacks);
- a **number with a tolerance** (``|e - a| <= tolerance[key]`` or ``<= rel_tolerance[key]
  * |e|``, :func:`generator.generate.tolerance.within`) becomes the range string
  ``"e-t to e+t"`` (t the larger of the two, bounds rounded outward at 1e-10) with mode
  ``measure``: a value inside passes, outside fails, as in our grader. A number without a
  tolerance stays a number (equal at 6 decimals);
- a **timestamp** or **date** is stated at the granularity the text asks for (a date: a
  day; a timestamp: the contract's ``granularity``), and our grader accepts any time in
  that day, hour or minute. Upstream's window is symmetric, so the gold is the middle of
  that unit and ``tolerance_s`` half its length: a timestamp asked to the hour,
  ``2026-07-02T19:00:00``, goes out as ``2026-07-02T19:30:00`` with ``tolerance_s`` 1800
  (19:00 to 20:00 pass, the hour's end included); a date, ``2026-06-06``, as
  ``2026-06-06T12:00:00`` with 43200; a minute as ``HH:MM:30`` with 30. The true value is
  in ``expected_result``;
- an **unordered set** (ids, labels; records with every field as ``match_on``) gets mode
  ``set_match`` (timestamps in it at their granularity, as above), and so does an empty
  list (upstream's flattening drops it, and a gold without keys never passes); an ordered
  one stays a list, compared position by position;
- what upstream cannot express is listed per key in ``not_expressible`` (beside ``keys``;
  upstream ignores it): a tolerance on a number nested in a mapping or a list (upstream
  applies modes to top-level keys only, so it is compared at 6 decimals), and a set our
  contract lets an answer extend (``exact: false``; ``set_match`` needs the same members).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from generator.contract import AnswerContract, FactSpec, complete, contract_of_record
from generator.generate.model import ScenarioRecord

MEASURE = "measure"
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?")
# Half the length of a day, an hour, a minute: the window around the unit's middle.
HALF_UNIT_S = {"day": 43200, "hour": 1800, "minute": 30}
_UNIT = {"day": timedelta(days=1), "hour": timedelta(hours=1), "minute": timedelta(minutes=1)}


@dataclass
class Gold:
    """The static_json gold of a reference and its per-key scoring specs."""

    answer: dict[str, Any]
    keys: dict[str, dict[str, Any]] = field(default_factory=dict)
    not_expressible: dict[str, str] = field(default_factory=dict)


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _fmt(x: float) -> str:
    """A bound as upstream's range pattern reads it: digits, no exponent."""
    text = f"{x:.10f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def number_range(expected: float, tol: float) -> str:
    """``"lo to hi"`` covering ``[expected - tol, expected + tol]`` (bounds rounded out)."""
    lo = math.floor((expected - tol) * 1e10) / 1e10
    hi = math.ceil((expected + tol) * 1e10) / 1e10
    return f"{_fmt(lo)} to {_fmt(hi)}"


def key_tolerance(record: ScenarioRecord, key: str, expected: float) -> float:
    """The widest deviation our tolerance rule accepts for ``key`` at ``expected``."""
    return max(record.tolerance.get(key, 0.0),
               record.rel_tolerance.get(key, 0.0) * abs(float(expected)))


def _nested_numbers(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_nested_numbers(v) for v in value.values())
    if isinstance(value, list):
        return any(_nested_numbers(v) for v in value)
    return _is_number(value) and isinstance(value, float)


def _is_stamp(v: object) -> bool:
    return isinstance(v, str) and _STAMP.fullmatch(v) is not None


def _granularity(spec: FactSpec) -> str:
    return "day" if spec.kind == "date" else spec.granularity


def centred(stamp: str, granularity: str) -> str:
    """The middle of the day / hour / minute ``stamp`` lies in, as ``YYYY-MM-DDTHH:MM:SS``."""
    when = datetime.fromisoformat(stamp)
    start = {"day": when.replace(hour=0, minute=0, second=0, microsecond=0),
             "hour": when.replace(minute=0, second=0, microsecond=0),
             "minute": when.replace(second=0, microsecond=0)}[granularity]
    return (start + _UNIT[granularity] / 2).strftime("%Y-%m-%dT%H:%M:%S")


def _finest(specs: list[FactSpec]) -> str:
    order = ["minute", "hour", "day"]
    return min((_granularity(f) for f in specs), key=order.index, default="minute")


def _fact_gold(record: ScenarioRecord, spec: FactSpec, value: Any, gold: Gold) -> Any:
    key = spec.key
    if _is_number(value):
        tol = key_tolerance(record, key, value)
        if tol > 0:
            gold.keys[key] = {"mode": MEASURE}
            return number_range(float(value), tol)
        return value
    if spec.kind in ("timestamp", "date") and _is_stamp(value):
        unit = _granularity(spec)
        gold.keys[key] = {"mode": "timestamp", "tolerance_s": HALF_UNIT_S[unit]}
        return centred(value, unit)
    if isinstance(value, list):
        if (record.tolerance.get(key) or record.rel_tolerance.get(key)) \
                and _nested_numbers(value):
            gold.not_expressible[key] = ("a tolerance on numbers inside a list: upstream "
                                         "compares them at 6 decimals")
        if not value:
            gold.keys[key] = {"mode": "set_match"}
            return value
        if spec.ordered:
            return value
        if all(isinstance(v, dict) for v in value):
            fields = list(dict.fromkeys(k for v in value for k in v))
            gold.keys[key] = {"mode": "set_match", "match_on": fields}
            stamps = [f for f in spec.fields if f.kind in ("timestamp", "date")]
            if any(_is_stamp(v.get(f.key)) for v in value for f in stamps):
                unit = _finest(stamps)
                gold.keys[key]["tolerance_s"] = HALF_UNIT_S[unit]
                value = [{k: centred(x, unit) if any(f.key == k for f in stamps)
                          and _is_stamp(x) else x for k, x in v.items()} for v in value]
        else:
            gold.keys[key] = {"mode": "set_match"}
            if all(_is_stamp(v) for v in value):
                unit = _granularity(spec) if spec.kind in ("timestamp", "date") else "minute"
                gold.keys[key]["tolerance_s"] = HALF_UNIT_S[unit]
                value = [centred(v, unit) for v in value]
        if spec.kind in ("ids", "labels") and not spec.exact:
            gold.not_expressible[key] = ("our contract lets an answer name further members; "
                                         "upstream's set_match needs the same members")
        return value
    if isinstance(value, dict) and (record.tolerance.get(key) or record.rel_tolerance.get(key)) \
            and _nested_numbers(value):
        gold.not_expressible[key] = ("a tolerance on numbers inside a mapping: upstream "
                                     "compares them at 6 decimals")
    return value


def record_contract(record: ScenarioRecord) -> AnswerContract:
    """The record's contract with a guessed spec for every key it does not declare."""
    ref = record.reference_answer or {}
    contract = contract_of_record(record.model_dump(mode="json"))
    return complete(contract, record.family, ref)


def static_gold(record: ScenarioRecord) -> Gold:
    """The gold object and key specs of a deterministic record's reference."""
    ref = record.reference_answer or {}
    contract = record_contract(record)
    asked = [f for f in contract.facts if f.asked and f.key in ref]
    if not asked:  # a contract that asks nothing: every key is the answer
        asked = [f for f in contract.facts if f.key in ref]
    gold = Gold(answer={})
    for spec in asked:
        gold.answer[spec.key] = _fact_gold(record, spec, ref[spec.key], gold)
    return gold


__all__ = ["HALF_UNIT_S", "MEASURE", "Gold", "centred", "key_tolerance", "number_range",
           "record_contract", "static_gold"]
