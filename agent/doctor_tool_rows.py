"""The doctor's rows about tool calling (agent/doctor.py runs them once the server answers):
plain chat, structured calls with ``tool_choice`` "auto" and "required", calls written as
text, whether tools reach the model without ``tool_choice``, ``finish_reason`` at
``max_tokens``, ``content: null`` beside ``tool_calls``, and the first streamed token."""

from __future__ import annotations

from tiermem.agent.body_waits import wait_words
from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor_checks import call_fault
from tiermem.agent.doctor_probes import (
    OUT_OF_TIME,
    PROBE_TOOLS,
    Exchange,
    Prober,
    fact_messages,
    probe_tools,
    refused_call,
    second_step_messages,
)
from tiermem.agent.doctor_report import TOOLS_SHOWN_MARGIN, DoctorReport, Status
from tiermem.agent.http_json import StreamStart
from tiermem.agent.loading_wait import RATE_LIMIT_BUDGET
from tiermem.agent.response import CUT_SHORT, unclosed_thinking, without_thinking
from tiermem.agent.retry_after import asked_wait, long_wait_hint
from tiermem.agent.sdk_errors import OVER_THE_LIMIT, OVER_THE_LIMIT_HINT, over_the_limit, spent_on
from tiermem.agent.server_errors import key_refusal
from tiermem.agent.text_tool_calls import (
    calls_ending_thinking,
    offered_parameters,
    parse_text_tool_calls,
)


def probe_tool_calls(prober: Prober, report: DoctorReport) -> None:
    facts = report.findings
    plain = prober.chat([{"role": "user", "content": "Say hello in three words."}],
                        max_tokens=16)
    if plain is None or not plain.ok:
        report.add("plain chat", "fail", "no" if plain else "skipped",
                   plain.failure() if plain else "out of time")
        facts.plain_chat_error = plain.failure() if plain else "out of time"
        facts.plain_chat_status = plain.status if plain else None
        facts.key_refused = (key_refusal(plain.status, plain.body) or "") if plain else ""
        _note_fault(prober, report, plain)
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
    facts.auto_error = OUT_OF_TIME if auto is None else "" if auto.ok else auto.failure()
    _note_fault(prober, report, auto)
    if auto is not None and auto.status is not None and not 200 <= auto.status < 300 \
            and not facts.server_fault:
        # Refused before the model saw the tools, for a reason no known fault names.
        facts.tools_refused = auto.failure()
    _text_row(prober, report, auto, required)
    facts.tools_reached = bool(facts.text_calls_auto) or any(
        name in PROBE_TOOLS for exchange in (auto, required) if exchange is not None
        for name, _ in exchange.tool_calls)
    _tool_choice_row(report, bare, unasked, auto)
    _finish_row(prober, report)
    _null_content_row(prober, report)
    _first_token_row(prober, report)


#: The doctor's advice for a probe refused with a 429 other than a quota used up.
RATE_LIMITED = ("the server, or a proxy in front of it, is rate-limiting requests (HTTP 429): "
                "run the doctor again in a minute, or check the account's limits")


def _note_fault(prober: Prober, report: DoctorReport, exchange: Exchange | None) -> None:
    """The server setup fault ``exchange``'s refusal names, with its fix worded for the
    doctor, as the chat would say it."""
    assert prober.model is not None
    fault = exchange.fault(prober.model, prober.base_url) if exchange is not None else None
    if fault is not None:
        report.findings.server_fault = fault.says
        report.findings.server_hint = hint_for(fault.hint, "doctor")
        report.findings.server_busy = fault.busy
    elif exchange is not None and (spent := spent_on(exchange.status, exchange.body)) is not None:
        report.findings.server_hint = hint_for(
            f"{spent[0]} (HTTP {exchange.status}): {spent[1]}", "doctor")
    elif exchange is not None and over_the_limit(exchange.status, exchange.body):
        report.findings.server_hint = hint_for(
            f"the request is {OVER_THE_LIMIT} (HTTP {exchange.status}): {OVER_THE_LIMIT_HINT}",
            "doctor")
    elif exchange is not None and exchange.status in (429, 503) and (asked := asked_wait(
            exchange.status, exchange.headers, exchange.body)) is not None \
            and asked > RATE_LIMIT_BUDGET:
        # Not a minute's rate limit, nor a short spell busy: "run the doctor again in a
        # minute" (or "shortly") would fail alike.
        report.findings.server_hint = hint_for(
            f"the server asked to wait {wait_words(asked)} before a request is sent again "
            f"(HTTP {exchange.status}): {long_wait_hint(asked, exchange.status)}", "doctor")
    elif exchange is not None and exchange.status == 429:
        # A rate limit, maybe a proxy's, tells nothing of the setup, as a busy server does not.
        report.findings.server_fault = "is rate-limiting requests (HTTP 429)"
        report.findings.server_hint = RATE_LIMITED
        report.findings.server_busy = True


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
    if not any(exchange is not None and exchange.ok for exchange in (auto, required)):
        # Out of time, as every row the doctor's time ran out before; else not checked.
        report.add("tool calls as text", "skip", "-", OUT_OF_TIME if auto is None and
                   required is None else "not checked: no tool-call probe was answered")
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
    elif started.error:
        report.add(check, "warn", "stream error",
                   f"HTTP {started.status}, {started.events} events, then the server's error: "
                   f"{started.error}")
    elif started.cut:
        report.add(check, "warn", "stream cut",
                   f"HTTP {started.status}, {started.events} events, then {started.cut}: the "
                   f"server may have crashed; its log says why")
    elif not isinstance(started, StreamStart) or started.first_token_seconds is None:
        report.add(check, "warn", "no tokens streamed",
                   f"HTTP {started.status}, {started.events} events")
    else:
        report.findings.first_token_seconds = round(started.first_token_seconds, 3)
        report.add(check, "ok", f"{started.first_token_seconds:.2f} s", "streamed, short prompt")
