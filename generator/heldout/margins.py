"""Boundary margins: an accepted instance's inputs sit clear of every boundary its answer uses.

One check per answer kind, registered by name for every asset class (``*``) or for named
classes (:mod:`generator.heldout.scoped`); each takes the instance's seed and its tool
outputs (the same memoised calls that made the reference) and returns a
:class:`MarginResult`, or ``None`` when the kind does not apply. The boundaries and margins
come from the tool modules, never retyped here. An asset class registers the checks of its
own classifications (standards' bands, code tables) in ``assets/<class>/heldout.py`` with
:func:`margin` (exported by :mod:`generator.api`). Generic checks:

- ``site_threshold``: every unit's peak against the stated threshold, the family's margin;
- ``anomaly_cutoff``: every flagged reading's |z| above the cut-off by 5 % of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.generate.model import TaskSeed
from generator.heldout.plugins import load_heldout_module
from generator.heldout.scoped import GENERIC, ScopedRegistry

CUTOFF_MARGIN = 0.05  # relative, above the anomaly cut-off


class MarginResult(BaseModel):
    """One margin check on one instance."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="Answer kind checked, e.g. 'anomaly_cutoff'")
    ok: bool = Field(description="True when every boundary the answer uses is far enough")
    detail: str = Field(description="Nearest boundary and distance, or what failed")


MarginFn = Callable[[TaskSeed, list[dict[str, Any]]], MarginResult | None]
MARGINS: ScopedRegistry[MarginFn] = ScopedRegistry("margin check")


def margin(name: str, asset_classes: tuple[str, ...] = (GENERIC,)
           ) -> Callable[[MarginFn], MarginFn]:
    """Register a margin check under ``name`` for ``asset_classes`` (default: every class)."""
    return MARGINS.register(name, asset_classes)


def call_output(seed: TaskSeed, outputs: list[dict[str, Any]], tool: str, *,
                answering: tuple[str, ...] = ()
                ) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The arguments and output of the seed's first call of ``tool`` (None: no such call, or
    ``answering`` given and the seed's answer holds none of those keys)."""
    if answering and not set(answering) & set(seed.answer):
        return None
    for call, out in zip(seed.tool_sequence, outputs, strict=False):
        if call.name == tool:
            return dict(call.args), out
    return None


@margin("site_threshold")
def site_threshold(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """Every unit's peak farther than the family's margin from the stated threshold."""
    params = seed.params
    if "threshold" not in params or "assets_above" not in seed.answer:
        return None
    sensor = params.get("sensor")
    peaks = []
    for out in outputs:
        values = [r.get(sensor) for r in out.get("records", []) if r.get(sensor) is not None]
        if values:
            peaks.append(max(float(v) for v in values))
    threshold, need = float(params["threshold"]), float(params.get("margin", 0.0))
    nearest = min((abs(p - threshold) for p in peaks), default=float("inf"))
    return MarginResult(kind="site_threshold", ok=nearest > need,
                        detail=f"nearest peak {nearest:.2f} from the threshold")


@margin("anomaly_cutoff")
def anomaly_cutoff(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """Every flagged reading's |z| at least 5 % above the cut-off."""
    found = call_output(seed, outputs, "run_tsad")
    if found is None:
        return None
    out = found[1]
    cut = float(out["threshold"])
    scores = [abs(float(a["score"])) for a in out.get("anomalies", [])]
    low = min(scores, default=float("inf"))
    return MarginResult(kind="anomaly_cutoff", ok=low >= cut * (1 + CUTOFF_MARGIN),
                        detail=f"{len(scores)} flagged readings, lowest |z| {low:.2f} vs {cut:g}")


def check_margins(seed: TaskSeed, outputs: list[dict[str, Any]], asset_class: str
                  ) -> list[MarginResult]:
    """Every margin check of ``asset_class`` that applies to an instance, by name.

    Imports the class's ``assets.<class>.heldout`` module first (it registers the class's
    checks); of a class's check and a generic one of the same name, the first that applies
    gives the result.
    """
    load_heldout_module(asset_class)
    results = []
    for chain in MARGINS.for_class(asset_class).values():
        for fn in chain:
            result = fn(seed, outputs)
            if result is not None:
                results.append(result)
                break
    return results
