"""What ``tiermem doctor`` found, the verdict, and what to change.

``Findings`` holds the facts the probes established (also the ``facts`` of the
JSON report); ``advice_for`` turns them into one verdict line and a list of
concrete changes, each naming the flag or server option to use. A refusal that names a
server set up wrong (agent/server_setup.py) puts the server's own fix first, as the chat
gives it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tiermem.agent.config import (
    ENV_CONTEXT_WINDOW,
    ENV_MAX_TOKENS,
    FALLBACK_CONTEXT_WINDOW,
)
from tiermem.agent.doctor_plain_advice import plain_chat_advice
from tiermem.agent.doctor_probes import (
    BUDGET_SECONDS,
    OUT_OF_TIME,
    PROBE_TOOLS,
)
from tiermem.agent.doctor_window import WindowFit
from tiermem.tools.dispatch import ToolResult

#: First token later than this on a short prompt means long prompts will take minutes.
SLOW_FIRST_TOKEN = 10.0
TOOL_MODELS = ("an instruct model trained for tool calls (for example Qwen2.5-1.5B-Instruct or "
               "larger, Llama 3.1 8B Instruct)")


@dataclass
class Findings:
    reachable: bool = False
    unreachable: str = ""
    models: list[str] = field(default_factory=list)
    model_listed: bool | None = None
    model_chosen: bool = False
    context_window: int | None = None
    context_source: str = ""
    #: The window against the agent's fixed prompt and reply budget, when the window is known.
    window_fit: WindowFit | None = None
    #: The window the server reported, and where, when ``context_window`` is the user's
    #: (TIERMEM_CONTEXT_WINDOW) instead.
    server_window: int | None = None
    server_window_source: str = ""
    #: "warn" or "fail" when the user's window is larger than the server's ("fail": a
    #: first turn would not fit the server's), with what to do about it.
    window_mismatch: str = ""
    window_mismatch_advice: str = ""
    template_supports_tools: bool | None = None
    plain_chat: bool = False
    plain_chat_error: str = ""
    #: The HTTP status of a failed plain chat; None when there was no answer.
    plain_chat_status: int | None = None
    #: What a plain chat refused with a 401 or 403 refused: "key", or "model" (to the key).
    key_refused: str = ""
    #: A server set up wrong, as the plain chat's refusal or else the tool call probe's
    #: names it (agent/server_setup.py): what it means, after "the server", and the fix.
    server_fault: str = ""
    server_hint: str = ""
    #: The server was too busy to answer (server_fault says so): whether the agent works
    #: with it is not known, and no setup is at fault.
    server_busy: bool = False
    #: The server answers Ollama's own API (GET /api/version) away from Ollama's port.
    ollama_api: bool = False
    #: The refusal of the request with tools and tool_choice "auto" (plain chat answered),
    #: when it names no fault server_fault knows.
    tools_refused: str = ""
    #: Seconds each probe could wait for its answer.
    probe_timeout: float = 0.0
    auto_calls: list[str] = field(default_factory=list)
    auto_error: str = ""
    #: What was wrong with the calls made with tool_choice "auto", when a turn would refuse
    #: every one of them (a tool not offered, arguments that do not fit the schema).
    auto_refused: str = ""
    required_calls: list[str] = field(default_factory=list)
    required_error: str = ""
    text_calls_auto: list[str] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    tools_need_choice: bool | None = None
    tools_never_shown: bool = False
    #: The model called an offered tool (structured or as text): the tools reached it,
    #: whatever the prompt token counts or the chat template's capabilities say.
    tools_reached: bool = False
    finish_reason: str = ""
    null_content_refused: bool | None = None
    first_token_seconds: float | None = None
    #: Why tiermem chat would refuse the reply budget TIERMEM_MAX_TOKENS sets with the
    #: window it would use (the server's, or the one it assumes), and what to change.
    reply_budget_refused: str = ""

    def agent_can_work(self) -> bool:
        """The server answers, its window holds the agent's prompt, and with tool_choice
        "auto" the model calls a tool tiermem can run: structured, or written as text
        tiermem reads."""
        return (self.plain_chat and not self.window_too_small()
                and not self.reply_budget_refused
                and bool(self.auto_calls or self.text_calls_auto))

    def busy_unknown(self) -> bool:
        """The server was too busy to answer the probes that tell whether the agent works,
        and nothing else found says it cannot: the verdict is that it is not known."""
        return (self.server_busy and not self.agent_can_work() and not self.window_too_small()
                and not self.reply_budget_refused)

    def tools_unknown(self) -> bool:
        """The tool-call probe (tool_choice "auto") got no answer, and nothing else found says
        the agent cannot work: whether the model calls tools, so whether it works, is not
        known."""
        return (self.plain_chat and self.auto_unanswered() and not self.agent_can_work()
                and not self.window_too_small() and not self.reply_budget_refused
                and not self.busy_unknown() and not self.server_fault
                and not self.tools_refused and not self.auto_refused)

    def auto_timed_out(self) -> bool:
        """The request with tools and tool_choice "auto" got no answer in time: whether the
        model calls tools is not known."""
        return "within the timeout" in self.auto_error

    def auto_unanswered(self) -> bool:
        """The model was not heard from with tools and tool_choice "auto": the probe timed
        out, lost its connection, or was never sent for want of time."""
        return self.auto_error == OUT_OF_TIME or self.auto_error.startswith("no answer")

    def window_too_small(self) -> bool:
        return (self.window_fit is not None and self.window_fit.status == "fail") \
            or self.window_mismatch == "fail"

    def model_missing(self) -> bool:
        """The chat was refused because the server has no such model (Ollama: "model ...
        not found, try pulling it first"; LM Studio: "... Please load a model first")."""
        return self.plain_chat_status == 404 and "model" in self.plain_chat_error.lower()


def advice_for(facts: Findings, base_url: str, model: str | None) -> tuple[str, list[str]]:
    """(the verdict, what to change), from what the probes found."""
    if not facts.reachable:
        return (f"the memory agent cannot work: {base_url} did not answer "
                f"({facts.unreachable})",
                ["start the server, or point --base-url at it (the URL ends in /v1, e.g. "
                 "http://127.0.0.1:8080/v1)"])
    # The server's own fix comes first: whatever else was found, nothing works without it.
    advice = [facts.server_hint] if facts.server_hint else []
    listed = ", ".join(facts.models[:3])
    if facts.model_listed is False and facts.models and facts.server_hint \
            and facts.model_missing():
        # The server's fix already says to pass another --model: the names go with it.
        advice[0] += f"; the server lists {listed}"
    elif facts.model_listed is False and facts.models and not facts.model_missing():
        advice.append(f"the server lists {listed}; pass --model with one of them"
                      + (" (it answered to this name anyway)" if facts.plain_chat else ""))
    ruled_out = _window_verdict(facts, model)
    if not facts.plain_chat:
        if facts.server_busy and ruled_out:
            # The window rules the agent out, whatever the busy server would have answered.
            budget = [facts.reply_budget_refused] if facts.reply_budget_refused else []
            return ruled_out, advice + _window_advice(facts) + budget
        if facts.busy_unknown():
            return _busy_verdict(facts, model), advice
        if not facts.server_hint:
            advice.extend(plain_chat_advice(facts, base_url, model))
        return (f"the memory agent cannot work: a plain chat request failed "
                f"({facts.plain_chat_error or 'no model'})", advice)
    advice.extend(_window_advice(facts))
    if facts.reply_budget_refused:
        advice.append(facts.reply_budget_refused)
    advice.extend(_tool_advice(facts))
    if facts.finish_reason and facts.finish_reason != "length":
        advice.append(f"the server marks a reply cut at max_tokens as {facts.finish_reason!r}, "
                      f"not 'length': tiermem cannot tell a cut reply from a finished one")
    if facts.first_token_seconds is not None and facts.first_token_seconds > SLOW_FIRST_TOKEN:
        advice.append(f"the first token took {facts.first_token_seconds:.0f} s on a short prompt:"
                      f" a full turn may take minutes; raise --timeout if requests time out")
    if ruled_out:
        return ruled_out, advice
    if facts.busy_unknown():
        return _busy_verdict(facts, model), advice
    if facts.server_fault and not facts.agent_can_work():
        return (f"the memory agent cannot work with {model}: the server {facts.server_fault}",
                advice)
    if facts.tools_refused:
        which = "with tools" if facts.required_error.startswith("HTTP ") \
            else "with tools and tool_choice \"auto\""
        return (f"the memory agent cannot work with {model}: the server answers plain chat but "
                f"refused requests {which} ({facts.tools_refused})", advice)
    if facts.auto_refused and not facts.agent_can_work():
        return (f"the memory agent cannot work with {model}: its tool calls with tool_choice "
                f"\"auto\" cannot run ({facts.auto_refused})", advice)
    if facts.tools_unknown():
        return (f"the memory agent cannot be shown to work with {model}: the tool-call probe "
                f"(tool_choice \"auto\") {_unheard(facts)}, so whether the model calls tools "
                f"is not known", advice)
    if facts.agent_can_work():
        how = ("structured tool calls" if facts.auto_calls
               else "tool calls written as text, which tiermem reads")
        return f"the memory agent can work with {model}: it makes {how}", advice
    return (f"the memory agent cannot work with {model}: it made no tool call with "
            f"tool_choice \"auto\", so it would chat but never store a memory", advice)


def _unheard(facts: Findings) -> str:
    """Why the tool-call probe with tool_choice "auto" has no answer, after "the probe"."""
    if facts.auto_timed_out():
        return f"got no answer within {facts.probe_timeout:g} s"
    if facts.auto_error == OUT_OF_TIME:
        return f"was not sent: the doctor's {BUDGET_SECONDS:g} s for all probes ran out before it"
    return f"got {facts.auto_error}"


def _window_verdict(facts: Findings, model: str | None) -> str | None:
    """The verdict when the window rules the agent out, whatever the chat probes found."""
    if facts.window_too_small():
        assert facts.window_fit is not None
        if facts.window_mismatch == "fail":
            window = f"the server's window of {facts.server_window} tokens"
        elif facts.window_fit.window_configured:
            window = f"the window of {facts.window_fit.window} tokens {ENV_CONTEXT_WINDOW} sets"
        else:
            window = f"the server's window of {facts.window_fit.window} tokens"
        return (f"the memory agent cannot work with {model}: {window} cannot hold the "
                f"agent's own prompt")
    if facts.reply_budget_refused:
        return (f"the memory agent cannot work with {model}: tiermem chat refuses the reply "
                f"budget {ENV_MAX_TOKENS} sets with this window")
    return None


def _busy_verdict(facts: Findings, model: str | None) -> str:
    # A model the server does not list may be at fault, and another --model is advised.
    why = (f"and it does not list {model}" if model and facts.model_listed is False
           and facts.models else "which is no fault of its setup")
    return (f"whether the memory agent works with {model or 'the model'} is not known: the "
            f"server was too busy to answer, {why}")


def _window_advice(facts: Findings) -> list[str]:
    if facts.window_fit is not None:
        mismatch = [facts.window_mismatch_advice] if facts.window_mismatch_advice else []
        return mismatch + facts.window_fit.advice()
    if facts.context_window is not None:
        return []
    return [f"the server does not report its context window: pass --context-window N (or set "
            f"{ENV_CONTEXT_WINDOW}) to the window it was started with (llama-server -c, "
            f"llama-cpp-python --n_ctx, Ollama num_ctx); tiermem otherwise assumes "
            f"{FALLBACK_CONTEXT_WINDOW}"]


def _tool_advice(facts: Findings) -> list[str]:
    advice = []
    if facts.tools_need_choice:
        advice.append("this server drops tools unless tool_choice is sent; tiermem sends it")
    if (facts.tools_never_shown or facts.template_supports_tools is False) \
            and not facts.tools_reached and "llama-server" in facts.server_fault:
        # The fix before this one already restarts llama-server with --jinja.
        advice.append("its chat template has no tool support either: restart it with a "
                      "tool-capable template too (--chat-template-file)")
    elif (facts.tools_never_shown or facts.template_supports_tools is False) \
            and not facts.tools_reached:
        advice.append(
            "the server never shows the tools to the model: its chat template has no tool "
            "support. Start llama-server with --jinja and a tool-capable template "
            "(--chat-template-file), llama-cpp-python with --chat_format "
            "chatml-function-calling, or vLLM with --enable-auto-tool-choice "
            "--tool-call-parser hermes")
    if facts.auto_timed_out():
        advice.append("the tool-call probe got no answer in time: on a slow machine pass a "
                      "larger --timeout to the doctor, and to chat")
    elif facts.auto_error == OUT_OF_TIME:
        advice.append("the probes before it took the doctor's time (a model loading, or a slow "
                      "server): run the doctor again once the model is loaded")
    elif facts.auto_unanswered():
        advice.append("the server did not answer the tool-call probe (it may have crashed, or "
                      "run short of memory, on the request with tools): its log says why; run "
                      "the doctor again once that is fixed")
    if facts.required_error and facts.auto_calls:
        advice.append(f"tool_choice \"required\" fails here ({facts.required_error}); tiermem "
                      f"sends \"auto\", which works")
    if facts.text_calls_auto and not facts.auto_calls:
        advice.append("the model writes its tool calls as text, not as structured calls; "
                      "tiermem reads them (--text-tool-calls auto, the default)")
    if facts.null_content_refused:
        advice.append("the server refuses content null beside tool_calls; tiermem sends an "
                      "empty string instead")
    if facts.tools_refused:
        advice.append("the model never saw the tools: the server's log says why it refused "
                      "them; check its tool-call setup (llama-server --jinja with the model's "
                      "own template, vLLM --enable-auto-tool-choice with a --tool-call-parser, "
                      "an Ollama model tagged \"tools\")")
    elif not (facts.auto_calls or facts.text_calls_auto or facts.tools_never_shown
              or facts.server_hint or facts.auto_unanswered()):
        if facts.auto_refused:
            advice.append(f"the model calls tools, but not in a way a turn can run (the "
                          f"verdict says what was wrong): use {TOOL_MODELS}, or a server whose "
                          f"tool-call parser fits the model (vLLM --tool-call-parser, "
                          f"llama-server --jinja with the model's own template)")
        elif facts.required_calls:
            advice.append("the model calls tools only when forced (tool_choice \"required\"); "
                          "a larger instruct model with tool support will call them by itself")
        else:
            advice.append(f"use {TOOL_MODELS}")
    return advice


def call_fault(refusal: ToolResult) -> str:
    """What was wrong with a call a turn refused, on one line for a person, not the model."""
    if refusal.error_kind == "unknown_tool":
        return (f"it called {refusal.name!r}, a tool the request did not offer (it offered "
                f"{', '.join(PROBE_TOOLS)})")
    # The error is written for the model: a heading, "- " items, then "Call ... again".
    lines = [line.removeprefix("- ") for line in (refusal.error or "").splitlines()
             if not line.startswith("Call ")]
    return " ".join([*lines[:1], "; ".join(lines[1:])]).strip()
