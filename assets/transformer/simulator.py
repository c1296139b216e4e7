"""Seeded, physically consistent transformer fleet (telemetry, oil samples, events, work orders).

Every number follows from a formula and the seed:

* load: daily and weekly shapes, a weather coupling and AR(1) noise per unit, scaled to the
  unit's rating; voltages sag with load (regulation); phase currents are chosen so that
  S = (V12·I1 + V23·I2 + V31·I3)/√3 equals the load, with a fixed per-unit imbalance; the
  neutral current is the phasor sum of the phase currents plus a triplen-harmonic part;
* ambient: site climate, seasonal drift, diurnal cycle and AR(1) weather;
* OTI and WTI: the IEC 60076-7 dynamic model (:mod:`assets.transformer.thermal`) integrated
  in ``SUBSTEP_MIN`` steps inside each hour (load held over the hour, ambient interpolated
  linearly between the hourly readings). Alarm and trip settings are checked after every
  step on the indicator reading (0.1 °C resolution); a trip de-energises the unit at once
  (zero load, no-load losses off: oil and winding cool toward ambient) until the hour
  ``OUTAGE_HOURS`` later (so trips are rare events, never a daily state). The hourly
  record is the instantaneous reading at its timestamp; alert events carry the minute the
  setting was crossed and the reading then. A recorded value exceeds a trip setting by
  less than :func:`assets.transformer.thermal.max_step_rise` (the most one step can add);
* thermal signatures of the thermal faults, from the onset on (the defect is a step; its
  gases then accumulate in the oil): T1 (degraded cooling, a radiator bank isolated) scales
  the rated top-oil rise Δθor by ``T1_RISE_FACTOR`` (IEC 60076-7 clause 7: Δθor is set by
  the cooling, so at equal losses poorer cooling gives a larger top-oil rise); T3
  (circulating currents in the core) adds ``T3_EXTRA_NOLOAD`` of the rated no-load loss to
  the losses that drive the top-oil rise; T2 (a poor lead joint) is local heating that
  neither indicator sees, so it has none;
* oil samples: healthy background gases below the IEC 60599 typical values; faulty
  units grow a fault signature from the onset, scaled until the latest sample classifies
  as the injected fault under the IEC 60599 ratios, the Rogers codes and Duval triangle 1
  with a margin from every boundary (:func:`is_unambiguous`);
* work orders: monthly preventive; corrective after alarms and trips; and corrective after
  DGA, raised from what the ``interpret_dga`` tool (:func:`assets.transformer.dga.interpret_dga`)
  concludes on each stored sample, the same diagnosis an agent gets. The truth record
  keeps the injected fault and onset next to the first sample the tool finds abnormal
  (``first_detected``, ``first_detected_class``) and the first it classifies as the
  injected fault (``first_classified``);
* telemetry faults on a few units (a stuck indicator, missing records, a chattering alarm
  contact), drawn from their own random stream after everything else
  (:mod:`assets.transformer.sensor_faults`) and listed in each unit's truth document
  (``sensor_faults``); half of them got a corrective order for the instrument
  (``IC-SENS``), numbered after the unit's other orders.

The module is pure: :func:`simulate_fleet` maps a :class:`FleetSpec` to documents.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from assets.transformer import dga
from assets.transformer.sensor_faults import (
    INSTRUMENT_CODE,
    INSTRUMENT_LABEL,
    inject_sensor_faults,
    instrument_order_text,
)
from assets.transformer.thermal import COOLING, ThermalStepper, max_step_rise
from assets.transformer.workorders import COLLECTION, code_entry, equipment_name

SIMULATOR_VERSION = "5"  # 5: telemetry faults (assets.transformer.sensor_faults)
SITE_NAMES = ["NORTH", "SOUTH", "EAST", "WEST", "CENTRAL", "HARBOR", "RIDGE", "VALLEY"]
FAULT_TYPES = ["T3", "D2", "T1", "PD", "T2", "D1"]
FAULT_LABELS = {
    "PD": "partial discharge",
    "D1": "discharge of low energy",
    "D2": "discharge of high energy",
    "T1": "thermal fault < 300 °C",
    "T2": "thermal fault 300-700 °C",
    "T3": "thermal fault > 700 °C",
}
FAULT_CAUSES = {
    "PD": "gas-filled voids from incomplete impregnation of the winding insulation",
    "D1": "sparking between a floating metal part and the tank",
    "D2": "arcing between turns after insulation breakdown",
    "T1": "degraded cooling (a radiator bank left isolated) overheating the paper insulation",
    "T2": "poor joint in a lead connection",
    "T3": "circulating currents in the core from a shorted lamination",
}
FAILURE_CODES = {
    "PD": "EL-PD",
    "D1": "EL-D1",
    "D2": "EL-D2",
    "T1": "TH-T1",
    "T2": "TH-T2",
    "T3": "TH-T3",
}
# Codes that are not a fault type, with their descriptions.
OTHER_CODES = {
    "OP-OVL": "overloading / temperature alarm",
    "PM-INSP": "preventive inspection",
    "DGA-ABN": "abnormal dissolved gases, fault type not determined",
    INSTRUMENT_CODE: INSTRUMENT_LABEL,
}
# Fault signatures (ppm H2, CH4, C2H6, C2H4, C2H2) chosen inside the same zone of all three
# classification methods, away from their boundaries (hand-checked in tests/assets).
PROTOTYPES: dict[str, tuple[float, float, float, float, float]] = {
    "PD": (800.0, 60.0, 15.0, 0.2, 0.0),
    "D1": (100.0, 25.0, 5.0, 10.0, 40.0),
    "D2": (200.0, 160.0, 25.0, 150.0, 120.0),
    "T1": (30.0, 75.0, 100.0, 12.0, 0.2),
    "T2": (40.0, 110.0, 48.0, 80.0, 1.0),
    "T3": (50.0, 200.0, 50.0, 300.0, 2.0),
}
# (cooling class, rated MVA, LV line kV, HV line kV, paper)
CATALOG: list[tuple[str, float, float, float, str]] = [
    ("ONAN_distribution", 1.6, 0.415, 11.0, "kraft"),
    ("ONAN", 10.0, 11.0, 33.0, "kraft"),
    ("ONAF", 25.0, 11.0, 66.0, "upgraded"),
    ("OF", 63.0, 33.0, 132.0, "upgraded"),
]
THRESHOLDS = {"oti_alarm": 90.0, "oti_trip": 100.0, "wti_alarm": 110.0, "wti_trip": 130.0}
OUTAGE_HOURS = 8
# Thermal-model step inside the hour: at most half the smallest time constant of every
# cooling class (OF: k22·τw = 7 min), the step IEC 60076-7 asks of its difference equations.
SUBSTEP_MIN = 3.0
INDICATOR_RESOLUTION = 1  # decimals of the OTI / WTI reading (0.1 °C)
T1_RISE_FACTOR = 1.25  # Δθor multiplier from the onset (degraded cooling)
T3_EXTRA_NOLOAD = 0.6  # extra no-load loss from the onset, × rated no-load loss
OVERLOAD_SHARE = 6  # one overload episode per this many units (at least one from 4 units)

# IEC 60599:2015 Table 1 rows as commonly read, per ratio (C2H2/C2H4, CH4/H2, C2H4/C2H6),
# None = not significant; the injected fault samples must satisfy their own row with a
# margin (the T1 row is read as CH4/H2 > 1 and C2H4/C2H6 < 1):
#   PD   NS           < 0.1        < 0.2
#   D1   > 1          0.1 – 0.5    > 1
#   D2   0.6 – 2.5    0.1 – 1      > 2
#   T1   NS           > 1          < 1
#   T2   < 0.1        > 1          1 – 4
#   T3   < 0.2        > 1          > 4
TABLE1_ROWS: dict[str, tuple[tuple[float, float] | None, ...]] = {
    "PD": (None, (0.0, 0.1), (0.0, 0.2)),
    "D1": ((1.0, math.inf), (0.1, 0.5), (1.0, math.inf)),
    "D2": ((0.6, 2.5), (0.1, 1.0), (2.0, math.inf)),
    "T1": (None, (1.0, math.inf), (0.0, 1.0)),
    "T2": ((0.0, 0.1), (1.0, math.inf), (1.0, 4.0)),
    "T3": ((0.0, 0.2), (1.0, math.inf), (4.0, math.inf)),
}
# Rogers / IEC 599 code boundaries (every ratio): < 0.1 | 0.1 – 1 | 1 – 3 | > 3.
ROGERS_BOUNDS = (0.1, 1.0, 3.0)
RATIO_MARGIN = 0.05  # relative distance from every ratio boundary


class FleetSpec(BaseModel):
    """What fleet to simulate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(
        default=42,
        description="Seed of every random draw (its low 32 bits; a key >= 2**128 counts whole)",
    )
    sites: int = Field(default=3, ge=1, le=len(SITE_NAMES), description="Number of sites")
    units_per_site: int = Field(default=4, ge=1, le=20, description="Transformers per site")
    days: int = Field(default=90, ge=7, le=730, description="Days of hourly telemetry")
    start: date = Field(default=date(2026, 6, 1), description="First day of the data")


class FleetData(BaseModel):
    """Documents per logical database, ready to write."""

    model_config = ConfigDict(extra="forbid")

    spec: FleetSpec = Field(description="The spec that produced the data")
    docs: dict[str, list[dict[str, Any]]] = Field(
        description="Logical database name → documents (each with a deterministic _id)"
    )


# A seed this large is a held-out fleet's secret key (at least 2**255): every bit of it
# seeds every stream, so no part of it can be searched apart from the rest. A public seed
# (`env seed --seed N`) keeps its low 32 bits, as it always did.
KEY_MIN = 1 << 128


def rng_for(seed: int, stream: str, index: int = 0) -> np.random.Generator:
    """A local generator derived from (seed, stream, index); never global state."""
    if seed >= KEY_MIN:
        return np.random.default_rng([seed, zlib.crc32(stream.encode()), index])
    return np.random.default_rng([seed & 0xFFFFFFFF, zlib.crc32(stream.encode()), index])


def _failure_code(code: str, fault: str | None, description: str) -> dict[str, Any]:
    entry = code_entry(code, description)
    return {
        "_id": f"fc:{code}",
        "dataset": "failure_codes",
        "code": code,
        "fault_type": fault,
        "description": description,
        # AssetOpsBench's names (see assets/transformer/workorders.py)
        "category": entry.category,
        "primary_code": code,
        "primary_code_description": description,
        "secondary_code": entry.secondary_code,
        "secondary_code_description": entry.secondary_description,
    }


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def _ar1(rng: np.random.Generator, n: int, phi: float, sigma: float) -> np.ndarray:
    noise = rng.normal(0.0, sigma, n)
    out = np.empty(n)
    acc = 0.0
    for i in range(n):
        acc = phi * acc + noise[i]
        out[i] = acc
    return out


class _Unit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    asset_id: str
    site: str
    index: int
    cooling: str
    rated_mva: float
    lv_kv: float
    hv_kv: float
    paper: str
    year: int
    peak_k: float
    phase_weights: tuple[float, float, float]
    phase_offsets: tuple[float, float, float]
    h3: float
    fault: str | None
    onset_day: int | None
    overload_day: int | None
    oil_days: list[int]


def _plan_units(spec: FleetSpec) -> list[_Unit]:
    rng = rng_for(spec.seed, "fleet")
    n = spec.sites * spec.units_per_site
    n_faulty = min(len(FAULT_TYPES), math.ceil(n / 2))
    order = rng.permutation(n)
    faulty = {int(i): FAULT_TYPES[j] for j, i in enumerate(order[:n_faulty])}
    healthy = [int(i) for i in order[n_faulty:]]
    overload_units = set(healthy[: max(1, n // OVERLOAD_SHARE)]) if n >= 4 else set()
    units = []
    for idx in range(n):
        site = SITE_NAMES[idx // spec.units_per_site]
        urng = rng_for(spec.seed, "unit", idx)
        cooling, rated, lv, hv, paper = CATALOG[int(urng.integers(len(CATALOG)))]
        weights = 1.0 + urng.normal(0.0, 0.025, 3)
        if urng.random() < 0.2:  # a unit with a noticeably unbalanced feeder
            weights[int(urng.integers(3))] += 0.12
        weights = weights / weights.mean()
        fault = faulty.get(idx)
        # Weekly oil samples on a unit-specific weekday.
        oil_days = list(range(int(urng.integers(0, 7)) % spec.days, spec.days, 7))
        onset: int | None = None
        if fault:
            drawn = int(urng.integers(int(spec.days * 0.1), int(spec.days * 0.6) + 1))
            # At least three days of growth before the latest sample; in a short window
            # the fault may have started before the data begins (negative day).
            onset = min(drawn, oil_days[-1] - 3)
        units.append(
            _Unit(
                asset_id=f"{site}-TX{idx % spec.units_per_site + 1:02d}",
                site=site,
                index=idx,
                cooling=cooling,
                rated_mva=rated,
                lv_kv=lv,
                hv_kv=hv,
                paper=paper,
                year=int(urng.integers(1985, 2022)),
                peak_k=float(urng.uniform(0.80, 0.95)),
                phase_weights=(float(weights[0]), float(weights[1]), float(weights[2])),
                phase_offsets=tuple(float(v) for v in urng.normal(0.0, 0.004, 3)),
                h3=float(urng.uniform(0.01, 0.04)) if cooling == "ONAN_distribution" else 0.005,
                fault=fault,
                oil_days=oil_days,
                onset_day=onset,
                overload_day=(
                    int(urng.integers(int(spec.days * 0.3), int(spec.days * 0.8)))
                    if idx in overload_units
                    else None
                ),
            )
        )
    return units


def _ambient(spec: FleetSpec, site_idx: int, hours: np.ndarray) -> np.ndarray:
    rng = rng_for(spec.seed, "climate", site_idx)
    base = rng.uniform(14.0, 21.0)
    diurnal = rng.uniform(4.0, 7.0)
    day = hours / 24.0
    hod = hours % 24
    seasonal = 4.0 * np.sin(np.pi * day / max(spec.days, 1))
    daily = diurnal * np.cos(2 * np.pi * (hod - 15) / 24)
    weather = _ar1(rng, hours.size, 0.97, 0.35)
    return np.asarray(base + seasonal + daily + weather)


def _load_factor(
    spec: FleetSpec, unit: _Unit, hours: np.ndarray, ambient: np.ndarray
) -> np.ndarray:
    rng = rng_for(spec.seed, "load", unit.index)
    hod = hours % 24
    shape = (
        0.62 + 0.23 * np.exp(-(((hod - 9) / 2.5) ** 2)) + 0.38 * np.exp(-(((hod - 19) / 3) ** 2))
    )
    shape = shape / shape.max()
    weekday = np.array([(spec.start + timedelta(days=int(h // 24))).weekday() for h in hours])
    week = np.where(weekday == 5, 0.88, np.where(weekday == 6, 0.80, 1.0))
    weather = 1.0 + 0.01 * (ambient - ambient.mean())
    noise = 1.0 + _ar1(rng, hours.size, 0.9, 0.02)
    k = unit.peak_k * shape * week * weather * noise
    if unit.overload_day is not None:
        start = unit.overload_day * 24
        span = slice(start, min(start + 72, hours.size))
        k[span] *= rng.uniform(1.35, 1.45)
    return np.asarray(np.clip(k, 0.05, None))


def fault_growth(spec: FleetSpec, unit: _Unit, day: np.ndarray) -> np.ndarray:
    """Severity of the injected fault in [0, 1] at (fractional) ``day``: 0 before the onset,
    ((day − onset)/(days − onset))^1.5 after it (the shape the fault gases grow with)."""
    if unit.fault is None or unit.onset_day is None:
        return np.zeros_like(day)
    span = max(spec.days - unit.onset_day, 1)
    return np.asarray(np.clip((day - unit.onset_day) / span, 0.0, 1.0) ** 1.5)


def thermal_modifiers(
    spec: FleetSpec, unit: _Unit, hours: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per hour: the cooling factor f on Δθor and the extra no-load loss e of the unit.

    The thermal defect itself starts at the onset and stays (a step): T1 (degraded cooling)
    f = T1_RISE_FACTOR, T3 (core fault) e = T3_EXTRA_NOLOAD from the onset hour on; the
    oil time constant smooths the step. The fault gases, by contrast, accumulate in the oil
    and grow from the onset (:func:`fault_growth`). Every other unit: f = 1, e = 0.
    """
    after = (
        hours >= unit.onset_day * 24 if unit.onset_day is not None else np.zeros(hours.size, bool)
    )
    rise = np.where(after & (unit.fault == "T1"), T1_RISE_FACTOR, 1.0)
    extra = np.where(after & (unit.fault == "T3"), T3_EXTRA_NOLOAD, 0.0)
    return np.asarray(rise, dtype=float), np.asarray(extra, dtype=float)


@dataclass(frozen=True)
class ThermalRun:
    """The thermal simulation of one unit: hourly readings, contacts crossed and trips.

    Attributes:
        k: Load factor at each record (0 while de-energised).
        oti: OTI reading at each record, °C.
        wti: WTI reading at each record, °C.
        edges: (minute from the first record, contact, reading) at each rising edge.
        trips: Minutes from the first record at which the unit tripped.
        step_bound: :func:`assets.transformer.thermal.max_step_rise` for this run, K.
    """

    k: np.ndarray
    oti: np.ndarray
    wti: np.ndarray
    edges: list[tuple[int, str, float]]
    trips: list[int]
    step_bound: float


def _thermal_with_trips(
    spec: FleetSpec, unit: _Unit, k: np.ndarray, ambient: np.ndarray, hours: np.ndarray
) -> ThermalRun:
    """Integrate the thermal model in SUBSTEP_MIN steps, checking settings after each step.

    Record 0 is the steady state at the first hour's load and ambient; the interval before
    record i (i ≥ 1) holds load k[i] and an ambient going linearly from ambient[i−1] to
    ambient[i]. A trip de-energises the unit from that step to the record OUTAGE_HOURS
    later (records i .. i + OUTAGE_HOURS − 1 read zero load) and ends any overload.
    """
    c = COOLING[unit.cooling]
    rise, extra = thermal_modifiers(spec, unit, hours)
    k_applied = float(k.max())
    k = k.copy()
    n_sub = round(60.0 / SUBSTEP_MIN)
    stepper = ThermalStepper(c, SUBSTEP_MIN)
    stepper.settle(float(k[0]), float(ambient[0]), float(rise[0]), float(extra[0]))
    order = ("oti_a", "wti_a", "oti_t", "wti_t")
    setting = (
        THRESHOLDS["oti_alarm"], THRESHOLDS["wti_alarm"], THRESHOLDS["oti_trip"],
        THRESHOLDS["wti_trip"],
    )
    active = [False, False, False, False]
    oti, wti = np.empty(k.size), np.empty(k.size)
    edges: list[tuple[int, str, float]] = []
    trips: list[int] = []
    energised, resume = True, 0
    digits = INDICATOR_RESOLUTION
    for i in range(k.size):
        if i > 0:
            if not energised and i >= resume:
                energised = True
            a0, a1 = float(ambient[i - 1]), float(ambient[i])
            ki, fi, ei = float(k[i]), float(rise[i]), float(extra[i])
            for s in range(n_sub):
                frac = (s + 1) / n_sub
                stepper.advance(ki, a0 + frac * (a1 - a0), energised, fi, ei)
                o = round(stepper.theta_o, digits)
                w = round(stepper.wti, digits)
                state = (o >= setting[0], w >= setting[1], o >= setting[2], w >= setting[3])
                if state == tuple(active):
                    continue
                minute = round((i - 1) * 60 + (s + 1) * SUBSTEP_MIN)
                for j in range(4):
                    if state[j] and not active[j]:
                        edges.append((minute, order[j], o if j % 2 == 0 else w))
                    active[j] = state[j]
                if energised and (state[2] or state[3]):
                    energised, resume = False, i + OUTAGE_HOURS
                    trips.append(minute)
                    if unit.overload_day is not None:  # operators shed the overload
                        end = min(unit.overload_day * 24 + 72, k.size)
                        k[resume:end] = np.minimum(k[resume:end], unit.peak_k)
        oti[i], wti[i] = stepper.theta_o, stepper.wti
        if not energised:
            k[i] = 0.0
    span = float(ambient.max() - ambient.min())
    bound = max_step_rise(c, SUBSTEP_MIN, k_applied, span, float(rise.max()),
                          float(extra.max()))
    return ThermalRun(k=k, oti=oti, wti=wti, edges=edges, trips=trips, step_bound=bound)


def _telemetry(
    spec: FleetSpec, unit: _Unit, hours: np.ndarray, ambient: np.ndarray
) -> tuple[list[dict[str, Any]], ThermalRun]:
    rng = rng_for(spec.seed, "meter", unit.index)
    k_raw = _load_factor(spec, unit, hours, ambient)
    run = _thermal_with_trips(spec, unit, k_raw, ambient, hours)
    k, oti, wti = run.k, run.oti, run.wti
    energised = k > 0
    v_nom = unit.lv_kv / math.sqrt(3)
    # Phase-to-neutral voltage: regulation sag with load, fixed phase offsets, meter noise.
    regulation = 1.02 - 0.04 * k
    vph = (
        np.stack(
            [
                v_nom * (regulation + unit.phase_offsets[i] + rng.normal(0, 0.001, k.size))
                for i in range(3)
            ]
        )
        * energised
    )

    # Line voltages from phasors 120° apart: |Va − Vb∠−120°| = √(Va² + Vb² + Va·Vb).
    def line(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(np.sqrt(a * a + b * b + a * b))

    v12, v23, v31 = line(vph[0], vph[1]), line(vph[1], vph[2]), line(vph[2], vph[0])
    w = np.array(unit.phase_weights)[:, None] * (1 + rng.normal(0, 0.004, (3, k.size)))
    s_kva = k * unit.rated_mva * 1000.0
    denom = (v12 * w[0] + v23 * w[1] + v31 * w[2]) / math.sqrt(3)
    i_base = np.divide(s_kva, denom, out=np.zeros_like(s_kva), where=denom > 0)
    cur = w * i_base
    # Neutral: fundamental phasor sum (equal power-factor angles) and triplen harmonics.
    fund = np.abs(cur[0] + cur[1] * np.exp(-2j * np.pi / 3) + cur[2] * np.exp(2j * np.pi / 3))
    inut = np.sqrt(fund**2 + (3 * unit.h3 * cur.mean(axis=0)) ** 2)
    t0 = datetime.combine(spec.start, datetime.min.time())
    docs: list[dict[str, Any]] = []
    r_v, r_i = (4, 1)
    for j in range(k.size):
        ts = _iso(t0 + timedelta(hours=int(hours[j])))
        rv = [
            round(float(x), r_v) for x in (vph[0, j], vph[1, j], vph[2, j], v12[j], v23[j], v31[j])
        ]
        ri = [round(float(x), r_i) for x in (cur[0, j], cur[1, j], cur[2, j])]
        load = (rv[3] * ri[0] + rv[4] * ri[1] + rv[5] * ri[2]) / math.sqrt(3) / 1000.0
        o = round(float(oti[j]), INDICATOR_RESOLUTION)
        wt = round(float(wti[j]), INDICATOR_RESOLUTION)
        docs.append(
            {
                "_id": f"{unit.asset_id}:{ts}",
                "asset_id": unit.asset_id,
                "site_name": unit.site,
                "timestamp": ts,
                "vl1": rv[0],
                "vl2": rv[1],
                "vl3": rv[2],
                "vl12": rv[3],
                "vl23": rv[4],
                "vl31": rv[5],
                "il1": ri[0],
                "il2": ri[1],
                "il3": ri[2],
                "inut": round(float(inut[j]), 1),
                "load_mva": round(load, 5),
                "ati": round(float(ambient[j]), 1),
                "oti": o,
                "wti": wt,
                "oti_a": int(o >= THRESHOLDS["oti_alarm"]),
                "oti_t": int(o >= THRESHOLDS["oti_trip"]),
                "wti_a": int(wt >= THRESHOLDS["wti_alarm"]),
                "wti_t": int(wt >= THRESHOLDS["wti_trip"]),
            }
        )
    return docs, run


def classify_all(sample: dga.GasSample) -> tuple[str, str, str]:
    """(IEC 60599, Rogers mapped to IEC, Duval) classes of a sample."""
    ratios = dga.iec60599_ratios(sample)
    rogers = dga.classify_rogers(dga.rogers_codes(ratios))
    return (
        dga.classify_iec60599(ratios),
        dga.ROGERS_TO_IEC.get(rogers, rogers),
        dga.duval_triangle1(sample).zone,
    )


def table1_row_holds(fault: str, ratios: dga.Ratios, margin: float = RATIO_MARGIN) -> bool:
    """Whether the ratios satisfy ``fault``'s IEC 60599 Table 1 row (:data:`TABLE1_ROWS`)
    with a relative margin inside every bound of that row."""
    values = ratios.values()
    for value, bounds in zip(values, TABLE1_ROWS[fault], strict=True):
        if bounds is None:
            continue
        lo, hi = bounds
        if lo > 0 and not value >= lo * (1 + margin):
            return False
        if math.isfinite(hi) and not value <= hi * (1 - margin):
            return False
    return True


def _ratio_bounds() -> tuple[tuple[float, ...], ...]:
    """Every boundary of Table 1 and of the Rogers codes, per ratio."""
    out = []
    for axis in range(3):
        found = set(ROGERS_BOUNDS)
        for row in TABLE1_ROWS.values():
            bounds = row[axis]
            if bounds is not None:
                found |= {v for v in bounds if 0 < v < math.inf}
        out.append(tuple(sorted(found)))
    return tuple(out)


RATIO_BOUNDS = _ratio_bounds()


def is_unambiguous(sample: dga.GasSample, fault: str) -> bool:
    """Whether a sample sits a margin away from every boundary that would change its class.

    Every ratio is at least ``RATIO_MARGIN`` (5 %) away from every boundary of IEC 60599
    Table 1 and of the Rogers codes (not only those of its own row, so no method's class
    can flip), the ratios satisfy the fault's own Table 1 row with that margin (so the
    reading of the T1 row does not matter), and the Duval point is 2 points from every zone
    boundary, except for PD: Duval's PD zone is only 2 points wide (%CH4 ≥ 98), so PD asks
    for 1 point (confidence ≥ 0.5).
    """
    ratios = dga.iec60599_ratios(sample)
    values = ratios.values()
    for value, bounds in zip(values, RATIO_BOUNDS, strict=True):
        if any(abs(value - b) <= RATIO_MARGIN * b for b in bounds):
            return False
    duval_floor = 0.5 if fault == "PD" else 1.0
    return (
        table1_row_holds(fault, ratios)
        and dga.duval_confidence(dga.duval_triangle1(sample)) >= duval_floor
    )


def _gas_sample(values: dict[str, float]) -> dga.GasSample:
    return dga.GasSample(
        hydrogen=values["hydrogen"],
        methane=values["methane"],
        ethane=values["ethane"],
        ethylene=values["ethylene"],
        acetylene=values["acetylene"],
        co=values["co"],
        co2=values["co2"],
    )


def _oil_samples(spec: FleetSpec, unit: _Unit) -> tuple[list[dict[str, Any]], float]:
    """Weekly oil samples; returns the documents and the fault scale at the last sample."""
    rng = rng_for(spec.seed, "oil", unit.index)
    bg = {
        "hydrogen": rng.uniform(5, 35),
        "methane": rng.uniform(2, 15),
        "ethane": rng.uniform(2, 20),
        "ethylene": rng.uniform(0.5, 4),
        "acetylene": rng.uniform(0.1, 0.5) if rng.random() < 0.2 else 0.0,
        # Healthy background stays inside IEC 60599 typical values and IEEE C57.104-2008
        # condition 1 (CO ≤ 350, CO2 ≤ 2500) after drift (+5 %) and lab noise (2 %).
        "co": rng.uniform(100, 300),
        "co2": rng.uniform(800, 2200),
        "oxygen": rng.uniform(5000, 20000),
        "nitrogen": rng.uniform(40000, 60000),
    }
    quality = {
        "water_content": rng.uniform(5, 15),
        "dielectric_rigidity": rng.uniform(55, 75),
        "interfacial_v": rng.uniform(32, 42),
        "power_factor": rng.uniform(0.05, 0.3),
        "acidity": rng.uniform(0.01, 0.06),
        "dbds": rng.uniform(0, 20) if rng.random() < 0.3 else 0.0,
    }
    days = unit.oil_days
    noise = rng.normal(0.0, 0.02, (len(days), 16))
    scale = float(rng.uniform(1.5, 3.0))
    gases = ("hydrogen", "methane", "ethane", "ethylene", "acetylene")
    for _attempt in range(12):
        docs = []
        for n, day in enumerate(days):
            drift = 1.0 + 0.05 * day / spec.days
            values = {g: v * drift * (1 + noise[n, i]) for i, (g, v) in enumerate(bg.items())}
            if unit.fault and unit.onset_day is not None and day > unit.onset_day:
                f = float(fault_growth(spec, unit, np.array([float(day)]))[0]) * scale
                for g, p in zip(gases, PROTOTYPES[unit.fault], strict=True):
                    values[g] += f * p
                if unit.fault in ("T1", "T2"):  # overheated paper releases carbon oxides
                    values["co"] += f * 150
                    values["co2"] += f * 900
            for i, (q, v) in enumerate(quality.items()):
                trend = 1.0 + (
                    0.1 if q in ("water_content", "acidity", "power_factor") else -0.03
                ) * (day / spec.days)
                values[q] = v * trend * (1 + 0.5 * noise[n, 10 + i])
            ts = _iso(
                datetime.combine(spec.start + timedelta(days=day), datetime.min.time())
                + timedelta(hours=10)
            )
            doc: dict[str, Any] = {
                "_id": f"{unit.asset_id}:{ts}",
                "dataset": "oil_sample",
                "asset_id": unit.asset_id,
                "site_name": unit.site,
                "timestamp": ts,
            }
            for key, v in values.items():
                doc[key] = round(float(v), 3 if key in ("acidity", "power_factor") else 2)
            docs.append(doc)
        if unit.fault is None:
            return docs, 0.0
        latest = _gas_sample(docs[-1])
        if classify_all(latest) == (unit.fault,) * 3 and is_unambiguous(latest, unit.fault):
            return docs, scale
        scale *= 1.5
    raise RuntimeError(f"could not make {unit.asset_id}'s {unit.fault} signature unambiguous")


def _events_and_orders(
    spec: FleetSpec,
    unit: _Unit,
    oil: list[dict[str, Any]],
    run: ThermalRun,
    faults: list[dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    t0 = datetime.combine(spec.start, datetime.min.time())
    docs: list[dict[str, Any]] = []
    n_wo = 0
    code_descriptions = {
        **{code: FAULT_LABELS[fault] for fault, code in FAILURE_CODES.items()},
        **OTHER_CODES,
    }
    name = equipment_name(unit.asset_id, unit.site)

    def work_order(
        when: datetime, preventive: bool, code: str, text: str, priority: int, hours: float
    ) -> None:
        nonlocal n_wo
        n_wo += 1
        wo_id = f"WO-{unit.asset_id}-{n_wo:03d}"
        finish = when + timedelta(hours=hours + 24 * (0 if preventive else 1))
        docs.append(
            {
                "_id": f"wo:{wo_id}",
                "dataset": "wo_events",
                "wo_id": wo_id,
                "equipment_id": unit.asset_id,
                "site_name": unit.site,
                "wo_type": "preventive" if preventive else "corrective",
                "primary_code": code,
                "wo_description": text,
                "work_priority": priority,
                "reported_date": _iso(when),
                "actual_finish": _iso(finish),
                "actual_labor_hours": hours,
                # AssetOpsBench's names and value types (see assets/transformer/workorders.py)
                "preventive": "TRUE" if preventive else "FALSE",
                "collection": COLLECTION,
                "equipment_name": name,
                "primary_code_description": code_descriptions[code],
                "secondary_code": code_entry(code, code_descriptions[code]).secondary_code,
                "secondary_code_description": code_entry(
                    code, code_descriptions[code]
                ).secondary_description,
            }
        )
        docs.append(
            {
                "_id": f"ev:{wo_id}",
                "dataset": "events",
                "equipment_name": name,
                "event_id": f"EV-{wo_id}",
                "equipment_id": unit.asset_id,
                "site_name": unit.site,
                "event_group": "WORK_ORDER",
                "event_category": "PM" if preventive else "CM",
                "event_type": code,
                "description": text,
                "event_time": _iso(when),
            }
        )

    # Monthly preventive inspection, staggered per unit.
    for day in range(3 + unit.index % 10, spec.days, 30):
        work_order(
            t0 + timedelta(days=day, hours=8),
            True,
            "PM-INSP",
            "Monthly inspection: cooling fans, oil level, breather, bushings",
            4,
            3.0,
        )
    # Alarm and trip contacts: an event per rising edge, at the minute it happened.
    rules = {
        "oti_a": ("OTI_ALARM", "top-oil temperature alarm", "oti_alarm"),
        "wti_a": ("WTI_ALARM", "winding temperature alarm", "wti_alarm"),
        "oti_t": ("OTI_TRIP", "top-oil temperature trip", "oti_trip"),
        "wti_t": ("WTI_TRIP", "winding temperature trip", "wti_trip"),
    }
    last_cm: datetime | None = None
    for minute, contact, value in sorted(run.edges):
        rule, label, setting = rules[contact]
        when = t0 + timedelta(minutes=minute)
        stamp = _iso(when)
        sensor = contact.split("_")[0]
        docs.append(
            {
                "_id": f"al:{unit.asset_id}:{rule}:{stamp}",
                "dataset": "alert_events",
                "equipment_id": unit.asset_id,
                "site_name": unit.site,
                "rule_id": rule,
                "description": label,
                "start_time": stamp,
                "sensor": sensor,
                "value": value,
                "threshold": THRESHOLDS[setting],
            }
        )
        docs.append(
            {
                "_id": f"ev:al:{unit.asset_id}:{rule}:{stamp}",
                "dataset": "events",
                "equipment_name": name,
                "event_id": f"EV-{unit.asset_id}-{rule}-{minute}",
                "equipment_id": unit.asset_id,
                "site_name": unit.site,
                "event_group": "ALERT",
                "event_category": rule,
                "event_type": rule,
                "description": label,
                "event_time": stamp,
            }
        )
        if "TRIP" not in rule and (last_cm is None or when - last_cm > timedelta(days=7)):
            last_cm = when
            work_order(
                when + timedelta(hours=12),
                False,
                "OP-OVL",
                f"Investigate {label} ({sensor.upper()} {value} °C); check load and cooling",
                2,
                4.0,
            )
    for minute in run.trips:
        work_order(
            t0 + timedelta(minutes=minute + 60),
            False,
            "OP-OVL",
            "Unit tripped on temperature: inspect before re-energising",
            1,
            6.0,
        )
    # DGA: one diagnosis path, the interpret_dga tool's verdict on each stored sample.
    detection = dga_detection(unit, oil)
    for when, code, text in detection.orders:
        work_order(when, False, code, text, 2, 8.0)
    # Instrument orders last, so every other order keeps its number.
    sensor_faults = []
    for fault in faults or []:
        wo_id = None
        if fault["order_days"] is not None:
            when = datetime.fromisoformat(fault["start"]) + timedelta(days=fault["order_days"])
            work_order(when, False, INSTRUMENT_CODE, instrument_order_text(fault), 3, 2.0)
            wo_id = f"WO-{unit.asset_id}-{n_wo:03d}"
        sensor_faults.append(
            {k: v for k, v in fault.items() if k != "order_days"} | {"work_order": wo_id}
        )
    truth = {
        "_id": unit.asset_id,
        "asset_id": unit.asset_id,
        "site_name": unit.site,
        "fault_type": unit.fault or "none",
        "fault_label": FAULT_LABELS.get(unit.fault or "", "no fault"),
        "cause": FAULT_CAUSES.get(unit.fault or "", "none injected"),
        "onset": _iso(t0 + timedelta(days=unit.onset_day)) if unit.onset_day is not None else None,
        "first_detected": detection.first_detected,
        "first_detected_class": detection.first_detected_class,
        "first_classified": detection.first_classified,
        "dga_abnormal_first_seen": detection.first_detected,
        "thermal_signature": thermal_signature(unit),
        "overload_episode_start": (
            _iso(t0 + timedelta(days=unit.overload_day)) if unit.overload_day is not None else None
        ),
        "trips": [_iso(t0 + timedelta(minutes=m)) for m in run.trips],
        "alert_edges": len(run.edges),
        "trip_step_bound_k": round(run.step_bound, 2),
        "sensor_faults": sensor_faults,
    }
    return docs, truth


class DgaDetection(BaseModel):
    """What the interpret_dga tool concluded on a unit's samples, and the orders it raised."""

    model_config = ConfigDict(extra="forbid")

    first_detected: str | None = Field(description="First sample the tool calls abnormal")
    first_detected_class: str | None = Field(description="The tool's fault_type on it")
    first_classified: str | None = Field(
        description="First sample the tool classifies as the injected fault (None if never)"
    )
    orders: list[tuple[datetime, str, str]] = Field(
        description="(reported date, failure code, description) of the DGA work orders"
    )


def dga_detection(unit: _Unit, oil: list[dict[str, Any]]) -> DgaDetection:
    """Run interpret_dga on every sample in date order and raise work orders from it.

    The first sample the tool calls abnormal (fault_type not "normal") raises a corrective
    order two days later, coded from the tool's class (FAILURE_CODES; DGA-ABN when the class
    is ND). If that class was not confirmed (at least 2 of 3 methods giving it,
    ``agreement.consensus``), the first later sample whose class is confirmed raises a
    second order with that class's code. No knowledge of the injected fault is used.
    """
    first: str | None = None
    first_class: str | None = None
    classified: str | None = None
    confirmed = False
    orders: list[tuple[datetime, str, str]] = []
    for sample in sorted(oil, key=lambda d: d["timestamp"]):
        verdict = dga.interpret_dga(
            unit.asset_id,
            hydrogen=sample["hydrogen"],
            methane=sample["methane"],
            acetylene=sample["acetylene"],
            ethylene=sample["ethylene"],
            ethane=sample["ethane"],
            co=sample["co"],
            co2=sample["co2"],
        )
        fault = verdict.fault_type
        if fault == "normal":
            continue
        when = datetime.fromisoformat(sample["timestamp"]) + timedelta(days=2)
        if classified is None and fault == unit.fault:
            classified = sample["timestamp"]
        sure = fault in FAILURE_CODES and verdict.agreement.consensus == fault
        if first is None:
            first, first_class, confirmed = sample["timestamp"], fault, sure
            orders.append(
                (when, FAILURE_CODES.get(fault, "DGA-ABN"),
                 f"DGA abnormal ({fault}): resample and investigate")
            )
        elif not confirmed and sure:
            confirmed = True
            if fault != first_class:
                orders.append(
                    (when, FAILURE_CODES[fault],
                     f"DGA diagnosis confirmed ({fault}): plan internal inspection")
                )
    return DgaDetection(
        first_detected=first,
        first_detected_class=first_class,
        first_classified=classified,
        orders=orders,
    )


def thermal_signature(unit: _Unit) -> dict[str, Any] | None:
    """The truth record of an injected fault's thermal signature (None when it has none)."""
    if unit.fault == "T1":
        return {
            "kind": "degraded_cooling",
            "model": f"rated top-oil rise Δθor (and τo) × {T1_RISE_FACTOR:g} from the onset",
            "max_factor": T1_RISE_FACTOR,
        }
    if unit.fault == "T3":
        return {
            "kind": "extra_core_loss",
            "model": f"extra no-load loss e = {T3_EXTRA_NOLOAD:g} × rated no-load loss from the "
            "onset, in [(1 + e + R·K²)/(1 + R)]^x",
            "max_extra_noload": T3_EXTRA_NOLOAD,
        }
    return None


def simulate_fleet(spec: FleetSpec) -> FleetData:
    """Simulate the fleet described by ``spec``; same spec, same documents."""
    units = _plan_units(spec)
    hours = np.arange(spec.days * 24, dtype=float)
    ambients = {s: _ambient(spec, s, hours) for s in range(spec.sites)}
    telemetry: list[dict[str, Any]] = []
    oil: list[dict[str, Any]] = []
    orders: list[dict[str, Any]] = []
    truth: list[dict[str, Any]] = []
    nameplates: list[dict[str, Any]] = []
    runs: dict[str, ThermalRun] = {}
    per_unit: dict[str, list[dict[str, Any]]] = {}
    for unit in units:
        tele, runs[unit.asset_id] = _telemetry(
            spec, unit, hours, ambients[unit.index // spec.units_per_site]
        )
        per_unit[unit.asset_id] = tele
    alarm = {"oti": THRESHOLDS["oti_alarm"], "wti": THRESHOLDS["wti_alarm"]}
    faults = inject_sensor_faults(spec.seed, per_unit, alarm, rng_for)
    for unit in units:
        samples, _scale = _oil_samples(spec, unit)
        unit_orders, unit_truth = _events_and_orders(
            spec, unit, samples, runs[unit.asset_id], faults[unit.asset_id]
        )
        telemetry.extend(per_unit[unit.asset_id])
        oil.extend(samples)
        orders.extend(unit_orders)
        truth.append(unit_truth)
        nameplates.append(
            {
                "_id": unit.asset_id,
                "asset_id": unit.asset_id,
                "site_name": unit.site,
                "rated_mva": unit.rated_mva,
                "cooling": unit.cooling.replace("_distribution", ""),
                "thermal_class": unit.cooling,
                "hv_kv": unit.hv_kv,
                "lv_kv": unit.lv_kv,
                "paper": unit.paper,
                "year_installed": unit.year,
                **THRESHOLDS,
            }
        )
    codes = [
        _failure_code(code, fault, FAULT_LABELS[fault]) for fault, code in FAILURE_CODES.items()
    ] + [_failure_code(code, None, text) for code, text in OTHER_CODES.items()]
    return FleetData(
        spec=spec,
        docs={
            "telemetry": telemetry,
            "oil_samples": oil,
            "nameplate": nameplates,
            "workorders": orders + codes,
            "truth": truth,
        },
    )
