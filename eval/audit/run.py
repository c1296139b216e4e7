"""Audit a run folder: re-derive every reference answer and give each scenario a verdict.

Verdicts: ``match`` (every reading the text allows agrees with the reference within its
tolerance), ``reading_dependent`` (some allowed reading gives another answer),
``mismatch`` (no reading reproduces the reference), ``unsupported`` (no independent
re-derivation for the family) and ``error`` (the re-derivation itself failed: a bug to
fix). ``premise_false`` flags a text whose stated fact the raw documents contradict.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from eval.audit.asof import documents_after
from eval.audit.core import (
    AUDITS,
    UNSUPPORTED,
    AuditContext,
    Case,
    Derivation,
    NoSingleAnswer,
    differences,
)
from eval.audit.raw import RawStore
from eval.audit.text_params import undetermined
from generator import safeparse
from generator.classmodule import class_module
from generator.config import StoreSettings
from generator.errors import UserError
from generator.userfile import read_text

if TYPE_CHECKING:
    from generator.executor import Executor
    from generator.generate.model import TaskSeed

Verdict = Literal["match", "reading_dependent", "mismatch", "unsupported", "error"]
VERDICTS: tuple[str, ...] = ("match", "reading_dependent", "mismatch", "unsupported", "error")


def is_false_premise_family(family: str) -> bool:
    """Families whose texts state a false premise on purpose (the agent must reject it)."""
    return "false_premise" in family or family.endswith("_premise")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadingResult(_Strict):
    """One reading's outcome against the reference."""

    name: str = Field(description="Reading: 'primary' or the choices that differ from it")
    agrees: bool = Field(description="True when it reproduces the reference within tolerance")
    answer: dict[str, Any] | None = Field(description="Re-derived answer (None: no single one)")
    differences: list[str] = Field(description="Where it departs from the reference")
    note: str = Field(default="", description="Why there is no answer, if so")


class TruthCheckResult(_Strict):
    """A classification reference against an independent method's class and the injected
    truth."""

    method: str = Field(description="The independent method, named by the class's audit")
    reference: str = Field(description="The reference class")
    method_class: str = Field(description="The class the method gives")
    truth: str | None = Field(description="Injected fault in force at the time, or normal")
    both_contradict: bool = Field(
        description="The reference differs from the method's class and from the truth")


class ScenarioAudit(_Strict):
    """The audit of one scenario."""

    id: str = Field(description="Scenario id")
    family: str = Field(description="Task family")
    verdict: Verdict = Field(description="match, reading_dependent, mismatch, unsupported, error")
    readings_tried: int = Field(description="Readings the text allows that were tried")
    disagreeing: list[ReadingResult] = Field(description="Readings that do not reproduce it")
    unverified_keys: list[str] = Field(description="Reference keys no reading re-derives")
    premise_false: bool = Field(description="The text states a fact the raw documents contradict")
    premises: list[str] = Field(description="The contradicted facts")
    truth_check: TruthCheckResult | None = Field(
        description="Cross-check against a method and the truth, for classification references")
    note: str = Field(default="", description="Why unsupported / mismatch without readings")
    text_undetermined: list[str] = Field(
        default_factory=list,
        description="Parameters of the reference the text alone does not determine (asset, "
        "site, sensor, window days), or a text that names none of the facts it answers",
    )
    after_as_of: list[str] = Field(
        default_factory=list,
        description="Documents time-stamped after the moment the text asks as of (the seed's "
        "declared as_of, or the day the text calls today) that the reference rests on",
    )


class AuditReport(_Strict):
    """Counts per family and verdict, and every scenario's audit."""

    run: str = Field(description="The run folder audited")
    audited: int = Field(description="Scenarios audited")
    counts: dict[str, dict[str, int]] = Field(description="family → verdict → scenarios")
    premise_false_outside_family: int = Field(
        description="Scenarios with a false premise outside the false-premise family"
    )
    truth_checked: int = Field(
        description="Classification references cross-checked against a method and the truth")
    truth_both_contradict: int = Field(
        description="Cross-checked references both the method and the truth contradict")
    text_undetermined: int = Field(
        default=0, description="Scenarios whose text does not determine their parameters")
    after_as_of: int = Field(
        default=0, description="Scenarios whose reference rests on a document from after the "
        "moment their text asks as of")
    unsupported: dict[str, str] = Field(description="Family → why it has no re-derivation")
    deciding_readings: dict[str, dict[str, int]] = Field(
        description="family → single alternative reading (one choice changed from the primary) "
        "→ scenarios whose reference it does not reproduce"
    )
    scenarios: list[ScenarioAudit] = Field(description="Per-scenario audits")

    @property
    def exit_code(self) -> int:
        """1 when any mismatch, reading_dependent, error, stray false premise, text that
        does not determine its task or reference resting on data after its as-of moment;
        else 0."""
        bad = any(
            n and v in ("mismatch", "reading_dependent", "error")
            for per in self.counts.values() for v, n in per.items()
        )
        return 1 if (bad or self.premise_false_outside_family or self.text_undetermined
                     or self.after_as_of) else 0


def _manifest_class(run_dir: Path) -> str | None:
    path = run_dir / "manifest.json"
    if not path.exists():
        return None
    try:
        manifest = safeparse.loads(
            read_text(path, "run manifest", max_bytes=safeparse.FILE.max_bytes), safeparse.FILE)
    except ValueError:
        raise UserError(f"{path} is not JSON",
                        fix="restore the file or audit another run") from None
    value = manifest.get("asset_class") if isinstance(manifest, dict) else None
    return str(value) if value else None


def load_cases(run_dir: Path) -> tuple[str, list[Case]]:
    """The asset class and the family scenarios of a run folder (open scenarios skipped).

    The class is the run manifest's ``asset_class``, else the one its records name; a run
    whose records name several classes, or none at all, is refused.
    """
    path = run_dir / "accepted.jsonl"
    if not run_dir.is_dir() or not path.exists():
        raise UserError(
            f"{run_dir} is not a run folder (no accepted.jsonl)",
            fix="pass scenarios/<run_id>/ as written by `scenariogen generate`",
        )
    cases: list[Case] = []
    manifest_class = _manifest_class(run_dir)
    named: set[str] = set()
    text = read_text(path, "accepted lines", max_bytes=safeparse.FILE.max_bytes)
    for i, raw in enumerate(text.splitlines()):
        if not raw.strip():
            continue
        try:
            line = safeparse.loads(raw, safeparse.FILE)
        except ValueError:
            raise UserError(f"{path}: line {i + 1} is not JSON",
                            fix="restore the file or audit another run") from None
        record, seed = line.get("record") or {}, line.get("seed")
        if not seed or record.get("negative") or record.get("reference_answer") is None:
            continue
        if record.get("asset_class"):
            named.add(str(record["asset_class"]))
        cases.append(Case(
            id=str(record.get("id")),
            family=str(seed.get("family") or record.get("family")),
            text=str(record.get("text", "")),
            params=dict(seed.get("params") or {}),
            grounding=dict(seed.get("grounding") or {}),
            answer=dict(record.get("reference_answer") or seed.get("answer") or {}),
            tolerance=dict(record.get("tolerance") or seed.get("tolerance") or {}),
            rel_tolerance=dict(record.get("rel_tolerance") or seed.get("rel_tolerance") or {}),
            record=record,
            seed=seed,
        ))
    if manifest_class is not None:
        named.add(manifest_class)
    if len(named) != 1:
        what = "the asset classes " + ", ".join(sorted(named)) if named else "no asset class"
        raise UserError(
            f"{run_dir}: the run names {what}",
            fix="audit a run written by `scenariogen generate` (its manifest.json names the "
            "one asset class of the run)",
        )
    return named.pop(), cases


def load_class_audits(asset_class: str) -> bool:
    """Import the class's audit package ``assets.<class>.audit`` (it registers its
    re-derivations); False when the class has none (its families are then unsupported)."""
    module = class_module(asset_class, "audit")
    if module is None:
        return False
    importlib.import_module(module)
    return True


def _verdict(case: Case, derivation: Derivation) -> ScenarioAudit:
    results: list[ReadingResult] = []
    unverified: set[str] = set(case.answer)
    for reading in derivation.readings:
        if reading.answer is None:
            results.append(ReadingResult(name=reading.name, agrees=False, answer=None,
                                         differences=["no single answer"], note=reading.note))
            continue
        shared = [k for k in case.answer if k in reading.answer]
        unverified -= set(shared)
        diffs = differences({k: case.answer[k] for k in shared},
                            {k: reading.answer[k] for k in shared},
                            case.tolerance, case.rel_tolerance)
        results.append(ReadingResult(name=reading.name, agrees=not diffs, answer=reading.answer,
                                     differences=diffs))
    agreeing = sum(r.agrees for r in results)
    verdict: Verdict
    if unverified == set(case.answer):
        verdict = "unsupported"
    elif agreeing == len(results):
        verdict = "match"
    elif agreeing:
        verdict = "reading_dependent"
    else:
        verdict = "mismatch"
    check = derivation.truth_check
    return ScenarioAudit(
        id=case.id, family=case.family, verdict=verdict, readings_tried=len(results),
        disagreeing=[r for r in results if not r.agrees], unverified_keys=sorted(unverified),
        premise_false=bool(derivation.premises_false), premises=derivation.premises_false,
        truth_check=None if check is None else TruthCheckResult(
            method=check.method, reference=check.reference, method_class=check.method_class,
            truth=check.truth, both_contradict=check.both_contradict),
    )


def audit_case(ctx: AuditContext, case: Case) -> ScenarioAudit:
    """Audit one scenario: its re-derivation, and whether its text determines the task."""
    result = _audit_derivation(ctx, case)
    if case.record is not None:
        result.text_undetermined = undetermined(case.record, seed=_seed_of(case))
    result.after_as_of = documents_after(ctx, case)
    return result


def _seed_of(case: Case) -> TaskSeed | None:
    from pydantic import ValidationError

    from generator.generate.model import TaskSeed as Seed

    try:
        return Seed.model_validate(case.seed) if case.seed else None
    except ValidationError:
        return None  # a seed of an older format: the grounding check alone


def _audit_derivation(ctx: AuditContext, case: Case) -> ScenarioAudit:
    def plain(verdict: Verdict, note: str) -> ScenarioAudit:
        return ScenarioAudit(id=case.id, family=case.family, verdict=verdict, readings_tried=0,
                             disagreeing=[], unverified_keys=sorted(case.answer),
                             premise_false=False, premises=[], truth_check=None, note=note)

    if case.family in UNSUPPORTED:
        return plain("unsupported", UNSUPPORTED.get(case.family))
    if case.family not in AUDITS:
        return plain("unsupported", "no independent re-derivation written for this family yet")
    try:
        derivation = AUDITS.get(case.family)(ctx, case)
    except NoSingleAnswer as exc:
        return plain("mismatch", f"the raw documents admit no single answer: {exc}")
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
        return plain("error", f"re-derivation failed: {type(exc).__name__}: {exc}")
    return _verdict(case, derivation)


def build_report(run: str, results: list[ScenarioAudit]) -> AuditReport:
    """Aggregate scenario audits into the report."""
    counts: dict[str, Counter[str]] = {}
    for r in results:
        counts.setdefault(r.family, Counter())[r.verdict] += 1
    unsupported = {r.family: r.note for r in results if r.verdict == "unsupported"}
    checks = [r.truth_check for r in results if r.truth_check is not None]
    deciding: dict[str, Counter[str]] = {}
    for r in results:
        for d in r.disagreeing:
            if "," not in d.name or d.name.startswith("primary("):
                deciding.setdefault(r.family, Counter())[d.name] += 1
    return AuditReport(
        run=run,
        audited=len(results),
        counts={f: {v: c[v] for v in VERDICTS if c[v]} for f, c in sorted(counts.items())},
        premise_false_outside_family=sum(
            1 for r in results if r.premise_false and not is_false_premise_family(r.family)
        ),
        truth_checked=len(checks),
        truth_both_contradict=sum(1 for c in checks if c.both_contradict),
        text_undetermined=sum(1 for r in results if r.text_undetermined),
        after_as_of=sum(1 for r in results if r.after_as_of),
        unsupported=dict(sorted(unsupported.items())),
        deciding_readings={f: dict(c.most_common()) for f, c in sorted(deciding.items())},
        scenarios=results,
    )


def audit_run(run_dir: Path, limit: int | None = None, raw: RawStore | None = None,
              executor: Executor | None = None, workers: int | None = None) -> AuditReport:
    """Audit every family scenario of a run folder against the store's raw documents.

    Args:
        run_dir: ``scenarios/<run_id>/``.
        limit: Audit only the first ``limit`` scenarios.
        raw: Raw document access (default: the environment's store).
        executor: Where the audits run, one unit per family (default: in turn, here); each
            Ray worker opens its own raw store from the same databases and settings.
        workers: Ray workers (default: the cluster's CPUs).
    """
    from generator.assetdef import load_asset_class

    asset_class, cases = load_cases(run_dir)
    asset = load_asset_class(asset_class)
    load_class_audits(asset_class)
    store = raw or RawStore.of(asset)
    ctx = AuditContext(raw=store,
                       failure_modes=[fm.model_dump() for fm in asset.failure_modes],
                       sensors=[s.model_dump() for s in asset.sensors])
    try:
        chosen = cases if limit is None else cases[:limit]
        if executor is None:
            results = [audit_case(ctx, c) for c in chosen]
        else:
            import asyncio

            spec = AuditWorkerSpec(
                asset_class=asset_class, settings=store.settings,
                databases={k: v.removeprefix(store.settings.db_prefix)
                           for k, v in store.db.items()})
            results = asyncio.run(_audit_by_family(executor, ctx, spec, chosen, workers))
    finally:
        if raw is None:
            store.close()
    return build_report(str(run_dir), results)


class AuditWorkerSpec(_Strict):
    """What an audit worker needs to open its own raw store."""

    asset_class: str = Field(description="The class audited")
    databases: dict[str, str] = Field(description="Logical → unprefixed database name")
    settings: StoreSettings = Field(description="Store location, credentials and prefix")


class AuditFamilyUnit(_Strict):
    """One family's scenarios: an audit's unit of work on an executor."""

    family: str = Field(description="Task family")
    cases: list[Case] = Field(description="Its scenarios, in run order")


def audit_worker(spec: AuditWorkerSpec) -> AuditContext:
    """A worker's own audit context: the class's audits registered, its own raw store."""
    from generator.assetdef import load_asset_class

    asset = load_asset_class(spec.asset_class)
    load_class_audits(spec.asset_class)
    return AuditContext(raw=RawStore(spec.databases, spec.settings,
                                     asset_class=spec.asset_class),
                        failure_modes=[fm.model_dump() for fm in asset.failure_modes],
                        sensors=[s.model_dump() for s in asset.sensors])


def audit_family(ctx: AuditContext, unit: AuditFamilyUnit) -> list[ScenarioAudit]:
    """Audit one family's scenarios (a pure function of the context and the unit)."""
    return [audit_case(ctx, c) for c in unit.cases]


def _given(ctx: AuditContext) -> AuditContext:
    return ctx


async def _audit_by_family(executor: Executor, ctx: AuditContext, spec: AuditWorkerSpec,
                           chosen: list[Case], workers: int | None) -> list[ScenarioAudit]:
    by_family: dict[str, list[int]] = {}
    for pos, c in enumerate(chosen):
        by_family.setdefault(c.family, []).append(pos)
    units = [AuditFamilyUnit(family=f, cases=[chosen[p] for p in ps])
             for f, ps in by_family.items()]
    # Locally the driver's context serves; a Ray worker opens its own from the spec.
    setup: Callable[[Any], AuditContext] = _given if executor.name == "local" else audit_worker
    given: Any = ctx if executor.name == "local" else spec
    results: list[ScenarioAudit | None] = [None] * len(chosen)
    audited: list[ScenarioAudit]
    one: ScenarioAudit
    async for k, audited in executor.stream(setup, given, audit_family, units, workers=workers):
        for pos, one in zip(by_family[units[k].family], audited, strict=True):
            results[pos] = one
    return [r for r in results if r is not None]


def render(report: AuditReport, limit: int = 20) -> str:
    """A table of counts per family and verdict, then the first problems."""
    head = ["family", *list(VERDICTS), "premise_false"]
    premise = Counter(r.family for r in report.scenarios if r.premise_false)
    rows = [[f] + [str(per.get(v, 0)) for v in VERDICTS] + [str(premise[f])]
            for f, per in report.counts.items()]
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=False)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *rows]]
    methods = sorted({r.truth_check.method for r in report.scenarios if r.truth_check})
    lines.append(
        f"audited {report.audited}; false premises outside the false-premise family: "
        f"{report.premise_false_outside_family}"
        + (f"; references contradicted by both {' / '.join(methods)} and the injected truth: "
           f"{report.truth_both_contradict} of {report.truth_checked}" if methods else "")
    )
    for fam_name, why in report.unsupported.items():
        lines.append(f"unsupported {fam_name}: {why}")
    for fam_name, per in report.deciding_readings.items():
        lines.append(f"readings that change {fam_name} answers: " + ", ".join(
            f"{name} ({n})" for name, n in per.items()))
    lines.append(f"texts that do not determine their task: {report.text_undetermined}")
    lines.append(f"references resting on data after their as-of moment: {report.after_as_of}")
    for r in [r for r in report.scenarios if r.after_as_of][:limit]:
        lines.append(f"{r.id} ({r.family}): after the as-of moment: "
                     + "; ".join(r.after_as_of[:3]))
    shown = 0
    for r in [r for r in report.scenarios if r.text_undetermined][:limit]:
        lines.append(f"{r.id} ({r.family}): the text does not determine it: "
                     + "; ".join(r.text_undetermined))
    for r in report.scenarios:
        if r.verdict in ("match", "unsupported") and not r.premise_false:
            continue
        if shown >= limit:
            lines.append("...")
            break
        shown += 1
        single = [d for d in r.disagreeing
                  if "," not in d.name or d.name.startswith("primary(")] or r.disagreeing
        detail = r.note or "; ".join(
            f"[{d.name}] " + ", ".join(d.differences[:3]) for d in single[:3]
        )
        flag = " PREMISE FALSE: " + "; ".join(r.premises) if r.premise_false else ""
        lines.append(f"{r.id} {r.family} {r.verdict}: {detail}{flag}")
    return "\n".join(lines)
