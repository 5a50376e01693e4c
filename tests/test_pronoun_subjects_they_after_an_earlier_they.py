""""They" after a message that said "they" of others: "I work with Tom and Ana. They are
on call this week." said after "The servers are down. They restarted at 5pm." stored
"They are on call this week", of no one, as any "they" said before kept the next as
said. The several the statement right before says come first."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


def test_the_several_said_right_before_come_first() -> None:
    told = with_pronouns_named(["I work with Tom and Ana.", "They are on call."],
                               "The servers are down. They restarted at 5pm.")
    assert told == ["I work with Tom and Ana.", "Tom and Ana are on call."]


def test_a_they_said_before_with_no_several_right_before_is_kept_as_said() -> None:
    assert with_pronouns_named(["They no longer work at Acme."],
                               "Their name is Sam and they work at Acme.") == [
        "They no longer work at Acme."]


def test_core_holds_who_is_on_call() -> None:
    held = core_after("The servers are down. They restarted at 5pm.",
                      "I work with Tom and Ana. They are on call this week.")
    assert ("Tom and Ana are on call this week" in held,
            "They are on call this week" in held) == (True, False)
