"""What follows a request to forget, in the same message: the new value of what goes,
however it is told ("It's 9 Elm Road, Leeds.", "the new one is 4321"), is stored in its
place, and a remark on it ("It's old.") is no fact."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.plan_values import value_kind


@pytest.mark.parametrize("said", [
    "Forget my address. It's 9 Elm Road, Leeds.",
    "Forget my address, it's 9 Elm Road, Leeds.",
])
def test_an_address_told_with_its_town_is_the_new_one(said: str) -> None:
    # cut at the comma, the address was no value, and the new one went with the old
    assert core_after("My address is 7 Glass Street.", said) == [
        "User's address is 9 Elm Road, Leeds"]


def test_a_name_after_a_number_alone_is_no_address() -> None:
    assert value_kind("9 Elm Road, Leeds, UK") == "name"
    assert value_kind("4321, Tom") is None


@pytest.mark.parametrize(("held", "said", "now"), [
    # read whole, the request matched nothing and the PIN stayed; apart, "The new one is
    # 4321" was stored as said, or "User's new one is 4321"
    ("My PIN is 1234.", "Forget my PIN, the new one is 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN, the new PIN is 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN. The new one is 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN; the new one's 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN; my new PIN is 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN, my new one is 4321.", "User's PIN is 4321"),
    ("My PIN is 1234.", "Forget my PIN and the new one is 4321, thanks.", "User's PIN is 4321"),
    ("My phone number is 555-0101.", "Forget my phone number, the new number is 555-0199.",
     "User's phone number is 555-0199"),
    ("My address is 7 Glass Street.", "Forget my address. The new one is 9 Elm Road, Leeds.",
     "User's address is 9 Elm Road, Leeds"),
    ("My car is a Honda.", "Forget my car. The new one is a Tesla.", "User's car is a Tesla"),
])
def test_the_new_one_told_is_the_thing_forgotten(held: str, said: str, now: str) -> None:
    assert core_after(held, said) == [now]


@pytest.mark.parametrize("said", ["Forget my PIN, the new one will come by post.",
                                  "Forget my PIN, the new one is on the way."])
def test_the_new_one_with_no_value_still_forgets(said: str) -> None:
    # read whole, the request matched nothing and the PIN stayed
    assert core_after("My PIN is 1234.", said) == []


@pytest.mark.parametrize(("held", "said", "now"), [
    # in a sentence of its own, "It's Eva, don't tell anyone" was stored as a fact of
    # nothing; after a comma, a capital alone was read as a remark, and Eva lost
    ("My sister is Ana.", "Forget my sister. It's Eva, don't tell anyone.",
     ["User's sister is Eva"]),
    ("My sister is Ana.", "Forget my sister, it's Eva.", ["User's sister is Eva"]),
    ("My boss is Ann.", "Forget my boss. It's Tom.", ["User's boss is Tom"]),
    ("My car is a Honda.", "Forget my car. It's a Tesla now.", ["User's car is a Tesla"]),
    # a remark on what goes is no fact: "It's old" was stored
    ("My PIN is 1234.", "Forget my PIN. It's old.", []),
    ("My PIN is 1234.", "Forget my PIN. It's late, time for bed.", []),
    ("My PIN is 1234.", "Forget my PIN; it's not important.", []),
    ("My boss is Ann.", "Forget my boss. It's Complicated.", []),
    # words of the speaker's own are still a statement
    ("My PIN is 1234.", "Forget my PIN. It's my birthday.", ["It's User's birthday"]),
])
def test_what_is_said_of_it_in_a_sentence_of_its_own(held: str, said: str,
                                                     now: list[str]) -> None:
    assert core_after(held, said) == now


@pytest.mark.parametrize(("said", "now"), [
    # read whole, the request matched nothing, and the PIN stayed
    ("Forget my PIN and it's 4321.", ["User's PIN is 4321"]),
    ("Forget my PIN and it's 4321 now.", ["User's PIN is 4321"]),
    ("Forget my PIN and it's old.", []),
    ("Forget my PIN because it's old.", []),
    ("Forget my PIN and it's 4321, I think.", []),
])
def test_a_remark_after_a_bare_and_still_forgets(said: str, now: list[str]) -> None:
    assert core_after("My PIN is 1234.", said) == now


@pytest.mark.parametrize(("held", "said", "now"), [
    # alone, "It's 4321, remember that" was stored as a fact of nothing
    ("My PIN is 1234.", "Forget it. It's 4321, remember that.", ["User's PIN is 4321"]),
    ("My PIN is 1234.", "Forget that. It's 4321.", ["User's PIN is 4321"]),
    # "Don't tell anyone" was stored beside the PIN
    ("My PIN is 1234.", "Forget it, it's 4321, don't tell anyone.", ["User's PIN is 4321"]),
    ("My PIN is 1234.", "Forget it. It's old.", []),
    # read with "time for bed", the request matched nothing and the PIN stayed
    ("My PIN is 1234.", "Forget it, it's late, time for bed.", []),
    ("My PIN is 1234.", "Forget it. It's late, time for bed.", []),
    # Ana stayed beside Eva: a sister may be one of several
    ("My sister is Ana.", "Forget it, it's Eva.", ["User's sister is Eva"]),
    ("My address is 7 Glass Street.", "Forget it. It's 9 Elm Road, Leeds.",
     ["User's address is 9 Elm Road, Leeds"]),
])
def test_what_it_is_after_a_bare_request(held: str, said: str, now: list[str]) -> None:
    assert core_after(held, said) == now


@pytest.mark.parametrize("said", ["Forget my PIN. The new one will come by post.",
                                  "Forget my PIN; the new one will come by post.",
                                  "Forget my PIN. My new one is on the way."])
def test_the_new_one_with_no_value_in_a_sentence_of_its_own(said: str) -> None:
    # alone, "The new one will come by post" was stored as a fact of nothing
    assert core_after("My PIN is 1234.", said) == []
    assert core_after("My PIN is 1234.", "Forget my PIN. The new one is 4321.") == [
        "User's PIN is 4321"]


@pytest.mark.parametrize(("held", "said", "now"), [
    # alone, "It's the same as User's locker code" was stored: a clue to the secret
    ("My PIN is 1234.", "Forget my PIN. It's the same as my locker code.", []),
    ("My PIN is 1234.", "Forget my PIN. It's like my locker code.", []),
    ("My PIN is 1234.", "Forget my PIN. It's my bike lock's code.", []),
    ("My password is hunter2.", "Forget my password. It's the same as my email's.", []),
    # nor, of what is no secret, a fact of nothing ("It's the same as User's sister's")
    ("My address is 7 Glass Street.", "Forget my address. It's the same as my sister's.", []),
])
def test_what_a_secret_is_the_same_as_is_not_kept(held: str, said: str,
                                                  now: list[str]) -> None:
    assert core_after(held, said) == now


@pytest.mark.parametrize(("held", "said", "now"), [
    # "User's PIN is Tom's" was stored as the secret
    ("My PIN is 1234.", "Forget my PIN, the new one is Tom's.", []),
    ("My PIN is 1234.", "Forget my PIN. The new one is Eva.", []),
    ("My password is hunter2.", "Forget my password; the new one is Tom's.", []),
    ("My sister is Ana.", "Forget my sister, the new one is 4321.", []),
    # a number alone is no place: "User's address is 4321" was stored
    ("My address is 7 Glass Street.", "Forget my address, the new one is 4321.", []),
    ("My PIN is 1234.", "Forget my address, the new one is 4321.", ["User's PIN is 1234"]),
    # a value that fits is still the new one
    ("My password is hunter2.", "Forget my password; the new one is swordfish9.",
     ["User's password is swordfish9"]),
    ("My sister is Ana.", "Forget my sister. The new one is Eva.", ["User's sister is Eva"]),
    ("My car is a Tesla.", "Forget my car, the new one is an Audi.", ["User's car is an Audi"]),
    ("My address is 7 Glass Street.", "Forget my address, the new one is 9 Elm Road, Leeds.",
     ["User's address is 9 Elm Road, Leeds"]),
    ("My email address is a@b.com.", "Forget my email address, the new one is bob@x.com.",
     ["User's email address is bob@x.com"]),
])
def test_the_new_one_is_a_value_that_fits_what_goes(held: str, said: str,
                                                    now: list[str]) -> None:
    assert core_after(held, said) == now


@pytest.mark.parametrize(("held", "said", "now"), [
    # Ana stayed beside Eva
    ("I live in Leeds and my sister is Ana.", "Forget it, it's Eva.",
     ["User lives in Leeds", "User's sister is Eva"]),
    ("I live in Leeds and my sister is Ana.", "Forget it. It's Eva.",
     ["User lives in Leeds", "User's sister is Eva"]),
    # "it" is Leeds, which Eva is not: nothing changes, and Eva is not stored beside Ana
    ("My sister is Ana and I live in Leeds.", "Forget it, it's Eva.",
     ["User lives in Leeds", "User's sister is Ana"]),
    ("My sister is Ana and I live in Leeds.", "Forget it. It's Eva.",
     ["User lives in Leeds", "User's sister is Ana"]),
])
def test_what_it_is_after_a_message_of_two_facts(held: str, said: str,
                                                 now: list[str]) -> None:
    assert core_after(held, said) == now
