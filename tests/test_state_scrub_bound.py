"""An erasure keeps every stored state value within the bound a snapshot restores, and
reads each erased word once to tell a secret."""

from __future__ import annotations

import json

import pytest
from memory_helpers import make_memory

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops import state_scrub
from tiermem.memory.ops.state_scrub import ERASED_LINE, ErasedRuns
from tiermem.memory.validation import MAX_STATE_VALUE_CHARS

SECRET = "Pin 7"  # a short fact: a line holding all of its words quotes it
KEPT = "ok"


def _summary_at_the_bound() -> str:
    """A string whose JSON text is exactly ``MAX_STATE_VALUE_CHARS``: short lines, every
    other one quoting the secret, each shorter than the mark that would replace it."""
    pair = f"{SECRET}\n{KEPT}\n"
    head = pair * ((MAX_STATE_VALUE_CHARS - 2) // len(json.dumps(pair)[1:-1]))
    pad = MAX_STATE_VALUE_CHARS - len(json.dumps(head))
    value = head + "x" * pad
    assert len(json.dumps(value)) == MAX_STATE_VALUE_CHARS
    return value


def test_erasing_short_lines_of_a_value_at_the_bound_keeps_it_restorable() -> None:
    summary = _summary_at_the_bound()
    with make_memory() as m:
        fact = m.add_fact(SECRET, "durable")
        m.set_state("summary", summary)
        assert len(ERASED_LINE) > len(SECRET)  # marking every line would grow the value

        report = m.erase(facts=[fact], reason="user asked")

        assert report.state_values == 1
        stored = m.store.settings.get("state.summary")
        assert stored is not None and len(stored) <= MAX_STATE_VALUE_CHARS
        scrubbed = json.loads(stored)
        assert SECRET not in scrubbed and ERASED_LINE not in scrubbed
        assert scrubbed.startswith(f"{KEPT}\n{KEPT}\n") and scrubbed.endswith("x")
        snap = json.loads(json.dumps(m.snapshot()))
    with HierarchicalMemory.restore(snap) as restored:
        assert restored.get_state("summary") == scrubbed


# A lone surrogate is stored escaped: UTF-8 cannot hold it as it is.
@pytest.mark.parametrize("kept", [KEPT, "\ud800 é"])
def test_a_value_the_marks_keep_within_the_bound_is_marked(kept: str) -> None:
    with make_memory() as m:
        fact = m.add_fact(SECRET, "durable")
        m.set_state("summary", f"{SECRET}\n{kept}")
        m.erase(facts=[fact], reason="user asked")
        assert m.get_state("summary") == f"{ERASED_LINE}\n{kept}"


def test_erasing_a_line_of_restored_non_ascii_text_keeps_the_rest() -> None:
    # Within the bound as restored (characters unescaped), about six times over it were
    # every character written as a \u escape.
    lines = "日本語のメモ\n" * 300_000
    with make_memory() as m:
        fact = m.add_fact(SECRET, "durable")
        m.set_state("summary", KEPT)
        snap = json.loads(json.dumps(m.snapshot()))
    snap["state"]["summary"] = json.dumps(f"{lines}{SECRET}", ensure_ascii=False)
    assert len(json.dumps(lines)) > MAX_STATE_VALUE_CHARS
    with HierarchicalMemory.restore(snap) as restored:
        restored.erase(facts=[fact], reason="user asked")
        stored = restored.store.settings.get("state.summary")
        assert stored is not None and len(stored) <= MAX_STATE_VALUE_CHARS
        assert restored.get_state("summary") == f"{lines}{ERASED_LINE}"



def test_each_erased_word_is_judged_a_secret_once(monkeypatch: pytest.MonkeyPatch) -> None:
    judged: list[str] = []
    secret_like = state_scrub._secret_like

    def counting(word: str) -> bool:
        judged.append(word)
        return secret_like(word)

    monkeypatch.setattr(state_scrub, "_secret_like", counting)
    texts = [f"My PIN is 8675309, message {n}" for n in ("one", "two", "three")]
    runs = ErasedRuns(texts)
    assert sorted(judged) == sorted({"my", "pin", "is", "8675309", "message", "one", "two",
                                     "three"})
    assert runs.secrets == {"8675309"}
    assert runs.quotes("remind me of 8675309") and not runs.quotes("my message")
