"""Family re-derivations on hand-made raw documents, verdicts worked by hand."""

from __future__ import annotations

from typing import Any

import assets.transformer.audit  # noqa: F401  (registers the re-derivations)
from eval.audit.core import AuditContext, Case
from eval.audit.raw import Doc, RawStore
from eval.audit.run import audit_case, build_report, render


class FakeRaw(RawStore):
    """Raw documents held in memory instead of read over HTTP."""

    def __init__(self, plates: list[Doc], oil: dict[str, list[Doc]] | None = None,
                 work: list[Doc] | None = None) -> None:
        self._plates, self._oil, self._work = plates, oil or {}, work or []

    def nameplates(self) -> list[Doc]:
        return self._plates

    def oil(self, asset_id: str) -> list[Doc]:
        return self._oil.get(asset_id, [])

    def telemetry(self, asset_id: str) -> list[Doc]:
        return []

    def work_db(self, dataset: str) -> list[Doc]:
        return [d for d in self._work if d.get("dataset") == dataset]

    def truth(self, asset_id: str) -> Doc | None:
        return None


PLATE = {"asset_id": "U1", "site_name": "S", "rated_mva": 25.0, "paper": "upgraded",
         "oti_alarm": 90.0, "oti_trip": 100.0, "wti_alarm": 110.0, "wti_trip": 130.0}


def case(family: str, text: str, params: dict[str, Any], answer: dict[str, Any],
         tolerance: dict[str, float] | None = None) -> Case:
    return Case(id="x", family=family, text=text, params=params, grounding={}, answer=answer,
                tolerance=tolerance or {}, rel_tolerance={})


def test_kraft_reference_on_an_upgraded_nameplate_depends_on_the_reading() -> None:
    # WTI 104, OTI 80. Kraft: V = 2^((104 − 98)/6) = 2, 98 < 104 ≤ 120 → accelerated ageing,
    # risk medium. Upgraded (the nameplate): V = exp(15000/383 − 15000/377) = exp(−0.62331)
    # = 0.5362, 104 ≤ 110 → normal, risk low. A Kraft reference is one reading's answer.
    ctx = AuditContext(raw=FakeRaw([PLATE]), failure_modes=[])
    kraft = {"thermal_status": "accelerated ageing", "risk_level": "medium",
             "relative_ageing_rate": 2.0}
    params = {"asset_id": "U1", "stored": False, "wti": 104, "oti": 80, "ati": 30}
    text = "Transformer U1 shows winding 104 °C, top oil 80 °C, ambient 30 °C."
    got = audit_case(ctx, case("fmsr_winding_assessment", text, params, kraft,
                               {"relative_ageing_rate": 0.01}))
    assert got.verdict == "reading_dependent"
    assert got.disagreeing[0].answer is not None
    assert abs(got.disagreeing[0].answer["relative_ageing_rate"] - 0.5362) < 1e-3
    # A text that states the paper pins the reading: the Kraft reference is then wrong.
    pinned = text + " It has thermally upgraded paper."
    got = audit_case(ctx, case("fmsr_winding_assessment", pinned, params, kraft,
                               {"relative_ageing_rate": 0.01}))
    assert got.verdict == "mismatch"


def test_t1_without_methane_over_hydrogen_is_a_mismatch() -> None:
    # H2 100, CH4 50, C2H6 100, C2H4 20, C2H2 0: C2H6 100 > 90 (IEC typical) and > 65 (IEEE
    # condition 2) → significant. IEC: CH4/H2 = 0.5 → not T1 (needs > 1), not PD → ND.
    # Duval: 50/70 = 71.4 %, 20/70 = 28.6 %, 0 % → T2. Rogers: 0 0 0 → NF → normal.
    # No reading gives T1.
    ctx = AuditContext(raw=FakeRaw([PLATE]), failure_modes=[])
    gases = {"hydrogen": 100, "methane": 50, "ethane": 100, "ethylene": 20, "acetylene": 0}
    got = audit_case(ctx, case("fmsr_dga_given", "U1 reads ...", {"gases": gases,
                                                                  "with_details": False},
                               {"fault_type": "T1"}))
    assert got.verdict == "mismatch"
    answers = {d.answer["fault_type"] for d in got.disagreeing if d.answer}
    assert answers == {"ND", "T2", "normal"}


def test_a_stated_diagnosis_without_a_sample_is_a_false_premise() -> None:
    codes = [{"dataset": "failure_codes", "code": "TH-T1", "fault_type": "T1"}]
    ctx = AuditContext(raw=FakeRaw([PLATE], oil={"U1": []}, work=codes), failure_modes=[])
    answer = {"failure_code": "TH-T1", "already_raised": False, "work_orders": [],
              "decision": "raise a corrective work order (TH-T1)"}
    got = audit_case(ctx, case("wo_decision_after_diagnosis",
                               "A DGA of U1 on 2026-06-10 indicated T1.",
                               {"asset_id": "U1", "fault": "T1", "start": "2026-06-10"}, answer))
    assert got.verdict == "match" and got.premise_false
    assert "no oil sample" in got.premises[0]


def test_false_premise_family_names_the_samples_around_a_day_without_one() -> None:
    # Samples on 3 and 10 June; the text claims D2 on 6 June: no sample that day, the answer
    # names the samples before (3 June) and after (10 June); the premise is flagged false but
    # belongs to the false-premise family.
    oil = {"U1": [
        {"timestamp": "2026-06-03T09:00:00", "hydrogen": 10, "methane": 5, "ethane": 5,
         "ethylene": 2, "acetylene": 0},
        {"timestamp": "2026-06-10T09:00:00", "hydrogen": 10, "methane": 5, "ethane": 5,
         "ethylene": 2, "acetylene": 0},
    ]}
    ctx = AuditContext(raw=FakeRaw([PLATE], oil=oil), failure_modes=[])
    answer = {"premise_holds": False, "claimed_fault": "D2", "sample_on_date": False,
              "previous_sample": "2026-06-03T09:00:00", "next_sample": "2026-06-10T09:00:00"}
    got = audit_case(ctx, case("fmsr_false_premise", "U1 showed arcing on 2026-06-06 ...",
                               {"asset_id": "U1", "claimed_fault": "D2",
                                "claim_date": "2026-06-06"}, answer))
    assert got.verdict == "match" and got.premise_false


class TruthRaw(FakeRaw):
    """FakeRaw with an injected-fault record for U1."""

    def truth(self, asset_id: str) -> Doc | None:
        return {"asset_id": "U1", "fault_type": "T2", "onset": "2025-01-01T00:00:00"}


def test_a_stored_dga_reference_is_cross_checked_against_duval_and_the_truth() -> None:
    # Sample of 2025-02-01 (after the T2 onset): H2 50, CH4 200, C2H6 50, C2H4 300, C2H2 2.
    # Duval: CH4 + C2H4 + C2H2 = 502; %C2H4 = 300/502 = 59.8 (≥ 50), %C2H2 = 0.4 (< 15) → T3.
    sample = {"asset_id": "U1", "timestamp": "2025-02-01T00:00:00", "hydrogen": 50,
              "methane": 200, "ethane": 50, "ethylene": 300, "acetylene": 2}
    ctx = AuditContext(raw=TruthRaw([PLATE], oil={"U1": [sample]}), failure_modes=[])
    params = {"asset_id": "U1", "which": "latest", "with_details": False}
    wrong = audit_case(ctx, case("fmsr_dga_stored", "U1's latest sample", params,
                                 {"fault_type": "T1"}))
    assert wrong.truth_check is not None
    assert (wrong.truth_check.method, wrong.truth_check.method_class,
            wrong.truth_check.truth) == ("Duval triangle 1", "T3", "T2")
    # T1 is neither Duval's T3 nor the injected T2
    assert wrong.truth_check.both_contradict
    right = audit_case(ctx, case("fmsr_dga_stored", "U1's latest sample", params,
                                 {"fault_type": "T3"}))
    assert right.truth_check is not None and not right.truth_check.both_contradict
    report = build_report("run", [wrong, right])
    assert (report.truth_checked, report.truth_both_contradict) == (2, 1)
    assert "both Duval triangle 1 and the injected truth: 1 of 2" in render(report)


def test_next_prediction_as_of_named_in_words_pins_the_day_out() -> None:
    # U1's orders: 07-01 A, 07-02 B, 07-03 A, 07-08 B; codes A, B. Before 8 July: sequence
    # A B A, last A, own A→B once, the fleet (U1 alone) the same: P(B|A) = (1 + (1 + 1)/(1 + 2))
    # / (1 + 1) = 0.8333, P(A|A) = (0 + 1/3) / 2 = 0.1667 → B. With 8 July: last B, P(A|B) =
    # 0.8333 → A. "before July 8, 2026 (not on that day)" pins the first (an audit bug found on
    # an n = 300 run: only "before 2026-07-08" in ISO was read as pinned).
    codes = [{"dataset": "failure_codes", "code": c, "fault_type": None} for c in ("A", "B")]
    orders = [{"dataset": "wo_events", "wo_id": f"W{i}", "equipment_id": "U1",
               "wo_type": "corrective", "primary_code": c,
               "reported_date": f"2026-07-0{d}T08:00:00"}
              for i, (d, c) in enumerate(((1, "A"), (2, "B"), (3, "A"), (8, "B")))]
    ctx = AuditContext(raw=FakeRaw([PLATE], work=codes + orders), failure_modes=[])
    answer = {"last_code": "A", "predicted_code": "B", "probability": 5 / 6}
    params = {"asset_id": "U1", "as_of": "2026-07-08"}
    for text in ("Next code of U1 from orders reported before July 8, 2026 (not on that day), "
                 "with the fleet-wide pattern filling the gaps?",
                 "As the record stood before 8 Jul 2026, that day excluded, which code is next on "
                 "U1, with the fleet-wide pattern filling the gaps?"):
        got = audit_case(ctx, case("wo_next_prediction", text, params, answer))
        assert got.verdict == "match", (text, got.disagreeing)
    loose = "Next code of U1 as of July 8, 2026, with the fleet-wide pattern filling the gaps?"
    got = audit_case(ctx, case("wo_next_prediction", loose, params, answer))
    assert got.verdict == "reading_dependent"


def test_the_audit_reads_every_weekly_baseline_wording_as_weekly() -> None:
    # The weekday x hour baseline is said many ways ("the same hour of the week", "hour-of-week
    # norm", "day of week and hour of day", "same time of week"); each pins the weekly profile,
    # and an hour-of-day phrase alone pins the daily one.
    from assets.transformer.audit.common import anomaly_dims

    weekly = [
        "Normal = same hour of the week across the window and four weeks back.",
        "Hour-of-week norm from the window and the previous 4 weeks.",
        "Set normal by day of week and hour of day, over this span plus the four weeks before.",
        "Expected = same time of week, measured over the window and four weeks before.",
        "Usual level: the same weekday and hour over this window and the 4 weeks before.",
    ]
    params = {"asset_id": "U1", "end": "2026-07-05", "threshold": 3.5, "custom": False}
    for text in weekly:
        assert anomaly_dims(case("tsfm_anomalies", text, params, {}))["profile"] == [
            "weekly_history"], text
    daily = "Judge each hour against the median at that hour of day over the window."
    assert anomaly_dims(case("tsfm_anomalies", daily, params, {}))["profile"] == ["hour_of_day"]


def test_the_anomaly_note_and_each_of_its_wordings_pin_the_spread_to_the_whole_reference(
) -> None:
    # run_tsad takes the MAD of the residuals over the window and the 4 weeks before; a text
    # that only names the usual level leaves a reader free to take it over the window alone.
    from assets.transformer.audit.common import anomaly_dims
    from assets.transformer.families_tsfm import ANOMALY_NOTE
    from generator.generate.verbalise.verbalise_template import load_templates

    params = {"asset_id": "U1", "end": "2026-07-05", "threshold": 3.5, "custom": False}
    wordings = [ANOMALY_NOTE, *load_templates("transformer").equivalents[ANOMALY_NOTE]]
    for text in wordings:
        dims = anomaly_dims(case("tsfm_anomalies", text, params, {}))
        assert dims["profile"] == ["weekly_history"], text
        assert dims["spread"] == ["reference"], text
    bare = "Usual level: the same weekday and hour over this window and the 4 weeks before."
    assert anomaly_dims(case("tsfm_anomalies", bare, params, {}))["spread"] == [
        "reference", "window"]
