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
    default_asset_class,
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
    iec = {f.codes.get("iec60599") for f in asset.failure_modes}
    assert iec >= {"PD", "D1", "D2", "T1", "T2", "T3"}
    assert asset.default and asset.database("oil_samples") == "transformer_oil"
    assert asset.source_database("oil_sample") == "oil_samples"
    assert asset.database("truth") == "scenariogen_truth_transformer"
    assert asset.load_fleet_spec().__name__ == "FleetSpec"


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


def test_contacts_are_optional_and_checked() -> None:
    asset = load_asset_class("transformer")
    oti_a = asset.contact("oti_a")
    assert oti_a is not None and (oti_a.sensor, oti_a.setting) == ("oti", 90.0)
    assert asset.contact("oti") is None
    data = copy.deepcopy(RAW)
    del data["contacts"]
    assert parse_asset_class(data, "assets/x/asset.yaml").contacts == []
    data = copy.deepcopy(RAW)
    data["contacts"][1]["sensor"] = "otti"
    text = _error(data)
    assert "contacts.1.sensor" in text and "'otti'" in text and "oti" in text
    data = copy.deepcopy(RAW)
    data["contacts"][2]["flag"] = "oti_a"
    assert "contacts.2.flag" in _error(data)
    data = copy.deepcopy(RAW)
    data["contacts"][0]["sensor"] = "oti_a"
    assert "contacts.0.sensor" in _error(data)


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


# -- the asset-agnostic schema (sources, databases, codes, fleet_spec, default) ---------


def test_sensor_source_must_be_a_declared_source() -> None:
    data = copy.deepcopy(RAW)
    data["sensors"][20]["source"] = "oil_smaple"
    text = _error(data)
    assert "assets/x/asset.yaml" in text and "sensors.20.source" in text
    assert "'oil_smaple'" in text and "valid: oil_sample, telemetry" in text
    assert "fix: use a key of `sources`" in text


def test_source_must_name_a_declared_database() -> None:
    data = copy.deepcopy(RAW)
    data["sources"]["oil_sample"]["database"] = "oil"
    text = _error(data)
    assert "sources.oil_sample.database" in text and "'oil'" in text
    assert "valid: nameplate, oil_samples, telemetry, workorders" in text


def test_required_and_reserved_database_keys() -> None:
    data = copy.deepcopy(RAW)
    del data["databases"]["nameplate"]
    text = _error(data)
    assert "field databases" in text and "'nameplate'" in text
    assert "valid: telemetry, nameplate, workorders" in text
    data = copy.deepcopy(RAW)
    data["databases"]["truth"] = "mine"
    assert "scenariogen_truth_transformer" in _error(data)
    data = copy.deepcopy(RAW)
    data["databases"]["telemetry"] = "Bad Name"
    assert "databases.telemetry" in _error(data)


def test_extra_databases_and_indexes_are_free_but_checked() -> None:
    data = copy.deepcopy(RAW)
    data["databases"]["vibration"] = "transformer_vibration"
    data["indexes"]["vibration"] = [{"fields": ["asset_id"], "name": "by-asset"}]
    asset = parse_asset_class(data, "x")
    assert asset.database("vibration") == "transformer_vibration"
    data["indexes"]["vibraton"] = [{"fields": ["asset_id"], "name": "by-asset"}]
    text = _error(data)
    assert "indexes.vibraton" in text and "valid:" in text and "vibration" in text


def test_simulator_needs_a_fleet_spec() -> None:
    data = copy.deepcopy(RAW)
    del data["fleet_spec"]
    text = _error(data)
    assert "field fleet_spec" in text and "required when `simulator` is set" in text


def test_unknown_logical_database_and_source_name_the_keys() -> None:
    asset = load_asset_class("transformer")
    with pytest.raises(UserError) as err:
        asset.database("oil")
    assert "valid: nameplate, oil_samples, telemetry, workorders, truth" in str(err.value)
    with pytest.raises(UserError) as err:
        asset.source_database("vibration")
    assert "valid: oil_sample, telemetry" in str(err.value)


def test_fleet_spec_must_be_a_model() -> None:
    data = copy.deepcopy(RAW)
    data["fleet_spec"] = "assets.transformer.simulator:simulate_fleet"
    with pytest.raises(UserError, match="does not define as a pydantic model"):
        parse_asset_class(data, "x").load_fleet_spec()


def _class_folder(root: Path, name: str, default: bool | None) -> None:
    data = copy.deepcopy(RAW)
    data["asset_class"] = name
    data.pop("default", None)
    if default is not None:
        data["default"] = default
    (root / name).mkdir()
    (root / name / "asset.yaml").write_text(yaml.safe_dump(data))


def test_default_asset_class(tmp_path: Path) -> None:
    assert default_asset_class() == "transformer"
    _class_folder(tmp_path, "pump", None)
    assert default_asset_class(tmp_path) == "pump"  # the only class
    _class_folder(tmp_path, "fan", None)
    with pytest.raises(UserError) as err:
        default_asset_class(tmp_path)
    assert "none sets `default: true`" in str(err.value) and "valid: fan, pump" in str(err.value)
    _class_folder(tmp_path, "chiller", True)
    assert default_asset_class(tmp_path) == "chiller"


def test_two_default_classes_are_an_error(tmp_path: Path) -> None:
    _class_folder(tmp_path, "pump", True)
    _class_folder(tmp_path, "fan", True)
    with pytest.raises(UserError) as err:
        default_asset_class(tmp_path)
    text = str(err.value)
    assert "\n" not in text and "several asset classes set `default: true` (fan, pump)" in text
    assert "fix: keep `default: true` in exactly one" in text


# -- issue 28.7: finite ordered ranges, booleans only as YAML booleans -----------------------


@pytest.mark.parametrize(
    ("yaml_range", "expected"),
    [
        ("[-.inf, .inf]", "sensors.2.range.0: Input should be a finite number; got -inf"),
        ("[0, .inf]", "sensors.2.range.1: Input should be a finite number; got inf"),
        ("[.nan, 5]", "sensors.2.range.0: Input should be a finite number"),
        ('["0", "5"]', "sensors.2.range.0: Input should be a valid number"),
        ("[5, 5]", "range low must be below high"),
    ],
    ids=["inf", "upper-inf", "nan", "strings", "equal"],
)
def test_ranges_are_finite_numbers_and_ordered(yaml_range: str, expected: str) -> None:
    data = copy.deepcopy(RAW)
    data["sensors"][2]["range"] = yaml.safe_load(yaml_range)
    text = _error(data)
    assert "assets/x/asset.yaml: field " in text and expected in text, text
    assert "fix: " in text


def test_a_contact_setting_is_finite() -> None:
    data = copy.deepcopy(RAW)
    data["contacts"][0]["setting"] = float("inf")
    text = _error(data)
    assert "contacts.0.setting: Input should be a finite number" in text
    assert "fix: give a finite number" in text


@pytest.mark.parametrize("raw", ['"yes"', '"true"', '"no"', "1", "0", '"on"', "null"])
@pytest.mark.parametrize("key", ["default", "draft"])
def test_booleans_only_as_yaml_booleans(key: str, raw: str) -> None:
    data = copy.deepcopy(RAW)
    data[key] = yaml.safe_load(raw)
    text = _error(data)
    assert f"assets/x/asset.yaml: field {key}: Input should be a valid boolean" in text, text
    assert f"fix: write {key}: true or {key}: false (a YAML boolean, without quotes)" in text


def test_yaml_booleans_still_load() -> None:
    for raw in ("true", "false", "yes", "no", "True"):  # YAML 1.1 booleans, as PyYAML reads
        data = copy.deepcopy(RAW)
        data["default"] = yaml.safe_load(raw)
        assert parse_asset_class(data, "assets/x/asset.yaml").default is yaml.safe_load(raw)


def test_inf_range_in_a_file_names_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "transformer"
    folder.mkdir()
    text = (ASSETS_DIR / "transformer" / "asset.yaml").read_text()
    text = text.replace("range: [0, 100]", "range: [-.inf, .inf]", 1)
    (folder / "asset.yaml").write_text(text)
    with pytest.raises(UserError) as err:
        load_asset_file(folder / "asset.yaml")
    assert str(folder / "asset.yaml") in str(err.value)
    assert "range.0: Input should be a finite number; got -inf" in str(err.value)
