"""Facts the offline policy stores of the user beside someone of theirs ("my wife and I")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.beliefs import believed
from tiermem.memory.text.extract import extract_facts, normalize_fact
from tiermem.memory.text.retractions import still_held


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", [
    "My wife and I moved to Porto.",
    "My wife Ana and I moved to Porto.",
])
def test_forgetting_a_joint_move_leaves_no_fact_of_it(memory: HierarchicalMemory,
                                                      said: str) -> None:
    chat(memory, said, f"Forget that {said[:1].lower()}{said[1:]}")
    assert list(core_of(memory)) == []


def test_forgetting_one_item_of_a_list_keeps_the_others(memory: HierarchicalMemory) -> None:
    chat(memory, "I'm allergic to peanuts and shellfish.", "Forget that I'm allergic to shellfish.")
    assert list(core_of(memory)) == ["User is allergic to peanuts"]


@pytest.mark.parametrize("fact", [
    "User's wife and User moved to Porto",
    "User's wife Ana and User moved to Porto",
])
def test_a_subject_of_two_is_no_list_of_items(fact: str) -> None:
    assert still_held(fact, frozenset({"wif", "ana", "porto", "residence"})) is None


@pytest.mark.parametrize(("said", "stored"), [
    (["My wife is vegan. I am too."], ["User's wife is vegan", "User is vegan"]),
    (["My wife is vegan and I am too."], ["User's wife is vegan", "User is vegan"]),
    (["My wife is vegan. So am I."], ["User's wife is vegan", "User is vegan"]),
    (["My wife is vegan.", "Me too."], ["User's wife is vegan"]),
    (["My wife likes jazz and I do too."], ["User's wife likes jazz", "User likes jazz"]),
    (["My wife has a dog, and so do I."], ["User's wife has a dog", "User has a dog"]),
    (["Tom is vegan. Me too!"], ["Tom is vegan", "User is vegan"]),
    # Someone of the user's sharing what the user or another is.
    (["I'm vegan and my wife is too."], ["User is vegan", "User's wife is vegan"]),
    (["I watch anime. Tom does too."], ["User: I watch anime", "Tom watches anime"]),
    (["My wife likes jazz and my son does too."],
     ["User's wife likes jazz", "User's son likes jazz"]),
    # Nothing before it says what is shared, or it is another verb: no fact.
    (["I am too."], []),
    (["My wife is vegan. I do too."], ["User's wife is vegan"]),
    # A closing "now" or "actually" still shares it; "now" ends what it replaces.
    (["My wife is vegan. I am too now."], ["User's wife is vegan", "User is vegan"]),
    (["My wife is vegan. I am too, actually."], ["User's wife is vegan", "User is vegan"]),
    # An opening word before it shares it all the same; an opening "now" ends as well.
    (["My wife is vegan. Actually, I am too."], ["User's wife is vegan", "User is vegan"]),
    (["My wife is vegan. Well, I am too."], ["User's wife is vegan", "User is vegan"]),
    (["My wife doesn't eat meat. Honestly, neither do I."],
     ["User's wife doesn't eat meat", "User doesn't eat meat"]),
    (["I eat meat.", "My wife doesn't eat meat. Now I don't either."],
     ["User's wife doesn't eat meat", "User doesn't eat meat"]),
    (["I live in Munich.", "My wife lives in Berlin and I do too now."],
     ["User's wife lives in Berlin", "User lives in Berlin"]),
    # Shared "now", the user's fact takes nothing from the one they share it with.
    (["My wife likes jazz. I do too now."], ["User's wife likes jazz", "User likes jazz"]),
    (["My wife likes jazz.", "I like jazz now."], ["User's wife likes jazz", "User likes jazz"]),
    # The verb said again of the place: where the user lives now is told.
    (["I live in Munich.", "My wife lives in Berlin and I live there too."],
     ["User's wife lives in Berlin", "User lives in Berlin"]),
    (["My wife lives in Berlin. I live there too."],
     ["User's wife lives in Berlin", "User lives in Berlin"]),
    # Sharing what is not so: told in full, or dropped when nothing says what.
    (["My wife doesn't eat meat. I don't either."],
     ["User's wife doesn't eat meat", "User doesn't eat meat"]),
    (["My wife doesn't eat meat, and neither do I."],
     ["User's wife doesn't eat meat", "User doesn't eat meat"]),
    (["My wife isn't vegan. Neither am I."], ["User's wife isn't vegan", "User is not vegan"]),
    (["My wife doesn't drink. Me neither."], ["User's wife doesn't drink", "User doesn't drink"]),
    (["My wife can't swim. I can't either."], ["User's wife can't swim"]),
    (["My wife is vegan. I don't either."], ["User's wife is vegan"]),
    # Someone of the user's sharing what the user is not: told in full, or dropped.
    (["I don't like jazz. My wife doesn't either."],
     ["User doesn't like jazz", "User's wife doesn't like jazz"]),
    (["I'm not vegan. Neither is my wife."], ["User is not vegan", "User's wife isn't vegan"]),
    (["I'm not vegan and my wife isn't either."],
     ["User is not vegan", "User's wife isn't vegan"]),
    (["I'm vegan. My wife doesn't either."], ["User is vegan"]),
])
def test_sharing_what_someone_is_is_stored_in_full(memory: HierarchicalMemory,
                                                   said: list[str], stored: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == stored


def test_an_extracted_share_is_told_in_full() -> None:
    assert [fact.text for fact in extract_facts("My wife is vegan. I'm too.")] == [
        "User's wife is vegan", "User is vegan"]


@pytest.mark.parametrize(("sentence", "stored"), [
    ("My wife thinks I'm vegan.", "User: My wife thinks I'm vegan"),
    ("My wife thinks that I work too much.", "User: My wife thinks that I work too much"),
    ("My sister loves me.", "User: My sister loves me"),
    # Someone's words, and a clause of the speaker's own, keep the "I" as before.
    ("My son says, I am hungry.", "User's son says, I am hungry"),
    ("My wife is Ana but I call her Annie.", "User's wife is Ana but I call her Annie"),
])
def test_a_first_person_in_the_head_clause_quotes_the_sentence(sentence: str,
                                                               stored: str) -> None:
    assert [fact.text for fact in extract_facts(sentence)] == [stored]


def test_a_quoted_belief_keeps_its_earlier_key() -> None:
    # Stored or forgotten as "User's wife thinks I'm vegan", it is still the same fact.
    assert normalize_fact("User: My wife thinks I'm vegan") == normalize_fact(
        "User's wife thinks I'm vegan")


def test_a_belief_of_someone_about_the_user_is_stored_quoted(memory: HierarchicalMemory) -> None:
    chat(memory, "My wife thinks I'm vegan.")
    assert list(core_of(memory)) == ["User: My wife thinks I'm vegan"]


@pytest.mark.parametrize("then", [
    "Forget that my wife thinks I'm vegan.",
    "My wife doesn't think I'm vegan anymore.",
])
def test_a_quoted_belief_of_someone_about_the_user_can_be_ended(memory: HierarchicalMemory,
                                                               then: str) -> None:
    chat(memory, "My wife thinks I'm vegan.", then)
    assert list(core_of(memory)) == []


@pytest.mark.parametrize(("said", "then"), [
    ("My wife thinks I'm vegan.", "My wife isn't vegan anymore."),
    ("My wife thinks I'm vegan.", "Forget that my wife is vegan."),
    ("My wife says I snore.", "My wife doesn't snore anymore."),
])
def test_what_someone_of_the_users_is_leaves_what_they_think_of_the_user(
        memory: HierarchicalMemory, said: str, then: str) -> None:
    chat(memory, said, then)
    assert f"User: {said.rstrip('.')}" in core_of(memory)


def test_a_quoted_belief_about_the_user_answers_of_the_user(memory: HierarchicalMemory) -> None:
    [_, reply] = chat(memory, "My wife thinks I'm vegan.", "Am I vegan?")
    assert "User: My wife thinks I'm vegan" in reply


@pytest.mark.parametrize(("held", "said", "left"), [
    ("I work at Acme.", "Tom and I work at Globex now.", ["Tom and User work at Globex"]),
    ("I work at Acme.", "My wife and I work at Globex now.",
     ["User's wife and User work at Globex"]),
    ("I live in Lisbon.", "Ana and I moved to Porto.", ["Ana and User moved to Porto"]),
    ("I live in Lisbon.", "Ana Silva and me moved to Porto.",
     ["Ana Silva and User moved to Porto"]),
    ("I live in Lisbon.", "My wife and I live in Porto now.",
     ["User's wife and User live in Porto"]),
])
def test_a_job_or_home_shared_with_someone_replaces_the_users(
        memory: HierarchicalMemory, held: str, said: str, left: list[str]) -> None:
    chat(memory, held, said)
    assert list(core_of(memory)) == left


def test_a_shared_fact_stored_quoted_is_still_known_by_its_words() -> None:
    fact = extract_facts("Tom and I work at Globex.")[0]
    assert fact.text == "Tom and User work at Globex"
    assert "User: Tom and I work at Globex" in fact.formers


@pytest.mark.parametrize(("said", "left"), [
    ("My sister lives in Rome now.", ["User's sister lives in Rome"]),
    ("My sister lives in Madrid.", ["User's sister lives in Madrid"]),
    # Another attribute, or someone else's, leaves the belief.
    ("My brother lives in Rome.",
     ["User: I think my sister lives in Madrid", "User's brother lives in Rome"]),
    ("My sister works at Acme.",
     ["User: I think my sister lives in Madrid", "User's sister works at Acme"]),
])
def test_a_plain_statement_ends_a_belief_of_the_same_attribute(
        memory: HierarchicalMemory, said: str, left: list[str]) -> None:
    chat(memory, "I think my sister lives in Madrid.", said)
    assert list(core_of(memory)) == left


@pytest.mark.parametrize(("fact", "holds"), [
    ("User: I think my sister lives in Madrid", "User's sister lives in Madrid"),
    ("User: I believe that my wife works at Acme", "User's wife works at Acme"),
    ("User: I think my boss said I'm fired", None),
    ("User's sister lives in Madrid", None),
])
def test_what_a_belief_holds(fact: str, holds: str | None) -> None:
    assert believed(fact) == holds


@pytest.mark.parametrize(("said", "stored"), [
    ("My wife likes jazz and I like jazz.", ["User's wife likes jazz", "User likes jazz"]),
    ("My wife works at Acme and I work at Globex.",
     ["User's wife works at Acme", "User works at Globex"]),
    # A clause that leans on the one before for what it says is told in full from it, or
    # stays with it when it cannot be.
    ("My wife likes jazz and I like it too.", ["User's wife likes jazz", "User likes jazz"]),
    ("My wife lives in Berlin and I live there too.",
     ["User's wife lives in Berlin", "User lives in Berlin"]),
    ("My wife loves jazz and I like it too.", ["User's wife loves jazz and User likes it too"]),
    ("My wife loves her job and I love it too.",
     ["User's wife loves her job and User loves it too"]),
    ("My wife loves her job and I love mine.", ["User's wife loves her job and User loves mine"]),
])
def test_a_clause_of_someones_own_is_no_half_of_a_subject(memory: HierarchicalMemory,
                                                          said: str, stored: list[str]) -> None:
    chat(memory, said)
    assert list(core_of(memory)) == stored


def test_a_fact_stored_with_the_joined_subject_is_still_known() -> None:
    fact = extract_facts("My wife likes jazz and I like jazz.")[0]
    assert fact.text == "User's wife likes jazz and User likes jazz"
    assert "User's wife likes jazz and User like jazz" in fact.formers
