"""A slip corrected ("Sorry, I meant Portland, not Seattle"): the offline policy replaces the
word in the fact that said it, or says why it could not, and stores nothing else."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from offline_helpers import RecordingPolicy
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.agent.loop import Agent
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.corrections import (
    Correction,
    corrected,
    correction_apart,
    correction_of,
)
from tiermem.memory.text.extract import extract_facts


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "meant", "slip"), [
    ("Sorry, I meant Portland, not Seattle", "Portland", "Seattle"),
    ("Oops, I meant Portland rather than Seattle.", "Portland", "Seattle"),
    ("No, I meant to say Portland instead of Seattle!", "Portland", "Seattle"),
    ('I meant "Portland, Oregon", not "Seattle".', "Portland, Oregon", "Seattle"),
    ("My bad, I meant my sister, not my brother.", "User's sister", "User's brother"),
    ("I meant the 14th, not the 15th.", "the 14th", "the 15th"),
])
def test_a_slip_corrected_is_read_as_what_was_meant(said: str, meant: str, slip: str) -> None:
    assert correction_of(said) == Correction(meant, slip)


@pytest.mark.parametrize("said", [
    "I meant it, not as a joke.", "I meant to call, not email.", "I meant you, not him.",
    "I meant that I live in Portland, not Seattle.", "I meant Portland.",
    "I meant a very long name of some kind, not Seattle.",
])
def test_what_i_meant_otherwise_corrects_no_word(said: str) -> None:
    assert correction_of(said) is None


def test_the_reply_names_what_was_meant_as_it_was_stored(memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I live in Seattle.", "sorry i meant portland, not seattle")
    assert replies[1].endswith('" to "Portland": User lives in Portland.'), replies[1]


@pytest.mark.parametrize("correction", [
    "Sorry, I meant Portland, not Seattle", "Oops, I meant Portland rather than Seattle.",
    "No, I meant Portland instead of Seattle"])
def test_a_correction_replaces_the_word_in_the_fact_that_said_it(
        memory: HierarchicalMemory, correction: str) -> None:
    replies = _chat(memory, "I live in Seattle.", correction, "Where do I live?")
    assert _core(memory) == {"User lives in Portland": "durable"}
    assert replies[1].endswith('(offline) Corrected "Seattle" to "Portland": '
                               "User lives in Portland.")
    assert replies[2] == "(offline, quoting memory)\n- From core memory: User lives in Portland"
    [retired] = memory.archival_search("Seattle", k=5).hits
    assert retired.metadata.get("superseded_at") is not None


@pytest.mark.parametrize(("held", "correction", "now"), [
    ("I live in Seattle.", "sorry i meant portland, not seattle", "User lives in Portland"),
    ("I moved to New York.", "oops i meant san francisco, not new york",
     "User moved to San Francisco"),
    ("The region is EU-WEST.", "i meant us-east, not eu-west", "The region is US-EAST"),
    ("My password hint is salt.", "i meant pepper, not salt", "User's password hint is pepper"),
    ("I live in Seattle.", "I meant Portland, not seattle", "User lives in Portland"),
    ("My brother lives in Oslo.", "i meant my sister, not my brother",
     "User's sister lives in Oslo"),
    # A speaker who capitalises "I" chose the lower case: "Green Tea" was never said.
    ("I drink Earl Grey.", "no, I meant green tea, not earl grey", "User: I drink green tea"),
    # Typed with capitals, a lower-case name is meant so: "npm", "k3s".
    ("I use Yarn.", "No, I meant npm, not Yarn", "User uses npm"),
    # All in lower case, a name shaped like a tool's (a digit, no vowel) is typed so on
    # purpose; an acronym's capitals are still taken.
    ("I use Yarn.", "sorry i meant npm, not yarn", "User uses npm"),
    ("I use Yarn.", "sorry i meant pnpm, not yarn", "User uses pnpm"),
    ("I run K8s at work.", "sorry i meant k3s, not k8s", "User: I run k3s at work"),
    ("Yarn is our package manager.", "sorry i meant npm, not yarn",
     "npm is our package manager"),
    ("I use AWS.", "sorry i meant gcp, not aws", "User uses GCP"),
    ("I use AWS.", "sorry i meant google cloud, not aws", "User uses Google Cloud"),
    # A command's short name the fact says is used is named as typed: "uv", "pip", "vim";
    # a place the fact puts one in or moves one to still takes the capital.
    ("I use Poetry.", "sorry i meant uv, not poetry", "User uses uv"),
    ("I use Poetry.", "sorry i meant pip, not poetry", "User uses pip"),
    ("I use Emacs.", "sorry i meant vim, not emacs", "User uses vim"),
    ("I use Docker and Poetry.", "sorry i meant uv, not poetry", "User uses Docker and uv"),
    ("I use uv.", "sorry i meant pip, not uv", "User uses pip"),
    # ... but a longer word in place of a name is a name, and one in the case of a name
    # with a capital inside ("iPhone") takes a capital too.
    ("I use Slack.", "sorry i meant teams, not slack", "User uses Teams"),
    ("User uses the iPhone", "sorry i meant pixel, not iphone", "User uses the Pixel"),
    # An article, or a small word inside a name, takes none.
    ("I have an iPhone.", "sorry i meant a pixel, not an iphone", "User has a Pixel"),
    ("I work at Acme.", "sorry i meant bank of america, not acme",
     "User works at Bank of America"),
    # ... but one that opens the fact opens its sentence.
    ("The iPhone is my phone.", "sorry i meant the pixel, not the iphone",
     "The Pixel is User's phone"),
    ("An iPhone is my phone.", "sorry i meant a pixel, not an iphone",
     "A Pixel is User's phone"),
    ("I moved to Seattle.", "sorry i meant portland, not seattle", "User moved to Portland"),
    ("I work at Acme.", "sorry i meant globex, not acme", "User works at Globex"),
    # A capital the word has as it opens the fact may be a name's: each word takes one,
    # as a name cut to "San francisco" is the worse slip than "Green Tea".
    ("Seattle is my home town.", "sorry i meant san francisco, not seattle",
     "San Francisco is User's home town"),
    ("Tom is my manager.", "sorry i meant mary jane, not tom", "Mary Jane is User's manager"),
    # ... but a name after a verb of using that is someone's, or of several words, is a
    # name still: "Sam's car", "Apple Maps".
    ("I use Tom's car.", "sorry i meant sam, not tom", "User uses Sam's car"),
    ("I use Ana as my accountant.", "sorry i meant eva, not ana",
     "User uses Eva as User's accountant"),
    ("I use Google Maps.", "sorry i meant apple maps, not google maps", "User uses Apple Maps"),
    ("Coffee is my favourite drink.", "sorry i meant green tea, not coffee",
     "Green Tea is User's favourite drink"),
])
def test_a_correction_keeps_the_case_typed_or_all_in_lower_case_the_case_it_replaces(
        memory: HierarchicalMemory, held: str, correction: str, now: str) -> None:
    replies = _chat(memory, held, correction)
    assert list(_core(memory)) == [now]
    assert replies[1].endswith(f": {now}.")


@pytest.mark.parametrize("correction", [
    "I meant Portland, not Seattle, and I work at Acme",
    "I meant Portland, not Seattle and I work at Acme",
    "Sorry, I meant Portland, not Seattle, and I work at Acme",
    "Sorry, I meant Portland rather than Seattle; I work at Acme."])
def test_a_statement_joined_to_a_correction_is_stored_as_said(
        memory: HierarchicalMemory, correction: str) -> None:
    replies = _chat(memory, "I live in Seattle.", correction)
    assert _core(memory) == {"User lives in Portland": "durable",
                             "User works at Acme": "durable"}
    assert replies[1].endswith('(offline) Corrected "Seattle" to "Portland": '
                               "User lives in Portland.")


def test_a_clause_that_only_points_back_stays_with_the_correction() -> None:
    assert correction_apart("I meant Portland, not Seattle and my wife does") == [
        "I meant Portland, not Seattle and my wife does"]
    assert correction_apart("I meant Portland, not Seattle and I work at Acme") == [
        "I meant Portland, not Seattle", "I work at Acme"]


def test_a_correction_of_a_word_no_fact_says_stores_nothing(memory: HierarchicalMemory
                                                             ) -> None:
    policy = RecordingPolicy()
    agent = Agent(memory, policy)
    agent.step("I live in Seattle.")
    made = len(policy.made)
    reply = agent.step("Sorry, I meant Boston, not Chicago.").reply or ""
    assert [name for name, _ in policy.made[made:]] == ["send_message"]
    assert _core(memory) == {"User lives in Seattle": "durable"}
    assert reply == ('(offline) No fact in core memory says "Chicago", so I could not '
                     'correct it to "Boston"; nothing was stored.')


@pytest.mark.parametrize(("text", "facts"), [
    # What was meant, with no word it replaces: nothing to correct, and no fact.
    ("I'm sorry, I meant Portland.", []), ("I meant Portland.", []),
    ("Sorry, I meant Portland.", []), ("Oops, I meant to say Portland.", []),
    ("No, I meant the staging cluster.", []),
    # A clause, an explanation, or a statement after it is still said.
    ("I meant Portland. I work at Acme.", ["User works at Acme"]),
    ("Sorry, I meant that I live in Portland.", ["User: Sorry, I meant that I live in Portland"]),
    ("I meant Bob is on call.", ["User: I meant Bob is on call"]),
    ("I meant what I said.", ["User: I meant what I said"]),
])
def test_what_was_meant_with_no_slip_named_states_no_fact(text: str, facts: list[str]) -> None:
    assert [fact.text for fact in extract_facts(text)] == facts


def test_what_was_meant_alone_leaves_core_as_it_was(memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I live in Seattle.", "I'm sorry, I meant Portland.")[-1]
    assert _core(memory) == {"User lives in Seattle": "durable"}
    assert reply == ('(offline) I can\'t tell which word "Portland" corrects in "User lives '
                     'in Seattle", so I corrected nothing; say what it corrects: "I meant '
                     'Portland, not ...".')


def test_what_was_meant_alone_is_asked_for_beside_what_else_was_stored(
        memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I live in Seattle.",
                  "Oops, I meant to say Portland. I work at Acme.")[-1]
    assert _core(memory) == {"User lives in Seattle": "durable", "User works at Acme": "durable"}
    assert reply.endswith('(offline) I can\'t tell which word "Portland" corrects in "User '
                          'lives in Seattle", so I corrected nothing; say what it corrects: '
                          '"I meant Portland, not ...".')


def test_the_fact_said_last_is_the_one_corrected(memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I live in Seattle.", "My sister lives in Seattle.",
                  "I meant Portland, not Seattle.")[-1]
    assert _core(memory) == {"User lives in Seattle": "durable",
                             "User's sister lives in Portland": "durable"}
    assert 'Corrected "Seattle" to "Portland"' in reply


def test_a_correction_that_could_mean_either_of_two_facts_changes_neither(
        memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I live in Seattle and my sister lives in Seattle.",
                  "I meant Portland, not Seattle.")[-1]
    assert _core(memory) == {"User lives in Seattle": "durable",
                             "User's sister lives in Seattle": "durable"}
    assert reply == ('(offline) More than one fact says "Seattle" (User lives in Seattle; '
                     "User's sister lives in Seattle), so I corrected none; say which one you "
                     "meant.")


def test_a_slip_corrected_in_the_same_message_is_stored_as_meant(memory: HierarchicalMemory
                                                                  ) -> None:
    reply = _chat(memory, "I live in Seattle. Sorry, I meant Portland, not Seattle.")[0]
    assert _core(memory) == {"User lives in Portland": "durable"}
    assert 'Corrected "Seattle" to "Portland": User lives in Portland.' in reply


def test_a_correction_in_a_compound_fact_keeps_its_other_statements(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User lives in Seattle and User works at Acme", "durable")
    _chat(memory, "Sorry, I meant Portland, not Seattle.")
    assert _core(memory) == {"User works at Acme": "durable",
                             "User lives in Portland": "durable"}


@pytest.mark.parametrize(("said", "now"), [
    ("I no longer live in Seattle.", {}),
    ("Sorry, I meant Portland, not Seattle.", {"User lives in Portland": "durable"}),
    ("I moved to Portland.", {"User moved to Portland": "durable"}),
])
def test_a_statement_held_in_two_facts_is_changed_in_both(
        memory: HierarchicalMemory, said: str, now: dict[str, str]) -> None:
    # One fact of its own and a part of a compound one say the same: changed in one only,
    # the other would still say it.
    memory.add_fact("User lives in Seattle and User works at Acme", "durable")
    memory.add_fact("User lives in Seattle", "durable")
    _chat(memory, said)
    assert _core(memory) == {"User works at Acme": "durable", **now}


def test_each_statement_held_before_is_corrected_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.agent import offline_corrections

    asked: list[str] = []

    def counting(fact: str, correction: Correction) -> str | None:
        asked.append(fact)
        return corrected(fact, correction)

    monkeypatch.setattr(offline_corrections, "corrected", counting)
    held = ["User lives in Seattle", "User's office is in Seattle"]
    calls = [("core_memory_replace", {"old_content": fact, "new_content": ""}) for fact in held]
    calls += [("core_memory_append", {"content": fact.replace("Seattle", "Portland")})
              for fact in held]
    said = "Sorry, I meant Portland, not Seattle"
    messages = [{"role": "system", "content": ""}, {"role": "user", "content": said},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"function": {"name": name, "arguments": json.dumps(arguments)}}
                    for name, arguments in calls]}]
    assert offline_corrections.correction_notes(messages, said) == [
        '(offline) Corrected "Seattle" to "Portland": User lives in Portland; '
        "User's office is in Portland."]
    # Each statement once, those the message itself states too.
    assert len(asked) == len(set(asked)) and set(held) <= set(asked)
