"""Thanks for something is an acknowledgement of the conversation, not a fact to keep: the
offline extractor stores none of it, and keeps a statement said beside it."""

from __future__ import annotations

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.extract import extract_facts

THANKS = ("Thanks a lot for nothing", "Thanks for the help.",
          "Thank you so much for the coffee!", "Many thanks for your patience")
#: Thanks the speaker does not give: each is a fact as said.
NOT_GIVEN = ("The thanks for the award went to Ana", "Thanks to Ana the deploy is green")


def test_thanks_for_something_is_no_fact() -> None:
    for thanks in THANKS:
        assert extract_facts(thanks) == [], thanks
        assert core_changes(thanks, {}) == ([], {}), thanks


def test_a_statement_beside_thanks_is_kept() -> None:
    said = extract_facts("Thanks for the coffee, I live in Berlin")
    assert [fact.text for fact in said] == ["User lives in Berlin"]


def test_thanks_not_given_by_the_speaker_is_a_fact() -> None:
    assert [[fact.text for fact in extract_facts(said)] for said in NOT_GIVEN] == [
        [said] for said in NOT_GIVEN]


#: Thanks for something that states a fact, each of which was dropped with the thanks.
THANKED_FOR_A_FACT = ("Thanks for reminding me I'm allergic to peanuts",
                      "Thanks for noting that my wife is vegan",
                      "Thanks for the help with my new job at Acme",
                      "Thanks for saying the API is down")


def test_a_fact_said_inside_the_thanks_is_kept() -> None:
    # each is kept as said, its last word ("peanuts", "down") in the fact stored
    kept = {said: [text for text in core_changes(said, {})[1] if said.split()[-1] in text]
            for said in THANKED_FOR_A_FACT}
    assert [said for said, texts in kept.items() if not texts] == []
