"""Domain policies: the shipped files load, fit upstream data and our families; bad files fail."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from generator.assetdef import DOMAINS, available_asset_classes, load_asset_class
from generator.errors import UserError
from generator.generate.checks.checks import normalise_type
from generator.generate.run.policy import (
    POLICIES_DIR,
    load_class_policy,
    load_generic_policies,
    load_policies,
    load_policy,
)
from generator.tools.registry import load_tools, tools_for

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
    load_tools()
    for asset_class in available_asset_classes():
        tools = tools_for(asset_class)
        supported = load_asset_class(asset_class).domains
        for domain, policy in load_policies(asset_class).items():
            if domain not in supported:
                continue
            assert policy.core_tools, (asset_class, domain)
            for name in policy.core_tools:
                assert name in tools, (asset_class, domain, name)
                assert domain == "multiagent" or tools[name].domain == domain, (domain, name)


def test_domain_files_name_only_generic_tools_and_no_class() -> None:
    registry = load_tools()
    for domain, policy in load_generic_policies().items():
        for name in policy.core_tools:
            assert registry.get(name).generic, (domain, name)
    words = set()
    for asset_class in available_asset_classes():
        asset = load_asset_class(asset_class)
        words |= {asset.asset_class, asset.display_name.lower()}
    for path in sorted(POLICIES_DIR.glob("*.yaml")):
        text = path.read_text().lower()
        assert not [w for w in words if w in text], path.name


def test_class_overrides_merge_into_the_domain_policies() -> None:
    generic = load_generic_policies()
    merged = load_policies("transformer")
    # The class's own record tool joins the generic iot tools; the tsfm override sets only
    # a family target, so the rest of the tsfm file stays as written.
    assert "oil_samples" not in generic["iot"].core_tools
    assert merged["iot"].core_tools == ["sites", "assets", "sensors", "history", "oil_samples",
                                        "data_quality"]
    assert merged["tsfm"].core_tools == generic["tsfm"].core_tools
    assert merged["tsfm"].nontrivial_share == {"tsfm_anomalies": 0.6, "tsfm_weekly_pattern": 0.5}
    assert generic["tsfm"].nontrivial_share == {}
    assert load_policy("fmsr", "transformer") == merged["fmsr"]
    assert "interpret_dga" in merged["fmsr"].core_tools


def _class_root(tmp_path: Path, text: str, asset_class: str = "transformer") -> Path:
    folder = tmp_path / asset_class
    folder.mkdir(parents=True)
    (folder / "policy.yaml").write_text(text)
    return tmp_path


def test_add_core_tools_appends_and_fields_replace(tmp_path: Path) -> None:
    root = _class_root(tmp_path, "domains:\n  iot:\n    add_core_tools: [oil_samples, sites]\n"
                       "    hardness_mix: 0.5\n")
    merged = load_policies("transformer", class_root=root)
    # Appended once (sites is already a generic core tool); other fields replaced.
    assert merged["iot"].core_tools == ["sites", "assets", "sensors", "history", "data_quality",
                                        "oil_samples"]
    assert merged["iot"].hardness_mix == 0.5
    assert merged["wo"] == load_generic_policies()["wo"]


def test_class_policy_misspelt_key_names_file_field_and_options(tmp_path: Path) -> None:
    root = _class_root(tmp_path, "domains:\n  iot:\n    add_core_tool: [oil_samples]\n")
    with pytest.raises(UserError) as err:
        load_policies("transformer", class_root=root)
    msg = str(err.value)
    assert "policy.yaml" in msg and "unknown field 'domains.iot.add_core_tool'" in msg
    assert "add_core_tools" in (err.value.options or [])
    with pytest.raises(UserError) as err:
        load_class_policy("transformer", root / "transformer" / "policy.yaml")
    assert "add_core_tools" in (err.value.options or [])


def test_class_policy_unknown_domain_and_empty_core_tools(tmp_path: Path) -> None:
    root = _class_root(tmp_path, "domains:\n  vibrations: {hardness_mix: 0.2}\n")
    with pytest.raises(UserError) as err:
        load_policies("transformer", class_root=root)
    assert err.value.value == "vibrations" and "vibration" in (err.value.options or [])
    # A supported domain left without core tools is refused, naming the fix.
    root = _class_root(tmp_path / "b", "domains:\n  tsfm: {core_tools: []}\n")
    with pytest.raises(UserError, match="supports domain 'tsfm' but its policy has no core"):
        load_policies("transformer", class_root=root)
    root = _class_root(tmp_path / "c", "domains:\n  iot: {hardness_mix: 2}\n")
    with pytest.raises(UserError, match=r"domains\.iot\.hardness_mix") as err:
        load_policies("transformer", class_root=root)
    assert err.value.value == 2


def test_categories_of_the_task_families_are_allowed() -> None:
    from generator.generate.draw.families import families_of

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
        load_generic_policies(root)
    msg = str(err.value)
    assert "iot.yaml" in msg and "unknown field 'hardnes_mix'" in msg
    assert "hardness_mix" in (err.value.options or [])


def test_misspelt_nested_key_lists_the_nested_options(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD.replace("{min_chars: 20,", "{min_char: 20,"))
    with pytest.raises(UserError) as err:
        load_generic_policies(root)
    assert "text_length.min_char" in str(err.value)
    assert err.value.options == ["min_chars", "max_chars"]


def test_bad_literal_value_lists_the_valid_values(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD.replace(
        "required_grounding: [site, asset_id, sensor]", "required_grounding: [site, unit]"))
    with pytest.raises(UserError) as err:
        load_generic_policies(root)
    assert "required_grounding.1" in str(err.value) and err.value.value == "unit"
    assert set(err.value.options or []) == {"site", "asset_id", "sensor"}


def test_bounds_out_of_order_are_rejected(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD.replace("max_chars: 600", "max_chars: 5"))
    with pytest.raises(UserError, match=r"min_chars .* must not exceed max_chars"):
        load_generic_policies(root)


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", "domain: iot\ncategories: [a, b\n")
    with pytest.raises(UserError, match=r"iot.yaml: line \d+ column \d+ is not valid YAML"):
        load_generic_policies(root)


def test_file_name_must_match_domain_and_domain_must_exist(tmp_path: Path) -> None:
    root = _write(tmp_path, "fmsr.yaml", GOOD)
    with pytest.raises(UserError, match="must equal the file name"):
        load_generic_policies(root)
    other = tmp_path / "x"
    other.mkdir()
    _write(other, "chiller.yaml", GOOD.replace("domain: iot", "domain: chiller"))
    with pytest.raises(UserError) as err:
        load_generic_policies(other)
    assert err.value.value == "chiller" and "iot" in (err.value.options or [])


def test_missing_or_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        load_generic_policies(tmp_path / "nope")
    with pytest.raises(UserError, match=r"holds no \*\.yaml"):
        load_generic_policies(tmp_path)


def test_nontrivial_share_must_be_a_fraction(tmp_path: Path) -> None:
    root = _write(tmp_path, "iot.yaml", GOOD + "nontrivial_share: {iot_sensor_stat: 1.5}\n")
    with pytest.raises(UserError) as err:
        load_generic_policies(root)
    assert "nontrivial_share.iot_sensor_stat" in str(err.value) and err.value.value == 1.5


def test_nontrivial_share_names_families_of_the_domain_that_label_outcomes() -> None:
    from generator.generate.draw.families import families_of
    from generator.generate.run.policy import parse_policy
    from generator.generate.run.stages import check_share_targets

    asset = load_asset_class("transformer")
    policies = load_policies()
    check_share_targets(asset, policies)  # the shipped files are consistent

    data = policies["fmsr"].model_dump()
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
