"""The chiller draft is valid but not discovered: scenariogen still sees only the transformer."""

from __future__ import annotations

import pytest

from generator.assetdef import (
    ASSETS_DIR,
    available_asset_classes,
    load_asset_class,
    parse_asset_class,
)
from generator.errors import UserError
from generator.yamlfile import read_yaml

DRAFT = ASSETS_DIR / "chiller" / "asset.draft.yaml"


def test_only_the_transformer_is_discovered() -> None:
    assert DRAFT.exists()
    assert not (ASSETS_DIR / "chiller" / "asset.yaml").exists()
    assert available_asset_classes() == ["transformer"]


def test_loading_the_chiller_class_is_an_unknown_class_error() -> None:
    with pytest.raises(UserError, match="unknown asset class 'chiller'"):
        load_asset_class("chiller")


def test_the_draft_validates_against_the_asset_schema() -> None:
    asset = parse_asset_class(read_yaml(DRAFT), str(DRAFT))
    assert asset.asset_class == "chiller"
    assert {fm.id for fm in asset.failure_modes} == {
        "condenser_fouling", "evaporator_fouling", "low_refrigerant_charge",
        "compressor_overheating", "sensor_drift", "purge_problem",
    }
