"""Bounded parsing of untrusted JSON and YAML: size, nesting depth, integer digits.

Every input we do not write ourselves (``--args``, scenario files for ``validate`` and
``--against``, ``fake:`` scripts, LLM replies, asset and policy YAML) goes through here, so
a hostile or broken input costs at most a bounded amount of time and memory and fails
with one line instead of a traceback:

* **size**: the text is refused before parsing when it is longer than ``max_chars``;
* **depth**: arrays / objects (or YAML collections) nested deeper than ``max_depth`` are
  refused (CPython's parsers would otherwise hit ``RecursionError``, and our recursive
  readers of parsed values would at ~1 000 levels);
* **integers**: a literal with more than ``max_int_digits`` digits is refused before it is
  converted (CPython refuses over 4 300 digits with a ``ValueError`` from deep inside, and
  converting a huge literal is quadratic);
* **strict JSON**: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON and are refused;
* **YAML**: aliases (``*anchor``) are refused, so an alias bomb cannot expand.

The JSON functions raise :class:`UnsafeInput` (a ``ValueError``, like
``json.JSONDecodeError``, so callers that treat bad JSON as data keep working);
:func:`load_json_file` wraps every failure into one :class:`generator.errors.UserError`
(and reads through :mod:`generator.userfile`: regular files only, at most the size limit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.errors import UserError
from generator.userfile import read_text


@dataclass(frozen=True)
class Limits:
    """Bounds for one kind of input."""

    max_chars: int = 1_000_000
    max_depth: int = 64
    max_int_digits: int = 100

    @property
    def max_bytes(self) -> int:
        """The size bound in bytes of a file holding ``max_chars`` (UTF-8: at most 4 bytes
        a character)."""
        return self.max_chars * 4


# Command-line arguments (``--args``) and single tool calls.
ARGS = Limits(max_chars=1_000_000, max_depth=32)
# LLM replies: a batch of scenarios is a few kB; 1 MB leaves room for a verbose model.
REPLY = Limits(max_chars=1_000_000, max_depth=64)
# Scenario files (``validate``, ``--against``) and ``fake:`` scripts. 200 000 scenarios
# of ~2 kB each is ~400 MB; the bound stops a runaway file, not a large real one.
FILE = Limits(max_chars=1_000_000_000, max_depth=64)
# The project's YAML data (asset classes, policies, templates, literature).
YAML = Limits(max_chars=5_000_000, max_depth=64)


class UnsafeInput(ValueError):
    """The input breaks one of the limits (or is not strict JSON); the message says which."""


def _nesting_exceeds(value: Any, max_depth: int) -> bool:
    """True when arrays / objects of a parsed value nest deeper than ``max_depth``.

    Iterative (no recursion) and visits containers only; on scenario files it costs less
    than the parse itself, where a pre-parse scan of the text cost four times more.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def _refuse_constant(name: str) -> Any:
    raise UnsafeInput(f"{name} is not strict JSON (no NaN or Infinity)")


def loads(text: str | bytes, limits: Limits = REPLY) -> Any:
    """Parse strict JSON within ``limits``.

    Raises:
        UnsafeInput: too long, nested too deep, an integer with too many digits, or NaN /
            Infinity.
        json.JSONDecodeError: not JSON at all.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if len(text) > limits.max_chars:
        raise UnsafeInput(
            f"input is {len(text):,} characters, over the limit of {limits.max_chars:,}"
        )
    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > limits.max_int_digits:
            raise UnsafeInput(
                f"an integer has {len(digits.lstrip('-')):,} digits, over the limit of "
                f"{limits.max_int_digits}"
            )
        return int(digits)

    def parse_float(literal: str) -> float:
        if len(literal) > limits.max_int_digits + 32:
            raise UnsafeInput(
                f"a number has {len(literal):,} characters, over the limit of "
                f"{limits.max_int_digits + 32}"
            )
        return float(literal)

    try:
        value = json.loads(
            text, parse_int=parse_int, parse_float=parse_float, parse_constant=_refuse_constant
        )
    except RecursionError:  # CPython's scanner gives up near 1 000 levels
        raise UnsafeInput(f"arrays/objects nested deeper than {limits.max_depth} levels") from None
    if isinstance(value, dict | list) and _nesting_exceeds(value, limits.max_depth):
        raise UnsafeInput(f"arrays/objects nested deeper than {limits.max_depth} levels")
    return value


def describe(exc: ValueError) -> str:
    """The failure as a phrase: ``not valid JSON (... at line L column C)`` for a syntax
    error, ``refused (...)`` for a broken limit."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    if isinstance(exc, UnsafeInput):
        return f"refused ({exc})"
    return f"not valid JSON ({exc})"


def load_json_file(path: Path, what: str, limits: Limits = FILE) -> Any:
    """Read and parse a JSON file; every failure is one :class:`UserError` naming the file.

    Args:
        path: The file.
        what: What the file is, for the message (e.g. ``"fake LLM script"``).
        limits: Bounds to apply.
    """
    text = read_text(path, what, max_bytes=limits.max_bytes)
    try:
        return loads(text, limits)
    except ValueError as exc:
        raise UserError(
            f"{what} {path} is {describe(exc)}",
            fix="fix the file (strict JSON, bounded nesting and number sizes)",
        ) from None


# --- YAML -------------------------------------------------------------------------------


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses aliases, repeated mapping keys and collections nested
    beyond a depth."""

    max_depth = YAML.max_depth

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        # The scanner keeps a possible simple key per open flow level and walks them all
        # for every token: 20 000 unclosed "[" cost minutes before the composer saw one.
        if self.flow_level >= self.max_depth:
            raise yaml.scanner.ScannerError(
                None, None, f"flow collections nested deeper than {self.max_depth} levels",
                self.get_mark(),
            )
        super().fetch_flow_collection_start(TokenClass)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        # PyYAML keeps the last of two equal keys: a merge that doubled `tools:` in an
        # asset.yaml silently dropped a tool module. A repeated key is an error here.
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", seen[key],
                    f"duplicate key {key!r} (each key may appear once in a mapping)",
                    key_node.start_mark,
                )
            if isinstance(key, (str, int, float, bool)):
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in project YAML",
                event.start_mark,
            )
        self._depth += 1
        if self._depth > self.max_depth:
            raise yaml.composer.ComposerError(
                None, None, f"collections nested deeper than {self.max_depth} levels",
                self.peek_event().start_mark,
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def yaml_loads(text: str, limits: Limits = YAML) -> Any:
    """Parse YAML within ``limits``: no aliases, bounded size and depth.

    Raises:
        UnsafeInput: the text is too long.
        yaml.YAMLError: bad syntax, an alias or too deep a nesting (with the position).
    """
    if len(text) > limits.max_chars:
        raise UnsafeInput(
            f"input is {len(text):,} characters, over the limit of {limits.max_chars:,}"
        )
    loader = _BoundedLoader(text)
    loader.max_depth = limits.max_depth
    try:
        return loader.get_single_data()
    except RecursionError:  # pragma: no cover - the depth check runs first
        raise yaml.YAMLError(f"nested deeper than {limits.max_depth} levels") from None
    finally:
        loader.dispose()


__all__ = [
    "ARGS",
    "FILE",
    "REPLY",
    "YAML",
    "Limits",
    "UnsafeInput",
    "describe",
    "load_json_file",
    "loads",
    "yaml_loads",
]
