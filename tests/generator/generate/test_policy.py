"""Domain policies: the shipped files load, fit upstream data and our families; bad files fail."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from generator.assetdef import DOMAINS, load_asset_class
from generator.errors import UserError
from generator.generate.checks import normalise_type
from generator.generate.policy import POLICIES_DIR, load_policies
from generator.tools.registry import load_tools

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "upstream"
UPSTREAM_FILES = [
    UPSTREAM / "assetopsbench_all_utterance.jsonl",
    UPSTREAM / "paper_generated_transformer_scenarios.json",
]
GOOD = (POLICIES_DIR / "iot.yaml").read_text()


def _upstream_records() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for path in UPSTREAM_FILES:
        text = path.read_text()
        if path.suffix == ".jsonl":
            out += [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            out += json.loads(text)
    return out


def test_every_domain_has_a_policy_in_fixed_order() -> None:
    policies = load_policies()
    assert list(policies) == list(DOMAINS)
    assert policies["multiagent"].min_domains_named == 2
    assert all(p.min_domains_named == 1 for d, p in policies.items() if d != "multiagent")


def test_policies_allow_every_category_upstream_uses_for_the_domain() -> None:
    used: dict[str, set[str]] = defaultdict(set)
    for rec in _upstream_records():
        domain = normalise_type(rec.get("type"))
        if domain is not None and isinstance(rec.get("category"), str):
            used[domain].add(str(rec["category"]))
    policies = load_policies()
    assert used["tsfm"] == {"Knowledge Query", "Inference Query", "Anomaly Detection Query",
                            "Tuning Query", "Complex Query"}
    for domain, cats in used.items():
        assert cats <= set(policies[domain].categories), (domain, cats)


def test_text_bounds_admit_every_upstream_text_of_a_typed_record() -> None:
    policies = load_policies()
    for rec in _upstream_records():
        domain = normalise_type(rec.get("type"))
        if domain is None:
            continue
        bounds = policies[domain].text_length
        assert bounds.min_chars <= len(str(rec["text"]).strip()) <= bounds.max_chars, rec["id"]


def test_core_tools_are_registered_tools_of_their_domain() -> None:
    registry = load_tools()
    for domain, policy in load_policies().items():
        if domain == "vibration":  # no vibration tools for the transformer class
            continue
        for name in policy.core_tools:
            spec = registry.get(name)
            assert domain == "multiagent" or spec.domain == domain, (domain, name)


def test_categories_of_the_task_families_are_allowed() -> None:
    from generator.generate.families import families_of

    policies = load_policies()
    specs = families_of(load_asset_class("transformer"))
    assert specs, "the transformer class registers task families"
    for spec in specs:
        assert spec.category in policies[spec.domain].categories, (spec.name, spec.category)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path


def test_misspelt_key_names_file_field_and_options(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD.replace("hardness_mix:", "hardnes_mix:"))
    with pytest.raises(UserError) as err:
        load_policies(root)
    msg = str(err.value)
    assert "iot.yaml" in msg and "unknown field 'hardnes_mix'" in msg
    assert "hardness_mix" in (err.value.options or [])


def test_misspelt_nested_key_lists_the_nested_options(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD.replace("{min_chars: 20,", "{min_char: 20,"))
    with pytest.raises(UserError) as err:
        load_policies(root)
    assert "text_length.min_char" in str(err.value)
    assert err.value.options == ["min_chars", "max_chars"]


def test_bad_literal_value_lists_the_valid_values(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD.replace(
        "required_grounding: [site, asset_id, sensor]", "required_grounding: [site, unit]"))
    with pytest.raises(UserError) as err:
        load_policies(root)
    assert "required_grounding.1" in str(err.value) and err.value.value == "unit"
    assert set(err.value.options or []) == {"site", "asset_id", "sensor"}


def test_bounds_out_of_order_are_rejected(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD.replace("max_chars: 600", "max_chars: 5"))
    with pytest.raises(UserError, match=r"min_chars .* must not exceed max_chars"):
        load_policies(root)


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", "domain: iot\ncategories: [a, b\n")
    with pytest.raises(UserError, match=r"iot.yaml: line \d+ column \d+ is not valid YAML"):
        load_policies(root)


def test_file_name_must_match_domain_and_domain_must_exist(tmp_path: Path) -> None:
    root = _write(tmp_path, "fmsr.yaml", GOOD)
    with pytest.raises(UserError, match="must equal the file name"):
        load_policies(root)
    other = tmp_path / "x"
    other.mkdir()
    _write(other, "chiller.yaml", GOOD.replace("domain: iot", "domain: chiller"))
    with pytest.raises(UserError) as err:
        load_policies(other)
    assert err.value.value == "chiller" and "iot" in (err.value.options or [])


def test_missing_or_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        load_policies(tmp_path / "nope")
    with pytest.raises(UserError, match=r"holds no \*\.yaml"):
        load_policies(tmp_path)


def test_nontrivial_share_must_be_a_fraction(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD + "nontrivial_share: {iot_sensor_stat: 1.5}\n")
    with pytest.raises(UserError) as err:
        load_policies(root)
    assert "nontrivial_share.iot_sensor_stat" in str(err.value) and err.value.value == 1.5


def test_nontrivial_share_names_families_of_the_domain_that_label_outcomes() -> None:
    from generator.generate.families import families_of
    from generator.generate.policy import parse_policy
    from generator.generate.stages import check_share_targets

    asset = load_asset_class("transformer")
    policies = load_policies()
    check_share_targets(asset, policies)  # the shipped files are consistent

    data = yaml.safe_load((POLICIES_DIR / "fmsr.yaml").read_text())
    data["nontrivial_share"] = {"fmsr_dga_stord": 0.4}
    bad = dict(policies, fmsr=parse_policy(data, "fmsr.yaml"))
    with pytest.raises(UserError) as err:
        check_share_targets(asset, bad)
    assert err.value.value == "fmsr_dga_stord" and "fmsr_dga_stored" in (err.value.options or [])
    # A family without outcome labels (a failure-mode listing) cannot have a target.
    unlabelled = {s.name: s for s in families_of(asset, "fmsr")}["fmsr_sensor_failure_modes"]
    assert unlabelled.outcome is None
    data["nontrivial_share"] = {unlabelled.name: 0.4}
    with pytest.raises(UserError, match="labels no outcomes"):
        check_share_targets(asset, dict(policies, fmsr=parse_policy(data, "fmsr.yaml")))
