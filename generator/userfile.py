"""Reading a file the user named: regular files only, and never more than a limit.

A path given on the command line (or found in a folder given there) may name a FIFO, a
device, a socket or a folder. ``stat`` reports size 0 for most of them, so a size check
passes, and ``read()`` then waits forever (a FIFO with no writer) or reads until memory
runs out (``/dev/zero``). Every such read goes through :func:`read_bytes` /
:func:`read_text`: the path (symlinks followed) must be a regular file, it is opened
without blocking, and at most ``max_bytes`` bytes are read, whatever ``stat`` said (a
``/proc`` file reports size 0, a file may grow while it is read). Every failure is one
:class:`~generator.errors.UserError` naming the file.
"""

from __future__ import annotations

import os
import stat

from generator.errors import UserError

_CHUNK = 1 << 20
_REGULAR_FIX = (
    "give a regular file (devices, FIFOs, sockets and folders are refused; copy the data "
    "into a file first)"
)


def _kind(mode: int) -> str:
    """What a non-regular file is, for the message."""
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def _refuse_special(mode: int, what: str, shown: str, error: type[UserError]) -> None:
    if not stat.S_ISREG(mode):
        raise error(f"{what} {shown} is a {_kind(mode)}, not a regular file", fix=_REGULAR_FIX)


def _too_big(size: int, max_bytes: int, what: str, shown: str,
             error: type[UserError]) -> UserError:
    return error(f"{what} {shown} is too large ({size:,} bytes, over the limit of {max_bytes:,})",
                 fix="give a smaller file")


def _read(path: str | os.PathLike[str], what: str, max_bytes: int,
          error: type[UserError]) -> bytearray:
    shown = os.fspath(path)
    check_regular(path, what, error=error)  # stat first: a device is never opened
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:  # gone or changed since the stat
        raise error(f"cannot read {what} {shown} ({exc.strerror})",
                    fix="check the path and its permissions") from None
    with open(fd, "rb", buffering=0) as fh:
        try:
            info = os.fstat(fd)
            _refuse_special(info.st_mode, what, shown, error)  # swapped after the stat
            if info.st_size > max_bytes:
                raise _too_big(info.st_size, max_bytes, what, shown, error)
            # The stated size plus one byte (to see a file that grew) in one buffer, then
            # chunks up to the limit (a /proc file states size 0).
            data = bytearray(min(info.st_size, max_bytes) + 1)
            got = 0
            while got <= max_bytes:
                if got == len(data):
                    data.extend(bytes(min(_CHUNK, max_bytes + 1 - got)))
                n = fh.readinto(memoryview(data)[got:])
                if not n:
                    break
                got += n
            del data[got:]
        except OSError as exc:
            raise error(f"cannot read {what} {shown} ({exc.strerror})",
                        fix="check the file and its permissions") from None
    if got > max_bytes:
        raise _too_big(got, max_bytes, what, shown, error)
    return data


def read_bytes(
    path: str | os.PathLike[str], what: str, *, max_bytes: int,
    error: type[UserError] = UserError,
) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Args:
        path: The file (symlinks are followed; the target must be a regular file).
        what: What the file is, for the message (e.g. ``"scenario file"``).
        max_bytes: Largest size accepted; a longer file is refused, not cut.
        error: The :class:`UserError` subclass to raise.

    Raises:
        UserError: missing, not a regular file, over ``max_bytes``, or unreadable.
    """
    return bytes(_read(path, what, max_bytes, error))


def read_text(
    path: str | os.PathLike[str], what: str, *, max_bytes: int,
    error: type[UserError] = UserError, errors: str = "strict",
) -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_bytes`).

    Args:
        path: The file.
        what: What the file is, for the message.
        max_bytes: Largest size in bytes accepted.
        error: The :class:`UserError` subclass to raise.
        errors: How undecodable bytes are handled (``"strict"``: refused with the offset).

    Raises:
        UserError: as :func:`read_bytes`, or the bytes are not UTF-8.
    """
    data = _read(path, what, max_bytes, error)
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        raise error(f"{what} {os.fspath(path)} is not UTF-8 text ({exc.reason} at byte "
                    f"{exc.start})", fix="save the file as UTF-8") from None


def check_regular(
    path: str | os.PathLike[str], what: str, *, error: type[UserError] = UserError
) -> None:
    """Refuse ``path`` unless it is an existing regular file (nothing is read).

    For an input that is read later (or by another process): the same messages as
    :func:`read_bytes`.
    """
    shown = os.fspath(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise error(f"{what} {shown} does not exist", fix="give an existing path") from None
    except OSError as exc:
        raise error(f"cannot read {what} {shown} ({exc.strerror})",
                    fix="check the path and its permissions") from None
    except ValueError:
        raise error(f"{what} path holds a NUL character", value=shown,
                    fix="give a path without NUL characters") from None
    _refuse_special(mode, what, shown, error)


__all__ = ["check_regular", "read_bytes", "read_text"]
