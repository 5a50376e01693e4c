"""A deterministic privacy policy on every write path (retention) and read path (recall)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.agent.context import ContextWindow
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.scripted import ScriptedModel, call, reply
from tiermem.agent.system_message import render_core
from tiermem.cli import run
from tiermem.memory.errors import InvalidConfigError, InvalidInputError, RetentionDroppedError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.privacy import parse_policy
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

POLICY = parse_policy("""
rules:
  - rule_id: diagnosis
    category: medical
    content_substrings: [diagnosed, insulin]
  - rule_id: card
    category: financial
    regex: '\\b\\d{4} \\d{4} \\d{4} \\d{4}\\b'
    metadata_fields: [card_number]
retention:
  policy_rules:
    "Do not keep anything about my pets.":
      - {rule_id: pets, category: pets, content_substrings: [cat, dog]}
""")


def every_stored_text(memory: HierarchicalMemory) -> str:
    """Everything the memory holds, as one string to search for a secret."""
    return json.dumps(memory.snapshot(include_vectors=False), default=str)


def test_a_dropped_fact_reaches_no_tier_and_the_error_says_why() -> None:
    with make_memory(privacy=POLICY) as memory:
        with pytest.raises(RetentionDroppedError, match="medical") as caught:
            memory.add_fact("I was diagnosed with diabetes in May")
        assert caught.value.rule_id == "diagnosis"
        assert memory.facts() == [] and memory.events_since(0) == []
        assert "diabetes" not in every_stored_text(memory)
        memory.add_fact("I like green tea")
        assert [f.text for f in memory.core] == ["I like green tea"]


def test_an_edit_that_would_store_a_secret_is_refused_and_core_is_unchanged() -> None:
    with make_memory(privacy=POLICY) as memory:
        memory.add_fact("my card is on file")
        with pytest.raises(RetentionDroppedError, match="financial"):
            memory.replace_in_core("on file", "4111 1111 1111 1111")
        assert [f.text for f in memory.core] == ["my card is on file"]
        # As a word: a timestamp or a hash may hold the digits 4111 by chance.
        assert re.search(r"\b4111\b", every_stored_text(memory)) is None


def test_a_passage_is_dropped_by_its_text_or_by_a_metadata_field() -> None:
    with make_memory(privacy=POLICY) as memory:
        with pytest.raises(RetentionDroppedError):
            memory.archival_insert("insulin doses for the week")
        with pytest.raises(RetentionDroppedError, match="passage"):
            memory.archival_insert("billing contact", metadata={"card_number": "x"})
        memory.archival_insert("billing contact", metadata={"team": "ops"})
        assert len(memory.archival) == 1


def test_an_interaction_keeps_the_message_with_the_sentence_withheld_and_no_fact_of_it() -> None:
    with make_memory(privacy=POLICY) as memory:
        memory.process_interaction("I was diagnosed with asthma. My name is Dana.",
                                   "Sorry to hear you were diagnosed. Noted, Dana.")
        user, assistant = memory.recall.rows(list(range(1, 3)))
        assert user["content"] == "[withheld: medical] My name is Dana."
        assert assistant["content"] == "[withheld: medical] Noted, Dana."
        texts = [f.text for f in memory.facts()]
        assert texts and all("asthma" not in t for t in texts)
        assert any("Dana" in t for t in texts)
        assert "asthma" not in every_stored_text(memory)


def test_the_memory_tools_return_the_drop_to_the_model_as_text() -> None:
    box = memory_toolbox()
    with make_memory(privacy=POLICY) as memory:
        ctx = ToolContext(memory=memory, turn=1)
        for name, args in (("core_memory_append", {"content": "User takes insulin daily"}),
                           ("archival_memory_insert", {"content": "User takes insulin"})):
            result = box.dispatch(name, json.dumps(args), call_id="c", context=ctx)
            assert not result.ok and "not stored" in result.content
            assert "medical" in result.content
        assert memory.facts() == [] and len(memory.archival) == 0


def test_an_agent_turn_stores_no_secret_in_messages_or_tool_call_arguments() -> None:
    with make_memory(privacy=POLICY) as memory:
        script = [call("core_memory_append", content="User was diagnosed with gout",
                       request_heartbeat=True),
                  reply("I will not store that. Sorry you were diagnosed with gout.")]
        with ScriptedModel(script) as model:
            result = Agent(memory, model).step("I was diagnosed with gout. Any advice?")
        # The live turn saw the whole message; the model answered from it.
        assert "gout" in json.dumps(model.calls[0].messages)
        assert "not stored" in result.tool_results[0].content
        assert "gout" not in every_stored_text(memory)
        rows = memory.recall.rows(list(range(1, len(memory.recall) + 1)))
        assert rows[0]["content"] == "[withheld: medical] Any advice?"
        assert "[withheld: medical]" in json.dumps(rows[1]["tool_calls"])


def test_the_offline_agent_stores_no_fact_of_a_withheld_sentence() -> None:
    # It rewrites "my ex" as "User's ex", which a first-person rule no longer matches: it
    # must read the message as memory keeps it, as process_interaction extracts facts.
    policy = parse_policy("""
rules:
  - {rule_id: ex, category: relationships, content_substrings: [my ex]}
""")
    with make_memory(privacy=policy) as memory:
        agent = Agent(memory, OfflinePolicy())
        agent.step("My ex lives in Paris. I like green tea.")
        facts = [f.text for f in memory.facts()]
        assert facts == ["User likes green tea"]
        assert "Paris" not in every_stored_text(memory)
        reply = agent.step("Where does my ex live?").reply or ""
        assert "Paris" not in reply


@pytest.fixture
def written_before(tmp_path: Path) -> Path:
    """A memory that took secrets in before any policy was set."""
    home = tmp_path / "home"
    with make_memory(home, core_limit=3, core_limit_unit="facts") as memory:
        memory.add_fact("User was diagnosed with migraine")
        memory.add_fact("User lives in Lyon")
        for i in range(6):
            memory.archival_insert(f"insulin note {i} about the clinic visit")
        for i in range(4):
            memory.archival_insert(f"clinic opening hours note {i}")
        memory.process_interaction("The clinic put me on insulin", "Noted about the clinic.")
    return home


def test_every_read_path_withholds_what_the_rules_match(written_before: Path) -> None:
    with make_memory(written_before, privacy=POLICY) as memory:
        page = memory.archival_search("clinic note", k=3)
        assert len(page.hits) == 3 and all("insulin" not in h.text for h in page.hits)
        assert memory.archival_search("clinic note", k=3, page=2).hits  # the fourth
        found = memory.recall_search("clinic", k=5)
        assert [h.role for h in found.hits] == ["assistant"]
        hits = memory.query("clinic migraine insulin", k=10)
        assert hits and all("insulin" not in h.text and "diagnosed" not in h.text
                            for h in hits)
        block = render_core(memory, "where do I live?")
        assert "[withheld: medical]" in block and "migraine" not in block
        assert "User lives in Lyon" in block
        box = memory_toolbox()
        ctx = ToolContext(memory=memory, turn=9)
        out = box.dispatch("conversation_search", json.dumps({"query": "clinic insulin"}),
                           call_id="c", context=ctx)
        results = json.loads(out.content)["results"]
        assert [r["text"] for r in results] == ["Noted about the clinic."]


def test_the_prompt_shows_core_through_the_recall_layer(written_before: Path) -> None:
    with make_memory(written_before, privacy=POLICY) as memory:
        window = ContextWindow(window=8000, counter=TokenCounter())
        window.messages = [{"role": "user", "content": "hello"}]
        system = window.build(memory, [])[0][0]["content"]
        assert "migraine" not in system and "[withheld: medical]" in system


def test_without_a_policy_nothing_is_withheld(written_before: Path) -> None:
    with make_memory(written_before) as memory:
        assert "migraine" in render_core(memory)
        assert any("insulin" in h.text for h in memory.archival_search("insulin", k=3).hits)


def test_a_runtime_policy_replaces_the_last_and_its_rules_reach_the_recall_layer() -> None:
    with make_memory(privacy=POLICY) as memory:
        memory.archival_insert("the dog is called Rex")
        memory.set_retention_policy(["Do not keep anything about my pets."])
        with pytest.raises(RetentionDroppedError, match="pets"):
            memory.add_fact("my cat is called Tom")
        assert memory.archival_search("dog Rex", k=5).hits == []  # recall applies it too
        memory.set_retention_policy([])  # replaces, never appends: the pets rule is gone
        memory.add_fact("my cat is called Tom")
        assert memory.archival_search("dog Rex", k=5).hits
        with pytest.raises(InvalidConfigError, match=r"no rules in retention\.policy_rules"):
            memory.set_retention_policy(["Forget my birthday."])
        with pytest.raises(RetentionDroppedError):  # the baseline rules still hold
            memory.add_fact("diagnosed with flu")


def test_a_memory_without_a_policy_says_how_to_set_one() -> None:
    with make_memory() as memory, pytest.raises(InvalidConfigError) as info:
        memory.set_retention_policy([])
    # Said to a Python caller: the CLI words its own (tests/test_repl.py).
    assert str(info.value) == (
        "this memory has no privacy policy to change: open it with one, "
        "HierarchicalMemory(..., privacy=load_policy(path)) (load_policy is in "
        "tiermem.memory.privacy)")
    assert info.value.fields == ("privacy",) and memory.privacy is None


def test_a_judging_mode_without_a_judge_says_to_pass_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    text = "retention:\n  mode: llm\n  policies: ['no pets']\n"
    with pytest.raises(InvalidConfigError) as info:
        make_memory(privacy=parse_policy(text))
    # Said to a Python caller: the chat refuses in its own words first (below).
    assert str(info.value) == (
        "invalid policy: retention.mode is 'llm', which asks a model to judge, and no judge "
        "was given: pass judge= (e.g. tiermem.agent.judge.ModelJudge(client)), or set "
        "retention.mode: deterministic")
    assert info.value.fields == ("retention.mode",)
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    policy = tmp_path / "policy.yaml"
    policy.write_text(text)
    assert run(["chat", "--agent", "ada", "--offline", "--policy", str(policy)]) == 2
    assert capsys.readouterr().err == (
        f"tiermem: the privacy policy {policy} sets retention.mode: llm, which asks a model "
        f"to judge, and this session has none: configure one (--model NAME, or TIERMEM_MODEL "
        f"with OPENAI_BASE_URL; not --offline), or set retention.mode: deterministic in the "
        f"policy\n")
    assert not (tmp_path / "agents" / "ada").exists()


def test_deep_pages_fetch_in_bounded_calls_and_bad_pages_are_refused(
        written_before: Path) -> None:
    with make_memory(written_before, privacy=POLICY) as memory:
        asked: list[tuple[int, int]] = []
        search = memory.archival.search

        def counting(query: str, k: int = 10, page: int = 1, **kw: object) -> object:
            asked.append((k, page))
            return search(query, k=k, page=page, **kw)  # type: ignore[arg-type]

        memory.archival.search = counting  # type: ignore[method-assign]
        # Six of the ten notes are withheld: page 2 needs more than one fetch of 3 x 3, and
        # the next reads twice as far.
        found = memory.archival_search("note", k=3, page=2)
        assert [h.text for h in found.hits] == ["clinic opening hours note 3"]
        assert asked == [(9, 1), (18, 1)] and (found.total, found.total_exact) == (4, True)
        assert memory.archival_search("note", k=400, page=400).hits == []
        assert max(k for k, _ in asked) <= 1000
        with pytest.raises(InvalidInputError, match="page must be a positive integer"):
            memory.archival_search("note", k=3, page=0)


def test_the_chat_shows_and_replaces_the_retention_statements() -> None:
    import io

    from rich.console import Console

    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import ChatRepl

    with make_memory(privacy=POLICY) as memory:
        out, errors = io.StringIO(), io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        errors=errors)
        # A statement with no rules fails, and a piped chat with a failed command exits 1.
        assert repl.run_piped(iter([
            "/policy\n", "/policy set Do not keep anything about my pets.\n",
            "/policy set Forget my birthday.\n", "/policy clear\n", "/policy bogus\n"])) == 1
        shown = out.getvalue()
        assert "retention statements: none" in shown
        assert "retention statements: Do not keep anything about my pets." in shown
        assert shown.count("(for this session; the policy file is unchanged)") == 2  # set, clear
        assert "no rules in retention.policy_rules" in errors.getvalue()
        assert "usage: /policy" in errors.getvalue()
        assert memory.privacy is not None and memory.privacy.policies == ()
    with make_memory() as memory:
        out = io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        errors=io.StringIO())
        assert repl.run_piped(iter(["/policy\n"])) == 0
        assert "no privacy policy: start the chat with --policy FILE" in out.getvalue()


def test_a_line_typed_at_the_prompt_is_kept_with_what_the_policy_drops_withheld(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    with make_memory(home, privacy=POLICY) as memory:
        memory.prompt_history.add("I was diagnosed with flu yesterday. See you later.")
        memory.prompt_history.add("what's the weather")
        lines = memory.prompt_history.lines()
        assert lines[-1] == "what's the weather"
        assert "flu" not in lines[0] and "[withheld: medical]" in lines[0]
        assert "See you later." in lines[0]
    assert not any(b"flu yesterday" in p.read_bytes() for p in home.rglob("*") if p.is_file())


def test_a_forget_line_the_policy_kept_withheld_leaves_the_history() -> None:
    # Kept as "/forget My locker code is 4417. [withheld: medical]", the line was not the
    # line typed, which /forget took out: the up arrow still brought back the code.
    from rich.console import Console

    from tiermem.agent.repl import ChatRepl

    typed = "/forget My locker code is 4417. I was diagnosed with flu."
    with make_memory(privacy=POLICY) as memory:
        memory.prompt_history.add("/core")
        memory.prompt_history.add(typed)
        assert "4417" in memory.prompt_history.lines()[-1]
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=io.StringIO()),
                        errors=io.StringIO())
        repl.run_piped([typed])
        assert memory.prompt_history.lines() == ["/core"]


def test_a_tool_result_withholds_the_facts_its_change_moved() -> None:
    shown_only = parse_policy("""
rules:
  - {rule_id: diagnosis, category: medical, content_substrings: [diagnosed]}
retention: {enabled: false}
recall: {mode: deterministic}
""")
    box = memory_toolbox()
    with make_memory(privacy=shown_only, core_limit=1, core_limit_unit="facts") as memory:
        memory.add_fact("User was diagnosed with asthma", "short-lived")
        ctx = ToolContext(memory=memory, turn=1)
        result = box.dispatch("core_memory_append",
                              json.dumps({"content": "User likes green tea"}),
                              call_id="c", context=ctx)
        assert result.ok and "core -> archival: [withheld: medical]" in result.content
        assert "asthma" not in result.content


CARD = "4111 1111 1111 1111"


def _sent(model: ScriptedModel) -> str:
    """Everything the last request sent to the model, as one string."""
    return json.dumps(model.calls[-1].messages)


def test_messages_stored_before_a_policy_reach_the_prompt_withheld(tmp_path: Path) -> None:
    with make_memory(tmp_path / "home") as memory:
        Agent(memory, ScriptedModel([call("core_memory_append", content=f"card {CARD}")])
              ).step(f"My card is {CARD}.")
        # A running summary written then quotes it too.
        memory.set_state("context", {**memory.get_state("context", {}),
                                     "summary": f"Talked about cards.\nThe card is {CARD}."})
    with make_memory(tmp_path / "home", privacy=POLICY) as memory:
        model = ScriptedModel([reply("Hello.")])
        Agent(memory, model).step("hello")
        sent = _sent(model)
        assert CARD not in sent and "[withheld: financial]" in sent
        assert "Talked about cards." in sent  # the summary's other lines stay


def test_what_retention_withheld_leaves_the_window_after_its_turn() -> None:
    with make_memory(privacy=POLICY) as memory:
        model = ScriptedModel([
            call("core_memory_append", content=f"card {CARD}", request_heartbeat=True),
            reply(f"Your card {CARD} is not kept."), reply("Hello.")])
        agent = Agent(memory, model)
        agent.step(f"My card is {CARD}.")
        assert CARD in json.dumps(model.calls[1].messages)  # the live turn saw it as typed
        agent.step("hello")
        assert CARD not in _sent(model) and "withheld" in _sent(model)
