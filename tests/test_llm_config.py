"""The LLM configuration: from flags and the environment to the model, server, key and
context window a client is made with."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAIServer
from openai_helpers import MESSAGES, TOOLS

from tiermem.agent.base_url import OPENAI_API_BASE_URL, normalize_base_url
from tiermem.agent.config import (
    PLACEHOLDER_API_KEY,
    LLMConfig,
    default_context_window,
    resolve_llm_config,
)
from tiermem.agent.errors import LLMConfigError, ProviderError
from tiermem.agent.openai_client import OpenAIClient


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4o-mini", 128_000),
        ("openai/gpt-4o", 128_000),
        ("gpt-4.1-nano", 1_047_576),
        ("gpt-5-mini", 400_000),
        ("o3-mini", 200_000),
        ("o4-mini", 200_000),
        ("o1", 200_000),
        # An open model's window is the server's setting: never guessed from its name.
        ("llama3.1:8b", 8_192),
        ("Qwen2.5-7B-Instruct", 8_192),
        ("qwen2.5:0.5b-instruct", 8_192),
        ("mistral-7b", 8_192),
    ],
)
def test_default_context_window(model: str, window: int) -> None:
    assert default_context_window(model) == window


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434/v1"),
        ("http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1"),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
        ("http://127.0.0.1:11434/v1/", "http://127.0.0.1:11434/v1"),
        ("localhost:8080", "http://localhost:8080/v1"),
        ("https://gateway.example/api/v1", "https://gateway.example/api/v1"),
        ("http://h:1/v1/chat/completions", "http://h:1/v1"),
    ],
)
def test_normalize_base_url(given: str, expected: str) -> None:
    assert normalize_base_url(given) == expected


def test_normalize_base_url_rejects_other_schemes() -> None:
    with pytest.raises(LLMConfigError, match="http"):
        normalize_base_url("ftp://host/v1")


@pytest.mark.parametrize("given", ["http://host:port/v1", "http://[::1", "http://[zz]/v1",
                                   "http://localhost:99999/v1"])
def test_normalize_base_url_rejects_a_malformed_address(given: str) -> None:
    with pytest.raises(LLMConfigError, match=r"is not a valid URL .*expected e\.g\. http://"):
        normalize_base_url(given)


def test_nothing_configured_means_offline() -> None:
    assert resolve_llm_config(env={}) is None
    assert resolve_llm_config(env={"OPENAI_API_KEY": "sk-x"}) is None
    assert resolve_llm_config(env={"TIERMEM_MODEL": " ", "OPENAI_BASE_URL": ""}) is None


def test_local_server_from_environment_needs_no_key() -> None:
    config = resolve_llm_config(
        env={"TIERMEM_MODEL": "llama3.1", "OPENAI_BASE_URL": "http://127.0.0.1:11434"}
    )
    assert config == LLMConfig(
        model="llama3.1", base_url="http://127.0.0.1:11434/v1", api_key=PLACEHOLDER_API_KEY
    )
    assert config.effective_context_window == 8_192


def test_flags_beat_environment() -> None:
    env = {
        "TIERMEM_MODEL": "env-model",
        "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        "OPENAI_API_KEY": "env-key",
    }
    config = resolve_llm_config(
        model="flag-model", base_url="http://127.0.0.1:2", api_key="flag-key", env=env
    )
    assert config is not None
    assert (config.model, config.base_url, config.api_key) == (
        "flag-model",
        "http://127.0.0.1:2/v1",
        "flag-key",
    )


def test_environment_is_read_when_env_is_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERMEM_MODEL", "qwen2.5:7b")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    config = resolve_llm_config()
    assert config is not None and config.model == "qwen2.5:7b"


def test_base_url_without_model_asks_for_one() -> None:
    with pytest.raises(LLMConfigError) as info:
        resolve_llm_config(base_url="http://127.0.0.1:11434", env={})
    assert "--model" in str(info.value)
    assert "TIERMEM_MODEL" in str(info.value)


def test_openai_without_key_asks_for_one() -> None:
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        resolve_llm_config(model="gpt-4o-mini", env={})
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        resolve_llm_config(model="gpt-4o-mini", base_url="https://api.openai.com/v1", env={})


def test_openai_with_key() -> None:
    config = resolve_llm_config(env={"TIERMEM_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "sk-x"})
    assert config is not None
    assert config.base_url == OPENAI_API_BASE_URL
    assert config.api_key == "sk-x"
    assert "sk-x" not in repr(config)


def test_context_window_override() -> None:
    env = {
        "TIERMEM_MODEL": "llama3",
        "OPENAI_BASE_URL": "http://h:1",
        "TIERMEM_CONTEXT_WINDOW": "4096",
    }
    config = resolve_llm_config(env=env)
    assert config is not None and config.effective_context_window == 4096
    config = resolve_llm_config(env=env, context_window=2048)
    assert config is not None and config.effective_context_window == 2048
    with pytest.raises(LLMConfigError, match="TIERMEM_CONTEXT_WINDOW"):
        resolve_llm_config(env={**env, "TIERMEM_CONTEXT_WINDOW": "lots"})


def test_client_from_config(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    config = resolve_llm_config(
        model="fake-model", base_url=server.base_url, env={}, max_retries=0, context_window=1000
    )
    assert config is not None
    server.enqueue_error(500)
    with OpenAIClient.from_config(config, sleep=sleeps.append) as client:
        assert client.context_window == 1000
        with pytest.raises(ProviderError):
            client.complete(MESSAGES, TOOLS)
    assert len(server.requests) == 1
