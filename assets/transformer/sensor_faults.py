"""Telemetry faults injected on a few units of the simulated fleet (not plant faults).

Three kinds, each on its own units, ``max(1, n // 6)`` units per kind for a fleet of ``n``
units (12 units: two of each), every draw from the separate random stream
``rng_for(seed, "sensor_faults", i)`` so no other value of the fleet moves:

* **stuck** -- a temperature indicator (OTI or WTI) repeats the reading of the fault's
  first hour for ``STUCK_HOURS`` (24-60) hourly records in a row (a frozen transmitter or a
  stale SCADA value). The run sits where the true readings stay below the indicator's
  alarm setting, so the alarm and trip contacts (hardware contacts on the true
  temperature) read 0 as they would with a healthy indicator; the readings just before
  and after the run differ from the frozen value, so the run is exactly the fault.
* **gap** -- ``GAP_HOURS`` (4-24) consecutive hourly records are missing (a lost data
  link), in a stretch where the unit is energised and no contact is on.
* **contact** -- an alarm contact (``oti_a`` or ``wti_a``) chatters: it reads 1 on
  ``CHATTER_PICKUPS`` (3-6) separate, non-adjacent hours of a 1-3 day stretch while its
  indicator reads at least ``CHATTER_MARGIN`` (10 K) below the alarm setting and no
  contact is on anywhere in the stretch. The alarm log (``alert_events``) comes from the
  indicator's reading and does not see it.

Half of the faults got a corrective work order for the instrument (code ``IC-SENS``) one to
three days after the fault began (with several faults of a kind, every other one; with one,
a draw); the truth document of each
unit lists its faults (``sensor_faults``) with that order's id or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

STUCK_HOURS = (24, 60)
GAP_HOURS = (4, 24)
CHATTER_PICKUPS = (3, 6)
CHATTER_DAYS = (1, 3)
CHATTER_MARGIN = 10.0
UNITS_PER_KIND = 6  # one unit per kind for every this many units (at least one)
MARGIN_HOURS = 48  # faults stay this far from the first and the last record
ATTEMPTS = 40
INSTRUMENT_CODE = "IC-SENS"
INSTRUMENT_LABEL = "sensor, alarm contact or telemetry link fault"
FLAGS = ("oti_a", "oti_t", "wti_a", "wti_t")

RngFor = Callable[[int, str, int], np.random.Generator]


def _flags_off(records: list[dict[str, Any]]) -> bool:
    return all(r[f] == 0 for r in records for f in FLAGS)


def _stuck(
    rng: np.random.Generator, docs: list[dict[str, Any]], alarm: dict[str, float]
) -> dict[str, Any] | None:
    sensor = str(rng.choice(["oti", "wti"]))
    for _ in range(ATTEMPTS):
        length = int(rng.integers(STUCK_HOURS[0], STUCK_HOURS[1] + 1))
        hi = len(docs) - length - MARGIN_HOURS
        if hi <= MARGIN_HOURS:
            return None
        i = int(rng.integers(MARGIN_HOURS, hi))
        run = docs[i : i + length]
        value = run[0][sensor]
        if max(r[sensor] for r in run) >= alarm[sensor] or not _flags_off(run):
            continue
        if docs[i - 1][sensor] == value or docs[i + length][sensor] == value:
            continue
        for r in run:
            r[sensor] = value
        return {"kind": "stuck", "sensor": sensor, "start": run[0]["timestamp"],
                "end": run[-1]["timestamp"], "count": length, "value": value}
    return None


def _gap(rng: np.random.Generator, docs: list[dict[str, Any]]) -> dict[str, Any] | None:
    for _ in range(ATTEMPTS):
        length = int(rng.integers(GAP_HOURS[0], GAP_HOURS[1] + 1))
        hi = len(docs) - length - MARGIN_HOURS
        if hi <= MARGIN_HOURS:
            return None
        i = int(rng.integers(MARGIN_HOURS, hi))
        run = docs[i : i + length]
        if not _flags_off(run) or any(r["load_mva"] <= 0 for r in run):
            continue
        fault = {"kind": "gap", "sensor": None, "start": run[0]["timestamp"],
                 "end": run[-1]["timestamp"], "count": length}
        del docs[i : i + length]
        return fault
    return None


def _contact(
    rng: np.random.Generator, docs: list[dict[str, Any]], alarm: dict[str, float]
) -> dict[str, Any] | None:
    flag = str(rng.choice(["oti_a", "wti_a"]))
    sensor = flag.split("_")[0]
    for _ in range(ATTEMPTS):
        span = 24 * int(rng.integers(CHATTER_DAYS[0], CHATTER_DAYS[1] + 1))
        hi = len(docs) - span - MARGIN_HOURS
        if hi <= MARGIN_HOURS:
            return None
        i = int(rng.integers(MARGIN_HOURS, hi))
        stretch = docs[i : i + span]
        if not _flags_off(stretch):
            continue
        cool = [j for j, r in enumerate(stretch) if r[sensor] <= alarm[sensor] - CHATTER_MARGIN]
        k = int(rng.integers(CHATTER_PICKUPS[0], CHATTER_PICKUPS[1] + 1))
        chosen: list[int] = []
        for j in rng.permutation(cool):
            if all(abs(int(j) - c) > 1 for c in chosen):
                chosen.append(int(j))
            if len(chosen) == k:
                break
        if len(chosen) < k:
            continue
        chosen.sort()
        for j in chosen:
            stretch[j][flag] = 1
        return {"kind": "contact", "sensor": flag, "start": stretch[chosen[0]]["timestamp"],
                "end": stretch[chosen[-1]]["timestamp"], "count": k,
                "timestamps": [stretch[j]["timestamp"] for j in chosen]}
    return None


def inject_sensor_faults(
    seed: int,
    telemetry: dict[str, list[dict[str, Any]]],
    alarm: dict[str, float],
    rng_for: RngFor,
) -> dict[str, list[dict[str, Any]]]:
    """Inject the faults into the units' hourly records, in place; return them per unit.

    Args:
        seed: The fleet seed.
        telemetry: Asset id → its hourly records in time order (unit order = fleet order).
        alarm: Alarm setting per indicator (``{"oti": 90.0, "wti": 110.0}``).
        rng_for: The simulator's ``rng_for(seed, stream, index)``.

    Returns:
        Asset id → faults injected on it (each: kind, sensor, start, end, count, and
        ``value`` of a stuck reading or the ``timestamps`` of a contact's pick-ups; plus
        ``order_days``, days after the start at which an instrument order is raised, or
        None).
    """
    ids = list(telemetry)
    rng = rng_for(seed, "sensor_faults", 0)
    per = max(1, len(ids) // UNITS_PER_KIND)
    kinds = (["stuck"] * per + ["gap"] * per + ["contact"] * per)[: len(ids)]
    chosen = [ids[int(i)] for i in rng.permutation(len(ids))[: len(kinds)]]
    out: dict[str, list[dict[str, Any]]] = {a: [] for a in ids}
    for n, (kind, asset_id) in enumerate(zip(kinds, chosen, strict=True)):
        frng = rng_for(seed, "sensor_faults", n + 1)
        docs = telemetry[asset_id]
        fault = (
            _stuck(frng, docs, alarm) if kind == "stuck"
            else _gap(frng, docs) if kind == "gap"
            else _contact(frng, docs, alarm)
        )
        if fault is None:
            continue
        days = int(frng.integers(1, 4))
        ordered = frng.random() < 0.5
        if per > 1:  # several faults of a kind: the first of each kind ordered, the next not
            ordered = (n % per) % 2 == 0
        fault["order_days"] = days if ordered else None
        out[asset_id].append(fault)
    return out


def instrument_order_text(fault: dict[str, Any]) -> str:
    """The description of the instrument work order raised for ``fault``."""
    sensor = str(fault.get("sensor") or "").upper()
    if fault["kind"] == "stuck":
        return f"{sensor} indicator reading frozen: check and recalibrate the transmitter"
    if fault["kind"] == "contact":
        return f"{sensor} contact picking up without a high reading: check contact and wiring"
    return "Telemetry records missing: check the RTU and the communication link"
