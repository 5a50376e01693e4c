"""``/policy set`` of a statement the policy file gives no rules: advice the chat can take."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from memory_helpers import make_memory
from rich.console import Console
from test_privacy_paths import POLICY

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.agent.scripted import ScriptedModel

SAID = ("retention statement 'Forget my birthday.' has no rules in retention.policy_rules, "
        "so deterministic mode cannot enforce it")
RULES = "add its rules there in the policy file (keyed by the exact statement)"


@pytest.mark.parametrize(("llm", "hint"), [
    # Offline it advised "or use retention.mode: llm", which the offline chat refuses.
    (OfflinePolicy(), f"{RULES}, and start the chat again"),
    (ScriptedModel(), f"{RULES}, or set retention.mode: llm there, and start the chat again"),
], ids=["offline", "model"])
def test_a_statement_with_no_rules_gets_advice_that_works_in_this_chat(
        llm: Any, hint: str) -> None:
    with make_memory(privacy=POLICY) as memory:
        out = io.StringIO()
        repl = ChatRepl(Agent(memory, llm), console=Console(file=out, width=300),
                        errors=io.StringIO(), json_lines=True)
        assert repl.run_piped(["/policy set Forget my birthday."]) == 1
        (record,) = (json.loads(line) for line in out.getvalue().splitlines())
        assert record["error"] == {"kind": "invalid_config", "message": SAID, "hint": hint}
        assert memory.privacy is not None and memory.privacy.policies == ()
