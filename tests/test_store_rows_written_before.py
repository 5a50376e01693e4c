"""Facts as an earlier version's store wrote them are still used, on both backends: times
in milliseconds, and texts blank or over the limit. An update of such a row writes them
back as stored, which the store does not refuse, while a new value of the kind still is;
evicted, such a fact keeps its text, and its passage takes one a passage may hold."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.memory.config import MemoryConfig
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.tiers.lifecycle import (
    BLANK_FACT_PASSAGE,
    CUT_MARK,
    UNSTORABLE_MARK,
    archived_text,
)
from tiermem.memory.validation import MAX_TEXT_CHARS

#: Over the limit, and found by a search for "deploy window".
LONG = "deploy window " * (MAX_TEXT_CHARS // 14 + 1)


@pytest.fixture(params=["sqlite", "postgres"])
def reopen(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., HierarchicalMemory]:
    """Opens one memory again and again, in a SQLite file or on PostgreSQL."""
    if request.param == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")
        return lambda **options: make_memory(store=dsn, agent="ada", **options)
    return lambda **options: make_memory(tmp_path / "home", **options)


def _written_before(m: HierarchicalMemory, fact_id: int, **columns: object) -> None:
    """Columns of a fact as a version before the store's checks wrote them."""
    names = list(columns)
    with m.store.transaction():
        if isinstance(m.store, PostgresBackend):
            m.store.conn.execute(
                f"UPDATE tiermem.facts SET {', '.join(f'{n} = %s' for n in names)}"
                " WHERE id = %s", (*columns.values(), fact_id))
        else:
            m.store.execute(f"UPDATE facts SET {', '.join(f'{n} = ?' for n in names)}"
                            " WHERE id = ?", (*columns.values(), fact_id))


def test_a_fact_stored_over_the_limit_is_counted_read(
        reopen: Callable[[], HierarchicalMemory]) -> None:
    with reopen() as m:
        fact_id = m.add_fact("deploy window notes")
        _written_before(m, fact_id, text=LONG)
    with reopen() as m:
        with m.interaction():  # a read counts once an interaction
            m.query("deploy window")  # an update of the fact's row
        held = m.fact(fact_id)
        assert held is not None and held.access_count == 2 and held.text == LONG
        # A new text over the limit is still refused, and the row left as it was.
        with pytest.raises(InvalidInputError, match=r"^fact text is 200,008 characters"):
            m.store.facts.update(replace(held, text=LONG + "more", access_count=3))
        assert m.fact(fact_id) == held


def test_an_archived_fact_stored_blank_is_counted_found(
        reopen: Callable[[], HierarchicalMemory]) -> None:
    with reopen() as m:
        fact_id = m.add_fact("The staging region is us-east-2")
        in_core = m.fact(fact_id)
        assert in_core is not None
        m.lifecycle.evict(in_core)  # its passage keeps the words
        _written_before(m, fact_id, text=" ")
    with reopen() as m:
        with m.interaction():  # a hit counts once an interaction
            m.query("staging region us-east-2")  # an update of the archived fact's row
        found = m.fact(fact_id)
        assert found is not None and found.hits_since_eviction == 1 and found.text == " "
        with pytest.raises(InvalidInputError, match=r"^fact text is empty; give it some text"):
            m.store.facts.update(replace(found, text="", hits_since_eviction=2))
        assert m.fact(fact_id) == found


def _timed_in_milliseconds(m: HierarchicalMemory, fact_id: int, created_at: float,
                           evicted_at: float | None = None) -> None:
    """Times as an earlier version wrote them with a clock in milliseconds."""
    _written_before(m, fact_id, created_at=created_at, evicted_at=evicted_at)


def test_a_fact_an_earlier_version_stored_in_milliseconds_is_still_used(
        reopen: Callable[[], HierarchicalMemory]) -> None:
    # A clock in milliseconds was accepted once; restore reads such times as milliseconds,
    # and the store's update leaves a fact's creation as stored, so using it still works.
    with reopen() as m:
        fact_id = m.add_fact("The production region is eu-west-1")
        _timed_in_milliseconds(m, fact_id, 1715176560123.0)
    with reopen() as m:
        m.query("production region")  # counts the fact read: an update of its row
        held = m.fact(fact_id)
        assert held is not None and held.access_count == 1
        assert held.created_at == pytest.approx(1715176560.123)  # read as restore reads it
        m.replace_in_core("The production region is eu-west-1",
                          "The production region is eu-central-1")
        assert [f.text for f in m.core] == ["The production region is eu-central-1"]
        # A new fact still takes seconds only.
        with pytest.raises(InvalidInputError, match="fact created_at is 1715176560123"):
            m.store.facts.insert(replace(held, text="User is vegan", created_at=1715176560123.0),
                                 "user is vegan")


def test_a_fact_an_earlier_version_timed_in_milliseconds_is_evicted_and_found_again(
        reopen: Callable[[], HierarchicalMemory]) -> None:
    # One fact in core, one in archival: evicting the first makes a passage of its creation
    # time, and a search hit on the second rewrites its eviction time; neither takes
    # milliseconds, so both are read as seconds, as restore reads them.
    with reopen() as m:
        kept = m.add_fact("The production region is eu-west-1")
        evicted = m.add_fact("The staging region is us-east-2")
        in_core = m.fact(evicted)
        assert in_core is not None
        m.lifecycle.evict(in_core)
        _timed_in_milliseconds(m, kept, 1715176560123.0)
        _timed_in_milliseconds(m, evicted, 1715176560123.0, 1715176561456.0)
    with reopen() as m:
        with m.interaction():  # a hit counts once an interaction
            m.query("staging region us-east-2")  # an update of the archived fact's row
        found = m.fact(evicted)
        assert found is not None and found.hits_since_eviction == 1
        assert found.evicted_at == pytest.approx(1715176561.456)
        in_core = m.fact(kept)
        assert in_core is not None and in_core.tier == "core"
        m.lifecycle.evict(in_core)
        moved = m.fact(kept)
        assert moved is not None and moved.tier == "archival" and moved.passage_id is not None
        passage = m.archival.get_many([moved.passage_id])[moved.passage_id]
        assert passage.created_at == pytest.approx(1715176560.123)


@pytest.mark.parametrize("stored", [" ", LONG], ids=["blank", "over-the-limit"])
def test_a_full_core_evicts_a_fact_stored_blank_or_over_the_limit(
        reopen: Callable[..., HierarchicalMemory], stored: str) -> None:
    one_fact = MemoryConfig(core_limit=1, core_limit_unit="facts")
    with reopen(config=one_fact) as m:
        archived_id = m.add_fact("deploy window notes")
        core_id = m.add_fact("The on-call engineer is Ada")  # evicts the first, to a passage
        _written_before(m, core_id, text=stored)
        _written_before(m, archived_id, text=stored)
    expected = (BLANK_FACT_PASSAGE if stored.isspace()
                else stored[:MAX_TEXT_CHARS - len(CUT_MARK)].rstrip() + CUT_MARK)
    with reopen(config=one_fact) as m:
        m.add_fact("The staging region is us-east-2")  # core is full: the old fact leaves
        evicted = m.fact(core_id)
        assert evicted is not None and evicted.tier == "archival" and evicted.text == stored
        assert evicted.passage_id is not None
        assert m.archival.get_many([evicted.passage_id])[evicted.passage_id].text == expected
        # Evicted again (as after a promotion), its passage is given the text too.
        again = m.fact(archived_id)
        assert again is not None and again.passage_id is not None
        m.lifecycle.evict(again)
        assert m.archival.get_many([again.passage_id])[again.passage_id].text == expected
        assert m.fact(archived_id) == again and again.text == stored


ONE_FACT = MemoryConfig(core_limit=1, core_limit_unit="facts")


def _a_fact_stored_blank(reopen: Callable[..., HierarchicalMemory]) -> int:
    """The id of a fact an earlier version stored blank, in a core of one fact."""
    with reopen(config=ONE_FACT) as m:
        m.add_fact("deploy window notes")
        blank_id = m.add_fact("The on-call engineer is Ada")
        _written_before(m, blank_id, text=" ")
    return blank_id


def test_the_passage_of_a_fact_stored_blank_is_kept_but_never_a_search_result(
        reopen: Callable[..., HierarchicalMemory]) -> None:
    blank_id = _a_fact_stored_blank(reopen)
    with reopen(config=ONE_FACT) as m:
        m.add_fact("The runbook text is stored without edits")  # the blank fact leaves core
        m.add_fact("The staging region is us-east-2")  # and so does this one
        blank = m.fact(blank_id)
        assert blank is not None and blank.passage_id is not None
        kept = m.archival.get_many([blank.passage_id])
        assert kept[blank.passage_id].text == BLANK_FACT_PASSAGE
        asked = "a fact stored without text"
        first = m.archival_search(asked, k=1)
        assert [h.text for h in first.hits] == ["The runbook text is stored without edits"]
        for question in (asked, "what do you know about me?"):
            every = m.archival_search(question, k=10)
            assert BLANK_FACT_PASSAGE not in [h.text for h in every.hits], question
            assert every.total == len(every.hits), question
            assert BLANK_FACT_PASSAGE not in [h.text for h in m.query(question)], question
        assert "The runbook text is stored without edits" in [h.text for h in m.query(asked)]


def test_the_passage_of_a_fact_stored_blank_is_not_counted_below_the_page(
        reopen: Callable[..., HierarchicalMemory]) -> None:
    blank_id = _a_fact_stored_blank(reopen)
    with reopen(config=ONE_FACT) as m:
        for n in range(6):  # each outranks the blank fact's passage for "text"
            m.add_fact(f"Runbook {n} text: the text of step {n} is stored as text")
        blank = m.fact(blank_id)
        assert blank is not None and blank.passage_id is not None  # archived, matching "text"
        every = m.archival_search("text", k=100)
        assert blank.passage_id not in [h.id for h in every.hits]
        for k in (1, 2, 4):
            pages = [m.archival_search("text", k=k, page=page) for page in range(1, 8)]
            shown = [h.text for p in pages for h in p.hits]
            assert shown == [h.text for h in every.hits], k
            assert {(p.total, p.total_exact) for p in pages} == {(len(shown), True)}, k


def test_a_full_core_evicts_a_fact_stored_with_a_nul(tmp_path: Path) -> None:
    # SQLite alone: PostgreSQL never held a NUL in text.
    stored = "The on-call\x00engineer is Ada"
    with make_memory(tmp_path / "home", config=ONE_FACT) as m:
        fact_id = m.add_fact("The on-call engineer is Ada")
        _written_before(m, fact_id, text=stored)
    with make_memory(tmp_path / "home", config=ONE_FACT) as m:
        m.add_fact("The staging region is us-east-2")  # core is full: the old fact leaves
        evicted = m.fact(fact_id)
        assert evicted is not None and evicted.tier == "archival" and evicted.text == stored
        assert evicted.passage_id is not None
        passage = m.archival.get_many([evicted.passage_id])[evicted.passage_id]
        assert passage.text == f"The on-call{UNSTORABLE_MARK}engineer is Ada"
        assert [h.text for h in m.archival_search("on-call engineer", k=1).hits] == [
            passage.text]


def test_a_lone_surrogate_in_a_passage_is_marked_and_the_rest_kept() -> None:
    # Never read from SQLite (its text is not UTF-8), but a fact's text from any store
    # has its passage made this way.
    assert archived_text(" ops\ud800 lead\udfff ") == f"ops{UNSTORABLE_MARK} lead{UNSTORABLE_MARK}"
