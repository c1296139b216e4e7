"""CLI commands `evaluate`, `dryrun` and `dryrun-report` (registered through eval.plugin)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from eval.model import DryRunResult, EvaluationReport


def _render_evaluation(label: str, report: EvaluationReport, limit: int) -> str:
    gradable = [r for r in report.results if r.gradable]
    lines = [
        f"{label}: {len(report.results)} scenarios, {len(gradable)} gradable; class-balanced "
        f"mean score {report.mean_score:.3f}, feasible rate {report.feasible_rate:.1%}",
    ]
    for key, c in report.by_class.items():
        lines.append(f"  {key:<24} n={c.n:<4} mean {c.mean_score:.3f}  feasible "
                     f"{c.feasible_rate:.1%}")
    failing = [r for r in gradable if not r.feasible]
    if failing:
        lines.append(f"not feasible ({len(failing)}):")
        for r in failing[:limit]:
            first = r.violations[0].message if r.violations else ""
            lines.append(f"  {r.id} score {r.score:.2f}: {first[:140]}")
        if len(failing) > limit:
            lines.append(f"  ... {len(failing) - limit} more (raise --limit or use --json)")
    return "\n".join(lines)


def evaluate(
    scenarios: Annotated[Path, typer.Argument(
        help="Scenario file (JSON list, JSONL, accepted.jsonl) or a run folder")],
    answers: Annotated[list[Path], typer.Argument(
        help="Answers file(s): JSON list / JSONL of {id, answer}, an {id: answer} object, "
        "or a dryrun.json; several → the unanimous-failure report")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    limit: Annotated[int, typer.Option(min=0, help="Failing scenarios to print")] = 30,
) -> None:
    """Grade answers against the scenarios' computed references (no LLM).

    With one answers file, --json prints an EvaluationReport ({mean_score,
    feasible_rate, by_class, results}). With several, it prints {"reports": {file:
    EvaluationReport}, "unanimous": UnanimousReport}: scenarios every file fails come
    first, as candidate scenario defects. Exit 0 when graded; 2 for unusable input.
    """
    import json

    from eval.grade import grade_set, scenario_id
    from eval.grade_answers import load_answers, load_scenarios
    from eval.grade_unanimous import attempts_from_evaluation, build_report, render

    records = load_scenarios(scenarios)
    reports, sources = {}, []
    for path in answers:
        given, problems = load_answers(path)
        known = {scenario_id(r, i) for i, r in enumerate(records)}
        problems += [f"answer id {k!r} names no scenario of {scenarios}, ignored"
                     for k in given if k not in known]
        for p in problems[:10]:
            typer.echo(f"warning: {path}: {p}", err=True)
        if len(problems) > 10:
            typer.echo(f"warning: {path}: {len(problems) - 10} more problems", err=True)
        report = grade_set(records, given)
        label = str(path)
        reports[label] = report
        sources.append((label, attempts_from_evaluation(label, report, given)))
    if len(answers) == 1:
        only = next(iter(reports.values()))
        if as_json:
            typer.echo(only.model_dump_json(indent=2))
        else:
            typer.echo(_render_evaluation(str(answers[0]), only, limit))
        return
    unanimous = build_report(sources)
    if as_json:
        typer.echo(json.dumps({
            "reports": {k: v.model_dump(mode="json") for k, v in reports.items()},
            "unanimous": unanimous.model_dump(mode="json"),
        }, indent=2))
        return
    typer.echo(render(unanimous, limit))
    for label, report in reports.items():
        typer.echo("")
        typer.echo(_render_evaluation(label, report, 0))


def dryrun(
    scenarios: Annotated[Path, typer.Argument(
        help="Scenario file or run folder (the reference agent reads accepted.jsonl "
        "beside it)")],
    agent: Annotated[str, typer.Option(
        help="reference (replays the recorded calls) | text (acts on what the text "
        "determines) | scripted[:over_budget|:invalid_plan] (operate tasks over MCP: "
        "simulates candidate plans and submits; else as reference) | llm:SPEC (SPEC is "
        "any --llm form: smollm2, openai:MODEL, "
        "ollama:MODEL, fake:PATH)")] = "reference",
    sample: Annotated[int | None, typer.Option(
        min=1, help="Attempt K scenarios spread over domains")] = None,
    seed: Annotated[int, typer.Option(help="Seed of --sample")] = 0,
    max_steps: Annotated[int, typer.Option(min=1, help="Model calls per attempt")] = 15,
    timeout: Annotated[float, typer.Option(min=1.0, help="Seconds per attempt")] = 120.0,
    concurrency: Annotated[int, typer.Option(min=1, help="Scenarios in flight")] = 2,
    out: Annotated[Path | None, typer.Option(
        help="Folder for dryrun.json and trajectories/<id>.json")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")
                       ] = False,
    executor: Annotated[str | None, typer.Option(
        envvar="SCENARIOGEN_EXECUTOR", show_default="local",
        help="local (this process) | ray (a local Ray, or the cluster at RAY_ADDRESS; "
        "each worker runs its own agent and tool session)")] = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Ray workers (default: the cluster's CPUs)")] = None,
    resume: Annotated[bool, typer.Option(
        help="Keep the trajectories already in --out for this agent; attempt only the "
        "scenarios without one")] = False,
) -> None:
    """Run an agent on every scenario and grade its final answers.

    Failures are classed (wrong_answer, wrong_tools, max_steps, no_final_answer,
    asked_clarification, tool_error, infrastructure; infrastructure is retried once;
    operate tasks add over_budget and invalid_plan).
    Needs the store the scenarios were generated from (`scenariogen env up`).
    """
    import asyncio

    from eval.dryrun import run_dry
    from eval.grade_answers import load_scenarios
    from generator.errors import UserError
    from generator.executor import make_executor

    if resume and out is None:
        raise UserError("--resume needs --out", fix="pass the --out folder of the run "
                        "to resume")
    records = load_scenarios(scenarios)
    runner = make_executor(executor)

    def progress(r: DryRunResult) -> None:
        if not as_json:
            typer.echo(f"{r.id}: {r.failure_class or 'pass'} score {r.grade.score:.2f} "
                       f"({r.latency_s:.1f} s, {len(r.steps)} steps)", err=True)

    try:
        report = asyncio.run(run_dry(
            records, agent, sample=sample, seed=seed, max_steps=max_steps,
            timeout=timeout, concurrency=concurrency, out=out, scenarios_path=scenarios,
            progress=progress, executor=runner, workers=workers, resume=resume))
    finally:
        runner.close()
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
        return
    classes = ", ".join(f"{k} {v}" for k, v in report.failure_classes.items()) or "none"
    typer.echo(f"{report.agent}: {report.scenarios} scenarios in {report.seconds:.1f} s; "
               f"pass rate {report.pass_rate:.1%}, class-balanced mean score "
               f"{report.mean_score:.3f}, tokens {report.tokens}; failures: {classes}")
    if out is not None:
        typer.echo(f"report: {out / 'dryrun.json'}; trajectories: {out / 'trajectories'}")


def dryrun_report(
    runs: Annotated[list[Path], typer.Argument(
        help="Dry-run folders (or their dryrun.json), one per agent")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    limit: Annotated[int, typer.Option(min=0, help="Scenarios per section")] = 50,
) -> None:
    """Scenarios every agent failed (candidate defects) first, then those some failed."""
    from eval.grade_unanimous import attempts_from_dryrun, build_report, load_dryrun, render

    sources = []
    for path in runs:
        report = load_dryrun(path)
        sources.append((report.agent, attempts_from_dryrun(report)))
    unanimous = build_report(sources)
    typer.echo(unanimous.model_dump_json(indent=2) if as_json else render(unanimous, limit))


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    app.command("evaluate")(evaluate)

    app.command("dryrun")(dryrun)

    app.command("dryrun-report")(dryrun_report)
