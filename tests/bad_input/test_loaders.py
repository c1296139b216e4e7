"""Issue 13.5 at the unit level: the bounded loaders, asset.yaml hooks, LLM budget weights."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator import safeparse
from generator.assetdef import ASSETS_DIR, load_asset_file, parse_asset_class
from generator.errors import UserError
from generator.generate.run.budget import allocate, propose_budget
from generator.generate.run.policy import load_policies
from generator.llm.client import LLMClient, parse_reply
from generator.llm.fake import ScriptedChatModel
from tests.generator.generate._factories import make_profile, simple_asset

RAW: dict[str, Any] = yaml.safe_load((ASSETS_DIR / "transformer" / "asset.yaml").read_text())

# -- strict, bounded JSON -------------------------------------------------------------------


def test_ordinary_json_is_unchanged() -> None:
    text = '{"a": [1, 2.5, -3e2, "x[{"], "b": {"c": null, "d": true}, "e": "\\"]"}'
    assert safeparse.loads(text) == json.loads(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 65 + "]" * 65, "nested deeper than 64"),
        ('{"a":' * 65 + "1" + "}" * 65, "nested deeper than 64"),
        ("[" * 100_000, "nested deeper than 64"),  # unbalanced: the parser's RecursionError
        ("[" + "1" * 101 + "]", "integer has 101 digits, over the limit of 100"),
        ("[-" + "1" * 101 + "]", "integer has 101 digits"),
        ("[NaN]", "NaN is not strict JSON"),
        ("[-Infinity]", "-Infinity is not strict JSON"),
        ("[1e" + "9" * 200 + "]", "a number has 202 characters"),
    ],
)
def test_limits(text: str, message: str) -> None:
    with pytest.raises(safeparse.UnsafeInput, match=message):
        safeparse.loads(text)


def test_depth_counts_brackets_outside_strings_only() -> None:
    # 64 levels of arrays whose innermost string holds 500 opening brackets: depth is 64.
    text = "[" * 63 + '["' + "[" * 500 + '"]' + "]" * 63
    value = safeparse.loads(text)
    for _ in range(64):
        value = value[0]
    assert value == "[" * 500
    with pytest.raises(safeparse.UnsafeInput):
        safeparse.loads("[" + text + "]")


def test_size_limit() -> None:
    with pytest.raises(safeparse.UnsafeInput, match="over the limit of 10"):
        safeparse.loads("[1, 2, 3, 4, 5]", safeparse.Limits(max_chars=10))


def test_syntax_errors_stay_json_errors() -> None:
    with pytest.raises(json.JSONDecodeError):
        safeparse.loads("{hydrogen: 5")


def test_load_json_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text("[" * 1000 + "]" * 1000)
    with pytest.raises(UserError, match=r"^fake LLM script .*script.json is refused \(arrays"):
        safeparse.load_json_file(path, "fake LLM script")
    with pytest.raises(UserError, match="does not exist"):
        safeparse.load_json_file(tmp_path / "missing.json", "fake LLM script")


# -- YAML --------------------------------------------------------------------------------

# A billion-laughs document: 9 levels of 9 aliases each expand to 9^9 ≈ 387 million strings.
ALIAS_BOMB = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{n}: &{n} [{','.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


def _asset_file(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "transformer"
    folder.mkdir(exist_ok=True)
    path = folder / "asset.yaml"
    path.write_text(text)
    return path


def test_alias_bomb_is_refused(tmp_path: Path) -> None:
    assert len(ALIAS_BOMB) < 420  # the 405-byte bomb, give or take the names
    with pytest.raises(UserError, match=r"line 2 column \d+ is not valid YAML \(aliases"):
        load_asset_file(_asset_file(tmp_path, ALIAS_BOMB))


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 20_000 + "]" * 20_000,
        # Unclosed: PyYAML's scanner was quadratic in the open flow levels (minutes).
        "a: " + "[" * 20_000 + "x",
        "a: " + "[a, " * 20_000,
        "".join("  " * i + "k:\n" for i in range(2_000)),
    ],
    ids=["flow", "flow-unclosed", "flow-with-items", "block"],
)
def test_deep_yaml_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(UserError, match="collections nested deeper than 64 levels"):
        load_asset_file(_asset_file(tmp_path, text))


def test_a_repeated_key_is_refused_with_both_lines(tmp_path: Path) -> None:
    # A merge once doubled `tools:` in an asset.yaml; PyYAML kept the second list and a
    # tool module silently vanished from the class.
    text = "asset_class: x\ntools: [a.b]\nfamilies: []\ntools: [c.d]\n"
    with pytest.raises(UserError, match=r"line 4 column 1 is not valid YAML \(duplicate key "
                                        r"'tools'"):
        load_asset_file(_asset_file(tmp_path, text))


def test_equal_keys_in_different_mappings_are_fine() -> None:
    assert safeparse.yaml_loads("a: {k: 1}\nb: {k: 2}\n") == {"a": {"k": 1}, "b": {"k": 2}}


def test_project_yaml_still_loads() -> None:
    assert safeparse.yaml_loads((ASSETS_DIR / "transformer" / "asset.yaml").read_text()) == RAW
    assert len(load_policies()) >= 5


# -- asset.yaml hooks and database names -------------------------------------------------


@pytest.mark.parametrize("field", ["tools", "families"])
def test_missing_module_is_one_line(field: str) -> None:
    data = copy.deepcopy(RAW)
    data[field] = [*data[field], "assets.transformer.no_such_module"]
    asset = parse_asset_class(data, "asset.yaml")
    with pytest.raises(UserError) as err:
        asset.import_hook("assets.transformer.no_such_module", field)
    assert f"field {field} names module 'assets.transformer.no_such_module'" in str(err.value)
    assert f"correct `{field}` in assets/transformer/asset.yaml" in str(err.value)


def test_missing_simulator_function() -> None:
    data = copy.deepcopy(RAW)
    data["simulator"] = "assets.transformer.simulator:no_such_function"
    with pytest.raises(UserError, match="names 'no_such_function', which module"):
        parse_asset_class(data, "asset.yaml").load_simulator()


@pytest.mark.parametrize("name", ["Transformer", "_x", "a b", "x" * 300, "../etc"])
def test_bad_database_name(name: str) -> None:
    data = copy.deepcopy(RAW)
    data["databases"]["telemetry"] = name
    with pytest.raises(UserError, match=r"field databases\.telemetry: String should match"):
        parse_asset_class(data, "asset.yaml")


def test_bad_module_path() -> None:
    data = copy.deepcopy(RAW)
    data["tools"] = ["assets/transformer/tools_data"]
    with pytest.raises(UserError, match=r"field tools.0: String should match"):
        parse_asset_class(data, "asset.yaml")


# -- LLM replies ---------------------------------------------------------------------------


def test_deep_llm_reply_is_a_rejection_not_a_recursion_error() -> None:
    value, error = parse_reply("[" * 100_000 + "]" * 100_000, safeparse.Limits)  # type: ignore[arg-type]
    assert value is None and error is not None
    assert "reply is not acceptable JSON: arrays/objects nested deeper than 64" in error


async def test_budget_reply_of_1e308_splits_like_equal_weights() -> None:
    profile = make_profile([simple_asset("A-TX01", "A"), simple_asset("B-TX01", "B")])
    reply = '{"weights": {"iot": 1e308, "fmsr": 1e308}, "rationale": "huge"}'
    proposal = await propose_budget(  # type: ignore[arg-type]
        profile, 10, LLMClient.from_model(ScriptedChatModel([reply])))
    assert proposal == {"iot": 1e308, "fmsr": 1e308}
    budget = allocate(profile, load_policies(), 10, proposal=proposal)  # type: ignore[arg-type]
    # 1e308 + 1e308 overflowed to inf (quotas NaN) before; scaled by the largest they are
    # 1 : 1, so 10 splits 5 and 5 and every other domain gets 0.
    assert budget.per_domain == {"iot": 5, "fmsr": 5, "tsfm": 0, "wo": 0,
                                 "vibration": 0, "multiagent": 0}


async def test_budget_reply_with_nan_falls_back() -> None:
    profile = make_profile([simple_asset("A-TX01", "A"), simple_asset("B-TX01", "B")])
    for reply in ('{"weights": {"iot": NaN}}', '{"weights": {"iot": "NaN", "fmsr": 1}}'):
        proposal = await propose_budget(  # type: ignore[arg-type]
            profile, 10, LLMClient.from_model(ScriptedChatModel([reply])))
        if proposal is None:  # the literal NaN: not strict JSON, an unusable reply
            continue
        budget = allocate(profile, load_policies(), 10, proposal=proposal)  # type: ignore[arg-type]
        assert "llm proposal: dropped invalid weight nan for iot" in budget.reasoning
        assert budget.per_domain["fmsr"] == 10 and budget.total == 10
