"""Generic data-quality tool: stuck readings, missing records and contacts at odds with their
reading, in the hourly telemetry of any asset class.

``data_quality`` reads an asset's telemetry in a window ``[start, final)`` and reports:

* **stuck runs** -- ``min_run`` (default :data:`DEFAULT_MIN_RUN` = 6) or more consecutive
  readings of an analog sensor with exactly the same stored value (consecutive = the
  sensor's readings in time order; a missing hour does not break a run, a different value
  does). Flag sensors (unit ``flag`` or a declared contact's flag) are skipped: an on/off
  input holds its state for days by design. Runs of zeros are skipped unless
  ``include_zero`` (a de-energised asset reads zero volts and amperes for hours).
* **record gaps** -- the telemetry cadence is hourly, so every whole hour from the window
  start up to ``final`` (exclusive; without ``final``, up to the last record in the window)
  is expected; runs of consecutive expected hours without a record are gaps.
* **sensor gaps** -- runs of consecutive records that exist but lack the sensor (absent or
  null), per requested sensor.
* **contacts** -- for every flag sensor the class declares in its asset.yaml ``contacts``
  (flag, analog sensor, setting: the contact should read 1 exactly when the reading is at
  or above the setting) and that the request covers (the flag or its analog sensor among
  the requested sensors), each record carrying both: *inconsistent* when the flag is 1
  with the reading below the setting, or 0 with the reading at or above it; and each
  *pick-up* (the flag reads 1 at a record where the previous record of the window with the
  flag read 0, or at the window's first such record), *genuine* when the reading is at or
  above the setting then.

Everything is a count or a comparison of stored values; no threshold but the declared
settings and ``min_run``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Literal

import numpy as np
from pydantic import Field

from generator.assetdef import AssetClass
from generator.tools.data_common import (
    ISO,
    DataModel,
    Timestamp,
    check_asset,
    check_sensors,
    check_window,
)
from generator.tools.data_iot import plain_history
from generator.tools.registry import ToolContext, tool

DEFAULT_MIN_RUN = 6
"""Identical consecutive readings that make a stuck run unless the call says otherwise."""

CADENCE = timedelta(hours=1)


class DataQualityArgs(DataModel):
    """Arguments of `data_quality`."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site")
    start: Timestamp = Field(description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS])")
    final: Timestamp | None = Field(
        default=None,
        description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the last record",
    )
    sensors: list[str] | None = Field(
        default=None, description="Telemetry sensors to check; None = all of the asset's"
    )
    min_run: int = Field(
        default=DEFAULT_MIN_RUN, ge=2, le=10_000,
        description="A stuck run is this many or more consecutive identical readings",
    )
    include_zero: bool = Field(
        default=False,
        description="Also report runs of zeros (off by default: a de-energised asset reads 0)",
    )


class StuckRun(DataModel):
    """Consecutive identical readings of one sensor."""

    sensor: str = Field(description="The sensor")
    value: float = Field(description="The repeated reading")
    first: str = Field(description="Timestamp of the first reading of the run")
    last: str = Field(description="Timestamp of the last reading of the run")
    count: int = Field(description="Readings in the run")


class Gap(DataModel):
    """Consecutive expected hours without a record (or without the sensor)."""

    sensor: str | None = Field(description="The sensor; None = whole records missing")
    first: str = Field(description="First missing hour")
    last: str = Field(description="Last missing hour")
    missing: int = Field(description="Missing hours (or records lacking the sensor)")


class ContactIssue(DataModel):
    """A record whose contact state disagrees with its reading and setting."""

    timestamp: str = Field(description="Record time")
    flag: str = Field(description="The contact's flag sensor")
    sensor: str = Field(description="The analog sensor that drives it")
    reading: float = Field(description="The analog reading at that record")
    setting: float = Field(description="The contact's setting (on at or above)")
    state: int = Field(description="The flag's reading (0 or 1)")
    kind: Literal["on_below_setting", "off_at_or_above_setting"] = Field(
        description="On with the reading below the setting, or off at or above it"
    )


class Pickup(DataModel):
    """The contact turning on (0 → 1, or on at the window's first record)."""

    timestamp: str = Field(description="Record time")
    flag: str = Field(description="The contact's flag sensor")
    sensor: str = Field(description="The analog sensor that drives it")
    reading: float | None = Field(description="The analog reading then (None if missing)")
    setting: float = Field(description="The contact's setting")
    genuine: bool = Field(description="True when the reading is at or above the setting")


class DataQualityResult(DataModel):
    """Data-quality findings of an asset's telemetry in a window."""

    asset_id: str = Field(description="The asset")
    start: str = Field(description="Window start (inclusive)")
    final: str | None = Field(description="Window end (exclusive); None = to the last record")
    min_run: int = Field(description="Identical readings that make a stuck run")
    sensors: list[str] = Field(description="Sensors checked")
    expected: int = Field(description="Hourly records expected in the window")
    records: int = Field(description="Records found in the window")
    stuck: list[StuckRun] = Field(description="Stuck runs, by first timestamp then sensor")
    record_gaps: list[Gap] = Field(description="Runs of missing hourly records, in time order")
    sensor_gaps: list[Gap] = Field(
        description="Runs of records lacking a sensor, by first timestamp then sensor"
    )
    inconsistent: list[ContactIssue] = Field(
        description="Records whose contact disagrees with its reading, by time then flag"
    )
    pickups: list[Pickup] = Field(description="Contact pick-ups, by time then flag")


def _hour_ceil(ts: str) -> datetime:
    t = datetime.strptime(ts, ISO)
    return t if t == t.replace(minute=0, second=0) else (
        t.replace(minute=0, second=0) + CADENCE
    )


def _fmt(t: datetime) -> str:
    return t.strftime(ISO)


def _hours(first: datetime, end: datetime) -> list[str]:
    """``first``, ``first + 1 h``, ... before ``end``, as ``YYYY-MM-DDTHH:MM:SS`` (one
    datetime64 range; its text is ``strftime(ISO)``'s for four-digit years)."""
    if first >= end:
        return []
    if first.year < 1000 or end.year > 9999:
        out, t = [], first
        while t < end:
            out.append(_fmt(t))
            t += CADENCE
        return out
    grid = np.arange(np.datetime64(first, "s"), np.datetime64(end, "s"), np.timedelta64(1, "h"))
    texts: list[str] = grid.astype(str).tolist()
    return texts


def stuck_runs(
    records: list[dict[str, Any]], sensor: str, min_run: int, include_zero: bool = False
) -> list[StuckRun]:
    """Runs of ``min_run`` or more consecutive identical readings of ``sensor``.

    The sensor's readings (records where it is not null), in record order, are cut where the
    stored value changes; a piece of ``min_run`` or more is a run. Only the pieces long
    enough become :class:`StuckRun` (their stamps read as ``str``).
    """
    stamps = [r["timestamp"] for r in records if r.get(sensor) is not None]
    values = [v for r in records if (v := r.get(sensor)) is not None]
    out: list[StuckRun] = []
    n = len(values)
    i = 0
    while i < n:
        first = values[i]
        j = i + 1
        while j < n and values[j] == first:
            j += 1
        value = float(first)
        if j - i >= min_run and (include_zero or value != 0):
            out.append(StuckRun(sensor=sensor, value=value, first=str(stamps[i]),
                                last=str(stamps[j - 1]), count=j - i))
        i = j
    return out


def record_gaps(
    records: list[dict[str, Any]], start: str, final: str | None
) -> tuple[int, list[Gap]]:
    """(expected hourly records, runs of missing ones) over the window."""
    stamps = {str(r["timestamp"]) for r in records}
    if final is not None:
        end = datetime.strptime(final, ISO)
    elif records:
        end = datetime.strptime(str(records[-1]["timestamp"]), ISO) + timedelta(seconds=1)
    else:
        return 0, []
    hours = _hours(_hour_ceil(start), end)
    missing = [i for i, ts in enumerate(hours) if ts not in stamps]
    return len(hours), _runs(missing, hours.__getitem__, None)


def _runs(missing: list[int], stamp: Callable[[int], str], sensor: str | None) -> list[Gap]:
    """Gaps of the ``missing`` indices (ascending), cut where they stop being consecutive;
    ``stamp(i)`` is index ``i``'s timestamp (read only for a run's first and last)."""
    gaps: list[Gap] = []
    if not missing:
        return gaps
    lo = prev = missing[0]
    for i in missing[1:]:
        if i != prev + 1:
            gaps.append(Gap(sensor=sensor, first=stamp(lo), last=stamp(prev),
                            missing=prev - lo + 1))
            lo = i
        prev = i
    gaps.append(Gap(sensor=sensor, first=stamp(lo), last=stamp(prev), missing=prev - lo + 1))
    return gaps


def sensor_gaps(records: list[dict[str, Any]], sensor: str) -> list[Gap]:
    """Runs of consecutive records that lack ``sensor`` (absent or null).

    The indices of the records without it are found first and cut where they stop being
    consecutive; only a run's first and last records are read further.
    """
    missing = [i for i, r in enumerate(records) if r.get(sensor) is None]
    return _runs(missing, lambda i: str(records[i]["timestamp"]), sensor)


def contact_checks(
    records: list[dict[str, Any]], flag: str, sensor: str, setting: float
) -> tuple[list[ContactIssue], list[Pickup]]:
    """Records where the contact disagrees with the reading, and the contact's pick-ups.

    Per record carrying the flag, in order: state 1 after a record whose state was not 1
    (or first) is a pick-up; with a reading, state 1 below the setting or state 0 at or
    above it is an issue. Stamps are read only for the records reported.
    """
    issues: list[ContactIssue] = []
    pickups: list[Pickup] = []
    previous: int | None = None
    for r in records:
        raw = r.get(flag)
        if raw is None:
            continue
        state = raw if type(raw) is int else int(raw)
        if state == 1:
            reading = r.get(sensor)
            value = None if reading is None else float(reading)
            if previous != 1:
                pickups.append(Pickup(timestamp=str(r["timestamp"]), flag=flag, sensor=sensor,
                                      reading=value, setting=setting,
                                      genuine=value is not None and value >= setting))
            if value is not None and value < setting:
                issues.append(ContactIssue(timestamp=str(r["timestamp"]), flag=flag,
                                           sensor=sensor, reading=value, setting=setting,
                                           state=1, kind="on_below_setting"))
        elif state == 0:
            reading = r.get(sensor)
            if reading is not None and (value := float(reading)) >= setting:
                issues.append(ContactIssue(timestamp=str(r["timestamp"]), flag=flag,
                                           sensor=sensor, reading=value, setting=setting,
                                           state=0, kind="off_at_or_above_setting"))
        previous = state
    return issues, pickups


def _is_flag(asset: AssetClass, name: str) -> bool:
    if asset.contact(name) is not None:
        return True
    known = {s.name: s for s in asset.sensors}
    return name in known and known[name].unit == "flag"


def assess(
    asset: AssetClass,
    records: list[dict[str, Any]],
    args: DataQualityArgs,
    sensors: list[str],
) -> DataQualityResult:
    """The findings over ``records`` (the window's telemetry, in time order)."""
    expected, gaps = record_gaps(records, args.start, args.final)
    stuck: list[StuckRun] = []
    holes: list[Gap] = []
    for s in sensors:
        if not _is_flag(asset, s):
            stuck += stuck_runs(records, s, args.min_run, args.include_zero)
        holes += sensor_gaps(records, s)
    issues: list[ContactIssue] = []
    pickups: list[Pickup] = []
    wanted = set(sensors)
    for c in asset.contacts:
        if c.flag in wanted or c.sensor in wanted:
            i, p = contact_checks(records, c.flag, c.sensor, c.setting)
            issues += i
            pickups += p
    return DataQualityResult(
        asset_id=args.asset_id, start=args.start, final=args.final, min_run=args.min_run,
        sensors=sensors, expected=expected, records=len(records),
        stuck=sorted(stuck, key=lambda x: (x.first, x.sensor)),
        record_gaps=gaps,
        sensor_gaps=sorted(holes, key=lambda x: (x.first, x.sensor or "")),
        inconsistent=sorted(issues, key=lambda x: (x.timestamp, x.flag)),
        pickups=sorted(pickups, key=lambda x: (x.timestamp, x.flag)),
    )


@tool("data_quality", domain="iot", args=DataQualityArgs, result=DataQualityResult)
async def data_quality(args: DataQualityArgs, ctx: ToolContext) -> DataQualityResult:
    """Check the hourly telemetry of a {asset} in the window [start, final) for stuck
    readings (a value repeated min_run or more times in a row), missing hourly records or
    readings, and alarm or trip contacts at odds with their reading and setting.
    """
    check_window(args.start, args.final)
    await check_asset(ctx, args.site_name, args.asset_id)
    known = await ctx.store.sensors(args.asset_id)
    if args.sensors is not None:
        await check_sensors(ctx, args.asset_id, args.sensors)
        sensors = list(dict.fromkeys(args.sensors))
    else:
        sensors = list(known)
    # Contacts need their flag and reading, even when the request names only one of them.
    fetch = set(sensors)
    for c in ctx.asset.contacts:
        if c.flag in fetch or c.sensor in fetch:
            fetch |= {c.flag, c.sensor} & set(known)
    # assess reads only the timestamp and keys in ``fetch`` and never writes a row, so on a
    # snapshot it may read the stored rows themselves: for a key in ``fetch`` a stored row
    # holds what the projected copy holds. A contact half outside ``known`` is read too
    # (as missing in the projection), so that case takes the projected copies.
    read_only = getattr(ctx.store, "history_rows", None)
    complete = all(
        {c.flag, c.sensor} <= fetch
        for c in ctx.asset.contacts if c.flag in fetch or c.sensor in fetch
    )
    if read_only is not None and complete:
        rows: list[dict[str, Any]] = read_only(args.asset_id, args.start, args.final)
    else:
        rows = await plain_history(ctx, args.asset_id, args.start, args.final, sorted(fetch))
    return assess(ctx.asset, rows, args, sensors)
