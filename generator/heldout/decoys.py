"""Decoy answers: plausible wrong answers the grader must score below 1.

Each maker takes an instance (its seed and the family context on the private fleet) and
returns a decoy answer, or ``None`` when its kind does not apply to the instance (no window,
no paper choice, no DGA class). A decoy equal to the reference (within the tolerance) is
*inert*: the mistake does not change this instance's answer, so it proves nothing either way
and is recorded as such. The gate (:mod:`generator.heldout.gate`) grades every other decoy.

Kinds (the issue's list):

- ``wrong_edition``: the superseded IEC 599 code table (the Rogers / IEC 599 coding of
  :mod:`assets.transformer.dga`) instead of IEC 60599:2015 Table 1 for a DGA class; for an
  answer that cites an edition, another edition's year;
- ``swapped_ratio_codes``: Table 1 read with C2H2/C2H4 and C2H4/C2H6 swapped;
- ``wrong_unit``: every numeric value given in the neighbouring unit under the same key
  (MVA as kVA, kV as V, % as a fraction, °C as °F, hours as days);
- ``off_by_one_window``: the window ends (or starts, or is "as of") one day off;
- ``neighbouring_asset``: the same question answered for the next unit of the fleet;
- ``default_paper``: the untreated Kraft default instead of a thermally upgraded nameplate.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from assets.transformer import dga
from generator.errors import StoreUnavailable, UserError
from generator.generate.families import FAMILIES, Ambiguous, FamilyContext, compare
from generator.generate.model import TaskSeed, ToolCall
from generator.registry import Registry


@dataclass(frozen=True)
class DecoyInput:
    """What a decoy maker may use."""

    seed: TaskSeed
    ctx: FamilyContext
    asset_ids: tuple[str, ...]


DecoyFn = Callable[[DecoyInput], Coroutine[Any, Any, dict[str, Any] | None]]
DECOYS: Registry[DecoyFn] = Registry("decoy kind")


def decoy(name: str) -> Callable[[DecoyFn], DecoyFn]:
    """Register a decoy maker under ``name``."""

    def deco(fn: DecoyFn) -> DecoyFn:
        DECOYS.add(name, fn)
        return fn

    return deco


def is_inert(seed: TaskSeed, answer: dict[str, Any]) -> bool:
    """True when ``answer`` equals the reference within the seed's tolerances."""
    return not compare(seed.answer, answer, seed.tolerance, rel_tolerance=seed.rel_tolerance)


async def _rederive(inp: DecoyInput, calls: list[ToolCall], params: dict[str, Any]
                    ) -> dict[str, Any] | None:
    """The family's answer from other calls and parameters; None when none follows."""
    spec = FAMILIES.get(inp.seed.family)
    try:
        return spec.derive(params, await inp.ctx.run(calls))
    except StoreUnavailable:
        raise
    except (Ambiguous, UserError, KeyError, IndexError, ValueError, TypeError):
        return None


def _dga_args(seed: TaskSeed) -> dict[str, Any] | None:
    for call in seed.tool_sequence:
        if call.name == "interpret_dga":
            return dict(call.args)
    return None


def _ratios(seed: TaskSeed) -> dga.Ratios | None:
    args = _dga_args(seed)
    if args is None or not isinstance(seed.answer.get("fault_type"), str):
        return None
    fields = dga.GasSample.model_fields
    sample = dga.GasSample(**{k: v for k, v in args.items() if k in fields})
    return dga.iec60599_ratios(sample)


@decoy("wrong_edition")
async def wrong_edition(inp: DecoyInput) -> dict[str, Any] | None:
    """The IEC 599 code table's class for a DGA answer; another year for a cited edition."""
    answer = inp.seed.answer
    r = _ratios(inp.seed)
    if r is not None and answer["fault_type"] not in ("normal",):
        old = dga.classify_rogers(dga.rogers_codes(r))
        return {**answer, "fault_type": dga.ROGERS_TO_IEC.get(old, "ND")}
    text = json.dumps(answer)
    swapped = re.sub(r"\b(IEC|IEEE)([ \w.]*?)([-:])(19|20)(\d\d)\b",
                     lambda m: f"{m[1]}{m[2]}{m[3]}{'1999' if m[4] + m[5] != '1999' else '2015'}",
                     text)
    return json.loads(swapped) if swapped != text else None


@decoy("swapped_ratio_codes")
async def swapped_ratio_codes(inp: DecoyInput) -> dict[str, Any] | None:
    """Table 1 read with the first and third ratio exchanged."""
    r = _ratios(inp.seed)
    if r is None or inp.seed.answer["fault_type"] == "normal":
        return None
    a, b, c = r.values()
    return {**inp.seed.answer, "fault_type": dga._iec_class(c, b, a)}


# key suffix -> (factor, offset) taking the right unit's number to the neighbouring unit's
_UNIT_SHIFT: dict[str, tuple[float, float]] = {
    "mva": (1000.0, 0.0), "kva": (0.001, 0.0), "kv": (1000.0, 0.0), "pct": (0.01, 0.0),
    "percent": (0.01, 0.0), "c": (1.8, 32.0), "h": (1 / 24, 0.0), "hours": (1 / 24, 0.0),
    "ppm": (1e-4, 0.0), "a": (0.001, 0.0), "days": (24.0, 0.0),
}


def _unit_of(key: str) -> tuple[float, float] | None:
    suffix = key.rsplit("_", 1)[-1].lower() if "_" in key else ""
    return _UNIT_SHIFT.get(suffix)


def _shift_units(value: Any, unit: tuple[float, float] | None) -> tuple[Any, bool]:
    if isinstance(value, bool):
        return value, False
    if isinstance(value, int | float) and unit is not None and math.isfinite(value):
        return round(value * unit[0] + unit[1], 6), True
    if isinstance(value, dict):
        out, changed = {}, False
        for k, v in value.items():
            out[k], c = _shift_units(v, _unit_of(k) or unit)
            changed |= c
        return out, changed
    if isinstance(value, list):
        items = [_shift_units(v, unit) for v in value]
        return [v for v, _ in items], any(c for _, c in items)
    return value, False


@decoy("wrong_unit")
async def wrong_unit(inp: DecoyInput) -> dict[str, Any] | None:
    """Numbers of unit-suffixed keys in the neighbouring unit, under the same key."""
    out, changed = _shift_units(inp.seed.answer, None)
    return out if changed else None


_WINDOW_KEYS = ("final", "end", "end_date", "as_of", "until", "start", "initial", "start_date")


def _shift_time(value: str, days: int) -> str | None:
    try:
        if len(value) == 10:
            return (date.fromisoformat(value) + timedelta(days=days)).isoformat()
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (parsed + timedelta(days=days)).isoformat(timespec="seconds")


@decoy("off_by_one_window")
async def off_by_one_window(inp: DecoyInput) -> dict[str, Any] | None:
    """The window's end one day early (or its start one day late when it has no end)."""
    calls = inp.seed.tool_sequence
    for key in _WINDOW_KEYS:
        if not any(isinstance(c.args.get(key), str) for c in calls):
            continue
        days = 1 if key in ("start", "initial", "start_date") else -1
        moved: list[ToolCall] = []
        for c in calls:
            args = dict(c.args)
            if isinstance(args.get(key), str):
                shifted = _shift_time(args[key], days)
                if shifted is None:
                    return None
                args[key] = shifted
            moved.append(ToolCall(name=c.name, args=args))
        params = dict(inp.seed.params)
        for pkey, pval in inp.seed.params.items():
            if isinstance(pval, str) and any(pval == c.args.get(key) for c in calls):
                params[pkey] = _shift_time(pval, days) or pval
        return await _rederive(inp, moved, params)
    return None


def _replace_ids(value: Any, old: str, new: str) -> Any:
    return json.loads(json.dumps(value).replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1]))


@decoy("neighbouring_asset")
async def neighbouring_asset(inp: DecoyInput) -> dict[str, Any] | None:
    """The answer for the next unit of the fleet (the asset asked about swapped)."""
    text = json.dumps([c.model_dump(mode="json") for c in inp.seed.tool_sequence])
    named = [a for a in inp.asset_ids if f'"{a}"' in text]
    answer_text = json.dumps(inp.seed.answer)
    if len(named) != 1:
        in_answer = [a for a in inp.asset_ids if f'"{a}"' in answer_text]
        if not in_answer:
            return None
        # an answer naming units: name the neighbour of the first instead
        old = in_answer[0]
        new = inp.asset_ids[(inp.asset_ids.index(old) + 1) % len(inp.asset_ids)]
        return dict(_replace_ids(inp.seed.answer, old, new))
    old = named[0]
    new = inp.asset_ids[(inp.asset_ids.index(old) + 1) % len(inp.asset_ids)]
    if new == old:
        return None
    calls = [ToolCall.model_validate(_replace_ids(c.model_dump(mode="json"), old, new))
             for c in inp.seed.tool_sequence]
    return await _rederive(inp, calls, dict(_replace_ids(inp.seed.params, old, new)))


def _paper_tools() -> set[str]:
    from generator.tools.registry import TOOLS

    return {spec.name for spec in TOOLS.all() if "paper" in spec.args.model_fields}


@decoy("default_paper")
async def default_paper(inp: DecoyInput) -> dict[str, Any] | None:
    """The answer with the untreated Kraft default where the unit has upgraded paper."""
    tools = _paper_tools()
    calls = inp.seed.tool_sequence
    if not any(c.name in tools and c.args.get("paper") != "kraft" for c in calls):
        return None
    moved = [ToolCall(name=c.name, args={**c.args, "paper": "kraft"}) if c.name in tools else c
             for c in calls]
    return await _rederive(inp, moved, {**inp.seed.params, "paper": "kraft"}
                           if "paper" in inp.seed.params else dict(inp.seed.params))
