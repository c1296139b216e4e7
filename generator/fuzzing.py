"""Seeded random and mutation fuzzing of every input boundary (issue 13.8).

Targets, each fed inputs built by a local ``random.Random`` from (seed, target, index):

* ``cli``: argument vectors for ``scenariogen`` (mutated valid commands: ``tools call``,
  ``generate`` options, ``validate``), run in-process through :func:`generator.cli.main`
  (:func:`generator.fuzz_run.run_cli`);
* ``tools``: argument objects for every registered tool through
  :func:`generator.tools.registry.call_tool` (results must be strict JSON);
* ``yaml``: mutated ``asset.yaml`` and policy files through their loaders;
* ``json``: mutated scenario files (``validate`` / ``--against``) and ``fake:`` scripts;
* ``llm``: mutated LLM replies through :func:`generator.llm.client.parse_reply`;
* ``special``, ``names``, ``ids``, ``scalars`` (issue 28, :mod:`generator.fuzz_inputs`):
  FIFOs, devices, folders, sockets and symlinks to them given as files; class names and
  run ids with path pieces; JSON-RPC ids of every JSON type; inf / nan / quoted scalars
  in asset.yaml ranges, settings and booleans;
* ``mcp`` (separate, :func:`fuzz_mcp`): raw JSON-RPC frames to ``scenariogen serve-tools``
  (a quarter of them requests, notifications and responses with ids of every JSON type).

Every input ends in one outcome: ``ok``, ``user_error`` (a :class:`UserError`, or exit 2 with
exactly one stderr line), ``other_exit`` (a documented non-zero code such as 1 or 3),
``not_one_line`` (exit 2 with more than one line), ``traceback`` (any other exception),
``non_strict_json`` (a tool result with NaN / Infinity) or ``hang`` (over the time limit).
The report counts them; the acceptance goal is 0 tracebacks and 0 hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator import fuzz_inputs
from generator.errors import UserError
from generator.fuzz_run import NASTY_NUMBERS, NASTY_STRINGS, random_value, run_cli

TARGETS = ("cli", "tools", "yaml", "json", "llm", "special", "names", "ids", "scalars")
OUTCOMES = (
    "ok", "user_error", "other_exit", "not_one_line", "non_strict_json", "traceback", "hang",
)
BAD_OUTCOMES = ("not_one_line", "non_strict_json", "traceback", "hang")

class TargetCounts(BaseModel):
    """Outcomes of one target."""

    model_config = ConfigDict(extra="forbid")

    target: str = Field(description="cli, tools, yaml, json, llm or mcp")
    inputs: int = Field(description="Inputs tried")
    outcomes: dict[str, int] = Field(description="Inputs per outcome")
    max_seconds: float = Field(description="Slowest input, seconds")
    examples: list[str] = Field(
        default_factory=list, description="Up to 5 bad outcomes: input head and what happened"
    )

    @property
    def bad(self) -> int:
        """Inputs with a bad outcome (traceback, hang, not one line, non-strict JSON)."""
        return sum(self.outcomes.get(k, 0) for k in BAD_OUTCOMES)


class FuzzReport(BaseModel):
    """What :func:`fuzz` found."""

    model_config = ConfigDict(extra="forbid")

    seed: int = Field(description="Fuzz seed")
    per_target: list[TargetCounts] = Field(description="One entry per target")
    seconds: float = Field(description="Wall time")

    @property
    def totals(self) -> Counter[str]:
        """Outcomes summed over the targets."""
        total: Counter[str] = Counter()
        for t in self.per_target:
            total.update(t.outcomes)
        return total

    def render(self) -> str:
        """A plain-text table."""
        lines = [f"{'target':<7} {'inputs':>6} " + " ".join(f"{o:>15}" for o in OUTCOMES)
                 + f" {'max s':>7}"]
        for t in self.per_target:
            lines.append(f"{t.target:<7} {t.inputs:>6} "
                         + " ".join(f"{t.outcomes.get(o, 0):>15}" for o in OUTCOMES)
                         + f" {t.max_seconds:>7.2f}")
        total = self.totals
        lines.append(f"{'total':<7} {sum(t.inputs for t in self.per_target):>6} "
                     + " ".join(f"{total.get(o, 0):>15}" for o in OUTCOMES))
        for t in self.per_target:
            lines += [f"  {t.target}: {ex}" for ex in t.examples]
        lines.append(f"tracebacks {total.get('traceback', 0)}, hangs {total.get('hang', 0)} "
                     f"in {self.seconds:.1f} s (seed {self.seed})")
        return "\n".join(lines)


# -- mutation ------------------------------------------------------------------------------


def mutate_text(rng: random.Random, text: str, rounds: int = 3) -> str:
    """Apply a few random edits: flips, nasty insertions, deletions, duplications, nesting."""
    for _ in range(rng.randint(1, rounds)):
        op = rng.randrange(8)
        pos = rng.randint(0, len(text))
        if op == 0 and text:
            i = rng.randrange(len(text))
            text = text[:i] + chr(rng.randrange(0, 0x3000)) + text[i + 1:]
        elif op == 1:
            text = text[:pos] + rng.choice(NASTY_STRINGS) + text[pos:]
        elif op == 2 and text:
            end = min(len(text), pos + rng.randint(1, 40))
            text = text[:pos] + text[end:]
        elif op == 3 and text:
            end = min(len(text), pos + rng.randint(1, 80))
            text = text[:pos] + text[pos:end] * rng.randint(2, 4) + text[pos:]
        elif op == 4:
            depth = rng.choice((10, 100, 1_000, 20_000))
            opener, closer = rng.choice((("[", "]"), ("{\"a\":", "}"), ("- ", ""), ("[", "")))
            text = text[:pos] + opener * depth + closer * depth + text[pos:]
        elif op == 5:
            text = text[: rng.randint(0, len(text))]
        elif op == 6:
            text = text[:pos] + str(rng.choice(NASTY_NUMBERS)) + text[pos:]
        else:
            text = text[:pos] + "".join(chr(rng.randrange(32, 127)) for _ in range(5)) + text[pos:]
    return text


# -- running one input ---------------------------------------------------------------------


class _Hang(BaseException):
    """Raised by the alarm when one input runs over the limit."""


# Called when an input runs over its limit, before the hang is raised: a builder frees
# what the alarm cannot interrupt (a worker thread blocked on a FIFO would otherwise keep
# asyncio.run waiting for it, and the harness would hang instead of counting a hang).
ON_HANG: list[Callable[[], None]] = []


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """SIGALRM-based limit in the main thread; elsewhere (or on Windows) no limit."""
    usable = hasattr(signal, "setitimer") and os.name == "posix"
    try:
        import threading

        usable = usable and threading.current_thread() is threading.main_thread()
    except ImportError:  # pragma: no cover
        usable = False
    if not usable:
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        for hook in ON_HANG:
            hook()
        raise _Hang

    previous = signal.signal(signal.SIGALRM, on_alarm)
    # Then again every second: asyncio swallows an exception raised inside one of its
    # callbacks (Handle._run), so one alarm may be lost; a later one lands in the loop's
    # select and ends the input.
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _classify(fn: Callable[[], str], limit_s: float) -> tuple[str, float, str]:
    """Run one input: (outcome, seconds, detail)."""
    start = time.perf_counter()
    try:
        with _time_limit(limit_s):
            outcome = fn()
        detail = ""
    except _Hang:
        outcome, detail = "hang", f"over {limit_s:g} s"
    except UserError:
        outcome, detail = "user_error", ""
    except Exception as exc:  # a traceback: what the fuzzing is looking for
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
        outcome, detail = "traceback", f"{type(exc).__name__}: {str(exc)[:120]} at {where}"
    return outcome, time.perf_counter() - start, detail


class _Tally:
    def __init__(self, target: str) -> None:
        self.target = target
        self.counts: Counter[str] = Counter()
        self.max_s = 0.0
        self.examples: list[str] = []

    def add(self, fn: Callable[[], str], shown: str, limit_s: float) -> None:
        outcome, seconds, detail = _classify(fn, limit_s)
        if "|" in outcome:  # "not_one_line|<stderr head>" from the CLI runner
            outcome, detail = outcome.split("|", 1)
        self.counts[outcome] += 1
        self.max_s = max(self.max_s, seconds)
        if outcome in BAD_OUTCOMES and len(self.examples) < 5:
            head = shown if len(shown) <= 80 else shown[:77] + "..."
            self.examples.append(f"{outcome}: {head!r}: {detail}"[:400])

    def result(self, n: int) -> TargetCounts:
        return TargetCounts(target=self.target, inputs=n, outcomes=dict(self.counts),
                            max_seconds=round(self.max_s, 3), examples=self.examples)


# -- targets -------------------------------------------------------------------------------

_DGA = {"asset_name": "EAST-TX01", "hydrogen": 50, "methane": 200, "ethane": 50,
        "ethylene": 300, "acetylene": 2}


def _cli_argv(rng: random.Random, work: Path) -> list[str]:
    from generator.assetdef import default_asset_class

    cls = default_asset_class()
    kind = rng.randrange(5)
    if kind == 0:
        args = json.dumps({k: rng.choice((v, random_value(rng))) for k, v in _DGA.items()},
                          default=str)
        if rng.random() < 0.5:
            args = mutate_text(rng, args)
        return ["tools", "call", rng.choice(("interpret_dga", "get_events", "history", "sites",
                                             "compute_hot_spot", "nosuch")), "--args", args]
    if kind == 1:
        options = {"-n": rng.choice(("0", "1", "-5", "1000000000", "abc", "1e3", "")),
                   "--multiagent-cap": rng.choice(("0", "2", "nan", "inf", "-0.1", "x")),
                   "--seed": rng.choice(("-1", "1" * 40, "x", "0x10")),
                   "--batch-size": rng.choice(("0", "-1", "1000")),
                   "--budget": rng.choice(("iot=x", "x=1", "iot=-1", "=", ",,", "iot=1e9")),
                   "--llm": rng.choice(("bogus", "fake:", "fake:/nonexistent", "openai:")),
                   "--out": rng.choice((str(work / "afile"), "/proc/none/x", "\x00"))}
        chosen = rng.sample(sorted(options), rng.randint(1, 3))
        argv = ["generate", cls]
        for opt in chosen:
            argv += [opt, options[opt]]
        return argv
    if kind == 2:
        path = work / f"v{rng.randrange(10**6)}.json"
        path.write_text(mutate_text(rng, json.dumps([{"id": 1, "type": "IoT", "text": "x"}])),
                        encoding="utf-8", errors="surrogatepass")
        return ["validate", str(path)]
    if kind == 3:
        base = rng.choice((["tools", "describe", "interpret_dga"], ["tools", "list"],
                           ["generate", cls, "--n", "2"], ["inventory", cls],
                           ["cache", "path"], ["validate"]))
        return [mutate_text(rng, a, 1) if rng.random() < 0.4 else a for a in base]
    return [rng.choice(("--bogus", "-", "--", "tools", "env", "generate", "bench", "\x00",
                        "--help", "-n"))
            for _ in range(rng.randint(0, 4))]


@contextlib.contextmanager
def _unreachable_store() -> Iterator[None]:
    """CLI inputs run against a store URL nobody answers on.

    A fuzzed command that happens to be valid (``generate CLASS --n 2``) then stops
    at the store with one line instead of generating for minutes; the tools target still
    reaches the real store through its own context.
    """
    previous = os.environ.get("COUCHDB_URL")
    os.environ["COUCHDB_URL"] = "http://127.0.0.1:9"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("COUCHDB_URL", None)
        else:
            os.environ["COUCHDB_URL"] = previous


def _tool_args(rng: random.Random, schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = schema.get("properties", {})
    args: dict[str, Any] = {}
    for name, spec in props.items():
        if rng.random() < 0.15:
            continue  # leave it out
        kind = spec.get("type") or next((s.get("type") for s in spec.get("anyOf", [])
                                         if s.get("type") != "null"), None)
        if rng.random() < 0.35:
            args[name] = random_value(rng)
        elif kind in ("number", "integer"):
            args[name] = rng.choice((*NASTY_NUMBERS, rng.uniform(0, 500)))
        elif kind == "string":
            args[name] = rng.choice((*NASTY_STRINGS, "EAST", "EAST-TX01", "2026-06-01",
                                     "oti", "kraft", "ONAN"))
        elif kind == "array":
            args[name] = [random_value(rng) for _ in range(rng.randint(0, 3))]
        else:
            args[name] = random_value(rng)
    if rng.random() < 0.1:
        args[rng.choice(("extra", "", "\x00"))] = random_value(rng)
    return args


def _run_tool(name: str, args: dict[str, Any], ctx: Any) -> str:
    from generator.tools.registry import call_tool

    result = asyncio.run(call_tool(name, args, ctx))
    try:
        json.dumps(result.model_dump(mode="json"), allow_nan=False)
    except ValueError:
        return "non_strict_json"
    return "ok"


def _yaml_case(rng: random.Random, work: Path) -> tuple[Callable[[], str], str]:
    from generator.assetdef import ASSETS_DIR, default_asset_class, load_asset_file
    from generator.generate.run.policy import POLICIES_DIR, load_policy_file

    if rng.random() < 0.6:
        cls = default_asset_class()
        source = (ASSETS_DIR / cls / "asset.yaml").read_text()
        folder = work / f"y{rng.randrange(10**9)}" / cls
        folder.mkdir(parents=True)
        path, loader = folder / "asset.yaml", load_asset_file
    else:
        policy = rng.choice(sorted(POLICIES_DIR.glob("*.yaml")))
        source = policy.read_text()
        folder = work / f"p{rng.randrange(10**9)}"
        folder.mkdir(parents=True)
        path, loader = folder / policy.name, load_policy_file  # type: ignore[assignment]
    text = mutate_text(rng, source, rounds=4)
    if rng.random() < 0.1:
        text = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
            f"{n}: &{n} [{', '.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefg", "bcdefgh",
                                                                        strict=True)) + text
    path.write_text(text, encoding="utf-8", errors="surrogatepass")

    def run() -> str:
        loader(path)
        return "ok"

    return run, text


def _json_case(rng: random.Random, work: Path) -> tuple[Callable[[], str], str]:
    from generator.generate.checks.validate import against_index, load_scenario_file
    from generator.llm.fake import ScriptedChatModel

    record = {"id": 1, "type": "IoT", "text": "List the sites.", "category": "Knowledge Query",
              "characteristic_form": "uses sites", "reference_answer": {"sites": ["EAST"]}}
    kind = rng.randrange(3)
    if kind == 2:
        text = mutate_text(rng, json.dumps(['{"items": []}', "reply two"]), rounds=4)
    else:
        text = mutate_text(rng, json.dumps([record, record], indent=1), rounds=4)
    suffix = rng.choice((".json", ".jsonl", ".txt"))
    path = work / f"j{rng.randrange(10**9)}{suffix}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")

    def run() -> str:
        if kind == 0:
            load_scenario_file(path)
        elif kind == 1:
            against_index(path, 0.9)
        else:
            ScriptedChatModel.from_file(path)
        return "ok"

    return run, text


def _llm_case(rng: random.Random) -> tuple[Callable[[], str], str]:
    from generator.generate.run.budget import BudgetProposal
    from generator.llm.client import parse_reply

    valid = rng.choice((
        '{"weights": {"iot": 1, "fmsr": 3}, "rationale": "x"}',
        '```json\n{"items": [{"seed_key": "k", "text": "t", "characteristic_form": "c"}]}\n```',
        'Sure! {"weights": {"iot": 1e308, "wo": 2}}',
    ))
    text = mutate_text(rng, valid, rounds=4)

    def run() -> str:
        value, error = parse_reply(text, BudgetProposal)
        if value is None and not error:
            return "traceback|parse_reply returned neither a value nor an error"
        if value is not None:
            json.dumps(value.model_dump(mode="json"))  # must serialise
        return "ok" if value is not None else "user_error"

    return run, text


def _issue28_setup(work: Path) -> dict[str, Path]:
    """The special files, and a good scenario file the commands take beside them."""
    (work / "good.json").write_text(json.dumps([{
        "id": "s1", "type": "IoT", "text": "List the sites.", "category": "Knowledge Query",
        "characteristic_form": "uses sites", "reference_answer": {"sites": ["EAST"]}}]))
    return fuzz_inputs.make_specials(work)


@contextlib.contextmanager
def _on_hang(specials: dict[str, Path]) -> Iterator[None]:
    """While an input runs, a hang releases the FIFOs among ``specials``."""
    hook = functools.partial(fuzz_inputs.release_fifos, fuzz_inputs.fifos(specials))
    ON_HANG.append(hook)
    try:
        yield
    finally:
        ON_HANG.remove(hook)


def _issue28_case(target: str, rng: random.Random, work: Path,
                  specials: dict[str, Path]) -> tuple[Callable[[], str], str]:
    if target == "special":
        return fuzz_inputs.special_case(rng, work, specials)
    if target == "names":
        return fuzz_inputs.names_case(rng, work)
    if target == "ids":
        return fuzz_inputs.ids_case(rng)
    return fuzz_inputs.scalars_case(rng, work)


def fuzz(
    n: int = 1000,
    *,
    seed: int = 0,
    targets: tuple[str, ...] = TARGETS,
    limit_s: float = 20.0,
    tool_ctx: Any = None,
) -> FuzzReport:
    """Fuzz ``n`` inputs spread evenly over ``targets`` and count the outcomes.

    Args:
        n: Inputs in all (each target gets ``n // len(targets)``, the first ones the rest).
        seed: Seed of the local generators; the same seed gives the same inputs.
        targets: Which of :data:`TARGETS` to fuzz.
        limit_s: Seconds after which one input counts as a hang.
        tool_ctx: A :class:`generator.tools.registry.ToolContext` for the tool target
            (default: one on the configured store; data tools then hit it or fail with a
            one-line store error).
    """
    from generator.assetdef import default_asset_class, load_asset_class
    from generator.tools.registry import ToolContext, load_tools, tools_for

    started = time.perf_counter()
    load_tools()
    ctx = tool_ctx or ToolContext(load_asset_class(default_asset_class()))
    registry = tools_for(ctx.asset.asset_class)
    share, extra = divmod(n, len(targets))
    reports = []
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise UserError(f"unknown fuzz target {unknown[0]!r}", options=TARGETS,
                        fix="pick targets from the list")
    with tempfile.TemporaryDirectory(prefix="scenariogen-fuzz-") as tmp:
        work = Path(tmp)
        (work / "afile").write_text("x")
        specials = _issue28_setup(work) if "special" in targets else {}
        for t_index, target in enumerate(targets):
            count = share + (1 if t_index < extra else 0)
            tally = _Tally(target)
            for i in range(count):
                rng = random.Random(f"{seed}:{target}:{i}")
                if target == "cli":
                    argv = _cli_argv(rng, work)
                    with _unreachable_store():
                        tally.add(functools.partial(run_cli, argv), " ".join(argv), limit_s)
                elif target == "tools":
                    name = rng.choice(sorted(registry))
                    args = _tool_args(rng, registry[name].args.model_json_schema())
                    tally.add(functools.partial(_run_tool, name, args, ctx),
                              f"{name} {json.dumps(args, default=str)}", limit_s)
                elif target == "yaml":
                    run, shown = _yaml_case(rng, work)
                    tally.add(run, shown, limit_s)
                elif target == "json":
                    run, shown = _json_case(rng, work)
                    tally.add(run, shown, limit_s)
                elif target == "llm":
                    run, shown = _llm_case(rng)
                    tally.add(run, shown, limit_s)
                else:
                    run, shown = _issue28_case(target, rng, work, specials)
                    with _unreachable_store(), fuzz_inputs.scratch_cache(work), \
                            fuzz_inputs.bounded_memory(), _on_hang(specials):
                        tally.add(run, shown, limit_s)
            reports.append(tally.result(count))
    if tool_ctx is None:
        ctx.close()
    return FuzzReport(seed=seed, per_target=reports,
                      seconds=round(time.perf_counter() - started, 2))


# -- MCP: raw frames to a real `scenariogen serve-tools` ----------------------------------


def _mcp_frames(rng: random.Random) -> tuple[str, bool]:
    """One raw line and whether JSON-RPC requires a reply to it (a request or a bad frame)."""
    kind = rng.randrange(6)
    rid = rng.choice((rng.randrange(1, 10**6), "id-" + str(rng.randrange(1000))))
    if kind == 0:
        return mutate_text(rng, json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list"}
                                           ), 2), True
    if kind == 1:
        name = rng.choice(("interpret_dga", "get_events", "history", "sites", "nosuch"))
        args = {k: random_value(rng) for k in rng.sample(sorted(_DGA), 3)}
        frame = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                 "params": {"name": name, "arguments": args}}
        return json.dumps(frame, default=str).replace("NaN", rng.choice(("NaN", "0"))), True
    if kind == 2:
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": rng.choice(
            ("nosuch/method", "", "tools/call", "initialize")), "params": random_value(rng)},
            default=str), True
    if kind == 3:
        return rng.choice(("{", "[]", "null", "1", '"x"', "{}", "[" * 5000, "\x00",
                           '{"jsonrpc": "2.0"}')), True
    if kind == 4:
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                           "params": {"name": "get_events",
                                      "arguments": {"equipment_id": "A" * 100_000}}}), True
    return mutate_text(rng, json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"}), 3), True


_KNOWN_METHODS = ("tools/list", "tools/call", "ping", "initialize")


def _is_request(line: str) -> bool:
    """True when ``line`` is a well-formed JSON-RPC request of a method MCP defines.

    Anything else (not JSON, not an object, a wrong ``jsonrpc``, an unknown method, params
    that are not an object) is a frame JSON-RPC answers with a Parse error / Invalid
    Request / Method not found, which the MCP library's reader does not send yet.
    """
    try:
        frame = json.loads(line)
    except (ValueError, RecursionError):
        return False
    if not isinstance(frame, dict) or frame.get("jsonrpc") != "2.0":
        return False
    rid, params = frame.get("id"), frame.get("params", {})
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        return False
    if frame.get("method") not in _KNOWN_METHODS or not isinstance(params, dict):
        return False
    if frame["method"] == "tools/call":
        return isinstance(params.get("name"), str) and isinstance(
            params.get("arguments", {}), dict)
    return frame["method"] != "initialize"  # a second initialize: library-defined


def _is_notification(line: str) -> bool:
    """True when ``line`` is a JSON-RPC notification (an object with a method and no id):
    the server must not reply to it, whatever the method."""
    try:
        frame = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return (
        isinstance(frame, dict)
        and frame.get("jsonrpc") == "2.0"
        and isinstance(frame.get("method"), str)
        and "id" not in frame
    )


def fuzz_mcp(
    n: int = 100, *, seed: int = 0, reply_timeout_s: float = 10.0, bad_frame_timeout_s: float = 2.0
) -> TargetCounts:
    """Send ``n`` raw frames (after a valid initialize) to ``scenariogen serve-tools``.

    Outcomes: ``ok`` (a reply came: a result, an ``isError`` tool result or a JSON-RPC
    error), ``hang`` (a well-formed request got no reply within ``reply_timeout_s``),
    ``unanswered_bad_frame`` (a malformed frame, see :func:`_is_request`, got no reply
    within ``bad_frame_timeout_s``: JSON-RPC wants an error reply), ``traceback``
    (the server died or closed a
    stream); ``server_traceback`` counts a traceback on the server's stderr.
    """
    import selectors

    tally = _Tally("mcp")
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator.cli", "serve-tools"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)

    def send(line: str) -> None:
        proc.stdin.write(line.replace("\n", " ") + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def read_reply(timeout: float) -> str | None:
        if not sel.select(timeout):
            return None
        return proc.stdout.readline()  # type: ignore[union-attr]

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"}}}))
        read_reply(60.0)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for i in range(n):
            rng = random.Random(f"{seed}:mcp:{i}")
            id_case = fuzz_inputs.id_frame(rng) if i % 4 == 3 else None
            line, needs_reply = (id_case[1], id_case[0] == "request") if id_case else (
                _mcp_frames(rng))

            def exchange(line: str = line, needs_reply: bool = needs_reply,
                         id_case: tuple[str, str, Any] | None = id_case) -> str:
                if proc.poll() is not None:
                    return "traceback|server exited with code " + str(proc.returncode)
                try:
                    send(line)
                except (BrokenPipeError, OSError):
                    return "traceback|server closed stdin"
                if id_case is not None:  # an id of any JSON type: the reply is checked
                    kind, _, rid = id_case
                    reply = read_reply(reply_timeout_s if kind == "request"
                                       else bad_frame_timeout_s)
                    outcome = fuzz_inputs.check_id_reply(kind, rid, reply)
                    return "ok" if outcome == "user_error" else outcome  # a reply came
                well_formed = _is_request(line)
                reply = read_reply(reply_timeout_s if well_formed else bad_frame_timeout_s)
                if reply is None and _is_notification(line):
                    return "ok"  # JSON-RPC: a notification gets no reply
                if reply is None and not line.strip():
                    return "ok"  # a blank line is framing, not a message
                if reply is None and not well_formed:
                    # JSON-RPC wants a Parse error / Invalid Request reply; counted apart.
                    return "unanswered_bad_frame"
                if reply is None:
                    return "hang|no reply" if needs_reply else "ok"
                return "ok" if reply.strip() else "traceback|server closed stdout"

            tally.add(exchange, line[:200], reply_timeout_s + 5)
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stderr = proc.stderr.read()
    if "Traceback" in stderr:
        tally.counts["server_traceback"] += 1
        tally.examples.append("server stderr holds a traceback: " + stderr[-300:])
    return tally.result(n)


__all__ = [
    "FuzzReport", "TargetCounts", "fuzz", "fuzz_mcp", "mutate_text", "random_value", "run_cli",
]
