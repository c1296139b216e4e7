"""What the fuzzers share: random JSON-ish values and running the CLI in-process.

The CLI registers its entry point here when it is imported (:func:`use_cli`), so the fuzzers
(:mod:`generator.fuzzing`, :mod:`generator.fuzz_inputs`) run it without importing the CLI
that offers them as ``scenariogen bench fuzz``.
"""

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import Callable
from typing import Any

_CLI: Callable[[list[str] | None], None] | None = None


def use_cli(main: Callable[[list[str] | None], None]) -> None:
    """Register the CLI entry (``generator.cli.main``) :func:`run_cli` runs."""
    global _CLI
    _CLI = main


# Tokens that broke something once, or are classic trouble for parsers and validators.
NASTY_STRINGS = (
    "", " ", "\x00", "\u202e", "\u2066", "\ud7ff", "'", '"', "\\", "{", "[", "}", "]", "*a",
    "&a", "!!python/object:os.system", "%s%n", "../../etc/passwd", "/", "NaN", "Infinity",
    "-Infinity", "1e308", "-1", "0", "9" * 5000, "A" * 100_000, "EAST-TX01", "true", "null",
    "2026-13-45", "2026-06-01T25:61:00", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "é" * 300, "<script>", "${HOME}",
)
NASTY_NUMBERS: tuple[Any, ...] = (
    0, -1, 1, 2**31, 2**63, -(2**63), 10**30, 1e308, -1e308, 5e-324, float("nan"),
    float("inf"), float("-inf"), 0.5, -0.0, 1e6 + 1, 300.0, -61.0, True, False, None,
)


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON-ish value (floats may be NaN or infinite: tools get them directly)."""
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice(NASTY_STRINGS)
    if kind == 1:
        return rng.choice(NASTY_NUMBERS)
    if kind == 2:
        return rng.uniform(-1e4, 1e4)
    if kind == 3:
        return "".join(chr(rng.randrange(32, 0x2100)) for _ in range(rng.randint(0, 20)))
    if kind == 4:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if kind == 5:
        return {rng.choice(("a", "asset_id", "x", "")): random_value(rng, depth + 1)
                for _ in range(rng.randint(0, 3))}
    return rng.choice((None, True, False))


def run_cli(argv: list[str]) -> str:
    """Run ``scenariogen argv`` in this process: its outcome (see :mod:`generator.fuzzing`).

    Raises:
        RuntimeError: No CLI entry is registered (:func:`use_cli`; importing
            :mod:`generator.cli` registers it).
    """
    main = _CLI
    if main is None:
        raise RuntimeError("the CLI entry the fuzzer runs is not registered: import "
                           "generator.cli (it calls generator.fuzz_run.use_cli)")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    text = err.getvalue()
    if "Traceback" in text:
        return "traceback|" + text[-200:]
    if code == 0:
        return "ok"
    if code == 2:
        lines = [line for line in text.splitlines() if line.strip()]
        return "user_error" if len(lines) == 1 else "not_one_line|" + text[:200]
    return "other_exit"
