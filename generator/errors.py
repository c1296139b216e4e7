"""The one exception type for user errors.

A user error (bad config, unknown asset, unreachable store) is printed by the CLI as one
line without a traceback; anything else is a bug and propagates.
"""

from __future__ import annotations

from collections.abc import Iterable


class UserError(Exception):
    """An error the user can fix: names the object, the bad value, the options and the fix."""

    def __init__(
        self,
        what: str,
        *,
        value: object = None,
        options: Iterable[str] | None = None,
        fix: str | None = None,
    ) -> None:
        self.what = what
        self.value = value
        self.options = list(options) if options is not None else None
        self.fix = fix
        super().__init__(self.render())

    def render(self) -> str:
        """Return the error as one line."""
        parts = [self.what]
        if self.value is not None:
            shown_value = repr(self.value)
            if len(shown_value) > 160:
                shown_value = shown_value[:157] + "..."
            parts.append(f"got {shown_value}")
        if self.options:
            shown = ", ".join(self.options[:20])
            more = f" (+{len(self.options) - 20} more)" if len(self.options) > 20 else ""
            parts.append(f"valid: {shown}{more}")
        if self.fix:
            parts.append(f"fix: {self.fix}")
        return "; ".join(parts)


class StoreUnavailable(UserError):
    """The CouchDB-protocol store cannot be reached or answered with a server error."""


class LLMUnavailable(UserError):
    """The LLM server stayed unreachable, timed out or kept failing (5xx, 429) after retries.

    During generation this is an outage, never a verdict on a candidate: the run stops and
    is resumed later (raised only by clients built with ``stop_on_outage=True``).
    """


class RunStopped(UserError):
    """A generation run stopped on an outage (store, LLM server, disk); its folder is kept
    and ``--resume`` finishes it. The CLI exits with :attr:`ExitCode.STOPPED`."""
class Interrupted(Exception):
    """Ctrl-C stopped a command; the message says what was kept and how to go on."""


class ExitCode:
    """Process exit codes of the CLI, documented in docs/exit-codes.md."""

    OK = 0
    CHECKS_FAILED = 1
    USER_ERROR = 2
    SHORTFALL = 3
    STOPPED = 4
    INTERRUPTED = 130
