"""Write the CLI reference, ``docs/cli.md``, from the Typer app itself.

Every command and sub-command of ``generator.cli.app`` with its help, usage, arguments and
options (each with the help line and the ``[default: ...]`` that ``--help`` prints), read
through click's introspection, so the page says what the CLI says.
``tests/test_cli_docs.py`` fails when the page is out of date.

    python -m scripts.cli_docs           # rewrite docs/cli.md
    python -m scripts.cli_docs --check   # exit 1 when docs/cli.md is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "cli.md"
PROG = "scenariogen"

HEADER = f"""# CLI reference

Generated from the Typer app (`generator/cli.py`) by `python -m scripts.cli_docs`; do not
edit by hand: `tests/test_cli_docs.py` fails when this page and the app disagree. Each
entry is what `{PROG} ... --help` prints, laid out for reading (every command also takes
`--help`). Exit codes are explained in
[Exit codes and bad input](exit-codes.md); which checking command answers which question
in [Evaluating agents](evaluating.md#which-command-when).
"""

_CODE_SPAN = re.compile(r"(`[^`\n]*`)")
# What Markdown would read as markup in help prose, and nothing else (the page stays readable
# as text): emphasis, a tag or an entity, a link, a backslash.
_MARKUP = [
    (re.compile(r"\\"), r"\\\\"),
    (re.compile(r"\*"), r"\*"),
    (re.compile(r"(?<!\w)_|_(?!\w)"), r"\_"),
    (re.compile(r"&(?=#?\w+;)"), "&amp;"),
    (re.compile(r"<(?=[A-Za-z/!?])"), "&lt;"),
    (re.compile(r"\](?=[(\[])"), r"\]"),
]


def _escape_prose(text: str) -> str:
    for pattern, repl in _MARKUP:
        text = pattern.sub(repl, text)
    return text


def _escape(text: str) -> str:
    """Markdown-safe text: code spans kept as written, everything else escaped."""
    if text.count("`") % 2:  # an unpaired backtick: no code spans at all
        return _escape_prose(text).replace("`", "\\`")
    parts = _CODE_SPAN.split(text)
    return "".join(part if i % 2 else _escape_prose(part) for i, part in enumerate(parts))


def _blocks(help_text: str) -> list[str]:
    """A help text as Markdown blocks: prose paragraphs rejoined, ``\\b`` blocks verbatim."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", help_text.strip()):
        lines = para.split("\n")
        if lines[0].strip() == "\b":  # click's "do not rewrap" marker: a preformatted block
            body = "\n".join(lines[1:]).rstrip()
            out.append(f"```text\n{body}\n```")
        else:
            out.append(_escape(" ".join(line.strip() for line in lines)))
    return out


def _param_line(record: tuple[str, str]) -> str:
    names, help_text = record
    help_text = " ".join(help_text.split())
    return f"- `{names}`" + (f": {_escape(help_text)}" if help_text else "")


def _command(cmd: Any, ctx: Any, path: str, level: int) -> list[str]:
    """Markdown for one command and, for a group, each of its sub-commands after it."""
    lines = [f"{'#' * level} `{path}`", ""]
    for block in _blocks(cmd.help or ""):
        lines += [block, ""]
    usage = " ".join([path, *cmd.collect_usage_pieces(ctx)])
    lines += ["```text", usage, "```", ""]
    params = [p for p in cmd.get_params(ctx)
              if not getattr(p, "hidden", False) and p.name != "help"]
    arguments = [p for p in params if p.param_type_name == "argument"]
    options = [p for p in params if p.param_type_name == "option"]
    for title, group in (("Arguments", arguments), ("Options", options)):
        records = [r for r in (p.get_help_record(ctx) for p in group) if r is not None]
        if records:
            lines += [f"**{title}**", ""]
            lines += [_param_line(r) for r in records]
            lines.append("")
    if cmd.epilog:
        for block in _blocks(cmd.epilog):
            lines += [block, ""]
    subcommands = cmd.list_commands(ctx) if hasattr(cmd, "list_commands") else []
    if subcommands:
        lines += ["Sub-commands: " + ", ".join(
            f"[`{name}`](#{_anchor(f'{path} {name}')})" for name in subcommands), ""]
    for name in subcommands:
        sub = cmd.get_command(ctx, name)
        if sub is None or getattr(sub, "hidden", False):
            continue
        sub_ctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
        lines += _command(sub, sub_ctx, f"{path} {name}", min(level + 1, 4))
    return lines


def _anchor(title: str) -> str:
    """The id MkDocs' toc extension gives a heading (its default slugify)."""
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", title).strip().lower())


def render() -> str:
    """The whole reference page, from the app as it is now."""
    import typer

    from generator.cli import app

    root = typer.main.get_command(app)
    ctx = root.make_context(PROG, [], resilient_parsing=True)
    body = _command(root, ctx, PROG, 2)
    return HEADER + "\n" + "\n".join(body).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when docs/cli.md is out of date instead of writing it")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is out of date; run: python -m scripts.cli_docs",
                  file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
