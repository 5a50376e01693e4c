"""A user's message is said to state a forgotten fact only when its statements say it of
the user, as it is: the note would otherwise tell the model a fact the message never said."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("said", "fact"), [
    # Someone of the user's, or others, is the subject of the fact's verb.
    ("When it's cold my sister lives in Berlin.", "User lives in Berlin"),
    ("I relax when my wife works at Acme.", "User works at Acme"),
    ("Where I'm from, people hate vim.", "User hates vim"),
    ("Where I'm from, people all speak Spanish.", "User speaks Spanish"),
    ("Since 2020 my parents both live in Berlin.", "User lives in Berlin"),
    # Others the user is not one of, past which of them are meant.
    ("Everyone I know uses vim.", "User uses vim"),
    ("Most people we met use vim.", "User uses vim"),
    ("Everyone at Acme works hard.", "User works at Acme"),
    ("I think everyone I know lives in Berlin.", "User lives in Berlin"),
    ("My team uses vim.", "User uses vim"),
    ("Everyone at Acme says I work hard.", "User works at Acme"),
    ("Everyone with a dog told me about Rex.", "User has a dog named Rex"),
    ("Everyone on my team is allergic to peanuts.", "User is allergic to peanuts"),
    # ... and what others the user is not one of have is theirs.
    ("Everyone I know has a dog named Rex.", "User has a dog named Rex"),
    ("Everyone I know has a dog named Rex.", "User's dog is named Rex"),
    ("Nobody I know owns a Tesla.", "User owns a Tesla"),
    ("Most people we met have a sister named Anna.", "User has a sister named Anna"),
    ("Everyone I know has a dog named Max. Mine is Rex.", "User has a dog named Max"),
    # ... nor the kind of what others have, when the user's is a kind of its own.
    ("Everyone I know has a dog. Mine is a cat named Rex.", "User has a dog named Rex"),
    ("Everyone I know has a dog, mine's a cat named Rex.", "User's dog is named Rex"),
    ("My neighbour has a dog named Rex. Mine is an old cat.", "User has a dog"),
    # "here" is where the user speaks from: not a place visited, missed or to be at.
    ("I visited Berlin last year. I live here.", "User lives in Berlin"),
    ("I'm flying to Berlin tomorrow. I live here.", "User lives in Berlin"),
    ("I miss Berlin. I live here now.", "User lives in Berlin"),
    ("My sister lives in Berlin. I live here too.", "User lives in Berlin"),
    # Spoken against, and "it" not said to be used.
    ("I hate vim. I don't use it.", "User uses vim"),
    ("I hate vim. I use emacs instead.", "User uses vim"),
    ("I hate vim. My son uses it.", "User uses vim"),
    # Living somewhere is no thing done each time: "when" puts it to come or supposes it.
    ("When I live in Berlin I get to bike everywhere.", "User lives in Berlin"),
    ("I bike everywhere when I live in Berlin.", "User lives in Berlin"),
    # The trip to the job is for an errand there: no job held.
    ("I'm about to go to work at Acme for an interview.", "User works at Acme"),
    # A name said in a statement that the fact's statement does not point back to.
    ("I met Anna at a party. I'm married.", "User is married to Anna"),
    ("I met Anna at a party, and I'm married.", "User is married to Anna"),
    ("I'm married. My sister is a chef. Her name is Anna.", "User is married to Anna"),
    ("I met Anna at a party with my wife. We got married.", "User is married to Anna"),
    ("Anna and Tom met at a party. We got married last year.", "User is married to Anna"),
    ("I met Anna at a party. We danced. I'm married.", "User is married to Anna"),
    ("I know Anna. We are both married.", "User is married to Anna"),
    # Said of each, "she" after it may be the other one married.
    ("We are both married. She is Anna.", "User is married to Anna"),
    ("We're all married. Her name is Anna.", "User is married to Anna"),
    # A wedding to come is no marriage yet.
    ("I'm getting married to Anna.", "User is married to Anna"),
    ("I called Anna. We are getting married.", "User is married to Anna"),
    ("I met Anna at a party. We are finally getting married.", "User is married to Anna"),
    # A move from one place that goes on to no other place named.
    ("I moved from Munich and visited Berlin.", "User moved to Berlin"),
    ("I moved from Munich, where I lived, to be near Berlin.", "User moved to Berlin"),
    ("I moved from Munich, where I lived, to Paris.", "User moved to Berlin"),
    # ... nor one only wished, planned or denied, whatever the clause between says.
    ("I'd love to move from Munich, where I lived, to Berlin.", "User moved to Berlin"),
    ("I didn't move from Munich, where I lived, to Berlin.", "User moved to Berlin"),
    ("I almost moved from Munich, where I lived, to Berlin.", "User lives in Berlin"),
    ("I'm moving from Munich, where I lived, to Berlin.", "User moved to Berlin"),
    # Living there says no move.
    ("I live in Berlin.", "User is moving to Berlin"),
    # The place a move leaves is not where it went, nor where the user lives.
    ("I moved from Berlin to Munich.", "User moved from Munich"),
    ("I moved from Berlin, where I lived, to Munich.", "User moved from Munich"),
    ("I moved to Munich from Berlin.", "User moved from Munich"),
    ("I moved from Munich to Berlin.", "User moved from Berlin to Munich"),
    ("I love Berlin. I live here.", "User moved from Berlin"),
    # A month said as a time names no one called so.
    ("I met Anna at a party. I married Jane in June.", "User is married to June"),
    ("I saw Anna in June. I married her.", "User is married to June"),
    # A move from a place only wished, supposed, planned or denied left none.
    ("I'd love to move from Munich to Berlin.", "User moved from Munich"),
    ("I might move from Munich.", "User moved from Munich"),
    ("I'm thinking of moving away from Munich.", "User moved from Munich"),
    ("I didn't move from Munich.", "User moved from Munich"),
    ("I'm moving from Munich.", "User moved from Munich"),
    # A place lived in before a move is left only by the user's own move, said as done,
    # and not when the move names another place it left.
    ("I lived in Munich, then my brother moved to Berlin.", "User moved from Munich"),
    ("I lived in Munich, then she moved to Berlin.", "User moved from Munich"),
    ("I lived in Munich, then I might move to Berlin.", "User moved from Munich"),
    ("I lived in Munich, then I didn't move to Berlin.", "User moved from Munich"),
    ("I lived in Munich, then I'm moving to Berlin.", "User moved from Munich"),
    ("I lived in Munich, then I moved to Berlin from Hamburg.", "User moved from Munich"),
    ("I lived in Munich and she moved to Berlin.", "User moved from Munich to Berlin"),
    # The young of another kind than the one just named is no one of it.
    ("Everyone has a cat. Mine is a puppy named Rex.", "User has a cat named Rex"),
    ("Everyone has a dog. Mine is a kitten named Rex.", "User has a dog named Rex"),
    # Said to be none of what was just named, it may be no pet at all.
    ("Everyone I know has a dog. Mine is not a dog.", "User has a dog"),
    ("My sister has a dog. Mine's not a dog.", "User has a dog"),
    ("My sister has a dog. Mine isn't a dog.", "User has a dog"),
    # "Mine's" is the user's one, not someone named Mine who may be the sister.
    ("My sister has a dog. Mine's Rex.", "User's sister has a dog named Rex"),
])
def test_a_near_miss_does_not_state_the_fact(said: str, fact: str) -> None:
    assert not says(said, fact)


@pytest.mark.parametrize(("said", "fact"), [
    ("I love my wife and live in Berlin.", "User lives in Berlin"),
    ("My wife and I live in Berlin.", "User lives in Berlin"),
    ("When it's cold my sister lives in Berlin.", "User's sister lives in Berlin"),
    ("Where I'm from, I hate vim.", "User hates vim"),
    ("Since 2020 we both live in Berlin.", "User lives in Berlin"),
    ("I love Berlin. I live here.", "User lives in Berlin"),
    ("I'm in Berlin. I live here now.", "User lives in Berlin"),
    ("I hate vim. I use it daily.", "User uses vim"),
    ("I hate vim but I use it", "User uses vim"),
    ("I hate propranolol. I take it daily.", "User takes propranolol daily"),
    ("Everyone knows I use vim.", "User uses vim"),
    ("I told everyone I work at Acme.", "User works at Acme"),
    # The others named first, the user's own verb after them says it.
    ("Everyone at Acme knows I work at Acme.", "User works at Acme"),
    ("People in Lisbon know I live in Lisbon now.", "User lives in Lisbon"),
    ("Everyone I know says I live in Berlin.", "User lives in Berlin"),
    ("My family and I live in Berlin.", "User lives in Berlin"),
    ("Everyone I know loves my dog Rex.", "User has a dog named Rex"),
    # ... and so does the user's own word after a word of the fact said of others.
    ("Everyone with a dog loves my dog Rex.", "User has a dog named Rex"),
    ("People with dogs love my dog Rex.", "User has a dog named Rex"),
    ("Everyone in Berlin and me live in Berlin.", "User lives in Berlin"),
    # "Mine" is the user's one of what others were said to have.
    ("Everyone I know has a dog, mine is Rex.", "User has a dog named Rex"),
    ("Everyone I know has a dog. Mine is named Rex.", "User's dog is named Rex"),
    ("Everyone knows I have a dog named Rex.", "User has a dog named Rex"),
    ("My family has a dog named Rex.", "User has a dog named Rex"),
    ("My team and me use vim.", "User uses vim"),
    ("Everyone I know and me live in Berlin.", "User lives in Berlin"),
    ("When I use vim I get tired.", "User uses vim"),
    ("These days my wife and I all speak Spanish.", "User speaks Spanish"),
    ("I'm about to go to work at Acme for my shift.", "User works at Acme"),
    ("I'm married. Her name is Anna.", "User is married to Anna"),
    ("I'm married. She is Anna.", "User is married to Anna"),
    ("I'm married to Anna.", "User is married to Anna"),
    ("I met Anna at a party. I married her last year.", "User is married to Anna"),
    ("I met Anna at a party. We got married last year.", "User is married to Anna"),
    ("I met Anna at a party. We're married.", "User is married to Anna"),
    # A month said as a time names no one, nor a place or object of its own.
    ("I met Anna at a party. I married her in June.", "User is married to Anna"),
    ("I met Anna at a party. We got married in June.", "User is married to Anna"),
    ("I met Anna in June. I married her.", "User is married to Anna"),
    ("I got married to Anna.", "User is married to Anna"),
    ("I'm getting married to Anna.", "User is getting married to Anna"),
    # The move made: the note shows nothing the sentence does not, as of "I used to live
    # in Berlin" for "User lives in Berlin".
    ("I moved to Berlin last month.", "User is moving to Berlin"),
    ("I'm relocating to Berlin.", "User relocates to Berlin"),
    # A move from one place goes on to the next, past what is said of the first.
    ("I moved from Munich, where I lived, to Berlin.", "User moved to Berlin"),
    ("We relocated away from Munich, where we lived for years, to Berlin.",
     "User moved to Berlin"),
    ("I'm moving from Munich, where I lived, to Berlin.", "User is moving to Berlin"),
    ("I moved from Munich to Berlin.", "User moved from Munich"),
    ("I moved from Munich, where I lived, to Berlin.", "User moved from Munich"),
    # A place said as lived in before the move is the place it left, not where it went.
    ("I lived in Munich, then moved to Berlin.", "User moved from Munich"),
    ("I lived in Munich, then moved to Berlin.", "User moved from Munich to Berlin"),
    ("I grew up in Munich but moved to Berlin.", "User moved from Munich to Berlin"),
    # "Ours" is the user's as "mine" is; "we both" takes the user in; a dog that died
    # was had, as "I used to live in Berlin" says where the user lived.
    ("Everyone I know has a dog. Ours is named Rex.", "User has a dog named Rex"),
    ("We both have a dog.", "User has a dog"),
    # "His" after it may be the other one's dog, or the user's: noted, the user's may be
    # forgotten.
    ("We both have a dog. His name is Rex.", "User has a dog named Rex"),
    ("Everyone I know has a dog. Mine died last year.", "User has a dog"),
    # A year said as a time names no one, and "saw" is past as "met" is.
    ("I met Anna at a party. We got married in 2019.", "User is married to Anna"),
    ("I saw Anna in June. I married her.", "User is married to Anna"),
    # "there" points back within its own sentence too.
    ("Everyone at Acme knows I work there.", "User works at Acme"),
    ("Everyone in Berlin knows I live there.", "User lives in Berlin"),
    # A move from a place said to be made.
    ("I moved away from Munich last year.", "User moved from Munich"),
    ("I'm moving away from Munich.", "User is moving away from Munich"),
    # "Mine's" is "mine is"; a puppy is a dog, a kitten a cat.
    ("Mine's a dog named Rex.", "User has a dog named Rex"),
    ("Everyone I know has a dog. Mine's named Rex.", "User's dog is named Rex"),
    ("Everyone has a dog. Mine is a puppy named Rex.", "User has a dog named Rex"),
    ("Everyone I know has a cat. Mine's a kitten named Tom.", "User has a cat named Tom"),
    # Said to be no other kind, it is still the user's one of the kind just named.
    ("Everyone has a dog. Mine isn't a puppy anymore.", "User has a dog"),
    ("My sister has a dog. Mine's not a cat.", "User has a dog"),
    # Someone named June, as Anna would be: the month said as a time after it names no
    # one, and takes nothing from her either.
    ("I know June. We got married in June.", "User is married to June"),
])
def test_a_statement_that_it_is_so_states_the_fact(said: str, fact: str) -> None:
    assert says(said, fact)
