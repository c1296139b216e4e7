"""The chiller is a discovered asset class: asset.yaml validates and its hooks resolve."""

from __future__ import annotations

import importlib

from generator.assetdef import ASSETS_DIR, available_asset_classes, load_asset_class

CHILLER_DIR = ASSETS_DIR / "chiller"


def test_the_chiller_is_discovered_beside_the_transformer() -> None:
    assert (CHILLER_DIR / "asset.yaml").exists()
    assert not (CHILLER_DIR / "asset.draft.yaml").exists()
    assert available_asset_classes() == ["chiller", "transformer"]


def test_the_class_loads_with_its_hooks_and_databases() -> None:
    asset = load_asset_class("chiller")
    assert asset.asset_class == "chiller"
    assert {fm.id for fm in asset.failure_modes} == {
        "condenser_fouling", "evaporator_fouling", "low_refrigerant_charge",
        "compressor_overheating", "sensor_drift", "purge_problem",
    }
    assert (asset.database("telemetry"), asset.database("nameplate"),
            asset.database("workorders")) == ("chiller", "chiller_assets", "workorder")
    assert set(asset.databases) == {"telemetry", "nameplate", "workorders"}
    assert asset.database("truth") == "scenariogen_truth_chiller"
    simulate = asset.load_simulator()
    module = importlib.import_module(simulate.__module__)
    assert asset.load_fleet_spec() is module.FleetSpec
    assert module.FleetSpec().units_per_site >= 1
    assert isinstance(module.SIMULATOR_VERSION, str)
    assert asset.tools == ["assets.chiller.tools", "assets.chiller.tools_operate"]


def test_failure_codes_match_the_simulator_and_the_tools() -> None:
    from assets.chiller.simulator import FAILURE_CODES
    from assets.chiller.tools import FAILURE_CODE_OF

    asset = load_asset_class("chiller")
    codes = {fm.id: fm.failure_code for fm in asset.failure_modes}
    assert codes == dict(FAILURE_CODES) == FAILURE_CODE_OF


def test_no_word_of_the_other_class_in_the_chiller_folder() -> None:
    other = "trans" + "former"  # spelt in two parts so this file does not match itself
    for path in CHILLER_DIR.rglob("*"):
        if path.is_file() and path.suffix in {".py", ".yaml", ".md", ".txt"}:
            assert other not in path.read_text().lower(), path
            assert other not in path.name.lower()
