"""The user's own name is said only as theirs: "I'm Tom." or "My name is Tom." says "User
is Tom", while "I'm Tom's dad.", "Tom saw a cat named Rex.", "... moved to Munich with
Tom." or "I named my son Tom." names someone else Tom; "Everyone calls me Tom." says it
too, though others say it (read as of others alone, it was no name of the user's)."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact", "said"), [
    ("I'm Tom's dad.", "User is Tom", False),
    ("Tom saw a cat named Rex.", "User is Tom", False),
    ("I left Berlin and moved to Munich with Tom.", "User is Tom", False),
    ("I named my son Tom.", "User is named Tom", False),
    ("I'm Tom.", "User is Tom", True),
    ("Hi, I'm Tom Smith.", "User is Tom", True),
    ("Tom here, quick question.", "User is Tom", True),
    ("My name is Tom.", "User is named Tom", True),
    ("I named my son Tom.", "User's son is named Tom", True),
    # A name given as a field, after a greeting, with a title or in full is still theirs.
    ("Name: Tom", "User is named Tom", True),
    ("My name: Tom.", "User is Tom", True),
    ("Hey, Tom here.", "User is Tom", True),
    ("Good morning, Tom speaking.", "User is Tom", True),
    ("I'm Dr. Tom.", "User is Tom", True),
    ("I'm Tom Smith.", "User is Tom Smith", True),
    ("Tom Smith here.", "User is Tom Smith", True),
    # "Tom here" going on is someone else beside the user.
    ("Tom here is my boss.", "User is Tom", False),
    ("Tom here has a dog.", "User is Tom", False),
])
def test_the_users_name_only_as_theirs(text: str, fact: str, said: bool) -> None:
    assert says(text, fact) is said


@pytest.mark.parametrize(("text", "fact"), [
    # Every word of the fact but its verb is a name, yet it names a gym, not the user.
    ("My gym is Iron Works and my dentist is Dr. Lee", "User works out at Iron Works"),
    ("My gym is Iron Works.", "User works out at Iron Works"),
    ("I train at Gold Gym.", "User trains at Gold Gym"),
])
def test_a_fact_all_names_but_its_verb_is_no_name_of_the_users(text: str, fact: str) -> None:
    assert says(text, fact)


@pytest.mark.parametrize("text", [
    "Hi, I'm Tom.", "I'm Tom.", "It's Tom.", "I go by Tom.", "This is Tom speaking.",
    "I'm Tom, Ana's husband.", "I'm Tom Smith.", "Tom here.",
    # Others calling the user by the name say it too.
    "Everyone calls me Tom.", "My friends call me Tom.", "People have always called me Tom.",
])
@pytest.mark.parametrize("fact", ["User is named Tom", "User is called Tom"])
def test_the_users_name_given_says_they_are_named_so(text: str, fact: str) -> None:
    assert says(text, fact)


@pytest.mark.parametrize("text", [
    "I'm Tom's dad.", "I'm with Tom.", "It's Tom's turn.", "I go by Tom's place.",
    "People call me when Tom is out.", "I'm not Tom.", "Don't call me Tom.",
    "Nobody calls me Tom.", "People don't call me Tom.", "I wish people called me Tom.",
    "Everyone calls me Tom's dad.", "Everyone calls my son Tom.",
])
@pytest.mark.parametrize("fact", ["User is named Tom", "User is called Tom"])
def test_someone_else_named_names_the_user_nothing(text: str, fact: str) -> None:
    assert not says(text, fact)
