"""IoT task families of the transformer class: reading telemetry and oil samples.

Every answer is computed by :func:`derive` functions from the outputs of `history`,
`oil_samples`, `sites` and `assets`; the draws pick assets, sensors and windows from the
grounded inventory with the draw's local generator.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    LEVEL_SENSORS,
    asset_with_oil,
    asset_with_telemetry,
    draw_window,
    iso_day,
    label,
    oil_call,
    unit,
)
from assets.transformer.family_sensor_faults import sensor_fault_free
from generator.api import (
    END_DAY_INCLUDED,
    END_MIDNIGHT_INCLUDED,
    Ambiguous,
    FamilyContext,
    Plan,
    TaskSeed,
    ToolCall,
    and_join,
    day,
    family,
    history_call,
    num,
    pick,
    unique_argmax,
    values_of,
    window_end_readings,
)

OIL_QUANTITIES: tuple[str, ...] = (
    "hydrogen", "methane", "ethylene", "acetylene", "co", "co2", "water_content",
    "dielectric_rigidity", "interfacial_v", "acidity",
)
# Every `{window}` phrasing of templates.yaml says the end day is excluded (and the action of
# the characteristic form writes [start, end)), so these readings are stated, not gated.
WINDOW_STATED = [END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED]
# A stored reading copied at display precision (one or two decimals) must pass: values run
# from tenths (MVA of a distribution unit) to thousands (amperes), so relative plus absolute.
READING_REL_TOL = 0.001


def _sensor_params(ctx: FamilyContext, sensor: str) -> dict[str, Any]:
    return {"sensor": sensor, "sensor_label": label(ctx, sensor), "unit": unit(ctx, sensor)}


# -- latest reading ----------------------------------------------------------------------


def _latest_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    pairs = values_of(outputs[0]["records"], params["sensor"])
    if not pairs:
        raise Ambiguous("no readings on the last day")
    ts, value = pairs[-1]
    answer: dict[str, Any] = {"timestamp": ts, "value": value}
    if params["with_day_max"]:
        t_max, v_max = unique_argmax(pairs)
        answer |= {"day_max": v_max, "day_max_timestamp": t_max}
    return answer


def latest_outcome(answer: dict[str, Any]) -> str:
    """A plain lookup: "reading" (with the day's peak: "reading_and_peak")."""
    return "reading_and_peak" if "day_max" in answer else "reading"


def _latest_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"latest {params['sensor']} of {params['asset_id']}: {num(answer['value'], 3)} "
        f"{params['unit']} at {answer['timestamp']}"
    )
    if "day_max" in answer:
        text += (
            f"; highest on {params['last_day']}: {num(answer['day_max'], 3)} {params['unit']} "
            f"at {answer['day_max_timestamp']}"
        )
    return text


@family(
    "iot_latest_value",
    domain="iot",
    category="Data Query",
    derive=_latest_derive,
    summarise=_latest_summary,
    outcome=latest_outcome,
)
async def latest_value(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The most recent reading of a telemetry sensor of one asset."""
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    sensor = pick(rng, [s for s in LEVEL_SENSORS if s in a.sensors])
    last_day = iso_day(day(a.telemetry.end or ""))
    hard = bool(rng.random() < 0.3)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, **_sensor_params(ctx, sensor),
        "last_day": last_day, "with_day_max": hard,
    }
    return Plan(
        params=params,
        tool_sequence=[history_call(a, last_day, None, [sensor])],
        mentions=[a.asset_id, a.site_name, sensor] + ([last_day] if hard else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor},
        difficulty="hard" if hard else "easy",
        hard_features=["multi_output"] if hard else [],
        tolerance={"value": 0.001, "day_max": 0.001},
        rel_tolerance={"value": READING_REL_TOL, "day_max": READING_REL_TOL},
    )


# -- window statistic --------------------------------------------------------------------

STAT_WORDS = {"max": "highest", "min": "lowest", "mean": "average"}


def _stat_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    pairs = values_of(outputs[0]["records"], params["sensor"])
    if not pairs:
        raise Ambiguous("no readings in the window")
    stat = params["stat"]
    if stat == "mean":
        return {"value": float(np.mean([v for _, v in pairs])), "count": len(pairs)}
    ts, value = unique_argmax(pairs, 1.0 if stat == "max" else -1.0)
    answer: dict[str, Any] = {"value": value}
    if params["with_time"]:
        answer["timestamp"] = ts
    return answer


def stat_outcome(answer: dict[str, Any]) -> str:
    """"mean" for an average over readings, else "extreme" (a highest or lowest reading)."""
    return "mean" if "count" in answer else "extreme"


def _stat_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{STAT_WORDS[params['stat']]} {params['sensor']} of {params['asset_id']} in "
        f"[{params['start']}, {params['end']}): {num(answer['value'], 3)} {params['unit']}"
    )
    if "timestamp" in answer:
        text += f" at {answer['timestamp']}"
    if "count" in answer:
        text += f" over {answer['count']} hourly readings"
    return text


@family(
    "iot_sensor_stat",
    domain="iot",
    category="Inference Query",
    derive=_stat_derive,
    summarise=_stat_summary,
    outcome=stat_outcome,
)
async def sensor_stat(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The highest, lowest or average reading of a sensor of one asset over a window."""
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    sensor = pick(rng, [s for s in LEVEL_SENSORS if s in a.sensors])
    window = draw_window(a, rng, 1, 14)
    if window is None:
        return None
    start, end = window
    if not await sensor_fault_free(ctx, a, start, end, [sensor]):
        return None  # a stuck indicator's readings are never the answer
    stat = pick(rng, ["max", "min", "mean"])
    with_time = stat != "mean" and bool(rng.random() < 0.4)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, **_sensor_params(ctx, sensor),
        "stat": stat, "stat_word": STAT_WORDS[stat], "start": start, "end": end,
        "with_time": with_time,
    }
    calls = [history_call(a, start, end, [sensor])]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, sensor, start, end],
        grounding={
            "site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
            "start": start, "end": end,
        },
        difficulty="hard" if with_time else ("medium" if stat == "mean" else "easy"),
        hard_features=["multi_output"] if with_time else [],
        tolerance={"value": 0.01},
        rel_tolerance={"value": READING_REL_TOL},
        readings=window_end_readings(calls, "final", end),
        stated=WINDOW_STATED,
    )


# -- which units exceed a threshold ------------------------------------------------------

THRESHOLD_SENSORS: tuple[str, ...] = ("oti", "wti", "load_mva", "il1", "il2", "il3", "inut")


def _threshold_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    threshold, margin = params["threshold"], params["margin"]
    peaks: dict[str, float] = {}
    for out in outputs:
        pairs = values_of(out["records"], params["sensor"])
        if not pairs:
            raise Ambiguous(f"{out['asset_id']} has no readings")
        peak = max(v for _, v in pairs)
        if abs(peak - threshold) <= margin:
            raise Ambiguous(f"{out['asset_id']} peaks within {margin} of the threshold")
        peaks[out["asset_id"]] = peak
    above = sorted(k for k, v in peaks.items() if v > threshold)
    answer: dict[str, Any] = {"assets_above": above}
    if params["with_peaks"]:
        answer["peaks"] = {k: peaks[k] for k in above}
    return answer


def threshold_outcome(answer: dict[str, Any]) -> str:
    """"none_above", "one_above" or "several_above"."""
    n = len(answer["assets_above"])
    return "none_above" if n == 0 else ("one_above" if n == 1 else "several_above")


def _threshold_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"units at {params['site']} whose {params['sensor']} exceeded "
        f"{num(params['threshold'])} {params['unit']} in [{params['start']}, {params['end']}): "
        f"{and_join(answer['assets_above'])}"
    )
    if answer.get("peaks"):
        text += " (peaks " + ", ".join(
            f"{k} {num(v, 2)}" for k, v in answer["peaks"].items()
        ) + ")"
    return text


@family(
    "iot_site_threshold",
    domain="iot",
    category="Inference Query",
    derive=_threshold_derive,
    summarise=_threshold_summary,
    outcome=threshold_outcome,
    trivial=("none_above",),
)
async def site_threshold(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which units of a site had a sensor above a threshold at some hour of a window.

    The threshold lies in a gap between the units' peaks, at least a margin from each peak,
    so the answer set does not hinge on rounding.
    """
    site = pick(rng, ctx.profile.inventory.sites)
    units = [a for a in ctx.assets if a.site_name == site and a.telemetry.start]
    if len(units) < 2:
        return None
    # Not the ambient temperature: the units of a site share it, so no threshold separates
    # them and every such draw was dropped after reading each unit's telemetry.
    sensor = pick(rng, THRESHOLD_SENSORS)
    if any(sensor not in a.sensors for a in units):
        return None
    window = draw_window(units[0], rng, 2, 14)
    if window is None:
        return None
    start, end = window
    for a in units:
        if not await sensor_fault_free(ctx, a, start, end, [sensor]):
            return None
    calls = [history_call(a, start, end, [sensor]) for a in units]
    outs = await ctx.run(calls)
    peaks = sorted(max(v for _, v in values_of(o["records"], sensor)) for o in outs)
    gaps = [(lo, hi) for lo, hi in itertools.pairwise(peaks) if hi - lo >= 2.0]
    if not gaps:
        return None
    lo, hi = pick(rng, gaps)
    mid = (lo + hi) / 2
    margin = max(0.5, 0.01 * abs(mid))
    threshold = float(round(mid))
    if not (lo + margin < threshold < hi - margin):
        threshold = round(mid, 1)
    with_peaks = bool(rng.random() < 0.35)
    params = {
        "site": site, **_sensor_params(ctx, sensor), "start": start, "end": end,
        "threshold": threshold, "threshold_text": num(threshold), "margin": margin,
        "with_peaks": with_peaks,
    }
    constraint = (
        f"count a unit only if some hourly {sensor} reading is strictly above "
        f"{num(threshold)} {params['unit']}"
    )
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[site, sensor, start, end, num(threshold)],
        grounding={"site": site, "sensor": sensor, "start": start, "end": end},
        difficulty="hard",
        hard_features=["constraint", "multi_output"] if with_peaks else ["constraint"],
        constraint=constraint,
        tolerance={"peaks": 0.01},
        rel_tolerance={"peaks": READING_REL_TOL},
        readings=window_end_readings(calls, "final", end),
        stated=WINDOW_STATED,
    )


# -- data coverage ---------------------------------------------------------------------


def _coverage_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    if params["source"] == "telemetry":
        stamps = [str(r["timestamp"]) for r in records if r.get(params["sensor"]) is not None]
    else:
        stamps = [str(r["timestamp"]) for r in records]
    if not stamps:
        raise Ambiguous("no records")
    return {"first": stamps[0], "last": stamps[-1], "count": len(stamps)}


def coverage_outcome(answer: dict[str, Any]) -> str:
    """"one_record", or "spans_days" when the records cover more than one day."""
    return "one_record" if answer["count"] == 1 else "spans_days"


def _coverage_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    what = params["sensor"] if params["source"] == "telemetry" else "oil samples"
    return (
        f"{what} of {params['asset_id']}: {answer['count']} records from {answer['first']} "
        f"to {answer['last']}"
    )


@family(
    "iot_data_coverage",
    domain="iot",
    category="Data Query",
    derive=_coverage_derive,
    summarise=_coverage_summary,
    outcome=coverage_outcome,
)
async def data_coverage(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """First and last timestamp and record count of a sensor's telemetry or of oil samples."""
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    oil = a.covered("oil_sample")
    source = "oil" if oil.start and rng.random() < 0.35 else "telemetry"
    start = iso_day(min(day(a.telemetry.start or ""), day(oil.start or "9999-12-31")))
    if source == "telemetry":
        sensor = pick(rng, [s for s in LEVEL_SENSORS if s in a.sensors])
        # The whole record (every sensor) is one call per asset, shared by all its sensors'
        # coverage questions; a full-range single-sensor query is no cheaper in the store.
        call = history_call(a, start, None, None)
        params = {"asset_id": a.asset_id, "site": a.site_name, "source": source,
                  **_sensor_params(ctx, sensor)}
        mentions = [a.asset_id, a.site_name, sensor]
        grounding = {"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor}
    else:
        call = oil_call(a, start)
        params = {"asset_id": a.asset_id, "site": a.site_name, "source": source}
        mentions = [a.asset_id, a.site_name]
        grounding = {"site": a.site_name, "asset_id": a.asset_id}
    return Plan(
        params=params,
        tool_sequence=[call],
        mentions=mentions,
        grounding=grounding,
        difficulty="medium",
    )


# -- latest oil-sample quantity --------------------------------------------------------


def _oil_latest_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [r for r in outputs[0]["records"] if r.get(params["quantity"]) is not None]
    if not rows:
        raise Ambiguous("no oil sample carries the quantity")
    last = rows[-1]
    answer: dict[str, Any] = {"timestamp": last["timestamp"], "value": last[params["quantity"]]}
    if params["with_change"]:
        if len(rows) < 2:
            raise Ambiguous("one sample only")
        answer["change"] = float(last[params["quantity"]]) - float(rows[-2][params["quantity"]])
        answer["previous_timestamp"] = rows[-2]["timestamp"]
    return answer


def oil_latest_outcome(answer: dict[str, Any]) -> str:
    """"value", or with the change since the previous sample "rising" / "falling" /
    "unchanged"."""
    if "change" not in answer:
        return "value"
    change = float(answer["change"])
    return "rising" if change > 0 else ("falling" if change < 0 else "unchanged")


def _oil_latest_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"latest {params['quantity']} of {params['asset_id']}: {num(answer['value'], 3)} "
        f"{params['unit']} (sample {answer['timestamp']})"
    )
    if "change" in answer:
        text += (
            f", change {num(answer['change'], 3)} {params['unit']} since the sample of "
            f"{answer['previous_timestamp']}"
        )
    return text


@family(
    "iot_oil_latest",
    domain="iot",
    category="Data Query",
    derive=_oil_latest_derive,
    summarise=_oil_latest_summary,
    outcome=oil_latest_outcome,
)
async def oil_latest(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A quantity of the latest oil sample of one asset (and its change since the previous)."""
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    quantity = pick(rng, OIL_QUANTITIES)
    with_change = bool(rng.random() < 0.35)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "quantity": quantity,
        "quantity_label": label(ctx, quantity), "unit": unit(ctx, quantity),
        "with_change": with_change,
    }
    return Plan(
        params=params,
        tool_sequence=[oil_call(a)],
        mentions=[a.asset_id, a.site_name, quantity],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": quantity},
        difficulty="hard" if with_change else "easy",
        hard_features=["multi_output"] if with_change else [],
        tolerance={"value": 0.001, "change": 0.001},
        rel_tolerance={"value": READING_REL_TOL, "change": READING_REL_TOL},
    )


# -- listings ----------------------------------------------------------------------------


def _site_units_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    assets = outputs[0]["assets"]
    answer: dict[str, Any] = {"asset_ids": sorted(x["asset_id"] for x in assets)}
    if params["with_largest"]:
        ratings = [(x["asset_id"], float(x["nameplate"].get("rated_mva") or 0)) for x in assets]
        largest, mva = unique_argmax(ratings)
        answer |= {"largest": largest, "largest_rated_mva": mva}
    return answer


def listing_outcome(answer: dict[str, Any]) -> str:
    """A listing of the inventory: "listing"."""
    return "listing"


def _site_units_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = f"units at {params['site']}: {and_join(answer['asset_ids'])}"
    if "largest" in answer:
        text += f"; largest rating {answer['largest']} ({num(answer['largest_rated_mva'])} MVA)"
    return text


@family(
    "iot_site_units",
    domain="iot",
    category="Knowledge Query",
    derive=_site_units_derive,
    summarise=_site_units_summary,
    outcome=listing_outcome,
)
async def site_units(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The transformers installed at a site (and the one with the highest rating)."""
    site = pick(rng, ctx.profile.inventory.sites)
    with_largest = bool(rng.random() < 0.5)
    return Plan(
        params={"site": site, "with_largest": with_largest},
        tool_sequence=[ToolCall(name="assets", args={"site_name": site})],
        mentions=[site],
        grounding={"site": site},
        difficulty="medium" if with_largest else "easy",
        tolerance={"largest_rated_mva": 0.001},
    )


def _fleet_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sites = outputs[0]["sites"]
    counts = {o["site_name"]: len(o["assets"]) for o in outputs[1:]}
    return {"sites": sites, "units_per_site": {s: counts.get(s, 0) for s in sites}}


def _fleet_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return "sites and unit counts: " + ", ".join(
        f"{s} {n}" for s, n in answer["units_per_site"].items()
    )


@family(
    "iot_fleet_overview",
    domain="iot",
    category="Knowledge Query",
    derive=_fleet_derive,
    summarise=_fleet_summary,
    outcome=listing_outcome,
)
async def fleet_overview(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Every site of the fleet and how many transformers each holds."""
    sites_out = await ctx.run1("sites")
    calls = [ToolCall(name="sites", args={})] + [
        ToolCall(name="assets", args={"site_name": s}) for s in sites_out["sites"]
    ]
    return Plan(params={}, tool_sequence=calls, mentions=[], difficulty="medium")
