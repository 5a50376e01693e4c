"""Reading what a statement changes (memory/text/updates.py) and matching words by stem
(memory/text/wording.py)."""

from __future__ import annotations

import pytest

from tiermem.memory.text.extract import extract_facts, normalize_fact
from tiermem.memory.text.retractions import retracted
from tiermem.memory.text.updates import (
    Statement,
    read_statement,
    replaces,
    slot_of,
    stated_beside,
)
from tiermem.memory.text.wording import concepts, stem


@pytest.mark.parametrize(("words", "same"), [
    (("live", "lives", "living", "lived"), "liv"),
    (("prefer", "prefers", "preferred"), "prefer"),
    (("address", "addresses"), "address"),
    (("allergy", "allergies"), "allergy"),
    (("seat", "seats"), "seat"),
])
def test_inflections_share_a_stem(words: tuple[str, ...], same: str) -> None:
    assert {stem(w) for w in words} == {same}


def test_synonyms_are_one_concept_and_stopwords_none() -> None:
    assert concepts("Where do I live?") == {"residence"}
    assert concepts("User's city is Faro") == {"user", "residence", "faro"}
    assert concepts("User is based in Berlin") == {"user", "residence", "berlin"}
    assert concepts("What is my job?") == concepts("Where do I work?") == {"work"}
    assert concepts("I'm allergic") == concepts("allergies") == {"allergy"}


def test_an_identifier_is_one_concept_and_its_numbers_none_of_their_own() -> None:
    assert concepts("The prod region is ap-southeast-2.") == {
        "prod", "region", "ap", "southeast", "ap-southeast-2"}
    assert concepts("Postgres 15 on db-01, v1.2.3 at 10.0.0.1") == {
        "postgr", "15", "db", "db-01", "v1", "v1.2.3", "10.0.0.1"}
    assert concepts("What's 2+2?") == {"2"}  # a number on its own is a concept


@pytest.mark.parametrize(("sentence", "expected"), [
    ("I moved to Porto.", Statement("I moved to Porto.", "moved to")),
    ("I live in Braga now.", Statement("I live in Braga.", "now")),
    ("I now live in Coimbra.", Statement("I live in Coimbra.", "now")),
    ("Sorry, my phone number is actually 555-0123.",
     Statement("My phone number is 555-0123.", "actually")),
    ("I've changed my phone number to 555-0199.",
     Statement("My phone number is 555-0199", "changed my")),
    ("Actually, I work at Initech, not Globex.", Statement("I work at Initech", "actually")),
    ("My new email is a@b.example.", Statement("My new email is a@b.example.", "my new")),
    # "now" meaning this moment is not a change of a fact; neither is a plain statement.
    ("Right now I'm waiting for the tram.", Statement("Right now I'm waiting for the tram.")),
    ("For now the queue is empty.", Statement("For now the queue is empty.")),
    ("I don't eat pork.", Statement("I don't eat pork.")),
    # What a thing is not, then what it is: a new value of it.
    ("My name isn't Sam, it's Samuel.", Statement("My name is Samuel", "correction")),
    ("Actually, my name's not Sam, it's Samuel!", Statement("My name is Samuel", "correction")),
    ("The servers aren't in Berlin, they're in Frankfurt",
     Statement("The servers are in Frankfurt", "correction")),
    ("It isn't broken, it's slow.", Statement("It isn't broken, it's slow.")),
])
def test_reading_updates_and_plain_statements(sentence: str, expected: Statement) -> None:
    assert read_statement(sentence) == expected


@pytest.mark.parametrize(("sentence", "denied"), [
    ("I no longer work at Acme.", {"work", "acm"}),
    ("I'm not allergic to peanuts anymore, forget that.", {"allergy", "peanut"}),
    ("I don't drive a Toyota any more.", {"driv", "toyota"}),
    ("I'm not vegan any longer.", {"vegan"}),
    ("My dentist is Dr. Silva, forget that.", {"dentist", "dr", "silva"}),
    ("I quit my job at Globex.", {"work", "globex", "works at"}),  # as one left
    ("I've stopped being vegetarian.", {"vegetarian"}),
])
def test_reading_retractions(sentence: str, denied: set[str]) -> None:
    statement = read_statement(sentence)
    assert (statement.text, statement.change, statement.denied) == (
        "", "retraction", frozenset(denied))


@pytest.mark.parametrize(("fact", "slot"), [
    ("User lives in Faro", "user/residence"),
    ("User moved to Faro", "user/residence"),
    ("User's city is Faro", "user/residence"),
    ("User's new address is 12 Elm Street", "user/residence"),
    ("User works at Initech", "user/employer"),
    ("User's phone number is 555-0123", "user/phone number"),
    ("The production region is eu-west-1", "/production region"),
    ("User is vegan", None),
    ("Acme is on the Enterprise plan", None),
    ("The meeting moved to Tuesday", None),
    ("User: I go to the gym on Mondays", None),
    # Whose only the sentences before it say: two such facts may be of two people.
    ("His name is Bob", None),
    ("Her job is nurse", None),
    ("He works at Acme", None),
    ("They moved to Porto", None),
    ("We moved to Porto", "we/residence"),
])
def test_the_attribute_a_fact_sets(fact: str, slot: str | None) -> None:
    assert slot_of(fact) == slot


def test_what_replaces_what() -> None:
    assert replaces("User moved to Porto", "User's address is 3 Oak Avenue", None)
    assert not replaces("User lives in Lisbon", "User lives in Lisbon", None)
    # A move said undone in the same statement leaves the home; a move back is a move.
    assert not replaces("User moved to Berlin but User is back", "User lives in Lisbon", None)
    assert not replaces("User moved to Berlin but came back", "User lives in Lisbon", "now")
    assert replaces("User moved back to Lisbon", "User lives in Berlin", None)
    # Back from a trip, at work, or a thing returned: the move stands.
    for moved in ("User moved to Berlin and just got back from a trip to Rome",
                  "User moved to Berlin and is back at work",
                  "User moved to Berlin and got back into running",
                  "User moved to Berlin and returned the rental van"):
        assert replaces(moved, "User lives in Lisbon", None), moved
    assert not replaces("User moved to Berlin but came back a year later",
                        "User lives in Lisbon", None)
    assert not replaces("User moved to Berlin and returned home", "User lives in Lisbon", None)
    assert replaces("User moved to Berlin and then moved back to Porto", "User lives in Lisbon",
                    None)
    assert not replaces("User is allergic to shellfish", "User is allergic to peanuts", None)
    # Without a cue, a second preference is another fact; with one, it corrects the first.
    window, aisle = "User prefers window seats on flights", "User prefers aisle seats on flights"
    assert not replaces(aisle, window, None)
    assert replaces(aisle, window, "actually")
    assert not replaces("User prefers tea", window, "actually")


@pytest.mark.parametrize(("new", "old", "change", "replaced"), [
    # A person, or a pet, is in many states at once: without a cue, one more fact.
    ("User's sister is pregnant", "User's sister is vegan", None, False),
    ("User's partner is vegan", "User's partner is allergic to cats", None, False),
    ("User's sister Ana is pregnant", "User's sister Ana is vegan", None, False),
    ("User's sister is not pregnant anymore", "User's sister is vegan", None, False),
    ("Our manager is remote", "Our manager is strict", None, False),
    # ... said as a change, it ends the state before; a name still gives way to a name
    ("User's sister is vegetarian", "User's sister is vegan", "now", True),
    ("User's sister is Ana", "User's sister is Anna", None, True),
    # ... but a second name for one of several is another of them, and never a state.
    ("User's sister is Eva", "User's sister is Ana", None, False),
    ("User's partner is vegan", "User's partner is Tom", "now", False),
    ("User's partner is Sam", "User's partner is Tom", None, True),
    ("User's son is 5", "User's son is Leo", None, False),
    ("User's son is 6", "User's son is 5", None, True),
    ("User's son is 5'11\"", "User's son is Leo", "now", False),
    # As a model may word it, the time kept: a height still, not a name.
    ("User's son is 5'11\" now", "User's son is Leo", None, False),
    ("User's son is 180 cm tall these days", "User's son is Leo", "now", False),
    ("User's daughter is Mia now", "User's daughter is 150 cm", None, False),
    ("User's son is 6 ft 2", "User's son is Leo", None, False),
    # A thing's state, or a thing of a person's, changes to another without a cue.
    ("The incident is resolved", "The incident is ongoing", None, True),
    ("User's phone is fixed", "User's phone is broken", None, True),
    ("User's sister's car is red", "User's sister's car is blue", None, True),
])
def test_a_state_of_someone_is_one_more_fact_unless_said_as_a_change(
        new: str, old: str, change: str | None, replaced: bool) -> None:
    assert replaces(new, old, change) is replaced


@pytest.mark.parametrize(("new", "old", "replaced"), [
    # What the two say of the subject is shared: a new value of it.
    ("Customer Acme is now on the Pro plan", "Customer Acme is on the Team plan", True),
    ("Customer Acme now has 50 seats", "Customer Acme has 40 seats", True),
    ("Customer Acme now uses SAML SSO", "Customer Acme uses SSO", True),
    ("I prefer aisle seats on flights now", "User prefers window seats on flights", True),
    ("Alice is now the on-call engineer", "The on-call engineer is Bob", True),
    # A clause or an apposition after the name leaves the subject the one named.
    ("Priya likes coffee now", "Priya, who is on call, likes tea", True),
    ("Marco works from Rome now", "Marco, our SRE lead, works from Milan", True),
    ("Priya, who is on call, likes coffee now", "Priya likes tea", True),
    ("Priya is on call now", "Priya, who leads SRE, lives in Pune", False),
    # Only the subject's own words are shared: another attribute, which still holds.
    ("Customer Acme is on the Pro plan now", "Customer Acme uses SSO", False),
    ("Customer Acme is now on the Pro plan", "Customer Acme has 40 seats", False),
    ("Actually, Customer Acme uses Okta", "Customer Acme is on the Team plan", False),
    ("Customer Acme Corp is actually on the Pro plan", "Customer Acme Corp is in Berlin", False),
    ("My manager Dana is now in the office", "User's manager Dana works remotely", False),
    # A plural after "The" is a noun: the subject is the team, whose name alone is shared.
    ("The payments team now uses Go", "The payments team is in Berlin", False),
    ("Our builds now run on Linux", "Our builds are slow", False),
    # A new name or version, even "now", says what the thing is, not that a state ended.
    ("The database is PostgreSQL 16 now", "The database is overloaded", False),
    ("The database is PostgreSQL 16 now", "The database is PostgreSQL 15", True),
    ("Actually, my phone is 555-0199", "User's phone is broken", False),
    # A new state, or a state in capitals, still ends the one before.
    ("The database is healthy now", "The database is overloaded", True),
    ("The status page is OK now", "The status page is degraded", True),
    ("The incident is resolved now", "The incident is sev1", True),
    ("My city is Faro now", "User lives in Lisbon", True),
])
def test_a_change_cue_replaces_only_a_fact_sharing_more_than_its_subject(
        new: str, old: str, replaced: bool) -> None:
    statement = read_statement(new)
    [fact] = extract_facts(statement.text)
    assert replaces(fact.text, old, statement.change) is replaced


def test_a_retraction_retires_the_closest_facts_only() -> None:
    facts = ["User is allergic to peanuts", "User is allergic to shellfish", "User is vegan",
             "User prefers vegan restaurants"]
    assert retracted(frozenset({"allergy", "peanut"}), facts) == ["User is allergic to peanuts"]
    assert retracted(frozenset({"vegan"}), facts) == ["User is vegan"]
    assert retracted(frozenset({"cat", "miso"}), facts) == []
    assert retracted(frozenset(), facts) == []


def test_no_longer_working_for_someone_retires_them_as_manager_only() -> None:
    facts = ["User's manager is Priya", "User works at Acme", "User's sister's boss is Dana"]
    denied = read_statement("I no longer work for Priya.")
    assert retracted(denied.denied, facts, denied.about) == ["User's manager is Priya"]
    at_acme = read_statement("I no longer work at Acme.")
    assert retracted(at_acme.denied, facts, at_acme.about) == ["User works at Acme"]
    for someone in ("I no longer work for Dana.", "I no longer work for Google."):
        other = read_statement(someone)
        assert retracted(other.denied, facts, other.about) == [], someone
    # Working with someone, or near them, is not working for them: the manager stays.
    for beside in ("I no longer work with Priya on the migration.",
                   "I don't work with Priya anymore.", "I no longer work next to Priya."):
        other = read_statement(beside)
        assert retracted(other.denied, facts, other.about) == [], beside
    for under in ("I don't report to Priya anymore.", "I no longer work under Priya."):
        reports = read_statement(under)
        assert retracted(reports.denied, facts, reports.about) == [
            "User's manager is Priya"], under


def test_a_move_is_a_lasting_fact_in_the_third_person() -> None:
    [moved] = extract_facts("I moved to Porto.")
    assert (moved.text, moved.durability) == ("User moved to Porto", "durable")
    assert normalize_fact("I moved to Porto") == normalize_fact(moved.text)
    [city] = extract_facts("My city is Faro.")
    assert (city.text, city.durability, city.cue) == ("User's city is Faro", "durable", "city")


def _stated(text: str, held: list[str], speaker: str = "User") -> tuple[str, str]:
    (fact,) = extract_facts(text, speaker)
    beside = stated_beside(fact, held)
    return beside.text, beside.durability


@pytest.mark.parametrize("held", [
    ["User's name is Maya"], ["User likes tea", "User's name is Maya Lopez"],
    ["User's name is Dana", "User speaks Hebrew"],  # clauses of a compound fact
])
def test_a_greeting_beside_another_name_of_the_speaker_is_no_new_name(held: list[str]
                                                                      ) -> None:
    assert _stated("Hi, I'm Nervous.", held) == ("User is Nervous", "short-lived")
    assert _stated("Hi! I'm Ana", held) == ("User is Ana", "short-lived")


@pytest.mark.parametrize(("text", "held", "stated"), [
    ("Hi! I'm Maya", [], "User's name is Maya"),  # no name held: an introduction
    ("Hi! I'm Maya", ["User lives in Lisbon", "Tom's name is Tom"], "User's name is Maya"),
    ("Hi! I'm Maya", ["User's name is Maya"], "User's name is Maya"),  # the same name
    ("Hey there, I am Maya.", ["User's name is Maya"], "User's name is Maya"),
    # only a greeting's "I'm X" gives way: the explicit forms change a name
    ("My name is Ana.", ["User's name is Maya"], "User's name is Ana"),
    ("Call me Liz", ["User's name is Maya"], "User's name is Liz"),
])
def test_a_name_stated_beside_what_is_held(text: str, held: list[str], stated: str) -> None:
    assert _stated(text, held)[0] == stated


def test_a_greeting_beside_another_speaker_s_name_names_this_one() -> None:
    assert _stated("Hi, I'm Mel.", ["Caroline's name is Caroline"], "Mel")[0] == (
        "Mel's name is Mel")
    assert _stated("Hi, I'm Melanie.", ["Mel's name is Mel"], "Mel")[0] == "Mel is Melanie"


@pytest.mark.parametrize(("new", "old", "replaced"), [
    ("The incident moved to sev2", "The incident is sev1 right now", True),
    ("The meeting moved to Friday", "The meeting is on Thursday", True),
    ("The standup moved to 10:30", "The standup is at 9:30", True),
    ("The kickoff was moved to May", "The kickoff is in April", True),
    ("The deploy moved to Monday", "The deploy is Friday", True),
    ("The deploy is on Tuesday", "The deploy moved to Friday", True),
    # a value of another look, or no place or time, is one more fact about it
    ("The team moved to the new office", "The team is great", False),
    ("The meeting moved to Friday", "The meeting is with Alice", False),
    ("The server moved to Frankfurt", "The server is Ubuntu", False),
    ("The team moved to Berlin", "The team is 12 people", False),
    ("The incident moved to sev2", "The incident is P1", False),
    ("The incident moved to sev2", "The outage is sev1", False),
    # a longer subject that starts with the same words is another thing
    ("The incident moved to sev2", "The incident commander is based in London", False),
    ("The incident is now sev2", "The incident commander is Priya", False),
    ("The meeting moved to Friday", "The meeting is on the 3rd floor", False),
    ("The team moved to the new office", "The team is in a meeting", False),
    ("Maria moved to Porto", "Maria is on Slack", False),
    # a person, or a thing named without "the": where they are is not what they are
    ("Alice moved to Berlin", "Alice is Portuguese", False),
    ("Acme moved to Berlin", "Acme is on the Enterprise plan", False),
])
def test_a_thing_s_move_replaces_where_or_when_it_was(new: str, old: str,
                                                      replaced: bool) -> None:
    assert replaces(new, old, read_statement(new).change) is replaced


@pytest.mark.parametrize(("said", "old", "replaced"), [
    ("The on-call rotation is actually Bob then Carol",
     "The on-call rotation this week is Alice then Bob", True),
    ("The on-call engineer is actually Sam", "The on-call engineer right now is Priya", True),
    ("Our build is now green", "Our build at the moment is red", True),
    # said with no change cue, it may be one more fact beside what held for the week
    ("The on-call rotation is Bob then Carol",
     "The on-call rotation this week is Alice then Bob", False),
    # what holds for a time leaves what holds in general, and another subject stays
    ("The standup today is actually at 10am", "The standup is at 9am", False),
    ("The deploy window is actually Friday", "The on-call rotation this week is Alice", False),
])
def test_a_change_said_in_general_replaces_what_held_for_a_time(
        said: str, old: str, replaced: bool) -> None:
    statement = read_statement(said)
    assert replaces(statement.text, old, statement.change) is replaced
