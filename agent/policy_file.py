"""Which privacy policy a session runs under: ``--policy FILE``, else the agent home's
``policy.yaml`` when there is one, else none.

A policy whose hybrid or llm mode asks a model uses the session's chat model as its
judge (``ModelJudge``); a session without one is refused with what to do instead.
"""

from __future__ import annotations

from pathlib import Path

from tiermem.agent.judge import ModelJudge
from tiermem.agent.llm import LLMClient
from tiermem.memory.errors import InvalidConfigError
from tiermem.memory.privacy import POLICY_FILE, PrivacyConfig, load_policy
from tiermem.memory.text.shown import shown_path
from tiermem.user_paths import expanded


def policy_path(home: Path, given: str | Path | None) -> Path | None:
    """The policy file of this session: the one given, or the home's ``policy.yaml``."""
    if given is not None:
        return expanded(given)
    found = home / POLICY_FILE
    # One that is there but cannot be read (a directory, a broken link) is an error to
    # report, not a session without the policy its owner meant to set.
    return found if found.exists() or found.is_symlink() else None


def session_policy(home: Path, given: str | Path | None) -> tuple[PrivacyConfig | None,
                                                                   Path | None]:
    """The policy and the file it came from (None, None: no policy)."""
    path = policy_path(home, given)
    return (load_policy(path), path) if path is not None else (None, None)


def session_judge(policy: PrivacyConfig | None, path: Path | None,
                  model: LLMClient | None) -> ModelJudge | None:
    """The judge for ``policy``: ``model`` when a layer needs one (None when none does).

    ``model`` is None when the session runs without a language model; a policy that
    needs one is then refused, naming the layer and the ways out.
    """
    if policy is None or not policy.needs_judge:
        return None
    if model is None:
        layer = next(name for name, part in (("retention", policy.retention),
                                             ("recall", policy.recall))
                     if part.enabled and part.mode != "deterministic")
        mode = getattr(policy, layer).mode
        raise InvalidConfigError(
            f"the privacy policy {shown_path(path or '')} sets {layer}.mode: {mode}, which "
            f"asks a model to judge, and this session has none: configure one (--model NAME, "
            f"or TIERMEM_MODEL with OPENAI_BASE_URL; not --offline), or set {layer}.mode: "
            f"deterministic in the policy",
            (f"{layer}.mode",))
    return ModelJudge(model)
