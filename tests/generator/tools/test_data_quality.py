"""The generic data-quality tool on tiny hand-built records, answers worked out by hand."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from generator.assetdef import AssetClass, load_asset_class
from generator.tools.data_quality import DataQualityArgs, assess, record_gaps, stuck_runs

ASSET = load_asset_class("transformer")  # contacts: oti_a/oti 90, oti_t/oti 100, ...


def _rec(hour: int, **values: Any) -> dict[str, Any]:
    return {"timestamp": f"2026-06-01T{hour:02d}:00:00", **values}


# Twelve expected hours 00:00 .. 11:00 of 2026-06-01; 05:00 and 06:00 have no record.
#   hour  oti    wti    oti_a oti_t
#   00    50.0   60     0     0
#   01    50.0   61     1     0   contact on, 50 < 90: inconsistent, a spurious pick-up
#   02    50.0   62     0     0
#   03    50.0   63     0     0   -> oti 50.0 four times in a row (00..03)
#   04    51.0   64     0     0
#   07    101.0  67     1     0   oti_a on at 101 >= 90: genuine pick-up; oti_t off at
#                                  101 >= 100: inconsistent (off at or above the setting)
#   08    80.0   68     1     0   still on (no new pick-up), 80 < 90: inconsistent
#   09    80.0   None   0     0   wti null
#   10    80.0   --     0     0   wti absent -> wti missing 09..10 (2 records)
#   11    81.0   71     0     0   -> oti 80.0 three times in a row (08..10)
RECORDS = [
    _rec(0, oti=50.0, wti=60.0, oti_a=0, oti_t=0),
    _rec(1, oti=50.0, wti=61.0, oti_a=1, oti_t=0),
    _rec(2, oti=50.0, wti=62.0, oti_a=0, oti_t=0),
    _rec(3, oti=50.0, wti=63.0, oti_a=0, oti_t=0),
    _rec(4, oti=51.0, wti=64.0, oti_a=0, oti_t=0),
    _rec(7, oti=101.0, wti=67.0, oti_a=1, oti_t=0),
    _rec(8, oti=80.0, wti=68.0, oti_a=1, oti_t=0),
    _rec(9, oti=80.0, wti=None, oti_a=0, oti_t=0),
    _rec(10, oti=80.0, oti_a=0, oti_t=0),
    _rec(11, oti=81.0, wti=71.0, oti_a=0, oti_t=0),
]
SENSORS = ["oti", "wti", "oti_a", "oti_t"]


def _args(**kw: Any) -> DataQualityArgs:
    return DataQualityArgs(site_name="S", asset_id="U", start="2026-06-01",
                           final="2026-06-01T12:00", sensors=SENSORS, **kw)


def test_hand_built_window_gives_the_hand_counted_findings() -> None:
    out = assess(ASSET, RECORDS, _args(min_run=3), SENSORS).model_dump()
    assert out["expected"] == 12 and out["records"] == 10
    assert out["record_gaps"] == [{"sensor": None, "first": "2026-06-01T05:00:00",
                                   "last": "2026-06-01T06:00:00", "missing": 2}]
    # Flags (oti_a, oti_t) hold their state by design: never reported as stuck.
    assert [(r["sensor"], r["value"], r["first"][11:16], r["last"][11:16], r["count"])
            for r in out["stuck"]] == [("oti", 50.0, "00:00", "03:00", 4),
                                       ("oti", 80.0, "08:00", "10:00", 3)]
    assert out["sensor_gaps"] == [{"sensor": "wti", "first": "2026-06-01T09:00:00",
                                   "last": "2026-06-01T10:00:00", "missing": 2}]
    assert [(i["timestamp"][11:16], i["flag"], i["reading"], i["setting"], i["state"],
             i["kind"]) for i in out["inconsistent"]] == [
        ("01:00", "oti_a", 50.0, 90.0, 1, "on_below_setting"),
        ("07:00", "oti_t", 101.0, 100.0, 0, "off_at_or_above_setting"),
        ("08:00", "oti_a", 80.0, 90.0, 1, "on_below_setting"),
    ]
    assert [(p["timestamp"][11:16], p["flag"], p["reading"], p["genuine"])
            for p in out["pickups"]] == [("01:00", "oti_a", 50.0, False),
                                         ("07:00", "oti_a", 101.0, True)]


def test_a_run_needs_at_least_min_run_readings() -> None:
    # 50.0 repeats 4 times, 80.0 three times: min_run 4 keeps only the first run.
    runs = stuck_runs(RECORDS, "oti", 4)
    assert [(r.value, r.count) for r in runs] == [(50.0, 4)]
    assert stuck_runs(RECORDS, "oti", 5) == []


def test_a_missing_hour_does_not_break_a_run_but_is_a_gap() -> None:
    recs = [_rec(h, x=7.0) for h in (0, 1, 3, 4)]  # 02:00 missing; 7.0 four times
    runs = stuck_runs(recs, "x", 4)
    assert [(r.first[11:13], r.last[11:13], r.count) for r in runs] == [("00", "04", 4)]
    expected, gaps = record_gaps(recs, "2026-06-01T00:00:00", "2026-06-01T05:00:00")
    assert expected == 5 and [(g.first[11:13], g.missing) for g in gaps] == [("02", 1)]


def test_zero_runs_only_on_request_and_window_without_final_ends_at_the_last_record() -> None:
    recs = [_rec(h, load=0.0) for h in range(6)]  # a de-energised unit reads 0 for 6 h
    assert stuck_runs(recs, "load", 6) == []
    assert [r.count for r in stuck_runs(recs, "load", 6, include_zero=True)] == [6]
    # No final: expected hours run from 00:00 to the last record, 05:00 -> 6 hours.
    assert record_gaps(recs, "2026-06-01T00:00:00", None) == (6, [])
    # A start inside an hour counts from the next whole hour: 00:30 -> 01:00 .. 05:00.
    assert record_gaps(recs, "2026-06-01T00:30:00", None)[0] == 5


def test_contact_mapping_comes_from_the_class_definition() -> None:
    # Same records, a class without contacts: no contact findings at all, and the flags
    # are analog to it (no unit "flag" either) -- so oti_t's twelve zeros... are zeros.
    plain = AssetClass.model_validate(
        ASSET.model_dump() | {"contacts": [], "sensors": [
            s.model_dump() | ({"unit": "state"} if s.unit == "flag" else {})
            for s in ASSET.sensors]}
    )
    out = assess(plain, RECORDS, _args(min_run=3), SENSORS).model_dump()
    assert out["inconsistent"] == [] and out["pickups"] == []
    # oti_a now counts as analog: 0 at 02..04 is a run of 3 zeros, skipped as zeros;
    # 1 at 07..08 is two readings, under min_run.
    assert {r["sensor"] for r in out["stuck"]} == {"oti"}


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValidationError):
        _args(min_run=1)
    with pytest.raises(ValidationError):
        DataQualityArgs(site_name="S", asset_id="U", start="June")


def test_the_expected_hours_are_the_hourly_steps_before_the_end() -> None:
    from datetime import datetime

    from generator.tools.data_quality import _hours

    # 22:00, 23:00 and 00:00 are before 00:30 of the next day; 01:00 is not.
    assert _hours(datetime(2026, 2, 28, 22), datetime(2026, 3, 1, 0, 30)) == [
        "2026-02-28T22:00:00", "2026-02-28T23:00:00", "2026-03-01T00:00:00"]
    assert _hours(datetime(2026, 3, 1), datetime(2026, 3, 1)) == []
    assert _hours(datetime(2026, 3, 1, 1), datetime(2026, 3, 1)) == []
    # A three-digit year is written as strftime writes it (the loop, not numpy's text).
    first = datetime(999, 12, 31, 23)
    assert _hours(first, datetime(1000, 1, 1, 0, 1)) == [
        first.strftime("%Y-%m-%dT%H:%M:%S"), "1000-01-01T00:00:00"]


# The loops as first written (one pass over every record, stamps read for every record):
# the tool's faster forms must return exactly these.
def _plain_stuck(records: list[dict[str, Any]], sensor: str, min_run: int,
                 include_zero: bool) -> list[tuple[Any, ...]]:
    pairs = [(str(r["timestamp"]), r[sensor]) for r in records if r.get(sensor) is not None]
    out, i = [], 0
    while i < len(pairs):
        j = i
        while j + 1 < len(pairs) and pairs[j + 1][1] == pairs[i][1]:
            j += 1
        value = float(pairs[i][1])
        if j - i + 1 >= min_run and (include_zero or value != 0):
            out.append((sensor, value, pairs[i][0], pairs[j][0], j - i + 1))
        i = j + 1
    return out


def _plain_sensor_gaps(records: list[dict[str, Any]], sensor: str) -> list[tuple[Any, ...]]:
    gaps, run = [], []
    for r in records:
        if r.get(sensor) is not None:
            if run:
                gaps.append((sensor, run[0], run[-1], len(run)))
                run = []
        else:
            run.append(str(r["timestamp"]))
    if run:
        gaps.append((sensor, run[0], run[-1], len(run)))
    return gaps


def _plain_record_gaps(records: list[dict[str, Any]], start: str,
                      final: str | None) -> tuple[int, list[tuple[Any, ...]]]:
    from datetime import datetime, timedelta

    iso = "%Y-%m-%dT%H:%M:%S"
    stamps = {str(r["timestamp"]) for r in records}
    t = datetime.fromisoformat(start)
    if t != t.replace(minute=0, second=0):
        t = t.replace(minute=0, second=0) + timedelta(hours=1)
    if final is not None:
        end = datetime.fromisoformat(final)
    elif records:
        end = datetime.strptime(str(records[-1]["timestamp"]), iso) + timedelta(seconds=1)
    else:
        return 0, []
    expected, gaps, run = 0, [], []
    while t < end:
        ts = t.strftime(iso)
        expected += 1
        if ts in stamps:
            if run:
                gaps.append((run[0], run[-1], len(run)))
                run = []
        else:
            run.append(ts)
        t += timedelta(hours=1)
    if run:
        gaps.append((run[0], run[-1], len(run)))
    return expected, gaps


def _plain_contacts(records: list[dict[str, Any]], flag: str, sensor: str,
                    setting: float) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    issues, pickups, previous = [], [], None
    for r in records:
        raw = r.get(flag)
        if raw is None:
            continue
        state = int(raw)
        reading = r.get(sensor)
        value = None if reading is None else float(reading)
        ts = str(r["timestamp"])
        if state == 1 and previous != 1:
            pickups.append((ts, value, value is not None and value >= setting))
        previous = state
        if value is None:
            continue
        if state == 1 and value < setting:
            issues.append((ts, value, 1, "on_below_setting"))
        elif state == 0 and value >= setting:
            issues.append((ts, value, 0, "off_at_or_above_setting"))
    return issues, pickups


# Edge cases the fast forms skip over: a flag stored as float or bool, a state that is
# neither 0 nor 1 (it still ends an "on" stretch), readings stored as int, absent and null
# values, runs and gaps at both ends, a zero run, a reading exactly at the setting.
EDGE = [
    _rec(0, oti=0, wti=None, oti_a=1.0),  # on at the first record: a pick-up (0 < 90)
    _rec(1, oti=0.0, oti_a=True),  # still on; int 0 == float 0.0 continues the run
    _rec(2, oti=0, wti=5.0, oti_a=2),  # state 2: no check, but ends the "on" stretch
    _rec(3, oti=90, wti=5.0, oti_a=1),  # pick-up after state 2; 90 >= 90 genuine
    _rec(4, oti=90.0, wti=5.0, oti_a=0),  # off at the setting: inconsistent
    _rec(5, oti=None, wti=5.0, oti_a=0),  # no reading: nothing
    _rec(6, oti=90, wti=None),  # no flag: skipped by the contact check
    _rec(7, oti=90.0, oti_a=None),
    _rec(8, oti=89.5, oti_a=1),  # pick-up? previous flag state 0 (hour 5): yes, spurious
    _rec(9, wti=7.0, oti_a=1),  # on, no reading: no issue, no pick-up
]


@pytest.mark.parametrize("records", [RECORDS, EDGE, EDGE[::-1], []])
def test_fast_loops_return_what_the_plain_loops_return(records: list[dict[str, Any]]) -> None:
    from generator.tools.data_quality import contact_checks, sensor_gaps

    for sensor in ("oti", "wti", "oti_a", "absent"):
        for min_run in (2, 3, 6):
            for zero in (False, True):
                got = [(s.sensor, s.value, s.first, s.last, s.count)
                       for s in stuck_runs(records, sensor, min_run, zero)]
                assert got == _plain_stuck(records, sensor, min_run, zero)
        got_gaps = [(g.sensor, g.first, g.last, g.missing) for g in sensor_gaps(records, sensor)]
        assert got_gaps == _plain_sensor_gaps(records, sensor)
    for start, final in (("2026-06-01T00:00:00", None),
                         ("2026-05-31T22:30:00", "2026-06-01T12:00:00"),
                         ("2026-06-01T03:00:00", "2026-06-01T03:00:00")):
        expected, gaps = record_gaps(records, start, final)
        assert (expected, [(g.first, g.last, g.missing) for g in gaps]) == _plain_record_gaps(
            records, start, final)
    for setting in (90.0, 50.0, 0.0):
        issues, pickups = contact_checks(records, "oti_a", "oti", setting)
        assert (
            [(i.timestamp, i.reading, i.state, i.kind) for i in issues],
            [(p.timestamp, p.reading, p.genuine) for p in pickups],
        ) == _plain_contacts(records, "oti_a", "oti", setting)


def test_edge_window_by_hand() -> None:
    from generator.tools.data_quality import contact_checks, sensor_gaps

    # oti readings in order: 0, 0.0, 0, 90, 90.0, 90, 90.0, 89.5 (hours 0-4, 6-8):
    # runs 0 x3 (hours 0-2, zero: only with include_zero) and 90 x4 (hours 3-7).
    runs = stuck_runs(EDGE, "oti", 3, include_zero=True)
    assert [(r.value, r.first[11:13], r.last[11:13], r.count) for r in runs] == [
        (0.0, "00", "02", 3), (90.0, "03", "07", 4)]
    # wti lacking at hours 0-1 (null, absent), 6-8 (null, absent, absent).
    assert [(g.first[11:13], g.last[11:13], g.missing) for g in sensor_gaps(EDGE, "wti")] == [
        ("00", "01", 2), ("06", "08", 3)]
    issues, pickups = contact_checks(EDGE, "oti_a", "oti", 90.0)
    # pick-ups at 00 (0 < 90), 03 (90 >= 90, genuine), 08 (89.5 < 90)
    assert [(p.timestamp[11:13], p.genuine) for p in pickups] == [
        ("00", False), ("03", True), ("08", False)]
    # on below 90 at 00, 01, 08; off at 90.0 at 04
    assert [(i.timestamp[11:13], i.kind) for i in issues] == [
        ("00", "on_below_setting"), ("01", "on_below_setting"),
        ("04", "off_at_or_above_setting"), ("08", "on_below_setting")]
