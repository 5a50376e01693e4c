""""I left Paris." is a city left, not a job: it keeps "User works in Paris", as it keeps a
home there, where "I left Globex" ends "User works at Globex". Read as a job left, it
retired the work in Paris, a fact the user never withdrew."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize("left", ["I left Paris.", "I left Paris last week.",
                                  "I've just left Paris."])
def test_a_city_left_keeps_the_work_there(left: str) -> None:
    kept = core_after("I work in Paris.", left)
    assert "User works in Paris" in kept
    assert len(kept) == 2  # and the statement, stored as said


@pytest.mark.parametrize(("held", "left"), [
    ("I work as a nurse at Globex.", "I left Globex."),
    ("I work for Globex.", "I left my job at Globex."),
    ("I'm working at Globex.", "I left Globex."),
])
def test_a_workplace_left_still_ends_the_job(held: str, left: str) -> None:
    assert core_after(held, left) == []
