"""A sentence that only denies of someone what the sentence before it says ("Tom smokes.
Ana doesn't.", "I work at Acme. Tom doesn't.") is read as a clause after it, as is a
clause that does ("I work at Acme and Tom doesn't."): told in full when it can be ("Ana
doesn't smoke", "Tom doesn't work at Acme"), else the sentence is kept as said; alone it
stores nothing; a withdrawal that names nothing stores
nothing, however it is said ("Actually I don't anymore." as "I don't anymore.")."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.clauses import statements_of


@pytest.mark.parametrize(("said", "kept"), [
    ("I work at Acme and Tom doesn't.", ["Tom doesn't work at Acme", "User works at Acme"]),
    ("I like tea but Tom doesn't.", ["Tom doesn't like tea", "User likes tea"]),
    ("I work at Acme and my wife doesn't anymore.",
     ["User works at Acme", "User's wife doesn't work at Acme anymore"]),
    ("I work at Acme and Tom does not either.", ["User works at Acme"]),
])
def test_a_bare_denial_of_someone_else_is_told_in_full(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # set after by a comma alone, it was stored with the user's job in one fact
    ("I work at Acme, Tom doesn't.", ["Tom doesn't work at Acme", "User works at Acme"]),
    # after a denial it shares it: the DB is down too, kept as said
    ("The API doesn't respond, the DB doesn't.", ["The API doesn't respond, the DB doesn't"]),
    # cut off alone, that Ana does not smoke was lost
    ("Tom smokes, Ana doesn't.", ["Ana doesn't smoke", "Tom smokes"]),
    ("I love my dog, Tom doesn't.", ["User loves User's dog, Tom doesn't"]),
    # "uses" is "use": cut off alone, that she does not use vim was lost
    ("I use vim, my wife doesn't.", ["User uses vim", "User's wife doesn't use vim"]),
])
def test_a_bare_denial_after_a_comma_is_cut_off_only_after_a_statement(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # cut off alone, that staging is up (the DB fine, Tom no vegan) was lost
    ("Prod is down, staging isn't.", ["Prod is down", "Staging isn't down"]),
    ("The API is slow, the DB isn't.", ["The API is slow", "The DB isn't slow"]),
    ("My wife is vegan, Tom isn't.", ["Tom isn't vegan", "User's wife is vegan"]),
    # "be" joined to who: cut off alone, that staging is up was lost
    ("Prod's down, staging isn't.", ["Prod's down", "Staging isn't down"]),
    ("Prod's down but staging isn't.", ["Prod's down", "Staging isn't down"]),
    # told of another, "his" would name the wrong owner: kept as said
    ("Tom is his boss, Ana isn't.", ["Tom is his boss, Ana isn't"]),
    # "'s" for "has": it was "Ana isn't been sick"
    ("Tom's been sick, Ana isn't.", ["Tom's been sick, Ana isn't"]),
    ("Tom's got a cold, Ana isn't.", ["Tom's got a cold, Ana isn't"]),
])
def test_a_bare_denial_after_a_comma_of_what_someone_is_is_told_in_full(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # the joining word was told as part of who: "But staging isn't down"
    ("Prod is down, but staging isn't.", ["Prod is down", "Staging isn't down"]),
    ("Prod is down, though staging isn't.", ["Prod is down", "Staging isn't down"]),
    # which "is" staging is denied cannot be told: "Staging isn't in Paris is down" was kept
    ("The server that is in Paris is down, staging isn't.",
     ["The server that is in Paris is down, staging isn't"]),
])
def test_a_bare_denial_after_a_comma_is_told_in_full_only_of_who_and_what(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    ("Tom doesn't.", []),
    ("Ana isn't anymore.", []),
])
def test_a_bare_denial_said_as_a_sentence_stores_nothing(said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # dropped, that Ana does not smoke (the DB is fine, staging up) was lost
    ("Tom smokes. Ana doesn't.", ["Ana doesn't smoke", "Tom smokes"]),
    ("Tom smokes. Ana doesn't anymore.", ["Ana doesn't smoke anymore", "Tom smokes"]),
    ("The API is slow. The DB isn't.", ["The API is slow", "The DB isn't slow"]),
    ("Prod's down. Staging isn't.", ["Prod's down", "Staging isn't down"]),
    ("My wife works at Acme. Tom doesn't.", ["Tom doesn't work at Acme",
                                             "User's wife works at Acme"]),
    # after the user's own statement: dropped, what Tom (the parents) don't do was lost
    ("I work at Acme. Tom doesn't.", ["Tom doesn't work at Acme", "User works at Acme"]),
    ("I work at Acme; Tom doesn't.", ["Tom doesn't work at Acme", "User works at Acme"]),
    ("I live in Lisbon. My parents don't.",
     ["User lives in Lisbon", "User's parents don't live in Lisbon"]),
    # one that cannot be told so is kept with the sentence before it, as said: it was lost
    ("Tom smokes and drinks. Ana doesn't.", ["Tom smokes and drinks, Ana doesn't"]),
    ("I love my dog. Tom doesn't.", ["User loves User's dog, Tom doesn't"]),
    ("Tom lives in Paris. His wife doesn't.", ["Tom lives in Paris, his wife doesn't"]),
    ("My car is red. Tom's isn't.", ["User's car is red, Tom's isn't"]),
    # a pronoun's takes back what was said; one opened by "actually" may correct it
    ("Tom is my boss. He isn't anymore.", []),
    ("I work at Acme. Actually Tom doesn't.", ["User works at Acme"]),
    ("Where is Tom? Ana isn't.", []),
])
def test_a_bare_denial_said_as_a_sentence_is_told_in_full_from_the_one_before(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


def test_a_bare_denial_sharing_the_denial_before_it_is_kept() -> None:
    # "either" shares "doesn't respond": dropped, the DB being down was lost
    assert core_after("The API doesn't respond. The DB doesn't either.") == [
        "The API doesn't respond", "The DB doesn't either"]


def test_a_denial_that_says_what_is_denied_is_kept() -> None:
    assert statements_of("User works at Acme and Tom doesn't smoke", "durable") == [
        ("User works at Acme", "durable"), ("Tom doesn't smoke", "durable")]


@pytest.mark.parametrize("said", [
    "Actually I don't anymore.",
    "Well, I don't anymore.",
    "I don't anymore, sorry.",
])
def test_a_withdrawal_naming_nothing_stores_nothing(said: str) -> None:
    assert core_after(said) == core_after("I don't anymore.") == []


def test_a_withdrawal_naming_nothing_ends_nothing_held() -> None:
    assert core_changes("Actually I don't anymore.", {"User: I smoke": "short-lived"}) == (
        [], {})


@pytest.mark.parametrize(("said", "kept"), [
    # "He isn't my boss anymore": told of "he", the withdrawal was lost and the boss kept
    ("Tom is my boss. He isn't anymore.", []),
    # "it" no more: untold, the client (the slow API) taken back was kept
    ("Acme is my client. It isn't anymore.", []),
    ("The API is slow. It isn't anymore.", []),
    ("Prod is down. It isn't.", ["Prod is down"]),
    # a thing's doing, "the API" no person: "It doesn't work anymore" told, "Redis doesn't work"
    ("The API works. It doesn't anymore.", []),
    ("The build passes. It doesn't anymore.", []),
    ("The API works. Redis doesn't.", ["Redis doesn't work", "The API works"]),
    ("The build passes. The tests don't.", ["The build passes", "The tests don't pass"]),
    # "Tom's isn't at 3pm" says nothing of what of Tom's: kept as said
    ("My appointment is at 3pm. Tom's isn't.", ["User's appointment is at 3pm, Tom's isn't"]),
    # "that one", "mine", "ours" say nothing of which: "That one doesn't work" names nothing
    ("This script works. That one doesn't.", ["This script works, that one doesn't"]),
    ("The build passes. The staging one doesn't.", ["The build passes, the staging one doesn't"]),
    ("The API works. Ours doesn't.", ["The API works, ours doesn't"]),
    ("The API is slow. That one isn't.", ["The API is slow, that one isn't"]),
    ("The API is slow. Mine isn't.", ["User: The API is slow, mine isn't"]),
    ("My car is red. His isn't.", ["User's car is red, his isn't"]),
    ("The API is slow. Those aren't.", ["The API is slow, those aren't"]),
    ("This laptop works. These don't.", ["This laptop works, these don't"]),
    ("My flight is on Monday but my wife's isn't.",
     ["User's flight is on Monday but User's wife's isn't"]),
])
def test_a_bare_denial_of_a_pronoun_or_a_thing_unnamed_is_not_told_in_full(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    ("The old API still works. The DB doesn't.",
     ["The DB doesn't work", "The old API still works"]),
    ("Tom still smokes. My wife doesn't.", ["Tom still smokes", "User's wife doesn't smoke"]),
    ("Tom also smokes. Ana doesn't.", ["Ana doesn't smoke", "Tom also smokes"]),
    ("Tom often cycles to work. Ana doesn't.",
     ["Ana doesn't often cycle to work", "Tom often cycles to work"]),
])
def test_a_bare_denial_told_in_full_leaves_out_still_or_also(said: str, kept: list[str]) -> None:
    """"Still" or "also" says how the first is so: "doesn't still work" denies nothing more."""
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    ("The API is still slow. Redis isn't.", ["Redis isn't slow", "The API is still slow"]),
    ("Tom is also a nurse. Ana isn't.", ["Ana isn't a nurse", "Tom is also a nurse"]),
    # what denies already is told of no one else: "Ana isn't never late" says nothing
    ("Tom is never late. Ana isn't.", ["Tom is never late, Ana isn't"]),
    ("Tom is no longer late. Ana isn't.", ["Tom is no longer late, Ana isn't"]),
    ("The API is never slow. Redis isn't.", ["The API is never slow, Redis isn't"]),
    # how often is kept: "Ana isn't always late" is what was said
    ("Tom is always late. Ana isn't.", ["Ana isn't always late", "Tom is always late"]),
])
def test_a_bare_denial_of_what_another_is_leaves_out_still_and_denies_no_denial(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept
