"""A kept message is said to state a forgotten fact only when it does: a false note would
tell the model a fact the user asked to forget, one the message never said."""

from __future__ import annotations

import json

import pytest
from memory_helpers import make_memory
from test_forget_sources import _model_turns, _search

from tiermem.memory.ops.forgotten_norms import says
from tiermem.tools.memory_tools import FORGOTTEN_KEY


def test_a_message_about_the_son_does_not_state_the_daughter_s_forgotten_fact() -> None:
    with make_memory() as m:
        _model_turns(m, ("My son has asthma.", "User's daughter has asthma"))
        assert m.forget("User's daughter has asthma").outcome == "matched"
        [hit] = _search(m, "asthma")
        assert hit["text"] == "My son has asthma."
        assert FORGOTTEN_KEY not in hit and "daughter" not in json.dumps(hit), hit


@pytest.mark.parametrize(("said", "fact"), [
    ("My son has asthma.", "User's daughter has asthma"),
    ("My brother lives in Berlin.", "User's sister lives in Berlin"),
    ("My dad has dementia.", "User's mother has dementia"),
    ("My girlfriend works at Acme.", "User's boyfriend works at Acme"),
    ("My granddaughter goes to Lincoln Elementary.",
     "User's grandson attends Lincoln Elementary"),
    # Near misses of rewordings not taken as the fact ("I earn 85k a year." for a salary,
    # "I moved to Berlin in 2020." for "... since 2020", "Mia ..." for the daughter): "earn"
    # as a salary, or "since" as a mere date, would take these too; and only another
    # message says Mia is the daughter.
    ("I earn 85 dollars an hour at my second job.", "User's salary is 85k"),
    ("I earned 85k selling my flat.", "User's salary is 85k"),
    ("I'd love to earn 85k a year.", "User's salary is 85k"),
    ("My wife earns 85k a year.", "User's salary is 85k"),
    ("I moved to Berlin in 2021.", "User lives in Berlin since 2020"),
    ("My sister moved to Berlin in 2020.", "User lives in Berlin since 2020"),
    ("I visited Berlin in 2020.", "User lives in Berlin since 2020"),
    ("I almost moved to Berlin in 2020.", "User lives in Berlin since 2020"),
    ("I moved away from Berlin in 2020.", "User lives in Berlin since 2020"),
    ("My niece Mia goes to Lincoln Elementary.", "User's daughter Mia attends Lincoln Elementary"),
    ("Mia goes to Lincoln Middle School.", "User's daughter attends Lincoln Elementary"),
])
def test_a_near_miss_does_not_state_the_fact(said: str, fact: str) -> None:
    assert not says(said, fact)


@pytest.mark.parametrize(("said", "fact"), [
    ("My daughter has asthma.", "User's daughter has asthma"),
    ("My mom has dementia.", "User's mother has dementia"),
    ("My daughter Mia goes to Lincoln Elementary.",
     "User's daughter Mia attends Lincoln Elementary"),
])
def test_the_same_relation_in_another_word_states_the_fact(said: str, fact: str) -> None:
    assert says(said, fact)
