"""`scenariogen score`: the set score of any AssetOpsBench-style file, with reasons.

static 20 (:mod:`eval.score_static`) + judge 30 (:mod:`eval.judge`, rule judge by default,
LLM judges through langchain) + dry run 50 (:mod:`eval.score_dryrun`, from a
:class:`eval.model.DryRunReport`).

A part that does not run (``--dry-run off``, a set without reference answers, every
judge verdict unscored) is reported as *not run* with its reason, and the headline
``score_100`` is the points over the parts that ran rescaled to 100; ``points`` and
``max_points`` keep the raw sum. A part is never counted as zero because it did not run.

Private answers stay private: the score holds the reasons a scenario lost points (which
check, which tool) but never a reference answer's values.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.judge import Judge, judge_part, median_ratings, parse_judge_specs, refuse_self_judge
from eval.judge_agreement import agreement
from eval.model import DryRunReport
from eval.score_dryrun import load_dry_run, not_run, score_dry_run
from eval.score_model import (
    HIGH_QUALITY,
    JudgeVerdict,
    Part,
    ScenarioScore,
    SetScore,
    StageCost,
)
from eval.score_static import StaticResult, domain_of, score_static
from generator import safeparse
from generator.errors import UserError
from generator.generate.run.policy import DomainPolicy, load_policies
from generator.generate.verbalise.language_stats import language_stats

DRY_RUN_FORMS = ["text", "reference", "llm:SPEC", "off"]


def load_set(path: Path) -> list[dict[str, Any]]:
    """Records of a scenario file (JSON list, JSONL or a run's accepted.jsonl)."""
    from generator.generate.checks.validate import load_scenario_file, split_accepted

    return split_accepted(load_scenario_file(path))[0]


def manifest_beside(path: Path) -> dict[str, Any] | None:
    """The run manifest next to a scenario file, if there is a readable one."""
    candidate = path if path.name == "manifest.json" else path.parent / "manifest.json"
    from generator.userfile import read_text

    try:
        data = safeparse.loads(
            read_text(candidate, "run manifest", max_bytes=safeparse.FILE.max_bytes),
            safeparse.FILE,
        )
    except (UserError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def generator_model(records: Sequence[dict[str, Any]], manifest: dict[str, Any] | None
                    ) -> str | None:
    """The LLM that wrote the set: the commonest ``provenance.model``, else the manifest's."""
    models = Counter(
        str(r["provenance"]["model"]) for r in records
        if isinstance(r.get("provenance"), dict) and r["provenance"].get("model")
    )
    if models:
        return models.most_common(1)[0][0]
    if manifest:
        llm = (manifest.get("config") or {}).get("llm")
        if isinstance(llm, str):
            return llm
    return None


def judge_label(spec: str, base_url: str | None = None) -> str:
    """The label a judge spec will carry (``rules`` or the LLM spec's label)."""
    if spec == "rules":
        return "rules"
    from generator.llm.spec import parse_llm

    return parse_llm(spec, base_url=base_url).label


def build_judges(specs: Sequence[str], base_url: str | None = None) -> list[Judge]:
    """Judges for parsed specs (``rules`` or an ``--llm``-style spec)."""
    from eval.judge_rules import RuleJudge

    judges: list[Judge] = []
    for spec in specs:
        if spec == "rules":
            judges.append(RuleJudge())
        else:
            from eval.judge_llm import LLMJudge

            judges.append(LLMJudge(spec, base_url=base_url))
    return judges


def _stage_costs(manifest: dict[str, Any] | None, judges: Sequence[Judge],
                 judge_seconds: dict[str, float], static_s: float,
                 dry: DryRunReport | None, usd_per_1k: float | None) -> list[StageCost]:
    def cost(tokens: int) -> float | None:
        return None if usd_per_1k is None else round(tokens * usd_per_1k / 1000.0, 6)

    rows: list[StageCost] = []
    if manifest:
        timings = manifest.get("timings") or {}
        tokens = manifest.get("tokens") or {}
        for phase, secs in timings.items():
            if phase == "total" or phase.startswith("domain_"):
                continue
            rows.append(StageCost(stage=f"generate:{phase}", tokens=0,
                                  seconds=float(secs), cost_usd=cost(0)))
        for stage, use in tokens.items():
            n = int(use.get("input_tokens", 0)) + int(use.get("output_tokens", 0))
            secs = float(use.get("latency_ms", 0)) / 1000.0
            rows.append(StageCost(stage=f"generate:llm:{stage}", tokens=n, seconds=secs,
                                  cost_usd=cost(n)))
    rows.append(StageCost(stage="score:static", tokens=0, seconds=round(static_s, 4),
                          cost_usd=cost(0)))
    for j in judges:
        usage: dict[str, dict[str, int]] = getattr(j, "usage", {}) or {}
        n = sum(int(u.get("input_tokens", 0)) + int(u.get("output_tokens", 0))
                for u in usage.values())
        rows.append(StageCost(stage=f"judge:{j.label}", tokens=n,
                              seconds=round(judge_seconds.get(j.label, 0.0), 4),
                              cost_usd=cost(n)))
    if dry is not None:
        rows.append(StageCost(stage=f"dry_run:{dry.agent}", tokens=dry.tokens,
                              seconds=dry.seconds, cost_usd=cost(dry.tokens)))
    return rows


async def _run_judges(judges: Sequence[Judge], records: list[dict[str, Any]]
                      ) -> tuple[list[list[Any]], dict[str, float]]:
    verdicts = []
    seconds: dict[str, float] = {}
    for j in judges:
        t = time.perf_counter()
        verdicts.append(await j.judge(records))
        seconds[j.label] = time.perf_counter() - t
    return verdicts, seconds


def score_records(
    records: list[dict[str, Any]],
    *,
    path: str = "(records)",
    judges: Sequence[Judge],
    dry_run: DryRunReport | None = None,
    dry_run_note: str = "dry run off",
    manifest: dict[str, Any] | None = None,
    policies: dict[str, DomainPolicy] | None = None,
    usd_per_1k_tokens: float | None = None,
    threshold: float = 0.9,
    check_failures: dict[str, list[str]] | None = None,
) -> SetScore:
    """Score a set with the given judges and (optional) dry-run report.

    Self-judging is checked by :func:`score_path` before the judges are built; callers
    building judges themselves check it with :func:`eval.judge.refuse_self_judge`.
    """
    if not records:
        raise UserError(f"{path} holds no scenario records", fix="score a non-empty file")
    policies = policies if policies is not None else load_policies()
    t = time.perf_counter()
    static = score_static(records, policies, threshold=threshold,
                          check_failures=check_failures)
    static_s = time.perf_counter() - t

    verdicts, judge_seconds = asyncio.run(_run_judges(judges, records))
    labels = [j.label for j in judges]
    medians = [median_ratings([v[i] for v in verdicts]) for i in range(len(records))]
    judge, judge_pts = judge_part(medians, labels)

    problems = [list(p) for p in static.problems]
    dry, dry_pts = _dry_part(records, dry_run, dry_run_note, problems)

    parts: list[Part] = [static.part, judge, dry]
    ran = [p for p in parts if p.ran]
    points = round(sum(p.points or 0.0 for p in ran), 3)
    max_points = sum(p.max_points for p in ran)
    score_100 = round(points / max_points * 100.0, 2) if max_points else 0.0
    scenarios = [
        _scenario_score(rec, i, static, (judge, judge_pts), (dry, dry_pts), medians[i],
                        problems[i] + _low_ratings(i, medians[i], verdicts))
        for i, rec in enumerate(records)
    ]
    flat = [v for per_judge in verdicts for v in per_judge]
    has_refs = sum(isinstance(r.get("reference_answer"), dict) for r in records)
    return SetScore(
        path=path,
        records=len(records),
        has_references=has_refs,
        generator_model=generator_model(records, manifest),
        judges=labels,
        dry_run_agent=dry_run.agent if dry_run is not None and dry.ran else None,
        parts=parts,
        points=points,
        max_points=max_points,
        score_100=score_100,
        high_quality=score_100 > HIGH_QUALITY,
        by_domain=_means(scenarios, "domain"),
        by_difficulty=_means(scenarios, "difficulty"),
        failure_classes=dict(dry_run.failure_classes) if dry_run is not None else {},
        agreement=agreement(labels, verdicts),
        unscored=[v for v in flat if not v.scored],
        verdicts=flat,
        scenarios=scenarios,
        stages=_stage_costs(manifest, judges, judge_seconds, static_s,
                            dry_run if dry.ran else None, usd_per_1k_tokens),
        notes=_notes(parts),
        language=language_stats(
            [r["text"] for r in records if isinstance(r.get("text"), str)]
        ),
    )


def _dry_part(
    records: list[dict[str, Any]], dry_run: DryRunReport | None, note: str,
    problems: list[list[str]],
) -> tuple[Part, list[float | None]]:
    """The dry-run part and its points per record; its problems join ``problems``."""
    if dry_run is None:
        return not_run(note), [None] * len(records)
    dry, dry_pts, dry_problems = score_dry_run(records, dry_run)
    if note and dry.ran:
        dry = dry.model_copy(update={"note": "; ".join(n for n in (dry.note, note) if n)})
    for i, extra in enumerate(dry_problems):
        problems[i] += extra
    return dry, dry_pts


def _low_ratings(
    i: int, medians: dict[str, float], verdicts: list[list[JudgeVerdict]]
) -> list[str]:
    """The record's judge dimensions rated below 4, each with a judge's reason."""
    low = []
    for d, r in medians.items():
        if r < 4:
            why = next((v[i].dimensions[d].reason for v in verdicts
                        if v[i].scored and d in v[i].dimensions
                        and v[i].dimensions[d].rating < 4), "")
            low.append(f"judge {d} {r:g}/5" + (f": {why}" if why else ""))
    return low


def _scenario_score(
    rec: dict[str, Any], i: int, static: StaticResult,
    judged: tuple[Part, list[float | None]], dried: tuple[Part, list[float | None]],
    ratings: dict[str, float], problems: list[str],
) -> ScenarioScore:
    (judge, judge_pts), (dry, dry_pts) = judged, dried
    pts, mx = static.per_record[i], 20.0
    if judge.ran and judge_pts[i] is not None:
        pts += judge_pts[i] or 0.0
        mx += 30.0
    if dry.ran and dry_pts[i] is not None:
        pts += dry_pts[i] or 0.0
        mx += 50.0
    diff = rec.get("difficulty")
    return ScenarioScore(
        id=str(rec.get("id", f"#{i}")),
        domain=domain_of(rec),
        difficulty=diff if isinstance(diff, str) and diff else "unknown",
        static=static.per_record[i],
        judge=judge_pts[i] if judge.ran else None,
        dry_run=dry_pts[i] if dry.ran else None,
        total_100=round(pts / mx * 100.0, 2),
        judge_ratings=ratings,
        problems=problems,
    )


def _means(scenarios: list[ScenarioScore], key: str) -> dict[str, float]:
    groups: dict[str, list[float]] = {}
    for s in scenarios:
        if s.total_100 is not None:
            groups.setdefault(getattr(s, key), []).append(s.total_100)
    return {k: round(statistics.fmean(v), 2) for k, v in sorted(groups.items())}


def _notes(parts: list[Part]) -> list[str]:
    notes = []
    for p in parts:
        if not p.ran:
            notes.append(f"{p.name} not run: {p.note}; score_100 is rescaled over the "
                         "parts that ran")
        elif p.note:
            notes.append(f"{p.name}: {p.note}")
    return notes


def _dry_run_for(records: list[dict[str, Any]], mode: str, file: Path | None,
                 out: Path | None, scenarios_path: Path | None = None
                 ) -> tuple[DryRunReport | None, str]:
    """The dry-run report to score (or None) and the note saying why there is none."""
    if file is not None:
        return load_dry_run(file), ""
    if mode == "off":
        return None, "--dry-run off"
    if mode not in ("reference", "text") and not mode.startswith("llm:"):
        raise UserError("unknown --dry-run value", value=mode, options=DRY_RUN_FORMS,
                        fix="pass --dry-run text, reference, llm:SPEC or off (or "
                        "--dry-run-file F)")
    if not any(isinstance(r.get("reference_answer"), dict) for r in records):
        return None, ("the set has no reference answers (an upstream-style file): a dry run "
                      "could not be graded, so the judge carries the weight")
    try:
        dryrun = importlib.import_module("eval.dryrun")
    except ImportError:
        raise UserError(
            f"--dry-run {mode} needs eval.dryrun, which this build does not have",
            fix="pass --dry-run-file F (a dryrun.json written by a dry run) or --dry-run off",
        ) from None
    # The contract says `run_dry(scenarios, agent, ...)`; pass only the keywords this
    # build's run_dry accepts, and run it whether it is a coroutine function or not.
    params = inspect.signature(dryrun.run_dry).parameters
    kwargs: dict[str, Any] = {}
    if out is not None and "out" in params:
        kwargs["out"] = out / "dryrun"
    if "scenarios_path" in params:
        kwargs["scenarios_path"] = scenarios_path

    def run(agent: str, folder: str) -> DryRunReport:
        extra = {**kwargs, "out": out / folder} if "out" in kwargs and out else kwargs
        result = dryrun.run_dry(records, agent, **extra)
        report = asyncio.run(result) if inspect.iscoroutine(result) else result
        return report if isinstance(report, DryRunReport) else DryRunReport.model_validate(
            report)

    if mode != "reference":
        return run(mode, "dryrun"), ""
    # The replay of the recorded calls never reads the text: it checks that the stored
    # references still follow from the data, and earns no points. The points come from the
    # agent that reads the text.
    replay = run("reference", "dryrun-replay")
    graded = [r for r in replay.results if r.grade.gradable]
    held = sum(1 for r in graded if r.grade.score >= 1.0)
    note = (f"points from the text agent (it reads only the request); the replay of the "
            f"recorded tool calls reproduced {held} of {len(graded)} references (a "
            f"consistency check, no points)")
    return run("text", "dryrun"), note


def score_path(
    path: Path,
    *,
    judge: str = "rules",
    dry_run: str = "off",
    dry_run_file: Path | None = None,
    allow_self_judge: bool = False,
    base_url: str | None = None,
    out: Path | None = None,
    usd_per_1k_tokens: float | None = None,
    judges: Sequence[Judge] | None = None,
) -> SetScore:
    """Load ``path`` and score it (the ``scenariogen score`` command).

    Args:
        path: Scenario file (ours, a run's accepted.jsonl, or upstream JSON / JSONL).
        judge: ``rules`` or ``llm:SPEC[,llm:SPEC…]``.
        dry_run: ``reference``, ``llm:SPEC`` or ``off``.
        dry_run_file: A DryRunReport JSON to score instead of running one.
        allow_self_judge: Accept a judge of the generator's own model.
        base_url: Server URL for openai/ollama judges.
        out: Report folder (the dry run writes its trajectories under it).
        usd_per_1k_tokens: Price used for the cost column (None: no cost).
        judges: Pre-built judges (tests); their labels are checked for self-judging.

    Raises:
        UserError: Bad file, bad option, a self-judge without ``allow_self_judge``.
    """
    if path.is_dir():
        # A run folder: its scenarios.json (the manifest sits beside it).
        path = path / "scenarios.json"
        if not path.is_file():
            raise UserError(f"folder {path.parent} holds no scenarios.json",
                            fix="give a run folder (scenarios/<run_id>) or a scenario file")
    records = load_set(path)
    manifest = manifest_beside(path)
    model = generator_model(records, manifest)
    if judges is None:
        specs = parse_judge_specs(judge)
        labels = [judge_label(s, base_url) for s in specs]
        raw_llm = (manifest or {}).get("config", {}).get("llm") if manifest else None
        for spec, label in zip(specs, labels, strict=True):
            if isinstance(raw_llm, str) and spec == raw_llm and not allow_self_judge:
                refuse_self_judge([raw_llm], raw_llm, allow=False)
            refuse_self_judge([label], model, allow=allow_self_judge)
        judges = build_judges(specs, base_url)
    else:
        refuse_self_judge([j.label for j in judges], model, allow=allow_self_judge)
    report, note = _dry_run_for(records, dry_run, dry_run_file, out, path)
    from eval.score_static import check_findings
    from generator.generate.checks.validate import seeds_beside

    policies = load_policies()
    findings = check_findings(records, policies, seeds_beside(path))
    return score_records(records, path=str(path), judges=judges, dry_run=report,
                         dry_run_note=note, manifest=manifest, policies=policies,
                         usd_per_1k_tokens=usd_per_1k_tokens, check_failures=findings)


def dryrun_available() -> bool:
    """True when this build has the dry-run stage (eval.dryrun)."""
    import importlib.util

    return importlib.util.find_spec("eval.dryrun") is not None


def score_run(run_path: str | Path) -> str:
    """`generate --score`: score a finished run folder and record the score in its manifest.

    Rule judge; the reference dry run when this build has ``eval.dryrun`` (else static and
    judge only, and the manifest says so). Reports go to ``<run>/score/``.

    Returns:
        One line for the terminal.
    """
    from eval.report import headline, write_reports
    from generator.generate.run.run_folder import RunFolder

    folder = RunFolder(Path(run_path))
    path = folder.path / "scenarios.json"
    mode = "reference" if dryrun_available() else "off"
    try:
        result = score_path(path, dry_run=mode, out=folder.path / "score")
    except UserError as exc:
        if mode == "off":
            raise
        # The run is written; a dry-run outage must not lose it or its static/judge score.
        result = score_path(path, dry_run="off")
        result.notes.append(f"reference dry run failed: {exc}")
    if mode == "off":
        result.notes.append("eval.dryrun is not in this build: static and judge parts only")
    write_reports(result, folder.path / "score")
    manifest = folder.manifest()
    manifest["score"] = {
        "score_100": result.score_100,
        "points": result.points,
        "max_points": result.max_points,
        "parts": {p.name: p.points for p in result.parts},
        "judges": result.judges,
        "dry_run_agent": result.dry_run_agent,
        "high_quality": result.high_quality,
        "notes": result.notes,
        "report": "score/score.json",
    }
    folder.write_manifest(manifest)
    return "score: " + headline(result)
