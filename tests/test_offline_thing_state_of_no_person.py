"""What a thing is or does ("Tom's car is red", "It works", "The API is slow") is no
state of a person's: a bare denial or agreement of a person after it ("Ana isn't", "I am
too") is not told in full, where it stored "Ana isn't red" or "User is red". Of another
thing, or of a person after a person's, it is told in full as before."""

from __future__ import annotations

from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory

TOLD_OF_NO_PERSON = {
    "Tom's car is red. Ana isn't.": ["Tom's car is red, Ana isn't"],
    "It works. Ana doesn't.": ["It works, Ana doesn't"],
    "The API is slow. Ana isn't.": ["The API is slow, Ana isn't"],
    "My car is red. My wife isn't.": ["User's car is red, User's wife isn't"],
    "It is slow. Ana isn't.": ["It is slow, Ana isn't"],
    "Tom's car is red. I am too.": ["Tom's car is red"],
    "Tom's car is red. Ana is too.": ["Tom's car is red"],
    "The API is slow and I am too.": ["The API is slow"],
    "My car is red. I am too.": ["User's car is red"],
    "The API has a bug. I have too.": ["The API has a bug"],
}
TOLD_IN_FULL = {
    "It works. Redis doesn't.": ["It works", "Redis doesn't work"],
    "The API is slow. Redis isn't.": ["Redis isn't slow", "The API is slow"],
    "Tom is late. Ana isn't.": ["Ana isn't late", "Tom is late"],
    "Tom's wife is a nurse. I am too.": ["Tom's wife is a nurse", "User is a nurse"],
    "My dog is friendly. Ana isn't.": ["Ana isn't friendly", "User's dog is friendly"],
}


def test_a_things_state_is_told_of_no_person_and_a_persons_still_is() -> None:
    said = {**TOLD_OF_NO_PERSON, **TOLD_IN_FULL}
    assert {message: core_after(message) for message in said} == said


def test_people_together_or_a_pet_by_name_are_no_thing() -> None:
    # a team's or a company's state may be its people's: "User is remote" is told
    said = {
        "The team is remote. I am too.": ["The team is remote", "User is remote"],
        "My team is remote. I am too.": ["User is remote", "User's team is remote"],
        "The company is remote. Ana isn't.": ["Ana isn't remote", "The company is remote"],
        "My family is vegan. I am too.": ["User is vegan", "User's family is vegan"],
        "My dog Rex is lazy. Max isn't.": ["Max isn't lazy", "User's dog Rex is lazy"],
        "My dog Rex is lazy. My cat isn't.": ["User's cat isn't lazy", "User's dog Rex is lazy"],
    }
    assert {message: core_after(message) for message in said} == said


def test_a_persons_share_of_a_things_state_is_said_not_stored() -> None:
    """Where "I am too" or "I do too" shares a thing's state, nothing is stored of it and
    the reply says so, where it went unmentioned or said only that it runs offline."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        replies = chat(memory, "Tom's car is red. I am too.", "It works.", "I do too.")
        assert sorted(core_of(memory)) == ["It works", "Tom's car is red"]
    for reply, share in zip(replies[::2], ("I am too.", "I do too."), strict=True):
        assert reply.splitlines()[-1].startswith(f'(offline) "{share}" alone does not say')


def test_a_persons_denial_of_the_last_messages_thing_is_said_not_stored() -> None:
    """"Ana isn't." opening the message after one saying what a thing is or does stores
    nothing, and the reply says so and why, where it said only that it runs offline; one
    that can be told in full, or of a thing, gets no such note."""
    said = (("Tom's car is red.", "Ana isn't.", "Ana isn't."),
            ("The API is slow.", "Ana isn't. I like tea.", "Ana isn't."),
            ("It works.", "Ana doesn't.", "Ana doesn't."))
    for stated, message, denial in said:
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            reply = chat(memory, stated, message)[-1]
            assert not any("Ana" in fact for fact in core_of(memory))
        assert reply.splitlines()[-1] == (
            f'(offline) "{denial}" alone does not say what is denied ("{stated[:-1]}" is said '
            "of a thing, not of a person), so I did not store it; say it in full to store it.")
    for stated, denial in (("Tom smokes.", "Ana doesn't."), ("The API is slow.", "Redis isn't."),
                           ("The team is remote.", "Ana isn't.")):
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            assert "is denied" not in chat(memory, stated, denial)[-1]
