"""A joint subject ("Tom and I work at Globex now") says of each of them what it says:
the old fact of that attribute of each one ends, of the user or of anyone else."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("said", "now"), [
    (["Tom works at Initech.", "Tom and I work at Globex now."],
     ["Tom and User work at Globex"]),
    (["Tom works at Initech.", "I work at Acme.", "Tom and I work at Globex."],
     ["Tom and User work at Globex"]),
    (["Tom works at Initech.", "Anna works at Acme.", "Tom and Anna work at Globex now."],
     ["Tom and Anna work at Globex"]),
    (["My wife lives in Lisbon.", "My wife and I moved to Porto."],
     ["User's wife and User moved to Porto"]),
    # one not in the subject keeps what is said of them, as does another attribute
    (["Anna works at Initech.", "Tom and I work at Globex now."],
     ["Anna works at Initech", "Tom and User work at Globex"]),
    (["Tom lives in Berlin.", "Tom and I work at Globex now."],
     ["Tom and User work at Globex", "Tom lives in Berlin"]),
])
def test_each_of_a_joint_subject_leaves_their_old_value(said: list[str], now: list[str]
                                                          ) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now
