"""Nameplate facts the diagnostic tools need: paper, cooling class, rating, size class.

Resolution order for each fact, recorded in the tool's output as its source:

1. ``"argument"``: the caller passed it explicitly (always wins; no store access needed);
2. ``"nameplate"``: the asset is in the store and its nameplate gives it;
3. ``"default"``: documented defaults — Kraft (non-thermally-upgraded) paper, the conservative
   choice (it ages fastest); cooling ONAN with the medium/large characteristics; size class
   "medium" (the class of the previous fixed limits).

The store is read only when a fact is missing from the arguments. A store that cannot be read
then is a user error (one line: pass the value or start the store); a store that is reachable
but does not hold the asset (or holds no nameplates) gives the defaults.

Nameplate fields read (as seeded by :mod:`assets.transformer.simulator`): ``paper``
("kraft" | "upgraded"), ``thermal_class`` (a key of
:data:`assets.transformer.thermal.COOLING`, e.g. "ONAN_distribution"), ``cooling`` (IEC cooling
code, used when ``thermal_class`` is absent) and ``rated_mva``.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field

from assets.transformer.size_class import SizeClass, size_class_of
from assets.transformer.thermal import CoolingClass, Paper
from generator.api import StoreUnavailable, UserError

Source = Literal["argument", "nameplate", "default"]
DEFAULT_PAPER: Paper = "kraft"
DEFAULT_COOLING: CoolingClass = "ONAN"
DEFAULT_SIZE_CLASS: SizeClass = "medium"
DEFAULTS_DOC = (
    "defaults when neither argument nor nameplate gives a value: paper 'kraft' (conservative), "
    "cooling 'ONAN' (medium/large characteristics), size class 'medium'"
)

# Spellings of cooling codes that map onto the characteristics of thermal.COOLING.
_COOLING_ALIASES: dict[str, CoolingClass] = {
    "ONAN": "ONAN",
    "ONAF": "ONAF",
    "OF": "OF",
    "OFAN": "OF",
    "OFAF": "OF",
    "OFWF": "OF",
    "OD": "OD",
    "ODAN": "OD",
    "ODAF": "OD",
    "ODWF": "OD",
}
_PAPER_ALIASES: dict[str, Paper] = {
    "kraft": "kraft",
    "non-thermally upgraded": "kraft",
    "upgraded": "upgraded",
    "thermally upgraded": "upgraded",
    "tup": "upgraded",
}

T = TypeVar("T")


class NameplateLookupError(UserError):
    """A nameplate fact was needed, not given, and the store could not be read."""


class NameplateStoreUnavailable(NameplateLookupError, StoreUnavailable):
    """The nameplate cannot be read because the store is down (an outage, not bad input)."""


class NameplateFacts(BaseModel):
    """What a nameplate says about the facts the diagnostic tools use."""

    model_config = ConfigDict(extra="forbid")

    asset_id: str = Field(description="Asset looked up.")
    found: bool = Field(description="Whether the store holds a nameplate for the asset.")
    paper: Paper | None = Field(default=None, description="Insulation paper, if recorded.")
    cooling: CoolingClass | None = Field(
        default=None, description="Cooling class (thermal characteristics), if recorded."
    )
    rated_mva: float | None = Field(default=None, description="Rated power, MVA, if recorded.")
    size_class: SizeClass | None = Field(
        default=None, description="IEC 60076-7 size class from rated_mva, if recorded."
    )


def facts_from_nameplate(asset_id: str, doc: dict[str, Any] | None) -> NameplateFacts:
    """Read paper, cooling, rating and size class from a nameplate document.

    Args:
        asset_id: The asset.
        doc: Its nameplate, or None when the store has none.

    Returns:
        The facts; a field the nameplate lacks (or spells unrecognisably) is None.
    """
    if doc is None:
        return NameplateFacts(asset_id=asset_id, found=False)
    paper = _PAPER_ALIASES.get(str(doc.get("paper", "")).strip().lower())
    rated = doc.get("rated_mva")
    rated_mva = float(rated) if isinstance(rated, int | float) and rated > 0 else None
    size = size_class_of(rated_mva) if rated_mva is not None else None
    thermal = doc.get("thermal_class")
    cooling: CoolingClass | None
    if thermal in get_args(CoolingClass):
        cooling = thermal
    else:
        cooling = _COOLING_ALIASES.get(str(doc.get("cooling", "")).strip().upper())
        if cooling == "ONAN" and size == "distribution":
            cooling = "ONAN_distribution"
    return NameplateFacts(
        asset_id=asset_id,
        found=True,
        paper=paper,
        cooling=cooling,
        rated_mva=rated_mva,
        size_class=size,
    )


async def lookup_nameplate(
    ctx: Any, asset_name: str, tool: str, missing: list[str]
) -> NameplateFacts:
    """Read the nameplate of ``asset_name`` from ``ctx.store`` (a FleetStore).

    Args:
        ctx: The tool context.
        asset_name: Asset id to look up.
        tool: Tool name, for the error message.
        missing: Argument names that were not given (for the error message).

    Returns:
        The nameplate facts (``found=False`` when the store does not hold the asset).

    Raises:
        NameplateLookupError: The store cannot be read.
    """
    try:
        doc = await ctx.store.nameplate_doc(asset_name)
    except UserError as exc:
        names = ", ".join(missing)
        # An outage stays an outage (generation stops and resumes instead of dropping the draw)
        kind = NameplateStoreUnavailable if isinstance(exc, StoreUnavailable) else (
            NameplateLookupError
        )
        raise kind(
            f"tool {tool!r}: {names} not given for asset {asset_name!r} and its nameplate cannot "
            f"be read ({exc.what})",
            fix=f"pass {names} explicitly, or start and seed the store "
            "(`scenariogen env up`, `scenariogen env seed`)",
        ) from None
    return facts_from_nameplate(asset_name, doc)


def pick(argument: T | None, nameplate: T | None, default: T) -> tuple[T, Source]:
    """The value of a fact and where it came from: argument, else nameplate, else default."""
    if argument is not None:
        return argument, "argument"
    if nameplate is not None:
        return nameplate, "nameplate"
    return default, "default"
