"""The messages of the turns of many messages in PostgreSQL (``in_turns_of``, which forgetting
and erasure read to find the messages quoting what they take): the rows read grow with the
messages named and found, whatever the planner's statistics of recall."""

from __future__ import annotations

import pytest
from test_postgres_forget_many import _rows_read, channel_of


def _rows_read_finding_turns(dsn: str, named: int, before: int) -> int:
    """Rows of recall's table read finding the turns of the last ``named`` of ``before`` +
    ``named`` messages in turns of five, all written in one transaction (the planner has no
    statistics of them)."""
    with channel_of(dsn, f"a{named}_{before}", before + named, per_turn=5) as (backend, ids):
        ids = ids[before:]
        backend.forgetting.forget((), (), ids[1:3], 1.0)  # left out, unless asked for
        with backend.transaction():
            start = _rows_read(backend)
            found = backend.messages.in_turns_of(ids)
            read = _rows_read(backend) - start
            assert [m.id for m in found] == [ids[0], *ids[3:]]
            assert [m.id for m in backend.messages.in_turns_of(
                ids[:10], forgotten=True)] == ids[:10]
        return read


def test_the_turns_of_four_times_the_messages_read_four_times_the_rows(
        postgres_dsn: str) -> None:
    # Each message of the agent's was looked for among the listed ones, and each look
    # read the listed ones again: 250 messages read 31,000 rows, 1,000 read 490,000.
    assert (_rows_read_finding_turns(postgres_dsn, 1000, 0)
            <= 5 * _rows_read_finding_turns(postgres_dsn, 250, 0))


@pytest.mark.parametrize("before", [3000, 12000])
def test_the_turns_of_the_newest_messages_are_read_without_the_older_ones(
        postgres_dsn: str, before: int) -> None:
    # Every message of the agent's was read and checked against each listed one, one after
    # another: 1,000 messages after 3,000 read 20,000 rows; 20,000 after 40,000 took 15 s.
    # Each listed message, then each of its turn's, is one row read.
    assert _rows_read_finding_turns(postgres_dsn, 1000, before) <= 2 * 1000 + 50
