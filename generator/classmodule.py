"""Optional per-class modules found by convention: ``assets.<class>.<part>``.

The framework's registries (held-out margins and decoys, the audit's re-derivations) are
filled by modules an asset class may or may not have; this finds them without importing a
module that is absent.
"""

from __future__ import annotations

import importlib.util


def class_module(asset_class: str, part: str) -> str | None:
    """The dotted name of ``assets.<asset_class>.<part>`` when it exists, else None."""
    name = f"assets.{asset_class}.{part}"
    try:
        found = importlib.util.find_spec(name)
    except ModuleNotFoundError:  # no package assets.<asset_class>
        return None
    return None if found is None else name
