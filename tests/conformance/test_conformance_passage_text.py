"""The passages holding a text exactly (``PassageStore.holding``, read through an index), on
every backend: what the memory tools ask before filing a passage again."""

from __future__ import annotations

from backends import Backend

LONG = "Runbook: " + "restart the api pod, then check the queue depth. " * 80


def test_passages_holding_a_text_are_those_with_exactly_that_text(backend: Backend) -> None:
    m = backend.memory()
    try:
        first = m.archival_insert("Acme invoices are due on the 5th.")
        m.archival_insert("acme invoices are due on the 5th.")  # another case
        m.archival_insert("Acme invoices are due on the 5th. Or the 6th.")  # same start
        again = m.archival_insert("  Acme invoices are due on the 5th.\n")  # stored stripped
        long_one = m.archival_insert(LONG)
        m.archival_insert(LONG[:-2] + "x.")  # differs past any prefix an index keeps
        gone = m.archival_insert("The staging cluster is amber.")
        assert m.forget("The staging cluster is amber.",
                        erase=False).to_dict()["passages"] == [gone]
        passages = m.store.passages
        assert passages.holding("Acme invoices are due on the 5th.") == [first, again]
        assert passages.holding(LONG.strip()) == [long_one]
        assert passages.holding("Acme invoices") == []
        assert passages.holding("The staging cluster is amber.") == []  # forgotten
        assert [h.id for h in m.archival_holding(" Acme invoices are due on the 5th. ")] == [
            first, again]
    finally:
        m.close()


def test_another_agents_passages_hold_nothing_here(backend: Backend) -> None:
    one, other = backend.memory(), backend.memory()
    try:
        one.archival_insert("Acme invoices are due on the 5th.")
        assert other.store.passages.holding("Acme invoices are due on the 5th.") == []
    finally:
        one.close()
        other.close()
