"""The generation pipeline: profile → budget → domains (in parallel) → multi-agent →
negatives → output. Composes stages; the work is in the stage modules."""

from __future__ import annotations

import asyncio
import logging
import platform
import secrets
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from generator import __version__
from generator.concurrency import configure_threads, fan_out, to_thread
from generator.config import StoreSettings, store_settings
from generator.errors import LLMUnavailable, RunStopped, StoreUnavailable, UserError
from generator.generate.draw.asof import AFTER_AS_OF
from generator.generate.draw.difficulty import difficulty_report
from generator.generate.draw.draw_order import PriorityGate, draw_ranks, taking_turns
from generator.generate.model import GENERATOR_VERSION
from generator.generate.run.domain_run import DomainJob, DomainOutcome, DomainRunner, Progress
from generator.generate.run.run_config import GenerateConfig, RunSummary, Shortfall
from generator.generate.run.run_folder import (
    AcceptedLine,
    OutputUnwritable,
    RunFolder,
    check_run_names,
    require_run,
    run_folder_path,
)
from generator.generate.run.run_key import seed_fingerprint
from generator.generate.run.run_resume import check_budget, check_fleet, check_resume
from generator.generate.verbalise.language_stats import language_stats
from generator.redact import redact_text

if TYPE_CHECKING:
    from generator.generate.run.stages import RunEnv
    from generator.generate.verbalise.verbalise_llm import LLMVerbaliser
    from generator.llm.client import LLMClient

# scenarios.json is rewritten during a run when its records have grown by 1/this.
SCENARIOS_GROWTH = 10
DOMAIN_ORDER = ("iot", "fmsr", "tsfm", "wo", "vibration", "multiagent")
_ORDER = {d: i for i, d in enumerate(DOMAIN_ORDER)}
# Outages: the run stops resumably (exit code 4), never turning them into rejections.
OUTAGES = (StoreUnavailable, LLMUnavailable, OutputUnwritable)

log = logging.getLogger(__name__)


def new_run_id(config: GenerateConfig) -> str:
    """``<asset>-<UTC time>-<6 random hex>`` (nothing derived from the seed)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return f"{config.asset_class}-{stamp}-{secrets.token_hex(3)}"


class Pipeline:
    """One generation run (``generate`` and ``--resume``)."""

    def __init__(
        self,
        config: GenerateConfig,
        *,
        settings: StoreSettings | None = None,
        llm_client: LLMClient | None = None,
        progress: Progress | None = None,
        resume: str | None = None,
        notice: Callable[[str], None] | None = None,
        live_store: bool = False,
    ) -> None:
        """Set up the run; ``notice`` gets one-line notes (a torn line cut, a restart).

        Raises:
            UserError: An invalid run id, ``--resume`` and another ``--run-id``, a
                ``--resume`` of a run that does not exist, or an unusable ``--out``.
        """
        if resume is not None:
            check_run_names(config.run_id, resume)
        self.config = config
        self.live_store = live_store
        self.settings = settings or store_settings()
        self.client = llm_client
        self.progress = progress
        self.resume = resume
        self.notice = notice or log.warning
        self.timings: dict[str, float] = {}
        self._created_at: str | None = None
        self._fingerprint = ""
        self._manifest_at_start: dict[str, Any] | None = None
        self._early: LLMVerbaliser | None = None
        self._env: RunEnv | None = None
        # what the draw-ahead workers did (DrawAhead.stats), once the run is over
        self.draw_ahead: dict[str, Any] | None = None
        run_id = resume or config.run_id or new_run_id(config)
        option = "--resume" if resume else "--run-id"
        self.folder = RunFolder(run_folder_path(config.out_dir, run_id, option=option))
        if resume is not None:
            require_run(config.out_dir, resume)

    def _client(self) -> LLMClient | None:
        if self.client is None and self.config.llm != "none":
            from generator.llm.client import LLMClient
            from generator.llm.spec import parse_llm

            self.client = LLMClient(parse_llm(self.config.llm, base_url=self.config.base_url))
        if self.client is not None:
            self.client.stop_on_outage = True  # an outage stops the run, never a rejection
        return self.client

    def _prefetch_open(
        self,
        profile: Any,
        budget: Any,
        policies: dict[str, Any],
        llm: LLMVerbaliser | None,
    ) -> None:
        """Start every domain's open-scenario call as soon as the budget is known.

        The call needs only the profile and the domain's quota, so it is in flight while
        the snapshot loads instead of waiting for the domain's first draws; the domain's
        loop takes the reply at the same point as before (:meth:`LLMVerbaliser.open_scenarios`),
        so the accepted scenarios are the same. The same condition as the domain's
        (``DomainRunner._opens``): an LLM run, not ``--baseline``, a quota whose
        ``open_share`` is at least one; a resumed run asks in its domains as before.
        """
        from generator.generate.run import stages

        if llm is None or self.resume is not None:
            return
        self._early = llm
        for domain in DOMAIN_ORDER:
            k = stages.open_quota(budget.per_domain.get(domain, 0), self.config, llm)
            if k > 0:
                policy = policies.get(domain)
                llm.prefetch_open(profile, domain, k, list(policy.core_tools) if policy else [])

    def _start_snapshot(self, asset: Any) -> asyncio.Future[Any] | None:
        """Start reading the fleet snapshot (None: ``--baseline`` or a live-store run)."""
        if self.live_store or self.config.baseline:
            return None
        from generator.store.snapshot import FleetSnapshot

        return FleetSnapshot.start_load(asset, self.settings)

    def _timed(self, phase: str, started: float) -> None:
        self.timings[phase] = round(time.perf_counter() - started, 4)

    @property
    def resume_hint(self) -> str:
        """The command line fragment that finishes this run."""
        return f"--resume {self.folder.run_id} --out {self.config.out_dir}"

    async def run(self) -> RunSummary:
        """Generate (or finish) the run and write its folder.

        Raises:
            RunBusy: Another process works on the run folder.
            RunStopped: An outage (store, LLM server, disk) stopped the run; the message
                says the finished work is kept and how to resume.
            UserError: Bad input (or options that differ from the resumed run's).
        """
        from generator.assetdef import load_asset_class

        cfg = self.config
        configure_threads(cfg.threads)
        asset = load_asset_class(cfg.asset_class)
        if cfg.operate:
            from generator.generate.draw.operate_run import require_operate_families

            require_operate_families(cfg.asset_class, list(asset.tools))
        self._fingerprint = seed_fingerprint(cfg.seed)
        with self.folder.lock():
            resumed = self._open()
            try:
                return await self._run(asset, resumed)
            except OUTAGES as exc:
                raise self._stopped(exc, RunStopped) from None
            except UserError as exc:
                raise self._stopped(exc, UserError) from None
            finally:
                if self._early is not None:
                    self._early.cancel_prefetched()  # only calls no domain took
                if self._env is not None:
                    self.draw_ahead = self._env.close()  # the draw-ahead workers

    def _open(self) -> list[AcceptedLine]:
        """Start the folder, or check and reopen it for a resume; the resumed lines."""
        folder = self.folder
        if self.resume and not folder.has_manifest() and folder.never_started():
            # killed before its first manifest: nothing to keep
            self.notice(
                f"run {folder.run_id} stopped before writing its manifest; starting it afresh"
            )
        elif self.resume:
            manifest = folder.manifest()
            check_resume(manifest, self.config, self._fingerprint, GENERATOR_VERSION)
            self._manifest_at_start = manifest
            self._created_at = manifest.get("created_at")
            for line in folder.repair_tails():
                self.notice(line)
            resumed = folder.resume_accepted(manifest, self._chain_bind())
            folder.load_records(resumed)
            folder.write_scenarios(_ORDER)
            return resumed
        folder.create(self._chain_bind())
        self._created_at = datetime.now(UTC).isoformat(timespec="seconds")
        folder.write_manifest(self._base_manifest("running"))
        return []

    def _chain_bind(self) -> dict[str, str]:
        """What accepted.jsonl's digest chain is bound to: this run and its options (the
        options digest covers the output options, the seed's keyed fingerprint and the
        generator version)."""
        return {
            "run_id": self.folder.run_id,
            "options_digest": self.config.options_digest(self._fingerprint),
        }

    def _stopped(self, exc: UserError, kind: type[UserError]) -> UserError:
        kept = len(self.folder.accepted())
        return kind(
            f"{redact_text(exc.what)} (run {self.folder.run_id} stopped; {kept} accepted "
            f"scenarios are kept in {self.folder.path})",
            value=exc.value,
            options=exc.options,
            fix=(f"{redact_text(exc.fix)}; then " if exc.fix else "")
            + f"re-run the same command with {self.resume_hint}",
        )

    async def _run(self, asset: Any, resumed: list[AcceptedLine]) -> RunSummary:
        """The run in the order it happens: profile (the fleet snapshot loading beside it),
        budget and set-up, the domains, negatives, operate tasks, the store check, the
        files, then the summary and the manifest."""
        from generator.generate.run import stages

        cfg = self.config
        t_total = time.perf_counter()
        # The run's clocks for its critical path (generator.llm.timing.critical_path).
        path_start = (time.monotonic(), time.thread_time(), threading.get_ident())
        client = self._client()
        profile, snapshot_task = await self._profile(asset)
        started = self._manifest_at_start

        t = time.perf_counter()
        env = await stages.prepare(
            asset, profile, cfg, self.settings, client, live_store=self.live_store,
            snapshot_task=snapshot_task,
            on_budget=lambda budget, policies, llm: self._prefetch_open(
                profile, budget, policies, llm
            ),
        )
        self._env = env
        budget = env.budget
        if started is not None:
            check_budget(started, dict(budget.per_domain))
        self._timed("budget", t)
        self.folder.write_manifest(self._manifest(profile, budget, status="running"))
        for line in resumed:
            env.dedup.add(line.record.text, line.record.id, domain=line.domain)

        outcomes = await self._domains(env, resumed)
        t = time.perf_counter()
        negatives = await env.negatives(cfg.negatives, run_id=self.folder.run_id)
        self._timed("negatives", t)
        operate = await self._operate(asset, env)
        await env.verify_store()  # answers came from the snapshot: the store must not move

        t = time.perf_counter()
        self.folder.sync()
        self.folder.write_scenarios(_ORDER, durable=True)
        self.folder.write_records("negative_scenarios.json", negatives)
        self._timed("write", t)
        self._timed("total", t_total)

        summary = self._summary(outcomes, negatives, operate, budget.per_domain, client)
        manifest = self._manifest(profile, budget, status="complete")
        manifest.update(self._run_report(env, outcomes, summary, client, path_start))
        if operate is not None:
            manifest["counts"]["operate"] = {
                "requested": cfg.operate,
                "accepted": len(operate.records),
                "per_family": dict(sorted(Counter(r.family or "" for r in operate.records
                                                  ).items())),
                "gate_drops": dict(sorted(operate.drops.items())),
            }
        self.folder.write_manifest(manifest)
        return summary

    async def _profile(self, asset: Any) -> tuple[Any, asyncio.Future[Any] | None]:
        """The asset profile, and the fleet snapshot's loading task.

        The snapshot (store-bound, a worker thread) loads while the rest of the profile is
        built and the first LLM call is in flight: the draws wait for it, the LLM need not.
        It starts once the profile's own store queries are done (the store answers one
        request at a time, so reading both at once delays the profile)."""
        from generator.profile.build import build_profile

        cfg = self.config
        snapshot_task: asyncio.Future[Any] | None = None

        def start_snapshot() -> None:
            nonlocal snapshot_task
            if snapshot_task is None:
                snapshot_task = self._start_snapshot(asset)

        t = time.perf_counter()
        try:
            profile = await build_profile(
                cfg.asset_class,
                retriever=cfg.retriever,
                llm=None,
                settings=self.settings,
                use_cache=not cfg.baseline,
                on_grounded=start_snapshot,
            )
            start_snapshot()
            self._timed("profile", t)
            started = self._manifest_at_start
            if started is not None:
                check_fleet(started, profile.inventory.fingerprint)
        except BaseException:
            if snapshot_task is not None:
                snapshot_task.cancel()
            raise
        return profile, snapshot_task

    async def _domains(self, env: Any, resumed: list[AcceptedLine]) -> list[DomainOutcome]:
        """Every domain's accepted scenarios: the single domains in parallel, multi-agent
        last in the fan-out (or after them, on the baseline)."""
        cfg, budget = self.config, env.budget
        offsets, width = _id_offsets(budget.per_domain, cfg.n)
        by_domain: dict[str, list[AcceptedLine]] = {}
        for line in resumed:
            by_domain.setdefault(line.domain, []).append(line)
        self.folder.group_commit = not cfg.baseline
        batch_done = self._batch_writer()

        # LLM path: the single domains draw one at a time, the longest LLM chain first
        # (multi-agent draws wait for their parents' seeds, so they never take the gate).
        gate = PriorityGate()
        singles = [d for d in DOMAIN_ORDER if d != "multiagent"]
        ranks = draw_ranks(budget.per_domain, _parent_domains(env.families), singles)

        def job(domain: str) -> DomainJob:
            made = env.job(
                domain,
                folder=self.folder,
                id_offset=offsets[domain],
                id_width=width,
                resumed=by_domain.get(domain, []),
                progress=self.progress,
            )
            made.on_batch = batch_done
            if made.overlap_llm and env.snapshot is not None and domain in ranks:
                made.drawer = taking_turns(made.drawer, gate, ranks[domain])
            return made

        single = [
            d for d in DOMAIN_ORDER if d != "multiagent" and budget.per_domain.get(d, 0) > 0
        ]
        t = time.perf_counter()
        with_ma = budget.per_domain.get("multiagent", 0) > 0
        env.running.update(single)
        ma_started = t

        async def run_domain(domain: str) -> DomainOutcome:
            nonlocal ma_started
            if domain == "multiagent":
                ma_started = time.perf_counter()
                return await DomainRunner(job(domain)).run()
            try:
                return await DomainRunner(job(domain)).run()
            finally:
                await env.domain_finished(domain)

        # Multi-agent runs last in the fan-out (after its parents have started): it starts as
        # soon as a slot frees and waits for each parent seed it needs (the stream of
        # distinct tasks is the same whenever it starts). The baseline runs it after the
        # single domains, one domain at a time.
        early_ma = with_ma and not cfg.baseline
        outcomes: list[DomainOutcome] = await fan_out(
            single + (["multiagent"] if early_ma else []), run_domain,
            limit=1 if cfg.baseline else cfg.concurrency,
        )
        self._timed("domains", t)
        for out in outcomes:
            self.timings[f"domain_{out.domain}"] = round(out.seconds, 4)
        if early_ma:
            self.timings["multiagent"] = round(time.perf_counter() - ma_started, 4)
        elif with_ma:
            t = time.perf_counter()
            outcomes.append(await DomainRunner(job("multiagent")).run())
            self._timed("multiagent", t)
        return outcomes

    def _batch_writer(self) -> Callable[[], Awaitable[None]]:
        """What a domain does after each batch: one fsync (in a worker thread, not one per
        line on the loop), and scenarios.json rewritten once the records have grown by a
        tenth since its last rewrite: linear in all (a rewrite per batch was quadratic,
        ~20 % of a 10 000-scenario run); the end of the run writes it whole."""
        written = self.folder.records_held  # records in scenarios.json so far

        async def batch_done() -> None:
            nonlocal written
            await to_thread(self.folder.sync)
            held = self.folder.records_held
            if held > written and held >= written + written // SCENARIOS_GROWTH:
                self.folder.write_scenarios(_ORDER)
                written = held

        return batch_done

    async def _operate(self, asset: Any, env: Any) -> Any:
        """The run's operate tasks (``--operate K``), None without."""
        cfg = self.config
        if not cfg.operate:
            return None
        from generator.generate.run.operate_stage import run_operate

        t = time.perf_counter()
        operate = await run_operate(
            self.folder, asset, env.family_ctx.tools.store, cfg.operate, cfg.seed,
            self._chain_bind(), manifest=self._manifest_at_start, progress=self.progress,
            notice=self.notice,
        )
        self._timed("operate", t)
        return operate

    def _summary(
        self, outcomes: list[DomainOutcome], negatives: list[Any], operate: Any,
        budget: dict[str, int], client: Any,
    ) -> RunSummary:
        cfg = self.config
        shortfalls = [
            Shortfall(domain=o.domain, requested=o.requested, accepted=o.accepted, reason=o.reason)
            for o in outcomes
            if o.accepted < o.requested
        ]
        if operate is not None and len(operate.records) < cfg.operate:
            drops = ", ".join(f"{k} {v}" for k, v in sorted(operate.drops.items())) or "none"
            shortfalls.append(Shortfall(
                domain="operate", requested=cfg.operate, accepted=len(operate.records),
                reason=f"the operate families' draws ran out (gate drops: {drops})"))
        return RunSummary(
            run_id=self.folder.run_id,
            path=str(self.folder.path),
            requested=cfg.n,
            accepted={o.domain: o.accepted for o in outcomes},
            budget=dict(budget),
            negatives=len(negatives),
            operate=len(operate.records) if operate is not None else 0,
            rejected=self.folder.rejected_count(),
            shortfalls=shortfalls,
            timings=self.timings,
            tokens=client.usage if client is not None else {},
        )

    def _run_report(
        self, env: Any, outcomes: list[DomainOutcome], summary: RunSummary, client: Any,
        path_start: tuple[float, float, int],
    ) -> dict[str, Any]:
        """The finished run's part of the manifest: counts, language, difficulty, families,
        shortfalls, timings, tokens and the LLM timing with its critical path."""
        from generator.generate.run import stages
        from generator.llm.timing import critical_path, llm_timing

        cfg = self.config
        accepted = self.folder.lines_held  # for the four reports below
        timings = client.timings if client is not None else []
        return {
            "counts": {
                "requested": cfg.n,
                "accepted": summary.total,
                "per_domain": summary.accepted,
                "negatives": summary.negatives,
                "rejected_lines": summary.rejected,
                "candidates": {o.domain: o.candidates for o in outcomes},
                "ambiguous_draws": {o.domain: o.ambiguous for o in outcomes},
                # draws the as-of gate refused (generator.generate.draw.asof), all families
                "after_as_of_refused": sum(
                    per.get(AFTER_AS_OF, 0) for per in env.family_ctx.gate_drops.values()
                ),
                "repeated_tasks": {o.domain: o.repeats for o in outcomes},
                "repaired": {o.domain: o.repaired for o in outcomes},
                "hard": {o.domain: o.hard for o in outcomes},
                "passed_over_for_hard_share": {o.domain: o.mix_skipped for o in outcomes},
                "passed_over_for_open_share": {o.domain: o.open_skipped for o in outcomes},
                "open_scenarios": stages.open_report(
                    [ln.record for ln in accepted], env.policies
                ),
            },
            "language": language_stats([ln.record.text for ln in accepted]).model_dump(),
            "difficulty": difficulty_report(
                [ln.seed for ln in accepted if ln.seed is not None]
            ),
            "families": stages.outcome_report(
                [ln.seed for ln in accepted if ln.seed is not None],
                env.policies,
                env.family_ctx.gate_drops,
            ),
            "shortfalls": [s.model_dump() for s in summary.shortfalls],
            "timings": self.timings,
            "tokens": summary.tokens,
            "llm_timing": {
                **llm_timing(timings, self.timings.get("total", 0.0)),
                "critical_path": critical_path(
                    timings, start=path_start[0], end=time.monotonic(),
                    cpu_start=path_start[1], cpu_end=time.thread_time(), thread=path_start[2],
                ).report(),
            },
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    def _manifest(self, profile: Any, budget: Any, *, status: str) -> dict[str, Any]:
        manifest = self._base_manifest(status)
        manifest.update(
            profile={
                "cache_key": profile.provenance.cache_key,
                "generation_mode": profile.generation_mode,
                "inventory_fingerprint": profile.inventory.fingerprint,
                # The seeded fleet the references were computed on (spec, status,
                # fingerprint; None for a store we did not seed): exports' data spec.
                "fleet": self._fleet_marker(),
                "supported_domains": profile.supported,
                "timings": profile.provenance.timings,
            },
            budget=budget.model_dump(),
        )
        return manifest

    def _fleet_marker(self) -> dict[str, Any] | None:
        """The public part of the class's seed marker, or None (not ours, or not readable)."""
        from generator.store.couch import CouchClient, StoreForbidden
        from generator.store.seed import read_marker

        try:
            with CouchClient(self.settings) as client:
                marker = read_marker(client, self.config.asset_class, self.settings.db_prefix)
        except (StoreForbidden, StoreUnavailable):
            return None
        if marker is None:
            return None
        return {k: marker.get(k) for k in ("spec", "status", "fingerprint")}

    def _base_manifest(self, status: str) -> dict[str, Any]:
        import langchain_core
        import pydantic

        cfg = self.config
        return {
            "run_id": self.folder.run_id,
            "status": status,
            "asset_class": cfg.asset_class,
            "created_at": self._created_at or datetime.now(UTC).isoformat(timespec="seconds"),
            "config": cfg.public(),
            "options": cfg.output_options(),
            "options_digest": cfg.options_digest(self._fingerprint),
            "seed_fingerprint": self._fingerprint,
            "accepted_chain": self.folder.chain_entry(),
            "versions": {
                "scenariogen": __version__,
                "generator": GENERATOR_VERSION,
                "python": platform.python_version(),
                "pydantic": pydantic.VERSION,
                "langchain_core": getattr(langchain_core, "__version__", "?"),
            },
        }


def _parent_domains(families: dict[str, list[Any]]) -> set[str]:
    """Domains of the families the run's multi-agent families compose from."""
    from generator.generate.draw.families import FAMILIES

    return {
        FAMILIES.get(name).domain
        for spec in families.get("multiagent", [])
        for name in spec.compose_from
    }


def _id_offsets(per_domain: dict[str, int], n: int) -> tuple[dict[str, int], int]:
    """First id number of each domain, in domain order, so ids are stable at acceptance."""
    offsets: dict[str, int] = {}
    running = 0
    for domain in DOMAIN_ORDER:
        offsets[domain] = running
        running += per_domain.get(domain, 0)
    return offsets, max(2, len(str(max(n, running))))
