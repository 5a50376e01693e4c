"""The offline policy over a long conversation: it quotes facts, not questions or its own
answers, and a fact that changes replaces the old one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import RecordingPolicy

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.offline_answers import NOTHING_CURRENT
from tiermem.agent.scripted import ScriptedModel
from tiermem.agent.scripted import reply as model_reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def _chat(memory: HierarchicalMemory, *messages: str) -> list[str]:
    agent = Agent(memory, OfflinePolicy())
    return [agent.step(message).reply or "" for message in messages]


def _core(memory: HierarchicalMemory) -> dict[str, str]:
    return {f.text: f.durability for f in memory.core}


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


@pytest.mark.parametrize("update", ["Call me Sammy", "Please call me Sammy.", "My name is Sammy."])
def test_call_me_replaces_the_name_as_my_name_is_does(memory: HierarchicalMemory,
                                                       update: str) -> None:
    answer = _chat(memory, "My name is Samantha.", update, "What is my name?")[-1]
    assert _core(memory) == {"User's name is Sammy": "durable"}
    assert answer == "(offline, quoting memory)\n- From core memory: User's name is Sammy"


def test_asking_for_a_call_stores_nothing_and_leaves_the_name(memory: HierarchicalMemory
                                                              ) -> None:
    _chat(memory, "Call me Sammy", "Call me back later.", "Call me back", "Call me Mom.")
    assert _core(memory) == {"User's name is Sammy": "durable"}


def test_dont_let_me_forget_that_keeps_the_fact_it_names(memory: HierarchicalMemory) -> None:
    # "forget that" inside it asks to keep, not to forget: nothing held is retired, and the
    # fact said again so is kept for good.
    _chat(memory, "My passport expires in May.",
          "Don't let me forget that my passport expires in May.",
          "Don't let me forget that the visa needs two photos.")
    assert _core(memory) == {"User's passport expires in May": "durable",
                             "the visa needs two photos": "durable"}


@pytest.mark.parametrize("said", ["Let me forget that I live in Lisbon.",
                                  "Let me forget about that, I live in Lisbon."])
def test_let_me_forget_that_retires_the_fact(memory: HierarchicalMemory, said: str) -> None:
    # Not read as "don't let me forget that X", which keeps X: it asks to forget, so the
    # fact is retired and the request is not stored as a quote of itself.
    _chat(memory, "I live in Lisbon.", said)
    assert _core(memory) == {}


@pytest.mark.parametrize("said", ["Let us forget about it.", "Let me forget that."])
def test_let_me_forget_with_nothing_matched_stores_no_quote(memory: HierarchicalMemory,
                                                            said: str) -> None:
    _chat(memory, "I live in Lisbon.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable"}


@pytest.mark.parametrize("said", ["They won't let me forget that I live in Lisbon.",
                                  "Do not let us forget that I live in Lisbon."])
def test_a_negated_let_me_forget_that_retires_nothing(memory: HierarchicalMemory,
                                                      said: str) -> None:
    _chat(memory, "I live in Lisbon.", said)
    assert "User lives in Lisbon" in _core(memory)


@pytest.mark.parametrize("said", ["Don't ever let me forget that I live in Lisbon.",
                                  "Don't let me ever forget that I live in Lisbon.",
                                  "Do not ever forget that I live in Lisbon.",
                                  "Don't just forget that I live in Lisbon.",
                                  "Never, ever forget that I live in Lisbon.",
                                  "I cannot forget that I live in Lisbon."])
def test_a_negation_a_word_or_two_before_forget_that_retires_nothing(
        memory: HierarchicalMemory, said: str) -> None:
    # "ever", "just" or "let me" between the negation and "forget that" still ask to
    # keep what follows: the fact must not be retired.
    _chat(memory, "I live in Lisbon.", said)
    assert "User lives in Lisbon" in _core(memory)


@pytest.mark.parametrize("said", ["It's not you, just forget that I live in Lisbon.",
                                  "Don't worry, just forget that I live in Lisbon."])
def test_a_negation_in_another_clause_leaves_forget_that_a_request(
        memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, "I live in Lisbon.", said)
    assert "User lives in Lisbon" not in _core(memory)


@pytest.mark.parametrize("said", ["Don't forget about my peanut allergy.",
                                  "Remember about my peanut allergy.",
                                  "Please don't forget about my peanut allergy."])
def test_dont_forget_about_my_x_keeps_x_as_dont_forget_my_x_does(memory: HierarchicalMemory,
                                                                  said: str) -> None:
    # "about" after "don't forget" asks for a reminder ("... about the meeting"); about
    # the speaker's own it states what is theirs, as "Don't forget my peanut allergy" does,
    # and is neither lost nor met with the reminder note.
    replies = _chat(memory, said, "What am I allergic to?")
    assert _core(memory) == {"User's peanut allergy": "durable"}
    assert "can't set reminders" not in replies[0]
    assert replies[1] == "(offline, quoting memory)\n- From core memory: User's peanut allergy"


def test_dont_forget_about_a_meeting_is_still_a_reminder(memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "Don't forget about the meeting with Acme.")[0]
    assert _core(memory) == {}
    assert "can't set reminders" in reply


@pytest.mark.parametrize("said", ["Hi! I'm Maya", "Hello, I'm Maya.", "Hey there, I'm Maya"])
def test_an_introduction_is_the_user_s_name_and_answered(memory: HierarchicalMemory,
                                                         said: str) -> None:
    answer = _chat(memory, said, "What's my name?")[-1]
    assert _core(memory) == {"User's name is Maya": "durable"}
    assert answer == "(offline, quoting memory)\n- From core memory: User's name is Maya"


@pytest.mark.parametrize(("said", "name", "affiliation"), [
    ("Hi, I'm Sam from the platform team", "Sam", "from the platform team"),
    ("Hello! I'm Sam Lee from Boston.", "Sam Lee", "from Boston"),
    ("Hey, I'm Sam on the payments team", "Sam", "on the payments team"),
])
def test_an_introduction_saying_where_the_user_is_from_names_the_user_and_keeps_that(
        memory: HierarchicalMemory, said: str, name: str, affiliation: str) -> None:
    answer = _chat(memory, said, "What's my name?")[-1]
    assert list(_core(memory)) == [f"User's name is {name}", f"User is {affiliation}"]
    assert f"User's name is {name}" in answer


def test_being_back_from_somewhere_is_no_introduction(memory: HierarchicalMemory) -> None:
    _chat(memory, "Hi, I'm back from vacation.")
    assert list(_core(memory)) == ["User is back from vacation"]


@pytest.mark.parametrize("said", ["Hi, I'm Nervous.", "Hi! I'm Late", "Hello, I'm Anxious.",
                                  "Hey, I'm Engaged", "Hi, I'm Sober", "Hi. I'm Early",
                                  "Hi, I'm Ana"])
@pytest.mark.parametrize("apart", [True, False])
def test_a_greeting_changes_no_name_the_user_gave(memory: HierarchicalMemory, said: str,
                                                  apart: bool) -> None:
    # "I'm X" after a greeting may say what the user is as well as who: read as it was
    # before introductions named anyone, it is short-lived and retires nothing.
    messages = ("My name is Maya.", said) if apart else (f"My name is Maya. {said}",)
    answer = _chat(memory, *messages, "What's my name?")[-1]
    word = said.rstrip(".!").split("I'm ")[1]
    assert _core(memory) == {"User's name is Maya": "durable", f"User is {word}": "short-lived"}
    assert answer == "(offline, quoting memory)\n- From core memory: User's name is Maya"


@pytest.mark.parametrize(("first", "then", "name"), [
    ("Hi! I'm Maya", "Hi! I'm Maya", "Maya"),  # the same name: re-asserted
    ("My name is Maya.", "My name is Ana.", "Ana"), ("My name is Maya.", "Call me Liz", "Liz"),
    ("Hi! I'm Maya", "My name is Ana.", "Ana"),
])
def test_only_the_same_name_or_an_explicit_one_is_stored_beside_a_name(
        memory: HierarchicalMemory, first: str, then: str, name: str) -> None:
    _chat(memory, first, then)
    assert _core(memory) == {f"User's name is {name}": "durable"}


def test_a_value_given_of_him_or_her_changes_no_other_person_s(
        memory: HierarchicalMemory) -> None:
    # "His" and "her" stand for whoever the sentences before named: two people, two values.
    _chat(memory, "My boss is strict. His name is Bob.", "My neighbour is nice. Her name is Eva.",
          "His job is plumber.", "Her job is nurse.", "He works at Acme.", "He works at Globex.",
          "My job is teacher.", "My job is actually engineer.")
    assert list(_core(memory)) == [
        "User's boss is strict", "His name is Bob", "User's neighbour is nice", "Her name is Eva",
        "His job is plumber", "Her job is nurse", "He works at Acme", "He works at Globex",
        "User's job is engineer"]
    [superseded] = [f.text for f in memory.facts() if f.tier == "archival"]
    assert superseded == "User's job is teacher"


def test_an_introduction_stored_by_an_earlier_version_is_not_stored_twice(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User is Maya", "short-lived")
    _chat(memory, "Hi! I'm Maya")
    assert list(_core(memory)) == ["User is Maya"]


def test_a_language_spoken_is_kept_as_the_user_s_and_answered(memory: HierarchicalMemory
                                                               ) -> None:
    answer = _chat(memory, "I speak Hebrew.", "Which languages do I speak?")[-1]
    assert _core(memory) == {"User speaks Hebrew": "durable"}
    assert answer == "(offline, quoting memory)\n- From core memory: User speaks Hebrew"


def test_a_language_fact_stored_quoted_by_an_earlier_version_is_not_stored_twice(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User: I speak Hebrew", "short-lived")
    _chat(memory, "I speak Hebrew.")
    assert list(_core(memory)) == ["User: I speak Hebrew"]


def test_a_retraction_retires_the_fact_and_is_not_stored(memory: HierarchicalMemory) -> None:
    policy = RecordingPolicy()
    agent = Agent(memory, policy)
    for text in ("I'm allergic to peanuts.", "I'm allergic to shellfish.",
                 "I'm not allergic to peanuts anymore, forget that."):
        agent.step(text)
    assert policy.made[-2:] == [
        ("core_memory_replace", {"old_content": "User is allergic to peanuts", "new_content": "",
                                 "request_heartbeat": True}),
        ("send_message", policy.made[-1][1]),
    ]
    assert _core(memory) == {"User is allergic to shellfish": "durable"}
    reply = agent.step("What am I allergic to?").reply or ""
    assert "shellfish" in reply and "peanut" not in reply


@pytest.mark.parametrize(("said", "retraction"), [
    ("I work at Acme Robotics.", "I no longer work at Acme Robotics."),
    ("I am vegetarian.", "I'm not vegetarian anymore."),
    ("I drive a red Toyota.", "I don't drive a Toyota any more."),
    ("My manager is Priya.", "I no longer work for Priya."),
])
def test_no_longer_and_not_anymore_retire_what_they_deny(
        memory: HierarchicalMemory, said: str, retraction: str) -> None:
    _chat(memory, said, "I prefer window seats.", retraction)
    assert list(_core(memory)) == ["User prefers window seats"]


def test_working_with_the_manager_no_longer_keeps_them_the_manager(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "My manager is Priya.", "I no longer work with Priya on the migration.")
    assert list(_core(memory)) == [
        "User's manager is Priya", "User: I no longer work with Priya on the migration"]


@pytest.mark.parametrize(("said", "retraction", "left"), [
    ("I am vegetarian.", "I'm not vegetarian anymore, I eat fish now.", "User: I eat fish"),
    ("I work at Acme.", "I no longer work at Acme, I work at Globex now.",
     "User works at Globex"),
    ("I'm allergic to peanuts.", "I'm not allergic to peanuts anymore, my doctor checked.",
     "User's doctor checked"),
])
def test_a_retraction_joined_to_another_statement_still_retires_what_it_denies(
        memory: HierarchicalMemory, said: str, retraction: str, left: str) -> None:
    # Read whole, the other statement's words outweighed what the retraction denies: the
    # old fact stayed, beside the sentence stored as a fact that contradicts it.
    _chat(memory, said, retraction)
    assert list(_core(memory)) == [left]
    # One that denies nothing held stays one statement, stored as said.
    _chat(memory, "I can't eat gluten anymore, I found out last week.")
    assert "User: I can't eat gluten anymore, I found out last week" in _core(memory)


def test_a_retraction_of_one_liking_keeps_the_other(memory: HierarchicalMemory) -> None:
    _chat(memory, "I like jazz and hate country music.", "Forget that I like jazz.")
    assert _core(memory) == {"User hates country music": "durable"}


@pytest.mark.parametrize("retraction", ["I don't work at Google anymore, my wife does.",
                                        "I don't work at Google anymore - my brother does too"])
def test_a_retraction_joined_to_a_clause_that_points_back_is_read_whole(
        memory: HierarchicalMemory, retraction: str) -> None:
    # Cut off, "my wife does" was stored as the fact "User's wife does", which says nothing.
    _chat(memory, "I work at Google.", retraction)
    assert list(_core(memory)) == []
    assert "work at Google anymore" in _chat(memory, "Who works at Google?")[0]


@pytest.mark.parametrize(("said", "retraction", "question"), [
    ("I'm on call this week for the payments cluster.", "I'm not on call anymore, Priya is.",
     "Am I on call?"),
    ("I'm the incident commander for the outage.",
     "I'm no longer the incident commander, Marco Rossi is.", "Who is the incident commander?"),
])
def test_a_retraction_someone_else_takes_over_retires_the_fact(
        memory: HierarchicalMemory, said: str, retraction: str, question: str) -> None:
    # The name taken over was counted as denied, so too little of the fact was denied:
    # it stayed current, quoted beside the retraction stored as a fact.
    reply = _chat(memory, said, retraction, question)[-1]
    assert list(_core(memory)) == []
    assert reply.splitlines()[1:] == [line for line in reply.splitlines()[1:]
                                      if line.endswith(retraction)]


def test_a_question_about_who_is_on_call_quotes_no_request_for_a_call(
        memory: HierarchicalMemory) -> None:
    # "on call" and "Call me" shared the concept "call": the request was quoted as evidence.
    replies = _chat(memory, "Call me if sev1 fires.", "Priya is on-call this week.",
                    "Who is on call?", "Is Marco on call?")
    assert replies[2] == ("(offline, quoting memory)\n- From core memory: Priya is on-call "
                          "this week")
    assert "sev1" not in replies[3]


@pytest.mark.parametrize(("said", "withdrawal", "question"), [
    ("I work at Acme Robotics.", "I no longer work at Acme Robotics.", "Where do I work?"),
    ("I'm allergic to peanuts.", "I'm no longer allergic to peanuts.",
     "Am I allergic to peanuts?"),
    ("I eat meat.", "I stopped eating meat.", "Do I eat meat?"),
])
def test_a_question_about_a_withdrawn_fact_quotes_the_withdrawal_not_the_fact(
        memory: HierarchicalMemory, said: str, withdrawal: str, question: str) -> None:
    reply = _chat(memory, said, withdrawal, question)[-1]
    [(first, quote)] = [line.split("): ", 1) for line in reply.splitlines()[1:]]
    assert reply.startswith("(offline, quoting memory)\n")
    assert first.startswith("- From our conversation (") and quote == withdrawal



def test_a_question_about_the_withdrawn_part_of_a_fact_quotes_the_withdrawal_too(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I'm allergic to peanuts and shellfish.",
                    "I'm not allergic to shellfish anymore.", "Am I allergic to shellfish?",
                    "Am I allergic to peanuts?", "I'm allergic to shellfish again.",
                    "Am I allergic to shellfish?")
    lines = [line.split("): ", 1)[-1] for line in replies[2].splitlines()[1:]]
    assert lines == ["- From core memory: User is allergic to peanuts",
                     "I'm not allergic to shellfish anymore."]
    # What the other part answers whole, and a fact stated since, quote no withdrawal.
    assert "shellfish" not in replies[3]
    assert "anymore" not in replies[5] and "shellfish" in replies[5]

def test_a_withdrawal_of_something_else_answers_nothing_current(
        memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I'm allergic to peanuts.", "I'm no longer allergic to peanuts.",
                  "Am I allergic to shellfish?")[-1]
    assert reply == NOTHING_CURRENT


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


OLDER = "User's name is Dana and I live in Lisbon"  # earlier versions rewrote the head only


@pytest.mark.parametrize("stored", [OLDER, OLDER.replace("Lisbon", "lisbon").upper()])
def test_a_fact_an_earlier_version_stored_is_re_asserted_not_doubled(
        memory: HierarchicalMemory, stored: str) -> None:
    memory.add_fact(stored, "durable")
    _chat(memory, "My name is Dana and I live in Lisbon.")
    assert list(_core(memory)) == [stored]


def test_a_fact_an_earlier_version_stored_then_retired_is_not_current(
        memory: HierarchicalMemory) -> None:
    # Retired in the words it was stored in, the statement behind it is not quoted as current.
    memory.add_fact(OLDER, "durable")
    _chat(memory, "My name is Dana and I live in Lisbon.")
    memory.replace_in_core(OLDER, "")
    assert _chat(memory, "Where do I live?") == [NOTHING_CURRENT]


def test_a_compound_fact_that_changes_in_one_statement_keeps_the_others(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "The production region is eu-west-1 and the staging region is "
                            "us-east-2.", "Actually the staging region is now eu-central-1.",
                    "What is the staging region?", "Which region is production?")
    assert _core(memory) == {"The production region is eu-west-1": "durable",
                             "The staging region is eu-central-1": "durable"}
    assert "eu-central-1" in replies[2] and "us-east-2" not in replies[2]
    assert "eu-west-1" in replies[3]
    [retired] = [h for h in memory.archival_search("us-east-2", k=5).hits]
    assert retired.metadata.get("superseded_at") is not None


def test_each_statement_of_a_sentence_lasts_as_long_as_it_says(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "My phone number is 555-1234 and my hotel room is 412 this week.")
    assert _core(memory) == {"User's phone number is 555-1234": "durable",
                             "User's hotel room is 412 this week": "short-lived"}


def test_a_sentence_joining_statements_is_stored_as_one_fact_each(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "My favourite bands are Queen and the Rolling Stones and my favourite food "
                  "is sushi.", "Actually my favourite food is now ramen.")
    assert list(_core(memory)) == ["User's favourite bands are Queen and the Rolling Stones",
                                   "User's favourite food is ramen"]


@pytest.mark.parametrize(("said", "left"), [
    # Its first statement changes, or its last; or a retraction denies one.
    ("Actually the production region is now eu-north-1.",
     ["The staging region is us-east-2", "The production region is eu-north-1"]),
    ("Actually the staging region is now eu-central-1.",
     ["The production region is eu-west-1", "The staging region is eu-central-1"]),
])
def test_a_compound_fact_stored_before_changes_one_statement_at_a_time(
        memory: HierarchicalMemory, said: str, left: list[str]) -> None:
    memory.add_fact("The production region is eu-west-1 and the staging region is us-east-2",
                    "durable")
    _chat(memory, said)
    assert list(_core(memory)) == left


def test_a_compound_fact_stated_again_is_re_asserted_whole(memory: HierarchicalMemory
                                                           ) -> None:
    both = "The production region is eu-west-1 and the staging region is us-east-2"
    memory.add_fact(both, "durable")
    _chat(memory, both + ".")
    assert list(_core(memory)) == [both]


def test_a_retraction_takes_one_statement_of_a_compound_fact(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User lives in Lisbon and User works at Acme", "durable")
    _chat(memory, "I no longer work at Acme.")
    assert list(_core(memory)) == ["User lives in Lisbon"]


@pytest.mark.parametrize("said", ["I'm vegetarian, and I don't drink coffee.",
                                  "I am vegetarian and I do not drink coffee."])
def test_withdrawing_one_of_two_statements_keeps_a_negated_other(
        memory: HierarchicalMemory, said: str) -> None:
    reply = _chat(memory, said, "I'm not vegetarian anymore.", "Do I drink coffee?")[-1]
    kept = "User doesn't drink coffee" if "don't" in said else "User does not drink coffee"
    assert _core(memory) == {kept: "durable"}
    assert reply == f"(offline, quoting memory)\n- From core memory: {kept}"


def test_a_negated_statement_stored_whole_by_an_earlier_version_is_kept_when_the_other_goes(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User is vegetarian, and I don't drink coffee", "durable")
    _chat(memory, "I'm not vegetarian anymore.")
    # Kept as said, "I don't drink coffee" would say of no one who does not.
    assert _core(memory) == {"User doesn't drink coffee": "durable"}


@pytest.mark.parametrize(("older", "said", "now"), [
    ("User is vegetarian, and I don't drink coffee", "Sorry, I meant tea, not coffee.",
     {"User is vegetarian": "durable", "User doesn't drink tea": "durable"}),
    ("User's sister is vegan and I do not eat pork", "My sister isn't vegan anymore.",
     {"User does not eat pork": "durable"}),
])
def test_the_speaker_s_own_words_in_an_earlier_version_s_compound_fact_are_told_of_the_speaker(
        memory: HierarchicalMemory, older: str, said: str, now: dict[str, str]) -> None:
    memory.add_fact(older, "durable")
    _chat(memory, said)
    assert _core(memory) == now


def test_a_negated_statement_stored_by_an_earlier_version_is_not_stored_twice(
        memory: HierarchicalMemory) -> None:
    older = ["User: I don't drink coffee", "User is vegetarian, and I don't drink coffee",
             # the version before rewrote later clauses, but not "I don't"
             "User's name is Dana, User lives in Lisbon and I don't drink coffee"]
    for text in older:
        memory.add_fact(text, "durable")
    _chat(memory, "I don't drink coffee.", "I'm vegetarian, and I don't drink coffee.",
          "My name is Dana, I live in Lisbon and I don't drink coffee.")
    assert list(_core(memory)) == older


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
     ["User's wife is allergic to peanuts", "User is allergic to peanuts too"]),
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
    assert list(_core(memory)) == ["User: I can't eat gluten anymore",
                                   "User is no longer vegetarian"]
    assert replies[2] == "(offline) Nothing in core memory matched that, so nothing changed."
    assert "can't eat gluten" in replies[3]


@pytest.mark.parametrize("request_text", [
    "Forget that my locker code is 1234.", "My locker code is 1234, forget that.",
    "I'm not allergic to peanuts anymore, forget that."])
def test_a_request_to_forget_what_core_does_not_hold_stores_nothing(
        memory: HierarchicalMemory, request_text: str) -> None:
    reply = _chat(memory, request_text)[0]
    assert list(_core(memory)) == []
    assert reply == "(offline) Nothing in core memory matched that, so nothing changed."


def test_a_clause_about_someone_named_before_it_says_who(memory: HierarchicalMemory) -> None:
    _chat(memory, "My wife is Maria and she is allergic to cats.",
          "Initech is on the Pro plan and their SLA is 8 hours.",
          "My sister lives in Berlin and she works at Google.", "My sister moved to Paris.")
    assert list(_core(memory)) == [
        "User's wife is Maria", "User's wife is allergic to cats", "Initech is on the Pro plan",
        "Initech's SLA is 8 hours", "User's sister works at Google", "User's sister moved to Paris"]


def test_a_clause_after_a_name_is_about_whoever_bears_it(memory: HierarchicalMemory) -> None:
    # Read as the name's own, "he" stored "His name works at the Berlin office".
    _chat(memory, "His name is Tom Baker and he works at the Berlin office.",
          "His name is John Reed and his title is CTO.",
          "Her name is Ana and she is a nurse.",
          "My boss's name is Dana and she works at Acme.", "My boss works at Globex now.",
          "My sister's name is Eva and her phone is 555-0199.")
    assert list(_core(memory)) == [
        "His name is Tom Baker", "He works at the Berlin office", "His name is John Reed",
        "His title is CTO", "Her name is Ana", "She is a nurse", "User's boss's name is Dana",
        "User's boss works at Globex", "User's sister's name is Eva",
        "User's sister's phone is 555-0199"]


def test_an_answer_quotes_the_facts_about_whom_the_question_asks(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "My brother Tom lives in Berlin.", "My sister Ana lives in Madrid.",
                    "My parents live in Faro.", "I live in Porto.", "Where do I live?",
                    "Where does Tom live?")
    assert replies[4] == "(offline, quoting memory)\n- From core memory: User lives in Porto"
    assert replies[5] == ("(offline, quoting memory)\n- From core memory: User's brother Tom "
                          "lives in Berlin")


def test_a_move_answers_where_the_user_lives_without_the_relatives(
        memory: HierarchicalMemory) -> None:
    # "User moved to ..." had no subject read, so it did not count as the user's own fact.
    reply = _chat(memory, "My sister Ana lives in Boston.", "I moved to Seattle last year.",
                  "Where do I live?")[-1]
    assert reply == "(offline, quoting memory)\n- From core memory: User moved to Seattle last year"
    # Nor is the user's new address someone of the user's, left out beside the move.
    reply = _chat(memory, "I moved last weekend. My new address is 12 Elm Street, York.",
                  "What is my address?")[-1]
    assert "- From core memory: User's new address is 12 Elm Street, York" in reply.splitlines()


def test_an_answer_about_one_customer_leaves_out_the_others(
        memory: HierarchicalMemory) -> None:
    memory.archival_insert("Initech's SLA is 8 hours")  # as when core evicted it
    replies = _chat(memory, "Acme's SLA is 4 hours.", "Globex's SLA is 2 hours.",
                    "Umbrella's SLA is 1 hour.", "What is Initech's SLA?", "What SLAs do we have?")
    assert replies[3] == "(offline, quoting memory)\n- From archival: Initech's SLA is 8 hours"
    assert "From core memory: Acme's SLA is 4 hours" in replies[4]  # no one named


def test_a_withdrawal_of_a_fact_core_evicted_is_what_the_answer_quotes() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=12) as memory:
        replies = _chat(memory, "I'm vegetarian.", "I live in Lisbon.", "My bus is late.",
                        "My email is d@x.io.", "My name is Dana.", "I'm no longer vegetarian.",
                        "Am I vegetarian?")
        assert "User is vegetarian" not in _core(memory)  # evicted before the withdrawal
        assert replies[-1] == ("(offline, quoting memory)\n- From core memory: User is no "
                               "longer vegetarian")


@pytest.mark.parametrize(("said", "withdrawn", "left"), [
    ("I'm allergic to peanuts and shellfish.", "I'm not allergic to shellfish anymore.",
     ["User is allergic to peanuts"]),
    ("I'm allergic to peanuts, shellfish and eggs.", "I'm no longer allergic to peanuts.",
     ["User is allergic to shellfish and eggs"]),
    ("I like green tea and black coffee.", "I no longer like green tea.",
     ["User likes black coffee"]),
    ("I'm allergic to peanuts and shellfish.",
     "I'm not allergic to peanuts or shellfish anymore.", []),
    # No list of items: the fact goes whole rather than in mangled pieces.
    ("I'm allergic to peanuts, which is serious, and to shellfish.",
     "I'm not allergic to shellfish anymore.", []),
])
def test_withdrawing_items_of_a_list_keeps_the_others(
        memory: HierarchicalMemory, said: str, withdrawn: str, left: list[str]) -> None:
    _chat(memory, said)
    [kind] = _core(memory).values()
    _chat(memory, withdrawn)
    assert _core(memory) == dict.fromkeys(left, kind)  # as long-lived as the list was


def test_a_question_about_one_customer_quotes_no_other_customer_s_facts(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "Customer 8812 wants a refund for order 55-A.",
                    "Customer 9034 reported a damaged package on order 77-C.",
                    "Customer 8812 is on the Pro plan.", "What plan is customer 9034 on?",
                    "What plan is customer 8812 on?", "Which customer wanted the refund?")
    assert "8812" not in replies[3]
    assert replies[4] == ("(offline, quoting memory)\n- From core memory: Customer 8812 is on "
                          "the Pro plan")
    assert "Customer 8812 wants a refund for order 55-A" in replies[5]


def test_a_question_naming_an_acronym_quotes_the_customer_it_identifies(
        memory: HierarchicalMemory) -> None:
    # "SSO" read as a name, and "Customer" opening the fact as someone else's: the fact
    # was left out, and a fact sharing only "use" quoted in its place.
    replies = _chat(memory, "The alerts go to Opsgenie, and I don't use PagerDuty.",
                    "Customer 8812 is on the Enterprise plan, and they don't use SSO.",
                    "Does customer 8812 use SSO?")
    assert replies[2] == ("(offline, quoting memory)\n- From core memory: Customer 8812 is on "
                          "the Enterprise plan, and they don't use SSO")


def test_a_question_about_one_customer_quotes_no_other_customer_s_message(
        memory: HierarchicalMemory) -> None:
    # With no message about customer 9034 to rank first, the conversation's message about
    # customer 8812 was quoted in place of the core fact left out.
    reply = _chat(memory, "Customer 8812 is on the Pro plan.", "What plan is customer 9034 on?")[1]
    assert "8812" not in reply


@pytest.mark.parametrize(("fact", "question", "quoted"), [
    ("I have lived in Lisbon since 2019.", "Have I lived in Lisbon since 2020?",
     "User has lived in Lisbon since 2019"),
    ("My passport expires in May 2027.", "Does my passport expire before May 2026?",
     "User's passport expires in May 2027"),
    # A season, a weekday's short name, a day or a week of something: times, no things.
    ("I moved to Lisbon in summer 2019.", "Did I move to Lisbon in summer 2020?",
     "User moved to Lisbon in summer 2019"),
    ("My dentist appointment is on Fri 14 March.", "Is my dentist appointment on Fri 21 March?",
     "User's dentist appointment is on Fri 14 March"),
    ("My rent is due on day 5 of each month.", "Is my rent due on day 1?",
     "User's rent is due on day 5 of each month"),
    ("My lease ends in winter 2026.", "Does my lease end in winter 2025?",
     "User's lease ends in winter 2026"),
    # A value the question checks: the fact with another value is the answer.
    ("My flight leaves from gate 14.", "Does my flight leave from gate 12?",
     "User's flight leaves from gate 14"),
    ("The prod database listens on port 5432.", "Is the prod database on port 5433?",
     "The prod database listens on port 5432"),
    ("We are on version 2 of the API.", "Should we move to version 3 of the API?",
     "We are on version 2 of the API"),
])
def test_a_date_or_a_value_in_the_question_leaves_no_fact_out(
        memory: HierarchicalMemory, fact: str, question: str, quoted: str) -> None:
    reply = _chat(memory, fact, question)[1]
    assert f"- From core memory: {quoted}" in reply


@pytest.mark.parametrize(("said", "kept"), [
    ("I'm back, and I moved to Porto.", {"User moved to Porto": "durable"}),
    ("I'm sorry I missed the standup.", {"User: I missed the standup": "short-lived"}),
    # ... but one after a statement that says how it holds is kept with it, as one fact.
    ("I moved to Berlin but I'm back.", {"User moved to Berlin but User is back": "durable"}),
    ("I'm allergic to penicillin, but I'm not sure.",
     {"User is allergic to penicillin, but User is not sure": "durable"}),
])
def test_an_aside_joined_to_a_statement_leaves_only_the_statement_in_core(
        memory: HierarchicalMemory, said: str, kept: dict[str, str]) -> None:
    _chat(memory, said)
    assert _core(memory) == kept


def test_a_move_said_undone_leaves_the_home_in_core(memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "I moved to Berlin but I'm back.")
    assert _core(memory) == {"User lives in Lisbon": "durable",
                             "User moved to Berlin but User is back": "durable"}


def test_a_move_and_a_trip_back_from_elsewhere_replaces_the_home(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "I moved to Berlin and just got back from a trip to Rome.")
    assert _core(memory) == {
        "User moved to Berlin and just got back from a trip to Rome": "durable"}
