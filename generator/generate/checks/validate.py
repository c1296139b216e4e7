"""``scenariogen validate``: the deterministic checks on any scenario file.

Reads our ``scenarios.json`` / ``negative_scenarios.json``, JSONL files and upstream
AssetOpsBench files (int ids, ``IoT`` / ``TSFM`` / ``Workorder`` types, empty type for
multi-agent, no type for FMSR), runs every registered check whose needs are met (both
stages: all of them are code, none an LLM) plus the set-level ``unique_id``, and reports
per check how many records passed, failed or were skipped.

Records keep their order; a record is compared for near-duplicates with the records
before it, so the second of a pair is the one reported. Task seeds come from a run
folder's ``accepted.jsonl`` (given directly, or found beside ``scenarios.json``) and are
matched by record id; records without one skip the seed checks. Checks that need the store
(grounded entities, recomputed answers, negatives) run only with ``--store``, which builds
the asset profile the generator uses (cached like ``scenariogen profile``).

Exit codes: 0 when no record failed a check, 1 when at least one did, 2 for a usage error
(missing or unparsable file: one line, with the line number for bad JSONL).
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator import safeparse
from generator.errors import ExitCode, UserError
from generator.generate.checks.checks import (
    CheckContext,
    CheckItem,
    GroundingSets,
    check_names,
    evaluate,
    task_key,
)
from generator.generate.checks.dedup import DedupIndex
from generator.generate.model import TaskSeed, ToolCall
from generator.generate.run.policy import DomainPolicy, load_policies
from generator.userfile import read_text

UNIQUE_ID = "unique_id"


class Failure(BaseModel):
    """One failed check of one record."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Record id (or #index when it has none)")
    check: str = Field(description="Check name")
    problem: str = Field(description="What failed")


class CheckTally(BaseModel):
    """Counts of one check over the file."""

    model_config = ConfigDict(extra="forbid")

    passed: int = Field(default=0, description="Records that passed")
    failed: int = Field(default=0, description="Records that failed")
    skipped: int = Field(default=0, description="Records it did not apply to")
    skip_reasons: dict[str, int] = Field(default_factory=dict, description="Why skipped")


class ValidationReport(BaseModel):
    """What ``scenariogen validate`` found."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="The file validated")
    records: int = Field(description="Records read")
    types: dict[str, int] = Field(description="Records per raw type → normalised domain")
    checks: dict[str, CheckTally] = Field(description="Per check, in run order")
    failures: list[Failure] = Field(description="Every failed check of every record")

    @property
    def failed_records(self) -> int:
        """Records with at least one failed check."""
        return len({f.id for f in self.failures})

    @property
    def exit_code(self) -> int:
        """0 when nothing failed, else 1."""
        return ExitCode.CHECKS_FAILED if self.failures else ExitCode.OK


def load_scenario_file(path: Path) -> list[dict[str, Any]]:
    """Records of a JSON list (or ``{"scenarios": [...]}``) or JSONL file.

    Raises:
        UserError: the file is missing or unreadable, not valid JSON / JSONL (with the line
            number), or holds something other than objects.
    """
    content = read_text(path, "scenario file", max_bytes=safeparse.FILE.max_bytes)
    jsonl = path.suffix.lower() in (".jsonl", ".ndjson") or (
        path.suffix.lower() != ".json" and not content.lstrip().startswith(("[", "{\n"))
    )
    records: list[Any]
    if jsonl:
        records = []
        for lineno, line in enumerate(content.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(safeparse.loads(line, safeparse.FILE))
            except ValueError as exc:
                raise UserError(
                    f"{path} line {lineno}: {safeparse.describe(exc)}",
                    fix="fix or remove that line (one JSON object per line)",
                ) from None
    else:
        try:
            data = safeparse.loads(content, safeparse.FILE)
        except ValueError as exc:
            where = (
                f" line {exc.lineno} column {exc.colno}"
                if isinstance(exc, json.JSONDecodeError) else ""
            )
            raise UserError(
                f"{path}{where}: {safeparse.describe(exc)}",
                fix="fix the JSON at that position",
            ) from None
        if isinstance(data, dict) and isinstance(data.get("scenarios"), list):
            data = data["scenarios"]
        if not isinstance(data, list):
            raise UserError(
                f"{path}: expected a JSON list of scenario records",
                value=type(data).__name__,
                fix="give scenarios.json, a JSONL file or a list of records",
            )
        records = data
    for i, rec in enumerate(records, 1):
        if not isinstance(rec, dict):
            raise UserError(
                f"{path}: record {i} is not a JSON object", value=type(rec).__name__,
                fix="every record must be an object with id, type, text, ...",
            )
    return records


def split_accepted(
    records: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, TaskSeed]]:
    """Unwrap ``accepted.jsonl`` lines (``{domain, slot, cursor, record, seed}``).

    Returns:
        The records, and the seeds by record id. Plain records pass through unchanged.
    """
    out: list[dict[str, Any]] = []
    seeds: dict[str, TaskSeed] = {}
    for rec in records:
        inner = rec.get("record")
        if isinstance(inner, dict) and "slot" in rec:
            out.append(inner)
            raw_seed = rec.get("seed")
            if isinstance(raw_seed, dict) and inner.get("id") is not None:
                # A malformed seed leaves the record seedless: its seed checks skip.
                with contextlib.suppress(ValidationError):
                    seeds[str(inner["id"])] = TaskSeed.model_validate(raw_seed)
        else:
            out.append(rec)
    return out, seeds


def seeds_beside(path: Path) -> dict[str, TaskSeed]:
    """Seeds from the ``accepted.jsonl`` of the run folder holding ``path`` (if any)."""
    accepted = path.parent / "accepted.jsonl"
    if path.name == "accepted.jsonl" or not accepted.is_file():
        return {}
    return split_accepted(load_scenario_file(accepted))[1]


def against_index(path: Path, threshold: float) -> DedupIndex:
    """A dedup index over the texts of an earlier set (``--against FILE``)."""
    index = DedupIndex(threshold)
    index.load(
        (rec["text"], f"{path.name}:{rec.get('id', i)}")
        for i, rec in enumerate(load_scenario_file(path))
        if isinstance(rec.get("text"), str)
    )
    return index


def against_tasks(path: Path) -> dict[str, str]:
    """Task keys (family + tool calls) of an earlier set's records that carry them."""
    tasks: dict[str, str] = {}
    for i, rec in enumerate(load_scenario_file(path)):
        family, calls = rec.get("family"), rec.get("tool_sequence")
        if not isinstance(family, str) or not isinstance(calls, list) or not calls:
            continue
        try:
            sequence = [ToolCall.model_validate(c) for c in calls]
        except ValidationError:
            continue  # a record the schema check reports; nothing to compare here
        tasks[task_key(family, sequence)] = f"{path.name}:{rec.get('id', i)}"
    return tasks


async def validate_records(
    records: list[dict[str, Any]],
    ctx: CheckContext,
    *,
    path: str = "(records)",
    seeds: dict[str, TaskSeed] | None = None,
) -> ValidationReport:
    """Run every applicable check on ``records`` in order; near-duplicates against earlier ones.

    ``ctx.dedup`` is filled as records are checked (pass a fresh index); ``seeds`` maps
    record ids to their task seeds.
    """
    seeds = seeds or {}
    names = [UNIQUE_ID, *check_names()]
    tallies = {n: CheckTally() for n in names}
    failures: list[Failure] = []
    types: Counter[str] = Counter()
    seen_ids: dict[str, int] = {}
    for i, rec in enumerate(records):
        item = CheckItem.from_record(rec, index=i)
        if item.id is not None and str(item.id) in seeds:
            item = item.model_copy(update={"seed": seeds[str(item.id)]})
        rid = str(item.id) if item.id is not None else f"#{i}"
        raw_type = rec.get("type", "<missing>")
        types[f"{raw_type!s} → {item.type}"] += 1
        tally = tallies[UNIQUE_ID]
        if item.id is None:
            tally.skipped += 1
            tally.skip_reasons["no id"] = tally.skip_reasons.get("no id", 0) + 1
        elif rid in seen_ids:
            tally.failed += 1
            failures.append(Failure(id=rid, check=UNIQUE_ID,
                                    problem=f"id also used by record {seen_ids[rid] + 1}"))
        else:
            seen_ids[rid] = i
            tally.passed += 1
        for outcome in await evaluate("all", item, ctx):
            tally = tallies[outcome.check]
            if outcome.status == "skipped":
                tally.skipped += 1
                why = outcome.skipped_because or ""
                tally.skip_reasons[why] = tally.skip_reasons.get(why, 0) + 1
            elif outcome.status == "failed":
                tally.failed += 1
                failures += [Failure(id=rid, check=outcome.check, problem=p)
                             for p in outcome.problems]
            else:
                tally.passed += 1
        if ctx.dedup is not None and item.text:
            ctx.dedup.add(item.text, item.key, domain=item.type)
    return ValidationReport(
        path=path, records=len(records), types=dict(types), checks=tallies, failures=failures
    )


async def validate_file(
    path: Path,
    *,
    asset: str | None = None,
    against: Path | None = None,
    use_store: bool = False,
    threshold: float = 0.9,
    policies: dict[str, DomainPolicy] | None = None,
    settings: Any = None,
) -> ValidationReport:
    """Load ``path`` and validate it (see the module docstring).

    Args:
        path: Scenario file (JSON list or JSONL).
        asset: Asset class whose store grounds the store checks (None: the default class).
        against: An earlier set; records too similar to one of its texts fail.
        use_store: Build the asset profile from the store and run the store checks
            (grounding, recomputed answers, negatives). Off by default so any file
            validates without a server.
        threshold: Near-duplicate similarity.
        policies: Domain policies (default: ``policies/``).
        settings: Store settings (default: from the environment).
    """
    records, seeds = split_accepted(load_scenario_file(path))
    seeds = {**seeds_beside(path), **seeds}
    ctx = CheckContext.with_registered_tools(
        policies if policies is not None else load_policies(asset),
        dedup=DedupIndex(threshold),
        against=against_index(against, threshold) if against is not None else None,
        against_tasks=against_tasks(against) if against is not None else {},
    )
    if not use_store:
        return await validate_records(records, ctx, path=str(path), seeds=seeds)
    from generator.assetdef import load_asset_class, resolve_asset_class
    from generator.generate.draw.families import FamilyContext, load_families, recompute
    from generator.profile.build import build_profile
    from generator.tools.registry import ToolContext

    asset = resolve_asset_class(asset)
    asset_cls = load_asset_class(asset)
    profile = await build_profile(asset, settings=settings)
    load_families(asset_cls)
    tools_ctx = ToolContext(asset_cls, settings)
    # The run seed only steers draws; recomputing a stored seed's answer does not use it.
    family_ctx = FamilyContext(profile, tools_ctx, 0)

    async def recompute_seed(seed: TaskSeed) -> list[str]:
        return await recompute(seed, family_ctx)

    try:
        ctx.grounding = GroundingSets.from_profile(profile)
        ctx.tools_ctx = tools_ctx
        ctx.recompute = recompute_seed
        return await validate_records(records, ctx, path=str(path), seeds=seeds)
    finally:
        tools_ctx.close()


def render_report(report: ValidationReport, *, limit: int = 50) -> str:
    """The report as text: record counts, a per-check table, the failing records."""
    lines = [f"{report.path}: {report.records} records"]
    lines.append("types: " + ", ".join(f"{k} ({v})" for k, v in report.types.items()))
    width = max(len(n) for n in report.checks)
    header = f"{'check':<{width}}  {'passed':>6}  {'failed':>6}  {'skipped':>7}"
    lines.append(header + "  skipped because")
    for name, t in report.checks.items():
        why = "; ".join(f"{k} ({v})" for k, v in t.skip_reasons.items())
        lines.append(f"{name:<{width}}  {t.passed:>6}  {t.failed:>6}  {t.skipped:>7}  {why}")
    if report.failures:
        lines.append(
            f"{report.failed_records} of {report.records} records failed "
            f"({len(report.failures)} problems):"
        )
        for f in report.failures[:limit]:
            lines.append(f"  {f.id}  {f.check}: {f.problem}")
        if len(report.failures) > limit:
            lines.append(f"  ... {len(report.failures) - limit} more (raise --limit)")
    else:
        lines.append("no record failed a check")
    return "\n".join(lines)
