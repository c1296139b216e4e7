"""The operate stage of a generation run (``generate --operate K``): draw, keep, resume.

Each accepted operate record is appended, with the draw loop's state after it
(:class:`~generator.generate.draw.operate_run.OperateLine`), to ``operate_accepted.jsonl`` in the
run folder before the next draw: written and flushed like ``accepted.jsonl``, its lines
sealed by a digest chain of their own (the run's chain nonce, bound to the run id, the
options digest and the stream name ``operate``), so a line edited by hand or copied from
another run is refused on resume. A resumed run verifies the lines, cuts a torn last line
(its record is drawn again), and goes on from the last line's state: finished records are
not drawn again and the records are those of an uninterrupted run with the same seed.
``operate_scenarios.json`` (the record list, same format as ``scenarios.json``) is written
at the end of the run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from generator.concurrency import to_thread
from generator.generate.draw.operate_run import OperateLine, OperateRun, draw_operate
from generator.generate.run.run_chain import AcceptedChain, chain_of, tampered, unverifiable
from generator.generate.run.run_folder import RunFolder
from generator.safeparse import FILE
from generator.userfile import read_bytes

LINES = "operate_accepted.jsonl"
RECORDS = "operate_scenarios.json"
STREAM = {"stream": "operate"}


def _bind(bind: Mapping[str, str]) -> dict[str, str]:
    return {**bind, **STREAM}


def resumed_lines(folder: RunFolder, manifest: Mapping[str, Any], bind: Mapping[str, str]
                  ) -> tuple[list[OperateLine], list[str], AcceptedChain | None]:
    """The verified lines of ``operate_accepted.jsonl``, one notice per line cut, and the
    chain moved past the lines (None: no file).

    Raises:
        UserError: A line that does not verify (names it and how to keep those before it).
    """
    path = folder.path / LINES
    if not path.exists():
        return [], [], None
    data = read_bytes(path, "run file", max_bytes=FILE.max_bytes)
    chain = chain_of(manifest, _bind(bind))
    out: list[OperateLine] = []
    offset = 0
    rows = data.split(b"\n")
    last = max((i for i, r in enumerate(rows) if r.strip()), default=-1)
    for i, raw in enumerate(rows):
        start, offset = offset, offset + len(raw) + 1
        if not raw.strip():
            continue
        try:
            line: OperateLine | None = OperateLine.model_validate_json(raw)
        except ValidationError:
            line = None
        torn = i == len(rows) - 1  # no newline after it: the write was cut short
        if i == last and (torn or line is None):
            with path.open("r+b") as fh:  # the write a kill interrupted: redraw its record
                fh.truncate(start)
                fh.flush()
                os.fsync(fh.fileno())
            return out, [f"{path}: dropped a torn last line ({len(raw)} bytes); its operate "
                         "record is drawn again"], chain
        if chain is None:
            raise unverifiable(manifest, path, raw)
        if line is None or not chain.check(raw):
            raise tampered(manifest, path, i + 1)
        out.append(line)
    return out, [], chain


async def run_operate(
    folder: RunFolder,
    asset: Any,
    store: Any,
    n: int,
    seed: int,
    bind: Mapping[str, str],
    *,
    manifest: Mapping[str, Any] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> OperateRun:
    """Draw the run's ``n`` operate records (resuming the folder's lines when ``manifest`` is
    the resumed run's) and write ``operate_scenarios.json``.

    Args:
        folder: The run folder (its digest chain started or resumed).
        asset: The asset class.
        store: The fleet the families read (the run's snapshot or the live store).
        n: Operate records wanted.
        seed: The run seed.
        bind: What the run's accepted chain is bound to (run id, options digest).
        manifest: The manifest of the run being resumed (None: a new run).
        progress: Called with ("operate", accepted, n) after each record.
        notice: Gets one line per torn line cut.
    """
    resumed: list[OperateLine] = []
    chain: AcceptedChain | None = None
    if manifest is not None:
        resumed, notes, chain = resumed_lines(folder, manifest, bind)
        for note in notes:
            if notice is not None:
                notice(note)
    if chain is None:
        chain = AcceptedChain(folder.chain_entry()["nonce"], _bind(bind))

    async def keep(line: OperateLine) -> None:
        folder.append(LINES, line.model_dump_json().encode(), chain=chain)
        await to_thread(folder.sync)
        if progress is not None:
            progress("operate", line.index + 1, n)

    run = await draw_operate(asset.asset_class, list(asset.tools), store, n, seed,
                             folder.run_id, resumed=resumed, on_accept=keep)
    folder.write_records(RECORDS, run.records)
    return run
