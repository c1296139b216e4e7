"""One independent re-derivation per task family, from raw documents and the seed's params.

Each function reads the case's parameters defensively (``case.p``), reads raw documents
through :class:`eval.audit.raw.RawStore`, and recomputes the answer with
:mod:`eval.audit.standards` / :mod:`eval.audit.series` under every reading the text allows.
Nothing here calls a tool or the project's diagnostic modules.
"""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta
from typing import Any

import numpy as np

from eval.audit import series, standards
from eval.audit.core import (
    AuditContext,
    Case,
    Derivation,
    DgaCheck,
    NoSingleAnswer,
    NotApplicable,
    Reading,
    audits,
    day_of,
    derive_all,
    in_window,
    next_day,
    parse,
    stamp,
    window_modes,
)
from eval.audit.raw import Doc

GASES: tuple[str, ...] = ("hydrogen", "methane", "ethane", "ethylene", "acetylene", "co", "co2")
NO_FAULT: frozenset[str] = frozenset({"normal", "ND", "UD", "DT", "NA"})
DEFAULT_SETTINGS: dict[str, float] = {
    "oti_alarm": 90.0, "oti_trip": 100.0, "wti_alarm": 110.0, "wti_trip": 130.0,
}


# -- shared helpers ------------------------------------------------------------------------------


def _pairs(docs: list[Doc], sensor: str) -> list[tuple[str, float]]:
    return [(str(d["timestamp"])[:19], float(d[sensor])) for d in docs if d.get(sensor) is not None]


def _argmax(pairs: list[tuple[str, float]], sign: float = 1.0) -> tuple[str, float]:
    if not pairs:
        raise NoSingleAnswer("no readings")
    best = max(sign * v for _, v in pairs)
    hits = [(t, v) for t, v in pairs if sign * v == best]
    if len(hits) > 1:
        raise NoSingleAnswer(f"{len(hits)} readings share the extreme")
    return hits[0]


def _window(ctx: AuditContext, asset_id: str, start: str, end: str | None, mode: str) -> list[Doc]:
    return [d for d in ctx.raw.telemetry(asset_id) if in_window(str(d["timestamp"]), start, end,
                                                               mode)]


def _gases(sample: Doc) -> dict[str, float | None]:
    return {g: (None if sample.get(g) is None else float(sample[g])) for g in GASES}


def _pick_sample(ctx: AuditContext, asset_id: str, which: str) -> Doc:
    samples = ctx.raw.oil(asset_id)
    if not samples:
        raise NoSingleAnswer("no oil samples")
    if which == "latest":
        return samples[-1]
    hits = [s for s in samples if day_of(s["timestamp"]) == which]
    if len(hits) != 1:
        raise NoSingleAnswer(f"{len(hits)} oil samples on {which}")
    return hits[0]


def _dga_methods(text: str) -> list[str]:
    """The DGA methods the text allows: the one it names, else all three (IEC first)."""
    low = text.lower()
    named = [m for m, words in (("iec", ("iec 60599", "iec ratio")), ("duval", ("duval",)),
                                ("rogers", ("rogers",))) if any(w in low for w in words)]
    return named if len(named) == 1 else ["iec", "duval", "rogers"]


def _dga_dims(text: str, details: bool) -> dict[str, list[Any]]:
    dims: dict[str, list[Any]] = {
        "method": _dga_methods(text),
        "gate": ["iec_and_ieee", "iec_typical", "ieee_condition1"],
        "precedence": ["severe_first", "d1_first"],
    }
    if details:
        dims["agreement"] = ["any_determined", "fault_classes_only"]
    return dims


def _dga_answer(gases: dict[str, float | None], choice: dict[str, Any], details: bool
                ) -> dict[str, Any]:
    fault = standards.dga_fault(gases, choice["method"], choice["gate"], choice["precedence"])
    answer: dict[str, Any] = {"fault_type": fault}
    if details:
        classes = standards.method_classes(gases, choice["precedence"])
        answer["ieee_condition"] = standards.ieee_condition(gases)
        answer["methods_agreeing"] = standards.methods_agreeing(
            classes, count_non_faults=choice["agreement"] == "any_determined"
        )
    return answer


def _truth_class(ctx: AuditContext, asset_id: str, when: str) -> str | None:
    """The injected fault in force at ``when`` ("normal" before onset / when none), or None."""
    truth = ctx.raw.truth(asset_id)
    if truth is None:
        return None
    fault = str(truth.get("fault_type") or "none")
    onset = truth.get("onset")
    if fault in ("none", "") or onset is None or str(when)[:19] < str(onset)[:19]:
        return "normal"
    return fault


def _dga_check(ctx: AuditContext, asset_id: str, sample: Doc, reference: str) -> DgaCheck:
    gases = _gases(sample)
    duval = standards.dga_fault(gases, "duval", "iec_and_ieee")
    return DgaCheck(reference=reference, duval=duval,
                    truth=_truth_class(ctx, asset_id, str(sample["timestamp"])))


def _paper_choices(case: Case, plate: Doc | None) -> list[str]:
    """Paper readings: stated in the text (pinned), else the nameplate's and the default
    Kraft."""
    low = case.text.lower()
    if "non-upgraded" in low or "kraft" in low:  # "non-upgraded Kraft paper" first
        return ["kraft"]
    if "thermally upgraded" in low or "upgraded paper" in low:
        return ["upgraded"]
    plate_paper = str((plate or {}).get("paper") or "kraft")
    return list(dict.fromkeys([plate_paper, "kraft"]))


def _settings(plate: Doc | None) -> dict[str, float]:
    return {k: float((plate or {}).get(k, v)) for k, v in DEFAULT_SETTINGS.items()}


def _size(plate: Doc | None) -> standards.SizeClass:
    if plate is None or plate.get("rated_mva") is None:
        return "medium"
    return standards.size_class_of(float(plate["rated_mva"]))


def _assess(wti: float, oti: float, paper: str, plate: Doc | None,
            contacts: dict[str, int | None] | None) -> dict[str, Any]:
    pp: standards.Paper = "upgraded" if paper == "upgraded" else "kraft"
    status = standards.thermal_status(wti, oti, pp, _size(plate))
    alarms = standards.alarm_state(wti, oti, _settings(plate), contacts)
    return {
        "thermal_status": status,
        "risk_level": standards.risk_level(status, alarms),
        "relative_ageing_rate": standards.ageing_rate(wti, pp),
    }


def _work_orders(ctx: AuditContext, asset_id: str) -> list[Doc]:
    return sorted(
        (d for d in ctx.raw.work_db("wo_events") if d.get("equipment_id") == asset_id),
        key=lambda d: (str(d["reported_date"]), str(d["wo_id"])),
    )


def _is_preventive(d: Doc) -> bool:
    if "wo_type" in d:
        return str(d["wo_type"]).lower() == "preventive"
    value = d.get("preventive")
    # AssetOpsBench's convention: the strings "TRUE" / "FALSE".
    return value.strip().upper() == "TRUE" if isinstance(value, str) else bool(value)


def _code_for(ctx: AuditContext, fault: str) -> str:
    codes = [
        str(c["code"]) for c in ctx.raw.work_db("failure_codes") if c.get("fault_type") == fault
    ]
    if len(codes) != 1:
        raise NoSingleAnswer(f"{len(codes)} failure codes for {fault}")
    return codes[0]


# -- iot -----------------------------------------------------------------------------------------


@audits("iot_latest_value")
def iot_latest_value(ctx: AuditContext, case: Case) -> Derivation:
    """Latest reading of a sensor (and the last day's peak)."""
    asset, sensor = case.p("asset_id"), case.p("sensor")
    last_day = case.p("last_day")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        pairs = _pairs(ctx.raw.telemetry(asset), sensor)
        if not pairs:
            raise NoSingleAnswer("no readings")
        ts, value = pairs[-1]
        answer: dict[str, Any] = {"timestamp": ts, "value": value}
        if case.p("with_day_max"):
            day = last_day or day_of(ts)
            t_max, v_max = _argmax([(t, v) for t, v in pairs if day_of(t) == day])
            answer |= {"day_max": v_max, "day_max_timestamp": t_max}
        return answer

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_sensor_stat")
def iot_sensor_stat(ctx: AuditContext, case: Case) -> Derivation:
    """Max, min or mean of a sensor over a window."""
    asset, sensor, stat = case.p("asset_id"), case.p("sensor"), case.p("stat")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        pairs = _pairs(_window(ctx, asset, case.p("start"), case.p("end"), c["window"]), sensor)
        if not pairs:
            raise NoSingleAnswer("no readings in the window")
        if stat == "mean":
            return {"value": float(np.mean([v for _, v in pairs])), "count": len(pairs)}
        ts, value = _argmax(pairs, 1.0 if stat == "max" else -1.0)
        answer: dict[str, Any] = {"value": value}
        if case.p("with_time"):
            answer["timestamp"] = ts
        return answer

    return Derivation(derive_all({"window": window_modes(case.text)}, derive))


@audits("iot_site_threshold")
def iot_site_threshold(ctx: AuditContext, case: Case) -> Derivation:
    """Units of a site whose sensor went strictly above a threshold in a window."""
    site, sensor, threshold = case.p("site"), case.p("sensor"), float(case.p("threshold"))
    units = [str(n["asset_id"]) for n in ctx.raw.nameplates() if n.get("site_name") == site]
    units = [u for u in units if ctx.raw.telemetry(u)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        peaks = {}
        for u in units:
            pairs = _pairs(_window(ctx, u, case.p("start"), case.p("end"), c["window"]), sensor)
            if not pairs:
                raise NoSingleAnswer(f"{u} has no readings in the window")
            peaks[u] = max(v for _, v in pairs)
        above = sorted(u for u, v in peaks.items() if v > threshold)
        answer: dict[str, Any] = {"assets_above": above}
        if case.p("with_peaks"):
            answer["peaks"] = {u: peaks[u] for u in above}
        return answer

    return Derivation(derive_all({"window": window_modes(case.text)}, derive))


@audits("iot_data_coverage")
def iot_data_coverage(ctx: AuditContext, case: Case) -> Derivation:
    """First, last and count of a sensor's telemetry or of the oil samples."""
    asset = case.p("asset_id")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        if case.p("source") == "oil":
            stamps = [str(d["timestamp"])[:19] for d in ctx.raw.oil(asset)]
        else:
            stamps = [t for t, _ in _pairs(ctx.raw.telemetry(asset), case.p("sensor"))]
        if not stamps:
            raise NoSingleAnswer("no records")
        return {"first": stamps[0], "last": stamps[-1], "count": len(stamps)}

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_oil_latest")
def iot_oil_latest(ctx: AuditContext, case: Case) -> Derivation:
    """A quantity of the latest oil sample (and its change since the previous one)."""
    asset, q = case.p("asset_id"), case.p("quantity")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        rows = [d for d in ctx.raw.oil(asset) if d.get(q) is not None]
        if not rows:
            raise NoSingleAnswer("no sample carries the quantity")
        answer: dict[str, Any] = {"timestamp": str(rows[-1]["timestamp"])[:19],
                                  "value": rows[-1][q]}
        if case.p("with_change"):
            if len(rows) < 2:
                raise NoSingleAnswer("one sample only")
            answer["change"] = float(rows[-1][q]) - float(rows[-2][q])
            answer["previous_timestamp"] = str(rows[-2]["timestamp"])[:19]
        return answer

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_site_units")
def iot_site_units(ctx: AuditContext, case: Case) -> Derivation:
    """Units of a site (and the one with the highest rating)."""
    site = case.p("site")

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        plates = [n for n in ctx.raw.nameplates() if n.get("site_name") == site]
        answer: dict[str, Any] = {"asset_ids": sorted(str(n["asset_id"]) for n in plates)}
        if case.p("with_largest"):
            largest, mva = _argmax([(str(n["asset_id"]), float(n.get("rated_mva") or 0))
                                    for n in plates])
            answer |= {"largest": largest, "largest_rated_mva": mva}
        return answer

    return Derivation(derive_all({"_": [None]}, derive))


@audits("iot_fleet_overview")
def iot_fleet_overview(ctx: AuditContext, case: Case) -> Derivation:
    """Sites and unit counts."""

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        counts = Counter(str(n["site_name"]) for n in ctx.raw.nameplates())
        sites = sorted(counts)
        return {"sites": sites, "units_per_site": {s: counts[s] for s in sites}}

    return Derivation(derive_all({"_": [None]}, derive))


# -- fmsr ----------------------------------------------------------------------------------------


@audits("fmsr_dga_stored")
def fmsr_dga_stored(ctx: AuditContext, case: Case) -> Derivation:
    """DGA class of a stored sample, under each method / significance gate / precedence."""
    asset, which = case.p("asset_id"), case.p("which", "latest")
    details = bool(case.p("with_details"))
    sample = _pick_sample(ctx, asset, which)
    gases = _gases(sample)

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        return {"sample_timestamp": str(sample["timestamp"])[:19]} | _dga_answer(gases, c, details)

    ref = str(case.answer.get("fault_type"))
    return Derivation(derive_all(_dga_dims(case.text, details), derive),
                      dga=_dga_check(ctx, asset, sample, ref))


@audits("fmsr_dga_given")
def fmsr_dga_given(ctx: AuditContext, case: Case) -> Derivation:
    """DGA class of gas concentrations stated in the text."""
    stated = case.p("gases") or {}
    gases = {g: (None if stated.get(g) is None else float(stated[g])) for g in GASES}
    details = bool(case.p("with_details"))
    return Derivation(derive_all(_dga_dims(case.text, details),
                                 lambda c: _dga_answer(gases, c, details)))


@audits("fmsr_winding_assessment")
def fmsr_winding_assessment(ctx: AuditContext, case: Case) -> Derivation:
    """Thermal status, risk and ageing rate of a winding reading (a day's peak or given)."""
    asset = case.p("asset_id")
    plate = ctx.raw.nameplate(asset)
    stored = bool(case.p("stored"))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        if not stored:
            return _assess(float(case.p("wti")), float(case.p("oti")), c["paper"], plate, None)
        day = case.p("day")
        docs = _window(ctx, asset, day, next_day(day)[:10], "end_exclusive")
        ts, wti = _argmax(_pairs(docs, "wti"))
        reading = next(d for d in docs if str(d["timestamp"])[:19] == ts)
        contacts = {k: reading.get(k) for k in ("oti_a", "oti_t", "wti_a", "wti_t")}
        return {"timestamp": ts, "hot_spot_c": wti} | _assess(
            wti, float(reading["oti"]), c["paper"], plate, contacts
        )

    return Derivation(derive_all({"paper": _paper_choices(case, plate)}, derive))


@audits("fmsr_load_assessment")
def fmsr_load_assessment(ctx: AuditContext, case: Case) -> Derivation:
    """Loading band, load factor and imbalance at the hour of a day's peak phase-1 current."""
    asset, day = case.p("asset_id"), case.p("day")
    plate = ctx.raw.nameplate(asset)
    if plate is None or plate.get("rated_mva") is None:
        return Derivation([Reading("primary", None, "no nameplate rating")])
    rated = float(plate["rated_mva"])

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = _window(ctx, asset, day, next_day(day)[:10], "end_exclusive")
        ts, _ = _argmax(_pairs(docs, "il1"))
        r = next(d for d in docs if str(d["timestamp"])[:19] == ts)
        s = standards.apparent_power_mva(float(r["vl12"]), float(r["vl23"]), float(r["vl31"]),
                                         float(r["il1"]), float(r["il2"]), float(r["il3"]))
        lf = s / rated * 100.0
        return {
            "timestamp": ts,
            "loading_status": standards.loading_status(lf, c["size"], c["light_band"]),
            "load_factor_pct": lf,
            "current_imbalance_pct": standards.current_imbalance_pct(
                float(r["il1"]), float(r["il2"]), float(r["il3"])),
        }

    # The unit's size class from its rating; a reader who does not look the rating up may
    # apply the large-power limits (the strictest), unless the text states the size class.
    own = standards.size_class_of(rated)
    stated = any(f"{c} power transformer" in case.text.lower() or
                 f"{c} transformer" in case.text.lower() for c in ("distribution", "medium",
                                                                    "large"))
    dims: dict[str, list[Any]] = {
        "size": [own] if stated else list(dict.fromkeys([own, "large"])),
        "light_band": [True, False],
    }
    return Derivation(derive_all(dims, derive))


@audits("fmsr_sensor_failure_modes")
def fmsr_sensor_failure_modes(ctx: AuditContext, case: Case) -> Derivation:
    """Failure modes (asset.yaml) revealed by every one of the named sensors."""
    sensors = list(case.p("sensors") or [case.p("sensor")])

    def derive(_: dict[str, Any]) -> dict[str, Any]:
        modes = [str(fm["id"]) for fm in ctx.failure_modes
                 if all(s in (fm.get("sensors") or []) for s in sensors)]
        return {"failure_modes": sorted(modes)}

    return Derivation(derive_all({"_": [None]}, derive))


# -- tsfm ----------------------------------------------------------------------------------------


def _series(ctx: AuditContext, case: Case, mode: str, weeks_before: int = 0
            ) -> tuple[list[int], list[float]]:
    start = case.p("start")
    if weeks_before:
        start = (parse(stamp(start)) - timedelta(weeks=weeks_before)).isoformat()
    docs = _window(ctx, case.p("asset_id"), start, case.p("end"), mode)
    pairs = _pairs(docs, case.p("sensor"))
    if len(pairs) < 2 * series.PERIOD:
        raise NoSingleAnswer(f"{len(pairs)} readings, fewer than two days")
    return series.hourly_grid([t for t, _ in pairs], [v for _, v in pairs])


BASELINE_WEEKS = 4


def _anomaly_dims(case: Case) -> dict[str, list[Any]]:
    """Readings of an anomaly question: window end, baseline profile and cut-off.

    The baseline ("the usual level for that time") is the hour-of-day median over the window
    or a weekday × hour median over the window and the four weeks before it, unless the text
    names one. A text that states no cut-off may be read at 3.5 (Iglewicz & Hoaglin), 3.0 or
    4.0; a stated one is pinned.
    """
    low = case.text.lower()
    # Openers such as "the weekly asset review" must not pin the baseline: exact phrases only.
    if any(w in low for w in ("weekday", "day of the week", "day-of-week")):
        profiles = ["weekly_history"]
    elif "hour of day" in low or "hour-of-day" in low or "time of day" in low:
        profiles = ["hour_of_day"]
    else:
        profiles = ["hour_of_day", "weekly_history"]
    threshold = float(case.p("threshold", 3.5))
    stated = case.p("custom")
    if stated is None:
        stated = f"{threshold:g}" in case.text
    cutoffs = [threshold] if stated else list(dict.fromkeys([threshold, 3.0, 4.0]))
    # "How many anomalous hourly readings" pins counting hours; "how many anomalies" lets a
    # reader count a run of consecutive anomalous hours as one.
    counting = ["readings"] if "hour" in low else ["readings", "episodes"]
    return {"window": window_modes(case.text), "profile": profiles, "cutoff": cutoffs,
            "count": counting}


def _count(found: list[tuple[str, float]], how: str) -> int:
    if how == "readings":
        return len(found)
    times = [parse(t) for t, _ in found]
    return sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] != timedelta(hours=1))


def _anomalies(ctx: AuditContext, case: Case, c: dict[str, Any]) -> list[tuple[str, float]]:
    if c["profile"] == "weekly_history":
        grid, values = _series(ctx, case, c["window"], BASELINE_WEEKS)
        return series.weekly_anomalies(grid, values, series.epoch(stamp(case.p("start"))),
                                       float(c["cutoff"]))
    grid, values = _series(ctx, case, c["window"])
    return series.anomalies(grid, values, float(c["cutoff"]))


@audits("tsfm_anomalies")
def tsfm_anomalies(ctx: AuditContext, case: Case) -> Derivation:
    """Anomalies by the hour-of-day profile residual's modified z-score."""

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        found = _anomalies(ctx, case, c)
        answer: dict[str, Any] = {"count": _count(found, c["count"]),
                                  "timestamps": [t for t, _ in found]}
        if case.p("with_worst"):
            if not found:
                answer["worst"] = None
            else:
                answer["worst"] = _argmax([(t, abs(z)) for t, z in found])[0]
        return answer

    return Derivation(derive_all(_anomaly_dims(case), derive))


def _forecast(grid: list[int], values: list[float], horizon: int, method: str, init: str
              ) -> tuple[str, float, float]:
    """(last forecast time, its value, in-sample MAE) of one method."""
    last = series.iso(grid[-1] + 3600 * horizon)
    if method == "seasonal_naive":
        return last, series.seasonal_naive(values, horizon)[-1], series.seasonal_naive_mae(values)
    fit = series.holt_winters(values, horizon, init)  # type: ignore[arg-type]
    return last, fit.forecast[-1], fit.mae


@audits("tsfm_forecast")
def tsfm_forecast(ctx: AuditContext, case: Case) -> Derivation:
    """Forecast at the last horizon hour (Holt-Winters init readings; the fallback rule)."""
    horizon = int(case.p("horizon"))
    fallback = bool(case.p("fallback"))
    method = str(case.p("method", "holt_winters"))

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        grid, values = _series(ctx, case, c["window"])
        if fallback:
            hw = _forecast(grid, values, horizon, "holt_winters", c["init"])
            naive = _forecast(grid, values, horizon, "seasonal_naive", c["init"])
            chosen, name = (naive, "seasonal_naive") if hw[2] > naive[2] else (hw, "holt_winters")
        else:
            chosen, name = _forecast(grid, values, horizon, method, c["init"]), method
        return {"method": name, "timestamp": chosen[0], "value": chosen[1]}

    inits = (["two_day_linear", "two_day_flat", "one_day_no_trend"]
             if fallback or method == "holt_winters" else ["two_day_linear"])
    return Derivation(derive_all({"window": window_modes(case.text), "init": inits}, derive))


# -- wo ------------------------------------------------------------------------------------------


@audits("wo_count")
def wo_count(ctx: AuditContext, case: Case) -> Derivation:
    """Work orders of a kind reported in a window."""
    asset, kind = case.p("asset_id"), case.p("kind", "all")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = [o for o in _work_orders(ctx, asset)
                  if in_window(str(o["reported_date"]), case.p("start"), case.p("end"),
                               c["window"])
                  and (kind == "all" or _is_preventive(o) == (kind == "preventive"))]
        answer: dict[str, Any] = {"count": len(orders)}
        if case.p("with_codes"):
            answer["wo_codes"] = {str(o["wo_id"]): str(o["primary_code"]) for o in orders}
        return answer

    return Derivation(derive_all({"window": window_modes(case.text)}, derive))


@audits("wo_distribution")
def wo_distribution(ctx: AuditContext, case: Case) -> Derivation:
    """Preventive / corrective split in a window (and the most common code)."""
    asset = case.p("asset_id")

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        orders = [o for o in _work_orders(ctx, asset)
                  if in_window(str(o["reported_date"]), case.p("start"), case.p("end"),
                               c["window"])]
        prev = sum(1 for o in orders if _is_preventive(o))
        answer: dict[str, Any] = {
            "total": len(orders),
            "by_type": {"preventive": prev, "corrective": len(orders) - prev},
        }
        if case.p("with_mode"):
            ranked = Counter(str(o["primary_code"]) for o in orders).most_common()
            if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
                raise NoSingleAnswer("no single most common code")
            answer["most_common_code"] = ranked[0][0]
        return answer

    return Derivation(derive_all({"window": window_modes(case.text)}, derive))


def _markov(own: list[str], fleet: list[list[str]], catalogue: list[str], estimator: str
            ) -> dict[str, Any]:
    """Next code after ``own[-1]`` by a first-order Markov chain.

    ``fleet_prior``: P(b|a) = (n[a][b] + q(b|a)) / (n[a] + 1) with the Laplace-smoothed fleet
    prior q(b|a) = (f[a][b] + 1) / (f[a] + |C|) (the estimator the tool catalogue
    documents); ``own_mle``: P(b|a) = n[a][b] / n[a] from the unit's own history alone.
    Ties go to the code that sorts first.
    """
    last = own[-1]
    codes = sorted(set(catalogue) | {c for s in fleet for c in s} | set(own))

    def counts(seqs: list[list[str]]) -> Counter[str]:
        c: Counter[str] = Counter()
        for s in seqs:
            for a, b in itertools.pairwise(s):
                if a == last:
                    c[b] += 1
        return c

    n, f = counts([own]), counts(fleet)
    n_tot, f_tot = sum(n.values()), sum(f.values())
    if estimator == "own_mle":
        if n_tot == 0:
            raise NotApplicable(f"no own transition out of {last}")
        probs = {b: n[b] / n_tot for b in codes}
    else:
        probs = {b: (n[b] + (f[b] + 1) / (f_tot + len(codes))) / (n_tot + 1) for b in codes}
    best = max(probs.values())
    predicted = next(b for b in codes if probs[b] == best)
    return {"last_code": last, "predicted_code": predicted, "probability": probs[predicted]}


@audits("wo_next_prediction")
def wo_next_prediction(ctx: AuditContext, case: Case) -> Derivation:
    """Most likely next work-order code (as of a date)."""
    asset, as_of = case.p("asset_id"), case.p("as_of") or ""
    catalogue = [str(c["code"]) for c in ctx.raw.work_db("failure_codes")]
    everything = sorted(ctx.raw.work_db("wo_events"),
                        key=lambda d: (str(d["reported_date"]), str(d["wo_id"])))
    pinned = not as_of or f"before {as_of}" in case.text

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        end = None
        if as_of:
            end = stamp(as_of) if c["as_of"] == "exclusive" else next_day(as_of)
        kept = [d for d in everything if end is None or str(d["reported_date"])[:19] < end]
        seqs: dict[str, list[str]] = {}
        for d in kept:
            seqs.setdefault(str(d["equipment_id"]), []).append(str(d["primary_code"]))
        own = seqs.get(asset, [])
        if not own:
            raise NoSingleAnswer("no work orders")
        return _markov(own, [seqs[e] for e in sorted(seqs)], catalogue, c["estimator"])

    named = "fleet" in case.text.lower()  # "fleet-smoothed ... Markov estimate" pins it
    dims = {"as_of": ["exclusive"] if pinned else ["exclusive", "inclusive"],
            "estimator": ["fleet_prior"] if named else ["fleet_prior", "own_mle"]}
    return Derivation(derive_all(dims, derive))


@audits("wo_alert_followup")
def wo_alert_followup(ctx: AuditContext, case: Case) -> Derivation:
    """Alerts in a window followed by corrective work within N days."""
    asset = case.p("asset_id")
    within = float(case.p("within_days"))
    alerts_all = sorted((a for a in ctx.raw.work_db("alert_events")
                         if a.get("equipment_id") == asset), key=lambda a: str(a["start_time"]))
    corrective = [o for o in _work_orders(ctx, asset) if not _is_preventive(o)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        start, end = case.p("start"), case.p("end")
        alerts = [a for a in alerts_all if in_window(str(a["start_time"]), start, end,
                                                     c["window"])]
        pool = [o for o in corrective if str(o["reported_date"])[:19] >= stamp(start)]
        if c["orders"] == "window_only":
            pool = [o for o in pool if in_window(str(o["reported_date"]), start, end, c["window"])]
        followed, ids = 0, set()
        for a in alerts:
            t = parse(a["start_time"])
            if c["horizon"] == "exact":
                last = t + timedelta(days=within)
            else:  # any time on the N-th calendar day after the alert's day
                last = parse(next_day(stamp(day_of(a["start_time"])))) + timedelta(days=within)
                last -= timedelta(microseconds=1)
            hit = next((o for o in pool if t < parse(o["reported_date"]) <= last), None)
            if hit is not None:
                followed += 1
                ids.add(str(hit["wo_id"]))
        return {"alerts": len(alerts), "followed": followed, "work_orders": sorted(ids)}

    dims = {"window": window_modes(case.text), "orders": ["through_horizon", "window_only"],
            "horizon": ["exact", "calendar_days"]}
    return Derivation(derive_all(dims, derive))


def _dga_on(ctx: AuditContext, asset: str, day: str) -> tuple[Doc | None, set[str]]:
    """The sample taken on ``day`` and every class a reading of the text gives it."""
    hits = [s for s in ctx.raw.oil(asset) if day_of(s["timestamp"]) == day]
    if len(hits) != 1:
        return None, set()
    gases = _gases(hits[0])
    classes = {standards.dga_fault(gases, m, g, p)
               for m in ("iec", "duval", "rogers")
               for g in ("iec_and_ieee", "iec_typical", "ieee_condition1")
               for p in ("severe_first", "d1_first")}
    return hits[0], classes


@audits("wo_decision_after_diagnosis")
def wo_decision_after_diagnosis(ctx: AuditContext, case: Case) -> Derivation:
    """Corrective work for a stated diagnosis since its date; the premise is checked."""
    asset, fault, since = case.p("asset_id"), case.p("fault"), case.p("start")
    code = _code_for(ctx, fault)
    corrective = [o for o in _work_orders(ctx, asset) if not _is_preventive(o)]

    sample, classes = _dga_on(ctx, asset, since)
    generic = [str(c["code"]) for c in ctx.raw.work_db("failure_codes")
               if not c.get("fault_type") and "DGA" in str(c["code"]).upper()] or ["DGA-ABN"]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        if c["since"] == "from_the_date":
            edge = stamp(since)
        elif sample is None:
            raise NotApplicable("no sample to take the time of")
        else:
            edge = str(sample["timestamp"])[:19]
        accepted = {code} | (set(generic) if c["codes"] == "generic_counts" else set())
        raised = [str(o["wo_id"]) for o in corrective
                  if str(o["primary_code"]) in accepted and str(o["reported_date"])[:19] >= edge]
        return {
            "failure_code": code,
            "already_raised": bool(raised),
            "work_orders": raised,
            "decision": "already raised" if raised else f"raise a corrective work order ({code})",
        }

    premises = []
    if sample is None:
        premises.append(f"no oil sample of {asset} on {since}: the stated DGA diagnosis has no "
                        "sample behind it")
    elif fault not in classes:
        premises.append(f"the {since} sample of {asset} classifies as {sorted(classes)} under "
                        f"every method, never {fault}")
    dims = {"since": ["from_the_date", "from_the_sample_time"],
            "codes": ["exact", "generic_counts"]}
    return Derivation(derive_all(dims, derive), premises_false=premises)


# -- multi-agent ---------------------------------------------------------------------------------


@audits("ma_dga_to_workorder")
def ma_dga_to_workorder(ctx: AuditContext, case: Case) -> Derivation:
    """Sample → DGA class → failure code → corrective work since the sample."""
    asset, which = case.p("asset_id"), case.p("which", "latest")
    sample = _pick_sample(ctx, asset, which)
    gases = _gases(sample)
    corrective = [o for o in _work_orders(ctx, asset) if not _is_preventive(o)]
    ts = str(sample["timestamp"])[:19]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        fault = standards.dga_fault(gases, c["method"], c["gate"], c["precedence"])
        answer: dict[str, Any] = {"sample_timestamp": ts, "fault_type": fault}
        if fault in NO_FAULT:
            return answer | {"failure_code": None, "work_orders": [],
                             "decision": "no corrective work needed"}
        code = _code_for(ctx, fault)
        edge = stamp(ts[:10]) if c["since"] == "sample_day" else ts
        accepted = {code} | ({"DGA-ABN"} if c["codes"] == "generic_counts" else set())
        raised = [str(o["wo_id"]) for o in corrective if str(o["primary_code"]) in accepted
                  and (str(o["reported_date"])[:19] >= edge if c["since"] == "sample_day"
                       else str(o["reported_date"])[:19] > edge)]
        return answer | {
            "failure_code": code, "work_orders": raised,
            "decision": "already raised" if raised else f"raise a corrective work order ({code})",
        }

    dims = _dga_dims(case.text, False) | {"since": ["sample_day", "after_sample_time"],
                                          "codes": ["exact", "generic_counts"]}
    ref = str(case.answer.get("fault_type"))
    return Derivation(derive_all(dims, derive), dga=_dga_check(ctx, asset, sample, ref))


@audits("ma_anomaly_to_workorder")
def ma_anomaly_to_workorder(ctx: AuditContext, case: Case) -> Derivation:
    """Anomalies in a window → corrective work orders of the window."""
    asset = case.p("asset_id")
    corrective = [o for o in _work_orders(ctx, asset) if not _is_preventive(o)]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        found = _anomalies(ctx, case, c)
        first = found[0][0] if found else None
        orders = [o for o in corrective if in_window(str(o["reported_date"]), case.p("start"),
                                                     case.p("end"), c["window"])]
        after = [o for o in orders if first is not None and str(o["reported_date"])[:19] > first]
        return {
            "anomalies": _count(found, c["count"]),
            "first_anomaly": first,
            "corrective_work_orders": [str(o["wo_id"]) for o in orders],
            "followed_by_corrective": bool(after) if first is not None else None,
        }

    return Derivation(derive_all(_anomaly_dims(case), derive))


@audits("ma_peak_winding_review")
def ma_peak_winding_review(ctx: AuditContext, case: Case) -> Derivation:
    """Window's winding peak → its assessment → alarm events of the window."""
    asset = case.p("asset_id")
    plate = ctx.raw.nameplate(asset)
    events = [e for e in ctx.raw.work_db("events") if e.get("equipment_id") == asset
              and e.get("event_group") == "ALERT"]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        docs = _window(ctx, asset, case.p("start"), case.p("end"), c["window"])
        ts, wti = _argmax(_pairs(docs, "wti"))
        r = next(d for d in docs if str(d["timestamp"])[:19] == ts)
        contacts = {k: r.get(k) for k in ("oti_a", "oti_t", "wti_a", "wti_t")}
        assessed = _assess(wti, float(r["oti"]), c["paper"], plate, contacts)
        alarms = [e for e in events
                  if in_window(str(e["event_time"]), case.p("start"), case.p("end"), c["window"])
                  and (c["alarms"] == "all_alerts" or "TRIP" not in str(e.get("event_type")))]
        return {
            "timestamp": ts, "hot_spot_c": wti,
            "thermal_status": assessed["thermal_status"], "risk_level": assessed["risk_level"],
            "alarm_events": len(alarms),
        }

    dims = {"window": window_modes(case.text), "paper": _paper_choices(case, plate),
            # "alarm and trip events" pins the count to every alert; "alarm events" alone
            # lets a reader leave the trips out.
            "alarms": ["all_alerts"] if "trip" in case.text.lower()
            else ["all_alerts", "alarms_only"]}
    return Derivation(derive_all(dims, derive))


@audits("fmsr_false_premise")
def fmsr_false_premise(ctx: AuditContext, case: Case) -> Derivation:
    """A claimed DGA diagnosis on a date: is there a sample that day, and what does it show?"""
    asset, claimed = case.p("asset_id"), case.p("claimed_fault")
    claim_day = case.p("claim_date")
    samples = ctx.raw.oil(asset)
    on_day = [s for s in samples if day_of(s["timestamp"]) == claim_day]

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = {"claimed_fault": claimed}
        if not on_day:
            stamps = [str(s["timestamp"])[:19] for s in samples]
            before = [t for t in stamps if t[:10] < claim_day]
            after = [t for t in stamps if t[:10] > claim_day]
            if not before or not after:
                raise NoSingleAnswer("the claimed date is outside the sampled period")
            prev = next(s for s in samples if str(s["timestamp"])[:19] == before[-1])
            prev_fault = standards.dga_fault(_gases(prev), c["method"], c["gate"],
                                             c["precedence"])
            return answer | {"premise_holds": False, "sample_on_date": False,
                             "previous_sample": before[-1], "next_sample": after[0],
                             "previous_fault_type": prev_fault}
        if len(on_day) != 1:
            raise NoSingleAnswer(f"{len(on_day)} samples on {claim_day}")
        fault = standards.dga_fault(_gases(on_day[0]), c["method"], c["gate"], c["precedence"])
        return answer | {"premise_holds": fault == claimed, "sample_on_date": True,
                         "sample_timestamp": str(on_day[0]["timestamp"])[:19],
                         "actual_fault_type": fault}

    readings = derive_all(_dga_dims(case.text, False), derive)
    holds = any(r.answer and r.answer.get("premise_holds") for r in readings)
    premises = [] if holds else [f"no reading supports {claimed} on {claim_day} for {asset}"]
    return Derivation(readings, premises_false=premises)


HI_FIELDS: tuple[str, ...] = (
    *GASES, "dielectric_rigidity", "interfacial_v", "acidity", "water_content", "power_factor",
)


@audits("fmsr_health_index")
def fmsr_health_index(ctx: AuditContext, case: Case) -> Derivation:
    """Rule-based health index and band of a stored sample, with and without its acidity.

    Only the documented rule score is re-derived: the learned estimate is the project's own
    artefact (the family gates band-only requests on it agreeing with the rule band).
    """
    sample = _pick_sample(ctx, case.p("asset_id"), case.p("which", "latest"))
    values = {f: (None if sample.get(f) is None else float(sample[f])) for f in HI_FIELDS}

    def derive(c: dict[str, Any]) -> dict[str, Any]:
        hi, band = standards.health_index(values, with_acidity=c["acidity"] == "scored")
        answer: dict[str, Any] = {"sample_timestamp": str(sample["timestamp"])[:19],
                                  "condition": band}
        if "health_index" in case.answer:
            answer["health_index"] = hi
        return answer

    choices = ["scored", "left_out"] if values["acidity"] is not None else ["left_out"]
    return Derivation(derive_all({"acidity": choices}, derive))


# Families without an independent re-derivation, and why (reported as `unsupported`).
UNSUPPORTED: dict[str, str] = {
    "tsfm_methods": "asks for the tool catalogue itself, which has no raw documents",
}
