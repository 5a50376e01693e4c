"""A job left for one at a kind of employer ("I left Globex for a startup") ends the job
left, and the sentence is kept as said: it names no employer to hold as the next job.
Read whole before, it was quoted beside "User works at Globex", which stayed current."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.memory.text.statements import left_for_another

HELD = "I work at Globex."


def test_the_job_left_ends_and_the_words_are_kept() -> None:
    for said in ("I left Globex for a startup.", "I left Globex last May for a new job.",
                 "I left Globex for another company."):
        assert core_after(HELD, said) == [f"User: {said.rstrip('.')}"], said


def test_no_employer_is_made_up() -> None:
    assert left_for_another("I left Globex for a startup.") == [
        "I left Globex", "I left Globex for a startup."]


def test_a_home_left_for_a_startup_stays() -> None:
    # "I left Paris" may be a trip: the home there stays, as after "I left Paris" alone
    assert "User lives in Paris" in core_after("I live in Paris.", "I left Paris for a startup.")


def test_a_job_quit_ends_as_one_left() -> None:
    # "quit" was no leaving: "User works at Globex" stayed current beside the quote
    for said in ("I quit Globex for a startup.", "I quit Globex for Acme.",
                 "I quit Globex for good."):
        assert "User works at Globex" not in core_after(HELD, said), said
    assert core_after(HELD, "I quit Globex to join Acme.") == ["User works at Acme"]
    # a habit quit is no job, and the one held stays
    assert "User works at Globex" in core_after(HELD, "I quit smoking.")
