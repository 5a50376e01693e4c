"""Dates in questions: the offline parser, and the re-ranking that query() does with it."""

from __future__ import annotations

import datetime as dt

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.search.dates import asks_when, mentions_time, resolve_dates
from tiermem.memory.search.temporal import TimeQuery, read_time_query, rerank_for_time
from tiermem.memory.types import Hit

# Sunday 22 October 2023, afternoon: the last session of a conversation.
NOW = dt.datetime(2023, 10, 22, 15, 0, tzinfo=dt.UTC).timestamp()


def _day(stamp: float) -> str:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).date().isoformat()


@pytest.mark.parametrize(("phrase", "first", "after_last"), [
    ("What did we do yesterday?", "2023-10-21", "2023-10-22"),
    ("plans for tomorrow", "2023-10-23", "2023-10-24"),
    ("When did Melanie go camping in June?", "2023-06-01", "2023-07-01"),
    ("in October", "2023-10-01", "2023-11-01"),
    ("last October", "2022-10-01", "2022-11-01"),  # this October is still going on
    ("last May", "2023-05-01", "2023-06-01"),
    ("in 2023", "2023-01-01", "2024-01-01"),
    ("the party in May 2022", "2022-05-01", "2022-06-01"),
    ("on 8 May, 2023", "2023-05-08", "2023-05-09"),
    ("on May 8, 2023", "2023-05-08", "2023-05-09"),
    ("What did I do on March 3?", "2023-03-03", "2023-03-04"),
    ("2023-05-08", "2023-05-08", "2023-05-09"),
    ("last week", "2023-10-09", "2023-10-16"),
    ("last weekend", "2023-10-14", "2023-10-16"),
    ("last month", "2023-09-01", "2023-10-01"),
    ("this year", "2023-01-01", "2024-01-01"),
    ("3 weeks ago", "2023-09-25", "2023-10-02"),
    ("two years ago", "2021-01-01", "2022-01-01"),
    ("last Friday", "2023-10-20", "2023-10-21"),
    ("on Tuesday", "2023-10-17", "2023-10-18"),
    ("during the summer", "2023-06-01", "2023-09-01"),
    ("last winter", "2022-12-01", "2023-03-01"),
    ("the week before 9 June 2023", "2023-06-02", "2023-06-09"),
    ("The friday before 15 July 2023", "2023-07-14", "2023-07-15"),
    ("the Tuesday after 3 May 2023", "2023-05-09", "2023-05-10"),
    ("since 2016", "2016-01-01", "2023-10-22"),
])
def test_date_phrases_resolve_against_now(phrase: str, first: str, after_last: str) -> None:
    found = resolve_dates(phrase, NOW)
    assert found is not None, phrase
    assert (_day(found.start), _day(found.end)) == (first, after_last)


@pytest.mark.parametrize("phrase", [
    "May I ask what you think?", "What is Caroline's favourite book?", "the week before the trip",
    "on 31 February 2023", "I march on", "on 30 February", "route 2023b",
])
def test_phrases_without_a_resolvable_date_give_none(phrase: str) -> None:
    assert resolve_dates(phrase, NOW) is None


def test_when_questions_and_texts_that_state_a_time_are_told_apart() -> None:
    for question in ("When did Caroline go to the parade?", "How long ago was her birthday?",
                     "What year did Jon move?"):
        assert asks_when(question), question
    assert not asks_when("What did Caroline paint?")
    for text in ("I went yesterday", "I ran last Friday", "back in 2022", "two weeks ago",
                 "on 8 May we met"):
        assert mentions_time(text), text
    for text in ("The sun is out", "the last thing I want", "may I?"):
        assert not mentions_time(text), text


def _hit(text: str, score: float, day: str, hit_id: int) -> Hit:
    stamp = dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp()
    return Hit(text=text, tier="archival", score=score, created_at=stamp, id=hit_id)


def test_rerank_lifts_hits_in_the_named_range_and_hits_that_say_when() -> None:
    hits = [_hit("We went hiking in the Alps", 0.9, "2023-09-10", 1),
            _hit("Hiking in the Alps was great", 0.8, "2023-06-05", 2)]
    assert [h.id for h in rerank_for_time(hits, TimeQuery(None, False))] == [1, 2]
    in_june = rerank_for_time(hits, read_time_query("Where did we hike in May?", NOW))
    assert [h.id for h in in_june] == [2, 1]  # told in June, within the slack after May
    assert all(0 < h.score <= 1 for h in in_june)
    told = [_hit("I love hiking in the Alps", 0.9, "2023-09-10", 1),
            _hit("I went hiking in the Alps yesterday", 0.8, "2023-09-10", 2)]
    assert [h.id for h in rerank_for_time(told, read_time_query("When did I hike?", NOW))
            ] == [2, 1]
    # a time said only in a passage's context is not the passage's own
    ranked = rerank_for_time(told, read_time_query("When did I hike?", NOW),
                             text_of=lambda h: h.text.replace(" yesterday", ""))
    assert [h.id for h in ranked] == [1, 2]


def _stamp(day: str) -> float:
    return dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp()


def test_query_ranks_by_the_date_the_question_names() -> None:
    memory = HierarchicalMemory(None, embedder=HashingEmbedder(), now=lambda: NOW)
    try:
        # The September passage matches the words better; the March one was filed in March.
        september = memory.archival_insert("budget review meeting notes",
                                           created_at=_stamp("2023-09-12"))
        march = memory.archival_insert("budget review meeting notes, finance",
                                       created_at=_stamp("2023-03-14"))
        memory.archival_insert("gardening tips for tomatoes", created_at=_stamp("2023-03-15"))
        plain = memory.query("budget review meeting notes", k=2, touch=False)
        assert [h.id for h in plain] == [september, march]
        dated = memory.query("budget review meeting notes in March", k=2, touch=False)
        assert [h.id for h in dated] == [march, september]
        assert [h.id for h in memory.query("budget review meeting notes last September",
                                           k=2, touch=False)] == [september, march]
    finally:
        memory.close()


def test_query_answers_a_when_question_with_the_message_that_says_when() -> None:
    memory = HierarchicalMemory(None, embedder=HashingEmbedder(), now=lambda: NOW)
    try:
        memory.archival_insert("the pottery class is wonderful, pottery is relaxing",
                               created_at=_stamp("2023-07-01"))
        dated = memory.archival_insert("I signed up for a pottery class yesterday",
                                       created_at=_stamp("2023-07-02"))
        about = memory.query("pottery class", k=2, touch=False)
        assert about[0].id != dated
        assert memory.query("When did I sign up for the pottery class?", k=2,
                            touch=False)[0].id == dated
    finally:
        memory.close()
