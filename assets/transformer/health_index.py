"""Transformer health index: a documented rule-based score and a model trained on it.

Rule-based score: project table after Jahromi et al., "An approach to power transformer asset
management using health index", IEEE Electrical Insulation Magazine 25(2), 2009. The limit
values below are the project's reading of the paper's tables (the 69–230 kV column for oil
quality); they were not checked against a primary copy, so they are cited as "project table
after Jahromi et al. 2009", not as verbatim values.

1. DGA factor. Each gas gets a score 1..6: the first score whose inclusive upper bound (ppm)
   the concentration does not exceed, 6 above the last bound.

   | gas  | 1     | 2     | 3     | 4     | 5     | 6 (above) | weight |
   |------|-------|-------|-------|-------|-------|-----------|--------|
   | H2   | 100   | 200   | 300   | 500   | 700   | 700       | 2      |
   | CH4  | 75    | 125   | 200   | 400   | 600   | 600       | 3      |
   | C2H6 | 65    | 80    | 100   | 120   | 150   | 150       | 3      |
   | C2H4 | 50    | 80    | 100   | 150   | 200   | 200       | 3      |
   | C2H2 | 3     | 7     | 35    | 50    | 80    | 80        | 5      |
   | CO   | 350   | 700   | 900   | 1100  | 1400  | 1400      | 1      |
   | CO2  | 2500  | 3000  | 4000  | 5000  | 7000  | 7000      | 1      |

   DGAF = Σ S·W / Σ W over the gases given.

2. Oil-quality factor. Each parameter gets a score 1..4 (the first band it falls in):

   | parameter                          | 1       | 2          | 3          | 4      | weight |
   |------------------------------------|---------|------------|------------|--------|--------|
   | dielectric strength, kV            | ≥ 52    | ≥ 47       | ≥ 35       | < 35   | 3      |
   | interfacial tension, mN/m          | ≥ 30    | ≥ 23       | ≥ 18       | < 18   | 2      |
   | acidity, mg KOH/g (optional)       | ≤ 0.04  | ≤ 0.1      | ≤ 0.15     | > 0.15 | 1      |
   | water content, ppm                 | ≤ 20    | ≤ 25       | ≤ 30       | > 30   | 4      |
   | colour, ASTM D1500 (optional)      | ≤ 1.5   | ≤ 2.0      | ≤ 2.5      | > 2.5  | 2      |
   | dissipation / power factor, %      | ≤ 0.1   | ≤ 0.5      | ≤ 1.0      | > 1.0  | 3      |

   OQF = Σ S·W / Σ W over the parameters given. Caveats: the paper tabulates the dissipation
   factor at 25 °C and the breakdown voltage for its own test gap; the project applies the
   table to the ``power_factor`` and ``dielectric_rigidity`` inputs as given.

3. Factor rating (both factors): A < 1.2 ≤ B < 1.5 ≤ C < 2.0 ≤ D < 3.0 ≤ E, with health-index
   factor HIF A = 4, B = 3, C = 2, D = 1, E = 0.

4. HI = 100 · Σ K·HIF / (4 · Σ K), with the paper's condition-criterion weights K: DGA 10,
   oil quality 6. HI is one of (10·a + 6·b)/64·100 for a, b in 0..4.

5. Condition bands: HI ≥ 85 very good, ≥ 70 good, ≥ 50 fair, ≥ 30 poor, else very poor.

Oxygen, nitrogen and DBDS are accepted (they are inputs of the upstream tool) but do not enter
the Jahromi score; DBDS above 5 ppm is noted as a corrosive-sulphur concern.

Headline: the tool's ``health_index`` / ``condition`` are the rule-based score above. It is
monotone by construction: a higher gas concentration, water content or dissipation factor
never lowers a parameter score, a higher breakdown voltage or interfacial tension never raises
one, the factor value is a positively weighted mean of scores, the rating and HIF are
non-increasing step functions of it and HI is a positively weighted sum of HIFs. So a worse
measurement never raises HI and a better one never lowers it.

Secondary estimate: a scikit-learn HistGradientBoostingRegressor trained on inputs sampled by
this module (seeded numpy generator) and labelled with the rule-based HI; it is an
approximation of that score, not of field data. It is trained with monotonic constraints
(``monotonic_cst``: −1 for the seven scored gases, water and power factor, +1 for breakdown
voltage and interfacial tension, 0 for O2, N2 and DBDS), so it is monotone in the same
directions. It is reported as ``model_health_index`` beside the headline. Train and write the
artifacts with ``python -m assets.transformer.health_index --train``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import logging
import math
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

CITATION = (
    "Jahromi, Piercy, Cress, Service, Fan, 'An approach to power transformer asset management "
    "using health index', IEEE Electrical Insulation Magazine 25(2), 2009 (project table after "
    "Jahromi et al. 2009: DGA factor and oil-quality factor, 69–230 kV oil-quality column)"
)
logger = logging.getLogger(__name__)

MODEL_VERSION = "health_index_v2"
MODEL_DIR = Path(__file__).parent / "models"
MODEL_PATH = MODEL_DIR / f"{MODEL_VERSION}.joblib"
META_PATH = MODEL_DIR / f"{MODEL_VERSION}.json"
TREES_PATH = MODEL_DIR / f"{MODEL_VERSION}.trees.npz"
TRAIN_COMMAND = "python -m assets.transformer.health_index --train"
TREES_COMMAND = "python -m assets.transformer.health_index --trees"
DEFAULT_SEED = 20090301
DEFAULT_N = 8000
HELD_OUT_FRACTION = 0.2
DBDS_NOTE_PPM = 5.0

FEATURES: tuple[str, ...] = (
    "hydrogen",
    "oxygen",
    "nitrogen",
    "methane",
    "co",
    "co2",
    "ethylene",
    "ethane",
    "acetylene",
    "dbds",
    "power_factor",
    "interfacial_v",
    "dielectric_rigidity",
    "water_content",
)

# Gas → (upper bounds of scores 1..5 in ppm, weight); above the last bound: score 6.
DGA_TABLE: dict[str, tuple[tuple[float, float, float, float, float], int]] = {
    "hydrogen": ((100, 200, 300, 500, 700), 2),
    "methane": ((75, 125, 200, 400, 600), 3),
    "ethane": ((65, 80, 100, 120, 150), 3),
    "ethylene": ((50, 80, 100, 150, 200), 3),
    "acetylene": ((3, 7, 35, 50, 80), 5),
    "co": ((350, 700, 900, 1100, 1400), 1),
    "co2": ((2500, 3000, 4000, 5000, 7000), 1),
}
# Parameter → (direction, bounds of scores 1..3, weight). "higher" = higher is better, a value
# ≥ bound n gets score n; "lower" = lower is better, a value ≤ bound n gets score n; else 4.
OIL_TABLE: dict[str, tuple[Literal["higher", "lower"], tuple[float, float, float], int]] = {
    "dielectric_rigidity": ("higher", (52, 47, 35), 3),
    "interfacial_v": ("higher", (30, 23, 18), 2),
    "acidity": ("lower", (0.04, 0.1, 0.15), 1),
    "water_content": ("lower", (20, 25, 30), 4),
    "colour": ("lower", (1.5, 2.0, 2.5), 2),
    "power_factor": ("lower", (0.1, 0.5, 1.0), 3),
}
# Rating (upper bound exclusive) → HIF.
Rating = Literal["A", "B", "C", "D", "E"]
RATING_BOUNDS: tuple[tuple[float, Rating, int], ...] = (
    (1.2, "A", 4),
    (1.5, "B", 3),
    (2.0, "C", 2),
    (3.0, "D", 1),
)
RATING_WORST: tuple[Rating, int] = ("E", 0)
FACTOR_WEIGHTS: dict[str, int] = {"dga": 10, "oil_quality": 6}

Condition = Literal["very good", "good", "fair", "poor", "very poor"]
CONDITION_BANDS: tuple[tuple[float, Condition], ...] = (
    (85.0, "very good"),
    (70.0, "good"),
    (50.0, "fair"),
    (30.0, "poor"),
)

# Real numbers only (no bools or numeric strings), finite, within physical bounds.
Ppm = Annotated[float, Field(ge=0, le=1_000_000, allow_inf_nan=False, strict=True)]


def _bounded(upper: float) -> Any:
    return Field(ge=0, le=upper, allow_inf_nan=False, strict=True)


# Direction of each feature for the model's monotonic constraints: −1 = a larger value is
# worse (HI never rises), +1 = a larger value is better (HI never falls), 0 = not scored.
MONOTONIC_DIRECTION: dict[str, int] = {
    "hydrogen": -1,
    "oxygen": 0,
    "nitrogen": 0,
    "methane": -1,
    "co": -1,
    "co2": -1,
    "ethylene": -1,
    "ethane": -1,
    "acetylene": -1,
    "dbds": 0,
    "power_factor": -1,
    "interfacial_v": 1,
    "dielectric_rigidity": 1,
    "water_content": -1,
}


class HealthIndexError(Exception):
    """The persisted health-index model is missing, unreadable or of another version."""


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


class HealthInputs(BaseModel):
    """The 14 oil and gas measurements of the upstream health-index tool."""

    model_config = ConfigDict(extra="forbid")

    hydrogen: Ppm = Field(description="Dissolved H2, ppm.")
    oxygen: Ppm = Field(description="Dissolved O2, ppm (not scored).")
    nitrogen: Ppm = Field(description="Dissolved N2, ppm (not scored).")
    methane: Ppm = Field(description="Dissolved CH4, ppm.")
    co: Ppm = Field(description="Dissolved CO, ppm.")
    co2: Ppm = Field(description="Dissolved CO2, ppm.")
    ethylene: Ppm = Field(description="Dissolved C2H4, ppm.")
    ethane: Ppm = Field(description="Dissolved C2H6, ppm.")
    acetylene: Ppm = Field(description="Dissolved C2H2, ppm.")
    dbds: Annotated[float, _bounded(10_000)] = Field(
        description="Dibenzyl disulfide, ppm (not scored)."
    )
    power_factor: Annotated[float, _bounded(100)] = Field(
        description="Oil dissipation / power factor, %."
    )
    interfacial_v: Annotated[float, _bounded(100)] = Field(
        description="Interfacial tension, mN/m."
    )
    dielectric_rigidity: Annotated[float, _bounded(200)] = Field(
        description="Breakdown voltage, kV."
    )
    water_content: Annotated[float, _bounded(10_000)] = Field(
        description="Water content of the oil, ppm."
    )


class ScoringInputs(HealthInputs):
    """Inputs of the rule-based score: the 14 measurements plus optional acidity and colour."""

    acidity: float | None = Field(
        default=None,
        ge=0,
        le=100,
        allow_inf_nan=False,
        strict=True,
        description="Neutralisation number, mg KOH/g; None when not measured.",
    )
    colour: float | None = Field(
        default=None,
        ge=0,
        le=8,
        allow_inf_nan=False,
        strict=True,
        description="ASTM D1500 colour number; None when not measured.",
    )


# ---------------------------------------------------------------------------------------------
# Rule-based score
# ---------------------------------------------------------------------------------------------


class FactorScore(BaseModel):
    """One factor (DGA or oil quality) of the health index."""

    model_config = ConfigDict(extra="forbid")

    scores: dict[str, int] = Field(description="Score of each parameter used.")
    weights: dict[str, int] = Field(description="Weight of each parameter used.")
    value: float = Field(description="Σ S·W / Σ W.")
    rating: Rating = Field(description="Factor rating A (best)..E.")
    hif: int = Field(description="Health-index factor: A 4, B 3, C 2, D 1, E 0.")


class RuleScore(BaseModel):
    """Result of :func:`score_health_index`."""

    model_config = ConfigDict(extra="forbid")

    dga_factor: FactorScore = Field(description="DGA factor (gases scored 1..6).")
    oil_quality_factor: FactorScore = Field(description="Oil-quality factor (scored 1..4).")
    health_index: float = Field(description="HI = 100·Σ K·HIF / (4·Σ K), 0–100.")
    condition: Condition = Field(description="Condition band of the health index.")
    notes: list[str] = Field(description="Observations outside the score.")
    citation: str = Field(description="Method and its source.")


def gas_score(gas: str, ppm: float) -> int:
    """Score 1..6 of one gas concentration (inclusive upper bounds, see the module table).

    Args:
        gas: One of hydrogen, methane, ethane, ethylene, acetylene, co, co2.
        ppm: Concentration, ppm.

    Returns:
        The score.
    """
    bounds, _ = DGA_TABLE[gas]
    for score, upper in enumerate(bounds, start=1):
        if ppm <= upper:
            return score
    return 6


def oil_score(parameter: str, value: float) -> int:
    """Score 1..4 of one oil-quality parameter (see the module table).

    Args:
        parameter: One of dielectric_rigidity, interfacial_v, acidity, water_content, colour,
            power_factor.
        value: The measurement.

    Returns:
        The score.
    """
    direction, bounds, _ = OIL_TABLE[parameter]
    for score, bound in enumerate(bounds, start=1):
        if (direction == "higher" and value >= bound) or (direction == "lower" and value <= bound):
            return score
    return 4


def factor_rating(value: float) -> tuple[Rating, int]:
    """Rating and HIF of a factor value: A < 1.2 ≤ B < 1.5 ≤ C < 2 ≤ D < 3 ≤ E.

    Args:
        value: The factor Σ S·W / Σ W.

    Returns:
        (rating, HIF) with HIF A 4, B 3, C 2, D 1, E 0.
    """
    for upper, rating, hif in RATING_BOUNDS:
        if value < upper:
            return rating, hif
    return RATING_WORST


def _factor(scores: Mapping[str, int], weights: Mapping[str, int]) -> FactorScore:
    value = sum(scores[k] * weights[k] for k in scores) / sum(weights[k] for k in scores)
    rating, hif = factor_rating(value)
    return FactorScore(
        scores=dict(scores), weights=dict(weights), value=value, rating=rating, hif=hif
    )


def condition_band(hi: float) -> Condition:
    """Condition band: ≥ 85 very good, ≥ 70 good, ≥ 50 fair, ≥ 30 poor, else very poor."""
    for lower, name in CONDITION_BANDS:
        if hi >= lower:
            return name
    return "very poor"


def _rule_hi(dga_hif: int, oil_hif: int) -> float:
    k_dga, k_oil = FACTOR_WEIGHTS["dga"], FACTOR_WEIGHTS["oil_quality"]
    return 100.0 * (k_dga * dga_hif + k_oil * oil_hif) / (4.0 * (k_dga + k_oil))


def score_health_index(**values: float | None) -> RuleScore:
    """Rule-based health index (project table after Jahromi et al. 2009; module docstring).

    Args:
        **values: The fields of :class:`ScoringInputs` (14 measurements, optional acidity and
            colour).

    Returns:
        Factor scores, HI 0–100 and condition band.

    Raises:
        pydantic.ValidationError: A value is missing, negative, NaN, infinite or out of range.
    """
    p = ScoringInputs.model_validate(values)
    gas_scores = {g: gas_score(g, float(getattr(p, g))) for g in DGA_TABLE}
    dga = _factor(gas_scores, {g: w for g, (_, w) in DGA_TABLE.items()})
    oil_scores = {
        name: oil_score(name, float(v)) for name in OIL_TABLE if (v := getattr(p, name)) is not None
    }
    oil = _factor(oil_scores, {name: w for name, (_, _, w) in OIL_TABLE.items()})
    hi = _rule_hi(dga.hif, oil.hif)
    notes: list[str] = []
    if p.dbds > DBDS_NOTE_PPM:
        notes.append(
            f"DBDS {p.dbds:g} ppm above {DBDS_NOTE_PPM:g} ppm: corrosive sulphur risk "
            "(not part of the Jahromi score; consider passivation or oil treatment)."
        )
    return RuleScore(
        dga_factor=dga,
        oil_quality_factor=oil,
        health_index=hi,
        condition=condition_band(hi),
        notes=notes,
        citation=CITATION,
    )


def _rule_hi_array(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Vectorised rule HI for rows ordered as :data:`FEATURES` (no acidity, no colour)."""
    col = {name: x[:, i] for i, name in enumerate(FEATURES)}
    num = np.zeros(len(x))
    for gas, (bounds, w) in DGA_TABLE.items():
        # searchsorted(side="left") counts bounds strictly below the value: ≤ bound → that score.
        num += w * (np.searchsorted(np.asarray(bounds, dtype=float), col[gas], "left") + 1)
    dgaf = num / sum(w for _, w in DGA_TABLE.values())
    num = np.zeros(len(x))
    wsum = 0
    for name, (direction, oil_bounds, w) in OIL_TABLE.items():
        if name not in col:
            continue
        b = np.asarray(oil_bounds, dtype=float)
        if direction == "lower":
            s = np.searchsorted(b, col[name], "left") + 1
        else:  # descending bounds, value ≥ bound → that score
            s = np.searchsorted(-b, -col[name], "left") + 1
        num += w * s
        wsum += w
    oqf = num / wsum
    uppers = np.asarray([u for u, _, _ in RATING_BOUNDS])
    hifs = np.asarray([h for _, _, h in RATING_BOUNDS] + [RATING_WORST[1]])
    dga_hif = hifs[np.searchsorted(uppers, dgaf, "right")]
    oil_hif = hifs[np.searchsorted(uppers, oqf, "right")]
    k_dga, k_oil = FACTOR_WEIGHTS["dga"], FACTOR_WEIGHTS["oil_quality"]
    return np.asarray(
        100.0 * (k_dga * dga_hif + k_oil * oil_hif) / (4.0 * (k_dga + k_oil)), dtype=float
    )


# ---------------------------------------------------------------------------------------------
# Training data and model
# ---------------------------------------------------------------------------------------------


def sample_inputs(seed: int, n: int) -> npt.NDArray[np.float64]:
    """Plausible measurement rows (columns :data:`FEATURES`) from a seeded generator.

    Each sample has a latent degradation level d in [0, 1]; every gas is log-normal around a
    level that moves from healthy (below score 1) to faulty (above score 6) with d, and each
    oil parameter moves from new-oil to aged-oil values, with independent scatter so that all
    score bands are covered.

    Args:
        seed: Seed of the generator.
        n: Number of rows.

    Returns:
        Array of shape (n, 14).
    """
    rng = np.random.default_rng(seed)
    d = rng.beta(1.0, 2.2, size=n)
    cols: dict[str, npt.NDArray[np.float64]] = {}
    for gas, (bounds, _) in DGA_TABLE.items():
        low, high = math.log(bounds[0] * 0.3), math.log(bounds[-1] * 2.0)
        # Each gas gets its own degradation (a fault raises some gases, not all).
        own = np.clip(d + rng.normal(0.0, 0.25, n), 0.0, 1.0)
        cols[gas] = np.exp(low + own * (high - low) + rng.normal(0.0, 0.35, n))
    cols["oxygen"] = rng.uniform(500, 30000, n)
    cols["nitrogen"] = rng.uniform(5000, 80000, n)
    cols["dbds"] = np.where(rng.random(n) < 0.7, rng.uniform(0, 5, n), rng.uniform(5, 150, n))

    def oil(new: float, aged: float, scatter: float) -> npt.NDArray[np.float64]:
        own = np.clip(d + rng.normal(0.0, 0.25, n), 0.0, 1.0)
        return np.clip(new + own * (aged - new) + rng.normal(0.0, scatter, n), 0.0, None)

    cols["power_factor"] = np.exp(oil(math.log(0.03) + 10, math.log(3.0) + 10, 0.4) - 10)
    cols["interfacial_v"] = oil(42.0, 12.0, 3.0)
    cols["dielectric_rigidity"] = oil(70.0, 25.0, 5.0)
    cols["water_content"] = oil(8.0, 45.0, 4.0)
    return np.column_stack([cols[f] for f in FEATURES]).astype(float)


class ModelMetrics(BaseModel):
    """Metadata and held-out metrics of a trained model (written as the .json artifact)."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="Model version; must equal MODEL_VERSION to be loaded.")
    seed: int = Field(description="Seed of the training data and the model.")
    n: int = Field(description="Number of generated samples (train + held out).")
    n_train: int = Field(description="Training samples.")
    n_test: int = Field(description="Held-out samples.")
    features: list[str] = Field(description="Feature order.")
    estimator: str = Field(description="Estimator and its hyper-parameters.")
    r2_held_out: float = Field(description="R² of the model vs the rule score, held out.")
    mae_held_out: float = Field(description="Mean absolute error (HI points), held out.")
    sklearn_version: str = Field(description="scikit-learn version used for training.")
    label: str = Field(description="What the label is.")


def train_model(seed: int = DEFAULT_SEED, n: int = DEFAULT_N) -> tuple[Any, ModelMetrics]:
    """Train a monotone-constrained HistGradientBoostingRegressor on rule-labelled samples.

    Args:
        seed: Seed of the data generator and of the estimator.
        n: Number of samples; the last 20 % are held out.

    Returns:
        (fitted estimator, metrics).
    """
    import sklearn
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.metrics import mean_absolute_error, r2_score

    x = sample_inputs(seed, n)
    y = _rule_hi_array(x)
    n_test = max(1, round(n * HELD_OUT_FRACTION))
    x_train, y_train, x_test, y_test = x[:-n_test], y[:-n_test], x[-n_test:], y[-n_test:]
    params: dict[str, Any] = {
        "max_iter": 400,
        "max_depth": 6,
        "learning_rate": 0.08,
        "monotonic_cst": [MONOTONIC_DIRECTION[f] for f in FEATURES],
        "random_state": seed,
    }
    model = HistGradientBoostingRegressor(**params)
    model.fit(x_train, y_train)
    pred = np.clip(model.predict(x_test), 0.0, 100.0)
    metrics = ModelMetrics(
        version=MODEL_VERSION,
        seed=seed,
        n=n,
        n_train=len(x_train),
        n_test=n_test,
        features=list(FEATURES),
        estimator=f"HistGradientBoostingRegressor({params})",
        r2_held_out=float(r2_score(y_test, pred)),
        mae_held_out=float(mean_absolute_error(y_test, pred)),
        sklearn_version=sklearn.__version__,
        label="rule-based HI (project table after Jahromi et al. 2009), no acidity/colour",
    )
    return model, metrics


def write_artifacts(
    seed: int = DEFAULT_SEED, n: int = DEFAULT_N, directory: Path = MODEL_DIR
) -> ModelMetrics:
    """Train and write ``<version>.joblib`` and ``<version>.json`` into ``directory``."""
    import joblib

    model, metrics = train_model(seed, n)
    directory.mkdir(parents=True, exist_ok=True)
    payload = {"version": MODEL_VERSION, "features": list(FEATURES), "model": model}
    joblib.dump(payload, directory / f"{MODEL_VERSION}.joblib", compress=3)
    (directory / f"{MODEL_VERSION}.json").write_text(
        json.dumps(metrics.model_dump(), indent=2) + "\n", encoding="utf-8"
    )
    write_trees(directory / f"{MODEL_VERSION}.joblib")
    return metrics


def trees_path(model_path: Path) -> Path:
    """Where the trees file of the model file ``model_path`` lies (beside it)."""
    return model_path.with_name(model_path.name.removesuffix(".joblib") + ".trees.npz")


def write_trees(model_path: Path = MODEL_PATH) -> Path:
    """Write the trees of the model at ``model_path`` as plain arrays (:class:`_Forest`)
    beside it, stamped with the model file's SHA-256, so that runs predict without
    importing scikit-learn or unpickling (about a second and a half per process).

    Raises:
        HealthIndexError: The model cannot be loaded, or its trees cannot be walked here.
    """
    forest = _forest(load_model.__wrapped__(model_path))
    if forest is None:
        raise HealthIndexError(
            f"health-index model {model_path} is not a one-output regressor with numeric "
            "splits; it predicts through scikit-learn and has no trees file"
        )
    target = trees_path(model_path)
    forest.save(target, _sha256(model_path))
    return target


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@functools.cache
def load_model(path: Path = MODEL_PATH) -> Any:
    """Load the persisted model once per process and check its version and features.

    Raises:
        HealthIndexError: The file is missing, unreadable or of another version.
    """
    fix = f"regenerate it with `{TRAIN_COMMAND}`"
    if not path.is_file():
        raise HealthIndexError(f"health-index model {path} is missing; {fix}")
    try:
        import joblib

        payload = joblib.load(path)
    except Exception as exc:
        raise HealthIndexError(
            f"health-index model {path} cannot be read ({type(exc).__name__}: {exc}); {fix}"
        ) from exc
    if not isinstance(payload, dict) or payload.get("version") != MODEL_VERSION:
        found = payload.get("version") if isinstance(payload, dict) else type(payload).__name__
        raise HealthIndexError(
            f"health-index model {path} has version {found!r}, expected {MODEL_VERSION!r}; {fix}"
        )
    if payload.get("features") != list(FEATURES):
        raise HealthIndexError(f"health-index model {path} has other features; {fix}")
    return payload["model"]


@functools.cache
def load_estimator(path: Path = MODEL_PATH) -> Any:
    """What predicts the model estimate: the trees file written from the model at ``path``
    (:func:`write_trees`; numpy only, milliseconds) when it is there and was made from
    that very file, else the model itself (:func:`load_model`: scikit-learn, seconds).

    A missing or stale trees file costs time, not correctness: it is logged with the
    command that writes it again.

    Raises:
        HealthIndexError: The model file is missing, unreadable or of another version.
    """
    if not path.is_file():
        raise HealthIndexError(
            f"health-index model {path} is missing; regenerate it with `{TRAIN_COMMAND}`"
        )
    target = trees_path(path)
    try:
        return _Forest.read(target, _sha256(path))
    except HealthIndexError as exc:
        logger.warning("%s; predicting through scikit-learn (slower)", exc)
    return load_model(path)


# ---------------------------------------------------------------------------------------------
# Prediction
# ---------------------------------------------------------------------------------------------


class _Forest:
    """The trees of a fitted one-output regressor as padded arrays, walked for one row.

    Each tree's nodes are copied into rows of arrays (feature, threshold, left, right, leaf
    flag, value); a row goes left where ``x[feature] <= threshold``, as scikit-learn's
    ``_predict_one_from_raw_data`` does for numeric features. All trees take one step at a
    time together, and the leaf values are added to the baseline one tree after the other in
    the estimator's order, the sum scikit-learn makes (``raw += baseline``, then
    ``raw += tree(X)`` per tree), so the estimate is the same float.
    """

    _ARRAYS = ("feature", "threshold", "left", "right", "leaf", "value")

    def __init__(self, arrays: Mapping[str, npt.NDArray[Any]], baseline: float) -> None:
        self.feature: npt.NDArray[np.intp] = np.asarray(arrays["feature"], np.intp)
        self.threshold: npt.NDArray[np.float64] = np.asarray(arrays["threshold"], np.float64)
        self.left: npt.NDArray[np.intp] = np.asarray(arrays["left"], np.intp)
        self.right: npt.NDArray[np.intp] = np.asarray(arrays["right"], np.intp)
        self.leaf: npt.NDArray[np.bool_] = np.asarray(arrays["leaf"], bool)
        self.value: npt.NDArray[np.float64] = np.asarray(arrays["value"], np.float64)
        shape = self.feature.shape
        if len(shape) != 2 or any(getattr(self, k).shape != shape for k in self._ARRAYS):
            raise ValueError(f"tree arrays of unequal shapes: {shape}")
        self.rows = np.arange(shape[0])
        self.baseline = float(baseline)

    @classmethod
    def of_model(cls, model: Any) -> _Forest:
        """The trees of a fitted ``HistGradientBoostingRegressor`` (see :meth:`fits`)."""
        trees = [predictor.nodes for (predictor,) in model._predictors]
        width = max(len(nodes) for nodes in trees)
        shape = (len(trees), width)
        arrays = {
            "feature": np.zeros(shape, np.intp),
            "threshold": np.zeros(shape, np.float64),
            "left": np.zeros(shape, np.intp),
            "right": np.zeros(shape, np.intp),
            "leaf": np.ones(shape, bool),
            "value": np.zeros(shape, np.float64),
        }
        fields = {"feature": "feature_idx", "threshold": "num_threshold", "left": "left",
                  "right": "right", "leaf": "is_leaf", "value": "value"}
        for t, nodes in enumerate(trees):
            for name, field in fields.items():
                arrays[name][t, : len(nodes)] = nodes[field]
        return cls(arrays, float(np.asarray(model._baseline_prediction).ravel()[0]))

    def save(self, path: Path, source_sha256: str) -> None:
        """Write the arrays, the baseline and what they were made from to ``path``."""
        np.savez_compressed(
            path,
            **{k: getattr(self, k) for k in self._ARRAYS},
            baseline=np.float64(self.baseline),
            version=np.str_(MODEL_VERSION),
            features=np.array(FEATURES),
            source_sha256=np.str_(source_sha256),
        )

    @classmethod
    def read(cls, path: Path, source_sha256: str) -> _Forest:
        """The trees saved at ``path`` by :meth:`save` from the model file whose SHA-256 is
        ``source_sha256``.

        Raises:
            HealthIndexError: The file is missing, unreadable, of another version or
                features, or made from another model file.
        """
        fix = f"write it again with `{TREES_COMMAND}`"
        if not path.is_file():
            raise HealthIndexError(f"health-index trees file {path} is missing; {fix}")
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = (str(data["version"]), data["features"].tolist(),
                        str(data["source_sha256"]))
                arrays = {k: data[k] for k in cls._ARRAYS}
                baseline = float(data["baseline"])
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise HealthIndexError(
                f"health-index trees file {path} cannot be read ({type(exc).__name__}: "
                f"{exc}); {fix}"
            ) from exc
        if meta[0] != MODEL_VERSION or meta[1] != list(FEATURES):
            raise HealthIndexError(
                f"health-index trees file {path} is of version {meta[0]!r} with features "
                f"{meta[1]}, expected {MODEL_VERSION!r} with {list(FEATURES)}; {fix}"
            )
        if meta[2] != source_sha256:
            raise HealthIndexError(
                f"health-index trees file {path} was made from another model file (SHA-256 "
                f"{meta[2][:12]}…, the model's is {source_sha256[:12]}…); {fix}"
            )
        try:
            return cls(arrays, baseline)
        except ValueError as exc:
            raise HealthIndexError(f"health-index trees file {path} is malformed: {exc}; "
                                   f"{fix}") from exc

    @staticmethod
    def fits(model: Any) -> bool:
        """Whether the walk reproduces ``model.predict``: one output per iteration, an
        identity link, no categorical split (anything else goes through scikit-learn)."""
        try:
            return (
                model.n_trees_per_iteration_ == 1
                and type(model._loss.link).__name__ == "IdentityLink"
                and all(len(it) == 1 and not it[0].nodes["is_categorical"].any()
                        for it in model._predictors)
            )
        except AttributeError:
            return False

    def predict(self, x: npt.NDArray[np.float64]) -> float:
        """The raw estimate of one finite row ``x`` (shape (n_features,))."""
        node = np.zeros(len(self.rows), np.intp)
        for _ in range(self.feature.shape[1]):  # a walk visits each node at most once
            at_leaf = self.leaf[self.rows, node]
            if at_leaf.all():
                break
            left = x[self.feature[self.rows, node]] <= self.threshold[self.rows, node]
            step = np.where(left, self.left[self.rows, node], self.right[self.rows, node])
            node = np.where(at_leaf, node, step)
        else:
            raise HealthIndexError(
                f"health-index trees hold a cycle; write them again with `{TREES_COMMAND}`"
            )
        total = 0.0
        total += self.baseline
        for v in self.value[self.rows, node].tolist():
            total += v
        return total


def _forest(model: Any) -> _Forest | None:
    """The model's :class:`_Forest` (made once per model), None when it does not fit (or
    the installed scikit-learn keeps its trees another way)."""
    hit = _FORESTS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    forest = None
    if _Forest.fits(model):
        try:
            forest = _Forest.of_model(model)
        except (AttributeError, KeyError, TypeError, ValueError):
            forest = None  # another scikit-learn layout: predict() it is
    _FORESTS[id(model)] = (model, forest)
    return forest


_FORESTS: dict[int, tuple[Any, _Forest | None]] = {}


def _predict_one(model: Any, row: npt.NDArray[np.float64]) -> float:
    """Model estimate of one row, clipped to 0–100; ``model`` is what
    :func:`load_estimator` gives: the trees read from the trees file, or the model.

    A one-output regressor's trees are walked here (:class:`_Forest`, the same float as
    ``model.predict``); other models, and rows with a NaN, go through scikit-learn on one
    OpenMP thread: one row is too little work to share, and on a loaded machine the OpenMP
    workers spin-wait for each other (a single prediction took seconds instead of
    milliseconds).

    The model is deterministic, so estimates are kept per (model, row): a run's recompute
    step asks again for every row its draws predicted.
    """
    key = (id(model), row.shape, row.tobytes())
    hit = _PREDICTIONS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    forest = model if isinstance(model, _Forest) else _forest(model)
    finite = row.shape[0] == 1 and bool(np.isfinite(row).all())
    if isinstance(model, _Forest) and not finite:
        raise ValueError(f"the trees walk takes one finite row, not {row.tolist()}")
    if forest is not None and finite:
        raw = forest.predict(np.asarray(row[0], dtype=np.float64))
        value = float(np.clip(np.float64(raw), 0.0, 100.0))
    else:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="openmp"):
            value = float(np.clip(model.predict(row)[0], 0.0, 100.0))
    if len(_PREDICTIONS) >= _PREDICTIONS_MAX:
        _PREDICTIONS.clear()
    _PREDICTIONS[key] = (model, value)
    return value


_PREDICTIONS_MAX = 4096
_PREDICTIONS: dict[tuple[int, tuple[int, ...], bytes], tuple[Any, float]] = {}


class HealthIndexPrediction(BaseModel):
    """Result of :func:`predict_health_index`."""

    model_config = ConfigDict(extra="forbid")

    asset_name: str = Field(description="Asset the sample was taken from.")
    health_index: float = Field(
        description="Health index 0–100: the rule-based score (project table after Jahromi "
        "et al. 2009), monotone in every scored measurement."
    )
    condition: Condition = Field(description="Condition band of health_index.")
    method: str = Field(description="How the headline health_index was computed.")
    rule_score: RuleScore = Field(description="Factor scores behind health_index.")
    model_health_index: float = Field(
        description="Secondary estimate: monotone-constrained model trained on the rule score, "
        "0–100 (clipped)."
    )
    model_condition: Condition = Field(description="Condition band of model_health_index.")
    model_version: str = Field(description="Version of the persisted model.")
    notes: list[str] = Field(description="Observations (DBDS, model/rule disagreement).")
    citation: str = Field(description="Method and its source; the model imitates that score.")


def predict_health_index(
    asset_name: str,
    hydrogen: float,
    oxygen: float,
    nitrogen: float,
    methane: float,
    co: float,
    co2: float,
    ethylene: float,
    ethane: float,
    acetylene: float,
    dbds: float,
    power_factor: float,
    interfacial_v: float,
    dielectric_rigidity: float,
    water_content: float,
    acidity: float | None = None,
) -> HealthIndexPrediction:
    """Health index 0–100: the rule-based score, with the persisted model's estimate beside it.

    Args:
        asset_name: Asset the sample was taken from.
        hydrogen: H2, ppm.
        oxygen: O2, ppm.
        nitrogen: N2, ppm.
        methane: CH4, ppm.
        co: CO, ppm.
        co2: CO2, ppm.
        ethylene: C2H4, ppm.
        ethane: C2H6, ppm.
        acetylene: C2H2, ppm.
        dbds: Dibenzyl disulfide, ppm.
        power_factor: Oil dissipation / power factor, %.
        interfacial_v: Interfacial tension, mN/m.
        dielectric_rigidity: Breakdown voltage, kV.
        water_content: Water content, ppm.
        acidity: Neutralisation number, mg KOH/g, when measured: scored in the oil-quality
            factor (weight 1); the model, trained on the 14 upstream inputs, ignores it.

    Returns:
        Rule HI and band (headline), model HI and band (secondary), model version, citation.

    Raises:
        pydantic.ValidationError: A value is negative, NaN, infinite or out of range.
        HealthIndexError: The model artifact is missing, corrupt or of another version.
    """
    p = HealthInputs(
        hydrogen=hydrogen,
        oxygen=oxygen,
        nitrogen=nitrogen,
        methane=methane,
        co=co,
        co2=co2,
        ethylene=ethylene,
        ethane=ethane,
        acetylene=acetylene,
        dbds=dbds,
        power_factor=power_factor,
        interfacial_v=interfacial_v,
        dielectric_rigidity=dielectric_rigidity,
        water_content=water_content,
    )
    if not asset_name:
        raise ValueError("asset_name must not be empty")
    scored = ScoringInputs(**p.model_dump(), acidity=acidity)
    rule = score_health_index(**scored.model_dump())
    model = load_estimator()
    row = np.asarray([[float(getattr(p, f)) for f in FEATURES]], dtype=float)
    hi = _predict_one(model, row)
    notes = list(rule.notes)
    if condition_band(hi) != rule.condition:
        notes.append(
            f"Model band {condition_band(hi)!r} differs from the rule band {rule.condition!r}: "
            "the sample is near a band boundary; the rule score (the headline) is authoritative."
        )
    return HealthIndexPrediction(
        asset_name=asset_name,
        health_index=rule.health_index,
        condition=rule.condition,
        method="rule-based score, project table after Jahromi et al. 2009 (monotone)",
        rule_score=rule,
        model_health_index=hi,
        model_condition=condition_band(hi),
        model_version=MODEL_VERSION,
        notes=notes,
        citation=CITATION,
    )


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python -m assets.transformer.health_index --train [--seed S] [--n N]``, or
    ``--trees`` to write the trees file of the model already there."""
    parser = argparse.ArgumentParser(prog="python -m assets.transformer.health_index")
    parser.add_argument("--train", action="store_true", help="train and write the artifacts")
    parser.add_argument(
        "--trees", action="store_true", help="write the trees file of the existing model"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="training seed")
    parser.add_argument("--n", type=int, default=DEFAULT_N, help="number of samples")
    args = parser.parse_args(argv)
    if args.trees and not args.train:
        print(f"wrote {write_trees(MODEL_PATH)} from {MODEL_PATH}")
        return 0
    if not args.train:
        parser.print_help()
        return 2
    metrics = write_artifacts(args.seed, args.n)
    print(
        f"wrote {MODEL_PATH}, {META_PATH} and {TREES_PATH}: held-out R² "
        f"{metrics.r2_held_out:.4f}, MAE {metrics.mae_held_out:.3f} HI points "
        f"(n_test {metrics.n_test})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
