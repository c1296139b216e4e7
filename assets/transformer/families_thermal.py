"""Thermal task families of the transformer class: hot spot, insulation ageing, overload limits.

Standards and formulas (``/work/shared/domain/transformer-standards.md`` §2-3):

* IEC 60076-7:2018 clause 7 steady state: Δθo = Δθor·[(1 + R·K²)/(1 + R)]^x, Δθh = H·gr·K^y,
  θh = θa + Δθo + Δθh; clause 8.2 dynamic model for a load series (``compute_loss_of_life``)
  and an overload step (``assess_emergency_loading``); commonly tabulated characteristics
  (Table 4) and loading limits per size class and regime (not checked against a primary copy).
* IEC 60076-7 clause 6.3 relative ageing: non-thermally-upgraded (Kraft) paper
  V = 2^((θh − 98)/6); thermally upgraded paper V = exp(15000/383 − 15000/(θh + 273)).
  Loss of life L = Σ V·Δt. The nameplate's paper decides the formula. Over a modelled
  episode the rate is integrated over the model's own steps (the annex's difference equations
  in 1-minute steps, ``compute_loss_of_life``), not taken at each hour's end for the whole
  hour; the texts say so (:data:`METHOD_NOTES`).
* IEEE C57.91-2011 clause 7: F_AA = exp(15000/383 − 15000/(θH + 273)) (thermally upgraded
  paper, 110 °C reference), F_EQA = Σ F_AA·Δt / Σ Δt; F_EQA > 1 means faster than normal.

Families:

* ``fmsr_overload_ageing``: the stretch of consecutive hours above the nameplate rating that
  holds a day's peak load → hot spot modelled from hourly load and ambient (each held for its
  hour) → loss of life integrated minute by minute and ageing factor with the nameplate's
  paper;
* ``ma_ageing_window``: IEEE equivalent ageing over a day or a week from the winding
  temperature indicator (a thermal image of the hot spot) of a unit with upgraded paper;
* ``fmsr_emergency_loading``: can a unit carry K pu for D hours at θa, coming off a stated
  pre-load, under a stated loading regime (``assess_emergency_loading``);
* ``fmsr_sustained_overload``: where the top oil and hot spot settle at a constant overload
  and how fast the paper ages there (``compute_hot_spot``);
* ``ma_overload_ageing_workorder``: the overload episode's ageing → was corrective work
  reported since it began, else raise an inspection.

Interpretation gate: the Kraft default instead of the nameplate's upgraded paper (stated in
the text whenever it changes the answer); the measured winding indicator instead of the
modelled hot spot and a model warmed from midnight instead of one settled at the episode's
first hour (the text pins both); the window's end day (pinned by the window phrase); the
other loading regimes and the large-power limits (the regime is always named; the size
class is stated when it changes the verdict).
"""

from __future__ import annotations

import math
import zlib
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    assets_call,
    full_days,
    iso_day,
    nameplate_of,
)
from assets.transformer.families_fmsr import PAPER_TEXT, SIZE_TEXT, daily_peaks, size_class_of
from assets.transformer.family_sensor_faults import sensor_fault_free
from assets.transformer.size_class import LOADING_LIMITS
from generator.api import (
    END_DAY_INCLUDED,
    END_MIDNIGHT_INCLUDED,
    Ambiguous,
    FamilyContext,
    GroundedAsset,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    and_join,
    family,
    history_call,
    num,
    pick,
    window_end_readings,
)

KRAFT_DEFAULT = "paper_kraft_default"
KRAFT_DESCRIPTION = (
    "ages the paper with the untreated Kraft formula (V = 1 at 98 °C) instead of the "
    "nameplate's thermally upgraded paper"
)
MEASURED_WTI = "measured_winding_indicator"
WARM_START = "model_warmed_from_midnight"
UPGRADED_NOTE = "Its nameplate lists thermally upgraded paper."
# How the overload-episode texts pin the hot-spot model and the loss-of-life integration
# (one is picked per draw): each hourly reading's load and ambient held for its hour, and the
# ageing rate integrated over the model's 1-minute steps, not taken once per hour.
METHOD_NOTES: tuple[str, ...] = (
    "Model the hot spot from the hourly load and ambient, settled at the first hour's load and "
    "each reading held for its hour; integrate the ageing rate minute by minute with the "
    "IEC 60076-7 difference equations.",
    "Use the thermal model on hourly load and ambient, starting steady at the first hour's "
    "load, each reading held for an hour, and add up the ageing in the model's 1-minute steps "
    "(IEC 60076-7 difference equations).",
    "Work the hot spot out from load and ambient rather than the winding gauge, starting "
    "settled at the first hour's load with each reading held for its hour; count the ageing "
    "over 1-minute steps of the IEC 60076-7 difference equations, not once per hour.",
    "Compute the hot spot from the load and ambient of those hours alone, as if settled at "
    "the first hour's load, each reading held for one hour, and integrate the ageing rate over "
    "the IEC 60076-7 difference equations in 1-minute steps.",
)
# An ageing factor this close to 1 decides "faster than normal" on rounding: dropped.
NORMAL_MARGIN = 0.03
EPISODE_SENSORS = ["load_mva", "ati", "wti"]


def kraft_v(theta: float) -> float:
    """IEC 60076-7 relative ageing of Kraft paper, V = 2^((θh − 98)/6)."""
    return float(2.0 ** ((theta - 98.0) / 6.0))


def upgraded_v(theta: float) -> float:
    """Relative ageing of thermally upgraded paper (= IEEE F_AA), reference 110 °C."""
    return float(math.exp(15000.0 / 383.0 - 15000.0 / (theta + 273.0)))


def ageing_v(theta: float, paper: str) -> float:
    """Relative ageing rate of ``paper`` ("kraft" or "upgraded") at hot spot ``theta``."""
    return kraft_v(theta) if paper == "kraft" else upgraded_v(theta)


def _hour(ts: str) -> datetime:
    return datetime.fromisoformat(str(ts)[:19])


def overload_runs(
    records: list[dict[str, Any]], rated_mva: float
) -> list[list[dict[str, Any]]]:
    """Runs of hourly records (consecutive timestamps one hour apart) with load above rating."""
    runs: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    for r in records:
        load = r.get("load_mva")
        above = load is not None and float(load) > rated_mva
        adjacent = bool(current) and _hour(r["timestamp"]) - _hour(
            current[-1]["timestamp"]) == timedelta(hours=1)
        if above and (adjacent or not current):
            current.append(r)
            continue
        if current:
            runs.append(current)
        current = [r] if above else []
    if current:
        runs.append(current)
    return runs


def peak_run(records: list[dict[str, Any]], rated_mva: float) -> list[dict[str, Any]]:
    """The overload run that holds the day's highest load (the episode a text asks about).

    Raises:
        Ambiguous: No hour above rating, or the highest load occurs in two runs.
    """
    runs = overload_runs(records, rated_mva)
    if not runs:
        raise Ambiguous("no hour above rating")
    top = max(float(r["load_mva"]) for run in runs for r in run)
    holding = [run for run in runs if any(float(r["load_mva"]) == top for r in run)]
    if len(holding) > 1:
        raise Ambiguous(f"the peak load occurs in {len(holding)} runs")
    return holding[0]


# -- loss of life over an overload episode ---------------------------------------------------


def _episode_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    plates, hist, lol = outputs[:3]
    rated = nameplate_of(plates, params["asset_id"]).get("rated_mva")
    if rated is None:
        raise Ambiguous("no rating on the nameplate")
    run = peak_run(hist["records"], float(rated))
    if len(run) < 2:
        raise Ambiguous("a single hour above rating is no episode")
    n = len(run)
    answer: dict[str, Any] = {
        "start": str(run[0]["timestamp"]), "end": str(run[-1]["timestamp"]), "hours": n,
    }
    source = params.get("hot_spot_source", "model")
    if source == "wti":  # the measured winding indicator as the hot spot
        hot = [float(r["wti"]) for r in run if r.get("wti") is not None]
        if len(hot) != n:
            raise Ambiguous("winding readings missing in the episode")
        # hourly readings only: each reading's rate counts for its hour
        loss = sum(ageing_v(t, str(lol["paper"])) for t in hot)
    else:
        # the model's hot spot at each hour's end; the loss integrated over its 1-min steps
        hot = [float(v) for v in lol["hot_spot_c"]]
        steps = [float(v) for v in lol["step_loss_of_life_hours"]]
        if params.get("warm_start"):
            hot, steps = hot[-n:], steps[-n:]
        elif abs(float(lol["period_hours"]) - n) > 1e-9:
            raise Ambiguous("the modelled period is not the episode")
        loss = sum(steps)
    factor = loss / n
    if abs(factor - 1.0) < NORMAL_MARGIN:
        raise Ambiguous(f"ageing factor {factor:.3f} is too close to 1")
    peak = max(hot)
    return answer | {
        "peak_hot_spot_c": peak,
        "loss_of_life_hours": loss,
        "ageing_factor": factor,
        "faster_than_normal": factor > 1.0,
    }


def ageing_outcome(answer: dict[str, Any]) -> str:
    """accelerated (ageing factor above 1) or normal."""
    return "accelerated" if answer["faster_than_normal"] else "normal"


def _episode_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} above rating on {params['day']} from {answer['start']} to "
        f"{answer['end']} ({answer['hours']} h, {PAPER_TEXT[params['paper']]}): modelled peak "
        f"hot spot {num(answer['peak_hot_spot_c'], 1)} °C, loss of life "
        f"{num(answer['loss_of_life_hours'], 2)} h, ageing factor "
        f"{num(answer['ageing_factor'], 2)} ("
        + ("faster" if answer["faster_than_normal"] else "slower") + " than normal)"
    )


async def overload_days(ctx: FamilyContext, a: GroundedAsset, rated: float) -> list[str]:
    """Whole days of the unit's telemetry whose peak load is above its rating."""
    return sorted(d for d, peak in await daily_peaks(ctx, a, "load_mva") if peak > rated)


async def episode_plan(
    ctx: FamilyContext, a: GroundedAsset, day_: str
) -> tuple[dict[str, Any], list[ToolCall], list[Reading], list[str]] | None:
    """(params, calls, readings, stated) of the overload-episode question on ``day_``."""
    plates = assets_call(a.site_name)
    plate = nameplate_of((await ctx.run([plates]))[0], a.asset_id)
    rated, paper = plate.get("rated_mva"), plate.get("paper")
    if rated is None or paper not in ("kraft", "upgraded"):
        return None
    d = date.fromisoformat(day_)
    hist = history_call(a, day_, iso_day(d + timedelta(days=1)), EPISODE_SENSORS)
    records = (await ctx.run([hist]))[0]["records"]
    try:
        run = peak_run(records, float(rated))
    except Ambiguous:
        return None
    if len(run) < 2 or any(r.get("ati") is None for r in run):
        return None
    rated_f = float(rated)

    def lol_call(rows: list[dict[str, Any]], paper_: str) -> ToolCall:
        return ToolCall(name="compute_loss_of_life", args={
            "asset_name": a.asset_id,
            "load_factors": [round(float(r["load_mva"] or 0.0) / rated_f, 4) for r in rows],
            "ambient_c": [float(r["ati"]) for r in rows],
            "step_minutes": 60.0,
            "paper": paper_,
        })

    calls = [plates, hist, lol_call(run, paper)]
    first = records.index(run[0])
    before = records[: first + len(run)]
    readings = [Reading(MEASURED_WTI, "takes the winding temperature indicator readings as "
                        "the hot spot instead of modelling it from load and ambient",
                        params={"hot_spot_source": "wti"})]
    if first > 0 and all(r.get("ati") is not None and r.get("load_mva") is not None
                         for r in before):
        readings.append(Reading(
            WARM_START, "runs the thermal model from the day's midnight instead of settling it "
            "at the episode's first hour", tool_sequence=[plates, hist, lol_call(before, paper)],
            params={"warm_start": True},
        ))
    stated = [r.name for r in readings]
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "day": day_, "paper": paper,
        # one phrasing per (unit, day): a repeated draw is the same task, caught as a duplicate
        "note": METHOD_NOTES[zlib.crc32(f"{a.asset_id}/{day_}".encode()) % len(METHOD_NOTES)],
    }
    if paper != "kraft":
        readings.append(Reading(KRAFT_DEFAULT, KRAFT_DESCRIPTION,
                                tool_sequence=[plates, hist, lol_call(run, "kraft")]))
        stated.append(KRAFT_DEFAULT)
        params["note"] += " " + UPGRADED_NOTE
    return params, calls, readings, stated


async def pick_overload_day(
    ctx: FamilyContext, rng: np.random.Generator
) -> tuple[GroundedAsset, str] | None:
    """A (unit, day) pair, uniformly among every whole day of every unit whose peak load is
    above the unit's rating (the list is kept per run beside the memoised calls)."""
    pairs: list[tuple[str, str]] | None = ctx.derived.get("thermal_overload_days")
    if pairs is None:
        pairs = []
        for a in ctx.assets:
            if not a.telemetry.start or any(s not in a.sensors for s in EPISODE_SENSORS):
                continue
            plate = nameplate_of((await ctx.run([assets_call(a.site_name)]))[0], a.asset_id)
            if plate.get("rated_mva") is None:
                continue
            first, last = full_days(a)
            pairs += [(a.asset_id, d)
                      for d in await overload_days(ctx, a, float(plate["rated_mva"]))
                      if first <= date.fromisoformat(d) < last]
        ctx.derived["thermal_overload_days"] = pairs
    if not pairs:
        return None
    asset_id, day_ = pick(rng, pairs)
    return ctx.asset(asset_id), day_


@family(
    "fmsr_overload_ageing",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_episode_derive,
    summarise=_episode_summary,
    outcome=ageing_outcome,
    trivial=("normal",),
)
async def overload_ageing(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Loss of life and ageing factor over the stretch of hours above rating around a day's
    peak load.

    The hot spot is modelled from the hourly load and ambient (IEC 60076-7 dynamic model,
    settled at the first hour's load, each reading held for its hour) and the ageing rate is
    integrated over the model's 1-minute steps; the nameplate's paper picks the ageing
    formula. Gated: the measured winding indicator, a model warmed from midnight (both
    pinned by the text) and the Kraft default (stated for upgraded paper).
    """
    found = await pick_overload_day(ctx, rng)
    if found is None:
        return None
    a, day_ = found
    planned = await episode_plan(ctx, a, day_)
    if planned is None:
        return None
    params, calls, readings, stated = planned
    note = params.get("note")
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, day_] + ([note] if note else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": day_},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"peak_hot_spot_c": 0.5},
        rel_tolerance={"loss_of_life_hours": 0.02, "ageing_factor": 0.02},
        readings=readings,
        stated=stated,
    )


# -- overload episode → corrective work since it began ---------------------------------------


def _episode_wo_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    answer = _episode_derive(params, outputs[:3])
    orders = sorted(
        (o for o in outputs[3]["work_orders"] if str(o["reported_date"]) >= answer["start"]),
        key=lambda o: (str(o["reported_date"]), str(o["wo_id"])),
    )
    ids = [str(o["wo_id"]) for o in orders]
    if not answer["faster_than_normal"]:
        decision = "no work needed"
    else:
        decision = "already raised" if ids else "raise an inspection work order"
    return answer | {"work_orders": ids, "decision": decision}


def episode_wo_outcome(answer: dict[str, Any]) -> str:
    """none (normal ageing), raised (corrective work on record) or raise."""
    if not answer["faster_than_normal"]:
        return "none"
    return "raised" if answer["work_orders"] else "raise"


def _episode_wo_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        _episode_summary(params, answer)
        + f"; corrective work since the episode began: {and_join(answer['work_orders'])}; "
        f"decision: {answer['decision']}"
    )


@family(
    "ma_overload_ageing_workorder",
    domain="multiagent",
    category="Decision Support",
    derive=_episode_wo_derive,
    summarise=_episode_wo_summary,
    compose_from=("fmsr_overload_ageing",),
    outcome=episode_wo_outcome,
    trivial=("none",),
)
async def overload_ageing_workorder(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Overload episode → loss of life → corrective work reported since it began, else raise
    an inspection (when the paper aged faster than normal). Gated like the parent."""
    if not parents:
        return None
    p = parents[0].params
    a = ctx.asset(p["asset_id"])
    planned = await episode_plan(ctx, a, p["day"])
    if planned is None:
        return None
    params, calls, readings, stated = planned
    wo = ToolCall(name="get_corrective_work_orders",
                  args={"equipment_id": a.asset_id, "start_date": p["day"]})
    readings = [
        Reading(r.name, r.description,
                tool_sequence=None if r.tool_sequence is None else [*r.tool_sequence, wo],
                params=r.params)
        for r in readings
    ]
    note = params.get("note")
    return Plan(
        params=params,
        tool_sequence=[*calls, wo],
        mentions=[a.asset_id, a.site_name, p["day"]] + ([note] if note else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": p["day"]},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"peak_hot_spot_c": 0.5},
        rel_tolerance={"loss_of_life_hours": 0.02, "ageing_factor": 0.02},
        readings=readings,
        stated=stated,
    )


# -- equivalent ageing over a day or a week (winding indicator) -------------------------------


def _window_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    hist, eqa = outputs[1], outputs[2]
    temps = [float(r["wti"]) for r in hist["records"] if r.get("wti") is not None]
    if len(temps) != len(hist["records"]) or not temps:
        raise Ambiguous("winding readings missing")
    if params.get("paper") == "kraft":  # the Kraft reader: mean IEC V over the readings
        factor = sum(kraft_v(t) for t in temps) / len(temps)
        hours = factor * len(temps)
    else:
        if abs(float(eqa["period_hours"]) - len(temps)) > 1e-9:
            raise Ambiguous("the ageing window is not the asked window")
        factor, hours = float(eqa["f_eqa"]), float(eqa["equivalent_ageing_hours"])
    if abs(factor - 1.0) < NORMAL_MARGIN:
        raise Ambiguous(f"ageing factor {factor:.3f} is too close to 1")
    return {
        "f_eqa": factor,
        "equivalent_ageing_hours": hours,
        "faster_than_normal": factor > 1.0,
        "peak_winding_c": max(temps),
    }


def _window_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} over [{params['start']}, {params['end']}) from the winding "
        f"indicator: F_EQA {answer['f_eqa']:.3g}, equivalent ageing "
        f"{answer['equivalent_ageing_hours']:.3g} h, peak {num(answer['peak_winding_c'], 1)}"
        " °C; " + ("faster" if answer["faster_than_normal"] else "slower") + " than normal"
    )


def window_outcome(answer: dict[str, Any]) -> str:
    """faster (F_EQA above 1) or normal."""
    return "faster" if answer["faster_than_normal"] else "normal"


@family(
    "ma_ageing_window",
    domain="multiagent",
    category="Diagnostic Assessment",
    derive=_window_derive,
    summarise=_window_summary,
    compose_from=("iot_sensor_stat",),
    outcome=window_outcome,
    trivial=("normal",),
)
async def ageing_window(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """IEEE C57.91 equivalent ageing over a day or a week of a unit with upgraded paper, from
    its hourly winding temperature indicator; did it age faster than normal (F_EQA > 1)?

    The parent (a window statistic) gives the unit; the window is drawn here, 60 % of the
    time around a day with load above rating (else one of the unit's hottest days). Gated:
    the Kraft formula instead of the nameplate's upgraded paper (stated) and the window's end
    (pinned by the window phrase).
    """
    if not parents:
        return None
    a = ctx.asset(parents[0].params["asset_id"])
    if "wti" not in a.sensors:
        return None
    plates = assets_call(a.site_name)
    plate = nameplate_of((await ctx.run([plates]))[0], a.asset_id)
    if plate.get("paper") != "upgraded":
        return None
    first, last = full_days(a)
    week = bool(rng.random() < 0.5)
    length = 7 if week else 1
    if (last - first).days < length:
        return None
    rated = plate.get("rated_mva")
    hot_days = await overload_days(ctx, a, float(rated)) if rated is not None else []
    peaks = [d for d, _ in (await daily_peaks(ctx, a, "wti"))[:5]]
    choices = hot_days or peaks
    if choices and rng.random() < 0.6:
        anchor = date.fromisoformat(pick(rng, choices))
        start_d = anchor - timedelta(days=int(rng.integers(0, length)))
    else:
        start_d = first + timedelta(days=int(rng.integers(0, (last - first).days - length + 1)))
    start_d = min(max(start_d, first), last - timedelta(days=length))
    start, end = iso_day(start_d), iso_day(start_d + timedelta(days=length))
    if not await sensor_fault_free(ctx, a, start, end, ["wti"]):
        return None  # no ageing from a stuck winding indicator
    hist = history_call(a, start, end, ["wti"])
    records = (await ctx.run([hist]))[0]["records"]
    temps = [r.get("wti") for r in records]
    if len(temps) != 24 * length or any(t is None for t in temps):
        return None
    eqa = ToolCall(name="compute_equivalent_ageing", args={
        "asset_name": a.asset_id, "hot_spot_c": [float(t) for t in temps if t is not None],
        "step_minutes": 60.0,
    })
    calls = [plates, hist, eqa]
    readings = [Reading(KRAFT_DEFAULT, KRAFT_DESCRIPTION, params={"paper": "kraft"})]
    stated = [KRAFT_DEFAULT]
    if week:
        readings += window_end_readings(calls, "final", end)
        stated += [END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED]
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end,
        "week": week, "day": start, "note": UPGRADED_NOTE,
    }
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, start] + ([end] if week else []) + [UPGRADED_NOTE],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": start,
                   "sensor": "wti"} | ({"end": end} if week else {}),
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"peak_winding_c": 0.05},
        rel_tolerance={"f_eqa": 0.02, "equivalent_ageing_hours": 0.02},
        readings=readings,
        stated=stated,
    )


# -- emergency loading what-if ----------------------------------------------------------------

REGIME_TEXT = {
    "normal_cyclic": "normal cyclic loading",
    "long_time_emergency": "a long-time emergency",
    "short_time_emergency": "a short-time emergency",
}
# Durations that fit each regime (IEC 60076-7: short-time emergencies last under about half an
# hour; long-time emergencies run until a new steady state, hours to days).
DURATIONS = {
    "normal_cyclic": (2.0, 3.0, 4.0, 6.0),
    "long_time_emergency": (4.0, 6.0, 8.0, 12.0, 24.0),
    "short_time_emergency": (0.25, 0.5),
}
QUANTITY_TEXT = {"current": "current", "hot_spot": "hot-spot temperature",
                 "top_oil": "top-oil temperature"}


def duration_text(hours: float) -> str:
    """'30 minutes', '1 hour', '4 hours'."""
    if hours < 1:
        return f"{round(hours * 60)} minutes"
    return "1 hour" if hours == 1 else f"{num(hours)} hours"


def _loading_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[-1]
    exceeded = [c["quantity"] for c in out["checks"] if not c["within"]]
    return {
        "can_carry": bool(out["within_limits"]),
        "limiting_quantity": out["limiting_quantity"],
        "exceeded": exceeded,
        "peak_hot_spot_c": float(out["peak_hot_spot_c"]),
        "peak_top_oil_c": float(out["peak_top_oil_c"]),
    }


def _loading_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    verdict = "yes" if answer["can_carry"] else "no"
    over = f", exceeds {and_join(answer['exceeded'])}" if answer["exceeded"] else ""
    return (
        f"can {params['asset_id']} carry {params['load_pct']} % for "
        f"{duration_text(params['hours'])} at {params['ambient']} °C from {params['pre_pct']} % "
        f"({params['regime']} limits): {verdict}{over}; limiting {answer['limiting_quantity']}; "
        f"peak hot spot {num(answer['peak_hot_spot_c'], 1)} °C, peak top oil "
        f"{num(answer['peak_top_oil_c'], 1)} °C"
    )


def emergency_note(size: str, rated: float, regime: str, size_stated: bool) -> str | None:
    """What an emergency-loading text states beyond the question: the size class when it
    changes the answer, and for a distribution unit in a short-time emergency the top-oil
    limit the table leaves blank ("2.0 / – / –"), which the tool takes as the emergency
    top-oil limit (:mod:`assets.transformer.size_class`)."""
    parts = [f"It is {SIZE_TEXT[size]} ({num(rated, 1)} MVA)."] if size_stated else []
    if size == "distribution" and regime == "short_time_emergency":
        limit = LOADING_LIMITS["distribution"].top_oil_emergency_c
        parts.append(f"Hold its top oil to the {num(limit)} °C emergency limit.")
    return " ".join(parts) or None


async def _stable_verdict(ctx: FamilyContext, args: dict[str, Any]) -> bool:
    """True when ±1 K of ambient changes neither the verdict nor the limiting quantity."""
    base = await ctx.run1("assess_emergency_loading", **args)
    for dt in (-1.0, 1.0):
        out = await ctx.run1("assess_emergency_loading", **(args | {
            "ambient_c": args["ambient_c"] + dt}))
        if (out["within_limits"], out["limiting_quantity"]) != (
            base["within_limits"], base["limiting_quantity"]
        ):
            return False
    return True


@family(
    "fmsr_emergency_loading",
    domain="fmsr",
    category="Inference Query",
    derive=_loading_derive,
    summarise=_loading_summary,
    outcome=lambda answer: "fits" if answer["can_carry"] else "exceeds",
    trivial=("fits",),
)
async def emergency_loading(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Can a unit carry an overload for some hours at an ambient, coming off a stated
    pre-load, within the limits of a named IEC 60076-7 loading regime?

    The verdict must hold for ±1 K of ambient. Gated: the other two regimes (the text always
    names the regime) and the large-power limits for a smaller unit (the size class is stated
    when it changes the answer).
    """
    if not ctx.assets:
        return None
    a = pick(rng, ctx.assets)
    plates = assets_call(a.site_name)
    rated = nameplate_of((await ctx.run([plates]))[0], a.asset_id).get("rated_mva")
    if rated is None:
        return None
    regime = pick(rng, sorted(REGIME_TEXT))
    hours = float(pick(rng, DURATIONS[regime]))
    load_pct = int(pick(rng, range(105, 155, 5)))
    ambient = int(pick(rng, (20, 25, 30, 35, 40)))
    pre_pct = int(pick(rng, (60, 70, 80, 90, 100)))
    args: dict[str, Any] = {
        "asset_name": a.asset_id, "load_factor": load_pct / 100.0, "duration_hours": hours,
        "ambient_c": float(ambient), "pre_load_factor": pre_pct / 100.0, "regime": regime,
    }
    if not await _stable_verdict(ctx, args):
        return None
    call = ToolCall(name="assess_emergency_loading", args=args)
    base = _loading_derive({}, [await ctx.run1("assess_emergency_loading", **args)])
    readings = [
        Reading(f"regime_{other}", f"applies the {REGIME_TEXT[other]} limits instead",
                tool_sequence=[plates, ToolCall(name=call.name,
                                                args=args | {"regime": other})])
        for other in sorted(REGIME_TEXT) if other != regime
    ]
    stated = [r.name for r in readings]
    size = size_class_of(float(rated))
    size_stated = False
    if size != "large":
        alt = args | {"size_class": "large"}
        readings.append(Reading(
            "size_class_large",
            "applies the large-power-transformer loading limits (IEC 60076-7) to the unit",
            tool_sequence=[plates, ToolCall(name=call.name, args=alt)],
        ))
        other = _loading_derive({}, [await ctx.run1("assess_emergency_loading", **alt)])
        if (other["can_carry"], other["limiting_quantity"]) != (
            base["can_carry"], base["limiting_quantity"]
        ):
            size_stated = True
            stated.append("size_class_large")
    note = emergency_note(size, float(rated), regime, size_stated)
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "regime": regime,
        "regime_text": REGIME_TEXT[regime], "hours": hours, "duration": duration_text(hours),
        "load_pct": load_pct, "ambient": ambient, "pre_pct": pre_pct,
    } | ({"note": note} if note else {})
    return Plan(
        params=params,
        tool_sequence=[plates, call],
        mentions=[a.asset_id, a.site_name, str(load_pct), str(ambient), str(pre_pct)]
        + ([note] if note else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id},
        difficulty="hard",
        hard_features=["multi_output"],
        closed_form=True,
        tolerance={"peak_hot_spot_c": 0.5, "peak_top_oil_c": 0.5},
        readings=readings,
        stated=stated,
    )


# -- steady state at a sustained overload -----------------------------------------------------


def _sustained_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[-1]
    rate = float(out["relative_ageing_rate"])
    if abs(rate - 1.0) < NORMAL_MARGIN:
        raise Ambiguous(f"ageing rate {rate:.3f} is too close to 1")
    return {
        "top_oil_c": float(out["top_oil_c"]),
        "hot_spot_c": float(out["hot_spot_c"]),
        "relative_ageing_rate": rate,
        "faster_than_normal": rate > 1.0,
    }


def _sustained_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} held at {params['load_pct']} % and {params['ambient']} °C "
        f"({PAPER_TEXT[params['paper']]}): top oil {num(answer['top_oil_c'], 1)} °C, hot spot "
        f"{num(answer['hot_spot_c'], 1)} °C, relative ageing rate "
        f"{num(answer['relative_ageing_rate'], 3)} ("
        + ("faster" if answer["faster_than_normal"] else "slower") + " than normal)"
    )


@family(
    "fmsr_sustained_overload",
    domain="fmsr",
    category="Prediction",
    derive=_sustained_derive,
    summarise=_sustained_summary,
    outcome=lambda answer: "accelerated" if answer["faster_than_normal"] else "normal",
    trivial=("normal",),
)
async def sustained_overload(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Steady-state top oil and hot spot of a unit held at a load and ambient, and the ageing
    rate of its nameplate paper there (IEC 60076-7 clause 7 and 6.3).

    Gated: the Kraft default for upgraded paper (stated).
    """
    if not ctx.assets:
        return None
    a = pick(rng, ctx.assets)
    plates = assets_call(a.site_name)
    paper = nameplate_of((await ctx.run([plates]))[0], a.asset_id).get("paper")
    if paper not in ("kraft", "upgraded"):
        return None
    load_pct = int(pick(rng, range(80, 145, 5)))
    ambient = int(pick(rng, (10, 15, 20, 25, 30, 35, 40)))
    args: dict[str, Any] = {"asset_name": a.asset_id, "load_factor": load_pct / 100.0,
                            "ambient_c": float(ambient), "paper": paper}
    calls = [plates, ToolCall(name="compute_hot_spot", args=args)]
    readings: list[Reading] = []
    params: dict[str, Any] = {"asset_id": a.asset_id, "site": a.site_name,
                              "load_pct": load_pct, "ambient": ambient, "paper": paper}
    if paper != "kraft":
        readings.append(Reading(KRAFT_DEFAULT, KRAFT_DESCRIPTION, tool_sequence=[
            plates, ToolCall(name="compute_hot_spot", args=args | {"paper": "kraft"})]))
        params["note"] = UPGRADED_NOTE
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, str(load_pct), str(ambient)]
        + ([UPGRADED_NOTE] if paper != "kraft" else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id},
        difficulty="medium",
        closed_form=True,
        tolerance={"top_oil_c": 0.2, "hot_spot_c": 0.2},
        rel_tolerance={"relative_ageing_rate": 0.01},
        readings=readings,
        stated=[r.name for r in readings],
    )
