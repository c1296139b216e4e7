"""The stdio wire of our MCP servers: every frame gets an answer, stray output stays off it.

The SDK's stdio transport turns a line it cannot parse into an exception on its read
stream and the server answers nothing, so a client waits forever. Here each line is
checked first: text that is not JSON gets a JSON-RPC parse error (-32700), JSON that is
not a JSON-RPC message the SDK accepts gets an invalid-request error (-32600, with the
request's id when it has one), and so does a request whose id is neither a string nor an
integer (``1.5``, ``true``, ``null``, ``[1]``, ``{}``: MCP allows no other; the SDK took
them for notifications and never answered); blank lines are framing, not requests, and
are skipped. A notification (no ``id`` at all) is never answered.
Only well-formed lines reach the SDK.

While serving, file descriptor 1 points at stderr and 0 at the null device, so a print
or a child process cannot corrupt the protocol stream; the wire uses private duplicates.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from io import TextIOWrapper
from typing import Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server

from generator.mcp import compat

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
_MAX_DETAIL = 200


def _error_frame(request_id: str | int | None, code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id,
                       "error": {"code": code, "message": message}})


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 3] + "..."


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return "a number with a fraction or exponent"
    return "an array" if isinstance(value, list) else "an object"


def check_frame(line: str) -> str | None:
    """The error frame to send back for ``line``, or ``None`` when the SDK may have it."""
    try:
        obj = json.loads(line)
    except RecursionError:
        return _error_frame(None, PARSE_ERROR, "Parse error: JSON nested too deeply")
    except ValueError as exc:
        return _error_frame(None, PARSE_ERROR, f"Parse error: {_short(str(exc))}")
    if not isinstance(obj, dict):
        return _error_frame(None, INVALID_REQUEST,
                            "Invalid Request: a message must be one JSON object (no batches)")
    raw_id = obj.get("id")
    valid_id = isinstance(raw_id, str | int) and not isinstance(raw_id, bool)
    request_id = raw_id if valid_id else None
    if "method" in obj and "id" in obj and not valid_id:
        # The SDK reads such a frame as a notification and never answers it.
        return _error_frame(None, INVALID_REQUEST,
                            "Invalid Request: a request id must be a string or an integer, "
                            f"not {_json_kind(raw_id)}")
    try:
        compat.parse_message(line)
    except Exception as exc:  # the SDK's validation error, whatever its class
        first = getattr(exc, "errors", None)
        detail = str(exc)
        if callable(first):
            try:
                errs = first()
                if errs:
                    loc = ".".join(str(p) for p in errs[0].get("loc", ()))
                    detail = f"{loc}: {errs[0].get('msg', '')}" if loc else errs[0].get("msg", "")
            except Exception:  # pragma: no cover - a validation error without errors()
                detail = str(exc)
        return _error_frame(request_id, INVALID_REQUEST,
                            f"Invalid Request: not a JSON-RPC 2.0 message ({_short(detail)})")
    return None


class LineWriter:
    """Writes whole lines to the wire, one writer at a time (the SDK's and ours)."""

    def __init__(self, binary: BinaryIO) -> None:
        self._file = anyio.wrap_file(TextIOWrapper(binary, encoding="utf-8", write_through=True))
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        """Write ``text`` (a whole frame and its newline)."""
        async with self._lock:
            await self._file.write(text)

    async def flush(self) -> None:
        """Flush the wire."""
        async with self._lock:
            await self._file.flush()


class CheckedLines:
    """The wire's input lines, minus the ones answered here with a JSON-RPC error."""

    def __init__(self, source: Any, out: LineWriter) -> None:
        self._source = source
        self._out = out
        self.rejected = 0

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._source:
            if not line.strip():
                continue
            frame = check_frame(line)
            if frame is None:
                yield line
                continue
            self.rejected += 1
            await self._out.write(frame + "\n")
            await self._out.flush()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()


def _claim(fd: int) -> int | None:
    """Move ``fd`` aside: return a private duplicate and point ``fd`` elsewhere."""
    try:
        private = os.dup(fd)
        target = os.open(os.devnull, os.O_RDONLY) if fd == 0 else os.dup(2)
        os.dup2(target, fd)
        os.close(target)
    except OSError:
        return None
    return private


def _restore(fd: int, private: int | None) -> None:
    if private is not None:
        with suppress(OSError):
            os.dup2(private, fd)


@asynccontextmanager
async def guarded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport over checked input and a locked, private output."""
    import sys

    in_fd, out_fd = _claim(0), _claim(1)
    try:
        in_binary: BinaryIO = (os.fdopen(in_fd, "rb", closefd=False) if in_fd is not None
                               else sys.stdin.buffer)
        out_binary: BinaryIO = (os.fdopen(out_fd, "wb", buffering=0, closefd=False)
                                if out_fd is not None else sys.stdout.buffer)
        out = LineWriter(out_binary)
        lines = CheckedLines(
            anyio.wrap_file(TextIOWrapper(in_binary, encoding="utf-8", errors="replace")), out
        )
        transport: Any = stdio_server
        async with transport(stdin=lines, stdout=out) as (read_stream, write_stream):
            yield read_stream, write_stream
    finally:
        _restore(1, out_fd)
        _restore(0, in_fd)
