"""The chiller's held-out checks: margins of its verdicts and the mistakes of its standards.

Imported by the held-out gate for a chiller instance (``assets.<class>.heldout`` by
convention); registers into the framework's registries through :mod:`generator.api`. The
boundaries and margins come from the diagnostic and family modules, never retyped here.

Margins:

- ``approach_threshold``: both approach rises at least :data:`families_fmsr.MARGIN_K` from
  the 3 °F threshold (:data:`diagnostics.APPROACH_RISE_K`);
- ``fault_rules``: every value the fault rules compared (condenser and, when judged,
  evaporator approach rise, subcooling shift, superheat rise, supply − setpoint, load
  against the 95 % drift limit) at least that margin from its threshold;
- ``efficiency_band``: the degradation at least :data:`families_fmsr.EFFICIENCY_MARGIN`
  points from each status band edge;
- ``declared_ranges``: every reading of the record a verdict rests on inside the range
  ``asset.yaml`` declares for its sensor (a drifting supply sensor makes tonnage negative and
  kW/ton absurd: such a record is no instance to grade agents on).

Decoys (each a mistake a reader of the standard makes):

- ``rated_kw_per_ton``: degradation against the nameplate's full-load kW/ton instead of the
  design curve at the hour's load and water temperatures;
- ``unscaled_design_approach``: approaches compared with the full-load design approach, not
  scaled to the hour's load (the approach check and the fault diagnosis);
- ``threshold_in_kelvin``: the 3 °F approach threshold read as 3 K;
- ``iplv_arithmetic_mean``: the AHRI weights applied to kW/ton directly (Σ wᵢ·kW/tonᵢ)
  instead of the harmonic form for a lower-is-better figure;
- ``iplv_reversed_points``: the points weighted lowest load first;
- ``kw_per_ton_ratio_of_sums``: a window's mean kW/ton as total kW over total tons;
- ``own_transitions_only``: the next code from the unit's own transitions, no fleet prior;
- ``wrong_unit`` (refines the generic kind): temperature differences in °F, kW/ton as COP,
  ton-hours as kWh, a percentage as a fraction.
"""

from __future__ import annotations

import math
from typing import Any

from assets.chiller import families_fmsr, families_iot, families_lookup
from assets.chiller.diagnostics import (
    APPROACH_RISE_K,
    DRIFT_MAX_LOAD_PCT,
    DRIFT_OFFSET_K,
    IPLV_WEIGHTS,
    SUBCOOLING_SHIFT_K,
    SUPERHEAT_RISE_K,
)
from assets.chiller.performance import KW_PER_TON
from generator.api import (
    DecoyInput,
    MarginResult,
    TaskSeed,
    ToolCall,
    call_output,
    decoy,
    load_asset_class,
    margin,
)

CHILLER = ("chiller",)


# -- margins -----------------------------------------------------------------------------------


def _clear(kind: str, pairs: list[tuple[str, float | None, float]], where: str
           ) -> MarginResult:
    """Every compared (what, value, threshold) at least :data:`families_fmsr.MARGIN_K` from its
    threshold; the detail names the nearest, its distance followed by ``where``."""
    found = [(what, abs(float(v) - t)) for what, v, t in pairs if v is not None]
    what, gap = min(found, key=lambda p: p[1]) if found else ("nothing compared", math.inf)
    return MarginResult(kind=kind, ok=gap >= families_fmsr.MARGIN_K,
                        detail=f"{what} {gap:.2f} {where}")


@margin("approach_threshold", asset_classes=CHILLER)
def approach_threshold(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """Both approach rises clear of the 3 °F threshold."""
    found = call_output(seed, outputs, "compute_approach_temperatures", answering=("status",))
    if found is None:
        return None
    out = found[1]
    return _clear("approach_threshold",
                  [("evaporator approach rise", out["evaporator_approach_rise_k"],
                    APPROACH_RISE_K),
                   ("condenser approach rise", out["condenser_approach_rise_k"],
                    APPROACH_RISE_K)], "K from the 3 °F threshold")


@margin("fault_rules", asset_classes=CHILLER)
def fault_rules(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """Every value the fault rules compared clear of its threshold."""
    found = call_output(seed, outputs, "diagnose_chiller_fault", answering=("findings",))
    if found is None:
        return None
    args, out = found
    pairs: list[tuple[str, float | None, float]] = [
        ("condenser approach rise", out["condenser_approach_rise_k"], APPROACH_RISE_K),
        ("subcooling shift", out["subcooling_shift_k"], SUBCOOLING_SHIFT_K),
        ("subcooling shift", out["subcooling_shift_k"], -SUBCOOLING_SHIFT_K),
        ("superheat rise", out["superheat_rise_k"], SUPERHEAT_RISE_K),
        ("supply − setpoint", out["supply_offset_k"], DRIFT_OFFSET_K),
        ("load", float(args["percent_loaded"]), DRIFT_MAX_LOAD_PCT),
    ]
    if out["evaporator_assessed"]:
        pairs.append(("evaporator approach rise", out["evaporator_approach_rise_k"],
                      APPROACH_RISE_K))
    return _clear("fault_rules", pairs, "from its threshold")


@margin("efficiency_band", asset_classes=CHILLER)
def efficiency_band(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """The degradation clear of every efficiency status edge."""
    found = call_output(seed, outputs, "assess_chiller_efficiency", answering=("degradation_pct",))
    if found is None:
        return None
    d = float(seed.answer["degradation_pct"])
    gap = min(abs(d - e) for e in families_fmsr.EFFICIENCY_EDGES)
    return MarginResult(kind="efficiency_band", ok=gap >= families_fmsr.EFFICIENCY_MARGIN,
                        detail=f"degradation {gap:.2f} points from the nearest band edge")


_RECORD_TOOLS = ("compute_approach_temperatures", "assess_chiller_efficiency",
                 "diagnose_chiller_fault")


@margin("declared_ranges", asset_classes=CHILLER)
def declared_ranges(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """Every reading of the hourly record a verdict rests on inside its declared range."""
    if not any(c.name in _RECORD_TOOLS for c in seed.tool_sequence):
        return None
    history = call_output(seed, outputs, "history")
    if history is None:
        return None
    ranges = {s.name: s.range for s in load_asset_class("chiller").sensors if s.range}
    outside = []
    for record in history[1].get("records", []):
        for name, value in record.items():
            rng = ranges.get(name)
            if rng is None or not isinstance(value, int | float) or isinstance(value, bool):
                continue
            if not rng[0] <= float(value) <= rng[1]:
                outside.append(f"{name} {value} outside [{rng[0]:g}, {rng[1]:g}]")
    return MarginResult(kind="declared_ranges", ok=not outside,
                        detail="; ".join(outside) or "every reading inside its declared range")


# -- decoys ------------------------------------------------------------------------------------


@decoy("rated_kw_per_ton", asset_classes=CHILLER)
async def rated_kw_per_ton(inp: DecoyInput) -> dict[str, Any] | None:
    """Degradation against the nameplate's full-load kW/ton."""
    if inp.seed.family != "chiller_fmsr_efficiency":
        return None
    return await inp.rederive(list(inp.seed.tool_sequence),
                              {**inp.seed.params, "reading": families_fmsr.RATED_KWT})


@decoy("unscaled_design_approach", asset_classes=CHILLER)
async def unscaled_design_approach(inp: DecoyInput) -> dict[str, Any] | None:
    """Approaches against the full-load design approach (not scaled to the hour's load)."""
    calls = list(inp.seed.tool_sequence)
    if inp.seed.family == "chiller_fmsr_approach_check":
        full = [ToolCall(name=c.name, args={**c.args, "percent_loaded": 100.0})
                if c.name == "compute_approach_temperatures" else c for c in calls]
        return await inp.rederive(full, dict(inp.seed.params))
    if not any(c.name == "diagnose_chiller_fault" for c in calls):
        return None
    outputs = await inp.ctx.run(calls)
    moved = []
    for call, out in zip(calls, outputs, strict=True):
        if call.name == "diagnose_chiller_fault":
            pct = float(call.args["percent_loaded"])
            if pct <= 0:
                return None
            # expected = design × pct / 100, so design' = expected × (100 / pct)² makes
            # the tool compare with the unscaled design approach
            k = (100.0 / pct) ** 2
            args = dict(call.args) | {
                "design_evaporator_approach_k":
                    min(30.0, out["expected_evaporator_approach_k"] * k),
                "design_condenser_approach_k":
                    min(30.0, out["expected_condenser_approach_k"] * k),
            }
            call = ToolCall(name=call.name, args=args)
        moved.append(call)
    return await inp.rederive(moved, dict(inp.seed.params))


@decoy("threshold_in_kelvin", asset_classes=CHILLER)
async def threshold_in_kelvin(inp: DecoyInput) -> dict[str, Any] | None:
    """The approach check with the 3 °F threshold read as 3 K."""
    if inp.seed.family != "chiller_fmsr_approach_check":
        return None
    outputs = await inp.ctx.run(list(inp.seed.tool_sequence))
    found = call_output(inp.seed, outputs, "compute_approach_temperatures")
    if found is None:
        return None
    out = found[1]
    evap = float(out["evaporator_approach_rise_k"]) >= 3.0
    cond = float(out["condenser_approach_rise_k"]) >= 3.0
    status = {(False, False): "normal", (True, False): "evaporator_approach_high",
              (False, True): "condenser_approach_high", (True, True): "both_high"}[(evap, cond)]
    return {**inp.seed.answer, "status": status,
            "fouling_suspected": families_fmsr.FOULING_OF[status]}


def _iplv_points(inp: DecoyInput) -> list[float] | None:
    if inp.seed.family != "chiller_fmsr_iplv":
        return None
    return [float(x) for x in inp.seed.params["kw_per_ton"]]


@decoy("iplv_arithmetic_mean", asset_classes=CHILLER)
async def iplv_arithmetic_mean(inp: DecoyInput) -> dict[str, Any] | None:
    """Σ wᵢ·(kW/ton)ᵢ: the COP form applied to a lower-is-better figure."""
    points = _iplv_points(inp)
    if points is None:
        return None
    return {"iplv_kw_per_ton": round(sum(w * x for w, x in zip(IPLV_WEIGHTS, points,
                                                                strict=True)), 4)}


@decoy("iplv_reversed_points", asset_classes=CHILLER)
async def iplv_reversed_points(inp: DecoyInput) -> dict[str, Any] | None:
    """The weights applied with the points read lowest load first."""
    points = _iplv_points(inp)
    if points is None:
        return None
    value = 1.0 / sum(w / x for w, x in zip(IPLV_WEIGHTS, reversed(points), strict=True))
    return {"iplv_kw_per_ton": round(value, 4)}


@decoy("kw_per_ton_ratio_of_sums", asset_classes=CHILLER)
async def kw_per_ton_ratio_of_sums(inp: DecoyInput) -> dict[str, Any] | None:
    """A window's mean kW/ton as Σ kW / Σ tons."""
    p = inp.seed.params
    if inp.seed.family != "chiller_iot_window_stat" or (p.get("sensor"), p.get("stat")) != (
            "kw_per_ton", "mean"):
        return None
    return await inp.rederive(list(inp.seed.tool_sequence),
                              {**p, "reading": families_iot.RATIO_OF_SUMS})


@decoy("own_transitions_only", asset_classes=CHILLER)
async def own_transitions_only(inp: DecoyInput) -> dict[str, Any] | None:
    """The next code from the unit's own transitions alone."""
    if inp.seed.family != "chiller_wo_next_code":
        return None
    return await inp.rederive(list(inp.seed.tool_sequence),
                              {**inp.seed.params, "reading": families_lookup.OWN_ONLY})


def _shift(key: str, value: Any) -> tuple[Any, bool]:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        if isinstance(value, dict):
            out, changed = {}, False
            for k, v in value.items():
                out[k], c = _shift(key, v)
                changed |= c
            return out, changed
        return value, False
    if key.endswith("_k"):
        return round(value * 1.8, 6), True  # a K difference given as °F
    if key.endswith("kw_per_ton") and value > 0:
        return round(KW_PER_TON / value, 6), True  # COP under the kW/ton key
    if key == "ton_hours":
        return round(value * KW_PER_TON, 6), True  # kWh of cooling
    if key.endswith("_pct"):
        return round(value / 100.0, 6), True
    return value, False


@decoy("wrong_unit", asset_classes=CHILLER)
async def wrong_unit(inp: DecoyInput) -> dict[str, Any] | None:
    """The chiller's unit slips: K as °F, kW/ton as COP, ton-hours as kWh, % as a fraction
    (None when the answer has none of them: the generic kind then applies)."""
    out, changed = {}, False
    for k, v in inp.seed.answer.items():
        out[k], c = _shift(k, v)
        changed |= c
    return out if changed else None
