"""``scenariogen families list|describe``: the task families, read from the registries.

Exit codes: 0 listed or described; 2 for an unknown class or family (the error names the
known ones).
"""

from __future__ import annotations

from typing import Annotated

import typer

families_app = typer.Typer(
    help="Task families: list them per class, describe one (domain, kind, readings, tools, "
    "an example text).",
    no_args_is_help=True,
)


@families_app.command("list")
def families_list(
    asset: Annotated[
        str | None,
        typer.Argument(help="Asset class (a folder under assets/); default: every class",
                       show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON")] = False,
) -> None:
    """List the task families: class, domain, kind (closed or open) and what each asks.

    Exit 0; 2 for an unknown class.
    """
    import json

    from generator.family_catalog import list_families, render_list

    rows = list_families(asset)
    if as_json:
        typer.echo(json.dumps([r.model_dump() for r in rows], indent=2))
    else:
        typer.echo(render_list(rows))


@families_app.command("describe")
def families_describe(
    name: Annotated[str, typer.Argument(help="Family name (see `families list`)")],
    asset: Annotated[
        str | None,
        typer.Option("--asset", help="Asset class to look in (default: every class)"),
    ] = None,
    draw: Annotated[
        bool,
        typer.Option("--draw/--no-draw",
                     help="Draw a real example on the seeded store (tools, readings, text); "
                     "--no-draw shows the template phrasing without reaching the store"),
    ] = True,
    seed: Annotated[int, typer.Option(min=0, help="Run seed of the example draw")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the description as JSON")] = False,
) -> None:
    """Describe one family: domain, kind, roles, readings, tools and an example text.

    The tools, readings and example come from a real draw on the seeded store, worded by
    the template verbaliser; when the store is not reachable (or with --no-draw) the example
    is the family's first template phrasing with its placeholders unfilled. Exit 0; 2 for an
    unknown family or class.
    """
    from generator.family_catalog import describe_family, render_description

    described = describe_family(name, asset, draw=draw, seed=seed)
    if as_json:
        typer.echo(described.model_dump_json(indent=2))
    else:
        typer.echo(render_description(described))


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the ``families`` group to the app."""
    app.add_typer(families_app, name="families")
