"""The command line of ``tiermem forget``: its options, and the combinations of them that
are usage errors because an option given would have no effect.

A request (TEXT), ``--erase-forgotten`` and ``--finish-erasures`` exclude each other, and
the last two take none of the options a request uses. A model's options
(``--model``, ``--base-url``, ``--max-tokens``, ...) are refused where no model is asked:
in mode ``exact``, or, in the modes that ask one, with no model configured. Each would else
be ignored without a word, and which was meant is the user's to say. ``--text-tool-calls``
is not offered, as the model judging a request is offered no tools; given, the usage
error says so.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from tiermem.memory.ops.forget_config import MAX_DELETE_COUNT, MODES
from tiermem.memory.policy_file import POLICY_FILE


def add_forget_parser(sub: Any, description: str, agent_name: Callable[[str], str]) -> Any:
    from tiermem.agent.cli_values import BASE_URL, MODEL_NAME, any_case, policy_file
    from tiermem.agent.server_options import add_server_options

    forget = sub.add_parser("forget", help=description, description=description,
                            epilog="exit codes: 0 something was forgotten, 1 nothing was "
                                   "(unmatched, already forgotten, ambiguous or failed), 2 "
                                   "usage error (also a model's option where no model is "
                                   "asked: in mode "
                                   "exact, or with none configured)")
    forget.add_argument("request", metavar="TEXT", nargs="?",
                        help="what to forget: the exact text of the item, or a request in "
                             "words for the LLM modes; - reads it from standard input")
    forget.add_argument("--agent", default="default", type=agent_name,
                        help="an existing agent (default: default)")
    forget.add_argument("--mode", **any_case(*MODES),
                        help="how the request is matched (default: the policy's, else exact)")
    forget.add_argument("--max-delete-count", type=_delete_count, metavar="N",
                        help=f"forget nothing when the request targets more than N items "
                             f"(1-{MAX_DELETE_COUNT}; default: the policy's, else 5)")
    forget.add_argument("--policy", type=policy_file, metavar="FILE",
                        help=f"a policy file whose forget section to use (default: "
                             f"$TIERMEM_HOME/agents/NAME/{POLICY_FILE}, with --store too, "
                             f"when present)")
    forget.add_argument("--model", type=MODEL_NAME,
                        help="the model the LLM modes ask; or set TIERMEM_MODEL")
    forget.add_argument("--base-url", type=BASE_URL,
                        help="OpenAI-compatible endpoint; or set OPENAI_BASE_URL")
    add_server_options(forget, text_tool_calls=False)
    forget.add_argument("--embedder", **any_case("local", "hashing"),
                        help="local MiniLM model or the model-free hashing embedder; "
                             "default: the one the agent's memory was built with")
    forget.add_argument("--erase", action="store_true",
                        help="also erase what is forgotten: its text leaves every file of the "
                             "agent's memory (see README, Erasure)")
    forget.add_argument("--erase-forgotten", action="store_true",
                        help="instead of a request, erase everything forgotten before "
                             "without --erase (the options for a request do not apply)")
    forget.add_argument("--finish-erasures", action="store_true",
                        help="instead of a request, finish the erasures earlier `--erase` "
                             "requests still owe (their process stopped before erasing; "
                             "`tiermem diagnostics` shows them as erasure_owed), and the "
                             "purge of old copies an erasure left unfinished, and nothing "
                             "else (the options for a request do not apply)")
    forget.add_argument("--json", action="store_true",
                        help="print the outcome and the forgotten ids as JSON")
    return forget


def _delete_count(text: str) -> int:
    """An argparse type: a ``max_delete_count`` the forget config accepts, refused here so
    the error names the option rather than a policy the user never wrote."""
    from tiermem.agent.server_options import positive_int

    value = positive_int(text)
    if value > MAX_DELETE_COUNT:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_DELETE_COUNT} items can be forgotten by one request, not {value}; "
            f"forget more with several requests")
    return value


def option_not_taken(unknown: Sequence[str]) -> str | None:
    """The usage error for ``--text-tool-calls`` among ``unknown``, the arguments argparse
    did not know. Chat takes it, so it is worth saying why forget does not; argparse alone
    would call it unknown, beside the request its value pushed out of TEXT."""
    for given in unknown:
        if given.split("=", 1)[0] == "--text-tool-calls":
            return ("forget takes no --text-tool-calls: the model judging a request is "
                    "offered no tools, so no text of its answer is read as a call to one; "
                    "drop it")
    return None


def request_conflict(args: argparse.Namespace) -> str | None:
    """The usage error for a choice of what to do that contradicts itself: more than one of
    TEXT, ``--erase-forgotten`` and ``--finish-erasures``, or a request's options beside
    one of the last two."""
    chosen = [name for name, given in (("TEXT", args.request is not None),
                                       ("--erase-forgotten", args.erase_forgotten),
                                       ("--finish-erasures", args.finish_erasures)) if given]
    if len(chosen) > 1:
        return (f"give one of TEXT, --erase-forgotten or --finish-erasures, not "
                f"{' and '.join(chosen)}")
    unused = _request_options(args)
    if unused and (args.erase_forgotten or args.finish_erasures):
        instead = "--erase-forgotten" if args.erase_forgotten else "--finish-erasures"
        given = " or ".join(unused)
        if len(unused) == 1:
            return (f"{instead} does not go with {given}: it {_REQUEST_OPTIONS[unused[0]]}, "
                    f"and {instead} takes no request; leave it out")
        does = "; ".join(f"{option} {_REQUEST_OPTIONS[option]}" for option in unused)
        return (f"{instead} does not go with {given}: {does}; {instead} takes no request, "
                f"so leave them out")
    return None


def model_option_conflict(args: argparse.Namespace, mode: str, mode_from: str) -> str | None:
    """The usage error for a model's option given where the request asks no model: in
    ``mode`` exact (``mode_from`` says where that mode came from), or with no model
    configured. In the modes that ask one, the environment's model counts; its settings
    given in the environment are no conflict, they wait for a model. Each error names what
    works: a judged mode with no model fails its request, so dropping the flag is not enough."""
    from tiermem.agent.config import names_a_model
    from tiermem.agent.server_options import HOW_TO_NAME_A_MODEL, and_listed, model_flags_given
    from tiermem.memory.errors import forget_mode_asks

    given = model_flags_given(args)
    if not given:
        return None
    flags, them = and_listed(given), "them" if len(given) > 1 else "it"
    named = names_a_model(args.model, args.base_url)
    if mode == "exact":
        judged = "give --mode exact_then_top_k_llm" if named else (
            f"name a model with {HOW_TO_NAME_A_MODEL}, and give --mode exact_then_top_k_llm")
        return (f"mode 'exact' ({mode_from}) matches the request's whole text and asks no "
                f"model, so {flags} would have no effect: drop {them}, or {judged} to have "
                f"the model judge a request that no stored text equals")
    if named:
        return None
    return (f"mode {mode!r} ({mode_from}) {forget_mode_asks(mode)}, and none is set: name one with "
            f"{HOW_TO_NAME_A_MODEL}, or give --mode exact and drop {flags} to forget by exact "
            f"text only")


#: The options only a request (TEXT) uses, as typed, each with what it does to one: the
#: refusal of one given with no request says which part of a request it would have set.
_REQUEST_OPTIONS = {
    "--mode": "says how a request is matched",
    "--max-delete-count": "caps how many items a request may forget",
    "--policy": "gives the forget settings a request is matched by",
    "--erase": "erases what a request forgets",
    "--model": "names the model that judges a request",
    "--base-url": "names the endpoint of the model that judges a request",
    "--context-window": "sizes the window of the model that judges a request",
    "--timeout": "bounds the wait for the model that judges a request",
    "--max-tokens": "caps the reply of the model that judges a request",
}


def _request_options(args: argparse.Namespace) -> list[str]:
    """The options given that only a request uses, as typed (``--max-delete-count``)."""
    return [option for option in _REQUEST_OPTIONS
            if getattr(args, option[2:].replace("-", "_")) not in (None, False)]
