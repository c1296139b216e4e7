"""Grade answers against a held-out set's private references; publish aggregates only.

The full grades and the unanimous-failure report (:mod:`eval.grade_unanimous`: instances
every answers file failed, candidate defects) go to ``private/``; ``public/evaluation.json``
holds per-source means, feasible rates, class aggregates and counts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eval.grade import grade_set
from eval.grade_answers import load_answers
from eval.grade_unanimous import attempts_from_evaluation, build_report
from generator.errors import UserError
from generator.heldout import split
from generator.heldout.leakscan import scan_run


def private_records(root: Path) -> list[dict[str, Any]]:
    """The graded records of a held-out run folder (with their references)."""
    path = root / split.PRIVATE / "instances.json"
    if not path.exists():
        raise UserError(f"{root} is not a held-out run folder (no private/instances.json)",
                        fix="pass the --dir a `scenariogen heldout generate` run wrote")
    return [i["record"] for i in split.read_private(root, "instances.json")]


def evaluate(root: Path, answer_files: list[Path]) -> tuple[dict[str, Any], list[str]]:
    """Grade every answers file; write the private report and the public aggregates.

    The public folder is leak-scanned afterwards (answer values, private asset ids); the
    result is in the summary's ``leak_scan``.

    Returns:
        The public summary and warnings (counts of unusable entries, never their text).
    """
    records = private_records(root)
    warnings: list[str] = []
    reports, sources = {}, []
    for path in answer_files:
        given, problems = load_answers(path)
        if problems:
            warnings.append(f"{path.name}: {len(problems)} unusable entries skipped")
        report = grade_set(records, given)
        reports[path.name] = report
        sources.append((path.name, attempts_from_evaluation(path.name, report, given)))
    unanimous = build_report(sources)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    split.write_private(root, f"evaluation-{stamp}.json", {
        "reports": {k: v.model_dump(mode="json") for k, v in reports.items()},
        "unanimous": unanimous.model_dump(mode="json"),
    })
    summary = {
        "evaluated_at": stamp,
        "instances": len(records),
        "sources": {
            name: {
                "mean_score": round(r.mean_score, 4),
                "feasible_rate": round(r.feasible_rate, 4),
                "by_class": {k: {"n": c.n, "mean_score": round(c.mean_score, 4),
                                 "feasible_rate": round(c.feasible_rate, 4)}
                             for k, c in r.by_class.items()},
            }
            for name, r in reports.items()
        },
        "unanimous_failures": len(unanimous.unanimous_failures),
        "split_failures": len(unanimous.split_failures),
        "pass_rate": unanimous.per_source,
    }
    split.write_public(root, "evaluation.json", summary)
    leak = scan_run(root, [])
    summary["leak_scan"] = leak.model_dump()
    split.write_public(root, "evaluation.json", summary)
    if not leak.clean:
        warnings.append(f"leak scan: {len(leak.hits)} hits in the public files")
    return summary, warnings
