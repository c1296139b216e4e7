"""Data-quality task families of the transformer class: stuck indicators, missing telemetry,
alarm triage, and the instrument work that should follow a faulty sensor or contact.

Every answer is computed by a :func:`derive` from the outputs of the generic
``data_quality`` tool (:mod:`generator.tools.data_quality`) and, for the multi-agent
variants, ``get_failure_codes`` and ``get_corrective_work_orders``. The rules are counts
and comparisons of stored values:

* stuck: the same stored value in at least N consecutive hourly readings (N = six, eight or
  twelve, said in words);
* missing data: expected hourly cadence ("Hourly SCADA telemetry", asset.yaml) -- every
  whole hour of the window should hold a record carrying the sensor;
* alarm triage: an alarm is the alarm contact coming on (0 → 1); it is genuine when the
  indicator reads at or above the alarm setting at that record (OTI 90 °C, WTI 110 °C:
  the class's ``contacts`` in asset.yaml, the settings of the simulator and nameplates),
  spurious otherwise (a contact fault: the contact cannot be on below its setting);
* instrument follow-up: a corrective work order with the catalogue's instrumentation code
  (``IC-SENS``) reported on or after the day the fault began answers the finding; none
  means one should be raised with that code.

Draws pick an asset and a window; on a share of draws the window is placed around a finding
of a whole-period scan with the same tool (memoised), so faults are asked about often enough.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import full_days, iso_day, label
from assets.transformer.sensor_faults import INSTRUMENT_CODE
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
    day,
    family,
    num,
    pick,
    window_end_readings,
)

TOOL = "data_quality"
INDICATORS: tuple[str, ...] = ("oti", "wti")
ALARM_FLAGS: tuple[str, ...] = ("oti_a", "wti_a")
# Run lengths asked about, with the words the text uses.
RUN_WORDS = {6: "six", 8: "eight", 12: "twelve"}
WINDOW_STATED = [END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED]
RUN_AS_DURATION = "run_read_as_duration"
FOCUS_SHARE = 0.6  # share of draws whose window is placed around a finding


def _usable(ctx: FamilyContext) -> list[GroundedAsset]:
    return [a for a in ctx.assets if a.telemetry.start and a.telemetry.end
            and set(INDICATORS) <= set(a.sensors)]


def _call(a: GroundedAsset, start: str, end: str | None, sensors: list[str],
          min_run: int | None = None) -> ToolCall:
    args: dict[str, Any] = {"site_name": a.site_name, "asset_id": a.asset_id, "start": start,
                            "sensors": sensors}
    if end is not None:
        args["final"] = end
    if min_run is not None:
        args["min_run"] = min_run
    return ToolCall(name=TOOL, args=args)


async def _scan(ctx: FamilyContext, a: GroundedAsset) -> dict[str, Any]:
    """The tool's findings over the asset's whole telemetry (both indicators and their
    contacts), one memoised call per asset."""
    first, _ = full_days(a)
    return (await ctx.run([_call(a, iso_day(first), None, list(INDICATORS))]))[0]


def _window_around(
    a: GroundedAsset, rng: np.random.Generator, ts: str | None, length: int
) -> tuple[str, str] | None:
    """A window of ``length`` whole days holding ``ts`` (anywhere when ``ts`` is None)."""
    first, last = full_days(a)
    if (last - first).days < length:
        return None
    lo, hi = first, last - timedelta(days=length)
    if ts is not None:
        d = day(ts)
        lo, hi = max(lo, d - timedelta(days=length - 1)), min(hi, d)
        if lo > hi:
            return None
    start = lo + timedelta(days=int(rng.integers(0, (hi - lo).days + 1)))
    return iso_day(start), iso_day(start + timedelta(days=length))


async def _draw_window(
    ctx: FamilyContext, rng: np.random.Generator, finding_times: Any, length: int
) -> tuple[GroundedAsset, tuple[str, str], str | None] | None:
    """(asset, window, focus timestamp or None): around a finding on a share of draws."""
    usable = _usable(ctx)
    if not usable:
        return None
    if rng.random() < FOCUS_SHARE:
        found = []
        for a in usable:
            found += [(a, ts) for ts in finding_times(await _scan(ctx, a))]
        if found:
            a, ts = pick(rng, found)
            window = _window_around(a, rng, ts, length)
            return (a, window, ts) if window else None
    a = pick(rng, usable)
    window = _window_around(a, rng, None, length)
    return (a, window, None) if window else None


# -- stuck indicator -------------------------------------------------------------------


def _stuck_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    runs = [
        {"first": r["first"], "last": r["last"], "count": r["count"], "value": r["value"]}
        for r in outputs[0]["stuck"] if r["sensor"] == params["sensor"]
    ]
    return {"stuck": bool(runs), "runs": runs}


def stuck_outcome(answer: dict[str, Any]) -> str:
    """"stuck" when a run of identical readings was found, else "not_stuck"."""
    return "stuck" if answer["stuck"] else "not_stuck"


def _stuck_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    head = (f"{params['sensor']} of {params['asset_id']} in [{params['start']}, "
            f"{params['end']}): " + ("stuck" if answer["runs"] else "not stuck")
            + f", runs of >= {params['min_run']} identical readings: ")
    if not answer["runs"]:
        return head + "none"
    return head + "; ".join(
        f"{num(r['value'], 1)} °C from {r['first']} to {r['last']} ({r['count']} readings)"
        for r in answer["runs"]
    )


def _stuck_readings(calls: list[ToolCall], end: str, min_run: int) -> list[Reading]:
    longer = [ToolCall(name=c.name, args={**c.args, "min_run": min_run + 1}) for c in calls]
    return [
        *window_end_readings(calls, "final", end),
        Reading(
            name=RUN_AS_DURATION,
            description=f"reads 'the same value for {min_run} readings' as a duration of "
            f"{min_run} hours between the first and the last (one more reading)",
            tool_sequence=longer,
        ),
    ]


async def _stuck_plan(ctx: FamilyContext, rng: np.random.Generator) -> Plan | None:
    length = int(rng.integers(3, 11))
    min_run = int(pick(rng, sorted(RUN_WORDS)))
    drawn = await _draw_window(
        ctx, rng, lambda out: [r["first"] for r in out["stuck"] if r["count"] >= min_run],
        length,
    )
    if drawn is None:
        return None
    a, (start, end), focus = drawn
    sensor = pick(rng, list(INDICATORS))
    if focus is not None:  # the indicator of the finding
        scan = await _scan(ctx, a)
        sensor = next(r["sensor"] for r in scan["stuck"] if r["first"] == focus)
    calls = [_call(a, start, end, [sensor], min_run)]
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": label(ctx, sensor), "start": start, "end": end, "min_run": min_run,
        "run_words": RUN_WORDS[min_run], "days": length,
    }
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, sensor, start, end, RUN_WORDS[min_run]],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
                   "start": start, "end": end},
        difficulty="medium",
        readings=_stuck_readings(calls, end, min_run),
        stated=[*WINDOW_STATED, RUN_AS_DURATION],
    )


@family(
    "iot_sensor_stuck",
    domain="iot",
    category="Inference Query",
    derive=_stuck_derive,
    summarise=_stuck_summary,
    outcome=stuck_outcome,
    trivial=("not_stuck",),
)
async def sensor_stuck(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Is a temperature indicator of one unit stuck (the same value in N or more consecutive
    hourly readings) in a window, and when?"""
    return await _stuck_plan(ctx, rng)


# -- missing telemetry -----------------------------------------------------------------


def _gaps_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    gaps = [g for g in out["record_gaps"]] + [
        g for g in out["sensor_gaps"] if g["sensor"] == params["sensor"]
    ]
    gaps.sort(key=lambda g: g["first"])
    return {
        "missing_hours": sum(int(g["missing"]) for g in gaps),
        "expected_hours": int(out["expected"]),
        "gaps": [{"first": g["first"], "last": g["last"], "missing": g["missing"]}
                 for g in gaps],
    }


def gaps_outcome(answer: dict[str, Any]) -> str:
    """"gaps" when readings are missing, else "complete"."""
    return "gaps" if answer["missing_hours"] else "complete"


def _gaps_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    head = (f"{params['sensor']} of {params['asset_id']} in [{params['start']}, "
            f"{params['end']}): {answer['missing_hours']} of {answer['expected_hours']} "
            "hourly readings missing")
    if not answer["gaps"]:
        return head
    return head + " (" + "; ".join(
        f"{g['first']} to {g['last']}" for g in answer["gaps"]) + ")"


@family(
    "iot_telemetry_gaps",
    domain="iot",
    category="Data Query",
    derive=_gaps_derive,
    summarise=_gaps_summary,
    outcome=gaps_outcome,
    trivial=("complete",),
)
async def telemetry_gaps(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Are hourly readings of a unit's sensor missing in a window, how many and when?"""
    length = int(rng.integers(3, 15))
    drawn = await _draw_window(
        ctx, rng, lambda out: [g["first"] for g in out["record_gaps"]], length
    )
    if drawn is None:
        return None
    a, (start, end), _focus = drawn
    sensor = pick(rng, [s for s in ("oti", "wti", "ati", "il1") if s in a.sensors])
    calls = [_call(a, start, end, [sensor])]
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": label(ctx, sensor), "start": start, "end": end,
    }
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, sensor, start, end],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
                   "start": start, "end": end},
        difficulty="medium",
        hard_features=["multi_output"],
        readings=window_end_readings(calls, "final", end),
        stated=WINDOW_STATED,
    )


# -- alarm triage ----------------------------------------------------------------------


def _triage_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    alarms = [p for p in outputs[0]["pickups"] if p["flag"] in params["flags"]]
    def row(p: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": p["timestamp"], "contact": p["flag"], "reading": p["reading"],
                "setting": p["setting"]}
    return {
        "alarms": len(alarms),
        "genuine": [row(p) for p in alarms if p["genuine"]],
        "spurious": [row(p) for p in alarms if not p["genuine"]],
    }


def triage_outcome(answer: dict[str, Any]) -> str:
    """"none" (no alarm), "all_genuine", or "spurious" (at least one from a faulty contact)."""
    if not answer["alarms"]:
        return "none"
    return "spurious" if answer["spurious"] else "all_genuine"


def _triage_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    def times(rows: list[dict[str, Any]]) -> str:
        return and_join([f"{r['contact']} {r['timestamp']} ({num(float(r['reading'] or 0), 1)}"
                         f" °C vs {num(r['setting'], 1)} °C)" for r in rows])
    return (f"alarm pick-ups of {params['asset_id']} in [{params['start']}, {params['end']})"
            f": {answer['alarms']}; genuine: {times(answer['genuine'])}; "
            f"from a faulty contact: {times(answer['spurious'])}")


async def _triage_plan(ctx: FamilyContext, rng: np.random.Generator) -> Plan | None:
    length = int(rng.integers(5, 11))
    drawn = await _draw_window(
        ctx, rng, lambda out: [p["timestamp"] for p in out["pickups"]
                               if p["flag"] in ALARM_FLAGS], length,
    )
    if drawn is None:
        return None
    a, (start, end), _focus = drawn
    flags = list(ALARM_FLAGS)
    calls = [_call(a, start, end, flags)]
    params = {"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end,
              "flags": flags, "oti_setting": 90, "wti_setting": 110}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, start, end],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": start, "end": end},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=window_end_readings(calls, "final", end),
        stated=WINDOW_STATED,
    )


@family(
    "iot_alarm_triage",
    domain="iot",
    category="Inference Query",
    derive=_triage_derive,
    summarise=_triage_summary,
    outcome=triage_outcome,
    trivial=("none",),
)
async def alarm_triage(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which temperature-alarm pick-ups of a unit in a window were genuine (indicator at or
    above the setting) and which came from a faulty contact?"""
    return await _triage_plan(ctx, rng)


# -- instrument follow-up (multi-agent) ------------------------------------------------

# The reading that counts an instrument order reported after the window's end as "since".
ORDERS_AFTER_WINDOW = "orders_after_the_window_count"


def _followup_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """Shared by both follow-ups: outputs = [data_quality, failure codes, corrective orders].

    The fault began at the first stuck reading or the first spurious alarm; the
    instrumentation code must be in the catalogue; orders with it reported on or after the
    fault's day and before the window's end (the as-of moment: the text may call that day
    today) answer the finding.
    """
    quality, codes, orders = outputs
    if params["kind"] == "stuck":
        runs = [r for r in quality["stuck"] if r["sensor"] == params["sensor"]]
        began = runs[0]["first"] if runs else None
    else:
        bad = [p for p in quality["pickups"] if p["flag"] in params["flags"] and not p["genuine"]]
        began = bad[0]["timestamp"] if bad else None
    catalogue = {str(c["code"]) for c in codes["failure_codes"]}
    if params["code"] not in catalogue:
        raise Ambiguous(f"the catalogue has no code {params['code']}")
    if began is None:
        return {"fault_found": False, "fault_start": None, "instrument_orders": [],
                "action": "none", "code": None}
    since = began[:10]
    found = sorted(
        str(o["wo_id"]) for o in orders["work_orders"]
        if o["primary_code"] == params["code"] and str(o["reported_date"])[:10] >= since
    )
    return {"fault_found": True, "fault_start": began, "instrument_orders": found,
            "action": "already_raised" if found else "raise_order",
            "code": params["code"]}


def followup_outcome(answer: dict[str, Any]) -> str:
    """"none" (no fault in the window), "already_raised" or "raise_order"."""
    return str(answer["action"])


def _followup_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    if not answer["fault_found"]:
        return f"no {params['kind']} fault on {params['asset_id']} in the window: nothing to do"
    if answer["instrument_orders"]:
        return (f"fault from {answer['fault_start']}; instrument order(s) already raised: "
                f"{and_join(answer['instrument_orders'])} (code {answer['code']})")
    return (f"fault from {answer['fault_start']}; no instrument order since: raise one with "
            f"code {answer['code']}")


def _followup_plan(parent: TaskSeed, kind: str) -> Plan | None:
    p = parent.params
    since = str(p["start"])

    def orders(**bound: str) -> list[ToolCall]:
        return [
            *parent.tool_sequence,
            ToolCall(name="get_failure_codes", args={}),
            ToolCall(name="get_corrective_work_orders",
                     args={"equipment_id": p["asset_id"], "start_date": since, **bound}),
        ]

    # Orders reported up to the window's end only: the text may call that day today, and an
    # order reported later did not exist then (generator.generate.draw.asof). A reader of a
    # window written with its dates may still count later orders as "since": gated.
    calls = orders(end_date=str(p["end"]))
    keep = ("asset_id", "site", "sensor", "sensor_label", "start", "end", "min_run",
            "run_words", "flags")
    params: dict[str, Any] = {k: p[k] for k in keep if k in p}
    params |= {"kind": kind, "code": INSTRUMENT_CODE}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=list(parent.mentions),
        grounding=dict(parent.grounding),
        difficulty="hard",
        hard_features=["conditional"],
        readings=[*window_end_readings(calls, "final", str(p["end"])), Reading(
            ORDERS_AFTER_WINDOW, "counts instrument orders reported after the window's end "
            "as raised since the fault began", tool_sequence=orders())],
        stated=WINDOW_STATED,
        constraint="if the fault has no corrective work order for the instrument since it "
        "began, say which failure code the new order should carry",
    )


@family(
    "ma_stuck_sensor_workorder",
    domain="multiagent",
    category="Decision Support",
    derive=_followup_derive,
    summarise=_followup_summary,
    compose_from=("iot_sensor_stuck",),
    outcome=followup_outcome,
    trivial=("none",),
)
async def stuck_sensor_workorder(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Stuck indicator → is there a corrective order for the instrument since it stuck, or
    which failure code should a new one carry?"""
    return _followup_plan(parents[0], "stuck") if parents else None


@family(
    "ma_alarm_contact_workorder",
    domain="multiagent",
    category="Workflow Coordination",
    derive=_followup_derive,
    summarise=_followup_summary,
    compose_from=("iot_alarm_triage",),
    outcome=followup_outcome,
    trivial=("none",),
)
async def alarm_contact_workorder(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Spurious alarms from a faulty contact → is the contact's repair ordered since the
    first spurious alarm, or which failure code should the order carry?"""
    return _followup_plan(parents[0], "contact") if parents else None
