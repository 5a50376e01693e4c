"""An API key, or a password in the base URL, is never repeated in what the user sees, and a
base URL with ``user:password@`` reaches the server for every request, probes included."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent import server_facts
from tiermem.agent.doctor import run_doctor
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient

KEY = "sk-local-SECRET-123456789"
PASSWORD = "hunter2pw"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def _with_password(server: FakeOpenAIServer) -> str:
    return server.base_url.replace("://", f"://admin:{PASSWORD}@", 1)


def _ask(client: OpenAIClient) -> None:
    client.complete([{"role": "user", "content": "hi"}], [])


def test_a_server_that_quotes_the_key_back_does_not_get_it_shown(
        server: FakeOpenAIServer) -> None:
    server.enqueue_error(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
    client = OpenAIClient("fake-model", base_url=server.base_url, api_key=KEY, max_retries=0)
    with pytest.raises(ProviderError) as failed:
        _ask(client)
    assert KEY not in str(failed.value) and "***" in str(failed.value)
    assert server.request_headers[0]["authorization"] == f"Bearer {KEY}"  # still sent


def test_a_password_in_the_base_url_is_sent_and_never_shown(server: FakeOpenAIServer) -> None:
    url = _with_password(server)
    client = OpenAIClient("fake-model", base_url=url, max_retries=0)
    assert PASSWORD not in client.name and "admin:***@" in client.name
    server.enqueue_error(500, {"error": {"message": f"upstream said {PASSWORD}"}})
    with pytest.raises(ProviderError) as failed:
        _ask(client)
    assert PASSWORD not in str(failed.value)
    assert server.request_headers[0]["authorization"].startswith("Basic ")
    notice = server_facts.assumed_window_notice(url, 8192)
    assert PASSWORD not in notice and "admin:***@" in notice


def test_the_window_probe_reaches_a_server_behind_a_password(
        server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_facts, "_cache", {})
    server.routes[("GET", "/props")] = {"default_generation_settings": {"n_ctx": 4096}}
    found = server_facts.discover_context_window(_with_password(server), "fake-model")
    assert found.reached and found.window is not None and found.window.tokens == 4096
    report = run_doctor(_with_password(server), "fake-model", api_key=KEY, timeout=5)
    shown = str(report.to_dict())
    assert PASSWORD not in shown and KEY not in shown and "admin:***@" in shown
    assert any(row.check == "reachable" and row.status == "ok" for row in report.rows)


def test_a_web_page_for_an_answer_names_the_url_without_its_password(
        server: FakeOpenAIServer) -> None:
    client = OpenAIClient("fake-model", base_url=_with_password(server), max_retries=0)
    server.enqueue_raw(200, b"<!doctype html><html><body>Login</body></html>",
                       {"Content-Type": "text/html"})
    with pytest.raises(ProviderError) as failed:
        _ask(client)
    assert PASSWORD not in str(failed.value) and PASSWORD not in (failed.value.hint or "")
    assert "admin:***@" in str(failed.value) + (failed.value.hint or "")
