"""A request to forget a thing followed by "and" and a statement of the speaker's ("Forget
my address and I live in Leeds now"): the thing goes and the statement is stored, as with a
comma or "but" between them."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("said", "stored"), [
    # read whole, nothing matched: the address stayed and Leeds was lost
    ("Forget my address and I live in Leeds now.", ["User lives in Leeds"]),
    ("Forget my address and I'm in Leeds now.", ["User is in Leeds"]),
    ("Forget my address but I live in Leeds now.", ["User lives in Leeds"]),
    # what the speaker will do with it is no statement: read as one, "User: I will send
    # the new one" was stored
    ("Forget my address and I will send the new one.", []),
    ("Forget my address so I can send a new one.", []),
    ("Forget my address and I'll update it.", []),
    # nor is insisting on it: stored as "User: I mean it" or "User is serious"
    ("Forget my address and I mean it.", []),
    ("Forget my address, I'm serious.", []),
])
def test_the_thing_goes_and_the_statement_is_kept(said: str, stored: list[str]) -> None:
    assert core_after("My address is 5 Glass St.", said) == stored


def test_a_job_named_goes_beside_the_new_one() -> None:
    assert core_after("My job is at Acme.", "Forget my job and I work at Globex now.") == [
        "User works at Globex"]


def test_the_speaker_named_with_another_is_no_statement() -> None:
    assert core_after("My wife is Ana.", "Forget my wife and I.") == []



@pytest.mark.parametrize("said", ["Forget my password and I guess my PIN too.",
                                  "Forget my password, I think my PIN as well."])
def test_another_thing_named_after_a_hedge_goes_too(said: str) -> None:
    # read as a statement, "User: I guess my PIN" was stored and the PIN kept
    assert core_after("My password is hunter2.", "My PIN is 1234.", said) == []


@pytest.mark.parametrize(("held", "said", "now"), [
    # read as a correction of what went, the value meant was lost with it
    ("My PIN is 1234.", "Forget my PIN, I meant 4321.", "User's PIN is 4321"),
    ("My phone number is 555-0101.", "Forget my phone number, I meant 555-0199.",
     "User's phone number is 555-0199"),
    # in a sentence of its own, it was read as a correction too, and the PIN lost
    ("My PIN is 1234.", "Forget my PIN. I meant 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN. I meant 4321!", "User's PIN is 4321"),
    # the value meant with the one it replaces, or after "to say", was lost with the PIN
    ("My PIN is 1234.", "Forget my PIN, I meant 4321 not 1234.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN, I meant 4321, not 1234.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN, I meant to say 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN. I meant to type 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN; I meant 4321.", "User's PIN is 4321"),
    # a short close after the value meant: the PIN went and 4321 was lost
    ("My PIN is 1234.", "Forget my PIN, I meant 4321, thanks.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN. I meant 4321, sorry.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN, I meant 4321, not 1234, thanks.", "User's PIN is 4321"),
    # a value of several words
    ("My address is 3 Pine St.", "Forget my address, I meant 7 Glass Street.",
     "User's address is 7 Glass Street"),
    ("My address is 3 Pine St.", "Forget my address, I meant 7 Glass Street, Leeds.",
     "User's address is 7 Glass Street, Leeds"),
    ("My email is a@b.org.", "Forget my email, I meant c@d.org.", "User's email is c@d.org"),
    # alone, "It's 4321" was stored as a fact of nothing, and the PIN lost
    ("My PIN is 1234.", "Forget my PIN. It's 4321.", "User's PIN is 4321"),
    # read as another thing kept, "the old one" left "Forget my PIN, it's 4321", which
    # matched nothing, and the PIN stayed
    ("My PIN is 1234.", "Forget my PIN, it's 4321, not the old one.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN, it's 4321 now, not my old PIN.", "User's PIN is 4321"),
    ("My address is 3 Pine St.", "Forget my address. It is 7 Glass Street.",
     "User's address is 7 Glass Street"),
    # read as the speaker's statement, "User: I changed it to 4321" was stored
    ("My PIN is 1234.", "Forget my PIN and I changed it to 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN. I changed it to 4321.", "User's PIN is 4321"),
    # read whole, "User has changed it to 4321" was stored, and the PIN kept
    ("My PIN is 1234.", "Forget my PIN, I've changed it to 4321.", "User's PIN is 4321"),
])
def test_the_value_meant_instead_is_kept(held: str, said: str, now: str) -> None:
    assert core_after(held, said) == [now]


@pytest.mark.parametrize("said", ["Forget my PIN; I meant 4321.", "Forget my PIN. I meant 4321."])
def test_the_value_meant_is_no_slip_to_name(said: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My PIN is 1234.", said)[-1]
        assert list(core_of(memory)) == ["User's PIN is 4321"]
    # it stored the PIN meant, so it corrected no slip and need not ask which
    assert "can't tell which word" not in reply



@pytest.mark.parametrize("said", ["Forget the PIN, I meant 4321.", "Forget the PIN. I meant 4321."])
def test_the_value_meant_is_of_the_thing_held(said: str) -> None:
    # named as "the PIN", it was stored as "The PIN is 4321", no one's
    assert core_after("My PIN is 1234.", said) == ["User's PIN is 4321"]



@pytest.mark.parametrize("said", [
    "Forget my PIN, I meant to do it 2 days ago.", "Forget my PIN, I meant it 100%.",
    "Forget my PIN. I meant the one from 2019.", "Forget my PIN, I meant what I said in 2020.",
])
def test_what_is_meant_of_no_value_is_no_new_pin(said: str) -> None:
    # read as the value meant, "User's PIN is to do it 2 days ago" was stored
    assert not any(fact.startswith("User's PIN") for fact in core_after("My PIN is 1234.", said))


@pytest.mark.parametrize("said", [
    # read as of the value meant, "User's PIN is 4321 but typed 1234" kept the PIN that went
    "Forget my PIN, I meant to write 4321 but typed 1234.",
    "Forget my PIN, I meant 4321 for my bank.", "Forget my PIN, I changed it to 4321 yesterday.",
])
def test_words_after_the_value_meant_are_not_of_it(said: str) -> None:
    stored = core_after("My PIN is 1234.", said)
    assert not any(fact.startswith("User's PIN is 4321 ") for fact in stored), stored
    assert not any("1234" in fact for fact in stored), stored


def test_a_bare_relation_named_as_meant_is_the_one_forgotten() -> None:
    # "User's brother" was stored, a fact of nothing, beside the sister forgotten
    assert core_after("My PIN is 1234.", "My sister is Ana.",
                      "Forget my sister, I meant my brother.") == [
        "User's PIN is 1234", "User's sister is Ana"]
    # the brother meant stayed, and the sister, never meant, went
    assert core_after("My sister is Ana.", "My brother is Tom.",
                      "Forget my sister, I meant my brother.") == ["User's sister is Ana"]


@pytest.mark.parametrize("said", [
    # the brother meant stayed and "User's brother" was stored, or "User: I mean my brother"
    "Forget my sister. I meant my brother.", "Forget my sister; I meant my brother.",
    "Forget my sister, I meant to say my brother.", "Forget my sister, I mean my brother.",
    "Delete my sister. Sorry, I meant my brother.",
    # read as another thing kept, the sister went and "User's brother" was stored
    "Forget my sister, I meant my brother, not my sister.",
    # a short close after it changed which went: the sister did, and "User's brother and
    # I'm sure" or "User's brother, thanks" was stored
    "Forget my sister. I meant my brother and I'm done.",
    "Forget my sister, I mean my brother, too bad.",
    "Forget my sister. I meant my brother and I'm sure.",
    "Forget my sister, I meant my brother, thanks.", "Forget my sister. I meant my brother please.",
    "Forget my sister, I mean my brother and that's it.",
    "Forget my sister. I meant my brother, not my sister, thanks.",
])
def test_the_relation_meant_goes_however_it_is_said(said: str) -> None:
    assert core_after("My sister is Ana.", "My brother is Tom.", said) == [
        "User's sister is Ana"]


@pytest.mark.parametrize(("held", "said", "now"), [
    # the PIN went, and "User's card number" (or "User's bank PIN") was stored beside the
    # one meant
    ("My card number is 4444.", "Forget my PIN, I mean my card number.", ["User's PIN is 1234"]),
    ("My card number is 4444.", "Forget my PIN. I meant my card number.", ["User's PIN is 1234"]),
    ("My bank PIN is 4444.", "Forget my PIN. I mean my bank PIN.", ["User's PIN is 1234"]),
    # which of a kind is told: the PIN itself goes, as before
    ("My card number is 4444.", "Forget my PIN, I meant my old PIN.",
     ["User's card number is 4444"]),
])
def test_a_thing_of_two_words_meant_goes_in_place_of_the_one_named(held: str, said: str,
                                                                  now: list[str]) -> None:
    assert core_after("My PIN is 1234.", held, said) == now


@pytest.mark.parametrize("said", [
    # the new password was kept in "User: I meant swordfish and I'm moving to Leeds", which
    # no later "Forget my password." found
    "Forget my password, I meant swordfish and I'm moving to Leeds.",
    "Forget my password. I meant swordfish and I'm moving to Leeds.",
    "Forget my password, I meant sword fish and I'm moving to Leeds.",
])
def test_words_meant_of_a_secret_stay_apart_from_a_statement_after(said: str) -> None:
    assert core_after("My password is hunter2.", said) == ["User is moving to Leeds"]
    assert core_after("My password is hunter2.", said, "Forget my password.") == [
        "User is moving to Leeds"]


@pytest.mark.parametrize(("said", "now"), [
    # the request was stored in "User's card is lost, forget User's email", the email kept
    ("My card is lost, forget my email too.", ["User's card is lost"]),
    ("I'm moving to Leeds, so forget my email.", ["User is moving to Leeds"]),
    ("Forget my PIN. I mean my card is lost, forget my email too.", ["User's card is lost"]),
])
def test_a_request_after_a_statement_in_one_sentence_still_forgets(said: str,
                                                                   now: list[str]) -> None:
    assert core_after("My PIN is 1234.", "My email is a@b.com.", said) == sorted(
        now + ([] if "PIN" in said else ["User's PIN is 1234"]))


@pytest.mark.parametrize("said", ["If I move, forget my email.", "My wife said, forget my email."])
def test_a_request_on_a_condition_or_quoted_forgets_nothing(said: str) -> None:
    assert "User's email is a@b.com" in core_after("My email is a@b.com.", said)


_SIBLINGS = ("My sister is Ana.", "My brother is Tom.")


@pytest.mark.parametrize(("held", "said", "now"), [
    # read as one, the sister went and "User's brother and I'm moving to Leeds" was stored
    (_SIBLINGS, "Forget my sister. I meant my brother and I'm moving to Leeds.",
     ["User is moving to Leeds", "User's sister is Ana"]),
    (_SIBLINGS, "Forget my sister, I meant my brother and I'm moving to Leeds.",
     ["User is moving to Leeds", "User's sister is Ana"]),
    (_SIBLINGS, "Forget my sister. I meant my brother, and I live in Leeds.",
     ["User lives in Leeds", "User's sister is Ana"]),
    (("My PIN is 1234.",), "Forget my PIN, I meant 4321 and I live in Leeds.",
     ["User lives in Leeds", "User's PIN is 4321"]),
    # "I mean" before why the PIN goes: "User: I mean my card is lost" was stored
    (("My PIN is 1234.",), "Forget my PIN. I mean my card is lost.", ["User's card is lost"]),
    (("My PIN is 1234.",), "Forget my PIN, I mean my card is lost.", ["User's card is lost"]),
    (("My PIN is 1234.",), "Forget my PIN. I mean, my card is lost.", ["User's card is lost"]),
])
def test_what_is_said_after_what_was_meant_is_a_statement(held: tuple[str, ...], said: str,
                                                          now: list[str]) -> None:
    assert core_after(*held, said) == now


def test_the_husband_meant_goes_and_the_wife_stays() -> None:
    assert core_after("My wife is Eva.", "My husband is Max.",
                      "Forget my wife. I meant my husband.") == ["User's wife is Eva"]


@pytest.mark.parametrize("said", ["Forget my PIN. I meant my brother.",
                                  "Forget my PIN, I meant my brother."])
def test_a_relation_meant_after_another_thing_named_is_the_one_forgotten(said: str) -> None:
    # "User's brother" was stored beside the brother held, and the PIN kept
    assert core_after("My PIN is 1234.", "My brother is Tom.", said) == ["User's PIN is 1234"]
    # with no brother held nothing goes, and nothing is stored
    assert core_after("My PIN is 1234.", said) == ["User's PIN is 1234"]


@pytest.mark.parametrize("said", ["Forget my sister. I meant my PIN.",
                                  "Forget my sister, I meant my PIN."])
def test_a_thing_meant_after_a_relation_named_is_the_one_forgotten(said: str) -> None:
    # "User's PIN" was stored and the sister, never meant, went
    assert core_after("My PIN is 1234.", "My sister is Ana.", said) == ["User's sister is Ana"]
    assert core_after("My sister is Ana.", said) == ["User's sister is Ana"]


def test_a_relation_meant_but_not_held_changes_nothing() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My sister is Ana.", "Forget my sister. I meant my brother.")[-1]
        assert sorted(core_of(memory)) == ["User's sister is Ana"]
    assert "Nothing in core memory matched" in reply


def test_a_relation_meant_but_not_held_with_thanks_changes_nothing() -> None:
    # the sister, never meant, went and "User's brother, thanks" was stored
    assert core_after("My sister is Ana.", "Forget my sister. I meant my brother, thanks.") == [
        "User's sister is Ana"]


@pytest.mark.parametrize(("said", "now"), [
    # "User's brother's name" or "User's brother Tom" was stored, and the sister went
    ("Forget my sister. I meant my brother's name.", ["User's sister is Ana"]),
    ("Forget my sister. I meant my brother Tom.", ["User's sister is Ana"]),
    ("Forget my sister, I meant my brother instead.", ["User's sister is Ana"]),
    # another thing of its own: nothing held matches it, and "User's brother's car" was stored
    ("Forget my sister. I meant my brother's car.", ["User's brother is Tom",
                                                     "User's sister is Ana"]),
    # both meant: "User: I mean my brother" or "User's brother and sister" was stored
    ("Forget my sister. I mean my brother too.", []),
    ("Forget my sister, I meant my brother as well.", []),
    ("Forget my sister. I meant my brother and sister.", []),
])
def test_the_thing_meant_goes_whatever_is_said_of_it(said: str, now: list[str]) -> None:
    assert core_after("My sister is Ana.", "My brother is Tom.", said) == now


@pytest.mark.parametrize("said", [
    "Forget my sister. I mean it.", "Forget my sister. I meant it.",
    "Forget my sister, I meant it.", "Forget my sister. I'm serious."])
def test_insisting_after_the_request_says_nothing(said: str) -> None:
    # stored as "User: I mean it" or "User is serious"
    assert core_after("My sister is Ana.", "My brother is Tom.", said) == [
        "User's brother is Tom"]


@pytest.mark.parametrize("said", [
    "Delete my PIN. I meant my brother and Tom.", "Delete my PIN, I meant my brother and Tom.",
    "Erase my PIN. Sorry, I meant my brother and Tom."])
def test_a_name_meant_with_a_relation_is_no_task(said: str) -> None:
    # "Delete my brother and Tom" stored "Delete Tom", a task, beside the brother forgotten
    assert core_after("My PIN is 1234.", "My brother is Tom.", said) == ["User's PIN is 1234"]


@pytest.mark.parametrize("said", [
    "Forget my PIN. I mean my PIN is old.", "Forget my PIN, I mean my PIN is old.",
    "Forget my PIN. I meant my PIN is old.", "Forget the PIN. I mean my PIN is old, sorry."])
def test_the_thing_said_again_with_a_remark_stores_nothing(said: str) -> None:
    # "User: I mean my PIN is old" or "User's PIN is old" was stored
    assert core_after("My PIN is 1234.", said) == []


@pytest.mark.parametrize(("held", "said", "now"), [
    ("My PIN is 1234.", "Forget my PIN. I mean my PIN is 4321.", ["User's PIN is 4321"]),
    ("My sister is Ana.", "Forget my sister. I mean my sister is Maria.",
     ["User's sister is Maria"]),
])
def test_the_thing_said_again_with_a_value_stores_it(held: str, said: str,
                                                     now: list[str]) -> None:
    # stored as "User: I mean my PIN is 4321", no PIN
    assert core_after(held, said) == now


@pytest.mark.parametrize("said", [
    "Forget my PIN. I mean my password is old.", "Forget my PIN, I mean my password is old.",
    "Forget my PIN. I mean my password is out of date.",
    "Forget my PIN, I mean my passwords are old."])
def test_another_thing_said_with_a_remark_is_the_one_forgotten(said: str) -> None:
    # the PIN, never meant, went, and "User: I mean my password is old" was stored
    assert core_after("My PIN is 1234.", "My password is hunter2.", said) == [
        "User's PIN is 1234"]
    # with no password held nothing goes, and nothing is stored
    assert core_after("My PIN is 1234.", said) == ["User's PIN is 1234"]
