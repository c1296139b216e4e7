"""Which LLM to use: the `--llm` text parsed into a validated, secret-free :class:`LLMSpec`.

The spec is data that may be printed, logged and hashed into cache keys, so it never holds
an API key: the OpenAI key is read from ``OPENAI_API_KEY`` when the chat model is built
(:mod:`generator.llm.backends`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.errors import UserError
from generator.userfile import check_regular

Backend = Literal["none", "fake", "smollm2", "openai", "ollama"]

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
LLM_FORMS = ["none", "smollm2", "openai:MODEL", "ollama:MODEL", "fake:PATH"]
_FORMS_FIX = (
    "pass --llm none | smollm2 | openai:MODEL (e.g. openai:gpt-4o-mini) | "
    "ollama:MODEL (e.g. ollama:llama3.2) | fake:PATH (a JSON list of reply strings)"
)


class LLMSpec(BaseModel):
    """A chat model choice and how to call it (no secrets: safe to print and hash)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Backend = Field(description="Which backend builds the chat model")
    model: str | None = Field(
        default=None, description="Model name for openai/ollama; None for none/fake/smollm2"
    )
    base_url: str | None = Field(
        default=None,
        description="Server URL for openai (any OpenAI-compatible server) or ollama",
    )
    timeout_s: float = Field(default=60.0, gt=0, description="Deadline of one model call")
    retries: int = Field(
        default=2, ge=0, le=10, description="Retries after the first attempt on transient errors"
    )
    min_interval_s: float = Field(
        default=0.0, ge=0, description="Rate limit: minimum seconds between call starts"
    )
    temperature: float = Field(default=0.2, ge=0, le=2, description="Sampling temperature")
    max_tokens: int = Field(default=768, ge=1, description="Cap on generated tokens per call")
    seed: int = Field(default=0, description="Sampling seed for backends that accept one")
    structured: bool | None = Field(
        default=None,
        description=(
            "Use the backend's structured output (tool calling / grammar / format) for JSON; "
            "None = auto: on for smollm2 when the schema is grammar-safe, off elsewhere"
        ),
    )
    fake_script: str | None = Field(
        default=None, description="For backend 'fake': path of a JSON list of reply strings"
    )

    @property
    def label(self) -> str:
        """A short, secret-free name such as ``openai:gpt-4o-mini`` (used in provenance)."""
        if self.backend in ("none", "smollm2"):
            return self.backend
        if self.backend == "fake":
            return f"fake:{Path(self.fake_script or '').name}"
        label = f"{self.backend}:{self.model}"
        host = _host_only(self.base_url)
        default_host = None if self.backend == "openai" else _host_only(DEFAULT_OLLAMA_URL)
        if host and host != default_host:
            # Same model name on two servers is two models; the host only, since a URL may
            # carry user:password or a token in its query.
            label += f"@{host}"
        return label


def _host_only(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    return parts.hostname + (f":{parts.port}" if parts.port else "")


def parse_llm(
    text: str,
    *,
    base_url: str | None = None,
    timeout_s: float | None = None,
    retries: int | None = None,
    min_interval_s: float | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
    structured: bool | None = None,
) -> LLMSpec:
    """Parse ``none``, ``smollm2``, ``openai:MODEL``, ``ollama:MODEL`` or ``fake:PATH``.

    Keyword arguments left as None keep the :class:`LLMSpec` defaults.

    Args:
        text: The ``--llm`` value.
        base_url: Server URL (openai: any OpenAI-compatible server; ollama: default
            ``http://127.0.0.1:11434``). Rejected for the other backends.
        timeout_s: Deadline of one call in seconds.
        retries: Retries after the first attempt on timeouts and transport errors.
        min_interval_s: Minimum seconds between call starts (rate limit).
        temperature: Sampling temperature.
        max_tokens: Cap on generated tokens.
        seed: Sampling seed.
        structured: Force structured output on/off (None = backend default).

    Returns:
        The validated spec.

    Raises:
        UserError: The text is not one of the forms, a name is empty, ``base_url`` is given
            to a backend without a server, the fake script is missing, or a number is out
            of range.
    """
    raw = (text or "").strip()
    backend, sep, rest = raw.partition(":")
    backend = backend.lower()
    rest = rest.strip()
    fields: dict[str, object] = {}
    if backend in ("none", "smollm2") and not sep:
        pass
    elif backend in ("openai", "ollama") and sep:
        if not rest:
            raise UserError(
                f"--llm {backend}: needs a model name",
                value=text,
                options=LLM_FORMS,
                fix=f"write {backend}:MODEL, e.g. "
                + ("openai:gpt-4o-mini" if backend == "openai" else "ollama:llama3.2"),
            )
        fields["model"] = rest
    elif backend == "fake" and sep:
        if not rest:
            raise UserError(
                "--llm fake: needs the path of a JSON list of reply strings",
                value=text,
                options=LLM_FORMS,
                fix="write fake:PATH",
            )
        check_regular(rest, "--llm fake: script")
        fields["fake_script"] = rest
    else:
        raise UserError("unknown --llm value", value=text, options=LLM_FORMS, fix=_FORMS_FIX)

    if base_url is not None:
        if backend not in ("openai", "ollama"):
            raise UserError(
                f"--base-url applies only to openai and ollama, not {backend}",
                value=base_url,
                fix="drop --base-url, or use --llm openai:MODEL for an OpenAI-compatible server",
            )
        if urlsplit(base_url).scheme not in ("http", "https"):
            raise UserError(
                "--base-url must be an http(s) URL",
                value=base_url,
                fix="e.g. --base-url http://127.0.0.1:8080/v1",
            )
        fields["base_url"] = base_url.rstrip("/")
    elif backend == "ollama":
        fields["base_url"] = DEFAULT_OLLAMA_URL

    optional = {
        "timeout_s": timeout_s,
        "retries": retries,
        "min_interval_s": min_interval_s,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "seed": seed,
        "structured": structured,
    }
    fields.update({k: v for k, v in optional.items() if v is not None})
    try:
        return LLMSpec(backend=backend, **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(p) for p in first["loc"])
        raise UserError(
            f"invalid LLM setting {name}: {first['msg']}",
            value=first.get("input"),
            fix=f"change {name}",
        ) from None
