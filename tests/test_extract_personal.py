"""The offline fact extractor on personal facts: names, introductions, languages, reminders
and asides about the conversation."""

from __future__ import annotations

import pytest
from extract_helpers import check_known_by_earlier_words, only_fact

from tiermem.memory.text.extract import (
    extract_facts,
)

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
        ("Alice is my manager.", "Alice is User's manager", "durable"),
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
    "Hi, I'm NASA", "Hey, I'm Back!",
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
    # A slip noticed before saying what it was: "No wait" or "Hold on a sec" was stored.
    ("No wait.", []), ("Hold on.", []), ("Wait a second.", []), ("Hold on a sec!", []),
    ("Hmm, hang on a minute.", []),
    ("Wait for me at the station.", ["User: Wait for me at the station"]),
    # A slip noticed, what it was unsaid: "That's wrong", "User's mistake" was stored.
    ("No wait, that's wrong.", []), ("Sorry, that's wrong.", []),
    ("Hold on, that's incorrect.", []), ("That was a typo.", []), ("Sorry, my mistake.", []),
    ("No wait, I'm wrong.", []), ("That's not correct.", []),
    ("It's wrong to lie.", ["It's wrong to lie"]),
    ("I was wrong about Tom.", ["User was wrong about Tom"]),
    ("My mistake was trusting Tom.", ["User's mistake was trusting Tom"]),
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
    # A dash typed with no spaces: any before a capital "I", a long one before any clause.
    ("I'm sorry for the delay-I was sick.", ["User was sick"]),
    ("I'm sorry for the delay—I was sick.", ["User was sick"]),
    ("I'm back—my name is Dana.", ["User's name is Dana"]),
    ("I'm sorry for the well-intentioned mess.", []),
    # A doubt before a statement doubts it, as one after it does: both are kept, quoted.
    ("I'm not sure, but I think my wife is vegan.",
     ["User: I'm not sure, but I think my wife is vegan"]),
    ("I'm not sure but my wife is vegan.", ["User: I'm not sure but my wife is vegan"]),
    ("I'm not sure, I'm sorry.", []),
    ("I'm sorry about my dog, he died last week.",
     ["User is sorry about User's dog, he died last week"]),
    ("I'm sorry to say my mother passed away.",
     ["User is sorry to say User's mother passed away"]),
])
def test_an_aside_about_the_conversation_states_no_fact(text: str, facts: list[str]) -> None:
    assert [fact.text for fact in extract_facts(text)] == facts


@pytest.mark.parametrize(("older", "sentence"), [
    # in the words of the version that left a doubt before a statement out
    ("User: I think my wife is vegan", "I'm not sure, but I think my wife is vegan."),
    ("User lives in Lisbon", "I am not certain, I live in Lisbon."),
    ("User's wife and User moved to Porto", "I'm not sure but my wife and I moved to Porto."),
])
def test_a_fact_stored_before_a_doubt_was_kept_is_still_known(older: str, sentence: str) -> None:
    check_known_by_earlier_words(older, sentence)


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
