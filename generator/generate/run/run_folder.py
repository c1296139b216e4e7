"""The run folder ``<out>/<run_id>/``: written as scenarios are accepted, read on resume.

Files:
- ``accepted.jsonl``: one line per accepted scenario (domain, slot, candidate cursor,
  record, seed, digest), appended with write + flush + fsync at acceptance, so a killed run
  keeps its work. A torn last line (a kill or a full disk mid-write) is cut off when the run
  is resumed and its candidate is redone. Each line's digest is chained to the line before
  and to the manifest under the installation's run key (:mod:`generator.generate.run.run_chain`):
  a resume refuses a file whose lines do not verify, naming the first bad line.
- ``rejected.jsonl``: one :class:`Rejection` per line, with raw text, stage and reasons.
- ``scenarios.json`` / ``negative_scenarios.json``: the AssetOpsBench record lists.
  ``scenarios.json`` is derived from ``accepted.jsonl``: rewritten atomically after every
  batch, on resume and at the end.
- ``manifest.json``: config (the run seed only as a keyed fingerprint), versions, budget and
  its reasoning, counts, shortfalls, timings and tokens, the accepted chain's nonce
  (``accepted_chain``); ``status`` is ``running`` until the run completes.
- ``.lock``: the PID of the process working on the folder, held with an exclusive
  ``flock`` for the whole run (the kernel drops it when that process dies, so a killed
  run's lock is never in the way).

Run ids are plain names (:data:`RUN_ID_PATTERN`) and every path resolves inside ``--out``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.errors import UserError
from generator.folder_lock import exclusive
from generator.generate.model import Rejection, ScenarioRecord, TaskSeed
from generator.generate.run.run_chain import AcceptedChain, chain_of, tampered, unverifiable
from generator.safeparse import FILE
from generator.userfile import check_regular, read_bytes, read_text

RUN_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
_RUN_ID = re.compile(RUN_ID_PATTERN)
LOCK_NAME = ".lock"
# Files a run leaves before its first manifest; such a folder is restarted, not refused.
START_DEBRIS = frozenset({LOCK_NAME, "manifest.json.tmp"})


class AcceptedLine(BaseModel):
    """One line of accepted.jsonl."""

    model_config = ConfigDict(extra="forbid")

    domain: str = Field(description="Domain the scenario was budgeted under")
    slot: int = Field(description="0-based position within the domain's quota")
    cursor: int = Field(description="Candidate index within the domain's stream")
    record: ScenarioRecord = Field(description="The accepted record")
    seed: TaskSeed | None = Field(default=None, description="Its task seed (None: open scenario)")
    digest: str | None = Field(
        default=None,
        exclude=True,  # a dump is the body the digest covers; the seal appends it
        description="HMAC chained to the line before and the manifest (set when written; "
        "None only in runs written before digests)",
    )


class RunBusy(UserError):
    """Another live process holds the run folder's lock."""


class OutputUnwritable(UserError):
    """A run file cannot be written (disk full, permissions); the run stops resumably."""


def validate_run_id(run_id: str, *, option: str = "--run-id") -> str:
    """``run_id`` when it is a plain folder name, else a user error.

    Raises:
        UserError: Empty, too long (> 64), with a path separator, ``..`` or other characters.
    """
    if not _RUN_ID.fullmatch(run_id) or ".." in run_id:
        raise UserError(
            f"{option} must be a plain folder name matching {RUN_ID_PATTERN} (no '/', no '..', "
            "at most 64 characters)",
            value=run_id,
            fix="choose a name such as nightly-01",
        )
    return run_id


def check_run_names(run_id: str | None, resume: str | None) -> None:
    """``--run-id`` and ``--resume`` are valid names and, when both are given, the same run.

    Raises:
        UserError: an invalid name, or two different runs named.
    """
    if run_id is not None:
        validate_run_id(run_id, option="--run-id")
    if resume is not None:
        validate_run_id(resume, option="--resume")
        if run_id is not None and run_id != resume:
            raise UserError(
                f"--resume {resume} and --run-id {run_id} name different runs",
                fix="give only --resume RUN_ID to finish a run",
            )


def ensure_out_dir(out_dir: str | Path) -> Path:
    """``out_dir`` as a folder we can write to, created when missing.

    Raises:
        UserError: empty or holding a NUL character, a file, not creatable, not writable.
    """
    text = str(out_dir)
    if "\x00" in text or not text.strip():
        raise UserError("--out is empty or holds a NUL character", value=text,
                        fix="give a folder path")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UserError(
            f"--out {out} is a file, not a folder", fix="give a folder for the run folders"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"--out {out} cannot be created ({exc.strerror})",
            fix="choose a writable folder for --out",
        ) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UserError(f"--out folder {out} is not writable", fix="choose a writable folder")
    return out


def run_folder_path(out_dir: str | Path, run_id: str, *, option: str = "--run-id") -> Path:
    """The run folder ``out_dir/run_id``, checked to stay inside ``out_dir``.

    ``out_dir`` is created when missing. Refused with one line: an invalid run id, an
    ``out_dir`` that is a file or cannot be written, a run folder that is a symlink or
    resolves outside ``out_dir``.
    """
    validate_run_id(run_id, option=option)
    out = ensure_out_dir(out_dir)
    path = out / run_id
    if path.is_symlink():
        raise UserError(
            f"run folder {path} is a symlink (to {os.readlink(path)}); run folders must be "
            "real folders inside --out",
            fix="remove the link or choose another run id",
        )
    base = out.resolve()
    if path.resolve().parent != base:
        raise UserError(f"run folder {path} resolves outside --out {base}", fix="check --out")
    return path


def resumable_runs(out_dir: str | Path) -> list[str]:
    """The run ids under ``out_dir`` that ``--resume`` can finish (folders with a manifest)."""
    try:
        return sorted(p.name for p in Path(out_dir).iterdir()
                      if _RUN_ID.fullmatch(p.name) and (p / "manifest.json").is_file())
    except OSError:
        return []


def require_run(out_dir: str | Path, run_id: str) -> None:
    """Refuse ``--resume run_id`` when no folder of that name exists under ``out_dir``.

    A folder that died before its first manifest still exists (its lock file) and is
    started afresh; a name that never existed is a typo or the wrong ``--out``.

    Raises:
        UserError: no such folder; names the runs that do exist.
    """
    path = Path(out_dir) / run_id
    if path.exists() or path.is_symlink():  # a symlink is refused, with its own line, later
        return
    runs = resumable_runs(out_dir)
    raise UserError(
        f"--resume {run_id}: no run folder {path}"
        + ("" if runs else f" (no runs under {out_dir})"),
        options=runs or None,
        fix="give the id of a run under --out (its folder name), pass the --out it was "
        "written to, or drop --resume to start a new run",
    )


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (a seam the fault tests patch)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _atomic_write(path: Path, text: str, *, durable: bool = True) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        _write_all(fd, text.encode())
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _record_json(record: ScenarioRecord) -> str:
    """One record as ``json.dumps(records, indent=2)`` prints it inside the list."""
    body = json.dumps(record.model_dump(mode="json"), indent=2)
    return "\n".join("  " + line for line in body.splitlines())


class RunFolder:
    """Append-only writer and resume reader of one run's files (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        # (domain, slot) -> the record as scenarios.json prints it
        self._records: dict[tuple[str, int], str] = {}
        # the accepted lines held (resumed, then appended), in accepted.jsonl's order
        self._lines: list[AcceptedLine] = []
        # Group commit: appends are written at once but fsync'd together by :meth:`sync`
        # (the pipeline calls it after every batch). A line lost to an OS crash before its
        # sync is drawn again on resume (the stream is a function of the seed), so the
        # set is unchanged; a killed process loses nothing (its writes are in the kernel).
        self.group_commit = False
        self._unsynced: set[Path] = set()
        # the digest chain of accepted.jsonl: started by create(), resumed (after every line
        # verified) by resume_accepted()
        self.chain: AcceptedChain | None = None

    @property
    def run_id(self) -> str:
        """The folder name."""
        return self.path.name

    # -- the lock ----------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder's exclusive lock (creating the folder) for the ``with`` body.

        Raises:
            RunBusy: Another live process holds it (a dead holder's lock is free: the kernel
                drops ``flock`` locks with their process).
        """
        run_id = self.run_id
        with exclusive(
            self.path, LOCK_NAME, what="run folder",
            fix="run folders must be writable real folders inside --out",
            busy=lambda holder: RunBusy(
                f"run {run_id} is in use by process {holder} (its folder {self.path} is "
                "locked)",
                fix=f"wait for that process to finish or stop it, then `--resume {run_id}`"),
        ):
            yield

    # -- state -------------------------------------------------------------------------

    def has_manifest(self) -> bool:
        """True once the first manifest was written."""
        return (self.path / "manifest.json").exists()

    def _files(self) -> list[str]:
        return sorted(p.name for p in self.path.iterdir()) if self.path.is_dir() else []

    def never_started(self) -> bool:
        """True when the folder holds at most what a run leaves before its first manifest
        (``.lock``, ``manifest.json.tmp``), or does not exist."""
        return not set(self._files()) - START_DEBRIS

    def clear_start_debris(self) -> None:
        """Remove a half-written first manifest (the lock file stays)."""
        (self.path / "manifest.json.tmp").unlink(missing_ok=True)

    def create(self, bind: Mapping[str, str] | None = None) -> None:
        """Make the folder and start its digest chain; one holding a run is an error (use
        --resume).

        A folder where a run died before its first manifest (nothing, or only
        ``manifest.json.tmp``) is taken over.

        Args:
            bind: What the chain is bound to besides its nonce (the pipeline: run id and
                options digest); the resume must give the same.
        """
        if self.path.exists() and not self.never_started():
            raise UserError(
                f"run folder {self.path} already exists",
                fix=f"resume it with `--resume {self.run_id}` or choose another --run-id",
            )
        self.path.mkdir(parents=True, exist_ok=True)
        self.clear_start_debris()
        self.chain = AcceptedChain.new(bind if bind is not None else {"run_id": self.run_id})

    def chain_entry(self) -> dict[str, str]:
        """The manifest's ``accepted_chain`` entry (scheme and nonce)."""
        if self.chain is None:
            raise RuntimeError("the accepted chain is not started: create() or resume first")
        return self.chain.entry()

    # -- appends -----------------------------------------------------------------------

    def _append(self, name: str, body: bytes, *, chain: AcceptedChain | None = None) -> bytes:
        """Append one line durably, sealed by ``chain`` when given (its digest is returned,
        else b""); on a failed write, cut the partial line and stop."""
        path = self.path / name
        with self._lock:
            digest = b""
            if chain is not None:
                body, digest = chain.seal(body)
            data = body + b"\n"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            except OSError as exc:
                raise OutputUnwritable(
                    f"cannot open {path} ({exc.strerror or exc})",
                    fix="run files must be regular files inside the run folder",
                ) from None
            try:
                size = os.fstat(fd).st_size
                try:
                    _write_all(fd, data)
                    if self.group_commit:
                        self._unsynced.add(path)
                    else:
                        os.fsync(fd)
                except OSError as exc:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, size)
                    raise OutputUnwritable(
                        f"cannot write {path} ({exc.strerror or exc})",
                        fix="free disk space or fix the folder's permissions",
                    ) from None
            finally:
                os.close(fd)
            if chain is not None:
                chain.advance(digest)
            return digest

    def append(self, name: str, body: bytes, *, chain: AcceptedChain | None = None) -> bytes:
        """Append one line (one JSON object) to run file ``name``, sealed by ``chain`` when
        given; returns its digest (b"" without a chain). Synced as :meth:`accept` is."""
        return self._append(name, body, chain=chain)

    def sync(self) -> None:
        """fsync the files appended to since the last sync (group commit).

        Raises:
            OutputUnwritable: The flush failed (e.g. a full disk).
        """
        with self._lock:
            pending, self._unsynced = sorted(self._unsynced), set()
        for path in pending:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise OutputUnwritable(
                    f"cannot flush {path} ({exc.strerror or exc})",
                    fix="free disk space or fix the folder's permissions",
                ) from None

    def accept(self, line: AcceptedLine) -> None:
        """Record an accepted scenario durably, its digest chained to the line before."""
        if self.chain is None:
            raise RuntimeError("the accepted chain is not started: create() or resume first")
        body = line.model_dump_json().encode()
        digest = self._append("accepted.jsonl", body, chain=self.chain)
        line = line.model_copy(update={"digest": digest.hex()})
        self._records[(line.domain, line.slot)] = _record_json(line.record)
        self._lines.append(line)

    def reject(self, rejection: Rejection) -> None:
        """Record a rejected candidate."""
        self._append("rejected.jsonl", rejection.model_dump_json().encode())

    # -- resume ------------------------------------------------------------------------

    def repair_tails(self) -> list[str]:
        """Cut a torn last line off accepted.jsonl and rejected.jsonl (a write a kill or a
        full disk interrupted); returns one notice per file cut."""
        notices = []
        for name in ("accepted.jsonl", "rejected.jsonl"):
            path = self.path / name
            if not path.exists():
                continue
            data = read_bytes(path, "run file", max_bytes=FILE.max_bytes)
            keep = data.rfind(b"\n") + 1
            if keep < len(data):
                tail = data[keep:]
                with path.open("r+b") as fh:
                    fh.truncate(keep)
                    fh.flush()
                    os.fsync(fh.fileno())
                notices.append(
                    f"{path}: dropped a torn last line ({len(tail)} bytes, a write the "
                    "interruption cut short); its candidate is redone"
                )
        path = self.path / "accepted.jsonl"
        if path.exists():
            data = read_bytes(path, "run file", max_bytes=FILE.max_bytes)
            start = data.rstrip(b"\n").rfind(b"\n") + 1
            last = data[start:].strip()
            if last:
                try:
                    AcceptedLine.model_validate_json(last)
                except ValidationError:
                    with path.open("r+b") as fh:
                        fh.truncate(start)
                        fh.flush()
                        os.fsync(fh.fileno())
                    notices.append(
                        f"{path}: dropped an unreadable last line ({len(last)} bytes); its "
                        "candidate is redone"
                    )
        return notices

    def accepted(self) -> list[AcceptedLine]:
        """Accepted lines so far; a torn last line (killed mid-write) is ignored."""
        path = self.path / "accepted.jsonl"
        if not path.exists():
            return []
        lines = read_text(path, "run file", max_bytes=FILE.max_bytes).splitlines()
        out: list[AcceptedLine] = []
        for i, raw in enumerate(lines):
            if not raw.strip():
                continue
            parsed = _accepted_line(path, raw, i, last=i == len(lines) - 1)
            if parsed is None:
                break  # the write the kill interrupted; the candidate is redone
            out.append(parsed)
        return out

    def resume_accepted(
        self, manifest: dict[str, Any], bind: Mapping[str, str]
    ) -> list[AcceptedLine]:
        """The accepted lines of a run being resumed, every one verified against the digest
        chain the manifest records; the chain then goes on from the last of them.

        Args:
            manifest: The run's manifest.json.
            bind: What the chain was bound to when the run started (see :meth:`create`).

        Raises:
            UserError: The first line that does not verify (edited, moved, from another
                run or other options; names the line and how to keep the lines before
                it), or a run written before lines had digests.
        """
        path = self.path / "accepted.jsonl"
        data = read_bytes(path, "run file", max_bytes=FILE.max_bytes) if path.exists() else b""
        chain = chain_of(manifest, bind)
        rows = data.split(b"\n")
        out: list[AcceptedLine] = []
        for i, raw in enumerate(rows):
            if not raw.strip():
                continue
            line = _accepted_line(path, raw, i, last=i == len(rows) - 1)
            if line is None:
                break  # the write the kill interrupted; the candidate is redone
            if chain is None:
                raise unverifiable(manifest, path, raw)
            if not chain.check(raw):
                raise tampered(manifest, path, i + 1)
            out.append(line)
        self.chain = chain or AcceptedChain.new(bind)  # nothing accepted yet: a new chain
        return out

    def load_records(self, lines: list[AcceptedLine]) -> None:
        """Remember resumed lines so :meth:`write_scenarios` includes them."""
        for line in lines:
            self._records[(line.domain, line.slot)] = _record_json(line.record)
        self._lines[:0] = lines

    @property
    def lines_held(self) -> list[AcceptedLine]:
        """The accepted lines this folder holds (:meth:`load_records`, then every
        :meth:`accept`), in accepted.jsonl's order: what :meth:`accepted` parses back from
        the file, without parsing it."""
        return list(self._lines)

    def rejected_count(self) -> int:
        """Lines in rejected.jsonl."""
        path = self.path / "rejected.jsonl"
        if not path.exists():
            return 0
        check_regular(path, "run file")  # a FIFO would block the open
        with path.open() as fh:
            return sum(1 for _ in fh)

    # -- whole files -------------------------------------------------------------------

    @property
    def records_held(self) -> int:
        """Accepted records held for scenarios.json (this process's and the resumed ones)."""
        return len(self._records)

    def write_scenarios(self, order: dict[str, int], *, durable: bool = False) -> None:
        """Rewrite scenarios.json from the accepted lines (domain order, then slot).

        Byte-identical to ``json.dumps(records, indent=2)``; records are serialised once,
        at acceptance, so a rewrite after every batch stays cheap.
        """
        with self._lock:
            keys = sorted(self._records, key=lambda k: (order.get(k[0], 99), k[1]))
            body = ",\n".join(self._records[k] for k in keys)
            text = f"[\n{body}\n]\n" if keys else "[]\n"
            self._write(self.path / "scenarios.json", text, durable=durable)

    def _write(self, path: Path, text: str, *, durable: bool = True) -> None:
        try:
            _atomic_write(path, text, durable=durable)
        except OSError as exc:
            raise OutputUnwritable(
                f"cannot write {path} ({exc.strerror or exc})",
                fix="free disk space or fix the folder's permissions",
            ) from None

    def write_records(self, name: str, records: list[ScenarioRecord]) -> None:
        """Atomically (re)write a record list such as negative_scenarios.json."""
        payload = [r.model_dump(mode="json") for r in records]
        with self._lock:
            self._write(self.path / name, json.dumps(payload, indent=2) + "\n")

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Atomically (re)write manifest.json."""
        with self._lock:
            self._write(self.path / "manifest.json", json.dumps(manifest, indent=2) + "\n")

    def manifest(self) -> dict[str, Any]:
        """The manifest, or a user error naming the folder when it is missing or broken."""
        path = self.path / "manifest.json"
        if not path.exists():
            raise UserError(
                f"no run to resume at {self.path} (manifest.json missing)",
                fix="check the run id under the --out folder or start a new run",
            )
        try:
            data: dict[str, Any] = json.loads(
                read_text(path, "run manifest", max_bytes=FILE.max_bytes))
        except ValueError as exc:
            raise UserError(
                f"{path} is not valid JSON ({exc})", fix="restore it or start a new run"
            ) from None
        return data


def _accepted_line(path: Path, raw: str | bytes, i: int, *, last: bool) -> AcceptedLine | None:
    """Line ``i`` of accepted.jsonl parsed; None for a torn last line (the write a kill
    interrupted).

    Raises:
        UserError: Any other line that is not an accepted scenario.
    """
    try:
        return AcceptedLine.model_validate_json(raw)
    except ValidationError as exc:
        if last:
            return None
        raise UserError(
            f"{path}: line {i + 1} is not an accepted scenario "
            f"({exc.errors()[0]['msg']})",
            fix="restore the file or start a new run",
        ) from None
