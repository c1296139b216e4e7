"""Fault injection on real subprocesses: SIGKILL with a torn line, a full disk and a
concurrent resume, each resumed to the end and compared with an uninterrupted run.

The 20-case benchmark (with store kills on a private store) is
``.venv/bin/python -m tests.fault.harness --runs 20``; this is its default-suite subset.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings
from tests.fault.harness import Case, Harness, differences, references, run_case

pytestmark = pytest.mark.couch


@pytest.fixture(scope="module")
def reference(
    seeded_settings: StoreSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Harness, dict[str, Any], float]]:
    """The harness on the session's seeded store, its uninterrupted run and a warm run's
    seconds."""
    out = tmp_path_factory.mktemp("faults")
    env = {
        **os.environ,
        "SCENARIOGEN_DB_PREFIX": seeded_settings.db_prefix,
        "SCENARIOGEN_CACHE_DIR": str(out / "cache"),
    }
    h = Harness(out, env)
    want, t_ref = references(h)
    yield h, want, t_ref


def test_a_sigkilled_run_with_torn_lines_resumes_to_the_same_scenarios(
    reference: tuple[Harness, dict[str, Any], float],
) -> None:
    h, want, t_ref = reference
    case = run_case(h, Case(0, "torn_line"), want, t_ref, random.Random(3))
    assert case.first_rc in (-9, 0), case  # killed (or already done: then nothing to tear)
    assert case.identical, case.detail
    if case.first_rc == -9:
        assert case.resume_rcs[-1] == 0


def test_a_full_disk_stops_the_run_with_exit_4_and_resume_finishes_it(
    reference: tuple[Harness, dict[str, Any], float],
) -> None:
    h, want, t_ref = reference
    case = run_case(h, Case(1, "disk_full"), want, t_ref, random.Random(5))
    assert case.first_rc == 4, case
    assert "stopped" in case.refusal and "--resume case-01-disk_full" in case.refusal
    assert "Traceback" not in case.refusal
    assert case.identical, case.detail


def test_a_concurrent_resume_is_refused_with_one_line(
    reference: tuple[Harness, dict[str, Any], float],
) -> None:
    h, want, t_ref = reference
    case = run_case(h, Case(2, "concurrent_resume"), want, t_ref, random.Random(7))
    assert case.refusal.startswith("exit 2: error: run case-02-concurrent_resume is in use by "
                                   "process"), case.refusal
    assert case.first_rc == 0 and case.identical, case.detail
    lines = (h.out / "case-02-concurrent_resume" / "accepted.jsonl").read_text().splitlines()
    assert len(lines) == len(want["scenarios"])  # nothing written twice


def test_the_comparison_sees_a_changed_answer(
    reference: tuple[Harness, dict[str, Any], float], tmp_path: Path
) -> None:
    _, want, _ = reference
    changed = {**want, "scenarios": [dict(r) for r in want["scenarios"]]}
    changed["scenarios"][0]["reference_answer"] = {"changed": True}
    assert differences(changed, want).startswith("records differ")
