"""``scenariogen families list|describe``: every registered family, read from the registries."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from generator.assetdef import available_asset_classes, load_asset_class
from generator.cli import app
from generator.config import PROJECT_ROOT, StoreSettings
from generator.generate.draw.families import families_of
from generator.tools.registry import TOOLS, load_tools

runner = CliRunner()


def test_list_names_every_registered_family_with_its_domain_and_kind() -> None:
    result = runner.invoke(app, ["families", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.output)}
    expected = {
        spec.name: (cls, spec.domain, "closed" if spec.deterministic else "open")
        for cls in available_asset_classes()
        for spec in families_of(load_asset_class(cls))
    }
    assert {n: (r["asset_class"], r["domain"], r["kind"]) for n, r in rows.items()} == expected
    assert {"open", "closed"} <= {r["kind"] for r in rows.values()}


def test_list_of_one_class_and_its_count_line() -> None:
    result = runner.invoke(app, ["families", "list", "chiller"])
    assert result.exit_code == 0, result.output
    n = len(families_of(load_asset_class("chiller")))
    assert f"{n} families (chiller {n};" in result.output.splitlines()[-1]
    assert "transformer" not in result.output


def test_describe_without_the_store_shows_the_first_template_phrasing() -> None:
    templates = yaml.safe_load((PROJECT_ROOT / "assets/transformer/templates.yaml").read_text())
    family = templates["families"]["wo_oil_treatment"]
    result = runner.invoke(app, ["families", "describe", "wo_oil_treatment", "--no-draw"])
    assert result.exit_code == 0, result.output
    assert "domain wo" in result.output and "closed" in result.output
    assert family["variants"][0]["operator"][0] in result.output
    assert "tools (drawn example)" not in result.output  # unknown without a draw


def test_describe_an_unknown_family_is_one_error_line_and_exit_2() -> None:
    from generator.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["families", "describe", "wo_oil_treatmnt"])
    assert exc.value.code == 2


def test_describe_of_a_family_another_class_owns_is_an_error() -> None:
    result = runner.invoke(app, ["families", "describe", "wo_oil_treatment", "--asset",
                                 "chiller", "--no-draw"])
    assert result.exit_code != 0
    assert "unknown task family 'wo_oil_treatment' of asset class 'chiller'" in str(
        result.exception)


@pytest.mark.couch
def test_describe_draws_a_real_example_on_the_seeded_store(
    seeded_settings: StoreSettings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import generator.config

    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(generator.config, "store_settings", lambda: seeded_settings)
    result = runner.invoke(app, ["families", "describe", "wo_oil_treatment", "--json"])
    assert result.exit_code == 0, result.output
    described = json.loads(result.output)
    assert described["example_source"] == "draw"
    assert not re.search(r"\{\w+\}", described["example_text"])  # placeholders filled
    load_tools()
    assert described["tools"] and all(t["tool"] in TOOLS for t in described["tools"])
    assert described["example_answer"]
    assert all(r["outcome"] in {"same", "stated"} for r in described["readings"])
