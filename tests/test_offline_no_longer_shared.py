""""I smoked but now I don't and my wife doesn't either": the speaker's past is kept as
said and the wife's share told in full. The clause's bare verb was read with "but" for its
object, so the user's part was stored garbled ("User: I smoked but I don't") and the
wife's, told from nothing, was lost."""

from __future__ import annotations

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.no_longer import held_once, plain_of_past
from tiermem.memory.text.statements import past_apart

SAID = "I smoked but now I don't and my wife doesn't either."


def test_both_shares_are_stored() -> None:
    retired, new = core_changes(SAID, {})
    assert retired == []
    assert list(new) == ["User: I smoked", "User's wife doesn't smoke"]


def test_the_habit_held_ends_and_the_wife_share_stays() -> None:
    retired, new = core_changes(SAID, {"User: I smoke": "short-lived"})
    assert retired == ["User: I smoke"]
    assert "User's wife doesn't smoke" in new


def test_a_verb_alone_takes_no_but_for_its_object() -> None:
    ended = held_once("I smoked but now I don't.")
    assert ended is not None and (ended.verb, ended.rest) == ("smoked", "")
    assert past_apart("I smoked but now I don't.") == ["I no longer smoke", "I smoked"]


def test_a_verb_with_an_object_is_shared_as_it_is() -> None:
    _, new = core_changes("I like tea but now I don't and my wife doesn't either.", {})
    assert list(new) == ["User: I no longer like tea", "User's wife doesn't like tea"]


def test_a_state_is_shared_with_is() -> None:
    _, new = core_changes("I'm vegan, now I'm not, and my wife isn't either.", {})
    assert list(new) == ["User is no longer vegan", "User's wife isn't vegan"]


def test_plain_forms_only_when_sure() -> None:
    sure = {"worked": "work", "smoked": "smoke", "stopped": "stop", "studied": "study",
            "played": "play", "lived": "live", "cooked": "cook", "added": "add"}
    assert {verb: plain_of_past(verb) for verb in sure} == sure
    assert [plain_of_past(verb) for verb in ("hated", "danced", "used", "red")] == [None] * 4
