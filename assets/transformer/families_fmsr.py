"""FMSR task families of the transformer class: diagnoses computed by the standards' tools.

Stored-reading families chain a data tool into a diagnostic tool; closed-form families
synthesise the inputs with the draw's generator and keep only inputs that classify away
from every boundary (``confidence == 1`` for DGA, a stable band under small perturbations
for winding and loading assessments).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    and_join,
    asset_with_oil,
    asset_with_telemetry,
    dga_args,
    full_days,
    hi_args,
    history_call,
    iso_day,
    label,
    num,
    oil_call,
    pick,
    unique_argmax,
    values_of,
)
from generator.generate.families import Ambiguous, FamilyContext, Plan, family
from generator.generate.model import TaskSeed, ToolCall
from generator.profile.model import GroundedAsset

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


async def _stored_sample(
    ctx: FamilyContext, rng: np.random.Generator
) -> tuple[GroundedAsset, ToolCall, str, dict[str, Any]] | None:
    """An asset with oil samples, its oil-sample call, and the sample a task asks about."""
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    oil = oil_call(a)
    records = (await ctx.run([oil]))[0]["records"]
    if not records:
        return None
    # One "latest" task per asset but one dated task per sample: ask mostly about dates.
    which = "latest" if rng.random() < 0.3 else str(pick(rng, records)["timestamp"])[:10]
    return a, oil, which, pick_sample(records, which)


# -- DGA of a stored sample ----------------------------------------------------------------


def _dga_answer(out: dict[str, Any], with_details: bool) -> dict[str, Any]:
    if out["confidence"] < 1.0:
        raise Ambiguous(f"DGA confidence {out['confidence']:.2f} (near a boundary)")
    answer: dict[str, Any] = {"fault_type": out["fault_type"]}
    if with_details:
        answer |= {
            "ieee_condition": out["screen"]["ieee_condition"],
            "methods_agreeing": out["agreement"]["methods_agreeing"],
        }
    return answer


def _dga_stored_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sample = pick_sample(outputs[0]["records"], params["which"])
    dga = outputs[1]
    if not same_gases(sample, dga["sample"]):
        raise Ambiguous("the interpreted gases are not those of the chosen sample")
    return {"sample_timestamp": sample["timestamp"]} | _dga_answer(dga, params["with_details"])


def _dga_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    where = f" (sample {answer['sample_timestamp']})" if "sample_timestamp" in answer else ""
    text = f"DGA of {params['asset_id']}{where}: {answer['fault_type']}"
    if "ieee_condition" in answer:
        text += (
            f", IEEE C57.104 condition {answer['ieee_condition']}, "
            f"{answer['methods_agreeing']} of 3 ratio methods agree"
        )
    return text


@family(
    "fmsr_dga_stored",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_dga_stored_derive,
    summarise=_dga_summary,
)
async def dga_stored(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """DGA fault class of an asset's latest (or dated) stored oil sample."""
    stored = await _stored_sample(ctx, rng)
    if stored is None:
        return None
    a, oil, which, sample = stored
    with_details = bool(rng.random() < 0.35)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "which": which, "with_details": with_details,
    }
    mentions = [a.asset_id, a.site_name] + ([which] if which != "latest" else [])
    return Plan(
        params=params,
        tool_sequence=[oil, ToolCall(name="interpret_dga", args=dga_args(a.asset_id, sample))],
        mentions=mentions,
        grounding={"site": a.site_name, "asset_id": a.asset_id}
        | ({"start": which} if which != "latest" else {}),
        difficulty="hard" if with_details else "medium",
        hard_features=["multi_output"] if with_details else [],
    )


# -- DGA of a given sample (closed form) ---------------------------------------------------


def _dga_given_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return _dga_answer(outputs[0], params["with_details"])


@family(
    "fmsr_dga_given",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_dga_given_derive,
    summarise=_dga_summary,
)
async def dga_given(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """DGA fault class of a sample whose gas concentrations the request states (closed form)."""
    target = pick(rng, sorted(PROTOTYPES))
    asset_id = pick(rng, [a.asset_id for a in ctx.assets]) if ctx.assets else "transformer"
    for _ in range(40):
        gases = {
            g: round(v * float(np.exp(rng.normal(0.0, 0.25))))
            for g, v in PROTOTYPES[target].items()
        }
        args: dict[str, Any] = {"asset_name": asset_id, **gases}
        out = await ctx.run1("interpret_dga", **args)
        if out["fault_type"] == target and out["confidence"] >= 1.0:
            break
    else:
        return None
    with_details = bool(rng.random() < 0.35)
    gas_text = ", ".join(f"{GAS_SYMBOL[g]} {gases[g]} ppm" for g in GAS_ORDER)
    params = {
        "asset_id": asset_id, "gases": gases, "gas_text": gas_text, "with_details": with_details,
    }
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name="interpret_dga", args=args)],
        mentions=[asset_id] + [str(gases[g]) for g in GAS_ORDER],
        grounding={"asset_id": asset_id},
        difficulty="hard" if with_details else "medium",
        hard_features=["multi_output"] if with_details else [],
        closed_form=True,
    )


# -- winding temperature -------------------------------------------------------------------

WINDING_SENSORS = ["wti", "oti", "ati", "oti_a", "oti_t"]


def winding_args(asset_id: str, reading: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"asset_name": asset_id}
    for k in WINDING_SENSORS:
        if reading.get(k) is not None:
            args[k] = int(reading[k]) if k in ("oti_a", "oti_t") else float(reading[k])
    return args


def _winding_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[-1]
    answer: dict[str, Any] = {
        "thermal_status": out["thermal_status"],
        "risk_level": out["risk_level"],
        "relative_ageing_rate": out["relative_ageing_rate"],
    }
    if params["stored"]:
        ts, wti = unique_argmax(values_of(outputs[0]["records"], "wti"))
        if abs(wti - out["hot_spot_c"]) > 1e-9:
            raise Ambiguous("the assessed reading is not the day's peak")
        answer |= {"timestamp": ts, "hot_spot_c": wti}
    return answer


def _winding_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    at = ""
    if "timestamp" in answer:
        at = (
            f" at the {params['day']} peak ({answer['timestamp']}, "
            f"WTI {num(answer['hot_spot_c'], 1)} °C)"
        )
    return (
        f"winding assessment of {params['asset_id']}{at}: thermal status "
        f"{answer['thermal_status']}, risk {answer['risk_level']}, relative ageing rate "
        f"{num(answer['relative_ageing_rate'], 3)}"
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


@family(
    "fmsr_winding_assessment",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_winding_derive,
    summarise=_winding_summary,
)
async def winding_assessment(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Thermal status and risk of a winding reading: a day's peak from telemetry, or given."""
    a = asset_with_telemetry(ctx, rng)
    if a is None:
        return None
    stored = bool(rng.random() < 0.6)
    if stored:
        first, last = full_days(a)
        span = (last - first).days
        if span < 1:
            return None
        d = first + timedelta(days=int(rng.integers(0, span)))
        hist = history_call(a, iso_day(d), iso_day(d + timedelta(days=1)), WINDING_SENSORS)
        records = (await ctx.run([hist]))[0]["records"]
        try:
            ts, _ = unique_argmax(values_of(records, "wti"))
        except Ambiguous:
            return None
        reading = next(r for r in records if r["timestamp"] == ts)
        args = winding_args(a.asset_id, reading)
        calls = [hist, ToolCall(name="assess_winding_temperature", args=args)]
        params: dict[str, Any] = {
            "asset_id": a.asset_id, "site": a.site_name, "stored": True, "day": iso_day(d),
        }
        mentions = [a.asset_id, a.site_name, iso_day(d)]
        grounding = {"site": a.site_name, "asset_id": a.asset_id, "start": iso_day(d)}
    else:
        ati = int(rng.integers(5, 41))
        oti = ati + int(rng.integers(15, 61))
        wti = oti + int(rng.integers(8, 31))
        args = {"asset_name": a.asset_id, "wti": wti, "oti": oti, "ati": ati}
        calls = [ToolCall(name="assess_winding_temperature", args=args)]
        params = {
            "asset_id": a.asset_id, "stored": False, "wti": wti, "oti": oti, "ati": ati,
            "reading_text": f"winding {wti} °C, top oil {oti} °C, ambient {ati} °C",
        }
        mentions = [a.asset_id, str(wti), str(oti), str(ati)]
        grounding = {"asset_id": a.asset_id}
    if not await winding_stable(ctx, args):
        return None
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=mentions,
        grounding=grounding,
        difficulty="hard" if stored else "medium",
        hard_features=["multi_output"] if stored else [],
        closed_form=not stored,
        tolerance={"relative_ageing_rate": 0.01, "hot_spot_c": 0.01},
    )


# -- load profile ---------------------------------------------------------------------------

LOAD_SENSORS = ["vl1", "vl2", "vl3", "vl12", "vl23", "vl31", "il1", "il2", "il3", "inut"]


def _load_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    plates, hist, out = outputs
    rated = next(
        x["nameplate"].get("rated_mva") for x in plates["assets"]
        if x["asset_id"] == params["asset_id"]
    )
    if abs(float(rated) - out["rated_mva"]) > 1e-9:
        raise Ambiguous("rating does not match the nameplate")
    ts, _ = unique_argmax(values_of(hist["records"], "il1"))
    return {
        "timestamp": ts,
        "loading_status": out["loading_status"],
        "load_factor_pct": out["load_factor_pct"],
        "current_imbalance_pct": out["current_imbalance_pct"],
    }


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
)
async def load_assessment(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Loading band and imbalance of an asset at the hour of a day's peak phase-1 current."""
    a = asset_with_telemetry(ctx, rng)
    if a is None or any(s not in a.sensors for s in LOAD_SENSORS):
        return None
    first, last = full_days(a)
    span = (last - first).days
    if span < 1:
        return None
    d: date = first + timedelta(days=int(rng.integers(0, span)))
    plates = ToolCall(name="assets", args={"site_name": a.site_name})
    hist = history_call(a, iso_day(d), iso_day(d + timedelta(days=1)), LOAD_SENSORS)
    plates_out, hist_out = await ctx.run([plates, hist])
    try:
        ts, _ = unique_argmax(values_of(hist_out["records"], "il1"))
    except Ambiguous:
        return None
    reading = next(r for r in hist_out["records"] if r["timestamp"] == ts)
    rated = next(
        x["nameplate"].get("rated_mva") for x in plates_out["assets"]
        if x["asset_id"] == a.asset_id
    )
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
    params = {"asset_id": a.asset_id, "site": a.site_name, "day": iso_day(d)}
    return Plan(
        params=params,
        tool_sequence=[plates, hist, ToolCall(name="assess_load_profile", args=args)],
        mentions=[a.asset_id, a.site_name, iso_day(d)],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": iso_day(d)},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"load_factor_pct": 0.1, "current_imbalance_pct": 0.1},
    )


# -- health index ---------------------------------------------------------------------------


def _hi_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sample = pick_sample(outputs[0]["records"], params["which"])
    out = outputs[1]
    hi = float(out["health_index"])
    if any(abs(hi - b) <= HI_MARGIN for b in HI_BOUNDARIES):
        raise Ambiguous(f"health index {hi:.1f} is within {HI_MARGIN} of a band boundary")
    return {
        "sample_timestamp": sample["timestamp"],
        "health_index": hi,
        "condition": out["condition"],
    }


def _hi_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"health index of {params['asset_id']} from the sample of {answer['sample_timestamp']}: "
        f"{num(answer['health_index'], 1)} ({answer['condition']})"
    )


@family(
    "fmsr_health_index",
    domain="fmsr",
    category="Prediction",
    derive=_hi_derive,
    summarise=_hi_summary,
)
async def health_index(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Health index and condition band of an asset from its latest (or dated) oil sample."""
    stored = await _stored_sample(ctx, rng)
    if stored is None:
        return None
    a, oil, which, sample = stored
    args = hi_args(a.asset_id, sample)
    if args is None:
        return None
    params = {"asset_id": a.asset_id, "site": a.site_name, "which": which}
    return Plan(
        params=params,
        tool_sequence=[oil, ToolCall(name="predict_health_index", args=args)],
        mentions=[a.asset_id, a.site_name] + ([which] if which != "latest" else []),
        grounding={"site": a.site_name, "asset_id": a.asset_id}
        | ({"start": which} if which != "latest" else {}),
        difficulty="medium",
        tolerance={"health_index": 0.5},
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
