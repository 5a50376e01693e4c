"""What was meant said with no slip named ("Sorry, I meant a pixel", "No, pgcat") changes
nothing, and the reply names the fact the last message told, which it would correct."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.fragments import no_then


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("statement", "slip", "fact", "meant"), [
    ("I use an iPhone.", "Sorry, I meant a pixel.", "User uses an iPhone", "a pixel"),
    ("I use pgBouncer.", "No, pgcat.", "User uses pgBouncer", "pgcat"),
    ("I use pgBouncer.", "Nope - pgcat", "User uses pgBouncer", "pgcat"),
    # "It's 4321" was stored beside the PIN
    ("My PIN is 1234.", "Sorry, it's 4321.", "User's PIN is 1234", "4321"),
    ("My PIN is 1234.", "Wait, it's 4321.", "User's PIN is 1234", "4321"),
    ("I live in Lisbon.", "Hold on, it's Porto.", "User lives in Lisbon", "Porto"),
    # a word with a digit in it is meant too: "It's hunter3" was stored beside hunter2
    ("My password is hunter2.", "Sorry, it's hunter3.", "User's password is hunter2",
     "hunter3"),
    ("My username is bob.", "Oops, it's bob99.", "User's username is bob", "bob99"),
    # said to be so now, or after "No," or "Actually,": "It's hunter3" was stored
    *(("My password is hunter2.", slip, "User's password is hunter2", "hunter3")
      for slip in ("Wait, it's hunter3 now.", "It's hunter3 now.", "It's now hunter3.",
                   "No, it's hunter3.", "Actually, it's hunter3.", "Oops, it's hunter3 actually.")),
    # a word and a number apart: "It's hunter 3" was stored beside hunter2
    ("My password is hunter2.", "No, it's hunter 3.", "User's password is hunter2", "hunter 3"),
    ("My locker is room 4.", "Sorry, it's room 5.", "User's locker is room 4", "room 5"),
    ("My password is hunter2.", "It's hunter 3 now.", "User's password is hunter2", "hunter 3"),
    # a slip noticed before the word meant: the generic reply, the word dropped unsaid
    *((said, f"{cue}, {meant}.", fact, meant) for cue in ("No wait", "Hold on", "Whoops")
      for said, fact, meant in (("I'm 30.", "User is 30", "31"),
                                ("I like tea.", "User likes tea", "coffee"),
                                ("My brother is Tom.", "User's brother is Tom", "Tim"))),
    ("I'm 30.", "Sorry, 31.", "User is 30", "31"),
])
def test_the_reply_names_the_fact_and_core_is_kept(memory: HierarchicalMemory, statement: str,
                                                   slip: str, fact: str, meant: str) -> None:
    reply = chat(memory, statement, slip)[-1]
    assert list(core_of(memory)) == [fact]
    assert reply == (f'(offline) I can\'t tell which word "{meant}" corrects in "{fact}", so '
                     f'I corrected nothing; say what it corrects: "I meant {meant}, not ...".')


@pytest.mark.parametrize("before", [(), ("My name is Ana.", "I live in Lisbon.")])
def test_a_slip_in_the_message_that_told_it_names_its_fact(
        memory: HierarchicalMemory, before: tuple[str, ...]) -> None:
    # "I'm tired. I meant hungry." named the fact the last message told, "User lives in Lisbon"
    reply = chat(memory, *before, "I'm tired. I meant hungry.")[-1]
    assert "User is tired" in core_of(memory)
    assert reply.endswith('(offline) I can\'t tell which word "hungry" corrects in "User is '
                          'tired", so I corrected nothing; say what it corrects: "I meant '
                          'hungry, not ...".')


@pytest.mark.parametrize(("said", "fact"), [
    ("I'm 30. I meant 31.", "User is 31"), ("I'm 30. Sorry, it's 31.", "User is 31"),
    ("My PIN is 1234. I meant 4321.", "User's PIN is 4321"),
    ("I have 2 cats. I meant 3.", "User has 3 cats")])
def test_a_number_meant_corrects_the_one_number_just_told(
        memory: HierarchicalMemory, said: str, fact: str) -> None:
    # it asked which word 31 corrects in "User is 30", the only word it could
    reply = chat(memory, "I live in Lisbon.", said)[-1]
    assert sorted(core_of(memory)) == sorted([fact, "User lives in Lisbon"])
    assert reply.endswith(f": {fact}.") and "(offline) Corrected" in reply


@pytest.mark.parametrize("said", ["I live at 5 Elm St, flat 2. I meant 6.",
                                  "My flight is at 7pm. I meant 9pm.", "I'm 30. I meant 30."])
def test_a_number_meant_of_no_one_number_asks(memory: HierarchicalMemory, said: str) -> None:
    assert "Corrected" not in chat(memory, said)[-1]


@pytest.mark.parametrize(("said", "kept"), [
    # the last statement's number was taken, though the reply said nothing was corrected
    ("I'm 30. Tom is 40. I meant 31.", ["Tom is 40", "User is 30"]),
    ("I'm 30. My PIN is 1234. I meant 31.", ["User is 30", "User's PIN is 1234"])])
def test_a_number_meant_after_two_numbers_told_keeps_both(
        memory: HierarchicalMemory, said: str, kept: list[str]) -> None:
    reply = chat(memory, said)[-1]
    assert sorted(core_of(memory)) == kept
    assert "I can't tell which word \"31\" corrects" in reply


def test_a_last_message_of_two_facts_names_neither(memory: HierarchicalMemory) -> None:
    reply = chat(memory, "I use pgBouncer and I live in Lyon.", "No, pgcat.")[-1]
    assert len(core_of(memory)) == 2
    assert reply.startswith('(offline) I can\'t tell which word "pgcat" corrects, so')


@pytest.mark.parametrize("answer", ["No, thanks.", "No, seriously.", "No, nothing.",
                                    "No, honestly.", "Sorry, Tom.", "Hold on, please.",
                                    "Wait, everyone.", "Oops, sorry."])
def test_no_then_an_answer_is_no_slip(memory: HierarchicalMemory, answer: str) -> None:
    reply = chat(memory, "I use pgBouncer.", answer)[-1]
    assert "corrects" not in reply
    assert list(core_of(memory)) == ["User uses pgBouncer"]


@pytest.mark.parametrize(("text", "meant"), [
    ("No, pgcat.", "pgcat"), ("no: Google Cloud", "Google Cloud"), ("No, C++!", "C++"),
    ("No, thanks.", None), ("No, not really", None), ("No, I live in Paris.", None),
    ("No, it is fine", None), ("No pgcat", None), ("pgcat", None),
    ("No wait, coffee.", "coffee"), ("Hang on - Porto", "Porto"), ("Sorry, 31.", "31"),
    ("Sorry, Tom.", None), ("Wait, what?", None),
])
def test_no_then_reads_a_word_said_in_place_of_another(text: str, meant: str | None) -> None:
    assert no_then(text) == meant


@pytest.mark.parametrize("remark", ["Sorry, it's 2am.", "Wait, it's Monday.", "Sorry, it's late.",
                                    "Sorry, it's OK."])
def test_it_is_after_a_slip_noticed_may_say_how_things_are(memory: HierarchicalMemory,
                                                          remark: str) -> None:
    reply = chat(memory, "My PIN is 1234.", remark)[-1]
    assert "corrects" not in reply
    assert "User's PIN is 1234" in core_of(memory)


@pytest.mark.parametrize(("before", "said", "stored"), [
    # a word and a number said to be so now, with no slip word: asked which word it corrects
    ((), "It's day 3 now.", "It's day 3"),
    (("I live in Lisbon.",), "It's day 3 now.", "It's day 3"),
    ((), "It's week 2 now.", "It's week 2"),
    # a word of how near before a number is no value: asked of "almost 5"
    *(((), f"No, it's {near} 5.", f"It's {near} 5")
      for near in ("almost", "nearly", "probably", "exactly", "roughly", "still", "already")),
])
def test_a_statement_of_a_word_and_a_number_is_stored(
        memory: HierarchicalMemory, before: tuple[str, ...], said: str, stored: str) -> None:
    reply = chat(memory, *before, said)[-1]
    assert "corrects" not in reply
    assert stored in core_of(memory)


@pytest.mark.parametrize(("statement", "slip", "fact", "denied"), [
    # "It's not 4321" was stored beside the PIN, "It's not Porto" beside the city
    ("My PIN is 1234.", "Sorry, it's not 4321.", "User's PIN is 1234", "4321"),
    ("I live in Lisbon.", "Wait, it's not Porto.", "User lives in Lisbon", "Porto"),
    ("My password is hunter2.", "No, it isn't hunter3.", "User's password is hunter2", "hunter3"),
    # after "Err," "Um," or "Well," it was stored as said
    ("I live in Lisbon.", "Err, it's not Porto.", "User lives in Lisbon", "Porto"),
    ("I live in Lisbon.", "Um, it isn't Porto.", "User lives in Lisbon", "Porto"),
    ("I live in Lisbon.", "Well, it's not Porto.", "User lives in Lisbon", "Porto"),
])
def test_a_denial_after_a_slip_stores_nothing_and_says_so(
        memory: HierarchicalMemory, statement: str, slip: str, fact: str, denied: str) -> None:
    reply = chat(memory, statement, slip)[-1]
    assert list(core_of(memory)) == [fact]
    assert reply == (f'(offline) "not {denied}" tells nothing that is so, so I stored nothing '
                     f'and kept "{fact}" as it is.')


@pytest.mark.parametrize("slip", ["Sorry, it's not OK.", "Wait, it's not Monday.",
                                  "Well, it's not Monday.", "Um, it's not OK."])
def test_a_denial_of_how_things_are_is_no_slip(memory: HierarchicalMemory, slip: str) -> None:
    reply = chat(memory, "I'm tired.", slip)[-1]
    assert "tells nothing" not in reply
