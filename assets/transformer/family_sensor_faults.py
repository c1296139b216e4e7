"""Windows where a sensor fault is declared on a transformer, kept out of figure draws.

A family that reports a figure read from an indicator (OTI, WTI) or an alarm contact keeps
out of its draws any window that holds a fault of that reading the ``data_quality`` tool
finds on the unit's whole telemetry (the scan :mod:`assets.transformer.families_quality`
makes, memoised once per unit): a stuck run (:data:`STUCK_MIN_RUN` or more identical
readings in a row) or a contact on below its setting (a chattering contact). The
data-quality families ask about these faults; every other family never turns a faulty
reading into its answer.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from assets.transformer.families_common import full_days, iso_day
from generator.api import FamilyContext, GroundedAsset, ToolCall

INDICATORS = ("oti", "wti")
# The tool's default run (6 hours): a healthy indicator's 0.1 °C reading does not repeat
# six hours running (in the fleets of seeds 42, 77 and 5 the only runs are the injected
# faults).
STUCK_MIN_RUN = 6


async def _scan(ctx: FamilyContext, a: GroundedAsset) -> dict[str, Any] | None:
    """The data_quality findings over the unit's whole telemetry (the call the quality
    families make, so the memo serves both), or None without both indicators."""
    if not set(INDICATORS) <= set(a.sensors) or not a.telemetry.start:
        return None
    first, _ = full_days(a)
    call = ToolCall(name="data_quality", args={
        "site_name": a.site_name, "asset_id": a.asset_id, "start": iso_day(first),
        "sensors": list(INDICATORS)})
    return (await ctx.run([call]))[0]


async def fault_windows(ctx: FamilyContext, a: GroundedAsset) -> list[tuple[str, str, str]]:
    """(first, last, reading) of every sensor fault the scan finds on ``a``: a stuck run of
    an indicator, or a contact on below its setting (the contact's flag)."""
    scan = await _scan(ctx, a)
    if scan is None:
        return []
    out = [(str(r["first"]), str(r["last"]), str(r["sensor"])) for r in scan["stuck"]
           if int(r["count"]) >= STUCK_MIN_RUN]
    out += [(str(c["timestamp"]), str(c["timestamp"]), str(c["flag"]))
            for c in scan["inconsistent"] if c["kind"] == "on_below_setting"]
    return out


def _instant(value: str, end: bool) -> str:
    """A window bound as an instant: a day's start, or (``end``) the day after it, so a
    reading that takes the whole end day in is covered too."""
    text = str(value)[:19]
    if len(text) == 10:
        d = date.fromisoformat(text) + (timedelta(days=1) if end else timedelta(0))
        return d.isoformat() + "T00:00:00"
    return datetime.fromisoformat(text).isoformat()


async def sensor_fault_free(
    ctx: FamilyContext, a: GroundedAsset, start: str, end: str | None, sensors: list[str]
) -> bool:
    """Whether [start, end] of ``a`` (days or instants; None = to the last record) holds no
    declared fault of any of ``sensors``."""
    lo = _instant(start, end=False)
    hi = "9999" if end is None else _instant(end, end=True)
    return not any(
        reading in sensors and first[:19] < hi and lo <= last[:19]
        for first, last, reading in await fault_windows(ctx, a)
    )
