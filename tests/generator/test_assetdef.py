"""Asset classes load from YAML; every mistake is one line naming file, field, value, options."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.assetdef import (
    ASSETS_DIR,
    available_asset_classes,
    load_asset_class,
    load_asset_file,
    parse_asset_class,
)
from generator.errors import UserError

RAW: dict[str, Any] = yaml.safe_load((ASSETS_DIR / "transformer" / "asset.yaml").read_text())


def _error(data: Any) -> str:
    with pytest.raises(UserError) as err:
        parse_asset_class(data, "assets/x/asset.yaml")
    text = str(err.value)
    assert "\n" not in text
    return text


def test_transformer_loads() -> None:
    asset = load_asset_class("transformer")
    assert "transformer" in available_asset_classes()
    assert asset.sensor("wti").unit == "degC"
    assert {s.name for s in asset.sensors_of("oil_sample")} >= {"hydrogen", "acetylene"}
    assert "vibration" not in asset.domains
    assert {f.iec60599_code for f in asset.failure_modes} >= {"PD", "D1", "D2", "T1", "T2", "T3"}


def test_misspelt_key_names_the_key_and_the_valid_ones() -> None:
    data = copy.deepcopy(RAW)
    data["sensors"][0]["unti"] = data["sensors"][0].pop("unit")
    text = _error(data)
    assert "assets/x/asset.yaml" in text and "sensors.0.unti" in text
    assert "valid: name, source, unit, range, description" in text


def test_failure_mode_with_unknown_sensor() -> None:
    data = copy.deepcopy(RAW)
    data["failure_modes"][1]["sensors"][0] = "methan"
    text = _error(data)
    assert "failure_modes.1.sensors.0" in text and "'methan'" in text and "methane" in text


def test_bad_range_and_unknown_domain() -> None:
    data = copy.deepcopy(RAW)
    data["sensors"][2]["range"] = [5, 1]
    assert "range low must be below high" in _error(data)
    data = copy.deepcopy(RAW)
    data["domains"] = ["iot", "vibraton"]
    text = _error(data)
    assert "domains.1" in text and "'vibraton'" in text and "vibration" in text


def test_broken_yaml_and_unknown_class(tmp_path: Path) -> None:
    folder = tmp_path / "pump"
    folder.mkdir()
    (folder / "asset.yaml").write_text("asset_class: pump\nsensors: [a, b\n")
    with pytest.raises(UserError, match="is not valid YAML"):
        load_asset_file(folder / "asset.yaml")
    with pytest.raises(UserError) as err:
        load_asset_class("transfomer")
    assert "valid: chiller, transformer" in str(err.value)
