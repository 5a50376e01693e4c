"""A request to forget is never lost for the words around it: one wished for ("I want my
PIN gone as well", "I'd like my email deleted"), and one joined to a statement by "and" or
"so" with no comma ("My card is lost and please forget my email")."""

from __future__ import annotations

import pytest
from offline_helpers import core_after, reply_and_core


@pytest.mark.parametrize(("held", "said", "kept"), [
    # "User wants User's PIN gone" was stored beside the PIN
    ("My sister is Ana. My PIN is 1234.",
     "Forget my sister, I meant my brother and I want my PIN gone as well.",
     ["User's sister is Ana"]),
    ("My PIN is 1234.", "I want my PIN gone.", []),
    ("My email is a@b.com.", "I'd like my email deleted, please.", []),
    ("My email is a@b.com.", "My card is lost and I want my email gone.",
     ["User's card is lost"]),
    ("My sister is Ana.", "I want my sister forgotten.", []),
    ("My card number is 4111.", "I want my card number deleted.", []),
    ("My email is a@b.com.", "I want my email and my phone number gone.", []),
    # a person or a thing of the world gone is a wish: read as a request to forget, each
    # was lost, and the sister held went
    ("My PIN is 1234.", "I need my tooth removed.",
     ["User needs User's tooth removed", "User's PIN is 1234"]),
    ("My PIN is 1234.", "I want my debt gone.",
     ["User wants User's debt gone", "User's PIN is 1234"]),
    ("My PIN is 1234.", "I want my account deleted.",
     ["User wants User's account deleted", "User's PIN is 1234"]),
    ("My sister is Ana.", "I want my sister gone, she is mean.",
     ["User wants User's sister gone, she is mean", "User's sister is Ana"]),
    ("My PIN is 1234.", "I want my tooth removed, I'm in pain.",
     ["User is in pain", "User wants User's tooth removed", "User's PIN is 1234"]),
])
def test_a_request_wished_for_forgets(held: str, said: str, kept: list[str]) -> None:
    assert core_after(held, said) == kept


@pytest.mark.parametrize("said", [
    "My card is lost and please forget my email.",
    "My card is lost and forget my email.",
    "My card is lost so forget my email.",
])
def test_a_request_after_and_with_no_comma_forgets(said: str) -> None:
    # "User's card is lost and please forget User's email" was stored, the email kept
    assert core_after("My email is a@b.com.", said) == ["User's card is lost"]


@pytest.mark.parametrize("said", [
    "I lose my keys and forget my PIN.",
    # the PIN went, and "User: I get home" was stored
    "I eat and then forget my PIN.",
    "I get home then forget my PIN.",
])
def test_the_speakers_own_forgetting_asks_nothing(said: str) -> None:
    assert core_after("My PIN is 1234.", said) == ["User's PIN is 1234",
                                                   f"User: {said.rstrip('.')}"]


@pytest.mark.parametrize("said", ["I want my PIN gone.", "I'd like my email deleted, please."])
def test_a_wish_that_matches_nothing_says_so(said: str) -> None:
    reply, core = reply_and_core(said)
    assert (reply, core) == ("(offline) Nothing in core memory matched that, so nothing "
                             "changed.", [])


@pytest.mark.parametrize(("said", "kept"), [
    # "User wants User's email gone" was stored beside the email
    ("I want my email gone, my card is lost.", ["User's card is lost"]),
    ("I want my email gone, I'm moving to Leeds.", ["User is moving to Leeds"]),
    ("I want my email gone, it's old.", []),
    # what is to stay, apart, was stored as "Keep User's email" beside the email
    ("I want my email gone, but keep my PIN.", ["User's PIN is 1234"]),
    ("I want my email gone, keep my PIN.", ["User's PIN is 1234"]),
])
def test_a_wish_with_more_said_after_it_forgets(said: str, kept: list[str]) -> None:
    held = "My email is a@b.com. My PIN is 1234." if "PIN" in said else "My email is a@b.com."
    assert core_after(held, said) == kept


def test_what_is_said_after_a_wish_matching_nothing_is_kept() -> None:
    assert core_after("I want my email gone, my card is lost.") == ["User's card is lost"]


@pytest.mark.parametrize(("held", "said", "kept"), [
    # read as more things named, the request matched nothing and the card was lost
    ("My PIN is 1234.", "Forget my email, my card is lost.",
     ["User's PIN is 1234", "User's card is lost"]),
    ("My PIN is 1234.", "Forget my sister, my brother's name is Tom.",
     ["User's PIN is 1234", "User's brother's name is Tom"]),
    ("My email is a@b.com.", "Forget my email, my card is lost.", ["User's card is lost"]),
    # things named, no statement
    ("My email is a@b.com. My PIN is 1234.", "Forget my email, my PIN and my address.", []),
])
def test_a_statement_of_the_speakers_after_a_request_is_kept(held: str, said: str,
                                                             kept: list[str]) -> None:
    assert core_after(held, said) == kept


@pytest.mark.parametrize("said", [
    "I want my password gone?",
    "I want my password forgotten?",
])
def test_a_wish_asked_forgets_nothing(said: str) -> None:
    # read as "Forget my password.", the question lost the password
    assert core_after("My password is hunter2.", said) == ["User's password is hunter2"]
