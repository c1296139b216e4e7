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
) -> None:
    """Grade every labelled answer of the corpus: per class, domain and family, the share
    of right answers scored 1 and of wrong answers scored below 1, and every disagreement.

    Exit 1 when any answer is graded against its label.
    """
    from eval.grader_corpus import CORPUS_DIR, load_corpus, render, run_corpus

    report = run_corpus(load_corpus(corpus or CORPUS_DIR), family)
    typer.echo(report.model_dump_json(indent=1) if as_json else render(report))
    if report.disagreements:
        raise typer.Exit(1)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add `bench grader` to the bench app."""
    del app
    bench_app.command("grader")(bench_grader)
