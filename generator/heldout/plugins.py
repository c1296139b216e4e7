"""An asset class's held-out module, imported by convention: ``assets.<class>.heldout``.

The module registers the class's own margin checks and decoy makers
(:func:`generator.heldout.margins.margin`, :func:`generator.heldout.decoys.decoy`, both
exported by :mod:`generator.api`). A class without one gets the generic checks only.
"""

from __future__ import annotations

import importlib
from functools import cache

from generator.classmodule import class_module


@cache
def load_heldout_module(asset_class: str) -> bool:
    """Import the class's held-out module (it registers its checks once); False when the
    class has none."""
    name = class_module(asset_class, "heldout")
    if name is None:
        return False
    importlib.import_module(name)
    return True
