"""Reading the project's YAML data files (asset classes, policies, corpora, templates).

Loaded through :func:`generator.safeparse.yaml_loads`: no aliases (an alias bomb cannot
expand), bounded size and nesting depth, so a broken or hostile file fails fast with one
line.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from generator.errors import UserError
from generator.safeparse import YAML, UnsafeInput, yaml_loads


def read_yaml(path: Path) -> object:
    """Parse a YAML file; an unreadable file, bad syntax or a broken limit is one line."""
    try:
        size = path.stat().st_size
        if size > YAML.max_chars * 4:
            raise UserError(
                f"{path} is {size:,} bytes, over the YAML limit of {YAML.max_chars:,} "
                "characters",
                fix="give a smaller file",
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:  # a NUL in the path
        raise UserError(f"cannot read {path!r}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"cannot read {path}: not UTF-8 ({exc.reason})") from None
    try:
        return yaml_loads(text)
    except UnsafeInput as exc:
        raise UserError(f"{path}: {exc}", fix="give a smaller file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise UserError(
            f"{path}:{where} is not valid YAML ({getattr(exc, 'problem', None) or exc})",
            fix="fix the YAML at that position (aliases are not allowed; nest at most "
            f"{YAML.max_depth} levels)",
        ) from None
