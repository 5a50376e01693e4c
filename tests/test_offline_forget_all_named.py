"""A request naming what to forget ("Forget my sister") retires every core fact about it,
not only the one that says the least else: "User's sister lives in Rome" stayed beside
the forgotten "User's sister is Ana"."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.retractions import retracted
from tiermem.memory.text.statements import names_what_to_forget


@pytest.mark.parametrize(("said", "forget", "now"), [
    ("My sister is Ana. My sister lives in Rome.", "Forget my sister.", []),
    ("My sister is Ana. My sister lives in Rome. I live in Porto.", "Please forget my sister.",
     ["User lives in Porto"]),
    ("The deploy freeze starts on Monday. The deploy freeze ends on Friday.",
     "Forget about the deploy freeze.", []),
])
def test_every_fact_about_what_is_named_is_retired(said: str, forget: str,
                                                   now: list[str]) -> None:
    assert core_after(said, forget) == now


def test_a_plain_retraction_still_retires_only_the_best_match() -> None:
    facts = ["User's sister is Ana", "User's sister lives in Rome"]
    assert retracted(frozenset({"sister", "ana"}), facts) == ["User's sister is Ana"]
    assert not names_what_to_forget("My wife will forget my sister's birthday.")
