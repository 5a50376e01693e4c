"""Splitting a compound fact into its statements and cutting statements out of it
(memory/text/clauses.py)."""

from __future__ import annotations

import pytest

from tiermem.memory.text.clauses import clauses_of, statements_of, without_statements
from tiermem.memory.text.retractions import still_held
from tiermem.memory.text.updates import (
    read_statement,
)
from tiermem.memory.text.wording import concepts


@pytest.mark.parametrize(("fact", "clauses"), [
    ("The production region is eu-west-1 and the staging region is us-east-2",
     ["The production region is eu-west-1", "The staging region is us-east-2"]),
    # A move taken back by the part after it is one statement; back to a place is a move.
    ("User moved to Berlin last year but User has moved back",
     ["User moved to Berlin last year but User has moved back"]),
    ("User moved to Berlin but User has moved back, and User works at Acme",
     ["User moved to Berlin but User has moved back", "User works at Acme"]),
    ("User moved to Berlin and User has moved back to Lisbon",
     ["User moved to Berlin", "User has moved back to Lisbon"]),
    ("User is on call this week, and User's backup is Priya",
     ["User is on call this week", "User's backup is Priya"]),
    ("User's city is Faro; User's employer is Acme", ["User's city is Faro",
                                                      "User's employer is Acme"]),
    ("User likes salt and pepper", ["User likes salt and pepper"]),  # no statement after it
    # A part that states nothing of its own stays with the one before it.
    ("User's favourite bands are Queen and the Rolling Stones and User's favourite food is "
     "sushi", ["User's favourite bands are Queen and the Rolling Stones",
               "User's favourite food is sushi"]),
    ("The client is Procter and Gamble in Cincinnati",
     ["The client is Procter and Gamble in Cincinnati"]),
    ("Salt and pepper is on the table", ["Salt and pepper is on the table"]),
    ("The production region is eu-west-1", ["The production region is eu-west-1"]),
    # A verb of liking with no subject of its own shares the one before it.
    ("User likes jazz and hate country music", ["User likes jazz", "User hates country music"]),
    ("We like tea and love coffee", ["We like tea and love coffee"]),  # no subject read
    # ... but not when, cut off, the part would point back at nothing ("it"), or the verb
    # may continue a relative clause: then whose it is is unclear.
    ("User likes tea and prefer it green", ["User likes tea and prefer it green"]),
    ("User likes coffee and hate that it keeps me up",
     ["User likes coffee and hate that it keeps me up"]),
    ("User likes people who like jazz and hate noise",
     ["User likes people who like jazz and hate noise"]),
    # A determiner, a noun and a verb of the closed list, then where or when: a statement.
    ("User doesn't use PagerDuty, and the alerts go to Opsgenie",
     ["User doesn't use PagerDuty", "The alerts go to Opsgenie"]),
    ("The deploy is done, and the build failed at noon",
     ["The deploy is done", "The build failed at noon"]),
    # A noun phrase, however it goes on, is an item of what the part before it says.
    ("User loves the summer, and the smell of rain",
     ["User loves the summer, and the smell of rain"]),
    ("User likes User's flat, and the bus stop at the corner",
     ["User likes User's flat, and the bus stop at the corner"]),
    ("User likes the park, and the kids run around",
     ["User likes the park, and the kids run around"]),
    # A part after a name is about whoever bears it: the one named before, else its own
    # pronoun's; with no subject of its own and a pronoun's name before it, it says whose
    # only joined to that name.
    ("His name is Tom and he works at Acme", ["His name is Tom", "He works at Acme"]),
    ("Her name is Ana and his name is Bob", ["Her name is Ana", "His name is Bob"]),
    ("User's boss's name is Dana and is based in Berlin",
     ["User's boss's name is Dana", "User's boss is based in Berlin"]),
    ("His name is Tom and is a nurse", ["His name is Tom and is a nurse"]),
    # "we" and "they" with the verb as said state something of their own.
    ("Their name is Sam and they work at Acme", ["Their name is Sam", "They work at Acme"]),
    ("We use Datadog, and the payment alerts go to Slack",
     ["We use Datadog", "The payment alerts go to Slack"]),
    ("We use Datadog and are on the Team plan", ["We use Datadog", "We are on the Team plan"]),
    ("We use Datadog, and we're on the Team plan", ["We use Datadog", "We're on the Team plan"]),
    ("We use Datadog and is great", ["We use Datadog and is great"]),
    # A sentence quoted as the speaker's joins statements as it would unquoted, each told
    # of the speaker; one whose first person stays quoted is kept whole.
    ("User: The alerts go to Opsgenie, and I don't use PagerDuty",
     ["The alerts go to Opsgenie", "User doesn't use PagerDuty"]),
    ("User: I think the alerts go to Opsgenie, and I don't use PagerDuty",
     ["User: I think the alerts go to Opsgenie, and I don't use PagerDuty"]),
    # A label that may be no speaker ("Note:", as a model or a user writes one) is never
    # made the subject of the first person: "Note doesn't use PagerDuty" says no such thing.
    ("Note: the alerts go to Opsgenie, and I don't use PagerDuty",
     ["Note: the alerts go to Opsgenie, and I don't use PagerDuty"]),
    ("Note: the alerts go to Opsgenie, and the pager goes to Dana",
     ["The alerts go to Opsgenie", "The pager goes to Dana"]),
    # A speaker's name is no label: the first person is told of whoever said it.
    ("Ada: The alerts go to Opsgenie, and I don't use PagerDuty",
     ["The alerts go to Opsgenie", "Ada doesn't use PagerDuty"]),
    # A label inside the speaker's quoted words is theirs: "I" is still the speaker.
    ("User: Incident: the alerts go to Opsgenie, and I don't use PagerDuty",
     ["The alerts go to Opsgenie", "User doesn't use PagerDuty"]),
    ("Ada: Incident: the alerts go to Opsgenie, and I don't use PagerDuty",
     ["The alerts go to Opsgenie", "Ada doesn't use PagerDuty"]),
    ("User: Incident: the alerts go to Opsgenie, and the pager goes to Dana",
     ["The alerts go to Opsgenie", "The pager goes to Dana"]),
    # A name there is of someone the speaker quotes: their "I" is neither the speaker's
    # nor told of them, as nothing says the name is not a heading.
    ("User: Ada: I moved to Paris and I don't eat meat",
     ["User: Ada: I moved to Paris and I don't eat meat"]),
    ("User: Ada: the alerts go to Opsgenie, and the pager goes to Dana",
     ["The alerts go to Opsgenie", "The pager goes to Dana"]),
])
def test_a_compound_fact_splits_into_its_statements(fact: str, clauses: list[str]) -> None:
    assert clauses_of(fact) == clauses


def test_what_a_list_still_holds_is_never_a_verb_read_as_an_item() -> None:
    # "likes hate country music" said the reverse of what the user had said.
    liked = "User likes jazz and hate country music"
    assert still_held(liked, frozenset(concepts("I like jazz"))) is None
    assert still_held("User likes jazz and blues", frozenset(concepts("I like jazz"))) == (
        "User likes blues")
    # A clause of someone's own after the list is no item: "User's parents live in they own
    # a cabin" said nothing anyone had said.
    moved = read_statement("My parents don't live in Oslo anymore.").denied
    assert still_held("User's parents live in Oslo, and they own a cabin", moved) is None
    assert still_held("User is allergic to peanuts and we use Datadog",
                      frozenset(concepts("peanuts"))) is None


def test_each_statement_lasts_as_long_as_it_says() -> None:
    fact = "User's phone number is 555-0100 and User's hotel room is 412 this week"
    assert statements_of(fact, "durable") == [("User's phone number is 555-0100", "durable"),
                                              ("User's hotel room is 412 this week",
                                               "short-lived")]
    # A statement that says nothing of time takes the sentence's; one fact stays whole.
    assert statements_of("The staging region is us-east-2 and the queue is full",
                         "durable") == [("The staging region is us-east-2", "durable"),
                                        ("The queue is full", "durable")]
    assert statements_of("User's hotel room is 412 this week", "durable") == [
        ("User's hotel room is 412 this week", "durable")]


@pytest.mark.parametrize(("fact", "parts"), [
    ("User is vegetarian, and I don't drink coffee", ["User is vegetarian",
                                                      "User doesn't drink coffee"]),
    ("User's name is Dana and I do not eat pork", ["User's name is Dana",
                                                   "User does not eat pork"]),
    # no speaker at the head to tell it of: kept as said
    ("It is raining and I don't have an umbrella", ["It is raining",
                                                   "I don't have an umbrella"]),
    ("The meeting is at 3 and I don't know where", ["The meeting is at 3",
                                                    "I don't know where"]),
])
def test_an_earlier_version_s_i_dont_in_a_compound_fact_is_told_of_its_speaker(
        fact: str, parts: list[str]) -> None:
    assert clauses_of(fact) == parts


@pytest.mark.parametrize(("fact", "parts"), [
    # A part that opens with a verb of the statement list shares the subject before it ...
    ("Customer 9034 uses SSO and is on the Team plan",
     ["Customer 9034 uses SSO", "Customer 9034 is on the Team plan"]),
    ("User's sister lives in Lyon and has two kids",
     ["User's sister lives in Lyon", "User's sister has two kids"]),
    ("The servers are in Frankfurt and have 64GB of RAM",
     ["The servers are in Frankfurt", "The servers have 64GB of RAM"]),
    # ... told of it as the verb before it is, when the extractor left it as said
    ("User uses SSO and am on the Team plan", ["User uses SSO", "User is on the Team plan"]),
    ("User lives in Porto and work at Acme", ["User lives in Porto", "User works at Acme"]),
    ("User is vegan and don't eat fish", ["User is vegan", "User doesn't eat fish"]),
    ("User works at Acme and am on call this week",
     ["User works at Acme", "User is on call this week"]),
    # ... and not when what it says leans on the part before
    ("User's favourite bands are Queen and the Rolling Stones",
     ["User's favourite bands are Queen and the Rolling Stones"]),
    ("User likes the product and is proud of it",
     ["User likes the product and is proud of it"]),
    ("User likes people who use SSO and are on Team",
     ["User likes people who use SSO and are on Team"]),
    ("User is vegetarian and has been for years", ["User is vegetarian and has been for years"]),
    ("User never uses SSO and am on the Team plan",
     ["User never uses SSO and am on the Team plan"]),
    ("There is a bug in the parser and has been since 2.0",
     ["There is a bug in the parser and has been since 2.0"]),
    ("The servers are in Frankfurt and am happy", ["The servers are in Frankfurt and am happy"]),
    ("User moved to Porto and work remotely", ["User moved to Porto and work remotely"]),
])
def test_a_part_with_no_subject_of_its_own_shares_the_one_before_it(
        fact: str, parts: list[str]) -> None:
    assert clauses_of(fact) == parts


@pytest.mark.parametrize(("sentence", "left"), [
    ("My gym is FitLife and my dentist is Dr. Lee.", "My dentist is Dr. Lee."),
    ("My dentist is Dr. Lee, and my gym is FitLife.", "My dentist is Dr. Lee"),
    ("I live in Porto and my gym is FitLife and my cat is Tom",
     "I live in Porto and my cat is Tom"),
    # Read as clauses_of reads it: the verb takes the subject before it.
    ("Customer 9034 uses SSO and is with FitLife", "Customer 9034 uses SSO"),
    # What is left would lean on what was cut.
    ("My gym is FitLife and she is my trainer", None),
    ("My gym is FitLife and Gold's and my dentist is Dr. Lee", None),
    ("My sister goes to FitLife and is a nurse", None),
    # Nothing, or everything, cut.
    ("My dentist is Dr. Lee", None),
    ("My gym is FitLife", None),
])
def test_without_statements_cuts_whole_statements_out_in_the_speaker_s_words(
        sentence: str, left: str | None) -> None:
    assert without_statements(sentence, lambda part: "FitLife" in part) == left
