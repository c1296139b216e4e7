"""Helpers shared by the transformer task families: picking entities, windows, formatting."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import numpy as np

from generator.api import (
    END_DAY_INCLUDED,
    END_MIDNIGHT_INCLUDED,
    FamilyContext,
    GroundedAsset,
    ToolCall,
    day,
    pick,
)

# Telemetry quantities worth asking about (alarm/trip contacts are flags, not levels).
LEVEL_SENSORS: tuple[str, ...] = (
    "vl1", "vl2", "vl3", "vl12", "vl23", "vl31", "il1", "il2", "il3", "inut", "load_mva",
    "ati", "oti", "wti",
)
# Sensors whose daily profile makes anomaly detection and forecasting meaningful.
SERIES_SENSORS: tuple[str, ...] = ("oti", "wti", "load_mva", "il1", "il2", "il3", "ati")
GASES: tuple[str, ...] = ("hydrogen", "methane", "acetylene", "ethylene", "ethane", "co", "co2")
HEALTH_FIELDS: tuple[str, ...] = (
    "hydrogen", "oxygen", "nitrogen", "methane", "co", "co2", "ethylene", "ethane", "acetylene",
    "dbds", "power_factor", "interfacial_v", "dielectric_rigidity", "water_content",
)


def iso_day(d: date) -> str:
    """YYYY-MM-DD."""
    return d.isoformat()


def asset_with_telemetry(ctx: FamilyContext, rng: np.random.Generator) -> GroundedAsset | None:
    """A random asset that has telemetry."""
    usable = [a for a in ctx.assets if a.telemetry.start and a.telemetry.end and a.sensors]
    return pick(rng, usable) if usable else None


def asset_with_oil(ctx: FamilyContext, rng: np.random.Generator) -> GroundedAsset | None:
    """A random asset that has oil samples."""
    usable = [
        a for a in ctx.assets if a.covered("oil_sample").start and a.covered("oil_sample").end
    ]
    return pick(rng, usable) if usable else None


def full_days(a: GroundedAsset) -> tuple[date, date]:
    """First and last whole day of telemetry (the first day is whole when it starts at 0 h)."""
    start = a.telemetry.start or ""
    end = a.telemetry.end or ""
    first = day(start) if start[11:13] in ("", "00") else day(start) + timedelta(days=1)
    return first, day(end)


def draw_window(
    a: GroundedAsset, rng: np.random.Generator, min_days: int = 1, max_days: int = 14
) -> tuple[str, str] | None:
    """A window [start, end) of whole days inside the asset's telemetry, as YYYY-MM-DD."""
    first, last = full_days(a)
    span = (last - first).days  # days with a following midnight inside the data
    if span < min_days:
        return None
    length = int(rng.integers(min_days, min(max_days, span) + 1))
    offset = int(rng.integers(0, span - length + 1))
    start = first + timedelta(days=offset)
    return iso_day(start), iso_day(start + timedelta(days=length))


def unit(ctx: FamilyContext, sensor: str) -> str:
    """Engineering unit of a sensor."""
    u = ctx.tools.asset.sensor(sensor).unit
    return "°C" if u == "degC" else u


def label(ctx: FamilyContext, sensor: str) -> str:
    """Plain label of a sensor (its description, lower-cased first letter)."""
    d = ctx.tools.asset.sensor(sensor).description
    # Drop parentheticals ("(hot-spot)", "(IEC 60156, 2.5 mm gap)"): the name follows in
    # parentheses in the text, and nested brackets read badly.
    d = re.sub(r"\s*\([^)]*\)", "", d).strip()
    # Keep acronyms ("DGA ...") as they are; lower-case a plain first word.
    return d if len(d) > 1 and d[1].isupper() else d[0].lower() + d[1:]


def oil_call(a: GroundedAsset, start: str | None = None, end: str | None = None) -> ToolCall:
    """An `oil_samples` call over the asset's whole oil-sample range (or a window)."""
    args: dict[str, Any] = {
        "site_name": a.site_name,
        "asset_id": a.asset_id,
        "start": start or iso_day(day(a.covered("oil_sample").start or "")),
    }
    if end is not None:
        args["final"] = end
    return ToolCall(name="oil_samples", args=args)


def dga_args(asset_id: str, sample: dict[str, Any]) -> dict[str, Any]:
    """`interpret_dga` arguments from a stored oil sample."""
    args: dict[str, Any] = {"asset_name": asset_id}
    for g in GASES:
        if sample.get(g) is not None:
            args[g] = sample[g]
    return args


def hi_args(asset_id: str, sample: dict[str, Any]) -> dict[str, Any] | None:
    """`predict_health_index` arguments from a stored oil sample (acidity too when measured:
    the Jahromi oil-quality factor scores it); None if a required field is missing."""
    if any(sample.get(f) is None for f in HEALTH_FIELDS):
        return None
    args = {"asset_name": asset_id, **{f: sample[f] for f in HEALTH_FIELDS}}
    if sample.get("acidity") is not None:
        args["acidity"] = float(sample["acidity"])
    return args


def nameplate_of(plates: dict[str, Any], asset_id: str) -> dict[str, Any]:
    """The nameplate of ``asset_id`` in an `assets` tool output ({} when absent)."""
    for x in plates.get("assets", []):
        if x.get("asset_id") == asset_id:
            return dict(x.get("nameplate") or {})
    return {}


def assets_call(site: str) -> ToolCall:
    """The `assets` call that lists a site's units with their nameplates."""
    return ToolCall(name="assets", args={"site_name": site})


# Every `{window}` phrasing of templates.yaml says the end day is excluded (and the action of
# the characteristic form writes [start, end)), so these readings are stated, not gated.
WINDOW_STATED = [END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED]
# Share of draws that look for a window holding the events the task is about (alerts,
# corrective work); the rest are uniform, so quiet windows still occur.
EVENT_SHARE = 0.7


def data_days(a: GroundedAsset) -> tuple[date, date] | None:
    """First and last day spanned by the asset's telemetry and oil samples."""
    starts = [r.start for r in a.coverage.values() if r.start]
    ends = [r.end for r in a.coverage.values() if r.end]
    if not starts or not ends:
        return None
    return day(min(starts)), day(max(ends))


def wo_window(
    a: GroundedAsset, rng: np.random.Generator, min_days: int = 7, around: date | None = None
) -> tuple[str, str] | None:
    """A window [start, end) of whole days in the asset's data span, holding ``around``."""
    span = data_days(a)
    if span is None:
        return None
    first, last = span
    total = (last - first).days + 1
    if total < min_days:
        return None
    length = int(rng.integers(min_days, total + 1))
    lo, hi = 0, total - length
    if around is not None:
        k = (around - first).days
        lo, hi = max(lo, k - length + 1), min(hi, k)
        if lo > hi:
            return None
    offset = int(rng.integers(lo, hi + 1))
    start = first + timedelta(days=offset)
    return iso_day(start), iso_day(start + timedelta(days=length))


def asset_with_work_orders(ctx: FamilyContext, rng: np.random.Generator) -> GroundedAsset | None:
    """A random asset that has work orders."""
    usable = [a for a in ctx.assets if a.work_orders > 0]
    return pick(rng, usable) if usable else None


def in_discharge_overlap(out: dict[str, Any]) -> bool:
    """True when the sample's ratios fit both the D1 and the D2 row of IEC 60599 Table 1.

    D1 is (C2H2/C2H4 > 1, CH4/H2 0.1 - 0.5, C2H4/C2H6 > 1) and D2 (0.6 - 2.5, 0.1 - 1, > 2): they
    overlap at C2H2/C2H4 in (1, 2.5], CH4/H2 in [0.1, 0.5], C2H4/C2H6 > 2. The tool reports D2
    there (the more severe row first); a reader of the table may say D1 and no text of ours
    says which, so generated cases stay out of it (shared/domain/transformer-standards.md).
    A divergent ratio (null) is above every threshold.
    """
    ratios = out["iec_ratio_method"]["ratios"]

    def value(name: str) -> float:
        v = ratios.get(name)
        return float("inf") if v is None else float(v)

    c2h2_c2h4, ch4_h2, c2h4_c2h6 = value("c2h2_c2h4"), value("ch4_h2"), value("c2h4_c2h6")
    return 1.0 < c2h2_c2h4 <= 2.5 and 0.1 <= ch4_h2 <= 0.5 and c2h4_c2h6 > 2.0
