"""The new one of what a request forgets, told as to come ("The new one will be 4321.") or
by where a place is ("The new one is in York."), is kept in the old one's place."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("held", "said", "now"), [
    # 4321 was lost with the PIN, without a word
    ("My PIN is 1234.", "Forget my PIN. The new one will be 4321.",
     ["User's PIN will be 4321"]),
    ("My PIN is 1234.", "Forget my PIN, the new one will be 4321.",
     ["User's PIN will be 4321"]),
    ("My PIN is 1234.", "Forget my PIN. The new one is going to be 4321.",
     ["User's PIN is going to be 4321"]),
    # "User's new PIN will be 4321" stood apart from the PIN it replaces
    ("My PIN is 1234.", "Forget my PIN, my new PIN will be 4321.",
     ["User's PIN will be 4321"]),
    ("My address is 7 Glass Street.", "Forget my address. The new one is in York.",
     ["User's address is in York"]),
    ("My address is 7 Glass Street.", "Forget my address, the new one is in York.",
     ["User's address is in York"]),
])
def test_the_new_one_told_is_kept(held: str, said: str, now: list[str]) -> None:
    assert core_after(held, said) == now


@pytest.mark.parametrize(("held", "said"), [
    # a place is no PIN, no email, and no one's new boss
    ("My PIN is 1234.", "Forget my PIN. The new one is in York."),
    ("My email is a@b.com.", "Forget my email. The new one is in York."),
    ("My boss is Ann.", "Forget my boss. The new one is in York."),
    ("My PIN is 1234.", "Forget my PIN. The new one will come by post."),
    # a number is no email address: "User's email is 4321" was stored
    ("My email is a@b.com.", "Forget my email. The new one is 4321."),
    ("My email is a@b.com.", "Forget my email, the new one will be 4321."),
    ("My email is a@b.com.", "Forget my email. It's 4321."),
    ("My email address is a@b.com.", "Forget my email address. The new one is 4321."),
    # said as "my new email", it was
    ("My email is a@b.com.", "Forget my email. My new email is 4321."),
    ("My email is a@b.com.", "Forget my email, my new email is 4321."),
])
def test_what_is_no_new_one_is_not_kept_as_one(held: str, said: str) -> None:
    assert core_after(held, said) == []


def test_what_a_thing_forgotten_is_like_is_no_fact() -> None:
    # "It's like User's dad's" was stored as a fact of nothing
    assert core_after("My car is a Honda.", "Forget my car. It's like my dad's.") == []


def test_a_new_email_address_is_kept() -> None:
    assert core_after("My email is a@b.com.", "Forget my email. The new one is c@d.com.") == [
        "User's email is c@d.com"]
    assert core_after("My email is a@b.com.", "Forget my email. My new email is c@d.com.") == [
        "User's email is c@d.com"]
    assert core_after("My email is a@b.com.", "Forget my email, my new email is 4321, I live "
                      "in Leeds now.") == ["User lives in Leeds"]


@pytest.mark.parametrize(("held", "said", "asked"), [
    # the value asked was stored as the new one, and the reply quoted it back from memory
    ("My sister is Ana.", "Forget my sister. It's Maria?", '"Maria?"'),
    # a secret's is not quoted back
    ("My PIN is 1234.", "Forget my PIN. It's 4321?", "the new one"),
    ("My PIN is 1234.", "Forget my PIN. The new one is 4321?", "the new one"),
])
def test_a_new_one_asked_is_not_kept_and_the_reply_says_so(held: str, said: str,
                                                           asked: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, held, said)[-1]
        assert sorted(f.text for f in memory.core) == []
    assert f"You asked {asked} rather than told it" in reply


def test_a_secret_asked_is_not_quoted_back() -> None:
    # "You asked "swordfish?" ..." repeated the password in the reply, and so in the log
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My password is hunter2.", "Forget my password. It's swordfish?")[-1]
        assert [f.text for f in memory.core] == []
    assert "You asked the new one rather than told it" in reply
    assert "swordfish" not in reply
