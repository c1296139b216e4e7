"""One domain's generation loop: draw seeds in batches, verbalise, vet, repair, accept.

Candidates form a deterministic stream per domain: candidate ``c`` is draw ``c // F`` of
family ``c % F`` (families sorted by name). Accepting in stream order makes the set a
function of the run seed, so a resumed run continues from the last accepted candidate and
ends with the same scenarios as an uninterrupted one.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from generator.concurrency import fan_out
from generator.generate.families import params_key
from generator.generate.model import (
    GENERATOR_VERSION,
    Draft,
    Rejection,
    ScenarioProvenance,
    ScenarioRecord,
    TaskSeed,
)
from generator.generate.run_folder import AcceptedLine, RunFolder
from generator.generate.verbalise_llm import LLMVerbaliser, VerbaliseFailure

if TYPE_CHECKING:
    from generator.generate.dedup import DedupIndex

Stage = Literal["verbalise", "early", "check"]
UUID_NAMESPACE = uuid.UUID("6f1c3c2e-5d2a-4f4e-9b8e-2a7d1e0c9b51")

Progress = Callable[[str, int, int], None]


class Drawer(Protocol):
    """Draws candidate ``c`` of a domain's stream (None: ambiguous or unavailable)."""

    async def __call__(self, domain: str, candidate: int) -> TaskSeed | None: ...


class Vetter(Protocol):
    """The checks, as the loop sees them: problems as ``check: reason`` strings."""

    async def early(self, seed: TaskSeed | None, draft: Draft, domain: str) -> list[str]: ...

    async def deterministic(
        self, seed: TaskSeed | None, draft: Draft, domain: str
    ) -> list[str]: ...


class TemplateWords(Protocol):
    """The template verbaliser: ``variant`` picks another phrasing (deterministic repair)."""

    def verbalise(self, seeds: list[TaskSeed], variant: int = 0) -> list[Draft]: ...


@dataclass
class DomainOutcome:
    """What a domain's loop ended with."""

    domain: str
    requested: int
    accepted: int
    candidates: int = 0
    ambiguous: int = 0
    repaired: int = 0
    rejected: int = 0
    seconds: float = 0.0
    reason: str = ""
    hard: int = 0
    mix_skipped: int = 0
    repeats: int = 0
    open: int = 0
    open_skipped: int = 0


@dataclass
class DomainJob:
    """Everything one domain's loop needs; shared objects are safe across domains."""

    asset_class: str
    domain: str
    quota: int
    id_offset: int
    id_width: int
    folder: RunFolder
    dedup: DedupIndex
    drawer: Drawer
    vetter: Vetter
    core_tools: dict[str, list[str]]
    template: TemplateWords
    llm: LLMVerbaliser | None
    model_label: str
    prompt_version: str
    batch_size: int
    max_repairs: int
    max_candidates: int
    early_rejection: bool = True
    min_hard: int = 0
    open_quota: int = 0
    open_target: int | None = None
    profile: Any = None
    resumed: list[AcceptedLine] = field(default_factory=list)
    progress: Progress | None = None
    on_accept: Callable[[AcceptedLine], Awaitable[None]] | None = None
    on_batch: Callable[[], Awaitable[None]] | None = None


def scenario_uuid(asset_class: str, seed: TaskSeed | None, text: str) -> str:
    """UUID5 of what identifies a scenario: asset class, family, parameters and text."""
    family = seed.family if seed else "open"
    params = json.dumps(seed.params if seed else {}, sort_keys=True, default=str)
    return str(uuid.uuid5(UUID_NAMESPACE, f"{asset_class}|{family}|{params}|{text}"))


def make_record(
    job: DomainJob, slot: int, seed: TaskSeed | None, draft: Draft, batch: int, attempts: int
) -> ScenarioRecord:
    """The AssetOpsBench record with our extra fields."""
    return ScenarioRecord(
        id=f"{job.asset_class}_scenario_{job.id_offset + slot + 1:0{job.id_width}d}",
        type=job.domain,
        text=draft.text,
        category=draft.category,
        characteristic_form=draft.characteristic_form,
        deterministic=seed.deterministic if seed else False,
        uuid=scenario_uuid(job.asset_class, seed, draft.text),
        asset_class=job.asset_class,
        difficulty=seed.difficulty if seed else "medium",
        expected_tools=seed.expected_tools if seed else job.core_tools.get(job.domain, []),
        tool_sequence=seed.tool_sequence if seed else [],
        reference_answer=seed.answer if seed else None,
        tolerance=seed.tolerance if seed else {},
        rel_tolerance=seed.rel_tolerance if seed else {},
        family=seed.family if seed else None,
        grounding=seed.grounding if seed else {},
        rubric=seed.rubric if seed else None,
        provenance=ScenarioProvenance(
            generator_version=GENERATOR_VERSION,
            run_id=job.folder.run_id,
            verbaliser=draft.verbaliser,
            model=job.model_label,
            prompt_version=job.prompt_version,
            batch=batch,
            attempts=attempts,
            family=seed.family if seed else None,
            draw=seed.draw if seed else None,
            outcome=seed.outcome if seed else None,
            nontrivial=seed.nontrivial if seed else None,
            readings=seed.readings if seed else [],
            surfaces=dict(draft.surfaces),
            difficulty_score=seed.difficulty_score if seed else None,
            difficulty_features=dict(seed.difficulty_features) if seed else {},
        ),
    )


class DomainRunner:
    """Runs one :class:`DomainJob` to its quota or its candidate bound."""

    def __init__(self, job: DomainJob) -> None:
        self.job = job
        self.out = DomainOutcome(
            job.domain,
            job.quota,
            accepted=len(job.resumed),
            hard=sum(line.record.difficulty == "hard" for line in job.resumed),
            open=sum(not line.record.deterministic for line in job.resumed),
        )
        self.cursor = max((line.cursor for line in job.resumed), default=-1) + 1
        self._last: AcceptedLine | None = None
        # Tasks already accepted (family + parameters): the same task in other words is a
        # duplicate however its text differs.
        self.tasks = {params_key(ln.seed) for ln in job.resumed if ln.seed is not None}

    def _reject(
        self, seed_key: str | None, stage: Stage, reasons: list[str], raw: str, attempt: int
    ) -> None:
        self.out.rejected += 1
        self.job.folder.reject(
            Rejection(
                domain=self.job.domain,
                seed_key=seed_key,
                stage=stage,
                reasons=reasons or ["unknown: no reason given"],
                raw=raw,
                attempt=attempt,
            )
        )

    async def _problems(self, seed: TaskSeed | None, draft: Draft) -> tuple[Stage, list[str]]:
        job = self.job
        if job.early_rejection:
            early = await job.vetter.early(seed, draft, job.domain)
            if early:
                return "early", early
        return "check", await job.vetter.deterministic(seed, draft, job.domain)

    async def _redo(
        self, seed: TaskSeed, draft: Draft | None, problems: list[str], attempt: int
    ) -> Draft | VerbaliseFailure:
        """Repair: the LLM gets the reasons; the template path takes its next phrasing."""
        job = self.job
        if job.llm is not None:
            return await job.llm.repair(seed, draft, problems, job.core_tools.get(job.domain, []))
        return job.template.verbalise([seed], variant=attempt - 1)[0]

    async def vet(
        self, seed: TaskSeed, first: Draft | VerbaliseFailure, attempt: int = 1
    ) -> tuple[Draft, int] | None:
        """Check a draft; repair it until attempt R + 1; return the passing draft and attempts."""
        draft: Draft | None = None
        stage: Stage
        while True:
            if isinstance(first, VerbaliseFailure):
                stage, problems, raw = "verbalise", [f"verbalise: {first.reason}"], first.raw
            else:
                draft = first
                stage, problems = await self._problems(seed, draft)
                raw = draft.text
                if not problems:
                    if attempt > 1:
                        self.out.repaired += 1
                    return draft, attempt
            self._reject(seed.key, stage, problems, raw, attempt)
            if attempt > self.job.max_repairs:
                return None
            attempt += 1
            first = await self._redo(seed, draft, problems, attempt)

    async def _accept_unique(
        self, seed: TaskSeed, draft: Draft, attempts: int
    ) -> tuple[Draft, int] | None:
        """Claim the text in the run-wide dedup index; a near-duplicate goes back to repair.

        The early check saw only scenarios accepted before this batch; the claim here is
        atomic across domains, so two racing candidates cannot both be accepted.
        """
        job = self.job
        while True:
            ok, nearest, score = job.dedup.check_and_add(draft.text, seed.key)
            if ok:
                return draft, attempts
            reasons = [f"near_duplicate: similarity {score:.2f} to {nearest}"]
            self._reject(seed.key, "check", reasons, draft.text, attempts)
            if attempts > job.max_repairs:
                return None
            redo = await self._redo(seed, draft, reasons, attempts + 1)
            outcome = await self.vet(seed, redo, attempt=attempts + 1)
            if outcome is None:
                return None
            draft, attempts = outcome

    async def _words(self, seeds: list[TaskSeed]) -> list[Draft | VerbaliseFailure]:
        job = self.job
        if job.llm is None:
            return list(job.template.verbalise(seeds))
        llm = job.llm
        chunks = [seeds[i : i + job.batch_size] for i in range(0, len(seeds), job.batch_size)]
        # The batches of one round go out together (the client's semaphore bounds the calls
        # in flight); replies are kept in seed order.
        replies = await fan_out(
            chunks, lambda chunk: llm.verbalise(chunk, job.core_tools), limit=len(chunks)
        )
        return [draft for reply in replies for draft in reply]

    def _write(
        self, cursor: int, seed: TaskSeed | None, draft: Draft, batch: int, attempts: int
    ) -> None:
        job = self.job
        record = make_record(job, self.out.accepted, seed, draft, batch, attempts)
        line = AcceptedLine(
            domain=job.domain, slot=self.out.accepted, cursor=cursor, record=record, seed=seed
        )
        job.folder.accept(line)
        self.out.accepted += 1
        self.out.hard += record.difficulty == "hard"
        self.out.open += not record.deterministic
        self._last = line

    def _mix_applies(self, candidate: int) -> bool:
        """True while the policy's hard share may pass over an easier candidate."""
        return candidate < self.job.max_candidates // 2

    def _open_full(self, seed: TaskSeed, candidate: int) -> bool:
        """True when the policy's open share leaves no slot for a seed of this kind.

        With ``open_target`` (the policy's ``open_family_share`` of the quota), open seeds
        fill at most that many slots and deterministic ones the rest, over the first half of
        the candidate bound (as the hard share); after it any seed fills the quota, so a
        domain whose open families run dry falls short of the share, not of its quota.
        """
        job = self.job
        if job.open_target is None or not self._mix_applies(candidate):
            return False
        if seed.deterministic:
            return self.out.accepted - self.out.open >= job.quota - job.open_target
        return self.out.open >= job.open_target

    async def open_phase(self) -> None:
        """Open (non-deterministic) scenarios from the LLM: checked, never repaired.

        Whatever they do not fill, seeded scenarios fill after them.
        """
        job = self.job
        if job.llm is None or job.open_quota <= 0 or job.profile is None:
            return
        if any(line.seed is None for line in job.resumed):
            return  # done before the interruption
        tools = job.core_tools.get(job.domain, [])
        drafts = await job.llm.open_scenarios(job.profile, job.domain, job.open_quota, tools)
        if isinstance(drafts, VerbaliseFailure):
            reasons = [f"verbalise: {drafts.reason}"]
            self._reject(drafts.seed_key, "verbalise", reasons, drafts.raw, 1)
            return
        for draft in drafts:
            stage, problems = await self._problems(None, draft)
            if not problems:
                ok, nearest, score = job.dedup.check_and_add(draft.text, draft.seed_key)
                if not ok:
                    stage, problems = "check", [f"near_duplicate: {score:.2f} to {nearest}"]
            if problems:
                self._reject(draft.seed_key, stage, problems, draft.text, 1)
                continue
            self._write(-1, None, draft, 0, 1)
            await self._announce()

    async def _announce(self) -> None:
        job = self.job
        if job.on_accept is not None and self._last is not None:
            await job.on_accept(self._last)
        if job.progress is not None:
            job.progress(job.domain, self.out.accepted, job.quota)

    async def run(self) -> DomainOutcome:
        """Fill the quota in stream order; never raises for a shortfall."""
        job = self.job
        started = time.perf_counter()
        batch_no = 0
        await self.open_phase()
        while self.out.accepted < job.quota and self.cursor < job.max_candidates:
            batch_no += 1
            need = job.quota - self.out.accepted
            width = min(max(job.batch_size, need), job.max_candidates - self.cursor)
            candidates = list(range(self.cursor, self.cursor + width))
            self.cursor += width
            self.out.candidates += width
            drawn = await fan_out(
                candidates, lambda c: job.drawer(job.domain, c), limit=job.batch_size
            )
            live = [(c, s) for c, s in zip(candidates, drawn, strict=True) if s is not None]
            self.out.ambiguous += width - len(live)
            fresh = [(c, s) for c, s in live if params_key(s) not in self.tasks]
            self.out.repeats += len(live) - len(fresh)
            live = fresh
            # Once no slot is left for an easier seed it never comes back (accepting only
            # lowers the count), so those seeds are passed over before they are verbalised.
            # The hard share is pursued over the first half of the candidate bound only:
            # difficulty is scored from the work, and a domain whose families hold few hard
            # tasks then fills its quota instead of falling short (a function of the
            # candidate index, so a resumed run decides as an uninterrupted one).
            if job.quota - job.min_hard - (self.out.accepted - self.out.hard) <= 0:
                hard = [(c, s) for c, s in live
                        if s.difficulty == "hard" or not self._mix_applies(c)]
                self.out.mix_skipped += len(live) - len(hard)
                live = hard
            kept = [(c, s) for c, s in live if not self._open_full(s, c)]
            self.out.open_skipped += len(live) - len(kept)
            live = kept
            if not live:
                continue
            drafts = await self._words([s for _, s in live])
            vetted = await fan_out(
                list(zip(live, drafts, strict=True)),
                lambda item: self.vet(item[0][1], item[1]),
                limit=job.batch_size,
            )
            for (cand, seed), outcome in zip(live, vetted, strict=True):
                if outcome is None or self.out.accepted >= job.quota:
                    continue
                if params_key(seed) in self.tasks:  # the same task earlier in this batch
                    self.out.repeats += 1
                    continue
                easier_left = job.quota - job.min_hard - (self.out.accepted - self.out.hard)
                if seed.difficulty != "hard" and easier_left <= 0 and self._mix_applies(cand):
                    self.out.mix_skipped += 1  # the policy's hard share needs this slot
                    continue
                if self._open_full(seed, cand):
                    self.out.open_skipped += 1  # the other kind (open or not) needs the slot
                    continue
                unique = await self._accept_unique(seed, *outcome)
                if unique is None:
                    continue
                draft, attempts = unique
                self.tasks.add(params_key(seed))
                self._write(cand, seed, draft, batch_no, attempts)
                await self._announce()
            if job.on_batch is not None:
                await job.on_batch()  # e.g. scenarios.json follows accepted.jsonl
        self.out.seconds = time.perf_counter() - started
        if self.out.accepted < job.quota:
            self.out.reason = (
                f"{self.out.candidates} candidates tried (bound {job.max_candidates}): "
                f"{self.out.ambiguous} ambiguous or unavailable draws, "
                f"{self.out.repeats} repeats of accepted tasks, "
                f"{self.out.rejected} rejections, {self.out.mix_skipped} passed over for the "
                f"hard share, {self.out.open_skipped} for the open share"
            )
        return self.out
