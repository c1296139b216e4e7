"""The tool registry: name, domain, description and JSON Schemas of arguments and result.

Tools are code, registered with :func:`tool`: the framework's generic data tools
(``generator/tools/data_*.py``, ``asset_classes=("*",)``) serve every asset class; a
class's own tools (its asset.yaml's ``tools`` modules) name their class. Lookups are per
class (:func:`tools_for`, :func:`get_tool`; :func:`call_tool` resolves through the
context's class), so two classes may each have a tool of the same wire name, but no class
tool may shadow a generic one. A tool is a function
``fn(args: ArgsModel, ctx: ToolContext) -> ResultModel`` (sync or async); diagnostic
tools ignore ``ctx``, data tools read the store through ``ctx.store``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable, Iterator
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


GENERIC = "*"
"""The ``asset_classes`` entry of a generic tool: it serves every asset class."""

_NOUN_TOKENS = ("{asset_class}", "{assets}", "{asset}")


def asset_nouns(asset: AssetClass) -> tuple[str, str]:
    """How people name one and several assets of the class (singular, plural).

    From the class's vocabulary (``generator.vocabulary``) when the framework has one and
    the class declares it, else the class slug and the slug plus "s".
    """
    try:
        vocabulary = importlib.import_module("generator.vocabulary")
        vocab = vocabulary.load_vocabulary(asset.asset_class)
        return str(vocab.noun), str(vocab.plural)
    except (ImportError, AttributeError, UserError):
        return asset.asset_class, f"{asset.asset_class}s"


def render_for(text: str, asset: AssetClass | None) -> str:
    """``text`` with ``{asset}``, ``{assets}`` and ``{asset_class}`` filled in for ``asset``.

    Generic tools write their descriptions with these placeholders, so each class's
    agents read their own nouns; any other brace is left alone. Without a class the
    placeholders stay.
    """
    if asset is None or not any(t in text for t in _NOUN_TOKENS):
        return text
    noun, plural = asset_nouns(asset)
    return (text.replace("{asset_class}", asset.asset_class)
            .replace("{assets}", plural).replace("{asset}", noun))


def _render_tree(value: Any, asset: AssetClass | None) -> Any:
    if isinstance(value, str):
        return render_for(value, asset)
    if isinstance(value, dict):
        return {k: _render_tree(v, asset) for k, v in value.items()}
    if isinstance(value, list):
        return [_render_tree(v, asset) for v in value]
    return value


@dataclass(frozen=True)
class ToolSpec:
    """One registered tool.

    ``asset_classes`` is ``("*",)`` for a generic tool (it serves every class) or the
    classes that own it. ``description`` may hold the placeholders of :func:`render_for`;
    :meth:`describe` and :meth:`schema` fill them in for a class. ``result_for``, when
    set, builds the class's own result model (a subclass of ``result`` with fields the
    class's definition implies, e.g. one list per reading source).
    """

    name: str
    domain: str
    description: str
    args: type[BaseModel]
    result: type[BaseModel]
    fn: ToolFn
    standard: str | None = None
    asset_classes: tuple[str, ...] = field(default=(GENERIC,))
    result_for: Callable[[AssetClass], type[BaseModel]] | None = None

    @property
    def generic(self) -> bool:
        """True when the tool serves every asset class."""
        return self.asset_classes == (GENERIC,)

    def serves(self, asset_class: str) -> bool:
        """True when the tool is one of ``asset_class``'s tools."""
        return self.generic or asset_class in self.asset_classes

    def describe(self, asset: AssetClass | None = None) -> str:
        """The description, in ``asset``'s nouns."""
        return render_for(self.description, asset)

    def result_model(self, asset: AssetClass | None = None) -> type[BaseModel]:
        """The result model the tool returns for ``asset`` (``result`` without a class)."""
        if asset is None or self.result_for is None:
            return self.result
        return self.result_for(asset)

    def schema(self, asset: AssetClass | None = None) -> dict[str, Any]:
        """Name, domain, description and the JSON Schemas of arguments and result (for
        ``asset``: its nouns and its result model)."""
        return {
            "name": self.name,
            "domain": self.domain,
            "description": self.describe(asset),
            "standard": self.standard,
            "asset_classes": list(self.asset_classes),
            "arguments": self.args_schema(asset),
            "result": self.result_schema(asset),
        }

    def args_schema(self, asset: AssetClass | None = None) -> dict[str, Any]:
        """The JSON Schema of the arguments, in ``asset``'s nouns."""
        return dict(_render_tree(self.args.model_json_schema(), asset))

    def result_schema(self, asset: AssetClass | None = None) -> dict[str, Any]:
        """The JSON Schema of the result ``asset`` gets, in its nouns."""
        return dict(_render_tree(self.result_model(asset).model_json_schema(), asset))


class ToolIndex:
    """The registered tools: generic ones and each asset class's own.

    A generic tool's name is unique among all tools; two classes may each register a
    tool of the same name (the wire names stay plain, so each class's server offers its
    own). Look tools up per class with :func:`tools_for` / :func:`get_tool`; the
    class-free :meth:`get` only resolves a name that one tool alone carries.
    """

    def __init__(self) -> None:
        self._generic: Registry[ToolSpec] = Registry("tool")
        self._by_class: dict[str, Registry[ToolSpec]] = {}

    def add(self, spec: ToolSpec) -> ToolSpec:
        """Register ``spec``.

        Raises:
            ValueError: A name registered twice for one class, a class tool that would
                shadow a generic one (or the reverse), or ``"*"`` mixed with classes.
        """
        classes = spec.asset_classes
        if not classes or (GENERIC in classes and len(classes) > 1):
            raise ValueError(
                f"tool {spec.name!r}: asset_classes must be ('*',) (generic) or class names, "
                f"got {classes!r}"
            )
        if spec.generic:
            owners = sorted(c for c, reg in self._by_class.items() if spec.name in reg)
            if owners:
                raise ValueError(
                    f"generic tool {spec.name!r} would shadow the tool of the same name of "
                    f"asset class {owners[0]!r}"
                )
            return self._generic.add(spec.name, spec)
        if spec.name in self._generic:
            raise ValueError(
                f"tool {spec.name!r} of asset class {classes[0]!r} would shadow the generic "
                "tool of the same name; give it another name"
            )
        for asset_class in classes:
            self._by_class.setdefault(asset_class, Registry(f"{asset_class} tool")).add(
                spec.name, spec
            )
        return spec

    def for_class(self, asset_class: str) -> dict[str, ToolSpec]:
        """The tools of ``asset_class`` (generic plus its own), by name, sorted."""
        own = self._by_class.get(asset_class)
        specs = {n: self._generic.get(n) for n in self._generic.names()}
        if own is not None:
            specs |= {n: own.get(n) for n in own.names()}
        return dict(sorted(specs.items()))

    def get_for(self, asset_class: str, name: str) -> ToolSpec:
        """The tool ``name`` of ``asset_class``.

        Raises:
            UserError: The class has no such tool; lists the class's tools, suggests close
                names and says which classes own the name, if any.
        """
        # The hit, directly (a class tool never shares a generic tool's name, so at most
        # one of the two registries holds it); the full view only to word a miss.
        own = self._by_class.get(asset_class)
        if own is not None and name in own:
            return own.get(name)
        if name in self._generic:
            return self._generic.get(name)
        specs = self.for_class(asset_class)
        owners = sorted(c for c, reg in self._by_class.items() if name in reg)
        view: Registry[ToolSpec] = Registry(f"{asset_class} tool")
        for n, spec in specs.items():
            view.add(n, spec)
        if owners:
            raise UserError(
                f"asset class {asset_class!r} has no tool {name!r} (it is a tool of "
                f"{', '.join(repr(o) for o in owners)})",
                options=sorted(specs),
                fix=f"use a tool of {asset_class!r}, or name the class that owns it",
            )
        return view.get(name)  # raises, with suggestions and the class's tools

    def all(self) -> list[ToolSpec]:
        """Every registered tool once, sorted by name (then by its first class)."""
        seen: dict[int, ToolSpec] = {}
        for reg in [self._generic, *self._by_class.values()]:
            for n in reg.names():
                spec = reg.get(n)
                seen.setdefault(id(spec), spec)
        return sorted(seen.values(), key=lambda s: (s.name, s.asset_classes))

    def names(self) -> list[str]:
        """Every registered tool name (of any class), sorted."""
        return sorted({s.name for s in self.all()})

    def get(self, name: str) -> ToolSpec:
        """The one tool called ``name``, whichever class owns it.

        Raises:
            UserError: No tool has the name (with suggestions), or several classes each
                have one (then use :func:`get_tool` with the class).
        """
        every = self.all()
        found = [s for s in every if s.name == name]
        if len(found) == 1:
            return found[0]
        if not found:
            view: Registry[ToolSpec] = Registry("tool")
            for spec in every:
                if spec.name not in view:
                    view.add(spec.name, spec)
            return view.get(name)  # raises, with suggestions
        raise UserError(
            f"tool {name!r} is registered by several asset classes",
            options=sorted(c for s in found for c in s.asset_classes),
            fix="name the asset class (e.g. `scenariogen tools describe NAME --asset CLASS`)",
        )

    def __contains__(self, name: object) -> bool:
        return name in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())


TOOLS = ToolIndex()
"""Every registered tool (import the modules first: :func:`load_tools`)."""


def tool(
    name: str,
    *,
    domain: str,
    args: type[BaseModel],
    result: type[BaseModel],
    standard: str | None = None,
    asset_classes: tuple[str, ...] = (GENERIC,),
    result_for: Callable[[AssetClass], type[BaseModel]] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn(args, ctx)`` as tool ``name``; its docstring's first paragraph describes it.

    ``asset_classes`` defaults to ``("*",)``: a generic tool, served to every class. A
    class's own tools name their class; they may not reuse a generic tool's name.
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        doc = inspect.getdoc(fn) or ""
        description = doc.split("\n\n")[0].replace("\n", " ").strip()
        if not description:
            raise ValueError(f"tool {name!r} needs a docstring")
        TOOLS.add(
            ToolSpec(name=name, domain=domain, description=description, args=args,
                     result=result, fn=fn, standard=standard, asset_classes=asset_classes,
                     result_for=result_for)
        )
        return fn

    return deco


GENERIC_TOOL_MODULES = (
    "generator.tools.data_iot",
    "generator.tools.data_wo",
    "generator.tools.data_fmsr",
    "generator.tools.data_tsfm",
    "generator.tools.data_quality",
)
"""The framework's generic tools (every class gets them)."""

_loaded = False


def load_tools() -> ToolIndex:
    """Import the generic tool modules and every asset class's ``tools`` modules (once)."""
    global _loaded
    if not _loaded:
        for module in GENERIC_TOOL_MODULES:
            importlib.import_module(module)
        for name in available_asset_classes():
            asset = load_asset_class(name)
            for module in asset.tools:
                asset.import_hook(module, "tools")
        _loaded = True
    return TOOLS


def default_tool_class() -> str:
    """The asset class served when none is named (``default_asset_class()``).

    Raises:
        UserError: Several classes and no default among them.
    """
    from generator.assetdef import default_asset_class

    return default_asset_class()


def tools_for(asset_class: str) -> dict[str, ToolSpec]:
    """The tools ``asset_class`` serves (generic plus its own), by name, sorted."""
    return load_tools().for_class(asset_class)


def get_tool(asset_class: str, name: str) -> ToolSpec:
    """The tool ``name`` as ``asset_class`` serves it.

    Raises:
        UserError: The class has no tool of that name (lists the class's tools).
    """
    return load_tools().get_for(asset_class, name)


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

    spec = get_tool(ctx.asset.asset_class, name)
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
