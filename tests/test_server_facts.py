"""The context window is asked of the server; the flags and timeouts that go with it.

Server answers below are shaped like those recorded from llama-server
(b1-0c1e570), llama-cpp-python 0.3.36 and the documented vLLM, Ollama and LM
Studio listings.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse
from openai_helpers import closed_port

from tiermem.agent.config import LLMConfig, default_timeout, resolve_llm_config
from tiermem.agent.errors import LLMConfigError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.server_facts import (
    clear_cache,
    discover_context_window,
    resolve_context_window,
    server_root,
    with_server_window,
)
from tiermem.agent.server_options import add_server_options, config_from_args, open_client


def local(server: FakeOpenAIServer, **kwargs: Any) -> LLMConfig:
    config = resolve_llm_config(model=server.model, base_url=server.base_url, env={}, **kwargs)
    assert config is not None
    return config


LLAMA_SERVER_PROPS = {"default_generation_settings": {"n_ctx": 4096, "params": {}},
                      "total_slots": 4, "chat_template_caps": {"supports_tools": False}}


def test_llama_server_props_give_the_window(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/props")] = LLAMA_SERVER_PROPS
    found = discover_context_window(server.base_url, server.model)
    assert found.reached and found.window is not None
    assert (found.window.tokens, found.window.source) == (4096, "llama.cpp /props")


def test_older_llama_server_props_put_n_ctx_on_top(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/props")] = {"n_ctx": 2048}
    window = discover_context_window(server.base_url, server.model).window
    assert window is not None and window.tokens == 2048


def test_the_model_listing_gives_the_servers_window_never_the_training_one(
    server: FakeOpenAIServer,
) -> None:
    server.model_fields["meta"] = {"n_ctx_train": 8192, "n_params": 134515008}
    assert discover_context_window(server.base_url, server.model).window is None
    clear_cache()
    server.model_fields["meta"] = {"n_ctx": 4096, "n_ctx_train": 8192}
    window = discover_context_window(server.base_url, server.model).window
    assert window is not None and (window.tokens, window.source) == (4096, "/v1/models")


@pytest.mark.parametrize("field", ["max_model_len", "context_length", "context_window",
                                   "loaded_context_length"])
def test_model_listing_fields(server: FakeOpenAIServer, field: str) -> None:
    server.model_fields[field] = 16384
    window = discover_context_window(server.base_url, server.model).window
    assert window is not None and window.tokens == 16384


def test_the_listing_entry_of_another_model_is_not_used(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/v1/models")] = {"object": "list", "data": [
        {"id": "big", "max_model_len": 32768}, {"id": "small", "max_model_len": 2048}]}
    window = discover_context_window(server.base_url, "small").window
    assert window is not None and window.tokens == 2048
    assert discover_context_window(server.base_url, "absent").window is None


def test_ollama_loaded_context_then_num_ctx_parameter(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/api/ps")] = {"models": [
        {"name": "qwen2.5:0.5b", "model": "qwen2.5:0.5b", "context_length": 4096}]}
    window = discover_context_window(server.base_url, "qwen2.5:0.5b").window
    assert window is not None and (window.tokens, window.source) == (4096, "Ollama /api/ps")

    del server.routes[("GET", "/api/ps")]
    server.routes[("POST", "/api/show")] = {
        "parameters": "num_ctx                        8192\nstop \"<|im_end|>\"",
        "model_info": {"qwen2.context_length": 32768}}
    window = discover_context_window(server.base_url, "other").window
    assert window is not None and window.tokens == 8192


def test_ollamas_training_window_is_not_taken(server: FakeOpenAIServer) -> None:
    server.routes[("POST", "/api/show")] = {"parameters": "stop \"<|im_end|>\"",
                                            "model_info": {"qwen2.context_length": 32768}}
    assert discover_context_window(server.base_url, server.model).window is None


def test_lm_studio_loaded_context(server: FakeOpenAIServer) -> None:
    server.routes[("GET", f"/api/v0/models/{server.model}")] = {
        "id": server.model, "max_context_length": 32768, "loaded_context_length": 4096}
    window = discover_context_window(server.base_url, server.model).window
    assert window is not None and window.tokens == 4096


def test_discovery_is_asked_once_per_run(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/props")] = LLAMA_SERVER_PROPS
    discover_context_window(server.base_url, server.model)
    asked = len(server.other_requests)
    discover_context_window(server.base_url, server.model)
    assert asked == 1 and len(server.other_requests) == asked


@pytest.mark.parametrize("body", [{"n_ctx": "many"}, {"n_ctx": -1}, {"n_ctx": True}, [1, 2],
                                  {"default_generation_settings": "odd"}])
def test_odd_answers_mean_not_said(server: FakeOpenAIServer, body: Any) -> None:
    server.routes[("GET", "/props")] = body
    assert discover_context_window(server.base_url, server.model).window is None


def test_a_server_error_is_not_fatal(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/props")] = FakeResponse(status=500, body=b"boom")
    server.model_fields["max_model_len"] = 2048
    window = discover_context_window(server.base_url, server.model).window
    assert window is not None and window.tokens == 2048


def test_an_unreachable_server_is_asked_once_and_not_fatal() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    found = discover_context_window(base_url, "m")
    assert (found.window, found.reached) == (None, False)


def test_a_server_that_says_nothing_gets_the_fallback_with_a_notice(
    server: FakeOpenAIServer,
) -> None:
    """llama-cpp-python: /props 404, a bare /v1/models. A qwen2.5 name once meant 32,768."""
    notes: list[str] = []
    config = resolve_llm_config(model="qwen2.5-0.5b-instruct", base_url=server.base_url, env={})
    assert config is not None
    settled = with_server_window(config, notes.append)
    assert settled.context_window == 8192
    assert len(notes) == 1
    assert "does not report its context window; assuming 8192 tokens" in notes[0]
    assert "--context-window N" in notes[0] and "TIERMEM_CONTEXT_WINDOW" in notes[0]


def test_the_notice_says_when_the_server_did_not_answer() -> None:
    notes: list[str] = []
    config = resolve_llm_config(model="m", base_url=f"http://127.0.0.1:{closed_port()}", env={})
    assert config is not None
    assert with_server_window(config, notes.append).context_window == 8192
    assert "did not answer when asked for its context window" in notes[0]


def test_the_flag_beats_the_server_and_the_server_is_not_asked(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/props")] = LLAMA_SERVER_PROPS
    fact, asked = resolve_context_window(local(server, context_window=2048))
    assert (fact.tokens, asked) == (2048, None)
    assert server.other_requests == []


def test_the_server_beats_the_fallback_silently(server: FakeOpenAIServer) -> None:
    server.routes[("GET", "/props")] = LLAMA_SERVER_PROPS
    notes: list[str] = []
    client = open_client(local(server), notes.append)
    assert client.context_window == 4096 and notes == []
    assert client.max_tokens == 1024  # a quarter of the server's window


def test_openai_models_use_the_published_table_without_asking() -> None:
    config = resolve_llm_config(model="gpt-4o-mini", env={"OPENAI_API_KEY": "sk-x"})
    assert config is not None
    fact, asked = resolve_context_window(config)
    assert (fact.tokens, fact.known, asked) == (128_000, True, None)


def test_a_server_window_too_small_for_the_reply_budget_is_refused(
    server: FakeOpenAIServer,
) -> None:
    server.routes[("GET", "/props")] = {"n_ctx": 1024}
    with pytest.raises(LLMConfigError, match="--max-tokens"):
        open_client(local(server, max_tokens=800), lambda _: None)


def test_server_root_strips_the_api_prefix() -> None:
    assert server_root("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080"
    assert server_root("https://gw.example/llm/v1") == "https://gw.example/llm"
    assert server_root("https://gw.example/api") == "https://gw.example/api"


# --- timeouts ---------------------------------------------------------------------------


def test_local_servers_get_a_timeout_for_small_cpus() -> None:
    assert default_timeout("http://127.0.0.1:8080/v1") == 300.0
    assert default_timeout("https://api.openai.com/v1") == 60.0
    config = resolve_llm_config(model="m", base_url="http://127.0.0.1:1", env={})
    assert config is not None and config.effective_timeout == 300.0
    assert OpenAIClient("m", base_url="http://127.0.0.1:1").timeout == 300.0
    assert OpenAIClient("gpt-4o", api_key="sk-x").timeout == 60.0


def test_timeout_from_flag_and_environment() -> None:
    env = {"TIERMEM_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1", "TIERMEM_TIMEOUT": "90"}
    config = resolve_llm_config(env=env)
    assert config is not None and config.effective_timeout == 90.0
    config = resolve_llm_config(env=env, timeout=15)
    assert config is not None and config.effective_timeout == 15
    assert OpenAIClient.from_config(config).timeout == 15
    for bad in ("soon", "0", "-3", "nan"):
        with pytest.raises(LLMConfigError, match="TIERMEM_TIMEOUT"):
            resolve_llm_config(env={**env, "TIERMEM_TIMEOUT": bad})


def test_a_timeout_names_the_flag(server: FakeOpenAIServer) -> None:
    from tiermem.agent.errors import ProviderError

    server.enqueue_hold()
    client = OpenAIClient(server.model, base_url=server.base_url, timeout=0.2, max_retries=0)
    with pytest.raises(ProviderError, match="--timeout SECONDS or TIERMEM_TIMEOUT"):
        client.complete([{"role": "user", "content": "hi"}], [])


# --- the flags --------------------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    add_server_options(parser)
    return parser.parse_args(list(argv))


def test_flags_reach_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TIERMEM_CONTEXT_WINDOW", "TIERMEM_TIMEOUT", "TIERMEM_MAX_TOKENS",
                 "TIERMEM_MODEL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    config = config_from_args(parse("--model", "m", "--base-url", "127.0.0.1:1",
                                    "--context-window", "4096", "--timeout", "120",
                                    "--max-tokens", "256"))
    assert config is not None
    assert (config.context_window, config.timeout, config.max_tokens) == (4096, 120.0, 256)


@pytest.mark.parametrize("argv", [("--context-window", "0"), ("--context-window", "4k"),
                                  ("--timeout", "-1"), ("--timeout", "inf"),
                                  ("--max-tokens", "0")])
def test_bad_flag_values_are_usage_errors(argv: tuple[str, str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse(*argv)
    assert exit_info.value.code == 2


# --- through the command line -------------------------------------------------------------


def test_chat_takes_the_servers_window_and_the_flags(tmp_path: Any) -> None:
    from test_cli import tiermem

    with FakeOpenAIServer() as server:
        server.routes[("GET", "/props")] = LLAMA_SERVER_PROPS
        server.enqueue_reply("hello")
        base = ("chat", "--agent", "a", "--embedder", "hashing", "--model", server.model,
                "--base-url", server.base_url)
        done = tiermem(tmp_path, *base, stdin="hi\n/model\n")
        assert done.returncode == 0, done.stderr
        assert "context window 4096 tokens" in done.stdout
        assert "context window" not in done.stderr  # found, so nothing was assumed

        server.enqueue_reply("hello again")
        done = tiermem(tmp_path, *base, "--context-window", "2048", "--max-tokens", "100",
                       "--timeout", "30", stdin="hi\n/model\n")
        assert done.returncode == 0, done.stderr
        assert "context window 2048 tokens" in done.stdout
        assert server.requests[-1]["max_tokens"] == 100


def test_chat_says_when_it_assumed_the_window(tmp_path: Any) -> None:
    from test_cli import tiermem

    with FakeOpenAIServer() as server:  # says nothing about its window, like llama-cpp-python
        done = tiermem(tmp_path, "chat", "--agent", "a", "--embedder", "hashing", "--model",
                       server.model, "--base-url", server.base_url, stdin="/model\n")
    assert done.returncode == 0, done.stderr
    assert "assuming 8192 tokens (pass --context-window N" in done.stderr
    assert "context window 8192 tokens" in done.stdout


def test_scenario_and_eval_take_the_server_flags() -> None:
    import tiermem.cli as cli

    parser = cli.build_parser()
    for argv in (["chat"], ["scenario", "x"], ["eval", "locomo"]):
        args = parser.parse_args([*argv, "--context-window", "4096", "--timeout", "600",
                                  "--max-tokens", "256"])
        assert (args.context_window, args.timeout, args.max_tokens) == (4096, 600.0, 256)
