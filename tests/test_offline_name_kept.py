"""A fact of someone of the user's one has one of at a time, changed without their name,
keeps the name the replaced fact held: "My wife works at Globex." after "My wife Ana
works at Acme." stored "User's wife works at Globex" and retired the only fact naming
her, so "What is my wife's name?" no longer found Ana."""

from __future__ import annotations

from offline_helpers import chat, core_after, core_of

from tiermem.agent.offline_statements import core_changes
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.names_kept import with_the_name_kept


def test_the_wife_named_before_keeps_her_name_in_her_new_job() -> None:
    assert core_after("My wife Ana works at Acme.", "My wife works at Globex.") == [
        "User's wife Ana works at Globex"]


def test_her_name_is_still_the_answer() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My wife Ana works at Acme.", "My wife works at Globex.",
                     "What is my wife's name?")[2]
        assert list(core_of(memory)) == ["User's wife Ana works at Globex"]
    assert "Ana" in reply


def test_a_name_is_kept_whole_and_only_of_one_at_a_time() -> None:
    assert with_the_name_kept("User's mother lives in Porto",
                              ["User's mother Ana Silva lives in Rome"]) == (
        "User's mother Ana Silva lives in Porto")
    # a brother may be another brother; a name said anew is the one said
    assert with_the_name_kept("User's brother works at Acme",
                              ["User's brother Tom works at Globex"]) is None
    assert with_the_name_kept("User's wife Eva works at Acme",
                              ["User's wife Ana works at Globex"]) is None


def test_a_name_said_since_is_not_overruled_by_the_one_kept() -> None:
    # each stored "User's wife Ana works at Globex" beside the name Eva said after Ana
    assert core_after("My wife Ana works at Acme.", "My wife's name is Eva.",
                      "My wife works at Globex now.") == [
        "User's wife works at Globex", "User's wife's name is Eva"]
    # the same sentence naming her anew: "User's wife Ana works at Globex" beside "Eva"
    assert core_after("My wife Ana works at Acme.",
                      "My wife works at Globex, her name is Eva.") == [
        "User's wife works at Globex", "User's wife's name is Eva"]
    assert with_the_name_kept("User's wife works at Acme", ["User's wife Ana works at Globex"],
                              ["User's wife is Eva"]) is None
    assert with_the_name_kept("User's wife works at Acme", ["User's wife Ana works at Globex"],
                              ["User's wife is Ana"]) == "User's wife Ana works at Acme"


def test_a_name_in_full_is_of_the_same_one_and_kept_whole() -> None:
    # "Silva" read as a word telling another wife apart: both jobs stayed current
    assert core_after("My wife Ana Silva works at Acme.", "My wife works at Globex now.") == [
        "User's wife Ana Silva works at Globex"]
    # a brother may be another brother, named in full or not
    assert len(core_after("My brother Tom Silva works at Acme.",
                          "My brother works at Globex now.")) == 2


def test_a_boss_may_be_a_new_one_so_no_name_is_carried_over() -> None:
    # "My boss works at Globex now" stored "User's boss Ana works at Globex"
    assert core_after("My boss Ana works at Acme.", "My boss works at Globex now.") == [
        "User's boss works at Globex"]
    assert with_the_name_kept("User's landlord lives in Porto",
                              ["User's landlord Rui lives in Rome"]) is None
    assert with_the_name_kept("User's husband lives in Porto",
                              ["User's husband Rui lives in Rome"]) == (
        "User's husband Rui lives in Porto")


def test_the_name_is_kept_when_she_is_called_otherwise() -> None:
    # "mom" after "mother": her name, held only there, went to archival with the old fact
    retired, new = core_changes("My mom lives in Porto now.",
                                {"User's mother Ana lives in Rome": "durable"})
    assert retired == ["User's mother Ana lives in Rome"]
    assert list(new) == ["User's mom Ana lives in Porto"]


def test_a_name_given_otherwise_under_the_other_word_is_not_kept() -> None:
    _, new = core_changes("My mom lives in Porto now.",
                          {"User's mother Ana lives in Rome": "durable",
                           "User's mom's name is Eva": "durable"})
    assert "User's mom lives in Porto" in new
