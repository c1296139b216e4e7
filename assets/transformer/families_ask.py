"""Task families about how a request is asked: weekly pattern or anomaly, requests that need a
clarifying question, a false premise about a trip, and what a unit measures.

Every answer is computed by a ``derive`` function from tool outputs only:

- ``tsfm_weekly_pattern``: a day's peak hour judged against the unit's weekly pattern with
  ``run_tsad`` (expected value = median of the same weekday and hour over the reference, the
  scored window plus the four weeks before it; residuals scored by the modified z-score of
  Iglewicz & Hoaglin (1993), ``z = 0.6745 (r - median r) / MAD``). The text pins the
  comparison ("the same weekday and hour over the four weeks before"); the cut-off is left
  to the reader, so the usual cut-offs 3.0, 3.5 and 4.0 must agree (gated), and so must a
  scored window that starts a day earlier. Read literally, "over the four weeks before" makes
  the usual level the median of the four earlier readings alone; the reported level's
  tolerance covers the gap between the two (:func:`usual_level_tolerance`), and the peak's
  score under that literal reading (:func:`literal_baseline_score`) must give the same
  verdict at every cut-off, or the draw is dropped.
- ``iot_same_hour_weeks``: the reading at a peak hour against the readings at the same hour
  on the same weekday of the previous N weeks (plain comparison of stored readings); the
  daily peaks of those days are the other reading, stated in the text and recorded.
- ``iot_clarify_request`` / ``wo_clarify_order``: requests that cannot be answered without
  asking back. The answer is ``{"clarification_needed": true, "ambiguity": ..., "options":
  [...]}`` (outcome "clarify"); the options are what the store holds: the site's units, the
  unit's sensors that measure the vague quantity (same engineering unit), or the corrective
  work orders of the week named.
- ``wo_trip_false_premise``: "since the trip on <day>, has corrective work been raised?"
  answered from the unit's events (trips are the ``*_TRIP`` alert events) and its corrective
  work orders; when no trip happened that day the answer says so and lists the trips on
  record (answer shape of ``fmsr_false_premise``: ``premise_holds`` and the labels
  "premise_holds" / "false_premise").
- ``wo_order_false_premise``: "what was corrective work order W raised for?" when W is
  preventive or does not exist (checked in the unit's work orders); draws name real orders
  of the claimed kind too, so the premise sometimes holds.
- ``iot_sensor_inventory``: what a unit measures, from the ``sensors`` tool (hourly
  telemetry vs. laboratory oil-sample quantities), with the latest temperature readings and
  their alarm contacts.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import date, datetime, timedelta
from typing import Any, cast

import numpy as np

from assets.transformer.families_common import (
    asset_with_telemetry,
    full_days,
    iso_day,
    label,
    unit,
)
from generator.api import (
    Ambiguous,
    FamilyContext,
    GroundedAsset,
    PassedOver,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    and_join,
    day,
    family,
    history_call,
    num,
    pick,
    timeseries,
    unique_argmax,
    values_of,
    window_end_readings,
)

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
CLARIFY = "clarify"


def _spoken(ctx: FamilyContext, sensor: str) -> str:
    """The sensor as people say it ("top-oil temperature", not "... indicator"; "load")."""
    return "load" if sensor == "load_mva" else label(ctx, sensor).replace(" indicator", "")


def _hour_text(ts: str) -> str:
    """``HH:00`` of an ISO timestamp."""
    return f"{ts[11:13]}:00"


def _plus_hours(ts: str, hours: int) -> str:
    return (datetime.fromisoformat(ts) + timedelta(hours=hours)).isoformat()


def _value_at(records: list[dict[str, Any]], sensor: str, ts: str) -> float:
    """The sensor's reading stamped ``ts``.

    Raises:
        Ambiguous: No such reading.
    """
    for t, v in values_of(records, sensor):
        if t == ts:
            return v
    raise Ambiguous(f"no {sensor} reading at {ts}")


def _weekday_hour(ts: str) -> int:
    """The weekday x hour slot of an ISO timestamp, ``weekday * 24 + hour`` (0..167).

    Kept per stamp: the same hourly stamps come back in every window over those weeks.
    """
    slot = _SLOTS.get(ts)
    if slot is None:
        t = datetime.fromisoformat(ts)
        slot = t.weekday() * 24 + t.hour
        if len(_SLOTS) >= _SLOTS_MAX:
            _SLOTS.clear()
        _SLOTS[ts] = slot
    return slot


def _weekday_hours(stamps: list[str]) -> list[int]:
    """:func:`_weekday_hour` of each stamp (the kept ones looked up in one pass)."""
    slots: list[int | None] = list(map(_SLOTS.get, stamps))
    if None in slots:
        return [_weekday_hour(t) if s is None else s for t, s in zip(stamps, slots, strict=True)]
    return cast(list[int], slots)


_SLOTS_MAX = 100_000
_SLOTS: dict[str, int] = {}


def literal_baseline_score(
    records: list[dict[str, Any]], sensor: str, peak_time: str, peak_value: float
) -> float | None:
    """Modified z-score of a peak under the literal reading of "the same weekday and hour over
    the four weeks before" (the day itself left out).

    ``records`` are the four weeks before the day. The usual level of each weekday x hour
    slot is the median of its readings there; residuals are the readings minus their slot's
    level, the peak's own (``peak_value`` minus its slot's level) included, and the score is
    ``z = 0.6745 (r - median r) / MAD`` (Iglewicz & Hoaglin 1993); when the MAD is 0, the
    mean absolute deviation stands in, ``z = (r - median r) / (1.253314 MeanAD)``, as in the
    tool, and a peak at the median scores 0. None when the peak's slot has no reading in
    those weeks.
    """
    pairs = values_of(records, sensor)
    keys = np.array(_weekday_hours([t for t, _ in pairs]), dtype=np.int64)
    at_peak = np.flatnonzero(keys == _weekday_hour(peak_time))
    if not at_peak.size:
        return None
    values = np.array([v for _, v in pairs], dtype=float)
    # Every slot's median in one sort (equal to np.median per slot). `+ 0.0` turns a -0.0
    # median into 0.0, as np.median gives (its mean sums from +0.0), so signs stay the same.
    level = timeseries.slot_medians(keys, values)[0] + 0.0
    residuals = np.append(values - level, peak_value - level[at_peak[0]])
    centre = float(np.median(residuals))
    deviation = float(residuals[-1]) - centre
    mad = float(np.median(np.abs(residuals - centre)))
    if mad > 0.0:
        return 0.6745 * deviation / mad
    mean_ad = float(np.mean(np.abs(residuals - centre)))
    return 0.0 if deviation == 0.0 else deviation / (1.253314 * mean_ad)


async def _day_peak(
    ctx: FamilyContext, a: GroundedAsset, sensor: str, d: date
) -> tuple[str, float] | None:
    """(timestamp, value) of the sensor's single highest reading on day ``d``."""
    out = await ctx.run1(
        "history", site_name=a.site_name, asset_id=a.asset_id, start=iso_day(d),
        final=iso_day(d + timedelta(days=1)), sensors=[sensor],
    )
    pairs = values_of(out["records"], sensor)
    if len(pairs) < 24:
        return None
    try:
        return unique_argmax(pairs)
    except Ambiguous:
        return None


async def _alerts(ctx: FamilyContext, a: GroundedAsset) -> list[tuple[date, str]]:
    """(day, sensor) of the unit's temperature alarms and trips (``OTI_TRIP`` -> oti)."""
    out = await ctx.run1("get_events", equipment_id=a.asset_id)
    return sorted({(day(e["event_time"]), str(e["event_type"]).split("_")[0].lower())
                   for e in out["events"] if e["event_group"] == "ALERT"})


# -- weekly pattern or anomaly (tsfm) ---------------------------------------------------------

PATTERN_SENSORS: tuple[str, ...] = ("load_mva", "oti", "wti", "il1")
BASELINE_WEEKS = 4
DEFAULT_CUTOFF = 3.5
OTHER_CUTOFFS: tuple[float, ...] = (3.0, 4.0)
# A peak scoring this close to the band of usual cut-offs could flip on a detail: not drawn.
SCORE_MARGIN = 0.15
# A threshold so low that every reading with a nonzero residual is listed with its score.
LIST_ALL = 1e-6
EARLIER_WINDOW = "scored_window_starts_a_day_earlier"
# Each pins the same comparison: the same weekday and hour over the four weeks before.
PATTERN_NOTES: tuple[str, ...] = (
    "By usual I mean the same weekday and hour over the four weeks before; "
    "call it an anomaly only if it stands far outside that week-to-week spread.",
    "Judge it against the same hour on the same weekday across the previous four weeks, "
    "not against the rest of the day.",
    "Compare it with that weekday at that hour over the last four weeks; only a big "
    "departure from that spread counts as an anomaly.",
)
# Share of draws that look at a day with one of the unit's temperature alerts.
ALERT_SHARE = 0.6


EXPECTED_TOLERANCE = 0.01


def usual_level_tolerance(tool_expected: float | None, previous: list[float]) -> float:
    """Absolute tolerance of the reported usual level.

    The text says "the same weekday and hour over the four weeks before"; ``run_tsad`` takes
    the median of that slot over the scored window AND the four weeks before (the day itself
    is one of the slot's readings). Read literally, the usual level is the median of the four
    earlier readings alone (``previous``). Both are fair, so the tolerance is 0.01 plus the
    gap between them.
    """
    if tool_expected is None or not previous:
        return EXPECTED_TOLERANCE
    return EXPECTED_TOLERANCE + abs(tool_expected - float(np.median(previous)))


def _tsad_args(a: GroundedAsset, sensor: str, start: date, threshold: float) -> dict[str, Any]:
    return {
        "site_name": a.site_name, "asset_id": a.asset_id, "sensor": sensor,
        "start": iso_day(start), "final": iso_day(start + timedelta(days=2)),
        "threshold": threshold, "baseline_weeks": BASELINE_WEEKS,
    }


def earlier_same_hours(earlier: list[tuple[str, float]], ts: str) -> list[float]:
    """The values of ``earlier`` stamped in [ts - k weeks, ts - k weeks + 1 h) for k = 1..4
    (:data:`BASELINE_WEEKS`), k in order, each window's in the list's order.

    When the stamps are sorted (``history``'s are), each window is found by bisection; the
    same values as filtering the whole list per window, which is done otherwise.
    """
    stamps = [t for t, _ in earlier]
    ordered = stamps == sorted(stamps)
    previous: list[float] = []
    for k in range(1, BASELINE_WEEKS + 1):
        then = _plus_hours(ts, -24 * 7 * k)
        until = _plus_hours(then, 1)
        if ordered:
            lo, hi = bisect_left(stamps, then), bisect_left(stamps, until)
            previous += [v for _, v in earlier[lo:hi]]
        else:
            previous += [v for t, v in earlier if then <= t < until]
    return previous


def _pattern_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records, tsad = outputs[0]["records"], outputs[1]
    ts = params["peak_time"]
    value = _value_at(records, params["sensor"], ts)
    hit = [x for x in tsad["anomalies"] if x["timestamp"] == ts]
    return {
        "peak_time": ts,
        "peak_value": value,
        "verdict": "anomaly" if hit else "usual_pattern",
        "expected": float(hit[0]["expected"]) if hit else None,
    }


def pattern_outcome(answer: dict[str, Any]) -> str:
    """"anomaly" or "usual_pattern"."""
    return str(answer["verdict"])


def _pattern_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{params['sensor']} of {params['asset_id']} peaked at {num(answer['peak_value'], 3)} "
        f"{params['unit']} at {answer['peak_time']}: "
    )
    if answer["verdict"] == "anomaly":
        side = "above" if answer["peak_value"] > answer["expected"] else "below"
        return text + (
            f"an anomaly {side} the weekly pattern (usual level for {params['weekday']} "
            f"{params['hour']}: {num(answer['expected'], 3)} {params['unit']})"
        )
    return text + f"within the usual weekly pattern for {params['weekday']} {params['hour']}"


@family(
    "tsfm_weekly_pattern",
    domain="tsfm",
    category="Anomaly Detection Query",
    derive=_pattern_derive,
    summarise=_pattern_summary,
    outcome=pattern_outcome,
    trivial=("usual_pattern",),
)
async def weekly_pattern(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Is a day's peak hour the unit's usual weekly pattern or an anomaly?

    The day has four whole weeks of telemetry before it. The peak is scored in the two-day
    window starting that day; gated readings: the cut-offs 3.0 and 4.0 (the text names
    none) and a window starting the day before. Peaks scoring inside the band of those
    cut-offs (widened by ``SCORE_MARGIN``) in either window are not drawn, so every cut-off
    in every window gives the same verdict.
    """
    usable = [x for x in ctx.assets if x.enough_history and x.telemetry.start and x.sensors]
    if not usable:
        return None
    a = pick(rng, usable)
    first, last = full_days(a)
    lo, hi = first + timedelta(days=7 * BASELINE_WEEKS), last - timedelta(days=1)
    if lo > hi:
        return None
    alerts = [(d, s) for d, s in await _alerts(ctx, a) if lo <= d <= hi and s in a.sensors]
    if alerts and rng.random() < ALERT_SHARE:
        when, sensor = pick(rng, alerts)
    else:
        when = lo + timedelta(days=int(rng.integers((hi - lo).days + 1)))
        sensor = pick(rng, [s for s in PATTERN_SENSORS if s in a.sensors])
    peak = await _day_peak(ctx, a, sensor, when)
    if peak is None:
        return None
    ts, peak_value = peak
    scored = await ctx.run1("run_tsad", **_tsad_args(a, sensor, when, LIST_ALL))
    score = next((abs(float(x["score"])) for x in scored["anomalies"] if x["timestamp"] == ts), 0.0)
    # Every usual cut-off must give the same verdict: no score in the band they span.
    cutoffs = (DEFAULT_CUTOFF, *OTHER_CUTOFFS)
    if min(cutoffs) - SCORE_MARGIN <= score <= max(cutoffs) + SCORE_MARGIN:
        return None
    # The verdict is the default cut-off's: the tool lists the peak at 3.5 exactly when
    # its score (the same at every cut-off) is above 3.5. A usual pattern the caller passes
    # over (a designated slot with its fallback) needs nothing more: the rest reads the
    # store without a call that could refuse, and records nothing.
    if ctx.passes_over_trivial and score <= DEFAULT_CUTOFF:
        raise PassedOver("a usual weekly pattern")
    # The window may also be read as starting the day before (another reference, so another
    # spread): its score too must give the same verdict at every cut-off, since the text names
    # neither the cut-off nor the window.
    early = await ctx.run1("run_tsad", **_tsad_args(a, sensor, when - timedelta(days=1),
                                                    LIST_ALL))
    early_score = next((abs(float(x["score"])) for x in early["anomalies"]
                        if x["timestamp"] == ts), 0.0)
    if min(cutoffs) - SCORE_MARGIN <= early_score <= max(cutoffs) + SCORE_MARGIN or (
            early_score > DEFAULT_CUTOFF) != (score > DEFAULT_CUTOFF):
        return None
    # Read literally ("over the four weeks before", the day left out), the level and spread
    # come from those weeks alone: that score must give the same verdict at every cut-off.
    weeks = await ctx.run1(
        "history", site_name=a.site_name, asset_id=a.asset_id,
        start=iso_day(when - timedelta(weeks=BASELINE_WEEKS)), final=iso_day(when),
        sensors=[sensor],
    )
    literal = literal_baseline_score(weeks["records"], sensor, ts, peak_value)
    if literal is None or min(cutoffs) - SCORE_MARGIN <= abs(literal) <= max(cutoffs) + (
            SCORE_MARGIN) or (abs(literal) > DEFAULT_CUTOFF) != (score > DEFAULT_CUTOFF):
        return None
    tool_expected = next((float(x["expected"]) for x in scored["anomalies"]
                          if x["timestamp"] == ts), None)
    # The same hour of each earlier week: the readings of the four weeks' records in
    # [then, then + 1 h) (what `history` returns for that window; same stamp format).
    previous = earlier_same_hours(values_of(weeks["records"], sensor), ts)
    day_call = history_call(a, iso_day(when), iso_day(when + timedelta(days=1)), [sensor])
    tsad = ToolCall(name="run_tsad", args=_tsad_args(a, sensor, when, DEFAULT_CUTOFF))
    readings = [
        Reading(
            name=f"cutoff_{num(c)}",
            description=f"calls a reading anomalous beyond {num(c)} robust standard deviations "
            f"instead of {num(DEFAULT_CUTOFF)} (the text names no cut-off)",
            tool_sequence=[day_call, ToolCall(
                name="run_tsad", args=_tsad_args(a, sensor, when, c))],
        )
        for c in OTHER_CUTOFFS
    ]
    readings.append(Reading(
        name=EARLIER_WINDOW,
        description="scores the peak in a two-day window that starts the day before",
        tool_sequence=[day_call, ToolCall(name="run_tsad", args=_tsad_args(
            a, sensor, when - timedelta(days=1), DEFAULT_CUTOFF))],
    ))
    d = iso_day(when)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": _spoken(ctx, sensor), "unit": unit(ctx, sensor), "day": d,
        "weekday": WEEKDAYS[when.weekday()], "hour": _hour_text(ts), "peak_time": ts,
        # A function of the task, so the same task never comes back in another wording.
        "note": PATTERN_NOTES[when.toordinal() % len(PATTERN_NOTES)],
    }
    return Plan(
        params=params,
        tool_sequence=[day_call, tsad],
        mentions=[a.asset_id, a.site_name, sensor, d, _hour_text(ts)],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor, "start": d},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"peak_value": 0.01,
                   "expected": usual_level_tolerance(tool_expected, previous)},
        rel_tolerance={"peak_value": 0.001, "expected": 0.01},
        readings=readings,
    )


# -- same hour on the previous weeks (iot) ----------------------------------------------------

SAME_HOUR_SENSORS: tuple[str, ...] = ("load_mva", "oti", "wti", "il1", "il2", "il3")
WEEKS_BACK: tuple[int, ...] = (2, 3, 4)
DAILY_PEAKS = "previous_daily_peaks"
# Two readings closer than this share of the peak could swap on display rounding.
CLOSE_SHARE = 0.005


def _same_hour_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sensor, ts = params["sensor"], params["peak_time"]
    value = _value_at(outputs[0]["records"], sensor, ts)
    previous: dict[str, float] = {}
    for k, out in enumerate(outputs[1:], start=1):
        then = _plus_hours(ts, -24 * 7 * k)
        if params.get("reading") == DAILY_PEAKS:
            pairs = values_of(out["records"], sensor)
            if not pairs:
                raise Ambiguous(f"no {sensor} readings on {then[:10]}")
            previous[then[:10]] = max(v for _, v in pairs)
        else:
            previous[then[:10]] = _value_at(out["records"], sensor, then)
    top = max(previous.values())
    if abs(value - top) <= CLOSE_SHARE * max(abs(value), 1e-9):
        raise Ambiguous("the reading is too close to the highest earlier one")
    return {
        "peak_value": value,
        "previous": previous,
        "previous_max": top,
        "above_all_previous": value > top,
    }


def same_hour_outcome(answer: dict[str, Any]) -> str:
    """"above_all_previous" (higher than every earlier week) or "within_previous"."""
    return "above_all_previous" if answer["above_all_previous"] else "within_previous"


def _same_hour_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    earlier = ", ".join(f"{d} {num(v, 3)}" for d, v in answer["previous"].items())
    verdict = (
        "higher than on every earlier week" if answer["above_all_previous"]
        else f"not above the earlier weeks (highest {num(answer['previous_max'], 3)})"
    )
    return (
        f"{params['sensor']} of {params['asset_id']} at {params['peak_time']}: "
        f"{num(answer['peak_value'], 3)} {params['unit']}; same hour on the previous "
        f"{params['weeks']} {params['weekday']}s: {earlier}; {verdict}"
    )


@family(
    "iot_same_hour_weeks",
    domain="iot",
    category="Inference Query",
    derive=_same_hour_derive,
    summarise=_same_hour_summary,
    outcome=same_hour_outcome,
    trivial=("within_previous",),
)
async def same_hour_weeks(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A day's peak reading against the same hour of the same weekday on the previous weeks.

    The text pins the comparison (the reading at the same hour, not those days' peaks); the
    daily-peak reading is stated and recorded. A reading within ``CLOSE_SHARE`` of the
    highest earlier one is dropped (a tie at display precision).
    """
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    weeks = int(pick(rng, WEEKS_BACK))
    first, last = full_days(a)
    lo = first + timedelta(days=7 * weeks)
    if lo > last:
        return None
    days = [d for d, _ in await _alerts(ctx, a) if lo <= d <= last]
    if days and rng.random() < ALERT_SHARE:
        when = pick(rng, days)
    else:
        when = lo + timedelta(days=int(rng.integers((last - lo).days + 1)))
    sensor = pick(rng, [s for s in SAME_HOUR_SENSORS if s in a.sensors])
    peak = await _day_peak(ctx, a, sensor, when)
    if peak is None:
        return None
    ts, _ = peak
    day_call = history_call(a, iso_day(when), iso_day(when + timedelta(days=1)), [sensor])
    hour_calls, day_calls = [], []
    for k in range(1, weeks + 1):
        then = _plus_hours(ts, -24 * 7 * k)
        hour_calls.append(history_call(a, then, _plus_hours(then, 1), [sensor]))
        back = when - timedelta(days=7 * k)
        day_calls.append(history_call(a, iso_day(back), iso_day(back + timedelta(days=1)),
                                      [sensor]))
    d = iso_day(when)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
        "sensor_label": _spoken(ctx, sensor), "unit": unit(ctx, sensor), "day": d,
        "weekday": WEEKDAYS[when.weekday()], "hour": _hour_text(ts), "peak_time": ts,
        "weeks": weeks,
    }
    return Plan(
        params=params,
        tool_sequence=[day_call, *hour_calls],
        mentions=[a.asset_id, a.site_name, sensor, d, _hour_text(ts), str(weeks)],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "sensor": sensor, "start": d},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"peak_value": 0.01, "previous": 0.01, "previous_max": 0.01},
        rel_tolerance={"peak_value": 0.001, "previous": 0.001, "previous_max": 0.001},
        readings=[Reading(
            name=DAILY_PEAKS,
            description="compares with the highest reading of each earlier day, not the "
            "reading at the same hour",
            tool_sequence=[day_call, *day_calls],
            params={"reading": DAILY_PEAKS},
        )],
        stated=[DAILY_PEAKS],
    )


# -- requests that need a clarifying question (iot) -------------------------------------------

# Vague quantities a person names without saying which sensor: the unit's sensors of that
# engineering unit are the options.
VAGUE: dict[str, tuple[str, str]] = {
    "temperature": ("degC", "temperature"),
    "current": ("A", "current"),
    "voltage": ("kV", "voltage"),
}


def _clarify_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    if params["ask"] == "unit":
        options = sorted(str(x["asset_id"]) for x in out["assets"])
        ambiguity = (
            f"the request names no unit, and site {params['site']} has {len(options)} "
            "transformers"
        )
    else:
        options = [str(s["name"]) for s in out["sensors"] if s.get("unit") == params["unit_code"]]
        ambiguity = (
            f"'{params['quantity']}' does not say which measurement: {params['asset_id']} "
            f"reports {len(options)} {params['quantity']} readings"
        )
    if len(options) < 2:
        raise Ambiguous("only one option: the request is not ambiguous")
    return {"clarification_needed": True, "ambiguity": ambiguity, "options": options}


def clarify_outcome(answer: dict[str, Any]) -> str:
    """Always "clarify": the request must be answered with a question."""
    return CLARIFY


def _clarify_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"clarification needed: {answer['ambiguity']}; ask which one is meant "
        f"({and_join(answer['options'])})"
    )


@family(
    "iot_clarify_request",
    domain="iot",
    category="Data Query",
    derive=_clarify_derive,
    summarise=_clarify_summary,
    outcome=clarify_outcome,
)
async def clarify_request(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A reading requested for "the unit at <site>" (the site has several) or for a vague
    quantity ("the temperature") that several of the unit's sensors measure.

    The reference answer asks back and lists the options from the store: the site's units
    (``assets``) or the unit's sensors of that engineering unit (``sensors``).
    """
    if rng.random() < 0.5:
        site = pick(rng, ctx.profile.inventory.sites)
        units = [x for x in ctx.assets if x.site_name == site and x.sensors]
        if len(units) < 2:
            return None
        sensor = pick(rng, [s for s in ("oti", "wti", "load_mva", "inut") if s in units[0].sensors])
        return Plan(
            params={"ask": "unit", "site": site, "sensor": sensor,
                    "sensor_label": _spoken(ctx, sensor)},
            tool_sequence=[ToolCall(name="assets", args={"site_name": site})],
            mentions=[site],
            grounding={"site": site},
            difficulty="medium",
        )
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    known = {s.name: s.unit for s in ctx.tools.asset.sensors}
    vague = [q for q, (u, _) in sorted(VAGUE.items())
             if sum(known.get(s) == u for s in a.sensors) >= 2]
    if not vague:
        return None
    quantity = pick(rng, vague)
    code, _ = VAGUE[quantity]
    call = ToolCall(name="sensors", args={"site_name": a.site_name, "asset_id": a.asset_id})
    return Plan(
        params={"ask": "sensor", "asset_id": a.asset_id, "site": a.site_name,
                "quantity": quantity, "unit_code": code},
        tool_sequence=[call],
        mentions=[a.asset_id, a.site_name, quantity],
        grounding={"site": a.site_name, "asset_id": a.asset_id},
        difficulty="medium",
    )


# -- a work order named too loosely (wo) -----------------------------------------------------


def _order_clarify_derive(
    params: dict[str, Any], outputs: list[dict[str, Any]]
) -> dict[str, Any]:
    orders = outputs[0]["work_orders"]
    options = [str(o["wo_id"]) for o in orders]
    if len(options) < 2:
        raise Ambiguous("one corrective work order only: the request is not ambiguous")
    return {
        "clarification_needed": True,
        "ambiguity": f"{len(options)} corrective work orders of {params['asset_id']} were "
        f"reported in the week starting {params['start']}",
        "options": options,
    }


@family(
    "wo_clarify_order",
    domain="wo",
    category="Data Query",
    derive=_order_clarify_derive,
    summarise=_clarify_summary,
    outcome=clarify_outcome,
)
async def clarify_order(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A question about "the corrective job" on a unit in a week that holds several.

    The week starts on the day of one of the unit's corrective work orders and must hold at
    least two; gated: a week read as ending a day later must list the same orders.
    """
    usable = [x for x in ctx.assets if x.work_orders > 0]
    if not usable:
        return None
    a = pick(rng, usable)
    out = await ctx.run1("get_corrective_work_orders", equipment_id=a.asset_id)
    stamps = sorted(day(o["reported_date"]) for o in out["work_orders"])
    starts = [d for d in stamps if sum(d <= x < d + timedelta(days=7) for x in stamps) >= 2]
    if not starts:
        return None
    first = pick(rng, starts)
    start, end = iso_day(first), iso_day(first + timedelta(days=7))
    calls = [ToolCall(name="get_corrective_work_orders",
                      args={"equipment_id": a.asset_id, "start_date": start, "end_date": end})]
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end},
        tool_sequence=calls,
        mentions=[a.asset_id, start],
        grounding={"asset_id": a.asset_id, "start": start},
        difficulty="medium",
        readings=window_end_readings(calls, "end_date", end),
    )


# -- a false premise about a trip (wo) --------------------------------------------------------

FROM_DAY_START = "orders_since_the_start_of_the_day"
# Share of draws about a unit that tripped at least once (few do; a claim about one that
# never tripped is the plainest false premise).
TRIPPED_SHARE = 0.8


async def _trips(ctx: FamilyContext, a: GroundedAsset) -> list[tuple[date, str]]:
    """(day, sensor) of the unit's trips."""
    out = await ctx.run1("get_events", equipment_id=a.asset_id)
    return [(day(e["event_time"]), str(e["event_type"]))
            for e in out["events"]
            if e["event_group"] == "ALERT" and str(e["event_type"]).endswith("_TRIP")]


def _trip_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    events, corrective = outputs
    claimed = params["claim_date"]
    trips = [e for e in events["events"]
             if e["event_group"] == "ALERT" and str(e["event_type"]).endswith("_TRIP")]
    on_day = [e for e in trips if str(e["event_time"])[:10] == claimed]
    if not on_day:
        alerts = [str(e["event_type"]) for e in events["events"]
                  if e["event_group"] == "ALERT" and str(e["event_time"])[:10] == claimed]
        return {
            "premise_holds": False,
            "trips_on_record": [str(e["event_time"]) for e in trips],
            "alerts_that_day": sorted(set(alerts)),
        }
    if len({str(e["event_time"]) for e in on_day}) > 1:
        raise Ambiguous("several trips that day")
    when = str(on_day[0]["event_time"])
    orders = corrective["work_orders"]
    if params.get("reading") != FROM_DAY_START:
        orders = [o for o in orders if str(o["reported_date"]) > when]
    ids = [str(o["wo_id"]) for o in orders]
    return {
        "premise_holds": True,
        "trip_time": when,
        "corrective_raised": bool(ids),
        "work_orders": ids,
    }


def trip_outcome(answer: dict[str, Any]) -> str:
    """"premise_holds" or "false_premise" (as ``fmsr_false_premise``)."""
    return "premise_holds" if answer["premise_holds"] else "false_premise"


def _trip_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    if answer["premise_holds"]:
        return (
            f"{params['asset_id']} tripped at {answer['trip_time']}; corrective work orders "
            f"since: {and_join(answer['work_orders'])}"
        )
    alerts = answer["alerts_that_day"]
    return (
        f"the premise is false: {params['asset_id']} did not trip on {params['claim_date']}"
        + (f" (alerts that day: {and_join(alerts)})" if alerts else "")
        + f"; trips on record: {and_join(answer['trips_on_record'])}"
    )


@family(
    "wo_trip_false_premise",
    domain="wo",
    category="Decision Support",
    derive=_trip_derive,
    summarise=_trip_summary,
    outcome=trip_outcome,
    trivial=("premise_holds",),
)
async def trip_false_premise(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """"Since the trip on unit X on <day>, has corrective work been raised?"

    Half the draws name a day the unit tripped (the premise holds: the corrective work
    orders reported after the trip), the rest a day it did not (mostly a day with an alarm
    but no trip): the answer corrects the premise and lists the trips on record. Gated:
    counting the orders from the start of the trip day instead of the trip itself.
    """
    tripped = [x for x in ctx.assets if await _trips(ctx, x)]
    pool = tripped if tripped and rng.random() < TRIPPED_SHARE else list(ctx.assets)
    if not pool:
        return None
    a = pick(rng, pool)
    events = (await ctx.run1("get_events", equipment_id=a.asset_id))["events"]
    alerts = [e for e in events if e["event_group"] == "ALERT"]
    trip_days = sorted({day(e["event_time"]) for e in alerts
                        if str(e["event_type"]).endswith("_TRIP")})
    alarm_days = sorted({day(e["event_time"]) for e in alerts} - set(trip_days))
    if trip_days and rng.random() < 0.5:
        claim = pick(rng, trip_days)
    elif alarm_days and rng.random() < 0.7:
        claim = pick(rng, alarm_days)
    else:
        first, last = full_days(a)
        if first >= last:
            return None
        claim = first + timedelta(days=int(rng.integers((last - first).days + 1)))
        if claim in trip_days:
            return None
    d = iso_day(claim)
    calls = [
        ToolCall(name="get_events", args={"equipment_id": a.asset_id}),
        ToolCall(name="get_corrective_work_orders",
                 args={"equipment_id": a.asset_id, "start_date": d}),
    ]
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "claim_date": d,
                "weekday": WEEKDAYS[claim.weekday()]},
        tool_sequence=calls,
        mentions=[a.asset_id, d],
        grounding={"asset_id": a.asset_id, "start": d},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=[Reading(
            name=FROM_DAY_START,
            description="counts corrective work reported on the trip day before the trip too",
            params={"reading": FROM_DAY_START},
        )],
    )


# -- what a unit measures (iot, the `sensors` tool) -------------------------------------------

TEMPERATURE_CONTACTS: dict[str, tuple[str, str]] = {"oti": ("oti_a", "oti_t"),
                                                    "wti": ("wti_a", "wti_t")}
# Share of temperature questions about a past hour with an alarm contact closed.
ALARM_HOUR_SHARE = 0.5
# Quantities a person may ask about: telemetry ones and laboratory ones.
ASKED: tuple[str, ...] = (
    "inut", "wti", "oti", "vl12", "hydrogen", "acetylene", "water_content",
    "dielectric_rigidity", "acidity",
)


def _inventory_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    listing = outputs[0]
    hourly = [str(s["name"]) for s in listing["sensors"]]
    if params["ask"] == "quantity":
        q = params["quantity"]
        lab = [str(s["name"]) for s in listing.get("oil_sample_sensors", [])]
        if q not in hourly and q not in lab:
            raise Ambiguous(f"{q} is not listed at all")
        return {"measured_hourly": q in hourly, "in_oil_samples": q in lab}
    temps = [str(s["name"]) for s in listing["sensors"] if s.get("unit") == "degC"]
    records = outputs[1]["records"]
    if not records:
        raise Ambiguous("no records in the hour asked about")
    last = records[-1]
    latest = {s: float(last[s]) for s in temps if last.get(s) is not None}
    if len(latest) != len(temps):
        raise Ambiguous("a temperature is missing from the latest record")
    alarm = sorted(s for s, contacts in TEMPERATURE_CONTACTS.items()
                   if s in temps and any(last.get(c) == 1 for c in contacts))
    return {"temperature_sensors": temps, "timestamp": str(last["timestamp"]),
            "latest": latest, "in_alarm": alarm}


def inventory_outcome(answer: dict[str, Any]) -> str:
    """"hourly" / "lab_only" for a quantity; "in_alarm" / "no_alarm" for the temperatures."""
    if "measured_hourly" in answer:
        return "hourly" if answer["measured_hourly"] else "lab_only"
    return "in_alarm" if answer["in_alarm"] else "no_alarm"


def _inventory_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    if "measured_hourly" in answer:
        where = ("in the hourly telemetry" if answer["measured_hourly"]
                 else "only in the laboratory oil samples" if answer["in_oil_samples"]
                 else "not at all")
        return f"{params['asset_id']} measures {params['quantity']} {where}"
    values = ", ".join(f"{s} {num(v, 2)} °C" for s, v in answer["latest"].items())
    return (
        f"temperature measurements of {params['asset_id']}: "
        f"{and_join(answer['temperature_sensors'])}; readings at {answer['timestamp']}: {values}; "
        f"in alarm: {and_join(answer['in_alarm'])}"
    )


@family(
    "iot_sensor_inventory",
    domain="iot",
    category="Knowledge Query",
    derive=_inventory_derive,
    summarise=_inventory_summary,
    outcome=inventory_outcome,
    trivial=("no_alarm", "hourly"),
)
async def sensor_inventory(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """What a unit measures: is a quantity hourly telemetry or a laboratory oil-sample value,
    or which temperatures it reports, their readings (the latest record, or an hour of one of
    the unit's alarm days when an alarm or trip contact was closed) and which is in alarm."""
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    listing = ToolCall(name="sensors", args={"site_name": a.site_name, "asset_id": a.asset_id})
    if rng.random() < 0.5:
        quantity = pick(rng, ASKED)
        return Plan(
            params={"ask": "quantity", "asset_id": a.asset_id, "site": a.site_name,
                    "quantity": quantity, "quantity_label": _spoken(ctx, quantity)},
            tool_sequence=[listing],
            mentions=[a.asset_id, a.site_name],
            grounding={"site": a.site_name, "asset_id": a.asset_id},
            difficulty="easy",
        )
    out = await ctx.run([listing])
    temps = [str(s["name"]) for s in out[0]["sensors"] if s.get("unit") == "degC"]
    contacts = [c for s in temps for c in TEMPERATURE_CONTACTS.get(s, ()) if c in a.sensors]
    if not temps:
        return None
    params: dict[str, Any] = {"ask": "temperatures", "asset_id": a.asset_id,
                              "site": a.site_name, "at_time": False}
    read = history_call(a, iso_day(day(a.telemetry.end or "")), None, temps + contacts)
    mentions = [a.asset_id, a.site_name]
    alarm_days = sorted({d for d, _ in await _alerts(ctx, a)})
    if contacts and alarm_days and rng.random() < ALARM_HOUR_SHARE:
        when = pick(rng, alarm_days)
        out_day = await ctx.run1(
            "history", site_name=a.site_name, asset_id=a.asset_id, start=iso_day(when),
            final=iso_day(when + timedelta(days=1)), sensors=contacts,
        )
        hot = [str(r["timestamp"]) for r in out_day["records"]
               if any(r.get(c) == 1 for c in contacts)]
        if hot:
            ts = pick(rng, hot)
            read = history_call(a, ts, _plus_hours(ts, 1), temps + contacts)
            params |= {"at_time": True, "day": ts[:10], "hour": _hour_text(ts)}
            mentions += [ts[:10], _hour_text(ts)]
    return Plan(
        params=params,
        tool_sequence=[listing, read],
        mentions=mentions,
        grounding={"site": a.site_name, "asset_id": a.asset_id},
        difficulty="medium",
        hard_features=["multi_output"],
        tolerance={"latest": 0.01},
        rel_tolerance={"latest": 0.001},
    )



# -- a false premise about a work order (wo) --------------------------------------------------

KINDS = ("corrective", "preventive")
# Share of draws that name a work order the unit does not have (the next number after its
# last order); the rest name a real order as corrective or preventive at random.
MISSING_SHARE = 0.25


def _order_premise_derive(
    params: dict[str, Any], outputs: list[dict[str, Any]]
) -> dict[str, Any]:
    orders = {str(o["wo_id"]): o for o in outputs[0]["work_orders"]}
    order = orders.get(params["wo_id"])
    if order is None:
        return {"premise_holds": False, "exists": False, "work_orders_on_record": len(orders)}
    kind = "preventive" if order["preventive"] else "corrective"
    answer: dict[str, Any] = {
        "premise_holds": kind == params["claim_kind"], "exists": True, "kind": kind,
        "primary_code": order["primary_code"], "reported_date": order["reported_date"],
    }
    return answer


def _order_premise_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    if not answer["exists"]:
        return (
            f"the premise is false: {params['asset_id']} has no work order {params['wo_id']} "
            f"({answer['work_orders_on_record']} work orders on record)"
        )
    head = "" if answer["premise_holds"] else (
        f"the premise is false: {params['wo_id']} is {answer['kind']}, not "
        f"{params['claim_kind']}; "
    )
    return (
        f"{head}{params['wo_id']} on {params['asset_id']}: {answer['kind']}, code "
        f"{answer['primary_code']}, reported {answer['reported_date']}"
    )


@family(
    "wo_order_false_premise",
    domain="wo",
    category="Data Query",
    derive=_order_premise_derive,
    summarise=_order_premise_summary,
    outcome=trip_outcome,
    trivial=("premise_holds",),
)
async def order_false_premise(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """"What was corrective work order W on unit X raised for?" when W is preventive, or does
    not exist; the answer corrects the premise from the unit's work orders (or, when W is
    corrective, gives its code and report date)."""
    usable = [x for x in ctx.assets if x.work_orders > 0]
    if not usable:
        return None
    a = pick(rng, usable)
    call = ToolCall(name="get_work_orders", args={"equipment_id": a.asset_id})
    orders = (await ctx.run([call]))[0]["work_orders"]
    if not orders:
        return None
    if rng.random() < MISSING_SHARE:
        ids = sorted(str(o["wo_id"]) for o in orders)
        head, _, tail = ids[-1].rpartition("-")
        if not tail.isdigit():
            return None
        wo_id = f"{head}-{int(tail) + 1:0{len(tail)}d}"
    else:
        wo_id = str(pick(rng, orders)["wo_id"])
    claim = pick(rng, KINDS)
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "wo_id": wo_id,
                "claim_kind": claim},
        tool_sequence=[call],
        mentions=[a.asset_id, wo_id],
        grounding={"asset_id": a.asset_id},
        difficulty="medium",
    )
