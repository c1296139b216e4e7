"""Exported JSON Schemas: committed files are current, and records validate against them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from generator.generate.checks.schemas import SCHEMAS_DIR, export_schemas, load_schema, schema_texts
from generator.generate.model import (
    GENERATOR_VERSION,
    Rejection,
    ScenarioProvenance,
    ScenarioRecord,
    TaskSeed,
    ToolCall,
)
from generator.generate.run.policy import load_policies

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "upstream"


def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _record() -> ScenarioRecord:
    return ScenarioRecord(
        id="transformer_scenario_01", type="iot", text="What was the peak load of NORTH-TX01?",
        category="Inference Query",
        characteristic_form="The response uses the history tool and reports 31.2 MVA.",
        deterministic=True, uuid="00000000-0000-5000-8000-000000000000",
        asset_class="transformer", difficulty="easy", expected_tools=["history"],
        tool_sequence=[ToolCall(name="history", args={"site_name": "NORTH",
                                                      "asset_id": "NORTH-TX01",
                                                      "start": "2026-06-01"})],
        reference_answer={"max": 31.2}, tolerance={"max": 0.05}, family="iot_extreme",
        grounding={"site": "NORTH", "asset_id": "NORTH-TX01"},
        provenance=ScenarioProvenance(
            generator_version=GENERATOR_VERSION, run_id="r1", verbaliser="template",
            model="none", prompt_version="t1", batch=0, attempts=1, family="iot_extreme",
            draw=0),
    )


def test_committed_schema_files_are_up_to_date() -> None:
    for name, text in schema_texts().items():
        path = SCHEMAS_DIR / name
        assert path.exists(), f"{name} missing: run export_schemas()"
        assert path.read_text() == text, f"{name} is stale: run export_schemas()"


def test_export_writes_every_file(tmp_path: Path) -> None:
    paths = export_schemas(tmp_path)
    assert sorted(p.name for p in paths) == sorted(schema_texts())
    for p in paths:
        doc = json.loads(p.read_text())
        assert doc["$id"].endswith(p.name)
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_scenario_records_validate_and_bad_ones_do_not() -> None:
    v = _validator("scenario.schema.json")
    good: dict[str, Any] = _record().model_dump(mode="json")
    v.validate(good)
    for broken in (
        {k: x for k, x in good.items() if k != "characteristic_form"},
        {**good, "difficulty": "extreme"},
        {**good, "colour": "red"},  # extra="forbid" is exported as additionalProperties
        {**good, "tool_sequence": [{"name": "history"}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            v.validate(broken)
    # the core AssetOpsBench schema accepts our records too (extra fields allowed)
    _validator("assetopsbench_scenario.schema.json").validate(good)


def test_seed_rejection_and_policy_documents_validate() -> None:
    seed = TaskSeed(
        family="iot_extreme", domain="iot", category="Inference Query", role="operator", draw=0,
        params={}, mentions=["NORTH-TX01"], tool_sequence=[ToolCall(name="sites", args={})],
        answer={"sites": ["NORTH"]}, answer_summary="NORTH", difficulty="easy",
    )
    _validator("task_seed.schema.json").validate(seed.model_dump(mode="json"))
    with pytest.raises(jsonschema.ValidationError):  # min_length=1 on tool_sequence
        _validator("task_seed.schema.json").validate(
            {**seed.model_dump(mode="json"), "tool_sequence": []})
    rej = Rejection(domain="iot", seed_key="iot_extreme#0", stage="early",
                    reasons=["text_length: too short"], raw="Hi?", attempt=1)
    _validator("rejection.schema.json").validate(rej.model_dump(mode="json"))
    with pytest.raises(jsonschema.ValidationError):
        _validator("rejection.schema.json").validate({**rej.model_dump(mode="json"),
                                                      "stage": "judge"})
    policy_v = _validator("domain_policy.schema.json")
    for policy in load_policies().values():
        policy_v.validate(policy.model_dump(mode="json"))


def test_upstream_records_against_the_core_schema() -> None:
    v = _validator("assetopsbench_scenario.schema.json")
    paper = json.loads((UPSTREAM / "paper_generated_transformer_scenarios.json").read_text())
    for rec in paper:
        v.validate(rec)
    lines = (UPSTREAM / "assetopsbench_all_utterance.jsonl").read_text().splitlines()
    original = [json.loads(line) for line in lines if line.strip()]
    valid = [r for r in original if v.is_valid(r)]
    # Counted independently: records that carry type, category and characteristic_form.
    complete = [r for r in original
                if all(k in r for k in ("type", "category", "characteristic_form"))]
    assert len(valid) == len(complete) == 63
