"""A statement whose subject is a word that also opens a request ("Search works on iOS",
"Find doesn't work") was read as a request to search and stored nothing; a verb after
the word makes it the subject. A request ("Search my notes for Tom", "Find work in
Berlin") still stores nothing."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    ("Search works on iOS.", ["Search works on iOS"]),
    ("Search doesn't work on Android.", ["Search doesn't work on Android"]),
    ("Search failed yesterday.", ["Search failed yesterday"]),
    ("Find doesn't work.", ["Find doesn't work"]),
    ("Search returns nothing for Tom.", ["Search returns nothing for Tom"]),
    ("Search works.", ["Search works"]),
    ("Find works offline.", ["Find works offline"]),
    ("Search crashes on iOS.", ["Search crashes on iOS"]),
    # a verb that is also a plural noun, before no thing sought
    ("Search works in Safari.", ["Search works in Safari"]),
    ("Search returns 404.", ["Search returns 404"]),
    ("Find fails silently.", ["Find fails silently"]),
    ("Search runs nightly.", ["Search runs nightly"]),
    ("Search breaks with emoji.", ["Search breaks with emoji"]),
    ("Search works for Tom.", ["Search works for Tom"]),
    ("Look up fails for long queries.", ["Look up fails for long queries"]),
    # a noun and a verb after it: no request
    ("Read receipts are off.", ["Read receipts are off"]),
    ("Check engine light is on.", ["Check engine light is on"]),
    ("Search results are slow.", ["Search results are slow"]),
    ("Check-in is at 3pm.", ["Check-in is at 3pm"]),
    ("Open works in Safari.", ["Open works in Safari"]),
])
def test_a_word_that_opens_requests_is_a_subject_before_a_verb(said: str,
                                                              kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize("said", ["Search my notes for Tom.", "Find work in Berlin.",
                                  "Search the web for Tom.", "Describe works of Picasso.",
                                  # a verb that is also a plural noun, before what is sought
                                  "Search works orders.", "Find works by Monet.",
                                  "Look up returns for March.", "Search runs for Tom.",
                                  "Fetch crashes from last week.", "Find fails in the log.",
                                  # asked to check, open, read, show, list or get
                                  "Check the doc.", "Open the doc.", "Read Tom's number.",
                                  "Show works by Monet.", "List works by Monet.",
                                  "Get my notes for Tom."])
def test_a_request_stores_nothing(said: str) -> None:
    assert core_after(said) == []
