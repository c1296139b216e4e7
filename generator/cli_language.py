"""CLI command `bench language`: the language figures of a generated set (registered by cli)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from generator.errors import UserError


def _records(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(records, seeds) of a run folder (accepted.jsonl) or a scenarios file (records only)."""
    from generator.safeparse import FILE
    from generator.userfile import read_text

    if path.is_dir():
        lines = path / "accepted.jsonl"
        if not lines.is_file():
            raise UserError(
                f"{path} is not a run folder (no accepted.jsonl)", value=str(path),
                fix="give a run folder written by `scenariogen generate` or its scenarios.json",
            )
        text = read_text(lines, "run file", max_bytes=FILE.max_bytes)
        rows = [json.loads(x) for x in text.splitlines() if x.strip()]
        return [r["record"] for r in rows], [r["seed"] for r in rows if r.get("seed")]
    text = read_text(path, "scenario file", max_bytes=FILE.max_bytes)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UserError(f"cannot read {path} as JSON: {exc}", value=str(path),
                        fix="give a scenarios.json file or a run folder") from None
    records = data if isinstance(data, list) else [data]
    return [r for r in records if isinstance(r, dict)], []


def language_lines(records: list[dict[str, Any]], seeds: list[dict[str, Any]]) -> list[str]:
    """The figures: language statistics, language-check hits by kind, difficulty levels."""
    from generator.generate.checks.checks_language import (
        grammar_problems,
        parameter_leaks,
        register_problems,
    )
    from generator.generate.verbalise.language_stats import format_stats, language_stats

    texts = [r["text"] for r in records if isinstance(r.get("text"), str)]
    out = [format_stats(language_stats(texts))]
    leaks: Counter[str] = Counter()
    slips: Counter[str] = Counter()
    claims: Counter[str] = Counter()
    for text in texts:
        leaks.update({kind for kind, _ in parameter_leaks(text)})
        slips.update({p.split(":")[0] for p in grammar_problems(text)})
        claims.update({p.split(" (")[0].removeprefix("claim: ") for p in register_problems(text)})
    shown = ", ".join(f"{k} {v}" for k, v in leaks.most_common()) or "none"
    out.append(f"parameter_leak: texts by kind: {shown}")
    shown = ", ".join(f"{k} {v}" for k, v in slips.most_common()) or "none"
    out.append(f"grammar: texts by kind: {shown}")
    shown = ", ".join(f"{k} {v}" for k, v in claims.most_common()) or "none"
    out.append(f"register: texts by kind: {shown}")
    out.append(f"multiagent_repeat: {len(multiagent_repeats(records))} multi-agent texts repeat "
               "a single-domain request word for word")
    levels: Counter[tuple[str, str]] = Counter(
        (str(r.get("type")), str(r.get("difficulty"))) for r in records
    )
    for domain in sorted({d for d, _ in levels}):
        counts = {lvl: levels[(domain, lvl)] for lvl in ("easy", "medium", "hard")}
        out.append(f"difficulty {domain}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if seeds:
        declared = Counter(s.get("declared_difficulty") or s.get("difficulty") for s in seeds)
        out.append("declared by the families: " + ", ".join(
            f"{k} {declared.get(k, 0)}" for k in ("easy", "medium", "hard")))
    return out


def multiagent_repeats(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(multi-agent id, single-domain id) pairs where the first repeats a request sentence
    of the second word for word (the generation gate's ``multiagent_repeat``)."""
    from generator.generate.checks.dedup import DedupIndex

    index = DedupIndex()
    for r in records:
        if isinstance(r.get("text"), str) and r.get("type") != "multiagent":
            index.add(r["text"], str(r.get("id")), domain=str(r.get("type")))
    out = []
    for r in records:
        if r.get("type") == "multiagent" and isinstance(r.get("text"), str):
            entities = [str(v) for v in (r.get("grounding") or {}).values()]
            hit = index.repeated_request(r["text"], entities)
            if hit is not None:
                out.append((str(r.get("id")), hit[1]))
    return out


def bench_language(
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="Scenarios to generate")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="Run seed")] = 1,
    source: Annotated[
        Path | None,
        typer.Option("--from", help="Measure this run folder or scenarios.json instead of "
                     "generating"),
    ] = None,
) -> None:
    """Language figures of a set: masked distinct 3-gram ratio, top opener and closer
    share, words per text, parameter leaks and grammar slips by kind, difficulty levels.

    Without --from it generates -n scenarios (template path, default asset class) into a
    temporary folder first; the figures depend on n, so compare them at the same n.
    """
    import shutil
    import tempfile

    if source is not None:
        records, seeds = _records(source)
        for line in language_lines(records, seeds):
            typer.echo(line)
        return
    from generator.assetdef import default_asset_class
    from generator.cli_generate import _run, require_seeded_store
    from generator.generate.run.run_config import GenerateConfig

    require_seeded_store(default_asset_class())
    out = tempfile.mkdtemp(prefix="scenariogen-language-")
    try:
        config = GenerateConfig(n=n, seed=seed, out_dir=out, negatives=0)
        summary = _run(config, None, show_progress=False)
        records, seeds = _records(Path(summary.path))
        for line in language_lines(records, seeds):
            typer.echo(line)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add `bench language` to the bench app."""

    bench_app.command("language")(bench_language)
