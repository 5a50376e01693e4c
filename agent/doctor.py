"""``tiermem doctor``: can the memory agent work with this server and model?

It probes the server the way a turn uses it (agent/doctor_probes.py) and
reports one row per question:

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
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from tiermem.agent.config import (
    ENV_CONTEXT_WINDOW,
    ENV_MAX_TOKENS,
    FALLBACK_CONTEXT_WINDOW,
    default_context_window,
)
from tiermem.agent.doctor_checks import Findings, advice_for, call_fault
from tiermem.agent.doctor_probes import (
    PROBE_TOOLS,
    Exchange,
    Prober,
    error_text,
    fact_messages,
    probe_tools,
    refused_call,
    second_step_messages,
)
from tiermem.agent.doctor_window import window_fit, window_mismatch
from tiermem.agent.http_json import StreamStart, Unreachable, shown_url, without_secrets
from tiermem.agent.response import CUT_SHORT, unclosed_thinking, without_thinking
from tiermem.agent.server_errors import is_web_page
from tiermem.agent.server_facts import discover_context_window, server_root
from tiermem.agent.text_tool_calls import (
    calls_ending_thinking,
    offered_parameters,
    parse_text_tool_calls,
)

Status = Literal["ok", "warn", "fail", "info", "skip"]
#: More prompt tokens than this over the no-tools baseline means the tools reached the model.
TOOLS_SHOWN_MARGIN = 20


@dataclass
class Row:
    check: str
    status: Status
    result: str
    detail: str = ""


@dataclass
class DoctorReport:
    base_url: str
    model: str | None
    rows: list[Row] = field(default_factory=list)
    findings: Findings = field(default_factory=Findings)
    works: bool = False
    verdict: str = ""
    advice: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, check: str, status: Status, result: str, detail: str = "") -> None:
        self.rows.append(Row(check, status, result, detail))

    def to_dict(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "works": self.works,
                "verdict": self.verdict, "advice": self.advice,
                "rows": [vars(r) for r in self.rows], "facts": asdict(self.findings),
                "seconds": round(self.seconds, 2)}


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
        _probe(prober, report)
    report.works = report.findings.agent_can_work()
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


def _probe(prober: Prober, report: DoctorReport) -> None:
    facts = report.findings
    plain = prober.chat([{"role": "user", "content": "Say hello in three words."}],
                        max_tokens=16)
    if plain is None or not plain.ok:
        report.add("plain chat", "fail", "no" if plain else "skipped",
                   plain.failure() if plain else "out of time")
        facts.plain_chat_error = plain.failure() if plain else "out of time"
        facts.plain_chat_status = plain.status if plain else None
        return
    facts.plain_chat = True
    report.add("plain chat", "ok" if (plain.content or "").strip() else "warn",
               f"{plain.seconds:.2f} s", _quote(plain.content) or "an empty reply")

    tools = probe_tools()
    bare = prober.chat(fact_messages(), max_tokens=1)
    unasked = prober.chat(fact_messages(), max_tokens=1, tools=tools)
    auto = prober.chat(fact_messages(), max_tokens=128, tools=tools, tool_choice="auto")
    required = prober.chat(fact_messages(), max_tokens=128, tools=tools, tool_choice="required")
    facts.auto_refused = _tool_row(report, "tool calls, tool_choice auto", auto, needed=True)
    _tool_row(report, "tool calls, tool_choice required", required, needed=False)
    facts.auto_calls = _called(auto)
    facts.required_calls = _called(required)
    facts.required_error = required.failure() if required and not required.ok else ""
    facts.auto_error = auto.failure() if auto and not auto.ok else ""
    _text_row(prober, report, auto, required)
    facts.tools_reached = bool(facts.text_calls_auto) or any(
        name in PROBE_TOOLS for exchange in (auto, required) if exchange is not None
        for name, _ in exchange.tool_calls)
    _tool_choice_row(report, bare, unasked, auto)
    _finish_row(prober, report)
    _null_content_row(prober, report)
    _first_token_row(prober, report)


def _quote(text: str | None, limit: int = 70) -> str:
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...") if flat else ""


def _called(exchange: Exchange | None) -> list[str]:
    """The tools the model called in ways a turn would run."""
    return [] if exchange is None else [name for name, arguments in exchange.tool_calls
                                        if refused_call(name, arguments) is None]


def _tool_row(report: DoctorReport, check: str, exchange: Exchange | None,
              needed: bool) -> str:
    """The row for one tool-call probe; what was wrong with the model's calls when a turn
    would refuse every one of them, else ""."""
    failed: Status = "fail" if needed else "warn"
    if exchange is None:
        report.add(check, "skip", "-", "out of time")
    elif not exchange.ok:
        report.add(check, failed, "error", exchange.failure())
    elif exchange.tool_calls:
        checked = [(name, arguments, refused_call(name, arguments))
                   for name, arguments in exchange.tool_calls]
        name, arguments, refusal = next((c for c in checked if c[2] is None), checked[0])
        if refusal is None:
            report.add(check, "ok", f"{name}()", f"arguments {_quote(arguments, 60)}")
            return ""
        fault = call_fault(refusal)
        report.add(check, failed, f"{name}() refused", fault)
        return fault
    else:
        what = _quote(exchange.content) or "an empty reply"
        report.add(check, failed, "no call", f"{what}, finish_reason {exchange.finish_reason}")
    return ""


def _text_row(prober: Prober, report: DoctorReport, auto: Exchange | None,
              required: Exchange | None) -> None:
    facts = report.findings
    for label, exchange in (("auto", auto), ("required", required)):
        if exchange is None or exchange.tool_calls or not exchange.content:
            continue
        # As a turn reads it: a call inside the model's thinking never runs, unless it
        # ends a block the model never closed, in a reply that was not cut short.
        schemas = offered_parameters(probe_tools())
        calls = parse_text_tool_calls(without_thinking(exchange.content) or "", PROBE_TOOLS,
                                      schemas=schemas)
        thinking = unclosed_thinking(exchange.content)
        if not calls and thinking and exchange.finish_reason not in CUT_SHORT:
            calls = calls_ending_thinking(thinking, PROBE_TOOLS, schemas=schemas).calls
        if calls:
            # As for structured calls: only a call a turn would run counts.
            usable = [c.name for c in calls if refused_call(c.name, c.arguments) is None]
            if usable:
                if label == "auto":
                    facts.text_calls_auto = usable
                    _soften(report, "tool calls, tool_choice auto")
                report.add("tool calls as text", "ok" if label == "auto" else "info",
                           f"{usable[0]}() in the content", f"with tool_choice {label}; "
                           f"tiermem reads it (--text-tool-calls auto)")
            else:
                refusal = refused_call(calls[0].name, calls[0].arguments)
                assert refusal is not None
                report.add("tool calls as text", "warn", f"{calls[0].name}() refused",
                           f"in the content, with tool_choice {label}: {call_fault(refusal)}")
            return
    structured = any(exchange is not None and exchange.tool_calls
                     for exchange in (auto, required))
    report.add("tool calls as text", "info", "none",
               "the calls came structured" if structured else "no call in the content either")


def _soften(report: DoctorReport, check: str) -> None:
    """A failed row becomes a warning: another way round it was found."""
    for row in report.rows:
        if row.check == check and row.status == "fail":
            row.status = "warn"


def _tool_choice_row(report: DoctorReport, bare: Exchange | None, unasked: Exchange | None,
                     auto: Exchange | None) -> None:
    facts = report.findings
    counts = [e.prompt_tokens if e is not None and e.ok else None for e in (bare, unasked, auto)]
    if None in counts:
        report.add("tools without tool_choice", "info", "unknown",
                   "the server reported no prompt token counts")
        return
    base, without, with_choice = (int(c or 0) for c in counts)
    shown = f"prompt tokens: {base} no tools, {without} tools, {with_choice} tools + tool_choice"
    facts.prompt_tokens = [base, without, with_choice]
    if without > base + TOOLS_SHOWN_MARGIN:
        facts.tools_need_choice = False
        report.add("tools without tool_choice", "ok", "reach the model", shown)
    elif with_choice > base + TOOLS_SHOWN_MARGIN:
        facts.tools_need_choice = True
        report.add("tools without tool_choice", "warn", "dropped", shown
                   + "; tiermem sends tool_choice")
    elif facts.tools_reached:
        # Counts that ignore the tools (some servers report a constant) cannot outweigh a
        # call to an offered tool: the model saw them.
        report.add("tools without tool_choice", "info", "unknown",
                   f"{shown}; the counts do not move, but the model called the tools it "
                   f"was offered with tool_choice, so they reached it")
    else:
        facts.tools_never_shown = True
        report.add("tools without tool_choice", "fail", "never shown", shown)


def _finish_row(prober: Prober, report: DoctorReport) -> None:
    cut = prober.chat([{"role": "user", "content": "Count from one to fifty in words."}],
                      max_tokens=8)
    if cut is None or not cut.ok:
        report.add("finish_reason at max_tokens", "skip" if cut is None else "warn", "-",
                   "out of time" if cut is None else cut.failure())
        return
    report.findings.finish_reason = cut.finish_reason or ""
    good = cut.finish_reason == "length"
    report.add("finish_reason at max_tokens", "ok" if good else "warn",
               repr(cut.finish_reason), "cut replies are reported" if good
               else "a reply cut at max_tokens 8 is not marked \"length\"")


def _null_content_row(prober: Prober, report: DoctorReport) -> None:
    step = prober.chat(second_step_messages(), max_tokens=8)
    if step is None:
        report.add("content null beside tool_calls", "skip", "-", "out of time")
        return
    report.findings.null_content_refused = not step.ok
    report.add("content null beside tool_calls", "ok" if step.ok else "info",
               "accepted" if step.ok else "refused",
               "" if step.ok else f"{step.failure()}; tiermem sends \"\" instead")


def _first_token_row(prober: Prober, report: DoctorReport) -> None:
    started = prober.first_token([{"role": "user", "content": "Name three colours."}],
                                 max_tokens=16)
    check = "time to first token"
    if started is None:
        report.add(check, "skip", "-", "out of time")
    elif isinstance(started, str):
        report.add(check, "warn", "no answer", started)
    elif not isinstance(started, StreamStart) or started.first_token_seconds is None:
        report.add(check, "warn", "no tokens streamed",
                   f"HTTP {started.status}, {started.events} events")
    else:
        report.findings.first_token_seconds = round(started.first_token_seconds, 3)
        report.add(check, "ok", f"{started.first_token_seconds:.2f} s", "streamed, short prompt")
