"""Negative scenarios: requests the store and the tools provably cannot answer.

Four kinds, built from the profile and drawn with a generator seeded by (run seed,
"negatives", index, attempt):

- ``unknown_asset``: an id with an existing site prefix and a unit number that does not
  exist (``NORTH-TX07`` when the site has TX01..TX03); the data tools raise on it.
- ``outside_window``: a window that starts weeks after the asset's last record; the
  history tool returns no rows.
- ``external_dependency``: needs data no registered tool provides (a weather forecast,
  ERP spare-parts stock, electricity market prices); no tool's name or description
  mentions it.
- ``insufficient_evidence``: predicting a failure date from one oil sample; the window
  holds one sample and no tool predicts failure dates.

Each is a :class:`ScenarioRecord` with ``negative=True``, ``deterministic=True``, a refusal
``characteristic_form`` and ``reference_answer = {"answerable": false, "kind", "reason",
...}``; its ``tool_sequence`` is the calls that demonstrate the gap, and the
``provably_unanswerable`` check re-runs them. Negatives are not counted in N; their ``id``
and ``provenance.run_id`` are placeholders the pipeline replaces.
"""

from __future__ import annotations

import hashlib
import random
import re
import uuid
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, Literal

from generator.errors import StoreUnavailable, UserError
from generator.generate.checks import CheckContext, CheckItem, check
from generator.generate.dedup import DedupIndex
from generator.generate.model import (
    GENERATOR_VERSION,
    ScenarioProvenance,
    ScenarioRecord,
    ToolCall,
)

if TYPE_CHECKING:
    from generator.profile.model import AssetProfile, GroundedAsset

NegativeKind = Literal[
    "unknown_asset", "outside_window", "external_dependency", "insufficient_evidence"
]
KINDS: tuple[NegativeKind, ...] = (
    "unknown_asset",
    "outside_window",
    "external_dependency",
    "insufficient_evidence",
)
NEGATIVES_VERSION = "negatives-v1"
NEGATIVE_UUID_NAMESPACE = uuid.UUID("0d7f1f52-8c1e-4a59-9a53-3f3c2b7e6a10")
MAX_ATTEMPTS = 4

# External data a request may depend on, with the words that would reveal a tool for it.
EXTERNAL: dict[str, tuple[str, ...]] = {
    "weather forecast": ("weather", "meteorological", "meteo"),
    "ERP spare-parts inventory": ("erp", "spare", "spares", "stock", "warehouse"),
    "electricity market prices": ("price", "prices", "market", "tariff"),
}
# Words that would reveal a tool predicting a failure date.
FAILURE_DATE_WORDS = ("failure date", "time to failure", "remaining useful life", "rul")

_SENSOR_WORDS = {"wti": "winding temperature", "oti": "top-oil temperature", "load_mva": "load"}


def _rng(run_seed: int, index: int, attempt: int) -> random.Random:
    digest = hashlib.sha256(f"{run_seed}|negatives|{index}|{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _day(ts: str | None) -> date | None:
    if not ts:
        return None
    try:
        return date.fromisoformat(ts[:10])
    except ValueError:
        return None


def _mentions(text: str, words: tuple[str, ...]) -> bool:
    low = text.lower()
    return any(re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", low) for w in words)


def _unknown_id(asset: GroundedAsset, known: set[str], rng: random.Random) -> str:
    """Same prefix as ``asset`` (site and class), a unit number beyond any stored one."""
    m = re.match(r"^(.*?)(\d+)$", asset.asset_id)
    if m is None:
        candidate = f"{asset.asset_id}-X{rng.randint(90, 99)}"
    else:
        prefix, digits = m.group(1), m.group(2)
        numbers = [
            int(k[len(prefix):]) for k in known
            if k.startswith(prefix) and k[len(prefix):].isdigit()
        ]
        candidate = f"{prefix}{max(numbers) + rng.randint(1, 6):0{len(digits)}d}"
    while candidate in known:  # cannot happen with the max above; guards odd id schemes
        candidate += "X"
    return candidate


def _draft(
    kind: NegativeKind, profile: AssetProfile, rng: random.Random
) -> dict[str, Any] | None:
    """The words, calls and answer of one negative (None when the profile cannot host it)."""
    assets = list(profile.inventory.assets)
    if not assets:
        return None  # every kind names a real site and unit (or a variant of one)
    asset = rng.choice(assets)
    site, aid = asset.site_name, asset.asset_id
    known = {a.asset_id for a in assets}
    if kind == "unknown_asset":
        bad = _unknown_id(asset, known, rng)
        day = _day(asset.telemetry.start) or date(2026, 1, 1)
        sensor = rng.choice(sorted(_SENSOR_WORDS))
        text = rng.choice(
            [
                f"What was the highest {_SENSOR_WORDS[sensor]} of transformer {bad} at site "
                f"{site} on {day}?",
                f"Show the hourly {_SENSOR_WORDS[sensor]} of {bad} at the {site} site for "
                f"{day}.",
            ]
        )
        here = sorted(a.asset_id for a in assets if a.site_name == site)
        reason = f"no asset {bad} exists at site {site} (its assets are {', '.join(here)})"
        return {
            "type": "iot", "category": "Data Query", "text": text,
            "cf": f"The response should state that the {_SENSOR_WORDS[sensor]} of {bad} cannot "
            f"be determined because {reason}; it should not invent readings or substitute "
            "another unit.",
            "calls": [ToolCall(name="history", args={
                "site_name": site, "asset_id": bad, "start": str(day),
                "final": str(day + timedelta(days=1)), "sensors": [sensor]})],
            "answer": {"asset_id": bad, "site": site},
            "grounding": {"site": site, "asset_id": bad},
            "reason": reason,
        }
    if kind == "outside_window":
        end = _day(asset.telemetry.end)
        if end is None:
            return None
        start = end + timedelta(days=rng.randint(14, 60))
        final = start + timedelta(days=7)
        sensor = rng.choice(sorted(_SENSOR_WORDS))
        text = (
            f"What was the maximum {_SENSOR_WORDS[sensor]} of {aid} at site {site} between "
            f"{start} and {final}?"
        )
        reason = f"the telemetry of {aid} ends on {end}, before the window {start} to {final}"
        return {
            "type": "iot", "category": "Data Query", "text": text,
            "cf": f"The response should state that the maximum {_SENSOR_WORDS[sensor]} cannot be "
            f"determined because {reason}; the history tool returns no records for that window.",
            "calls": [ToolCall(name="history", args={
                "site_name": site, "asset_id": aid, "start": str(start), "final": str(final),
                "sensors": [sensor]})],
            "answer": {"asset_id": aid, "window": [str(start), str(final)],
                       "data_end": asset.telemetry.end},
            "grounding": {"site": site, "asset_id": aid, "start": str(start), "end": str(final)},
            "reason": reason,
        }
    if kind == "external_dependency":
        need = rng.choice(sorted(EXTERNAL))
        if need == "weather forecast":
            text = (
                f"Using next week's weather forecast for site {site}, will {aid} reach its "
                "top-oil alarm temperature?"
            )
            calls = [ToolCall(name="sensors", args={"site_name": site, "asset_id": aid})]
            typ, cat = "multiagent", "Prediction"
        elif need == "ERP spare-parts inventory":
            text = (
                f"How many spare bushings for {aid} at site {site} are in stock in the ERP "
                "system?"
            )
            calls = [ToolCall(name="get_work_orders", args={"equipment_id": aid})]
            typ, cat = "wo", "Decision Support"
        else:
            text = (
                f"Given next month's electricity market prices, on which day is it cheapest to "
                f"take {aid} at site {site} out of service for maintenance?"
            )
            calls = [ToolCall(name="get_preventive_work_orders", args={"equipment_id": aid})]
            typ, cat = "wo", "Decision Support"
        reason = f"it needs the {need}, which no available tool or data source provides"
        return {
            "type": typ, "category": cat, "text": text,
            "cf": "The response should state that the question cannot be answered because "
            f"{reason}; it may say what the store does hold, but must not invent the missing data.",
            "calls": calls,
            "answer": {"needs": need, "asset_id": aid},
            "grounding": {"site": site, "asset_id": aid},
            "reason": reason,
        }
    # insufficient_evidence
    sample_day = _day(asset.covered("oil_sample").start)
    if sample_day is None:
        return None
    text = rng.choice(
        [
            f"Based on the oil sample of {aid} at site {site} taken on {sample_day}, on what "
            "exact date will the transformer fail?",
            f"From the {sample_day} oil sample of {aid} at site {site} alone, predict the day "
            f"{aid} will fail.",
        ]
    )
    reason = (
        "a failure date cannot be predicted from a single oil sample: it needs a gas trend over "
        "several samples and a failure model, and no tool predicts failure dates"
    )
    return {
        "type": "fmsr", "category": "Prediction", "text": text,
        "cf": f"The response should state that the failure date of {aid} cannot be determined "
        f"because {reason}; it may interpret the sample (e.g. with interpret_dga) but must not "
        "give a date.",
        "calls": [ToolCall(name="oil_samples", args={
            "site_name": site, "asset_id": aid, "start": str(sample_day),
            "final": str(sample_day + timedelta(days=1))})],
        "answer": {"asset_id": aid, "sample_day": str(sample_day)},
        "grounding": {"site": site, "asset_id": aid, "start": str(sample_day)},
        "reason": reason,
    }


def _record(
    kind: NegativeKind, d: dict[str, Any], profile: AssetProfile, index: int, attempt: int
) -> ScenarioRecord:
    family = f"negative_{kind}"
    calls: list[ToolCall] = d["calls"]
    return ScenarioRecord(
        id=f"negative_pending_{index + 1:02d}",
        type=d["type"],
        text=d["text"],
        category=d["category"],
        characteristic_form=d["cf"],
        deterministic=True,
        uuid=str(uuid.uuid5(NEGATIVE_UUID_NAMESPACE,
                            f"{profile.asset_class}|{family}|{d['text']}")),
        asset_class=profile.asset_class,
        difficulty="medium",
        expected_tools=list(dict.fromkeys(c.name for c in calls)),
        tool_sequence=calls,
        reference_answer={"answerable": False, "kind": kind, "reason": d["reason"],
                          **d["answer"]},
        tolerance={},
        family=family,
        grounding=d["grounding"],
        negative=True,
        provenance=ScenarioProvenance(
            generator_version=GENERATOR_VERSION,
            run_id="pending",
            verbaliser="template",
            model="none",
            prompt_version=NEGATIVES_VERSION,
            batch=0,
            attempts=attempt + 1,
            family=family,
            draw=index,
        ),
    )


async def verify_negative(
    reference_answer: dict[str, Any] | None, calls: list[ToolCall], tools_ctx: Any
) -> list[str]:
    """Problems with a negative's claim to be unanswerable (empty: it is, provably).

    Runs its demonstrating calls against the store: an unknown id must make them raise a
    user error (or return nothing); a window must return no rows; an external dependency
    must be covered by no registered tool; a single-sample window must hold at most one
    sample and no tool may predict failure dates.
    """
    from generator.tools.registry import call_tool, load_tools

    answer = reference_answer or {}
    kind = answer.get("kind")
    if answer.get("answerable") is not False or kind not in KINDS:
        return [f"reference_answer is not a negative answer with a kind in {', '.join(KINDS)}"]
    registry = load_tools()
    catalogue = " | ".join(
        f"{name.replace('_', ' ')}: {registry.get(name).description}" for name in registry.names()
    )
    problems: list[str] = []
    if kind == "external_dependency":
        need = str(answer.get("needs", ""))
        words = EXTERNAL.get(need)
        if words is None:
            return [f"unknown external dependency {need!r} (known: {', '.join(EXTERNAL)})"]
        if _mentions(catalogue, words):
            problems.append(f"a registered tool mentions the {need}")
    if kind == "insufficient_evidence" and _mentions(catalogue, FAILURE_DATE_WORDS):
        problems.append("a registered tool predicts failure dates")
    for call in calls:
        try:
            result = await call_tool(call.name, call.args, tools_ctx)
        except StoreUnavailable:
            raise  # an outage stops the run; it does not show the gap either way
        except UserError as exc:
            if kind == "unknown_asset":
                continue
            problems.append(f"{call.name} failed instead of demonstrating the gap: {exc.what}")
            continue
        count = getattr(result, "count", None)
        if kind == "unknown_asset" and count != 0:
            problems.append(f"{call.name} answered for the supposedly unknown asset")
        elif kind == "outside_window" and count != 0:
            problems.append(f"{call.name} returned {count} records in the window")
        elif kind == "insufficient_evidence" and (count is None or count > 1):
            problems.append(f"{call.name} returned {count} samples, not a single one")
    return problems


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


async def build_negatives(
    profile: AssetProfile,
    tools_ctx: Any,
    k: int,
    run_seed: int,
    *,
    dedup: DedupIndex | None = None,
) -> list[ScenarioRecord]:
    """``k`` verified negative scenarios, kinds in a fixed rotation, deterministic per seed.

    A draw whose calls do not demonstrate the gap, or (with ``dedup``) whose text is a
    near-duplicate of an indexed one, is redrawn (up to ``MAX_ATTEMPTS``); a kind the
    profile cannot host (no assets, no oil samples) yields fewer records rather than an
    unverified one.

    Args:
        profile: The asset profile (inventory).
        tools_ctx: A ``generator.tools.registry.ToolContext`` on the same store.
        k: Number of negatives wanted.
        run_seed: The run seed.
        dedup: The run's index; accepted negatives are added to it (key ``negative#i``).
    """
    out: list[ScenarioRecord] = []
    for index in range(k):
        kind = KINDS[index % len(KINDS)]
        for attempt in range(MAX_ATTEMPTS):
            d = _draft(kind, profile, _rng(run_seed, index, attempt))
            if d is None:
                break
            rec = _record(kind, d, profile, index, attempt)
            if await verify_negative(rec.reference_answer, rec.tool_sequence, tools_ctx):
                continue
            if dedup is not None and not dedup.check_and_add(rec.text, f"negative#{index}")[0]:
                continue
            out.append(rec)
            break
    return out
