"""Reports: Markdown/HTML contents, W&B aggregates only (a stand-in module, never wandb)."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from eval.judge_rules import RuleJudge
from eval.report import log_wandb, render_markdown, wandb_metrics
from eval.score import score_records

SECRET = "SECRET-FAULT-T3"
RECORDS: list[dict[str, Any]] = [
    {"id": "s1", "type": "fmsr", "category": "Diagnostic Assessment",
     "text": "What fault does the latest oil sample of EAST-TX01 indicate?",
     "characteristic_form": "The response should diagnose the sample using `interpret_dga`.",
     "reference_answer": {"fault_type": SECRET}, "difficulty": "medium"},
]


def test_wandb_logs_aggregates_only(monkeypatch: pytest.MonkeyPatch) -> None:
    score = score_records(RECORDS, judges=[RuleJudge()])
    logged: list[dict[str, Any]] = []
    init_kwargs: dict[str, Any] = {}

    class _Run:
        def log(self, data: dict[str, Any]) -> None:
            logged.append(data)

        def finish(self) -> None:
            pass

    def init(**kwargs: Any) -> _Run:
        init_kwargs.update(kwargs)
        return _Run()

    fake = types.ModuleType("wandb")
    fake.init = init  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "wandb", fake)
    monkeypatch.delenv("WANDB_MODE", raising=False)
    line = log_wandb(score)
    import os

    assert os.environ["WANDB_MODE"] == "offline" and "offline" in line
    assert logged == [wandb_metrics(score)]
    assert all(isinstance(v, int | float) for v in logged[0].values())
    assert SECRET not in repr(logged) + repr(init_kwargs)
    assert "EAST-TX01" not in repr(logged)  # no scenario text either


def test_markdown_names_parts_and_never_prints_reference_values() -> None:
    score = score_records(RECORDS, judges=[RuleJudge()])
    md = render_markdown(score)
    assert "| **static** |" in md and "not run" in md
    assert SECRET not in md and SECRET not in score.model_dump_json()
