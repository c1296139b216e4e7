"""One process at a time per folder: an ``flock`` on a lock file inside it.

The kernel drops an ``flock`` with its process, so a killed holder never leaves a stale lock;
the holder's pid is written into the file so a refusal can name it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from generator.errors import UserError


@contextlib.contextmanager
def exclusive(folder: Path, lock_name: str, *, what: str, fix: str,
              busy: Callable[[str], UserError]) -> Iterator[None]:
    """Hold ``folder/lock_name`` exclusively (creating ``folder``) for the ``with`` body.

    Args:
        folder: The folder to lock.
        lock_name: The lock file's name inside it.
        what: How to name the folder in the error when it cannot be locked at all.
        fix: The fix printed with that error.
        busy: Builds the error raised when another live process holds the lock, from the
            holder's pid (or ``"?"``).
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / lock_name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise UserError(f"cannot lock {what} {folder} ({exc.strerror or exc})", fix=fix) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
            raise
        raise busy(holder) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
