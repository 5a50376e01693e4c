""""He no longer works at Globex." is of the person named last before it (Tom), not of the
user: read as of no one known, it retired whichever held fact said the most of what it
denies, the user's own job, or a joint fact whole. With no one clearly named, nothing is
retired and the reply says why."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named


@pytest.mark.parametrize(("said", "now"), [
    (["Tom works at Globex. I work at Globex.", "He no longer works at Globex."],
     ["User works at Globex"]),
    (["Tom and I work at Globex.", "He no longer works at Globex."],
     ["User works at Globex"]),
    (["My wife and I live in Porto.", "She doesn't live in Porto anymore."],
     ["User lives in Porto"]),
    (["Tom and his wife work at Globex.", "He doesn't work at Globex anymore."],
     ["Tom's wife works at Globex"]),
    # one message: the sentence before names him
    (["I work at Globex.", "Tom works at Globex too. He no longer works at Globex."],
     ["User works at Globex"]),
    # "Nice" opening "Nice weather." is no one: "Nice no longer works at Globex" was stored
    (["Tom works at Globex. Nice weather.", "He no longer works at Globex."],
     ["Nice weather"]),
    # a name opening a sentence before an adverb or an irregular verb is still a name
    (["I work at Globex. Tom also works at Globex.", "He no longer works at Globex."],
     ["User works at Globex"]),
    (["Tom got a job at Globex. I work at Globex.", "He no longer works at Globex."],
     ["User works at Globex"]),
    # "Tom's wife" is a "she" of her own, and no "he"
    (["Tom's wife works at Globex. I work at Globex.", "She no longer works at Globex."],
     ["User works at Globex"]),
    (["Tom works at Globex. Tom's wife works at Globex.", "He no longer works at Globex."],
     ["Tom's wife works at Globex"]),
    # "Acme", a firm the user works at, is no "he" where it opens a sentence either
    (["I work at Acme. Acme hired Tom.", "He no longer works at Acme."],
     ["User works at Acme"]),
])
def test_a_pronoun_retraction_retires_the_share_of_the_one_named(said: list[str],
                                                                 now: list[str]) -> None:
    assert core_after(*said) == now


@pytest.mark.parametrize("said", [
    ["I work at Globex.", "He no longer works at Globex."],  # no one named
    ["My brother and I work at Globex.", "She no longer works at Globex."],  # not him
    ["Tom and Sam work at Globex. I do too.", "He no longer works at Globex."],
    # both may be "he": read as Sam, Tom's job stayed and a change of Sam's was stored
    ["Tom works at Globex. Sam is on call.", "He no longer works at Globex."],
    # both may be "she": read as Sam, Sam's share of the joint fact was retired
    ["Ana works at Globex. Sam and I work at Globex.", "She no longer works at Globex."],
    # Tom missed as a name left "he" to the brother, and his job at Acme was retired
    ["My brother works at Acme. Tom also works at Globex.", "He no longer works at Globex."],
    ["My brother works at Acme. Tom got a job at Globex.", "He no longer works at Globex."],
    # read as "Acme", the user's own job at Acme was retired
    ["I work at Acme. Acme hired me.", "He no longer works at Acme."],
    # "Tom's wife" named no one: read as Tom, his job was retired in hers
    ["Sam works at Globex. Sam's wife works at Globex.", "She no longer works at Globex."],
    ["Sam works at Globex. Sam's wife is a nurse.", "She no longer works at Globex."],
    ["Tom works at Globex. Tom's brother works at Globex.", "He no longer works at Globex."],
    # a name the given names do not hold, after "with", read as a place: the brother's
    # job at Acme was retired in his stead
    ["My brother works at Acme. I work with Oyelaran. Oyelaran works at Acme.",
     "He no longer works at Acme."],
    ["My brother works at Acme. I had lunch with Zoltan. Zoltan also works at Globex.",
     "He no longer works at Globex."],
    # named only after "with", or by a given name after "for", and read as a place: the
    # one other named had their job retired instead
    ["My brother works at Acme. I work with Oyelaran.", "He no longer works at Acme."],
    ["My brother works at Acme. I had lunch with Tom.", "He no longer works at Acme."],
    ["My sister works at Acme. I work for Anna.", "She no longer works at Acme."],
])
def test_a_pronoun_naming_no_one_clearly_retires_nothing_and_says_so(said: list[str]
                                                                     ) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, said[0])
        held = [fact.text for fact in memory.core]
        assert held
        reply = chat(memory, said[1])[0]
        assert [fact.text for fact in memory.core] == held
    assert "could not tell who" in reply


def test_the_pronoun_is_said_as_the_person() -> None:
    assert with_pronouns_named(["She's not vegan anymore."], "My sister is vegan."
                               ) == ["My sister is not vegan anymore."]
    assert unnamed_pronouns(["She's not vegan anymore."], "My brother is vegan.") == ["She"]


@pytest.mark.parametrize("said", [["I work with Tom.", "He no longer works at Acme."],
                                  ["I work with Oyelaran.", "Oyelaran no longer works at Acme."]])
def test_a_job_he_left_keeps_the_users_own_work_with_him(said: list[str]) -> None:
    # his name in the user's fact made it his, and it was retired for a job it never named
    assert "User works with " + said[0].split()[-1].rstrip(".") in core_after(*said)


def test_he_no_longer_working_with_the_user_ends_working_with_him() -> None:
    assert "User works with Tom" not in core_after("I work with Tom.",
                                                   "Tom doesn't work with me anymore.")


@pytest.mark.parametrize(("said", "kept"), [
    (["Tom and Ana work at Globex. I do too.", "He no longer works at Globex."],
     ["Ana works at Globex", "User works at Globex"]),
    (["Tom works at Globex. Priya is on call.", "He no longer works at Globex."],
     ["Priya is on call"]),
    (["Ana works at Globex. Tom and I work at Globex.", "She no longer works at Globex."],
     ["Tom and User work at Globex"]),
    (["Tom works at Globex. Tom's wife works at Globex.", "She no longer works at Globex."],
     ["Tom works at Globex"]),
    # no one else named: the pronoun is no one, and what was said of it is not stored
    (["Tom is tall. She's a doctor."], ["Tom is tall"]),
    (["Tom is tall.", "She's a doctor."], ["Tom is tall"]),
    (["Emma lives in Oslo. He is a pilot."], ["Emma lives in Oslo"]),
    # a name either's may be either
    (["Sam is tall. She's a doctor."], ["Sam is a doctor", "Sam is tall"]),
    # the user's friends or kids are no one "she" or "he"
    (["Mark and Tom are my friends. She is a lawyer."], ["Mark and Tom are User's friends"]),
    (["My parents live in Rome. She is a doctor."], ["User's parents live in Rome"]),
    (["My kids are at school. He is 5."], ["User's kids are at school"]),
])
def test_a_name_most_often_a_mans_or_a_womans_is_no_pronoun_of_the_other(
        said: list[str], kept: list[str]) -> None:
    # Ana is no "he" and Tom no "she": the one other named is the one the pronoun is
    assert core_after(*said) == kept
