"""Shared reading of raw documents for the transformer's family re-derivations."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from assets.transformer.audit import standards
from eval.audit.api import (
    AuditContext,
    Case,
    Doc,
    NoSingleAnswer,
    TruthCheck,
    day_of,
    parse,
    sensor_pairs,
    series,
    stamp,
    window_docs,
    window_modes,
)

GASES: tuple[str, ...] = ("hydrogen", "methane", "ethane", "ethylene", "acetylene", "co", "co2")
NO_FAULT: frozenset[str] = frozenset({"normal", "ND", "UD", "DT", "NA"})
DEFAULT_SETTINGS: dict[str, float] = {
    "oti_alarm": 90.0, "oti_trip": 100.0, "wti_alarm": 110.0, "wti_trip": 130.0,
}


def sample_gases(sample: Doc) -> dict[str, float | None]:
    """The seven dissolved-gas concentrations of an oil sample (None where not measured)."""
    return {g: (None if sample.get(g) is None else float(sample[g])) for g in GASES}


def pick_sample(ctx: AuditContext, asset_id: str, which: str) -> Doc:
    """The unit's latest oil sample, or its one sample on day ``which``."""
    samples = ctx.raw.oil(asset_id)
    if not samples:
        raise NoSingleAnswer("no oil samples")
    if which == "latest":
        return samples[-1]
    hits = [s for s in samples if day_of(s["timestamp"]) == which]
    if len(hits) != 1:
        raise NoSingleAnswer(f"{len(hits)} oil samples on {which}")
    return hits[0]


def dga_methods(text: str) -> list[str]:
    """The DGA methods the text allows: the one it names, else all three (IEC first)."""
    low = text.lower()
    named = [m for m, words in (("iec", ("iec 60599", "iec ratio")), ("duval", ("duval",)),
                                ("rogers", ("rogers",))) if any(w in low for w in words)]
    return named if len(named) == 1 else ["iec", "duval", "rogers"]


def dga_dims(text: str, details: bool) -> dict[str, list[Any]]:
    """Readings of a DGA question: method, significance gate, D1/D2 precedence (and agreement)."""
    dims: dict[str, list[Any]] = {
        "method": dga_methods(text),
        "gate": ["iec_and_ieee", "iec_typical", "ieee_condition1"],
        "precedence": ["severe_first", "d1_first"],
    }
    if details:
        dims["agreement"] = ["any_determined", "fault_classes_only"]
    return dims


def dga_answer(gases: dict[str, float | None], choice: dict[str, Any], details: bool
               ) -> dict[str, Any]:
    """The DGA answer under one reading (fault class; with details the IEEE condition and the
    methods agreeing)."""
    fault = standards.dga_fault(gases, choice["method"], choice["gate"], choice["precedence"])
    answer: dict[str, Any] = {"fault_type": fault}
    if details:
        classes = standards.method_classes(gases, choice["precedence"])
        answer["ieee_condition"] = standards.ieee_condition(gases)
        answer["methods_agreeing"] = standards.methods_agreeing(
            classes, count_non_faults=choice["agreement"] == "any_determined"
        )
    return answer


def truth_class(ctx: AuditContext, asset_id: str, when: str) -> str | None:
    """The injected fault in force at ``when`` ("normal" before onset / when none), or None."""
    truth = ctx.raw.truth(asset_id)
    if truth is None:
        return None
    fault = str(truth.get("fault_type") or "none")
    onset = truth.get("onset")
    if fault in ("none", "") or onset is None or str(when)[:19] < str(onset)[:19]:
        return "normal"
    return fault


def dga_check(ctx: AuditContext, asset_id: str, sample: Doc, reference: str) -> TruthCheck:
    """A DGA reference set against Duval's class and the injected truth at the sample."""
    gases = sample_gases(sample)
    duval = standards.dga_fault(gases, "duval", "iec_and_ieee")
    return TruthCheck(method="Duval triangle 1", reference=reference, method_class=duval,
                      truth=truth_class(ctx, asset_id, str(sample["timestamp"])))


def paper_choices(case: Case, plate: Doc | None) -> list[str]:
    """Paper readings: stated in the text (pinned), else the nameplate's and the default
    Kraft."""
    low = case.text.lower()
    if "non-upgraded" in low or "kraft" in low:  # "non-upgraded Kraft paper" first
        return ["kraft"]
    if "thermally upgraded" in low or "upgraded paper" in low:
        return ["upgraded"]
    plate_paper = str((plate or {}).get("paper") or "kraft")
    return list(dict.fromkeys([plate_paper, "kraft"]))


def plate_settings(plate: Doc | None) -> dict[str, float]:
    """The unit's OTI / WTI alarm and trip settings (nameplate, else the defaults)."""
    return {k: float((plate or {}).get(k, v)) for k, v in DEFAULT_SETTINGS.items()}


def plate_size_class(plate: Doc | None) -> standards.SizeClass:
    """The size class of the nameplate rating (medium without one)."""
    if plate is None or plate.get("rated_mva") is None:
        return "medium"
    return standards.size_class_of(float(plate["rated_mva"]))


def assess(wti: float, oti: float, paper: str, plate: Doc | None,
           contacts: dict[str, int | None] | None) -> dict[str, Any]:
    """Thermal status, risk level and relative ageing rate of one winding reading."""
    pp: standards.Paper = "upgraded" if paper == "upgraded" else "kraft"
    status = standards.thermal_status(wti, oti, pp, plate_size_class(plate))
    alarms = standards.alarm_state(wti, oti, plate_settings(plate), contacts)
    return {
        "thermal_status": status,
        "risk_level": standards.risk_level(status, alarms),
        "relative_ageing_rate": standards.ageing_rate(wti, pp),
    }


def is_preventive(d: Doc) -> bool:
    """Whether a work order is preventive (``wo_type`` or the upstream TRUE / FALSE flag)."""
    if "wo_type" in d:
        return str(d["wo_type"]).lower() == "preventive"
    value = d.get("preventive")
    # AssetOpsBench's convention: the strings "TRUE" / "FALSE".
    return value.strip().upper() == "TRUE" if isinstance(value, str) else bool(value)


def code_for(ctx: AuditContext, fault: str) -> str:
    """The one failure code catalogued for ``fault``."""
    codes = [
        str(c["code"]) for c in ctx.raw.work_db("failure_codes") if c.get("fault_type") == fault
    ]
    if len(codes) != 1:
        raise NoSingleAnswer(f"{len(codes)} failure codes for {fault}")
    return codes[0]


def case_series(ctx: AuditContext, case: Case, mode: str, weeks_before: int = 0
                ) -> tuple[list[int], list[float]]:
    """The case's sensor on the hourly grid over its window (and ``weeks_before`` more)."""
    start = case.p("start")
    if weeks_before:
        start = (parse(stamp(start)) - timedelta(weeks=weeks_before)).isoformat()
    docs = window_docs(ctx, case.p("asset_id"), start, case.p("end"), mode)
    pairs = sensor_pairs(docs, case.p("sensor"))
    if len(pairs) < 2 * series.PERIOD:
        raise NoSingleAnswer(f"{len(pairs)} readings, fewer than two days")
    return series.hourly_grid([t for t, _ in pairs], [v for _, v in pairs])


BASELINE_WEEKS = 4


def anomaly_dims(case: Case) -> dict[str, list[Any]]:
    """Readings of an anomaly question: window end, baseline profile and cut-off.

    The baseline ("the usual level for that time") is the hour-of-day median over the window
    or a weekday × hour median over the window and the four weeks before it, unless the text
    names one. A text that states no cut-off may be read at 3.5 (Iglewicz & Hoaglin), 3.0 or
    4.0; a stated one is pinned. Against weekly history, the robust spread is taken over
    the whole reference or the window alone, unless the text says which.
    """
    low = case.text.lower()
    # Openers such as "the weekly asset review" must not pin the baseline: exact phrases only.
    weekly = ("weekday", "day of the week", "day-of-week", "day of week", "hour of the week",
              "hour-of-week", "hour of week", "time of week", "time of the week")
    if any(w in low for w in weekly):
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
    window = window_modes(case.text, case.p("end"))
    dims: dict[str, list[Any]] = {"window": window, "profile": profiles, "cutoff": cutoffs,
                                  "count": counting}
    # Against weekly history, where the robust spread (the MAD) is taken: over the residuals
    # of the whole reference (window and the weeks before) or of the window alone, unless the
    # text says ("spread", "MAD", "median absolute"; "window alone/only" for the latter).
    if "weekly_history" in profiles:
        dims["spread"] = ["reference", "window"]
        if "spread" in low or "mad" in low.split() or "(mad)" in low or "median absolute" in low:
            dims["spread"] = (["window"] if "window alone" in low or "window only" in low
                              else ["reference"])
    return dims


def count_flagged(found: list[tuple[str, float]], how: str) -> int:
    """Flagged readings, or episodes (runs of consecutive hours) of them."""
    if how == "readings":
        return len(found)
    times = [parse(t) for t, _ in found]
    return sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] != timedelta(hours=1))


def flagged_anomalies(ctx: AuditContext, case: Case, c: dict[str, Any]
                      ) -> list[tuple[str, float]]:
    """The readings flagged under one reading of an anomaly question."""
    if c["profile"] == "weekly_history":
        grid, values = case_series(ctx, case, c["window"], BASELINE_WEEKS)
        return series.weekly_anomalies(grid, values, series.epoch(stamp(case.p("start"))),
                                       float(c["cutoff"]), spread=c.get("spread", "reference"))
    grid, values = case_series(ctx, case, c["window"])
    return series.anomalies(grid, values, float(c["cutoff"]))
