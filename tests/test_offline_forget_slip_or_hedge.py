"""A slip word or a hedge between a request to forget and the new value it tells ("Forget
my boss. No wait, it's Maria.", "Forget my boss. Maybe it's Maria.")."""

from __future__ import annotations

import pytest
from offline_helpers import core_after, core_and_reply


@pytest.mark.parametrize(("held", "said", "now"), [
    # the slip asked which word the value corrects, and the new one was lost
    ("My boss is Ann.", "Forget my boss. No wait, it's Maria.", "User's boss is Maria"),
    ("My boss is Ann.", "Forget my boss, no wait, it's Maria.", "User's boss is Maria"),
    ("My boss is Ann.", "Forget my boss. Sorry, it's Maria.", "User's boss is Maria"),
    ("My sister is Ana.", "Forget my sister. Actually, it's Maria.", "User's sister is Maria"),
    ("My PIN is 1234.", "Forget my PIN. Sorry, it's 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN. No, it's fine.", None),
])
def test_a_slip_before_the_new_value_keeps_it(held: str, said: str, now: str | None) -> None:
    core, reply = core_and_reply(held, said)
    assert core == ([now] if now else [])
    assert "which word" not in reply


@pytest.mark.parametrize(("held", "said", "quoted"), [
    # "Maybe it's Maria" was stored as a fact of nothing; after a comma, nothing went
    ("My boss is Ann.", "Forget my boss. Maybe it's Maria.", '"Maria"'),
    ("My boss is Ann.", "Forget my boss, maybe it's Maria.", '"Maria"'),
    ("My sister is Ana.", "Forget my sister. I think it's Maria.", '"Maria"'),
    ("My PIN is 1234.", "Forget my PIN. Perhaps it's 4321.", "a value"),
    # an address with a dot in it was not quoted, and the reply said nothing of it
    ("My email is a@b.com.", "Forget my email. Maybe it's c@d.com.", '"c@d.com"'),
])
def test_a_new_value_said_only_to_be_likely_is_not_kept(held: str, said: str,
                                                        quoted: str) -> None:
    core, reply = core_and_reply(held, said)
    assert core == []
    assert f"You said the new one may be {quoted} rather than told it" in reply
    assert "4321" not in reply


def test_a_value_told_plainly_says_nothing_of_a_hedge() -> None:
    assert core_after("My boss is Ann.", "Forget my boss. It's Maria.") == [
        "User's boss is Maria"]


@pytest.mark.parametrize(("said", "kept"), [
    # the cleft's "Maria who called" was taken as the new boss, said only to be likely, and
    # nothing was stored; "No wait, it's Maria who called." was lost with no word of it
    ("Forget my boss. I think it's Maria who called.", "User: I think it's Maria who called"),
    ("Forget my boss, I think it's Maria who called.", "User: I think it's Maria who called"),
    ("Forget my boss. Maybe it's Maria who knows.", "Maybe it's Maria who knows"),
    ("Forget my boss. No wait, it's Maria who called.", "It's Maria who called"),
])
def test_a_cleft_after_a_request_to_forget_is_a_sentence_of_its_own(said: str,
                                                                    kept: str) -> None:
    core, reply = core_and_reply("My boss is Ann.", said)
    assert core == [kept]
    assert "may be" not in reply



def test_a_word_told_as_a_secret_forgotten_is_said_not_kept() -> None:
    # the word went with no word of it, the PIN forgotten and nothing said of Maria
    for held, said, secret in (
            ("My PIN is 1234.", "Forget my PIN. No wait, it's Maria.", "PIN"),
            ("My PIN is 1234.", "Forget my PIN, it's Maria.", "PIN"),
            ("My password is hunter2.", "Forget my password. It's Swordfish.", "password")):
        core, reply = core_and_reply(held, said)
        assert core == []
        assert (f'I did not keep the word after it as your new {secret}; say "My {secret} '
                'is ..." to keep it.') in reply
        assert "Maria" not in reply and "Swordfish" not in reply
    # a value of a PIN is the new one, and no word went
    core, reply = core_and_reply("My PIN is 1234.", "Forget my PIN. No wait, it's 4321.")
    assert core == ["User's PIN is 4321"]
    assert "did not keep" not in reply


@pytest.mark.parametrize("said", [
    "Forget my password, my new one is swordfish.",
    "Forget my password. My new one is swordfish.",
    "I want my password gone, my new one is swordfish.",
])
def test_a_word_told_as_a_secrets_new_one_is_said_not_kept(said: str) -> None:
    # the password went and "swordfish" with it, with no word of it
    core, reply = core_and_reply("My password is hunter2.", said)
    assert core == []
    assert ('I did not keep the word after it as your new password; say "My password is ..." '
            "to keep it.") in reply
    assert "swordfish" not in reply


def test_a_code_told_as_a_secrets_new_one_is_kept() -> None:
    core, reply = core_and_reply("My password is hunter2.",
                                 "Forget my password, my new one is hunter3.")
    assert core == ["User's password is hunter3"]
    assert "did not keep" not in reply


@pytest.mark.parametrize(("held", "said", "kept"), [
    # the sentence went with no word of it, as a remark on the boss forgotten
    ("My boss is Ann.", "Forget my boss. It's Maria who called.", ["It's Maria who called"]),
    ("My PIN is 1234.", "Forget my PIN. It's Tom who knows it.", ["It's Tom who knows it"]),
    # a remark on what goes is still none
    ("My email is a@b.com.", "Forget my email. It's the one that got hacked.", []),
    ("My PIN is 1234.", "Forget my PIN. It's old.", []),
])
def test_a_cleft_after_a_request_is_a_sentence_of_its_own(held: str, said: str,
                                                          kept: list[str]) -> None:
    assert core_after(held, said) == kept
