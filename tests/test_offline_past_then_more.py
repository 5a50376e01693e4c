"""A clause saying what held once and no longer does ("I worked at Globex, now I don't"),
followed by other statements of the speaker's, is read clause by clause: its bare "now I
don't" denies the job before it, and is never stored on its own as "User doesn't"."""

from __future__ import annotations

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.statements import past_then_more

SAID = "I worked at Globex, now I don't, and I live in Rome."


def test_the_bare_denial_is_not_stored() -> None:
    retired, new = core_changes(SAID, {})
    assert retired == []
    assert list(new) == ["User: I worked at Globex", "User lives in Rome"]


def test_the_job_held_ends() -> None:
    retired, new = core_changes(SAID, {"User works at Globex": "durable"})
    assert retired == ["User works at Globex"]
    assert "User lives in Rome" in new
    assert not any(fact.startswith("User doesn") for fact in new)


def test_a_sentence_ending_nothing_is_kept_whole() -> None:
    assert past_then_more("I work at Globex, and I live in Rome.") == [
        "I work at Globex, and I live in Rome."]
    assert past_then_more("I worked at Globex, now I don't.") == [
        "I worked at Globex, now I don't."]


def test_a_bare_and_after_the_denial_cuts_it_too() -> None:
    # no comma: "... but now I don't and my wife lives in Rome" stored "User doesn't"
    retired, new = core_changes("I worked at Globex but now I don't and my wife lives in Rome.",
                                {"User works at Globex": "durable"})
    assert (retired, list(new)) == (["User works at Globex"],
                                    ["User: I worked at Globex", "User's wife lives in Rome"])
    assert past_then_more("I like tea but now I don't and I never will") == [
        "I like tea but now I don't", "I never will"]
