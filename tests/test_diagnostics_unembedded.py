"""The ``rows_without_vectors`` red flag reads as a sentence whatever it counts: only the
kinds of row lacking a vector named, verb and pronouns agreeing with their total."""

from __future__ import annotations

import pytest
from memory_helpers import make_memory

from tiermem.agent.diagnostics_command import command_line_advice
from tiermem.memory.embed.minilm import MiniLMEmbedder
from tiermem.memory.ops.diagnostics import unembedded_rows

PYTHON_ONE = ("; embed it with HierarchicalMemory.reindex(path, embedder) (a PostgreSQL "
              "memory: reindex(embedder=embedder, store=dsn, agent=name))")
PYTHON_MANY = PYTHON_ONE.replace("embed it", "embed them")
ONE = " no vector from the current embedder (e1), so search by meaning cannot find it"
MANY = " no vector from the current embedder (e1), so search by meaning cannot find them"


@pytest.mark.parametrize(("passages", "messages", "sentence"), [
    (1, 0, "1 passage has" + ONE + PYTHON_ONE),
    (3, 0, "3 passages have" + MANY + PYTHON_MANY),
    (0, 1, "1 user or assistant message has" + ONE + PYTHON_ONE),
    (0, 3, "3 user and assistant messages have" + MANY + PYTHON_MANY),
    (1, 1, "1 passage and 1 user or assistant message have" + MANY + PYTHON_MANY),
    (1, 3, "1 passage and 3 user and assistant messages have" + MANY + PYTHON_MANY),
    (3, 1, "3 passages and 1 user or assistant message have" + MANY + PYTHON_MANY),
    (3, 3, "3 passages and 3 user and assistant messages have" + MANY + PYTHON_MANY),
])
def test_the_flag_reads_as_a_sentence_for_every_count(
        passages: int, messages: int, sentence: str) -> None:
    assert unembedded_rows(passages, messages, "e1") == sentence


def test_one_message_stored_without_a_vector_is_the_only_row_named() -> None:
    with make_memory() as m:
        m.recall.append("user", "x", 1, embed=False)
        (flag,) = [f for f in m.diagnostics()["red_flags"] if f["name"] == "rows_without_vectors"]
    assert flag["message"] == (
        "1 user or assistant message has no vector from the current embedder "
        "(hashing-uni-bi-256), so search by meaning cannot find it" + PYTHON_ONE)


@pytest.mark.parametrize(("figures", "pronoun"), [
    ({"passages": 0, "messages": 1}, "it"), ({"passages": 1, "messages": None}, "it"),
    ({"passages": 2, "messages": None}, "them"), ({"passages": 1, "messages": 1}, "them")])
def test_the_command_line_names_the_rows_as_the_flag_does(
        figures: dict[str, int | None], pronoun: str) -> None:
    python = PYTHON_ONE if pronoun == "it" else PYTHON_MANY
    report = {"red_flags": [{"name": "rows_without_vectors", "message": "unembedded" + python,
                             "figures": figures}]}
    command_line_advice(report, "ada", None, MiniLMEmbedder.id)
    assert report["red_flags"][0]["message"] == (
        f"unembedded; embed {pronoun} with `tiermem reindex --agent ada --embedder local`")
