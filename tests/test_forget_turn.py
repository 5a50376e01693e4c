"""Forgetting or erasing what a user said takes the turn's messages that quote it: the tool
call that stored the fact, the tool result and the reply echoing it (memory/ops/quoting.py);
erasing it takes later turns' copies too (memory/ops/erased_copies.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from leak_helpers import files_holding
from memory_helpers import make_memory
from rich.console import Console

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.agent.scripted import ScriptedModel, call
from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.ops.quoting import quoting
from tiermem.memory.store.records import Message

SAID = "My card number is 4111 1111"
CANARY = "4111"


def _chat(agent: Agent, *lines: str) -> str:
    out = io.StringIO()
    repl = ChatRepl(agent, console=Console(file=out, width=200), errors=io.StringIO())
    assert repl.run_piped(iter(line + "\n" for line in lines)) == 0
    return out.getvalue()


def _holding(rows: list[dict[str, Any]], text: str) -> list[int]:
    """The ids of the message rows whose content or tool-call arguments hold ``text``."""
    return [r["id"] for r in rows
            if text in r["content"] or text in json.dumps(r["tool_calls"] or "")]


def _stored(m: HierarchicalMemory) -> list[dict[str, Any]]:
    """Every message row as stored, tombstones included, tool calls decoded."""
    return [{**r, "tool_calls": json.loads(r["tool_calls"]) if r["tool_calls"] else None}
            for r in m.recall.iter_rows()]


def _offline_turns(m: HierarchicalMemory) -> Agent:
    """Two offline turns: the secret (the policy stores it with ``core_memory_append`` and
    quotes the tool's result in its reply), then something unrelated."""
    agent = Agent(m, OfflinePolicy())
    _chat(agent, SAID, "I like green tea")
    rows = _stored(m)
    # The defect as reported: the user's message, the tool call's arguments, the tool
    # result and the reply all hold the secret.
    assert len(_holding(rows, CANARY)) == 4
    assert any(c["function"]["name"] == "core_memory_append" and CANARY in
               c["function"]["arguments"] for r in rows for c in r["tool_calls"] or ())
    return agent


def _unrelated(rows: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    return [(r["turn"], r["role"], r["content"]) for r in rows if CANARY not in str(r)]


def test_forget_erase_from_the_command_leaves_the_secret_in_no_message_search_or_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        _offline_turns(m)
        kept = _unrelated(_stored(m))
        # The same turn's tool result "Sent." quotes nothing and stays, as does turn 2.
        assert (1, "tool", "Sent.") in kept and {t for t, _, _ in kept} == {1, 2}
    assert files_holding(home, "4111 1111")
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--erase", "--json",
                SAID.lower()]) == 0
    printed = json.loads(capsys.readouterr().out)
    # The message, the fact learned from it, and the three messages quoting the fact.
    assert printed["facts"] == [1] and len(printed["messages"]) == 4
    assert printed["erasure"]["messages"] == 4 and printed["erasure"]["not_reached"] == []
    assert files_holding(home, "4111 1111") == []
    assert files_holding(home, CANARY) == []
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        rows = _stored(m)
        assert _holding(rows, CANARY) == []
        assert _unrelated(rows) == kept
        assert m.recall_search("card number 4111 1111", k=50, roles=None).total == 0
        assert m.facts()[0].text == "User likes green tea"
        # The chat shows nothing of it either.
        out = _chat(Agent(m, OfflinePolicy()), "/recall --all 4111", "/recall --all card number")
        assert CANARY not in out and out.count("0 matches") == 2


def test_forget_without_erase_tombstones_the_quoting_messages_out_of_every_read(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    with make_memory(home) as m:
        agent = _offline_turns(m)
        kept = _unrelated(_stored(m))
        out = _chat(agent, f"/forget {SAID}")
        assert "forgotten: 1 fact, 0 passages, 4 messages" in out
        rows = _stored(m)
        taken = _holding(rows, CANARY)
        assert len(taken) == 4  # tombstones keep their rows, until erased
        assert all(r["forgotten_at"] is not None for r in rows if r["id"] in taken)
        assert _unrelated([r for r in rows if r["forgotten_at"] is None]) == kept
        # No read returns them: rows, searches by words and by meaning, the chat's /recall.
        shown = m.recall.rows([r["id"] for r in rows])
        assert _holding(shown, CANARY) == [] and len(shown) == len(rows) - 4
        for query in ("card number 4111 1111", "User's card number is 4111 1111", SAID):
            found = m.recall_search(query, k=50, roles=None)
            assert found.total == len(found.hits)  # every match is one shown, none withheld
            assert not any(CANARY in h.text for h in found.hits)
            assert not any(CANARY in h.text for h in m.query(query, k=50, touch=False))
        out = _chat(agent, "/recall --all 4111", "what is my card number?")
        assert "0 matches" in out and CANARY not in out
        # The agent's window dropped them too (its next prompt never carries the secret).
        assert not set(taken) & set(agent.context.message_ids)
        assert CANARY not in json.dumps(agent.context.messages)
        # Erasing what was forgotten then leaves nothing in the files.
        report = m.erase_forgotten()
        assert report.messages == 4 and report.facts == 1
    assert files_holding(home, "4111 1111") == []


def test_erasing_the_message_alone_takes_the_messages_quoting_what_went(
        tmp_path: Path) -> None:
    """``erase`` looks for the quoting messages itself: an erasure named by ids (or of
    tombstones left before forget took them) takes them too."""
    home = tmp_path / "agent"
    with make_memory(home) as m:
        _offline_turns(m)
        kept = _unrelated(_stored(m))
        report = m.erase(messages=[1], reason="the user asked")
        assert (report.facts, report.passages, report.messages) == (1, 0, 4)
        rows = _stored(m)
        assert _holding(rows, CANARY) == [] and _unrelated(rows) == kept
    assert files_holding(home, "4111 1111") == []


def test_the_forget_tool_blanks_the_quoting_messages_in_the_window_at_once() -> None:
    stored = "User's card number is 4111 1111"
    with make_memory() as m, ScriptedModel([
            call("core_memory_append", content=stored, request_heartbeat=True),
            call("send_message", message=f"Noted: {stored}."),
            call("forget", request=stored, request_heartbeat=True),
            call("send_message", message="Done.")]) as model:
        agent = Agent(m, model)
        agent.step(SAID)
        result = agent.step("please forget my card number")
        assert result.tool_results[0].content.startswith(
            "Forgotten: 1 fact(s), 0 passage(s), 3 message(s)")
        # The model's next call sees the turn's tool call, result and reply blanked; only
        # the user's own words (which do not quote the fact) and its forget call (README
        # "Forgetting": not reached) still hold the number.
        last = model.calls[-1].messages
        holding = [msg for msg in last if CANARY in json.dumps(msg)]
        assert [msg["role"] for msg in holding] == ["user", "assistant"]
        assert holding[0]["content"] == SAID
        assert holding[1]["tool_calls"][0]["function"]["name"] == "forget"


def test_what_quotes_a_text() -> None:
    def message(content: str, arguments: Any = None) -> Message:
        calls = None if arguments is None else [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]
        return Message(turn=1, role="assistant", content=content, created_at=0.0,
                       tool_calls=calls)

    quoted = ["User's card number is 4111 1111", "", "  "]
    taken = [message("USER'S card\tnumber is\n4111 1111!"),
             message("", json.dumps({"x": {"y": ["…user's card number is 4111 1111"]}})),
             message("", "not JSON: user's card number is 4111 1111"),
             message("", {"content": "User's card number is 4111 1111"})]
    left = [message("Sent."), message("User's card number is 4111 11112"),
            message("AUser's card number is 4111 1111"), message("", "{}"),
            message("", json.dumps({"content": "User's card number"}))]
    assert quoting([*taken, *left], quoted) == taken
    assert quoting(taken, ["", " \n"]) == []  # an empty text quotes nothing


def test_a_json_result_quotes_a_text_its_escapes_hide() -> None:
    said = 'My card is "4111 1111".\nKeep it.'
    def message(content: str, arguments: str | None = None) -> Message:
        calls = None if arguments is None else [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]
        return Message(turn=2, role="tool", content=content, created_at=0.0,
                       tool_calls=calls)

    found = message(json.dumps({"results": [{"id": 1, "text": said}]}))
    assert said not in found.content  # the quotation marks and the line break are escaped
    deep = "[" * 5000  # past what the parser takes: no JSON, and no failure
    others = [message(deep), message("{not json " + said), message("", deep)]
    assert quoting([found, *others], [said]) == [found, others[1]]


PASSWORD_SAID = "My password is zebracanary77."
PASSWORD = "zebracanary77"


def _holding_canary(m: HierarchicalMemory) -> list[tuple[int, str]]:
    return [(r["turn"], r["role"]) for r in m.recall.iter_rows()
            if PASSWORD in r["content"] + (r["tool_calls"] or "")]


def test_the_chats_erasure_takes_the_later_turns_copies_and_counts_them(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        agent = Agent(m, OfflinePolicy())
        _chat(agent, PASSWORD_SAID, "What is my password?")
        # The search's result and the reply of the second turn quote it.
        assert {(2, "tool"), (2, "assistant")} <= set(_holding_canary(m))
        out = _chat(agent, f"/forget --erase {PASSWORD_SAID}", "What is my password?")
        assert "erased: 1 fact, 0 passages, 6 messages (2 of them copies in other turns)" in out
        assert _holding_canary(m) == []
        assert PASSWORD not in out.split("erased:")[1]
    assert files_holding(home, PASSWORD) == []


def test_the_commands_erasure_counts_the_copies_it_took(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        _chat(Agent(m, OfflinePolicy()), PASSWORD_SAID, "What is my password?")
    args = ["forget", "--agent", "ada", "--embedder", "hashing", "--erase"]
    assert run([*args, PASSWORD_SAID]) == 0
    assert capsys.readouterr().out.startswith(
        "erased: 1 fact, 0 passages, 6 messages (2 of them copies in other turns; audit #1)\n")
    assert files_holding(home, PASSWORD) == []


def test_erasing_what_was_forgotten_takes_and_counts_the_copies_forgetting_left(
        tmp_path: Path) -> None:
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as m:
        agent = Agent(m, OfflinePolicy())
        out = _chat(agent, PASSWORD_SAID, "What is my password?", f"/forget {PASSWORD_SAID}")
        assert "forgotten: 1 fact, 0 passages, 4 messages" in out
        out = _chat(agent, "/forget --erase-forgotten", "/forget --erase-forgotten")
        assert out.splitlines() == [
            "erased: 1 fact, 0 passages, 6 messages forgotten before (2 of them copies in "
            "other turns)", "nothing to erase: no row forgotten before is still stored"]
        assert _holding_canary(m) == []
