"""An agent's privacy policy goes where its memory goes.

The policy file (``policy.yaml``: retention, recall and forget, memory/policy_file.py)
lives beside the memory, not in it: in the agent home for an agent kept in SQLite, in
``$TIERMEM_HOME/agents/NAME`` for agent NAME kept in PostgreSQL (agent/policy_file.py).
``migrate`` copies the memory's rows, so it copies this file too: an agent moved without
it would quietly keep in memory, and show, what its owner had it withhold.

The file is compared before anything is copied. A target place with no policy gets the
source's, byte for byte and private to its user; one with the same policy (or the very
same file: a PostgreSQL agent and the SQLite agent of its name share one) needs nothing;
one with a *different* policy is refused, since which of the two the agent should keep is
its owner's decision (the one there may be the stricter), never the copy's.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from tiermem.agent.home import agent_home, private_files
from tiermem.memory.errors import InvalidConfigError, TiermemError
from tiermem.memory.policy_file import POLICY_FILE
from tiermem.memory.store.location_text import is_dsn
from tiermem.memory.text.shown import shown_path
from tiermem.user_paths import expanded


class PolicyConflictError(TiermemError):
    """The target place already has a privacy policy other than the agent's."""


def policy_file_at(location: str, agent: str) -> Path:
    """Where agent ``agent`` at ``location`` (an agent home, or a PostgreSQL DSN) has its
    policy file, as the chat looks for it."""
    if is_dsn(location):
        return agent_home(agent) / POLICY_FILE
    return expanded(location).absolute() / POLICY_FILE


def _read(path: Path) -> bytes | None:
    """The policy file's bytes; None when there is none. One that is there but cannot be
    read is an error, as the chat makes it: never taken for no policy."""
    if not (path.exists() or path.is_symlink()):
        return None
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InvalidConfigError(
            f"cannot read the privacy policy {shown_path(path)}: {exc.strerror or exc}; fix "
            f"it (or remove it, if the agent is to have no policy) and run the command "
            f"again", ("policy",)) from None


@dataclass(frozen=True)
class PolicyCarry:
    """The policy of an agent about to move from ``source`` to ``target`` (their policy
    files' paths), and what the move must do with it."""

    agent: str
    source: Path
    target: Path
    #: The source's policy, which the target lacks: to be copied. None: nothing to copy.
    text: bytes | None
    #: What to tell the user once the agent has moved (None: there is no policy anywhere).
    outcome: str | None

    def copy(self) -> str | None:
        """Give the target the source's policy (when it needs it); what to tell the user.
        The file appears whole or not at all, readable by this user only."""
        if self.text is None:
            return self.outcome
        with private_files():
            self.target.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.target.with_name(f".{POLICY_FILE}.{os.getpid()}.tmp")
            try:
                fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as stream:
                    stream.write(self.text)
                    stream.flush()
                    os.fsync(stream.fileno())
                if self.target.exists() or self.target.is_symlink():
                    # Written meanwhile by someone else: theirs stays (compared by the
                    # next migrate), never overwritten by this copy.
                    raise FileExistsError(17, "it was created while the memory was copied")
                os.replace(temporary, self.target)
            finally:
                with contextlib.suppress(OSError):
                    temporary.unlink()
        return self.outcome

    def advice(self) -> str:
        """What to do when the copy failed: the policy must reach the agent some other way."""
        return (f"copy {shown_path(self.source)} to {shown_path(self.target)} before the "
                f"agent is used: until then agent {self.agent} runs with no privacy policy")


def plan_policy_carry(source: str, target: str, agent: str) -> PolicyCarry:
    """What the move of ``agent`` from ``source`` to ``target`` (agent homes or DSNs) must
    do with its privacy policy; ``PolicyConflictError`` when the target's differs from the
    source's, ``InvalidConfigError`` when either cannot be read. Nothing is written."""
    source_file, target_file = policy_file_at(source, agent), policy_file_at(target, agent)
    have, there = _read(source_file), _read(target_file)
    shown_source, shown_target = shown_path(source_file), shown_path(target_file)
    if have is None and there is None:
        return PolicyCarry(agent, source_file, target_file, None, None)
    if have is None:
        return PolicyCarry(agent, source_file, target_file, None,
                           f"agent {agent} had no privacy policy ({shown_source}); where it "
                           f"is now it runs under {shown_target}, which was there before")
    if there is None:
        return PolicyCarry(agent, source_file, target_file, have,
                           f"copied the privacy policy {shown_source} to {shown_target}, "
                           f"where agent {agent} reads it now")
    if have == there:
        same = (f"the privacy policy {shown_source} serves agent {agent} in both places"
                if _same_file(source_file, target_file) else
                f"the privacy policy {shown_target} was already there, the same as "
                f"{shown_source}")
        return PolicyCarry(agent, source_file, target_file, None, same)
    raise PolicyConflictError(
        f"{shown_target} holds a privacy policy other than {shown_source}, the one agent "
        f"{agent} runs under now, and nothing was copied: a move neither overwrites a policy "
        f"(the one there may be stricter) nor leaves the agent's behind. Make "
        f"{shown_target} the policy the agent should have (copy {shown_source} over it, or "
        f"merge the two), or move the agent somewhere else, then run the same command again")


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False
