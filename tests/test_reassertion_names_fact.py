"""Stating a fact core holds again says which fact it counted the statement for."""

from __future__ import annotations

import json

from memory_helpers import make_memory

from tiermem.tools.memory_tools import ToolContext, memory_toolbox


def test_a_restatement_names_the_fact_it_was_counted_for() -> None:
    with make_memory() as memory:
        memory.add_fact("User uses pgBouncer")
        memory.add_fact("User lives in Lyon")
        ctx = ToolContext(memory=memory, turn=memory.tick + 1)
        again = memory_toolbox().dispatch(
            "core_memory_append", json.dumps({"content": "user uses pgbouncer"}), context=ctx)
        assert again.content.startswith(
            'Already in core; counted as a re-assertion of "User uses pgBouncer"')
        assert "Lyon" not in again.content
