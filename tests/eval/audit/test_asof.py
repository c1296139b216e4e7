"""The audit's as-of check on hand-made raw documents (issue 29)."""

from __future__ import annotations

from typing import Any

from eval.audit.asof import documents_after, stated_today
from eval.audit.core import AuditContext, Case
from eval.audit.raw import Doc, RawStore
from eval.audit.run import build_report


class FakeRaw(RawStore):
    """Work-order documents held in memory."""

    def __init__(self, work: list[Doc]) -> None:
        self._work = work

    def telemetry(self, asset_id: str) -> list[Doc]:
        return []

    def oil(self, asset_id: str) -> list[Doc]:
        return []

    def work_db(self, dataset: str) -> list[Doc]:
        return [d for d in self._work if d.get("dataset") == dataset]


WORK = [
    {"dataset": "wo_events", "wo_id": "WO-1", "equipment_id": "U", "wo_type": "corrective",
     "primary_code": "IC-SENS", "reported_date": "2026-06-03T02:00:00"},
    {"dataset": "wo_events", "wo_id": "WO-2", "equipment_id": "U", "wo_type": "corrective",
     "primary_code": "IC-SENS", "reported_date": "2026-06-12T08:00:00"},
    {"dataset": "wo_events", "wo_id": "WO-3", "equipment_id": "U", "wo_type": "preventive",
     "primary_code": "PM", "reported_date": "2026-06-20T08:00:00"},
]
TEXT = ("Was the winding indicator of U at S stuck over the past seven days, not counting "
        "today (today is 2026-06-11)? If so, is there an instrument work order since?")


def _case(text: str, args: dict[str, Any], answer: dict[str, Any],
          seed_as_of: str | None = None) -> Case:
    seed = {"tool_sequence": [{"name": "get_corrective_work_orders", "args": args}],
            "as_of": seed_as_of}
    return Case(id="x", family="ma_stuck_sensor_workorder", text=text, params={},
                grounding={}, answer=answer, tolerance={}, rel_tolerance={}, seed=seed)


def test_the_day_a_text_calls_today() -> None:
    assert str(stated_today(TEXT)) == "2026-06-11"
    assert str(stated_today("Taking 12 July 2026 as today: what ...")) == "2026-07-12"
    assert str(stated_today("Outage from 2026-07-20. Today: 2026-07-02.")) == "2026-07-02"
    # a "today" of its own states no day
    assert stated_today("I'm at the PLANT2 plant today. For the 2025-07-14T08:00:00 record")\
        is None


def test_a_reference_resting_on_an_order_after_today_is_flagged() -> None:
    # Today is 2026-06-11 (midnight). The corrective-orders call from 2026-06-04 with no end
    # reads WO-2 (2026-06-12 08:00): after today. WO-3 is preventive: not read by it. The
    # answer names WO-2 too. Bounded at 2026-06-11, the call reads only WO-1: clean.
    ctx = AuditContext(raw=FakeRaw(WORK), failure_modes=[])
    late = _case(TEXT, {"equipment_id": "U", "start_date": "2026-06-04"},
                 {"instrument_orders": ["WO-2"]})
    found = documents_after(ctx, late)
    assert found == [
        "get_corrective_work_orders reads work order WO-2 of 2026-06-12T08:00:00 "
        "(the text's today 2026-06-11)",
        "the answer names WO-2 of 2026-06-12T08:00:00 (the text's today 2026-06-11)",
    ]
    bounded = _case(TEXT, {"equipment_id": "U", "start_date": "2026-06-04",
                           "end_date": "2026-06-11"}, {"instrument_orders": []})
    assert documents_after(ctx, bounded) == []
    # Without a stated today, the seed's declared moment counts (here the hour's end).
    declared = _case("Diagnose U at its 2026-06-12T07:00:00 record.",
                     {"equipment_id": "U", "start_date": "2026-06-01"}, {},
                     seed_as_of="2026-06-12T08:00:00")
    assert [p.split(" (")[0] for p in documents_after(ctx, declared)] == [
        "get_corrective_work_orders reads work order WO-2 of 2026-06-12T08:00:00"]
    assert documents_after(ctx, _case("No date here.", {"equipment_id": "U"}, {})) == []


def test_the_report_counts_them_and_fails_the_run() -> None:
    from eval.audit.run import ScenarioAudit

    base = {"id": "x", "family": "f", "verdict": "match", "readings_tried": 1,
            "disagreeing": [], "unverified_keys": [], "premise_false": False, "premises": [],
            "truth_check": None}
    clean = ScenarioAudit(**base)
    late = ScenarioAudit(**base | {"id": "y"}, after_as_of=["WO-2 ..."])
    assert build_report("r", [clean]).exit_code == 0
    report = build_report("r", [clean, late])
    assert report.after_as_of == 1 and report.exit_code == 1


def test_an_alert_linked_to_an_order_after_today_is_flagged() -> None:
    # Window [2026-06-01, 2026-06-11), today 2026-06-11, N = 2 days. The alert of 06-10 20:00
    # is first followed by WO-2 (06-12 08:00, 36 h later, within 2 days): the tool links it
    # although it was reported after today. With N = 1 day nothing follows it.
    alert = {"dataset": "alert_events", "equipment_id": "U", "start_time": "2026-06-10T20:00:00"}
    ctx = AuditContext(raw=FakeRaw([*WORK, alert]), failure_modes=[])
    args = {"equipment_id": "U", "start_date": "2026-06-01", "end_date": "2026-06-11"}

    def linked(days: float) -> Case:
        seed = {"tool_sequence": [{"name": "analyze_alert_to_failure",
                                   "args": args | {"within_days": days}}]}
        return Case(id="x", family="f", text=TEXT, params={}, grounding={}, answer={},
                    tolerance={}, rel_tolerance={}, seed=seed)

    assert [p.split(" (")[0] for p in documents_after(ctx, linked(2.0))] == [
        "analyze_alert_to_failure links WO-2 of 2026-06-12T08:00:00 to an alert"]
    assert documents_after(ctx, linked(1.0)) == []
