"""The model-server options shared by ``chat``, ``scenario``, ``eval`` and ``forget``, and
the client they build.

``--context-window``, ``--timeout``, ``--max-tokens`` and ``--text-tool-calls``
beat their environment variables (``TIERMEM_CONTEXT_WINDOW``, ``TIERMEM_TIMEOUT``,
``TIERMEM_MAX_TOKENS``, ``TIERMEM_TEXT_TOOL_CALLS``); without a window from either,
the server is asked (agent/server_facts.py).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tiermem.agent.cli_values import any_case
from tiermem.agent.config import (
    DEFAULT_MAX_TOKENS,
    ENV_BASE_URL,
    ENV_MODEL,
    ENV_TEXT_TOOL_CALLS,
    LOCAL_TIMEOUT,
    OPENAI_TIMEOUT,
    REASONING_MAX_TOKENS,
    TEXT_TOOL_CALL_MODES,
    LLMConfig,
    names_a_model,
    resolve_llm_config,
)
from tiermem.agent.server_facts import with_server_window

if TYPE_CHECKING:
    from tiermem.agent.openai_client import OpenAIClient


def positive_int(text: str) -> int:
    """An argparse type: a whole number above zero."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {value}")
    return value


def core_limit(text: str) -> int:
    """An argparse type for ``--core-limit``: a core capacity the memory accepts, refused
    here so the error names the option rather than the setting ``core_limit``."""
    from tiermem.memory.config import MAX_CORE_LIMIT

    value = positive_int(text)
    if value > MAX_CORE_LIMIT:
        raise argparse.ArgumentTypeError(
            f"core holds at most {MAX_CORE_LIMIT:,} tokens or facts, not {value:,}")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def add_server_options(parser: argparse.ArgumentParser, *, text_tool_calls: bool = True) -> None:
    """``--context-window``, ``--timeout``, ``--max-tokens`` and, unless ``text_tool_calls``
    is False (a command whose model is offered no tools), ``--text-tool-calls``."""
    parser.add_argument(
        "--context-window", type=positive_int, metavar="N",
        help="the context window the server runs the model with, in tokens; or set "
             "TIERMEM_CONTEXT_WINDOW (default: what the server reports, else OpenAI's "
             "published window for its models, else 8192)")
    parser.add_argument(
        "--timeout", type=positive_seconds, metavar="SECONDS",
        help=f"seconds to wait for each model request (one whose answer times out is sent "
             f"again only to OpenAI's API, Azure OpenAI's included; one that cannot connect "
             f"in time, to any server); or set TIERMEM_TIMEOUT (default {LOCAL_TIMEOUT:g} "
             f"for local servers, {OPENAI_TIMEOUT:g} for OpenAI)")
    parser.add_argument(
        "--max-tokens", type=positive_int, metavar="N",
        help=f"the reply budget sent with each request and kept free in the window; or set "
             f"TIERMEM_MAX_TOKENS (default {DEFAULT_MAX_TOKENS}, {REASONING_MAX_TOKENS} for "
             f"o-series and gpt-5 models, at most a quarter of the window)")
    if not text_tool_calls:
        return
    parser.add_argument(
        "--text-tool-calls", **any_case(*TEXT_TOOL_CALL_MODES),  # OFF, as the variable
        help=f"auto (default): run tool calls the model writes as text "
             f"(<tool_call>, <|tool_call|>, <|python_tag|>, <function=NAME>, [TOOL_CALLS], "
             f"a bare or fenced JSON call, a Python list of calls, a tool_code block) when "
             f"the server returns none; off: keep such text as the reply; or set "
             f"{ENV_TEXT_TOOL_CALLS}")


#: Every flag only a model reads, with its argparse destination: given with ``--offline``,
#: or with no model configured, it would be ignored without a word. Their environment
#: variables are no conflict: they wait for a model, and ``--offline`` overrides them as it
#: does TIERMEM_MODEL.
MODEL_ONLY_FLAGS = (("--model", "model"), ("--base-url", "base_url"),
                    ("--context-window", "context_window"), ("--timeout", "timeout"),
                    ("--max-tokens", "max_tokens"), ("--text-tool-calls", "text_tool_calls"))
_NAMING_A_MODEL = ("--model", "--base-url")
#: How to name a model, for the errors that ask for one.
HOW_TO_NAME_A_MODEL = (f"--model NAME (or {ENV_MODEL}) and, for a local server, --base-url URL "
                       f"(or {ENV_BASE_URL})")


def model_flag_conflict(args: argparse.Namespace) -> str | None:
    """The usage error for a flag only a model reads given where no model will run: with
    ``--offline``, or with no model named by the flags or the environment. Either way the
    flag would be ignored without a word, and whether a model was meant is the user's to say."""
    given = model_flags_given(args)
    if not given:
        return None
    if args.offline:
        return _offline_conflict(given)
    if names_a_model(args.model, args.base_url):
        return None
    return no_model_conflict(given, "to run offline")


def model_flags_given(args: argparse.Namespace) -> list[str]:
    """The flags only a model reads that ``args`` holds, as typed, in the order of
    ``MODEL_ONLY_FLAGS`` (a command may not take them all)."""
    return [flag for flag, dest in MODEL_ONLY_FLAGS if getattr(args, dest, None) is not None]


def no_model_conflict(given: list[str], dropped: str) -> str:
    """The usage error for ``given``, a model's settings only (--model and --base-url would
    have named one), with no model configured; ``dropped`` says what dropping them leaves."""
    matter = "matters" if len(given) == 1 else "matter"
    return (f"no model is set, and {and_listed(given)} {matter} only to a model: name one "
            f"with {HOW_TO_NAME_A_MODEL}, or drop {and_listed(given)} {dropped}")


def _offline_conflict(given: list[str]) -> str:
    naming = [flag for flag in given if flag in _NAMING_A_MODEL]
    if naming:
        why = f"{and_listed(naming)} {'names' if len(naming) == 1 else 'name'} one"
        use = "the model"
    else:
        why = f"{and_listed(given)} {'matters' if len(given) == 1 else 'matter'} only to a model"
        use = "a model"
    return (f"--offline runs the rule-based policy with no model, and {why}: drop "
            f"{and_listed(given)} to run offline, or drop --offline to use {use}")


def and_listed(flags: list[str]) -> str:
    """``flags`` as a phrase: "--a", "--a and --b", "--a, --b and --c"."""
    return flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} and {flags[-1]}"


def config_from_args(args: Any) -> LLMConfig | None:
    """The configuration the flags and environment give, or None for offline. A command
    that offers no ``--text-tool-calls`` offers its model no tools: TIERMEM_TEXT_TOOL_CALLS,
    set for the chat, is not read, so a value it would refuse stops no such command."""
    return resolve_llm_config(args.model, args.base_url, context_window=args.context_window,
                              timeout=args.timeout, max_tokens=args.max_tokens,
                              text_tool_calls=getattr(args, "text_tool_calls", "off"))


def open_client(config: LLMConfig, note: Callable[[str], None],
                waiting: Callable[[str], None] | None = None) -> OpenAIClient:
    """A client for ``config`` with the window settled: flag, server, table, or an assumed
    default that ``note`` is told about; ``waiting`` (else ``note``) hears of each wait for
    a server still loading its model, or a long one it asked for, so that no command waits a
    minute in silence."""
    from tiermem.agent.openai_client import OpenAIClient

    return OpenAIClient.from_config(with_server_window(config, note),
                                    wait_notice=waiting or note)
