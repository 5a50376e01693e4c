"""Forgetting a fact leaves the message it was learned from: answers do not quote that
message's statement of it back, and ``/forget`` and ``tiermem forget`` say the message is
kept and how to forget it too."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from memory_helpers import make_memory
from offline_helpers import chat, core_of
from rich.console import Console
from test_privacy_tool_errors import POLICY, POLICY_TEXT

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.agent.scripted import ScriptedModel, call, reply
from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.memory_tools import FORGOTTEN_KEY, ToolContext, memory_toolbox

SAID = "My gym is FitLife on 5th street"
FACT = "User's gym is FitLife on 5th street"


def _search(memory: HierarchicalMemory, query: str) -> list[dict[str, object]]:
    result = memory_toolbox().dispatch(
        "conversation_search", json.dumps({"query": query, "roles": ["user"]}),
        call_id="c", context=ToolContext(memory=memory, turn=memory.tick + 1))
    return list(json.loads(result.content)["results"])


def test_an_offline_answer_does_not_quote_the_message_of_a_forgotten_fact() -> None:
    with make_memory() as m:
        chat(m, SAID, "My dentist is Dr. Lee and my gym is Iron Works")
        assert m.forget(FACT).outcome == "matched"
        # Forgetting the fact left the user's message, which still says it.
        assert SAID in [h.text for h in m.recall_search("FitLife", roles=["user"]).hits]
        # The search result says which facts of the message were forgotten, the model's too.
        hits = {h["text"]: h for h in _search(m, "gym")}
        assert hits[SAID][FORGOTTEN_KEY] == [FACT]
        assert FORGOTTEN_KEY not in hits["My dentist is Dr. Lee and my gym is Iron Works"]
        now, before = chat(m, "What's my gym?", "What was my gym?")
        assert "FitLife" not in now and "Iron Works" in now
        # A question about the past read recall, and left the forgotten statement out.
        assert "FitLife" not in before
        assert "From our conversation" in before and "Iron Works" in before


def test_an_offline_answer_leaves_out_a_sentence_that_answers_only_with_what_was_forgotten(
) -> None:
    with make_memory() as m:
        chat(m, "My gym is FitLife on 5th street and my dentist is Dr. Lee")
        m.forget(FACT)
        assert list(core_of(m)) == ["User's dentist is Dr. Lee"]
        [reply] = chat(m, "What was my gym?")
        assert "FitLife" not in reply, reply


def test_the_fact_stated_again_is_stored_and_quoted_again() -> None:
    with make_memory() as m:
        chat(m, SAID)
        m.forget(FACT)
        [stored, answer] = chat(m, SAID + ".", "What's my gym?")
        assert FACT in core_of(m) and "core + " + FACT in stored
        assert "From core memory: " + FACT in answer
        # No longer forgotten: the first message says nothing the user forgot.
        assert not any(FORGOTTEN_KEY in h for h in _search(m, "FitLife"))


def _repl(m: HierarchicalMemory) -> tuple[ChatRepl, io.StringIO]:
    out = io.StringIO()
    return ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=300),
                    errors=io.StringIO()), out


def test_slash_forget_says_the_source_message_is_kept_and_how_to_forget_it() -> None:
    with make_memory() as m:
        repl, out = _repl(m)
        assert repl.run_piped([SAID, f"/forget {FACT}"]) == 0
        assert out.getvalue().splitlines()[-3:] == [
            "forgotten: 1 fact, 0 passages, 3 messages",
            "the message it was learned from is kept, and conversation search still finds "
            "what it says; to forget it too:",
            f"  /forget {SAID}"]
        repl, out = _repl(m)
        assert repl.run_piped([f"/forget {SAID}"]) == 0
        assert out.getvalue() == "forgotten: 0 facts, 0 passages, 1 message\n"
        assert m.recall_search("FitLife").total == 0
        # Forgotten with its message: nothing is left to say.
        repl, out = _repl(m)
        assert repl.run_piped(["My cat is Tom", "/forget --erase My cat is Tom"]) == 0
        assert out.getvalue().splitlines()[-1] == "erased: 1 fact, 0 passages, 4 messages"


def test_slash_forget_names_a_withheld_source_message_by_its_id_only() -> None:
    with make_memory(privacy=POLICY) as m:
        m.process_interaction("I take 20 mg of propranolol daily", "Noted.")
        [fact] = m.facts()
        repl, out = _repl(m)
        assert repl.run_piped([f"/forget {fact.text}"]) == 0
        said = out.getvalue()
        assert said.splitlines()[-1] == (
            "  message #1, which the privacy policy keeps out of /recall: /forget and its "
            "whole text as you know it")
        assert "mg" not in said and "propranolol" not in said


def test_cli_forget_says_the_source_message_is_kept_and_how_to_forget_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "agents" / "ada", embedder=HashingEmbedder()) as m:
        chat(m, SAID, "My cat's name is O'Malley")
        [cat] = [h.id for h in m.recall_search("O'Malley", roles=["user"]).hits]
    assert run(["forget", "--agent", "ada", FACT]) == 0
    captured = capsys.readouterr()
    assert captured.out == "forgotten: 1 fact, 0 passages, 3 messages (audit #1)\n"
    assert captured.err == (
        "tiermem: the message it was learned from is kept, and conversation search still "
        "finds what it says; to forget it too:\n"
        f"  tiermem forget --agent ada '{SAID}'\n")
    # A request read from standard input puts no message's text on a command line.
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(
        b"User's cat's name is O'Malley")))
    assert run(["forget", "--agent", "ada", "--erase", "-"]) == 0
    err = capsys.readouterr().err
    assert err.endswith(
        f"  message #{cat} (`tiermem chat --agent ada` with /recall shows it): tiermem forget "
        "--agent ada --erase - with its whole text on standard input\n")
    assert "Malley" not in err
    assert run(["forget", "--agent", "ada", "--json", SAID]) == 0
    assert json.loads(capsys.readouterr().out)["sources_kept"] == []


def test_an_erasure_takes_the_fact_s_key_out_of_the_open_memory_too() -> None:
    with make_memory() as m:
        chat(m, SAID)
        assert m.forget(FACT, erase=True).sources_kept
        # Nothing is left that knows the fact was forgotten, in the database or in the
        # memory open on it: the message is an ordinary message again, and the statement
        # is extracted again, as after a reopen.
        assert m.forgotten_norms.stated_in(SAID) == []
        assert not any(FORGOTTEN_KEY in h for h in _search(m, "FitLife"))
        assert m.process_interaction(SAID, "Noted.") != []


def test_cli_forget_names_a_source_message_the_agent_s_policy_withholds_by_its_id_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # `tiermem forget` opens the memory without the agent's policy.yaml: the hint must
    # still print nothing of a message that policy keeps out of /recall.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    home.mkdir(parents=True)
    (home / "policy.yaml").write_text(POLICY_TEXT)
    with HierarchicalMemory(home, embedder=HashingEmbedder(), privacy=POLICY) as m:
        m.process_interaction("My gym is FitLife. I take 20 mg of propranolol daily", "Noted.")
        assert "User's gym is FitLife" in [f.text for f in m.facts()]
    assert run(["forget", "--agent", "ada", "User's gym is FitLife"]) == 0
    err = capsys.readouterr().err
    assert "  message #1, which the privacy policy keeps out of `tiermem chat --agent ada` " \
        "with /recall: tiermem forget --agent ada - with its whole text on standard input " \
        "as you know it" in err
    assert "mg" not in err and "propranolol" not in err


@pytest.mark.parametrize("said", ["My gym is \x1b[31mIron Works\x1b[0m",
                                  "My gym is Iron Works\rand my cat is Tom",
                                  "My gym is Iron Works\u2028My cat is Tom"])
def test_a_source_message_with_a_control_character_is_named_by_its_id(said: str) -> None:
    # Not one line the user could type: printed, it would colour or overwrite the terminal
    # line, or break the command in two.
    with make_memory() as m:
        m.process_interaction(said, "Noted.")
        [fact] = [f.text for f in m.facts() if "gym" in f.text]
        repl, out = _repl(m)
        assert repl.run_piped([f"/forget {fact}"]) == 0
        shown = out.getvalue().splitlines()
        hint = shown.index("  message #1 (/recall shows it): /forget and its whole text")
        # The cat, learned from the same message, goes with it too.
        assert shown[hint + 1:] == (["    (it also takes the 1 other fact learned from it)"]
                                    if "cat" in said else [])


@pytest.mark.parametrize("with_policy", [True, False])
def test_cli_forget_unmatched_says_core_shows_no_withheld_text_under_a_policy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        with_policy: bool,
) -> None:
    # /core and /recall show a withheld fact as [withheld: CATEGORY]: pointed at them for
    # the stored wording, the user must be told to give a withheld item's text as known.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    home.mkdir(parents=True)
    if with_policy:
        (home / "policy.yaml").write_text(POLICY_TEXT)
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        m.process_interaction("My gym is FitLife", "Noted.")
    assert run(["forget", "--agent", "ada", "User takes propranolol"]) == 1
    err = capsys.readouterr().err
    assert "/core shows how it was stored" in err
    assert ("not what the privacy policy withholds" in err) is with_policy


def _model_turns(m: HierarchicalMemory, *turns: tuple[str, str | None]) -> None:
    """Each (message, fact) said to a model that stores the fact in its own words."""
    steps = [step for _, fact in turns for step in (
        [call("core_memory_append", content=fact, request_heartbeat=True)] if fact else [])
        + [reply("Noted.")]]
    with ScriptedModel(steps) as model:
        agent = Agent(m, model)
        for message, _ in turns:
            agent.step(message)


def test_a_fact_a_model_stored_in_its_own_words_is_named_in_the_message_it_came_from(
) -> None:
    with make_memory() as m:
        _model_turns(m, ("My gym is FitLife", "User works out at FitLife"),
                     ("Is FitLife open on Sundays?", None),
                     ("My sister goes to FitLife too", None),
                     ("Hello there", "User's birthday is May 3"))
        assert m.forget("User works out at FitLife").outcome == "matched"
        assert m.forget("User's birthday is May 3").outcome == "matched"
        hits = {h["text"]: h for h in _search(m, "FitLife")}
        assert hits["My gym is FitLife"][FORGOTTEN_KEY] == ["User works out at FitLife"]
        # Messages it was not learned from say nothing of it, a statement naming the gym
        # included.
        assert FORGOTTEN_KEY not in hits["Is FitLife open on Sundays?"]
        assert FORGOTTEN_KEY not in hits["My sister goes to FitLife too"]
        # A fact learned in a turn whose message does not say it is not named there: the
        # note would tell the model what the user forgot.
        [hello] = _search(m, "Hello")
        assert FORGOTTEN_KEY not in hello and "May" not in json.dumps(hello)
        # Stated again explicitly, it is no longer forgotten.
        m.add_fact("User works out at FitLife")
        assert not any(FORGOTTEN_KEY in h for h in _search(m, "FitLife"))


def test_an_offline_answer_quotes_the_statements_beside_a_forgotten_one_without_it() -> None:
    with make_memory() as m:
        chat(m, "My gym is FitLife and my dentist is Dr. Lee")
        m.forget("User's gym is FitLife")
        [before] = chat(m, "Who was my dentist?")
        assert "Dr. Lee" in before and "FitLife" not in before, before
    with make_memory() as m:
        # A model stored only the gym: the dentist is in the message alone.
        _model_turns(m, ("My gym is FitLife and my dentist is Dr. Lee",
                         "User's gym is FitLife"))
        m.forget("User's gym is FitLife")
        dentist, gym = chat(m, "Who is my dentist?", "What is my gym?")
        assert dentist.endswith("): My dentist is Dr. Lee"), dentist
        assert "FitLife" not in gym


def test_an_offline_answer_quotes_no_sentence_saying_a_fact_a_model_worded_and_forgot(
) -> None:
    # The model's words ("works out at") are not the message's ("My gym is"): the sentence
    # is known by what it names, as the search result's list of forgotten facts finds it.
    with make_memory() as m:
        _model_turns(m, ("My gym is FitLife", "User works out at FitLife"),
                     ("My gym is Iron Works and my dentist is Dr. Lee",
                      "User works out at Iron Works"))
        assert m.forget("User works out at FitLife").outcome == "matched"
        assert m.forget("User works out at Iron Works").outcome == "matched"
        was, dentist = chat(m, "What was my gym?", "Who was my dentist?")
        assert "FitLife" not in was and "Iron Works" not in was, was
        assert dentist.endswith("): My dentist is Dr. Lee"), dentist


def test_a_model_worded_forgotten_fact_the_policy_withholds_is_not_named(
        tmp_path: Path) -> None:
    # Stored before the policy was set: the fact holds words ("20 mg") the message shown
    # does not, and the note would show the model what the policy withholds.
    said, fact = "I take 20 propranolol tablets daily", "User takes 20 mg of propranolol daily"
    with make_memory(tmp_path / "a") as m:
        _model_turns(m, (said, fact))
        assert m.forget(fact).outcome == "matched"
        [before] = _search(m, "propranolol tablets")
        assert before[FORGOTTEN_KEY] == [fact]
    with make_memory(tmp_path / "a", privacy=POLICY) as m:
        [hit] = _search(m, "propranolol tablets")
        assert hit["text"] == said and FORGOTTEN_KEY not in hit and "mg" not in json.dumps(hit)


@pytest.mark.parametrize(("said", "fact", "unsaid"), [
    # Only the light verb and how often are shared: the note would tell the model the drug.
    ("I take vitamins daily.", "User takes propranolol daily", "propranolol"),
    ("I'm allergic to peanuts.", "User is allergic to shellfish", "shellfish"),
    ("I'm allergic to peanuts.", "User is allergic to peanuts and shellfish", "shellfish"),
    # Worded otherwise, the same drug: the message still says it.
    ("I take propranolol every morning.", "User takes propranolol daily", None),
])
def test_a_forgotten_fact_is_named_only_beside_a_message_stating_what_sets_it_apart(
        said: str, fact: str, unsaid: str | None) -> None:
    with make_memory() as m:
        _model_turns(m, (said, fact))
        assert m.forget(fact).outcome == "matched"
        [hit] = _search(m, said.split()[-2])
        assert hit["text"] == said
        if unsaid is None:
            assert hit[FORGOTTEN_KEY] == [fact]
        else:
            assert FORGOTTEN_KEY not in hit and unsaid not in json.dumps(hit), hit


def test_a_statement_of_someone_else_beside_a_forgotten_fact_is_still_quoted() -> None:
    with make_memory() as m:
        _model_turns(m, ("My gym is FitLife. My sister goes to FitLife too.",
                         "User works out at FitLife"))
        assert m.forget("User works out at FitLife").outcome == "matched"
        sister, mine = chat(m, "Where does my sister go?", "What is my gym?")
        assert sister.endswith("): My sister goes to FitLife too."), sister
        assert "FitLife" not in mine, mine


@pytest.mark.parametrize(("said", "fact", "word", "question"), [
    # The model's verb or noun for the same thing: named/called, attends/goes, mother/mom.
    ("I have a dog called Rex.", "User has a dog named Rex", "Rex", "What is my dog called?"),
    ("My daughter Mia goes to Lincoln Elementary.",
     "User's daughter Mia attends Lincoln Elementary", "Lincoln",
     "Where does my daughter go to school?"),
    ("My mom has dementia.", "User's mother has dementia", "dementia",
     "What does my mom have?"),
    # Said across sentences: none of them is quoted.
    ("I have a dog. His name is Rex.", "User has a dog named Rex", "Rex",
     "What is my dog called?"),
    ("I work at Acme. I'm a nurse there.", "User is a nurse at Acme", "Acme",
     "Where do I work?"),
    ("I take propranolol. 40 mg daily.", "User takes 40 mg propranolol daily", "propranolol",
     "What medication do I take?"),
])
def test_a_message_worded_otherwise_than_a_forgotten_fact_still_says_it(
        said: str, fact: str, word: str, question: str) -> None:
    with make_memory() as m:
        _model_turns(m, (said, fact))
        assert m.forget(fact).outcome == "matched"
        [hit] = _search(m, word)
        assert hit["text"] == said and hit[FORGOTTEN_KEY] == [fact], hit
        [answer] = chat(m, question)
        assert word not in answer, answer



def test_the_hint_says_what_else_forgetting_the_source_message_takes() -> None:
    with make_memory() as m:
        said = f"{SAID} and my dentist is Dr. Lee"
        repl, out = _repl(m)
        assert repl.run_piped([said, f"/forget {FACT}"]) == 0
        # The dentist was not asked for: the command that takes the message takes it too.
        assert out.getvalue().splitlines()[-2:] == [
            f"  /forget {said}", "    (it also takes the 1 other fact learned from it)"]
        assert list(core_of(m)) == ["User's dentist is Dr. Lee"]
