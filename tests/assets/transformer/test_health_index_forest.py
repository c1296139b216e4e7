"""The health-index model's own tree walk (``_Forest``) against scikit-learn's ``predict``.

The walk is a fast path: it must give the float ``model.predict`` gives, bit for bit, on
the persisted model and on a model small enough to work out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingRegressor

from assets.transformer.health_index import (
    _Forest,
    _forest,
    _predict_one,
    load_model,
    sample_inputs,
)


def test_walk_equals_predict_on_fresh_samples() -> None:
    model = load_model()
    forest = _forest(model)
    assert forest is not None
    rows = sample_inputs(11, 400)
    walked = [forest.predict(r) for r in rows]
    assert walked == model.predict(rows).tolist()


def test_walk_equals_predict_on_split_thresholds() -> None:
    # A value equal to a split's threshold goes left (x <= threshold); the next float up
    # goes right. Rows sitting exactly on the first tree's root split and on either side.
    model = load_model()
    forest = _forest(model)
    assert forest is not None
    base = sample_inputs(5, 1)[0]
    rows = []
    for t in range(0, len(forest.rows), 37):
        f, thr = int(forest.feature[t, 0]), float(forest.threshold[t, 0])
        for v in (thr, np.nextafter(thr, np.inf), np.nextafter(thr, -np.inf)):
            row = base.copy()
            row[f] = v
            rows.append(row)
    walked = [forest.predict(r) for r in rows]
    assert walked == [float(model.predict(r[None, :])[0]) for r in rows]


def model_worked_by_hand() -> HistGradientBoostingRegressor:
    """y = 0 for x in {0, 1} and 10 for x in {2, 3}; squared error, one tree, learning rate
    1, no regularisation: baseline = mean(y) = 5, the root splits between 1 and 2, the
    leaves hold minus the mean gradient (prediction - y): -(5 - 0) = -5 and -(5 - 10) = +5,
    so the estimate is 5 - 5 = 0 left and 5 + 5 = 10 right (up to rounding of the leaf
    values scikit-learn stores)."""
    x = np.array([[0.0], [1.0], [2.0], [3.0]] * 5)
    y = np.array([0.0, 0.0, 10.0, 10.0] * 5)
    return HistGradientBoostingRegressor(
        max_iter=1, learning_rate=1.0, min_samples_leaf=1, l2_regularization=0.0,
        early_stopping=False,
    ).fit(x, y)


def test_walk_on_a_model_worked_by_hand() -> None:
    model = model_worked_by_hand()
    forest = _Forest.of_model(model)
    assert forest.predict(np.array([0.0])) == pytest.approx(0.0, abs=1e-9)
    assert forest.predict(np.array([3.0])) == pytest.approx(10.0, abs=1e-9)
    probe = np.array([[-1.0], [0.5], [1.0], [1.5], [2.0], [9.0]])
    assert [forest.predict(r) for r in probe] == model.predict(probe).tolist()


def test_models_the_walk_does_not_cover_go_through_sklearn() -> None:
    assert not _Forest.fits(object())
    model = load_model()
    row = sample_inputs(2, 1)
    # A finite row of the persisted model takes the walk: predict's clipped value.
    expected = float(np.clip(model.predict(row)[0], 0.0, 100.0))
    assert _predict_one(model, row) == expected
