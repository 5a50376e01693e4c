"""A statement joined to a bare denial of another ("Tom smokes and Ana doesn't.") is no
bare denial of one named in four words, "Tom smokes and Ana": read so, the sentence said
nothing and what Tom does was lost. The denial is told in full from the statement ("Ana
doesn't smoke"): kept as said, the two were one quote, and dropped, Ana's was lost."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    ("Tom smokes and Ana doesn't.", ["Ana doesn't smoke", "Tom smokes"]),
    ("Tom smokes but Ana doesn't.", ["Ana doesn't smoke", "Tom smokes"]),
    ("Tom drinks and Ana does not.", ["Ana doesn't drink", "Tom drinks"]),
    ("Tom runs and Ana doesn't anymore.", ["Ana doesn't run anymore", "Tom runs"]),
    # what Tom loves, told of Ana, may be another's: kept as said
    ("Tom loves his dog but Ana doesn't.", ["Tom loves his dog but Ana doesn't"]),
    # left out, that the kids do not eat meat was lost
    ("I eat meat, my kids don't.", ["User: I eat meat, my kids don't"]),
    ("The deploy finished, the migration didn't.", ["The deploy finished, the migration didn't"]),
    ("My brother drives, my sister doesn't.", ["User's brother drives, User's sister doesn't"]),
    ("The kids go to school but the baby doesn't.",
     ["The kids go to school but the baby doesn't"]),
])
def test_a_statement_before_a_bare_denial_is_kept(said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # dropped, that Tom does not work at Acme was lost
    ("I work at Acme and Tom doesn't.", ["Tom doesn't work at Acme", "User works at Acme"]),
    ("I like tea but Tom doesn't.", ["Tom doesn't like tea", "User likes tea"]),
    ("I'm vegan and Tom isn't.", ["Tom isn't vegan", "User is vegan"]),
    # "my dog" may be the user's or his own: kept as said
    ("I love my dog and Tom doesn't.", ["User loves User's dog and Tom doesn't"]),
])
def test_a_bare_denial_after_the_users_statement_is_told_in_full(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # two doings told of Ana kept the second as said, "Ana doesn't smoke and drinks": the
    # sentence is kept as said instead
    ("Tom smokes and drinks, Ana doesn't.", ["Tom smokes and drinks, Ana doesn't"]),
    ("Tom smokes and drinks but Ana doesn't.", ["Tom smokes and drinks but Ana doesn't"]),
    ("Tom drinks coffee and eats meat, Ana doesn't.",
     ["Tom drinks coffee and eats meat, Ana doesn't"]),
    ("Tom cooks or orders in, Ana doesn't.", ["Tom cooks or orders in, Ana doesn't"]),
])
def test_a_bare_denial_after_doings_joined_is_not_told_in_full(said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # "don't" of several was no bare denial: all was kept as one fragment, "..., User's
    # parents don't"
    ("Tom smokes, my parents don't.", ["Tom smokes", "User's parents don't smoke"]),
    ("Tom smokes and my parents don't.", ["Tom smokes", "User's parents don't smoke"]),
    ("Tom smokes. My parents don't.", ["Tom smokes", "User's parents don't smoke"]),
    ("Prod runs 1.4, the other clusters don't.",
     ["Prod runs 1.4", "The other clusters don't run 1.4"]),
    # alone it says nothing, as "Tom doesn't." does
    ("My parents don't.", []),
    # the speaker's own "we don't" is no one else's denial
    ("Tom smokes, we don't.", ["Tom smokes, we don't"]),
])
def test_a_bare_denial_of_several_is_told_in_full(said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # the contrast is of where or what with: "Mobile doesn't work on web" would be untrue,
    # and kept as said, that search fails on Android was no fact of its own
    # the place denied is written as the one said ("mobile" after "web", not "Mobile")
    ("Login works on web but mobile doesn't.",
     ["Login doesn't work on mobile", "Login works on web"]),
    ("Search works on iOS but Android doesn't.",
     ["Search doesn't work on Android", "Search works on iOS"]),
    ("Search works on iOS, Android doesn't.",
     ["Search doesn't work on Android", "Search works on iOS"]),
    ("The app runs on Linux but Windows doesn't anymore.",
     ["The app doesn't run on Windows anymore", "The app runs on Linux"]),
    ("Export works for CSV but PDF doesn't.",
     ["Export doesn't work for PDF", "Export works for CSV"]),
    ("Auth works on staging. Prod doesn't.",
     ["Auth doesn't work on prod", "Auth works on staging"]),
    ("Netflix works on the TV but the laptop doesn't.",
     ["Netflix doesn't work on the laptop", "Netflix works on the TV"]),
    ("Chrome works on Windows but Linux doesn't.",
     ["Chrome doesn't work on Linux", "Chrome works on Windows"]),
    ("Checkout works on desktop. Mobile doesn't.",
     ["Checkout doesn't work on mobile", "Checkout works on desktop"]),
    # a name keeps its capital, though the place said was written lower case
    ("Search works on linux but Windows doesn't.",
     ["Search doesn't work on Windows", "Search works on linux"]),
    ("The site works in chrome. Firefox doesn't.",
     ["The site doesn't work in Firefox", "The site works in chrome"]),
    ("Deploy works on aws but Azure doesn't.",
     ["Deploy doesn't work on Azure", "Deploy works on aws"]),
    ("Auth works on dev but QA doesn't.", ["Auth doesn't work on QA", "Auth works on dev"]),
])
def test_a_denial_of_another_place_is_told_of_the_doer(said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # of "it", or at two places, what it is done with is unclear: kept as said
    ("It works in Chrome but Safari doesn't.", ["It works in Chrome but Safari doesn't"]),
    ("Login works on web in Chrome but mobile doesn't.",
     ["Login works on web in Chrome but mobile doesn't"]),
    # a denied word of no place of the kind said may be another that does it: "Python
    # doesn't run on Ruby" or "The server doesn't run on the DB" would be untrue
    ("Python runs on Linux but Ruby doesn't.", ["Python runs on Linux but Ruby doesn't"]),
    ("The server runs on AWS but the DB doesn't.",
     ["The server runs on AWS but the DB doesn't"]),
    ("Chrome works on Windows but Firefox doesn't.",
     ["Chrome works on Windows but Firefox doesn't"]),
    ("Login works via SSO but password doesn't.", ["Login works via SSO but password doesn't"]),
    # a doing not said where or with what is told of a thing too: alone, it was lost
    ("Prod runs 1.4 but staging doesn't.", ["Prod runs 1.4", "Staging doesn't run 1.4"]),
    ("Acme pays monthly. Globex doesn't.", ["Acme pays monthly", "Globex doesn't pay monthly"]),
    ("Prod uses Postgres 15. Staging doesn't.",
     ["Prod uses Postgres 15", "Staging doesn't use Postgres 15"]),
    # a person, one of the user's, or others of the kind may do it; a verb alone is told
    ("Tom works at Acme but Ana doesn't.", ["Ana doesn't work at Acme", "Tom works at Acme"]),
    ("Tom works at Acme, my parents don't.",
     ["Tom works at Acme", "User's parents don't work at Acme"]),
    ("Web works, mobile doesn't.", ["Mobile doesn't work", "Web works"]),
])
def test_a_denial_of_no_one_who_could_do_it_is_not_told_in_full(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept
