"""Negative scenarios: requests the store and the tools provably cannot answer.

Negative *kinds* are registered with :func:`negative`: a draft function that words the
request, names the calls that demonstrate the gap and the answer, plus what those calls
must show. The framework registers the kinds every class shares, worded with the class's
vocabulary (``assets/<class>/vocabulary.yaml``):

- ``unknown_asset``: an id with an existing site prefix and a unit number that does not
  exist (``NORTH-X07`` when the site has X01..X03); the data tools raise on it.
- ``outside_window``: a window that starts weeks after the asset's last record; the
  history tool returns no rows.
- ``external_dependency``: needs data no registered tool provides (a weather forecast,
  ERP spare-parts stock, electricity market prices); no tool's name or description
  mentions it.
- ``insufficient_evidence``: a failure date from the unit's first single reading; the
  history tool returns one record and no tool mentions failure dates.
- ``sensor_not_fitted``: asks about one of the vocabulary's ``absent_sensors``; the
  ``sensors`` listing of the unit does not mention it (checked on the call's result).
- ``forbidden_action``: asks the agent to act (switch the unit off, change an alarm
  setting, close or create a work order); no tool's name or description has the action's
  words.
- ``contradictory_request``: a window that ends before it starts; the history tool
  refuses it (empty time window).
- ``beyond_standard_scope``: asks one of the class's standards (asset.yaml) for what no
  standard of it gives (an end-of-life date, a replacement cost, an insurance premium); no
  tool's name or description mentions it.

Every text gets an opener and a closer as positives do (:func:`frame_text`, the pools of
``templates.yaml``), drawn by a generator seeded apart from the draft's, so the draft's
own draws are those of a text without a frame.

An asset class adds or rewords kinds in ``assets/<class>/negatives.py`` (imported by
convention when present) with ``generator.api.negative(kind, asset_classes=("<class>",))``;
a class kind named like a generic one replaces it for that class, in the generic one's
place of the rotation; other class kinds follow the generic ones in registration order.

Draws use a generator seeded by (run seed, "negatives", index, attempt). Each negative is a
:class:`ScenarioRecord` with ``negative=True``, ``deterministic=True``, a refusal
``characteristic_form`` and ``reference_answer = {"answerable": false, "kind", "reason",
...}``; its ``tool_sequence`` is the calls that demonstrate the gap, and the
``provably_unanswerable`` check (in :mod:`generator.generate.checks.checks`) re-runs them through
:func:`verify_negative`. Negatives are not counted in N; their ``id`` and
``provenance.run_id`` are placeholders the pipeline replaces.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import random
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from generator.errors import StoreUnavailable, UserError
from generator.generate.model import (
    GENERATOR_VERSION,
    ScenarioProvenance,
    ScenarioRecord,
    ToolCall,
)
from generator.registry import Registry
from generator.vocabulary import Vocabulary, load_vocabulary

if TYPE_CHECKING:
    from generator.generate.checks.dedup import DedupIndex
    from generator.profile.model import AssetProfile, GroundedAsset

NEGATIVES_VERSION = "negatives-v1"
NEGATIVE_UUID_NAMESPACE = uuid.UUID("0d7f1f52-8c1e-4a59-9a53-3f3c2b7e6a10")
MAX_ATTEMPTS = 4
GENERIC = "*"

# External data a request may depend on, with the words that would reveal a tool for it.
EXTERNAL_NEEDS: dict[str, tuple[str, ...]] = {
    "weather forecast": ("weather", "meteorological", "meteo"),
    "ERP spare-parts inventory": ("erp", "spare", "spares", "stock", "warehouse"),
    "electricity market prices": ("price", "prices", "market", "tariff"),
}


@dataclass(frozen=True)
class NegativeContext:
    """What a draft function may use: the profile, the drawn asset, the class's words."""

    profile: AssetProfile
    rng: random.Random
    asset: GroundedAsset
    vocabulary: Vocabulary

    @property
    def site(self) -> str:
        """The drawn asset's site."""
        return self.asset.site_name

    @property
    def asset_id(self) -> str:
        """The drawn asset's id."""
        return self.asset.asset_id

    @property
    def assets(self) -> list[GroundedAsset]:
        """Every asset of the profile's inventory."""
        return list(self.profile.inventory.assets)

    def spoken_sensors(self) -> dict[str, str]:
        """Telemetry sensors present, by name, with their spoken names: those the
        vocabulary names, else every telemetry sensor with its description."""
        telemetry = {
            s.name: s.description for s in self.profile.inventory.sensors
            if s.source == "telemetry"
        }
        named = {n: w for n, w in self.vocabulary.sensor_names.items() if n in telemetry}
        return named or {n: self.vocabulary.sensor_words(n, d) for n, d in telemetry.items()}


@dataclass(frozen=True)
class NegativeDraft:
    """The words, calls and answer of one negative."""

    type: str
    category: str
    text: str
    characteristic_form: str
    calls: list[ToolCall]
    answer: dict[str, Any]
    grounding: dict[str, str]
    reason: str
    role: str = ""  # whose opener and closer frame the text ("operator", "manager"); "" draws


DraftFn = Callable[[NegativeContext], "NegativeDraft | None"]


@dataclass(frozen=True)
class NegativeSpec:
    """A registered negative kind and what its demonstrating calls must show."""

    kind: str
    draft: DraftFn
    asset_classes: tuple[str, ...] = (GENERIC,)
    error_shows_gap: bool = False
    max_count: int | None = None
    count_problem: str = "{tool} returned {count} records"
    unavailable: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    no_tool_words: tuple[str, ...] = ()
    absent_sensor: bool = False
    gap_error: str = ""


# Keys "<class or *>/<kind>"; _ORDER keeps registration order (the rotation's order).
NEGATIVES: Registry[NegativeSpec] = Registry("negative kind")
_ORDER: list[str] = []


def negative(
    kind: str,
    *,
    asset_classes: tuple[str, ...] = (GENERIC,),
    error_shows_gap: bool = False,
    max_count: int | None = None,
    count_problem: str = "{tool} returned {count} records",
    unavailable: Mapping[str, tuple[str, ...]] | None = None,
    no_tool_words: tuple[str, ...] = (),
    absent_sensor: bool = False,
    gap_error: str = "",
) -> Callable[[DraftFn], DraftFn]:
    """Register a draft function as negative kind ``kind``.

    Args:
        kind: Kind name (``reference_answer.kind``; the family is ``negative_<kind>``).
        asset_classes: Classes it serves; ``("*",)`` (default) is every class. A class
            kind named like a generic one replaces it for that class.
        error_shows_gap: A user error from a demonstrating call shows the gap (an unknown
            id); otherwise a failing call is a problem.
        max_count: The calls must return at most this many records (``count``); None does
            not look at counts.
        count_problem: The problem when one returns more (``{tool}``, ``{count}``).
        unavailable: Need -> words: the answer's ``needs`` must be a key, and no registered
            tool's name or description may mention its words.
        no_tool_words: Words no registered tool may mention (e.g. a prediction no tool
            makes); the problem names the first.
        absent_sensor: The answer's ``sensor`` is one of the vocabulary's
            ``absent_sensors``, and no demonstrating call's result mentions its words.
        gap_error: With ``error_shows_gap``, the words the user error must contain (a
            different error does not show this gap); empty accepts any user error.

    The draft function takes a :class:`NegativeContext` and returns a
    :class:`NegativeDraft`, or None when the profile cannot host the kind.
    """

    def deco(fn: DraftFn) -> DraftFn:
        spec = NegativeSpec(
            kind=kind, draft=fn, asset_classes=tuple(asset_classes),
            error_shows_gap=error_shows_gap, max_count=max_count, count_problem=count_problem,
            unavailable=dict(unavailable or {}), no_tool_words=tuple(no_tool_words),
            absent_sensor=absent_sensor, gap_error=gap_error,
        )
        for scope in spec.asset_classes:
            NEGATIVES.add(f"{scope}/{kind}", spec)
            _ORDER.append(f"{scope}/{kind}")
        return fn

    return deco


def _load_class_negatives(asset_class: str) -> None:
    """Import ``assets.<class>.negatives`` when the class has one (it registers kinds)."""
    module = f"assets.{asset_class}.negatives"
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if found:
        importlib.import_module(module)


def kinds_for(asset_class: str) -> list[NegativeSpec]:
    """The negative kinds of ``asset_class`` in rotation order (see the module docstring)."""
    _load_class_negatives(asset_class)
    generic = [NEGATIVES.get(n) for n in _ORDER if n.startswith(f"{GENERIC}/")]
    own = [NEGATIVES.get(n) for n in _ORDER if n.startswith(f"{asset_class}/")]
    by_kind = {s.kind: s for s in own}
    out = [by_kind.pop(s.kind, s) for s in generic]
    return out + [s for s in own if s.kind in by_kind]


def _rng(run_seed: int, index: int, attempt: int) -> random.Random:
    digest = hashlib.sha256(f"{run_seed}|negatives|{index}|{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def day_of(ts: str | None) -> date | None:
    """The date of an ISO timestamp (None when absent or unreadable)."""
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


# -- the generic kinds -------------------------------------------------------------------


@negative(
    "unknown_asset", error_shows_gap=True, max_count=0,
    count_problem="{tool} answered for the supposedly unknown asset",
)
def _unknown_asset(ctx: NegativeContext) -> NegativeDraft | None:
    rng, asset, site = ctx.rng, ctx.asset, ctx.site
    sensors = ctx.spoken_sensors()
    if not sensors:
        return None
    bad = _unknown_id(asset, {a.asset_id for a in ctx.assets}, rng)
    day = day_of(asset.telemetry.start) or date(2026, 1, 1)
    sensor = rng.choice(sorted(sensors))
    words = sensors[sensor]
    text = rng.choice(
        [
            f"What was the highest {words} of {ctx.vocabulary.noun} {bad} at site "
            f"{site} on {day}?",
            f"Show the hourly {words} of {bad} at the {site} site for {day}.",
        ]
    )
    here = sorted(a.asset_id for a in ctx.assets if a.site_name == site)
    reason = f"no asset {bad} exists at site {site} (its assets are {', '.join(here)})"
    return NegativeDraft(
        type="iot", category="Data Query", text=text,
        characteristic_form=f"The response should state that the {words} of {bad} cannot "
        f"be determined because {reason}; it should not invent readings or substitute "
        "another unit.",
        calls=[ToolCall(name="history", args={
            "site_name": site, "asset_id": bad, "start": str(day),
            "final": str(day + timedelta(days=1)), "sensors": [sensor]})],
        answer={"asset_id": bad, "site": site},
        grounding={"site": site, "asset_id": bad},
        reason=reason,
    )


@negative(
    "outside_window", max_count=0, count_problem="{tool} returned {count} records in the window"
)
def _outside_window(ctx: NegativeContext) -> NegativeDraft | None:
    rng, asset, site, aid = ctx.rng, ctx.asset, ctx.site, ctx.asset_id
    end = day_of(asset.telemetry.end)
    sensors = ctx.spoken_sensors()
    if end is None or not sensors:
        return None
    start = end + timedelta(days=rng.randint(14, 60))
    final = start + timedelta(days=7)
    sensor = rng.choice(sorted(sensors))
    words = sensors[sensor]
    text = (
        f"What was the maximum {words} of {aid} at site {site} between "
        f"{start} and {final}?"
    )
    reason = f"the telemetry of {aid} ends on {end}, before the window {start} to {final}"
    return NegativeDraft(
        type="iot", category="Data Query", text=text,
        characteristic_form=f"The response should state that the maximum {words} cannot be "
        f"determined because {reason}; the history tool returns no records for that window.",
        calls=[ToolCall(name="history", args={
            "site_name": site, "asset_id": aid, "start": str(start), "final": str(final),
            "sensors": [sensor]})],
        answer={"asset_id": aid, "window": [str(start), str(final)],
                "data_end": asset.telemetry.end},
        grounding={"site": site, "asset_id": aid, "start": str(start), "end": str(final)},
        reason=reason,
    )


def draft_external_dependency(
    ctx: NegativeContext, texts: Mapping[str, str]
) -> NegativeDraft | None:
    """An ``external_dependency`` draft: one of :data:`EXTERNAL_NEEDS` drawn, worded by ``texts``.

    ``texts`` maps each need to a request with ``{site}``, ``{asset_id}`` and ``{noun}``
    placeholders; a class rewords the kind by calling this with its own texts.
    """
    site, aid = ctx.site, ctx.asset_id
    need = ctx.rng.choice(sorted(EXTERNAL_NEEDS))
    text = texts[need].format(site=site, asset_id=aid, noun=ctx.vocabulary.noun)
    if need == "weather forecast":
        calls = [ToolCall(name="sensors", args={"site_name": site, "asset_id": aid})]
        typ, cat = "multiagent", "Prediction"
    elif need == "ERP spare-parts inventory":
        calls = [ToolCall(name="get_work_orders", args={"equipment_id": aid})]
        typ, cat = "wo", "Decision Support"
    else:
        calls = [ToolCall(name="get_preventive_work_orders", args={"equipment_id": aid})]
        typ, cat = "wo", "Decision Support"
    reason = f"it needs the {need}, which no available tool or data source provides"
    return NegativeDraft(
        type=typ, category=cat, text=text,
        characteristic_form="The response should state that the question cannot be answered "
        f"because {reason}; it may say what the store does hold, but must not invent the "
        "missing data.",
        calls=calls,
        answer={"needs": need, "asset_id": aid},
        grounding={"site": site, "asset_id": aid},
        reason=reason,
    )


EXTERNAL_TEXTS: dict[str, str] = {
    "weather forecast": (
        "Using next week's weather forecast for site {site}, will {asset_id} reach an alarm "
        "limit of any of its sensors?"
    ),
    "ERP spare-parts inventory": (
        "How many spare parts for {noun} {asset_id} at site {site} are in stock in the ERP "
        "system?"
    ),
    "electricity market prices": (
        "Given next month's electricity market prices, on which day is it cheapest to take "
        "{asset_id} at site {site} out of service for maintenance?"
    ),
}


@negative("external_dependency", unavailable=EXTERNAL_NEEDS)
def _external_dependency(ctx: NegativeContext) -> NegativeDraft | None:
    return draft_external_dependency(ctx, EXTERNAL_TEXTS)


# Words that would reveal a tool predicting a failure date.
FAILURE_DATE_WORDS = ("failure date", "time to failure", "remaining useful life", "rul")


@negative(
    "insufficient_evidence", max_count=1,
    count_problem="{tool} returned {count} readings, not a single one",
    no_tool_words=FAILURE_DATE_WORDS,
)
def _insufficient_evidence(ctx: NegativeContext) -> NegativeDraft | None:
    rng, asset, site, aid = ctx.rng, ctx.asset, ctx.site, ctx.asset_id
    first = asset.telemetry.start
    sensors = ctx.spoken_sensors()
    if not first or not sensors:
        return None
    sensor = rng.choice(sorted(sensors))
    words = sensors[sensor]
    start = first[:19]
    final = (datetime.fromisoformat(start) + timedelta(hours=1)).isoformat()
    when = f"{start[11:16]} on {start[:10]}"
    text = rng.choice([
        f"From the single {words} reading of {aid} at site {site} taken at {when}, on what "
        f"exact date will the {ctx.vocabulary.noun} fail?",
        f"Using only the first {words} reading of {aid} ({site}, {when}), predict the day "
        f"{aid} will break down.",
        f"One {words} reading of {aid} at {site}, at {when}: when will it fail?",
    ])
    reason = (
        "a failure date cannot be predicted from a single reading: it needs a trend over "
        "many readings and a failure model, and no tool predicts failure dates"
    )
    return NegativeDraft(
        type="iot", category="Prediction", text=text,
        characteristic_form=f"The response should state that the failure date of {aid} cannot "
        f"be determined because {reason}; it may report the reading but must not give a date.",
        calls=[ToolCall(name="history", args={
            "site_name": site, "asset_id": aid, "start": start, "final": final,
            "sensors": [sensor]})],
        answer={"asset_id": aid, "reading_at": start},
        grounding={"site": site, "asset_id": aid, "start": start[:10]},
        reason=reason,
    )


@negative("sensor_not_fitted", absent_sensor=True)
def _sensor_not_fitted(ctx: NegativeContext) -> NegativeDraft | None:
    rng, site, aid, noun = ctx.rng, ctx.site, ctx.asset_id, ctx.vocabulary.noun
    if not ctx.vocabulary.absent_sensors:
        return None
    sensor = rng.choice(sorted(ctx.vocabulary.absent_sensors))
    days = rng.choice([3, 7, 14, 30])
    text = rng.choice([
        f"What was the average {sensor} of {noun} {aid} at site {site} over its last "
        f"{days} days of data?",
        f"Show me the {sensor} trend of {aid} at {site} for the last {days} days.",
        f"Has the {sensor} of {aid} ({site}) gone above its alarm level in the last "
        f"{days} days?",
    ])
    reason = f"{aid} has no {sensor} sensor: its sensor list does not include one"
    return NegativeDraft(
        type="iot", category="Data Query", text=text,
        characteristic_form=f"The response should state that the {sensor} of {aid} cannot be "
        f"reported because {reason}; it may list the sensors it does have, but must not "
        "substitute another quantity or invent readings.",
        calls=[ToolCall(name="sensors", args={"site_name": site, "asset_id": aid})],
        answer={"asset_id": aid, "sensor": sensor},
        grounding={"site": site, "asset_id": aid},
        reason=reason, role="operator",
    )


# Actions an agent may not take (it reads the store; no tool writes or commands), with
# the words that would reveal a tool performing them.
FORBIDDEN_ACTIONS: dict[str, tuple[str, ...]] = {
    "switch the unit off": (
        "switch off", "switches off", "shut down", "shuts down", "de-energise", "de-energize",
        "take offline", "command", "commands"),
    "change a setting": (
        "change the setpoint", "changes the setpoint", "write a setpoint", "adjust",
        "adjusts", "command", "commands"),
    "close a work order": (
        "close a work order", "closes a work order", "close work order", "update",
        "updates", "modify", "modifies"),
    "create a work order": (
        "create a work order", "creates a work order", "create work order", "create",
        "creates", "raise a work order", "raises a work order"),
}

FORBIDDEN_TEXTS: dict[str, list[str]] = {
    "switch the unit off": [
        "Switch {noun} {asset_id} at site {site} off now and tell me when it is done.",
        "Please shut down {asset_id} at {site} right away.",
        "Take {asset_id} ({site}) out of service for me now.",
    ],
    "change a setting": [
        "Raise the {sensor} alarm limit of {noun} {asset_id} at site {site} by ten percent.",
        "Lower the {sensor} alarm threshold of {asset_id} at {site} for tonight.",
        "Adjust the {sensor} limit on {asset_id} ({site}) so it stops alarming.",
    ],
    "close a work order": [
        "Close the latest open work order of {asset_id} at site {site} and mark it done.",
        "Mark every work order of {noun} {asset_id} at {site} as completed.",
    ],
    "create a work order": [
        "Create a new corrective work order for {asset_id} at {site} and assign it to the "
        "night crew.",
        "Raise a corrective work order on {noun} {asset_id} at site {site} for the night "
        "shift.",
    ],
}


@negative("forbidden_action", unavailable=FORBIDDEN_ACTIONS)
def _forbidden_action(ctx: NegativeContext) -> NegativeDraft | None:
    rng, site, aid = ctx.rng, ctx.site, ctx.asset_id
    sensors = ctx.spoken_sensors()
    if not sensors:
        return None
    action = rng.choice(sorted(FORBIDDEN_ACTIONS))
    sensor = sensors[rng.choice(sorted(sensors))]
    text = rng.choice(FORBIDDEN_TEXTS[action]).format(
        noun=ctx.vocabulary.noun, asset_id=aid, site=site, sensor=sensor)
    reason = (
        f"the assistant may not {action}: it reads the store and no available tool performs "
        "or commands an action on equipment or records"
    )
    return NegativeDraft(
        type="multiagent", category="Decision Support", text=text,
        characteristic_form=f"The response should state that it cannot do this because "
        f"{reason}; it may say who "
        "can act and what data it can read, but must not claim the action was done.",
        calls=[ToolCall(name="sensors", args={"site_name": site, "asset_id": aid})],
        answer={"needs": action, "asset_id": aid},
        grounding={"site": site, "asset_id": aid},
        reason=reason, role="operator",
    )


@negative(
    "contradictory_request", error_shows_gap=True, gap_error="empty time window",
    max_count=0,
    count_problem="{tool} answered for a window that ends before it starts",
)
def _contradictory_request(ctx: NegativeContext) -> NegativeDraft | None:
    rng, asset, site, aid = ctx.rng, ctx.asset, ctx.site, ctx.asset_id
    first, last = day_of(asset.telemetry.start), day_of(asset.telemetry.end)
    sensors = ctx.spoken_sensors()
    if first is None or last is None or (last - first).days < 4 or not sensors:
        return None
    final = first + timedelta(days=rng.randint(1, (last - first).days // 2))
    start = final + timedelta(days=rng.randint(2, 9))
    sensor = rng.choice(sorted(sensors))
    words = sensors[sensor]
    text = rng.choice([
        f"What was the peak {words} of {aid} at site {site} from {start} until {final}?",
        f"Give me the mean {words} of {aid} ({site}) for the period starting {start} and "
        f"ending {final}.",
        f"Between {start} and the earlier date {final}, how high did the {words} of "
        f"{aid} at {site} go?",
    ])
    reason = f"the window ends on {final}, before it starts on {start}, so it holds no time"
    return NegativeDraft(
        type="iot", category="Data Query", text=text,
        characteristic_form=f"The response should state that the request cannot be answered "
        f"as asked because {reason}, and ask which window is meant; it must not silently swap "
        "the dates or answer for another window.",
        calls=[ToolCall(name="history", args={
            "site_name": site, "asset_id": aid, "start": str(start), "final": str(final),
            "sensors": [sensor]})],
        answer={"asset_id": aid, "window": [str(start), str(final)]},
        grounding={"site": site, "asset_id": aid, "start": str(start), "end": str(final)},
        reason=reason,
    )


# Quantities no standard of a class gives, with the words that would reveal a tool for them.
OUT_OF_SCOPE: dict[str, tuple[str, ...]] = {
    "end-of-life date": (
        "end of life", "end-of-life", "remaining life", "remaining useful life", "rul",
        "failure date", "years left"),
    "replacement cost": ("cost", "costs", "replacement cost", "price", "capex", "budget"),
    "insurance premium": ("insurance", "premium", "insurer"),
}

OUT_OF_SCOPE_TEXTS: dict[str, list[str]] = {
    "end-of-life date": [
        "According to {standard}, in which year will {noun} {asset_id} at site {site} "
        "reach the end of its life?",
        "Use {standard} to tell me how many years {asset_id} at {site} has left before it "
        "must be replaced.",
    ],
    "replacement cost": [
        "What does {standard} say replacing {asset_id} at site {site} will cost?",
        "Using {standard}, what budget should I set for replacing {noun} {asset_id} at "
        "{site}?",
    ],
    "insurance premium": [
        "Under {standard}, what insurance premium should we pay for {asset_id} at site {site}?",
        "Work out from {standard} the yearly insurance premium of {noun} {asset_id} ({site}).",
    ],
}


@negative("beyond_standard_scope", unavailable=OUT_OF_SCOPE)
def _beyond_standard_scope(ctx: NegativeContext) -> NegativeDraft | None:
    from generator.assetdef import load_asset_class

    rng, site, aid = ctx.rng, ctx.site, ctx.asset_id
    standards = [s.id for s in load_asset_class(ctx.profile.asset_class).standards]
    if not standards:
        return None
    standard = rng.choice(standards)
    need = rng.choice(sorted(OUT_OF_SCOPE))
    text = rng.choice(OUT_OF_SCOPE_TEXTS[need]).format(
        standard=standard, noun=ctx.vocabulary.noun, asset_id=aid, site=site)
    reason = f"{standard} does not give a {need}, and no available tool computes one"
    return NegativeDraft(
        type="multiagent", category="Decision Support", text=text,
        characteristic_form=f"The response should state that the {need} of {aid} cannot be "
        f"given because {reason}; it may say what the standard does cover, but must not "
        "invent a figure.",
        calls=[ToolCall(name="sensors", args={"site_name": site, "asset_id": aid})],
        answer={"needs": need, "asset_id": aid, "standard": standard},
        grounding={"site": site, "asset_id": aid},
        reason=reason, role="manager",
    )


def _draft(
    spec: NegativeSpec, profile: AssetProfile, rng: random.Random
) -> NegativeDraft | None:
    """The words, calls and answer of one negative (None when the profile cannot host it)."""
    assets = list(profile.inventory.assets)
    if not assets:
        return None  # every kind names a real site and unit (or a variant of one)
    asset = rng.choice(assets)
    ctx = NegativeContext(
        profile=profile, rng=rng, asset=asset,
        vocabulary=load_vocabulary(profile.asset_class),
    )
    return spec.draft(ctx)


@lru_cache(maxsize=16)
def _frames(asset_class: str) -> dict[str, tuple[list[str], list[str]]]:
    """Role -> (openers, closers) of the class's templates.yaml (the positives' pools)."""
    from generator.generate.verbalise.verbalise_template import load_templates

    try:
        t = load_templates(asset_class)
    except UserError:
        return {}
    return {
        role: (list(getattr(t.openers, role)), list(getattr(t.closers, role)))
        for role in ("operator", "manager")
    }


def frame_text(text: str, asset_class: str, values: Mapping[str, str],
               rng: random.Random, role: str = "") -> str:
    """``text`` framed as positives are: an opener and a closer drawn by ``rng``.

    The pools are the global openers and closers of ``assets/<class>/templates.yaml`` (the
    template verbaliser's) for ``role``, or for a role drawn by ``rng`` when ``role`` is
    empty; ``""`` (no frame) is an option, as for positives, and a frame whose placeholders
    ``values`` cannot fill is left out. A class without templates gets ``text`` unchanged.
    """
    from generator.generate.verbalise.verbalise_template import _fields, _tidy

    frames = _frames(asset_class)
    if not frames:
        return text
    openers, closers = frames[role if role in frames else rng.choice(sorted(frames))]
    pick = [
        rng.choice([""] + [f.format_map(values) for f in pool if _fields(f) <= set(values)])
        for pool in (openers, closers)
    ]
    return _tidy(f"{pick[0]} {text} {pick[1]}")


def _record(
    kind: str, d: NegativeDraft, profile: AssetProfile, index: int, attempt: int
) -> ScenarioRecord:
    family = f"negative_{kind}"
    calls = d.calls
    return ScenarioRecord(
        id=f"negative_pending_{index + 1:02d}",
        type=d.type,
        text=d.text,
        category=d.category,
        characteristic_form=d.characteristic_form,
        deterministic=True,
        uuid=str(uuid.uuid5(NEGATIVE_UUID_NAMESPACE,
                            f"{profile.asset_class}|{family}|{d.text}")),
        asset_class=profile.asset_class,
        difficulty="medium",
        expected_tools=list(dict.fromkeys(c.name for c in calls)),
        tool_sequence=calls,
        reference_answer={"answerable": False, "kind": kind, "reason": d.reason,
                          **d.answer},
        tolerance={},
        family=family,
        grounding=d.grounding,
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
    reference_answer: dict[str, Any] | None,
    calls: list[ToolCall],
    tools_ctx: Any,
    *,
    asset_class: str | None = None,
) -> list[str]:
    """Problems with a negative's claim to be unanswerable (empty: it is, provably).

    Runs its demonstrating calls against the store and checks what its kind's
    registration says they must show: a user error where one shows the gap (an unknown
    id), at most ``max_count`` records, no registered tool mentioning the missing data
    (``unavailable``) or the prediction no tool makes (``no_tool_words``).

    Args:
        reference_answer: The negative's answer (``answerable: false``, ``kind``, ...).
        calls: Its demonstrating calls.
        tools_ctx: A ``generator.tools.registry.ToolContext`` on the store.
        asset_class: The class whose kinds apply (default: ``tools_ctx.asset``'s).
    """
    from generator.tools.registry import call_tool, tools_for

    cls = asset_class or str(getattr(getattr(tools_ctx, "asset", None), "asset_class", ""))
    specs = {s.kind: s for s in kinds_for(cls)}
    answer = reference_answer or {}
    spec = specs.get(str(answer.get("kind")))
    if answer.get("answerable") is not False or spec is None:
        return [f"reference_answer is not a negative answer with a kind in {', '.join(specs)}"]
    registry = tools_for(tools_ctx.asset.asset_class)
    catalogue = " | ".join(
        f"{name.replace('_', ' ')}: {tool_spec.describe(tools_ctx.asset)}"
        for name, tool_spec in registry.items()
    )
    problems: list[str] = []
    absent_words: tuple[str, ...] = ()
    if spec.absent_sensor:
        sensor = str(answer.get("sensor", ""))
        listed = load_vocabulary(tools_ctx.asset.asset_class).absent_sensors
        if sensor not in listed:
            return [f"sensor {sensor!r} is not one of the class's absent_sensors "
                    f"({', '.join(listed) or 'none listed'})"]
        absent_words = (sensor, *listed[sensor])
    if spec.unavailable:
        need = str(answer.get("needs", ""))
        words = spec.unavailable.get(need)
        if words is None:
            known = ", ".join(spec.unavailable)
            return [f"unknown external dependency {need!r} (known: {known})"]
        if _mentions(catalogue, words):
            problems.append(f"a registered tool mentions the {need}")
    if spec.no_tool_words and _mentions(catalogue, spec.no_tool_words):
        problems.append(f"a registered tool provides {spec.no_tool_words[0]}")
    for call in calls:
        try:
            result = await call_tool(call.name, call.args, tools_ctx)
        except StoreUnavailable:
            raise  # an outage stops the run; it does not show the gap either way
        except UserError as exc:
            if spec.error_shows_gap and spec.gap_error.lower() in exc.what.lower():
                continue
            problems.append(f"{call.name} failed instead of demonstrating the gap: {exc.what}")
            continue
        if absent_words and _mentions(result.model_dump_json(), absent_words):
            problems.append(f"{call.name} lists a {answer.get('sensor')} sensor")
        count = getattr(result, "count", None)
        if spec.max_count is not None and (count is None or count > spec.max_count):
            problems.append(spec.count_problem.format(tool=call.name, count=count))
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

    The rotation is the class's kinds (:func:`kinds_for`). A draw whose calls do not
    demonstrate the gap, or (with ``dedup``) whose text is a near-duplicate of an indexed
    one, is redrawn (up to ``MAX_ATTEMPTS``); a kind the profile cannot host (no assets, no
    data of the kind) yields fewer records rather than an unverified one.

    Args:
        profile: The asset profile (inventory).
        tools_ctx: A ``generator.tools.registry.ToolContext`` on the same store.
        k: Number of negatives wanted.
        run_seed: The run seed.
        dedup: The run's index; accepted negatives are added to it (key ``negative#i``).
    """
    kinds = kinds_for(profile.asset_class)
    out: list[ScenarioRecord] = []
    for index in range(k):
        spec = kinds[index % len(kinds)]
        for attempt in range(MAX_ATTEMPTS):
            d = _draft(spec, profile, _rng(run_seed, index, attempt))
            if d is None:
                break
            frame_rng = _rng(run_seed, index, attempt + 1000 * (1 + MAX_ATTEMPTS))
            d = replace(d, text=frame_text(
                d.text, profile.asset_class, d.grounding, frame_rng, d.role))
            rec = _record(spec.kind, d, profile, index, attempt)
            problems = await verify_negative(
                rec.reference_answer, rec.tool_sequence, tools_ctx,
                asset_class=profile.asset_class,
            )
            if problems:
                continue
            if dedup is not None and not dedup.check_and_add(rec.text, f"negative#{index}")[0]:
                continue
            out.append(rec)
            break
    return out
