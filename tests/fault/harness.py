"""Fault injection for generation runs: kill, tear, fill the disk, kill the store, race.

Each case interrupts a ``scenariogen generate`` subprocess in one way, resumes it with
``--resume`` until it completes, and compares the result with an uninterrupted run of the
same command: same ids, texts, answers and every other record field except
``provenance.batch`` (which counts the batches of the process that accepted a scenario) and
``provenance.run_id`` (the folders differ by name).

Used by ``tests/fault/test_kill_resume.py`` (a small subset on the session's store) and as a
benchmark on a private store of its own:

    .venv/bin/python -m tests.fault.harness --runs 20 [--seed 13] [--json]

which prints ``N/20 ended identical`` and one line per case.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# A small run: three domains, one negative scenario, and batches of two candidates so that
# acceptances (and so the states a fault can leave) spread over the run.
RUN_ARGS = [
    "transformer", "-n", "8", "--budget", "iot=3,fmsr=3,wo=2", "--negatives", "1",
    "--batch-size", "2",
]
KINDS = ("kill", "kill_early", "torn_line", "disk_full", "store_kill", "concurrent_resume")
# The 20-case mix of the benchmark (store_kill needs a store the harness owns).
MIX = (
    ["kill"] * 9
    + ["kill_early"] * 2
    + ["torn_line"] * 3
    + ["disk_full"] * 2
    + ["store_kill"] * 2
    + ["concurrent_resume"] * 2
)


@dataclass
class Case:
    """One interrupted run and how it ended."""

    index: int
    kind: str
    delay_s: float = 0.0
    interrupted: bool = False
    kept: int = 0
    first_rc: int | None = None
    resumes: int = 0
    resume_rcs: list[int] = field(default_factory=list)
    refusal: str = ""
    identical: bool = False
    detail: str = ""


@dataclass
class Harness:
    """Runs ``generate`` subprocesses against one store into one ``--out`` folder."""

    out: Path
    env: dict[str, str]
    seed: int = 5
    restart_store: Callable[[], None] | None = None
    kill_store: Callable[[], None] | None = None

    def command(self, run_id: str, *, resume: bool = False) -> list[str]:
        """The generate command line of ``run_id``."""
        which = ["--resume", run_id] if resume else ["--run-id", run_id]
        return [
            sys.executable, "-m", "generator.cli", "generate", *RUN_ARGS,
            "--seed", str(self.seed), "--out", str(self.out), "--no-progress", *which,
        ]

    def start(
        self, run_id: str, *, resume: bool = False, file_limit: int | None = None
    ) -> subprocess.Popen[str]:
        """Start a generate subprocess (optionally with a file-size limit: a full disk)."""

        def limit() -> None:
            if file_limit is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

        return subprocess.Popen(
            self.command(run_id, resume=resume),
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=limit if file_limit is not None else None,
        )

    def run(self, run_id: str, *, resume: bool = False, timeout: float = 600) -> tuple[int, str]:
        """Run to the end; exit code and stderr."""
        proc = self.start(run_id, resume=resume)
        _, err = proc.communicate(timeout=timeout)
        return proc.returncode, err

    def finish(self, case: Case, run_id: str, max_resumes: int = 4) -> None:
        """Resume ``run_id`` until it completes (exit 0).

        A run killed before it made its folder is started again with the same ``--run-id``
        (``--resume`` of a run with no folder is refused).
        """
        for _ in range(max_resumes):
            rc, err = self.run(run_id, resume=(self.out / run_id).exists())
            case.resumes += 1
            case.resume_rcs.append(rc)
            if rc == 0:
                return
            case.detail = err.strip().splitlines()[-1] if err.strip() else f"exit {rc}"
        raise RuntimeError(f"{run_id}: not complete after {max_resumes} resumes: {case.detail}")


def comparable(run: Path) -> dict[str, Any]:
    """The parts of a run folder that must not depend on interruptions."""
    records = json.loads((run / "scenarios.json").read_text())
    negatives = json.loads((run / "negative_scenarios.json").read_text())
    for rec in records + negatives:
        rec["provenance"].pop("batch", None)
        rec["provenance"].pop("run_id", None)
    return {"scenarios": records, "negatives": negatives}


def differences(got: dict[str, Any], want: dict[str, Any]) -> str:
    """A one-line account of how two runs differ ('' when they do not)."""
    if got == want:
        return ""
    g, w = got["scenarios"], want["scenarios"]
    if [r["id"] for r in g] != [r["id"] for r in w]:
        return f"ids differ: {len(g)} vs {len(w)} records"
    bad = [a["id"] for a, b in zip(g, w, strict=True) if a != b]
    return f"records differ: {bad[:5]}" if bad else "negative scenarios differ"


def _wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and path.stat().st_size > 0:
            return True
        time.sleep(0.05)
    return False


def plant_torn_lines(run: Path, rng: random.Random) -> None:
    """Append a cut-off line to accepted.jsonl and rejected.jsonl (a write cut short)."""
    for name in ("accepted.jsonl", "rejected.jsonl"):
        path = run / name
        if not path.exists() or not path.read_text().strip():
            continue
        last = path.read_text().strip().splitlines()[-1]
        cut = rng.randrange(1, len(last))
        with path.open("a") as fh:
            fh.write(last[:cut])


def run_case(h: Harness, case: Case, reference: dict[str, Any], t_ref: float,
             rng: random.Random) -> Case:
    """Interrupt one run as ``case.kind`` says, resume it to the end, compare."""
    run_id = f"case-{case.index:02d}-{case.kind}"
    run = h.out / run_id
    kind = case.kind
    if kind in ("kill", "torn_line", "kill_early"):
        lo, hi = (0.2, 2.0) if kind == "kill_early" else (0.3 * t_ref, 0.9 * t_ref)
        case.delay_s = round(rng.uniform(lo, hi), 2)
        proc = h.start(run_id)
        if kind == "torn_line":  # kill once a line is on disk, so there is one to tear
            case.delay_s = round(rng.uniform(0.0, 0.3 * t_ref), 2)
            _wait_for(run / "accepted.jsonl", proc)
        try:
            proc.wait(timeout=case.delay_s)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
        proc.communicate()
        case.first_rc = proc.returncode
        if kind == "torn_line":
            plant_torn_lines(run, rng)
    elif kind == "disk_full":
        # Every file of the run may grow to this size only: a full disk part-way through.
        limit = rng.randrange(4_000, 15_000)
        case.delay_s = float(limit)
        proc = h.start(run_id, file_limit=limit)
        _, err = proc.communicate(timeout=600)
        case.first_rc = proc.returncode
        case.refusal = err.strip().splitlines()[-1] if err.strip() else ""
    elif kind == "store_kill":
        if h.kill_store is None or h.restart_store is None:
            raise RuntimeError("store_kill needs a store the harness owns")
        case.delay_s = round(rng.uniform(0.4 * t_ref, 0.9 * t_ref), 2)
        proc = h.start(run_id)
        try:
            proc.wait(timeout=case.delay_s)
        except subprocess.TimeoutExpired:
            h.kill_store()
        _, err = proc.communicate(timeout=600)
        case.first_rc = proc.returncode
        case.refusal = err.strip().splitlines()[-1] if err.strip() else ""
        h.restart_store()
    elif kind == "concurrent_resume":
        proc = h.start(run_id)
        if _wait_for(run / "manifest.json", proc):
            # Held still (it keeps its lock) while the resume starts: a run of 8 can end
            # within a second, before a second process has even imported the CLI.
            proc.send_signal(signal.SIGSTOP)
            try:
                rc, err = h.run(run_id, resume=True)
            finally:
                proc.send_signal(signal.SIGCONT)
            case.refusal = f"exit {rc}: " + (err.strip().splitlines() or [""])[-1]
        _, _ = proc.communicate(timeout=600)
        case.first_rc = proc.returncode
    else:
        raise ValueError(f"unknown fault kind {kind!r} (known: {', '.join(KINDS)})")
    case.interrupted = case.first_rc != 0 or case.refusal.startswith("exit 2")
    accepted = run / "accepted.jsonl"
    case.kept = accepted.read_bytes().count(b"\n") if accepted.exists() else 0
    if case.first_rc != 0:
        h.finish(case, run_id)
    diff = differences(comparable(run), reference)
    case.identical = not diff
    case.detail = diff or case.detail
    return case


def references(h: Harness) -> tuple[dict[str, Any], float]:
    """The uninterrupted run's comparable content and the seconds of a warm run.

    Kill delays are drawn within the warm run's duration (the first run built the profile
    cache, which later runs read); the warm run must agree with the first one too.
    """
    rc, err = h.run("reference")
    if rc != 0:
        raise RuntimeError(f"the uninterrupted run failed (exit {rc}): {err.strip()[-400:]}")
    reference = comparable(h.out / "reference")
    started = time.monotonic()
    rc, err = h.run("reference-warm")
    t_ref = time.monotonic() - started
    if rc != 0 or differences(comparable(h.out / "reference-warm"), reference):
        raise RuntimeError(f"two uninterrupted runs disagree (exit {rc}): {err.strip()[-400:]}")
    return reference, t_ref


def run_cases(
    h: Harness, kinds: list[str], seed: int, progress: Callable[[Case], None] | None = None
) -> tuple[list[Case], float]:
    """The reference runs, then one case per kind; the cases and the warm run's seconds."""
    reference, t_ref = references(h)
    rng = random.Random(seed)
    cases = []
    for i, kind in enumerate(kinds):
        case = Case(i, kind)
        try:
            run_case(h, case, reference, t_ref, rng)
        except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as exc:
            case.identical, case.detail = False, f"{type(exc).__name__}: {exc}"
        if progress is not None:
            progress(case)
        cases.append(case)
    return cases, t_ref


# -- the benchmark on a private store -------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cli(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "generator.cli", *args], cwd=ROOT, env=env, check=True,
        capture_output=True, text=True,
    )


def private_store(home: Path) -> tuple[dict[str, str], Callable[[], None], Callable[[], None]]:
    """Start and seed a bundled server in ``home``; its env and kill / restart functions."""
    env = {**os.environ, "SCENARIOGEN_HOME": str(home), "SCENARIOGEN_CACHE_DIR": str(home / "c")}
    for key in ("COUCHDB_URL", "SCENARIOGEN_DB_PREFIX"):
        env.pop(key, None)
    port = _free_port()
    _cli(env, "env", "up", "--port", str(port))
    _cli(env, "env", "seed", "--seed", "7", "--sites", "2", "--units-per-site", "3", "--days", "30")

    def kill() -> None:
        record = json.loads((home / "server.json").read_text())
        os.kill(int(record["pid"]), signal.SIGKILL)

    def restart() -> None:
        _cli(env, "env", "up", "--port", str(port))

    return env, kill, restart


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit 0 when every case ended identical."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=13, help="seeds the delays and cut points")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    kinds = [MIX[i % len(MIX)] for i in range(args.runs)]
    random.Random(args.seed).shuffle(kinds)
    with tempfile.TemporaryDirectory(prefix="scenariogen-faults-") as tmp:
        home = Path(tmp) / "home"
        env, kill, restart = private_store(home)
        h = Harness(Path(tmp) / "out", env, kill_store=kill, restart_store=restart)
        try:
            started = time.monotonic()
            cases, t_ref = run_cases(
                h, kinds, args.seed, progress=None if args.json else _print_case
            )
            total = time.monotonic() - started
        finally:
            _cli(env, "env", "down")
    ok = sum(c.identical for c in cases)
    hit = sum(c.interrupted for c in cases)
    if args.json:
        print(json.dumps({"identical": ok, "runs": len(cases), "interrupted": hit,
                          "reference_s": round(t_ref, 1),
                          "total_s": round(total, 1), "cases": [asdict(c) for c in cases]},
                         indent=2))
    else:
        print(f"{ok}/{len(cases)} runs ended identical to the uninterrupted run; {hit} of them "
              f"were interrupted (the rest finished before the fault landed); reference run "
              f"{t_ref:.1f} s warm, all {total:.0f} s")
    return 0 if ok == len(cases) else 1


def _print_case(c: Case) -> None:
    print(f"  {c.index:2d} {c.kind:<17} delay/limit {c.delay_s:<8g} first exit {c.first_rc} "
          f"{'interrupted' if c.interrupted else 'not reached'} kept {c.kept} "
          f"resumes {c.resume_rcs} {'identical' if c.identical else 'DIFFERS'}"
          f"{' | ' + c.refusal if c.refusal else ''}{' | ' + c.detail if c.detail else ''}",
          flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
