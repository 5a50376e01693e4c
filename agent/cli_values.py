"""The values the command line's options take, each refused with what to give instead
when it would quietly mean something else (an empty value, an unusable agent name)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tiermem.user_paths import expanded, home_elsewhere


def given(what: str) -> Callable[[str], str]:
    """An argparse type refusing an empty value (often an unset shell variable), which
    would otherwise name the working directory or quietly mean the default."""

    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"the value is empty; give {what}")
        return text

    return check


#: ``--model`` and ``--base-url``: empty (an unset shell variable), they would quietly mean
#: the default, OpenAI's API, and send the conversation there.
MODEL_NAME = given("a model name, or leave out --model")
BASE_URL = given("an OpenAI-compatible endpoint like http://localhost:11434/v1, or leave out "
                 "--base-url")


def given_path(what: str) -> Callable[[str], Path]:
    """As ``given``, for an option whose value is a path."""
    check = given(what)

    def path(text: str) -> Path:
        return expanded(check(text))

    return path


def place_path(what: str) -> Callable[[str], Path]:
    """As ``given_path``, for a directory that holds a memory or a server's data: refused
    when it is ``./~/d``, not there, while the home's ``~/d`` is (``home_elsewhere``)."""
    check = given(what)

    def path(text: str) -> Path:
        if (problem := home_elsewhere(check(text))) is not None:
            raise argparse.ArgumentTypeError(problem)
        return expanded(text)

    return path


def policy_file(text: str) -> Path:
    """``--policy``'s value: a path, refused when empty (it would name the directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the path is empty; give the path of a YAML policy "
                                         "file")
    return expanded(text)


def agent_name(text: str) -> str:
    from tiermem.memory.errors import InvalidInputError
    from tiermem.memory.validation import validate_agent_name

    try:
        return validate_agent_name(text)
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None



def any_case(*choices: str) -> dict[str, Any]:
    """``add_argument``'s ``choices`` and ``type`` for an option taking one of ``choices``,
    read in any case: ``--embedder HASHING`` is hashing. A value it does not take stays as
    typed, so argparse refuses it quoted as typed ("invalid choice: 'Bogus'")."""
    known = {choice.lower(): choice for choice in choices}

    def choice(text: str) -> str:
        return known.get(text.lower(), text)

    return {"choices": choices, "type": choice}
