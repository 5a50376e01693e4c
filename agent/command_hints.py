"""A model server's hint, worded for the command that met it.

The hints a ``ProviderError`` carries (agent/server_setup.py, agent/sdk_errors.py,
agent/server_errors.py) speak to someone in a chat, who sends a message again or starts
the chat with other options; a command run once (``eval``, ``scenario``, ``forget``) is
run again instead, with the same options.
"""

from __future__ import annotations

#: What each command is called in "run ... again"; any other is named as typed.
_CALLED = {"eval": "the eval", "scenario": "the scenario"}
#: Commands that take none of the chat's model options (--context-window, --max-tokens):
#: what the chat should be started with stays advice for the chat.
_WITHOUT_CHAT_OPTIONS = frozenset({"doctor"})


def hint_for(hint: str, command: str | None) -> str:
    """``hint`` as the command ``command`` (None: the chat, whose words it keeps) says it."""
    if command is None or command == "chat":
        return hint
    called = _CALLED.get(command, f"`tiermem {command}`")
    hint = hint.replace("send it again", f"run {called} again")
    if command in _WITHOUT_CHAT_OPTIONS:
        return hint
    return hint.replace("start the chat with", f"run {called} with")
