""""They" after a message that says two groups it may be: "The servers are down. Tom and
Ana are on it. They restarted at 5pm." stored "Tom and Ana restarted at 5pm", which may
as well be the servers. With another several said in the same message, the "they" names
no one clearly and is left out, and the reply asks who they are."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named


@pytest.mark.parametrize("said", [
    ["The servers are down.", "Tom and Ana are on it."],
    ["The servers are down.", "My kids are sick."],
    ["I restarted the servers.", "Tom and Ana are on it."],
    ["Tom and Ana fixed the servers."],
    ["My parents visited Tom and Ana."],
    ["The servers were restarted by Tom and Ana."],
])
def test_a_they_with_another_several_in_the_message_is_left_out(said: list[str]) -> None:
    sentences = [*said, "They restarted at 5pm."]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        said, ["They"])


@pytest.mark.parametrize(("said", "told"), [
    (["The servers are down.", "They restarted at 5pm.", "They are fine."],
     "The servers are fine."),
    (["I have two kids.", "They are fine."], "My kids are fine."),
    (["Tom and Ana are on call.", "They are fine."], "Tom and Ana are fine."),
    (["My brothers are Tom and Sam.", "They are fine."], "My brothers are fine."),
])
def test_the_same_several_said_again_is_no_other(said: list[str], told: str) -> None:
    assert with_pronouns_named(said, None)[-1] == told


def test_several_of_the_last_message_yield_to_those_named_now() -> None:
    told = with_pronouns_named(["Tom and Ana are on it.", "They are on call."],
                               "The servers are down.")
    assert told[-1] == "Tom and Ana are on call."


def test_core_holds_no_restart_of_either() -> None:
    held = core_after("The servers are down. Tom and Ana are on it. They restarted at 5pm.")
    assert ("Tom and Ana are on it" in held,
            any("restarted" in fact for fact in held)) == (True, False)
