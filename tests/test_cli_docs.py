"""docs/cli.md is the CLI as it is: regenerate it with ``python -m scripts.cli_docs``."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from generator.cli import app
from scripts import cli_docs


def _paths(cmd: Any, ctx: Any, path: str) -> list[str]:
    """Every command path of the app (``scenariogen env seed`` ...), walked through click."""
    found = [path]
    for name in getattr(cmd, "list_commands", lambda _ctx: [])(ctx):
        sub = cmd.get_command(ctx, name)
        sub_ctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
        found += _paths(sub, sub_ctx, f"{path} {name}")
    return found


def test_cli_reference_is_up_to_date() -> None:
    current = cli_docs.OUT.read_text(encoding="utf-8")
    assert current == cli_docs.render(), (
        "docs/cli.md is out of date with generator/cli.py; run: python -m scripts.cli_docs"
    )


def test_every_command_and_option_is_on_the_page() -> None:
    page = cli_docs.OUT.read_text(encoding="utf-8")
    root: Any = typer.main.get_command(app)
    ctx = root.make_context("scenariogen", [], resilient_parsing=True)
    paths = _paths(root, ctx, "scenariogen")
    assert len(paths) > 40  # the top-level commands and the env/tools/bench/... groups
    for path in paths:
        assert f"# `{path}`\n" in page, path
    generate = root.get_command(ctx, "generate")
    for param in generate.params:
        for opt in param.opts:
            if opt != "--help":
                assert opt in page, opt


def test_a_changed_help_text_changes_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    real = typer.main.get_command

    def edited(typer_app: typer.Typer) -> Any:
        cmd: Any = real(typer_app)
        option = next(p for p in cmd.commands["generate"].params if p.name == "negatives")
        option.help = "Negative scenarios, edited"
        return cmd

    monkeypatch.setattr(typer.main, "get_command", edited)
    text = cli_docs.render()
    assert "Negative scenarios, edited" in text
    assert text != cli_docs.OUT.read_text(encoding="utf-8")
