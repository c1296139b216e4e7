"""The dry-run 50 points from a :class:`eval.model.DryRunReport`.

Per scenario, from the dry run's result with the same id:

- **plausible (20)**: the grader's score of the final answer against the computed
  reference (``grade.score`` in [0, 1]). Unlike the paper we do not ask an LLM whether
  the answer looks plausible: we grade it.
- **correct tools (15)**: 1 when every expected tool was called (``expected_tools ⊆
  tools_called``, order-free: an agent may list sites before reading history or call a
  tool twice), else 0. The order-aware share (expected tools appear as a subsequence of
  the calls) is reported beside it, not scored.
- **no errors (15)**: 1 when no tool call returned an error and the attempt ended in none
  of the failure classes that are errors of the run (``tool_error``, ``infrastructure``,
  ``max_steps``, ``no_final_answer``, ``asked_clarification``); a wrong answer or wrong
  tools are scored by the two components above, not twice.

A scenario the report has no result for gets 0 on all three. Results whose grade is not
gradable (no reference to grade against: upstream files) leave the scenario out of
*plausible*; when no result is gradable the part does not run and says so, and the
static and judge parts carry the weight (the set score is rescaled over the parts that
ran, see :class:`eval.score_model.SetScore`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from eval.model import DryRunReport, DryRunResult
from eval.score_model import DRYRUN_WEIGHTS, Component, Part
from generator import safeparse
from generator.errors import UserError

ERROR_CLASSES = frozenset(
    {"tool_error", "infrastructure", "max_steps", "no_final_answer", "asked_clarification"}
)


def load_dry_run(path: Path) -> DryRunReport:
    """Read a dry-run report JSON file.

    Raises:
        UserError: The file is missing, not JSON, or not a DryRunReport.
    """
    from generator.userfile import read_text

    text = read_text(path, "dry-run file", max_bytes=safeparse.FILE.max_bytes)
    try:
        data = safeparse.loads(text, safeparse.FILE)
    except ValueError as exc:
        raise UserError(f"cannot read dry-run file {path}: {exc}",
                        fix="give the dryrun.json a dry run wrote") from None
    try:
        return DryRunReport.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise UserError(f"{path} is not a dry-run report: field {loc}: {err['msg']}",
                        fix="give the dryrun.json a dry run wrote (eval.model.DryRunReport)"
                        ) from None


def _subsequence(expected: list[str], called: list[str]) -> bool:
    it = iter(called)
    return all(any(c == e for c in it) for e in expected)


def _no_error(result: DryRunResult) -> bool:
    return result.tool_errors == 0 and result.failure_class not in ERROR_CLASSES


def not_run(note: str) -> Part:
    """The dry-run part when it did not run, with the reason."""
    return Part(
        name="dry_run", max_points=50.0, ran=False, points=None, note=note,
        components=[Component(name=n, max_points=w, points=None, share=None, reason=note)
                    for n, w in DRYRUN_WEIGHTS.items()],
    )


@dataclass
class _Tally:
    """The dry run's findings over the set, scenario by scenario."""

    plausible: list[float] = field(default_factory=list)
    kinds: dict[str, list[float]] = field(default_factory=dict)
    tools_ok: list[bool] = field(default_factory=list)
    ordered_ok: list[bool] = field(default_factory=list)
    no_err: list[bool] = field(default_factory=list)
    per: list[float | None] = field(default_factory=list)
    problems: list[list[str]] = field(default_factory=list)
    missing: int = 0

    def add_missing(self) -> None:
        self.missing += 1
        self.plausible.append(0.0)
        self.tools_ok.append(False)
        self.ordered_ok.append(False)
        self.no_err.append(False)
        self.per.append(0.0)
        self.problems.append(["dry_run: no result for this scenario"])

    def add(self, res: DryRunResult) -> None:
        issues: list[str] = []
        p = res.grade.score if res.grade.gradable else None
        if p is not None:
            self.plausible.append(p)
            self.kinds.setdefault(res.grade.kind, []).append(p)
            if p < 1.0:
                issues.append(f"dry_run: grade {p:.2f}"
                              + (f" ({res.grade.violations[0].message})"
                                 if res.grade.violations else ""))
        expected = list(res.expected_tools)
        t_ok = set(expected) <= set(res.tools_called)
        self.tools_ok.append(t_ok)
        self.ordered_ok.append(_subsequence(expected, list(res.tools_called)))
        if not t_ok:
            lacking = sorted(set(expected) - set(res.tools_called))
            issues.append(f"dry_run: did not call {', '.join(lacking)}")
        e_ok = _no_error(res)
        self.no_err.append(e_ok)
        if not e_ok:
            issues.append(f"dry_run: {res.tool_errors} tool error(s), failure class "
                          f"{res.failure_class}")
        pts = (DRYRUN_WEIGHTS["plausible"] * p if p is not None else 0.0) \
            + DRYRUN_WEIGHTS["correct_tools"] * t_ok + DRYRUN_WEIGHTS["no_errors"] * e_ok
        # Without a gradable grade the scenario's 50 would understate it: rescale to 50.
        self.per.append(round(pts if p is not None else pts * 50.0 / 30.0, 4))
        self.problems.append(issues)

    def components(self, agent: str) -> list[Component]:
        n = len(self.tools_ok)

        def comp(name: str, share: float, reason: str) -> Component:
            w = DRYRUN_WEIGHTS[name]
            return Component(name=name, max_points=w, points=round(w * share, 3),
                             share=round(share, 4), reason=reason)

        plausible = self.plausible
        p_share = sum(plausible) / len(plausible) if plausible else 0.0
        # Open scenarios (rubric) and clarification requests count like the others; say
        # how each way of grading fared.
        by_kind = ", ".join(f"{k} {len(v)} at {sum(v) / len(v):.3f}"
                            for k, v in sorted(self.kinds.items()))
        tools_ok, no_err = self.tools_ok, self.no_err
        return [
            comp("plausible", p_share,
                 f"mean grade {p_share:.3f} over {len(plausible)} graded scenario(s) "
                 f"(agent {agent}; by grading kind: {by_kind})"),
            comp("correct_tools", sum(tools_ok) / n if n else 0.0,
                 f"{sum(tools_ok)} of {n} called every expected tool (order-aware: "
                 f"{sum(self.ordered_ok)})"),
            comp("no_errors", sum(no_err) / n if n else 0.0,
                 f"{sum(no_err)} of {n} ran without tool errors or error failure classes"),
        ]


def score_dry_run(records: list[dict[str, Any]], report: DryRunReport
                  ) -> tuple[Part, list[float | None], list[list[str]]]:
    """The dry-run part, per-scenario points (None when not gradable) and problems.

    Raises:
        UserError: The report shares no scenario id with the set (a report of another set).
    """
    by_id = {r.id: r for r in report.results}
    ids = [str(r.get("id", f"#{i}")) for i, r in enumerate(records)]
    if records and not set(ids) & set(by_id):
        raise UserError(
            f"the dry-run report ({report.agent}, {len(report.results)} results) shares no "
            "scenario id with the scored file",
            fix="give the dry run of this scenario file",
        )
    if not any(r.grade.gradable for r in report.results):
        note = (f"dry run by {report.agent} has no gradable result: the set carries no "
                "reference answers, so plausibility cannot be graded; static and judge "
                "parts carry the weight")
        return not_run(note), [None] * len(records), [[] for _ in records]
    tally = _Tally()
    for rid in ids:
        res = by_id.get(rid)
        if res is None:
            tally.add_missing()
        else:
            tally.add(res)
    components = tally.components(report.agent)
    note = (f"{tally.missing} scenario(s) missing from the dry run (scored 0)"
            if tally.missing else "")
    total = round(sum(c.points or 0.0 for c in components), 3)
    part = Part(name="dry_run", max_points=50.0, ran=True, points=total,
                components=components, note=note)
    return part, tally.per, tally.problems
