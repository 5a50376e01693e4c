"""Several of the user's sharing a statement ("My kids too." after "I live in Lisbon.")
are told with the verb said of several: "User's kids live in Lisbon", never "lives"."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.memory.text.agreement import agreeing

#: What each message leaves in core, in full.
TOLD = {
    "I live in Lisbon. My kids too.": ["User lives in Lisbon", "User's kids live in Lisbon"],
    "I live in Lisbon, my parents too.": ["User lives in Lisbon",
                                          "User's parents live in Lisbon"],
    "I'm vegan. My children too.": ["User is vegan", "User's children are vegan"],
    "I work at Acme. My sons too.": ["User works at Acme", "User's sons work at Acme"],
    # one of them keeps the verb said of one
    "I live in Lisbon. My boss too.": ["User lives in Lisbon", "User's boss lives in Lisbon"],
}


def test_several_sharing_a_statement_take_the_plural_verb() -> None:
    assert {said: sorted(core_after(said)) for said in TOLD} == {
        said: sorted(facts) for said, facts in TOLD.items()}


def test_the_verb_agrees_with_one_or_several() -> None:
    assert [agreeing("is", "my kids"), agreeing("was", "my parents"),
            agreeing("does", "my children"), agreeing("does", "my boss"),
            agreeing("is", "my wife")] == ["are", "were", "do", "does", "is"]


#: Two of the user's sharing a statement at once, stored as the sentence says them both.
TOLD_OF_TWO = {
    "I live in Lisbon. My wife and kids too.": ["User lives in Lisbon",
                                                "User's wife and kids live in Lisbon"],
    "I live in Lisbon, my wife and kids too.": ["User lives in Lisbon",
                                                "User's wife and kids live in Lisbon"],
    "I'm vegan. My wife and my son too.": ["User is vegan",
                                           "User's wife and User's son are vegan"],
    # whether she loves jazz or is loved too, nothing says: only the statement is kept
    "I love jazz. My wife and kids too.": ["User loves jazz"],
}


def test_two_sharing_a_statement_are_told_in_full_not_as_a_fragment() -> None:
    # each was stored as the fragment "User's wife and kids too"
    assert {said: sorted(core_after(said)) for said in TOLD_OF_TWO} == {
        said: sorted(facts) for said, facts in TOLD_OF_TWO.items()}


def test_the_others_left_by_a_change_stay_the_users_and_several() -> None:
    # "My wife lives in Lisbon." ended the joint fact and added "Kids lives in Lisbon":
    # whose kids, lost, and the verb said of one
    assert core_after("My wife and kids live in Lisbon.", "My wife lives in Lisbon.") == [
        "User's kids live in Lisbon", "User's wife lives in Lisbon"]
    assert core_after("My wife and son work at Acme.", "My wife works at Globex.") == [
        "User's son works at Acme", "User's wife works at Globex"]


def test_a_name_in_s_is_one() -> None:
    # "James" was read as a plural: "User's friend James are vegan"
    assert core_after("I'm vegan. My friend James too.") == [
        "User is vegan", "User's friend James is vegan"]
    assert [agreeing("is", "my boss Charles"), agreeing("is", "my friends")] == ["is", "are"]


def test_several_changed_in_the_plural_keep_no_share_of_the_old() -> None:
    # "User's kids live in Lisbon" was kept beside where they live now
    assert core_after("My wife and kids live in Lisbon.", "My kids live in Porto now.") == [
        "User's kids live in Porto", "User's wife lives in Lisbon"]


#: Two of the user's sharing a statement with its verb, each once stored as a fragment
#: ("User's wife and kids are too") or cut to the first ("User's wife").
TOLD_WITH_THE_VERB = {
    ("I'm vegan.", "My wife and kids are too."): "User's wife and kids are vegan",
    ("I'm vegan.", "My wife and my son are too."): "User's wife and User's son are vegan",
    ("I live in Lisbon.", "My wife and kids do too."): "User's wife and kids live in Lisbon",
}


def test_two_sharing_with_the_verb_are_told_in_full() -> None:
    assert {said: core_after(*said) for said in TOLD_WITH_THE_VERB} == {
        said: sorted([core_after(said[0])[0], told])
        for said, told in TOLD_WITH_THE_VERB.items()}
