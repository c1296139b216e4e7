"""FMSR task families of the transformer class: diagnoses computed by the standards' tools.

Stored-reading families chain a data tool into a diagnostic tool; closed-form families
synthesise the inputs with the draw's generator and keep only inputs that classify away
from every boundary (``confidence == 1`` for DGA, a stable band under small perturbations
for winding and loading assessments).
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    asset_with_oil,
    asset_with_telemetry,
    assets_call,
    dga_args,
    full_days,
    hi_args,
    in_discharge_overlap,
    iso_day,
    label,
    nameplate_of,
    oil_call,
)
from assets.transformer.family_sensor_faults import sensor_fault_free
from generator.api import (
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
    history_call,
    num,
    pick,
    tool_accepts,
    unique_argmax,
    values_of,
)

GAS_ORDER: tuple[str, ...] = ("hydrogen", "methane", "ethane", "ethylene", "acetylene")
GAS_SYMBOL = {
    "hydrogen": "H2", "methane": "CH4", "ethane": "C2H6", "ethylene": "C2H4",
    "acetylene": "C2H2", "co": "CO", "co2": "CO2",
}
# Typical fault fingerprints (ppm) around which closed-form samples are drawn; the tool, not
# these numbers, decides the class, and a draw is kept only when it lands on the target.
PROTOTYPES: dict[str, dict[str, float]] = {
    "PD": {"hydrogen": 500, "methane": 25, "ethane": 20, "ethylene": 2, "acetylene": 0.5},
    "D1": {"hydrogen": 200, "methane": 40, "ethane": 10, "ethylene": 30, "acetylene": 90},
    "D2": {"hydrogen": 300, "methane": 90, "ethane": 20, "ethylene": 200, "acetylene": 180},
    "T1": {"hydrogen": 40, "methane": 120, "ethane": 220, "ethylene": 50, "acetylene": 0.5},
    "T2": {"hydrogen": 60, "methane": 220, "ethane": 80, "ethylene": 220, "acetylene": 2},
    "T3": {"hydrogen": 120, "methane": 300, "ethane": 50, "ethylene": 650, "acetylene": 6},
    "normal": {"hydrogen": 20, "methane": 10, "ethane": 8, "ethylene": 5, "acetylene": 0.2},
}
HI_BOUNDARIES: tuple[float, ...] = (85.0, 70.0, 50.0, 30.0)
HI_MARGIN = 1.0


def pick_sample(
    records: list[dict[str, Any]], which: str
) -> dict[str, Any]:
    """The latest sample, or the sample taken on day ``which`` (YYYY-MM-DD)."""
    if not records:
        raise Ambiguous("no oil samples")
    if which == "latest":
        return records[-1]
    hits = [r for r in records if str(r["timestamp"])[:10] == which]
    if len(hits) != 1:
        raise Ambiguous(f"{len(hits)} samples on {which}")
    return hits[0]


def same_gases(sample: dict[str, Any], used: dict[str, Any]) -> bool:
    return all(
        sample.get(g) is None or abs(float(sample[g]) - float(used[g])) < 1e-9 for g in GAS_ORDER
    )


async def stored_sample(
    ctx: FamilyContext, rng: np.random.Generator, latest_share: float = 0.3
) -> tuple[GroundedAsset, ToolCall, str, dict[str, Any]] | None:
    """An asset with oil samples, its oil-sample call, and the sample a task asks about
    ("latest" with probability ``latest_share``, else a dated sample)."""
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    oil = oil_call(a)
    records = (await ctx.run([oil]))[0]["records"]
    if not records:
        return None
    # One "latest" task per asset but one dated task per sample: ask mostly about dates.
    which = "latest" if rng.random() < latest_share else str(pick(rng, records)["timestamp"])[:10]
    return a, oil, which, pick_sample(records, which)


# -- DGA: the three ratio methods as readings ---------------------------------------------

NO_FAULT_CLASSES = ("normal", "ND")
DGA_READINGS: tuple[Reading, ...] = (
    Reading(
        "duval_triangle",
        "classifies the sample with Duval triangle 1 instead of the IEC 60599 ratios",
        params={"method": "duval"},
    ),
    Reading(
        "rogers_ratios",
        "classifies the sample with the Rogers ratio codes instead of the IEC 60599 ratios",
        params={"method": "rogers"},
    ),
)
DGA_READING_NAMES = [r.name for r in DGA_READINGS]
# The tool calls a sample normal when every gas is within its IEC 60599 typical value AND the
# IEEE C57.104 condition is 1; a reader of IEC 60599 alone stops at the typical values. Never
# stated by the method note, so a draw where the two disagree is dropped.
NORMALITY_READING = Reading(
    "iec_typical_values_only",
    "calls the sample normal when every gas is within its IEC 60599 typical value, "
    "without the IEEE C57.104 condition",
    params={"method": "typical"},
)
IEC_METHOD_NOTE = "Use the IEC 60599 ratio method for the fault class."


def dga_class(out: dict[str, Any], method: str) -> str:
    """The fault class a reader using ``method`` (iec, duval, rogers) reports.

    A sample whose gases are all within the IEC 60599 typical values is "normal" under every
    method: the ratio methods (and the triangle) are applied only to a sample with a gas above
    its typical value (IEC 60599:2015 clause 5). Otherwise Duval zones and Rogers codes are
    read on the IEC codes the tool maps them to.
    """
    if method == "typical":
        typical = bool(out["screen"]["all_within_iec_typical"])
        return "normal" if typical else str(out["fault_type"])
    if method == "iec" or out["fault_type"] == "normal":
        return str(out["fault_type"])
    return str(out["agreement"][f"{method}_as_iec"])


def _component(out: dict[str, Any], method: str) -> float:
    """The boundary-margin confidence of one method (the overall one when not reported)."""
    detail = out.get("confidence_detail") or {}
    return float(detail.get(method, out["confidence"]))


def dga_answer(out: dict[str, Any], with_details: bool, method: str = "iec") -> dict[str, Any]:
    # The reference (IEC) needs the overall confidence unless the text names the method,
    # then the IEC margin alone; another method's reader needs that method's margin.
    if method in ("iec", "typical"):
        if _component(out, "iec") < 1.0:
            raise Ambiguous(f"IEC confidence {_component(out, 'iec'):.2f} (near a boundary)")
        if out["fault_type"] in ("D1", "D2") and in_discharge_overlap(out):
            raise Ambiguous("IEC ratios fit both the D1 and D2 rows of Table 1")
    elif method == "duval" and out["fault_type"] != "normal" and _component(out, "duval") < 1.0:
        raise Ambiguous("Duval point near a zone boundary")
    answer: dict[str, Any] = {"fault_type": dga_class(out, method)}
    if with_details:
        answer |= {
            "ieee_condition": out["screen"]["ieee_condition"],
            "methods_agreeing": out["agreement"]["methods_agreeing"],
        }
    return answer


def dga_outcome(answer: dict[str, Any]) -> str:
    """fault, normal or undetermined."""
    fault = answer["fault_type"]
    return "normal" if fault == "normal" else "undetermined" if fault == "ND" else "fault"


def dga_method_choice(out: dict[str, Any]) -> tuple[bool, bool]:
    """(usable, name_the_method) for a DGA interpretation.

    Never a reference that Duval triangle 1 contradicts: a fault class whose Duval zone maps
    to another determined class is dropped (the unit's true fault is then in doubt), and so is
    a sample in the D1/D2 overlap of IEC 60599 Table 1 (:func:`in_discharge_overlap`). When
    Rogers alone disagrees (often "undetermined"), the text names the IEC method. The choice
    depends on the sample only, so one sample never makes two tasks that differ only in it.
    """
    fault = out["fault_type"]
    if fault not in NO_FAULT_CLASSES and dga_class(out, "duval") != fault:
        return False, False
    if fault in ("D1", "D2") and in_discharge_overlap(out):
        return False, False
    if fault == "ND":
        return False, False
    return True, dga_class(out, "rogers") != fault


def _dga_stored_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sample = pick_sample(outputs[0]["records"], params["which"])
    dga = outputs[1]
    if not same_gases(sample, dga["sample"]):
        raise Ambiguous("the interpreted gases are not those of the chosen sample")
    method = params.get("method", "iec")
    if method == "iec" and not params.get("method_named") and dga["confidence"] < 1.0:
        raise Ambiguous(f"DGA confidence {dga['confidence']:.2f}")
    return {"sample_timestamp": sample["timestamp"]} | dga_answer(
        dga, params["with_details"], method
    )


def _dga_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    where = f" (sample {answer['sample_timestamp']})" if "sample_timestamp" in answer else ""
    method = " by the IEC 60599 ratios" if params.get("method_named") else ""
    text = f"DGA of {params['asset_id']}{where}{method}: {answer['fault_type']}"
    if "ieee_condition" in answer:
        text += (
            f", IEEE C57.104 condition {answer['ieee_condition']}, "
            f"{answer['methods_agreeing']} of 3 ratio methods agree"
        )
    return text


def _dga_plan_words(named: bool) -> dict[str, Any]:
    """Plan fields for the method choice: the note, the stated readings."""
    return {
        "readings": [*DGA_READINGS, NORMALITY_READING],
        "stated": DGA_READING_NAMES if named else [],
    }


@family(
    "fmsr_dga_stored",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_dga_stored_derive,
    summarise=_dga_summary,
    outcome=dga_outcome,
    trivial=("normal", "undetermined"),
)
async def dga_stored(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """DGA fault class of an asset's latest (or dated) stored oil sample.

    Gated readings: Duval triangle 1 and the Rogers codes instead of the IEC 60599 ratios;
    the text names the IEC method when only Rogers disagrees, and a class Duval contradicts
    is never a reference.
    """
    stored = await stored_sample(ctx, rng)
    if stored is None:
        return None
    a, oil, which, sample = stored
    dga = ToolCall(name="interpret_dga", args=dga_args(a.asset_id, sample))
    usable, named = dga_method_choice((await ctx.run([dga]))[0])
    if not usable:
        return None
    with_details = bool(rng.random() < 0.35)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "which": which, "with_details": with_details,
        "method_named": named,
    } | ({"note": IEC_METHOD_NOTE} if named else {})
    mentions = [a.asset_id, a.site_name] + ([which] if which != "latest" else [])
    return Plan(
        params=params,
        tool_sequence=[oil, dga],
        mentions=mentions + ([IEC_METHOD_NOTE] if named else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id}
        | ({"start": which} if which != "latest" else {}),
        difficulty="hard" if with_details else "medium",
        hard_features=["multi_output"] if with_details else [],
        **_dga_plan_words(named),
    )


# -- DGA of a given sample (closed form) ---------------------------------------------------


def _dga_given_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    method = params.get("method", "iec")
    out = outputs[0]
    if method == "iec" and not params.get("method_named") and out["confidence"] < 1.0:
        raise Ambiguous(f"DGA confidence {out['confidence']:.2f}")
    return dga_answer(out, params["with_details"], method)


@family(
    "fmsr_dga_given",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_dga_given_derive,
    summarise=_dga_summary,
    outcome=dga_outcome,
    trivial=("normal", "undetermined"),
)
async def dga_given(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """DGA fault class of a sample whose gas concentrations the request states (closed form).

    Gated like ``fmsr_dga_stored``: the three methods must agree unless the text names the
    IEC method, and Duval never contradicts the reference.
    """
    target = pick(rng, sorted(PROTOTYPES))
    asset_id = pick(rng, [a.asset_id for a in ctx.assets]) if ctx.assets else "transformer"
    for _ in range(40):
        gases = {
            g: round(v * float(np.exp(rng.normal(0.0, 0.25))))
            for g, v in PROTOTYPES[target].items()
        }
        args: dict[str, Any] = {"asset_name": asset_id, **gases}
        out = await ctx.run1("interpret_dga", **args)
        if out["fault_type"] == target and _component(out, "iec") >= 1.0:
            usable, named = dga_method_choice(out)
            if usable:
                break
    else:
        return None
    with_details = bool(rng.random() < 0.35)
    gas_text = ", ".join(f"{GAS_SYMBOL[g]} {gases[g]} ppm" for g in GAS_ORDER)
    params = {
        "asset_id": asset_id, "gases": gases, "gas_text": gas_text, "with_details": with_details,
        "method_named": named,
    } | ({"note": IEC_METHOD_NOTE} if named else {})
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name="interpret_dga", args=args)],
        mentions=[asset_id] + [str(gases[g]) for g in GAS_ORDER]
        + ([IEC_METHOD_NOTE] if named else []),
        grounding={"asset_id": asset_id},
        difficulty="hard" if with_details else "medium",
        hard_features=["multi_output"] if with_details else [],
        closed_form=True,
        **_dga_plan_words(named),
    )


# -- winding temperature -------------------------------------------------------------------

WINDING_SENSORS = ["wti", "oti", "ati", "oti_a", "oti_t"]


PAPER_TEXT = {"kraft": "non-upgraded Kraft paper", "upgraded": "thermally upgraded paper"}
KRAFT_READING_DESCRIPTION = (
    "assesses with the untreated Kraft paper default (V = 1 at 98 °C) instead of the "
    "nameplate's insulation paper"
)


def winding_args(
    asset_id: str, reading: dict[str, Any], paper: str | None = None
) -> dict[str, Any]:
    """`assess_winding_temperature` arguments from a telemetry record (and the paper)."""
    args: dict[str, Any] = {"asset_name": asset_id}
    for k in WINDING_SENSORS:
        if reading.get(k) is not None:
            args[k] = int(reading[k]) if k in ("oti_a", "oti_t") else float(reading[k])
    if paper is not None:
        args["paper"] = paper
    return args


def paper_reading(calls: list[ToolCall]) -> tuple[Reading, str] | None:
    """The Kraft-default reading of a plan whose assessment passes the nameplate's paper, and
    the note that pins the nameplate's paper in the text (None when the paper is Kraft)."""
    i = next(
        (k for k, c in enumerate(calls) if c.name == "assess_winding_temperature"), None
    )
    if i is None or calls[i].args.get("paper", "kraft") == "kraft":
        return None
    alt = list(calls)
    alt[i] = ToolCall(name=calls[i].name, args=dict(calls[i].args, paper="kraft"))
    note = f"Its nameplate lists {PAPER_TEXT[calls[i].args['paper']]}."
    return Reading("paper_kraft_default", KRAFT_READING_DESCRIPTION, tool_sequence=alt), note


async def paper_gate(
    ctx: FamilyContext, calls: list[ToolCall], keys: tuple[str, ...]
) -> tuple[list[Reading], list[str], str | None]:
    """(readings, stated, note) for a plan with a winding assessment.

    The Kraft-default reading is gated. When the nameplate's paper is not Kraft and the
    assessment's ``keys`` (the fields the answer reports) differ under Kraft, the text states
    the nameplate's paper (the reading is then ``stated`` and its answer recorded); the
    ageing rate differs with the paper at every temperature, so a family reporting it always
    states a non-Kraft paper.
    """
    found = paper_reading(calls)
    if found is None:
        return [], [], None
    reading, note = found
    alt_calls = reading.tool_sequence or []
    i = next(k for k, c in enumerate(calls) if c.name == "assess_winding_temperature")
    base, alt = await ctx.run([calls[i], alt_calls[i]])
    if all(base[k] == alt[k] for k in keys):
        return [reading], [], None
    return [reading], [reading.name], note


def _winding_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[-1]
    answer: dict[str, Any] = {
        "thermal_status": out["thermal_status"],
        "risk_level": out["risk_level"],
        "relative_ageing_rate": out["relative_ageing_rate"],
    }
    if params["stored"]:
        ts, wti = unique_argmax(values_of(outputs[1]["records"], "wti"))
        if abs(wti - out["hot_spot_c"]) > 1e-9:
            raise Ambiguous("the assessed reading is not the day's peak")
        answer |= {"timestamp": ts, "hot_spot_c": wti}
    return answer


def winding_outcome(answer: dict[str, Any]) -> str:
    """normal (status normal, risk low) or stress."""
    calm = answer["thermal_status"] == "normal" and answer["risk_level"] == "low"
    return "normal" if calm else "stress"


def _winding_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    at = ""
    if "timestamp" in answer:
        at = (
            f" at the {params['day']} peak ({answer['timestamp']}, "
            f"WTI {num(answer['hot_spot_c'], 1)} °C)"
        )
    paper = f" ({PAPER_TEXT[params['paper']]})" if params.get("paper") else ""
    return (
        f"winding assessment of {params['asset_id']}{paper}{at}: thermal status "
        f"{answer['thermal_status']}, risk {answer['risk_level']}, relative ageing rate "
        f"{num(answer['relative_ageing_rate'], 4)}"
    )


async def winding_stable(ctx: FamilyContext, args: dict[str, Any]) -> bool:
    """True when ±1 K on the temperatures changes neither status nor risk."""
    base = await ctx.run1("assess_winding_temperature", **args)
    for dw, do in ((1.0, 1.0), (-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0)):
        moved = dict(args, wti=args["wti"] + dw, oti=args["oti"] + do)
        if moved["oti"] > moved["wti"] or moved["ati"] > moved["oti"]:
            continue
        out = await ctx.run1("assess_winding_temperature", **moved)
        if (out["thermal_status"], out["risk_level"]) != (
            base["thermal_status"], base["risk_level"]
        ):
            return False
    return True


async def daily_peaks(
    ctx: FamilyContext, a: GroundedAsset, sensor: str
) -> list[tuple[str, float]]:
    """(day, peak value) of every whole day of an asset's telemetry, hottest first.

    Derived from one memoised tool call, so kept per run (``ctx.derived``) beside it.
    """
    first, last = full_days(a)
    hist = history_call(a, iso_day(first), iso_day(last), [sensor])
    key = "daily_peaks" + json.dumps(hist.args, sort_keys=True, default=str)
    cached: list[tuple[str, float]] | None = ctx.derived.get(key)
    if cached is not None:
        return list(cached)
    by_day: dict[str, float] = {}
    for ts, v in values_of((await ctx.run([hist]))[0]["records"], sensor):
        by_day[ts[:10]] = max(v, by_day.get(ts[:10], v))
    peaks = sorted(by_day.items(), key=lambda kv: (-kv[1], kv[0]))
    ctx.derived[key] = peaks
    return list(peaks)


async def pick_day(
    ctx: FamilyContext, rng: np.random.Generator, a: GroundedAsset, sensor: str
) -> date | None:
    """A day of the asset's telemetry: 60 % of the time one of its five days with the highest
    daily peak of ``sensor`` (where stress, overloads and alarms are), else any whole day."""
    first, last = full_days(a)
    span = (last - first).days
    if span < 1:
        return None
    if rng.random() < 0.6:
        peaks = await daily_peaks(ctx, a, sensor)
        if peaks:
            return date.fromisoformat(pick(rng, peaks[:5])[0])
    return first + timedelta(days=int(rng.integers(0, span)))


@family(
    "fmsr_winding_assessment",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_winding_derive,
    summarise=_winding_summary,
    outcome=winding_outcome,
    trivial=("normal",),
)
async def winding_assessment(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Thermal status and risk of a winding reading: a day's peak from telemetry, or given.

    The assessment uses the nameplate's insulation paper (read from the unit list); the
    Kraft-default reading is gated and the text states the paper whenever it is not Kraft.
    """
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    plates = assets_call(a.site_name)
    paper = nameplate_of((await ctx.run([plates]))[0], a.asset_id).get("paper")
    stored = bool(rng.random() < 0.6)
    if stored:
        d = await pick_day(ctx, rng, a, "wti")
        if d is None:
            return None
        if not await sensor_fault_free(ctx, a, iso_day(d), iso_day(d), WINDING_SENSORS):
            return None  # a stuck indicator could hide the day's true peak
        hist = history_call(a, iso_day(d), iso_day(d + timedelta(days=1)), WINDING_SENSORS)
        records = (await ctx.run([hist]))[0]["records"]
        try:
            ts, _ = unique_argmax(values_of(records, "wti"))
        except Ambiguous:
            return None
        reading = next(r for r in records if r["timestamp"] == ts)
        args = winding_args(a.asset_id, reading, paper)
        calls = [plates, hist, ToolCall(name="assess_winding_temperature", args=args)]
        params: dict[str, Any] = {
            "asset_id": a.asset_id, "site": a.site_name, "stored": True, "day": iso_day(d),
        }
        mentions = [a.asset_id, a.site_name, iso_day(d)]
        grounding = {"site": a.site_name, "asset_id": a.asset_id, "start": iso_day(d)}
    else:
        ati = int(rng.integers(5, 41))
        oti = ati + int(rng.integers(20, 66))
        wti = oti + int(rng.integers(10, 36))
        args = {"asset_name": a.asset_id, "wti": wti, "oti": oti, "ati": ati}
        if paper is not None:
            args["paper"] = paper
        calls = [plates, ToolCall(name="assess_winding_temperature", args=args)]
        params = {
            "asset_id": a.asset_id, "site": a.site_name, "stored": False, "wti": wti,
            "oti": oti, "ati": ati,
            "reading_text": f"winding {wti} °C, top oil {oti} °C, ambient {ati} °C",
        }
        mentions = [a.asset_id, str(wti), str(oti), str(ati)]
        grounding = {"asset_id": a.asset_id}
    if not await winding_stable(ctx, args):
        return None
    readings, stated, note = await paper_gate(
        ctx, calls, ("thermal_status", "risk_level", "relative_ageing_rate")
    )
    params |= {"paper": paper} | ({"note": note} if note else {})
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=mentions + ([note] if note else []),
        grounding=grounding,
        difficulty="hard" if stored else "medium",
        hard_features=["multi_output"] if stored else [],
        closed_form=not stored,
        tolerance={"hot_spot_c": 0.01},
        # V spans orders of magnitude (0.0055 at 53 °C on Kraft): 1 % of the value, not
        # an absolute 0.01 that would pass nearly three times the right answer.
        rel_tolerance={"relative_ageing_rate": 0.01},
        readings=readings,
        stated=stated,
    )


# -- load profile ---------------------------------------------------------------------------

LOAD_SENSORS = ["vl1", "vl2", "vl3", "vl12", "vl23", "vl31", "il1", "il2", "il3", "inut"]


DISTRIBUTION_MAX_MVA = 2.5  # IEC 60076-7:2018 clause 3: distribution ≤ 2.5 MVA
MEDIUM_MAX_MVA = 100.0  # medium power ≤ 100 MVA, large power above
SIZE_TEXT = {
    "distribution": "a distribution transformer",
    "medium": "a medium power transformer",
    "large": "a large power transformer",
}


def size_class_of(rated_mva: float) -> str:
    """IEC 60076-7 size class of a three-phase unit (bounds belong to the smaller class)."""
    if rated_mva <= DISTRIBUTION_MAX_MVA:
        return "distribution"
    return "medium" if rated_mva <= MEDIUM_MAX_MVA else "large"


def _load_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    plates, hist, out = outputs
    rated = nameplate_of(plates, params["asset_id"]).get("rated_mva")
    if rated is None or abs(float(rated) - out["rated_mva"]) > 1e-9:
        raise Ambiguous("rating does not match the nameplate")
    ts, _ = unique_argmax(values_of(hist["records"], "il1"))
    return {
        "timestamp": ts,
        "loading_status": out["loading_status"],
        "load_factor_pct": out["load_factor_pct"],
        "current_imbalance_pct": out["current_imbalance_pct"],
    }


def load_outcome(answer: dict[str, Any]) -> str:
    """normal (light or normal band) or overload."""
    return "normal" if answer["loading_status"] in ("light", "normal") else "overload"


def _load_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"load assessment of {params['asset_id']} at its {params['day']} phase-1 current peak "
        f"({answer['timestamp']}): {answer['loading_status']}, load factor "
        f"{num(answer['load_factor_pct'], 1)} %, current imbalance "
        f"{num(answer['current_imbalance_pct'], 1)} %"
    )


@family(
    "fmsr_load_assessment",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_load_derive,
    summarise=_load_summary,
    outcome=load_outcome,
    trivial=("normal",),
)
async def load_assessment(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Loading band and imbalance of an asset at the hour of a day's peak phase-1 current.

    Gated reading: the large-power-transformer loading limits (IEC 60076-7) instead of the
    unit's own size class; when they give another band the text states the size class.
    (Gated only once the tool takes a ``size_class`` argument.)
    """
    a = asset_with_telemetry(ctx, rng)
    if a is None or any(s not in a.sensors for s in LOAD_SENSORS):
        return None
    d = await pick_day(ctx, rng, a, "il1")
    if d is None:
        return None
    plates = assets_call(a.site_name)
    hist = history_call(a, iso_day(d), iso_day(d + timedelta(days=1)), LOAD_SENSORS)
    plates_out, hist_out = await ctx.run([plates, hist])
    try:
        ts, _ = unique_argmax(values_of(hist_out["records"], "il1"))
    except Ambiguous:
        return None
    reading = next(r for r in hist_out["records"] if r["timestamp"] == ts)
    rated = nameplate_of(plates_out, a.asset_id).get("rated_mva")
    if rated is None:
        return None
    currents: dict[str, float] = {k: float(reading[k]) for k in LOAD_SENSORS}
    args: dict[str, Any] = {"asset_name": a.asset_id, "rated_mva": float(rated)} | currents
    base = await ctx.run1("assess_load_profile", **args)
    for f in (0.98, 1.02):
        moved = args | {k: currents[k] * f for k in ("il1", "il2", "il3")}
        out = await ctx.run1("assess_load_profile", **moved)
        if out["loading_status"] != base["loading_status"]:
            return None
    calls = [plates, hist, ToolCall(name="assess_load_profile", args=args)]
    size = size_class_of(float(rated))
    readings: list[Reading] = []
    note: str | None = None
    if size != "large" and tool_accepts("assess_load_profile", "size_class"):
        alt = ToolCall(name="assess_load_profile", args=args | {"size_class": "large"})
        readings.append(Reading(
            "size_class_large",
            "applies the large-power-transformer loading limits (IEC 60076-7) to the unit",
            tool_sequence=[plates, hist, alt],
        ))
        if (await ctx.run([alt]))[0]["loading_status"] != base["loading_status"]:
            note = f"It is {SIZE_TEXT[size]} ({num(float(rated), 1)} MVA)."
    params = {"asset_id": a.asset_id, "site": a.site_name, "day": iso_day(d)}
    params |= {"note": note} if note else {}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, iso_day(d)] + ([note] if note else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": iso_day(d)},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"load_factor_pct": 0.1, "current_imbalance_pct": 0.1},
        readings=readings,
        stated=[r.name for r in readings] if note else [],
    )


# -- health index ---------------------------------------------------------------------------


RULE_INDEX_NOTE = "Use the rule-based (scored) health index, not the learned model's estimate."


def hi_estimates(out: dict[str, Any]) -> tuple[tuple[float, str], tuple[float, str] | None]:
    """((rule index, band), (other index, band) or None) of a health-index output.

    The rule score (Jahromi-style weighted factor scores) is the reference; the tool reports
    it as ``rule_health_index`` next to a learned estimate, or as the headline
    ``health_index`` with the learned one under another ``*health_index`` key.
    """
    rule_key = "rule_health_index" if "rule_health_index" in out else "health_index"
    rule = (float(out[rule_key]), str(out[rule_key.replace("health_index", "condition")]))
    others = [
        (float(out[k]), str(out[k.replace("health_index", "condition")]))
        for k in sorted(out)
        if k.endswith("health_index") and k != rule_key
        and k.replace("health_index", "condition") in out
    ]
    differing = [o for o in others if abs(o[0] - rule[0]) > 1e-9]
    return rule, (differing[0] if differing else None)


def _hi_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sample = pick_sample(outputs[0]["records"], params["which"])
    rule, other = hi_estimates(outputs[1])
    hi, band = other if params.get("index") == "secondary" and other else rule
    if any(abs(hi - b) <= HI_MARGIN for b in HI_BOUNDARIES):
        raise Ambiguous(f"health index {hi:.1f} is within {HI_MARGIN} of a band boundary")
    answer: dict[str, Any] = {"sample_timestamp": sample["timestamp"], "condition": band}
    if params.get("ask", "index") == "index":
        answer["health_index"] = hi
    return answer


def hi_outcome(answer: dict[str, Any]) -> str:
    """good (very good or good band) or degraded."""
    return "good" if answer["condition"] in ("very good", "good") else "degraded"


def _hi_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    index = (
        f"rule-based health index {num(answer['health_index'], 1)}, "
        if "health_index" in answer else ""
    )
    return (
        f"health of {params['asset_id']} from the sample of {answer['sample_timestamp']}: "
        f"{index}condition {answer['condition']}"
    )


@family(
    "fmsr_health_index",
    domain="fmsr",
    category="Prediction",
    derive=_hi_derive,
    summarise=_hi_summary,
    outcome=hi_outcome,
    trivial=("good",),
)
async def health_index(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Health index and condition band of an asset from its latest (or dated) oil sample.

    Gated reading: the learned model's index instead of the rule score. A request for the
    condition band alone needs both to give the same band; a request for the index value
    states the rule-based index.
    """
    stored = await stored_sample(ctx, rng)
    if stored is None:
        return None
    a, oil, which, sample = stored
    args = hi_args(a.asset_id, sample)
    if args is None:
        return None
    ask = "band" if rng.random() < 0.4 else "index"
    params = {"asset_id": a.asset_id, "site": a.site_name, "which": which, "ask": ask}
    params |= {"note": RULE_INDEX_NOTE} if ask == "index" else {}
    reading = Reading(
        "model_index",
        "reports the learned model's health index and its band instead of the rule score",
        params={"index": "secondary"},
    )
    hi_call = ToolCall(name="predict_health_index", args=args)
    readings = [reading]
    if "acidity" in args:
        # The upstream tool signature has no acidity: a reader scoring the 14 inputs alone
        # leaves it out of the oil-quality factor. Gated, never stated.
        without = {k: v for k, v in args.items() if k != "acidity"}
        readings.append(Reading(
            "oil_quality_without_acidity",
            "scores the oil-quality factor without the sample's acidity",
            tool_sequence=[oil, ToolCall(name="predict_health_index", args=without)],
        ))
    return Plan(
        params=params,
        tool_sequence=[oil, hi_call],
        mentions=[a.asset_id, a.site_name] + ([which] if which != "latest" else [])
        + ([RULE_INDEX_NOTE] if ask == "index" else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id}
        | ({"start": which} if which != "latest" else {}),
        difficulty="medium",
        tolerance={"health_index": 0.5},
        readings=readings,
        stated=[reading.name] if ask == "index" else [],
    )


# -- failure modes revealed by a sensor ------------------------------------------------------


def _modes_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    mapping = outputs[0]["sensor_to_failure_modes"]
    sets = [set(mapping.get(s, [])) for s in params["sensors"]]
    common = set.intersection(*sets) if sets else set()
    return {"failure_modes": sorted(common)}


def _modes_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"failure modes revealed by {' and '.join(params['sensors'])}: "
        f"{and_join(answer['failure_modes'])}"
    )


@family(
    "fmsr_sensor_failure_modes",
    domain="fmsr",
    category="Knowledge Query",
    derive=_modes_derive,
    summarise=_modes_summary,
)
async def sensor_failure_modes(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Failure modes revealed by one sensor (or by both of two sensors) of an asset."""
    # The profile splits a mode's revealers into gases and other sensors; the tool does not.
    revealers = [set(fm.sensors) | set(fm.gases) for fm in ctx.profile.failure_modes]
    revealing = sorted(set().union(*revealers)) if revealers else []
    if not revealing or not ctx.assets:
        return None
    a = pick(rng, ctx.assets)
    both = bool(rng.random() < 0.35)
    first = pick(rng, revealing)
    sensors = [first]
    if both:
        partners = sorted({s for r in revealers if first in r for s in r} - {first})
        if not partners:
            return None
        sensors.append(pick(rng, partners))
    params = {
        "asset_id": a.asset_id, "sensors": sensors,
        "sensor": sensors[0], "sensor_label": label(ctx, sensors[0]),
        "sensor2": sensors[1] if both else "", "sensor2_label": label(ctx, sensors[1])
        if both else "",
    }
    return Plan(
        params=params,
        tool_sequence=[ToolCall(
            name="get_failure_mode_sensor_mapping",
            args={"asset_name": a.asset_id, "sensors": sensors},
        )],
        mentions=[a.asset_id, *sensors],
        grounding={"asset_id": a.asset_id, "sensor": sensors[0]},
        difficulty="hard" if both else "easy",
        hard_features=["constraint"] if both else [],
        constraint=f"list only failure modes that both {sensors[0]} and {sensors[1]} reveal"
        if both else None,
    )


# -- a false premise: a diagnosis the stored samples do not support -------------------------

CLAIMS: dict[str, str] = {
    "D2": "arcing (high-energy discharge, D2)",
    "D1": "sparking (low-energy discharge, D1)",
    "T3": "a hot spot above 700 °C (thermal fault T3)",
    "PD": "partial discharge (PD)",
}


def _premise_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    records = outputs[0]["records"]
    claimed = params["claim_date"]
    answer: dict[str, Any] = {"premise_holds": False, "claimed_fault": params["claimed_fault"]}
    on_day = [r for r in records if str(r["timestamp"])[:10] == claimed]
    if not on_day:
        before = [str(r["timestamp"]) for r in records if str(r["timestamp"])[:10] < claimed]
        after = [str(r["timestamp"]) for r in records if str(r["timestamp"])[:10] > claimed]
        if not before or not after or len(outputs) < 2:
            raise Ambiguous("the claimed date is outside the sampled period")
        prev = next(r for r in records if str(r["timestamp"]) == before[-1])
        if not same_gases(prev, outputs[1]["sample"]):
            raise Ambiguous("the interpreted gases are not those of the previous sample")
        prev_fault = dga_answer(outputs[1], False, params.get("method", "iec"))["fault_type"]
        return answer | {
            "sample_on_date": False, "previous_sample": before[-1], "next_sample": after[0],
            "previous_fault_type": prev_fault,
        }
    if len(on_day) != 1 or len(outputs) < 2:
        raise Ambiguous("no single sample on the claimed date")
    sample, dga = on_day[0], outputs[1]
    if not same_gases(sample, dga["sample"]):
        raise Ambiguous("the interpreted gases are not those of the claimed date's sample")
    fault = dga_answer(dga, False, params.get("method", "iec"))["fault_type"]
    if fault == params["claimed_fault"]:
        answer["premise_holds"] = True
    return answer | {
        "sample_on_date": True, "sample_timestamp": sample["timestamp"], "actual_fault_type": fault,
    }


def _premise_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    head = (
        f"the premise is false: {params['asset_id']} shows no {params['claimed_fault']} "
        f"on {params['claim_date']}"
    )
    if answer["premise_holds"]:
        return f"{params['asset_id']} sample of {params['claim_date']}: {answer['claimed_fault']}"
    if not answer["sample_on_date"]:
        return (
            f"{head}: no oil sample was taken that day (samples on "
            f"{answer['previous_sample'][:10]} and {answer['next_sample'][:10]}; the one "
            f"before it classifies as {answer['previous_fault_type']})"
        )
    return f"{head}: the sample of that day classifies as {answer['actual_fault_type']}"


@family(
    "fmsr_false_premise",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_premise_derive,
    summarise=_premise_summary,
    outcome=lambda answer: "premise_holds" if answer["premise_holds"] else "false_premise",
    trivial=("premise_holds",),
)
async def false_premise(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A request that asserts a DGA diagnosis on a date the stored samples contradict.

    The reference answer corrects the premise: the claimed day's sample classifies as another
    class, or no sample was taken that day (the answer names the samples before and after it
    and the class of the one before). Gated: Duval and Rogers readings must give the same
    classes.
    """
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    oil = oil_call(a)
    records = (await ctx.run([oil]))[0]["records"]
    if len(records) < 3:
        return None
    claimed = pick(rng, sorted(CLAIMS))
    if rng.random() < 0.5:
        # A day between two samples (weekly sampling leaves six days without one).
        i = int(rng.integers(1, len(records)))
        lo, hi = day(str(records[i - 1]["timestamp"])), day(str(records[i]["timestamp"]))
        if (hi - lo).days < 2:
            return None
        claim_day = iso_day(lo + timedelta(days=int(rng.integers(1, (hi - lo).days))))
        prev = ToolCall(name="interpret_dga", args=dga_args(a.asset_id, records[i - 1]))
        calls = [oil, prev]
    else:
        sample = pick(rng, records)
        claim_day = str(sample["timestamp"])[:10]
        dga = ToolCall(name="interpret_dga", args=dga_args(a.asset_id, sample))
        out = (await ctx.run([dga]))[0]
        if out["fault_type"] == claimed or out["fault_type"] == "ND":
            return None
        calls = [oil, dga]
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "claim_date": claim_day,
        "claimed_fault": claimed, "claim_text": CLAIMS[claimed],
    }
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, claim_day],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": claim_day},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=[*DGA_READINGS, NORMALITY_READING],
    )
