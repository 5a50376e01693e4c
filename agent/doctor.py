"""``tiermem doctor``: can the memory agent work with this server and model?

It probes the server the way a turn uses it (agent/doctor_probes.py; the rows about tool
calling are agent/doctor_tool_rows.py) and reports one row per question:

- reachable, and the models it lists;
- the context window, and where it came from (agent/server_facts.py);
- the room it leaves once the agent's own prompt and reply budget are counted
  (agent/doctor_window.py);
- plain chat;
- structured tool calls with ``tool_choice`` "auto" (what tiermem sends) and
  "required", each checked as a turn checks it (tools/dispatch.py ``Toolbox.check``):
  a tool the request offered, with arguments that fit its schema;
- tool calls written as text in the content instead;
- whether tools reach the model without ``tool_choice`` (prompt tokens with no
  tools, with tools, with tools and ``tool_choice``);
- ``finish_reason`` when a reply is cut at ``max_tokens``;
- whether the server accepts ``content: null`` beside ``tool_calls``;
- time to first token of a streamed reply.

It ends with a verdict and what to change. The agent can work when the server
answers, its window (when it says it) holds the agent's prompt, and the model
calls a memory tool with ``tool_choice`` "auto" in a way a turn would run, as a
structured call or as text tiermem can read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from tiermem.agent.config import (
    ENV_CONTEXT_WINDOW,
    ENV_MAX_TOKENS,
    FALLBACK_CONTEXT_WINDOW,
    default_context_window,
)
from tiermem.agent.doctor_checks import advice_for
from tiermem.agent.doctor_probes import (
    Prober,
    error_text,
)
from tiermem.agent.doctor_report import DoctorReport
from tiermem.agent.doctor_tool_rows import probe_tool_calls
from tiermem.agent.doctor_window import window_fit, window_mismatch
from tiermem.agent.http_json import Unreachable, shown_url, without_secrets
from tiermem.agent.server_errors import is_web_page
from tiermem.agent.server_facts import discover_context_window, server_root
from tiermem.agent.server_setup import at_ollama_port


def run_doctor(base_url: str, model: str | None, api_key: str | None = None, *,
               timeout: float | None = None, max_tokens: int | None = None,
               context_window: int | None = None, encoding: str | None = None,
               clock: Callable[[], float] = time.monotonic) -> DoctorReport:
    """Examine the server at ``base_url`` (an API root, e.g. ``http://127.0.0.1:8080/v1``).

    ``max_tokens`` is the reply budget the chat will keep free in the window (default:
    the chat's default for the window), ``context_window`` the window the chat was told
    to use (``TIERMEM_CONTEXT_WINDOW``; default: the one the server reports), and
    ``encoding`` the tokenizer it counts prompts with (``TIERMEM_ENCODING``; default: the
    model's)."""
    started = clock()
    prober = Prober(base_url, model, api_key, clock=clock,
                    **({} if timeout is None else {"timeout": timeout}))
    report = DoctorReport(shown_url(base_url), model)
    report.findings.probe_timeout = prober.timeout
    if _reach(prober, report):
        _window(prober, report, max_tokens, context_window, encoding)
        probe_tool_calls(prober, report)
        if report.findings.model_missing() and not at_ollama_port(prober.base_url):
            report.findings.ollama_api = _answers_ollama(prober)
    report.works = report.findings.agent_can_work()
    # Known unless the verdict says a busy server, or a tool-call probe unanswered, left it so.
    report.known = not (report.findings.busy_unknown() or report.findings.tools_unknown())
    report.verdict, report.advice = advice_for(report.findings, report.base_url, prober.model)
    report.model = prober.model
    report.seconds = clock() - started
    # A server may quote the credentials back; the report says what it found without them.
    secrets = (api_key, urlsplit(base_url).password)

    def shown(text: str) -> str:
        return without_secrets(text.replace(base_url, report.base_url), *secrets)

    for row in report.rows:
        row.result, row.detail = shown(row.result), shown(row.detail)
    report.verdict = shown(report.verdict)
    report.advice = [shown(a) for a in report.advice]
    # The findings quote the server's errors too, and go out whole with --json.
    for name, value in vars(report.findings).items():
        if isinstance(value, str):
            setattr(report.findings, name, shown(value))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            setattr(report.findings, name, [shown(v) for v in value])
    return report


def _reach(prober: Prober, report: DoctorReport) -> bool:
    """The reachable and models rows; False when nothing more can be asked."""
    facts = report.findings
    try:
        answer = prober.get(f"{prober.base_url}/models")
    except Unreachable as exc:
        report.add("reachable", "fail", "no", f"{prober.base_url}/models: {exc}")
        for check in ("models listed", "context window", "plain chat"):
            report.add(check, "skip", "-", "the server did not answer")
        facts.unreachable = str(exc)
        return False
    assert answer is not None  # the first probe always has time
    facts.reachable = True
    report.add("reachable", "ok", f"yes ({answer.seconds:.2f} s)", prober.base_url)
    ids = _model_ids(answer.body) if answer.ok else []
    facts.models = ids
    if is_web_page(answer.headers.get("content-type", ""), answer.text):
        # A web UI's page, not an API's listing: the URL is wrong, not the listing empty.
        report.add("models listed", "warn", f"HTTP {answer.status}",
                   "a web page (HTML), not an OpenAI-compatible API's JSON")
    elif not answer.ok:
        report.add("models listed", "warn", f"HTTP {answer.status}", error_text(answer))
    elif not ids:
        report.add("models listed", "warn", "none", "the listing is empty")
    else:
        if prober.model is None:
            prober.model = ids[0]
            facts.model_chosen = True
        listed = prober.model in ids
        facts.model_listed = listed
        report.add("models listed", "ok" if listed else "warn", ", ".join(ids[:4])
                   + (f" (+{len(ids) - 4})" if len(ids) > 4 else ""),
                   ("using the first one, --model " + prober.model) if facts.model_chosen
                   else ("" if listed else f"{prober.model!r} is not among them"))
    if prober.model is None:
        report.add("plain chat", "fail", "no model", "pass --model NAME")
        return False
    return True


def _answers_ollama(prober: Prober) -> bool:
    """Whether the server answers Ollama's own ``GET /api/version``, within the budget."""
    try:
        answer = prober.get(f"{server_root(prober.base_url)}/api/version")
    except Unreachable:
        return False
    return answer is not None and answer.ok and isinstance(answer.body, dict) \
        and isinstance(answer.body.get("version"), str)


def _model_ids(body: Any) -> list[str]:
    entries = body.get("data") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        return []
    return [str(e["id"]) for e in entries if isinstance(e, dict) and e.get("id")]


def _window(prober: Prober, report: DoctorReport, max_tokens: int | None,
            configured: int | None, encoding: str | None) -> None:
    facts = report.findings
    assert prober.model is not None
    limit = prober.time_left() or 1.0
    found = discover_context_window(prober.base_url, prober.model, prober.api_key,
                                    timeout=min(limit, 5.0))
    try:
        props = prober.get(f"{server_root(prober.base_url)}/props")
    except Unreachable:
        props = None
    if props is not None and props.ok and isinstance(props.body, dict):
        caps = props.body.get("chat_template_caps")
        if isinstance(caps, dict) and isinstance(caps.get("supports_tools"), bool):
            facts.template_supports_tools = caps["supports_tools"]
    if configured is not None:
        # The chat uses the user's window whatever the server says; the doctor measures
        # that one, and says when the server's is smaller.
        facts.context_window, facts.context_source = configured, ENV_CONTEXT_WINDOW
        fit = window_fit(prober.model, configured, max_tokens, encoding=encoding,
                         configured=True)
        facts.window_fit = fit
        server = found.window
        mismatch = None
        if server is None:
            detail = (f"from {ENV_CONTEXT_WINDOW}; the server does not report its own, so "
                      f"it cannot be checked")
        else:
            facts.server_window, facts.server_window_source = server.tokens, server.source
            fit = replace(fit, server_window=server.tokens)
            facts.window_fit = fit
            mismatch = window_mismatch(fit, server.tokens, server.source, encoding)
            detail = (f"from {ENV_CONTEXT_WINDOW}; "
                      + (f"larger than the server's {server.tokens}" if mismatch
                         else f"the server's is {server.tokens}") + f" (from {server.source})")
        if mismatch is not None:
            facts.window_mismatch, facts.window_mismatch_advice = mismatch
        report.add("context window", mismatch[0] if mismatch else "ok", f"{configured} tokens",
                   detail)
        report.add("room in the window", *fit.row())
    elif found.window is not None:
        facts.context_window, facts.context_source = found.window.tokens, found.window.source
        report.add("context window", "ok", f"{found.window.tokens} tokens",
                   f"from {found.window.source}")
        fit = window_fit(prober.model, found.window.tokens, max_tokens, encoding=encoding)
        facts.window_fit = fit
        report.add("room in the window", *fit.row())
    else:
        report.add("context window", "warn", "not reported",
                   f"tiermem assumes {FALLBACK_CONTEXT_WINDOW}; pass --context-window N or set "
                   f"{ENV_CONTEXT_WINDOW}")
    if max_tokens is not None:
        _reply_budget(report, max_tokens, configured, found.window.tokens if found.window
                      else None, prober.model)


def _reply_budget(report: DoctorReport, max_tokens: int, configured: int | None,
                  server: int | None, model: str) -> None:
    """A fail row when tiermem chat would refuse ``max_tokens`` (TIERMEM_MAX_TOKENS) with
    the window it would use: the user's, else the server's, else the one it assumes. The
    chat weighs the budget against that window, as this does, once it is settled."""
    window = configured or server or default_context_window(model)
    if max_tokens <= window // 2:
        return
    whose = (f"the window {ENV_CONTEXT_WINDOW} sets ({window} tokens)" if configured
             else f"the server's window ({window} tokens)" if server
             else f"the window tiermem assumes ({window} tokens; the server does not report "
                  f"its own)")
    said = (f"{ENV_MAX_TOKENS}={max_tokens} would leave less than half of {whose} for the "
            f"prompt, so tiermem chat refuses to start: lower it to at most {window // 2}")
    said += (f", or set {ENV_CONTEXT_WINDOW} to the window the server runs with" if not server
             and not configured else
             f", or restart the server with a window of at least {2 * max_tokens}")
    report.findings.reply_budget_refused = said
    report.add("reply budget", "fail", f"{max_tokens} tokens",
               f"from {ENV_MAX_TOKENS}; more than half of the {window}-token window")
