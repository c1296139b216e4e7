"""CLI command `bench grader`: the grader against the hand-labelled answer corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def bench_grader(
    corpus: Annotated[
        Path | None,
        typer.Option(help="Corpus folder of <class>/<family>.json (default: the shipped one)"),
    ] = None,
    family: Annotated[str | None, typer.Option(help="Only this family's answers")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
    judge: Annotated[
        list[str] | None,
        typer.Option(help="llm:SPEC (repeatable): also grade the open answers with this LLM "
                     "and report its agreement with the hand labels"),
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="Server URL for openai/ollama")] = None,
) -> None:
    """Grade every labelled answer of the corpus: per class, domain and family, the share
    of right answers scored 1 and of wrong answers scored below 1, and every disagreement;
    for the open answers, the agreement of the rule judge (and of each --judge LLM) with
    the hand labels.

    Exit 1 when any answer is graded against its label.
    """
    from eval.answer_judge_llm import LLMAnswerJudge
    from eval.grader_corpus import CORPUS_DIR, load_corpus, render, run_corpus
    from generator.errors import UserError

    judges = []
    for spec in judge or []:
        if not spec.startswith("llm:") or not spec[4:].strip():
            raise UserError("unknown --judge", value=spec, options=["llm:SPEC"],
                            fix="pass --judge llm:openai:MODEL (any --llm form after llm:)")
        judges.append(LLMAnswerJudge(spec[4:].strip(), base_url=base_url))
    report = run_corpus(load_corpus(corpus or CORPUS_DIR), family, judges)
    typer.echo(report.model_dump_json(indent=1) if as_json else render(report))
    if report.disagreements:
        raise typer.Exit(1)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add `bench grader` to the bench app."""
    del app
    bench_app.command("grader")(bench_grader)
