"""A secret "it" points back at right after it was told: "It's still hunter2" after "My
password is hunter2." is the password said again, and "Oops, it's not bob." says only what
it is not; stored as said, either kept a copy loose beside the secret, which "Forget my
password." never reached."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.secret_again import secret_denied, secret_told, with_secret_named


@pytest.mark.parametrize(("held", "said", "thing", "kept"), [
    ("My password is hunter2.", "It's still hunter2.", "password", "User's password is hunter2"),
    ("My password is hunter2.", "It is still hunter2.", "password", "User's password is hunter2"),
    ("My PIN is 1234.", "Um, it's still 1234.", "PIN", "User's PIN is 1234"),
    ("My passcode is 8080.", "Well, it's still 8080.", "passcode", "User's passcode is 8080"),
    ("My API key is sk-1.", "Nope, it's still sk-1.", "API key", "User's API key is sk-1"),
    ("My token is abc-9.", "It's still abc-9.", "token", "User's token is abc-9"),
    # a value of its own is the secret's new one, as "My password is still hunter3" is
    ("My password is hunter2.", "It's still hunter3.", "password", "User's password is hunter3"),
])
def test_a_secret_said_again_by_it_is_the_secret(held: str, said: str, thing: str,
                                                 kept: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, held, said)
        assert list(core_of(memory)) == [kept]
        chat(memory, f"Forget my {thing}.")
        assert not core_of(memory)


def test_the_secret_said_again_is_counted_again() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        again, plainly = chat(memory, "My password is hunter2.", "It's still hunter2.",
                              "My password is still hunter2.")[1:]
        assert again == plainly
        assert "re-assertion" in again


@pytest.mark.parametrize(("held", "said", "fact", "denied"), [
    ("My password is hunter2.", "Oops, it's not bob.", "User's password is hunter2", "bob"),
    ("My password is hunter2.", "Err, it isn't swordfish.", "User's password is hunter2",
     "swordfish"),
    ("My PIN is 1234.", "Nope, it's not 4321.", "User's PIN is 1234", "4321"),
    ("My API key is sk-1.", "Well, it is not sk-2.", "User's API key is sk-1", "sk-2"),
])
def test_what_a_secret_is_not_stores_nothing_and_says_so(held: str, said: str, fact: str,
                                                           denied: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, held, said)[-1]
        assert list(core_of(memory)) == [fact]
        assert reply == (f'(offline) "not {denied}" tells nothing that is so, so I stored '
                         f'nothing and kept "{fact}" as it is.')


def test_in_one_message_the_secret_before_is_the_one_denied() -> None:
    assert core_after("My password is hunter2. Oops, it's not bob.") == [
        "User's password is hunter2"]


@pytest.mark.parametrize(("before", "said"), [
    # how the secret is, not what: stored as said
    ("My password is hunter2.", "Oops, it's not working."),
    ("My password is hunter2.", "It's still valid."),
    # no secret said before: "it" is something else
    ("I live in Lisbon.", "Oops, it's not bob."),
    ("My dog is Rex.", "It's still Rex."),
])
def test_it_of_no_secret_value_is_read_as_before(before: str, said: str) -> None:
    assert with_secret_named([said], before) == [said]


def test_what_tells_a_secret() -> None:
    assert secret_told("My password is hunter2.") == ("My", "password", "hunter2")
    assert secret_told("My new PIN is 4321") == ("My", "PIN", "4321")
    assert secret_told("My house key is blue.") is None
    assert secret_denied("It's not bob.", "My password is hunter2.") is None
    assert secret_denied("Oops, it's not bob.", None) is None


@pytest.mark.parametrize(("held", "said", "fact", "meant"), [
    # "It's hunter3" and "It's 4321" were stored beside the secret, out of reach of a
    # request to forget it
    ("My password is hunter2.", "It's hunter3.", "User's password is hunter2", "hunter3"),
    ("My PIN is 1234.", "Well, it's 4321.", "User's PIN is 1234", "4321"),
    ("My API key is sk-1.", "It is sk-2.", "User's API key is sk-1", "sk-2"),
])
def test_a_value_of_a_secret_with_no_word_of_which_is_asked_of(held: str, said: str, fact: str,
                                                                meant: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, held, said)[-1]
        assert list(core_of(memory)) == [fact]
        assert reply.startswith(f'(offline) I can\'t tell which word "{meant}" corrects in '
                                f'"{fact}"')


@pytest.mark.parametrize("said", ["It's 5pm.", "It's 10:30.", "It's Monday.", "It's late."])
def test_an_hour_or_a_word_after_a_secret_is_read_as_before(said: str) -> None:
    assert with_secret_named([said], "My PIN is 1234.") == [said]


@pytest.mark.parametrize("said", [
    # "It's still hunter2" was stored loose: "it" named the tea, the value the password's
    ("My password is hunter2.", "I like tea.", "It's still hunter2."),
    ("My password is hunter2.", "I like tea.", "Um, it's hunter2."),
    ("My password is hunter2 and my PIN is 1234.", "It's still 1234."),
    ("My password is hunter2.", "It's hunter2."),
])
def test_the_value_of_a_secret_held_is_that_secret_said_again(said: tuple[str, ...]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, *said)[-1]
        assert all(fact.startswith("User") for fact in core_of(memory))
        assert "re-assertion" in reply
        assert "can't tell" not in reply
        chat(memory, "Forget my password.", "Forget my PIN.")
        assert not [fact for fact in core_of(memory) if "hunter2" in fact or "1234" in fact]


@pytest.mark.parametrize(("held", "said"), [
    # "It's still Monday" replaced the password with "Monday", and "It's $40" was asked of
    ("My password is hunter2.", "It's still Monday."),
    ("My PIN is 1234.", "It's still 5pm."),
    ("My PIN is 1234.", "It's still 2."),
    ("My PIN is 1234.", "It's still hunter2."),
    ("My API key is sk-1.", "It's $40."),
    ("My password is hunter2.", "It's 100%."),
    ("My PIN is 1234.", "It's 30C."),
    ("My password is hunter2.", "It's 1-0."),
    ("My password is hunter2.", "It's 24/7."),
    ("My PIN is 1234.", "It's 42."),
    ("My PIN is 1234.", "It's v2."),
])
def test_a_reading_or_a_value_of_another_look_after_a_secret_is_read_as_before(
        held: str, said: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, held, said)[-1]
        kept = "User's " + held.removeprefix("My ").rstrip(".")
        assert sorted(core_of(memory)) == sorted([kept, said.rstrip(".")])
        assert "can't tell" not in reply


def test_a_secret_named_then_what_it_is_not_stores_nothing() -> None:
    # "User's password, it's not bob" was stored beside the password, out of reach of
    # "Forget my password.", and the note named the last fact told, not the password
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My password is hunter2.", "I like tea.",
                     "My password, it's not bob.")[-1]
        assert sorted(core_of(memory)) == ["User likes tea", "User's password is hunter2"]
        assert reply == ('(offline) "not bob" tells nothing that is so, so I stored nothing '
                         'and kept "User\'s password is hunter2" as it is.')
    # how it is, or no secret: stored as said
    assert core_after("My password, it's not working.") == [
        "User's password, it's not working"]
    assert core_after("My car, it's not red.") == ["User's car, it's not red"]
