"""Our tools over MCP (stdio): one asset class's tools, all (``scenariogen serve-tools``) or
one domain's.

A server serves one asset class, named by ``--asset`` or the environment variable
``SCENARIOGEN_ASSET_CLASS`` (default: the default class): the generic data tools plus the
class's own, described in the class's nouns; its instructions come from the class's
``display_name`` / ``description`` and the domain policy's description.

A bad argument, an over-long string, a store outage or any other failure of a call comes
back as a tool result with ``isError`` set and one line naming the field and the fix, so
an agent can correct itself; the traceback of an unexpected failure goes to the server's
stderr only. Results are strict JSON (no NaN / Infinity). Runs on the mcp 1.x and 2.x SDKs
(:mod:`generator.mcp.compat`); the wire answers every frame (:mod:`generator.mcp.wire`).
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Sequence
from typing import Any

import anyio

from generator import __version__
from generator.assetdef import AssetClass, load_asset_class
from generator.config import StoreSettings, store_settings
from generator.errors import UserError
from generator.mcp import compat
from generator.redact import redact_text
from generator.tools.registry import (
    ToolContext,
    ToolSpec,
    call_tool,
    default_tool_class,
    get_tool,
    tools_for,
)

log = logging.getLogger(__name__)

SERVER_DOMAINS = ("iot", "fmsr", "tsfm", "wo")
"""The domains served one per server (upstream's ``server_paths`` keys)."""

MAX_STRING_ARGUMENT = 1000
"""Longest string an MCP caller may pass in any argument (ids, names, timestamps)."""

ASSET_CLASS_ENV = "SCENARIOGEN_ASSET_CLASS"
"""Environment variable naming the asset class a server serves (when --asset is not given)."""


def served_class(asset_class: str | None = None) -> AssetClass:
    """The asset class to serve: ``asset_class``, else ``$SCENARIOGEN_ASSET_CLASS``, else
    the default class.

    Raises:
        UserError: The named class does not exist (lists the classes).
    """
    name = asset_class or os.environ.get(ASSET_CLASS_ENV) or default_tool_class()
    return load_asset_class(name)


def instructions_for(asset: AssetClass, domains: Sequence[str] | None = None) -> str:
    """The server's instructions: the class (display name, description, standards) and,
    for a domain server, what the domain covers (its policy's description)."""
    from generator.generate.run.policy import load_policy

    standards = ", ".join(s.id for s in asset.standards)
    text = f"{asset.display_name}: {' '.join(asset.description.split())}"
    if domains:
        covers = " ".join(" ".join(load_policy(d, asset.asset_class).description.split())
                          for d in domains)
        return f"{text} Tools: {covers}"
    return (f"{text} Deterministic tools" + (f" ({standards})" if standards else "")
            + " and data tools over the scenariogen CouchDB store.")


class ArgumentTooLong(UserError):
    """A string argument is longer than any id, name or timestamp can be."""


class NonFiniteResult(UserError):
    """A tool produced NaN or Infinity, which strict JSON cannot carry."""


def _tool_store_settings() -> StoreSettings:
    """The store settings of tools served to agents: the read-only tool account, which
    cannot read the truth or meta databases (see ``generator.config.PRIVATE_DB_PATTERNS``).
    """
    return store_settings(role="tools")


def served_specs(
    domains: Sequence[str] | None = None, asset_class: str | None = None
) -> list[ToolSpec]:
    """The tools a server offers: every tool of the class, or those of ``domains``."""
    specs = list(tools_for(served_class(asset_class).asset_class).values())
    if domains is None:
        return specs
    known = sorted({s.domain for s in specs})
    unknown = [d for d in domains if d not in known]
    if unknown:
        raise UserError(f"no tools for domain {unknown[0]!r}", value=unknown[0], options=known)
    return [s for s in specs if s.domain in domains]


def _tool_list(specs: Sequence[ToolSpec], asset: AssetClass) -> list[Any]:
    return [
        compat.make_tool(
            spec.name,
            f"[{spec.domain}] {spec.describe(asset)}"
            + (f" (follows {spec.standard})" if spec.standard else ""),
            spec.args_schema(asset),
            spec.result_schema(asset),
        )
        for spec in specs
    ]


def check_argument_sizes(tool: str, arguments: Any, path: str = "") -> None:
    """Refuse any string in ``arguments`` (at any depth) over :data:`MAX_STRING_ARGUMENT`.

    Raises:
        ArgumentTooLong: Names the tool, the argument path and the length.
    """
    if isinstance(arguments, str):
        if len(arguments) > MAX_STRING_ARGUMENT:
            raise ArgumentTooLong(
                f"tool {tool!r}: argument {path or '(arguments)'!r} is {len(arguments)} "
                f"characters long, over the limit of {MAX_STRING_ARGUMENT}",
                fix=f"pass the id, name or timestamp itself (see `scenariogen tools describe "
                f"{tool}`)",
            )
    elif isinstance(arguments, dict):
        for key, value in arguments.items():
            check_argument_sizes(tool, str(key), f"{path}.{key}" if path else str(key))
            check_argument_sizes(tool, value, f"{path}.{key}" if path else str(key))
    elif isinstance(arguments, list):
        for i, value in enumerate(arguments):
            check_argument_sizes(tool, value, f"{path}[{i}]")


def _first_non_finite(value: Any, path: str = "") -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return path or "(result)"
    if isinstance(value, dict):
        for key, item in value.items():
            found = _first_non_finite(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_non_finite(item, f"{path}[{i}]")
            if found:
                return found
    return None


def strict_json(tool: str, payload: dict[str, Any]) -> str:
    """``payload`` as strict JSON text.

    Raises:
        NonFiniteResult: A number in it is NaN or infinite (named by its path).
    """
    where = _first_non_finite(payload)
    if where is not None:
        raise NonFiniteResult(
            f"tool {tool!r} produced a non-finite number at {where!r}, which JSON cannot carry",
            fix="this is a bug in the tool; report the call that produced it",
        )
    return json.dumps(payload, allow_nan=False)


def _error_result(text: str) -> Any:
    return compat.make_result(f"error: {redact_text(text)}", is_error=True)


def build_server(domains: Sequence[str] | None = None, asset_class: str | None = None) -> Any:
    """The MCP server of one asset class: all its tools, or one server's ``domains``."""
    asset = served_class(asset_class)
    specs = served_specs(domains, asset.asset_class)
    served = {s.name: s for s in specs}
    contexts: list[ToolContext] = []
    label = "+".join(domains) if domains else None

    def context() -> ToolContext:
        if not contexts:
            contexts.append(ToolContext(asset, _tool_store_settings()))
        return contexts[0]

    async def handle_call(name: str, arguments: dict[str, Any]) -> Any:
        try:
            if name not in served:
                # Unknown to the class: raises with "did you mean" and the class's tools.
                other = get_tool(asset.asset_class, name).domain
                raise UserError(
                    f"tool {name!r} belongs to the {other} domain, not served here",
                    options=sorted(served), fix=f"call it on the {other} server",
                )
            check_argument_sizes(name, arguments)
            result = await call_tool(name, arguments, context())
            payload = result.model_dump(mode="json")
            text = strict_json(name, payload)
        except UserError as exc:
            return _error_result(str(exc))
        except Exception as exc:
            # A bug: the agent gets one line, the server log the traceback.
            log.exception("tool %s failed", name)
            return _error_result(
                f"tool {name!r} failed unexpectedly ({type(exc).__name__}); "
                "the server's stderr has the traceback"
            )
        return compat.make_result(text, structured=payload)

    tools = _tool_list(specs, asset)
    name = f"scenariogen-{label}" if label else "scenariogen-tools"
    instructions = instructions_for(asset, domains)
    return compat.build_lowlevel_server(name, __version__, instructions,
                                        lambda: list(tools), handle_call)


async def serve_stdio(
    domains: Sequence[str] | None = None, asset_class: str | None = None
) -> None:
    """Run the server of ``asset_class`` on stdin/stdout until the client disconnects."""
    from generator.mcp.wire import guarded_stdio

    server = build_server(domains, asset_class)
    try:
        async with guarded_stdio() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    except* anyio.ClosedResourceError:
        # The client closed the wire with calls in flight (mcp 1.x raises here): their
        # answers have nowhere to go, and that is not an error of ours.
        log.debug("client disconnected with calls in flight")
