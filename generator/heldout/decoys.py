"""Decoy answers: plausible wrong answers the grader must score below 1.

Each maker takes an instance (its seed and the family context on the private fleet) and
returns a decoy answer, or ``None`` when its kind does not apply to the instance (no window,
no unit, no cited edition). A decoy equal to the reference (within the tolerance) is
*inert*: the mistake does not change this instance's answer, so it proves nothing either way
and is recorded as such. The gate (:mod:`generator.heldout.gate`) grades every other decoy.

Makers are registered by kind for every asset class (``*``) or for named classes
(:mod:`generator.heldout.scoped`); an asset class adds the mistakes of its own standards in
``assets/<class>/heldout.py`` with :func:`decoy` (exported by :mod:`generator.api`), and may
refine a generic kind: its maker is tried first, the generic one when it does not apply.
Generic kinds (the issue's list):

- ``wrong_edition``: for an answer that cites a standard's edition, another edition's year;
- ``wrong_unit``: every numeric value given in the neighbouring unit under the same key
  (MVA as kVA, kV as V, % as a fraction, °C as °F, hours as days);
- ``off_by_one_window``: the window ends (or starts, or is "as of") one day off;
- ``neighbouring_asset``: the same question answered for the next unit of the fleet.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from generator.errors import StoreUnavailable, UserError
from generator.generate.draw.families import FAMILIES, Ambiguous, FamilyContext, compare
from generator.generate.model import TaskSeed, ToolCall
from generator.heldout.plugins import load_heldout_module
from generator.heldout.scoped import GENERIC, ScopedRegistry


@dataclass(frozen=True)
class DecoyInput:
    """What a decoy maker may use."""

    seed: TaskSeed
    ctx: FamilyContext
    asset_ids: tuple[str, ...]

    async def rederive(self, calls: list[ToolCall], params: dict[str, Any]
                       ) -> dict[str, Any] | None:
        """The family's answer from other calls and parameters; None when none follows."""
        spec = FAMILIES.get(self.seed.family)
        try:
            return spec.derive(params, await self.ctx.run(calls))
        except StoreUnavailable:
            raise
        except (Ambiguous, UserError, KeyError, IndexError, ValueError, TypeError,
                ArithmeticError):  # e.g. a neighbouring unit off at the instance's hour
            return None


DecoyFn = Callable[[DecoyInput], Coroutine[Any, Any, dict[str, Any] | None]]
DECOYS: ScopedRegistry[DecoyFn] = ScopedRegistry("decoy kind")


def decoy(name: str, asset_classes: tuple[str, ...] = (GENERIC,)
          ) -> Callable[[DecoyFn], DecoyFn]:
    """Register a decoy maker under ``name`` for ``asset_classes`` (default: every class)."""
    return DECOYS.register(name, asset_classes)


async def make_decoys(inp: DecoyInput) -> list[tuple[str, dict[str, Any] | None]]:
    """Every decoy kind of the instance's asset class with its decoy (None: not applicable),
    by kind; the class's own maker of a kind first, the generic one when it gives none."""
    asset_class = inp.ctx.profile.asset_class
    load_heldout_module(asset_class)
    out: list[tuple[str, dict[str, Any] | None]] = []
    for kind, chain in DECOYS.for_class(asset_class).items():
        answer = None
        for fn in chain:
            answer = await fn(inp)
            if answer is not None:
                break
        out.append((kind, answer))
    return out


def is_inert(seed: TaskSeed, answer: dict[str, Any]) -> bool:
    """True when ``answer`` equals the reference within the seed's tolerances."""
    return not compare(seed.answer, answer, seed.tolerance, rel_tolerance=seed.rel_tolerance)


# standards bodies whose citations carry an edition year ("IEC 60599:2015", "AHRI 550/590-2023")
_CITATION = re.compile(
    r"\b(IEC|IEEE|ISO|ANSI|ASHRAE|AHRI|NEMA|API)([ \w./]*?)([-:])(19|20)(\d\d)\b")


@decoy("wrong_edition")
async def wrong_edition(inp: DecoyInput) -> dict[str, Any] | None:
    """Another year for an edition the answer cites."""
    text = json.dumps(inp.seed.answer)
    swapped = _CITATION.sub(
        lambda m: f"{m[1]}{m[2]}{m[3]}{'1999' if m[4] + m[5] != '1999' else '2015'}", text)
    return json.loads(swapped) if swapped != text else None


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
        return await inp.rederive(moved, params)
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
    return await inp.rederive(calls, dict(_replace_ids(inp.seed.params, old, new)))
