"""The offline fact extractor on incident notes, and what it keeps out: questions, asides,
statements that say nothing yet."""

from __future__ import annotations

import pytest
from extract_helpers import only_fact

from tiermem.memory.text.extract import (
    MAX_FACT_CHARS,
    ExtractedFact,
    extract_facts,
    is_question,
)
from tiermem.memory.text.sentences import split_sentences

# --- DevOps incident memory -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected_text", "durability", "cue"),
    [
        ("The production region is eu-west-1.", "The production region is eu-west-1", "durable",
         "production region"),
        (
            "The on-call rotation this week is Alice then Bob.",
            "The on-call rotation this week is Alice then Bob",
            "durable",
            "on-call",
        ),
        (
            "Right now the api pod is restarting.",
            "Right now the api pod is restarting",
            "short-lived",
            "right now",
        ),
        (
            "$ kubectl rollout restart deploy/api",
            "$ kubectl rollout restart deploy/api",
            "short-lived",
            "command prompt",
        ),
        (
            "tail of the log: 12:03:55 ERROR upstream timeout",
            "tail of the log: 12:03:55 ERROR upstream timeout",
            "short-lived",
            "log line",
        ),
        ("Incident commander is Priya.", "Incident commander is Priya", "durable",
         "incident commander"),
        (
            "The SLA for Acme is 99.95% uptime.",
            "The SLA for Acme is 99.95% uptime",
            "durable",
            "sla",
        ),
    ],
)
def test_devops_facts(text: str, expected_text: str, durability: str, cue: str) -> None:
    fact = only_fact(text)
    assert fact.text == expected_text
    assert fact.durability == durability
    assert fact.cue == cue  # the cue that decided the durability


def test_sla_is_not_split_at_its_decimal() -> None:
    assert split_sentences("The SLA for Acme is 99.95% uptime.") == [
        "The SLA for Acme is 99.95% uptime."
    ]


@pytest.mark.parametrize(
    ("line", "cue"),
    [
        ("$ kubectl rollout restart deploy/api", "command prompt"),
        ("> SELECT count(*) FROM jobs;", "command prompt"),
        ("kubectl get pods -n prod", "command line"),
        ("ssh ops@bastion.eu-west-1.example.com", "command line"),
        ("2024-05-01T12:03:55Z WARN disk 91% full on db-1", "log line"),
        ("12:03:55 ERROR upstream timeout; retrying in 5s", "log line"),
    ],
)
def test_machine_lines_are_verbatim_and_short_lived(line: str, cue: str) -> None:
    fact = only_fact(line)
    assert fact == ExtractedFact(line, "short-lived", cue)


def test_semicolons_do_not_split_a_command() -> None:
    assert split_sentences("$ cd /srv/app; make deploy; echo done") == [
        "$ cd /srv/app; make deploy; echo done"
    ]


def test_machine_text_is_trimmed() -> None:
    line = "12:03:55 ERROR " + "x" * 1000
    fact = only_fact(line)
    assert fact.text == line[:MAX_FACT_CHARS]
    assert fact.durability == "short-lived"


# --- what is not a fact -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "What is the production region?",
        "Where do you live",
        "Is the api up",
        "Does Acme have an SLA",
        "so who is on call",
        "Hey, can you restart the pod",
        "Isn't the region eu-west-1",
        "Where's the runbook",
        "have we paged Bob",
        "whats my sister called",
        "Hi",
        "hi!",
        "Thanks!",
        "thank you so much",
        "ok",
        "Sounds good.",
        "Great, thanks!",
        "Good morning!",
        "Got it",
        "So far so good",
        "No worries.",
        "No, never mind.",
        "No rush.",
        "Not yet.",
        "Fair enough.",
        "Go ahead.",
        "Nothing else.",
        "👍",
        "...",
        "Please remind me to call mom tomorrow.",
        "Tell me the production region.",
        "Can you check the logs?",
        "Could you summarize the incident.",
        "Remind Bob to rotate the keys.",
        "Let me know when the deploy is done.",
        "Remember to buy milk.",
        "Don't forget to restart the worker.",
        "Don't let me forget to renew the passport.",
        "Do not let us forget to rotate the keys.",
        "Don't forget about the meeting with Acme.",
        "I want you to draft the postmortem.",
        "Search the archive for Acme.",
        "Deployed.",
    ],
)
def test_not_facts(text: str) -> None:
    assert extract_facts(text) == []


@pytest.mark.parametrize("text", [
    # cut off before the point: the copula, verb or preposition has nothing after it
    "My name is", "I am allergic to", "The prod region is", "I like", "Alice has",
    "My favourite foods are peanuts and", "We would", "I hope not.", "I'd love to!",
    # a heading introduces the lines that follow
    "Notes from the meeting:", "The root cause was:", "Action items:",
])
def test_statements_that_say_nothing_yet_are_not_facts(text: str) -> None:
    assert extract_facts(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("My name is Dana.", "User's name is Dana"),
    ("I know where it is.", "User: I know where it is"),
    ("She is the one I talk to.", "User: She is the one I talk to"),
    ("I need someone to talk to.", "User needs someone to talk to"),
    ("The results are in.", "The results are in"),
    ("My birthday is in May.", "User's birthday is in May"),
    ("Note: the deploy is frozen.", "the deploy is frozen"),
    ("I love her.", "User loves her"),
    ("The SLA: 4 hours.", "The SLA: 4 hours"),
])
def test_statements_ending_on_a_word_that_may_end_them_are_facts(text: str,
                                                                 expected: str) -> None:
    assert only_fact(text).text == expected


@pytest.mark.parametrize("text", [
    # a relative clause with no "that" ends on its preposition
    "Acme is the company my wife works for.", "Lyon is the town my family comes from.",
    "Spiders are the one thing my son is afraid of.", "He is the person my team reports to.",
    # a contracted pronoun opens such a clause too
    "That's the team I'm part of.", "Acme is the client we're waiting for.",
    # a short second half
    "I'm not vegetarian but my wife is.", "My wife is vegan but I'm not.",
    "Prod is locked down, staging is not.",
    # a capital A names something
    "My blood type is A.", "Our office is in Building A.",
    # an emoticon's colon is no heading
    "I got promoted today :)", "My daughter was born today :')",
])
def test_complete_sentences_ending_on_such_a_word_are_kept(text: str) -> None:
    assert len(extract_facts(text)) == 1


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("What is the region?", True),
        ("Is the api up", True),
        ("Do you know the SLA", True),
        ("Which region is prod", True),
        ("Why", True),
        ("How's the deploy going", True),
        ("whats my sister called", True),
        ("wheres the runbook", True),
        ("whos on call", True),
        ("hows the deploy going", True),
        ("have we paged Bob", True),
        ("Have you seen the runbook", True),
        ("haven't they rotated the keys", True),
        ("has the deploy finished", True),
        ("Has Alice paged Bob", True),
        ("Had you seen it before", True),
        ("Had a great day", False),
        ("Have a nice weekend", False),
        ("Have a look at the logs", False),
        ("Have someone check the logs", False),
        ("Had my car serviced", False),
        ("Has a dog named Rex", False),
        ("Had I known, I would have stayed", False),
        ("Had I known I would have stayed longer", False),
        ("Has the best coffee in town, that new place on Main St", False),
        ("Has her own office now", False),
        ("hasn't the build finished", True),
        ("Has the incident been resolved", True),
        ("Haven't seen Bob today", False),
        ("Is Alice on call", True),
        ('"Are we done?"', True),
        ("Do not deploy on Fridays", False),
        ("Don't deploy on Fridays", False),
        ("Will is my manager", False),
        ("What I need is coffee", False),
        ("When the pod restarts, the cache is cold", False),
        ("When I'm not traveling, I live in Berlin", False),
        ("When it's late, I work from home", False),
        ("When y'all visit, I cook pasta", False),
        ("When's the standup", True),
        ("How to roll back: helm rollback api", False),
        ("The production region is eu-west-1", False),
        ("", False),
    ],
)
def test_is_question(sentence: str, expected: bool) -> None:
    assert is_question(sentence) is expected


@pytest.mark.parametrize(
    ("text", "expected_text", "durability", "cue"),
    [
        ("Remember that I'm vegan.", "User is vegan", "durable", "vegan"),
        (
            "Note that the deploy freeze starts Friday.",
            "the deploy freeze starts Friday",
            "durable",
            "note",
        ),
        (
            "Please note: the staging database is shared.",
            "the staging database is shared",
            "durable",
            "note",
        ),
        (
            "Keep in mind that the backup window is 02:00 UTC.",
            "the backup window is 02:00 UTC",
            "durable",
            "keep in mind",
        ),
        ("remember the wifi code is 4411", "the wifi code is 4411", "durable", "remember"),
        (
            "Remember that the api is restarting right now.",
            "the api is restarting right now",
            "short-lived",
            "right now",
        ),
        (
            "Keep in mind that I'm out this week.",
            "User is out this week",
            "short-lived",
            "this week",
        ),
        (
            "Remember that I'm on-call this week.",
            "User is on-call this week",
            "durable",
            "on-call",
        ),
        (
            "Don't let me forget that my passport expires in May.",
            "User's passport expires in May",
            "durable",
            "don't let me forget",
        ),
    ],
)
def test_remember_lead_in(text: str, expected_text: str, durability: str, cue: str) -> None:
    assert only_fact(text) == ExtractedFact(expected_text, durability, cue)


def test_remember_when_is_not_a_fact() -> None:
    assert extract_facts("Remember when we deployed on a Friday") == []
