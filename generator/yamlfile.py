"""Reading the project's YAML data files (asset classes, policies, corpora, templates)."""

from __future__ import annotations

from pathlib import Path

import yaml

from generator.errors import UserError


def read_yaml(path: Path) -> object:
    """Parse a YAML file; an unreadable file or bad syntax is one line with the position."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise UserError(
            f"{path}:{where} is not valid YAML ({getattr(exc, 'problem', exc)})",
            fix="fix the YAML syntax at that position",
        ) from None
