"""parse_llm forms, errors and the secret-free label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.llm.backends import BACKENDS, make_chat_model
from generator.llm.fake import ScriptedChatModel
from generator.llm.spec import DEFAULT_OLLAMA_URL, LLMSpec, parse_llm


def test_simple_forms() -> None:
    assert parse_llm("none").backend == "none"
    assert parse_llm(" SmolLM2 ").backend == "smollm2"
    spec = parse_llm("openai:gpt-4o-mini")
    assert (spec.backend, spec.model, spec.base_url) == ("openai", "gpt-4o-mini", None)
    assert spec.label == "openai:gpt-4o-mini"


def test_ollama_defaults_and_colons_in_model_names() -> None:
    spec = parse_llm("ollama:llama3.2:1b")
    assert spec.model == "llama3.2:1b"
    assert spec.base_url == DEFAULT_OLLAMA_URL
    assert spec.label == "ollama:llama3.2:1b"


def test_base_url_and_settings() -> None:
    spec = parse_llm(
        "openai:qwen",
        base_url="http://127.0.0.1:8080/v1/",
        timeout_s=5,
        retries=0,
        min_interval_s=0.5,
        structured=True,
    )
    assert spec.base_url == "http://127.0.0.1:8080/v1"
    assert (spec.timeout_s, spec.retries, spec.min_interval_s) == (5, 0, 0.5)
    assert spec.structured is True
    assert spec.label == "openai:qwen@127.0.0.1:8080"


def test_fake_form(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(["one", "two"]))
    spec = parse_llm(f"fake:{script}")
    assert spec.label == "fake:replies.json"
    model = make_chat_model(spec)
    assert isinstance(model, ScriptedChatModel)
    assert model.remaining == 2


@pytest.mark.parametrize(
    "text", ["gpt-4", "openai", "openai:", "ollama: ", "fake:", "none:x", "claude:x", ""]
)
def test_malformed_values_are_user_errors(text: str) -> None:
    with pytest.raises(UserError) as info:
        parse_llm(text)
    message = str(info.value)
    assert "fix:" in message
    assert "openai:MODEL" in message or "model name" in message or "path" in message


def test_unknown_value_names_it_and_the_forms() -> None:
    with pytest.raises(UserError) as info:
        parse_llm("claude:opus")
    message = str(info.value)
    assert "'claude:opus'" in message
    for form in ("none", "smollm2", "openai:MODEL", "ollama:MODEL", "fake:PATH"):
        assert form in message


def test_missing_fake_script(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        parse_llm(f"fake:{tmp_path / 'nope.json'}")


def test_bad_fake_script_content(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text(json.dumps({"not": "a list"}))
    with pytest.raises(UserError, match="not a JSON list of strings"):
        make_chat_model(parse_llm(f"fake:{script}"))


def test_base_url_rejected_where_meaningless() -> None:
    with pytest.raises(UserError, match="--base-url applies only"):
        parse_llm("smollm2", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(UserError, match="http"):
        parse_llm("openai:x", base_url="127.0.0.1:8080")


def test_out_of_range_setting() -> None:
    with pytest.raises(UserError, match="timeout_s"):
        parse_llm("openai:x", timeout_s=-1)


def test_spec_forbids_unknown_fields_and_is_frozen() -> None:
    with pytest.raises(ValueError):
        LLMSpec(backend="none", api_key="x")  # type: ignore[call-arg]
    spec = parse_llm("none")
    with pytest.raises(ValueError):
        spec.model = "x"  # type: ignore[misc]


def test_none_builds_no_model_and_registry_lists_backends() -> None:
    assert make_chat_model(parse_llm("none")) is None
    assert BACKENDS.names() == ["fake", "ollama", "openai", "smollm2"]


def test_label_never_holds_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-SECRET-1234567890"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    spec = parse_llm("openai:gpt-4o-mini", base_url="https://user:pw@llm.example/v1?key=abc")
    assert spec.label == "openai:gpt-4o-mini@llm.example"
    for shown in (spec.label, repr(spec), spec.model_dump_json()):
        assert secret not in shown
    assert "pw" not in spec.label and "abc" not in spec.label
    model = make_chat_model(spec)
    assert model is not None
    assert secret not in repr(model)


def test_openai_without_key_needs_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        make_chat_model(parse_llm("openai:gpt-4o-mini"))
    # A local OpenAI-compatible server needs no key: a placeholder is sent.
    model = make_chat_model(parse_llm("openai:local", base_url="http://127.0.0.1:9/v1"))
    assert model is not None


def test_ollama_model_points_at_base_url() -> None:
    from langchain_ollama import ChatOllama

    model = make_chat_model(parse_llm("ollama:llama3.2", base_url="http://127.0.0.1:9"))
    assert isinstance(model, ChatOllama)
    assert model.base_url == "http://127.0.0.1:9"
    assert model.model == "llama3.2"
