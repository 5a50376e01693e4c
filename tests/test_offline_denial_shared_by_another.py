"""Someone sharing a denial said of another ("Tom doesn't know. Ana doesn't either.") is
told in full, as one sharing the user's is; told with a word saying whose ("his job"), it
would name the wrong owner, and is dropped."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    # dropped as a share of no denial of the user's, what Ana does not know was lost
    ("Tom doesn't know. Ana doesn't either.", ["Ana doesn't know", "Tom doesn't know"]),
    ("The API doesn't respond. Redis doesn't either.",
     ["Redis doesn't respond", "The API doesn't respond"]),
    ("Tom isn't on call and Ana isn't either.", ["Ana isn't on call", "Tom isn't on call"]),
    ("Tom doesn't like his job. Ana doesn't either.", ["Tom doesn't like his job"]),
])
def test_a_share_of_anothers_denial_is_told_in_full(said: str, kept: list[str]) -> None:
    assert core_after(said) == sorted(kept)


@pytest.mark.parametrize(("said", "kept"), [
    # "my" and "our" are the speaker's whoever shares the denial: dropped, Ana's was lost
    ("Tom doesn't like my cooking. Ana doesn't either.",
     ["Ana doesn't like User's cooking", "Tom doesn't like User's cooking"]),
    ("The API doesn't answer our health checks. Redis doesn't either.",
     ["Redis doesn't answer our health checks", "The API doesn't answer our health checks"]),
])
def test_a_share_of_anothers_denial_told_with_the_speakers_whose_is_kept(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == sorted(kept)


@pytest.mark.parametrize(("said", "kept"), [
    # "the DB" was no one who shares a denial: "and the DB doesn't either" was lost
    ("The API doesn't respond and the DB doesn't either.",
     ["The API doesn't respond", "The DB doesn't respond"]),
    ("The API doesn't respond, neither does the primary DB.",
     ["The API doesn't respond", "The primary DB doesn't respond"]),
    ("The API isn't up and the DB isn't either.", ["The API isn't up", "The DB isn't up"]),
])
def test_a_share_of_a_denial_by_the_one_joined_to_it_is_told_in_full(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == sorted(kept)


@pytest.mark.parametrize(("said", "kept"), [
    # "the DB today" was taken for who: "The DB today doesn't respond" was stored
    ("The API doesn't respond, neither does the DB today.",
     ["The API doesn't respond, neither does the DB today"]),
    ("The API doesn't respond, neither does Redis today.",
     ["The API doesn't respond, neither does Redis today"]),
])
def test_a_time_after_the_one_sharing_a_denial_is_no_part_of_who(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # "my job" told of Tom was the user's job: Tom dislikes his own
    ("I don't like my job. Tom doesn't either.",
     ["Tom doesn't like Tom's job", "User doesn't like User's job"]),
    ("I don't like my job, neither does Tom.",
     ["Tom doesn't like Tom's job", "User doesn't like User's job"]),
    ("I'm not happy with my laptop. Tom isn't either.",
     ["Tom isn't happy with Tom's laptop", "User is not happy with User's laptop"]),
])
def test_a_share_of_the_users_denial_of_their_own_is_of_the_sharers_own(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == sorted(kept)


@pytest.mark.parametrize(("said", "kept"), [
    # one of the user's shares the home and its people: it was "User's wife's landlord",
    # and "User's wife's mother-in-law", the user's mother
    ("I don't trust my landlord. My wife doesn't either.",
     ["User doesn't trust User's landlord", "User's wife doesn't trust User's landlord"]),
    ("I don't like my mother-in-law. My wife doesn't either.",
     ["User doesn't like User's mother-in-law",
      "User's wife doesn't like User's mother-in-law"]),
    ("I don't like my car, neither does my wife.",
     ["User doesn't like User's car", "User's wife doesn't like User's car"]),
    # one of the user's people is the user's: Tom may share the boss, not have his own
    ("I don't like my boss. Tom doesn't either.",
     ["Tom doesn't like User's boss", "User doesn't like User's boss"]),
])
def test_a_share_by_one_of_the_users_or_of_the_users_people_stays_the_users(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == sorted(kept)


@pytest.mark.parametrize(("said", "kept"), [
    # kin and pets are each one's own: it was "Tom doesn't see User's kids much"
    ("I don't see my kids much. Tom doesn't either.",
     ["Tom doesn't see Tom's kids much", "User doesn't see User's kids much"]),
    ("I don't get along with my sister. Tom doesn't either.",
     ["Tom doesn't get along with Tom's sister", "User doesn't get along with User's sister"]),
    ("I'm not happy with my kids' school. Ana isn't either.",
     ["Ana isn't happy with Ana's kids' school", "User is not happy with User's kids' school"]),
])
def test_a_share_by_another_of_the_users_kin_is_of_their_own(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == sorted(kept)
