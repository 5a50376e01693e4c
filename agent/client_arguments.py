"""The types ``OpenAIClient`` takes for each argument, checked before any is used.

A Python caller's mistakes (a number as text from a settings file, None for the model)
would otherwise surface as a TypeError or AttributeError from deep inside the client.
"""

from __future__ import annotations

from typing import Any

from tiermem.agent.errors import LLMConfigError

__all__ = ["check_types"]

#: The types each argument takes, and how the error words them.
_ARGUMENT_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "model": ((str,), "the model's name as text"),
    "base_url": ((str, type(None)), "a URL as text, or None for OpenAI's API"),
    "api_key": ((str, type(None)), "text, or None"),
    "timeout": ((int, float, type(None)), "a number of seconds, or None"),
    "max_retries": ((int,), "a whole number"),
    "context_window": ((int, type(None)), "a whole number of tokens, or None"),
    "max_tokens": ((int, type(None)), "a whole number of tokens, or None"),
    "encoding": ((str, type(None)), "an encoding's name as text, or None"),
    "text_tool_calls": ((str,), "'auto' or 'off'"),
}


def check_types(**arguments: Any) -> None:
    for name, value in arguments.items():
        types, wanted = _ARGUMENT_TYPES[name]
        if isinstance(value, bool) or not isinstance(value, types):
            shown = "" if name == "api_key" else f" {value!r:.60}"  # a key is never echoed
            raise LLMConfigError(f"OpenAIClient's {name} must be {wanted}, "
                                 f"got {type(value).__name__}{shown}")
