"""`scenariogen validate` on upstream files, our records, bad files, --against and --store."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rapidfuzz import fuzz

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import UserError
from generator.generate.checks.checks import normalise_type
from generator.generate.checks.validate import load_scenario_file, render_report, validate_file
from generator.generate.draw.negatives import build_negatives
from generator.generate.run.policy import load_policies
from generator.tools.registry import ToolContext, load_tools

from ._factories import profile_from_store

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "upstream"
ORIGINAL = UPSTREAM / "assetopsbench_all_utterance.jsonl"
PAPER = UPSTREAM / "paper_generated_transformer_scenarios.json"


def _read(path: Path) -> list[dict[str, Any]]:
    text = path.read_text()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data: list[dict[str, Any]] = json.loads(text)
    return data


def _names_a_tool(text: str, names: list[str]) -> bool:
    """Independent of checks.named_tools: identifiers by token, plain words as code only."""
    tokens = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text.lower()))
    for n in names:
        if "_" in n and n in tokens:
            return True
        if "_" not in n and (f"`{n}`" in text.lower() or re.search(rf"\b{n}\s*\(", text.lower())
                             or re.search(rf"(?<![\w]){n}\s+tools?\b", text.lower())):
            return True
    return False


def _clean_record() -> dict[str, Any]:
    return {
        "id": "transformer_scenario_01", "type": "iot",
        "text": "What was the highest winding temperature of NORTH-TX01 at site NORTH on "
                "2026-06-03?",
        "category": "Inference Query",
        "characteristic_form": "The response reads the hourly telemetry with the history "
                               "tool and reports the maximum wti of NORTH-TX01.",
        "deterministic": True,
    }


async def test_original_assetopsbench_file() -> None:
    records = _read(ORIGINAL)
    report = await validate_file(ORIGINAL)
    assert report.records == len(records) == 141
    assert report.types == {"IoT → iot": 20, "<missing> → None": 20, "TSFM → tsfm": 23,
                            "Workorder → wo": 36, " → multiagent": 42}
    checks = report.checks
    # required fields: every record lacking type, text, category or characteristic_form.
    incomplete = [r for r in records if any(k not in r for k in
                                            ("type", "text", "category", "characteristic_form"))]
    assert checks["required_fields"].failed == len(incomplete) == 78
    # no record names one of our tools in its text (upstream names predict_next_work_order_
    # probability in record 413, which is not a registered tool).
    names = load_tools().names()
    assert checks["no_tool_name_in_text"].failed == sum(
        _names_a_tool(r["text"], names) for r in records) == 0
    assert "predict_next_work_order_probability" in next(
        r["text"] for r in records if r["id"] == 413)
    # near-duplicates: each record against the ones before it, brute force.
    texts = [" ".join(r["text"].lower().split()) for r in records]
    dups = sum(any(fuzz.ratio(texts[i], texts[j]) >= 90 for j in range(i)) for i in
               range(len(texts)))
    assert checks["near_duplicate"].failed == dups
    # every category a typed record uses is allowed; FMSR records (no type) are skipped.
    assert checks["category_allowed"].failed == 0
    assert checks["category_allowed"].skipped == 20
    assert checks["unique_id"].failed == 0
    assert checks["seed_values_in_text"].skip_reasons == {"no task seed": 141}
    assert checks["grounded_entities_exist"].skip_reasons == {"no store inventory": 141}
    assert report.exit_code == 1


async def test_paper_transformer_file() -> None:
    records = _read(PAPER)
    report = await validate_file(PAPER)
    assert report.records == 50
    policies = load_policies()
    registry = load_tools()
    single = multi = 0
    for r in records:
        core = policies[r["type"]].core_tools
        named = [n for n in core if _names_a_tool(r["characteristic_form"], [n])]
        if r["type"] != "multiagent":
            single += len(named) >= 1
        else:  # two core tools from two different domains
            multi += len(named) >= 2 and len({registry.get(n).domain for n in named}) >= 2
    assert (single, multi) == (23, 4)
    cf = report.checks["core_tools_in_characteristic_form"]
    assert cf.passed + cf.failed == 50 and cf.passed == single + multi
    assert report.checks["schema"].failed == 0
    assert report.checks["category_allowed"].failed == 0
    assert report.checks["text_length"].failed == 0
    assert {f.check for f in report.failures} == {
        "core_tools_in_characteristic_form", "parameter_leak"}
    # the paper's texts that name a sensor by its code (wti, oti, oti_t, power_factor,
    # water_content, dielectric_rigidity, co, ati), read one by one: scenarios 3, 4, 8, 19, 23,
    # 25, 34, 38, 44 and 47, and 7, 37 and 49 ("values of co, co2, and methane sensors":
    # the vocabulary says "dissolved carbon monoxide"; co2 is not a letters-only code)
    leaks = {f.id for f in report.failures if f.check == "parameter_leak"}
    assert leaks == {f"transformer_scenario_{n:02d}" for n in (3, 4, 7, 8, 19, 23, 25, 34, 37,
                                                             38, 44, 47, 49)}
    # the paper's iot rubrics name get_sensors / get_history, which are not our tool names
    assert all(f.id in {r["id"] for r in records} for f in report.failures)
    assert "transformer_scenario_01" in {f.id for f in report.failures}
    text = render_report(report, limit=3)
    assert "core_tools_in_characteristic_form      27      23        0" in text
    # 35 problems of the core-tools check, plus 21 leaks in the texts above (1 each in
    # 3, 4, 7, 19, 23, 25, 34, 37, 49; 2 each in 8, 38, 44; 6 in 47: wti, oti, oti_a, oti_t,
    # ati and "wti = 85°C" as name=value): 56, of which 3 are shown
    assert "... 53 more (raise --limit)" in text


async def test_against_an_earlier_set(tmp_path: Path) -> None:
    report = await validate_file(PAPER, against=PAPER)
    assert report.checks["duplicate_against_file"].failed == 50
    clean = tmp_path / "new.json"
    clean.write_text(json.dumps([_clean_record()]))
    assert (await validate_file(clean, against=PAPER)).exit_code == 0


async def test_a_clean_file_passes(tmp_path: Path) -> None:
    path = tmp_path / "scenarios.jsonl"
    second = {**_clean_record(), "id": "transformer_scenario_02",
              "text": "How many corrective work orders did SOUTH-TX02 get in June 2026?",
              "type": "wo", "category": "Data Query",
              "characteristic_form": "The response calls get_corrective_work_orders for "
                                     "SOUTH-TX02 over June 2026 and reports the count."}
    path.write_text("\n".join(json.dumps(r) for r in (_clean_record(), second)) + "\n")
    report = await validate_file(path)
    assert report.failures == [] and report.exit_code == 0
    assert report.checks["schema"].passed == 2


async def test_duplicate_ids_and_types_normalised(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    a = _clean_record()
    b = {**a, "text": "Which sites hold transformers, and how many units does each have?",
         "type": "IoT", "category": "Knowledge Query"}
    path.write_text(json.dumps({"scenarios": [a, b]}))
    report = await validate_file(path)
    assert [(f.id, f.check) for f in report.failures] == [
        ("transformer_scenario_01", "unique_id")]
    assert normalise_type("IoT") == "iot"


def test_bad_files_are_user_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n\n{"id": 2,\n{"id": 3}\n')
    with pytest.raises(UserError, match=r"bad.jsonl line 3: not valid JSON"):
        load_scenario_file(bad)
    with pytest.raises(UserError, match="does not exist"):
        load_scenario_file(tmp_path / "missing.json")
    obj = tmp_path / "obj.json"
    obj.write_text('{"id": 1}')
    with pytest.raises(UserError, match="expected a JSON list"):
        load_scenario_file(obj)
    nums = tmp_path / "nums.json"
    nums.write_text("[1, 2]")
    with pytest.raises(UserError, match="record 1 is not a JSON object"):
        load_scenario_file(nums)
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"id": 1},\n  {"id": 2\n]')
    with pytest.raises(UserError, match=r"broken.json line 4 column 1"):
        load_scenario_file(broken)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", "validate", *args],
        capture_output=True, text=True, timeout=120, check=False, env={**os.environ},
    )


def test_cli_exit_codes(tmp_path: Path) -> None:
    failing = _cli(str(PAPER), "--limit", "0")
    assert failing.returncode == 1
    # 23 records fail the core-tools check; 4 of the 10 leaking texts pass it: 27
    assert "50 records" in failing.stdout and "27 of 50 records failed" in failing.stdout
    clean = tmp_path / "ok.json"
    clean.write_text(json.dumps([_clean_record()]))
    ok = _cli(str(clean), "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["failures"] == []
    missing = _cli(str(tmp_path / "nope.json"))
    assert missing.returncode == 2
    assert len(missing.stderr.strip().splitlines()) == 1 and "does not exist" in missing.stderr


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(path))
    return path


@pytest.mark.couch
async def test_store_checks_on_our_records(
    seeded_settings: StoreSettings, tmp_path: Path, cache_dir: Path
) -> None:
    profile = await profile_from_store(seeded_settings)
    ctx = ToolContext(load_asset_class("transformer"), seeded_settings)
    try:
        negatives = await build_negatives(profile, ctx, 4, run_seed=2)
    finally:
        ctx.close()
    # a full record of ours (extra fields present, so it must validate as ScenarioRecord)
    # naming a unit the store does not hold
    ghost = negatives[1].model_copy(update={
        "id": "transformer_scenario_09", "negative": False, "family": "iot_extreme",
        "reference_answer": {"max": 1.0},
        "characteristic_form": "The response reads the telemetry with the history tool and "
                               "reports the maximum of NORTH-TX07.",
        "text": "What was the maximum top-oil temperature of NORTH-TX07 at site NORTH on "
                "2026-06-02?",
        "grounding": {"site": "NORTH", "asset_id": "NORTH-TX07",
                      "sensor": negatives[1].tool_sequence[0].args["sensors"][0]},
    }).model_dump(mode="json")
    records = [n.model_dump(mode="json") for n in negatives] + [ghost]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(records))
    report = await validate_file(path, use_store=True, settings=seeded_settings)
    assert report.checks["provably_unanswerable"].passed == 4
    assert [(f.id, f.check, f.problem) for f in report.failures] == [
        ("transformer_scenario_09", "grounded_entities_exist",
         "asset 'NORTH-TX07' is not in the store")]
    assert report.checks["grounded_entities_exist"].skip_reasons == {"negative scenario": 4}
    offline = await validate_file(path)
    assert offline.checks["provably_unanswerable"].skip_reasons == {
        "no store access": 4, "not a negative scenario": 1}


@pytest.mark.couch
async def test_a_template_run_validates_with_seeds_and_recomputation(
    seeded_settings: StoreSettings, tmp_path: Path, cache_dir: Path
) -> None:
    from generator.generate.run.pipeline import Pipeline
    from generator.generate.run.run_config import GenerateConfig

    cfg = GenerateConfig(n=15, seed=4, out_dir=str(tmp_path), run_id="r", negatives=2)
    await Pipeline(cfg, settings=seeded_settings).run()
    run = tmp_path / "r"
    report = await validate_file(run / "scenarios.json", use_store=True, settings=seeded_settings)
    assert report.records == 15 and report.failures == [], render_report(report)
    accepted = [json.loads(x) for x in (run / "accepted.jsonl").read_text().splitlines()]
    # Every record with a seed, open ones (rubric-graded, computed facts) included.
    with_seed = sum(x["seed"] is not None for x in accepted)
    for name in ("seed_values_in_text", "record_matches_seed", "reference_answer_recomputes"):
        assert report.checks[name].passed == with_seed > 0, name
    closed = sum(bool(x["seed"] and x["seed"]["closed_form"]) for x in accepted)
    assert report.checks["grounded_entities_exist"].passed == 15 - closed
    negatives = await validate_file(run / "negative_scenarios.json", use_store=True,
                                    settings=seeded_settings)
    assert negatives.failures == [] and negatives.checks["provably_unanswerable"].passed == 2

    # Tamper with one seed's stored answer and one record's text: both are caught, by id.
    lines = [json.loads(x) for x in (run / "accepted.jsonl").read_text().splitlines()]
    seeded = [x for x in lines if x["seed"] is not None]
    # the second: a later seed whose text must carry a value (a fleet-wide question has none)
    first = seeded[0]
    second = next(x for x in seeded[1:] if x["seed"]["mentions"])
    key = next(iter(first["seed"]["answer"]))
    first["seed"]["answer"][key] = "tampered"
    mention = second["seed"]["mentions"][0]
    second["record"]["text"] = second["record"]["text"].replace(mention, "somewhere")
    (run / "accepted.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    bad = await validate_file(run / "accepted.jsonl", use_store=True, settings=seeded_settings)
    failed = {(f.id, f.check) for f in bad.failures}
    rid1, rid2 = first["record"]["id"], second["record"]["id"]
    assert (rid1, "reference_answer_recomputes") in failed
    assert (rid1, "record_matches_seed") in failed
    assert (rid2, "seed_values_in_text") in failed
    assert {i for i, _ in failed} == {rid1, rid2}
