"""Every frame gets an answer: parse errors and invalid requests per JSON-RPC 2.0 (issue 13).

The raw-wire tests run the server under both SDKs (main venv: mcp 2.x; .venv-mcp1: 1.26)
and check that the server goes on serving after each bad frame.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from generator.mcp.server import (
    ArgumentTooLong,
    NonFiniteResult,
    check_argument_sizes,
    strict_json,
)
from generator.mcp.wire import INVALID_REQUEST, PARSE_ERROR, check_frame
from tests.generator.mcp.conftest import PROJECT_ROOT

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "0"}}}

BAD_FRAMES = [
    ("not json", None, PARSE_ERROR),
    ('{"jsonrpc": "2.0", "id": 5, "method": "tools/list"', None, PARSE_ERROR),  # cut short
    ("[" * 100_000, None, PARSE_ERROR),  # nesting beyond the parser's recursion limit
    ('{"jsonrpc":"2.0","id":6,"method":"x","params":{"n":' + "9" * 5000 + "}}",
     None, PARSE_ERROR),  # an integer over Python's 4300-digit limit
    ("[1, 2]", None, INVALID_REQUEST),  # a batch (MCP has none)
    ('"just a string"', None, INVALID_REQUEST),
    ('{"jsonrpc": "2.0", "id": 7, "method": 5}', 7, INVALID_REQUEST),  # method not a string
    ('{"jsonrpc": "1.0", "id": "abc", "method": "ping"}', "abc", INVALID_REQUEST),
]  # fmt: skip

# Issue 28.6: a request id must be a string or an integer (MCP: never null). The SDK read
# these as notifications and sent nothing, so a client waiting for the reply hung.
BAD_IDS = ["1.5", "true", "false", "null", "[1]", "{}", '{"a": 1}', "1.0", "1e3", "-0.5"]
BAD_ID_FRAMES = [
    (f'{{"jsonrpc": "2.0", "id": {rid}, "method": "{method}"}}', None, INVALID_REQUEST)
    for rid in BAD_IDS for method in ("tools/list", "ping")
]


@pytest.mark.parametrize(("line", "want_id", "code"), BAD_FRAMES + BAD_ID_FRAMES)
def test_check_frame_answers_bad_lines(line: str, want_id: object, code: int) -> None:
    frame = check_frame(line)
    assert frame is not None
    reply = json.loads(frame)
    assert reply["jsonrpc"] == "2.0" and reply["id"] == want_id
    assert reply["error"]["code"] == code and "\n" not in reply["error"]["message"]


def test_check_frame_passes_good_messages() -> None:
    assert check_frame(json.dumps(INITIALIZE)) is None
    assert check_frame('{"jsonrpc": "2.0", "method": "notifications/initialized"}') is None
    assert check_frame('{"jsonrpc": "2.0", "id": 3, "result": {}}') is None
    for rid in ('"abc"', '""', "0", "-7", str(2**53)):
        assert check_frame(f'{{"jsonrpc": "2.0", "id": {rid}, "method": "ping"}}') is None
    # a notification has no id at all, whatever its method: never answered
    assert check_frame('{"jsonrpc": "2.0", "method": "notifications/nosuch"}') is None


def test_over_long_string_arguments_are_refused_at_any_depth() -> None:
    check_argument_sizes("history", {"site_name": "NORTH", "sensors": ["oti", "wti"]})
    with pytest.raises(ArgumentTooLong) as err:
        check_argument_sizes("history", {"site_name": "N", "sensors": ["oti", "w" * 1001]})
    assert "'sensors[1]'" in str(err.value) and "1001 characters" in str(err.value)


def test_strict_json_refuses_nan_and_infinity() -> None:
    assert strict_json("t", {"a": 1.5, "b": [None, 2]}) == '{"a": 1.5, "b": [null, 2]}'
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(NonFiniteResult) as err:
            strict_json("assess_load_profile", {"ratios": {"x": [0.0, bad]}})
        assert "'ratios.x[1]'" in str(err.value) and "\n" not in str(err.value)


async def _exchange(python: str, frames: list[str]) -> list[dict[str, object]]:
    """Send each frame and read one reply line after it (a frame that is a notification
    gets no reply: the next frame's reply would be read in its place)."""
    proc = await asyncio.create_subprocess_exec(
        python, str(PROJECT_ROOT / "generator" / "mcp" / "fmsr.py"),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, cwd=PROJECT_ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    try:
        for frame in frames:
            proc.stdin.write(frame.encode() + b"\n")
            await proc.stdin.drain()
            line = await asyncio.wait_for(proc.stdout.readline(), timeout=60)
            assert line, "the server closed the wire instead of answering"
            replies.append(json.loads(line))
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), timeout=60)
    return replies


@pytest.mark.parametrize("server_python", ["main", "mcp1"])
async def test_the_server_answers_every_bad_frame_and_keeps_serving(
    server_python: str, request: pytest.FixtureRequest
) -> None:
    python = (sys.executable if server_python == "main"
              else str(request.getfixturevalue("mcp1_python")))
    bad = [line for line, _, _ in BAD_FRAMES]
    replies = await _exchange(python, [*bad, json.dumps(INITIALIZE)])
    for (_, want_id, code), reply in zip(BAD_FRAMES, replies[:-1], strict=True):
        assert reply["id"] == want_id and reply["error"]["code"] == code  # type: ignore[index]
    assert replies[-1]["id"] == 1 and "result" in replies[-1]


@pytest.mark.parametrize("server_python", ["main", "mcp1"])
async def test_a_request_with_a_bad_id_gets_invalid_request_and_notifications_nothing(
    server_python: str, request: pytest.FixtureRequest
) -> None:
    python = (sys.executable if server_python == "main"
              else str(request.getfixturevalue("mcp1_python")))
    notification = '{"jsonrpc": "2.0", "method": "notifications/nosuch", "params": {}}'
    frames = [json.dumps(INITIALIZE)]
    for line, _, _ in BAD_ID_FRAMES:
        frames += [notification + "\n" + line]  # the notification first: no reply to it
    frames.append('{"jsonrpc": "2.0", "id": "last", "method": "ping"}')
    replies = await _exchange(python, frames)
    assert "result" in replies[0]
    for reply in replies[1:-1]:
        assert reply["id"] is None and reply["error"]["code"] == INVALID_REQUEST, reply  # type: ignore[index]
    assert replies[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}
