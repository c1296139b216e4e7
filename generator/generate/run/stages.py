"""What the pipeline hands each domain: budget, dedup index, drawer, vetter, verbalisers.

:func:`prepare` builds a :class:`RunEnv` once per run from serialisable inputs (the asset
class, its profile, the config and the store settings); :meth:`RunEnv.job` then makes the
:class:`DomainJob` of one domain.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.errors import UserError
from generator.generate.checks.checks import (
    CheckContext,
    CheckItem,
    CheckOutcome,
    GroundingSets,
    evaluate,
    run_checks,
)
from generator.generate.checks.dedup import DedupIndex
from generator.generate.checks.validate import against_index, against_tasks
from generator.generate.draw.ahead import DrawAhead, Prevetted, default_workers
from generator.generate.draw.composed import ComposedSeeds
from generator.generate.draw.families import (
    FamilyContext,
    FamilySpec,
    Task,
    compose_seed,
    designated_nontrivial,
    draw_seed,
    families_of,
    peek_seed,
    recompute,
)
from generator.generate.draw.lanes import SlotSeeds, slot_seed
from generator.generate.draw.negatives import build_negatives
from generator.generate.model import Draft, ScenarioRecord, TaskSeed
from generator.generate.run.budget import Budget, allocate, propose_budget
from generator.generate.run.domain_run import DomainJob, Progress
from generator.generate.run.policy import DomainPolicy, load_policies
from generator.generate.run.run_config import GenerateConfig
from generator.generate.run.run_folder import AcceptedLine, RunFolder
from generator.generate.verbalise.verbalise_llm import LLMVerbaliser
from generator.generate.verbalise.verbalise_template import TemplateVerbaliser
from generator.heap import HeapState, freeze, thaw
from generator.llm.timing import frontier, join_calls
from generator.tools.registry import ToolContext, load_tools

if TYPE_CHECKING:
    from generator.assetdef import AssetClass
    from generator.config import StoreSettings
    from generator.llm.client import LLMClient
    from generator.profile.model import AssetProfile
    from generator.store.snapshot import FleetSnapshot


@dataclass(frozen=True)
class PrevettedWords:
    """The template verbaliser's drafts, the first ones as draw-ahead workers made them (the
    same words: a draft is a function of the run seed, the seed and the variant)."""

    template: TemplateVerbaliser
    ahead: DrawAhead | None

    def verbalise(self, seeds: list[TaskSeed], variant: int = 0) -> list[Draft]:
        """As :meth:`TemplateVerbaliser.verbalise`."""
        drafts = []
        for seed in seeds:
            pre = self.ahead.prevetted(seed.key) if self.ahead and not variant else None
            drafts.append(pre.draft if pre else self.template.verbalise_one(seed, variant))
        return drafts


async def prevet_seed(
    seed: TaskSeed, template: TemplateVerbaliser, checks: CheckContext, asset_class: str
) -> Prevetted:
    """A slot seed's first draft and every check outcome that does not read the run's state,
    as the run would find them (run in a draw-ahead worker)."""
    draft = template.verbalise_one(seed)
    item = CheckItem.from_draft(draft, seed, seed.domain, asset_class)
    outcomes = await evaluate("all", item, checks, leave_run_state=True)
    return Prevetted(draft, {o.check: o for o in outcomes})


@dataclass
class RunEnv:
    """Shared, per-run objects (safe to use from every domain's task)."""

    asset: AssetClass
    profile: AssetProfile
    config: GenerateConfig
    policies: dict[str, DomainPolicy]
    budget: Budget
    dedup: DedupIndex
    checks: CheckContext
    family_ctx: FamilyContext
    template: TemplateVerbaliser
    llm: LLMVerbaliser | None
    model_label: str
    families: dict[str, list[FamilySpec]]
    accepted_seeds: dict[str, list[TaskSeed]] = field(default_factory=dict)
    # LLM calls an accepted seed's acceptance depended on, by id(seed) (the call graph)
    accepted_after: dict[int, tuple[int, ...]] = field(default_factory=dict)
    slot_seeds: SlotSeeds = field(default_factory=SlotSeeds)
    snapshot: FleetSnapshot | None = None
    composed: dict[str, ComposedSeeds] = field(default_factory=dict)
    # worker processes making the family lanes ahead of the run (None: the run makes them)
    ahead: DrawAhead | None = None
    # the collector's state before the set-up's objects were frozen (None: not frozen)
    heap: HeapState | None = None
    # single domains started or queued and not finished (multi-agent waits on its parents')
    running: set[str] = field(default_factory=set)
    accepted_changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def domain_finished(self, domain: str) -> None:
        """Mark a single domain finished (its accepted seeds are final)."""
        self.running.discard(domain)
        async with self.accepted_changed:
            self.accepted_changed.notify_all()

    async def verify_store(self) -> None:
        """With a snapshot: fail (one line) when the store changed since it was read."""
        if self.snapshot is not None:
            await self.snapshot.verify_unchanged()

    # -- per-candidate hooks ---------------------------------------------------------

    async def draw(self, domain: str, candidate: int) -> TaskSeed | None:
        """Candidate ``c`` of a domain's stream: slot ``c // F`` of family ``c % F``.

        The slot is the family's draw index, except that the policy's ``nontrivial_share``
        lets designated slots look at extra draws (:func:`draw_for_slot`). With an
        ``open_family_share``, the open families take :func:`open_draw_share` of the
        candidates (:func:`family_slot`) and the domain's loop holds the accepted open
        scenarios to the share (``DomainJob.open_target``). A multi-agent
        family's draw ``d`` is the ``d``-th distinct task of its
        :class:`~generator.generate.draw.composed.ComposedSeeds` stream.
        """
        policy = self.policies.get(domain)
        spec, slot = self.family_of(domain, candidate)
        share = policy.nontrivial_share.get(spec.name, 0.0) if policy else 0.0

        async def one(draw: int) -> TaskSeed | None:
            if spec.compose_from:
                return await self._composed(spec).get(draw)
            return await draw_seed(spec, self.family_ctx, draw)

        async def peek(draw: int, trivial_unwanted: bool) -> Task | None:
            if spec.compose_from:
                return await self._composed(spec).peek(draw)
            return await peek_seed(
                spec, self.family_ctx, draw, trivial_unwanted=trivial_unwanted
            )

        if self.ahead is not None and not spec.compose_from:
            try:
                return await self.ahead.slot(spec.name, slot, share, self.slot_seeds)
            except LookupError:
                pass  # not the workers' family (the run keeps it, or it was given back)
        return await slot_seed(self.slot_seeds, spec, slot, share, one, peek)

    def close(self) -> dict[str, Any] | None:
        """Stop the run's draw-ahead workers (if any) and thaw the heap (:mod:`generator.heap`);
        what the workers did (``DrawAhead.stats``)."""
        if self.heap is not None:
            thaw(self.heap)
            self.heap = None
        if self.ahead is None:
            return None
        stats = self.ahead.stats()
        self.ahead.close()
        self.ahead = None
        return stats

    def family_of(self, domain: str, candidate: int) -> tuple[FamilySpec, int]:
        """The family and slot of a domain's candidate (:func:`family_slot`)."""
        policy = self.policies.get(domain)
        return family_slot(
            self.families[domain], candidate,
            open_draw_share(policy.open_family_share) if policy else None,
        )

    def _composed(self, spec: FamilySpec) -> ComposedSeeds:
        """The distinct-task stream of a multi-agent family (made at its first draw, when
        the parent family's accepted seeds are final)."""
        stream = self.composed.get(spec.name)
        if stream is None:
            from generator.generate.draw.families import FAMILIES

            ctx, parent = self.family_ctx, FAMILIES.get(spec.compose_from[0])
            pool = self.accepted_seeds.setdefault(parent.name, [])  # live: on_accept adds

            async def wait_pool(i: int) -> None:
                async with self.accepted_changed:
                    await self.accepted_changed.wait_for(
                        lambda: len(pool) > i or parent.domain not in self.running
                    )

            stream = ComposedSeeds(
                pool,
                lambda p, i: compose_seed(spec, [p], ctx, i),
                lambda j: self._plain_draw(parent, j),
                lambda i: draw_seed(spec, ctx, i),
                wait_pool=wait_pool,
                peek_own=lambda i: peek_seed(spec, ctx, i),
                took_parent=lambda p: join_calls(self.accepted_after.get(id(p), ())),
            )
            self.composed[spec.name] = stream
        return stream

    async def _plain_draw(self, spec: FamilySpec, draw: int) -> TaskSeed | None:
        """``draw_seed(spec, ...)``: from the draw-ahead workers when they have it."""
        if self.ahead is not None:
            try:
                return await self.ahead.draw(spec.name, draw)
            except LookupError:
                pass
        return await draw_seed(spec, self.family_ctx, draw)

    async def early(self, seed: TaskSeed | None, draft: Draft, domain: str) -> list[str]:
        """The cheap checks (fields, length, tool names, near-duplicates)."""
        item = CheckItem.from_draft(draft, seed, domain, self.asset.asset_class)
        known = self._known(seed, draft, domain)
        problems = await run_checks("early", item, self.checks, known=known)
        if problems and known is not None:  # the next draft is another one
            self._known(seed, draft, domain, let_go=True)
        return problems

    async def deterministic(self, seed: TaskSeed | None, draft: Draft, domain: str) -> list[str]:
        """The costly checks; with early rejection off (baseline) the early ones run here."""
        item = CheckItem.from_draft(draft, seed, domain, self.asset.asset_class)
        if self.config.baseline:
            return await run_checks("all", item, self.checks)
        known = self._known(seed, draft, domain, let_go=True)
        return await run_checks("deterministic", item, self.checks, known=known)

    def _known(
        self, seed: TaskSeed | None, draft: Draft, domain: str, *, let_go: bool = False
    ) -> dict[str, CheckOutcome] | None:
        """Check outcomes a draw-ahead worker found for this very draft, if any."""
        if self.ahead is None or seed is None:
            return None
        pre = self.ahead.prevetted(seed.key, let_go=let_go)
        if pre is None or pre.draft != draft or seed.domain != domain:
            return None
        return pre.outcomes

    @property
    def words(self) -> PrevettedWords:
        """The template verbaliser, taking the drafts draw-ahead workers made."""
        return PrevettedWords(self.template, self.ahead)

    async def on_accept(self, line: AcceptedLine) -> None:
        """Remember accepted seeds so multi-agent chains can compose from them."""
        if line.seed is not None:
            self.accepted_seeds.setdefault(line.seed.family, []).append(line.seed)
            self.accepted_after[id(line.seed)] = frontier()
            async with self.accepted_changed:
                self.accepted_changed.notify_all()

    # -- jobs --------------------------------------------------------------------------

    def core_tools(self) -> dict[str, list[str]]:
        """Core tools per domain, from the policies."""
        return {d: list(p.core_tools) for d, p in self.policies.items()}

    def job(
        self,
        domain: str,
        *,
        folder: RunFolder,
        id_offset: int,
        id_width: int,
        resumed: list[AcceptedLine],
        progress: Progress | None,
    ) -> DomainJob:
        """The job of one domain."""
        cfg = self.config
        quota = self.budget.per_domain.get(domain, 0)
        for line in resumed:
            if line.seed is not None:
                self.accepted_seeds.setdefault(line.seed.family, []).append(line.seed)
        has_families = bool(self.families.get(domain))
        return DomainJob(
            asset_class=cfg.asset_class,
            domain=domain,
            quota=quota,
            id_offset=id_offset,
            id_width=id_width,
            folder=folder,
            dedup=self.dedup,
            drawer=self.draw,
            vetter=self,
            core_tools=self.core_tools(),
            template=self.words,
            llm=self.llm,
            model_label=self.model_label,
            prompt_version=self.llm.prompt_version if self.llm else self.template.prompt_version,
            batch_size=1 if cfg.baseline else cfg.batch_size,
            max_repairs=cfg.max_repairs,
            max_candidates=quota * cfg.candidates_per_slot if has_families else 0,
            early_rejection=not cfg.baseline,
            min_hard=math.ceil(quota * self.policies[domain].hardness_mix)
            if domain in self.policies
            else 0,
            open_quota=open_quota(quota, cfg, self.llm),
            open_target=self.open_target(domain, quota),
            profile=self.profile,
            kind=(lambda c: self.family_of(domain, c)[0].deterministic) if has_families else None,
            resumed=resumed,
            progress=progress,
            on_accept=self.on_accept,
            overlap_llm=self.llm is not None and not cfg.baseline,
            call_size=math.ceil(cfg.batch_size / self.llm.client.parallel_calls)
            if self.llm is not None and not cfg.baseline
            else None,
        )

    def open_target(self, domain: str, quota: int) -> int | None:
        """Accepted open scenarios the policy's ``open_family_share`` asks of a domain
        (rounded), or None when it sets none or the domain lacks open or deterministic
        families (then the stream alone decides)."""
        policy = self.policies.get(domain)
        specs = self.families.get(domain, [])
        kinds = {s.deterministic for s in specs}
        if policy is None or policy.open_family_share is None or kinds != {True, False}:
            return None
        return round(quota * policy.open_family_share)

    async def negatives(self, k: int, *, run_id: str) -> list[ScenarioRecord]:
        """``k`` verified negative scenarios with ids ``<asset>_negative_NN``."""
        if k == 0:
            return []
        records = await build_negatives(
            self.profile, self.family_ctx.tools, k, self.config.seed, dedup=self.dedup
        )
        out = []
        for i, rec in enumerate(records):
            provenance = rec.provenance.model_copy(update={"run_id": run_id})
            out.append(
                rec.model_copy(
                    update={"id": f"{self.config.asset_class}_negative_{i + 1:02d}",
                            "provenance": provenance}
                )
            )
        return out


# Open families draw at this multiple of the policy's open share: a data-limited open family
# (few distinct tasks, draws the gate drops) is made up by the others, and the domain's loop
# passes over open seeds once the accepted ones reach the share (DomainJob.open_target).
OPEN_DRAW_FACTOR = 2.0


def open_draw_share(share: float | None) -> float | None:
    """The share of a domain's candidates the open families draw for policy share ``share``."""
    return None if share is None else min(1.0, share * OPEN_DRAW_FACTOR)


def open_quota(quota: int, cfg: GenerateConfig, llm: LLMVerbaliser | None) -> int:
    """Open scenarios a domain asks the LLM for: ``open_share`` of its quota, on the LLM
    path only (none with the template verbaliser or ``--baseline``)."""
    return int(quota * cfg.open_share) if llm is not None and not cfg.baseline else 0


def family_slot(
    specs: list[FamilySpec], candidate: int, open_share: float | None
) -> tuple[FamilySpec, int]:
    """The family and slot of candidate ``candidate`` of a domain's stream.

    Without an open share (or without both open and deterministic families) families take
    turns: family ``c % F``, slot ``c // F``. With share ``s``, candidate ``c`` goes to the
    open families when :func:`designated_nontrivial` designates it for ``s`` (evenly spread:
    any prefix of ``n`` candidates holds ``ceil(n·s)`` open ones), and the open and the
    deterministic families each take turns within their own stream.
    """
    open_specs = [s for s in specs if not s.deterministic]
    closed = [s for s in specs if s.deterministic]
    if open_share is None or not open_specs or not closed:
        return specs[candidate % len(specs)], candidate // len(specs)
    before = math.ceil(round(candidate * open_share, 9))  # open candidates before this one
    if designated_nontrivial(candidate, open_share):
        return open_specs[before % len(open_specs)], before // len(open_specs)
    j = candidate - before
    return closed[j % len(closed)], j // len(closed)


def open_report(
    records: list[ScenarioRecord], policies: dict[str, DomainPolicy]
) -> dict[str, dict[str, object]]:
    """Per domain: the open-family share the policy sets, the open (rubric) scenarios
    accepted and their share of the domain's accepted scenarios."""
    out: dict[str, dict[str, object]] = {}
    for domain in sorted({r.type for r in records}):
        mine = [r for r in records if r.type == domain]
        n_open = sum(1 for r in mine if not r.deterministic)
        policy = policies.get(domain)
        target = policy.open_family_share if policy else None
        if n_open or target is not None:
            out[domain] = {"target": target, "accepted": n_open,
                           "share": round(n_open / len(mine), 3) if mine else 0.0}
    return out


def check_share_targets(asset: AssetClass, policies: dict[str, DomainPolicy]) -> None:
    """Every family a policy's ``nontrivial_share`` names must be one of the domain's.

    Only checked for domains where the asset class registers families (a policy shared with
    another asset class may name that class's families).

    Raises:
        UserError: a name is not a family of the domain, or the family labels no outcomes.
    """
    from generator.generate.draw import families as registered

    for domain, policy in policies.items():
        specs = {s.name: s for s in registered.families_of(asset, domain)}
        if not specs:
            continue
        for name in policy.nontrivial_share:
            if name not in specs:
                raise UserError(
                    f"policies/{domain}.yaml: nontrivial_share names an unknown family",
                    value=name,
                    options=sorted(specs),
                    fix="name a task family of the domain or remove the entry",
                )
            if specs[name].outcome is None:
                raise UserError(
                    f"policies/{domain}.yaml: nontrivial_share names family {name!r}, which "
                    "labels no outcomes",
                    value=name,
                    options=sorted(n for n, s in specs.items() if s.outcome is not None),
                    fix="give the family an outcome function or remove the entry",
                )


def outcome_report(
    seeds: list[TaskSeed], policies: dict[str, DomainPolicy], drops: dict[str, dict[str, int]]
) -> dict[str, dict[str, object]]:
    """Per family: outcome mix of the accepted seeds, non-trivial target vs achieved, and
    the draws the interpretation gate dropped (by reading; draws a designated slot passed
    over before their gate are not gated, see :func:`draw_for_slot`)."""
    targets = {
        name: share for p in policies.values() for name, share in p.nontrivial_share.items()
    }
    names = sorted({s.family for s in seeds} | set(drops) | set(targets))
    report: dict[str, dict[str, object]] = {}
    for name in names:
        mine = [s for s in seeds if s.family == name]
        mix: dict[str, int] = {}
        for s in mine:
            label = s.outcome or "unlabelled"
            mix[label] = mix.get(label, 0) + 1
        labelled = [s for s in mine if s.nontrivial is not None]
        entry: dict[str, object] = {
            "accepted": len(mine),
            "outcomes": dict(sorted(mix.items())),
            "nontrivial_achieved": round(sum(bool(s.nontrivial) for s in labelled)
                                         / len(labelled), 3) if labelled else None,
            "gate_drops": drops.get(name, {}),
        }
        if name in targets:
            entry["nontrivial_target"] = targets[name]
        report[name] = entry
    return report


async def prepare(
    asset: AssetClass,
    profile: AssetProfile,
    config: GenerateConfig,
    settings: StoreSettings,
    client: LLMClient | None,
    *,
    live_store: bool = False,
    snapshot_task: asyncio.Future[FleetSnapshot] | None = None,
    on_budget: Callable[[Budget, dict[str, DomainPolicy], LLMVerbaliser | None], None]
    | None = None,
) -> RunEnv:
    """Policies, budget, checks, families and verbalisers for one run.

    Generation reads the fleet through a :class:`~generator.store.snapshot.FleetSnapshot`
    (read once, pinned by ``update_seq``) unless ``live_store`` or ``--baseline`` asks for
    the live store (one HTTP query per tool lookup, as agents see it). ``snapshot_task``:
    the snapshot's load, already started by the caller (e.g. before the profile build).
    ``on_budget``: called with the budget, the policies and the LLM verbaliser as soon as
    the budget is known, before the snapshot is awaited.
    """
    policies = load_policies(asset.asset_class)
    if snapshot_task is None and not live_store and not config.baseline:
        from generator.store.snapshot import FleetSnapshot

        # The fleet loads (worker thread) while the budget proposal's LLM call is in flight.
        snapshot_task = FleetSnapshot.start_load(asset, settings)
    try:
        setup = await _while_the_snapshot_loads(asset, profile, config, client, policies,
                                               on_budget)
    except BaseException:
        if snapshot_task is not None:
            snapshot_task.cancel()
        raise
    budget, llm, template, dedup = setup.budget, setup.llm, setup.template, setup.dedup
    snapshot = await snapshot_task if snapshot_task is not None else None
    tools_ctx = ToolContext(asset, settings, store=snapshot)
    family_ctx = FamilyContext(profile, tools_ctx, config.seed)

    async def _recompute(seed: TaskSeed) -> list[str]:
        # From the pinned snapshot the tools' outputs cannot have changed (the end of the
        # run checks that the store did not move either): derive again from the memo.
        return await recompute(seed, family_ctx, fresh=snapshot is None)

    checks = CheckContext.with_registered_tools(
        policies,
        dedup=dedup,
        against=setup.against,
        against_tasks=against_tasks(Path(config.against)) if config.against else {},
        grounding=GroundingSets.from_profile(profile),
        recompute=_recompute,
        tools_ctx=tools_ctx,
    )
    workers = default_workers() if config.draw_workers is None else config.draw_workers

    async def prevet(seed: TaskSeed) -> Prevetted:
        return await prevet_seed(seed, template, checks, asset.asset_class)

    heap, ahead = _frozen_with_workers(
        config, family_ctx, workers, prevet if llm is None and not config.baseline else None,
        snapshot is not None,
    )
    return RunEnv(
        asset=asset,
        profile=profile,
        config=config,
        policies=policies,
        budget=budget,
        dedup=dedup,
        checks=checks,
        family_ctx=family_ctx,
        template=template,
        llm=llm,
        model_label=client.label if client is not None else "none",
        families=setup.families,
        snapshot=snapshot,
        ahead=ahead,
        heap=heap,
    )


@dataclass
class _Setup:
    """What a run sets up before it needs the fleet snapshot."""

    budget: Budget
    llm: LLMVerbaliser | None
    families: dict[str, list[FamilySpec]]
    template: TemplateVerbaliser
    dedup: DedupIndex
    against: Any


async def _while_the_snapshot_loads(
    asset: AssetClass,
    profile: AssetProfile,
    config: GenerateConfig,
    client: LLMClient | None,
    policies: dict[str, DomainPolicy],
    on_budget: Callable[[Budget, dict[str, DomainPolicy], LLMVerbaliser | None], None]
    | None,
) -> _Setup:
    """The budget (the proposal's LLM call in flight while the fleet loads), then what needs
    no snapshot: tools, families, the template verbaliser and the duplicate indexes."""
    proposal: dict[str, float] | None = None
    if client is not None and config.budget is None and not config.baseline:
        proposal = await propose_budget(profile, config.n, client)
    budget = allocate(
        profile,
        policies,
        config.n,
        multiagent_cap=config.multiagent_cap,
        override=config.budget,
        proposal=proposal,
    )
    llm = LLMVerbaliser(client, asset.asset_class) if client is not None else None
    if on_budget is not None:
        on_budget(budget, policies, llm)  # e.g. LLM calls that need no snapshot start now
    load_tools()
    families = {
        d: families_of(asset, d) for d in budget.per_domain if budget.per_domain[d] > 0
    }
    check_share_targets(asset, policies)
    return _Setup(
        budget=budget, llm=llm, families=families,
        template=TemplateVerbaliser(config.seed, asset.asset_class),
        dedup=DedupIndex(threshold=config.dedup_threshold),
        against=(against_index(Path(config.against), config.dedup_threshold)
                 if config.against else None),
    )


def _frozen_with_workers(
    config: GenerateConfig, family_ctx: FamilyContext, workers: int, prevet: Any,
    pinned: bool,
) -> tuple[HeapState | None, DrawAhead | None]:
    """The set-up's objects live as long as the run: frozen out of the collector's sweeps
    (before the fork, so the workers inherit them frozen); not in --baseline, which keeps the
    interpreter's defaults. Lanes are pure functions of the pinned snapshot, so workers may
    make them ahead (forked here, once the families and tools are loaded); on the template
    path the workers also word and vet the slot seeds they make."""
    heap = None if config.baseline else freeze()
    try:
        ahead = DrawAhead(family_ctx, workers, prevet) if pinned and workers > 0 else None
    except BaseException:
        if heap is not None:
            thaw(heap)
        raise
    return heap, ahead
