"""A cause opening the speaker's statement ("Thanks to Tom I work at Acme now.") is read
after it: opening it, the cause hid the statement, which was quoted whole beside the job
it changes, and "User works at Globex" stayed current."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.memory.text.causes import cause_behind


def test_a_job_got_thanks_to_someone_replaces_the_one_held() -> None:
    for said in ("Thanks to Tom I work at Acme now.", "Thanks to Tom, I work at Acme now."):
        assert core_after("I work at Globex.", said) == ["User works at Acme thanks to Tom"]
    assert core_after("I live in Lisbon.", "Because of the merger I live in Porto now.") == [
        "User lives in Porto because of the merger"]


def test_the_cause_is_the_shortest_one_a_statement_follows() -> None:
    assert cause_behind("Thanks to my wife my son works at Acme.") == (
        "My son works at Acme thanks to my wife.")
    # thanks with no statement of the speaker's after it is left as said
    assert cause_behind("Thanks to everyone who helped.") == "Thanks to everyone who helped."
