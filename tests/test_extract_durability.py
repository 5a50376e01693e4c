"""The offline fact extractor: durability, sentence splitting, normalisation, de-duplication
and properties over arbitrary text."""

from __future__ import annotations

import dataclasses

import pytest
from extract_helpers import only_fact
from hypothesis import given, settings
from hypothesis import strategies as st

from tiermem.memory.text.extract import (
    MAX_FACT_CHARS,
    ExtractedFact,
    classify_durability,
    extract_facts,
    normalize_fact,
)
from tiermem.memory.text.sentences import split_sentences

# --- durability precedence ----------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # Strong short-lived beats durable.
        ("I'm on call right now", ("short-lived", "right now")),
        ("The customer is seeing 502s", ("short-lived", "seeing")),
        ("My birthday is today", ("short-lived", "today")),
        ("The account is temporarily suspended", ("short-lived", "temporarily")),
        # Durable beats weak short-lived.
        ("The on-call rotation this week is Alice then Bob", ("durable", "on-call")),
        ("I currently live in Berlin", ("durable", "live in")),
        ("My name is now Ada", ("durable", "my name")),
        # Weak short-lived alone.
        ("The queue is now empty", ("short-lived", "now")),
        ("I'm out this week", ("short-lived", "this week")),
        # Durable cues.
        ("I never eat pork", ("durable", "never")),
        ("The password policy requires 14 characters", ("durable", "password policy")),
        ("The prod region is us-east-2", ("durable", "production region")),
        ("Our contract renews in March", ("durable", "contract")),
        ("His job title is SRE", ("durable", "job")),
        # Family and names.
        ("My sister lives abroad", ("durable", "sister")),
        ("Dana's brother works in Porto", ("durable", "brother")),
        ("My mom is a nurse", ("durable", "mother")),
        ("Her dad retired", ("durable", "father")),
        ("My parents visit in May", ("durable", "parents")),
        ("Grandma is 90", ("durable", "grandparent")),
        ("Our kids go to school in Braga", ("durable", "family")),
        ("My cousin is an architect", ("durable", "cousin")),
        ("My dog is called Rex", ("durable", "is called")),
        ("my dog is called rex", ("durable", "is called")),
        ("I'm called Dana", ("durable", "is called")),
        ("We adopted a cat named Miso", ("durable", "named")),
        ("Her name's Ana", ("durable", "name is")),
        # ... but not the processes, calls and files of the same words.
        ("The parent process died", ("short-lived", None)),
        ("The child process exited", ("short-lived", None)),
        ("The webhook is called on every push", ("short-lived", None)),
        ("We called Bob", ("short-lived", None)),
        ("The file is named config.yaml", ("short-lived", None)),
        ("The motherboard died", ("short-lived", None)),
        ("A pod named Redis-0 keeps crashing", ("short-lived", None)),
        ("The branch is called Main", ("short-lived", None)),
        # Likings and dislikes last; a reaction or a passing remark does not.
        ("I hate onions", ("durable", "likes")),
        ("User loves jazz", ("durable", "likes")),
        ("I really don't like cilantro", ("durable", "likes")),
        ("She can't stand loud music", ("durable", "likes")),
        ("I love it", ("short-lived", None)),
        ("I like that idea", ("short-lived", None)),
        ("I'd like a coffee", ("short-lived", None)),
        ("I hate to say it but prod is down", ("short-lived", None)),
        ("I hate to bother you, but the build is red again", ("short-lived", None)),
        ("I like to keep it short", ("short-lived", None)),
        ("I love them", ("short-lived", None)),
        ("I like to run in the mornings", ("durable", "likes")),
        ("I love the weather now", ("short-lived", "now")),
        # Who a sentence is about does not make what it says last.
        ("My mom is in the hospital this week", ("short-lived", "this week")),
        ("My brother is visiting tomorrow", ("short-lived", "tomorrow")),
        ("My wife's birthday is tomorrow", ("durable", "birthday")),
        # Word boundaries: no cue hidden inside a longer word.
        ("The nightly backup job finished", ("short-lived", None)),
        ("Post the json to slack", ("short-lived", None)),
        ("The airborne sensor reports fine", ("short-lived", None)),
        # Default.
        ("The cafeteria has pizza", ("short-lived", None)),
        ("", ("short-lived", None)),
        # Machine text beats everything, even durable words.
        ("$ grep customer /var/log/billing.log", ("short-lived", "command prompt")),
        ("12:03:55 ERROR account 42 locked", ("short-lived", "log line")),
        # An explicit lead-in is durable only when nothing above decides.
        ("Remember that the cafeteria has pizza", ("durable", "remember")),
    ],
)
def test_classify_durability(sentence: str, expected: tuple[str, str | None]) -> None:
    assert classify_durability(sentence) == expected


# --- sentence splitting -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Set the ratio to 3.5 today. Then redeploy.",
            ["Set the ratio to 3.5 today.", "Then redeploy."],
        ),
        (
            "Upgrade to v1.2.3 now! It fixes the leak.",
            ["Upgrade to v1.2.3 now!", "It fixes the leak."],
        ),
        ("The db is at 10.0.0.12. It is healthy.", ["The db is at 10.0.0.12.", "It is healthy."]),
        (
            "Point it at eu-west-1.example.com. Done?",
            ["Point it at eu-west-1.example.com.", "Done?"],
        ),
        (
            "Logs go to /var/log/app.log. Rotate weekly.",
            ["Logs go to /var/log/app.log.", "Rotate weekly."],
        ),
        (
            "Use a cache, e.g. Redis, i.e. in memory. Ask Dr. Smith or Mr. Jones.",
            ["Use a cache, e.g. Redis, i.e. in memory.", "Ask Dr. Smith or Mr. Jones."],
        ),
        (
            "Postgres vs. MySQL is settled. We use Postgres.",
            ["Postgres vs. MySQL is settled.", "We use Postgres."],
        ),
        ("Alice B. Smith owns it.", ["Alice B. Smith owns it."]),
        ("Bring pens, paper etc. and a laptop.", ["Bring pens, paper etc. and a laptop."]),
        ("Bring pens, paper etc. Then go.", ["Bring pens, paper etc.", "Then go."]),
        ("One; two", ["One;", "two"]),
        ("Is it up? Yes! Good.", ["Is it up?", "Yes!", "Good."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("line one\nline two\r\nline three", ["line one", "line two", "line three"]),
        (
            "Facts:\n- the region is eu-west-1\n* the SLA is 99.9%\n"
            "1. Alice is IC\n2) Bob is backup",
            [
                "Facts:",
                "the region is eu-west-1",
                "the SLA is 99.9%",
                "Alice is IC",
                "Bob is backup",
            ],
        ),
        ("  \n\t\n", []),
        ("!!! ... ;;", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_bullets_become_separate_facts() -> None:
    facts = extract_facts("- The production region is eu-west-1\n- Incident commander is Priya")
    assert [f.text for f in facts] == [
        "The production region is eu-west-1",
        "Incident commander is Priya",
    ]


# --- normalisation and de-duplication -----------------------------------------


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("User is allergic to peanuts.", " user is  allergic to peanuts"),
        ("User is allergic to peanuts", "The user is allergic to peanuts!"),
        ("User is allergic to peanuts", "I'm allergic to peanuts"),
        ("User is allergic to peanuts", "I am allergic to peanuts."),
        ("User is allergic to peanuts", '"User is allergic to peanuts."'),
        ("User's name is Ada", "my name is Ada"),
        ("User’s name is Ada", "User's name is Ada"),
        ("User likes tea", "I like tea"),
        ("User: I think it's down", "I think it’s down"),
        ("The SLA is 99.95%", "the\tSLA is\n99.95%"),
    ],
)
def test_normalize_fact_equal(left: str, right: str) -> None:
    assert normalize_fact(left) == normalize_fact(right)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("User is allergic to peanuts", "User is not allergic to peanuts"),
        ("The SLA is 99.95%", "The SLA is 99.9%"),
        ("Alice is on call", "Bob is on call"),
        ("The region is eu-west-1", "The region is eu-west-2"),
    ],
)
def test_normalize_fact_keeps_distinct_facts_distinct(left: str, right: str) -> None:
    assert normalize_fact(left) != normalize_fact(right)


def test_extract_facts_deduplicates_within_a_call() -> None:
    facts = extract_facts(
        "I'm allergic to peanuts. I am allergic to peanuts! Remember that I'm allergic to peanuts."
    )
    assert facts == [ExtractedFact("User is allergic to peanuts", "durable", "allergic")]


def test_mixed_message_keeps_order_and_drops_noise() -> None:
    message = (
        "Hi! The production region is eu-west-1. Right now the api pod is "
        "restarting. Can you watch it?\n$ kubectl rollout status deploy/api\nThanks!"
    )
    facts = extract_facts(message)
    assert [(f.text, f.durability) for f in facts] == [
        ("The production region is eu-west-1", "durable"),
        ("Right now the api pod is restarting", "short-lived"),
        ("$ kubectl rollout status deploy/api", "short-lived"),
    ]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t", "\x00"])
def test_empty_input(text: str) -> None:
    assert extract_facts(text) == []


def test_fact_is_frozen() -> None:
    fact = ExtractedFact("User is vegan", "durable", "vegan")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.text = "changed"  # type: ignore[misc]


def test_long_prose_is_trimmed() -> None:
    fact = only_fact("The customer " + "really " * 100 + "likes blue")
    assert len(fact.text) <= MAX_FACT_CHARS


# --- properties ----------------------------------------------------------------

_FRAGMENTS = st.sampled_from(
    [
        "I'm", "I am", "my", "My name is", "remember that", "note:", "Hi,", "so", "?", ".",
        "!", ";", "\n", "- ", "1. ", "$ ", "> ", "12:03:55", "ERROR", "e.g.", "Dr.", "v1.2.3",
        "99.95%", "eu-west-1.example.com", "/var/log/app.log", "right now", "on-call",
        "this week", "the user", "user:", "'", '"', "“", "’", "\x00", " ", "\t", "peanuts",
    ]
)
_ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, blacklist_categories=("Cs",)))
_TRICKY_TEXT = st.lists(st.one_of(_FRAGMENTS, _ANY_TEXT), max_size=20).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(_ANY_TEXT, _TRICKY_TEXT), speaker=st.sampled_from(["User", "Ada", ""]))
def test_extract_facts_never_raises_and_never_returns_empty_text(text: str, speaker: str) -> None:
    facts = extract_facts(text, speaker=speaker)
    keys = [normalize_fact(f.text) for f in facts]
    for fact in facts:
        assert fact.text.strip()
        assert len(fact.text) <= MAX_FACT_CHARS
        assert fact.durability in ("durable", "short-lived")
    assert len(keys) == len(set(keys))


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(_ANY_TEXT, _TRICKY_TEXT))
def test_normalize_fact_is_idempotent(text: str) -> None:
    key = normalize_fact(text)
    assert normalize_fact(key) == key


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(_ANY_TEXT, _TRICKY_TEXT))
def test_split_sentences_never_returns_blank_pieces(text: str) -> None:
    for sentence in split_sentences(text):
        assert sentence == sentence.strip()
        assert any(ch.isalnum() for ch in sentence)
