"""The transformer's held-out checks: margins of its classifications and its standards' decoys.

Imported by the held-out gate for a transformer instance (``assets.<class>.heldout`` by
convention); registers into the framework's registries through :mod:`generator.api`. The
boundaries and margins come from the diagnostic modules, never retyped here.

Margins:

- ``dga_class``: IEC 60599 Table 1 ratios (5 % relative, :data:`dga.RATIO_MARGIN`) and Duval
  triangle 1 zones (2 points, :data:`dga.DUVAL_MARGIN`) through the tool's own
  :func:`dga.iec_confidence` / :func:`dga.duval_confidence` (1.0 = every relevant boundary
  at least the margin away); a "normal" verdict through :func:`dga.concentration_confidence`
  (5 % below every IEC typical value and IEEE condition-1 limit);
- ``ieee_condition``: each gas and the TDCG against :data:`dga.IEEE_2008_LIMITS_PPM`, a
  boundary counting when moving the gas across it changes the reported condition;
- ``loading_band``: the load factor against the unit's size-class bands
  (:func:`loading.loading_bands`), :data:`BAND_MARGIN_PCT` points;
- ``thermal_limits``: the hot spot against the size class's hot-spot limits
  (:func:`winding.thermal_limits`) and the paper's ageing reference temperature
  (:data:`winding.REFERENCE_HOT_SPOT_C`), the top oil against the top-oil limits,
  :data:`THERMAL_MARGIN_C` °C;
- ``health_band``: the rule health index against :data:`health_index.CONDITION_BANDS`, the
  answer's own ``health_index`` tolerance (else 1 point).

Decoys:

- ``wrong_edition`` (refines the generic kind): the superseded IEC 599 code table (the
  Rogers / IEC 599 coding of :mod:`assets.transformer.dga`) instead of IEC 60599:2015
  Table 1 for a DGA class;
- ``swapped_ratio_codes``: Table 1 read with C2H2/C2H4 and C2H4/C2H6 swapped;
- ``default_paper``: the untreated Kraft default instead of a thermally upgraded nameplate.
"""

from __future__ import annotations

from typing import Any

from assets.transformer import dga, health_index, loading, winding
from generator.api import (
    DecoyInput,
    MarginResult,
    TaskSeed,
    ToolCall,
    call_output,
    decoy,
    margin,
    tool_accepts,
)

TRANSFORMER = ("transformer",)
BAND_MARGIN_PCT = 1.0  # load-factor points from a loading band's limit
THERMAL_MARGIN_C = 1.0  # °C from a hot-spot limit (ten indicator steps of 0.1 °C)


# -- margins -----------------------------------------------------------------------------------


def _sample(args: dict[str, Any]) -> dga.GasSample:
    fields = dga.GasSample.model_fields
    return dga.GasSample(**{k: v for k, v in args.items() if k in fields})


def _fault_of(answer: dict[str, Any]) -> str | None:
    for key in ("fault_type", "actual_fault_type"):
        if isinstance(answer.get(key), str):
            return str(answer[key])
    return None


@margin("dga_class", asset_classes=TRANSFORMER)
def dga_class(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """IEC ratio and Duval zone margins of a fault class; concentration margin of 'normal'."""
    found = call_output(seed, outputs, "interpret_dga")
    fault = _fault_of(seed.answer)
    if found is None or fault is None:
        return None
    sample = _sample(found[0])
    if fault == "normal":
        conf = dga.concentration_confidence(dga.concentration_screen(sample))
        return MarginResult(kind="dga_class", ok=conf >= 1.0,
                            detail=f"concentration margin score {conf:.2f} (1 = clear)")
    iec = dga.iec_confidence(dga.iec60599_ratios(sample))
    duval = dga.duval_confidence(dga.duval_triangle1(sample))
    return MarginResult(kind="dga_class", ok=min(iec, duval) >= 1.0,
                        detail=f"IEC ratio margin score {iec:.2f}, Duval {duval:.2f} (1 = clear)")


def _ieee(sample: dga.GasSample) -> int:
    return int(dga.concentration_screen(sample).ieee_condition)


@margin("ieee_condition", asset_classes=TRANSFORMER)
def ieee_condition(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """No gas within 5 % of an IEEE C57.104-2008 limit whose crossing changes the condition."""
    found = call_output(seed, outputs, "interpret_dga", answering=("ieee_condition",))
    if found is None:
        return None
    args = found[0]
    sample = _sample(args)
    base = _ieee(sample)
    names = {"H2": "hydrogen", "CH4": "methane", "C2H6": "ethane", "C2H4": "ethylene",
             "C2H2": "acetylene", "CO": "co", "CO2": "co2"}
    for gas, limits in dga.IEEE_2008_LIMITS_PPM.items():
        field = names.get(gas)
        if field is None or not isinstance(args.get(field), int | float):
            continue
        for limit in limits:
            for probe in (limit * (1 - dga.RATIO_MARGIN), limit * (1 + dga.RATIO_MARGIN)):
                value = float(args[field])
                if abs(value - limit) / limit >= dga.RATIO_MARGIN:
                    continue
                if _ieee(_sample({**args, field: probe})) != base:
                    return MarginResult(kind="ieee_condition", ok=False,
                                        detail=f"{gas} within 5 % of its {limit:g} ppm limit")
    return MarginResult(kind="ieee_condition", ok=True, detail="every gas clear of its limits")


@margin("loading_band", asset_classes=TRANSFORMER)
def loading_band(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """The load factor at least BAND_MARGIN_PCT points from every band limit of its class."""
    found = call_output(seed, outputs, "assess_load_profile", answering=("loading_status",))
    if found is None:
        return None
    out = found[1]
    pct = float(out["load_factor_pct"])
    limits = [b.upper_pct for b in loading.loading_bands(out["size_class"])]
    nearest = min(abs(pct - lim) for lim in limits)
    return MarginResult(kind="loading_band", ok=nearest >= BAND_MARGIN_PCT,
                        detail=f"load factor {nearest:.2f} points from the nearest band limit")


@margin("thermal_limits", asset_classes=TRANSFORMER)
def thermal_limits(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """Hot spot and top oil at least THERMAL_MARGIN_C from every limit the status uses.

    The status is the more severe of the hot-spot band (the paper's ageing reference, then
    the normal cyclic and emergency limits) and the top-oil band (normal cyclic, emergency).
    """
    found = call_output(seed, outputs, "assess_winding_temperature", answering=("thermal_status",))
    if found is None:
        return None
    out = found[1]
    lim = winding.thermal_limits(out["size_class"])
    hot_bounds = [winding.REFERENCE_HOT_SPOT_C[out["paper"]], lim.hot_spot_normal_cyclic_c,
                  lim.hot_spot_long_time_emergency_c]
    if lim.hot_spot_short_time_emergency_c is not None:
        hot_bounds.append(lim.hot_spot_short_time_emergency_c)
    oil_bounds = [lim.top_oil_normal_cyclic_c, lim.top_oil_emergency_c]
    hot, oil = float(out["hot_spot_c"]), float(out["top_oil_c"])
    nearest = min([abs(hot - b) for b in hot_bounds] + [abs(oil - b) for b in oil_bounds])
    return MarginResult(kind="thermal_limits", ok=nearest >= THERMAL_MARGIN_C,
                        detail=f"hot spot / top oil {nearest:.1f} °C from the nearest limit")


@margin("health_band", asset_classes=TRANSFORMER)
def health_band(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """The rule health index clear of every condition band limit."""
    found = call_output(seed, outputs, "predict_health_index",
                        answering=("condition", "health_index"))
    if found is None:
        return None
    hi = float(found[1]["health_index"])
    need = float(seed.tolerance.get("health_index", 1.0))
    nearest = min(abs(hi - b) for b, _ in health_index.CONDITION_BANDS)
    return MarginResult(kind="health_band", ok=nearest > need,
                        detail=f"health index {nearest:.2f} points from the nearest band limit")


# -- decoys ------------------------------------------------------------------------------------


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


@decoy("wrong_edition", asset_classes=TRANSFORMER)
async def wrong_edition(inp: DecoyInput) -> dict[str, Any] | None:
    """The superseded IEC 599 code table's class for a DGA answer (other answers: the generic
    kind swaps a cited edition's year)."""
    answer = inp.seed.answer
    r = _ratios(inp.seed)
    if r is not None and answer["fault_type"] not in ("normal",):
        old = dga.classify_rogers(dga.rogers_codes(r))
        return {**answer, "fault_type": dga.ROGERS_TO_IEC.get(old, "ND")}
    return None


@decoy("swapped_ratio_codes", asset_classes=TRANSFORMER)
async def swapped_ratio_codes(inp: DecoyInput) -> dict[str, Any] | None:
    """Table 1 read with the first and third ratio exchanged."""
    r = _ratios(inp.seed)
    if r is None or inp.seed.answer["fault_type"] == "normal":
        return None
    a, b, c = r.values()
    return {**inp.seed.answer, "fault_type": dga._iec_class(c, b, a)}


@decoy("default_paper", asset_classes=TRANSFORMER)
async def default_paper(inp: DecoyInput) -> dict[str, Any] | None:
    """The answer with the untreated Kraft default where the unit has upgraded paper."""
    calls = inp.seed.tool_sequence
    takes = {c.name for c in calls if tool_accepts(c.name, "paper", "transformer")}
    if not any(c.name in takes and c.args.get("paper") != "kraft" for c in calls):
        return None
    moved = [ToolCall(name=c.name, args={**c.args, "paper": "kraft"}) if c.name in takes else c
             for c in calls]
    return await inp.rederive(moved, {**inp.seed.params, "paper": "kraft"}
                              if "paper" in inp.seed.params else dict(inp.seed.params))
