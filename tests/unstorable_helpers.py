"""An agent home holding text no store of this version holds, as an older version left it."""

from __future__ import annotations

from pathlib import Path

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory


def home_with_nuls(home: Path) -> tuple[int, int]:
    """An agent home holding a NUL in a fact, a passage and a message, as an older version
    could store them: the fact's and the passage's ids."""
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea", "durable")
        passage = memory.archival_insert("runbook: restart the worker")
        memory.process_interaction("my cat is Miso", "Noted.")
        fact = memory.facts()[0].id
        with memory.store.transaction():
            memory.store.execute("UPDATE facts SET text = ? WHERE id = ?",
                                 ("User likes\x00 tea", fact))
            memory.store.execute("UPDATE passages SET text = ? WHERE id = ?",
                                 ("runbook:\x00 restart the worker", passage))
            edit_messages(memory, "UPDATE messages SET content = ? WHERE id = 1",
                          ("my cat\x00 is Miso",))
    return fact, passage


def edit_messages(memory: HierarchicalMemory, statement: str, params: tuple[str, ...]) -> None:
    """Run ``statement`` on recall, which refuses an edit: an older version wrote a NUL as
    it appended."""
    trigger = memory.store.execute("SELECT sql FROM sqlite_master "
                                   "WHERE name = 'messages_no_edit'").fetchone()[0]
    memory.store.execute("DROP TRIGGER messages_no_edit")
    memory.store.execute(statement, params)
    memory.store.execute(trigger)
