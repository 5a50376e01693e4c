"""More of what a new value ends, as the offline policy reads it: a day said with "on" or
without, a move made with someone, a name said shorter with a change cue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.slots import slot_of
from tiermem.memory.text.statements import read_statement
from tiermem.memory.text.updates import replaces


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


#: A time ends a time, though a day with a capital looks like a name.
_TIMES = [
    (["The meeting is on Friday.", "The meeting is Monday at 3pm now."],
     ["The meeting is Monday at 3pm"]),
    # a day alone keeps the hour it does not say
    (["The meeting is Friday at 3pm.", "The meeting is Monday now."],
     ["The meeting is Monday at 3pm"]),
    (["The deadline is by Friday.", "The deadline is Monday now."], ["The deadline is Monday"]),
    (["The standup is at 9am.", "The standup is 9:30 now."], ["The standup is 9:30"]),
    # An hour alone still leaves a day alone, and a state or a count any time.
    (["The meeting is Friday.", "The meeting is 5pm now."],
     ["The meeting is Friday", "The meeting is 5pm"]),
    (["The job is 5 nodes.", "The job is at 5pm now."],
     ["The job is 5 nodes", "The job is at 5pm"]),
]

#: A count said in words ends one in digits, and a length of time another.
_COUNTS = [
    (["The cluster is 3 nodes.", "The cluster is five nodes now."], ["The cluster is five nodes"]),
    (["The cluster is three nodes.", "The cluster is 5 nodes now."], ["The cluster is 5 nodes"]),
    (["The cluster is 5 nodes.", "The cluster is a dozen nodes now."],
     ["The cluster is a dozen nodes"]),
    (["The build is 45 minutes.", "The build is an hour now."], ["The build is an hour"]),
    (["The build is an hour.", "The build is 45 minutes now."], ["The build is 45 minutes"]),
    # A count of something else, or a state said in words, is no new count.
    (["The build is 45 minutes.", "The build is a mess now."],
     ["The build is 45 minutes", "The build is a mess"]),
    (["The cluster is 5 nodes.", "The cluster is degraded now."],
     ["The cluster is 5 nodes", "The cluster is degraded"]),
]

#: A delay that names the new time ends the old one.
_DELAYS = [
    (["The flight is at 6pm.", "The flight is delayed to 8pm now."],
     ["The flight is delayed to 8pm"]),
    (["The flight is at 6pm.", "The flight is delayed by 30 minutes to 6:30pm now."],
     ["The flight is delayed by 30 minutes to 6:30pm"]),
    # By how long alone still counts from the time held.
    (["The flight is at 6pm.", "The flight is delayed by 30 minutes now."],
     ["The flight is at 6pm", "The flight is delayed by 30 minutes"]),
]


@pytest.mark.parametrize(("told", "kept"), [*_TIMES, *_COUNTS, *_DELAYS])
def test_a_new_value_ends_the_one_it_says_again(memory: HierarchicalMemory, told: list[str],
                                                kept: list[str]) -> None:
    chat(memory, *told)
    assert list(core_of(memory)) == kept


def test_a_day_ends_a_day_said_with_on_or_without(memory: HierarchicalMemory) -> None:
    assert replaces("The meeting is Friday", "The meeting is on Thursday", "now")
    assert replaces("The meeting is Friday", "The meeting is on Thursday", None)
    assert replaces("The meeting is on Friday", "The meeting is Thursday", None)
    # A state is still no day.
    assert not replaces("The meeting is remote", "The meeting is on Thursday", "now")
    chat(memory, "The meeting is on Thursday.", "The meeting is Friday now.")
    assert list(core_of(memory)) == ["The meeting is Friday"]


def test_a_move_made_with_someone_is_the_user_s_move(memory: HierarchicalMemory) -> None:
    assert slot_of("User's wife and User moved to Berlin") == "user/residence"
    assert slot_of("Tom and User moved to Porto") == "user/residence"
    assert slot_of("User's wife moved to Berlin") == "user's wife/residence"
    chat(memory, "I live in Lisbon.", "My wife and I moved to Berlin.")
    assert list(core_of(memory)) == ["User's wife and User moved to Berlin"]


def test_a_move_with_someone_taken_back_keeps_the_home(memory: HierarchicalMemory) -> None:
    chat(memory, "I live in Lisbon.", "My wife and I moved to Berlin but we moved back.")
    assert "User lives in Lisbon" in core_of(memory)


def test_a_name_said_shorter_now_keeps_the_surname(memory: HierarchicalMemory) -> None:
    chat(memory, "My brother is Tom Smith.", "My brother is Tom now.")
    assert list(core_of(memory)) == ["User's brother is Tom Smith"]


def test_a_name_said_shorter_as_a_correction_replaces_it(memory: HierarchicalMemory) -> None:
    chat(memory, "My brother is Tom Smith.", "No, my brother is Tom.")
    assert list(core_of(memory)) == ["User's brother is Tom"]


@pytest.mark.parametrize(("sentence", "text", "change"), [
    ("I like coffee too.", "I like coffee", None),
    ("I'm vegan too.", "I'm vegan", None),
    ("We’re vegetarian too.", "We’re vegetarian", None),
    ("Actually, I have a cat as well.", "I have a cat", None),
    ("My wife does too.", "My wife does too.", None),
    ("Me too.", "Me too.", None),
    ("Ana lives in Berlin and I live there too.", "Ana lives in Berlin and I live there too.",
     None),
])
def test_a_closing_too_is_no_part_of_what_is_done(sentence: str, text: str,
                                                   change: str | None) -> None:
    statement = read_statement(sentence)
    assert (statement.text, statement.change) == (text, change)


def test_a_liking_said_with_too_is_stored_without_it(memory: HierarchicalMemory) -> None:
    chat(memory, "I like tea.", "I like coffee too.")
    assert list(core_of(memory)) == ["User likes tea", "User likes coffee"]


def test_a_state_said_with_too_is_stored_without_it(memory: HierarchicalMemory) -> None:
    chat(memory, "My wife is vegan.", "I'm vegan too.")
    assert list(core_of(memory)) == ["User's wife is vegan", "User is vegan"]
