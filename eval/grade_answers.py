"""Reading scenario sets and answer files for ``scenariogen evaluate``.

An answers file is any of:

- a JSON list of ``{"id": ..., "answer": ...}`` objects;
- JSONL, one such object per line;
- a JSON object mapping scenario id → answer;
- a dry-run report (``dryrun.json``, a :class:`eval.model.DryRunReport`): each result's
  ``final_answer`` is the answer.

Ids may be strings or ints (compared as strings). An entry that is not an object, has no
usable id, or repeats an id is skipped and named in the problems; its scenario is then
graded as having no answer, an ordinary failure. Only a file that cannot be read, or holds
no usable entry at all, is a user error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator import safeparse
from generator.errors import UserError

MAX_FILE_BYTES = 200_000_000


def _id_of(raw: Any) -> str | None:
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, str):
        return raw if raw.strip() else None
    if isinstance(raw, int):
        return str(raw)
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    return None


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, safeparse.loads(text, safeparse.FILE)
    except (ValueError, RecursionError):
        return False, None


def _entries(data: Any) -> list[Any] | None:
    """The entry list of a parsed JSON document, or None when it is not an answers shape."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        results = data.get("results")
        if isinstance(results, list) and all(isinstance(r, dict) for r in results) and (
            "agent" in data
        ):
            return [{"id": r.get("id"), "answer": r.get("final_answer")} for r in results]
        if "id" in data and "answer" in data:
            return [data]
        return [{"id": k, "answer": v} for k, v in data.items()]
    return None


def load_answers(path: Path) -> tuple[dict[str, Any], list[str]]:
    """Answers by scenario id, and the problems met (skipped entries, bad lines).

    Raises:
        UserError: The file is missing or unreadable, or holds no usable entry.
    """
    from generator.userfile import read_bytes

    raw = read_bytes(path, "answers file", max_bytes=MAX_FILE_BYTES)
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    problems: list[str] = []
    ok, data = _loads(text)
    entries = _entries(data) if ok else None
    if entries is None:
        if ok:
            problems.append(f"the file is JSON but a {type(data).__name__}, read as JSONL")
        entries = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            good, item = _loads(line)
            if not good:
                problems.append(f"line {lineno}: not valid JSON, skipped")
                continue
            entries.append(item)
    answers: dict[str, Any] = {}
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            problems.append(f"entry {i}: not an object ({type(entry).__name__}), skipped")
            continue
        sid = _id_of(entry.get("id"))
        if sid is None:
            problems.append(f"entry {i}: no usable id (got {str(entry.get('id'))[:40]!r}), "
                            "skipped")
            continue
        if sid in answers:
            problems.append(f"entry {i}: id {sid!r} repeats an earlier entry, skipped")
            continue
        answers[sid] = entry.get("answer")
    if not answers:
        first = f" ({problems[0]})" if problems else ""
        raise UserError(
            f"answers file {path} holds no usable {{id, answer}} entry{first}",
            fix='write a JSON list or JSONL of {"id": <scenario id>, "answer": <JSON or text>}',
        )
    return answers, problems


def load_scenarios(path: Path) -> list[dict[str, Any]]:
    """Scenario records from a file (JSON list, JSONL, accepted.jsonl) or a run folder.

    A run folder gives its ``scenarios.json`` followed by its ``negative_scenarios.json`` and
    its ``operate_scenarios.json`` (``generate --operate``).

    Raises:
        UserError: The path is missing, unparsable, or a folder without scenarios.json.
    """
    from generator.generate.checks.validate import load_scenario_file, split_accepted

    if path.is_dir():
        main = path / "scenarios.json"
        if not main.is_file():
            raise UserError(f"folder {path} holds no scenarios.json",
                            fix="give a run folder (scenarios/<run_id>) or a scenario file")
        records = load_scenario_file(main)
        for extra in ("negative_scenarios.json", "operate_scenarios.json"):
            if (path / extra).is_file():
                records += load_scenario_file(path / extra)
        return records
    return split_accepted(load_scenario_file(path))[0]
