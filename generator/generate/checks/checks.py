"""Early-rejection and deterministic checks, each registered with a name and a reason.

A check is ``fn(item, ctx) -> list[str]`` (sync or async): the problems it found, empty
when the item passes. Checks declare what they need (a seed, a policy, the store's
grounding, the recompute callback, ...); :func:`evaluate` skips a check whose needs are
missing and records it as skipped, so ``scenariogen validate`` can run the same registry
on any scenario file, upstream ones included.

Stages:

- ``early``: cheap, run before any costly check (and before any LLM repair): required
  fields, text length, tool names in the text, near-duplicates.
- ``deterministic``: schema, category, core tools, grounding, seed values, recomputation,
  duplicates against an earlier set, negatives being unanswerable.
"""

from __future__ import annotations

import inspect
import json
import re
import string
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.assetdef import DOMAINS
from generator.generate.checks.checks_language import (
    GRAMMAR_REASON,
    LEAK_REASON,
    MULTIAGENT_REPEAT_REASON,
    REGISTER_REASON,
    grammar_problems,
    leak_problems,
    register_problems,
)
from generator.generate.checks.dedup import DedupIndex
from generator.generate.checks.rubric_check import (
    count_claims,
    fleet_claims,
    negated_labels,
    rubric_backing,
    value_claims,
)
from generator.generate.draw.negatives import verify_negative
from generator.generate.model import Draft, Rubric, ScenarioRecord, TaskSeed, ToolCall
from generator.generate.run.policy import DomainPolicy
from generator.generate.verbalise.surface_forms import missing_mentions
from generator.llm.sanitise import unsafe_characters
from generator.registry import Registry

if TYPE_CHECKING:
    from generator.assetdef import AssetClass
    from generator.profile.model import AssetProfile
    from generator.store.query import Inventory

Stage = Literal["early", "deterministic"]
Need = Literal[
    "policy", "seed", "dedup", "against", "grounding", "recompute", "store", "negative",
    "positive", "open_form", "tool_sequence", "deterministic", "facts", "operate",
]
CheckFn = Callable[["CheckItem", "CheckContext"], "list[str] | Awaitable[list[str]]"]

# Upstream type spellings → our domain names. A missing type stays None (upstream FMSR
# records carry none; we do not guess a domain the record does not state).
TYPE_ALIASES: dict[str, str] = {
    "iot": "iot",
    "fmsr": "fmsr",
    "tsfm": "tsfm",
    "wo": "wo",
    "workorder": "wo",
    "work order": "wo",
    "work_order": "wo",
    "vibration": "vibration",
    "multiagent": "multiagent",
    "multi-agent": "multiagent",
    "multi_agent": "multiagent",
    "": "multiagent",
}


def normalise_type(raw: object) -> str | None:
    """Map an AssetOpsBench ``type`` (``IoT``, ``Workorder``, ``""``, ...) to our domain."""
    if not isinstance(raw, str):
        return None
    return TYPE_ALIASES.get(raw.strip().lower(), raw.strip().lower())


# -- the item and the context ------------------------------------------------------------


class CheckItem(BaseModel):
    """A candidate scenario as the checks see it: a draft with its seed, or a file record."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="Identity in the dedup index: seed key or record id")
    id: str | int | None = Field(default=None, description="Record id (None for drafts)")
    type: str | None = Field(description="Domain, normalised (None when the record has none)")
    text: str | None = Field(description="The utterance")
    category: str | None = Field(description="AssetOpsBench category")
    characteristic_form: str | None = Field(description="The rubric")
    deterministic: bool | None = Field(default=None, description="Single correct answer?")
    seed: TaskSeed | None = Field(default=None, description="The seed, when known")
    negative: bool = Field(default=False, description="An unanswerable (negative) scenario")
    grounding: dict[str, str] = Field(default_factory=dict, description="Entities it names")
    tool_sequence: list[ToolCall] = Field(default_factory=list, description="Expected calls")
    reference_answer: dict[str, Any] | None = Field(default=None, description="Computed answer")
    rubric: Rubric | None = Field(
        default=None, description="Required facts and forbidden claims (open scenarios)"
    )
    record: dict[str, Any] | None = Field(
        default=None, description="The record as read from a file (for the schema check)"
    )
    surfaces: dict[str, str] = Field(
        default_factory=dict,
        description="Mention -> the words the text wrote for it (Draft.surfaces)",
    )
    asset_class: str | None = Field(
        default=None, description="Asset class (its vocabulary gives spoken sensor names)"
    )
    operate: bool = Field(
        default=False, description="An operate scenario (kind 'operate'): the agent acts"
    )

    @property
    def closed_form(self) -> bool:
        """True when the inputs are synthesised (nothing in the store to ground)."""
        return bool(self.seed and self.seed.closed_form)

    @classmethod
    def from_draft(
        cls, draft: Draft, seed: TaskSeed | None, domain: str, asset_class: str | None = None
    ) -> CheckItem:
        """A verbaliser's draft (with its seed) before it becomes a record."""
        return cls(
            surfaces=dict(draft.surfaces),
            asset_class=asset_class,
            key=seed.key if seed else draft.seed_key,
            type=domain,
            text=draft.text,
            category=draft.category,
            characteristic_form=draft.characteristic_form,
            deterministic=seed.deterministic if seed else False,
            seed=seed,
            grounding=dict(seed.grounding) if seed else {},
            tool_sequence=list(seed.tool_sequence) if seed else [],
            reference_answer=dict(seed.answer) if seed else None,
            rubric=seed.rubric if seed else None,
        )

    @classmethod
    def from_scenario(cls, rec: ScenarioRecord, seed: TaskSeed | None = None) -> CheckItem:
        """One of our records (negatives included)."""
        return cls(
            key=rec.id,
            id=rec.id,
            type=normalise_type(rec.type),
            text=rec.text,
            category=rec.category,
            characteristic_form=rec.characteristic_form,
            deterministic=rec.deterministic,
            seed=seed,
            negative=rec.negative,
            grounding=dict(rec.grounding),
            tool_sequence=list(rec.tool_sequence),
            reference_answer=rec.reference_answer,
            rubric=rec.rubric,
            record=rec.model_dump(mode="json"),
            surfaces=dict(rec.provenance.surfaces),
            asset_class=rec.asset_class,
            operate=rec.kind == "operate",
        )

    @classmethod
    def from_record(cls, record: dict[str, Any], *, index: int = 0) -> CheckItem:
        """Any AssetOpsBench record read from a file (ours or upstream); never raises.

        Malformed values are kept out of the typed fields (the schema check reports them
        from ``record``); our extra fields are used when they parse.
        """

        def text_of(name: str) -> str | None:
            value = record.get(name)
            return value if isinstance(value, str) else None

        raw_id = record.get("id")
        rid = raw_id if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else None
        grounding = record.get("grounding")
        calls: list[ToolCall] = []
        for call in record.get("tool_sequence") or []:
            try:
                calls.append(ToolCall.model_validate(call))
            except ValidationError:
                calls = []
                break
        answer = record.get("reference_answer")
        det = record.get("deterministic")
        prov = record.get("provenance")
        surfaces = prov.get("surfaces") if isinstance(prov, dict) else None
        try:
            rubric = Rubric.model_validate(record["rubric"]) if record.get("rubric") else None
        except ValidationError:
            rubric = None  # reported by the schema check
        return cls(
            surfaces={str(k): str(v) for k, v in surfaces.items()}
            if isinstance(surfaces, dict)
            else {},
            asset_class=text_of("asset_class"),
            key=str(rid) if rid is not None else f"#{index}",
            id=rid,
            type=normalise_type(record.get("type")),
            text=text_of("text"),
            category=text_of("category"),
            characteristic_form=text_of("characteristic_form"),
            deterministic=det if isinstance(det, bool) else None,
            negative=record.get("negative") is True,
            grounding={str(k): str(v) for k, v in grounding.items()}
            if isinstance(grounding, dict)
            else {},
            tool_sequence=calls,
            reference_answer=answer if isinstance(answer, dict) else None,
            rubric=rubric,
            record=record,
            operate=record.get("kind") == "operate",
        )


class GroundingSets(BaseModel):
    """The store's entities a grounded scenario may name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sites: list[str] = Field(description="Sites")
    asset_sites: dict[str, str] = Field(description="Asset id → its site")
    sensors: list[str] = Field(description="Quantities present, of every sensor source")
    start: str | None = Field(description="Earliest timestamp of any data (ISO 8601)")
    end: str | None = Field(description="Latest timestamp of any data (ISO 8601)")

    @classmethod
    def from_profile(cls, profile: AssetProfile) -> GroundingSets:
        """From the profile's grounded inventory."""
        inv = profile.inventory
        starts = [r.start for r in inv.coverage.values() if r.start]
        ends = [r.end for r in inv.coverage.values() if r.end]
        return cls(
            sites=list(inv.sites),
            asset_sites={a.asset_id: a.site_name for a in inv.assets},
            sensors=[s.name for s in inv.sensors],
            start=min(starts) if starts else None,
            end=max(ends) if ends else None,
        )

    @classmethod
    def from_inventory(cls, inv: Inventory, asset: AssetClass) -> GroundingSets:
        """From the store's inventory (``scenariogen validate --store``)."""
        sensors = sorted(
            {s for a in inv.assets for s in a.sensors}
            | {s.name for s in asset.sensors if s.source != "telemetry"}
        )
        starts = [r.start for a in inv.assets for r in a.coverage.values() if r.start]
        ends = [r.end for a in inv.assets for r in a.coverage.values() if r.end]
        return cls(
            sites=list(inv.sites),
            asset_sites={a.asset_id: a.site_name for a in inv.assets},
            sensors=sensors,
            start=min(starts) if starts else None,
            end=max(ends) if ends else None,
        )


@dataclass
class CheckContext:
    """What the checks may consult; optional parts make the checks that need them skip."""

    policies: dict[str, DomainPolicy]
    tool_domains: dict[str, str] = field(default_factory=dict)
    dedup: DedupIndex | None = None
    against: DedupIndex | None = None
    against_tasks: dict[str, str] = field(default_factory=dict)
    grounding: GroundingSets | None = None
    recompute: Callable[[TaskSeed], Awaitable[list[str]]] | None = None
    # A generator.tools.registry.ToolContext (typed loosely: checks need not import tools).
    tools_ctx: Any = None

    @property
    def tool_names(self) -> frozenset[str]:
        """Every registered tool name."""
        return frozenset(self.tool_domains)

    @classmethod
    def with_registered_tools(cls, policies: dict[str, DomainPolicy], **kw: Any) -> CheckContext:
        """A context whose tool names are every registered tool (loads the tools)."""
        from generator.tools.registry import load_tools

        domains = {spec.name: spec.domain for spec in load_tools().all()}
        return cls(policies=policies, tool_domains=domains, **kw)


# -- registry ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckSpec:
    """A registered check."""

    name: str
    stage: Stage
    reason: str
    fn: CheckFn
    needs: tuple[Need, ...] = ()


CHECKS: Registry[CheckSpec] = Registry("check")
# Registry.names() sorts; checks run in registration order (cheap and structural first).
_ORDER: list[str] = []


def check(
    name: str, *, stage: Stage, reason: str, needs: Iterable[Need] = ()
) -> Callable[[CheckFn], CheckFn]:
    """Register ``fn(item, ctx) -> list[str]`` as check ``name``."""

    def deco(fn: CheckFn) -> CheckFn:
        CHECKS.add(name, CheckSpec(name, stage, reason, fn, tuple(needs)))
        _ORDER.append(name)
        return fn

    return deco


def check_names(stage: Stage | None = None) -> list[str]:
    """Registered checks in run order, optionally of one stage."""
    return [n for n in _ORDER if stage is None or CHECKS.get(n).stage == stage]


def _skip_reason(spec: CheckSpec, item: CheckItem, ctx: CheckContext) -> str | None:
    """Why ``spec`` does not apply to ``item`` under ``ctx`` (None: it applies)."""
    for need in spec.needs:
        if need == "policy" and (item.type is None or item.type not in ctx.policies):
            return f"no policy for type {item.type!r}"
        if need == "seed" and item.seed is None:
            return "no task seed"
        if need == "dedup" and ctx.dedup is None:
            return "no dedup index"
        if need == "against" and ctx.against is None:
            return "no --against set"
        if need == "grounding" and ctx.grounding is None:
            return "no store inventory"
        if need == "recompute" and ctx.recompute is None:
            return "no recompute callback"
        if need == "store" and ctx.tools_ctx is None:
            return "no store access"
        if need == "negative" and not item.negative:
            return "not a negative scenario"
        if need == "positive" and item.negative:
            return "negative scenario"
        if need == "open_form" and item.closed_form:
            return "closed-form inputs"
        if need == "tool_sequence" and not item.tool_sequence:
            return "no tool sequence"
        if need == "facts" and item.operate:
            return "operate scenario (checked by operate_task)"
        if need == "operate" and not item.operate:
            return "not an operate scenario"
        if need == "deterministic" and item.deterministic is False and item.rubric is None:
            return "open (non-deterministic) scenario without computed facts"
    return None


class CheckOutcome(BaseModel):
    """One check's result for one item."""

    model_config = ConfigDict(extra="forbid")

    check: str = Field(description="Check name")
    status: Literal["passed", "failed", "skipped"] = Field(description="Outcome")
    problems: list[str] = Field(default_factory=list, description="What failed")
    skipped_because: str | None = Field(default=None, description="Why it did not apply")


def reads_run_state(name: str) -> bool:
    """Whether check ``name`` consults what the run has accepted so far (the near-duplicate
    index), so that only the run can tell its outcome; every other check is a function of
    the item and the run's fixed inputs."""
    return "dedup" in CHECKS.get(name).needs


async def evaluate(
    stage: Stage | Literal["all"],
    item: CheckItem,
    ctx: CheckContext,
    *,
    known: Mapping[str, CheckOutcome] | None = None,
    leave_run_state: bool = False,
) -> list[CheckOutcome]:
    """Run the checks of ``stage`` (or all) on ``item`` in registration order.

    Args:
        known: Outcomes already found for this very item elsewhere (e.g. a draw-ahead
            worker), taken instead of running those checks again.
        leave_run_state: Leave out the checks that :func:`reads_run_state` (a worker's
            copy of the run's state is not the run's).
    """
    out: list[CheckOutcome] = []
    for name in check_names(None if stage == "all" else stage):
        if known is not None and name in known:
            out.append(known[name])
            continue
        if leave_run_state and reads_run_state(name):
            continue
        spec = CHECKS.get(name)
        why = _skip_reason(spec, item, ctx)
        if why is not None:
            out.append(CheckOutcome(check=name, status="skipped", skipped_because=why))
            continue
        result = spec.fn(item, ctx)
        problems: list[str] = await result if inspect.isawaitable(result) else result
        out.append(
            CheckOutcome(check=name, status="failed" if problems else "passed", problems=problems)
        )
    return out


async def run_checks(
    stage: Stage | Literal["all"],
    item: CheckItem,
    ctx: CheckContext,
    *,
    skipped: list[str] | None = None,
    known: Mapping[str, CheckOutcome] | None = None,
) -> list[str]:
    """Problems as ``"check_name: problem"`` strings (empty: the item passes).

    Args:
        stage: ``early``, ``deterministic`` or ``all``.
        item: The candidate.
        ctx: What the checks may consult.
        skipped: When given, the names of checks that did not apply are appended to it.
        known: See :func:`evaluate`.
    """
    problems: list[str] = []
    for outcome in await evaluate(stage, item, ctx, known=known):
        if outcome.status == "skipped" and skipped is not None:
            skipped.append(outcome.check)
        problems += [f"{outcome.check}: {p}" for p in outcome.problems]
    return problems


# -- tool names in free text -------------------------------------------------------------------


# What the patterns' IGNORECASE matching folds onto a lower-case ASCII letter: the upper
# case and the four other characters Python's ``re`` matches to one (İ, ı → i, ſ → s,
# K (Kelvin) → k). ``str.translate`` with it keeps the text's length, so a name the pattern
# finds is a substring of the folded text.
_FOLD = {ord(c): c.lower() for c in string.ascii_uppercase} | {
    0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"
}
_FOLDABLE_NAME = re.compile(r"[a-z0-9_]+")


@lru_cache(maxsize=64)
def _tool_patterns(names: frozenset[str]) -> tuple[tuple[str, re.Pattern[str], bool], ...]:
    """Per name (sorted): its pattern, and whether the name is lower-case ASCII letters,
    digits and underscores (then the folded text must contain it for the pattern to match).
    """
    pats = []
    for name in sorted(names):
        n = re.escape(name)
        if "_" in name:
            # An identifier-like name is never English: flag it anywhere as a whole word.
            body = rf"(?<![A-Za-z0-9_]){n}(?![A-Za-z0-9_])"
        else:
            # A plain word (sites, assets, sensors, history) is ordinary English; it names
            # the tool only when written as code: `history`, history(...), "the history tool".
            body = rf"`{n}`|(?<![A-Za-z0-9_]){n}\s*\(|(?<![A-Za-z0-9_]){n}\s+tools?\b"
        pats.append((name, re.compile(body, re.IGNORECASE),
                     _FOLDABLE_NAME.fullmatch(name) is not None))
    return tuple(pats)


def named_tools(text: str, names: Iterable[str]) -> list[str]:
    """Tool names that ``text`` names (rule of :func:`_tool_patterns`), sorted.

    A name absent from the case-folded text is passed over without its pattern (which
    could not match it): most texts name few of the tools.
    """
    folded = text.lower() if text.isascii() else text.translate(_FOLD)
    return [
        name for name, pat, foldable in _tool_patterns(frozenset(names))
        if (not foldable or name in folded) and pat.search(text)
    ]


# -- early checks -----------------------------------------------------------------------------

_REQUIRED = ("type", "text", "category", "characteristic_form")


@check(
    "required_fields",
    stage="early",
    reason="AssetOpsBench loads id, type, text, category and characteristic_form; an empty or "
    "missing one cannot be scored, so it is rejected before any costly check",
)
def _required_fields(item: CheckItem, ctx: CheckContext) -> list[str]:
    problems = []
    if item.record is not None and item.record.get("id") in (None, ""):
        problems.append("id is missing")
    for name in _REQUIRED:
        raw = item.record.get(name) if item.record is not None else getattr(item, name)
        if name == "type" and item.record is not None and raw == "":
            continue  # upstream writes multi-agent as an empty type
        if raw is None:
            problems.append(f"{name} is missing")
        elif not isinstance(raw, str) or not raw.strip():
            problems.append(f"{name} is empty or not text")
    return problems


@check(
    "text_length",
    stage="early",
    needs=("policy",),
    reason="the scorer reads the same policy bounds; a text outside them (or a characteristic "
    "form too short to be a rubric) would be marked down, so it never leaves the generator",
)
def _text_length(item: CheckItem, ctx: CheckContext) -> list[str]:
    policy = ctx.policies[str(item.type)]
    problems = []
    if item.text is not None:
        n = len(item.text.strip())
        lo, hi = policy.text_length.min_chars, policy.text_length.max_chars
        if not lo <= n <= hi:
            problems.append(f"text has {n} characters, outside [{lo}, {hi}] for {item.type}")
    if item.characteristic_form is not None:
        n = len(item.characteristic_form.strip())
        if n < policy.characteristic_form.min_chars:
            problems.append(
                f"characteristic_form has {n} characters, fewer than "
                f"{policy.characteristic_form.min_chars}"
            )
    return problems


@check(
    "no_tool_name_in_text",
    needs=("facts",),
    stage="early",
    reason="a request that names the tool tests instruction following, not tool selection. "
    "Identifier-like names (with '_', e.g. interpret_dga) are flagged anywhere as whole words; "
    "plain-word names (sites, assets, sensors, history) are ordinary English an operator uses, "
    "so they are flagged only when written as code: in backticks, followed by '(' or by 'tool'",
)
def _no_tool_name_in_text(item: CheckItem, ctx: CheckContext) -> list[str]:
    if not item.text:
        return []
    policy = ctx.policies.get(str(item.type))
    if policy is not None and "tool_names_in_text" not in policy.prohibited:
        return []
    found = named_tools(item.text, ctx.tool_names)
    return [f"text names tool(s) {', '.join(found)}"] if found else []


@check(
    "near_duplicate",
    stage="early",
    needs=("facts", "dedup"),
    reason="near-identical scenarios add nothing to an evaluation set; one index spans every "
    "domain of the run (upstream de-duplicated per domain and lost it in parallel runs)",
)
def _near_duplicate(item: CheckItem, ctx: CheckContext) -> list[str]:
    if not item.text or ctx.dedup is None:
        return []
    hit = ctx.dedup.is_duplicate(item.text, exclude=item.key)
    return [] if hit is None else [f"similarity {hit[1]:.2f} to {hit[0]}"]


# -- deterministic checks ------------------------------------------------------------------------


class AssetOpsBenchCore(BaseModel):
    """The six AssetOpsBench fields with their types (extra fields allowed)."""

    model_config = ConfigDict(extra="allow", strict=True)

    id: str | int = Field(description="Unique in the set")
    type: str = Field(description="Domain")
    text: str = Field(description="The utterance")
    category: str = Field(description="AssetOpsBench category")
    characteristic_form: str = Field(description="What a correct response does and contains")
    deterministic: bool | None = Field(default=None, description="Single correct answer?")


_EXTRA_FIELDS = set(ScenarioRecord.model_fields) - set(AssetOpsBenchCore.model_fields)


def _errors(exc: ValidationError, limit: int = 3) -> list[str]:
    out = []
    for err in exc.errors()[:limit]:
        loc = ".".join(str(p) for p in err["loc"]) or "(record)"
        out.append(f"{loc}: {err['msg']}")
    return out


@check(
    "schema",
    stage="deterministic",
    reason="the record must load unchanged in AssetOpsBench (core fields and their types) and, "
    "when it carries our extra fields, validate as a full ScenarioRecord",
)
def _schema(item: CheckItem, ctx: CheckContext) -> list[str]:
    problems: list[str] = []
    if item.record is not None:
        try:
            AssetOpsBenchCore.model_validate(item.record)
        except ValidationError as exc:
            problems += _errors(exc)
        if _EXTRA_FIELDS & set(item.record):
            try:
                ScenarioRecord.model_validate(item.record)
            except ValidationError as exc:
                problems += [f"ScenarioRecord {e}" for e in _errors(exc)]
    if item.type is not None and item.type not in DOMAINS:
        problems.append(f"type {item.type!r} is not a scenario domain ({', '.join(DOMAINS)})")
    if item.seed is not None and item.seed.domain != item.type:
        problems.append(f"seed domain {item.seed.domain!r} differs from type {item.type!r}")
    return problems


@check(
    "category_allowed",
    stage="deterministic",
    needs=("facts", "policy"),
    reason="the scorer accepts only the categories its policy lists for the domain; upstream "
    "the scorer rejected categories its own generator produced",
)
def _category_allowed(item: CheckItem, ctx: CheckContext) -> list[str]:
    if item.category is None:
        return []  # reported by required_fields / schema
    allowed = ctx.policies[str(item.type)].categories
    if item.category not in allowed:
        return [f"category {item.category!r} not allowed for {item.type}: {', '.join(allowed)}"]
    return []


@check(
    "core_tools_in_characteristic_form",
    stage="deterministic",
    needs=("facts", "policy", "positive"),
    reason="the rubric must say which of the domain's core tools a correct response uses "
    "(tools of two domains for multi-agent), or the judge cannot grade tool use",
)
def _core_tools_in_cf(item: CheckItem, ctx: CheckContext) -> list[str]:
    if not item.characteristic_form:
        return []
    policy = ctx.policies[str(item.type)]
    names = named_tools(item.characteristic_form, set(policy.core_tools) | ctx.tool_names)
    core = [n for n in names if n in policy.core_tools]
    problems = []
    if len(core) < policy.min_core_tools_named:
        problems.append(
            f"names {len(core)} core tool(s) of {item.type} (need {policy.min_core_tools_named}"
            f"; core: {', '.join(policy.core_tools[:10])})"
        )
    if policy.min_domains_named > 1:
        domains = sorted({ctx.tool_domains[n] for n in core if n in ctx.tool_domains})
        if len(domains) < policy.min_domains_named:
            problems.append(
                f"names tools of {len(domains)} domain(s) ({', '.join(domains) or 'none'}); "
                f"need {policy.min_domains_named}"
            )
    return problems


@check(
    "core_work_in_tool_sequence",
    stage="deterministic",
    needs=("facts", "policy", "positive", "tool_sequence"),
    reason="a task whose expected tools skip the domain's core work (e.g. an fmsr task that "
    "only lists sites) is prohibited by the policy",
)
def _core_work(item: CheckItem, ctx: CheckContext) -> list[str]:
    policy = ctx.policies[str(item.type)]
    if "skip_core_work" not in policy.prohibited:
        return []
    used = list(dict.fromkeys(c.name for c in item.tool_sequence))
    core = [n for n in used if n in policy.core_tools]
    if not core:
        return [f"expected tools {', '.join(used)} include no core tool of {item.type}"]
    if policy.min_domains_named > 1:
        domains = {ctx.tool_domains.get(n) for n in core} - {None}
        if len(domains) < policy.min_domains_named:
            return [f"expected tools span {len(domains)} domain(s); need "
                    f"{policy.min_domains_named}"]
    return []


# Tool arguments that name an entity the text must then name too. Dates are left out on
# purpose: a family may read a lookback window the question does not state ("latest value");
# ``asset_name`` is a free label in the diagnostic tools, not a store id.
_KIND_OF_ARG = {
    "site_name": "site",
    "asset_id": "asset_id",
    "equipment_id": "asset_id",
    "sensors": "sensor",
    "sensor": "sensor",
}
_KIND_OF_KEY = {
    "site": "site",
    "site_name": "site",
    "asset_id": "asset_id",
    "equipment_id": "asset_id",
    "sensor": "sensor",
    "start": "start",
    "end": "end",
    "final": "end",
    "date": "start",
}


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


@check(
    "grounded_entities_exist",
    stage="deterministic",
    needs=("grounding", "positive", "open_form"),
    reason="an open-form scenario must be answerable from the store: every site, asset, sensor "
    "and date it names exists (a date within the data, a window end up to a day after the last "
    "record since windows are [start, end)), and it names the one site, asset or sensor its "
    "tools read (policy required_grounding)",
)
def _grounded(item: CheckItem, ctx: CheckContext) -> list[str]:
    g = ctx.grounding
    if g is None:
        return []
    problems = []
    for key, value in item.grounding.items():
        kind = _KIND_OF_KEY.get(key)
        if kind == "site" and value not in g.sites:
            problems.append(f"site {value!r} is not in the store")
        elif kind == "asset_id" and value not in g.asset_sites:
            problems.append(f"asset {value!r} is not in the store")
        elif kind == "sensor" and value not in g.sensors:
            problems.append(f"sensor {value!r} is not in the store")
        elif kind in ("start", "end"):
            day, lo, hi = _day(value), _day(g.start or ""), _day(g.end or "")
            if day is None:
                problems.append(f"{key} {value!r} is not a date")
            elif lo is None or hi is None or not lo <= day <= hi + timedelta(days=1):
                problems.append(f"{key} {value} is outside the data ({g.start} to {g.end})")
    site = item.grounding.get("site") or item.grounding.get("site_name")
    asset = item.grounding.get("asset_id")
    if site and asset and asset in g.asset_sites and g.asset_sites[asset] != site:
        problems.append(f"asset {asset!r} is at site {g.asset_sites[asset]!r}, not {site!r}")
    policy = ctx.policies.get(str(item.type))
    if policy is not None and item.tool_sequence:
        values: dict[str, set[str]] = {}
        for call in item.tool_sequence:
            for arg, v in call.args.items():
                if arg in _KIND_OF_ARG and v not in (None, [], ""):
                    vs = v if isinstance(v, list) else [v]
                    values.setdefault(_KIND_OF_ARG[arg], set()).update(map(str, vs))
        # Only one particular entity must be named: a scan over several assets (which unit
        # at the site exceeds ...) names the site, not every asset it reads.
        used = {kind for kind, vs in values.items() if len(vs) == 1}
        named = {_KIND_OF_KEY[k] for k in item.grounding if k in _KIND_OF_KEY}
        missing = sorted((set(policy.required_grounding) & used) - named)
        if missing:
            problems.append(f"tools read {', '.join(missing)} but the grounding names none")
    return problems


@check(
    "seed_values_in_text",
    stage="deterministic",
    needs=("seed",),
    reason="the text must carry every entity, date and value the answer was computed for, "
    "verbatim or in a recorded surface form that stands for exactly that value (a sensor's "
    "spoken name from the class vocabulary, a natural phrasing of that day or window); a "
    "paraphrased value makes the reference answer wrong",
)
def _seed_values(item: CheckItem, ctx: CheckContext) -> list[str]:
    if item.seed is None or item.text is None:
        return []
    missing = missing_mentions(item.text, item.seed, item.surfaces, item.asset_class)
    return [f"text lacks {', '.join(repr(m) for m in missing)}"] if missing else []


@check(
    "record_matches_seed",
    stage="deterministic",
    needs=("seed",),
    reason="a written record must carry what its seed computed: the same reference answer, "
    "tool sequence and family, or the answer that recomputes is not the one the scorer reads",
)
def _record_matches_seed(item: CheckItem, ctx: CheckContext) -> list[str]:
    if item.seed is None or item.record is None:
        return []  # a draft has no record yet: the pipeline builds it from the seed
    seed, rec = item.seed, item.record
    problems = []
    if rec.get("reference_answer") != seed.answer:
        problems.append("reference_answer differs from the seed's computed answer")
    if rec.get("tool_sequence") != [c.model_dump(mode="json") for c in seed.tool_sequence]:
        problems.append("tool_sequence differs from the seed's")
    if rec.get("family") != seed.family:
        problems.append(f"family {rec.get('family')!r} differs from the seed's {seed.family!r}")
    return problems


@check(
    "reference_answer_recomputes",
    stage="deterministic",
    needs=("seed", "recompute", "deterministic"),
    reason="a deterministic scenario's reference answer (an open family's computed facts "
    "too) must come out again when its expected tool sequence is run against the store",
)
async def _recomputes(item: CheckItem, ctx: CheckContext) -> list[str]:
    if item.seed is None or ctx.recompute is None:
        return []
    return await ctx.recompute(item.seed)


@check(
    "duplicate_against_file",
    stage="deterministic",
    needs=("against",),
    reason="a new set must not repeat an earlier one given with --against FILE",
)
def _against(item: CheckItem, ctx: CheckContext) -> list[str]:
    problems = []
    if item.text and ctx.against is not None:
        hit = ctx.against.is_duplicate(item.text)
        if hit is not None:
            problems.append(f"similarity {hit[1]:.2f} to {hit[0]} in the --against set")
    family = item.seed.family if item.seed else (item.record or {}).get("family")
    if family and item.tool_sequence:
        earlier = ctx.against_tasks.get(task_key(str(family), item.tool_sequence))
        if earlier is not None:
            # The same task in other words would leak a held-out answer just the same.
            problems.append(f"same task (family and tool calls) as {earlier} in the --against set")
    return problems


def task_key(family: str, tool_sequence: list[ToolCall]) -> str:
    """Identity of a task across sets: its family and its exact tool calls."""
    calls = [c.model_dump(mode="json") for c in tool_sequence]
    return family + json.dumps(calls, sort_keys=True, default=str)


# -- negatives and LLM output (the logic lives in negatives.py and rubric_check.py) --------


@check(
    "provably_unanswerable",
    stage="deterministic",
    needs=("negative", "store"),
    reason="a negative scenario is only useful if the store really cannot answer it: its "
    "demonstrating tool calls are re-run and must show the gap it claims",
)
async def _provably_unanswerable(item: CheckItem, ctx: CheckContext) -> list[str]:
    problems = await verify_negative(item.reference_answer, item.tool_sequence, ctx.tools_ctx)
    cf = (item.characteristic_form or "").lower()
    if "cannot" not in cf and "can not" not in cf and "unable" not in cf:
        problems.append("characteristic_form carries no refusal ('cannot be determined ...')")
    return problems


@check(
    "rubric_agrees_with_reference",
    stage="deterministic",
    needs=("positive",),
    reason="the rubric is what a judge grades against; one that states a count, a value or "
    "a class the computed reference (or the store's fleet) contradicts would grade correct "
    "answers wrong, so an LLM-written rubric or open answer must agree with the reference",
)
def _rubric_agrees(item: CheckItem, ctx: CheckContext) -> list[str]:
    rubric = item.characteristic_form or ""
    if not rubric:
        return []
    problems: list[str] = []
    answer = item.reference_answer
    if answer:
        tolerance = dict(item.seed.tolerance) if item.seed else {}
        rel = dict(item.seed.rel_tolerance) if item.seed else {}
        problems += count_claims(rubric, answer)
        problems += value_claims(rubric, answer, tolerance, rel)
        problems += negated_labels(rubric, answer)
    if ctx.grounding is not None:
        problems += fleet_claims(rubric, len(ctx.grounding.sites), len(ctx.grounding.asset_sites))
    return problems


@check(
    "rubric_backed_by_reference",
    stage="deterministic",
    needs=("positive",),
    reason="an open scenario is graded on its rubric's required facts: each must be a value "
    "the reference computed (at its key, within tolerance), no forbidden claim may be the "
    "reference's own finding, and a seed that is not deterministic must carry a rubric",
)
def _rubric_backed(item: CheckItem, ctx: CheckContext) -> list[str]:
    if item.rubric is None:
        if item.seed is not None and not item.seed.deterministic:
            return ["open seed carries no rubric"]
        return []
    if item.reference_answer is None:
        return ["the rubric has no reference answer (computed facts) to rest on"]
    return rubric_backing(item.rubric, item.reference_answer)


@check(
    "no_unsafe_characters",
    stage="early",
    reason="NUL, other control characters and bidirectional overrides make a scenario read "
    "differently from what it stores (and break JSONL readers); the LLM boundary strips "
    "them, so one in a record means it was written around the generator",
)
def _no_unsafe_characters(item: CheckItem, ctx: CheckContext) -> list[str]:
    problems = []
    for name in ("text", "characteristic_form"):
        value = getattr(item, name)
        if isinstance(value, str):
            found = unsafe_characters(value)
            if found:
                problems.append(f"{name} holds unsafe characters {', '.join(found)}")
    return problems


# -- language (the rules are in checks_language.py) -----------------------------------------


@check("parameter_leak", stage="early", reason=LEAK_REASON)
def _parameter_leak(item: CheckItem, ctx: CheckContext) -> list[str]:
    return leak_problems(item.text) if item.text else []


@check("grammar", stage="early", reason=GRAMMAR_REASON)
def _grammar(item: CheckItem, ctx: CheckContext) -> list[str]:
    return grammar_problems(item.text) if item.text else []


@check("register", stage="early", reason=REGISTER_REASON)
def _register(item: CheckItem, ctx: CheckContext) -> list[str]:
    return register_problems(item.text) if item.text else []


@check("multiagent_repeat", stage="early", needs=("dedup",), reason=MULTIAGENT_REPEAT_REASON)
def _multiagent_repeat(item: CheckItem, ctx: CheckContext) -> list[str]:
    if item.type != "multiagent" or not item.text or ctx.dedup is None:
        return []
    entities = list(item.grounding.values()) or (
        list(item.seed.grounding.values()) if item.seed else [])
    hit = ctx.dedup.repeated_request(item.text, entities)
    return [] if hit is None else [f"repeats {hit[1]} word for word: {hit[0]!r}"]


@check(
    "operate_task",
    stage="deterministic",
    needs=("operate",),
    reason="an operate scenario carries a valid task; its text states the task id the tools "
    "take, its reference answer is the stored oracle plan, which re-simulates feasible at the "
    "stored cost (score 1), doing nothing does not (the task needs action), and its expected "
    "tools are the operate tools",
)
def _operate_task(item: CheckItem, ctx: CheckContext) -> list[str]:
    from generator.generate.draw.operate_run import OPERATE_TOOLS
    from generator.operate.model import COST_TOL, OperateTask, evaluate_plan

    try:
        task = OperateTask.model_validate((item.record or {}).get("operate"))
    except ValidationError as exc:
        return [f"operate task {e}" for e in _errors(exc)]
    problems: list[str] = []
    if item.text is not None and task.task_id not in item.text:
        problems.append(f"text does not state the task id {task.task_id}")
    oracle = {"actions": [p.model_dump() for p in task.reference.oracle.plan]}
    given = (item.reference_answer or {}).get("actions")
    if given != oracle["actions"]:
        problems.append(f"reference_answer actions {given!r} are not the oracle plan "
                        f"{oracle['actions']!r}")
    missing = [t for t in OPERATE_TOOLS if t not in {c.name for c in item.tool_sequence}]
    if missing:
        problems.append(f"tool_sequence lacks the operate tool(s) {', '.join(missing)}")
    try:
        best = evaluate_plan(task, oracle)
        nothing = evaluate_plan(task, {"actions": []})
    except (ImportError, ValueError) as exc:
        return [*problems, f"simulator {task.simulator} cannot run: {exc}"]
    cost = task.reference.oracle.action_cost
    if best.score != 1.0 or best.action_cost is None or abs(best.action_cost - cost) > COST_TOL:
        problems.append(f"the oracle plan re-simulates to score {best.score:g}, feasible="
                        f"{best.feasible}, cost {best.action_cost} (stored: 1, True, {cost:g})")
    if nothing.feasible:
        problems.append("doing nothing is feasible: the task needs no action")
    return problems
