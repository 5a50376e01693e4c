"""Whose a retraction is: the offline policy retires only facts of the one it is about."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.agent.offline_answers import NOTHING_FOUND
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.asked_owners import about_another
from tiermem.memory.text.owners import Owner, may_be_one, owner_asked, owner_of


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "retraction", "left"), [
    # The sister's word was one concept of three denied: the user's fact held the other two,
    # and lost its shellfish.
    (["I'm allergic to peanuts and shellfish."], "My sister is not allergic to shellfish anymore.",
     ["User is allergic to peanuts and shellfish",
      "User's sister is not allergic to shellfish anymore"]),
    (["My sister is allergic to shellfish."], "I'm not allergic to shellfish anymore.",
     ["User's sister is allergic to shellfish", "User is not allergic to shellfish anymore"]),
    (["I'm allergic to shellfish."], "Priya is not allergic to shellfish anymore.",
     ["User is allergic to shellfish", "Priya is not allergic to shellfish anymore"]),
    # One of the user's: the same relation, and a name given only when it agrees.
    (["My sister Ana is vegan.", "My sister Eva is vegan."], "My sister Eva isn't vegan anymore.",
     ["User's sister Ana is vegan"]),
    (["My sister is allergic to peanuts and shellfish."],
     "My sister is not allergic to shellfish anymore.", ["User's sister is allergic to peanuts"]),
    (["My brother Tom lives in Berlin.", "I live in Berlin."],
     "Tom doesn't live in Berlin anymore.", ["User lives in Berlin"]),
    # Of the user's own, or said of several, or of a thing the user's fact names: as before.
    (["I work at Acme.", "My wife works at Acme."], "I no longer work at Acme.",
     ["User's wife works at Acme"]),
    (["My phone number is 555-0101."], "My phone number is no longer 555-0101.", []),
    (["I live in Lisbon."], "My wife and I don't live in Lisbon anymore.", []),
    (["My favourite food is sushi."], "Sushi isn't my favourite anymore.", []),
    # The user's own tie to one of theirs: by the name the fact says they go by, or had.
    (["My dentist is Dr. Silva.", "My therapist is Dr. Chen."], "I no longer see Dr. Silva.",
     ["User's therapist is Dr. Chen"]),
    (["My dog is named Rex."], "I don't have a dog anymore.", []),
    (["My sister has a dog."], "I don't have a dog anymore.",
     ["User's sister has a dog", "User doesn't have a dog anymore"]),
    (["My sister lives in Madrid."], "I don't visit my sister in Madrid anymore.",
     ["User's sister lives in Madrid", "User doesn't visit User's sister in Madrid anymore"]),
    # A belief about someone of the user's is theirs: the user's own retraction leaves it.
    (["I think my wife is vegan."], "My wife isn't vegan anymore.", []),
    (["I think my wife is vegan."], "I'm not vegan anymore.",
     ["User: I think my wife is vegan", "User is not vegan anymore"]),
])
def test_a_retraction_retires_only_facts_of_the_one_it_is_about(
        memory: HierarchicalMemory, said: list[str], retraction: str, left: list[str]) -> None:
    chat(memory, *said, retraction)
    assert list(core_of(memory)) == left


@pytest.mark.parametrize(("said", "left"), [
    (["My sister is vegan.", "My sister is pregnant."],
     ["User's sister is vegan", "User's sister is pregnant"]),
    (["My partner is allergic to cats.", "My partner is vegan."],
     ["User's partner is allergic to cats", "User's partner is vegan"]),
    # A withdrawal that matches nothing is stored as said, beside her other states.
    (["My sister is vegan.", "My sister is not pregnant anymore."],
     ["User's sister is vegan", "User's sister is not pregnant anymore"]),
    # Said as a change, the new state ends the one before.
    (["My sister is vegan.", "My sister is vegetarian now."], ["User's sister is vegetarian"]),
])
def test_a_relative_s_new_state_keeps_the_others_unless_said_as_a_change(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left


@pytest.mark.parametrize(("said", "left"), [
    # Nothing says the partner is not the boyfriend, nor Tom another brother Tom.
    (["My boyfriend works at Acme.", "My partner works at Globex now."],
     ["User's partner works at Globex"]),
    (["My partner works at Acme.", "My girlfriend works at Globex."],
     ["User's girlfriend works at Globex"]),
    (["My older brother Tom lives in Berlin.", "My brother Tom lives in Madrid now."],
     ["User's brother Tom lives in Madrid"]),
    (["My brother Tom lives in Berlin.", "My older brother Tom lives in Madrid now."],
     ["User's older brother Tom lives in Madrid"]),
    # Another relation, name or word about them says another person.
    (["My son works at Acme.", "My daughter works at Globex."],
     ["User's son works at Acme", "User's daughter works at Globex"]),
    (["My brother Tom lives in Berlin.", "My brother Sam lives in Madrid now."],
     ["User's brother Tom lives in Berlin", "User's brother Sam lives in Madrid"]),
    (["My older brother lives in Berlin.", "My younger brother lives in Madrid."],
     ["User's older brother lives in Berlin", "User's younger brother lives in Madrid"]),
    (["My older brother lives in Berlin.", "My brother lives in Madrid now."],
     ["User's older brother lives in Berlin", "User's brother lives in Madrid"]),
    # Said as a change, whom the user is with now replaces whom they were with, by any
    # word one of which takes in the other: a partner may be a spouse.
    (["My boyfriend is Tom.", "My partner is Sam now."], ["User's partner is Sam"]),
    (["My wife is Ana.", "My new partner is Sam."], ["User's new partner is Sam"]),
    (["My husband is Tom.", "Actually, my partner is Sam."], ["User's partner is Sam"]),
    (["My partner is Tom.", "My girlfriend is Ana now."], ["User's girlfriend is Ana"]),
    (["My wife is Ana.", "My spouse is Sam now."], ["User's spouse is Sam"]),
    # Said plainly, a partner may be one at work; and two words neither of which takes in
    # the other, or a state, or a partner in business, name someone else.
    (["My boyfriend is Tom.", "My partner is Sam."],
     ["User's boyfriend is Tom", "User's partner is Sam"]),
    (["My wife is Ana.", "My husband is Tom now."],
     ["User's wife is Ana", "User's husband is Tom"]),
    (["My boyfriend is Tom.", "My partner is vegan now."],
     ["User's boyfriend is Tom", "User's partner is vegan"]),
    # A state said as a change, or a name, says how someone is, not who: both stay.
    (["My partner is Tom.", "My partner is vegan now."],
     ["User's partner is Tom", "User's partner is vegan"]),
    (["My sister is a nurse.", "My sister is Ana now."],
     ["User's sister is a nurse", "User's sister is Ana"]),
    # An age beside a name says how old someone is, not who: "5" leaves "Leo", as "Leo"
    # leaves "5"; an age gives way to an age.
    (["My son is Leo.", "My son is 5."], ["User's son is Leo", "User's son is 5"]),
    (["My son is 5.", "My son is Leo."], ["User's son is 5", "User's son is Leo"]),
    (["My wife is Ana.", "My wife is 34 now."], ["User's wife is Ana", "User's wife is 34"]),
    (["My son is Leo.", "My son is 5.", "My son is 6 now."],
     ["User's son is Leo", "User's son is 6"]),
    # A height is read as an age is: how tall someone is, not who.
    (["My son is Leo.", "My son is 5'11\" now."], ["User's son is Leo", "User's son is 5'11\""]),
    (["My daughter is 150 cm.", "My daughter is Mia now."],
     ["User's daughter is 150 cm", "User's daughter is Mia"]),
    # A second name, said plainly, of those one may have several of is one more of them;
    # one the user has one of at a time, or said as a change, or respelt, is the new name.
    (["My brother is Tom.", "My brother is Sam."],
     ["User's brother is Tom", "User's brother is Sam"]),
    (["My friend is Tom.", "My friend is Sam."], ["User's friend is Tom", "User's friend is Sam"]),
    (["My cousin's name is Ana.", "My cousin's name is Eva."],
     ["User's cousin's name is Ana", "User's cousin's name is Eva"]),
    (["My brother is Tom.", "My brother is Sam now."], ["User's brother is Sam"]),
    (["My brother is Tom.", "My brother is Tom Smith."], ["User's brother is Tom Smith"]),
    (["My son is Jon.", "My son is John."], ["User's son is John"]),
    (["My wife is Ana.", "My wife is Eva."], ["User's wife is Eva"]),
    (["My mother is Ana.", "My mother is Eva."], ["User's mother is Eva"]),
    (["My wife is Ana.", "My business partner is Sam now."],
     ["User's wife is Ana", "User's business partner is Sam"]),
    # "Also" after the name adds a value of his, as it does without a name.
    (["My brother Tom lives in Berlin.", "My brother Tom also lives in Madrid."],
     ["User's brother Tom lives in Berlin", "User's brother Tom also lives in Madrid"]),
    (["My older brother Tom lives in Berlin.", "My brother Tom also lives in Madrid."],
     ["User's older brother Tom lives in Berlin", "User's brother Tom also lives in Madrid"]),
])
def test_one_of_the_user_s_named_in_another_way_has_one_value(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left


@pytest.mark.parametrize(("said", "left"), [
    (["My boyfriend works at Acme.", "My girlfriend works at Initech.",
      "My partner works at Globex now."],
     ["User's boyfriend works at Acme", "User's girlfriend works at Initech",
      "User's partner works at Globex"]),
    # Which of two the new one replaces, nothing says: both stay.
    (["My boyfriend is Tom.", "My girlfriend is Ana.", "My partner is Sam now."],
     ["User's boyfriend is Tom", "User's girlfriend is Ana", "User's partner is Sam"]),
    (["My son lives in Lyon.", "My daughter lives in Nice.", "My kid lives in Paris now."],
     ["User's son lives in Lyon", "User's daughter lives in Nice", "User's kid lives in Paris"]),
])
def test_a_word_that_may_name_either_of_two_of_the_user_s_changes_neither(
        memory: HierarchicalMemory, said: list[str], left: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == left


@pytest.mark.parametrize(("text", "owner"), [
    ("I'm not allergic to shellfish anymore.", Owner(True)),
    ("Forget that I like jazz.", Owner(True)),
    ("Actually, my older sister is no longer vegan.", Owner(True, ("sister",))),
    ("My sister's husband is not a nurse anymore.", Owner(True, ("sister", "husband"))),
    ("User's sister Ana lives in Madrid", Owner(True, ("sister",), "ana")),
    ("User's phone number is 555-0101", Owner(True)),
    ("Marco Rossi is no longer the incident commander.", Owner(False, name="marco rossi")),
    ("The database is no longer overloaded.", None),
    ("Customer 8812 is on the Pro plan", None),
    ("She is not vegan anymore.", None),
    ("My wife and I don't live in Lisbon anymore.", None),
])
def test_whom_a_statement_is_about(text: str, owner: Owner | None) -> None:
    assert owner_of(text) == owner


def test_the_user_is_no_one_named_the_user_s_text_does_not_name() -> None:
    priya = owner_of("Priya is on call this week")
    assert not may_be_one(owner_of("I'm not on call anymore."), priya)
    assert may_be_one(owner_of("I no longer cover for Priya."), priya)
    assert may_be_one(owner_of("My sister is on call."), priya)  # she may be Priya
    assert not may_be_one(owner_of("My sister Ana is on call."), priya)


@pytest.mark.parametrize(("said", "mine", "theirs"), [
    (["My sister is allergic to shellfish.", "I'm allergic to peanuts.",
      "My sister is not allergic to shellfish anymore."],
     "Am I allergic to shellfish?", "Is my sister allergic to shellfish?"),
    (["I'm allergic to shellfish.", "My sister is allergic to peanuts.",
      "I'm not allergic to shellfish anymore."],
     "Is my sister allergic to shellfish?", "Am I allergic to shellfish?"),
])
def test_a_withdrawal_answers_only_a_question_about_the_one_it_withdraws_of(
        memory: HierarchicalMemory, said: list[str], mine: str, theirs: str) -> None:
    # The withdrawal denied what the question asked, whoever of: "Am I allergic to
    # shellfish?" quoted the sister's as if the user had withdrawn it.
    other, own = chat(memory, *said, mine, theirs)[-2:]
    assert "anymore" not in other
    assert own.endswith(f"): {said[-1]}")


@pytest.mark.parametrize(("question", "owner"), [
    ("Am I allergic to shellfish?", Owner(True)),
    ("Is my sister allergic to shellfish?", Owner(True, ("sister",))),
    ("What is my brother Tom's job?", Owner(True, ("brother",), "tom")),
    ("Is Priya on call?", Owner(False, name="priya")),
    ("Who is the incident commander?", None),
])
def test_whom_a_question_asks_about(question: str, owner: Owner | None) -> None:
    assert owner_asked(question) == owner


_OURS = ["I live in Lisbon.", "I'm allergic to shellfish.", "My sister is allergic to cats."]


@pytest.mark.parametrize(("said", "question", "quoted"), [
    # Another person's fact, in core or as said, is no answer about someone.
    (_OURS, "Is my brother allergic to shellfish?", []),
    (_OURS, "Where does my sister live?", ["User's sister is allergic to cats"]),
    (_OURS, "Am I allergic to cats?", ["User is allergic to shellfish"]),
    (_OURS[2:], "Am I allergic to cats?", []),
    # Nor is what was retired of another person's something of the user's retired.
    (["My sister is vegan.", "My sister is vegetarian now."], "Am I vegan?", []),
    # One of a relation the question names, or of someone the user may mean unnamed, or
    # the user's for a question naming someone, which may be a thing of the user's.
    (_OURS, "Do I have a sister?", ["User's sister is allergic to cats"]),
    (["Acme is on the Enterprise plan."], "What plan am I on?",
     ["Acme is on the Enterprise plan"]),
    (["My Wi-Fi password is hunter2."], "What is the Wi-Fi password at Acme?",
     ["User's Wi-Fi password is hunter2"]),
    # A word for several takes in each of them, and the whole family everyone related;
    # one of them is not the others.
    (["My mother lives in Porto."], "Where do my parents live?",
     ["User's mother lives in Porto"]),
    (["My son Leo is allergic to peanuts."], "Is anyone in my family allergic to peanuts?",
     ["User's son Leo is allergic to peanuts"]),
    (["My brother Tom lives in Berlin."], "Where do my siblings live?",
     ["User's brother Tom lives in Berlin"]),
    (["My brother Tom is allergic to cats."], "Is my sister allergic to cats?", []),
    (["My father lives in Faro."], "Where does my mother live?", []),
    # A question that speaks of the user as well as someone of theirs asks of the user's.
    (["My cholesterol is 240."], "What did my doctor say about my cholesterol?",
     ["User's cholesterol is 240"]),
    (["My rent is 900 euros."], "How much rent do I pay my landlord?",
     ["User's rent is 900 euros"]),
    # Someone of the user's may be what the user asks about having; not when it is theirs.
    (["My wife Maria is the emergency contact."], "Who is my emergency contact?",
     ["User's wife Maria is the emergency contact"]),
    (["My sister's phone number is 555-0101."], "What is my phone number?", []),
])
def test_an_answer_about_someone_quotes_no_one_else_s_facts(
        memory: HierarchicalMemory, said: list[str], question: str, quoted: list[str]) -> None:
    reply = chat(memory, *said, question)[-1]
    assert reply == ("\n".join(["(offline, quoting memory)",
                                *(f"- From core memory: {fact}" for fact in quoted)])
                     if quoted else NOTHING_FOUND)


def test_an_archived_fact_of_another_person_is_no_answer_about_someone(
        memory: HierarchicalMemory) -> None:
    memory.archival_insert("User is allergic to shellfish")  # as when core evicted it
    memory.archival_insert("User's brother is allergic to peanuts")
    assert chat(memory, "Is my brother allergic to shellfish?")[-1] == (
        "(offline, quoting memory)\n- From archival: User's brother is allergic to peanuts")


@pytest.mark.parametrize(("question", "text", "another"), [
    # one statement of the sentence is about the one asked of: the sentence may answer
    ("Who was my dentist?", "My gym is FitLife and my dentist is Dr. Lee", False),
    ("What was my gym?", "My dentist is Dr. Lee and my gym is Iron Works", False),
    ("Where do I live?", "My sister lives in Madrid; I live in Lisbon", False),
    # every statement is of someone else
    ("Am I allergic to cats?", "My sister is allergic to cats and my brother is too", True),
    ("Is my brother allergic to shellfish?", "User is allergic to shellfish", True),
    # a word for several takes in each of them; one of them is in the group a fact names
    ("Where do my parents live?", "User's father lives in Faro", False),
    ("Where does my sister live?", "User's siblings live in Faro", False),
    ("When does my pet need the vet?", "User's dog Rex needs a vet visit", False),
    ("Is anyone in my family allergic to cats?", "User's boss is allergic to cats", True),
    ("Is my sister allergic to cats?", "User's brother is allergic to cats", True),
    # the question speaks of the user too: the user's own may answer it
    ("When is my appointment with my dentist?", "User's appointment is on Friday", False),
    ("Is my brother allergic to shellfish like me?", "User is allergic to shellfish", False),
    ("Is my brother's dog allergic to chicken?", "User is allergic to chicken", True),
])
def test_a_sentence_is_of_another_only_when_each_of_its_statements_is(
        question: str, text: str, another: bool) -> None:
    assert about_another(question, text) is another


@pytest.mark.parametrize(("one", "other", "same"), [
    # Words for the son and the daughter (the brother and the sister...) are never one
    # another; a word that says no sex may be either, and "mom" is the mother.
    ("My son has asthma.", "User's daughter has asthma", False),
    ("My girlfriend lives in Porto.", "User's boyfriend lives in Porto", False),
    ("My grandson is in Lisbon.", "User's granddaughter is in Lisbon", False),
    ("My brother is a nurse.", "User's sister is a nurse", False),
    ("My kid has asthma.", "User's daughter has asthma", True),
    ("My kids have asthma.", "User's son has asthma", True),
    ("My mom has dementia.", "User's mother has dementia", True),
    ("My daughter Mia has asthma.", "User's daughter has asthma", True),
    # The user's own sentence of having them, as of having one a word for them takes in.
    ("I don't have a son anymore.", "User's kid goes to Lincoln Elementary", True),
    ("I don't have kids anymore.", "User's son goes to Lincoln Elementary", True),
    ("I don't have a boyfriend anymore.", "User's partner works at Acme", True),
    ("I don't have a girlfriend anymore.", "User's boyfriend works at Acme", False),
])
def test_gendered_relations_are_one_only_with_their_own_or_a_neutral_word(
        one: str, other: str, same: bool) -> None:
    assert may_be_one(owner_of(one), owner_of(other)) is same


def test_a_son_s_retraction_leaves_the_daughter_s_fact(memory: HierarchicalMemory) -> None:
    chat(memory, "My daughter is allergic to peanuts.", "My son is allergic to cats.",
         "My son is not allergic to peanuts anymore.")
    assert "User's daughter is allergic to peanuts" in core_of(memory)
    assert about_another("Is my son allergic to peanuts?",
                         "User's daughter is allergic to peanuts")


@pytest.mark.parametrize(("text", "owner"), [
    # A capital after the verb names a place or a thing, not the one the sentence is about.
    ("My sister goes to FitLife", Owner(True, ("sister",))),
    ("My sister went to Lisbon", Owner(True, ("sister",))),
    ("My sister drives a Tesla", Owner(True, ("sister",))),
    ("My brother Tom goes to FitLife", Owner(True, ("brother",), "tom")),
    ("My older brother Tom is a chef", Owner(True, ("brother",), "tom")),
    ("Mia goes to Lincoln Elementary", Owner(False, name="mia")),
])
def test_owner_of_reads_a_name_only_beside_the_relation(text: str, owner: Owner) -> None:
    assert owner_of(text) == owner


def test_a_place_after_the_verb_is_no_name_another_name_disagrees_with() -> None:
    # The sister who goes to FitLife may be the one named Ana.
    assert may_be_one(owner_of("My sister goes to FitLife"),
                      owner_of("User's sister Ana goes to FitLife"))


@pytest.mark.parametrize(("said", "question", "reply"), [
    # Quoted as the speaker's words ("User: I think ..."), the belief is of the wife still.
    ("I think my wife is vegan.", "Is my wife vegan?",
     "- From core memory: User: I think my wife is vegan"),
    ("I think my wife is vegan.", "What do you know about my wife?",
     "- From core memory: User: I think my wife is vegan"),
    ("I'm pretty sure my brother Tom lives in Berlin.", "Where does my brother live?",
     "- From core memory: User is pretty sure User's brother Tom lives in Berlin"),
    ("I don't think my wife is vegan.", "Is my wife vegan?",
     "- From core memory: User doesn't think User's wife is vegan"),
    ("My wife is vegan.", "Is my wife vegan?", "- From core memory: User's wife is vegan"),
])
def test_a_belief_about_someone_of_the_user_s_answers_a_question_about_them(
        memory: HierarchicalMemory, said: str, question: str, reply: str) -> None:
    assert chat(memory, said, question)[-1] == f"(offline, quoting memory)\n{reply}"


def test_a_belief_about_someone_of_the_user_s_says_nothing_of_the_user(
        memory: HierarchicalMemory) -> None:
    assert chat(memory, "I think my wife is vegan.", "Am I vegan?")[-1] == NOTHING_FOUND


@pytest.mark.parametrize(("said", "question"), [
    ("I think my boss said I'm fired.", "Am I fired?"),
    ("I think my wife thinks I'm vegan.", "Am I vegan?"),
])
def test_a_belief_that_speaks_of_the_user_too_answers_a_question_about_them(
        memory: HierarchicalMemory, said: str, question: str) -> None:
    quoted = "User: " + said.rstrip(".")
    assert chat(memory, said, question)[-1] == (
        f"(offline, quoting memory)\n- From core memory: {quoted}")


@pytest.mark.parametrize(("text", "owner"), [
    ("User: I think my wife is vegan", Owner(True, ("wife",))),
    ("I don't think my sister Ana is vegan.", Owner(True, ("sister",), "ana")),
    ("I heard Priya is on call.", Owner(False, name="priya")),
    # The clause after the belief names no one: the speaker's, as any first person.
    ("User: I think the alerts go to Opsgenie", Owner(True)),
    ("I think I'm allergic to cats.", Owner(True)),
    # The clause after the belief speaks of the speaker too: theirs still.
    ("I think my boss said I'm fired.", Owner(True)),
    ("User: I think my wife thinks I'm vegan", Owner(True)),
    ("User is pretty sure Priya is covering for User", Owner(True)),
])
def test_a_belief_is_of_the_one_the_clause_after_it_is_about(text: str, owner: Owner) -> None:
    assert owner_of(text) == owner
