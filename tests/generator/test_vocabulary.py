"""The vocabulary of an asset class: loaded, validated, errors that name file and field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.errors import UserError
from generator.vocabulary import asset_nouns, load_vocabulary, parse_vocabulary

GOOD = {
    "asset_class": "pump",
    "noun": "pump",
    "plural": "pumps",
    "domain_phrase": "centrifugal pumps",
    "fleet_phrase": "a fleet of centrifugal pumps",
    "persona": "operators of centrifugal pumps",
    "agent_persona": "You assist the operators of a fleet of pumps.",
    "task_themes": [{"role": "operator", "theme": "Read a pump's flow", "needs": ["iot"]}],
}


def _write(root: Path, data: str) -> None:
    folder = root / "pump"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "asset.yaml").write_text("asset_class: pump\n")
    (folder / "vocabulary.yaml").write_text(data)


def test_transformer_vocabulary_loads() -> None:
    vocab = load_vocabulary("transformer")
    assert vocab.noun == "transformer"
    assert vocab.sensor_words("oti") == "top-oil temperature"
    # Unlisted sensors are spoken as their description, else their name without underscores.
    assert vocab.sensor_words("h2_ppm", "Hydrogen") == "Hydrogen"
    assert vocab.sensor_words("h2_ppm") == "h2 ppm"
    assert "transformers" in asset_nouns()


def test_minimal_vocabulary_parses_with_defaults() -> None:
    vocab = parse_vocabulary(GOOD, "pump/vocabulary.yaml")
    assert vocab.sensor_names == {} and vocab.site_words == []
    assert vocab.task_themes[0].needs == ["iot"]


def test_misspelt_key_names_file_key_and_options() -> None:
    with pytest.raises(UserError) as err:
        parse_vocabulary({**GOOD, "nouns": "x"}, "pump/vocabulary.yaml")
    msg = str(err.value)
    assert "pump/vocabulary.yaml: unknown key 'nouns'" in msg
    assert "valid: asset_class, noun, plural" in msg and "fix:" in msg


def test_missing_key_and_bad_theme_are_one_line_each() -> None:
    data = {k: v for k, v in GOOD.items() if k != "persona"}
    with pytest.raises(UserError, match="field persona: required key missing"):
        parse_vocabulary(data, "v.yaml")
    bad_role = {**GOOD, "task_themes": [{"role": "boss", "theme": "Rank", "needs": ["iot"]}]}
    with pytest.raises(UserError) as err:
        parse_vocabulary(bad_role, "v.yaml")
    assert "task_themes.0.role" in str(err.value) and "'boss'" in str(err.value)
    assert "operator" in str(err.value) and "manager" in str(err.value)
    bad_domain = {**GOOD, "task_themes": [{"role": "manager", "theme": "Rank", "needs": ["x"]}]}
    with pytest.raises(UserError, match=r"unknown domain 'x'.*valid: iot, fmsr"):
        parse_vocabulary(bad_domain, "v.yaml")


def test_file_missing_or_for_another_class(tmp_path: Path) -> None:
    (tmp_path / "pump").mkdir()
    (tmp_path / "pump" / "asset.yaml").write_text("asset_class: pump\n")
    with pytest.raises(UserError, match=r"asset class 'pump' has no vocabulary.yaml"):
        load_vocabulary("pump", tmp_path)
    _write(tmp_path, yaml.safe_dump({**GOOD, "asset_class": "fan"}))
    with pytest.raises(UserError, match=r"asset_class must equal its folder name.*'fan'"):
        load_vocabulary("pump", tmp_path)
    _write(tmp_path, yaml.safe_dump(GOOD))
    assert load_vocabulary("pump", tmp_path).plural == "pumps"
