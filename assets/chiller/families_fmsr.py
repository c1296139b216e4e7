"""FMSR task families of the chiller class: approaches, efficiency, fault diagnosis, mappings.

Stored-reading families chain a one-hour telemetry read into a diagnostic tool, with the
tool's arguments copied from that record; ``derive`` checks that the tool saw the record
(recomputing a difference from the record) and reports the tool's verdict. A verdict whose
compared value lies within a small margin of its threshold is :class:`Ambiguous` (stored
values are rounded to 0.01 °C, so such a verdict could flip on a detail).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from assets.chiller.families_common import (
    EVENT_SHARE,
    alert_times,
    coverage,
    hour_after,
    near,
    sensor_fault_free,
    units_with_telemetry,
    words,
)
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
)

APPROACH_THRESHOLD_K = 3.0 * 5.0 / 9.0  # 3 °F, the tools' service-literature convention
SUBCOOLING_SHIFT_K = 5.0 * 5.0 / 9.0  # 5 °F
SUPERHEAT_RISE_K = 10.0
DRIFT_OFFSET_K = 1.0
DRIFT_MAX_LOAD_PCT = 95.0
# No compared value may lie this close to its threshold (K).
MARGIN_K = 0.1
MIN_LOAD_PCT = 30.0
KW_PER_TON_RANGE_MAX = 3.0  # asset.yaml's range of kw_per_ton: beyond it a reading is faulty
# Record fields a diagnosis reads.
DIAG_FIELDS = [
    "supply_temperature", "evaporator_refrigerant_temperature",
    "condenser_water_return_temperature", "condenser_refrigerant_temperature",
    "percent_loaded", "setpoint_temperature", "condenser_liquid_temperature",
    "discharge_temperature", "run_status",
]
APPROACH_FIELDS = [
    "supply_temperature", "evaporator_refrigerant_temperature",
    "condenser_water_return_temperature", "condenser_refrigerant_temperature",
    "percent_loaded", "return_temperature", "condenser_water_supply_temperature",
    "run_status",
]
EFFICIENCY_FIELDS = [
    "power_input", "tonnage", "supply_temperature", "condenser_water_supply_temperature",
    "percent_loaded", "run_status",
]


async def pick_hour(
    ctx: FamilyContext, rng: np.random.Generator, fields: list[str]
) -> tuple[GroundedAsset, dict[str, Any]] | None:
    """A unit and one of its running hourly records (load ≥ 30 %).

    Mostly (``EVENT_SHARE``) the hour of one of the fleet's alerts, so faults are asked
    about; otherwise a random running hour of a random day.
    """
    units = units_with_telemetry(ctx)
    if not units:
        return None
    when: str | None = None
    if rng.random() < EVENT_SHARE:
        alerting = [(a, al) for a in units if (al := await alert_times(ctx, a))]
        if alerting:
            a, alerts = pick(rng, alerting)
            when = pick(rng, alerts)[0]
    if when is None:
        a = pick(rng, units)
        first, last = (day(t) for t in coverage(a) or ("", ""))
        d = first + timedelta(days=int(rng.integers(0, (last - first).days + 1)))
        call = history_call(a, d.isoformat(), (d + timedelta(days=1)).isoformat(), fields)
        out = (await ctx.run([call]))[0]
        running = [r for r in out["records"]
                   if r.get("run_status") == 1 and float(r["percent_loaded"]) >= MIN_LOAD_PCT]
        if not running:
            return None
        return a, pick(rng, running)
    out = (await ctx.run([history_call(a, when, hour_after(when), fields)]))[0]
    if not out["records"]:
        return None
    record = out["records"][0]
    if record.get("run_status") != 1 or float(record["percent_loaded"]) < MIN_LOAD_PCT:
        return None
    return a, record


def _hour_plan(
    a: GroundedAsset, ts: str, calls: list[ToolCall], note: str, **plan: Any
) -> Plan:
    """The plan of a question about one unit's record at hour ``ts``: the unit, site and
    hour are the parameters, mentions and grounding; ``plan`` adds the rest."""
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "timestamp": ts, "note": note},
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, ts],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "timestamp": ts},
        **plan,
    )


def _hour_call(a: GroundedAsset, ts: str, fields: list[str]) -> ToolCall:
    return history_call(a, ts, hour_after(ts), fields)


def _only_record(out: dict[str, Any]) -> dict[str, Any]:
    if len(out["records"]) != 1:
        raise Ambiguous(f"{len(out['records'])} records in the hour")
    return dict(out["records"][0])


def _args_from(
    asset_id: str, record: dict[str, Any], required: list[str], optional: list[str]
) -> dict[str, Any]:
    args: dict[str, Any] = {"asset_name": asset_id}
    for f in required:
        args[f] = float(record[f])
    for f in optional:
        if record.get(f) is not None:
            args[f] = float(record[f])
    return args


# -- approach temperatures and fouling -------------------------------------------------------

UNSCALED = "design_approach_unscaled"
APPROACH_NOTE = (
    "Use the nameplate design approach scaled to that hour's load; 3 °F over it is high."
)
FOULING_OF = {
    "normal": "none", "evaporator_approach_high": "evaporator", "condenser_approach_high":
    "condenser", "both_high": "both",
}


def _approach_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    record, out = _only_record(outputs[0]), outputs[1]
    evap = float(record["supply_temperature"]) - float(record["evaporator_refrigerant_temperature"])
    if abs(evap - float(out["evaporator_approach_k"])) > 1e-6:
        raise Ambiguous("the assessed readings are not the hour's record")
    for rise in (out["evaporator_approach_rise_k"], out["condenser_approach_rise_k"]):
        if near(rise, APPROACH_THRESHOLD_K, MARGIN_K):
            raise Ambiguous("an approach rise lies on the 3 °F threshold")
    if out["status"] == "not_running":
        raise Ambiguous("the unit was not running")
    return {
        "evaporator_approach_k": float(out["evaporator_approach_k"]),
        "condenser_approach_k": float(out["condenser_approach_k"]),
        "status": out["status"],
        "fouling_suspected": FOULING_OF[out["status"]],
    }


def _approach_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} at {params['timestamp']}: evaporator approach "
        f"{num(answer['evaporator_approach_k'])} K, condenser approach "
        f"{num(answer['condenser_approach_k'])} K; status {answer['status']}, fouling "
        f"suspected: {answer['fouling_suspected']}"
    )


@family(
    "chiller_fmsr_approach_check",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_approach_derive,
    summarise=_approach_summary,
    outcome=lambda answer: "normal" if answer["status"] == "normal" else "fouling",
    trivial=("normal",),
)
async def approach_check(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Evaporator and condenser approach of a chiller at an hour, and whether they indicate
    fouling (rise over the load-scaled design approach of 3 °F or more)."""
    found = await pick_hour(ctx, rng, APPROACH_FIELDS)
    if found is None:
        return None
    a, record = found
    ts = str(record["timestamp"])
    # The evaporator approach reads the supply sensor: not from a declared drifting one
    # (diagnose_chiller_fault would then take the setpoint, this tool the reading).
    if not await sensor_fault_free(ctx, a, hour_after(ts), ["supply_temperature"]):
        return None
    args = _args_from(
        a.asset_id, record,
        ["supply_temperature", "evaporator_refrigerant_temperature",
         "condenser_water_return_temperature", "condenser_refrigerant_temperature",
         "percent_loaded"],
        ["return_temperature", "condenser_water_supply_temperature"],
    )
    calls = [_hour_call(a, ts, APPROACH_FIELDS),
             ToolCall(name="compute_approach_temperatures", args=args)]
    unscaled = [calls[0], ToolCall(name="compute_approach_temperatures",
                                   args={**args, "percent_loaded": 100.0})]
    return _hour_plan(
        a, ts, calls, APPROACH_NOTE,
        difficulty="medium",
        hard_features=["multi_output"],
        tolerance={"evaporator_approach_k": 0.02, "condenser_approach_k": 0.02},
        readings=[Reading(UNSCALED, "compares with the full-load design approach, not scaled "
                          "to the hour's load", tool_sequence=unscaled)],
        stated=[UNSCALED],
    )


# -- efficiency against the design curve -----------------------------------------------------

RATED_KWT = "rated_kw_per_ton"
EFFICIENCY_NOTE = (
    "Compare with the design curve at that hour's load and water temperatures, not the rated "
    "figure."
)
EFFICIENCY_EDGES = (-5.0, 5.0, 15.0)
EFFICIENCY_MARGIN = 0.5


def _efficiency_status(degradation: float) -> str:
    if degradation < -5.0:
        return "better_than_design"
    if degradation <= 5.0:
        return "normal"
    return "degraded" if degradation <= 15.0 else "severely_degraded"


def _efficiency_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    record, out = _only_record(outputs[0]), outputs[1]
    if record.get("run_status") != 1 or float(record["tonnage"]) <= 0.0:
        raise Ambiguous("the unit was not running (no kW/ton without a cooling load)")
    measured = float(record["power_input"]) / float(record["tonnage"])
    if abs(measured - float(out["measured_kw_per_ton"])) > 1e-9:
        raise Ambiguous("the assessed readings are not the hour's record")
    if params.get("reading") == RATED_KWT:
        degradation = (measured / float(out["design_kw_per_ton"]) - 1.0) * 100.0
    else:
        degradation = float(out["degradation_pct"])
    if any(abs(degradation - e) < EFFICIENCY_MARGIN for e in EFFICIENCY_EDGES):
        raise Ambiguous("the degradation lies on a status boundary")
    return {
        "measured_kw_per_ton": measured,
        "degradation_pct": degradation,
        "status": _efficiency_status(degradation),
    }


def _efficiency_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} at {params['timestamp']}: {num(answer['measured_kw_per_ton'], 3)} "
        f"kW/ton, {num(answer['degradation_pct'], 1)} % against the design curve at the same "
        f"conditions ({answer['status']})"
    )


@family(
    "chiller_fmsr_efficiency",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_efficiency_derive,
    summarise=_efficiency_summary,
    outcome=lambda answer: str(answer["status"]),
    trivial=("normal", "better_than_design"),
)
async def efficiency(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A chiller's kW/ton at an hour against its design part-load curve: degradation in %.

    Gated reading, stated in the text: the rated (full-load) kW/ton of the nameplate as the
    yardstick instead of the design model at the hour's conditions.
    """
    found = await pick_hour(ctx, rng, EFFICIENCY_FIELDS)
    if found is None:
        return None
    a, record = found
    if not record.get("tonnage") or float(record["tonnage"]) <= 0:
        return None
    ts = str(record["timestamp"])
    # Measured kW/ton and the design point read the supply sensor and the tonnage computed
    # from it: never from a declared drifting sensor, nor beyond the kW/ton point's range.
    if not await sensor_fault_free(ctx, a, hour_after(ts), ["supply_temperature", "tonnage"]):
        return None
    if float(record["power_input"]) / float(record["tonnage"]) > KW_PER_TON_RANGE_MAX:
        return None
    args = _args_from(
        a.asset_id, record,
        ["power_input", "tonnage", "supply_temperature", "condenser_water_supply_temperature"],
        [],
    )
    calls = [_hour_call(a, ts, EFFICIENCY_FIELDS),
             ToolCall(name="assess_chiller_efficiency", args=args)]
    return _hour_plan(
        a, ts, calls, EFFICIENCY_NOTE,
        difficulty="medium",
        tolerance={"measured_kw_per_ton": 0.001, "degradation_pct": 0.1},
        readings=[Reading(RATED_KWT, "compares with the nameplate's rated kW/ton",
                          params={"reading": RATED_KWT})],
        stated=[RATED_KWT],
    )


# -- which failure mode explains the readings ------------------------------------------------

DIAGNOSIS_NOTE = (
    "Use the usual service rules (approach 3 °F over the load-scaled design, subcooling 5 °F "
    "off design, superheat 10 K over design, supply 1 K over setpoint below 95 % load)."
)


def diagnosis_answer(record: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    """The diagnosis of one record: findings and failure codes, or Ambiguous near a threshold."""
    cond = float(record["condenser_refrigerant_temperature"]) - float(
        record["condenser_water_return_temperature"]
    )
    if abs(cond - float(out["condenser_approach_k"])) > 1e-6:
        raise Ambiguous("the diagnosed readings are not the hour's record")
    if out["status"] == "not_running":
        raise Ambiguous("the unit was not running")
    checks = [
        (out["condenser_approach_rise_k"], APPROACH_THRESHOLD_K),
        (out["subcooling_shift_k"], SUBCOOLING_SHIFT_K),
        (out["subcooling_shift_k"], -SUBCOOLING_SHIFT_K),
        (out["superheat_rise_k"], SUPERHEAT_RISE_K),
        (out["supply_offset_k"], DRIFT_OFFSET_K),
        (float(record["percent_loaded"]), DRIFT_MAX_LOAD_PCT),
    ]
    if out["evaporator_assessed"]:
        checks.append((out["evaporator_approach_rise_k"], APPROACH_THRESHOLD_K))
    for value, threshold in checks:
        if near(value, threshold, MARGIN_K):
            raise Ambiguous(f"a compared value lies within {MARGIN_K} of {threshold}")
    return {
        "findings": sorted(out["findings"]),
        "failure_codes": sorted(out["failure_codes"]),
        "status": out["status"],
    }


def _diagnose_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return diagnosis_answer(_only_record(outputs[0]), outputs[1])


def _diagnose_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    codes = and_join(answer["failure_codes"]) if answer["failure_codes"] else "no code"
    return (
        f"{params['asset_id']} at {params['timestamp']}: {answer['status']}; findings "
        f"{and_join(answer['findings'])} ({codes})"
    )


def diagnosis_args(asset_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """Fault-diagnosis arguments from a stored record (design values from the nameplate)."""
    return _args_from(
        asset_id, record,
        ["supply_temperature", "evaporator_refrigerant_temperature",
         "condenser_water_return_temperature", "condenser_refrigerant_temperature",
         "percent_loaded"],
        ["setpoint_temperature", "condenser_liquid_temperature", "discharge_temperature"],
    )


def hour_call(a: GroundedAsset, ts: str) -> ToolCall:
    """The one-hour telemetry read a diagnosis takes its arguments from."""
    return _hour_call(a, ts, DIAG_FIELDS)


@family(
    "chiller_fmsr_diagnose_fault",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_diagnose_derive,
    summarise=_diagnose_summary,
    outcome=lambda answer: str(answer["status"]),
    trivial=("normal",),
)
async def diagnose_fault(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which failure mode explains a chiller's readings at an hour, with its failure code."""
    found = await pick_hour(ctx, rng, DIAG_FIELDS)
    if found is None:
        return None
    a, record = found
    ts = str(record["timestamp"])
    calls = [hour_call(a, ts),
             ToolCall(name="diagnose_chiller_fault", args=diagnosis_args(a.asset_id, record))]
    return _hour_plan(
        a, ts, calls, DIAGNOSIS_NOTE,
        difficulty="hard",
        hard_features=["multi_output"],
    )


# -- which sensors reveal a failure mode (and back) -----------------------------------------


def _mapping_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    if params["direction"] == "mode_to_sensors":
        return {"sensors": sorted(out["failure_mode_to_sensors"][params["failure_mode"]])}
    return {"failure_modes": sorted(out["sensor_to_failure_modes"][params["sensor"]])}


def _mapping_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    if "sensors" in answer:
        return f"sensors revealing {params['failure_mode']}: {and_join(answer['sensors'])}"
    return f"failure modes {params['sensor']} reveals: {and_join(answer['failure_modes'])}"


@family(
    "chiller_fmsr_mode_sensors",
    domain="fmsr",
    category="Knowledge Query",
    derive=_mapping_derive,
    summarise=_mapping_summary,
)
async def mode_sensors(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which sensors reveal a failure mode of a chiller, or which modes a sensor reveals."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    asset = ctx.tools.asset
    if rng.random() < 0.5:
        fm = pick(rng, list(asset.failure_modes))
        params: dict[str, Any] = {
            "asset_id": a.asset_id, "site": a.site_name, "direction": "mode_to_sensors",
            "failure_mode": fm.id, "mode_label": fm.name.lower(),
        }
        args: dict[str, Any] = {"asset_name": a.asset_id, "failure_modes": [fm.id]}
    else:
        revealing = sorted({s for fm in asset.failure_modes for s in fm.sensors})
        sensor = pick(rng, revealing)
        params = {
            "asset_id": a.asset_id, "site": a.site_name, "direction": "sensor_to_modes",
            "sensor": sensor, "sensor_label": words(sensor),
        }
        args = {"asset_name": a.asset_id, "sensors": [sensor]}
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name="get_failure_mode_sensor_mapping", args=args)],
        mentions=[a.asset_id],
        grounding={"asset_id": a.asset_id, "site": a.site_name},
        difficulty="easy",
    )
