"""The ``scenariogen`` command line. Thin: each command defers its imports and calls a stage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

# typer >= 0.20 vendors click as typer._click: its usage errors are not click's classes.
from typer._click import exceptions as click_errors

from generator import fuzz_run
from generator.errors import ExitCode, Interrupted, UserError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from generator.assetdef import AssetClass

# Which checking verb answers which question (also in the README and docs/evaluating.md).
# `\b` keeps click from rewrapping the table.
VERB_GUIDE = """Which command answers which question:

\b
  validate  Is every record well formed?  Deterministic checks of a scenario file
            (ours or AssetOpsBench's); no LLM; --store adds the store checks.
  audit     Is every reference answer right?  Re-derives each answer of a run from
            the raw store documents, under every reading the text allows.
  evaluate  How right are an agent's answers?  Grades answers files against the
            computed references; no LLM, no store.
  dryrun    How does an agent do on the set?  Runs an agent (or the reference
            replay) on every scenario against the store, then grades it.
  score     How good is the scenario set?  Static checks 20 + judge 30 + dry run 50,
            the paper's yardstick, on our files or upstream's.

Exit codes: 0 success, 1 the check found problems, 2 user error (one line on stderr),
3 shortfall, 4 stopped by an outage, 5/6 held-out repeat/leak, 130 Ctrl-C (see each
command's --help and docs/exit-codes.md)."""

app = typer.Typer(
    help="Generate evaluation scenarios with computed answers for asset-operations agents.",
    epilog=VERB_GUIDE,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
env_app = typer.Typer(
    help="The CouchDB-protocol store: start, stop, inspect, seed.", no_args_is_help=True
)
bench_app = typer.Typer(
    help="Benchmarks (timings are measured here, never in unit tests).", no_args_is_help=True
)
tools_app = typer.Typer(help="Deterministic tools: list, describe, call.", no_args_is_help=True)
app.add_typer(env_app, name="env")
app.add_typer(tools_app, name="tools")
app.add_typer(bench_app, name="bench")

AssetArg = Annotated[str, typer.Argument(help="Asset class (a folder under assets/)")]
OptionalAssetArg = Annotated[
    str | None,
    typer.Argument(
        help="Asset class (a folder under assets/); default: the class whose asset.yaml "
        "sets `default: true`",
        show_default=False,
    ),
]


@env_app.command("up")
def env_up(
    port: Annotated[int, typer.Option(help="TCP port on 127.0.0.1")] = 5984,
) -> None:
    """Start the bundled CouchDB-protocol server in the background."""
    from generator.config import credentials_file
    from generator.store import server

    rec = server.up(port=port)
    typer.echo(
        f"bundled CouchDB-protocol server running on {rec.url} (pid {rec.pid}, "
        f"data {rec.data_dir}); accounts in {credentials_file()} (mode 0600)"
    )


@env_app.command("down")
def env_down() -> None:
    """Stop the bundled server by its recorded PID."""
    from generator.store import server

    typer.echo(server.down())


@env_app.command("status")
def env_status() -> None:
    """Say whether the bundled server runs, and what the store holds."""
    from generator.config import store_settings
    from generator.store import server

    settings = store_settings()
    if settings.external:
        typer.echo(
            f"COUCHDB_URL points at {settings.public_url} (external server, not managed here)"
        )
    else:
        st = server.status()
        typer.echo(st.detail)
        if not st.running:
            raise typer.Exit(1)
    from generator.assetdef import available_asset_classes
    from generator.store.couch import CouchClient
    from generator.store.seed import META_DB, marker_id

    with CouchClient(settings) as client:
        client.server_info()
        meta = settings.db(META_DB)
        markers = {
            str(doc["_id"]).removeprefix("seed:"): doc
            for doc in (client.all_docs(meta) if client.db_exists(meta) else [])
            if str(doc.get("_id", "")).startswith(marker_id(""))
        }
        for cls in sorted(set(available_asset_classes()) | set(markers)):
            doc = markers.get(cls)
            if doc is None:
                typer.echo(f"  {cls}: not seeded (run `scenariogen env seed {cls}`)")
                continue
            spec = doc.get("spec")
            counts = doc.get("counts") or {}
            fleet = (
                f"seed {spec.get('seed')}, {spec.get('sites')}×{spec.get('units_per_site')} "
                f"units, {spec.get('days')} days"
                if isinstance(spec, dict)  # a held-out fleet's marker records no spec
                else f"fingerprint {doc.get('fingerprint')}"
            )
            typer.echo(
                f"  {cls}: {doc.get('status')} ({fleet}; "
                + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                + ")"
            )


@env_app.command("seed")
def env_seed(
    asset: OptionalAssetArg = None,
    seed: Annotated[int, typer.Option(help="Seed of the fleet")] = 42,
    sites: Annotated[int, typer.Option(min=1, help="Number of sites")] = 3,
    units_per_site: Annotated[int, typer.Option(min=1, help="Units per site")] = 4,
    days: Annotated[int, typer.Option(min=7, help="Days of hourly telemetry")] = 90,
    drop: Annotated[
        bool,
        typer.Option(
            "--drop", help="Replace the class's fleet already stored (other classes' data stays)"
        ),
    ] = False,
) -> None:
    """Simulate a class's fleet and write it into the store (idempotent, resumable)."""
    from generator.assetdef import load_asset_class, resolve_asset_class
    from generator.config import store_settings
    from generator.store.couch import CouchClient
    from generator.store.seed import seed as run_seed

    asset = resolve_asset_class(asset)
    asset_cls = load_asset_class(asset)
    spec = _fleet_spec(asset_cls, seed=seed, sites=sites, units_per_site=units_per_site, days=days)
    settings = store_settings()
    with CouchClient(settings) as client:
        report = run_seed(client, asset_cls, spec, prefix=settings.db_prefix, replace=drop)
    if report.action == "unchanged":
        typer.echo(
            f"store already holds this {asset} fleet (fingerprint {report.fingerprint}); "
            "nothing to do"
        )
        return
    written = report.written | report.upstream
    typer.echo(
        f"{report.action} {asset} fleet {report.fingerprint}: {sum(written.values())} documents "
        f"({', '.join(f'{k} {v}' for k, v in written.items())}) in "
        f"{sum(report.seconds.values()):.1f} s"
    )


def _fleet_spec(asset_cls: AssetClass, **values: int) -> BaseModel:
    """Build the simulator's fleet spec (the model asset.yaml's ``fleet_spec`` names)."""
    from pydantic import ValidationError

    model = asset_cls.load_fleet_spec()
    try:
        spec: BaseModel = model(**values)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise UserError(
            f"invalid fleet option --{str(err['loc'][0]).replace('_', '-')}: {err['msg']}",
            value=err.get("input"),
        ) from None
    return spec


@app.command("inventory")
def inventory(asset: OptionalAssetArg = None) -> None:
    """Print what the store holds for an asset class (sites, assets, sensors, coverage)."""
    from generator.assetdef import load_asset_class, resolve_asset_class
    from generator.store.query import FleetStore

    asset_cls = load_asset_class(resolve_asset_class(asset))
    store = FleetStore(asset_cls)
    try:
        import asyncio

        inv = asyncio.run(store.inventory())
    finally:
        store.close()
    typer.echo(
        f"{inv.asset_class}: {len(inv.sites)} sites ({', '.join(inv.sites)}), "
        f"{len(inv.assets)} assets"
    )
    for a in inv.assets:
        plate = " ".join(
            f"{f.name} {a.nameplate.get(f.name)}{(' ' + f.unit) if f.unit else ''}"
            for f in asset_cls.nameplate_fields
        )
        coverage = ", ".join(
            f"{source} {r.start} → {r.end}"
            + (f" ({len(a.sensors)} sensors)" if source == "telemetry" else "")
            for source, r in a.coverage.items()
        )
        typer.echo(
            f"  {a.asset_id:<12} {a.site_name:<8} {plate + ', ' if plate else ''}{coverage}, "
            f"{a.work_orders} work orders"
        )


AssetOption = Annotated[
    str | None,
    typer.Option("--asset", help="Asset class whose tools to use (default: the default class)"),
]


def _tool_class(asset: str | None) -> str:
    """The asset class named by ``--asset``, validated, or the default class."""
    from generator.assetdef import load_asset_class
    from generator.tools.registry import default_tool_class

    name = asset if asset is not None else default_tool_class()
    return load_asset_class(name).asset_class


@tools_app.command("list")
def tools_list(
    domain: Annotated[str | None, typer.Option(help="Only this domain")] = None,
    asset: AssetOption = None,
) -> None:
    """List an asset class's tools (generic and its own) with domain and description."""
    from generator.assetdef import load_asset_class
    from generator.tools.registry import tools_for

    asset_def = load_asset_class(_tool_class(asset))
    for name, spec in tools_for(asset_def.asset_class).items():
        if domain is None or spec.domain == domain:
            typer.echo(f"{spec.domain:<6} {name:<34} {spec.describe(asset_def)}")


@tools_app.command("describe")
def tools_describe(
    name: Annotated[str, typer.Argument(help="Tool name")], asset: AssetOption = None
) -> None:
    """Print a tool's description and the JSON Schemas of its arguments and result."""
    import json

    from generator.assetdef import load_asset_class
    from generator.tools.registry import get_tool

    asset_def = load_asset_class(_tool_class(asset))
    typer.echo(json.dumps(get_tool(asset_def.asset_class, name).schema(asset_def), indent=2))


@tools_app.command("call")
def tools_call(
    name: Annotated[str, typer.Argument(help="Tool name")],
    args: Annotated[str, typer.Option("--args", help="Arguments as a JSON object")] = "{}",
    asset: AssetOption = None,
) -> None:
    """Call a tool of an asset class and print its result as JSON."""
    import json

    from generator import safeparse
    from generator.assetdef import load_asset_class
    from generator.tools.registry import ToolContext, call_tool, get_tool

    try:
        raw = safeparse.loads(args, safeparse.ARGS)
    except ValueError as exc:
        raise UserError(
            f"--args is {safeparse.describe(exc)}",
            fix='pass a JSON object, e.g. --args \'{"asset_name": "T1", "hydrogen": 50}\'',
        ) from None
    if not isinstance(raw, dict):
        raise UserError("--args must be a JSON object", value=type(raw).__name__,
                        fix="wrap the arguments in {...}")
    from generator.config import store_settings

    served = _tool_class(asset)
    get_tool(served, name)  # an unknown name fails before any store is touched
    # The agent-facing read-only account: a tool never sees truth or meta databases.
    ctx = ToolContext(load_asset_class(served), store_settings(role="tools"))
    try:
        import asyncio

        result = asyncio.run(call_tool(name, raw, ctx))
    finally:
        ctx.close()
    typer.echo(json.dumps(result.model_dump(mode="json"), indent=2))


@app.command("serve-tools")
def serve_tools(
    env_file: Annotated[
        Path | None,
        typer.Option(help="Read settings from this .env file (the environment still wins)"),
    ] = None,
    asset: Annotated[
        str | None,
        typer.Option("--asset", help="Asset class to serve (default: $SCENARIOGEN_ASSET_CLASS, "
                     "else the default class)"),
    ] = None,
) -> None:
    """Serve an asset class's tools over MCP on stdin/stdout (for AssetOpsBench agents, any
    MCP client)."""
    import asyncio

    from generator.envfile import load_env_file
    from generator.mcp.server import serve_stdio, served_class

    if env_file is not None:
        load_env_file(env_file)
    asyncio.run(serve_stdio(None, served_class(asset).asset_class))


@bench_app.command("seed")
def bench_seed(
    asset: OptionalAssetArg = None,
    sites: Annotated[int, typer.Option(min=1, help="Number of sites")] = 3,
    units_per_site: Annotated[int, typer.Option(min=1, help="Units per site")] = 4,
    days: Annotated[int, typer.Option(min=7, help="Days of hourly telemetry")] = 90,
    seed: Annotated[int, typer.Option(help="Seed of the fleet")] = 42,
) -> None:
    """Time seeding a fleet into scratch databases (dropped afterwards)."""
    import os
    import time
    import uuid

    from generator.assetdef import load_asset_class, resolve_asset_class
    from generator.config import store_settings
    from generator.store.couch import CouchClient
    from generator.store.seed import META_DB, database_names
    from generator.store.seed import seed as run_seed
    from generator.store.upstream_model import database_names as upstream_database_names

    asset_cls = load_asset_class(resolve_asset_class(asset))
    spec = _fleet_spec(asset_cls, seed=seed, sites=sites, units_per_site=units_per_site, days=days)
    settings = store_settings().model_copy(update={"db_prefix": f"bench_{uuid.uuid4().hex[:8]}_"})
    with CouchClient(settings) as client:
        t = time.perf_counter()
        try:
            report = run_seed(client, asset_cls, spec, prefix=settings.db_prefix)
            elapsed = time.perf_counter() - t
        finally:
            # Scratch databases under a prefix of their own: delete them whole.
            for db in database_names(asset_cls, settings.db_prefix).values():
                client.delete_db(db)
            for db in upstream_database_names(settings.db_prefix).values():
                client.delete_db(db)
            client.delete_db(settings.db_prefix + META_DB)
    n = sum(report.written.values()) + sum(report.upstream.values())
    typer.echo(
        f"seeded {n} documents ({report.written.get('telemetry', 0)} telemetry, "
        f"{sum(report.upstream.values())} in upstream's data model) for "
        f"{sites}×{units_per_site} units × {days} days in {elapsed:.1f} s "
        f"({n / elapsed:.0f} docs/s); phases: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
        + f"; cores {os.cpu_count()}; dbs {sorted(database_names(asset_cls, ''))}"
    )


def _register_stage_commands() -> None:
    from generator import (
        cli_assets,
        cli_bench,
        cli_export,
        cli_families,
        cli_fuzz,
        cli_generate,
        cli_heldout,
        cli_language,
        cli_profile,
        cli_validate,
    )
    from generator.plugins import COMMANDS, load_plugins

    for module in (cli_profile, cli_generate, cli_validate):
        module.register(app, bench_app)
    # The grading commands (evaluate, dryrun, score, audit, difficulty-*, bench grader)
    # come from the eval package's plugin: the framework never imports eval.
    load_plugins()
    for name in COMMANDS:
        COMMANDS.get(name)(app, bench_app)
    for module in (
        cli_export, cli_heldout, cli_fuzz, cli_bench, cli_assets, cli_families, cli_language,
    ):
        module.register(app, bench_app)


_register_stage_commands()


def _usage_line(exc: click_errors.UsageError) -> str:
    """A click/typer usage error as one line naming the command and the fix."""
    message = " ".join(exc.format_message().split()).rstrip(".")
    command = exc.ctx.command_path if exc.ctx is not None else "scenariogen"
    return f"error: {command}: {message}; fix: see `{command} --help`"


def main(argv: list[str] | None = None) -> None:
    """Entry point: every error the user can fix is one line on stderr, never a traceback.

    Exit codes: 2 for a user error (bad option, value or file: ``error: ...``), 130 for
    Ctrl-C (``interrupted: ...``); the command's own code otherwise.
    """
    try:
        from generator.envfile import load_env_file

        load_env_file()  # ./.env etc.: settings for processes started without our environment
        rc = app(args=argv, prog_name="scenariogen", standalone_mode=False)
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(ExitCode.USER_ERROR)
    except Interrupted as exc:
        typer.echo(f"interrupted: {exc}", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except click_errors.NoArgsIsHelpError as exc:
        typer.echo(exc.ctx.get_help() if exc.ctx is not None else str(exc))
        sys.exit(0)
    except click_errors.UsageError as exc:
        typer.echo(_usage_line(exc), err=True)
        sys.exit(ExitCode.USER_ERROR)
    except click_errors.ClickException as exc:  # e.g. a bad file given to a click.File option
        typer.echo(f"error: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(ExitCode.USER_ERROR)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("interrupted: stopped by Ctrl-C; nothing was left half-written", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    if rc == ExitCode.INTERRUPTED:
        # typer turns Ctrl-C inside a command into exit 130 without a word.
        typer.echo("interrupted: stopped by Ctrl-C", err=True)
    sys.exit(rc if isinstance(rc, int) else 0)


fuzz_run.use_cli(main)  # `bench fuzz` runs this entry in-process

if __name__ == "__main__":
    main()
