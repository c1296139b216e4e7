"""An MCP server serves one asset class: chosen by --asset or SCENARIOGEN_ASSET_CLASS, it
lists that class's tools only and describes itself from the class and the domain policy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from pydantic import BaseModel

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import UserError
from generator.generate.run.policy import load_policy
from generator.mcp import compat
from generator.mcp import server as mcp_server
from generator.tools import registry
from generator.tools.registry import GENERIC, ToolContext, ToolIndex, ToolSpec, tools_for
from tests.generator.mcp.conftest import PROJECT_ROOT, write_env_file


class _Args(BaseModel):
    pass


def _spec(name: str, owner: str) -> ToolSpec:
    def fn(args: _Args, ctx: ToolContext) -> _Args:
        return _Args()

    return ToolSpec(name=name, domain="iot", description="probe", args=_Args, result=_Args,
                    fn=fn, asset_classes=(owner,))


def test_a_server_offers_its_class_tools_only(monkeypatch: pytest.MonkeyPatch) -> None:
    index = ToolIndex()
    for name, owner in (("g", GENERIC), ("mine", "transformer"), ("theirs", "otherx")):
        index.add(_spec(name, owner))
    monkeypatch.setattr(registry, "TOOLS", index)
    monkeypatch.setattr(registry, "_loaded", True)
    assert [s.name for s in mcp_server.served_specs(None, "transformer")] == ["g", "mine"]
    assert [s.name for s in mcp_server.served_specs(["iot"], "transformer")] == ["g", "mine"]
    with pytest.raises(UserError, match="no tools for domain 'wo'"):
        mcp_server.served_specs(["wo"], "transformer")


def test_the_class_comes_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(mcp_server.ASSET_CLASS_ENV, raising=False)
    assert mcp_server.served_class().asset_class == "transformer"  # the default class
    monkeypatch.setenv(mcp_server.ASSET_CLASS_ENV, "no_such_class")
    with pytest.raises(UserError) as err:
        mcp_server.served_class()
    assert "no_such_class" in str(err.value) and "transformer" in (err.value.options or [])
    # The option wins over the environment.
    assert mcp_server.served_class("transformer").asset_class == "transformer"


def test_instructions_come_from_the_class_and_the_domain_policy() -> None:
    asset = load_asset_class("transformer")
    text = mcp_server.instructions_for(asset, ["wo"])
    assert text.startswith(f"{asset.display_name}: ")
    assert " ".join(load_policy("wo", "transformer").description.split()) in text
    everything = mcp_server.instructions_for(asset)
    assert all(s.id in everything for s in asset.standards)


def test_an_unknown_class_fails_in_one_line_before_serving() -> None:
    done = subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "generator" / "mcp" / "wo.py"), "--asset", "nosuch"],
        capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nosuch" in lines[0] and "transformer" in lines[0], done.stderr


async def test_the_environment_names_the_class_of_a_launched_server(
    tmp_path: Path, store_settings: StoreSettings
) -> None:
    folder = tmp_path
    write_env_file(folder / ".env", store_settings)
    params = StdioServerParameters(
        command=sys.executable, args=[str(PROJECT_ROOT / "generator" / "mcp" / "iot.py")],
        cwd=str(folder), env={"SCENARIOGEN_ASSET_CLASS": "transformer"},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        listed = await compat.list_all_tools(session)
    expected = {n for n, s in tools_for("transformer").items() if s.domain == "iot"}
    assert {t.name for t in listed} == expected
    assert "oil_samples" in expected
    assert str(init.instructions).startswith(load_asset_class("transformer").display_name)
