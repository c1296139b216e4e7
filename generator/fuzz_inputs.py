"""The input classes of issue 28 for ``bench fuzz``: special files, class names, JSON-RPC
ids and YAML scalars.

Each builder takes a local ``random.Random`` and returns ``(run, shown)``: ``run()`` feeds
one input to its boundary and returns an outcome (``ok``, ``user_error``,
``traceback|why``); :mod:`generator.fuzzing` times it and counts it. Beyond "no traceback,
no hang", each class checks what the issue asked for, and a breach counts as a traceback:

* ``special``: a FIFO, a device, a folder, a socket or a symlink to one (alone or as a
  run folder's file) is never read as data: every reader and command refuses it;
* ``names``: a class name or run id is refused before any path is built from it, nothing
  appears under ``assets/``, and no run folder is left behind;
* ``ids``: a request whose id is not a string or an integer gets -32600 with id null, a
  valid id is echoed, a notification is never answered;
* ``scalars``: an asset.yaml that loads has finite, ordered ranges and settings and YAML
  booleans for ``default`` and ``draft``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

INPUT_CLASSES = ("special", "names", "ids", "scalars")

Case = tuple[Callable[[], str], str]

# -- special files -------------------------------------------------------------------------

SPECIAL_KINDS = ("dev_zero", "dev_null", "dev_urandom", "fifo", "folder", "socket",
                 "link_to_zero", "link_to_fifo", "link_loop", "dangling_link")


def make_specials(work: Path) -> dict[str, Path]:
    """The special files of :data:`SPECIAL_KINDS` (made once under ``work``), plus
    ``run_folder``: a run folder whose manifest, accepted lines and scenario list are
    special files."""
    root = work / "special"
    root.mkdir()
    os.mkfifo(root / "fifo")
    (root / "folder").mkdir()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "socket"))  # the socket file outlives the socket
    (root / "link_to_zero").symlink_to("/dev/zero")
    (root / "link_to_fifo").symlink_to(root / "fifo")
    (root / "loop_a").symlink_to(root / "loop_b")
    (root / "loop_b").symlink_to(root / "loop_a")
    (root / "dangling_link").symlink_to(root / "nowhere")
    run = root / "run"
    run.mkdir()
    (run / "manifest.json").symlink_to("/dev/zero")
    os.mkfifo(run / "accepted.jsonl")
    os.mkfifo(run / "scenarios.json")
    return {
        "dev_zero": Path("/dev/zero"), "dev_null": Path("/dev/null"),
        "dev_urandom": Path("/dev/urandom"), "fifo": root / "fifo", "folder": root / "folder",
        "socket": root / "socket", "link_to_zero": root / "link_to_zero",
        "link_to_fifo": root / "link_to_fifo", "link_loop": root / "loop_a",
        "dangling_link": root / "dangling_link", "run_folder": run,
    }


def fifos(specials: dict[str, Path]) -> list[Path]:
    """The FIFOs among :func:`make_specials`' files (the run folder's too)."""
    if not specials:
        return []
    run = specials["run_folder"]
    return [specials["fifo"], run / "accepted.jsonl", run / "scenarios.json"]


def release_fifos(paths: list[Path], seconds: float = 3.0) -> None:
    """For ``seconds``, open each FIFO for writing and close it again, in a daemon thread:
    a reader blocked in ``open()`` or ``read()`` (a regression: the readers must never
    open one) sees end-of-file and its thread ends."""

    def release() -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for path in paths:
                with contextlib.suppress(OSError):  # ENXIO: nobody is reading it
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            time.sleep(0.05)

    threading.Thread(target=release, daemon=True).start()


@contextlib.contextmanager
def bounded_memory(extra_bytes: int = 2 << 30) -> Iterator[None]:
    """Cap this process's address space at its size now plus ``extra_bytes``: a reader
    that reads ``/dev/zero`` to the end (a regression) raises MemoryError, counted as a
    traceback, instead of filling the machine's memory."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm", encoding="ascii") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        cap = size + extra_bytes
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        if soft != resource.RLIM_INFINITY:
            cap = min(cap, soft)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, OSError, ValueError):  # not Linux: no cap
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _readers() -> dict[str, Callable[[Path], object]]:
    """Every in-process reader of a file the user names."""
    from generator.assetdef import load_asset_file
    from generator.envfile import load_env_file, parse_env_file
    from generator.export.ids import read_map
    from generator.generate.checks.validate import against_index, load_scenario_file
    from generator.generate.run.policy import load_policy_file
    from generator.heldout.secret import load_secret
    from generator.llm.fake import ScriptedChatModel
    from generator.llm.spec import parse_llm
    from generator.plugins import evaluation
    from generator.safeparse import load_json_file
    from generator.yamlfile import read_yaml

    return {
        "load_scenario_file": load_scenario_file,
        "against_index": lambda p: against_index(p, 0.9),
        "fake_script": ScriptedChatModel.from_file,
        "parse_llm_fake": lambda p: parse_llm(f"fake:{p}"),
        "load_json_file": lambda p: load_json_file(p, "file"),
        "load_secret": load_secret,
        "parse_env_file": parse_env_file,
        "load_env_file": load_env_file,
        "read_yaml": read_yaml,
        "load_asset_file": load_asset_file,
        "load_policy_file": load_policy_file,
        "read_map": read_map,
        **evaluation().file_readers(),  # the grading layer's readers (answers, dry runs)
    }


def _special_argv(rng: random.Random, path: Path, work: Path) -> list[str]:
    good = str(work / "good.json")
    out = str(work / "special-out")
    return rng.choice((
        ["validate", str(path)], ["validate", good, "--against", str(path)],
        ["evaluate", str(path), good], ["evaluate", good, str(path)],
        ["generate", "-n", "2", "--against", str(path), "--out", out],
        ["generate", "-n", "2", "--llm", f"fake:{path}", "--out", out],
        ["profile", "--llm", f"fake:{path}", "--no-cache"],
        ["score", str(path)], ["score", good, "--dry-run-file", str(path)],
        ["dryrun-report", str(path)], ["difficulty-report", str(path), "--scenarios", good],
        ["difficulty-report", good, "--scenarios", str(path)],
        ["heldout", "scan", out, "--secret-file", str(path)],
        ["bench", "validate", str(path)], ["bench", "language", "--from", str(path)],
        ["export", str(path), "--id-map", good],
    ))


def _run_folder_argv(rng: random.Random, run: Path, work: Path) -> list[str]:
    return rng.choice((
        ["audit", str(run)], ["export", str(run)], ["evaluate", str(run), str(work / "good.json")],
        ["score", str(run)], ["bench", "language", "--from", str(run)],
        ["generate", "-n", "2", "--resume", run.name, "--out", str(run.parent)],
    ))


def special_case(rng: random.Random, work: Path, specials: dict[str, Path]) -> Case:
    """One special file given to one reader or one command: it must be refused."""
    kind = rng.choice((*SPECIAL_KINDS, "run_folder"))
    path = specials[kind]
    if kind == "run_folder":
        argv = _run_folder_argv(rng, path, work)
    elif rng.random() < 0.5:
        argv = _special_argv(rng, path, work)
    else:
        name, reader = rng.choice(sorted(_readers().items()))

        def read() -> str:
            reader(path)
            return f"traceback|{name} read the {kind} {path} as data"

        return read, f"{name}({kind})"

    def run() -> str:
        from generator.fuzz_run import run_cli

        outcome = run_cli(argv)
        if outcome == "ok":
            return f"traceback|{' '.join(argv)} accepted the {kind}"
        return outcome

    return run, " ".join(argv)


# -- class names and run ids ---------------------------------------------------------------

NAME_PARTS = (
    "..", ".", "/", "//", "\x00", " ", "\t", "\n", "~", "$HOME", "%2e%2e", "assets",
    "__init__", "__pycache__", "a" * 300, "a" * 41, "a" * 40, "_x", "1abc", "-", "etc",
    "passwd", "\\", ":", "*", "?", "con", "nul", "\u202e", "..\\..", "x y", "run-01",
)


@functools.cache
def _class_variants() -> tuple[str, ...]:
    """The shipped class names and look-alikes of them (case, accents, width, a zero-width
    space), from the asset folders: the framework names no class itself."""
    from generator.assetdef import available_asset_classes

    out: list[str] = []
    for name in available_asset_classes():
        wide = "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in name)
        out += [name, name.title(), name.upper(), name[:2] + "\u0301" + name[2:],
                name + "\u200b", wide]
    return tuple(out)


def random_name(rng: random.Random) -> str:
    """A class name or run id: a valid one now and then, mostly pieces of trouble."""
    classes = _class_variants()
    if rng.random() < 0.15:
        return rng.choice((*classes[::6], "pump", "run-01", "a" * 40))
    return "".join(rng.choice(NAME_PARTS + classes) for _ in range(rng.randint(1, 4)))


def names_case(rng: random.Random, work: Path) -> Case:
    """One name through a loader or a command; nothing may appear outside ``work``."""
    from generator.assetdef import ASSETS_DIR, class_folder, load_asset_class

    name = random_name(rng)
    out = work / f"names-out-{rng.randrange(10**9)}"
    kind = rng.randrange(9)
    argv = [
        ["assets", "check", name], ["profile", name, "--no-cache"], ["inventory", name],
        ["generate", name, "-n", "1", "--out", str(out)],
        ["generate", "-n", "1", "--run-id", name, "--out", str(out)],
        ["generate", "-n", "1", "--resume", name, "--out", str(out)],
        ["tools", "list", "--asset", name], [], [],
    ][kind]

    def run() -> str:
        before = sorted(os.listdir(ASSETS_DIR))
        if kind == 7:
            load_asset_class(name)
            outcome = "ok"
        elif kind == 8:
            class_folder(name)
            outcome = "ok"
        else:
            from generator.fuzz_run import run_cli

            outcome = run_cli(argv)
        if sorted(os.listdir(ASSETS_DIR)) != before:
            return f"traceback|assets/ changed after {name!r}"
        if out.is_dir() and any(out.iterdir()):
            return f"traceback|a run folder was left: {sorted(os.listdir(out))}"
        return outcome

    return run, f"{kind}:{name!r}"


# -- JSON-RPC ids ------------------------------------------------------------------------

ID_VALUES: tuple[Any, ...] = (
    1.5, True, False, None, [1], {}, {"a": 1}, [], 1.0, -0.0, 1e3, 1e308, -2.5, "x", "",
    "1", 0, -1, 7, 2**53 + 1, 2**63, "\u202e", "a" * 1000,
)


def valid_id(value: object) -> bool:
    """A JSON-RPC id MCP accepts: a string or an integer (not a boolean)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def id_frame(rng: random.Random) -> tuple[str, str, Any]:
    """``(kind, line, id)``: a request, a notification or a response with an id of any
    JSON type (kind ``request``, ``notification`` or ``response``)."""
    from generator.fuzz_run import random_value

    rid = rng.choice(ID_VALUES) if rng.random() < 0.8 else random_value(rng)
    if isinstance(rid, float) and not math.isfinite(rid):
        rid = 1.5
    method = rng.choice(("tools/list", "ping", "tools/call", "nosuch/method"))
    kind = rng.choice(("request", "request", "notification", "response"))
    frame: dict[str, Any] = {"jsonrpc": "2.0"}
    if kind == "request":
        frame |= {"id": rid, "method": method}
        if rng.random() < 0.5:
            frame["params"] = {"name": "sites", "arguments": {}} if method == "tools/call" else {}
    elif kind == "notification":
        frame["method"] = rng.choice(("notifications/initialized", "notifications/nosuch",
                                      "notifications/cancelled"))
        if rng.random() < 0.5:
            frame["params"] = {}
    else:
        frame |= {"id": rid, "result": {}}
    items = list(frame.items())
    rng.shuffle(items)  # key order must not matter
    return kind, json.dumps(dict(items), default=str), rid


def check_id_reply(kind: str, rid: Any, reply: str | None) -> str:
    """The outcome of one frame given the wire's reply (``None``: no reply)."""
    if kind == "notification":
        return "traceback|a notification was answered" if reply is not None else "ok"
    if kind == "response":
        return "ok" if reply is None else "user_error"
    if reply is None:
        return "ok" if valid_id(rid) else f"traceback|no reply to a request with id {rid!r}"
    answer = json.loads(reply)
    if not valid_id(rid):
        if answer.get("id") is not None or answer.get("error", {}).get("code") != -32600:
            return f"traceback|id {rid!r}: wanted -32600 with id null, got {reply[:120]}"
    elif answer.get("id") != rid:
        return f"traceback|id {rid!r} came back as {answer.get('id')!r}"
    return "user_error"


def ids_case(rng: random.Random) -> Case:
    """One frame through the wire's checker (the live servers: :func:`fuzz_mcp`)."""
    from generator.mcp.wire import check_frame

    kind, line, rid = id_frame(rng)
    return (lambda: check_id_reply(kind, rid, check_frame(line))), line


# -- YAML scalars in asset.yaml ----------------------------------------------------------

RANGE_SCALARS = (
    ".inf", "-.inf", ".Inf", "-.INF", ".nan", ".NaN", "1.0e309", "-1.0e309", "1e309", "'5'",
    '"5"', "null", "~", "yes", "true", "[]", "0x10", "1_000", "5", "-5", "1.5e3", "nan", "inf",
    "Infinity", "1.0e-400", "12:30", "0", "100", "-40", "250.5",
)
BOOL_SCALARS = (
    "true", "false", "yes", "no", "on", "off", "True", "FALSE", "'yes'", '"true"', "1", "0",
    "null", "~", "''", "y", "n", "[true]", '"no"',
)


def _scalar_text(rng: random.Random, source: str) -> str:
    """The class's asset.yaml with some ranges, settings and booleans replaced."""
    lines = source.splitlines()
    for _ in range(rng.randint(1, 3)):
        what = rng.randrange(4)
        if what == 0:
            spots = [i for i, line in enumerate(lines) if "range: [" in line]
            i = rng.choice(spots)
            head, _, rest = lines[i].partition("range: [")
            tail = rest.partition("]")[2]
            lines[i] = (f"{head}range: [{rng.choice(RANGE_SCALARS)}, "
                        f"{rng.choice(RANGE_SCALARS)}]{tail}")
        elif what == 1:
            spots = [i for i, line in enumerate(lines) if "setting: " in line]
            if spots:
                i = rng.choice(spots)
                head, _, rest = lines[i].partition("setting: ")
                lines[i] = f"{head}setting: {rng.choice(RANGE_SCALARS)},{rest.partition(',')[2]}"
        else:
            key = "default" if what == 2 else "draft"
            lines = [line for line in lines if not line.startswith(f"{key}:")]
            lines.insert(1, f"{key}: {rng.choice(BOOL_SCALARS)}")
    return "\n".join(lines) + "\n"


def _breach(asset: Any, raw: Any) -> str | None:
    """What a loaded class breaks (None: nothing): finite ordered ranges, finite settings,
    YAML booleans."""
    for sensor in asset.sensors:
        low, high = sensor.range
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            return f"sensor {sensor.name} range {sensor.range}"
    for contact in asset.contacts:
        if not math.isfinite(contact.setting):
            return f"contact {contact.flag} setting {contact.setting}"
    for key in ("default", "draft"):
        if key in raw and not isinstance(raw[key], bool):
            return f"{key}: {raw[key]!r} read as {getattr(asset, key)}"
    return None


@contextlib.contextmanager
def scratch_cache(work: Path) -> Iterator[None]:
    """Keep the YAML parse cache of fuzzed files in ``work``, not in the project's cache."""
    previous = os.environ.get("SCENARIOGEN_CACHE_DIR")
    os.environ["SCENARIOGEN_CACHE_DIR"] = str(work / "cache")
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("SCENARIOGEN_CACHE_DIR", None)
        else:
            os.environ["SCENARIOGEN_CACHE_DIR"] = previous


def scalars_case(rng: random.Random, work: Path) -> Case:
    """One asset.yaml with fuzzed scalars: refused, or loaded with every value sound."""
    from generator.assetdef import ASSETS_DIR, default_asset_class, load_asset_file

    cls = default_asset_class()
    text = _scalar_text(rng, (ASSETS_DIR / cls / "asset.yaml").read_text(encoding="utf-8"))
    folder = work / f"s{rng.randrange(10**9)}" / cls
    folder.mkdir(parents=True)
    path = folder / "asset.yaml"
    path.write_text(text, encoding="utf-8")

    def run() -> str:
        asset = load_asset_file(path)
        breach = _breach(asset, yaml.safe_load(text))
        return f"traceback|loaded with {breach}" if breach else "ok"

    changed = [line.strip() for line in text.splitlines()
               if any(s in line for s in ("range: [", "setting: ", "default:", "draft:"))]
    return run, " | ".join(changed)[:300]


__all__ = [
    "INPUT_CLASSES",
    "check_id_reply",
    "id_frame",
    "ids_case",
    "make_specials",
    "names_case",
    "random_name",
    "scalars_case",
    "scratch_cache",
    "special_case",
    "valid_id",
]
