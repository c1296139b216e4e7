"""The tool registry: name, domain, description and JSON Schemas of arguments and result.

Tools are code, registered with :func:`tool` in an asset class's tools modules (listed as
``tools`` in its asset.yaml) and loaded by :func:`load_tools`. A tool is a function
``fn(args: ArgsModel, ctx: ToolContext) -> ResultModel`` (sync or async); diagnostic
tools ignore ``ctx``, data tools read the store through ``ctx.store``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from generator.assetdef import AssetClass, available_asset_classes, load_asset_class
from generator.config import StoreSettings
from generator.errors import UserError
from generator.registry import Registry

ArgsT = TypeVar("ArgsT", bound=BaseModel)
ToolFn = Callable[[Any, "ToolContext"], BaseModel | Awaitable[BaseModel]]


class ToolContext:
    """What a tool may use: the asset class and (lazily) the store's query layer.

    Generation passes a per-run snapshot (same query methods, read from memory); tools
    called by agents (MCP, ``tools call``, dry runs) get the live store.
    """

    def __init__(
        self, asset: AssetClass, settings: StoreSettings | None = None, store: Any = None
    ) -> None:
        self.asset = asset
        self._settings = settings
        self._store: Any = store

    @property
    def store(self) -> Any:
        """The :class:`generator.store.query.FleetStore`, created on first use, or the
        read-only :class:`generator.store.snapshot.FleetSnapshot` a generation run passed in.
        """
        if self._store is None:
            from generator.store.query import FleetStore

            self._store = FleetStore(self.asset, self._settings)
        return self._store

    def close(self) -> None:
        """Release the store's connections."""
        if self._store is not None:
            self._store.close()
            self._store = None


@dataclass(frozen=True)
class ToolSpec:
    """One registered tool."""

    name: str
    domain: str
    description: str
    args: type[BaseModel]
    result: type[BaseModel]
    fn: ToolFn
    standard: str | None = None
    asset_classes: tuple[str, ...] = field(default=("transformer",))

    def schema(self) -> dict[str, Any]:
        """Name, domain, description and the JSON Schemas of arguments and result."""
        return {
            "name": self.name,
            "domain": self.domain,
            "description": self.description,
            "standard": self.standard,
            "asset_classes": list(self.asset_classes),
            "arguments": self.args.model_json_schema(),
            "result": self.result.model_json_schema(),
        }


TOOLS: Registry[ToolSpec] = Registry("tool")


def tool(
    name: str,
    *,
    domain: str,
    args: type[BaseModel],
    result: type[BaseModel],
    standard: str | None = None,
    asset_classes: tuple[str, ...] = ("transformer",),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn(args, ctx)`` as tool ``name``; its docstring's first paragraph describes it."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        doc = inspect.getdoc(fn) or ""
        description = doc.split("\n\n")[0].replace("\n", " ").strip()
        if not description:
            raise ValueError(f"tool {name!r} needs a docstring")
        TOOLS.add(
            name,
            ToolSpec(name=name, domain=domain, description=description, args=args,
                     result=result, fn=fn, standard=standard, asset_classes=asset_classes),
        )
        return fn

    return deco


_loaded = False


def load_tools() -> Registry[ToolSpec]:
    """Import the tools modules of every asset class (once) and return the registry."""
    global _loaded
    if not _loaded:
        for name in available_asset_classes():
            asset = load_asset_class(name)
            for module in asset.tools:
                asset.import_hook(module, "tools")
        _loaded = True
    return TOOLS


class ToolArgumentError(UserError):
    """The arguments of a tool call are invalid."""


# Bounds on raw tool arguments, checked before the argument model: no id, name, date or
# label of ours is near 200 characters, and a 100 000-character id would otherwise reach
# the store as a URL it refuses ("URL too long").
MAX_ARG_STRING = 256
MAX_ARG_ITEMS = 1_000


def _arg_bound_error(raw: dict[str, Any]) -> tuple[str, str] | None:
    """(field, problem) for the first string or list beyond the bounds, else None."""
    stack: list[tuple[str, Any]] = [(str(k), v) for k, v in raw.items()]
    while stack:
        loc, value = stack.pop()
        if isinstance(value, str) and len(value) > MAX_ARG_STRING:
            return loc, f"is {len(value):,} characters long (at most {MAX_ARG_STRING})"
        if isinstance(value, list | dict) and len(value) > MAX_ARG_ITEMS:
            return loc, f"has {len(value):,} items (at most {MAX_ARG_ITEMS})"
        if isinstance(value, list):
            stack += [(f"{loc}.{i}", v) for i, v in enumerate(value)]
        elif isinstance(value, dict):
            stack += [(f"{loc}.{k}", v) for k, v in value.items()]
    return None


def validate_args(spec: ToolSpec, raw: dict[str, Any]) -> BaseModel:
    """Validate raw arguments; the error names the tool, the field, the value and the fields.

    Strings longer than :data:`MAX_ARG_STRING` and lists or objects of more than
    :data:`MAX_ARG_ITEMS` items are refused first, whatever the tool.
    """
    bound = _arg_bound_error(raw)
    if bound is not None:
        raise ToolArgumentError(
            f"tool {spec.name!r}: argument {bound[0]!r} {bound[1]}",
            options=list(spec.args.model_fields),
            fix=f"pass a valid value; see `scenariogen tools describe {spec.name}`",
        )
    try:
        return spec.args.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        value = None if err["type"] == "missing" else err.get("input")
        raise ToolArgumentError(
            f"tool {spec.name!r}: argument {loc!r}: {err['msg']}",
            value=value,
            options=list(spec.args.model_fields),
            fix=f"see `scenariogen tools describe {spec.name}`",
        ) from None


async def call_tool(name: str, raw_args: dict[str, Any], ctx: ToolContext) -> BaseModel:
    """Validate the arguments and run the tool."""
    from generator.store.couch import CouchError

    spec = load_tools().get(name)
    args = validate_args(spec, raw_args)
    try:
        out = spec.fn(args, ctx)
        if inspect.isawaitable(out):
            out = await out
    except CouchError as exc:
        if exc.status != 404:
            raise
        # Documents that do not exist come back as None; a 404 here is a missing database.
        raise UserError(
            f"tool {name!r}: the store has no {ctx.asset.asset_class} data to read "
            "(a database is missing)",
            fix="seed the store first: `scenariogen env seed`",
        ) from None
    if not isinstance(out, spec.result):
        raise TypeError(f"tool {name!r} returned {type(out).__name__}, not {spec.result.__name__}")
    return out
