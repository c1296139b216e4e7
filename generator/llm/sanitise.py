"""One sanitiser for text that crosses the LLM boundary (replies, texts, rubrics).

Stripped: NUL and the other C0 control characters except tab, newline and carriage
return; DEL and the C1 controls (U+007F–U+009F); the bidirectional embedding, override and
isolate controls (U+202A–U+202E, U+2066–U+2069) and the implicit direction marks
(U+200E, U+200F, U+061C), which can make a scenario read differently from what it stores
("Trojan Source"); and the line / paragraph separators U+2028/U+2029, which break
JSONL readers. Nothing else is changed.
"""

from __future__ import annotations

import re
from typing import Any

_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def unsafe_characters(text: str) -> list[str]:
    """The distinct unsafe characters in ``text`` as ``U+XXXX`` codes, in first-seen order."""
    return list(dict.fromkeys(f"U+{ord(c):04X}" for c in _UNSAFE.findall(text)))


def clean_text(text: str) -> str:
    """``text`` without the unsafe characters."""
    return _UNSAFE.sub("", text)


def clean_value(value: Any) -> Any:
    """Every string (keys included) of a parsed JSON value, cleaned; other values unchanged.

    The value comes from a depth-bounded parser (:mod:`generator.safeparse`), so the
    recursion is bounded too.
    """
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean_value(v)
                for k, v in value.items()}
    return value


__all__ = ["clean_text", "clean_value", "unsafe_characters"]
