"""The offline policy on a value taken back and said again in one message ("My locker
code is 1234. Forget that, it's 5678."): the new value is held, and the old one never is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_after
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.said_again import corrected_in_place


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "asked", "held", "old"), [
    ("My locker code is 1234. Forget that, it's 5678.", "What is my locker code?",
     "User's locker code is 5678", "1234"),
    ("My flight is at 7pm, forget that, it's at 9pm.", "When is my flight?",
     "User's flight is at 9pm", "7pm"),
])
def test_the_value_said_again_is_held_and_answered(memory: HierarchicalMemory, said: str,
                                                   asked: str, held: str, old: str) -> None:
    replies = _chat(memory, said, asked)
    assert list(_core(memory)) == [held]
    assert held in replies[-1]
    assert old not in replies[-1]


def test_what_else_the_sentence_says_stays() -> None:
    assert corrected_in_place(["My flight is at 7pm, forget that, it's at 9pm, and my "
                               "gym is FitCo."]) == ["My flight is at 9pm, and my gym is FitCo."]
    assert corrected_in_place(["My code is 1234.", "Forget that, it's 5678, thanks."]) == [
        "My code is 5678.", "Thanks."]


@pytest.mark.parametrize("messages", [
    ("My flat is in Lisbon and my locker code is 1234. Forget that, it's 5678.",),
    ("My flat is in Lisbon and my locker code is 1234.", "Forget that, it's 5678."),
])
def test_only_the_last_of_joined_statements_is_said_again(memory: HierarchicalMemory,
                                                          messages: tuple[str, ...]) -> None:
    _chat(memory, *messages)
    assert set(_core(memory)) == {"User's flat is in Lisbon", "User's locker code is 5678"}


def test_nothing_else_is_rewritten() -> None:
    sentences = ["My code is 1234.", "Forget that, I'm vegetarian now."]  # no new value
    assert corrected_in_place(sentences) == sentences


def test_a_value_said_of_nothing_named_leaves_the_request_alone() -> None:
    # nothing before it says what "it" is: the request stays, the value goes
    assert corrected_in_place(["Forget that, it's 5678."]) == ["Forget that."]


@pytest.mark.parametrize("said", [
    ["I like tea. Forget that, it's Monday."], ["I like tea.", "Forget that. It's Monday."],
    ["I live in Lisbon. Forget that, it's 2am."], ["Tom smokes. Forget that, it's Ana."],
    ["I like jazz. Forget that, it's 2am."],
])
def test_a_request_with_a_value_in_place_of_no_value_still_takes_back(said: list[str]) -> None:
    # the fact stayed, and "Scratch that, it's Globex" was stored beside it
    assert core_after(*said) == []


def test_a_value_in_place_of_no_value_is_not_said_to_be_of_another_kind(
        memory: HierarchicalMemory) -> None:
    # "what was taken back was a value of another kind", of "I like tea", which gave none
    reply = _chat(memory, "I like tea. Forget that, it's Monday.")[-1]
    assert "another kind" not in reply
    assert "\"it's Monday\" does not say what it is of (it is no value of the kind" in reply


def test_a_message_of_its_own_corrects_the_last_one(memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "My locker code is 1234.", "Forget that, it's 5678.",
                    "What is my locker code?")
    assert list(_core(memory)) == ["User's locker code is 5678"]
    assert "1234" not in replies[-1]


def test_a_word_of_hesitation_before_it_is_passed_over(memory: HierarchicalMemory) -> None:
    _chat(memory, "My locker code is 1234, no wait, forget that, it's 5678.")
    assert list(_core(memory)) == ["User's locker code is 5678"]


@pytest.mark.parametrize("said", ["Forget it, it's not important.", "Forget that, it's fine.",
                                  "Forget that, it's OK.", "Forget that, it's not 1234."])
def test_a_word_on_what_went_is_no_new_value(said: str) -> None:
    request = said.split(",")[0] + "."
    assert corrected_in_place(["My locker code is 1234.", said]) == [
        "My locker code is 1234.", request]
    assert corrected_in_place([said], "My locker code is 1234.") == [request]


@pytest.mark.parametrize("said", ["Forget that, it's not important.", "Forget that, it's OK."])
def test_a_word_on_what_went_still_forgets_it(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, f"My locker code is 1234. {said}")
    assert list(_core(memory)) == []
    _chat(memory, "My locker code is 4321.", said)
    assert list(_core(memory)) == []


def test_a_word_on_what_went_leaves_what_follows() -> None:
    assert corrected_in_place(["Forget it, it's fine, I'll do it myself."]) == [
        "Forget it, I'll do it myself."]


@pytest.mark.parametrize("said", ["Forget that, it's 5678 not 1234",
                                  "Forget that, it's 5678, not 1234.",
                                  "Forget that, it's 5678 instead of 1234.",
                                  "Forget that, it's 5678 instead.",
                                  "Forget that, it's actually 5678."])
def test_the_value_taken_back_is_not_kept(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, "My locker code is 1234.", said)
    assert list(_core(memory)) == ["User's locker code is 5678"]
    assert corrected_in_place([f"My locker code is 1234, {said}"]) == [
        "My locker code is 5678."]


@pytest.mark.parametrize("said", ["Forget that, it's 2am and I'm tired.",
                                  "Forget that, it's Friday."])
def test_the_time_it_is_is_no_new_value(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, "My locker code is 1234.", said)
    assert list(_core(memory)) == []


def test_an_hour_is_a_new_value_of_an_hour() -> None:
    # taken back from the message before, the request stays with the value said again
    assert corrected_in_place(["Forget that, it's 7am."], "My alarm is 6am.") == [
        "Forget that.", "My alarm is 7am."]


def test_an_hour_said_with_at_is_said_again_with_it(memory: HierarchicalMemory) -> None:
    _chat(memory, "My alarm is at 6am. Forget that, it's 7am.")
    assert list(_core(memory)) == ["User's alarm is at 7am"]
    assert corrected_in_place(["Forget that, it's Tuesday."], "My meeting is on Monday.") == [
        "Forget that.", "My meeting is on Tuesday."]


@pytest.mark.parametrize(("said", "held"), [
    ("My alarm is set for 6am. Forget that, it's 7am.", "User's alarm is set for 7am"),
    ("My alarm is for 6am. Forget that, it's 7am.", "User's alarm is for 7am"),
])
def test_an_hour_said_with_for_is_said_again_with_it(memory: HierarchicalMemory, said: str,
                                                     held: str) -> None:
    _chat(memory, said)
    assert list(_core(memory)) == [held]


@pytest.mark.parametrize(("said", "value"), [
    (["My wife is a nurse. Ignore that, it's on Monday."], "it's on Monday"),
    (["The build is failing. Ignore that, it's 5678."], "it's 5678"),
    (["My wife is a nurse. Scratch that, it's in Porto."], "it's in Porto"),
    (["My wife is a nurse.", "Ignore that, it's on Monday."], "it's on Monday"),
])
def test_a_value_of_another_kind_is_not_stored_and_the_reply_says_so(
        memory: HierarchicalMemory, said: list[str], value: str) -> None:
    # "User's wife is on Monday" and "The build is 5678" were stored
    reply = _chat(memory, *said)[-1]
    assert _core(memory) == {}
    assert (f'(offline) "{value}" does not say what it is of (it is no value of the kind '
            "taken back), so I did not store it; say it in full to store it.") in reply


def test_a_value_of_the_same_kind_is_said_again() -> None:
    for said, held in [("My flat is in Lisbon. Forget that, it's in Porto.", "flat is in Porto"),
                       ("My gym is Ironworks. Forget that, it's FitLife.", "gym is FitLife"),
                       ("My email is a@b.com. Forget that, it's c@d.com.", "email is c@d.com")]:
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            reply = _chat(memory, said)[0]
            assert list(_core(memory)) == [f"User's {held}"] and "another kind" not in reply


@pytest.mark.parametrize(("said", "held"), [
    (["I like tea. Forget that, I meant coffee."], "User likes coffee"),
    (["I like tea. Ignore that, I meant coffee."], "User likes coffee"),
    (["I live in Lisbon. Forget that, I meant Porto."], "User lives in Porto"),
    (["I like tea.", "Forget that, I meant coffee."], "User likes coffee"),
    (["My gym is Ironworks. Scratch that, I meant FitLife."], "User's gym is FitLife"),
    # opened as a request to forget may open ("Sorry, forget that")
    (["I like tea. Sorry, forget that, I meant coffee."], "User likes coffee"),
    (["My PIN is 1234. No wait, forget that, I meant 4321."], "User's PIN is 4321"),
    (["I live in Lisbon.", "Oops, scratch that, I meant Porto."], "User lives in Porto"),
])
def test_what_was_meant_takes_the_place_of_the_one_value(memory: HierarchicalMemory,
                                                        said: list[str], held: str) -> None:
    # the tea was forgotten and "coffee" lost without a word
    _chat(memory, *said)
    assert list(_core(memory)) == [held]


@pytest.mark.parametrize(("said", "held"), [
    (["I live in Lisbon. Forget that, it's Porto."], "User lives in Porto"),
    (["I live in Lisbon.", "Forget that, it's Porto."], "User lives in Porto"),
    (["I live in Lisbon. No wait, scratch that, it's Porto, not Lisbon."], "User lives in Porto"),
    (["I work at Acme. Scratch that, it's Globex."], "User works at Globex"),
    (["I moved to Lisbon. Forget that, it's New York."], "User moved to New York"),
])
def test_its_value_after_a_fact_with_no_is_takes_the_place_of_its_one_value(
        memory: HierarchicalMemory, said: list[str], held: str) -> None:
    # as "Forget that, I meant Porto" does: read as a value said again, no "is" held
    # the place for Porto, and Lisbon was forgotten and Porto lost
    reply = _chat(memory, *said)[-1]
    assert list(_core(memory)) == [held] and "does not say" not in reply


@pytest.mark.parametrize("said", ["I like tea. Forget that, it's late.",
                                  "I like tea. Forget it, it's raining.",
                                  "I like green tea. Forget that, it's Porto."])
def test_its_remark_after_a_fact_with_no_is_is_no_value(said: str) -> None:
    assert core_after(said) == []


@pytest.mark.parametrize(("said", "meant"), [
    ("I like green tea. Forget that, I meant coffee.", "coffee"),
    ("I am allergic to peanuts. Ignore that, I meant cats.", "cats"),
    ("I live in Lisbon. Forget that, I meant coffee.", "coffee"),
    ("My flight is at 7pm. Scratch that, I meant Porto.", "Porto"),
    ("My wife is a nurse. Strike that, I meant coffee.", "coffee"),
    ("I am a nurse. Forget that, I meant coffee.", "coffee"),
])
def test_what_was_meant_of_no_one_value_is_said_not_stored(memory: HierarchicalMemory,
                                                          said: str, meant: str) -> None:
    reply = _chat(memory, said)[0]
    assert _core(memory) == {}
    assert (f'(offline) I could not tell what "{meant}" takes the place of in what you took '
            "back, so I did not store it; say the fact in full to store it.") in reply


@pytest.mark.parametrize(("said", "kept"), [
    (["The meeting is on Friday. Scratch that. It's on Monday."], ["The meeting is on Monday"]),
    (["The meeting is on Friday.", "Scratch that. It's on Monday."],
     ["The meeting is on Monday"]),
    (["My locker code is 1234. Forget that. It's 5678."], ["User's locker code is 5678"]),
    (["My alarm is at 6am. Ignore that. It's 7am."], ["User's alarm is at 7am"]),
    # of another kind, as the comma form: not stored, and what it took back goes
    (["My wife is a nurse. Ignore that. It's on Monday."], []),
    # nothing of one value taken back: the request still takes the tea back
    (["I like tea. Forget that. It's Monday."], []),
])
def test_the_new_value_in_the_sentence_after_the_request_is_said_again(
        said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize("said", [
    ["I live in Lisbon.", "Forget that. I meant Porto."],
    ["I live in Lisbon.", "Forget that. Sorry, I meant Porto."],
    ["I like tea. Scratch that. I meant coffee."],
])
def test_what_was_meant_in_a_sentence_of_its_own_takes_the_place_too(
        memory: HierarchicalMemory, said: list[str]) -> None:
    # Lisbon was forgotten and Porto lost, the reply asking which word "Porto" corrects
    reply = _chat(memory, *said)[-1]
    assert list(_core(memory)) in (["User lives in Porto"], ["User likes coffee"])
    assert "corrects" not in reply


def test_what_was_meant_of_no_one_value_is_said_apart_as_after_a_comma(
        memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I like green tea. Forget that. I meant coffee.")[0]
    assert _core(memory) == {}
    assert 'I could not tell what "coffee" takes the place of' in reply
    assert "corrects" not in reply


@pytest.mark.parametrize("meant", ["I meant my brother.", "Sorry, I meant my brother.",
                                   "I meant to say my brother.", "I mean my brother."])
@pytest.mark.parametrize("taken_back", ["Forget that. ", "Forget that, ", "Scratch that. "])
def test_a_thing_meant_after_forget_that_is_the_one_forgotten(
        memory: HierarchicalMemory, taken_back: str, meant: str) -> None:
    # the brother, said last, went as "that", and "User's brother" was stored
    _chat(memory, "My sister is Ana.", "My brother is Tom.", taken_back + meant)
    assert list(_core(memory)) == ["User's sister is Ana"]
    # and the sister goes when she is the one meant, not the brother said last
    _chat(memory, "My brother is Tom.", taken_back + meant.replace("brother", "sister"))
    assert list(_core(memory)) == ["User's brother is Tom"]


@pytest.mark.parametrize("said", ["I meant my brother.", "Sorry, I meant my brother."])
def test_a_thing_meant_with_nothing_asked_changes_nothing(memory: HierarchicalMemory,
                                                          said: str) -> None:
    # "User's brother" was stored, and the reply said "Noted."
    reply = _chat(memory, "My sister is Ana.", "My brother is Tom.", said)[-1]
    assert sorted(_core(memory)) == ["User's brother is Tom", "User's sister is Ana"]
    assert "I corrected nothing" in reply and "Noted" not in reply


@pytest.mark.parametrize(("said", "value"), [
    # an hour is no day, nor a day an hour; a number is no one's name for a sister
    ("The meeting is on Friday. Scratch that, it's 7am.", "it's 7am"),
    ("My alarm is at 6am. Strike that. It's Tuesday.", "It's Tuesday"),
    ("My sister is Ana. Scratch that, it's 4321.", "it's 4321"),
    ("My dog is called Rex. Strike that, it's on Monday.", "it's on Monday"),
])
def test_a_new_value_that_does_not_fit_the_one_taken_back_is_not_stored(
        memory: HierarchicalMemory, said: str, value: str) -> None:
    reply = _chat(memory, said)[0]
    assert list(_core(memory)) == []
    assert f'"{value}" does not say what it is of' in reply


@pytest.mark.parametrize(("said", "held"), [
    ("My dog is called Rex. Disregard that, it's Porto.", "User's dog is called Porto"),
    ("My sister is Ana. Scratch that, it's Maria.", "User's sister is Maria"),
    ("The meeting is on Friday. Scratch that, it's Monday.", "The meeting is on Monday"),
    ("My cat is Tom. Scratch that. It's Porto.", "User's cat is Porto"),
    # a name said again as called is a name ("it's called Max" was lost, Rex forgotten)
    ("My dog is called Rex. Strike that, it's called Max.", "User's dog is called Max"),
    ("My son is called Leo. Scratch that, it's called Max.", "User's son is called Max"),
    ("My dog is Rex. Strike that, it's called Max.", "User's dog is called Max"),
])
def test_a_new_value_fitting_the_one_taken_back_takes_its_place(
        memory: HierarchicalMemory, said: str, held: str) -> None:
    _chat(memory, said)
    assert list(_core(memory)) == [held]


@pytest.mark.parametrize("said", [["The meeting is on Friday.", "Disregard that, it's at 9pm."],
                                  ["The meeting is on Friday. Disregard that, it's at 9pm."]])
def test_a_new_value_said_after_a_request_takes_the_old_one_back_either_way(
        memory: HierarchicalMemory, said: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == ["The meeting is at 9pm"]


@pytest.mark.parametrize("said", ["I meant it.", "I mean it.", "No, I really meant it!",
                                  "I meant it, seriously."])
def test_insisting_with_nothing_asked_stores_nothing(memory: HierarchicalMemory,
                                                     said: str) -> None:
    # "User: I meant it" was stored, pointing at nothing
    reply = _chat(memory, "My PIN is 1234.", said)[-1]
    assert list(_core(memory)) == ["User's PIN is 1234"]
    assert "Noted" not in reply


def test_insisting_after_a_statement_keeps_the_statement_alone() -> None:
    assert core_after("I'm 30. I mean it.") == ["User is 30"]


@pytest.mark.parametrize("said", ["I meant my brother and I'm done.",
                                  "I meant my brother, I'm sorry."])
def test_a_thing_meant_beside_an_aside_changes_nothing(memory: HierarchicalMemory,
                                                       said: str) -> None:
    # "User's brother" was stored while the reply said nothing was corrected
    reply = _chat(memory, "My sister is Ana.", "My brother is Tom.", said)[-1]
    assert sorted(_core(memory)) == ["User's brother is Tom", "User's sister is Ana"]
    assert "I corrected nothing" in reply and "Noted" not in reply


@pytest.mark.parametrize(("said", "held"), [
    # the name said first is the value said again (Ana was kept beside "Scratch that, it's
    # Maria", or forgotten and Maria lost)
    (["Ana is my sister. Scratch that, it's Maria."], "Maria is User's sister"),
    (["Ana is my sister. Scratch that. It's Maria."], "Maria is User's sister"),
    (["Ana is my sister.", "Scratch that, it's Maria."], "Maria is User's sister"),
    (["Tom is my boss. Forget that, it's Dr. Patel."], "Dr. Patel is User's boss"),
    # a surname after a first name, or a title before one, names a person as well
    (["My sister is Ana. Forget that, it's Maria Silva."], "User's sister is Maria Silva"),
    (["My boss is Tom. Forget that, it's Mr Smith."], "User's boss is Mr Smith"),
    # so does a capitalised word alone that names no one else ("it's Zed" was not stored)
    (["My boss is Tom. Forget that, it's Zed."], "User's boss is Zed"),
    (["Tom is my boss.", "Scratch that. It's Zed."], "Zed is User's boss"),
])
def test_a_name_said_again_takes_the_place_of_the_name(said: list[str], held: str) -> None:
    assert core_after(*said) == [held]


@pytest.mark.parametrize("said", ["Ana is my sister. Scratch that, it's Complicated.",
                                  "Ana is my sister. Scratch that, it's 4321.",
                                  # "User's boss is Complicated" was stored of one held as Ann
                                  "My boss is Ann. Forget that, it's Complicated.",
                                  "My gym is Ironworks. Scratch that, it's Private.",
                                  "I work at Acme. Forget that, it's Nobody."])
def test_what_is_no_name_takes_no_name_s_place(said: str) -> None:
    assert core_after(said) == []
