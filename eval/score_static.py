"""The static 20 points: checks 6, schema 4, type diversity 3, category 3, text length 2,
ids 1, texts 1.

Every component but type diversity is a per-record pass/fail; the set's points are the
weight times the share of records that pass. How each is decided:

- **checks (6)**: the record fails none of the deterministic checks ``validate`` runs
  (:mod:`generator.generate.checks.checks`: the text states the seed's values, no tool name or
  answer in the text, a rubric that agrees with the reference, ...; near-duplicates and ids
  are their own components). A rotated set, whose texts ask other scenarios' questions,
  loses these points. Without check results (none given) every record passes.
- **schema (4)**: a record carrying any of our extra fields (``uuid``, ``tool_sequence``,
  ...) is validated against ``schemas/scenario.schema.json``; any other record against
  ``schemas/assetopsbench_scenario.schema.json`` (the six AssetOpsBench fields, extra
  fields allowed). Both are the committed files, read with ``jsonschema``.
- **type diversity (3)**, set level: 2 points for coverage (distinct domains present ÷
  the five AssetOpsBench focus groups iot, fmsr, tsfm, wo, multiagent, at most 1) and
  2 for evenness (Shannon entropy of the domain shares ÷ ln 5, at most 1). A record
  without a type counts toward neither (we never guess a domain the record does not
  state). Every record receives the set's diversity points.
- **category alignment (3)**: a category fits when our policy lists it for the domain
  (``policies/<domain>.yaml``, the files the generator reads) OR the file itself uses it
  for at least two records of that domain: a vocabulary the file uses consistently is
  never rejected, a one-off spelling is. A record without a category does not fit.
- **text length (2)**: the text's stripped length lies within the policy bounds of its
  domain; a record of unknown domain gets the widest bounds of any policy.
- **unique id (1)**: the id is present and no earlier record has it.
- **unique text (1)**: no earlier record has the same or a near-identical text
  (rapidfuzz ratio ≥ the threshold, 0.9 by default: the generator's dedup measure).
  The first of a pair passes, the second is marked.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from eval.score_model import STATIC_WEIGHTS, Component, Part
from generator.generate.checks.checks import normalise_type
from generator.generate.checks.dedup import DedupIndex
from generator.generate.checks.schemas import load_schema
from generator.generate.run.policy import DomainPolicy

FOCUS_GROUPS = ("iot", "fmsr", "tsfm", "wo", "multiagent")
# A record carrying one of these is one of ours and must validate as a full ScenarioRecord.
OUR_FIELDS = frozenset({
    "uuid", "asset_class", "difficulty", "expected_tools", "tool_sequence",
    "reference_answer", "tolerance", "family", "grounding", "provenance",
})


@lru_cache(maxsize=4)
def _validator(name: str) -> Any:
    import jsonschema

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def schema_problems(record: dict[str, Any]) -> list[str]:
    """Schema violations of one record (at most three, one line each)."""
    name = (
        "scenario.schema.json" if OUR_FIELDS & set(record)
        else "assetopsbench_scenario.schema.json"
    )
    errors = sorted(_validator(name).iter_errors(record), key=lambda e: list(e.path))
    out = []
    for err in errors[:3]:
        where = ".".join(str(p) for p in err.path) or "(record)"
        out.append(f"{name}: {where}: {err.message[:160]}")
    return out


def domain_of(record: dict[str, Any]) -> str:
    """The record's normalised domain, or 'unknown' when it states none."""
    return normalise_type(record.get("type")) or "unknown"


@dataclass
class StaticResult:
    """The static part and the per-record points and problems."""

    part: Part
    per_record: list[float]
    problems: list[list[str]] = field(default_factory=list)


def _diversity(domains: list[str]) -> tuple[float, str]:
    counts = Counter(d for d in domains if d != "unknown")
    k = len(FOCUS_GROUPS)
    if not counts:
        return 0.0, "no record states a domain"
    coverage = min(1.0, len(counts) / k)
    total = sum(counts.values())
    entropy = -sum((c / total) * math.log(c / total) for c in counts.values())
    evenness = min(1.0, entropy / math.log(k))
    share = 0.5 * coverage + 0.5 * evenness
    shown = ", ".join(f"{d} {c}" for d, c in counts.most_common())
    unknown = len(domains) - total
    tail = f"; {unknown} without a type" if unknown else ""
    return share, (
        f"{len(counts)} of {k} focus groups ({shown}{tail}): coverage {coverage:.2f}, "
        f"evenness H/ln{k} {evenness:.2f}"
    )


def score_static(
    records: list[dict[str, Any]],
    policies: dict[str, DomainPolicy],
    *,
    threshold: float = 0.9,
    check_failures: dict[str, list[str]] | None = None,
) -> StaticResult:
    """Score the static part of a set (see the module docstring for every rule).

    Args:
        records: The set, in file order.
        policies: Domain policies (``load_policies()``).
        threshold: Near-duplicate similarity.
        check_failures: Record id → the deterministic checks' findings on it (``check:
            problem`` lines, from :func:`check_findings`); None: every record passes.
    """
    n = len(records)
    domains = [domain_of(r) for r in records]
    problems: list[list[str]] = [[] for _ in records]
    passed: dict[str, list[bool]] = {k: [] for k in STATIC_WEIGHTS if k != "type_diversity"}

    # Categories the file uses for at least two records of a domain.
    used = Counter(
        (d, r["category"]) for d, r in zip(domains, records, strict=True)
        if isinstance(r.get("category"), str)
    )
    vocabulary = {key for key, c in used.items() if c >= 2}
    bounds = (min((p.text_length.min_chars for p in policies.values()), default=1),
              max((p.text_length.max_chars for p in policies.values()), default=10**6))

    seen_ids: dict[str, int] = {}
    dedup = DedupIndex(threshold)
    for i, (rec, dom) in enumerate(zip(records, domains, strict=True)):
        found = (check_failures or {}).get(str(rec.get("id", f"#{i}")), [])
        issues = schema_problems(rec)
        policy = policies.get(dom)
        outcomes = {
            "checks": (not found, [f"checks: {p}" for p in found[:3]]),
            "schema": (not issues, [f"schema: {p}" for p in issues]),
            "category_alignment": _category(rec, dom, policy, vocabulary),
            "text_length": _text_length(rec, dom, policy, bounds),
            "unique_id": _unique_id(rec, i, seen_ids),
            "unique_text": _unique_text(rec, i, dedup),
        }
        for name, (ok, lines) in outcomes.items():
            passed[name].append(ok)
            problems[i] += lines

    div_share, div_reason = _diversity(domains)
    components = _components(passed, n, div_share, div_reason)
    per_record = []
    for i in range(n):
        pts = STATIC_WEIGHTS["type_diversity"] * div_share
        pts += sum(STATIC_WEIGHTS[k] for k, flags in passed.items() if flags[i])
        per_record.append(round(pts, 4))
    total = round(sum(c.points or 0.0 for c in components), 3)
    part = Part(name="static", max_points=20.0, ran=True, points=total, components=components)
    return StaticResult(part=part, per_record=per_record, problems=problems)


Outcome = tuple[bool, list[str]]  # passed, and the problem lines when not


def _category(
    rec: dict[str, Any], dom: str, policy: DomainPolicy | None, vocabulary: set[tuple[str, str]]
) -> Outcome:
    cat = rec.get("category")
    if not isinstance(cat, str) or not cat.strip():
        return False, ["category: none given"]
    if (policy is not None and cat in policy.categories) or (dom, cat) in vocabulary:
        return True, []
    allowed = ", ".join(policy.categories) if policy else "(no policy)"
    return False, [
        f"category: {cat!r} is neither in the {dom} policy ({allowed}) nor used by "
        f"another {dom} record of the file"
    ]


def _text_length(
    rec: dict[str, Any], dom: str, policy: DomainPolicy | None, bounds: tuple[int, int]
) -> Outcome:
    text = rec.get("text")
    lo, hi = (
        (policy.text_length.min_chars, policy.text_length.max_chars) if policy else bounds
    )
    length = len(text.strip()) if isinstance(text, str) else 0
    if isinstance(text, str) and lo <= length <= hi:
        return True, []
    return False, [f"text_length: {length} characters, outside [{lo}, {hi}] ({dom})"]


def _unique_id(rec: dict[str, Any], i: int, seen_ids: dict[str, int]) -> Outcome:
    raw_id = rec.get("id")
    if raw_id is None or raw_id == "":
        return False, ["unique_id: no id"]
    if str(raw_id) in seen_ids:
        return False, [f"unique_id: id {raw_id!r} also used by record "
                       f"{seen_ids[str(raw_id)] + 1}"]
    seen_ids[str(raw_id)] = i
    return True, []


def _unique_text(rec: dict[str, Any], i: int, dedup: DedupIndex) -> Outcome:
    text, raw_id = rec.get("text"), rec.get("id")
    if not isinstance(text, str) or not text.strip():
        return False, ["unique_text: no text"]
    ok, other, sim = dedup.check_and_add(text, str(raw_id if raw_id is not None else i))
    return ok, [] if ok else [f"unique_text: similarity {sim:.2f} to record {other}"]


def _components(
    passed: dict[str, list[bool]], n: int, div_share: float, div_reason: str
) -> list[Component]:
    components: list[Component] = []
    for name, weight in STATIC_WEIGHTS.items():
        if name == "type_diversity":
            components.append(Component(name=name, max_points=weight,
                                        points=round(weight * div_share, 3),
                                        share=round(div_share, 4), reason=div_reason))
            continue
        flags = passed[name]
        share = sum(flags) / n if n else 0.0
        components.append(Component(
            name=name, max_points=weight, points=round(weight * share, 3),
            share=round(share, 4), reason=f"{sum(flags)} of {n} records pass",
        ))
    return components


# Checks with their own components (ids, near-duplicate texts) are not counted twice.
_OWN_COMPONENTS = frozenset({"unique_id", "near_duplicate"})


def check_findings(records: list[dict[str, Any]], policies: dict[str, DomainPolicy],
                   seeds: dict[str, Any] | None = None) -> dict[str, list[str]]:
    """Record id → ``check: problem`` lines of the deterministic checks ``validate`` runs
    (no store: the checks that read only the record, its seed and the policies)."""
    import asyncio

    from generator.generate.checks.checks import CheckContext
    from generator.generate.checks.validate import validate_records

    ctx = CheckContext.with_registered_tools(policies, dedup=None)
    report = asyncio.run(validate_records(records, ctx, seeds=seeds or {}))
    out: dict[str, list[str]] = {}
    for f in report.failures:
        if f.check not in _OWN_COMPONENTS:
            out.setdefault(f.id, []).append(f"{f.check}: {f.problem}")
    return out
