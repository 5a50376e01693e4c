"""The offline policy over a long conversation: it quotes facts, not questions or its own
answers, and a fact that changes replaces the old one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import RecordingPolicy
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.scripted import ScriptedModel
from tiermem.agent.scripted import reply as model_reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_a_question_asked_again_is_answered_from_the_fact_not_from_earlier_asks(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I live in Lisbon.", *["Where do I live?"] * 4)
    for reply in replies[1:]:
        assert "- From core memory: User lives in Lisbon" in reply
        assert "Where do I live?" not in reply
        assert "(offline, quoting memory)" not in reply.split("\n", 1)[1]


@pytest.mark.parametrize(("fact", "question"), [
    ("My city is Faro.", "Where do I live?"),
    ("I'm living in Faro.", "Where do I live?"),
    ("I live in Faro.", "What is my home city?"),
    ("I work at Initech.", "What is my job?"),
    ("I have an allergy to shellfish.", "What am I allergic to?"),
])
def test_core_facts_match_by_stem_and_everyday_synonyms(memory: HierarchicalMemory, fact: str,
                                                        question: str) -> None:
    reply = _chat(memory, fact, question)[1]
    assert reply.startswith("(offline, quoting memory)\n- From core memory: ")


@pytest.mark.parametrize("update", [
    "I moved to Porto.",
    "I live in Porto now.",
    "I now live in Porto.",
    "My city is Porto.",
    "Actually, I live in Porto.",
    "My new address is Rua Nova 5, Porto.",
])
def test_an_update_retires_the_old_fact_as_superseded(memory: HierarchicalMemory,
                                                      update: str) -> None:
    before, after = _chat(memory, "I live in Lisbon.", "Where do I live?", update,
                          "Where do I live?")[1::2]
    assert "Lisbon" in before
    assert "Porto" in after and "Lisbon" not in after
    assert not any("Lisbon" in text for text in _core(memory))
    [hit] = [h for h in memory.archival_search("Lisbon", k=5).hits if "Lisbon" in h.text]
    assert hit.metadata.get("superseded_at") is not None


def test_corrections_and_changed_values(memory: HierarchicalMemory) -> None:
    _chat(memory, "My phone number is 555-0101.", "I prefer window seats on flights.",
          "Remember that my dentist is Dr. Silva.",
          "I changed my phone number to 555-0199.",
          "Actually, I prefer aisle seats on flights.",
          "My dentist is Dr. Costa now.",
          "I prefer aisle seats on trains.")
    assert _core(memory) == {
        "User's phone number is 555-0199": "durable",
        "User prefers aisle seats on flights": "durable",
        # A new value of a durable fact is durable, whatever its own wording.
        "User's dentist is Dr. Costa": "durable",
        # Without a change cue, a second preference is one more fact, not a correction.
        "User prefers aisle seats on trains": "durable",
    }


def test_a_superseded_value_stated_again_is_current_again(memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I live in Lisbon.", "I moved to Porto.", "I live in Lisbon.",
                    "Where do I live?")
    assert list(_core(memory)) == ["User lives in Lisbon"]
    assert "Lisbon" in replies[-1] and "Porto" not in replies[-1]


def test_a_question_about_the_past_quotes_superseded_facts_as_such(
        memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I live in Lisbon.", "I moved to Porto.",
                  "Where did I live before?")[-1]
    lines = reply.splitlines()
    assert "- From core memory: User moved to Porto" in lines
    assert any(line.startswith("- From archival (superseded ")
               and line.endswith(", no longer current): User lives in Lisbon") for line in lines)


def test_a_past_question_quotes_a_fact_once_not_again_from_the_conversation(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I live in Lisbon.", "Where did I live?", "I moved to Porto.",
                    "Where did I live before?", "My name is Dana and I like tea.",
                    "What was my name?")[1::2]
    assert replies[0] == "(offline, quoting memory)\n- From core memory: User lives in Lisbon"
    lines = replies[1].splitlines()[1:]
    assert lines[0] == "- From core memory: User moved to Porto"
    assert lines[1].endswith(", no longer current): User lives in Lisbon") and len(lines) == 2
    # A sentence that says more than the facts quoted is still quoted.
    assert replies[2].splitlines()[1:] == [
        "- From core memory: User's name is Dana",
        next(line for line in replies[2].splitlines() if line.startswith("- From our conv"))]
    assert replies[2].endswith("): My name is Dana and I like tea.")


def test_a_past_question_quotes_a_fact_said_as_news_once(memory: HierarchicalMemory) -> None:
    # "I live in Lisbon now." is stored as "User lives in Lisbon": its "now" made it quoted a
    # second time from the conversation.
    reply = _chat(memory, "I live in Porto.", "I live in Lisbon now.", "Where did I live?")[2]
    lines = reply.splitlines()[1:]
    assert lines[0] == "- From core memory: User lives in Lisbon"
    assert lines[1].endswith(", no longer current): User lives in Porto") and len(lines) == 2
    # A cue that says more ("not Porto") is still quoted.
    reply = _chat(memory, "Actually I live in Madrid, not Lisbon.", "Where did I live?")[1]
    assert reply.endswith("): Actually I live in Madrid, not Lisbon."), reply


def test_recall_pages_on_past_pages_full_of_questions(memory: HierarchicalMemory) -> None:
    # Said to a model that stored nothing: only recall holds it (quoted from core, it would
    # not be quoted from the conversation a second time).
    Agent(memory, ScriptedModel([model_reply("Nice.")])).step("We went to Crete on holiday.")
    agent = Agent(memory, OfflinePolicy())
    for _ in range(5):
        agent.step("Where did we go on holiday?")
    policy = RecordingPolicy()
    agent.llm = policy
    reply = agent.step("Where did we go on holiday?").reply or ""
    searches = [a for name, a in policy.made if name == "conversation_search"]
    assert [a.get("page", 1) for a in searches] == [1, 2]
    assert "From our conversation" in reply and "We went to Crete on holiday." in reply
    assert "Where did we go on holiday?" not in reply


def test_dont_forget_that_keeps_what_follows(memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "Alice is on call for payments.",
                    "Don't forget that Alice is on call for payments.",
                    "Do not forget that the production region is eu-west-1.",
                    "Who is on call for payments?", "What is the production region?")
    assert [f.text.casefold() for f in memory.core] == [
        "alice is on call for payments", "the production region is eu-west-1"]
    assert "Alice is on call for payments" in replies[3]
    assert "eu-west-1" in replies[4]


@pytest.mark.parametrize(("said", "question", "kept"), [
    # A change cue about one customer leaves the other's fact alone.
    (["Customer Acme is on the Enterprise plan.", "Customer Globex is on the Starter plan.",
      "Customer Acme is now on the Pro plan."], "What plan is Globex on?",
     ["Customer Globex is on the Starter plan", "Customer Acme is on the Pro plan"]),
    (["My wife is allergic to peanuts.", "Actually, I'm allergic to peanuts too."],
     "Is my wife allergic to peanuts?",
     ["User's wife is allergic to peanuts", "User is allergic to peanuts"]),
    # Another attribute of the same customer stays: only the customer's name is shared.
    (["Customer Acme uses SSO.", "Customer Acme is on the Pro plan now."],
     "Does Customer Acme use SSO?",
     ["Customer Acme uses SSO", "Customer Acme is on the Pro plan"]),
    (["Customer 9034 uses SSO and is on the Team plan.",
      "Customer 9034 is now on the Pro plan."], "Does Customer 9034 use SSO?",
     ["Customer 9034 uses SSO", "Customer 9034 is on the Pro plan"]),
    (["My sister is a nurse.", "My sister now lives in Lyon."], "What does my sister do?",
     ["User's sister is a nurse", "User's sister lives in Lyon"]),
    # A state of a thing is one more fact about it, not a new value of it.
    (["The database is PostgreSQL 15 in eu-west-1.", "The database is overloaded."],
     "What version is the database?",
     ["The database is PostgreSQL 15 in eu-west-1", "The database is overloaded"]),
    (["The database is overloaded.", "The database is PostgreSQL 16 now."],
     "What is the database?", ["The database is overloaded", "The database is PostgreSQL 16"]),
    (["My sister is Ana.", "My sister is pregnant."], "What is my sister's name?",
     ["User's sister is Ana", "User's sister is pregnant"]),
    # A thing's move changes where or when it is, not what else is said of it.
    (["The team is great.", "The team moved to the new office."], "How is the team?",
     ["The team is great", "The team moved to the new office"]),
    (["The server is Ubuntu.", "The server moved to Frankfurt."], "What OS is the server?",
     ["The server is Ubuntu", "The server moved to Frankfurt"]),
    (["The incident commander is based in London.", "The incident is sev1.",
      "The incident moved to sev2."], "Where is the incident commander based?",
     ["The incident commander is based in London", "The incident moved to sev2"]),
])
def test_a_fact_about_someone_else_or_of_another_kind_is_not_replaced(
        memory: HierarchicalMemory, said: list[str], question: str, kept: list[str]) -> None:
    reply = _chat(memory, *said, question)[-1]
    assert list(_core(memory)) == kept
    assert kept[0] in reply


@pytest.mark.parametrize(("said", "now"), [
    (["I am vegetarian.", "I am not vegetarian."], "User is not vegetarian"),
    (["I am not vegetarian.", "I am vegetarian."], "User is vegetarian"),
    (["I live in Lisbon.", "I moved from Lisbon to Porto."], "User moved from Lisbon to Porto"),
    (["My sister is Anna.", "My sister is Ana."], "User's sister is Ana"),
    (["My name is Sam.", "My name isn't Sam, it's Samuel."], "User's name is Samuel"),
    (["The incident is sev1 right now.", "The incident moved to sev2."],
     "The incident moved to sev2"),
    (["The meeting is on Thursday.", "The meeting moved to Friday."],
     "The meeting moved to Friday"),
    # A change cue and more than the subject shared: a new value of the same attribute.
    (["Customer Acme is on the Team plan.", "Customer Acme is now on the Pro plan."],
     "Customer Acme is on the Pro plan"),
    (["User prefers window seats on flights.", "I prefer aisle seats on flights now."],
     "User prefers aisle seats on flights"),
])
def test_a_negation_or_a_move_replaces_the_fact(memory: HierarchicalMemory, said: list[str],
                                                now: str) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == [now]


def test_a_retraction_that_denies_nothing_known_is_stored_as_said(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I can't eat gluten anymore.", "I'm no longer vegetarian.",
                    "Forget that.", "Do I eat gluten?")
    # The bare "Forget that." forgets the withdrawal just stored, and is itself no fact.
    assert list(_core(memory)) == ["User: I can't eat gluten anymore"]
    assert "(superseded): User is no longer vegetarian" in replies[2]
    assert "can't eat gluten" in replies[3]


@pytest.mark.parametrize(("said", "kept"), [
    ("I'm back, and I moved to Porto.", {"User moved to Porto": "durable"}),
    ("I'm sorry I missed the standup.", {"User: I missed the standup": "short-lived"}),
    # ... but one after a statement that says how it holds is kept with it, as one fact.
    ("I moved to Berlin but I'm back.", {"User moved to Berlin but User is back": "durable"}),
    ("I'm allergic to penicillin, but I'm not sure.",
     {"User is allergic to penicillin, but User is not sure": "durable"}),
    ("I'm not sure, but I think my wife is vegan.",
     {"User: I'm not sure, but I think my wife is vegan": "durable"}),
])
def test_an_aside_joined_to_a_statement_leaves_only_the_statement_in_core(
        memory: HierarchicalMemory, said: str, kept: dict[str, str]) -> None:
    _chat(memory, said)
    assert _core(memory) == kept


def test_a_move_said_undone_leaves_the_home_in_core(memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "I moved to Berlin but I'm back.")
    assert _core(memory) == {"User lives in Lisbon": "durable",
                             "User moved to Berlin but User is back": "durable"}


@pytest.mark.parametrize(("said", "stored"), [
    ("I moved to Berlin last year but I've moved back.",
     "User moved to Berlin last year but User has moved back"),
    ("I moved to Berlin but I have come back.", "User moved to Berlin but User has come back"),
])
def test_a_move_taken_back_in_a_clause_of_its_own_leaves_the_home_in_core(
        memory: HierarchicalMemory, said: str, stored: str) -> None:
    _chat(memory, "I live in Lisbon.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable", stored: "durable"}


@pytest.mark.parametrize(("said", "kept"), [
    # The move told before is the one taken back: it holds no more.
    (["I moved to Berlin.", "I moved to Berlin but I've moved back."],
     {"User moved to Berlin but User has moved back": "durable"}),
    (["I moved to Berlin in 2020.", "I moved to Berlin in 2020 but I came back."],
     {"User moved to Berlin in 2020 but User came back": "durable"}),
    # A move elsewhere is another, and still stands.
    (["I moved to Porto.", "I moved to Berlin but I'm back."],
     {"User moved to Porto": "durable", "User moved to Berlin but User is back": "durable"}),
])
def test_a_move_taken_back_ends_the_same_move_told_before(
        memory: HierarchicalMemory, said: list[str], kept: dict[str, str]) -> None:
    _chat(memory, *said)
    assert _core(memory) == kept


def test_a_move_and_a_trip_back_from_elsewhere_replaces_the_home(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "I moved to Berlin and just got back from a trip to Rome.")
    assert _core(memory) == {
        "User moved to Berlin and just got back from a trip to Rome": "durable"}


@pytest.mark.parametrize(("said", "kept"), [
    (["I'm vegan.", "I'm vegan. I'm not vegan anymore."], {}),
    (["I live in Lisbon.", "I live in Lisbon. I moved to Porto."],
     {"User moved to Porto": "durable"}),
])
def test_a_fact_said_again_and_then_ended_in_one_message_stays_ended(
        memory: HierarchicalMemory, said: list[str], kept: dict[str, str]) -> None:
    replies = _chat(memory, *said)
    assert _core(memory) == kept
    assert "archival -> core" not in replies[-1]


@pytest.mark.parametrize("said", ["My PIN changed to 4321.", "My PIN has changed to 4321.",
                                  "My PIN was changed to 4321."])
def test_a_value_said_changed_to_replaces_the_one_held(said: str) -> None:
    # "User's PIN changed to 4321" was stored beside "User's PIN is 1234"
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        _chat(memory, "My PIN is 1234.", said)
        assert list(_core(memory)) == ["User's PIN is 4321"]


def test_a_time_said_changed_to_is_kept_as_said() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        _chat(memory, "My flight changed to 6pm.")
        assert list(_core(memory)) == ["User's flight changed to 6pm"]


@pytest.mark.parametrize(("said", "kept"), [
    # "User's address is 5 Elm St", its abbreviation's dot dropped
    (("My address is 5 Oak Road.", "My address changed to 5 Elm St."),
     ["User's address is 5 Elm St."]),
    # "User's password changed to marlin" was stored beside the password it replaced
    (("My password is swordfish.", "My password changed to marlin."),
     ["User's password is marlin"]),
    # a secret's value of another look: stored beside "User's password is hunter2"
    (("My password is hunter2.", "My password changed to swordfish."),
     ["User's password is swordfish"]),
    (("My password is hunter2.", "My password is now swordfish."),
     ["User's password is swordfish"]),
    # "User's PIN is 4321 yesterday" was stored beside "User's PIN is 1234"
    (("My PIN is 1234.", "My PIN changed to 4321 yesterday."), ["User's PIN is 4321"]),
    # no code: "User's life is the better in 2020", "User's hair is grey over 10 years"
    (("My life changed to the better in 2020.",), ["User's life changed to the better in 2020"]),
    (("My hair changed to grey over 10 years.",), ["User's hair changed to grey over 10 years"]),
    (("My flight changed to gate 12.",), ["User's flight changed to gate 12"]),
    (("My mind changed to yes.",), ["User's mind changed to yes"]),
    # an address that opens with its flat was kept as said, beside the one it replaced
    (("My address is 7 Glass Street.", "My address changed to Flat 2, 5 Elm St."),
     ["User's address is Flat 2, 5 Elm St."]),
    (("My address changed to Apt 4B, 12 Oak Road.",), ["User's address is Apt 4B, 12 Oak Road"]),
    # an amount with its unit is a number too: the old rent was kept beside the sentence
    (("My rent is 1000 euros.", "My rent changed to 1200 euros."),
     ["User's rent is 1200 euros"]),
    (("My commute is 30 minutes.", "My commute changed to 40 minutes."),
     ["User's commute is 40 minutes"]),
    (("My score is 5 out of 10.", "My score changed to 7 out of 10."),
     ["User's score is 7 out of 10"]),
    (("My dose is 1 pill.", "My dose changed to 2 pills."), ["User's dose is 2 pills"]),
    (("My PIN is 1234.", "My PIN changed to something else."),
     ["User's PIN changed to something else", "User's PIN is 1234"]),
    # a count of things is no amount: "User's opinion is 2 things" was stored
    (("My opinion changed to 2 things.",), ["User's opinion changed to 2 things"]),
    (("I changed my opinion to 2 things.",), ["User: I changed my opinion to 2 things"]),
    # an email address is a value of its own look: "User's email changed to a@b.com" was
    # stored as said, beside the email it replaced
    (("My email changed to a@b.com.",), ["User's email is a@b.com"]),
    (("My email is x@y.com.", "My email has changed to a@b.com."), ["User's email is a@b.com"]),
    # a value of the kind held replaces it, whatever its look: "User's job changed to nurse"
    # was stored beside "User's job is teacher"
    (("My job is teacher.", "My job changed to nurse."), ["User's job is nurse"]),
    (("My city is Lisbon.", "My city has changed to Porto."), ["User's city is Porto"]),
    (("My flight is at 5pm.", "My flight changed to 6pm."), ["User's flight is 6pm"]),
    (("My email is x@y.com.", "My email changed to gmail."),
     ["User's email changed to gmail", "User's email is x@y.com"]),
    (("My job changed to nurse.",), ["User's job changed to nurse"]),
])
def test_what_changed_to_replaces_only_a_code_a_number_or_a_secret(
        memory: HierarchicalMemory, said: tuple[str, ...], kept: list[str]) -> None:
    _chat(memory, *said)
    assert sorted(_core(memory)) == kept
