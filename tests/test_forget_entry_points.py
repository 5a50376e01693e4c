"""forget from the model's tool, the chat's /forget and `tiermem forget`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAIServer
from leak_helpers import files_holding
from memory_helpers import make_memory
from rich.console import Console

from tiermem.agent.judge import ModelJudge
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.repl import ChatRepl
from tiermem.agent.scripted import ScriptedModel, call
from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import ForgetRequestTooLongError
from tiermem.memory.ops.forget_config import ForgetConfig

SECRET = "my card number is 4111 1111"


def test_the_tool_forgets_and_blanks_the_window_then_reports_nothing_matched_as_text() -> None:
    with make_memory() as m:
        m.process_interaction(SECRET, "Noted.")
        forget = call("forget", request=SECRET, request_heartbeat=True)
        again = call("forget", request=SECRET, request_heartbeat=True)
        llm_mode = call("forget", request="the card", request_heartbeat=True)
        with ScriptedModel([forget, again, llm_mode, call("send_message", message="Done.")]
                           ) as model:
            agent = Agent(m, model)
            agent.context.message_ids, agent.context.messages = [1], [
                {"role": "user", "content": SECRET}]
            m.forget_config = ForgetConfig()
            result = agent.step("please forget my card number")
        outcomes = [r.content for r in result.tool_results]
        # The message, and the fact learned from it.
        assert outcomes[0].startswith("Forgotten: 1 fact(s), 0 passage(s), 1 message(s)")
        # The same request again matches nothing, and says that it forgot it before.
        assert outcomes[1].startswith("Already forgotten: an earlier call with this request")
        # Only the request itself, and the reply after it, which holds it as context.
        left = m.recall_search("card number 4111")
        assert left.total == 2 and not any("4111" in h.text for h in left.hits)
        # Blanked during the turn; once it ends, the forgotten message leaves the window.
        assert 1 not in agent.context.message_ids
        assert not any(SECRET in str(msg.get("content")) for msg in agent.context.messages)
        assert "forgotten: 1 fact, 0 passages, 1 message" in result.memory_changes
        # A later model call no longer carries the forgotten message (the model's own
        # forget call still quotes the request: README "Forgetting" says so).
        assert {"role": "user", "content": SECRET} not in model.calls[-1].messages
        assert {"role": "user", "content": SECRET} in model.calls[0].messages


def test_the_tool_returns_the_missing_judge_as_text() -> None:
    with make_memory(forget=ForgetConfig(mode="top_k_llm")) as m, ScriptedModel(
            [call("forget", request="the card"), call("send_message", message="ok")]) as model:
        result = Agent(m, model).step("forget my card")
        assert not result.tool_results[0].ok
        assert "none is configured" in result.tool_results[0].content


def test_slash_forget_forgets_and_leaves_no_trace_in_the_prompt_history() -> None:
    with make_memory() as m:
        out = io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=200),
                        errors=io.StringIO())
        line = "/forget User's card number is 4111 1111"
        m.prompt_history.add(line)  # as the interactive prompt keeps every line typed
        assert repl.run_piped(iter([SECRET + "\n", line + "\n", "/forget\n",
                                    "/forget nothing like it\n"])) == 1  # the bare /forget
        text = out.getvalue()
        # The fact, with the tool call that stored it, its result and the reply quoting it;
        # the user's own words do not quote the fact's text and stay.
        assert "forgotten: 1 fact, 0 passages, 3 messages" in text
        assert isinstance(repl.errors, io.StringIO)
        assert "usage: /forget [--erase] TEXT" in repl.errors.getvalue()
        assert "nothing forgotten (unmatched" in text
        assert not any("4111" in f.text for f in m.facts())
        assert not any("4111" in entry for entry in m.prompt_history.lines())


RULE = ("no stored text equals the request; exact matching compares whole texts, "
        "punctuation included, ignoring only case, runs of whitespace and the punctuation "
        "that ends a text")


def test_slash_forget_that_matches_nothing_says_what_exact_compares_and_what_to_try() -> None:
    with make_memory() as m:
        out = io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=400),
                        errors=io.StringIO())
        # Nothing forgotten is a failed command for a script (exit 1), as `tiermem forget`
        # exits 1 for it; the words stay on standard output, as that command prints them.
        assert repl.run_piped(["I live in Lisbon.", "/forget I live in Lisbon, Portugal"]) == 1
        assert isinstance(repl.errors, io.StringIO) and repl.errors.getvalue() == ""
        assert out.getvalue().splitlines()[-2:] == [
            f"nothing forgotten (unmatched: {RULE})",
            "/recall TEXT and /archival TEXT show how it was stored, and /core the facts; to "
            "match by meaning, chat with a model (--model) and set the forget mode to "
            "exact_then_top_k_llm in policy.yaml (it asks the model which stored items the "
            "request targets)"]
        assert [f.text for f in m.facts()] == ["User lives in Lisbon"]  # nothing forgotten
        out = io.StringIO()
        scripted = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out),
                            errors=io.StringIO(), json_lines=True)
        assert scripted.run_piped(["/forget nothing like it"]) == 1
        record = json.loads(out.getvalue())
        assert record["error"] == {"kind": "nothing_forgotten",
                                   "message": f"nothing forgotten (unmatched: {RULE})"}
        assert record["output"].startswith(f"nothing forgotten (unmatched: {RULE})")


def test_cli_forget_that_matches_nothing_says_what_exact_compares_and_what_to_try(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _agent_with_secret(tmp_path, monkeypatch)
    assert run(["forget", "--agent", "ada", SECRET + ", the new one"]) == 1
    captured = capsys.readouterr()
    assert captured.out == f"nothing forgotten: unmatched ({RULE}; audit #1)\n"
    assert captured.err == (
        "tiermem: `tiermem chat --agent ada` with /recall TEXT, /archival TEXT or /core shows "
        "how it was stored; --mode exact_then_top_k_llm with a model matches by meaning when "
        "no text equals it\n")
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as m:
        assert [f.text for f in m.facts()] == [SECRET]


def test_cli_forget_s_hint_for_a_database_agent_keeps_its_store(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Without --store, the chat it names would open (and create) a home agent instead.
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()) as m:
        m.add_fact(SECRET, "durable")
    assert run(["forget", "--agent", "ada", "--store", postgres_dsn, SECRET + ", the new one"]
               ) == 1
    chat = capsys.readouterr().err.split("`")[1]
    assert chat.startswith("tiermem chat --agent ada --store ")
    assert postgres_dsn.split("@")[-1] in chat


def _agent_with_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        m.add_fact(SECRET)
        m.archival_insert("the billing worker restarts at noon")
    return home


def test_cli_forget_opens_the_agent_with_the_embedder_it_was_built_with(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # As chat, config and diagnostics do: no --embedder needed for a hashing agent.
    _agent_with_secret(tmp_path, monkeypatch)
    for command in (["--erase", SECRET], ["--erase-forgotten"], ["--finish-erasures"]):
        assert run(["forget", "--agent", "ada", *command]) == 0, command
        captured = capsys.readouterr()
        assert "embedded with" not in captured.err, command
    with HierarchicalMemory(tmp_path / "agents" / "ada", embedder=HashingEmbedder(),
                            read_only=True) as m:
        assert [f.text for f in m.facts()] == []


def test_cli_forget_exact_prints_json_and_sets_the_exit_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _agent_with_secret(tmp_path, monkeypatch)
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--json", SECRET]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["outcome"] == "matched" and printed["facts"] == [1]
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", SECRET]) == 1
    assert "nothing forgotten: already forgotten" in capsys.readouterr().out
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        assert m.facts() == []
        assert [r.outcome for r in m.forget_requests()] == ["matched", "unmatched"]


def test_cli_forget_names_its_own_option_for_a_delete_count_past_the_most(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _agent_with_secret(tmp_path, monkeypatch)
    for count in ("1001", "99999999999999999999"):
        with pytest.raises(SystemExit) as exit_:
            run(["forget", "--agent", "ada", "--max-delete-count", count, SECRET])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert f"argument --max-delete-count: at most 1000 items can be forgotten by one " \
               f"request, not {count}" in err, err
        assert "policy" not in err.splitlines()[-1]  # no policy was given to blame
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as m:
        assert [f.text for f in m.facts()] == [SECRET] and m.forget_requests() == []
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--max-delete-count",
                "1000", SECRET]) == 0


#: Each option only a request uses, given with --finish-erasures, and what it is said to do.
_ALONE = [
    (["--mode", "top_k_llm"], "says how a request is matched"),
    (["--max-delete-count", "3"], "caps how many items a request may forget"),
    (["--policy", "forget.toml"], "gives the forget settings a request is matched by"),
    (["--erase"], "erases what a request forgets"),
    (["--model", "m"], "names the model that judges a request"),
    (["--base-url", "http://127.0.0.1:9/v1"], "names the endpoint of the model that judges a "
                                             "request"),
    (["--context-window", "4096"], "sizes the window of the model that judges a request"),
    (["--timeout", "5"], "bounds the wait for the model that judges a request"),
    (["--max-tokens", "200"], "caps the reply of the model that judges a request"),
]


@pytest.mark.parametrize(("command", "said"), [
    *[(["--finish-erasures", *given],
       f"--finish-erasures does not go with {given[0]}: it {does}, and --finish-erasures takes "
       f"no request; leave it out") for given, does in _ALONE],
    (["--erase-forgotten", "--max-tokens", "200"],
     "--erase-forgotten does not go with --max-tokens: it caps the reply of the model that "
     "judges a request, and --erase-forgotten takes no request; leave it out"),
    (["--finish-erasures", "--max-delete-count", "3", "--erase", "--model", "m"],
     "--finish-erasures does not go with --max-delete-count or --erase or --model: "
     "--max-delete-count caps how many items a request may forget; --erase erases what a "
     "request forgets; --model names the model that judges a request; --finish-erasures "
     "takes no request, so leave them out"),
])
def test_cli_forget_refuses_request_options_without_a_request(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        command: list[str], said: str) -> None:
    home = _agent_with_secret(tmp_path, monkeypatch)
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        m.forget(SECRET)  # forgotten, not erased: --erase-forgotten would erase it
    (tmp_path / "forget.toml").write_text("[forget]\nmode = \"exact\"\n")
    monkeypatch.chdir(tmp_path)
    assert run(["forget", "--agent", "ada", *command]) == 2
    assert capsys.readouterr().err == f"tiermem: {said}\n"
    assert files_holding(home, SECRET)  # nothing was erased


def test_cli_forget_erase_leaves_the_text_in_no_file_of_the_agent_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _agent_with_secret(tmp_path, monkeypatch)
    assert files_holding(home, "4111 1111")
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--erase", "--json",
                SECRET]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["facts"] == [1] and printed["erasure"]["facts"] == 1
    assert files_holding(home, "4111 1111") == []
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        assert m.archival_search("billing worker").total == 1  # the rest stays


def test_an_offline_slash_forget_in_a_judged_mode_names_the_chats_ways_out() -> None:
    with make_memory(forget=ForgetConfig.parse({"mode": "exact_then_top_k_llm"})) as m:
        m.add_fact(SECRET)
        out, errors = io.StringIO(), io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=400),
                        errors=errors)
        assert repl.run_piped(["/forget the card"]) == 1
        said = " ".join(errors.getvalue().split())
        assert ("nothing forgotten: the forget mode 'exact_then_top_k_llm' asks a model when "
                "no stored text equals the request, and this chat has none") in said
        assert ("start the chat with --model NAME (or TIERMEM_MODEL) and, for a local server, "
                "--base-url URL (or OPENAI_BASE_URL), or set `mode: exact` under `forget:` in "
                "the chat's policy file") in said
        assert "judge=" not in said
        assert [f.text for f in m.facts()] == [SECRET]
        assert [r.outcome for r in m.forget_requests()] == ["failed"]


def test_cli_forget_reads_the_policy_and_asks_the_configured_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _agent_with_secret(tmp_path, monkeypatch)
    (home / "policy.yaml").write_text("forget:\n  mode: top_k_llm\n  max_delete_count: 1\n")
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "the card"]) == 1
    err = capsys.readouterr().err
    assert "mode 'top_k_llm' (from the policy) asks a model" in err
    assert "name one with --model NAME" in err and "judge=" not in err
    with make_memory(home, read_only=True) as m:  # audited as failed, nothing forgotten
        assert [(r.outcome, r.detail) for r in m.forget_requests()] == [
            ("failed", "no judge configured")]
        assert len(m.facts()) == 1
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--json", "the card"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["outcome"], out["detail"], out["audit_id"], out["facts"]) == (
        "failed", "no judge configured", 2, [])
    assert out["already_forgotten_by"] is None  # every outcome has the key scripts read
    assert "name one with --model NAME" in out["advice"]  # as standard error says
    with FakeOpenAIServer() as server:
        server.enqueue_reply('{"ids": ["F1"]}')
        assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--base-url",
                    server.base_url, "--model", "fake-model", "--json", "the card"]) == 0
    assert json.loads(capsys.readouterr().out)["facts"] == [1]
    (home / "policy.yaml").write_text("forget:\n  mode: top_k_llm\nmemory: {}\n")
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "x"]) == 2
    assert "unknown top-level key 'memory'" in capsys.readouterr().err


def test_cli_forget_exact_first_needs_no_model_when_a_stored_text_equals_the_request(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The README's own policy.yaml, used with no model configured.
    home = _agent_with_secret(tmp_path, monkeypatch)
    (home / "policy.yaml").write_text("forget:\n  mode: exact_then_top_k_llm\n")
    outcomes = {}
    for request in ("the card", SECRET):  # only a model could decide the first
        code = run(["forget", "--agent", "ada", "--embedder", "hashing", "--json", request])
        outcomes[request] = (code, json.loads(capsys.readouterr().out)["outcome"])
    assert outcomes == {"the card": (1, "failed"), SECRET: (0, "matched")}
    with make_memory(home, read_only=True) as m:
        assert m.facts() == []


def test_a_failing_judge_model_says_what_went_wrong_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The memory audits only the error's type; the user needs the model's own error.
    home = _agent_with_secret(tmp_path, monkeypatch)
    with FakeOpenAIServer() as server:
        server.enqueue_error(404)  # not retried: no model by that name
        assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--mode",
                    "top_k_llm", "--base-url", server.base_url, "--model", "nosuch",
                    "--context-window", "4096", "the card"]) == 1
        captured = capsys.readouterr()
        assert "nothing forgotten: failed (the judge failed: ProviderError" in captured.out
        assert "model error: " in captured.err and "has no model 'nosuch'" in captured.err
        server.enqueue_error(404)
        judge = ModelJudge(OpenAIClient("nosuch", base_url=server.base_url, context_window=4096))
        with HierarchicalMemory(home, embedder=HashingEmbedder(), judge=judge,
                                forget=ForgetConfig(mode="top_k_llm")) as m:
            errors = io.StringIO()
            repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=io.StringIO()),
                            errors=errors)
            # Not carried out: the command failed, as the forget command's exit 1 says.
            assert repl.run_piped(iter(["/forget the card\n"])) == 1
            assert "nothing forgotten (failed: the judge failed" in errors.getvalue()
            assert "has no model 'nosuch'" in errors.getvalue()
            server.enqueue_error(404)
            out = io.StringIO()
            scripted = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out),
                                errors=io.StringIO(), json_lines=True)
            assert scripted.run_piped(iter(["/forget the card\n"])) == 1
            record = json.loads(out.getvalue())
            assert record["error"]["kind"] == "forget_failed"
            assert "has no model 'nosuch'" in record["error"]["hint"]
            assert judge.take_failure() is None  # shown once
            assert [f.text for f in m.facts()] == [SECRET]


@pytest.mark.parametrize(("erase", "erase_forgotten"), [
    ("/forget --erase", "/forget --erase-forgotten"),
    # Caps lock on: "--ERASE TEXT" was the request, which matched nothing (or, in a mode
    # asking a model, forgot what it named without erasing it).
    ("/FORGET --ERASE", "/Forget --Erase-Forgotten")])
def test_slash_forget_erase_erases_from_the_files(tmp_path: Path, erase: str,
                                                  erase_forgotten: str) -> None:
    home = tmp_path / "agent"
    with make_memory(home) as m:
        m.add_fact(SECRET)
        m.add_fact("User's train leaves at nine")
        out = io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=200),
                        errors=io.StringIO())
        assert repl.run_piped(iter([f"{erase} {SECRET}\n"])) == 0
        assert "erased: 1 fact, 0 passages, 0 messages" in out.getvalue()
        assert [f.text for f in m.facts()] == ["User's train leaves at nine"]
        assert files_holding(home, "4111 1111") == []
        m.forget("User's train leaves at nine")
        assert files_holding(home, "train leaves")
        assert repl.run_piped(iter([f"{erase_forgotten}\n"])) == 0
        assert "erased: 1 fact, 0 passages, 0 messages forgotten before" in (
            out.getvalue())
    assert files_holding(home, "train leaves") == []


def test_cli_erase_forgotten_erases_what_earlier_requests_only_forgot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _agent_with_secret(tmp_path, monkeypatch)
    # Nothing forgotten yet: said plainly, and no failure (nothing is left to sweep).
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--erase-forgotten"]) == 0
    assert capsys.readouterr().out == (
        "nothing to erase: no row forgotten before is still stored\n")
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", SECRET]) == 0
    assert files_holding(home, "4111 1111")  # a tombstone keeps the row
    # Asked again, the text matches nothing: it is forgotten already.
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--erase", SECRET]) == 1
    capsys.readouterr()
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--erase-forgotten",
                "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["facts"] == 1
    assert files_holding(home, "4111 1111") == []
    assert run(["forget", "--agent", "ada", "--erase-forgotten", SECRET]) == 2
    assert run(["forget", "--agent", "ada"]) == 2
    assert "say what to forget" in capsys.readouterr().err


@pytest.mark.parametrize("broken", ["directory", "dangling link", "bad regex elsewhere"])
def test_a_home_policy_that_cannot_be_used_stops_chat_and_forget_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        broken: str) -> None:
    # Read in part or skipped, it would leave a session without the policy its owner set.
    home = _agent_with_secret(tmp_path, monkeypatch)
    policy = home / "policy.yaml"
    if broken == "directory":
        policy.mkdir()
    elif broken == "dangling link":
        policy.symlink_to(tmp_path / "moved-away.yaml")
    else:
        policy.write_text('rules:\n  - {rule_id: a, category: c, regex: "[unclosed"}\n'
                          "forget: {mode: exact}\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("I was diagnosed with asthma.\n"))
    assert run(["chat", "--agent", "ada", "--offline", "--embedder", "hashing"]) == 2
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", SECRET]) == 2
    err = capsys.readouterr().err
    assert err.count(str(policy)) >= 2
    with make_memory(home, read_only=True) as m:
        assert [f.text for f in m.facts()] != [] and "asthma" not in str(m.snapshot())


#: A request longer than a model is asked to judge (memory/ops/forget.py).
LONG_REQUEST = "forget the long paste " * 500


def test_a_request_too_long_to_judge_names_the_library_call_to_a_library_caller() -> None:
    with make_memory(forget=ForgetConfig(mode="top_k_llm")) as m, pytest.raises(
            ForgetRequestTooLongError) as raised:
        m.forget(LONG_REQUEST)
    assert "HierarchicalMemory.erase" in str(raised.value)


def test_cli_forget_of_a_request_too_long_to_judge_names_the_command_line_s_ways(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _agent_with_secret(tmp_path, monkeypatch)
    assert run(["forget", "--agent", "ada", "--mode", "top_k_llm", LONG_REQUEST]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"tiermem: forget request is {len(LONG_REQUEST.strip()):,} characters, over the 10,000 a "
        "model is asked to judge (mode 'top_k_llm'); forget a longer text with --mode exact, "
        "which needs no model, giving it whole as stored (`tiermem forget --agent ada --mode "
        "exact -` reads it from standard input); `tiermem chat --agent ada` with /core, "
        "/archival TEXT or /recall TEXT shows how it was stored\n")


def test_slash_forget_of_a_request_too_long_to_judge_names_the_chat_s_ways() -> None:
    with make_memory(forget=ForgetConfig(mode="top_k_llm")) as m:
        errors = io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=io.StringIO()),
                        errors=errors)
        assert repl.run_piped(["/forget " + LONG_REQUEST.strip()]) == 1
    said = " ".join(errors.getvalue().split())
    assert "over the 10,000 a model is asked to judge" in said
    assert "HierarchicalMemory" not in said and "`mode: exact`" in said
