"""``scenariogen assets``: list, scaffold and check asset classes.

``assets check`` exits 0 when nothing is missing or wrong and 1 when the class still lacks
something (each item printed with its fix); a bad name or missing folder is a user error
(exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

assets_app = typer.Typer(
    help="Asset classes: list them, scaffold a new one, check what one still lacks.",
    no_args_is_help=True,
)

NameArg = Annotated[str, typer.Argument(help="Asset class slug (a folder under assets/)")]


@assets_app.command("list")
def assets_list() -> None:
    """List the asset classes (folders under assets/ and classes installed as packages),
    marking drafts and classes whose asset.yaml fails."""
    from generator.assetdef import (
        ASSETS_DIR,
        available_asset_classes,
        class_folder,
        is_draft,
        load_asset_file,
    )
    from generator.errors import UserError

    for name in available_asset_classes(ASSETS_DIR, drafts=True):
        path = class_folder(name) / "asset.yaml"
        try:
            asset = load_asset_file(path)
            text = f"{asset.display_name} ({', '.join(asset.domains)})"
        except UserError:
            text = f"asset.yaml does not validate: run `scenariogen assets check {name}`"
        mark = "draft" if is_draft(path) else "ready"
        where = "" if path.parent.parent == ASSETS_DIR else f" [installed: {path.parent}]"
        typer.echo(f"{name:<20} {mark:<6} {text}{where}")


@assets_app.command("new")
def assets_new(
    name: NameArg,
    from_template: Annotated[
        Path | None,
        typer.Option(
            "--from-template",
            help="A folder of *.tmpl files to use instead of the built-in skeleton",
        ),
    ] = None,
) -> None:
    """Scaffold assets/NAME/ (a draft) and say what to write next."""
    from generator.assetdef import ASSETS_DIR
    from generator.scaffold import scaffold

    files = scaffold(name, ASSETS_DIR, from_template)
    typer.echo(f"wrote {ASSETS_DIR / name}/ ({', '.join(f.name for f in files)}), a draft")
    typer.echo(f"next: `scenariogen assets check {name}` lists what is still to write")


@assets_app.command("check")
def assets_check(
    name: NameArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as JSON")] = False,
) -> None:
    """List what the class still lacks, each with its fix (exit 1 when anything does)."""
    import json

    from generator.assetdef import ASSETS_DIR, class_folder, class_root
    from generator.assets_check import exit_code, render, run_checks

    class_folder(name, ASSETS_DIR)  # a bad name is refused before any path is built
    findings = run_checks(name, class_root(name, ASSETS_DIR))
    if as_json:
        typer.echo(json.dumps([f.model_dump(mode="json") for f in findings], indent=2))
    else:
        for line in render(name, findings):
            typer.echo(line)
    code = exit_code(findings)
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer, *_: Any) -> None:
    """Add the ``assets`` command group to ``app``."""
    app.add_typer(assets_app, name="assets")
