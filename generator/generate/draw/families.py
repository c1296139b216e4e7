"""Task families: seeded draws over the grounded inventory whose answers the tools compute.

A family is registered with :func:`family` in an asset class's ``families`` modules (listed
in its asset.yaml, imported once by :func:`load_families`). It has two functions:

- ``draw(ctx, rng, parents) -> Plan | None``: picks entities with the local generator
  ``rng`` (from :func:`rng_for`), may call tools through ``ctx.run`` to chain arguments
  (an oil sample's gases into ``interpret_dga``) or to test a draw for ambiguity, and returns
  the parameters, the expected tool calls and the wording facts (mentions, difficulty,
  constraint). ``None`` means the draw is unusable (no data, ambiguous); the caller tries the
  next draw index.
- ``derive(params, outputs) -> answer``: a pure function of the parameters and the tool
  outputs (JSON, in call order). It raises :class:`Ambiguous` when the outputs admit no
  single answer (a tie in an argmax). Because the answer comes from the outputs only,
  :func:`recompute` can re-run the tool calls and check the stored answer.

Multi-agent families name the single-domain families they extend in ``compose_from``;
:func:`draw_seed` draws their parents first (or :func:`compose_seed` takes accepted ones)
and passes them to ``draw``.

**Interpretation gate.** A plan lists the other :class:`Reading` s a competent reader could
take of the request (a window end taken as inclusive, the default paper instead of the
nameplate's, another DGA method). :func:`draw_seed` derives the answer under every reading;
when a reading's answer differs from the reference (outside the tolerance) and the text does
not pin it (``Plan.stated``), the task is ambiguous and the draw is dropped. Drops are
counted per family and reading in :attr:`FamilyContext.gate_drops`; the seed records what
each reading gave (:class:`~generator.generate.model.ReadingCheck`).

**Interesting answers.** A family may label each answer with ``outcome`` ("fault",
"normal", "alarm", ...) and name the labels that are ``trivial``; a policy's
``nontrivial_share`` then asks :func:`draw_for_slot` to look further (more draw indices) for
non-trivial answers on a deterministic share of the family's slots.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

import numpy as np
from pydantic import BaseModel

from generator.assetdef import AssetClass
from generator.errors import LLMUnavailable, RunStopped, StoreUnavailable, UserError
from generator.generate.draw.asof import AFTER_AS_OF, AsOfFn, declared_as_of, documents_after
from generator.generate.draw.difficulty import scored
from generator.generate.draw.memo import BoundedMemo
from generator.generate.model import (
    Difficulty,
    HardFeature,
    ReadingCheck,
    Role,
    Rubric,
    TaskSeed,
    ToolCall,
)
from generator.generate.tolerance import within
from generator.profile.model import AssetProfile, GroundedAsset
from generator.registry import Registry
from generator.tools.data_iot import RecordsResult
from generator.tools.registry import ToolContext, call_tool

CATEGORIES: tuple[str, ...] = (
    "Data Query",
    "Knowledge Query",
    "Inference Query",
    "Tuning Query",
    "Diagnostic Assessment",
    "Anomaly Detection Query",
    "Prediction",
    "Decision Support",
    "Workflow Coordination",
    "Recommendation",
    "Complex Query",
)


class Ambiguous(Exception):
    """The tool outputs admit no single answer (a tie, a value on a boundary)."""


class PassedOver(Exception):
    """Raised by a family's draw that finds its answer trivial while
    :attr:`FamilyContext.passes_over_trivial`: the caller passes over trivial answers, so
    the draw need not be finished (see :func:`peek_seed`)."""


# True while a family draws for a peek whose caller passes over a trivial answer
# (:attr:`FamilyContext.passes_over_trivial`); set by :func:`_probe` around the draw alone.
_TRIVIAL_UNWANTED: ContextVar[bool] = ContextVar("trivial_unwanted", default=False)


@dataclass(frozen=True)
class Reading:
    """Another way a competent reader could take the request, and how to compute it.

    Attributes:
        name: Short identifier, e.g. ``"window_end_inclusive"``, ``"paper_kraft_default"``.
        description: What such a reader would do differently (one line, for reports).
        tool_sequence: The calls that reading makes instead; None = the plan's calls.
        params: Parameters merged over the plan's (``{**plan.params, **params}``) before
            ``derive`` runs under this reading; None = the plan's parameters.
    """

    name: str
    description: str
    tool_sequence: list[ToolCall] | None = None
    params: dict[str, Any] | None = None


@dataclass(frozen=True)
class Plan:
    """What a family's draw decided: parameters, expected calls and wording facts.

    ``readings`` are the alternative readings to gate; ``stated`` names those the text rules
    out or pins explicitly (their answers may differ; the seed records them). ``tolerance``
    is absolute and ``rel_tolerance`` relative, per top-level answer key (see
    :func:`compare`).
    """

    params: dict[str, Any]
    tool_sequence: list[ToolCall]
    mentions: list[str]
    grounding: dict[str, str] = field(default_factory=dict)
    difficulty: Difficulty = "easy"
    hard_features: list[HardFeature] = field(default_factory=list)
    constraint: str | None = None
    closed_form: bool = False
    tolerance: dict[str, float] = field(default_factory=dict)
    role: Role | None = None
    rel_tolerance: dict[str, float] = field(default_factory=dict)
    readings: list[Reading] = field(default_factory=list)
    stated: list[str] = field(default_factory=list)


DrawFn = Callable[["FamilyContext", np.random.Generator, list[TaskSeed]], Awaitable[Plan | None]]
DeriveFn = Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]
SummariseFn = Callable[[dict[str, Any], dict[str, Any]], str]
OutcomeFn = Callable[[dict[str, Any]], str]
RubricFn = Callable[[dict[str, Any], dict[str, Any]], Rubric]


@dataclass(frozen=True)
class FamilySpec:
    """One registered task family."""

    name: str
    domain: str
    category: str
    draw: DrawFn
    derive: DeriveFn
    summarise: SummariseFn
    roles: tuple[Role, ...] = ("operator", "manager")
    compose_from: tuple[str, ...] = ()
    description: str = ""
    outcome: OutcomeFn | None = None
    trivial: frozenset[str] = frozenset()
    deterministic: bool = True
    rubric: RubricFn | None = None
    as_of: AsOfFn | None = None

    def is_trivial(self, outcome: str | None) -> bool:
        """True when ``outcome`` is one of the family's trivial labels (or unlabelled)."""
        return outcome is None or outcome in self.trivial


FAMILIES: Registry[FamilySpec] = Registry("task family")


def family(
    name: str,
    *,
    domain: str,
    category: str,
    derive: DeriveFn,
    summarise: SummariseFn,
    roles: tuple[Role, ...] = ("operator", "manager"),
    compose_from: tuple[str, ...] = (),
    outcome: OutcomeFn | None = None,
    trivial: tuple[str, ...] | frozenset[str] = (),
    deterministic: bool = True,
    rubric: RubricFn | None = None,
    as_of: AsOfFn | None = None,
) -> Callable[[DrawFn], DrawFn]:
    """Register the decorated draw function as task family ``name``.

    Args:
        name: Family name, unique over all asset classes.
        domain: iot, fmsr, tsfm, wo, vibration or multiagent.
        category: AssetOpsBench category (one of :data:`CATEGORIES`).
        derive: Pure ``(params, outputs) -> answer``.
        summarise: ``(params, answer) -> one line`` with the answer's key values.
        roles: Who may ask.
        compose_from: For multi-agent families, the single-domain families they extend.
        outcome: ``answer -> label`` ("fault", "normal", "alarm", "none", ...), recorded on
            every seed and counted per family in the run manifest.
        trivial: The labels that make an uninteresting answer (nothing found, all normal);
            a policy's ``nontrivial_share`` asks for the others.
        deterministic: False for an open (decision-support) family: ``derive`` computes the
            facts a good answer rests on, and ``rubric`` says which of them an answer must
            state and which claims it must not make; its records carry
            ``deterministic: false`` and the rubric.
        rubric: ``(params, answer) -> Rubric``; required exactly when ``deterministic`` is
            False.
        as_of: ``params -> moment`` (ISO day or timestamp, or None): the moment the text
            asks as of; no tool output the reference rests on may hold a document
            time-stamped after it (:mod:`generator.generate.draw.asof`). None = the default, the
            whole-day window's end.
    """
    if category not in CATEGORIES:
        raise ValueError(f"family {name!r}: unknown category {category!r}")
    if deterministic == (rubric is not None):
        raise ValueError(
            f"family {name!r}: an open family (deterministic=False) needs a rubric function, "
            "and a deterministic one takes none"
        )

    def deco(fn: DrawFn) -> DrawFn:
        doc = (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        FAMILIES.add(
            name,
            FamilySpec(
                name=name,
                domain=domain,
                category=category,
                draw=fn,
                derive=derive,
                summarise=summarise,
                roles=roles,
                compose_from=compose_from,
                description=doc,
                outcome=outcome,
                trivial=frozenset(trivial),
                deterministic=deterministic,
                rubric=rubric,
                as_of=as_of,
            ),
        )
        return fn

    return deco


_loaded: set[str] = set()


def load_families(asset: AssetClass) -> Registry[FamilySpec]:
    """Import the asset class's family modules (once each) and return the registry."""
    for module in asset.families:
        if module not in _loaded:
            asset.import_hook(module, "families")
            _loaded.add(module)
    return FAMILIES


def families_of(asset: AssetClass, domain: str | None = None) -> list[FamilySpec]:
    """The families registered by ``asset``'s modules, optionally of one domain, by name."""
    load_families(asset)
    modules = set(asset.families)
    out = []
    for name in FAMILIES:
        spec = FAMILIES.get(name)
        if spec.draw.__module__ in modules and (domain is None or spec.domain == domain):
            out.append(spec)
    return out


@functools.cache
def _name_digest(family_name: str) -> int:
    """The first 8 bytes of the name's SHA-256, as an integer (one per family, cached)."""
    return int.from_bytes(hashlib.sha256(family_name.encode()).digest()[:8], "big")


def rng_for(run_seed: int, family_name: str, draw: int) -> np.random.Generator:
    """A local generator for one draw, stable across processes (no ``hash()``)."""
    digest = _name_digest(family_name)
    return np.random.default_rng(np.random.SeedSequence([run_seed, digest, draw]))


_RECORDS_FIELDS = tuple(RecordsResult.model_fields)


def tool_json(name: str, result: BaseModel) -> dict[str, Any]:
    """``result.model_dump(mode="json")``, without copying a `history` window once more.

    `history` builds its :class:`RecordsResult` from validated arguments and rows freshly
    copied from the store (str keys, JSON scalars, one new dict per row, nothing else holds
    them), so its fields already are their JSON form and are taken as they are, in field
    order. Every other result is dumped.
    """
    if name == "history" and type(result) is RecordsResult:
        return {f: getattr(result, f) for f in _RECORDS_FIELDS}
    return result.model_dump(mode="json")


CallKey = tuple[str, tuple[tuple[str, type, Any], ...]] | str


def _call_key(call: ToolCall) -> CallKey:
    """The memo key of a call: equal for equal arguments, distinct otherwise.

    Arguments that are all plain scalars or lists of strings (nearly every call) are keyed by
    a tuple ``(name, ((argument, type, value), ...))`` sorted by argument: the type keeps
    ``1``, ``1.0`` and ``True`` apart, and a float that equality cannot tell apart from
    another (``0.0`` and ``-0.0``) or from itself (NaN) stands as its ``repr``; lists stand
    as tuples. Anything else is keyed by the name and the sorted JSON of the arguments, a
    string, which never equals a tuple.
    """
    args = call.args
    items: list[tuple[str, type, Any]] = []
    for k, v in args.items():
        kind = type(v)
        if kind is str or kind is int or kind is bool or v is None:
            items.append((k, kind, v))
        elif kind is float:
            items.append((k, kind, v if v and v == v else repr(v)))
        elif kind is list and all(type(x) is str for x in v):
            items.append((k, kind, tuple(v)))
        else:
            return call.name + json.dumps(args, sort_keys=True, default=str)
    # argument names are distinct strings: the sort never gets past them to the types
    items.sort()
    return (call.name, tuple(items))


# Draws whose seeds a run keeps (most are None or small); an evicted draw is drawn again,
# with the same result. Probes hold tool outputs and are wanted right after they are made.
MAX_DRAWS_KEPT = 16_384
MAX_PROBES_KEPT = 256
T = TypeVar("T")
K = TypeVar("K")


def _keep(kept: OrderedDict[K, T], bound: int, key: K, value: T) -> None:
    """Keep ``value`` as the most recently used; drop the least recently used past ``bound``."""
    kept[key] = value
    kept.move_to_end(key)
    if len(kept) > bound:
        kept.popitem(last=False)


@dataclass(frozen=True)
class Probe:
    """A draw up to its answer, before the interpretation gate and the difficulty score:
    enough to tell its task (``family`` and ``params``, see :func:`params_key`) and whether
    the answer is interesting (``nontrivial``), which is all a designated slot needs to pass
    a draw over (:func:`draw_for_slot`)."""

    family: str
    params: dict[str, Any]
    nontrivial: bool | None
    plan: Plan
    role: Role
    parents: list[TaskSeed]
    outputs: list[dict[str, Any]]
    answer: dict[str, Any]
    outcome: str | None


class FamilyContext:
    """What a family may use: the profile, the tools and the run seed.

    Tool outputs are memoised per call (tools are deterministic and the store is read-only
    during generation), so chained draws and the seed's final run share work; the memo is
    bounded (:class:`~generator.generate.draw.memo.BoundedMemo`), an evicted output is simply
    computed again.
    """

    def __init__(self, profile: AssetProfile, tools: ToolContext, run_seed: int) -> None:
        self.profile = profile
        self.tools = tools
        self.run_seed = run_seed
        self._memo = BoundedMemo()
        # values a family derives from memoised tool outputs alone (e.g. daily peaks),
        # keyed by the family's own key: as deterministic as the outputs they come from
        self.derived: dict[str, Any] = {}
        # family -> reading name -> draw indices the gate dropped (sets: a draw drawn twice,
        # e.g. as a chain's parent and on its own, counts once)
        self._gate_drops: dict[str, dict[str, set[int]]] = {}
        # (run seed, family, draw index) -> the seed draw_seed made of it (None = unusable):
        # a draw is a function of those three (its tool outputs of the read-only store), and
        # a slot's extra indices, a chain's parent and a composed stream draw some twice
        self._draws: OrderedDict[tuple[int, str, int], TaskSeed | None] = OrderedDict()
        # the same for probes (a draw up to its answer), kept briefly: they hold the outputs
        self._probes: OrderedDict[tuple[int, str, int], Probe | None] = OrderedDict()
        self._pending: dict[tuple[int, int, str, int], asyncio.Future[Any]] = {}
        self._capture: list[tuple[str, str, int]] | None = None

    @property
    def passes_over_trivial(self) -> bool:
        """True while this draw is made for a peek whose caller passes over a trivial
        answer (a designated slot that has its fallback, :func:`draw_for_slot`). A family
        may then stop as soon as it knows its answer is trivial, by raising
        :class:`PassedOver`, and skip the rest of its work. It must not have recorded
        anything the rest would not record too: nothing is kept of a passed-over draw, and
        a later full draw of that index makes it whole."""
        return _TRIVIAL_UNWANTED.get()

    def fresh(self) -> FamilyContext:
        """A context on the same profile, tools and run seed with nothing kept yet (its
        draws record all their drops, as a run's first draw of an index does)."""
        return FamilyContext(self.profile, self.tools, self.run_seed)

    async def draw_once(
        self, family_name: str, draw: int, make: Callable[[], Awaitable[TaskSeed | None]]
    ) -> TaskSeed | None:
        """The seed of draw ``draw`` of a family under the current run seed: ``make()``'s
        the first time, the kept one after (a caller asking while it is being made waits
        for it). A failure is not kept: the next caller makes the draw again."""
        return await self._once(self._draws, MAX_DRAWS_KEPT, family_name, draw, make)

    def kept_draw(self, family_name: str, draw: int) -> tuple[bool, TaskSeed | None]:
        """``(True, seed)`` when :meth:`draw_once` keeps that draw, else ``(False, None)``.
        A kept draw's drops go to the capture, as when it was made (:meth:`capturing_drops`)."""
        key = (self.run_seed, family_name, draw)
        if key not in self._draws:
            return False, None
        self._replay_drops(family_name, draw)
        return True, self._draws[key]

    async def probe_once(
        self, family_name: str, draw: int, make: Callable[[], Awaitable[Probe | None]]
    ) -> Probe | None:
        """:meth:`draw_once` for the draw's :class:`Probe` (its answer before the gate)."""
        return await self._once(self._probes, MAX_PROBES_KEPT, family_name, draw, make)

    def probing(self, family_name: str, draw: int) -> bool:
        """Whether :meth:`probe_once` keeps that draw's probe or is making it."""
        key = (self.run_seed, family_name, draw)
        return key in self._probes or (id(self._probes), *key) in self._pending

    def keep_probe(self, family_name: str, draw: int, probe: Probe | None) -> None:
        """Keep a probe made outside :meth:`probe_once`, as it would have kept it."""
        key = (self.run_seed, family_name, draw)
        if (id(self._probes), *key) not in self._pending:
            _keep(self._probes, MAX_PROBES_KEPT, key, probe)

    async def _once(
        self,
        kept: OrderedDict[tuple[int, str, int], T],
        bound: int,
        family_name: str,
        draw: int,
        make: Callable[[], Awaitable[T]],
    ) -> T:
        key = (self.run_seed, family_name, draw)
        if key in kept:
            kept.move_to_end(key)
            self._replay_drops(family_name, draw)
            return kept[key]
        pending = self._pending.get((id(kept), *key))
        if pending is not None:
            value = cast(T, await asyncio.shield(pending))
            self._replay_drops(family_name, draw)
            return value
        made: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[(id(kept), *key)] = made
        try:
            value = await make()
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                made.cancel()
            else:
                made.set_exception(exc)
                made.exception()  # retrieved: a waiter may or may not be there to see it
            raise
        else:
            made.set_result(value)
            _keep(kept, bound, key, value)
            return value
        finally:
            del self._pending[(id(kept), *key)]

    def record_drop(self, family_name: str, reason: str, draw: int) -> None:
        """Count a dropped draw by family and reason (a gated reading, or ``tool_refused``)."""
        self._gate_drops.setdefault(family_name, {}).setdefault(reason, set()).add(draw)
        if self._capture is not None:
            self._capture.append((family_name, reason, draw))

    def _replay_drops(self, family_name: str, draw: int) -> None:
        """Capture the drops making a draw recorded, when the draw is taken as kept."""
        if self._capture is None:
            return
        for reason, draws in self._gate_drops.get(family_name, {}).items():
            if draw in draws:
                self._capture.append((family_name, reason, draw))

    @contextmanager
    def capturing_drops(self) -> Iterator[list[tuple[str, str, int]]]:
        """The drops of the draws made or taken as kept inside the block, as ``(family,
        reason, draw)``: a draw's drops are a function of the draw, so a worker whose
        context kept a draw (made for work the run never took) still hands them over."""
        saved, self._capture = self._capture, []
        try:
            yield self._capture
        finally:
            self._capture = saved

    def prime(self, calls: list[ToolCall], outputs: list[dict[str, Any]]) -> None:
        """Put outputs of these calls, made elsewhere (a worker), into the memo."""
        for call, out in zip(calls, outputs, strict=True):
            self._memo.put(_call_key(call), out)

    def prime_draw(self, family_name: str, draw: int, seed: TaskSeed | None) -> None:
        """Keep draw ``draw`` of a family, made elsewhere (a worker) under the same run seed,
        as :meth:`draw_once` would have kept it. The drops making it recorded are the
        caller's to record (:meth:`record_drop`)."""
        key = (self.run_seed, family_name, draw)
        if key not in self._draws and (id(self._draws), *key) not in self._pending:
            _keep(self._draws, MAX_DRAWS_KEPT, key, seed)

    @property
    def gate_drops(self) -> dict[str, dict[str, int]]:
        """Draws dropped by the interpretation gate: family -> reading name -> count.

        Only gated draws count: a designated slot's extra draw passed over before the gate
        (a repeated task, or a trivial answer once the slot has a fallback) is not gated.
        """
        return {
            fam: {r: len(draws) for r, draws in sorted(reasons.items())}
            for fam, reasons in sorted(self._gate_drops.items())
        }

    @property
    def assets(self) -> list[GroundedAsset]:
        """Grounded assets, sorted by id."""
        return sorted(self.profile.inventory.assets, key=lambda a: a.asset_id)

    def asset(self, asset_id: str) -> GroundedAsset:
        """The grounded asset ``asset_id``."""
        for a in self.profile.inventory.assets:
            if a.asset_id == asset_id:
                return a
        raise KeyError(asset_id)

    async def run(self, calls: list[ToolCall], *, fresh: bool = False) -> list[dict[str, Any]]:
        """Run tool calls in order; return their outputs as JSON dicts.

        Args:
            calls: The calls.
            fresh: Bypass (and refresh) the memo, e.g. when recomputing an answer.
        """
        outs = []
        for call in calls:
            key = _call_key(call)
            out = None if fresh else self._memo.get(key)
            if out is None:
                result = await call_tool(call.name, dict(call.args), self.tools)
                out = tool_json(call.name, result)
                self._memo.put(key, out)
            outs.append(out)
        return outs

    async def run1(self, name: str, **args: Any) -> dict[str, Any]:
        """Run one call given as keyword arguments."""
        return (await self.run([ToolCall(name=name, args=args)]))[0]


async def _parents_for(spec: FamilySpec, ctx: FamilyContext, draw: int) -> list[TaskSeed] | None:
    parents = []
    for name in spec.compose_from[:1]:
        parent = await draw_seed(FAMILIES.get(name), ctx, draw)
        if parent is None:
            return None
        parents.append(parent)
    return parents


async def draw_seed(
    spec: FamilySpec, ctx: FamilyContext, draw: int, parents: list[TaskSeed] | None = None
) -> TaskSeed | None:
    """Draw seed ``draw`` of a family; ``None`` when the draw is unusable or ambiguous.

    Args:
        spec: The family.
        ctx: The family context.
        draw: Draw index; with the run seed it fixes the random stream.
        parents: For a multi-agent family, accepted parent seeds; drawn at the same index
            from ``compose_from`` when omitted.
    """
    if parents is not None:
        return await _draw_seed(spec, ctx, draw, parents)
    return await ctx.draw_once(spec.name, draw, lambda: _draw_seed(spec, ctx, draw, None))


async def peek_seed(
    spec: FamilySpec, ctx: FamilyContext, draw: int, *, trivial_unwanted: bool = False
) -> Probe | TaskSeed | None:
    """What :func:`draw_seed` knows of a draw before its gate: the seed when it was made
    already, else the draw's :class:`Probe`; None when the draw is unusable (then
    :func:`draw_seed` gives None too).

    ``trivial_unwanted``: the caller passes over a trivial answer as it passes over an
    unusable draw. A family that can tell early that its answer is trivial then stops
    (:attr:`FamilyContext.passes_over_trivial`) and this gives None, keeping nothing.
    """
    done, seed = ctx.kept_draw(spec.name, draw)
    if done:
        return seed
    if trivial_unwanted and not ctx.probing(spec.name, draw):
        try:
            probe = await _probe(spec, ctx, draw, None, trivial_unwanted=True)
        except PassedOver:
            return None
        ctx.keep_probe(spec.name, draw, probe)
        return probe
    return await ctx.probe_once(spec.name, draw, lambda: _probe(spec, ctx, draw, None))


async def _draw_seed(
    spec: FamilySpec, ctx: FamilyContext, draw: int, parents: list[TaskSeed] | None
) -> TaskSeed | None:
    """:func:`draw_seed` without the memo of draws."""
    if parents is None:
        probe = await ctx.probe_once(spec.name, draw, lambda: _probe(spec, ctx, draw, None))
    else:
        probe = await _probe(spec, ctx, draw, parents)
    return None if probe is None else await _gated(spec, ctx, draw, probe)


async def _probe(
    spec: FamilySpec,
    ctx: FamilyContext,
    draw: int,
    parents: list[TaskSeed] | None,
    *,
    trivial_unwanted: bool = False,
) -> Probe | None:
    """A draw up to its answer (:class:`Probe`); None when it is unusable.

    Raises:
        PassedOver: ``trivial_unwanted`` and the family found its answer trivial.
    """
    if spec.compose_from and parents is None:
        parents = await _parents_for(spec, ctx, draw)
        if parents is None:
            return None
    rng = rng_for(ctx.run_seed, spec.name, draw)
    role: Role = spec.roles[int(rng.integers(len(spec.roles)))]
    try:
        wanted = _TRIVIAL_UNWANTED.set(trivial_unwanted)
        try:
            plan = await spec.draw(ctx, rng, parents or [])
        except PassedOver:
            if trivial_unwanted:
                raise
            raise RuntimeError(
                f"family {spec.name!r} raised PassedOver on draw {draw} although the caller "
                "takes trivial answers; raise it only while ctx.passes_over_trivial is True"
            ) from None
        finally:
            _TRIVIAL_UNWANTED.reset(wanted)
        if plan is None:
            return None
        outputs = await ctx.run(plan.tool_sequence)
    except (StoreUnavailable, LLMUnavailable, RunStopped):
        raise  # an outage stops the run (and is resumable)
    except UserError:
        # A tool refused a call of this draw (a window too thin for the model, a gap in the
        # data): the draw is unusable, the run goes on; counted with the gate's drops.
        ctx.record_drop(spec.name, "tool_refused", draw)
        return None
    try:
        answer = spec.derive(plan.params, outputs)
    except Ambiguous:
        return None
    outcome = spec.outcome(answer) if spec.outcome is not None else None
    return Probe(
        family=spec.name,
        params=plan.params,
        nontrivial=None if outcome is None else not spec.is_trivial(outcome),
        plan=plan,
        role=role,
        parents=parents or [],
        outputs=outputs,
        answer=answer,
        outcome=outcome,
    )


async def _gated(
    spec: FamilySpec, ctx: FamilyContext, draw: int, probe: Probe
) -> TaskSeed | None:
    """The seed of a probed draw, through the interpretation gate; None when it drops it."""
    plan, answer = probe.plan, probe.answer
    as_of = declared_as_of(spec.as_of, plan.params)
    if documents_after(probe.outputs, as_of):
        # the reference would rest on a document from after the moment the text asks as of
        ctx.record_drop(spec.name, AFTER_AS_OF, draw)
        return None
    checks = await gate_readings(spec, ctx, plan, answer, draw)
    if checks is None:
        return None
    seed = TaskSeed(
        family=spec.name,
        domain=spec.domain,
        category=spec.category,
        role=plan.role or probe.role,
        draw=draw,
        params=plan.params,
        grounding=plan.grounding,
        mentions=list(dict.fromkeys(plan.mentions)),
        tool_sequence=plan.tool_sequence,
        answer=answer,
        answer_summary=spec.summarise(plan.params, answer),
        tolerance=plan.tolerance,
        rel_tolerance=plan.rel_tolerance,
        difficulty=plan.difficulty,
        hard_features=plan.hard_features,
        constraint=plan.constraint,
        closed_form=plan.closed_form,
        parents=[p.key for p in probe.parents],
        readings=checks,
        outcome=probe.outcome,
        nontrivial=probe.nontrivial,
        deterministic=spec.deterministic,
        rubric=spec.rubric(plan.params, answer) if spec.rubric is not None else None,
        as_of=as_of,
    )
    return scored(seed, probe.outputs)  # difficulty from the work, not the family's declaration


async def gate_readings(
    spec: FamilySpec, ctx: FamilyContext, plan: Plan, answer: dict[str, Any], draw: int
) -> list[ReadingCheck] | None:
    """Derive the answer under every reading of the plan; None when the task is ambiguous.

    A reading whose answer agrees with ``answer`` (within the plan's tolerances) is
    ``same``. One that differs is ``stated`` when the plan names it in ``stated`` (the text
    pins the reading; its answer is recorded) and otherwise drops the draw, counted in
    ``ctx.gate_drops`` under the reading's name. A reading whose derivation is itself
    ambiguous, or whose calls fail, counts as differing (with no answer recorded).
    """
    checks: list[ReadingCheck] = []
    for reading in plan.readings:
        params = plan.params if reading.params is None else {**plan.params, **reading.params}
        calls = plan.tool_sequence if reading.tool_sequence is None else reading.tool_sequence
        alt: dict[str, Any] | None
        try:
            alt = spec.derive(params, await ctx.run(calls))
        except (StoreUnavailable, LLMUnavailable):
            raise  # an outage stops the run (and is resumable), it is no verdict on the task
        except (Ambiguous, UserError):
            alt = None  # no single answer, or a call that reading makes is refused
        rel = plan.rel_tolerance
        if alt is not None and not compare(answer, alt, plan.tolerance, rel_tolerance=rel):
            checks.append(ReadingCheck(
                name=reading.name, description=reading.description, outcome="same"
            ))
            continue
        if reading.name not in plan.stated:
            ctx.record_drop(spec.name, reading.name, draw)
            return None
        checks.append(ReadingCheck(
            name=reading.name, description=reading.description, outcome="stated", answer=alt
        ))
    return checks


async def compose_seed(
    spec: FamilySpec, parents: list[TaskSeed], ctx: FamilyContext, draw: int
) -> TaskSeed | None:
    """Compose a multi-agent seed from accepted single-domain seeds (see :func:`draw_seed`)."""
    wanted = spec.compose_from[: len(parents)]
    got = tuple(p.family for p in parents)
    if not spec.compose_from or got != wanted:
        raise ValueError(f"family {spec.name!r} composes from {spec.compose_from}, got {got}")
    return await draw_seed(spec, ctx, draw, parents=parents)


class Task(Protocol):
    """What tells a task: a seed or a :class:`Probe`."""

    @property
    def family(self) -> str: ...

    @property
    def params(self) -> dict[str, Any]: ...

    @property
    def nontrivial(self) -> bool | None: ...


# What a draw gives before its gate (:func:`peek_seed`): ``peek(index, trivial_unwanted)``.
Peek = Callable[[int, bool], Awaitable[Task | None]]


def params_key(seed: Task) -> str:
    """Identity of a seed's task: family and parameters (not the draw index or role)."""
    return seed.family + json.dumps(seed.params, sort_keys=True, default=str)


# A slot designated non-trivial looks at this many extra draw indices for a non-trivial
# answer. They live far above the ordinary indices (which a run uses one per slot), so a
# family without a target draws exactly what it drew before.
EXTRA_DRAWS = 48
EXTRA_BASE = 1_000_000


def designated_nontrivial(slot: int, share: float) -> bool:
    """True for the slots that should hold a non-trivial answer to reach ``share``.

    Slot ``k`` is designated when ``ceil((k + 1)·share) > ceil(k·share)``: the first slot,
    then evenly spread, so any prefix of ``n`` slots holds ``ceil(n·share)`` designated ones.
    """
    if share <= 0.0:
        return False
    return math.ceil(round((slot + 1) * share, 9)) > math.ceil(round(slot * share, 9))


def slot_draws(slot: int, share: float) -> list[int]:
    """Draw indices slot ``slot`` may use: itself, plus extras when designated non-trivial."""
    if not designated_nontrivial(slot, share):
        return [slot]
    return [slot] + [EXTRA_BASE + slot * EXTRA_DRAWS + j for j in range(EXTRA_DRAWS)]


async def draw_for_slot(
    spec: FamilySpec,
    slot: int,
    share: float,
    draw: Callable[[int], Awaitable[TaskSeed | None]],
    skip: Callable[[Task], bool] | None = None,
    peek: Peek | None = None,
) -> TaskSeed | None:
    """The seed of a family's slot ``slot`` under a ``nontrivial_share`` target.

    An undesignated slot (see :func:`designated_nontrivial`) is draw ``slot`` as always. A
    designated one takes the first non-trivial seed among :func:`slot_draws`, else the first
    usable one (the store may hold no more interesting answers). Pure in the slot index, so
    a resumed run draws what an uninterrupted one drew.

    Args:
        spec: The family (its ``outcome`` and ``trivial`` labels).
        slot: The family's slot index (its draw index without a target).
        share: Target share of non-trivial answers (0 = none).
        draw: Draws one index (e.g. ``draw_seed`` or composition from an accepted parent).
        skip: Seeds a designated slot passes over (e.g. repeats of tasks already drawn, when
            the caller's set of those is itself a function of the slot).
        peek: What ``draw`` would give before its interpretation gate (:func:`peek_seed`;
            None only when ``draw`` gives None): a draw whose task ``skip`` passes over, or
            whose answer is trivial once a fallback is found, is not gated (the gate could
            only drop it, and it is passed over either way). Once there is a fallback it is
            asked with ``trivial_unwanted``: it may then give None for a trivial answer.
    """
    indices = slot_draws(slot, share if spec.outcome is not None else 0.0)
    if len(indices) == 1:
        return await draw(indices[0])
    fallback: TaskSeed | None = None
    for index in indices:
        if peek is not None:
            task = await peek(index, fallback is not None)
            if task is None or (skip is not None and skip(task)):
                continue
            if fallback is not None and not task.nontrivial:
                continue
        seed = await draw(index)
        if seed is None or (skip is not None and skip(seed)):
            continue
        if seed.nontrivial:
            return seed
        fallback = fallback or seed
    return fallback


async def draw_many(
    spec: FamilySpec,
    ctx: FamilyContext,
    start: int,
    count: int,
    max_tries: int,
    *,
    unique: bool = True,
    nontrivial_share: float = 0.0,
) -> list[TaskSeed]:
    """Draw up to ``count`` seeds from index ``start`` on, skipping unusable draws.

    Draw indices are tried in order, at most ``max_tries`` of them, so the result is the
    same for the same run seed however often it is called.

    Args:
        spec: The family.
        ctx: The family context.
        start: First draw index.
        count: Seeds wanted.
        max_tries: Draw indices tried at most.
        unique: Also skip a draw whose parameters repeat an earlier seed's (same task).
        nontrivial_share: Target share of non-trivial answers; each index is then a slot of
            :func:`draw_for_slot`.
    """
    seeds: list[TaskSeed] = []
    seen: set[str] = set()

    async def one(index: int) -> TaskSeed | None:
        return await draw_seed(spec, ctx, index)

    for slot in range(start, start + max_tries):
        if len(seeds) >= count:
            break
        seed = await draw_for_slot(
            spec, slot, nontrivial_share, one,
            skip=(lambda s: params_key(s) in seen) if unique else None,
        )
        if seed is None:
            continue
        key = params_key(seed)
        if unique and key in seen:
            continue
        seen.add(key)
        seeds.append(seed)
    return seeds


def compare(
    expected: Any,
    actual: Any,
    tolerance: dict[str, float],
    path: str = "",
    *,
    rel_tolerance: dict[str, float] | None = None,
) -> list[str]:
    """Differences between two answers; numbers within the tolerance of their top-level key.

    A number passes when ``|e - a| <= tolerance[key]`` or ``|e - a| <= rel_tolerance[key] *
    |e|`` (``key`` is the top-level answer key the number sits under); without either, it
    must be equal.
    """
    rel = rel_tolerance or {}
    key = path.split(".")[0].split("[")[0]
    if isinstance(expected, bool) or isinstance(actual, bool):
        # True == 1 in Python; an answer's flag must stay a flag.
        same = type(expected) is type(actual) and expected == actual
        return [] if same else [f"{path}: expected {expected!r}, got {actual!r}"]
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        tol, rtol = tolerance.get(key, 0.0), rel.get(key, 0.0)
        if within(expected, actual, tol, rtol):
            return []
        allowed = f"tolerance {tol:g}" + (f", relative {rtol:g}" if rtol else "")
        return [f"{path}: expected {expected!r}, got {actual!r} ({allowed})"]
    if isinstance(expected, dict) and isinstance(actual, dict):
        problems = []
        for k in sorted(set(expected) | set(actual)):
            sub = f"{path}.{k}" if path else str(k)
            if k not in actual:
                problems.append(f"{sub}: missing from the recomputed answer")
            elif k not in expected:
                problems.append(f"{sub}: not in the stored answer")
            else:
                problems.extend(compare(expected[k], actual[k], tolerance, sub, rel_tolerance=rel))
        return problems
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} items, got {len(actual)}"]
        problems = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            problems.extend(compare(e, a, tolerance, f"{path}[{i}]", rel_tolerance=rel))
        return problems
    return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]


async def recompute(seed: TaskSeed, ctx: FamilyContext, *, fresh: bool = True) -> list[str]:
    """Re-run the seed's tool calls and derive; problems with the stored answer (empty = ok).

    ``fresh=False`` (a run reading a pinned snapshot) takes the calls' outputs from the
    memo: the tools are deterministic functions of their arguments and the snapshot, so a
    re-run would return them again; the answer is still derived anew from them.
    """
    try:
        spec = FAMILIES.get(seed.family)
    except Exception as exc:  # an unknown family is a problem of the seed, reported as such
        return [f"family: {exc}"]
    try:
        outputs = await ctx.run(seed.tool_sequence, fresh=fresh)
    except (StoreUnavailable, LLMUnavailable):
        raise  # an outage stops the run (resumable); it says nothing about the answer
    except Exception as exc:  # a tool that now fails means the answer does not reproduce
        return [f"tools: {type(exc).__name__}: {exc}"]
    try:
        answer = spec.derive(seed.params, outputs)
    except Ambiguous as exc:
        return [f"answer: ambiguous on recompute ({exc})"]
    return compare(seed.answer, answer, seed.tolerance, rel_tolerance=seed.rel_tolerance)
