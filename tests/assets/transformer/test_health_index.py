"""Golden and property tests of the health index (project table after Jahromi et al. 2009).

Hand scoring: DGAF = Σ S·W / Σ W with weights H2 2, CH4 3, C2H6 3, C2H4 3, C2H2 5, CO 1,
CO2 1 (Σ W = 18); OQF weights BDV 3, IFT 2, water 4, PF 3 (Σ W = 12; + acidity 1, colour 2);
rating A < 1.2 ≤ B < 1.5 ≤ C < 2 ≤ D < 3 ≤ E → HIF 4, 3, 2, 1, 0;
HI = 100·(10·HIF_dga + 6·HIF_oil)/(4·16) = 100·(10·HIF_dga + 6·HIF_oil)/64.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from assets.transformer.health_index import (
    FEATURES,
    META_PATH,
    MODEL_PATH,
    MODEL_VERSION,
    TRAIN_COMMAND,
    HealthIndexError,
    _rule_hi_array,
    condition_band,
    factor_rating,
    gas_score,
    load_model,
    oil_score,
    predict_health_index,
    sample_inputs,
    score_health_index,
    train_model,
)

HEALTHY: dict[str, float] = {
    "hydrogen": 20,  # ≤ 100 → 1
    "oxygen": 15000,
    "nitrogen": 50000,
    "methane": 10,  # ≤ 75 → 1
    "co": 200,  # ≤ 350 → 1
    "co2": 1500,  # ≤ 2500 → 1
    "ethylene": 5,  # ≤ 50 → 1
    "ethane": 5,  # ≤ 65 → 1
    "acetylene": 0,  # ≤ 3 → 1
    "dbds": 0,
    "power_factor": 0.05,  # ≤ 0.1 → 1
    "interfacial_v": 40,  # ≥ 30 → 1
    "dielectric_rigidity": 70,  # ≥ 52 → 1
    "water_content": 8,  # ≤ 20 → 1
}
# Bad water (45 > 30 → 4), BDV (30 < 35 → 4) and C2H2 (35 < 40 ≤ 50 → 4).
BAD: dict[str, float] = {**HEALTHY, "water_content": 45, "dielectric_rigidity": 30, "acetylene": 40}


def test_healthy_sample_is_very_good() -> None:
    # Every score is 1 → DGAF = 18/18 = 1.0 → A (4); OQF = 12/12 = 1.0 → A (4);
    # HI = 100·(40 + 24)/64 = 100.
    r = score_health_index(**HEALTHY)
    assert r.dga_factor.value == pytest.approx(1.0)
    assert r.oil_quality_factor.rating == "A"
    assert r.health_index == pytest.approx(100.0)
    assert r.condition == "very good"


def test_bad_water_bdv_acetylene_is_poor() -> None:
    # DGAF = (2·1 + 3·1 + 3·1 + 3·1 + 5·4 + 1 + 1)/18 = 33/18 = 1.8333 → C (2).
    # OQF = (BDV 3·4 + IFT 2·1 + water 4·4 + PF 3·1)/12 = (12 + 2 + 16 + 3)/12 = 2.75 → D (1).
    # HI = 100·(10·2 + 6·1)/64 = 2600/64 = 40.625 → poor.
    r = score_health_index(**BAD)
    assert r.dga_factor.value == pytest.approx(33 / 18)
    assert (r.dga_factor.rating, r.dga_factor.hif) == ("C", 2)
    assert r.oil_quality_factor.value == pytest.approx(2.75)
    assert (r.oil_quality_factor.rating, r.oil_quality_factor.hif) == ("D", 1)
    assert r.health_index == pytest.approx(40.625)
    assert r.condition == "poor"


def test_arcing_level_acetylene_is_very_poor() -> None:
    # C2H2 90 > 80 → 6: DGAF = (2 + 3 + 3 + 3 + 30 + 1 + 1)/18 = 43/18 = 2.389 → D (1);
    # OQF 2.75 → D (1) → HI = 100·(10 + 6)/64 = 25 → very poor.
    r = score_health_index(**{**BAD, "acetylene": 90})
    assert r.health_index == pytest.approx(25.0)
    assert r.condition == "very poor"


def test_optional_acidity_and_colour_enter_the_oil_factor() -> None:
    # Acidity 0.2 > 0.15 → 4 (W 1), colour 3 > 2.5 → 4 (W 2):
    # OQF = (12 + 2 + 16 + 3 + 4 + 8)/15 = 45/15 = 3.0 → E (0); HI = 100·(20 + 0)/64 = 31.25.
    r = score_health_index(**BAD, acidity=0.2, colour=3.0)
    assert r.oil_quality_factor.value == pytest.approx(3.0)
    assert r.oil_quality_factor.rating == "E"
    assert r.health_index == pytest.approx(31.25)
    assert r.condition == "poor"


def test_good_band_by_hand() -> None:
    # H2 150 → 2 (W 2), CH4 100 → 2 (W 3): DGAF = (4 + 6 + 3 + 3 + 5 + 1 + 1)/18 = 23/18 = 1.278
    # → B (3); water 22 → 2 (W 4): OQF = (3 + 2 + 8 + 3)/12 = 16/12 = 1.333 → B (3);
    # HI = 100·(30 + 18)/64 = 75 → good.
    r = score_health_index(**{**HEALTHY, "hydrogen": 150, "methane": 100, "water_content": 22})
    assert r.health_index == pytest.approx(75.0)
    assert r.condition == "good"


@pytest.mark.parametrize(
    ("gas", "ppm", "score"),
    [
        ("hydrogen", 100, 1),
        ("hydrogen", 100.1, 2),
        ("hydrogen", 701, 6),
        ("acetylene", 3, 1),
        ("acetylene", 7.5, 3),
        ("co2", 7000, 5),
    ],
)
def test_gas_scores_use_inclusive_upper_bounds(gas: str, ppm: float, score: int) -> None:
    assert gas_score(gas, ppm) == score


@pytest.mark.parametrize(
    ("name", "value", "score"),
    [
        ("dielectric_rigidity", 52, 1),
        ("dielectric_rigidity", 51.9, 2),
        ("dielectric_rigidity", 34.9, 4),
        ("water_content", 20, 1),
        ("water_content", 31, 4),
        ("interfacial_v", 18, 3),
        ("power_factor", 1.01, 4),
    ],
)
def test_oil_scores(name: str, value: float, score: int) -> None:
    assert oil_score(name, value) == score


@pytest.mark.parametrize(
    ("value", "rating", "hif"),
    [(1.0, "A", 4), (1.19, "A", 4), (1.2, "B", 3), (1.99, "C", 2), (2.5, "D", 1), (3.0, "E", 0)],
)
def test_factor_rating(value: float, rating: str, hif: int) -> None:
    assert factor_rating(value) == (rating, hif)


@pytest.mark.parametrize(
    ("hi", "band"),
    [(100, "very good"), (85, "very good"), (84.9, "good"), (70, "good"), (50, "fair"),
     (49.9, "poor"), (30, "poor"), (29.9, "very poor")],
)  # fmt: skip
def test_condition_bands(hi: float, band: str) -> None:
    assert condition_band(hi) == band


def test_dbds_is_noted_not_scored() -> None:
    r = score_health_index(**{**HEALTHY, "dbds": 50})
    assert r.health_index == pytest.approx(100.0)
    assert any("DBDS" in n for n in r.notes)


def test_vectorised_score_matches_scalar_score() -> None:
    x = sample_inputs(3, 200)
    scalar = [score_health_index(**dict(zip(FEATURES, row, strict=True))).health_index for row in x]
    assert np.allclose(_rule_hi_array(x), scalar)


# --- model -----------------------------------------------------------------------------------


def test_model_agrees_with_the_score_on_fresh_samples() -> None:
    # Samples from a seed the model never saw; the score is a step function, so bound the mean
    # and the 90th percentile of the error rather than every point.
    x = sample_inputs(777, 400)
    y = _rule_hi_array(x)
    pred = np.clip(load_model().predict(x), 0, 100)
    err = np.abs(pred - y)
    assert err.mean() < 6.0
    assert np.percentile(err, 90) < 12.0


def test_prediction_reports_both_scores() -> None:
    # Headline = the rule score (issue 9: the model headline was not monotone); the model's
    # estimate is the secondary field.
    r = predict_health_index("T1", **HEALTHY)
    assert r.health_index == pytest.approx(100.0)
    assert r.condition == "very good"
    assert r.health_index == r.rule_score.health_index
    assert r.model_health_index >= 85.0
    assert r.model_version == MODEL_VERSION
    assert "Jahromi" in r.citation and "rule-based" in r.method
    bad = predict_health_index("T1", **BAD)
    assert bad.health_index == pytest.approx(40.625)
    assert bad.condition == "poor"
    assert abs(bad.model_health_index - 40.625) < 15.0


def test_metadata_file_describes_the_artifact() -> None:
    meta = json.loads(META_PATH.read_text(encoding="utf-8"))
    assert meta["version"] == MODEL_VERSION
    assert meta["features"] == list(FEATURES)
    assert meta["r2_held_out"] > 0.9
    assert MODEL_PATH.stat().st_size < 2_000_000


def test_training_is_deterministic() -> None:
    _, a = train_model(seed=5, n=250)
    _, b = train_model(seed=5, n=250)
    assert a.r2_held_out == b.r2_held_out
    assert a.n_test == 50


def test_missing_artifact_names_file_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "absent.joblib"
    with pytest.raises(HealthIndexError) as exc:
        load_model(path)
    assert str(path) in str(exc.value) and TRAIN_COMMAND in str(exc.value)


def test_corrupt_artifact_names_file_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.joblib"
    path.write_bytes(b"not a joblib file")
    with pytest.raises(HealthIndexError) as exc:
        load_model(path)
    assert str(path) in str(exc.value) and TRAIN_COMMAND in str(exc.value)


def test_other_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.joblib"
    joblib.dump({"version": "health_index_v0", "features": list(FEATURES), "model": None}, path)
    with pytest.raises(HealthIndexError, match="health_index_v0"):
        load_model(path)


@pytest.mark.parametrize(
    ("field", "value"),
    [("water_content", math.nan), ("hydrogen", -1.0), ("power_factor", math.inf)],
)
def test_invalid_value_names_the_field(field: str, value: float) -> None:
    with pytest.raises(ValidationError) as exc:
        score_health_index(**{**HEALTHY, field: value})
    assert field in str(exc.value)


PPM_FIELDS = {
    "hydrogen", "oxygen", "nitrogen", "methane", "co", "co2", "ethylene", "ethane", "acetylene"
}  # fmt: skip
# Concentrations up to 10^6 ppm; the other inputs up to 100 (all within their declared bounds).
VALID_INPUTS = st.fixed_dictionaries(
    {
        f: st.floats(min_value=0, max_value=1e6 if f in PPM_FIELDS else 100, allow_nan=False)
        for f in FEATURES
    }
)


@settings(max_examples=50, deadline=None)
@given(data=VALID_INPUTS)
def test_score_and_model_never_raise_on_valid_inputs(data: dict[str, Any]) -> None:
    r = score_health_index(**data)
    assert 0.0 <= r.health_index <= 100.0
    p = predict_health_index("T1", **data)
    assert 0.0 <= p.health_index <= 100.0


# --- issue 9: monotone headline ----------------------------------------------------------------

# (feature, direction): "worse" = a larger value must never raise HI; "better" = a larger value
# must never lower it.
MONOTONE_CASES = [
    ("acetylene", "worse"),
    ("hydrogen", "worse"),
    ("water_content", "worse"),
    ("dielectric_rigidity", "better"),
    ("interfacial_v", "better"),
]
_UPPER = {"water_content": 10_000.0, "dielectric_rigidity": 200.0, "interfacial_v": 100.0}


def _increased(rng: np.random.Generator, feature: str, values: np.ndarray) -> np.ndarray:
    """Each value raised by a random step: ×e^U(0,2) plus U(0, 40), within the field's bound."""
    up = values * np.exp(rng.uniform(0.0, 2.0, values.size)) + rng.uniform(0.0, 40.0, values.size)
    return np.minimum(up, _UPPER.get(feature, 1e6))


def _raised_pairs(
    feature: str, rng_seed: int, sample_seed: int, n: int
) -> list[tuple[dict[str, float], dict[str, float]]]:
    """``n`` random oil samples (fixed seeds), each with the same sample ``feature`` raised."""
    rng = np.random.default_rng(rng_seed)
    x = sample_inputs(sample_seed, n)
    raised = _increased(rng, feature, x[:, FEATURES.index(feature)])
    pairs = []
    for row, value in zip(x, raised, strict=True):
        base = dict(zip(FEATURES, (float(v) for v in row), strict=True))
        pairs.append((base, {**base, feature: float(value)}))
    return pairs


def _violations(direction: str, base: list[float], moved: list[float]) -> int:
    if direction == "worse":
        return sum(m > b for b, m in zip(base, moved, strict=True))
    return sum(m < b for b, m in zip(base, moved, strict=True))


@pytest.mark.parametrize(("feature", "direction"), MONOTONE_CASES)
def test_headline_health_index_is_monotone(feature: str, direction: str) -> None:
    # 1000 random oil samples (fixed seed) and, for each, the same sample with `feature` raised.
    # The tool's headline is score_health_index's HI (checked on a subset through the tool
    # below and in test_prediction_reports_both_scores); scoring 2 × 1000 samples through it.
    base_hi: list[float] = []
    moved_hi: list[float] = []
    for base, moved in _raised_pairs(feature, 20260901, 91, 1000):
        base_hi.append(score_health_index(**base).health_index)
        moved_hi.append(score_health_index(**moved).health_index)
    assert _violations(direction, base_hi, moved_hi) == 0
    # The pairs are not trivial: the raise changes HI on a good share of them.
    assert sum(b != m for b, m in zip(base_hi, moved_hi, strict=True)) > 50


@pytest.mark.parametrize(("feature", "direction"), MONOTONE_CASES)
def test_tool_headline_is_monotone_on_a_subset(feature: str, direction: str) -> None:
    # The same check through predict_health_index itself (40 pairs: the tool also runs the
    # model, which is slow per call on a loaded machine).
    base_hi: list[float] = []
    moved_hi: list[float] = []
    for base, moved in _raised_pairs(feature, 11, 93, 40):
        out = predict_health_index("T1", **base)
        assert out.health_index == score_health_index(**base).health_index
        base_hi.append(out.health_index)
        moved_hi.append(predict_health_index("T1", **moved).health_index)
    assert _violations(direction, base_hi, moved_hi) == 0


@pytest.mark.parametrize(("feature", "direction"), MONOTONE_CASES)
def test_secondary_model_is_monotone_too(feature: str, direction: str) -> None:
    # The model is trained with monotonic constraints; check it on the same kind of pairs.
    rng = np.random.default_rng(7)
    x = sample_inputs(92, 1000)
    col = FEATURES.index(feature)
    moved = x.copy()
    moved[:, col] = _increased(rng, feature, x[:, col])
    model = load_model()
    delta = model.predict(moved) - model.predict(x)
    if direction == "worse":
        assert (delta <= 1e-9).all()
    else:
        assert (delta >= -1e-9).all()


@pytest.mark.parametrize("value", [True, "12"])
def test_bools_and_numeric_strings_are_not_numbers(value: object) -> None:
    with pytest.raises(ValidationError, match="acetylene"):
        score_health_index(**{**HEALTHY, "acetylene": value})


# A sample whose acidity moves the oil-quality factor across the B/C rating edge (1.5).
# DGA: H2 50 (1·2), CH4 100 (2·3), C2H6 70 (2·3), C2H4 40 (1·3), C2H2 0 (1·5), CO 400 (2·1),
#      CO2 2600 (2·1): (2 + 6 + 6 + 3 + 5 + 2 + 2) / 18 = 26/18 = 1.444 → B → HIF 3.
# Oil: BDV 55 (1·3), IFT 32 (1·2), water 22 (2·4), PF 0.05 (1·3):
#      without acidity (3 + 2 + 8 + 3) / 12 = 16/12 = 1.333 → B → HIF 3 → HI = 100·(30+18)/64 = 75
#      with acidity 0.2 (4·1): (3 + 2 + 4 + 8 + 3) / 13 = 20/13 = 1.538 → C → HIF 2
#                             → HI = 100·(30+12)/64 = 65.625 (fair)
ACIDITY_EDGE: dict[str, float] = {
    "hydrogen": 50, "oxygen": 3000, "nitrogen": 50000, "methane": 100, "co": 400, "co2": 2600,
    "ethylene": 40, "ethane": 70, "acetylene": 0, "dbds": 0, "power_factor": 0.05,
    "interfacial_v": 32, "dielectric_rigidity": 55, "water_content": 22,
}


def test_tool_scores_acidity_when_given() -> None:
    without = predict_health_index("T1", **ACIDITY_EDGE)
    assert without.health_index == pytest.approx(75.0) and without.condition == "good"
    scored = predict_health_index("T1", **ACIDITY_EDGE, acidity=0.2)
    assert scored.health_index == pytest.approx(65.625) and scored.condition == "fair"
