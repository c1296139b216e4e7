"""The extension API: everything an asset folder (``assets/<class>/``) may import.

An asset class's modules import from this module only, never from the framework's
internal packages (a test enforces it), so the framework can move code behind these names
without breaking a class. Stable names:

- task families: :func:`family`, :class:`Plan`, :class:`FamilyContext`, :class:`Ambiguous`,
  :class:`Reading`, :class:`TaskSeed`, :class:`ToolCall`, :class:`GroundedAsset`;
- tools: :func:`tool`, :class:`ToolContext`, :func:`tool_accepts`;
- the asset definition: :class:`AssetClass`, :func:`load_asset_class`,
  :func:`available_asset_classes`;
- store documents: :data:`Doc`;
- errors: :class:`UserError`, :class:`StoreUnavailable`;
- held-out checks (``assets/<class>/heldout.py``): :func:`margin`, :class:`MarginResult`,
  :func:`call_output`, :func:`decoy`, :class:`DecoyInput`;
- blocking work off the event loop: :func:`to_thread`.
"""

from __future__ import annotations

from generator.assetdef import AssetClass, available_asset_classes, load_asset_class
from generator.concurrency import to_thread
from generator.errors import StoreUnavailable, UserError
from generator.generate.families import Ambiguous, FamilyContext, Plan, Reading, family
from generator.generate.model import TaskSeed, ToolCall
from generator.heldout.decoys import DecoyInput, decoy
from generator.heldout.margins import MarginResult, call_output, margin
from generator.profile.model import GroundedAsset
from generator.store.couch import Doc
from generator.tools.registry import ToolContext, tool


def tool_accepts(tool_name: str, arg: str) -> bool:
    """True when the registered tool ``tool_name`` takes argument ``arg``."""
    from generator.tools.registry import TOOLS

    if tool_name not in TOOLS:
        return False
    return arg in TOOLS.get(tool_name).args.model_fields


__all__ = [
    "Ambiguous",
    "AssetClass",
    "DecoyInput",
    "Doc",
    "FamilyContext",
    "GroundedAsset",
    "MarginResult",
    "Plan",
    "Reading",
    "StoreUnavailable",
    "TaskSeed",
    "ToolCall",
    "ToolContext",
    "UserError",
    "available_asset_classes",
    "call_output",
    "decoy",
    "family",
    "load_asset_class",
    "margin",
    "to_thread",
    "tool",
    "tool_accepts",
]
