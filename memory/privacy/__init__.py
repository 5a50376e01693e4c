"""Privacy policies: what memory may store (retention) and what it may show (recall).

``load_policy(path)`` reads a policy file into a ``PrivacyConfig``;
``HierarchicalMemory(..., privacy=config, judge=judge)`` enforces it on every
write and read path. See memory/privacy/config.py for the file's format.
"""

from tiermem.memory.policy_file import POLICY_FILE
from tiermem.memory.privacy.config import (
    PiiRule,
    PrivacyConfig,
    RecallConfig,
    RetentionConfig,
    load_policy,
    parse_policy,
)
from tiermem.memory.privacy.guard import PrivacyGuard

__all__ = [
    "POLICY_FILE",
    "PiiRule",
    "PrivacyConfig",
    "PrivacyGuard",
    "RecallConfig",
    "RetentionConfig",
    "load_policy",
    "parse_policy",
]
