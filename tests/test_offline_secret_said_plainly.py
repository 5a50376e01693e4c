"""A secret said as new ("My new password is hunter3") is the secret, stored as "User's
password is hunter3", where "User's new password is hunter3" named another thing; said as
still held ("My password is still hunter2"), it is the value held, which stays."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.secret_names import secret_said_plainly


@pytest.mark.parametrize(("held", "said", "kept"), [
    ("My password is hunter2.", "My new password is hunter3.", "User's password is hunter3"),
    ("My PIN is 1234.", "My new PIN is 4321.", "User's PIN is 4321"),
    ("My API key is sk-1.", "My current API key is sk-2.", "User's API key is sk-2"),
    # "User's password is still hunter2" took the place of the fact held
    ("My password is hunter2.", "My password is still hunter2.", "User's password is hunter2"),
    ("My PIN is 1234.", "My PIN is still 1234.", "User's PIN is 1234"),
    # named, then its value: "User's password, it's still hunter2" kept the secret loose
    ("My password is hunter2.", "My password, it's still hunter2.", "User's password is hunter2"),
    ("My PIN is 1234.", "My PIN, it's still 1234.", "User's PIN is 1234"),
    ("My password is hunter2.", "My password, it's hunter3.", "User's password is hunter3"),
    ("My PIN is 1234.", "My PIN, it's now 4321.", "User's PIN is 4321"),
])
def test_the_secret_is_held_as_told_plainly(held: str, said: str, kept: str) -> None:
    assert core_after(held, said) == [kept]


@pytest.mark.parametrize("word", ["secret", "unknown", "safe", "unchanged"])
def test_still_and_a_word_of_how_it_is_is_no_value(word: str) -> None:
    # "User's password is secret" would tell a password that was never said
    assert core_after("My password is hunter2.", f"My password is still {word}.") == [
        "User's password is hunter2", f"User's password is still {word}"]


@pytest.mark.parametrize(("held", "said", "kept"), [
    # "User: I changed my password, it's still hunter2" kept the secret loose, and
    # "Forget my password." left "User: I changed my it's still hunter2"
    ("My password is hunter2.", "I changed my password, it's still hunter2.",
     "User's password is hunter2"),
    ("My PIN is 1234.", "I updated my PIN, it's still 1234.", "User's PIN is 1234"),
    ("My password is hunter2.", "I changed my password, it's hunter3.",
     "User's password is hunter3"),
    ("My password is hunter2.", "I reset my password, it is now hunter3.",
     "User's password is hunter3"),
])
def test_a_secret_said_changed_is_the_secret(held: str, said: str, kept: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, held, said)
        assert sorted(core_of(memory)) == [kept]
        chat(memory, f"Forget my {kept.split()[1]}.")
        assert not core_of(memory)


@pytest.mark.parametrize(("said", "kept"), [
    ("My new password is strong.", "User's new password is strong"),
    ("My new password is long.", "User's new password is long"),
    ("My new password is weak.", "User's new password is weak"),
    ("My current password is strong.", "User's current password is strong"),
])
def test_new_and_a_word_of_how_it_is_is_no_value(said: str, kept: str) -> None:
    # "User's password is strong" would tell a password that was never said
    assert kept in core_after("My password is hunter2.", said)
    assert kept in core_after(said)


def test_still_held_keeps_the_fact_and_stores_nothing() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "My password is hunter2.")
        first = [fact.id for fact in memory.core]
        chat(memory, "My password is still hunter2.")
        assert [fact.id for fact in memory.core] == first


def test_forget_my_password_finds_the_new_one() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "My password is hunter2.", "My new password is hunter3.")
        assert list(core_of(memory)) == ["User's password is hunter3"]
        chat(memory, "Forget my password.")
        assert not core_of(memory)


@pytest.mark.parametrize(("text", "plain"), [
    ("My new password is hunter3.", "My password is hunter3."),
    ("My password is still hunter2", "My password is hunter2"),
    ("my new Wi-Fi password is marlin", "my Wi-Fi password is marlin"),
    # no secret, or no word of new or still: as said
    ("My new car is red.", None),
    ("My car is still red.", None),
    ("My new house key is lost.", None),
    ("My password is hunter2.", None),
    ("My new password is hunter3 and my PIN is 1234.", None),
])
def test_secret_said_plainly(text: str, plain: str | None) -> None:
    assert secret_said_plainly(text) == plain

