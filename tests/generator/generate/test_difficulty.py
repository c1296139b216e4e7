"""Difficulty from the work: features, score, levels, calibration (scores worked by hand)."""

from __future__ import annotations

from typing import Any

from eval.difficulty_fit import calibrate, fit_cuts
from eval.model import DryRunReport, DryRunResult, GradeResult
from generator.generate.draw.difficulty import (
    CUTS,
    CUTS_BY_DOMAIN,
    cuts_for,
    cuts_from_scores,
    difficulty_features,
    difficulty_report,
    difficulty_score,
    level,
    level_shares,
    scored,
)
from generator.generate.model import ReadingCheck, TaskSeed, ToolCall

DOMAINS = {"history": "iot", "assets": "iot", "oil_samples": "iot", "interpret_dga": "fmsr",
           "get_corrective_work_orders": "wo", "run_tsad": "tsfm",
           "get_failure_mode_sensor_mapping": "fmsr"}


def seed(calls: list[tuple[str, dict[str, Any]]], answer: dict[str, Any], **kw: Any) -> TaskSeed:
    return TaskSeed(
        family="f", domain=kw.pop("domain", "iot"), category="Data Query", role="operator",
        draw=0, params={}, mentions=[],
        tool_sequence=[ToolCall(name=n, args=a) for n, a in calls],
        answer=answer, answer_summary="", difficulty=kw.pop("difficulty", "hard"), **kw,
    )


def test_one_lookup_is_easy_whatever_the_family_declared() -> None:
    # one history call; both answer fields are read off the output:
    # outputs 1 × 0.25 = 0.25, no steps -> 0.25 < 1.25 (iot's first cut) -> easy
    s = seed([("history", {"asset_id": "T1"})], {"value": 61.5, "timestamp": "2024-01-01"})
    out = [{"readings": [{"timestamp": "2024-01-01", "value": 61.5}]}]
    got = scored(s, out, DOMAINS)
    assert got.difficulty_features["steps"] == 0
    assert got.difficulty_score == 0.25
    assert (got.difficulty, got.declared_difficulty) == ("easy", "hard")


def test_a_computed_field_is_a_step_a_copied_one_is_not() -> None:
    # 'count' 3 is in no output (the derive counted) -> a step; 'max' 70.0 is read off
    out = [{"readings": [{"value": 61.5}, {"value": 70.0}, {"value": 65.0}]}]
    s = seed([("history", {"asset_id": "T1"})], {"count": 3, "max": 70.0})
    assert difficulty_features(s, DOMAINS, out)["steps"] == 1
    # a yes/no is always a judgement, even when an output holds a flag
    s = seed([("history", {"asset_id": "T1"})], {"exceeded": True})
    assert difficulty_features(s, DOMAINS, [{"alarm": True}])["steps"] == 1


def test_static_mapping_intersection_is_not_hard() -> None:
    # the example: a set intersection over the failure-mode mapping (one call,
    # one list field). With the outputs: both modes are listed in the mapping's output,
    # so the field is read off it -> no step, score 0 -> easy. Without the outputs a list
    # of two items counts as an aggregate -> 1 step, score 1.0 < fmsr's first cut 2.0 ->
    # still easy; on the default scale (1.0, 2.5) it would be medium, never hard.
    s = seed([("get_failure_mode_sensor_mapping", {})], {"failure_modes": ["a", "b"]},
             domain="fmsr")
    out = [{"mapping": {"s1": ["a", "b"], "s2": ["b"]}}]
    assert scored(s, out, DOMAINS).difficulty == "easy"
    assert difficulty_score(difficulty_features(s, DOMAINS)) == 1.0
    assert scored(s, None, DOMAINS).difficulty == "easy"
    assert level(1.0) == "medium"


def test_chain_over_domains_with_a_constraint_is_hard() -> None:
    # run_tsad (tsfm) then corrective work orders (wo), composed from a parent, with a
    # stated threshold. Outputs: 2 anomalies, one work order.
    out = [
        {"anomalies": [{"timestamp": "2024-01-02T03:00"}, {"timestamp": "2024-01-05T01:00"}]},
        {"work_orders": [{"wo_id": "WO-1", "reported_date": "2024-01-06"}]},
    ]
    s = seed(
        [("run_tsad", {"asset_id": "T1"}), ("get_corrective_work_orders", {"equipment_id": "T1"})],
        {"anomalies": 2, "first_anomaly": "2024-01-02T03:00",
         "corrective_work_orders": ["WO-1"], "followed_by_corrective": True},
        domain="multiagent", parents=["p#0"], constraint="more than 3.5 robust sd",
    )
    f = difficulty_features(s, DOMAINS, out)
    # extra_tools 1, cross_domain 1 (tsfm, wo), chained 1, outputs 3; steps: anomalies=2
    # (no output holds 2) and the yes/no -> 2; constraints 1
    assert f == {"extra_tools": 1, "repeat_calls": 0, "cross_domain": 1, "chained": 1,
                 "outputs": 3, "steps": 2, "distractors": 0, "constraints": 1,
                 "pinned_readings": 0}
    # 0.75 + 0.75 + 0.5 + 3 × 0.25 + 2 × 1.0 + 1.0 = 5.75
    assert difficulty_score(f) == 5.75
    assert level(5.75) == "hard"  # on the default scale
    # among the multi-agent chains, whose least work already spans two domains, it is easy:
    # 5.75 < 6.25 (the domain's first cut); a third domain or a decision makes it harder
    assert level(5.75, cuts_for("multiagent")) == "easy"
    assert level(5.75 + 0.75, cuts_for("multiagent")) == "medium"  # 6.25 <= 6.5 < 7.0


def test_site_scan_counts_repeats_and_distractors() -> None:
    # four history calls over four units, the answer names one: repeats 3, distractors 3;
    # a reading the text pins is counted apart from a constraint
    calls = [("history", {"asset_id": f"T{i}"}) for i in range(4)]
    s = seed(calls, {"assets_above": ["T2"]},
             readings=[ReadingCheck(name="r", description="d", outcome="stated")])
    f = difficulty_features(s, DOMAINS, [{"v": 1}] * 4)
    assert (f["repeat_calls"], f["distractors"], f["constraints"], f["pinned_readings"]) == (
        3, 3, 0, 1)
    # 3 × 0.25 + steps 1 ('["T2"]' is in no output) + 3 × 0.5 + 1 × 0.25 = 3.5
    assert difficulty_score(f) == 3.5


def test_caps_and_cut_points() -> None:
    f = {"repeat_calls": 40, "steps": 9, "distractors": 9, "constraints": 5,
         "pinned_readings": 7}
    # caps 4, 3, 4, 1, 2: 4 × 0.25 + 3 × 1.0 + 4 × 0.5 + 1 × 1.0 + 2 × 0.25 = 7.5
    assert difficulty_score(f) == 7.5
    lo, hi = CUTS
    assert cuts_for("no-such-domain") == CUTS
    assert [level(lo - 0.01), level(lo), level(hi - 0.01), level(hi)] == [
        "easy", "medium", "medium", "hard"]


def test_report_counts_levels_per_domain_and_declared() -> None:
    a = scored(seed([("history", {})], {"v": 1}), [{"v": 1}], DOMAINS)
    rep = difficulty_report([a, a])
    assert rep["per_domain"] == {"iot": {"easy": 2, "medium": 0, "hard": 0}}
    assert rep["declared_levels"] == {"hard": 2}


def _result(i: int, difficulty: str, passed: bool) -> DryRunResult:
    grade = GradeResult(id=str(i), domain="iot", difficulty=difficulty, negative=False,
                        feasible=passed, score=1.0 if passed else 0.0)
    return DryRunResult(id=str(i), agent="a", domain="iot", difficulty=difficulty, grade=grade,
                        failure_class=None if passed else "wrong_answer", final_answer=None,
                        expected_tools=[], tools_called=[], tool_errors=0, steps=[], tokens=0,
                        latency_s=0.0)


def test_fit_cuts_finds_the_steps_in_pass_rate() -> None:
    # scores 0..5 (6 attempts each): all pass below 2, half pass in [2, 4), none from 4
    data = [(float(s), s < 2 or (s < 4 and k % 2 == 0)) for s in range(6) for k in range(6)]
    assert fit_cuts(data) == (2.0, 4.0)
    assert fit_cuts(data[:5]) is None  # too few attempts for three levels


def test_calibrate_joins_by_id() -> None:
    records = [{"id": str(i), "provenance": {"difficulty_score": float(i % 6)}}
               for i in range(36)]
    results = [_result(i, level(float(i % 6)), i % 6 < 2) for i in range(36)]
    report = DryRunReport(agent="a", scenarios=36, mean_score=0.0, pass_rate=0.0,
                          failure_classes={}, tokens=0, seconds=0.0, results=results)
    cal = calibrate(report, records)
    assert cal.attempts == 36 and cal.unscored == 0
    rates = {b.group: b.pass_rate for b in cal.by_score}
    assert rates["[0, 1)"] == 1.0 and rates["[5, 6)"] == 0.0
    # one step (all pass below 2, none from 2): every pair with a cut at 2 fits exactly;
    # ties go to the lower cuts -> (1, 2)
    assert cal.cuts_fitted == {"all": (1.0, 2.0), "iot": (1.0, 2.0)}


def test_cuts_from_scores_come_closest_to_thirds() -> None:
    # 12 draws: 0 ×3, 0.5, 1.25 ×4, 2.5 ×3, 4.0. Candidate pairs (c1 < c2, c2 > 1.0, every
    # level >= 15 % = 1.8 draws):
    #   (0.5, 2.5): easy 3, medium 5, hard 4 -> err (3-4)² + (5-4)² + 0 = 2 (in 1/144 units)
    #   (1.25, 2.5): easy 4, medium 4, hard 4 -> err 0   <- best
    #   (0.5, 1.25): medium 1 < 1.8 -> out; (·, 4.0): hard 1 -> out; (2.5, 4.0) likewise.
    scores = [0.0] * 3 + [0.5] + [1.25] * 4 + [2.5] * 3 + [4.0]
    assert cuts_from_scores(scores) == (1.25, 2.5)
    assert level_shares(scores, (1.25, 2.5)) == {"easy": 0.333, "medium": 0.333,
                                                 "hard": 0.333}


def test_cuts_from_scores_keep_a_single_lookup_out_of_hard() -> None:
    # Only single calls read back (scores up to 4 × 0.25 = 1.0): no second cut above 1.0
    # exists, so the rule leaves the domain unfitted rather than call a lookup hard.
    assert cuts_from_scores([0.25] * 4 + [0.5] * 4 + [1.0] * 4) is None
    # Degenerate distributions (one level would hold < 15 %) are refused as well.
    assert cuts_from_scores([0.0] * 19 + [3.0]) is None


def test_every_domain_cut_leaves_three_levels() -> None:
    # The fitted cuts are ordered and each domain's first cut is above 0 (a task with no
    # work beyond one read-back value is easy) and its second above a single call's 1.0.
    for domain, (c1, c2) in CUTS_BY_DOMAIN.items():
        assert 0 < c1 < c2 and c2 > 1.0, domain


def test_present_finds_what_the_full_leaf_set_finds() -> None:
    # _present is the fast form of ``wanted & _leaves(outputs)``; the values are chosen at
    # the edges of the canonical form: 1 vs 1.0 vs "1" vs True, -0.0 vs 0.0, a float equal
    # only after rounding to 6 places, nan, None, a nested string, a tuple (a leaf).
    from generator.generate.draw.difficulty import _leaves, _present

    outputs = [
        {"a": 1, "b": 2.0000001, "c": "1", "d": [True, None, {"e": -0.0}]},
        {"rows": [{"x": float("nan"), "y": "NORTH-TX01", "z": (1, 2)}]},
        [3.5, "3.5", 7],
        {"only_floats": [1e-9, -1e-9, 0.25, 2.0000004], "rows": [{"t": "x", "v": 9.5}] * 3},
        # half-way cases of rounding to 6 places, far from zero, infinite, rounding to -0.0
        [2.0000005, 2.0000015, 123456789.1234565, 1e300, float("inf"), -1e-7, 4.9999e-7],
    ]
    candidates: list[object] = [
        1, 1.0, "1", True, False, None, 2.0, 0.0, -0.0, float("nan"), "NORTH-TX01",
        "north", 3.5, "3.5", 7, 7.0, 8, (1, 2), [1, 2], "a", 0.25, 9.5, "x", 1e-9,
        2.000001, 2.000002, 123456789.123456, 123456789.123457, 1e300, float("inf"), 5e-7,
    ]
    every = _leaves(outputs, set())
    for i in range(len(candidates)):
        for j in range(i, len(candidates)):
            wanted = _leaves([candidates[i], candidates[j]], set())
            # twice: the second time the outputs' leaves come from the index kept by identity
            for _ in range(2):
                assert _present(outputs, wanted) == wanted & every, (candidates[i], candidates[j])
    assert _present(outputs, set()) == set()
    assert _present(outputs, _leaves(candidates, set())) == _leaves(candidates, set()) & every
