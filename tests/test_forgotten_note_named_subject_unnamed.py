"""A fact of someone named needs them named in the message: "My dog is called Rex.", "We
adopted a dog named Rex." and "There is a dog named Rex next door." say nothing of "Tom
has a dog named Rex", while "Tom has a dog named Rex." and "I met Tom. He has a dog named
Rex." do; the user's own dog after Tom is named ("I met Tom. My dog is called Rex.") is
not his, nor his pet, nor what the user says of their own or of no one after him ("I met
Tom. My wife is called Jane.", "I met Tom. There is a dog named Rex.")."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

TOMS_DOG = "Tom has a dog named Rex"


@pytest.mark.parametrize("text", [
    "My dog is called Rex.",
    "We adopted a dog named Rex.",
    "There is a dog named Rex next door.",
    "He has a dog named Rex.",
])
def test_a_message_naming_no_tom_says_nothing_of_his_dog(text: str) -> None:
    assert not says(text, TOMS_DOG)


def test_my_sister_is_no_one_named() -> None:
    assert not says("My sister works at Acme.", "Ana works at Acme")


@pytest.mark.parametrize("text", [
    "I met Tom. My dog is called Rex.",
    "Tom has a dog. My puppy is called Rex.",
    "I met Tom. He has a dog. My dog is called Rex.",
])
def test_the_users_own_dog_after_tom_is_not_his(text: str) -> None:
    assert not says(text, TOMS_DOG)


@pytest.mark.parametrize("text", [
    "I met Tom. My dog is called Rex.",
    "I met Tom. My cat is called Rex.",
    "I met Tom. My kitten is called Rex.",
])
def test_the_users_own_pet_of_any_kind_after_tom_is_not_his(text: str) -> None:
    assert not says(text, "Tom has a pet named Rex")
    assert says(text, "User has a pet named Rex")


@pytest.mark.parametrize("text", [
    "Tom has a dog named Rex.",
    "Tom's dog is called Rex.",
    "I met Tom. He has a dog named Rex.",
    "I met Tom. His dog is called Rex.",
])
def test_tom_or_he_after_him_still_says_it(text: str) -> None:
    assert says(text, TOMS_DOG)


def test_the_users_own_dog_is_still_the_users() -> None:
    assert says("My dog is called Rex.", "User has a dog named Rex")
    assert says("My sister Ana works at Acme.", "Ana works at Acme")
    assert says("I met Tom. My dog is called Rex.", "User has a dog named Rex")


@pytest.mark.parametrize(("text", "fact"), [
    ("I met Tom. There is a dog named Rex.", TOMS_DOG),
    ("I met Tom. Our dog is named Rex.", TOMS_DOG),
    ("I met Tom. We adopted a dog named Rex.", TOMS_DOG),
    ("I met Tom. We adopted a dog named Rex.", "Tom has a pet named Rex"),
    ("I met Tom. My wife is called Jane.", "Tom's wife is Jane"),
    ("I met Tom. My sister lives in Berlin.", "Tom lives in Berlin"),
])
def test_what_the_user_says_of_their_own_after_tom_is_not_his(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("I met Tom. There is a dog named Rex at his place.", TOMS_DOG),
    ("Tom and I met. We both have a dog named Rex.", TOMS_DOG),
    ("I met Tom. His wife is called Jane.", "Tom's wife is Jane"),
    ("I met Tom. My brother Tom lives in Berlin.", "Tom lives in Berlin"),
    ("I met Tom. He lives in Berlin.", "Tom lives in Berlin"),
])
def test_what_is_said_of_tom_after_him_still_says_it(text: str, fact: str) -> None:
    assert says(text, fact)
