"""Our tools over MCP (stdio): every tool (``scenariogen serve-tools``) or one domain's.

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
from collections.abc import Sequence
from typing import Any

import anyio

from generator import __version__
from generator.assetdef import load_asset_class
from generator.config import StoreSettings, store_settings
from generator.errors import UserError
from generator.mcp import compat
from generator.redact import redact_text
from generator.tools.registry import ToolContext, ToolSpec, call_tool, load_tools

log = logging.getLogger(__name__)

SERVER_DOMAINS = ("iot", "fmsr", "tsfm", "wo")
"""The domains served one per server (upstream's ``server_paths`` keys)."""

MAX_STRING_ARGUMENT = 1000
"""Longest string an MCP caller may pass in any argument (ids, names, timestamps)."""

_INSTRUCTIONS = {
    None: "Deterministic transformer tools (IEC 60599, IEC 60076-7, IEEE C57) and "
    "data tools over the scenariogen CouchDB store.",
    "iot": "Sites, assets, sensors, hourly telemetry history and oil samples of the "
    "transformer fleet in the scenariogen CouchDB store.",
    "fmsr": "Failure modes and deterministic transformer diagnostics: DGA (IEC 60599), "
    "winding temperature, hot spot and ageing (IEC 60076-7, IEEE C57.91), load profile, "
    "health index.",
    "tsfm": "Time-series tasks and models, anomaly detection (robust z-score) and "
    "forecasting (seasonal naive, Holt-Winters) on the fleet's telemetry.",
    "wo": "Work orders, events, failure codes, work-order distributions and predictions "
    "of the transformer fleet.",
}


class ArgumentTooLong(UserError):
    """A string argument is longer than any id, name or timestamp can be."""


class NonFiniteResult(UserError):
    """A tool produced NaN or Infinity, which strict JSON cannot carry."""


def _tool_store_settings() -> StoreSettings:
    """The store settings of tools served to agents: the read-only tool account, which
    cannot read the truth or meta databases (see ``generator.config.PRIVATE_DB_PATTERNS``).
    """
    return store_settings(role="tools")


# The class the servers serve until they take a class option (contract C of issue 14).
SERVED_CLASS = "transformer"


def served_specs(
    domains: Sequence[str] | None = None, asset_class: str = SERVED_CLASS
) -> list[ToolSpec]:
    """The tools a server offers: every tool of ``asset_class``, or those of ``domains``."""
    registry = load_tools()
    specs = [
        spec for spec in (registry.get(name) for name in registry.names())
        if asset_class in spec.asset_classes
    ]
    if domains is None:
        return specs
    known = sorted({s.domain for s in specs})
    unknown = [d for d in domains if d not in known]
    if unknown:
        raise UserError(f"no tools for domain {unknown[0]!r}", value=unknown[0], options=known)
    return [s for s in specs if s.domain in domains]


def _tool_list(specs: Sequence[ToolSpec]) -> list[Any]:
    return [
        compat.make_tool(
            spec.name,
            f"[{spec.domain}] {spec.description}"
            + (f" (follows {spec.standard})" if spec.standard else ""),
            spec.args.model_json_schema(),
            spec.result.model_json_schema(),
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


def build_server(domains: Sequence[str] | None = None) -> Any:
    """The MCP server: all tools, or one server's ``domains``; one tool context per class."""
    specs = served_specs(domains)
    served = {s.name: s for s in specs}
    contexts: dict[str, ToolContext] = {}
    label = "+".join(domains) if domains else None

    def context_for(asset_class: str) -> ToolContext:
        if asset_class not in contexts:
            contexts[asset_class] = ToolContext(
                load_asset_class(asset_class), _tool_store_settings()
            )
        return contexts[asset_class]

    async def handle_call(name: str, arguments: dict[str, Any]) -> Any:
        try:
            if name not in served:
                registry = load_tools()
                if name in registry.names():
                    other = registry.get(name).domain
                    raise UserError(
                        f"tool {name!r} belongs to the {other} domain, not served here",
                        options=sorted(served), fix=f"call it on the {other} server",
                    )
                registry.get(name)  # unknown: raises with "did you mean"
            check_argument_sizes(name, arguments)
            spec = served[name]
            result = await call_tool(name, arguments, context_for(spec.asset_classes[0]))
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

    tools = _tool_list(specs)
    name = f"scenariogen-{label}" if label else "scenariogen-tools"
    instructions = _INSTRUCTIONS.get(label, _INSTRUCTIONS[None]) or ""
    return compat.build_lowlevel_server(name, __version__, instructions,
                                        lambda: list(tools), handle_call)


async def serve_stdio(domains: Sequence[str] | None = None) -> None:
    """Run the server on stdin/stdout until the client disconnects."""
    from generator.mcp.wire import guarded_stdio

    server = build_server(domains)
    try:
        async with guarded_stdio() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    except* anyio.ClosedResourceError:
        # The client closed the wire with calls in flight (mcp 1.x raises here): their
        # answers have nowhere to go, and that is not an error of ours.
        log.debug("client disconnected with calls in flight")
