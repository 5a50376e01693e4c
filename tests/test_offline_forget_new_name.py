"""A name told as the new one of someone a request to forget names ("Forget my boss. It's
Zed."): any capitalised word alone is a name there, but one that stresses a remark
("It's Complicated.")."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("held", "said", "now"), [
    # a name the list of common first names misses was read as a remark, and lost unsaid
    ("My boss is Ann.", "Forget my boss. It's Zed.", ["User's boss is Zed"]),
    ("My boss is Ann.", "Forget my boss, it's Zed.", ["User's boss is Zed"]),
    ("My boss is Ann.", "Forget my boss. It is Kai.", ["User's boss is Kai"]),
    ("My wife is Ana.", "Forget my wife. It's Yara.", ["User's wife is Yara"]),
    ("My dog is Rex.", "Forget my dog, it's Bolt.", ["User's dog is Bolt"]),
    ("My landlord is Mr Smith.", "Forget my landlord. It's Jones.",
     ["User's landlord is Jones"]),
])
def test_a_capitalised_word_is_the_new_name_of_someone_held(held: str, said: str,
                                                            now: list[str]) -> None:
    assert core_after(held, said) == now


@pytest.mark.parametrize("said", ["Forget my boss. It's Complicated.",
                                  "Forget my boss, it's Private.",
                                  "Forget my boss. It's Nobody.",
                                  "Forget my boss. It's Eva's."])
def test_a_word_that_names_no_one_is_no_new_name(said: str) -> None:
    assert core_after("My boss is Ann.", said) == []


def test_a_capitalised_word_of_a_thing_held_is_still_a_remark() -> None:
    assert core_after("My password is hunter2.", "Forget my password, it's Important.") == []


@pytest.mark.parametrize(("held", "said"), [
    # "User's sister is 4321" and "User's sister is Eva's" were stored
    ((), "Forget my sister and it's 4321."),
    ((), "Forget my sister, it's 4321."),
    (("My sister is Ana.",), "Forget my sister. It's Eva's now."),
    (("My sister is Ana.",), "Forget my sister, it's Eva's now."),
])
def test_a_number_or_another_s_is_no_one_s_new_name(held: tuple[str, ...], said: str) -> None:
    assert core_after(*held, said) == []


@pytest.mark.parametrize("word", ["London", "Paris", "Porto", "Yes", "Thanks", "Sorry",
                                  "Nope", "Late", "January", "Christmas", "Google", "Hers",
                                  "Mum", "Z.", "Lost", "Expired", "Outdated", "Hopeless"])
def test_an_ordinary_capitalised_word_is_no_new_name(word: str) -> None:
    # each was stored as the new name ("User's boss is London", "User's sister is Thanks")
    assert core_after("My boss is Ann.", f"Forget my boss. It's {word}") == []
    assert core_after("My sister is Ana.", f"Forget my sister, it's {word}") == []
    assert core_after("My sister is Ana.", f"Scratch that. It's {word}") == []


@pytest.mark.parametrize("name", ["Alfred", "Mildred", "Winifred", "Sterling", "Irving",
                                  "Mohammed", "Khaled"])
def test_a_first_name_ending_as_a_state_is_still_a_new_name(name: str) -> None:
    # each ends as "Expired" or "Hopeless" does, and was lost with the one it replaced
    assert core_after("My boss is Ann.", f"Forget my boss. It's {name}.") == [
        f"User's boss is {name}"]
    assert core_after("My sister is Ana.", f"Scratch that. It's {name}.") == [
        f"User's sister is {name}"]


@pytest.mark.parametrize("word", ["London", "Paris", "Google"])
def test_the_reply_says_a_word_that_names_no_one_was_not_kept(word: str) -> None:
    # Ann went and the reply said only that: the word told as her successor went unmentioned
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My boss is Ann.", f"Forget my boss. It's {word}.")[-1]
        assert [f.text for f in memory.core] == []
    assert f'I did not keep "{word}" as the new one: it does not read as a name.' in reply
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        kept = chat(memory, "My boss is Ann.", "Forget my boss. It's Eva.")[-1]
    assert "did not keep" not in kept


@pytest.mark.parametrize("word", ["Hmm", "Um", "Sir", "Madam", "Professor", "Dr", "Miss",
                                  "Hubby", "Honey", "Babe", "Lyon", "Milan"])
def test_a_filler_a_title_a_pet_name_or_a_city_is_no_new_name(word: str) -> None:
    # each was stored as the new name ("User's boss is Sir", "User's boss is Lyon")
    assert core_after("My boss is Ann.", f"Forget my boss. It's {word}.") == []
    assert core_after("My sister is Ana.", f"Forget my sister, it's {word}") == []


@pytest.mark.parametrize("name", ["Professor Lee", "Dr Smith", "Mrs Jones"])
def test_a_title_before_a_name_is_still_a_new_name(name: str) -> None:
    assert core_after("My boss is Ann.", f"Forget my boss. It's {name}.") == [
        f"User's boss is {name}"]


def test_the_reply_says_a_title_or_a_city_was_not_kept() -> None:
    for word in ("Sir", "Lyon"):
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            reply = chat(memory, "My boss is Ann.", f"Forget my boss. It's {word}.")[-1]
        assert f'I did not keep "{word}" as the new one' in reply
