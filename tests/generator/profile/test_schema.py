"""The committed JSON Schema is the model's, and built profiles validate against it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from generator.config import StoreSettings
from generator.profile import SCHEMA_PATH, profile_json_schema, schema_text
from generator.profile.build import build_profile
from generator.profile.model import AssetProfile
from tests.generator.profile.conftest import StubResearch


def test_committed_schema_equals_the_model_schema() -> None:
    assert SCHEMA_PATH.exists(), "run `scenariogen profile --schema --out schemas/...`"
    assert json.loads(SCHEMA_PATH.read_text()) == profile_json_schema()
    assert SCHEMA_PATH.read_text() == schema_text()


async def test_built_profiles_validate_against_the_schema(
    seeded_settings: StoreSettings,
    store_settings: StoreSettings,
    cache_env: Path,
    stub_research: StubResearch,
) -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for settings in (seeded_settings, store_settings):  # open and closed form
        p = await build_profile("transformer", settings=settings, research_fn=stub_research)
        validator.validate(json.loads(p.model_dump_json()))
    bad = json.loads(p.model_dump_json())
    bad["supported_domains"][0]["extra_tools"] = ["vibration_fft"]
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(bad)


async def test_a_dangling_citation_is_rejected_by_the_model(
    seeded_settings: StoreSettings, cache_env: Path, stub_research: StubResearch
) -> None:
    p = await build_profile("transformer", settings=seeded_settings, research_fn=stub_research)
    data = json.loads(p.model_dump_json())
    data["references"] = data["references"][1:]
    with pytest.raises(ValueError, match="missing from references"):
        AssetProfile.model_validate(data)
