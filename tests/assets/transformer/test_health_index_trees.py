"""The health-index trees file: the model's trees as plain arrays, read by runs instead of
the pickled model (no scikit-learn import, no unpickling).

The reference is scikit-learn's own ``predict`` on the committed model; a trees file that
was not made from that very model file must not be used.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest

from assets.transformer.health_index import (
    MODEL_PATH,
    TREES_COMMAND,
    TREES_PATH,
    HealthIndexError,
    _Forest,
    _predict_one,
    _sha256,
    load_estimator,
    load_model,
    sample_inputs,
    trees_path,
    write_trees,
)
from tests.assets.transformer.test_health_index_forest import model_worked_by_hand

ROOT = Path(__file__).resolve().parents[3]


def test_committed_trees_file_is_made_from_the_committed_model() -> None:
    estimator = load_estimator.__wrapped__(MODEL_PATH)
    assert isinstance(estimator, _Forest)
    assert trees_path(MODEL_PATH) == TREES_PATH
    rows = sample_inputs(23, 400)
    assert [estimator.predict(r) for r in rows] == load_model().predict(rows).tolist()


def test_a_run_predicts_without_importing_sklearn() -> None:
    code = (
        "import sys\n"
        "from assets.transformer.health_index import predict_health_index\n"
        "p = predict_health_index('T1', 40, 8000, 30000, 30, 300, 2500, 20, 25, 0.5, 0,"
        " 0.1, 35, 60, 12)\n"
        "print(p.model_health_index, 'sklearn' in sys.modules, 'joblib' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout.split()
    assert out[1:] == ["False", "False"]
    row = np.array([[40, 8000, 30000, 30, 300, 2500, 20, 25, 0.5, 0, 0.1, 35, 60, 12]], float)
    assert float(out[0]) == float(np.clip(load_model().predict(row)[0], 0.0, 100.0))


def _copy_model(tmp_path: Path) -> Path:
    path = tmp_path / MODEL_PATH.name
    shutil.copyfile(MODEL_PATH, path)
    return path


def _falls_back(path: Path, caplog: pytest.LogCaptureFixture, reason: str) -> None:
    with caplog.at_level(logging.WARNING, logger="assets.transformer.health_index"):
        estimator = load_estimator.__wrapped__(path)
    assert not isinstance(estimator, _Forest)
    message = caplog.text
    assert reason in message and TREES_COMMAND in message and str(trees_path(path)) in message
    row = sample_inputs(3, 1)
    assert _predict_one(estimator, row) == float(np.clip(load_model().predict(row)[0], 0, 100))


def test_missing_trees_file_falls_back_to_the_model(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _falls_back(_copy_model(tmp_path), caplog, "is missing")


def test_trees_of_another_model_file_are_not_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _copy_model(tmp_path)
    write_trees(path)
    # The same payload written again with other compression: other bytes, so another file.
    joblib.dump(joblib.load(path), path, compress=1)
    _falls_back(path, caplog, "made from another model file")


def test_garbled_trees_file_falls_back_to_the_model(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _copy_model(tmp_path)
    trees_path(path).write_bytes(b"PK\x03\x04 not an archive")
    _falls_back(path, caplog, "cannot be read")


def test_missing_model_file_is_an_error_even_with_trees(tmp_path: Path) -> None:
    path = _copy_model(tmp_path)
    write_trees(path)
    path.unlink()
    with pytest.raises(HealthIndexError, match="is missing"):
        load_estimator.__wrapped__(path)


def test_trees_of_a_model_worked_by_hand_round_trip(tmp_path: Path) -> None:
    # 0 below the split (between 1 and 2), 10 above it (see model_worked_by_hand)
    model = model_worked_by_hand()
    path = tmp_path / "hand.trees.npz"
    _Forest.of_model(model).save(path, "a" * 64)
    forest = _Forest.read(path, "a" * 64)
    assert forest.predict(np.array([1.0])) == pytest.approx(0.0, abs=1e-9)
    assert forest.predict(np.array([2.0])) == pytest.approx(10.0, abs=1e-9)
    with pytest.raises(HealthIndexError, match="another model file"):
        _Forest.read(path, "b" * 64)


def test_trees_that_loop_are_refused() -> None:
    # Node 0 splits to node 1 and node 1 back to node 0: no leaf is ever reached.
    arrays = {
        "feature": np.zeros((1, 2), np.intp),
        "threshold": np.zeros((1, 2)),
        "left": np.array([[1, 0]]),
        "right": np.array([[1, 0]]),
        "leaf": np.zeros((1, 2), bool),
        "value": np.zeros((1, 2)),
    }
    with pytest.raises(HealthIndexError, match="cycle"):
        _Forest(arrays, 0.0).predict(np.array([0.0]))


def test_trees_walk_refuses_a_row_with_nan() -> None:
    forest = load_estimator()
    row = sample_inputs(4, 1)
    row[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        _predict_one(forest, row)


def test_sha_is_of_the_file_bytes(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(b"abc")
    # SHA-256("abc"), FIPS 180-2 appendix B.1.
    assert _sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
