""""I left Paris." is a city left, not a job: it keeps "User works in Paris", as it keeps a
home there, where "I left Globex" ends "User works at Globex". Read as a job left, it
retired the work in Paris, a fact the user never withdrew; so was "User works for Globex
in Paris", where Paris is where the workplace is."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize("left", ["I left Paris.", "I left Paris last week.",
                                  "I've just left Paris."])
def test_a_city_left_keeps_the_work_there(left: str) -> None:
    kept = core_after("I work in Paris.", left)
    assert "User works in Paris" in kept
    assert len(kept) == 2  # and the statement, stored as said


@pytest.mark.parametrize(("held", "job"), [
    ("I work for Globex in Paris.", "User works for Globex in Paris"),
    ("I work at Globex in Paris.", "User works at Globex in Paris"),
])
def test_a_city_left_keeps_a_workplace_in_it(held: str, job: str) -> None:
    # Paris is where Globex is, not the workplace: read as one, the job was retired
    assert job in core_after(held, "I left Paris.")


@pytest.mark.parametrize(("held", "left"), [
    ("I work for Globex in Paris.", "I left Globex."),
    ("I work in Paris for Globex.", "I left Globex."),
])
def test_the_workplace_of_a_job_in_a_city_left_ends_it(held: str, left: str) -> None:
    assert core_after(held, left) == []


@pytest.mark.parametrize(("held", "left"), [
    ("I work as a nurse at Globex.", "I left Globex."),
    ("I work for Globex.", "I left my job at Globex."),
    ("I'm working at Globex.", "I left Globex."),
])
def test_a_workplace_left_still_ends_the_job(held: str, left: str) -> None:
    assert core_after(held, left) == []
