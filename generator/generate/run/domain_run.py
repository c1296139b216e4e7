"""One domain's generation loop: draw seeds in batches, verbalise, vet, repair, accept.

Candidates form a deterministic stream per domain: candidate ``c`` is draw ``c // F`` of
family ``c % F`` (families sorted by name). Accepting in stream order makes the set a
function of the run seed, so a resumed run continues from the last accepted candidate and
ends with the same scenarios as an uninterrupted one.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from generator.concurrency import fan_out
from generator.contract import record_contract
from generator.generate.draw.families import params_key
from generator.generate.model import (
    GENERATOR_VERSION,
    Draft,
    Rejection,
    ScenarioProvenance,
    ScenarioRecord,
    TaskSeed,
)
from generator.generate.run.run_folder import AcceptedLine, RunFolder
from generator.generate.verbalise.verbalise_llm import LLMVerbaliser, VerbaliseFailure
from generator.llm.timing import join

if TYPE_CHECKING:
    from generator.generate.checks.dedup import DedupIndex

Stage = Literal["verbalise", "early", "check"]
UUID_NAMESPACE = uuid.UUID("6f1c3c2e-5d2a-4f4e-9b8e-2a7d1e0c9b51")

Progress = Callable[[str, int, int], None]

# With ``DomainJob.overlap_llm``: spare candidates verbalised per needed one (rounded up to
# whole batches), so a few rejected drafts do not cost a repair round.
SPARE_SHARE = 0.25


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
    # Whether candidate ``c``'s family is deterministic (known before drawing it): with an
    # ``open_target``, a candidate whose kind has no slot left is passed over undrawn.
    kind: Callable[[int], bool] | None = None
    resumed: list[AcceptedLine] = field(default_factory=list)
    progress: Progress | None = None
    on_accept: Callable[[AcceptedLine], Awaitable[None]] | None = None
    on_batch: Callable[[], Awaitable[None]] | None = None
    # The LLM path's critical path (off in --baseline and on the template path): the open
    # call overlaps the first batch, batches carry spares (SPARE_SHARE, whole batches) and
    # rejected drafts are repaired only when the batch's passing drafts fall short.
    overlap_llm: bool = False
    # Seeds per verbalise call on the overlap_llm path (None: batch_size): a batch's seeds
    # spread over concurrent calls up to the endpoint's limit, ceil(batch_size / L) each
    # (L = LLMClient.parallel_calls): under a per-token cost a 10-seed reply is ~10× as
    # long as a 1-seed one, so one big call puts its whole length on the critical path.
    call_size: int | None = None


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
        answer_contract=record_contract(seed.family if seed else None, draft.text),
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
        # Rejected first drafts held for a repair only a shortfall asks for (overlap_llm).
        self._held: dict[str, tuple[Draft | None, list[str], int]] = {}

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
        self, seed: TaskSeed, first: Draft | VerbaliseFailure, attempt: int = 1,
        *, hold: bool = False,
    ) -> tuple[Draft, int] | None:
        """Check a draft; repair it until attempt R + 1; return the passing draft and attempts.

        With ``hold`` a rejected draft is not repaired yet: it is kept for
        :meth:`_repair_held` and None is returned.
        """
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
            if hold:
                self._held[seed.key] = (draft, problems, attempt)
                return None
            attempt += 1
            first = await self._redo(seed, draft, problems, attempt)

    async def _repair_held(self, seed: TaskSeed) -> tuple[Draft, int] | None:
        """Repair a draft :meth:`vet` held (None when none is held for the seed)."""
        held = self._held.pop(seed.key, None)
        if held is None:
            return None
        draft, problems, attempt = held
        redo = await self._redo(seed, draft, problems, attempt + 1)
        return await self.vet(seed, redo, attempt + 1)

    def _fills(
        self, live: list[tuple[int, TaskSeed]], vetted: list[tuple[Draft, int] | None]
    ) -> bool:
        """True when the passing drafts alone fill the quota (the acceptance loop's rules:
        stream order, no repeated task, the hard share; a dedup clash is not foreseen)."""
        job = self.job
        accepted, hard, tasks = self.out.accepted, self.out.hard, set(self.tasks)
        for (cand, seed), outcome in zip(live, vetted, strict=True):
            if outcome is None or params_key(seed) in tasks:
                continue
            easier_left = job.quota - job.min_hard - (accepted - hard)
            if seed.difficulty != "hard" and easier_left <= 0 and self._mix_applies(cand):
                continue
            tasks.add(params_key(seed))
            accepted += 1
            hard += seed.difficulty == "hard"
        return accepted >= job.quota

    async def _vet_batch(
        self, live: list[tuple[int, TaskSeed]], drafts: list[Draft | VerbaliseFailure]
    ) -> list[tuple[Draft, int] | None]:
        """Vet a batch's drafts; repairs at once, or (overlap_llm) only on a shortfall."""
        job = self.job
        items = list(zip(live, drafts, strict=True))
        if not job.overlap_llm:
            return await fan_out(
                items, lambda item: self.vet(item[0][1], item[1]), limit=job.batch_size
            )
        vetted = await fan_out(
            items, lambda item: self.vet(item[0][1], item[1], hold=True), limit=job.batch_size
        )
        if not self._fills(live, vetted):
            redo = [i for i, (_, seed) in enumerate(live) if seed.key in self._held]
            repaired = await fan_out(
                redo, lambda i: self._repair_held(live[i][1]), limit=len(redo) or None
            )
            for i, outcome in zip(redo, repaired, strict=True):
                vetted[i] = outcome
        self._held.clear()
        return vetted

    async def _accept_unique(
        self, seed: TaskSeed, draft: Draft, attempts: int
    ) -> tuple[Draft, int] | None:
        """Claim the text in the run-wide dedup index; a near-duplicate goes back to repair.

        The early check saw only scenarios accepted before this batch; the claim here is
        atomic across domains, so two racing candidates cannot both be accepted.
        """
        job = self.job
        while True:
            ok, nearest, score = job.dedup.check_and_add(
                draft.text, seed.key, domain=seed.domain)
            if ok:
                return draft, attempts
            reasons = [f"near_duplicate: similarity {score:.2f} to {nearest}"]
            self._reject(seed.key, "check", reasons, draft.text, attempts)
            if attempts > job.max_repairs or job.overlap_llm:
                # overlap_llm: the batch's spare drafts (or, short of them, the next batch,
                # one round like a repair) fill the slot instead of a chain of repairs.
                return None
            redo = await self._redo(seed, draft, reasons, attempts + 1)
            outcome = await self.vet(seed, redo, attempt=attempts + 1)
            if outcome is None:
                return None
            draft, attempts = outcome

    def _keeper(self) -> Callable[[int, TaskSeed | None], bool]:
        """The filter a batch's draws pass before they are verbalised (counts the rest).

        Ambiguous or unavailable draws and repeats of accepted tasks are dropped. Once no
        slot is left for an easier seed it never comes back (accepting only lowers the
        count), so those seeds are passed over before they are verbalised. The hard share is
        pursued over the first half of the candidate bound only: difficulty is scored from
        the work, and a domain whose families hold few hard tasks then fills its quota
        instead of falling short (a function of the candidate index, so a resumed run
        decides as an uninterrupted one).
        """
        job = self.job
        hard_only = job.quota - job.min_hard - (self.out.accepted - self.out.hard) <= 0

        def keep(cand: int, seed: TaskSeed | None) -> bool:
            if seed is None:
                self.out.ambiguous += 1
                return False
            if params_key(seed) in self.tasks:
                self.out.repeats += 1
                return False
            if hard_only and seed.difficulty != "hard" and self._mix_applies(cand):
                self.out.mix_skipped += 1
                return False
            if self._open_full(seed.deterministic, cand):
                self.out.open_skipped += 1  # the other kind (open or not) needs the slot
                return False
            return True

        return keep

    def _worth_drawing(self, candidates: list[int]) -> list[int]:
        """``candidates`` without those of a kind (open or deterministic, known from the
        family before the draw) whose slots are full: :meth:`_keeper` would pass their seeds
        over whatever they are, and accepting only fills slots, so the result is the same
        without the cost of the draw. Counted as passed over for the open share."""
        kind = self.job.kind
        if kind is None or self.job.open_target is None:
            return candidates
        kept = []
        for cand in candidates:
            if self._open_full(kind(cand), cand):
                self.out.open_skipped += 1
            else:
                kept.append(cand)
        return kept

    async def _draw_then_word(
        self, candidates: list[int]
    ) -> tuple[list[tuple[int, TaskSeed]], list[Draft | VerbaliseFailure]]:
        """Draw the whole batch, filter it, then verbalise it (template path, baseline)."""
        job = self.job
        candidates = self._worth_drawing(candidates)
        drawn = await fan_out(
            candidates, lambda c: job.drawer(job.domain, c), limit=job.batch_size
        )
        keep = self._keeper()
        live = [
            (c, s) for c, s in zip(candidates, drawn, strict=True) if keep(c, s) and s is not None
        ]
        if not live:
            return [], []
        return live, await self._words([s for _, s in live])

    async def _draw_and_word(
        self, candidates: list[int]
    ) -> tuple[list[tuple[int, TaskSeed]], list[Draft | VerbaliseFailure]]:
        """Draw and verbalise at once: each LLM call goes out as soon as its batch of kept
        seeds is drawn, while the later candidates are still being drawn."""
        job = self.job
        llm = job.llm
        assert llm is not None
        gate = asyncio.Semaphore(job.batch_size)

        async def draw(c: int) -> TaskSeed | None:
            async with gate:
                return await job.drawer(job.domain, c)

        keep = self._keeper()
        candidates = self._worth_drawing(candidates)
        draws = [asyncio.create_task(draw(c)) for c in candidates]
        calls: list[asyncio.Task[list[Draft | VerbaliseFailure]]] = []
        live: list[tuple[int, TaskSeed]] = []
        pending: list[TaskSeed] = []
        try:
            for cand, task in zip(candidates, draws, strict=True):
                seed = await task
                join([task])  # a composed seed depends on its parent's acceptance calls
                if not keep(cand, seed):
                    continue
                assert seed is not None
                live.append((cand, seed))
                pending.append(seed)
                if len(pending) == (job.call_size or job.batch_size):
                    calls.append(asyncio.create_task(llm.verbalise(pending, job.core_tools)))
                    pending = []
            if pending:
                calls.append(asyncio.create_task(llm.verbalise(pending, job.core_tools)))
            replies = await asyncio.gather(*calls)
            join(calls)
        finally:
            for t in (*draws, *calls):
                if not t.done():
                    t.cancel()
        return live, [draft for reply in replies for draft in reply]

    async def _words(self, seeds: list[TaskSeed]) -> list[Draft | VerbaliseFailure]:
        job = self.job
        if job.llm is None:
            return list(job.template.verbalise(seeds))
        llm = job.llm
        chunks = [seeds[i : i + job.batch_size] for i in range(0, len(seeds), job.batch_size)]
        # --baseline (the naive path): one call after another; replies in seed order.
        replies = await fan_out(
            chunks, lambda chunk: llm.verbalise(chunk, job.core_tools), limit=1
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

    def _open_full(self, deterministic: bool, candidate: int) -> bool:
        """True when the policy's open share leaves no slot for a seed of this kind
        (``deterministic`` or open).

        With ``open_target`` (the policy's ``open_family_share`` of the quota), open seeds
        fill at most that many slots and deterministic ones the rest, over the first half of
        the candidate bound (as the hard share); after it any seed fills the quota, so a
        domain whose open families run dry falls short of the share, not of its quota.
        """
        job = self.job
        if job.open_target is None or not self._mix_applies(candidate):
            return False
        if deterministic:
            return self.out.accepted - self.out.open >= job.quota - job.open_target
        return self.out.open >= job.open_target

    async def open_phase(self) -> None:
        """Open (non-deterministic) scenarios from the LLM: checked, never repaired.

        Whatever they do not fill, seeded scenarios fill after them.
        """
        if self._opens():
            await self._take_open(await self._ask_open())

    def _opens(self) -> bool:
        """True when this run asks the LLM for open scenarios."""
        job = self.job
        if job.llm is None or job.open_quota <= 0 or job.profile is None:
            return False
        return not any(line.seed is None for line in job.resumed)  # done before a resume

    async def _ask_open(self) -> list[Draft] | VerbaliseFailure:
        job = self.job
        assert job.llm is not None
        tools = job.core_tools.get(job.domain, [])
        return await job.llm.open_scenarios(job.profile, job.domain, job.open_quota, tools)

    async def _take_open(self, drafts: list[Draft] | VerbaliseFailure) -> None:
        """Check and accept the open drafts (before any seeded scenario of the batch)."""
        job = self.job
        if isinstance(drafts, VerbaliseFailure):
            reasons = [f"verbalise: {drafts.reason}"]
            self._reject(drafts.seed_key, "verbalise", reasons, drafts.raw, 1)
            return
        for draft in drafts:
            stage, problems = await self._problems(None, draft)
            if not problems:
                ok, nearest, score = job.dedup.check_and_add(
                    draft.text, draft.seed_key, domain=job.domain)
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
        opening: asyncio.Task[list[Draft] | VerbaliseFailure] | None = None
        if job.overlap_llm and self._opens():
            # The open call is in flight while the first batch is drawn and verbalised; its
            # drafts are taken (first, as in open_phase) before the batch's are accepted.
            opening = asyncio.create_task(self._ask_open())
        else:
            await self.open_phase()
        try:
            await self._seeded(opening)
        finally:
            if opening is not None and not opening.done():
                opening.cancel()
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

    def _width(self, need: int) -> int:
        """Candidates drawn for a batch that needs ``need`` more scenarios."""
        job = self.job
        if job.overlap_llm:
            spared = need + math.ceil(need * SPARE_SHARE)
            width = math.ceil(spared / job.batch_size) * job.batch_size
        else:
            width = max(job.batch_size, need)
        return min(width, job.max_candidates - self.cursor)

    async def _seeded(
        self, opening: asyncio.Task[list[Draft] | VerbaliseFailure] | None
    ) -> None:
        """Seeded scenarios in stream order until the quota or the candidate bound."""
        job = self.job
        batch_no = 0
        reserved = job.open_quota if opening is not None else 0
        while self.out.accepted < job.quota and self.cursor < job.max_candidates:
            batch_no += 1
            need = max(1, job.quota - self.out.accepted - reserved)
            width = self._width(need)
            candidates = list(range(self.cursor, self.cursor + width))
            self.cursor += width
            self.out.candidates += width
            if job.overlap_llm and job.llm is not None:
                live, drafts = await self._draw_and_word(candidates)
            else:
                live, drafts = await self._draw_then_word(candidates)
            if not live:
                continue
            if opening is not None:
                opened = await opening
                join([opening])
                await self._take_open(opened)
                opening, reserved = None, 0
            vetted = await self._vet_batch(live, drafts)
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
                if self._open_full(seed.deterministic, cand):
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
        if opening is not None:  # no batch was verbalised: the open drafts still count
            opened = await opening
            join([opening])
            await self._take_open(opened)
