"""Boundary margins: an accepted instance's inputs sit clear of every boundary its answer uses.

One check per answer kind, registered by name; each takes the instance's seed and its tool
outputs (the same memoised calls that made the reference) and returns a
:class:`MarginResult`, or ``None`` when the kind does not apply. The boundaries and margins
come from the tool modules, never retyped here:

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
  answer's own ``health_index`` tolerance (else 1 point);
- ``site_threshold``: every unit's peak against the stated threshold, the family's margin;
- ``anomaly_cutoff``: every flagged reading's |z| above the cut-off by 5 % of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assets.transformer import dga, health_index, loading, winding
from generator.generate.model import TaskSeed
from generator.registry import Registry

BAND_MARGIN_PCT = 1.0  # load-factor points from a loading band's limit
THERMAL_MARGIN_C = 1.0  # °C from a hot-spot limit (ten indicator steps of 0.1 °C)
CUTOFF_MARGIN = 0.05  # relative, above the anomaly cut-off


class MarginResult(BaseModel):
    """One margin check on one instance."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="Answer kind checked, e.g. 'dga_class'")
    ok: bool = Field(description="True when every boundary the answer uses is far enough")
    detail: str = Field(description="Nearest boundary and distance, or what failed")


MarginFn = Callable[[TaskSeed, list[dict[str, Any]]], MarginResult | None]
MARGINS: Registry[MarginFn] = Registry("margin check")


def margin(name: str) -> Callable[[MarginFn], MarginFn]:
    """Register a margin check under ``name``."""

    def deco(fn: MarginFn) -> MarginFn:
        MARGINS.add(name, fn)
        return fn

    return deco


def _call_output(seed: TaskSeed, outputs: list[dict[str, Any]], tool: str
                 ) -> tuple[dict[str, Any], dict[str, Any]] | None:
    for call, out in zip(seed.tool_sequence, outputs, strict=False):
        if call.name == tool:
            return dict(call.args), out
    return None


def _sample(args: dict[str, Any]) -> dga.GasSample:
    fields = dga.GasSample.model_fields
    return dga.GasSample(**{k: v for k, v in args.items() if k in fields})


def _fault_of(answer: dict[str, Any]) -> str | None:
    for key in ("fault_type", "actual_fault_type"):
        if isinstance(answer.get(key), str):
            return str(answer[key])
    return None


@margin("dga_class")
def dga_class(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """IEC ratio and Duval zone margins of a fault class; concentration margin of 'normal'."""
    found = _call_output(seed, outputs, "interpret_dga")
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


@margin("ieee_condition")
def ieee_condition(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """No gas within 5 % of an IEEE C57.104-2008 limit whose crossing changes the condition."""
    found = _call_output(seed, outputs, "interpret_dga")
    if found is None or "ieee_condition" not in seed.answer:
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


@margin("loading_band")
def loading_band(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """The load factor at least BAND_MARGIN_PCT points from every band limit of its class."""
    found = _call_output(seed, outputs, "assess_load_profile")
    if found is None or "loading_status" not in seed.answer:
        return None
    out = found[1]
    pct = float(out["load_factor_pct"])
    limits = [b.upper_pct for b in loading.loading_bands(out["size_class"])]
    nearest = min(abs(pct - lim) for lim in limits)
    return MarginResult(kind="loading_band", ok=nearest >= BAND_MARGIN_PCT,
                        detail=f"load factor {nearest:.2f} points from the nearest band limit")


@margin("thermal_limits")
def thermal_limits(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """Hot spot and top oil at least THERMAL_MARGIN_C from every limit the status uses.

    The status is the more severe of the hot-spot band (the paper's ageing reference, then
    the normal cyclic and emergency limits) and the top-oil band (normal cyclic, emergency).
    """
    found = _call_output(seed, outputs, "assess_winding_temperature")
    if found is None or "thermal_status" not in seed.answer:
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


@margin("health_band")
def health_band(seed: TaskSeed, outputs: list[dict[str, Any]]) -> MarginResult | None:
    """The rule health index clear of every condition band limit."""
    found = _call_output(seed, outputs, "predict_health_index")
    if found is None or not ({"condition", "health_index"} & set(seed.answer)):
        return None
    hi = float(found[1]["health_index"])
    need = float(seed.tolerance.get("health_index", 1.0))
    nearest = min(abs(hi - b) for b, _ in health_index.CONDITION_BANDS)
    return MarginResult(kind="health_band", ok=nearest > need,
                        detail=f"health index {nearest:.2f} points from the nearest band limit")


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
    found = _call_output(seed, outputs, "run_tsad")
    if found is None:
        return None
    out = found[1]
    cut = float(out["threshold"])
    scores = [abs(float(a["score"])) for a in out.get("anomalies", [])]
    low = min(scores, default=float("inf"))
    return MarginResult(kind="anomaly_cutoff", ok=low >= cut * (1 + CUTOFF_MARGIN),
                        detail=f"{len(scores)} flagged readings, lowest |z| {low:.2f} vs {cut:g}")


def check_margins(seed: TaskSeed, outputs: list[dict[str, Any]]) -> list[MarginResult]:
    """Every applicable margin check of an instance, in registry order."""
    results = []
    for name in MARGINS:
        result = MARGINS.get(name)(seed, outputs)
        if result is not None:
            results.append(result)
    return results
