"""Which asset class a run is about, and which class's re-derivations audit it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.audit.core import AUDITS, AuditContext, Case
from eval.audit.run import audit_case, build_report, load_cases, load_class_audits, render
from generator.errors import UserError


def _line(sid: str, asset_class: str | None) -> str:
    record: dict[str, Any] = {"id": sid, "text": "q", "reference_answer": {"count": 1}}
    if asset_class is not None:
        record["asset_class"] = asset_class
    seed = {"family": "probe_family", "params": {}, "grounding": {}, "answer": {"count": 1}}
    return json.dumps({"record": record, "seed": seed})


def _run(tmp_path: Path, classes: list[str | None], manifest: str | None) -> Path:
    run = tmp_path / "run"
    run.mkdir(parents=True)
    (run / "accepted.jsonl").write_text(
        "\n".join(_line(f"s{i}", c) for i, c in enumerate(classes)) + "\n")
    if manifest is not None:
        (run / "manifest.json").write_text(json.dumps({"run_id": "run", "asset_class": manifest}))
    return run


def test_the_class_comes_from_the_manifest_or_the_records(tmp_path: Path) -> None:
    asset_class, cases = load_cases(_run(tmp_path / "a", [None, None], "pump"))
    assert asset_class == "pump" and [c.id for c in cases] == ["s0", "s1"]
    assert load_cases(_run(tmp_path / "b", ["pump", "pump"], None))[0] == "pump"


@pytest.mark.parametrize(("classes", "manifest", "named"), [
    (["pump", "fan"], None, "the asset classes fan, pump"),
    (["pump"], "fan", "the asset classes fan, pump"),
    ([None], None, "no asset class"),
])
def test_a_run_of_several_classes_or_none_is_refused(
    tmp_path: Path, classes: list[str | None], manifest: str | None, named: str
) -> None:
    with pytest.raises(UserError, match=named) as err:
        load_cases(_run(tmp_path, classes, manifest))
    assert err.value.fix and "manifest.json" in err.value.fix


def test_a_class_without_an_audit_package_leaves_its_families_unsupported() -> None:
    assert load_class_audits("no_such_class") is False
    assert "probe_family" not in AUDITS
    case = Case(id="s0", family="probe_family", text="q", params={}, grounding={},
                answer={"count": 1}, tolerance={}, rel_tolerance={})
    ctx = AuditContext(raw=None, failure_modes=[])  # type: ignore[arg-type]
    result = audit_case(ctx, case)
    assert result.verdict == "unsupported" and result.unverified_keys == ["count"]
    # no cross-checked classification: the report says nothing of one
    report = build_report("run", [result])
    assert report.truth_checked == 0 and "injected truth" not in render(report)


def test_the_transformer_package_registers_its_re_derivations() -> None:
    assert load_class_audits("transformer") is True
    assert {"iot_latest_value", "fmsr_dga_given", "tsfm_anomalies", "wo_count",
            "ma_dga_to_workorder"} <= set(AUDITS)
