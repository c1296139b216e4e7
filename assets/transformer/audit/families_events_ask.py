"""Re-derivations of the transformer's event, fleet and "how it is asked" families.

Each reads the raw documents (alert events, work orders, nameplates, oil samples, hourly
telemetry) and the class definition (failure modes, sensor units) and recomputes the answer
from the rule the family documents:

- event chains: the unit's alerts of a day in time order up to its one trip (a trip is an
  ``*_TRIP`` alert), corrective work reported within 24 hours of the first alert; the
  multi-agent variant adds the load factor K = S / S_rated (IEC 60076-7:2018, 3.1) of the
  day's hourly records up to the first alert and the order finished last;
- health ranking and outage priority: the documented rule health index of each unit's
  latest oil sample (:func:`standards.health_index`), equal scores as ties, the budget cut
  with equal scores broken by installation year (older first);
- failure modes behind a symptom or behind a unit's corrective work (asset.yaml table);
- a day's peak against its weekly pattern (median of the same weekday and hour over the
  two-day window and the four weeks before, modified z-score; or, the text read literally,
  level and spread from the four weeks before alone) or against the same hour of the
  previous weeks;
- requests that need a clarifying question, false premises about a trip or a work order,
  and what a unit measures.
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from assets.transformer.audit import standards
from assets.transformer.audit.common import is_preventive
from eval.audit.api import (
    AuditContext,
    Case,
    Derivation,
    Doc,
    NoSingleAnswer,
    NotApplicable,
    asset_work_orders,
    audits,
    day_of,
    derive_all,
    in_window,
    parse,
    series,
    window_modes,
)

ONE: dict[str, list[Any]] = {"_": [None]}


# -- shared reading of events and work orders ------------------------------------------------


def unit_alerts(ctx: AuditContext, asset: str) -> list[Doc]:
    """The unit's alarm and trip events (``event_group`` ALERT), by time."""
    return sorted(
        (e for e in ctx.raw.work_db("events")
         if e.get("equipment_id") == asset and e.get("event_group") == "ALERT"),
        key=lambda e: str(e["event_time"]),
    )


def is_trip(event: Doc) -> bool:
    """An alert of a trip contact (``OTI_TRIP``, ``WTI_TRIP``)."""
    return str(event.get("event_type", "")).upper().endswith("_TRIP")


def corrective_orders(ctx: AuditContext, asset: str) -> list[Doc]:
    """The unit's corrective work orders by reported date, then id."""
    return [o for o in asset_work_orders(ctx, asset) if not is_preventive(o)]


def day_chain(ctx: AuditContext, asset: str, day: str, response: str) -> dict[str, Any]:
    """The alerts of ``day`` up to the trip, and the corrective work answering the first.

    ``response``: ``24h`` counts orders reported from the first alert up to 24 hours after
    it (both ends included); ``next_day_end`` up to the end of the next calendar day.

    Raises:
        NoSingleAnswer: No alert that day, two trips, or alerts after the trip.
    """
    alerts = [e for e in unit_alerts(ctx, asset) if day_of(e["event_time"]) == day]
    if not alerts:
        raise NoSingleAnswer(f"no alert of {asset} on {day}")
    trips = [e for e in alerts if is_trip(e)]
    if len(trips) > 1:
        raise NoSingleAnswer(f"{len(trips)} trips on {day}")
    if trips and alerts[-1] is not trips[0]:
        raise NoSingleAnswer("alerts after the trip")
    first = parse(alerts[0]["event_time"])
    if response == "24h":
        last = first + timedelta(hours=24)
    else:
        last = datetime.combine(first.date() + timedelta(days=2), datetime.min.time())
    orders = [o for o in corrective_orders(ctx, asset)
              if first <= parse(o["reported_date"]) <= last]
    steps = [(str(e["event_time"]), 0, str(e["event_type"])) for e in alerts]
    steps += [(str(o["reported_date"]), 1, str(o["wo_id"])) for o in orders]
    return {
        "chain": [{"time": t, "step": s} for t, _, s in sorted(steps)],
        "tripped": bool(trips),
        "work_orders": [str(o["wo_id"]) for o in orders],
        "_orders": orders,
        "_first": first,
    }


def response_choices(text: str) -> list[str]:
    """"Within 24 hours" pins the response window; "within a day" lets a reader count to the
    end of the next calendar day."""
    low = text.lower()
    pinned = any(w in low for w in ("24 h", "24-hour", "24 hours", "twenty-four"))
    return ["24h"] if pinned else ["24h", "next_day_end"]


@audits("wo_alarm_chain")
def wo_alarm_chain(ctx: AuditContext, case: Case) -> Derivation:
    """A day's alerts in order up to the trip, and the corrective work that answered them."""
    asset, day = case.p("asset_id"), case.p("day") or case.p("start")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        chain = day_chain(ctx, asset, day, c["response"])
        return {k: v for k, v in chain.items() if not k.startswith("_")}

    return Derivation(derive_all({"response": response_choices(case.text)}, derive))


LOAD_MARGIN_PCT = 0.5  # S from rounded voltages and currents: |K − 100 %| ≤ 0.5 decides nothing


def overload_before(records: list[Doc], rated_mva: float, first: datetime, dating: str,
                    records_read: str) -> tuple[str | None, float]:
    """(first record of the alert's day with K > 100 %, peak K in %) over the day's records
    up to the first alert.

    ``dating``: ``first_above`` (the first such record of the day) or ``unbroken_run`` (the
    start of the run above the rating that reaches the last record read). ``records_read``:
    ``at_or_before`` the alert, or ``hour_end`` (the record closing the alert's hour too).

    Raises:
        NoSingleAnswer: No record, or a deciding K within 0.5 % of the rating.
    """
    day = first.date().isoformat()
    rows = [(str(r["timestamp"])[:19], 100.0 * float(r["load_mva"]) / rated_mva)
            for r in records if r.get("load_mva") is not None and day_of(r["timestamp"]) == day]
    kept = [(t, k) for t, k in rows if parse(t) <= first]
    if records_read == "hour_end":
        kept += [(t, k) for t, k in rows if parse(t) > first][:1]
    if not kept:
        raise NoSingleAnswer("no load record that day up to the first alert")
    if dating == "unbroken_run":
        i = len(kept)
        while i > 0 and kept[i - 1][1] > 100.0:
            i -= 1
        start = i if i < len(kept) else None
    else:
        start = next((i for i, (_, k) in enumerate(kept) if k > 100.0), None)
    looked_at = kept if start is None else kept[:start + 1]
    if any(abs(k - 100.0) <= LOAD_MARGIN_PCT for _, k in looked_at):
        raise NoSingleAnswer("a deciding load reading within 0.5 % of the rating")
    return (None if start is None else kept[start][0]), max(k for _, k in kept)


@audits("ma_trip_reconstruction")
def ma_trip_reconstruction(ctx: AuditContext, case: Case) -> Derivation:
    """Load before the first alert (K > 1 first that day, peak), the chain, and the closer."""
    asset, day = case.p("asset_id"), case.p("day") or case.p("start")
    plate = ctx.raw.nameplate(asset) or {}
    if not plate.get("rated_mva"):
        raise NoSingleAnswer(f"no rating on the nameplate of {asset}")
    rated = float(plate["rated_mva"])
    records = [d for d in ctx.raw.telemetry(asset) if day_of(d["timestamp"]) == day]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        chain = day_chain(ctx, asset, day, c["response"])
        start, peak = overload_before(records, rated, chain["_first"], c["dating"],
                                      c["records"])
        finished = [o for o in chain["_orders"] if o.get("actual_finish")]
        closer = max(finished, key=lambda o: (str(o["actual_finish"]), str(o["wo_id"])),
                     default=None)
        return {
            "chain": chain["chain"], "tripped": chain["tripped"],
            "work_orders": chain["work_orders"],
            "overload_start": start, "peak_load_pct": peak,
            "closed_by": None if closer is None else str(closer["wo_id"]),
            "closed_at": None if closer is None else str(closer["actual_finish"]),
        }

    low = case.text.lower()
    dims = {
        "response": response_choices(case.text),
        # "first ... that day" dates the overload from the day's first record above the rating.
        "dating": ["first_above"] if "first" in low else ["first_above", "unbroken_run"],
        # "before the first alarm" reads no record after it.
        "records": ["at_or_before"] if "before" in low else ["at_or_before", "hour_end"],
    }
    return Derivation(derive_all(dims, derive))


# -- health ranking and outage priority ------------------------------------------------------

HI_FIELDS: tuple[str, ...] = (
    "hydrogen", "methane", "ethane", "ethylene", "acetylene", "co", "co2",
    "dielectric_rigidity", "interfacial_v", "acidity", "water_content", "power_factor",
)


def scope_units(ctx: AuditContext, site: str | None) -> list[str]:
    """The units of a site (every site when None) that have an oil sample, by id."""
    return sorted(str(n["asset_id"]) for n in ctx.raw.nameplates()
                  if (site is None or n.get("site_name") == site)
                  and ctx.raw.oil(str(n["asset_id"])))


def latest_values(ctx: AuditContext, unit: str) -> dict[str, float | None]:
    """The health-index inputs of the unit's latest oil sample."""
    sample = ctx.raw.oil(unit)[-1]
    return {f: (None if sample.get(f) is None else float(sample[f])) for f in HI_FIELDS}


def unit_scores(ctx: AuditContext, units: list[str], acidity: str) -> dict[str, float]:
    """Unit → rule health index of its latest sample (acidity ``scored`` or ``left_out``)."""
    return {u: standards.health_index(latest_values(ctx, u), acidity == "scored")[0]
            for u in units}


def acidity_choices(ctx: AuditContext, units: list[str]) -> list[str]:
    """Score the oil-quality factor with the samples' acidity, or without it (a reader may
    leave it out); only the latter when no sample carries it."""
    measured = any(latest_values(ctx, u)["acidity"] is not None for u in units)
    return ["scored", "left_out"] if measured else ["left_out"]


def case_scope(ctx: AuditContext, case: Case) -> list[str]:
    """The units a ranking case is about: its site's, or the whole fleet's."""
    site = None if case.p("scope") == "fleet" else case.p("site")
    units = scope_units(ctx, site)
    if len(units) < 2:
        raise NoSingleAnswer(f"{len(units)} units with an oil sample in scope")
    return units


@audits("fmsr_fleet_health_ranking")
def fmsr_fleet_health_ranking(ctx: AuditContext, case: Case) -> Derivation:
    """Units by health index of their latest oil sample, worst first, equal scores tied."""
    units = case_scope(ctx, case)

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        scores = unit_scores(ctx, units, c["acidity"])
        levels = sorted(set(scores.values()))
        ranking = [{"units": sorted(u for u in units if scores[u] == v), "health_index": v}
                   for v in levels]
        if "worst" in case.answer or case.p("ask") == "worst":
            return {"worst": ranking[0]["units"], "health_index": ranking[0]["health_index"]}
        return {"ranking": ranking}

    return Derivation(derive_all({"acidity": acidity_choices(ctx, units)}, derive))


@audits("ma_outage_priority")
def ma_outage_priority(ctx: AuditContext, case: Case) -> Derivation:
    """The ``budget`` units to take out first: lowest index first, older first on a tie."""
    units = case_scope(ctx, case)
    budget = int(case.p("budget"))
    years: dict[str, int] = {}
    for u in units:
        year = (ctx.raw.nameplate(u) or {}).get("year_installed")
        if year is None:
            raise NoSingleAnswer(f"no installation year of {u}")
        years[u] = int(year)

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        scores = unit_scores(ctx, units, c["acidity"])
        order = sorted(units, key=lambda u: (scores[u], years[u]))
        decided = order[:budget + 1]  # the chosen ones in order, and the first one left out
        for a, b in itertools.pairwise(decided):
            if (scores[a], years[a]) == (scores[b], years[b]):
                raise NoSingleAnswer(f"{a} and {b} share score and installation year")
        chosen = order[:budget]
        return {
            "chosen": chosen,
            "health_index": {u: scores[u] for u in chosen},
            "tie_broken_by_age": any(scores[a] == scores[b]
                                     for a, b in itertools.pairwise(decided)),
        }

    return Derivation(derive_all({"acidity": acidity_choices(ctx, units)}, derive))


# -- failure modes -----------------------------------------------------------------------------


@audits("fmsr_symptom_failure_modes")
def fmsr_symptom_failure_modes(ctx: AuditContext, case: Case) -> Derivation:
    """Failure modes every named sensor reveals, with their failure codes (asset.yaml)."""
    sensors = [s for s in (case.p("sensors") or [case.p("sensor")]) if s]

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        modes = sorted((fm for fm in ctx.failure_modes
                        if all(s in (fm.get("sensors") or []) for s in sensors)),
                       key=lambda fm: str(fm["id"]))
        return {"failure_modes": [str(fm["id"]) for fm in modes],
                "failure_codes": {str(fm["id"]): str(fm["failure_code"]) for fm in modes}}

    return Derivation(derive_all(ONE, derive))


@audits("wo_workorder_failure_modes")
def wo_workorder_failure_modes(ctx: AuditContext, case: Case) -> Derivation:
    """Corrective work of a window → its codes → the failure modes and their sensors."""
    asset, start, end = case.p("asset_id"), case.p("start"), case.p("end")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = [o for o in corrective_orders(ctx, asset)
                  if in_window(str(o["reported_date"]), start, end, c["window"])]
        codes = sorted({str(o["primary_code"]) for o in orders})
        modes = [fm for fm in ctx.failure_modes if str(fm.get("failure_code")) in codes]
        return {
            "work_orders": len(orders),
            "codes": codes,
            "failure_modes": sorted(str(fm["id"]) for fm in modes),
            "sensors": sorted({str(s) for fm in modes for s in fm.get("sensors") or []}),
        }

    return Derivation(derive_all({"window": window_modes(case.text, end)}, derive))


# -- a day's peak against its weekly pattern, and against the same hour of earlier weeks ------

BASELINE_WEEKS = 4


def day_peak(ctx: AuditContext, asset: str, sensor: str, day: str) -> tuple[str, float]:
    """The one highest reading of ``sensor`` on ``day`` (a whole day of readings)."""
    pairs = [(str(d["timestamp"])[:19], float(d[sensor])) for d in ctx.raw.telemetry(asset)
             if day_of(d["timestamp"]) == day and d.get(sensor) is not None]
    if len(pairs) < 24:
        raise NoSingleAnswer(f"{len(pairs)} readings of {sensor} on {day}")
    best = max(v for _, v in pairs)
    hits = [(t, v) for t, v in pairs if v == best]
    if len(hits) > 1:
        raise NoSingleAnswer(f"{len(hits)} readings share the peak of {day}")
    return hits[0]


def weekly_expected(grid: list[int], values: list[float], i: int, min_weeks: int = 3) -> float:
    """The usual level of reading ``i``: the median of its weekday-and-hour slot over the
    reference (the coarser slots of :func:`series.weekly_anomalies` when it is short)."""
    x = np.array(values, dtype=float)
    secs = np.array(grid, dtype=np.int64)
    hours = (secs // 3600) % 24
    days = np.array([series.weekday(int(t)) for t in secs])
    weekend = days >= 5
    for sel in ((days == days[i]) & (hours == hours[i]),
                (weekend == weekend[i]) & (hours == hours[i]), hours == hours[i]):
        if sel.sum() >= min_weeks:
            break
    return float(np.median(x[sel]))


@audits("tsfm_weekly_pattern")
def tsfm_weekly_pattern(ctx: AuditContext, case: Case) -> Derivation:
    """Is the day's peak an anomaly against the same weekday and hour of the four weeks
    before (modified z-score of the residuals, two-day scored window from the day)?"""
    asset, sensor, day = case.p("asset_id"), case.p("sensor"), case.p("day") or case.p("start")
    peak_time, peak_value = day_peak(ctx, asset, sensor, day)
    day0 = datetime.fromisoformat(day)

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        if c["baseline"] == "four_weeks_only":
            if c["scored_from"] != "day":
                raise NotApplicable("the four weeks before the day have no scored window")
            return history_only(c)
        start = day0 - timedelta(days=1 if c["scored_from"] == "day_before" else 0)
        lo = start - timedelta(weeks=BASELINE_WEEKS)
        hi = start + timedelta(days=2)
        pairs = [(str(d["timestamp"])[:19], float(d[sensor])) for d in ctx.raw.telemetry(asset)
                 if d.get(sensor) is not None
                 and lo <= parse(d["timestamp"]) < hi]
        grid, values = series.hourly_grid([t for t, _ in pairs], [v for _, v in pairs])
        flagged = series.weekly_anomalies(grid, values, series.epoch(start.isoformat()),
                                          float(c["cutoff"]))
        hit = any(t == peak_time for t, _ in flagged)
        expected = None
        if hit:
            expected = weekly_expected(grid, values, grid.index(series.epoch(peak_time)))
        return {"peak_time": peak_time, "peak_value": peak_value,
                "verdict": "anomaly" if hit else "usual_pattern", "expected": expected}

    def history_only(c: dict[str, Any]) -> dict[str, Any]:
        # Baseline and spread from the four weeks before the day alone: expected = median of
        # the slot's four readings; residuals of those weeks give the MAD; the peak is scored
        # against them.
        lo = day0 - timedelta(weeks=BASELINE_WEEKS)
        pairs = [(parse(d["timestamp"]), float(d[sensor])) for d in ctx.raw.telemetry(asset)
                 if d.get(sensor) is not None and lo <= parse(d["timestamp"]) < day0]
        slots: dict[tuple[int, int], list[float]] = {}
        for t, v in pairs:
            slots.setdefault((t.weekday(), t.hour), []).append(v)
        med = {k: float(np.median(v)) for k, v in slots.items()}
        resid = np.array([v - med[(t.weekday(), t.hour)] for t, v in pairs])
        pt = parse(peak_time)
        if (pt.weekday(), pt.hour) not in med:
            raise NoSingleAnswer("no reading of the slot in the four weeks before")
        expected = med[(pt.weekday(), pt.hour)]
        z = series.modified_z(np.append(resid, peak_value - expected))[-1]
        hit = abs(float(z)) > float(c["cutoff"])
        return {"peak_time": peak_time, "peak_value": peak_value,
                "verdict": "anomaly" if hit else "usual_pattern",
                "expected": expected if hit else None}

    # The text names no cut-off: the usual ones (3.5 of Iglewicz & Hoaglin, 3.0, 4.0) and a
    # scored window that starts the day before are all fair readings.
    # "The same weekday and hour over the four weeks before" may be read literally: the usual
    # level and the spread from those four weeks alone, the day itself left out.
    dims: dict[str, list[Any]] = {"cutoff": [3.5, 3.0, 4.0], "scored_from": ["day", "day_before"],
                                  "baseline": ["with_window", "four_weeks_only"]}
    return Derivation(derive_all(dims, derive))


@audits("iot_same_hour_weeks")
def iot_same_hour_weeks(ctx: AuditContext, case: Case) -> Derivation:
    """The day's peak reading against the reading at the same hour on the same weekday of
    the previous N weeks."""
    asset, sensor = case.p("asset_id"), case.p("sensor")
    day, weeks = case.p("day") or case.p("start"), int(case.p("weeks"))
    peak_time, peak_value = day_peak(ctx, asset, sensor, day)
    readings = {str(d["timestamp"])[:19]: float(d[sensor]) for d in ctx.raw.telemetry(asset)
                if d.get(sensor) is not None}

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        previous: dict[str, float] = {}
        for k in range(1, weeks + 1):
            then = parse(peak_time) - timedelta(weeks=k)
            if c["compare"] == "same_hour":
                if then.isoformat() not in readings:
                    raise NoSingleAnswer(f"no {sensor} reading at {then.isoformat()}")
                previous[then.date().isoformat()] = readings[then.isoformat()]
            else:
                that_day = [v for t, v in readings.items() if t[:10] == then.date().isoformat()]
                if not that_day:
                    raise NoSingleAnswer(f"no {sensor} readings on {then.date()}")
                previous[then.date().isoformat()] = max(that_day)
        top = max(previous.values())
        return {"peak_value": peak_value, "previous": previous, "previous_max": top,
                "above_all_previous": peak_value > top}

    # A text that names the hour ("the 19:00 readings of ... and the previous 2 Thursdays")
    # or says "the same hour" asks about the readings at that hour; one that does neither
    # could be read as those days' peaks.
    low = case.text.lower()
    hour = str(case.p("hour") or peak_time[11:16])
    pinned = re.search(r"(same|that)( \w+)? (hour|time)", low) is not None or hour in low
    dims = {"compare": ["same_hour"] if pinned else ["same_hour", "daily_peaks"]}
    return Derivation(derive_all(dims, derive))


# -- requests that need a clarifying question ----------------------------------------------


def sensor_units(ctx: AuditContext) -> dict[str, str]:
    """Sensor → engineering unit, from the class definition."""
    return {str(s["name"]): str(s.get("unit")) for s in ctx.sensors}


def telemetry_sensors(ctx: AuditContext, asset: str) -> list[str]:
    """The quantities of the unit's latest telemetry document, by name."""
    docs = ctx.raw.telemetry(asset)
    if not docs:
        return []
    meta = {"_id", "_rev", "asset_id", "site_name", "timestamp", "dataset", "asset_class"}
    return sorted(k for k in docs[-1] if k not in meta)


VAGUE_UNITS = {"temperature": "degC", "current": "A", "voltage": "kV"}


@audits("iot_clarify_request")
def iot_clarify_request(ctx: AuditContext, case: Case) -> Derivation:
    """The request names no unit of a site with several, or a vague quantity the unit
    measures with several sensors: ask back, listing the options the store holds."""

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        if case.p("ask") == "unit":
            site = case.p("site")
            options = sorted(str(n["asset_id"]) for n in ctx.raw.nameplates()
                             if n.get("site_name") == site)
        else:
            units = sensor_units(ctx)
            wanted = VAGUE_UNITS[str(case.p("quantity"))]
            options = [s for s in telemetry_sensors(ctx, case.p("asset_id"))
                       if units.get(s) == wanted]
        if len(options) < 2:
            raise NoSingleAnswer(f"{len(options)} option: nothing to ask back")
        return {"clarification_needed": True, "options": options}

    return Derivation(derive_all(ONE, derive))


@audits("wo_clarify_order")
def wo_clarify_order(ctx: AuditContext, case: Case) -> Derivation:
    """"The corrective job" of a week that holds several: ask back, listing them."""
    asset, start, end = case.p("asset_id"), case.p("start"), case.p("end")
    if end is None:
        end = (datetime.fromisoformat(start) + timedelta(days=7)).date().isoformat()

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        options = [str(o["wo_id"]) for o in corrective_orders(ctx, asset)
                   if in_window(str(o["reported_date"]), start, end, c["window"])]
        if len(options) < 2:
            raise NoSingleAnswer(f"{len(options)} corrective work order in the week")
        return {"clarification_needed": True, "options": options}

    return Derivation(derive_all({"window": window_modes(case.text, end)}, derive))


# -- false premises ----------------------------------------------------------------------------


@audits("wo_trip_false_premise")
def wo_trip_false_premise(ctx: AuditContext, case: Case) -> Derivation:
    """"Since the trip on <day>, has corrective work been raised?": the trip is looked up in
    the unit's alerts; when there is none that day the premise is false."""
    asset, claimed = case.p("asset_id"), case.p("claim_date") or case.p("start")
    alerts = unit_alerts(ctx, asset)
    trips = [e for e in alerts if is_trip(e)]
    on_day = [e for e in trips if day_of(e["event_time"]) == claimed]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        if not on_day:
            return {
                "premise_holds": False,
                "trips_on_record": [str(e["event_time"]) for e in trips],
                "alerts_that_day": sorted({str(e["event_type"]) for e in alerts
                                           if day_of(e["event_time"]) == claimed}),
            }
        if len({str(e["event_time"]) for e in on_day}) > 1:
            raise NoSingleAnswer(f"{len(on_day)} trips on {claimed}")
        when = str(on_day[0]["event_time"])
        edge = claimed + "T00:00:00" if c["since"] == "day_start" else when[:19]
        orders = [str(o["wo_id"]) for o in corrective_orders(ctx, asset)
                  if (str(o["reported_date"])[:19] >= edge if c["since"] == "day_start"
                      else str(o["reported_date"])[:19] > edge)]
        return {"premise_holds": True, "trip_time": when, "corrective_raised": bool(orders),
                "work_orders": orders}

    premises = [] if on_day else [f"{asset} did not trip on {claimed}"]
    return Derivation(derive_all({"since": ["the_trip", "day_start"]}, derive),
                      premises_false=premises)


@audits("wo_order_false_premise")
def wo_order_false_premise(ctx: AuditContext, case: Case) -> Derivation:
    """"What was corrective (preventive) work order W raised for?": W is looked up among the
    unit's work orders; the premise fails when W is missing or of the other kind."""
    asset, wo_id, claim = case.p("asset_id"), str(case.p("wo_id")), case.p("claim_kind")
    orders = asset_work_orders(ctx, asset)
    hits = [o for o in orders if str(o["wo_id"]) == wo_id]

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        if not hits:
            return {"premise_holds": False, "exists": False, "work_orders_on_record": len(orders)}
        if len(hits) > 1:
            raise NoSingleAnswer(f"{len(hits)} work orders {wo_id}")
        order = hits[0]
        kind = "preventive" if is_preventive(order) else "corrective"
        return {"premise_holds": kind == claim, "exists": True, "kind": kind,
                "primary_code": str(order["primary_code"]),
                "reported_date": str(order["reported_date"])}

    readings = derive_all(ONE, derive)
    holds = bool(readings and readings[0].answer and readings[0].answer["premise_holds"])
    premises = [] if holds else [f"{wo_id} is not a {claim} work order of {asset}"]
    return Derivation(readings, premises_false=premises)


# -- what a unit measures ----------------------------------------------------------------------

CONTACTS: dict[str, tuple[str, ...]] = {"oti": ("oti_a", "oti_t"), "wti": ("wti_a", "wti_t")}


@audits("iot_sensor_inventory")
def iot_sensor_inventory(ctx: AuditContext, case: Case) -> Derivation:
    """Is a quantity hourly telemetry or a laboratory oil-sample value; or the unit's
    temperatures, their readings at the latest record (or the hour asked) and which is in
    alarm (a closed alarm or trip contact)."""
    asset = case.p("asset_id")
    hourly = telemetry_sensors(ctx, asset)

    def quantity(_: dict[str, Any]) -> dict[str, Any]:
        q = str(case.p("quantity"))
        lab = {str(s["name"]) for s in ctx.sensors if s.get("source") == "oil_sample"}
        if q not in hourly and q not in lab:
            raise NoSingleAnswer(f"{q} is measured neither hourly nor in the oil samples")
        return {"measured_hourly": q in hourly, "in_oil_samples": q in lab}

    def temperatures(_: dict[str, Any]) -> dict[str, Any]:
        units = sensor_units(ctx)
        temps = [s for s in hourly if units.get(s) == "degC"]
        docs = ctx.raw.telemetry(asset)
        if case.p("at_time"):
            ts = f"{case.p('day')}T{case.p('hour')}:00"
            docs = [d for d in docs if str(d["timestamp"])[:19] == ts]
        if not docs:
            raise NoSingleAnswer("no record at the time asked")
        record = docs[-1]
        if any(record.get(s) is None for s in temps):
            raise NoSingleAnswer("a temperature is missing from the record")
        return {
            "temperature_sensors": temps,
            "timestamp": str(record["timestamp"]),
            "latest": {s: float(record[s]) for s in temps},
            "in_alarm": sorted(s for s in temps
                               if any(record.get(c) == 1 for c in CONTACTS.get(s, ()))),
        }

    fn = quantity if case.p("ask") == "quantity" else temperatures
    return Derivation(derive_all(ONE, fn))
