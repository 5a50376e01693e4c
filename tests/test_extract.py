"""The offline fact extractor: splitting, filtering, rewriting, durability, de-duplication."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiermem.memory.text.extract import (
    MAX_FACT_CHARS,
    ExtractedFact,
    classify_durability,
    extract_facts,
    is_question,
    normalize_fact,
)
from tiermem.memory.text.sentences import split_sentences


def only_fact(text: str, speaker: str = "User") -> ExtractedFact:
    facts = extract_facts(text, speaker=speaker)
    assert len(facts) == 1, facts
    return facts[0]


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


# --- personal assistant memory ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected_text", "durability"),
    [
        ("I'm allergic to peanuts.", "User is allergic to peanuts", "durable"),
        ("I am allergic to peanuts", "User is allergic to peanuts", "durable"),
        ("I’m allergic to peanuts.", "User is allergic to peanuts", "durable"),
        ("I'm having coffee right now.", "User is having coffee right now", "short-lived"),
        ("My new address is 12 Elm St.", "User's new address is 12 Elm St.", "durable"),
        ("My name is Ada.", "User's name is Ada", "durable"),
        ("I'm on-call this week.", "User is on-call this week", "durable"),
        ("I was born in Lisbon.", "User was born in Lisbon", "durable"),
        ("I've got a daughter named Mia.", "User has got a daughter named Mia", "durable"),
        ("I live in Berlin.", "User lives in Berlin", "durable"),
        ("I prefer window seats.", "User prefers window seats", "durable"),
        ("I work at Acme.", "User works at Acme", "durable"),
        ("I love my wife.", "User loves User's wife", "durable"),
        ("We moved to Berlin.", "We moved to Berlin", "durable"),
        ("Alice is my manager.", "Alice is User's manager", "short-lived"),
        ("I think the build is flaky.", "User: I think the build is flaky", "short-lived"),
        ("I like tea.", "User likes tea", "durable"),
        # A later clause that opens in the first person reads as the head does.
        ("My name is Dana and I live in Lisbon.",
         "User's name is Dana and User lives in Lisbon", "durable"),
        ("I have a dog, and I'm moving next week.",
         "User has a dog, and User is moving next week", "short-lived"),
        ("I was born in Lisbon but I moved to Porto.",
         "User was born in Lisbon but User moved to Porto", "durable"),
        ("I like Ian and Isaac.", "User likes Ian and Isaac", "durable"),
        ("I moved to Porto, then I moved to Lisbon.",
         "User moved to Porto, then User moved to Lisbon", "durable"),
        ("I live in Lisbon — I work in Porto.", "User lives in Lisbon — User works in Porto",
         "durable"),
        ("I like tea,and I own a cat.", "User likes tea,and User owns a cat", "durable"),
        # Not a clause of the speaker's own: a shared subject (the speaker told of in it as
        # one of several), a quotation, reported words.
        ("My wife and I have two kids.", "User's wife and User have two kids", "durable"),
        ("My little sister Ann and I live in Porto.",
         "User's little sister Ann and User live in Porto", "durable"),
        ("My wife and son and I live in Lisbon.",
         "User's wife and son and User live in Lisbon", "durable"),
        ("I like it when my friends and I have dinner.",
         "User likes it when User's friends and User have dinner", "short-lived"),
        ('My motto: "Work hard, and I am free".', 'User\'s motto: "Work hard, and I am free"',
         "short-lived"),
        ("My son says, I am hungry.", "User's son says, I am hungry", "durable"),
        ("I live with my wife and I love her.", "User lives with User's wife and User loves her",
         "durable"),
    ],
)
def test_personal_facts(text: str, expected_text: str, durability: str) -> None:
    fact = only_fact(text)
    assert (fact.text, fact.durability) == (expected_text, durability)


def test_a_fact_says_what_earlier_versions_made_of_its_sentence() -> None:
    # They rewrote only the head: a fact forgotten or stored in that form stays known by it.
    fact = only_fact("My name is Dana and I live in Lisbon.")
    assert fact.former == "User's name is Dana and I live in Lisbon"
    assert only_fact("I live in Lisbon.").former is None  # the same text either way
    # A first person that no head rule covers is left as it was.
    assert only_fact("My wife is Ana but I call her Annie.").text == (
        "User's wife is Ana but I call her Annie")


@pytest.mark.parametrize(("text", "expected"), [
    ("I speak Hebrew.", ("User speaks Hebrew", "durable", "language")),
    ("I speak English, Spanish and a little Japanese",
     ("User speaks English, Spanish and a little Japanese", "durable", "language")),
    ("I'm fluent in German.", ("User is fluent in German", "durable", "language")),
    ("My native language is Portuguese.",
     ("User's native language is Portuguese", "durable", "language")),
    # speaking, not a language: no lasting cue
    ("I speak at PyCon on Friday.", ("User speaks at PyCon on Friday", "short-lived", None)),
    ("The API speaks JSON.", ("The API speaks JSON", "short-lived", None)),
])
def test_a_language_spoken_is_a_durable_fact_of_the_speaker(
        text: str, expected: tuple[str, str, str | None]) -> None:
    fact = only_fact(text)
    assert (fact.text, fact.durability, fact.cue) == expected
    if text.startswith("I speak"):  # earlier versions quoted it: still known by that
        assert fact.former == "User: " + text.rstrip(".")


@pytest.mark.parametrize(("text", "told"), [
    ("I don't drink coffee.", "User doesn't drink coffee"),
    ("I do not eat pork", "User does not eat pork"),
    ("I don’t like tea.", "User doesn’t like tea"),
    ("I dont smoke.", "User doesn't smoke"),
    ("I'm vegetarian, and I don't drink coffee.",
     "User is vegetarian, and User doesn't drink coffee"),
])
def test_i_dont_is_told_of_the_speaker(text: str, told: str) -> None:
    fact = only_fact(text)
    assert fact.text == told
    # Earlier versions quoted it, or kept it as said after another statement.
    assert fact.former == ("User: " + text.rstrip(".") if text.startswith("I d")
                           else "User is vegetarian, and I don't drink coffee")


def test_a_fact_says_what_each_earlier_version_made_of_its_sentence() -> None:
    fact = only_fact("My name is Dana, I live in Lisbon and I don't drink coffee.")
    assert fact.text == "User's name is Dana, User lives in Lisbon and User doesn't drink coffee"
    assert fact.formers == ("User's name is Dana, I live in Lisbon and I don't drink coffee",
                            "User's name is Dana, User lives in Lisbon and I don't drink coffee")
    assert only_fact("I don't drink coffee.").formers == ("User: I don't drink coffee",)


@pytest.mark.parametrize(("text", "expected"), [
    ("My manager is Priya.", ("User's manager is Priya", "durable", "relation named")),
    ("My doctor is Dr. Lee", ("User's doctor is Dr. Lee", "durable", "relation named")),
    ("My dog is Rex.", ("User's dog is Rex", "durable", "relation named")),
    ("My dog's name is Rex.", ("User's dog's name is Rex", "durable", "name is")),
    ("My editor is vim.", ("User's editor is vim", "durable", "own tool")),
    ("My IDE is PyCharm", ("User's IDE is PyCharm", "durable", "own tool")),
    # a state, a booking, a day or someone no tool names: no lasting cue
    ("My manager is angry.", ("User's manager is angry", "short-lived", None)),
    ("My flight is AA123.", ("User's flight is AA123", "short-lived", None)),
    ("My dentist is Tuesday.", ("User's dentist is Tuesday", "short-lived", None)),
    ("My editor is angry.", ("User's editor is angry", "short-lived", None)),
    # an editor who is a person is named like a manager; one that is a tool, as a tool
    ("My editor is Jane.", ("User's editor is Jane", "durable", "relation named")),
    ("My editor is Vim.", ("User's editor is Vim", "durable", "own tool")),
    ("My lawyer is Friday.", ("User's lawyer is Friday", "short-lived", None)),
    ("My manager is in Berlin this week.",
     ("User's manager is in Berlin this week", "short-lived", "this week")),
])
def test_a_lasting_relation_or_tool_named_is_durable(
        text: str, expected: tuple[str, str, str | None]) -> None:
    fact = only_fact(text)
    assert (fact.text, fact.durability, fact.cue) == expected


@pytest.mark.parametrize(("text", "name"), [
    ("Call me Sammy", "Sammy"), ("Please call me Sammy.", "Sammy"),
    ("You can call me Dr. Lee", "Dr. Lee"), ("Just call me Sam, please", "Sam"),
    ("Call me Liz, everyone does", "Liz"), ("Call me Liz - all my friends do.", "Liz"),
])
def test_call_me_states_the_speakers_name(text: str, name: str) -> None:
    fact = only_fact(text)
    assert (fact.text, fact.durability, fact.cue) == (f"User's name is {name}", "durable",
                                                      "my name")
    # Earlier versions stored it as said: forgotten or stored so, it is still known.
    assert fact.former == f"User: {text.rstrip('.')}"


@pytest.mark.parametrize("text", ["call me back", "Call me Monday", "Call me when it is done.",
                                  "Call me later", "Call me crazy, but I like it",
                                  "Call me Soon.", "Call me Next Week.", "Call me Tues.",
                                  "Call me Noon.", "Call me Mom."])
def test_call_me_with_no_name_states_none(text: str) -> None:
    assert not any(f.text.startswith("User's name") for f in extract_facts(text))


@pytest.mark.parametrize(("text", "name"), [
    ("Hi! I'm Maya", "Maya"), ("Hello, I'm Maya.", "Maya"), ("Hey there, I'm Maya", "Maya"),
    ("Hi, I am Maya Lopez!", "Maya Lopez"), ("Hello. I'm Siobhan O'Brien.", "Siobhan O'Brien"),
    ("hi, i'm José", "José"),
])
def test_a_greeting_then_i_am_a_name_states_the_speakers_name(text: str, name: str) -> None:
    fact = only_fact(text)
    assert (fact.text, fact.durability, fact.cue) == (f"User's name is {name}", "durable",
                                                      "my name")
    # Earlier versions stored it as "User is Maya": forgotten or stored so, still known.
    assert fact.former == f"User is {name}"
    # Beside another name of the speaker it is read so (memory/text/updates.py).
    assert fact.plain is not None
    assert (fact.plain.text, fact.plain.durability) == (f"User is {name}", "short-lived")


@pytest.mark.parametrize("text", ["My name is Maya.", "Call me Maya", "I'm Maya.",
                                  "Hi, I'm Tired"])
def test_only_an_introduction_has_a_plain_reading(text: str) -> None:
    assert only_fact(text).plain is None


def test_an_introduction_said_after_its_greeting_keeps_the_rest_of_the_message() -> None:
    assert [f.text for f in extract_facts("Hi! I'm Maya. I live in Portland.")] == [
        "User's name is Maya", "User lives in Portland"]


@pytest.mark.parametrize("text", [
    "I'm Maya.",  # no greeting: not an introduction for sure
    "Hi, I'm British.", "Hi! I'm Catholic", "Hello, I'm Vegan.", "Hi, I'm Tired",
    "Hi, I'm French.", "Hey, I'm South African", "Hi. I'm Vegetarian", "Hi, I'm maya",
    "Hi, I'm NASA", "Hey, I'm Back!", "Hi, I'm Maya and I live in Lisbon",
    "Hi Maya, I'm Tom",
    # where one is, or one's part on a shift: a name would replace the speaker's own
    "Hi, I'm Late", "Hi, I'm Away", "Good morning, I'm Covering", "Hi, I'm Primary",
    "Hey, I'm Remote", "Hi, I'm Swamped", "Hello, I'm Staff",
])
def test_what_the_speaker_is_after_a_greeting_names_no_one(text: str) -> None:
    assert not any(f.text.startswith("User's name") for f in extract_facts(text))


@pytest.mark.parametrize("text", ["Call me back.", "Call me back later", "call me back later, "
                                  "thanks!", "Call me later.", "Call me Mom.", "Call me Monday",
                                  "Call me when it is done.", "Call us back tomorrow",
                                  "Call me back at 3pm", "Call me if the deploy fails.",
                                  "Call me Tomorrow.", "Call me a taxi",
                                  "Call me an Uber to the airport.", "Call me a cab, please",
                                  "Call me a tow truck"])
def test_asking_for_a_call_is_a_request_not_a_fact(text: str) -> None:
    assert extract_facts(text) == []


@pytest.mark.parametrize(("text", "facts"), [
    # How the speaker stands in the conversation is no fact a later turn needs.
    ("I'm sorry.", []), ("I am so sorry for the delay!", []), ("I'm confused.", []),
    ("Sorry, I'm a bit confused by this", []), ("I'm not sure.", []),
    ("I'm really not sure yet", []), ("I'm back.", []), ("Hi, I'm back!", []),
    ("I'm done.", []), ("Ok I'm done for today", []), ("I'm here now.", []),
    ("I'm just asking.", []), ("Im just curious", []),
    # Said with more, or of the speaker's life, it is one.
    ("I'm back from vacation.", ["User is back from vacation"]),
    ("I'm done with the migration.", ["User is done with the migration"]),
    ("I'm here in Berlin until Friday.", ["User is here in Berlin until Friday"]),
    ("I'm curious about Rust.", ["User is curious about Rust"]),
    ("I'm vegetarian.", ["User is vegetarian"]),
    ("I'm allergic to penicillin.", ["User is allergic to penicillin"]),
    ("I'm a nurse.", ["User is a nurse"]), ("I'm 34.", ["User is 34"]),
    ("I'm exhausted.", ["User is exhausted"]),
    # An aside joined to a statement leaves the statement, alone, wherever it stands.
    ("I'm back, and I moved to Porto.", ["User moved to Porto"]),
    ("I'm sorry for the delay, I moved to Porto.", ["User moved to Porto"]),
    ("I'm back - I moved to Porto.", ["User moved to Porto"]),
    ("I'm confused — my wife is vegan.", ["User's wife is vegan"]),
    ("I'm confused, but my wife is vegan.", ["User's wife is vegan"]),
    # After a statement, "I'm back" or "I'm not sure" says how it holds: kept with it.
    ("I moved to Berlin but I'm back.", ["User moved to Berlin but User is back"]),
    ("I'm allergic to penicillin, but I'm not sure.",
     ["User is allergic to penicillin, but User is not sure"]),
    # ... while an aside before the statement, or an apology, is still left out.
    ("I'm back, and I moved to Porto, but I'm not sure.",
     ["User moved to Porto, but User is not sure"]),
    ("I'm confused, I work at Acme, but I'm not sure.",
     ["User works at Acme, but User is not sure"]),
    ("I'm sorry I missed the standup, but I'm back.", ["User: I missed the standup, but I'm back"]),
    ("I'm confused, but I'm back.", []),
    ("I'm back from vacation and I moved to Porto.",
     ["User is back from vacation and User moved to Porto"]),
    # An apology is no fact; what it is for is said as it would be on its own.
    ("I'm sorry I missed the standup.", ["User: I missed the standup"]),
    ("I am so sorry that I'm late.", ["User is late"]),
    # An apology ends where a clause of its own starts: what follows is stored with it.
    ("I'm sorry if I was unclear.", []), ("I'm sorry to hear that.", []),
    ("I'm so sorry for being late to the call!", []),
    ("I'm sorry if I was unclear, my name is Dana.",
     ["User's name is Dana"]),
    ("I'm sorry if this is a dumb question but I work at Google.",
     ["User works at Google"]),
    ("I'm sorry for the delay - I was in the hospital.", ["User was in the hospital"]),
    ("I'm sorry about my dog, he died last week.",
     ["User is sorry about User's dog, he died last week"]),
    ("I'm sorry to say my mother passed away.",
     ["User is sorry to say User's mother passed away"]),
])
def test_an_aside_about_the_conversation_states_no_fact(text: str, facts: list[str]) -> None:
    assert [fact.text for fact in extract_facts(text)] == facts


@pytest.mark.parametrize(("text", "fact"), [
    # a number to call, an idiom, and a fact said after the call are still stored
    ("Call me at 555-0101.", "User: Call me at 555-0101"),
    ("Call me old-fashioned, but I prefer paper books.",
     "User: Call me old-fashioned, but I prefer paper books"),
    ("Call me back, I live in Lisbon now.", "User: Call me back, I live in Lisbon now"),
    ("Call me a romantic, but I write letters.", "User: Call me a romantic, but I write letters"),
    # what is called for, then more of a noun: the speaker described, not a ride asked for
    ("Call me a car guy.", "User: Call me a car guy"),
    ("Call me a cab driver's daughter", "User: Call me a cab driver's daughter"),
])
def test_call_me_that_says_more_than_when_to_call_is_kept(text: str, fact: str) -> None:
    assert only_fact(text).text == fact


def test_dont_forget_about_x_with_a_clause_about_x_states_it() -> None:
    fact = only_fact("Don't forget about the 401k rollover, it's due in March.")
    assert (fact.text, fact.durability) == ("The 401k rollover is due in March", "durable")
    # Earlier versions kept the pronoun: a fact stored so is still known by it.
    assert fact.former == "the 401k rollover, it's due in March"
    assert only_fact("Remember about the party - it starts at 8").text == (
        "The party starts at 8")
    # A semicolon cuts the sentence, not what the clause says of X.
    assert only_fact("Don't forget about the maintenance window; it starts at 2am UTC").text == (
        "The maintenance window starts at 2am UTC")
    assert [f.text for f in extract_facts("Don't forget about the rollover; I'll handle it.")
            ] == ["User: I'll handle it"]
    # X alone, or a clause about something else, states nothing of X.
    for said in ("Don't forget about the rollover.", "Don't forget about it, it matters.",
                 "Don't forget about the gym, I'm going at 6."):
        assert extract_facts(said) == [], said


@pytest.mark.parametrize(("text", "fact"), [
    ("Don't forget about the forms, they're due Friday.", "The forms are due Friday"),
    ("Don't forget about the launch, it's been moved to May.", "The launch has been moved to May"),
    ("Don't forget about the gala, which is on Friday.", "The gala is on Friday"),
    ("Don't forget about the demo, it'll run at noon.", "The demo will run at noon"),
    ("Don't forget about the gala, this starts at 8.", "The gala starts at 8"),
    ("Don't forget about the review, that matters to Dana.", "The review matters to Dana"),
    ("Don't forget about the move, which got pushed to June.", "The move got pushed to June"),
])
def test_the_clause_about_x_says_it_of_x_not_of_a_pronoun(text: str, fact: str) -> None:
    assert only_fact(text).text == fact


@pytest.mark.parametrize("text", ["Don't forget about the report, that I promised Dana.",
                                  "Don't forget about the report, which I promised Dana.",
                                  "Don't forget about the report, that Dana wants.",
                                  "Don't forget about the report, which Dana needs by Friday."])
def test_a_relative_clause_after_x_only_says_which_x(text: str) -> None:
    # "that" or "which" before a subject says which report, as "the report I promised
    # Dana" does: a request to be reminded, which states nothing.
    assert extract_facts(text) == []


@pytest.mark.parametrize("text", [
    "Don't forget about the standup, this week Dana runs it.",
    "Don't forget about the offsite, this year it's in Lisbon.",
    "Don't forget about the dentist, this Friday at 3pm.",
    "Don't forget about the audit, that day nobody deploys.",
])
def test_this_or_that_before_a_noun_is_no_pronoun_for_x(text: str) -> None:
    # "this week" says when, not what X does: X in its place would read "The standup week
    # Dana runs it". The clause is kept as said.
    said = text.removeprefix("Don't forget about ").rstrip(".")
    assert only_fact(text).text == said


def test_speaker_name_replaces_first_person() -> None:
    assert only_fact("I'm vegetarian.", speaker="Ada").text == "Ada is vegetarian"
    assert only_fact("My phone is 555-0100.", speaker="Ada").text == "Ada's phone is 555-0100"


def test_blank_speaker_falls_back_to_user() -> None:
    assert only_fact("I'm vegan.", speaker="  ").text == "User is vegan"


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
