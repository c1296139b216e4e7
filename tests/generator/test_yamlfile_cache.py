"""The parse cache of project YAML files: same value for the same text, failures never kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import UserError
from generator.yamlfile import read_yaml


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(root))
    return root / "yaml"


def test_a_parse_is_kept_and_read_back_unchanged(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("b: 1\na: [1.0, true, null, 'x']\nc: {d: 2}\n")
    first = read_yaml(path)
    assert len(list(cache.glob("*.json"))) == 1
    second = read_yaml(path)
    assert second == first == {"b": 1, "a": [1.0, True, None, "x"], "c": {"d": 2}}
    assert list(second) == ["b", "a", "c"]  # key order kept
    assert [type(v) for v in second["a"]] == [float, bool, type(None), str]
    # Another text is another entry; a corrupt entry is parsed again.
    path.write_text("b: 2\n")
    assert read_yaml(path) == {"b": 2}
    for entry in cache.glob("*.json"):
        entry.write_text("{not json")
    assert read_yaml(path) == {"b": 2}


def test_values_json_would_change_are_not_kept(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("when: 2024-01-02\n")  # a date
    assert str(read_yaml(path)) == "{'when': datetime.date(2024, 1, 2)}"
    path.write_text("1: one\n")  # an integer key
    assert read_yaml(path) == {1: "one"}
    assert not cache.exists() or not list(cache.glob("*.json"))


def test_a_broken_file_fails_every_time(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("a: 1\na: 2\n")  # a repeated key
    for _ in range(2):
        with pytest.raises(UserError, match="duplicate key"):
            read_yaml(path)
    assert not cache.exists() or not list(cache.glob("*.json"))


def test_the_parse_folder_is_no_cache_namespace(tmp_path: Path, cache: Path) -> None:
    from generator.cache import namespaces

    path = tmp_path / "a.yaml"
    path.write_text("a: 1\n")
    read_yaml(path)
    assert cache.is_dir()
    (cache.parent / "profiles").mkdir()
    assert namespaces(cache.parent) == ["profiles"]
