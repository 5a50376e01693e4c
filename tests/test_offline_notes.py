"""The offline policy says why a message stored nothing: the privacy policy dropped it, or
it asked for a call the policy cannot make."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tiermem.agent.loop import Agent
from tiermem.agent.offline import CALL_NOTE, REMINDER_NOTE, OfflinePolicy
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.privacy import parse_policy
from tiermem.memory.text.openings import said_of_what

POLICY = parse_policy("""
rules:
  - rule_id: diagnosis
    category: medical
    content_substrings: [diagnosed, diabetes]
retention: {mode: deterministic}
""")


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.fixture
def private() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), privacy=POLICY) as m:
        yield m


def test_a_dropped_statement_is_said_to_be_kept_out_of_memory(private: HierarchicalMemory
                                                               ) -> None:
    reply = Agent(private, OfflinePolicy()).step("I was diagnosed with diabetes.").reply or ""
    assert reply == ("(offline) The privacy policy kept the medical part of your message out "
                     "of memory.")
    assert "diabetes" not in reply and list(private.core) == []


def test_a_withheld_question_is_said_to_be_withheld_and_not_searched(
        private: HierarchicalMemory) -> None:
    result = Agent(private, OfflinePolicy()).step("Am I diagnosed with diabetes?")
    assert result.reply == ("(offline) The privacy policy withholds your medical question, "
                            "so I did not search memory for it.")
    assert [c.name for c in result.tool_calls] == ["send_message"]


@pytest.mark.parametrize("said", ["Call me back tomorrow at 9.", "Call me Tomorrow.",
                                  "Call me a taxi", "Please call me a cab to the station."])
def test_a_call_back_request_gets_the_call_note_and_stores_nothing(memory: HierarchicalMemory,
                                                                   said: str) -> None:
    reply = Agent(memory, OfflinePolicy()).step(said).reply
    assert reply == CALL_NOTE
    assert list(memory.core) == []


def test_call_me_with_who_else_does_states_the_name(memory: HierarchicalMemory) -> None:
    reply = Agent(memory, OfflinePolicy()).step("Call me Liz, everyone does").reply or ""
    assert [(f.text, f.durability) for f in memory.core] == [("User's name is Liz", "durable")]
    assert CALL_NOTE not in reply


@pytest.mark.parametrize("said", ["Don't forget about the 401k rollover, it's due in March",
                                  "Don't forget about the 401k rollover; it's due in March."])
def test_a_reminder_that_says_something_of_its_subject_keeps_it_and_gets_the_note(
        memory: HierarchicalMemory, said: str) -> None:
    agent = Agent(memory, OfflinePolicy())
    reply = agent.step(said).reply or ""
    assert [f.text for f in memory.core] == ["The 401k rollover is due in March"]
    assert reply.endswith(REMINDER_NOTE) and "core + The 401k rollover" in reply
    later = agent.step("When is the 401k rollover due?").reply or ""
    assert "From core memory: The 401k rollover is due in March" in later


@pytest.mark.parametrize("said", ["Don't forget about the report, that I promised Dana",
                                  "Don't forget about the report, which I promised Dana",
                                  "Don't forget about the report, that Dana wants",
                                  "Don't forget about the report, which Acme asked for"])
def test_a_reminder_whose_clause_only_says_which_thing_stores_nothing(
        memory: HierarchicalMemory, said: str) -> None:
    # As "Don't forget about the report I promised Dana": a request, stated by no fact.
    reply = Agent(memory, OfflinePolicy()).step(said).reply or ""
    assert list(memory.core) == []
    assert reply == REMINDER_NOTE


@pytest.mark.parametrize(("said", "kept"), [
    # "it's on me": the speaker takes them on; quoted as said, with the verb of several.
    ("Don't forget about the tickets, it's on me", "User: The tickets are on me"),
    ("Don't forget about the tickets, it is due Friday", "The tickets are due Friday"),
    ("Don't forget about the logs, it's been rotated", "The logs have been rotated"),
    ("Don't forget about the class, it's at 9", "The class is at 9"),
    # "it" is the renewal, not the certs; "the news" and "the gas" are one thing each.
    ("Don't forget about the renewal of the certs, it's due Friday",
     "The renewal of the certs is due Friday"),
    ("Don't forget about the cost of the servers, it was approved by Dana",
     "The cost of the servers was approved by Dana"),
    ("Don't forget about the gas, it's due Friday", "The gas is due Friday"),
    ("Don't forget about the news, it's on me", "User: The news is on me"),
    # Any verb "it" takes in the third person, after a word of how often too.
    ("Don't forget about the tickets, it starts at 2am", "The tickets start at 2am"),
    ("Don't forget about the tickets; it goes on sale Friday", "The tickets go on sale Friday"),
    ("Don't forget about the refunds, it needs Dana's sign-off",
     "The refunds need Dana's sign-off"),
    ("Don't forget about the patches, it always fixes the login bug",
     "The patches always fix the login bug"),
    ("Don't forget about the fees, it carries over to March", "The fees carry over to March"),
    ("Don't forget about the tickets, it focuses on billing", "The tickets focus on billing"),
    ("Don't forget about the tickets, it's always late", "The tickets are always late"),
    # A word of how often in an "s" is no verb: it stays as said, and "is" after it is
    # the verb.
    ("Don't forget about the backups, it always ran late", "The backups always ran late"),
    ("Don't forget about the backups, it sometimes is slow", "The backups sometimes are slow"),
    ("Don't forget about the disks, it perhaps needs a swap", "The disks perhaps need a swap"),
    # One thing ending in "s" keeps the verb of one.
    ("Don't forget about the class, it starts at 9", "The class starts at 9"),
    ("Don't forget about the status, it needs a check", "The status needs a check"),
])
def test_a_reminder_about_several_things_keeps_them_with_the_verb_of_several(
        memory: HierarchicalMemory, said: str, kept: str) -> None:
    Agent(memory, OfflinePolicy()).step(said)
    assert [f.text for f in memory.core] == [kept]


@pytest.mark.parametrize(("verb", "stem"), [
    ("uses", "use"), ("closes", "close"), ("focuses", "focus"), ("focusses", "focus"),
    ("buses", "bus"), ("busses", "bus"), ("quizzes", "quiz"), ("buzzes", "buzz"),
    ("sizes", "size"), ("waltzes", "waltz"), ("fixes", "fix"), ("watches", "watch"),
    ("caches", "cache"), ("aches", "ache"), ("pushes", "push"), ("goes", "go"),
    ("echoes", "echo"), ("shoes", "shoe"), ("does", "do"), ("has", "have"),
    ("misses", "miss"), ("passes", "pass"), ("carries", "carry"), ("unties", "untie"),
    ("ties", "tie"), ("plays", "play"), ("starts", "start"),
    # An "e" after a hiss, or one "s", known by name: the spelling alone misleads.
    ("niches", "niche"), ("avalanches", "avalanche"), ("finesses", "finesse"),
    ("pluses", "plus"), ("atlases", "atlas"), ("aliases", "alias"), ("canvases", "canvas"),
    ("censuses", "census"), ("releases", "release"), ("pauses", "pause"),
    ("witnesses", "witness"), ("canvasses", "canvass"),
])
def test_it_for_several_things_takes_the_stem_of_each_verb(verb: str, stem: str) -> None:
    assert said_of_what(f"the tickets, it {verb} daily") == f"The tickets {stem} daily"


def test_a_reminder_an_earlier_version_stored_with_its_pronoun_is_not_doubled(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("the 401k rollover, it's due in March", "durable")
    Agent(memory, OfflinePolicy()).step("Don't forget about the 401k rollover, it's due in March")
    assert [f.text for f in memory.core] == ["the 401k rollover, it's due in March"]


def test_a_withheld_mark_typed_with_no_policy_is_read_as_typed(memory: HierarchicalMemory
                                                               ) -> None:
    typed = "The log line reads [withheld: medical] when redacted."
    reply = Agent(memory, OfflinePolicy()).step(typed).reply or ""
    assert "privacy policy" not in reply
    assert [f.text for f in memory.core] == [typed.rstrip(".")]


def test_a_withheld_mark_typed_beside_a_withheld_sentence_is_read_as_typed(
        private: HierarchicalMemory) -> None:
    # Pasted from /recall, say: only the marks the policy wrote for this message are marks.
    typed = "The log line reads [withheld: finance] when redacted."
    reply = Agent(private, OfflinePolicy()).step(f"{typed} I was diagnosed with diabetes."
                                                 ).reply or ""
    assert reply.endswith("(offline) The privacy policy kept the medical part of your "
                          "message out of memory.")
    assert "finance" not in reply.splitlines()[-1]
    assert [f.text for f in private.core] == [typed.rstrip(".")]


def test_the_masks_marks_are_where_it_wrote_them() -> None:
    text = "See [withheld: finance] here. I was diagnosed with diabetes. Am I diagnosed?"
    with HierarchicalMemory(None, embedder=HashingEmbedder(), privacy=POLICY) as m:
        assert m.privacy is not None
        masked = m.privacy.mask(text, mark_questions=True)
    assert [masked.text[a:b] for a, b in masked.marks] == ["[withheld: medical]",
                                                           "[withheld: medical]?"]
