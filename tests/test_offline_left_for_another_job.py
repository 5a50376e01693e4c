""""I left Globex to work at Initech" ends "User works at Globex" and holds the new job, and "I
left my job" ends the one held: each was stored as a quote beside the job it ended. A name
alone after "for" may be a city, so "I left Globex for Berlin" holds no job there. What is
not the user's job stays as it was."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

_GLOBEX = "I work at Globex."


@pytest.mark.parametrize(("held", "said", "now"), [
    (_GLOBEX, "I left Globex to work at Initech.", ["User works at Initech"]),
    (_GLOBEX, "I left my job at Globex for a job at Initech last month.",
     ["User works at Initech"]),
    (_GLOBEX, "I've left Globex to join Initech Labs in March.", ["User works at Initech Labs"]),
    (_GLOBEX, "I left my job.", []),
    (_GLOBEX, "I left Globex for good.", []),
    (_GLOBEX, "I left Globex last May.", []),
    (_GLOBEX, "I've left Globex last Friday.", []),
    (_GLOBEX, "I left Globex to join Initech last September.", ["User works at Initech"]),
    (_GLOBEX, "I left Globex for Initech last May.", ["User: I left Globex for Initech last May"]),
    (_GLOBEX, "I left Globex for good to work at Initech.", ["User works at Initech"]),
    # a while away is no job ended
    (_GLOBEX, "I left Globex for a year.",
     ["User works at Globex", "User: I left Globex for a year"]),
    (_GLOBEX + " My wife works at Initech.", "I left my old job for Initech.",
     ["User works at Initech", "User's wife works at Initech"]),
    # a name alone after "for" may be a city: the job ends, where the user went is quoted
    (_GLOBEX, "I left Globex for Berlin.", ["User: I left Globex for Berlin"]),
    (_GLOBEX, "I left Globex for Initech.", ["User: I left Globex for Initech"]),
    ("I live in Berlin. I work at Globex.", "I left Globex for Berlin.",
     ["User lives in Berlin", "User: I left Globex for Berlin"]),
    ("Tom and I work at Globex.", "I left my job.", ["Tom works at Globex"]),
    # nothing of the user's job is held: the news is kept as told
    ("I live in Paris.", "I left my job.", ["User lives in Paris", "User: I left my job"]),
    ("My wife works at Google.", "I left my job.",
     ["User's wife works at Google", "User: I left my job"]),
    # a place left, no job: no workplace is made of where the user went
    ("I live in Paris.", "I left Paris for Lisbon.",
     ["User lives in Paris", "User: I left Paris for Lisbon"]),
    (_GLOBEX, "I left Paris for Lisbon.",
     ["User works at Globex", "User: I left Paris for Lisbon"]),
])
def test_a_job_left_ends_only_the_users_job(held: str, said: str, now: list[str]) -> None:
    assert core_after(held, said) == now
