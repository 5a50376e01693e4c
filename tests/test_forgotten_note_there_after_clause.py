"""The user's "there" after a clause about someone else points back to the place that
clause names: "I met Tom, who works at Acme, and I work there too." says where the user
works, though the clause itself is Tom's."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

ACME = "User works at Acme"


def test_there_points_back_to_the_place_of_anothers_clause() -> None:
    assert says("I met Tom, who works at Acme, and I work there too.", ACME)
    assert says("I know Anna, who works at Acme. I work there too.", ACME)


def test_the_clause_alone_or_a_place_apart_says_nothing() -> None:
    assert not says("I met Tom, who works at Acme.", ACME)
    assert not says("I met Tom, who works at Acme and Globex, and I work there too.", ACME)
    assert not says("I met Tom, who lives near Acme, and I work there too.", ACME)
    assert not says("I met Tom, who works at Acme, and she loves it there.", ACME)
