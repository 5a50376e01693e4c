""""I don't work at Globex because I moved" ends the job held. Its cause was read as part
of what it denies, so it denied no fact held: "User works at Globex" stayed in core beside
"User doesn't work at Globex because User moved"."""

from __future__ import annotations

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.updates import replaces

JOB = {"User works at Globex": "durable"}


def test_a_closing_cause_ends_the_job() -> None:
    retired, new = core_changes("I don't work at Globex because I moved.", JOB)
    assert retired == ["User works at Globex"]
    assert list(new) == ["User doesn't work at Globex because User moved"]


def test_due_to_ends_the_job() -> None:
    retired, _ = core_changes("I don't work at Globex due to the layoffs.", JOB)
    assert retired == ["User works at Globex"]


def test_an_opening_cause_ends_the_habit() -> None:
    retired, _ = core_changes("Because of my health I don't drink coffee.",
                              {"User drinks coffee": "durable"})
    assert retired == ["User drinks coffee"]


def test_a_cause_beside_another_fact_ends_nothing() -> None:
    retired, new = core_changes("I don't eat meat because I'm vegan.",
                                {"User is vegan": "durable"})
    assert retired == []
    assert list(new) == ["User doesn't eat meat because User is vegan"]


def test_an_affirmation_with_its_cause_ends_the_denial() -> None:
    assert replaces("User lives in Berlin because of User's job",
                    "User doesn't live in Berlin", None)
