"""PostgreSQL's BM25 rankings (memory/store/postgres/lexical.py) read one state of the agent
while its writer commits on another connection between a ranking's statements: the counts
read when the ranking opens, the rows read as a search asks deeper, and the total."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.lexical import PgRanking
from tiermem.memory.store.records import Message, Passage, RowFilter

NO_FILTER = RowFilter()
#: Three passages with the rare word, one to erase among them; many with the common one,
#: more than a first read fetches.
PASSAGES = (["kiwi secret"] + ["kiwi apple pear plum"] * 2
            + ["apple pear " + "x " * (i % 5) for i in range(120)]
            + [f"u{i}" for i in range(150)])


@pytest.fixture
def sessions(postgres_dsn: str) -> Iterator[tuple[PostgresBackend, PostgresBackend]]:
    """The agent's writer and a reader of it, each on its own connection."""
    writer = PostgresBackend(postgres_dsn, "alice")
    reader = PostgresBackend(postgres_dsn, "alice", read_only=True)
    try:
        yield writer, reader
    finally:
        reader.close()
        writer.close()


def _everything(backend: PostgresBackend, table: str, words: list[str],
                window: int | None = None) -> dict[int, float]:
    ranking = backend.lexical(table).rank(words, NO_FILTER, window)  # type: ignore[arg-type]
    try:
        return ranking.everything()
    finally:
        ranking.close()


def _idle(backend: PostgresBackend) -> bool:
    return backend.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


@pytest.mark.parametrize("change", ["erase", "append"])
def test_a_ranking_read_deeper_after_the_writer_commits_is_one_state_s_bm25(
        sessions: tuple[PostgresBackend, PostgresBackend], change: str) -> None:
    writer, reader = sessions
    with writer.transaction():
        writer.passages.insert_many([Passage(text=t, created_at=1.0) for t in PASSAGES])
    words = ["apple", "kiwi"]
    expected = _everything(reader, "passages", words)
    assert list(expected)[:3] == [1, 2, 3] and len(expected) == 123
    # The writer commits after the ranking has read its counts, and again after its first
    # rows: the erased passage was among them; appended ones would rank near the top.
    commits = iter([[1], [2]]) if change == "erase" else iter(
        [["kiwi kiwi"] * 2, ["kiwi zzz qqq"] + [f"v{i} w{i}" for i in range(30)]])

    def commit() -> None:
        with writer.transaction():
            if change == "erase":
                writer.passages.delete(next(commits))
            else:
                writer.passages.insert_many([Passage(text=t, created_at=2.0)
                                             for t in next(commits)])

    ranking = reader.lexical("passages").rank(words, NO_FILTER)
    try:
        commit()
        assert ranking.top(3) == dict(list(expected.items())[:3])
        commit()
        # Deeper than the first read's rows, by id, counted, and all of them: each a
        # statement of its own.
        assert ranking.top(20) == dict(list(expected.items())[:20])
        rest = [i for i in expected if i not in ranking.found] + [500]
        assert ranking.scores_of(rest) == {i: expected[i] for i in rest[:-1]}
        assert ranking.total() == len(expected)
        assert ranking.everything() == expected
        assert _idle(reader)  # read whole, the ranking has nothing left to ask
    finally:
        ranking.close()
    # Closed, the ranking holds no state: the next one reads the writer's commits.
    assert _idle(reader)
    assert _everything(reader, "passages", words) != expected


@pytest.mark.parametrize("window", [30, 100])  # fewer than the matches, and more
def test_a_window_read_after_the_writer_erases_is_one_state_s_bm25(
        sessions: tuple[PostgresBackend, PostgresBackend], window: int) -> None:
    writer, reader = sessions
    with writer.transaction():
        writer.messages.append_many([
            Message(turn=i, role="user", content="apple pear" if i % 3 else "apple w1",
                    created_at=float(i)) for i in range(60)])
    words = ["pear", "w1"]
    expected = _everything(reader, "messages", words, window)
    ranking = reader.lexical("messages").rank(words, NO_FILTER, window)
    try:
        # The newest matches are found when the ranking opens; their scores are read later,
        # after the writer erased the newest of them and appended more, the first with the
        # erased message's id.
        with writer.transaction():
            writer.messages.erase([60], "asked to forget", 3.0)
            writer.messages.append_many([Message(turn=99, role="user", content="w1 w1 kiwi",
                                                 created_at=99.0)] * 5)
        assert ranking.everything() == expected
        assert ranking.total() == len(expected) and _idle(reader)
    finally:
        ranking.close()
    assert _idle(reader)
    assert _everything(reader, "messages", words, window) != expected


def test_a_ranking_inside_a_transaction_reads_the_transaction_s_rows(
        sessions: tuple[PostgresBackend, PostgresBackend]) -> None:
    writer, _ = sessions
    with writer.transaction():
        writer.passages.insert_many([Passage(text=t, created_at=1.0) for t in PASSAGES[:50]])
        ranking = writer.lexical("passages").rank(["kiwi"], NO_FILTER)
        try:
            assert isinstance(ranking, PgRanking)
            assert list(ranking.everything()) == [1, 2, 3]
        finally:
            ranking.close()
        # Still the writer's own transaction, which the ranking did not end.
        assert writer.in_transaction and not _idle(writer)
        writer.passages.insert_many([Passage(text="kiwi again", created_at=2.0)])
    assert set(_everything(writer, "passages", ["kiwi"])) == {1, 2, 3, 51}
