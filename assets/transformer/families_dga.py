"""Task families on the trend of dissolved gases and on oil quality (fmsr, iot, wo).

Computed answers and the sources they follow (values and clauses in
``docs/standards-notes.md``, section "fam-dga"):

- Gas generation rate (``fmsr_gas_rate`` for the TDCG, ``iot_gas_trend_window`` for a gas or
  the TDCG): the rate of a gas, or of
  the total dissolved combustible gas TDCG = H2 + CH4 + C2H6 + C2H4 + C2H2 + CO (IEEE
  C57.104-2008 clause 6.2, the sum the ``interpret_dga`` tool screens), between two samples:
  R = (S_T − S_O) / T in ppm/day, with S_O and S_T the earlier and later concentration and T
  the days between the samples (IEEE C57.104-2008 clause 6.3, the rate its Table 3 bands;
  the guide's ft³/day form multiplies by the oil volume, which the store does not hold).
  The text says which two samples: the last two of the unit, two dated samples, or the first
  and last sample inside a window. A TDCG rate is placed in Table 3's bands (< 10, 10–30,
  > 30 ppm/day); a draw within 0.5 ppm/day of a band edge is dropped.
- Resampling decision (``fmsr_dga_resample_interval``): IEEE C57.104-2008 Table 3, the
  sampling interval and operating procedure for the TDCG condition of the latest sample
  (Table 1 limits, as the ``interpret_dga`` tool reports it) and the TDCG rate between the
  last two samples.
- Fault onset (``fmsr_fault_onset``): the first sample of a window that the
  ``interpret_dga`` tool classifies as a fault with a determined IEC 60599 class (neither
  normal nor ND). The text names the IEC ratio method, the tool's normality rule (every gas
  within its IEC 60599 typical value and IEEE C57.104 condition 1) and that undetermined
  samples are passed over, so those readings are stated; the window opens on a normal
  sample.
- Oil quality (``fmsr_oil_quality``, ``wo_oil_treatment``): IEC 60422:2013 categories per
  parameter and the treatment decision of :mod:`assets.transformer.oil_quality` (tool
  ``assess_oil_quality``). The lab values are stated in the request (the seeded fleet's oil
  is all "good", so stored samples would make every answer "no action"); drawn values sit at
  least 8 % away from every category limit.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    asset_with_oil,
    assets_call,
    dga_args,
    in_discharge_overlap,
    iso_day,
    nameplate_of,
    oil_call,
)
from assets.transformer.families_fmsr import (
    DGA_READING_NAMES,
    DGA_READINGS,
    NORMALITY_READING,
    _component,
    dga_class,
    same_gases,
)
from assets.transformer.oil_quality import (
    LIMITS,
    PARAMETERS,
    EquipmentCategory,
    Parameter,
    category_for_voltage,
    classify,
    decide,
)
from generator.api import (
    Ambiguous,
    FamilyContext,
    GroundedAsset,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    day,
    family,
    num,
    pick,
    window_end_readings,
)

TDCG = "tdcg"
TDCG_GASES: tuple[str, ...] = ("hydrogen", "methane", "ethane", "ethylene", "acetylene", "co")
RATE_GASES: tuple[str, ...] = ("hydrogen", "methane", "ethane", "ethylene", "acetylene", "co")
GAS_WORDS: dict[str, str] = {
    "hydrogen": "hydrogen", "methane": "methane", "ethane": "ethane", "ethylene": "ethylene",
    "acetylene": "acetylene", "co": "carbon monoxide", TDCG: "total dissolved combustible gas",
}
# IEEE C57.104-2008 Table 3 TDCG-rate bands (ppm/day) and the margin kept from their edges.
RATE_EDGES: tuple[float, float] = (10.0, 30.0)
RATE_MARGIN = 0.5
RATE_BANDS: tuple[str, str, str] = ("below 10", "10 to 30", "above 30")
# Table 1 TDCG limits (condition 1/2/3 upper bounds, ppm) and the relative margin kept.
TDCG_LIMITS: tuple[float, float, float] = (720.0, 1920.0, 4630.0)
TDCG_MARGIN = 0.02
# Table 3: sampling interval by TDCG condition (1..4) and rate band (below 10, 10-30, > 30).
INTERVALS: dict[int, tuple[str, str, str]] = {
    1: ("annually", "quarterly", "monthly"),
    2: ("quarterly", "monthly", "monthly"),
    3: ("monthly", "weekly", "weekly"),
    4: ("weekly", "daily", "daily"),
}
PROCEDURES: dict[int, tuple[str, str, str]] = {
    1: ("continue normal operation", "exercise caution", "exercise caution"),
    2: ("exercise caution", "exercise caution", "exercise caution"),
    3: ("exercise extreme caution and plan an outage",) * 3,
    4: (
        "exercise extreme caution and plan an outage",
        "consider removal from service",
        "consider removal from service",
    ),
}
TDCG_CO_NOTE = "Include carbon monoxide in the total combustible gas."
TDCG_WITHOUT_CO = Reading(
    "tdcg_without_co",
    "sums the total dissolved combustible gas without carbon monoxide",
    params={"tdcg_gases": [g for g in TDCG_GASES if g != "co"]},
)
RATE_TOLERANCE = {"rate_ppm_per_day": 0.05}
RATE_REL_TOLERANCE = {"rate_ppm_per_day": 0.01}


def _days_between(a: str, b: str) -> float:
    """Days from timestamp ``a`` to ``b`` (fractional)."""
    delta = datetime.fromisoformat(str(b)[:19]) - datetime.fromisoformat(str(a)[:19])
    return delta.total_seconds() / 86400.0


def concentration(sample: dict[str, Any], gas: str, tdcg_gases: list[str] | None = None) -> float:
    """The ppm of one gas, or the TDCG sum, in a stored sample (Ambiguous when missing)."""
    gases = (tdcg_gases or list(TDCG_GASES)) if gas == TDCG else [gas]
    if any(sample.get(g) is None for g in gases):
        raise Ambiguous(f"sample {sample.get('timestamp')} lacks {gas}")
    return float(sum(float(sample[g]) for g in gases))


def gas_rate(
    first: dict[str, Any], last: dict[str, Any], gas: str, tdcg_gases: list[str] | None = None
) -> float:
    """R = (S_T − S_O) / T, ppm/day, between two stored samples."""
    t = _days_between(str(first["timestamp"]), str(last["timestamp"]))
    if t <= 0:
        raise Ambiguous("the two samples are not in time order")
    return (concentration(last, gas, tdcg_gases) - concentration(first, gas, tdcg_gases)) / t


def rate_band(rate: float) -> int:
    """Index of the IEEE C57.104-2008 Table 3 band (0: < 10, 1: 10-30, 2: > 30 ppm/day);
    Ambiguous within the margin of a band edge."""
    for edge in RATE_EDGES:
        if abs(rate - edge) < RATE_MARGIN:
            raise Ambiguous(f"TDCG rate {rate:.2f} ppm/day is at a Table 3 band edge")
    return sum(1 for edge in RATE_EDGES if rate > edge)


def _rate_answer(
    params: dict[str, Any], first: dict[str, Any], last: dict[str, Any]
) -> dict[str, Any]:
    gas = params["gas"]
    rate = gas_rate(first, last, gas, params.get("tdcg_gases"))
    answer: dict[str, Any] = {
        "first_sample": first["timestamp"], "last_sample": last["timestamp"],
        "rate_ppm_per_day": rate,
    }
    if gas == TDCG:
        band = rate_band(rate)
        answer |= {"rate_band": RATE_BANDS[band], "above_10_ppm_per_day": band > 0}
    return answer


def rate_outcome(answer: dict[str, Any]) -> str:
    """TDCG band (``tdcg_below_10`` trivial) or the direction of a single gas."""
    if "rate_band" in answer:
        return "tdcg_" + str(answer["rate_band"]).replace(" ", "_")
    return "rising" if answer["rate_ppm_per_day"] > 0 else "not_rising"


def _sample_on(records: list[dict[str, Any]], when: str) -> dict[str, Any]:
    hits = [r for r in records if str(r["timestamp"])[:10] == when]
    if len(hits) != 1:
        raise Ambiguous(f"{len(hits)} samples on {when}")
    return hits[0]


def _gas_params(rng: np.random.Generator) -> dict[str, Any]:
    gas = TDCG if rng.random() < 0.5 else pick(rng, RATE_GASES)
    return {"gas": gas, "gas_words": GAS_WORDS[gas]} | (
        {"note": TDCG_CO_NOTE} if gas == TDCG else {}
    )


def _gas_gate(params: dict[str, Any]) -> dict[str, Any]:
    """Plan fields of the TDCG-without-CO reading (pinned by the note for a TDCG task)."""
    if params["gas"] != TDCG:
        return {"readings": [], "stated": []}
    return {"readings": [TDCG_WITHOUT_CO], "stated": [TDCG_WITHOUT_CO.name]}


# -- TDCG rate between two samples (fmsr) ----------------------------------------------------


def _pair(params: dict[str, Any], records: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The two samples a rate task names: the last two, or the two dated ones."""
    if params["which"] == "latest":
        if len(records) < 2:
            raise Ambiguous("fewer than two samples")
        return records[-2], records[-1]
    return _sample_on(records, params["from_day"]), _sample_on(records, params["to_day"])


def _rate_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    first, last = _pair(params, outputs[0]["records"])
    for sample, out in ((first, outputs[1]), (last, outputs[2])):
        if not same_gases(sample, out["sample"]):
            raise Ambiguous("the interpreted gases are not those of the named samples")
        if params.get("tdcg_gases") is None and abs(
            concentration(sample, TDCG) - float(out["screen"]["tdcg_ppm"])
        ) > 1e-6:
            raise Ambiguous("the tool's TDCG is not the sum of the six combustible gases")
    return _rate_answer(params, first, last)


def _rate_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{params['gas_words']} of {params['asset_id']} from the sample of "
        f"{str(answer['first_sample'])[:10]} to that of {str(answer['last_sample'])[:10]}: "
        f"{num(answer['rate_ppm_per_day'], 2)} ppm/day"
    )
    if "rate_band" in answer:
        text += f", IEEE C57.104 Table 3 band {answer['rate_band']} ppm/day"
    return text


@family(
    "fmsr_gas_rate",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_rate_derive,
    summarise=_rate_summary,
    outcome=rate_outcome,
    trivial=("tdcg_below_10",),
)
async def gas_rate_family(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """TDCG of two samples of a unit (the last two, or two dated ones), as the DGA tool
    screens them, the TDCG generation rate (ppm/day) between them and its IEEE C57.104
    Table 3 band.

    Gated reading: TDCG without CO (pinned by the text).
    """
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    oil = oil_call(a)
    records = (await ctx.run([oil]))[0]["records"]
    if len(records) < 3:
        return None
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "gas": TDCG, "gas_words": GAS_WORDS[TDCG],
        "note": TDCG_CO_NOTE,
    }
    mentions = [a.asset_id, a.site_name]
    if rng.random() < 0.4:
        params["which"] = "latest"
        pair = (records[-2], records[-1])
    else:
        i = int(rng.integers(0, len(records) - 1))
        j = int(rng.integers(i + 1, min(len(records), i + 5)))
        params |= {
            "which": "dated",
            "from_day": str(records[i]["timestamp"])[:10],
            "to_day": str(records[j]["timestamp"])[:10],
        }
        mentions += [params["from_day"], params["to_day"]]
        pair = (records[i], records[j])
    dgas = [ToolCall(name="interpret_dga", args=dga_args(a.asset_id, s)) for s in pair]
    return Plan(
        params=params,
        tool_sequence=[oil, *dgas],
        mentions=mentions,
        grounding={"site": a.site_name, "asset_id": a.asset_id}
        | ({"start": params["from_day"]} if params["which"] == "dated" else {}),
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance=RATE_TOLERANCE,
        rel_tolerance=RATE_REL_TOLERANCE,
        readings=[TDCG_WITHOUT_CO],
        stated=[TDCG_WITHOUT_CO.name],
    )


# -- gas trend over a window, first to last sample (iot) -------------------------------------

FIRST_LAST = "first_and_last_sample"


def _ols_slope(records: list[dict[str, Any]], gas: str, tdcg_gases: list[str] | None) -> float:
    """Least-squares slope (ppm/day) through every sample: the other reading of "the rate
    over the window"."""
    t0 = str(records[0]["timestamp"])
    x = np.array([_days_between(t0, str(r["timestamp"])) for r in records])
    y = np.array([concentration(r, gas, tdcg_gases) for r in records])
    return float(np.polyfit(x, y, 1)[0])


def _trend_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    if len(records) < 2:
        raise Ambiguous("fewer than two samples in the window")
    first, last = records[0], records[-1]
    answer: dict[str, Any] = {
        "samples": len(records), "first_sample": first["timestamp"],
        "last_sample": last["timestamp"],
        "rate_ppm_per_day": gas_rate(first, last, params["gas"], params.get("tdcg_gases")),
    }
    if params.get("estimator") == "least_squares":
        answer["rate_ppm_per_day"] = _ols_slope(records, params["gas"], params.get("tdcg_gases"))
    answer["change_ppm"] = concentration(records[-1], params["gas"], params.get("tdcg_gases")) - (
        concentration(records[0], params["gas"], params.get("tdcg_gases"))
    )
    return answer


def _trend_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{answer['samples']} samples of {params['asset_id']} in [{params['start']}, "
        f"{params['end']}); " + _rate_summary(params, answer)
        + f", change {num(answer['change_ppm'], 2)} ppm"
    )


@family(
    "iot_gas_trend_window",
    domain="iot",
    category="Data Query",
    derive=_trend_derive,
    summarise=_trend_summary,
    outcome=lambda answer: "rising" if answer["rate_ppm_per_day"] > 0 else "not_rising",
    trivial=("not_rising",),
)
async def gas_trend_window(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Change and rate (ppm/day) of one gas or the TDCG from the first to the last oil sample
    inside a window of whole days (a data question: no rate band). A gas absent from both
    end samples (e.g. no acetylene) is not asked about.

    Readings: the window's end day included (the window ends between two samples, so the
    gate finds the same samples); a least-squares slope through every sample instead of the
    first-to-last rate (stated: the text says first and last sample); TDCG without CO.
    """
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    records = (await ctx.run([oil_call(a)]))[0]["records"]
    if len(records) < 4:
        return None
    n = int(rng.integers(2, min(7, len(records)) + 1))
    i = int(rng.integers(0, len(records) - n + 1))
    first, last = day(str(records[i]["timestamp"])), day(str(records[i + n - 1]["timestamp"]))
    before = day(str(records[i - 1]["timestamp"])) if i > 0 else first - timedelta(days=7)
    after = (
        day(str(records[i + n]["timestamp"])) if i + n < len(records) else last + timedelta(days=7)
    )
    if (first - before).days < 2 or (after - last).days < 3:
        return None
    # Start on a day after the previous sample, end two days or more before the next one, so
    # the end day (and the midnight that ends it) holds no sample under any reading.
    # At the ends of the record the window starts on the first sample's day or ends the day
    # after the last sample, so it stays inside the data.
    start = before + timedelta(days=int(rng.integers(1, (first - before).days + 1)))
    end = last + timedelta(days=int(rng.integers(1, (after - last).days - 1)))
    if i == 0:
        start = first
    if i + n == len(records):
        end = last + timedelta(days=1)
    oil = oil_call(a, iso_day(start), iso_day(end))
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "start": iso_day(start),
        "end": iso_day(end),
    } | _gas_params(rng)
    ends = (records[i], records[i + n - 1])
    if params["gas"] != TDCG and not any(float(r.get(params["gas"]) or 0.0) for r in ends):
        return None
    gate = _gas_gate(params)
    readings = [*window_end_readings([oil], "final", iso_day(end)), *gate["readings"]]
    stated = list(gate["stated"])
    if n >= 3:
        readings.append(Reading(
            "least_squares_rate",
            "fits a least-squares line through every sample instead of first-to-last",
            params={"estimator": "least_squares"},
        ))
        stated.append("least_squares_rate")
    return Plan(
        params=params,
        tool_sequence=[oil],
        mentions=[a.asset_id, a.site_name, iso_day(start), iso_day(end)],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": iso_day(start),
                   "end": iso_day(end)},
        difficulty="hard" if params["gas"] == TDCG else "medium",
        hard_features=["multi_output"],
        tolerance=RATE_TOLERANCE | {"change_ppm": 0.05},
        rel_tolerance=RATE_REL_TOLERANCE | {"change_ppm": 0.01},
        readings=readings,
        stated=stated,
    )


# -- resampling interval from the TDCG condition and rate (fmsr) -------------------------------


def tdcg_condition(tdcg: float) -> int:
    """IEEE C57.104-2008 Table 1 TDCG condition (1..4); Ambiguous within 2 % of a limit."""
    for limit in TDCG_LIMITS:
        if abs(tdcg - limit) <= TDCG_MARGIN * limit:
            raise Ambiguous(f"TDCG {tdcg:.0f} ppm is within 2 % of the {limit:.0f} ppm limit")
    return 1 + sum(1 for limit in TDCG_LIMITS if tdcg > limit)


def _interval_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    if len(records) < 2:
        raise Ambiguous("fewer than two samples")
    first, last = records[-2], records[-1]
    screen = outputs[1]["screen"]
    if not same_gases(last, outputs[1]["sample"]):
        raise Ambiguous("the interpreted gases are not those of the latest sample")
    gases = params.get("tdcg_gases") or list(TDCG_GASES)
    tdcg = concentration(last, TDCG, gases)
    if params.get("tdcg_gases") is None and abs(tdcg - float(screen["tdcg_ppm"])) > 1e-6:
        raise Ambiguous("the tool's TDCG is not the sum of the six combustible gases")
    condition = tdcg_condition(tdcg)
    rate = gas_rate(first, last, TDCG, gases)
    band = rate_band(rate)
    return {
        "latest_sample": last["timestamp"],
        "tdcg_ppm": tdcg,
        "tdcg_condition": condition,
        "rate_ppm_per_day": rate,
        "sampling_interval": INTERVALS[condition][band],
        "operating_procedure": PROCEDURES[condition][band],
    }


def _interval_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']}: TDCG {num(answer['tdcg_ppm'], 1)} ppm on "
        f"{str(answer['latest_sample'])[:10]} (IEEE C57.104 condition "
        f"{answer['tdcg_condition']}), rising {num(answer['rate_ppm_per_day'], 2)} ppm/day since "
        f"the previous sample: resample {answer['sampling_interval']}, "
        f"{answer['operating_procedure']}"
    )


@family(
    "fmsr_dga_resample_interval",
    domain="fmsr",
    category="Recommendation",
    derive=_interval_derive,
    summarise=_interval_summary,
    outcome=lambda answer: str(answer["sampling_interval"]),
    trivial=("annually",),
)
async def dga_resample_interval(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How often to resample a unit's oil, and what to do, by IEEE C57.104-2008 Table 3: the
    TDCG condition of the latest sample and the TDCG rate since the sample before it.

    Gated reading: TDCG without CO (pinned by the text).
    """
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    oil = oil_call(a)
    records = (await ctx.run([oil]))[0]["records"]
    if len(records) < 2:
        return None
    dga = ToolCall(name="interpret_dga", args=dga_args(a.asset_id, records[-1]))
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "note": TDCG_CO_NOTE,
    }
    return Plan(
        params=params,
        tool_sequence=[oil, dga],
        mentions=[a.asset_id, a.site_name],
        grounding={"site": a.site_name, "asset_id": a.asset_id},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"rate_ppm_per_day": 0.05, "tdcg_ppm": 0.5},
        rel_tolerance={"rate_ppm_per_day": 0.01, "tdcg_ppm": 0.005},
        readings=[TDCG_WITHOUT_CO],
        stated=[TDCG_WITHOUT_CO.name],
    )


# -- fault onset: the first sample with a determined fault (fmsr) ----------------------------

ND_ONSET = Reading(
    "undetermined_sample_is_onset",
    "takes the first abnormal sample whose class is not determined (ND) as the onset",
    params={"nd_is_fault": True},
)
NO_FAULT = ("normal", "ND")
# The onset lies on the normal/abnormal boundary, where the IEC-typical-values-only reading and
# the "an undetermined sample is the onset" reading move it: the text pins both.
ONSET_NOTE = (
    "Use the IEC 60599 ratios for the class. A sample is abnormal once any gas is above its "
    "IEC 60599 typical value or IEEE C57.104-2008 condition 1; pass over abnormal samples whose "
    "class the ratios leave undetermined."
)


def _onset_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    dgas = outputs[1:]
    if len(dgas) != len(records):
        raise Ambiguous("not every sample of the window was interpreted")
    method = params.get("method", "iec")
    for sample, out in zip(records, dgas, strict=True):
        if not same_gases(sample, out["sample"]):
            raise Ambiguous("the interpreted gases are not those of the window's samples")
        cls = dga_class(out, method)
        abnormal = cls not in NO_FAULT or (params.get("nd_is_fault") and cls == "ND")
        if not abnormal:
            continue
        if method in ("iec", "typical") and _component(out, "iec") < 1.0:
            raise Ambiguous("the onset sample's IEC ratios are near a boundary")
        if method in ("iec", "typical") and cls in ("D1", "D2") and in_discharge_overlap(out):
            raise Ambiguous("the onset sample's IEC ratios fit both the D1 and D2 rows")
        return {
            "onset_sample": sample["timestamp"],
            "fault_type": cls,
            "samples_before_onset": records.index(sample),
        }
    # No determined fault: the class is None (some samples may be abnormal but undetermined).
    return {"onset_sample": None, "fault_type": None, "samples_before_onset": len(records)}


def _onset_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    where = f"{params['asset_id']} in [{params['start']}, {params['end']})"
    if answer["onset_sample"] is None:
        checked = answer["samples_before_onset"]
        return f"{where}: no sample with a determined fault ({checked} checked)"
    return (
        f"{where}: first fault on the sample of {answer['onset_sample']}, "
        f"{answer['fault_type']} (IEC 60599 ratios), after {answer['samples_before_onset']} "
        "normal samples"
    )


@family(
    "fmsr_fault_onset",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_onset_derive,
    summarise=_onset_summary,
    outcome=lambda answer: "no_fault" if answer["onset_sample"] is None else "onset",
    trivial=("no_fault",),
)
async def fault_onset(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The first oil sample in a window whose DGA shows a fault with a determined IEC 60599
    class, with its date and class.

    Readings: Duval triangle 1 and the Rogers codes, normal by the IEC 60599 typical values
    alone, an undetermined (ND) sample as the onset (all stated: the text names the IEC
    ratios, the normality rule and that undetermined samples are passed over), and the
    window's end day included (gated; no sample on the end day, so it agrees).
    """
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    records = (await ctx.run([oil_call(a)]))[0]["records"]
    if len(records) < 3:
        return None
    n = int(rng.integers(3, min(8, len(records)) + 1))
    i = int(rng.integers(0, len(records) - n + 1))
    # Most draws of a unit that turns abnormal put the change inside the window: the first
    # sample the tool calls abnormal (f) is drawn among the window's later samples.
    every = [ToolCall(name="interpret_dga", args=dga_args(a.asset_id, s)) for s in records]
    kinds = [out["fault_type"] for out in await ctx.run(every)]
    f = next((k for k, t in enumerate(kinds) if t != "normal"), None)
    if f is not None and f >= 1 and rng.random() < 0.75:
        lo_i, hi_i = max(0, f - n + 1), min(f - 1, len(records) - n)
        if lo_i > hi_i:
            return None
        i = int(rng.integers(lo_i, hi_i + 1))
    chosen = records[i : i + n]
    start = day(str(chosen[0]["timestamp"]))
    last = day(str(chosen[-1]["timestamp"]))
    nxt = day(str(records[i + n]["timestamp"])) if i + n < len(records) else None
    if nxt is not None and (nxt - last).days < 3:
        return None
    end = last + timedelta(days=1 if nxt is None else int(rng.integers(1, (nxt - last).days - 1)))
    oil = oil_call(a, iso_day(start), iso_day(end))
    calls = [oil] + [
        ToolCall(name="interpret_dga", args=dga_args(a.asset_id, s)) for s in chosen
    ]
    # An onset is a change: the window opens on a normal sample (a fault present from the
    # first sample would make "the first faulty sample" just the window's start).
    if (await ctx.run(calls[1:2]))[0]["fault_type"] != "normal":
        return None
    params: dict[str, Any] = {
        "asset_id": a.asset_id, "site": a.site_name, "start": iso_day(start),
        "end": iso_day(end), "note": ONSET_NOTE,
    }
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, iso_day(start), iso_day(end), ONSET_NOTE],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": iso_day(start),
                   "end": iso_day(end)},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=[
            *DGA_READINGS, NORMALITY_READING, ND_ONSET,
            *window_end_readings(calls, "final", iso_day(end)),
        ],
        stated=[*DGA_READING_NAMES, NORMALITY_READING.name, ND_ONSET.name],
    )


# -- oil quality by IEC 60422 (fmsr, closed form; wo with the nameplate) -----------------------

QUALITY_MARGIN = 0.08  # relative distance kept from every category limit
TARGETS = ("none", "monitor", "recondition", "reclaim")
VALUE_DIGITS: dict[Parameter, int] = {
    "water_content": 0, "dielectric_rigidity": 0, "interfacial_v": 0, "acidity": 2,
}
CATEGORY_TEXT: dict[EquipmentCategory, str] = {
    "O": "category O (400 kV and above)", "A": "category A (above 170 kV)",
    "B": "category B (above 72.5 kV up to 170 kV)", "C": "category C (up to 72.5 kV)",
}
CRITICAL_READING_DESCRIPTION = (
    "applies the category A limits IEC 60422 gives for units whose continuity of supply is "
    "vital, whatever their voltage"
)


def _clear_of_limits(parameter: Parameter, value: float, category: EquipmentCategory) -> bool:
    return all(
        abs(value - limit) > QUALITY_MARGIN * limit for limit in LIMITS[parameter][category]
    )


def draw_quality(
    rng: np.random.Generator, category: EquipmentCategory, target: str
) -> dict[Parameter, float] | None:
    """Lab values (rounded as a lab reports them) whose decision is ``target``, each value
    8 % or more away from its category limits."""
    for _ in range(60):
        values: dict[Parameter, float] = {}
        for p in PARAMETERS:
            good, poor = LIMITS[p][category]
            lo, hi = sorted((good, poor))
            span = hi - lo
            # Draw around the fair band: from 2.5 spans below to 2.5 spans above it.
            raw = float(rng.uniform(lo - 2.5 * span, hi + 2.5 * span))
            values[p] = round(max(raw, 0.5 * lo), VALUE_DIGITS[p])  # no 5 kV oil
        cats = {p: classify(p, v, category) for p, v in values.items()}
        if decide(cats) != target:
            continue
        if all(_clear_of_limits(p, v, category) for p, v in values.items()):
            return values
    return None


def _quality_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[-1]
    cats = {row["parameter"]: row["category"] for row in out["parameters"]}
    return {"categories": cats, "decision": out["decision"]}


def _quality_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    cats = ", ".join(f"{k} {v}" for k, v in answer["categories"].items())
    return f"oil of {params['asset_id']} by IEC 60422: {cats}; decision {answer['decision']}"


def _lab_args(values: dict[Parameter, float]) -> dict[str, Any]:
    """The lab values as tool arguments."""
    return {str(k): v for k, v in values.items()}


def _lab_text(values: dict[Parameter, float]) -> dict[str, str]:
    # Whole numbers as whole numbers (``num`` strips the zeros of "50" when given 0 digits).
    return {
        "water": f"{values['water_content']:.0f}",
        "bdv": f"{values['dielectric_rigidity']:.0f}",
        "ift": f"{values['interfacial_v']:.0f}",
        "acid": f"{values['acidity']:.2f}",
    }


@family(
    "fmsr_oil_quality",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_quality_derive,
    summarise=_quality_summary,
    outcome=lambda answer: str(answer["decision"]),
    trivial=("none",),
)
async def oil_quality(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """IEC 60422 category (good, fair, poor) of each stated oil-quality value of a unit, and
    the treatment: none, monitor, recondition or reclaim. The text states the unit's
    equipment category (from the HV rating on its nameplate, so the store agrees with it).

    Gated reading: the category A limits for a unit whose supply is critical (stated: the
    text gives the category).
    """
    units = [a for a in ctx.assets if a.site_name]
    if not units:
        return None
    a = pick(rng, units)
    hv = nameplate_of((await ctx.run([assets_call(a.site_name)]))[0], a.asset_id).get("hv_kv")
    if hv is None:
        return None
    category = category_for_voltage(float(hv))
    values = draw_quality(rng, category, pick(rng, TARGETS))
    if values is None:
        return None
    args: dict[str, Any] = {"asset_name": a.asset_id, **_lab_args(values), "category": category}
    call = ToolCall(name="assess_oil_quality", args=args)
    note = f"Treat it as {CATEGORY_TEXT[category]} equipment."
    readings = []
    if category != "A":
        readings.append(Reading(
            "critical_unit_category_a", CRITICAL_READING_DESCRIPTION,
            tool_sequence=[ToolCall(name="assess_oil_quality", args=args | {"category": "A"})],
        ))
    params = {"asset_id": a.asset_id, "category": category, "note": note} | _lab_text(values)
    return Plan(
        params=params,
        tool_sequence=[call],
        mentions=[a.asset_id, params["water"], params["bdv"], params["ift"], params["acid"]],
        grounding={"asset_id": a.asset_id},
        difficulty="hard",
        hard_features=["multi_output"],
        closed_form=True,
        readings=readings,
        stated=[r.name for r in readings],
    )


def _treatment_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[-1]
    orders = sorted(outputs[1]["work_orders"], key=lambda w: (str(w["reported_date"]), w["wo_id"]))
    if not orders:
        raise Ambiguous("no preventive visit after the date")
    if len(orders) > 1 and str(orders[0]["reported_date"])[:10] == str(
        orders[1]["reported_date"]
    )[:10]:
        raise Ambiguous("two preventive visits on the first day")
    return {
        "equipment_category": out["equipment_category"],
        "decision": out["decision"],
        "raise_work_order": out["decision"] in ("recondition", "reclaim"),
        "basis": sorted(out["decision_basis"]),
        "next_preventive_wo": orders[0]["wo_id"],
        "next_preventive_date": str(orders[0]["reported_date"])[:10],
    }


def _treatment_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    order = "raise an oil-treatment work order" if answer["raise_work_order"] else "no work order"
    return (
        f"oil of {params['asset_id']} (IEC 60422 category {answer['equipment_category']}): "
        f"{answer['decision']} -> {order}; next preventive visit after {params['as_of']}: "
        f"{answer['next_preventive_wo']} on {answer['next_preventive_date']}"
    )


@family(
    "wo_oil_treatment",
    domain="wo",
    category="Decision Support",
    derive=_treatment_derive,
    summarise=_treatment_summary,
    outcome=lambda answer: str(answer["decision"]),
    trivial=("none",),
)
async def oil_treatment(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Whether to raise an oil-treatment work order (recondition or reclaim) for a unit from
    stated lab values, the IEC 60422 category following from the unit's HV rating on its
    nameplate, and the first planned preventive visit after a date that could take the job.

    Readings: the category A limits for a critical unit (stated: the text says to use the
    unit's voltage class); a visit on the date itself counting as "after" it (the date is
    drawn with no visit on it, so the gate finds the same visit).
    """
    units = [a for a in ctx.assets if a.site_name]
    if not units:
        return None
    a: GroundedAsset = pick(rng, units)
    plates = assets_call(a.site_name)
    all_pm = ToolCall(name="get_preventive_work_orders", args={"equipment_id": a.asset_id})
    plates_out, pm_out = await ctx.run([plates, all_pm])
    hv = nameplate_of(plates_out, a.asset_id).get("hv_kv")
    visits = sorted({str(w["reported_date"])[:10] for w in pm_out["work_orders"]})
    # A date inside the unit's data (a named date must be), before some visit and not on
    # one, so "after" reads the same either way.
    starts = [e for e in (a.telemetry.start, a.covered("oil_sample").start) if e]
    ends = [e for e in (a.telemetry.end, a.covered("oil_sample").end) if e]
    if hv is None or not visits or not starts or not ends:
        return None
    bounds = [min(day(e) for e in starts) - timedelta(days=1)] + [day(v) for v in visits]
    k = int(rng.integers(1, len(bounds)))
    lo, hi = bounds[k - 1], min(bounds[k], max(day(e) for e in ends) + timedelta(days=1))
    if (hi - lo).days < 2:
        return None
    as_of = iso_day(lo + timedelta(days=int(rng.integers(1, (hi - lo).days))))
    category = category_for_voltage(float(hv))
    values = draw_quality(rng, category, pick(rng, TARGETS))
    if values is None:
        return None
    args: dict[str, Any] = {"asset_name": a.asset_id, **_lab_args(values), "voltage_kv": float(hv)}
    pm = ToolCall(
        name="get_preventive_work_orders", args={"equipment_id": a.asset_id, "start_date": as_of}
    )
    pm_incl = ToolCall(name="get_preventive_work_orders", args={
        "equipment_id": a.asset_id, "start_date": iso_day(day(as_of) + timedelta(days=1)),
    })
    assess = ToolCall(name="assess_oil_quality", args=args)
    readings = [Reading(
        "after_excludes_the_day",
        "counts only visits from the day after the date",
        tool_sequence=[plates, pm_incl, assess],
    )]
    if category != "A":
        alt = {k: v for k, v in args.items() if k != "voltage_kv"} | {"category": "A"}
        readings.append(Reading(
            "critical_unit_category_a", CRITICAL_READING_DESCRIPTION,
            tool_sequence=[plates, pm, ToolCall(name="assess_oil_quality", args=alt)],
        ))
    note = "Use the limits for its voltage class."
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "as_of": as_of, "note": note,
    } | _lab_text(values)
    return Plan(
        params=params,
        tool_sequence=[plates, pm, assess],
        mentions=[a.asset_id, a.site_name, as_of, params["water"], params["bdv"], params["ift"],
                  params["acid"]],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": as_of},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=readings,
        stated=["critical_unit_category_a"] if category != "A" else [],
    )
