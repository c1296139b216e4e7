"""Leak scan: no secret, answer value or private asset id in a public file or log.

What counts as a leak (tiny common numbers such as 1, 0.5 or 24 would match everywhere, so
they are not answer tokens):

- the secret (and the night key), verbatim;
- an **answer value** that is not a stated fact of the question: a string leaf of a
  reference answer with at least :data:`MIN_STRING` characters and a digit (dates,
  timestamps, work-order and asset ids, matched whole, as tokens; class words such as
  "normal" or "already raised" come from a small public vocabulary every question shares,
  so seeing one says nothing about an answer), or a number with at least
  :data:`MIN_DIGITS` significant digits, looked for as written and rounded to 1 and 2
  decimals (a rounded value the grader accepts) while it keeps that many digits;
- a **private asset id**: an asset of the private fleet that no public text mentions (the
  ones a text asks about are public by construction).

A value a question states on purpose (a parameter, grounding fact or mention of any
instance's seed: the window's end day, the asset asked about) is a given, not a leak; it is
removed from the tokens before the scan. The texts themselves are not the basis (a text that
leaked an answer would otherwise excuse itself).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.safeparse import FILE
from generator.userfile import read_text

MIN_STRING = 6
MIN_DIGITS = 4


class LeakHit(BaseModel):
    """One leak found (the token itself is never stored in a public report)."""

    model_config = ConfigDict(extra="forbid")

    file: str = Field(description="File the token was found in (relative to the scanned root)")
    kind: str = Field(description="secret, answer_value or private_asset_id")
    line: int = Field(description="1-based line of the first occurrence")


class LeakReport(BaseModel):
    """What the scan looked at and found; counts only, safe to publish."""

    model_config = ConfigDict(extra="forbid")

    files: int = Field(description="Files scanned")
    tokens: dict[str, int] = Field(description="Tokens looked for, per kind")
    hits: list[LeakHit] = Field(default_factory=list, description="Leaks found")

    @property
    def clean(self) -> bool:
        """True when nothing leaked."""
        return not self.hits


def _leaves(value: Any) -> Iterable[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _significant_digits(text: str) -> int:
    if "." in text:
        text = text.rstrip("0")  # 98.50 carries the digits of 98.5
    digits = re.sub(r"[^0-9]", "", text).lstrip("0")
    return len(digits)


def number_renderings(value: float) -> set[str]:
    """How a number may be written (as is, rounded to 1 or 2 decimals) with enough digits."""
    if not math.isfinite(value):
        return set()
    forms = {repr(value) if isinstance(value, float) else str(value)}
    if isinstance(value, float):
        if value.is_integer():
            forms.add(str(int(value)))
        forms |= {f"{value:.2f}", f"{value:.1f}"}
    return {f for f in forms if _significant_digits(f) >= MIN_DIGITS}


def answer_tokens(reference: Any) -> set[str]:
    """The strings a leak of this reference would show (see the module docstring)."""
    out: set[str] = set()
    for leaf in _leaves(reference):
        if isinstance(leaf, bool) or leaf is None:
            continue
        if isinstance(leaf, int | float):
            out |= number_renderings(leaf)
        elif (isinstance(leaf, str) and len(leaf.strip()) >= MIN_STRING
              and any(c.isdigit() for c in leaf)):
            out.add(leaf.strip())
    return out


def _pattern(token: str) -> re.Pattern[str]:
    # whole-token match: not inside a longer number or word
    return re.compile(r"(?<![\w.])" + re.escape(token) + r"(?![\w]|\.\d)")


def stated(token: str, text: str) -> bool:
    """True when ``text`` states ``token`` as a whole token."""
    return _pattern(token).search(text) is not None


class LeakScanner:
    """Tokens to look for, by kind; :meth:`scan` walks a folder of public files."""

    def __init__(self) -> None:
        self.tokens: dict[str, set[str]] = {"secret": set(), "answer_value": set(),
                                            "private_asset_id": set()}

    def add(self, kind: str, tokens: Iterable[str]) -> None:
        """Look for ``tokens`` (empty strings are ignored) as leaks of ``kind``."""
        self.tokens[kind] |= {t for t in tokens if t}

    def add_instance(self, reference: Any, given: set[str]) -> None:
        """An instance's answer tokens, minus the ``given`` values questions state."""
        self.add("answer_value", (t for t in answer_tokens(reference) if t not in given))

    def scan_text(self, text: str, name: str) -> list[LeakHit]:
        """Leaks in one text."""
        hits = []
        for kind, tokens in self.tokens.items():
            for token in sorted(tokens):
                found = token in text if kind == "secret" else stated(token, text)
                if found:
                    line = text[: text.find(token)].count("\n") + 1
                    hits.append(LeakHit(file=name, kind=kind, line=line))
        return hits

    def scan(self, paths: Iterable[Path], root: Path) -> LeakReport:
        """Scan every file in ``paths`` (folders recursively); names relative to ``root``."""
        files: list[Path] = []
        for p in paths:
            if p.is_dir():
                files.extend(sorted(f for f in p.rglob("*") if f.is_file()))
            elif p.exists():  # a FIFO or device is refused by the read, never skipped
                files.append(p)
        hits: list[LeakHit] = []
        for f in files:
            text = read_text(f, "file to scan", max_bytes=FILE.max_bytes, errors="replace")
            try:
                name = str(f.relative_to(root))
            except ValueError:
                name = f.name
            hits.extend(self.scan_text(text, name))
        return LeakReport(
            files=len(files), tokens={k: len(v) for k, v in self.tokens.items()}, hits=hits
        )


def scanner_for_run(root: Path, secrets: Iterable[str]) -> LeakScanner:
    """The tokens of a held-out run folder: its secrets, answers and unmentioned asset ids."""
    import json

    private = root / "private"
    instances = json.loads((private / "instances.json").read_text(encoding="utf-8"))
    fleet = json.loads((private / "fleet.json").read_text(encoding="utf-8"))
    scanner = LeakScanner()
    scanner.add("secret", secrets)
    given: set[str] = set()
    for inst in instances:
        seed = inst["seed"]
        given |= answer_tokens([seed["params"], seed["grounding"], seed["mentions"]])
    for inst in instances:
        scanner.add_instance(inst["record"]["reference_answer"], given)
    public_text = "\n".join(i["record"]["text"] for i in instances)
    scanner.add("private_asset_id", (a for a in fleet.get("assets", [])
                                     if not stated(a, public_text)))
    return scanner


def scan_run(root: Path, secrets: Iterable[str], extra: Iterable[Path] = ()) -> LeakReport:
    """Scan ``root/public`` and ``extra`` files (logs) for the run's tokens."""
    scanner = scanner_for_run(root, secrets)
    return scanner.scan([root / "public", *extra], root)
