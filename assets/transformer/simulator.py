"""Seeded, physically consistent transformer fleet (telemetry, oil samples, events, work orders).

Every number follows from a formula and the seed:

* load: daily and weekly shapes, a weather coupling and AR(1) noise per unit, scaled to the
  unit's rating; voltages sag with load (regulation); phase currents are chosen so that
  S = (V12·I1 + V23·I2 + V31·I3)/√3 equals the load, with a fixed per-unit imbalance; the
  neutral current is the phasor sum of the phase currents plus a triplen-harmonic part;
* ambient: site climate, seasonal drift, diurnal cycle and AR(1) weather;
* OTI and WTI: the IEC 60076-7 dynamic model (:mod:`assets.transformer.thermal`);
  alarm and trip contacts follow the unit's settings, and a trip de-energises the unit
  for some hours (so trips are rare events, never a daily state);
* oil samples: healthy background gases below the IEC 60599 typical values; faulty
  units grow a fault signature from the onset, scaled until the latest sample classifies
  as the injected fault under the IEC 60599 ratios, the Rogers codes and Duval triangle 1
  with a margin from every boundary;
* work orders: monthly preventive, corrective after alarms, trips and abnormal DGA.

The module is pure: :func:`simulate_fleet` maps a :class:`FleetSpec` to documents.
"""

from __future__ import annotations

import math
import zlib
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from assets.transformer import dga
from assets.transformer.thermal import COOLING, simulate

SIMULATOR_VERSION = "2"
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
    "T1": "blocked cooling ducts overheating the paper insulation",
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
# Fault signatures (ppm H2, CH4, C2H6, C2H4, C2H2) chosen inside the same zone of all three
# classification methods, away from their boundaries (hand-checked in tests/assets).
PROTOTYPES: dict[str, tuple[float, float, float, float, float]] = {
    "PD": (800.0, 60.0, 15.0, 0.2, 0.0),
    "D1": (100.0, 25.0, 5.0, 10.0, 40.0),
    "D2": (200.0, 160.0, 25.0, 150.0, 120.0),
    "T1": (30.0, 75.0, 100.0, 12.0, 0.2),
    "T2": (40.0, 110.0, 40.0, 80.0, 1.0),
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


class FleetSpec(BaseModel):
    """What fleet to simulate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(default=42, description="Seed of every random draw")
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


def rng_for(seed: int, stream: str, index: int = 0) -> np.random.Generator:
    """A local generator derived from (seed, stream, index); never global state."""
    return np.random.default_rng([seed & 0xFFFFFFFF, zlib.crc32(stream.encode()), index])


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
    overload_unit = healthy[0] if healthy and n >= 4 else None
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
                    if idx == overload_unit
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


def _thermal_with_trips(
    unit: _Unit, k: np.ndarray, ambient: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """Run the thermal model; a trip de-energises the unit and ends any overload."""
    c = COOLING[unit.cooling]
    k = k.copy()
    energised = np.ones(k.size, dtype=bool)
    trips: list[int] = []
    while True:
        oti, wti = simulate(k, ambient, c, 60.0)
        tripped = np.flatnonzero(
            energised & ((oti >= THRESHOLDS["oti_trip"]) | (wti >= THRESHOLDS["wti_trip"]))
        )
        tripped = tripped[~np.isin(tripped, trips)]
        if tripped.size == 0:
            return k, oti, wti, trips
        h = int(tripped[0])
        trips.append(h)
        outage = slice(h + 1, min(h + 1 + OUTAGE_HOURS, k.size))
        k[outage] = 0.0
        energised[outage] = False
        if unit.overload_day is not None:  # operators shed the overload after a trip
            end = min(unit.overload_day * 24 + 72, k.size)
            rest = slice(h + 1 + OUTAGE_HOURS, end)
            k[rest] = np.minimum(k[rest], unit.peak_k)


def _telemetry(
    spec: FleetSpec, unit: _Unit, hours: np.ndarray, ambient: np.ndarray
) -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray, np.ndarray, list[int]]:
    rng = rng_for(spec.seed, "meter", unit.index)
    k_raw = _load_factor(spec, unit, hours, ambient)
    k, oti, wti, trips = _thermal_with_trips(unit, k_raw, ambient)
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
        o, wt = round(float(oti[j]), 1), round(float(wti[j]), 1)
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
    return docs, k, oti, wti, trips


def classify_all(sample: dga.GasSample) -> tuple[str, str, str]:
    """(IEC 60599, Rogers mapped to IEC, Duval) classes of a sample."""
    ratios = dga.iec60599_ratios(sample)
    rogers = dga.classify_rogers(dga.rogers_codes(ratios))
    return (
        dga.classify_iec60599(ratios),
        dga.ROGERS_TO_IEC.get(rogers, rogers),
        dga.duval_triangle1(sample).zone,
    )


def is_unambiguous(sample: dga.GasSample, fault: str) -> bool:
    """Whether a sample sits a margin away from every boundary that would change its class.

    The margin is 5 % in ratio and 2 points in Duval percentage, except for PD: Duval's PD
    zone is only 2 points wide (%CH4 ≥ 98), so PD asks for 1 point (confidence ≥ 0.5).
    """
    ratios = dga.iec60599_ratios(sample)
    duval_floor = 0.5 if fault == "PD" else 1.0
    return (
        dga.iec_confidence(ratios) >= 1.0
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
                f = ((day - unit.onset_day) / (spec.days - unit.onset_day)) ** 1.5 * scale
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
    telemetry: list[dict[str, Any]],
    oil: list[dict[str, Any]],
    trips: list[int],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    t0 = datetime.combine(spec.start, datetime.min.time())
    docs: list[dict[str, Any]] = []
    n_wo = 0

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
                "preventive": preventive,
                "wo_type": "preventive" if preventive else "corrective",
                "primary_code": code,
                "wo_description": text,
                "work_priority": priority,
                "reported_date": _iso(when),
                "actual_finish": _iso(finish),
                "actual_labor_hours": hours,
            }
        )
        docs.append(
            {
                "_id": f"ev:{wo_id}",
                "dataset": "events",
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
    # Alarm and trip contacts: an event per rising edge.
    last_cm: datetime | None = None
    alerts = 0
    for contact, rule, label in (
        ("oti_a", "OTI_ALARM", "top-oil temperature alarm"),
        ("wti_a", "WTI_ALARM", "winding temperature alarm"),
        ("oti_t", "OTI_TRIP", "top-oil temperature trip"),
        ("wti_t", "WTI_TRIP", "winding temperature trip"),
    ):
        previous = 0
        for j, doc in enumerate(telemetry):
            value = doc[contact]
            if value and not previous:
                alerts += 1
                when = t0 + timedelta(hours=j)
                sensor = contact.split("_")[0]
                docs.append(
                    {
                        "_id": f"al:{unit.asset_id}:{rule}:{doc['timestamp']}",
                        "dataset": "alert_events",
                        "equipment_id": unit.asset_id,
                        "site_name": unit.site,
                        "rule_id": rule,
                        "description": label,
                        "start_time": doc["timestamp"],
                        "sensor": sensor,
                        "value": doc[sensor],
                        "threshold": THRESHOLDS[
                            f"{sensor}_{'trip' if 'TRIP' in rule else 'alarm'}"
                        ],
                    }
                )
                docs.append(
                    {
                        "_id": f"ev:al:{unit.asset_id}:{rule}:{doc['timestamp']}",
                        "dataset": "events",
                        "event_id": f"EV-{unit.asset_id}-{rule}-{j}",
                        "equipment_id": unit.asset_id,
                        "site_name": unit.site,
                        "event_group": "ALERT",
                        "event_category": rule,
                        "event_type": rule,
                        "description": label,
                        "event_time": doc["timestamp"],
                    }
                )
                if "TRIP" not in rule and (last_cm is None or when - last_cm > timedelta(days=7)):
                    last_cm = when
                    work_order(
                        when + timedelta(hours=12),
                        False,
                        "OP-OVL",
                        f"Investigate {label} ({sensor.upper()} {doc[sensor]} °C); "
                        "check load and cooling",
                        2,
                        4.0,
                    )
            previous = value
    for h in trips:
        work_order(
            t0 + timedelta(hours=h + 1),
            False,
            "OP-OVL",
            "Unit tripped on temperature: inspect before re-energising",
            1,
            6.0,
        )
    # Abnormal DGA: the first sample whose gases exceed the IEC 60599 typical values.
    found: str | None = None
    for sample in oil:
        screen = dga.concentration_screen(_gas_sample(sample))
        if not screen.all_within_iec_typical:
            fault = dga.classify_iec60599(dga.iec60599_ratios(_gas_sample(sample)))
            code = FAILURE_CODES.get(fault, "DGA-ABN")
            when = datetime.fromisoformat(sample["timestamp"]) + timedelta(days=2)
            work_order(
                when, False, code, f"DGA abnormal ({fault}): resample and investigate", 2, 8.0
            )
            found = sample["timestamp"]
            break
    truth = {
        "_id": unit.asset_id,
        "asset_id": unit.asset_id,
        "site_name": unit.site,
        "fault_type": unit.fault or "none",
        "fault_label": FAULT_LABELS.get(unit.fault or "", "no fault"),
        "cause": FAULT_CAUSES.get(unit.fault or "", "none injected"),
        "onset": _iso(t0 + timedelta(days=unit.onset_day)) if unit.onset_day is not None else None,
        "dga_abnormal_first_seen": found,
        "overload_episode_start": (
            _iso(t0 + timedelta(days=unit.overload_day)) if unit.overload_day is not None else None
        ),
        "trips": [_iso(t0 + timedelta(hours=h)) for h in trips],
        "alert_edges": alerts,
    }
    return docs, truth


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
    for unit in units:
        tele, _k, _oti, _wti, trips = _telemetry(
            spec, unit, hours, ambients[unit.index // spec.units_per_site]
        )
        samples, _scale = _oil_samples(spec, unit)
        unit_orders, unit_truth = _events_and_orders(spec, unit, tele, samples, trips)
        telemetry.extend(tele)
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
        {
            "_id": f"fc:{code}",
            "dataset": "failure_codes",
            "code": code,
            "fault_type": fault,
            "description": FAULT_LABELS[fault],
        }
        for fault, code in FAILURE_CODES.items()
    ] + [
        {
            "_id": "fc:OP-OVL",
            "dataset": "failure_codes",
            "code": "OP-OVL",
            "fault_type": None,
            "description": "overloading / temperature alarm",
        },
        {
            "_id": "fc:PM-INSP",
            "dataset": "failure_codes",
            "code": "PM-INSP",
            "fault_type": None,
            "description": "preventive inspection",
        },
        {
            "_id": "fc:DGA-ABN",
            "dataset": "failure_codes",
            "code": "DGA-ABN",
            "fault_type": None,
            "description": "abnormal dissolved gases, fault type not determined",
        },
    ]
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
