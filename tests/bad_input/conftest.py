"""Helpers for the bad-input tests: run the CLI in-process and read its one error line."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from generator.cli import main


@dataclass
class Outcome:
    """Exit code and captured output of one CLI run."""

    code: int
    out: str
    err: str

    def one_line(self, code: int = 2) -> str:
        """The single stderr line, after asserting the exit code and the absence of a traceback."""
        assert "Traceback" not in self.err, self.err
        assert self.code == code, (self.code, self.err)
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1, self.err
        return lines[0]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """``cli(*argv) -> Outcome``: run ``scenariogen`` in this process."""

    def run(*argv: str) -> Outcome:
        capsys.readouterr()
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return run
