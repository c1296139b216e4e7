"""`aob-hf` / `aob-json` exports of a 50-scenario run, checked against upstream's own rows.

Upstream facts used here come from the real upstream file
``tests/fixtures/upstream/assetopsbench_all_utterance.jsonl`` (IBM/AssetOpsBench
``scenarios/all_utterance.jsonl``, Apache-2.0, copied unchanged; see that folder's README),
not from our code: its ``type`` values and its integer ids.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from generator.errors import UserError
from generator.export import export_run
from generator.export.aob_records import from_upstream
from generator.export.ids import IdRange, assign_ids
from generator.export.model import ExportOptions
from generator.export.source import load_run
from generator.export.vocab import upstream_category
from generator.generate.model import ScenarioRecord

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = ROOT / "tests" / "fixtures" / "upstream" / "assetopsbench_all_utterance.jsonl"
SCHEMA = json.loads((ROOT / "schemas" / "aob_hf_utterance.schema.json").read_text())
# The dataset's eight categories, as the utterance design guideline lists them.
EIGHT = {"Knowledge Query", "Data Query", "Inference Query", "Tuning Query",
         "Anomaly Detection Query", "Complex Query", "Decision Support", "Prediction"}
MISSING = object()


def _upstream_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in UPSTREAM.read_text().splitlines() if line.strip()]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def hf(run50: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hf")
    export_run(run50, "aob-hf", out)
    return out


def test_every_record_has_an_integer_id_upstream_type_and_category(hf: Path, run50: Path) -> None:
    rows = _lines(hf / "all_utterance.jsonl")
    ours = load_run(run50).records
    assert len(rows) == len(ours) == 52  # 50 + 2 negatives
    upstream = _upstream_rows()
    # The type values upstream's file uses, MISSING for its FMSR rows (ids 101-120).
    upstream_types = {r.get("type", MISSING) for r in upstream}
    assert upstream_types == {"IoT", "TSFM", "Workorder", "", MISSING}
    fmsr_upstream = [r for r in upstream if 101 <= r["id"] <= 120]
    assert fmsr_upstream and all("type" not in r for r in fmsr_upstream)
    assert {r.get("category") for r in upstream} - {None} <= EIGHT  # the list matches upstream

    ids = [r["id"] for r in rows]
    assert all(type(i) is int and 1_000_000 <= i <= 9_999_999 for i in ids)
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {r["id"] for r in upstream}
    expected_type = {"iot": "IoT", "tsfm": "TSFM", "wo": "Workorder", "multiagent": "",
                     "fmsr": MISSING}
    for row, rec in zip(rows, ours, strict=True):
        assert row.get("type", MISSING) == expected_type[rec.type], rec.id
        assert row["category"] in EIGHT
        assert row["group"] and row["entity"] and row["note"]
        jsonschema.validate(row, SCHEMA)
    domains = {r["scenariogen"]["type"] for r in rows}
    assert {"iot", "fmsr", "tsfm", "wo", "multiagent"} <= domains


def test_round_trip_gives_back_the_exact_records(hf: Path, run50: Path) -> None:
    ours = load_run(run50).records
    back = [from_upstream(r) for r in _lines(hf / "all_utterance.jsonl")]
    assert back == ours
    id_map = json.loads((hf / "id_map.json").read_text())
    rows = _lines(hf / "all_utterance.jsonl")
    assert [(e["id"], e["scenario_id"]) for e in id_map["entries"]] == \
        [(r["id"], r["scenariogen"]["id"]) for r in rows]


def test_expected_answer_and_scoring_method_follow_the_reference(hf: Path) -> None:
    seen = set()
    open_rows = 0
    for row in _lines(hf / "all_utterance.jsonl"):
        rec = row["scenariogen"]
        ref = rec["reference_answer"]
        method = row["scoring_method"]
        seen.add(method)
        if rec["negative"]:
            # A refusal: upstream's static_json abstain mode, no judge needed.
            assert method == "static_json" and row["answer_mode"] == "abstain"
            assert list(json.loads(row["expected_answer"])) == ["abstain"]
        elif not rec["deterministic"]:
            # An open scenario: judged, with its computed facts as a response, its
            # rubric in the upstream characteristic form and whole under `scenariogen`.
            assert method == "llm_judge" and row["deterministic"] is False
            assert list(json.loads(row["expected_answer"])) == ["response"]
            assert rec["rubric"]["required"]
            assert row["characteristic_form"].startswith(rec["characteristic_form"])
            for fact in rec["rubric"]["required"]:
                assert str(fact["expected"]) in row["characteristic_form"]
            open_rows += 1
        elif ref.get("clarification_needed") is True:
            assert method == "static_json" and row["answer_mode"] == "clarification"
        else:
            # The reference's asked keys, scored key by key (see test_aob_upstream_shapes).
            assert method == "static_json" and row["answer_mode"] == "response"
            assert row["expected_result"] == ref
            gold = json.loads(row["expected_answer"])
            assert isinstance(gold, int) or set(gold) <= set(ref)
    assert seen == {"static_json", "llm_judge"}
    assert open_rows >= 1  # the policy's open share puts open families first in their domains


def test_ids_follow_the_documented_rule_and_are_stable(hf: Path, run50: Path,
                                                        tmp_path: Path) -> None:
    rows = _lines(hf / "all_utterance.jsonl")
    # The rule, worked independently: 1e6 + (first 8 bytes of sha256 mod 9e6); a collision
    # would move an id, so check only that every id either equals its hash or was moved up.
    hashed = {}
    for r in rows:
        digest = hashlib.sha256(f"scenariogen-aob-id:{r['scenariogen']['uuid']}".encode()).digest()
        hashed[r["id"]] = 1_000_000 + int.from_bytes(digest[:8], "big") % 9_000_000
    assert sum(1 for i, h in hashed.items() if i == h) == len(rows)  # 52 in 9e6: no collision
    again = tmp_path / "again"
    export_run(run50, "aob-hf", again)
    assert (again / "all_utterance.jsonl").read_text() == \
        (hf / "all_utterance.jsonl").read_text()
    # An earlier map pins its ids even under another range that contains them.
    pinned = tmp_path / "pinned"
    export_run(run50, "aob-hf", pinned,
               ExportOptions(id_start=1, id_end=2**40, id_map=hf / "id_map.json"))
    assert [r["id"] for r in _lines(pinned / "all_utterance.jsonl")] == [r["id"] for r in rows]


def test_a_range_exactly_as_large_as_the_run_uses_every_id(run50: Path) -> None:
    records = load_run(run50).records
    ids = assign_ids(records, IdRange(700, 700 + len(records) - 1))
    assert sorted(ids.values()) == list(range(700, 752))
    with pytest.raises(UserError, match="holds 51 ids for 52 records"):
        assign_ids(records, IdRange(700, 750))
    dup = [records[0], records[0].model_copy()]
    with pytest.raises(UserError, match="share uuid"):
        assign_ids(dup, IdRange())


def test_our_categories_map_into_the_eight() -> None:
    assert upstream_category("Diagnostic Assessment") == "Inference Query"
    assert upstream_category("Recommendation") == "Decision Support"
    assert upstream_category("Workflow Coordination") == "Complex Query"
    assert upstream_category("Tuning Query") == "Tuning Query"
    with pytest.raises(UserError, match="'Musing' has no AssetOpsBench equivalent"):
        upstream_category("Musing")


def test_loads_with_datasets_and_concatenates_with_upstreams_rows(hf: Path,
                                                                   tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    ours = datasets.load_dataset("json", data_files=str(hf / "all_utterance.jsonl"),
                                 split="train", cache_dir=str(tmp_path / "hf"))
    theirs = datasets.load_dataset("json", data_files=str(UPSTREAM), split="train",
                                   cache_dir=str(tmp_path / "hf"))
    assert ours.features["id"].dtype == "int64" == theirs.features["id"].dtype
    both = datasets.concatenate_datasets([theirs, ours])
    assert len(both) == 141 + 52
    # What the CODS track runners do: filter by integer ids.
    wanted = {1, 501, _lines(hf / "all_utterance.jsonl")[0]["id"]}
    picked = both.filter(lambda x: x["id"] in wanted)
    assert sorted(picked["id"]) == sorted(wanted)
    assert picked.filter(lambda x: x["id"] > 10**6)[0]["scenariogen"]["type"] == "iot"


def test_aob_json_is_a_list_with_the_same_ids_and_fmsr_named(hf: Path, run50: Path,
                                                             tmp_path: Path) -> None:
    export_run(run50, "aob-json", tmp_path)
    rows = json.loads((tmp_path / "transformer_scenarios.json").read_text())
    hf_rows = _lines(hf / "all_utterance.jsonl")
    assert [r["id"] for r in rows] == [r["id"] for r in hf_rows]
    for row, hf_row in zip(rows, hf_rows, strict=True):
        if row["scenariogen"]["type"] == "fmsr":
            assert row["type"] == "FMSR" and "type" not in hf_row
        else:
            assert row["type"] == hf_row["type"]
        assert ScenarioRecord.model_validate(row["scenariogen"]).text == row["text"]


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        export_run(tmp_path / "nope", "aob-hf")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match=r"neither scenarios\.json nor accepted\.jsonl"):
        export_run(tmp_path / "empty", "aob-hf")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "scenarios.json").write_text('[{"id": 1}]')
    with pytest.raises(UserError, match="record 1 field"):
        export_run(tmp_path / "bad", "aob-hf")
    with pytest.raises(UserError, match="did you mean 'aob-hf'"):
        export_run(tmp_path / "bad", "aob-hff")
    with pytest.raises(UserError, match="not START-END"):
        IdRange.parse("10-1")



def test_cli_exports_and_refuses_bad_options_in_one_line(run50: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "generator.cli", "export", *args],
                              capture_output=True, text=True, timeout=120, check=False)

    ok = cli(str(run50), "--format", "aob-hf", "--out", str(tmp_path / "x"))
    assert ok.returncode == 0, ok.stderr
    assert "exported 52 scenarios as aob-hf" in ok.stdout
    # Upstream types per domain, counted from the run's own records (fmsr is untyped
    # upstream; negatives keep their domain's type).
    by_type = Counter(r.type for r in load_run(run50).records)
    assert f"Workorder {by_type['wo']}" in ok.stdout
    assert f"(none) {by_type['fmsr']}" in ok.stdout
    assert len(_lines(tmp_path / "x" / "all_utterance.jsonl")) == 52
    for args, message in (
        (["--format", "aob-hf", "--id-range", "9-1"], "not START-END"),
        (["--format", "hf"], "unknown export format 'hf'"),
    ):
        bad = cli(str(run50), *args)
        lines = bad.stderr.strip().splitlines()
        assert bad.returncode == 2 and len(lines) == 1 and message in lines[0], bad.stderr


def test_a_count_only_reference_is_exported_as_the_bare_number(hf: Path, run50: Path) -> None:
    # A record whose reference is one count ({"count": 7}) goes out as static_json "7",
    # the form upstream's static scorer compares; one with two keys stays a JSON object.
    from generator.export.answer import upstream_answer

    rec = next(r for r in load_run(run50).records
               if r.deterministic and not r.negative and r.reference_answer
               and not r.reference_answer.get("clarification_needed"))
    one = upstream_answer(rec.model_copy(update={"reference_answer": {"count": 7}}))
    assert (one.scoring_method, one.expected_answer) == ("static_json", "7")
    two = upstream_answer(rec.model_copy(update={"reference_answer": {"count": 7, "ok": True}}))
    assert two.scoring_method == "static_json"
    assert json.loads(two.expected_answer or "") == {"count": 7, "ok": True}
