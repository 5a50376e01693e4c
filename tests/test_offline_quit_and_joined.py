""""I quit Globex and joined Acme" ends the job held and holds the new one, as "I left
Globex to join Acme" does. Read whole, it was quoted beside "User works at Globex", which
stayed in core as if still so."""

from __future__ import annotations

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.statements import left_for_another

JOB = {"User works at Globex": "durable"}


def test_the_job_left_ends_and_the_next_is_held() -> None:
    retired, new = core_changes("I quit Globex and joined Acme.", JOB)
    assert retired == ["User works at Globex"]
    assert list(new) == ["User works at Acme"]


def test_a_then_between_is_read_alike() -> None:
    assert left_for_another("I left Globex and then joined Acme Robotics") == [
        "I left Globex", "I work at Acme Robotics"]


def test_what_is_joined_after_a_city_left_ends_no_job() -> None:
    retired, _ = core_changes("I left Paris and joined Acme.", JOB)
    assert retired == []


def test_a_job_left_to_join_no_employer_still_ends() -> None:
    for said in ("I quit Globex and joined a gym.", "I left Globex and joined the army.",
                 "I quit Globex and joined Acme's board."):
        retired, new = core_changes(said, JOB)
        assert retired == ["User works at Globex"], said
        # what was joined is no employer: nothing says the user works there
        assert not any(fact.startswith("User works at") for fact in new), said
