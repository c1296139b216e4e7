"""Starting and stopping the bundled server; a busy port is reported with a fix."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.store import server


def test_busy_port_is_reported_with_a_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        with pytest.raises(UserError) as err:
            server.up(port=port)
    text = str(err.value)
    assert f"port {port}" in text and "already in use" in text
    assert f"--port {port + 1}" in text


def test_up_status_down_cycle_leaves_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    record = server.up(port=port)
    try:
        assert server.status().running
        assert server.up(port=port).pid == record.pid  # idempotent
        with pytest.raises(UserError, match="already runs on port"):
            server.up(port=port + 1)
    finally:
        message = server.down()
    assert "stopped" in message
    assert not Path(f"/proc/{record.pid}").exists() or _zombie(record.pid)
    assert not server.status().running
    assert server.down().startswith("no bundled server")


def test_a_server_that_dies_at_start_reports_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_HOME", str(tmp_path))
    bad = tmp_path / "fake-server.js"
    bad.write_text("console.error('boom: cannot open data dir'); process.exit(4);\n")
    monkeypatch.setattr(server, "SERVER_JS", bad)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(UserError) as err:
        server.up(port=port)
    assert "exited with code 4" in str(err.value)
    assert "boom: cannot open data dir" in str(err.value)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True
