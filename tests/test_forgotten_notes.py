"""A kept message is said to state a forgotten fact only when it does: a false note would
tell the model a fact the user asked to forget, one the message never said."""

from __future__ import annotations

import json

import pytest
from memory_helpers import make_memory
from test_forget_sources import _model_turns, _search

from tiermem.memory.ops.fact_said import says
from tiermem.tools.memory_tools import FORGOTTEN_KEY


@pytest.mark.parametrize(("said", "fact", "query", "unsaid"), [
    ("My son has asthma.", "User's daughter has asthma", "asthma", "daughter"),
    ("I'd love to live in Berlin.", "User lives in Berlin", "Berlin", "lives"),
    ("I'm fine, but my son is allergic to peanuts.", "User is allergic to peanuts",
     "peanuts", "User is allergic"),
    ("I'm moving to Berlin next month.", "User lives in Berlin", "Berlin", "lives"),
    ("I met Anna at a party. I'm married.", "User is married to Anna", "Anna", "User is"),
    ("I live in Berlin.", "User is moving to Berlin", "Berlin", "moving"),
])
def test_a_message_that_does_not_say_a_forgotten_fact_is_shown_without_it(
        said: str, fact: str, query: str, unsaid: str) -> None:
    with make_memory() as m:
        _model_turns(m, (said, fact))
        assert m.forget(fact).outcome == "matched"
        [hit] = _search(m, query)
        assert hit["text"] == said
        assert FORGOTTEN_KEY not in hit and unsaid not in json.dumps(hit), hit


def test_a_message_about_the_kid_states_the_son_s_forgotten_fact() -> None:
    # "My kid" may be the son (owners.may_be_one): the model reads it as the son's fact.
    with make_memory() as m:
        _model_turns(m, ("My kid has asthma.", "User's son has asthma"))
        assert m.forget("User's son has asthma").outcome == "matched"
        [hit] = _search(m, "asthma")
        assert hit["text"] == "My kid has asthma."
        assert hit.get(FORGOTTEN_KEY) == ["User's son has asthma"], hit


@pytest.mark.parametrize(("said", "fact"), [
    ("My son has asthma.", "User's daughter has asthma"),
    ("My brother lives in Berlin.", "User's sister lives in Berlin"),
    ("My dad has dementia.", "User's mother has dementia"),
    ("My girlfriend works at Acme.", "User's boyfriend works at Acme"),
    ("My granddaughter goes to Lincoln Elementary.",
     "User's grandson attends Lincoln Elementary"),
    # Near misses of rewordings not taken as the fact ("I earn 85k a year." for a salary,
    # "I moved to Berlin in 2020." for "... since 2020", "Mia ..." for the daughter): "earn"
    # as a salary, or "since" as a mere date, would take these too; and only another
    # message says Mia is the daughter.
    ("I earn 85 dollars an hour at my second job.", "User's salary is 85k"),
    ("I earned 85k selling my flat.", "User's salary is 85k"),
    ("I'd love to earn 85k a year.", "User's salary is 85k"),
    ("My wife earns 85k a year.", "User's salary is 85k"),
    ("I moved to Berlin in 2021.", "User lives in Berlin since 2020"),
    ("My sister moved to Berlin in 2020.", "User lives in Berlin since 2020"),
    ("I visited Berlin in 2020.", "User lives in Berlin since 2020"),
    ("I almost moved to Berlin in 2020.", "User lives in Berlin since 2020"),
    ("I moved away from Berlin in 2020.", "User lives in Berlin since 2020"),
    ("My niece Mia goes to Lincoln Elementary.", "User's daughter Mia attends Lincoln Elementary"),
    ("Mia goes to Lincoln Middle School.", "User's daughter attends Lincoln Elementary"),
    # Wished, planned, supposed, nearly done, denied, or a place moved away from: every
    # word that matters is there, but none says the user lives in Berlin.
    ("I moved away from Berlin.", "User lives in Berlin"),
    ("I moved out of Berlin in 2019.", "User lives in Berlin"),
    ("I moved from Berlin to Paris.", "User lives in Berlin"),
    ("I'd love to live in Berlin.", "User lives in Berlin"),
    ("I want to live in Berlin.", "User lives in Berlin"),
    ("I'm planning to move to Berlin.", "User lives in Berlin"),
    ("I was going to move to Berlin but did not.", "User lives in Berlin"),
    ("I almost moved to Berlin.", "User lives in Berlin"),
    ("I have wanted to move to Berlin since 2020.", "User lives in Berlin since 2020"),
    ("If I lived in Berlin, I would cycle to work.", "User lives in Berlin"),
    ("I would live in Berlin if I could.", "User lives in Berlin"),
    ("I don't live in Berlin.", "User lives in Berlin"),
    ("I no longer live in Berlin.", "User lives in Berlin"),
    ("I never moved to Berlin.", "User lives in Berlin"),
    ("I wish I lived in Berlin.", "User lives in Berlin"),
    ("I'd love to work at Acme.", "User works at Acme"),
    ("I might be allergic to shellfish.", "User is allergic to shellfish"),
    ("I quit my job at Acme.", "User works at Acme"),
    ("I stopped taking propranolol.", "User takes propranolol daily"),
    ("I left Acme last year.", "User works at Acme"),
    ("I got fired from Acme.", "User works at Acme"),
    ("I was laid off by Acme in May.", "User works at Acme"),
    ("I resigned from Acme.", "User works at Acme"),
    ("I applied to Acme.", "User works at Acme"),
    # "left" after the user is what they gave up; "I'd" before what it would do is "would".
    ("I left Acme last year.", "User works at Acme"),
    ("I've just left Acme.", "User works at Acme"),
    ("I packed up and left my job at Acme.", "User works at Acme"),
    ("I'd always live in Berlin if I could.", "User lives in Berlin"),
    ("I'll live in Berlin.", "User lives in Berlin"),
    # A present tense with a time to come is a plan: not yet so.
    ("I'm moving to Berlin next month.", "User lives in Berlin"),
    ("I am moving to Berlin in June.", "User lives in Berlin"),
    ("I move to Berlin tomorrow.", "User lives in Berlin"),
    ("I'm relocating to Berlin soon.", "User lives in Berlin"),
    ("Next month, I'm moving to Berlin.", "User lives in Berlin"),
    ("I start at Acme in two weeks.", "User works at Acme"),
    ("I start at Acme on Monday.", "User works at Acme"),
    ("I'm moving to Berlin this weekend.", "User lives in Berlin"),
    ("This Friday, I'm moving to Berlin.", "User lives in Berlin"),
    ("I'm moving to Berlin at the end of the month.", "User lives in Berlin"),
    # Said of "he", "she" or "they": in the user's own words, never the user.
    ("He lives in Berlin.", "User lives in Berlin"),
    ("My brother is a chef. He lives in Berlin.", "User lives in Berlin"),
    ("I think they live in Berlin.", "User lives in Berlin"),
    ("She is allergic to shellfish.", "User is allergic to shellfish"),
    # A statement of someone of the user's joined to one of the user's is theirs alone.
    ("I live in Munich and my wife lives in Berlin.", "User lives in Berlin"),
    ("I work at Globex, and my wife works at Acme.", "User works at Acme"),
    ("I'm vegetarian but my husband is allergic to peanuts.", "User is allergic to peanuts"),
    ("My daughter is fine but my son is allergic to peanuts.",
     "User's daughter is allergic to peanuts"),
    # A lead-in that is no time leaves each statement after it of whom it opens with.
    ("Honestly, I'm fine, but my son is allergic to peanuts.", "User is allergic to peanuts"),
    ("Thankfully, I'm not allergic, but my son is allergic to peanuts.",
     "User is allergic to peanuts"),
    ("Sadly, my son is allergic to peanuts.", "User is allergic to peanuts"),
    ("My sister lives in Munich and my brother lives in Berlin.",
     "User's sister lives in Berlin"),
    # Said of the one the user speaks to, or of no one: a remark, not the user's life.
    ("You live in Berlin.", "User lives in Berlin"),
    ("Your sister lives in Berlin.", "User's sister lives in Berlin"),
    ("Living in Berlin is expensive.", "User lives in Berlin"),
    ("Working at Acme was stressful.", "User works at Acme"),
    # A clause that says the fact of another place lends its verb to no other clause.
    ("I visited Berlin last year. I live in Munich.", "User lives in Berlin"),
    ("I live in Munich and work in Berlin.", "User lives in Berlin"),
    ("I live in Munich. I love Berlin.", "User lives in Berlin"),
    ("I work at Globex. I have a meeting with Acme.", "User works at Acme"),
    # Naming the employer is not working there: the fact says no more than "work".
    ("I have a meeting with Acme.", "User works at Acme"),
    ("Acme's outage hit us hard.", "User works at Acme"),
    # A statement of someone named is theirs, as one of "my wife" is.
    ("I live in Munich and Ana lives in Berlin", "User lives in Berlin"),
    ("I live in Munich, but Ana Schmidt lives in Berlin.", "User lives in Berlin"),
    ("I live in Munich and Ana's family lives in Berlin.", "User lives in Berlin"),
    # A move under way, one only meant or about to be, or a time to come in a part after
    # the clause: not yet so.
    ("I'm moving to Berlin.", "User lives in Berlin"),
    ("We're relocating to Berlin.", "User lives in Berlin"),
    ("I'm moving to Berlin and starting at Acme next month.", "User works at Acme"),
    ("I work at Acme, starting next month.", "User works at Acme"),
    ("I'd been meaning to move to Berlin.", "User lives in Berlin"),
    ("I'm about to start at Acme.", "User works at Acme"),
    ("I'd been meaning to go to work at Acme.", "User works at Acme"),
    # At the place once, on an errand, as someone of the user's, or with nothing there.
    ("I was at Acme yesterday for a meeting.", "User works at Acme"),
    ("I was at Acme yesterday.", "User works at Acme"),
    ("I had a meeting at Acme.", "User works at Acme"),
    ("My client is Acme.", "User works at Acme"),
    ("There's nothing left for me at Acme.", "User works at Acme"),
    # A clause saying the verb at a place of its own lends it to no city named elsewhere.
    ("I visited Berlin last year. I live near the river.", "User lives in Berlin"),
    ("I visited Berlin last year and I live near the river.", "User lives in Berlin"),
    # "there" after a statement naming more than the fact's place, or saying another verb.
    ("Ana moved from Munich to Berlin and I live there too.", "User lives in Berlin"),
    ("Ana lives in Berlin and I work there.", "User lives in Berlin"),
    ("Ana lives in Berlin and I don't live there.", "User lives in Berlin"),
    # "there" as the point another place is told from.
    ("My sister lives in Berlin. I live far from there.", "User lives in Berlin"),
    ("My sister lives in Berlin and I live north of there.", "User lives in Berlin"),
    ("Ana lives in Berlin. I live near there.", "User lives in Berlin"),
    ("Ana works at Acme. I work an hour from there.", "User works at Acme"),
    # Kept from a food without the fact's word, or denied the fact's own verb.
    ("I don't eat shellfish.", "User is allergic to shellfish"),
    ("I can't eat meat.", "User eats meat"),
    # The place kept at a distance after the verb, or the name a party, not a place.
    ("I live nowhere near Berlin.", "User lives in Berlin"),
    ("I work nowhere near Acme.", "User works at Acme"),
    ("I live far from Berlin.", "User lives in Berlin"),
    ("I live close to Berlin.", "User lives in Berlin"),
    ("I live just outside Berlin.", "User lives in Berlin"),
    ("I work with Acme.", "User works at Acme"),
    ("I visited a town near Berlin. I live there.", "User lives in Berlin"),
    # The verb said at no place lends it to no name said elsewhere.
    ("I visited Berlin last year. I live alone.", "User lives in Berlin"),
    ("I visited Berlin last year. I live with my parents.", "User lives in Berlin"),
    ("I used to visit Berlin a lot. I live by myself.", "User lives in Berlin"),
    ("I visited Berlin last year and I live alone.", "User lives in Berlin"),
    ("Acme called me yesterday. I work a lot.", "User works at Acme"),
    ("I visited Berlin. In Munich, I live alone.", "User lives in Berlin"),
    # The fact's word said of an object of its own lends itself to no other statement.
    ("I can't eat shellfish, I'm allergic to peanuts.", "User is allergic to shellfish"),
    ("I love shellfish. I'm allergic to peanuts.", "User is allergic to shellfish"),
    ("I don't eat peanuts. I'm allergic to shellfish.", "User is allergic to peanuts"),
    ("I can't eat shellfish because of my religion, and I'm allergic to cats.",
     "User is allergic to shellfish"),
    ("I have a cat. I'm allergic to dogs.", "User is allergic to cats"),
    ("I hate jazz. I like rock.", "User likes jazz"),
    ("I drink coffee. I like tea.", "User likes coffee"),
    ("I use vim. I like emacs too.", "User likes vim"),
    ("I use Python. I like rust.", "User likes Python"),
    ("I'm allergic to peanuts. Not shellfish.", "User is allergic to shellfish"),
    # A list goes on only from a statement that it is so, and of the user.
    ("I'm not allergic to peanuts. Shellfish too.", "User is allergic to shellfish"),
    ("I might be allergic to peanuts. Shellfish too.", "User is allergic to shellfish"),
    ("I'm allergic to peanuts. My son is allergic to eggs. Shellfish too.",
     "User is allergic to shellfish"),
    # "where" is the place named just before it, and said of whom it names.
    ("I flew to Berlin, where my sister lives.", "User lives in Berlin"),
    ("I visited Munich, where I live. I love Berlin.", "User lives in Berlin"),
    ("I visited Berlin and Munich, where I live.", "User lives in Berlin"),
    ("I went to Munich, where I live, and then Berlin.", "User lives in Berlin"),
    ("I flew to Munich, where we live, and Berlin.", "User lives in Berlin"),
    ("When I'm in Berlin, I work at Acme.", "User lives in Berlin"),
    ("When I work at Acme I'll relax.", "User works at Acme"),
    ("I will relax when I work at Acme.", "User works at Acme"),
    ("When I work at Acme I won't relax.", "User works at Acme"),
    ("When I work at Acme I wouldn't relax.", "User works at Acme"),
    ("I look forward to relaxing when I work at Acme.", "User works at Acme"),
    ("I expect to relax when I work at Acme.", "User works at Acme"),
    ("When I move to Berlin I get a flat.", "User lives in Berlin"),
    ("When I live in Berlin I want a dog.", "User lives in Berlin"),
    ("When I start at Acme I get a laptop.", "User works at Acme"),
    ("I was about to go to work at Acme, but they withdrew the offer.", "User works at Acme"),
    # Speaking against what a light verb's fact names says no use of it.
    ("I hate vim.", "User uses vim"),
    ("Vim is awful.", "User uses vim"),
    ("I have always hated vim.", "User uses vim"),
    ("My son hates vim.", "User's son uses vim"),
    ("I hate propranolol.", "User takes propranolol daily"),
    ("I hate Teslas.", "User owns a Tesla"),
    # A clause naming a time by what is to happen then: not so yet.
    ("I'm moving to Berlin. Once I live there, I will relax.", "User lives in Berlin"),
    ("I'm moving to Berlin. When I live there, I will relax.", "User lives in Berlin"),
    ("As soon as I live in Berlin, I will relax.", "User lives in Berlin"),
    ("Once I've moved to Berlin, I will relax.", "User lives in Berlin"),
])
def test_a_near_miss_does_not_state_the_fact(said: str, fact: str) -> None:
    assert not says(said, fact)


@pytest.mark.parametrize(("said", "fact"), [
    ("My daughter has asthma.", "User's daughter has asthma"),
    ("My mom has dementia.", "User's mother has dementia"),
    ("My daughter Mia goes to Lincoln Elementary.",
     "User's daughter Mia attends Lincoln Elementary"),
    # A word that takes the relation in: the son is a child, "kid" may be the son.
    ("My kid has asthma.", "User's son has asthma"),
    ("My son has asthma.", "User's child has asthma"),
    ("My partner works at Acme.", "User's girlfriend works at Acme"),
    ("My grandson lives in Porto.", "User's grandchild lives in Porto"),
])
def test_the_same_relation_in_another_word_states_the_fact(said: str, fact: str) -> None:
    assert says(said, fact)


@pytest.mark.parametrize(("said", "fact"), [
    ("I live in Berlin.", "User lives in Berlin"),
    ("I moved to Berlin in 2020.", "User lives in Berlin"),
    ("I moved to Berlin from Paris.", "User lives in Berlin"),
    ("I moved from Paris to Berlin.", "User lives in Berlin"),
    ("I've lived in Berlin since 2020.", "User lives in Berlin since 2020"),
    ("I live in Berlin, not Munich.", "User lives in Berlin"),
    ("I live in Berlin and would never leave.", "User lives in Berlin"),
    ("If you ask me, I live in Berlin.", "User lives in Berlin"),
    # The residence the user asked to forget, only earlier: the note shows nothing the
    # sentence does not, and without it the model may use it.
    ("I used to live in Berlin.", "User lives in Berlin"),
    ("She knows I live in Berlin.", "User lives in Berlin"),
    ("He and I live in Berlin.", "User lives in Berlin"),
    # "left" after what remains; "I'd" as "I had"; "I'll always" as now and on.
    ("I have two days left at Acme.", "User works at Acme"),
    ("I'd been living in Berlin for years.", "User lives in Berlin"),
    ("I'd already moved to Berlin by then.", "User lives in Berlin"),
    ("I'll always live in Berlin.", "User lives in Berlin"),
    ("I left Acme in 2020.", "User left Acme in 2020"),
    ("You know, I live in Berlin.", "User lives in Berlin"),
    ("You know I live in Berlin.", "User lives in Berlin"),
    ("You and I live in Berlin.", "User lives in Berlin"),
    ("You know my sister lives in Berlin.", "User's sister lives in Berlin"),
    ("Living in Berlin since 2020.", "User lives in Berlin"),
    ("Living in Berlin, I cycle to work.", "User lives in Berlin"),
    # "He" or "she" may be the one a fact ties the user to.
    ("I have a dog. He is called Rex.", "User has a dog named Rex"),
    ("We got married last year. She is Anna.", "User is married to Anna"),
    ("My sister is a chef. She lives in Berlin.", "User's sister lives in Berlin"),
    ("I'm fine, but my daughter is allergic to peanuts.",
     "User's daughter is allergic to peanuts"),
    ("I live in Berlin and my wife loves it.", "User lives in Berlin"),
    # Worded as a wish, a plan or a denial itself, the fact is said in those words.
    ("I want to move to Berlin.", "User wants to move to Berlin"),
    ("I don't eat meat.", "User doesn't eat meat"),
    ("I moved away from Berlin in 2020.", "User moved away from Berlin"),
    ("I quit my job at Acme.", "User quit their job at Acme"),
    ("I left Acme in 2020.", "User left Acme in 2020"),
    ("I retired from Acme.", "User is retired"),
    ("I start at Acme in June.", "User starts at Acme in June"),
    # A time to come in the past tense, of another clause, or as the end of what is so.
    ("I moved to Berlin in June.", "User lives in Berlin"),
    ("In June, I moved to Berlin.", "User lives in Berlin"),
    ("I moved to Berlin the next year.", "User lives in Berlin"),
    ("I live in Berlin until next month.", "User lives in Berlin"),
    ("I live in Berlin and start at Acme next month.", "User lives in Berlin"),
    ("I started at Acme on Monday.", "User works at Acme"),
    ("I work at Acme on Mondays.", "User works at Acme"),
    ("I work at Acme until the end of the month.", "User works at Acme"),
    ("I take propranolol daily and stopped the vitamins.", "User takes propranolol daily"),
    # Each clause read for what it names: one more name in a list, another fact beside.
    ("I live in Munich and Berlin.", "User lives in Berlin"),
    ("I'm allergic to Advil and penicillin.", "User is allergic to Penicillin"),
    ("I live in Munich and work in Berlin.", "User works in Berlin"),
    ("I moved to Berlin and live there now.", "User lives in Berlin"),
    ("I lived in Munich, then moved to Berlin.", "User lives in Berlin"),
    ("I live in Berlin and Ana lives in Munich.", "User lives in Berlin"),
    ("Ana and I live in Berlin.", "User lives in Berlin"),
    # Beside its name only "work": said by "work" or its synonyms, or the name placed as
    # the fact places it, "at Acme", the user's place as in "I started at Acme".
    ("I work at Acme.", "User works at Acme"),
    ("My employer is Acme.", "User works at Acme"),
    ("I've been at Acme since 2019.", "User works at Acme"),
    ("I'm a nurse at Acme.", "User works at Acme"),
    ("My gym is FitLife.", "User works out at FitLife"),
    ("I go to Lincoln Elementary.", "User attends Lincoln Elementary"),
    ("I'm at Acme now.", "User works at Acme"),
    ("I was at Acme for five years.", "User works at Acme"),
    ("I started at Acme last week.", "User works at Acme"),
    ("My new gym is FitLife.", "User works out at FitLife"),
    # Living there now, a move the fact itself says, or a place pointed back to.
    ("I'm living in Berlin.", "User lives in Berlin"),
    ("I'm moving to Berlin.", "User is moving to Berlin"),
    ("We're moving to Berlin in June.", "User moves to Berlin in June"),
    ("I'm relocating to Berlin.", "User relocates to Berlin"),
    ("I've lived in Berlin since last year.", "User lives in Berlin"),
    ("I live in Berlin near the river.", "User lives in Berlin"),
    ("I visited Berlin last year. I live there now.", "User lives in Berlin"),
    ("Ana lives in Berlin and I live there too.", "User lives in Berlin"),
    ("My sister lives in Berlin. I live there too.", "User lives in Berlin"),
    # A light verb's fact said with its verb, of what is the user's, or liked.
    ("I hate using vim.", "User uses vim"),
    ("I hate my vim setup.", "User uses vim"),
    ("I hate my dog Rex.", "User has a dog named Rex"),
    ("I love vim.", "User uses vim"),
    ("I don't like it, but I use vim.", "User uses vim"),
    # "where" is the place the clause before it ends with, whatever list follows.
    ("I flew from Munich to Berlin, where I live now.", "User lives in Berlin"),
    ("I went to Berlin, where I live, and then Munich.", "User lives in Berlin"),
    ("I went to Munich, where I work at Acme, and then Berlin.", "User works at Acme"),
    # What the user cannot eat, beside the allergy that keeps them from it.
    ("I can't eat shellfish, I'm allergic.", "User is allergic to shellfish"),
    # Of what was named before, or of the fact's own object among others.
    ("I have a cat. I'm allergic to it.", "User is allergic to cats"),
    ("I avoid shellfish. I'm allergic to it as well.", "User is allergic to shellfish"),
    ("Peanuts scare me. I'm badly allergic to them.", "User is allergic to peanuts"),
    ("I'm allergic to peanuts and shellfish.", "User is allergic to shellfish"),
    # Such a clause in the past tense says it was so, as "I used to live" does.
    ("When I lived in Berlin, I had a dog.", "User lives in Berlin"),
    ("After I moved to Berlin, I got a dog.", "User lives in Berlin"),
    ("I live in Berlin when I'm not traveling.", "User lives in Berlin"),
    ("When I'm not traveling, I live in Berlin.", "User lives in Berlin"),
    # "when" beside a present tense says what happens each time.
    ("I relax when I work at Acme.", "User works at Acme"),
    ("When I work at Acme I get tired.", "User works at Acme"),
    ("I bike to work whenever I work at Acme.", "User works at Acme"),
    ("I have a cat. I'm allergic.", "User is allergic to cats"),
    ("I'm allergic to peanuts. Shellfish too.", "User is allergic to shellfish"),
    ("I'm allergic to peanuts. Also shellfish.", "User is allergic to shellfish"),
    ("I like rock. And jazz.", "User likes jazz"),
    # Only the trip to the job is near.
    ("I'm about to go to work at Acme.", "User works at Acme"),
    # A move under way to the place the user has lived at all along.
    ("We're moving to a new flat in Berlin, where we've lived for years.",
     "User lives in Berlin"),
    # The place where the fact puts it, the fact's own distance, or a lead-in naming it.
    ("I work for Acme.", "User works at Acme"),
    ("I work with Ana at Acme.", "User works at Acme"),
    ("I live near Berlin.", "User lives near Berlin"),
    ("I work with Acme.", "User works with Acme"),
    ("I live with my parents in Berlin.", "User lives in Berlin"),
    ("I live in Berlin, far from the center.", "User lives in Berlin"),
    ("In Berlin, I live alone.", "User lives in Berlin"),
    ("Acme hired me. I work there now.", "User works at Acme"),
    # A move the fact itself says, for a time to come.
    ("I'm moving to Berlin next month.", "User is moving to Berlin"),
    ("Next month, I'm moving to Berlin.", "User is moving to Berlin"),
])
def test_a_statement_that_it_is_so_states_the_fact(said: str, fact: str) -> None:
    assert says(said, fact)
