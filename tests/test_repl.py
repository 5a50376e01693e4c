"""The chat REPL with injected input and output: piped lines and prompt-toolkit pipe input."""

from __future__ import annotations

import io
import json
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from tiermem.agent.chat_output import error_kind
from tiermem.agent.context import ContextOverflowError
from tiermem.agent.errors import ProviderError
from tiermem.agent.llm import LLMClient
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.agent.scripted import ScriptedModel, call, raw_call, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.ops.report import print_text


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=12) as m:
        yield m


def make_repl(
    memory: HierarchicalMemory, llm: LLMClient | None = None
) -> tuple[ChatRepl, io.StringIO]:
    out = io.StringIO()
    agent = Agent(memory, llm or OfflinePolicy())
    return ChatRepl(agent, console=Console(file=out, width=200), agent_name="tester",
                    errors=io.StringIO()), out


def errors_of(repl: ChatRepl) -> str:
    assert isinstance(repl.errors, io.StringIO)
    return repl.errors.getvalue()


def test_piped_chat_prints_replies_and_memory_changes(memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory)
    code = repl.run_piped(["I am allergic to peanuts.\n", "\n", "What am I allergic to?\n"])
    text = out.getvalue()
    assert code == 0
    # The offline policy's reply lists what it stored: each change is shown once.
    assert text.count("core + User is allergic to peanuts") == 1
    assert "- core + User is allergic to peanuts (core 5/12 tokens)" in text
    assert "↳ conversation_search(What am I allergic to?): 1 match" in text  # the user's
    assert "(offline, quoting memory)" in text
    assert "- From core memory: User is allergic to peanuts" in text
    rows = memory.snapshot()["tables"]["messages"]
    # The blank line is skipped; both messages are kept in recall and were answered.
    assert [r["content"] for r in rows if r["role"] == "user"] == [
        "I am allergic to peanuts.", "What am I allergic to?"]
    assert {r["status"] for r in rows} == {"ok"}


def test_questions_typed_without_a_question_mark_are_not_stored(
        memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory)
    assert repl.run_piped(["have we paged Bob\n", "whats my sister called\n"]) == 0
    assert "core +" not in out.getvalue()
    assert memory.snapshot()["tables"]["facts"] == []


def test_family_and_names_outlast_trivia_in_a_small_core() -> None:
    lines = ["My sister is called Ana.", "My mother is called Rosa.", "My dog is called Rex.",
             "The kettle is boiling.", "The weather is nice.", "My bus is late.",
             "The cat is sleeping."]
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=25) as memory:
        repl, _ = make_repl(memory)
        assert repl.run_piped(line + "\n" for line in lines) == 0
        core = {fact.text for fact in memory.core}
    assert {"User's sister is called Ana", "User's mother is called Rosa",
            "User's dog is called Rex"} <= core
    assert "The kettle is boiling" not in core


def test_diagnostics_in_a_chat_names_the_agent_s_reindex_command(
        memory: HierarchicalMemory) -> None:
    memory.archival_insert("The billing runbook lives in the ops wiki")
    memory.store.execute("UPDATE passages SET embedding = NULL, embedder_id = NULL")
    repl, out = make_repl(memory)
    assert repl.run_piped(["/diagnostics\n"]) == 0
    text = " ".join(out.getvalue().split())
    assert ("search by meaning cannot find it; embed it with `tiermem reindex --agent "
            "tester --embedder hashing`") in text  # the memory's own embedder, kept
    assert "HierarchicalMemory" not in text


def test_slash_commands(memory: HierarchicalMemory, tmp_path: Path) -> None:
    repl, out = make_repl(memory)
    snapshot = tmp_path / "snap.json"
    lines = ["I am allergic to peanuts.", "My name is Ada.", "I live in Lyon.",
             "/core", "/archival peanuts", "/recall Lyon", "/diagnostics",
             f"/snapshot {snapshot}", "/model", "/help", "/exit", "My cat is called Miso."]
    assert repl.run_piped(line + "\n" for line in lines) == 0
    text = out.getvalue()
    assert errors_of(repl) == ""

    core_table = text[text.index("core 9/12 tokens"):]
    assert "User lives in Lyon" in core_table and "durable" in core_table
    assert "accesses" in core_table and "score" in core_table
    assert "#1 User is allergic to peanuts (evicted from core)" in text
    assert "user: I live in Lyon." in text
    # /diagnostics shows the same table as `tiermem diagnostics`, not raw JSON.
    table = Console(file=io.StringIO(), width=200)
    print_text(table, memory.diagnostics())
    assert table.file.getvalue() in text  # type: ignore[attr-defined]
    assert '"red_flags"' not in text

    saved = json.loads(snapshot.read_text())
    assert saved["format"] == "tiermem-snapshot/2"
    assert saved["config"]["core_limit"] == 12
    assert {f["text"] for f in saved["tables"]["facts"]} == {
        "User is allergic to peanuts", "User's name is Ada", "User lives in Lyon"}
    assert f"snapshot written to {snapshot}" in text

    assert "model: offline policy (rule-based, no language model)" in text
    assert "/snapshot FILE" in text and "/exit" in text
    # /exit stopped the session: the last line was never sent.
    assert "Miso" not in text
    assert not any("Miso" in r["content"] for r in memory.recall.iter_rows())


def test_a_slash_command_used_wrongly_is_an_error_on_stderr_and_fails_the_run(
        memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory)
    wrong = ["/frobnicate", "/archival", "/recall --all", "/snapshot", "/history",
             "/forget --erase", "/policy bogus"]
    assert repl.run_piped([*wrong, "/model"]) == 1
    assert repl.failures == len(wrong)
    assert errors_of(repl).splitlines() == [
        "unknown command /frobnicate; /help lists them", "usage: /archival [--page N] QUERY",
        "usage: /recall [--all] [--page N] QUERY", "usage: /snapshot FILE",
        "usage: /history clear",
        "usage: /forget [--erase] TEXT (the exact text of what to forget; --erase also "
        "erases it from every file)",
        "usage: /policy, /policy set STATEMENT | STATEMENT, /policy clear"]
    assert out.getvalue().startswith("model:")  # nothing else on standard output


def test_an_unknown_command_names_the_commands_it_most_likely_meant(
        memory: HierarchicalMemory) -> None:
    # Each said only "unknown command ...; /help lists them".
    repl, out = make_repl(memory)
    assert repl.run_piped(["/search tea", "/stats", "/recal tea", "/diag", "/model"]) == 1
    assert errors_of(repl).splitlines() == [
        "unknown command /search (did you mean /archival or /recall?); /help lists them",
        "unknown command /stats (did you mean /diagnostics?); /help lists them",
        "unknown command /recal (did you mean /recall?); /help lists them",
        "unknown command /diag (did you mean /diagnostics?); /help lists them"]
    assert repl.failures == 4 and out.getvalue().startswith("model:")


def test_a_slip_in_another_tools_name_names_what_that_name_would(
        memory: HierarchicalMemory) -> None:
    # Each said only "unknown command ...; /help lists them", though /search, /status and
    # /memory are named; a slip in a name for /forget still names nothing.
    repl, _ = make_repl(memory)
    named = ["/serach tea", "/seach tea", "/stauts", "/memroy", "/exprot x.json"]
    assert repl.run_piped([*named, "/delte keys", "/remote keys"]) == 1
    assert errors_of(repl).splitlines() == [
        *(f"unknown command {line.split()[0]} (did you mean {meant}?); /help lists them"
          for line, meant in zip(named, ["/archival or /recall", "/archival or /recall",
                                         "/diagnostics", "/core", "/snapshot"], strict=True)),
        "unknown command /delte; /help lists them", "unknown command /remote; /help lists them"]


def test_forget_is_named_only_for_a_word_meaning_it_never_for_one_spelt_like_it(
        memory: HierarchicalMemory) -> None:
    # "/forgot my keys" named /forget: run as suggested, it drops what was never to go.
    repl, _ = make_repl(memory)
    assert repl.run_piped(["/forgot my keys", "/forg keys", "/forgive me", "/delete keys"]) == 1
    assert errors_of(repl).splitlines() == [
        "unknown command /forgot; /help lists them",
        "unknown command /forg; /help lists them",
        "unknown command /forgive; /help lists them",
        "unknown command /delete (did you mean /forget?); /help lists them"]


def test_a_command_and_its_keyword_are_read_in_any_case(memory: HierarchicalMemory) -> None:
    # "/Core" and "/EXIT" were unknown commands, "/history CLEAR" and "/policy CLEAR" usage
    # errors, and the run went on past "/EXIT" to send "not sent".
    repl, out = make_repl(memory)
    assert repl.run_piped(["My name is Ada.", "/Core", "/history CLEAR", "/policy Clear",
                           "/EXIT", "not sent"]) == 1
    assert "durability" in out.getvalue()  # /core's table
    assert "erased 0 lines of prompt history" in out.getvalue()
    assert errors_of(repl).splitlines() == [  # /policy clear ran: no policy to clear
        "error: this chat has no privacy policy to change: start the chat with --policy "
        "FILE, or put policy.yaml in the agent home"]
    assert [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"] == [
        "My name is Ada."]


def test_a_record_names_a_command_by_its_name_and_an_unknown_one_as_typed(
        memory: HierarchicalMemory) -> None:
    # The record of "/Frobnicate" said "/frobnicate", a name never typed.
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=io.StringIO(), json_lines=True)
    assert repl.run_piped(["/Frobnicate", "/MODEL"]) == 1
    assert [json.loads(line)["command"] for line in out.getvalue().splitlines()] == [
        "/Frobnicate", "/model"]


def test_a_question_mark_names_help_and_archive_names_archival(
        memory: HierarchicalMemory) -> None:
    # Both said only "unknown command ...; /help lists them".
    repl, _ = make_repl(memory)
    assert repl.run_piped(["/?", "/archive tea", "/Archive tea"]) == 1
    assert errors_of(repl).splitlines() == [
        "unknown command /? (did you mean /help?); /help lists them",
        "unknown command /archive (did you mean /archival?); /help lists them",
        "unknown command /Archive (did you mean /archival?); /help lists them"]


def test_an_unknown_command_in_capitals_is_named_as_typed(memory: HierarchicalMemory) -> None:
    # "/Frobnicate" was told as "unknown command /frobnicate", a name never typed.
    repl, _ = make_repl(memory)
    assert repl.run_piped(["/Frobnicate", "/SERACH tea"]) == 1
    assert errors_of(repl).splitlines() == [
        "unknown command /Frobnicate; /help lists them",
        "unknown command /SERACH (did you mean /archival or /recall?); /help lists them"]


def test_a_command_is_named_only_when_near_enough_and_leaving_only_for_its_own_slips(
        memory: HierarchicalMemory) -> None:
    # "/del" named /model, "/edit", "/next" and "/text" /exit, "/quiet" /quit, "/care" /core.
    repl, _ = make_repl(memory)
    unnamed = ["/del", "/edit", "/next", "/text", "/exist", "/quiet", "/care", "/hell"]
    named = ["/exti", "/exitt", "/quti", "/coer", "/histroy", "/modal", "/diagnstcs"]
    assert repl.run_piped(unnamed + named) == 1
    assert errors_of(repl).splitlines() == [
        *(f"unknown command {word}; /help lists them" for word in unnamed),
        *(f"unknown command {word} (did you mean {meant}?); /help lists them"
          for word, meant in zip(named, ["/exit", "/exit", "/quit", "/core", "/history",
                                          "/model", "/diagnostics"], strict=True))]


def test_a_line_that_opens_with_a_path_or_a_double_slash_is_a_message(
        memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory)
    lines = ["/var/log is full on db-01.", "/etc/nginx/nginx.conf has a typo.",
             "//help is what I typed", "/frobnicate"]
    assert repl.run_piped(line + "\n" for line in lines) == 1
    # Only the unknown command failed: the other three were sent as they read.
    assert errors_of(repl).splitlines() == ["unknown command /frobnicate; /help lists them"]
    rows = memory.snapshot()["tables"]["messages"]
    assert [r["content"] for r in rows if r["role"] == "user"] == [
        "/var/log is full on db-01.", "/etc/nginx/nginx.conf has a typo.",
        "/help is what I typed"]
    assert "core + /var/log is full on db-01" in out.getvalue()


def test_a_slash_command_that_takes_nothing_refuses_extra_words(
        memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory)
    memory.add_fact("User lives in Lisbon", "durable")
    memory.forget("User lives in Lisbon")  # forgotten, not erased
    wrong = ["/core extra", "/help me", "/model gpt", "/diagnostics --json", "/exit now",
             "/quit please", "/forget --erase-forgotten User lives in Lisbon"]
    assert repl.run_piped([*wrong, "/model"]) == 1  # the session went on past /exit now
    assert errors_of(repl).splitlines() == [
        f"usage: {line.split()[0]}{' --erase-forgotten' if 'forget' in line else ''} (it "
        f"takes nothing after it)" for line in wrong]
    assert out.getvalue().startswith("model:")  # nothing else on standard output
    assert len(memory.forget_requests()) == 1  # no second request was made
    assert memory.erase_forgotten().facts == 1  # still owed: nothing was erased


def test_changing_a_policy_a_chat_lacks_names_the_chat_options_not_the_library(
        memory: HierarchicalMemory, tmp_path: Path) -> None:
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=300),
                    errors=io.StringIO(), json_lines=True, home=tmp_path)
    assert repl.run_piped(["/policy set Forget my birthday.", "/policy clear", "/policy"]) == 1
    set_, clear, show = (json.loads(line) for line in out.getvalue().splitlines())
    advice = f"start the chat with --policy FILE, or put policy.yaml in {tmp_path}"
    for record in (set_, clear):
        assert record["error"] == {"kind": "invalid_config", "message":
                                   f"this chat has no privacy policy to change: {advice}"}
    assert show == {"command": "/policy", "output": f"no privacy policy: {advice}\n",
                    "error": None}
    assert repl.failures == 2 and memory.privacy is None


def test_a_tab_after_a_slash_command_separates_it_from_its_words_as_a_space_does(
        memory: HierarchicalMemory) -> None:
    # Piped input keeps a tab as typed (the prompt turns Tab into spaces): "/archival<TAB>tea"
    # was an unknown command "/archival<TAB>tea", and "/forget<TAB>..." forgot nothing.
    repl, out = make_repl(memory)
    lines = ["I like tea.", "/archival\tsomething", "/recall\ttea\t--page\t1",
             "/forget\tUser likes tea", "/core"]
    assert repl.run_piped(line + "\n" for line in lines) == 0
    assert errors_of(repl) == ""
    text = out.getvalue()
    assert "0 matches (page 1 of 1)" in text and "#1 user: I like tea." in text
    assert "User likes tea" not in text[text.index("core 0/12 tokens"):]
    assert memory.core.used == 0


def test_a_slash_command_used_wrongly_has_its_error_in_the_json_record(
        memory: HierarchicalMemory) -> None:
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=io.StringIO(), json_lines=True)
    assert repl.run_piped(["/bogus", "/archival", "/core"]) == 1
    bogus, archival, core = (json.loads(line) for line in out.getvalue().splitlines())
    assert bogus == {"command": "/bogus", "output": "", "error": {
        "kind": "usage", "message": "unknown command /bogus; /help lists them"}}
    assert archival["error"] == {"kind": "usage", "message": "usage: /archival [--page N] QUERY"}
    assert core["error"] is None


def test_a_command_typed_with_a_mark_of_no_width_is_named_as_run_in_its_json_record(
        memory: HierarchicalMemory) -> None:
    # "/forget\u2060" runs /forget: its record named it "/forget\u2060", a command no
    # script looks for.
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=io.StringIO(), json_lines=True)
    assert repl.run_piped(["my PIN is 8675309", "/forget\u2060 --erase my PIN is 8675309",
                           "/CO\u200bRE"]) == 0
    _, forget, core = (json.loads(line) for line in out.getvalue().splitlines())
    assert (forget["command"], core["command"]) == ("/forget", "/core")
    assert forget["output"].startswith("erased: 1 fact") and "8675309" not in forget["output"]


def test_snapshot_to_a_missing_directory_reports_and_continues(
    memory: HierarchicalMemory, tmp_path: Path
) -> None:
    repl, out = make_repl(memory)
    assert repl.run_piped([f"/snapshot {tmp_path}/no/such/dir/s.json", "/model"]) == 1
    assert "error: cannot write" in errors_of(repl) and "create it first" in errors_of(repl)
    assert "model:" in out.getvalue() and "error" not in out.getvalue()


def test_a_snapshot_file_name_no_system_call_takes_is_an_error_not_a_defect(
    memory: HierarchicalMemory, tmp_path: Path
) -> None:
    repl, out = make_repl(memory)
    lines = [f"/snapshot {tmp_path}/s\0.json", "/snapshot ~tiermem-no-such-user/s.json",
             f"/snapshot {tmp_path}/{'s' * 300}.json", "/model"]
    assert repl.run_piped(lines) == 1
    errors = errors_of(repl)
    assert "internal error" not in errors and "please report" not in errors
    assert errors.count("error: cannot write") == 3 and repl.failures == 3
    assert "a file name cannot hold a NUL byte; remove it" in errors
    assert "the directory ~tiermem-no-such-user does not exist; create it first" in errors
    assert "File name too long" in errors
    assert out.getvalue().startswith("model:") and list(tmp_path.iterdir()) == []


def test_provider_error_is_shown_and_the_session_goes_on(memory: HierarchicalMemory) -> None:
    model = ScriptedModel([ProviderError("http://x/v1 failed with HTTP 503", kind="server"),
                           reply("back again")])
    repl, out = make_repl(memory, model)
    assert repl.run_piped(["first try", "second try"]) == 1
    errors = errors_of(repl)
    assert "model error: http://x/v1 failed with HTTP 503" in errors
    assert "kept in recall as unanswered; send it again when the model's server has " \
           "recovered" in errors
    assert "back again" in out.getvalue() and "503" not in out.getvalue()
    statuses = {r["content"]: r["status"] for r in memory.recall.iter_rows()}
    assert statuses["first try"] == "unanswered" and statuses["second try"] == "ok"


def test_step_cap_notice_and_usage_are_shown(memory: HierarchicalMemory) -> None:
    model = ScriptedModel([call("archival_memory_search", query="x", request_heartbeat=True)])
    repl, out = make_repl(memory, model)
    repl.agent.max_steps = 1
    repl.run_piped(["loop forever"])
    assert "stopped after 1 steps" in out.getvalue()


@pytest.mark.parametrize(("steps", "max_steps", "said"), [
    ([call("archival_memory_search", query="x", request_heartbeat=True)] * 2, 2,
     "stopped after 2 steps without a final reply"),
    ([raw_call("core_memory_append", '{"content": "User likes')] * 3, 10,
     "unreadable tool arguments 3 times in a row"),
])
def test_a_turn_the_agent_stopped_counts_as_failed(
        memory: HierarchicalMemory, steps: list[Any], max_steps: int, said: str) -> None:
    # What the turn did stands, but a script reading the exit status or the records must
    # not take the line for answered.
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, ScriptedModel([*steps, reply("Noted.")])),
                    console=Console(file=out, width=200), errors=io.StringIO(),
                    json_lines=True)
    repl.agent.max_steps = max_steps
    assert repl.run_piped(["remember that I like tea", "hello"]) == 1
    stopped, answered = (json.loads(line) for line in out.getvalue().splitlines())
    assert stopped["error"]["kind"] == "turn_stopped" and said in stopped["error"]["message"]
    assert said in stopped["notice"] and answered["error"] is None
    assert repl.failures == 1


def test_reply_text_is_not_read_as_markup(memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory, ScriptedModel([reply("[bold]not bold[/bold] [red]x")]))
    repl.run_piped(["hi"])
    assert "[bold]not bold[/bold] [red]x" in out.getvalue()


def _interactive(memory: HierarchicalMemory, keys: str,
                 llm: LLMClient | None = None) -> tuple[int, str]:
    repl, out = make_repl(memory, llm)
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()  # the keys are all there is: a session still prompting then ends (EOF)
        session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput())
        code = repl.run_interactive(session=session)
    return code, out.getvalue()


def test_interactive_message_then_ctrl_d_exits_zero(memory: HierarchicalMemory) -> None:
    code, text = _interactive(memory, "I am allergic to peanuts.\r/model\r\x04")
    assert code == 0
    assert "tiermem agent tester · model: offline policy" in text  # the banner
    assert "core + User is allergic to peanuts" in text
    assert "model: offline policy" in text
    assert text.rstrip().endswith("bye")
    assert [f.text for f in memory.core] == ["User is allergic to peanuts"]


def test_interactive_ctrl_c_discards_typed_text_and_twice_at_an_empty_prompt_leaves(
        memory: HierarchicalMemory) -> None:
    code, text = _interactive(memory, "half a mess\x03\x03\x03")
    assert code == 0
    assert text.count("press Ctrl-C again or type /exit to leave") == 1
    assert text.rstrip().endswith("bye")
    assert len(memory.recall) == 0  # the unfinished line was not sent


def test_interactive_ctrl_c_hint_is_given_again_after_a_message(
        memory: HierarchicalMemory) -> None:
    code, text = _interactive(memory, "\x03hello\r\x03\x03")
    assert code == 0
    assert text.count("press Ctrl-C again or type /exit to leave") == 2
    assert [r["status"] for r in memory.recall.iter_rows() if r["role"] == "user"] == ["ok"]


def test_interactive_ctrl_c_mid_turn_cancels_it_and_the_session_goes_on(
        memory: HierarchicalMemory) -> None:
    model = ScriptedModel([call("core_memory_append", content="User likes tea",
                                request_heartbeat=True),
                           KeyboardInterrupt(),  # Ctrl-C while the model is thinking
                           reply("Tea is noted.")])
    code, text = _interactive(memory, "I like tea\rI really like tea\r\x03\x03", model)
    assert code == 0
    assert "cancelled; your message is kept in recall as unanswered" in text
    assert "Tea is noted." in text
    assert text.count("press Ctrl-C again or type /exit to leave") == 1
    assert text.rstrip().endswith("bye")
    users = {r["content"]: r["status"] for r in memory.recall.iter_rows() if r["role"] == "user"}
    assert users == {"I like tea": "unanswered", "I really like tea": "ok"}
    assert [f.text for f in memory.core] == []  # the cancelled turn's change was rolled back


def test_recall_marks_the_message_of_a_cancelled_turn_unanswered(
        memory: HierarchicalMemory) -> None:
    model = ScriptedModel([KeyboardInterrupt(), reply("Noted.")])
    code, text = _interactive(memory, "I like tea\rI like green tea\r/recall tea\r\x04", model)
    assert code == 0
    assert re.search(r"#\d+ user \(unanswered\): I like tea\n", text)
    assert re.search(r"#\d+ user: I like green tea\n", text)


def test_interactive_ctrl_c_right_after_a_cancelled_turn_leaves(
        memory: HierarchicalMemory) -> None:
    code, text = _interactive(memory, "I like tea\r\x03never sent\r",
                              ScriptedModel([KeyboardInterrupt()]))
    assert code == 0
    assert "cancelled" in text and "press Ctrl-C again" not in text
    assert [r["content"] for r in memory.recall.iter_rows()] == ["I like tea"]


class PressWhileWriting(io.StringIO):
    """Standard output on which Ctrl-C is pressed, once, as ``marker`` is being written."""

    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker = marker
        self.pressed = False

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.marker in text and not self.pressed:
            self.pressed = True
            signal.raise_signal(signal.SIGINT)  # rich has written it, not yet marked so
        return written


@pytest.mark.parametrize(("keys", "llm", "marker"), [
    ("\x03never sent\r", None, "press Ctrl-C again"),  # the hint at an empty prompt
    ("I like tea\rnever sent\r", ScriptedModel([KeyboardInterrupt()]), "Ctrl-C again or"),
])
def test_a_second_ctrl_c_while_the_hint_is_written_leaves_with_the_hint_once(
        memory: HierarchicalMemory, keys: str, llm: LLMClient | None, marker: str) -> None:
    out = PressWhileWriting(marker)
    repl = ChatRepl(Agent(memory, llm or OfflinePolicy()), console=Console(file=out, width=200),
                    errors=io.StringIO())
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.close()
        code = repl.run_interactive(session=PromptSession(input=pipe, output=DummyOutput()))
    text = out.getvalue()
    assert out.pressed and code == 0
    assert text.count(marker) == 1 and text.rstrip().endswith("bye"), text
    assert "never sent" not in [r["content"] for r in memory.recall.iter_rows()]


def test_interactive_exit_command(memory: HierarchicalMemory) -> None:
    code, text = _interactive(memory, "/exit\rnever sent\r")
    assert code == 0
    assert "bye" not in text
    assert len(memory.recall) == 0


def test_a_message_too_big_for_the_window_is_an_error_not_a_crash(
    memory: HierarchicalMemory,
) -> None:
    repl, out = make_repl(memory, ScriptedModel([reply("short is fine")], context_window=2000))
    assert repl.run_piped(["word " * 3000, "short"]) == 1
    assert "error:" in errors_of(repl) and "window is 2000" in errors_of(repl)
    assert "short is fine" in out.getvalue()


def test_interactive_multi_line_paste_is_one_message(memory: HierarchicalMemory) -> None:
    pasted = "\x1b[200~I am allergic to peanuts.\nMy name is Ada.\x1b[201~\r\x04"
    code, _ = _interactive(memory, pasted)
    assert code == 0
    users = [r for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert [u["content"] for u in users] == ["I am allergic to peanuts.\nMy name is Ada."]
    assert sorted(f.text for f in memory.core) == ["User is allergic to peanuts",
                                                   "User's name is Ada"]


def test_recall_command_says_when_the_total_is_a_lower_bound(
        memory: HierarchicalMemory) -> None:
    memory.recall.window = 3  # a page of 10 still ranks 10
    for i in range(15):
        memory.recall.append("user", f"banana bread recipe number {i}", turn=i)
    memory.recall.append("user", "plum jam", turn=15)
    repl, out = make_repl(memory)
    assert repl.run_piped(["/recall banana\n", "/recall plum\n"]) == 0
    text = out.getvalue()
    # At least the 10 ranked words matches, plus older rows matched by meaning alone.
    assert re.search(r"at least 1\d matches \(the newest ranked\)", text)
    assert "#15 user: banana bread recipe number 14" in text
    assert "\n1 match (page 1 of 1)" in text  # under the window: the exact count


def command_output(repl: ChatRepl, out: io.StringIO, line: str) -> list[str]:
    out.seek(0)
    out.truncate()
    assert repl.run_piped([line]) == 0
    return out.getvalue().splitlines()


def test_recall_command_lists_what_was_said(memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory)
    assert repl.run_piped(["I live in Lisbon.", "Where do I live?"]) == 0
    # By default: the user's own words, not the offline policy's quotes or tool results.
    listed = [re.sub(r"#\d+ ", "#N ", line) for line in command_output(repl, out, "/recall live")]
    assert listed == [
        "2 matches (page 1 of 1)", "  #N user: I live in Lisbon.", "  #N user: Where do I live?"]
    everything = "\n".join(command_output(repl, out, "/recall --all live"))
    assert "tool: core + User lives in Lisbon" in everything
    assert "assistant: Noted." in everything


@pytest.mark.parametrize("line", ["/recall \u2060--all live", "/recall --\u200ball live",
                                  "/recall \u2060 --ALL live", "/recall live \ufeff--all\u2060"])
def test_recall_reads_an_option_beside_a_mark_of_no_width(memory: HierarchicalMemory,
                                                           line: str) -> None:
    # The mark shows nothing: "--all" was read as words to search for, and the tool rows
    # it asks for were left out.
    repl, out = make_repl(memory)
    assert repl.run_piped(["I live in Lisbon."]) == 0
    listed = "\n".join(command_output(repl, out, line))
    assert "tool: core + User lives in Lisbon" in listed and "assistant: Noted." in listed


def test_archival_command_marks_a_superseded_fact_apart_from_an_evicted_one(
        memory: HierarchicalMemory) -> None:
    repl, out = make_repl(memory)
    lines = ["I live in Lisbon.", "I live in Porto now.", "/archival Lisbon"]
    assert repl.run_piped(line + "\n" for line in lines) == 0
    text = out.getvalue()
    assert "#1 User lives in Lisbon (superseded)" in text
    assert "(evicted from core)" not in text


def test_search_commands_page_through_their_matches(memory: HierarchicalMemory) -> None:
    for i in range(25):
        memory.archival_insert(f"runbook {i}: restart the nginx pods")
        memory.recall.append("user", f"nginx note {i}", turn=i)
    repl, out = make_repl(memory)
    first = command_output(repl, out, "/archival nginx")
    assert first[0] == "25 matches (page 1 of 3)" and len(first) == 12
    assert first[-1] == "next: /archival --page 2 nginx"
    third = command_output(repl, out, "/archival --page 3 nginx")
    assert third[0] == "25 matches (page 3 of 3)" and len(third) == 6  # the last five, no next
    seen = {line.split()[0] for page in (first, command_output(repl, out, "/archival --page 2 "
                                                                          "nginx"), third)
            for line in page if line.startswith("  #")}
    assert len(seen) == 25
    second = command_output(repl, out, "/recall --all --page 2 nginx")
    assert second[0] == "25 matches (page 2 of 3)"
    assert second[-1] == "next: /recall --all --page 3 nginx"
    failures = repl.failures
    for line in ("/recall --page=4 nginx", "/recall --page= nginx", "/recall --page=x nginx",
                 "/recall --page 4 nginx", "/recall --page 0 nginx", "/archival --all nginx",
                 "/recall --page nginx", "/recall --page ² nginx", "/recall --force nginx"):
        out.seek(0)
        out.truncate()
        assert repl.run_piped([line]) == 1 and out.getvalue() == "", line
    assert repl.failures == failures + 9
    assert "internal error" not in errors_of(repl)
    memory.recall.append("user", "--force was needed for nginx", turn=99)
    fresh, out = make_repl(memory)
    assert "--force was needed" in "\n".join(command_output(fresh, out, "/recall -- --force"))
    assert "there is no page 4" in errors_of(repl)
    assert "usage: /archival [--page N] QUERY" in errors_of(repl)



def test_a_page_past_the_end_counts_its_matches_and_pages_in_words(
        memory: HierarchicalMemory) -> None:
    memory.recall.append("user", "the nginx pods restarted", turn=1)
    for i in range(12):
        memory.archival_insert(f"runbook {i}: restart the nginx pods")
    repl, _ = make_repl(memory)
    for line in ("/recall --page 2 nginx", "/archival --page 3 nginx",
                 "/archival --page 2 kubernetes"):
        assert repl.run_piped([line]) == 1, line
    errors = " ".join(errors_of(repl).split())
    assert "1 match fills 1 page: there is no page 2" in errors
    assert "12 matches fill 2 pages: there is no page 3" in errors
    assert "nothing matches: there is no page 2" in errors
    assert "(s)" not in errors and "1 matches" not in errors

def test_search_options_after_the_query_are_options(memory: HierarchicalMemory) -> None:
    for i in range(25):
        memory.archival_insert(f"runbook {i}: restart the nginx pods")
        memory.recall.append("user", f"nginx note {i}", turn=i)
    repl, out = make_repl(memory)
    assert repl.run_piped(["I live in Lisbon."]) == 0
    # `/recall live --all` lists the tool rows as `/recall --all live` does, not a search
    # for the words "live --all".
    assert "tool: core + User lives in Lisbon" in "\n".join(
        command_output(repl, out, "/recall live --all"))
    assert command_output(repl, out, "/archival nginx --page 2")[0] == \
        "25 matches (page 2 of 3)"
    second = command_output(repl, out, "/recall nginx --page 2 --all")
    assert second[0].endswith(" matches (page 2 of 3)")
    assert second[-1] == "next: /recall --all --page 3 nginx"
    # `--page=N` is `--page N`, before the query or after it, as on a command line.
    for line in ("/archival --page=2 nginx", "/archival nginx --page=2"):
        assert command_output(repl, out, line)[0] == "25 matches (page 2 of 3)"
    assert command_output(repl, out, "/recall --all --page=2 nginx")[-1] == \
        "next: /recall --all --page 3 nginx"
    assert command_output(repl, out, "/recall nginx --page=3 --all")[0].endswith(
        " matches (page 3 of 3)")
    # After `--` they are the query's words.
    memory.recall.append("user", "deploy --all now", turn=99)
    assert command_output(repl, out, "/recall -- deploy --all")[0] == "1 match (page 1 of 1)"
    assert repl.failures == 0


def test_search_options_are_read_in_any_case_as_the_command_names_are(
        memory: HierarchicalMemory) -> None:
    # "/Recall --ALL pin" and "/archival --PAGE 2 tea", typed with caps lock on, were usage
    # errors, and "/recall pin --ALL" a search for the words "pin --ALL".
    for i in range(12):
        memory.archival_insert(f"tea note {i}: green tea at four")
    repl, out = make_repl(memory)
    assert repl.run_piped(["My PIN is 1234."]) == 0
    for line in ("/Recall --ALL pin", "/recall pin --ALL", "/RECALL PIN --All"):
        assert "tool: core + User's PIN is 1234" in "\n".join(command_output(repl, out, line))
    for line in ("/archival --PAGE 2 tea", "/archival --Page=2 tea", "/ARCHIVAL tea --PAGE 2",
                 "/archival tea --PAGE=2"):
        assert command_output(repl, out, line)[0] == "12 matches (page 2 of 2)", line
    assert repl.failures == 0


def test_recall_command_shows_a_models_replies_but_not_tool_rows(
        memory: HierarchicalMemory) -> None:
    model = ScriptedModel([call("core_memory_append", content="User likes green tea"),
                           reply("Green tea it is.")])
    repl, out = make_repl(memory, model)
    assert repl.run_piped(["I like green tea", "So, green tea?"]) == 0
    hits = command_output(repl, out, "/recall green tea")[1:]
    assert sorted(h.split(":")[0].split()[-1] for h in hits) == ["assistant", "user", "user"]


@pytest.mark.parametrize(("kind", "hint"), [
    ("connection", "send it again when the model is reachable"),
    ("bad_response", "the model's answer could not be read"),
    ("bad_request", "the model refused this request"),
    ("auth", "fix the credentials"),
    ("context_exceeded", "the server's context window is smaller than the one tiermem "
                         "fitted the prompt to (8192 tokens), and the error names no size; "
                         "start the chat with --context-window N"),
])
def test_the_hint_after_a_model_error_fits_its_kind(
        memory: HierarchicalMemory, kind: str, hint: str) -> None:
    error = ProviderError("it failed", kind=kind)  # type: ignore[arg-type]
    repl, _ = make_repl(memory, ScriptedModel([error]))
    assert repl.run_piped(["hello"]) == 1
    assert f"kept in recall as unanswered; {hint}" in errors_of(repl)
    if kind != "connection":
        assert "reachable" not in errors_of(repl)


def test_the_hint_after_a_context_overflow_names_the_size_or_where_to_find_it(
        memory: HierarchicalMemory) -> None:
    named = ProviderError("too long", kind="context_exceeded", context_window=4096)
    repl, _ = make_repl(memory, ScriptedModel([named]))
    assert repl.run_piped(["hello"]) == 1
    said = errors_of(repl)
    assert ("start the chat with --context-window 4096 (or set TIERMEM_CONTEXT_WINDOW=4096), "
            "the size the error names") in said and "names no size" not in said
    repl, _ = make_repl(memory, ScriptedModel([ProviderError("too long",
                                                             kind="context_exceeded")]))
    assert repl.run_piped(["hello"]) == 1
    said = " ".join(errors_of(repl).split())
    assert "the size the error names" not in said
    assert "the window the server was started with (llama-server -c/--ctx-size" in said
    assert "/props" in said and "Ollama num_ctx" in said and "model's card" in said


def test_a_context_overflow_at_the_window_in_use_does_not_send_the_user_in_a_circle(
        memory: HierarchicalMemory) -> None:
    # The chat already runs with the window the error names: saying to set it changes
    # nothing. What can is counting the prompt as the server does, or asking for less.
    named = ProviderError("too long", kind="context_exceeded", context_window=4096)
    repl, _ = make_repl(memory, ScriptedModel([named], context_window=4096))
    assert repl.run_piped(["hello"]) == 1
    said = " ".join(errors_of(repl).split())
    assert "--context-window 4096" not in said and "smaller than tiermem assumed" not in said
    assert "tiermem already fits the prompt and reply to 4096 tokens" in said
    assert "a smaller --context-window (e.g. 3481) or a lower --max-tokens" in said


def test_a_context_overflow_below_a_window_given_names_that_window(
        memory: HierarchicalMemory) -> None:
    # The user gave --context-window 8192 and the server runs with 4096: nothing was assumed.
    named = ProviderError("too long", kind="context_exceeded", context_window=4096)
    repl, _ = make_repl(memory, ScriptedModel([named], context_window=8192))
    assert repl.run_piped(["hello"]) == 1
    said = " ".join(errors_of(repl).split())
    assert ("the server's context window is smaller than the one tiermem fitted the prompt "
            "to (8192 tokens); start the chat with --context-window 4096") in said
    assert "assumed" not in said


def test_a_web_page_for_an_answer_sends_the_user_to_the_url(
        memory: HierarchicalMemory, server: Any) -> None:
    from fake_openai import FakeResponse

    from tiermem.agent.openai_client import OpenAIClient

    server.enqueue(FakeResponse(body=b"<!DOCTYPE html><html><title>Open WebUI</title></html>",
                                headers={"Content-Type": "text/html"}))
    model = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
    repl, _ = make_repl(memory, model)
    assert repl.run_piped(["hello"]) == 1
    said = " ".join(errors_of(repl).split())
    assert (f"kept in recall as unanswered; check the URL, not the model: {server.base_url} "
            f"may be a web UI's address") in said
    assert "`tiermem doctor --base-url URL`" in said and "tool calling" not in said


@pytest.mark.parametrize(("error", "kind"), [
    (ContextOverflowError("too long"), "context_overflow"),
    (OSError("disk"), "os"),
    (ProviderError("slow", kind="timeout"), "timeout"),
])
def test_error_kinds_are_snake_case_names(error: Exception, kind: str) -> None:
    assert error_kind(error) == kind


def test_a_piped_json_chat_cancelled_by_ctrl_c_still_answers_the_line(
        memory: HierarchicalMemory) -> None:
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, ScriptedModel([KeyboardInterrupt()])),
                    console=Console(file=out, width=200), errors=io.StringIO(), json_lines=True)
    with pytest.raises(KeyboardInterrupt):  # the run ends, exit 130
        repl.run_piped(["hello there"])
    record = json.loads(out.getvalue())
    assert record["message"] == "hello there" and record["reply"] is None
    assert record["error"]["kind"] == "cancelled"
    assert "cancelled" in errors_of(repl)


@pytest.mark.parametrize(("line", "named"), [("/Frobnicate now", "/Frobnicate"),
                                             ("/CORE", "/core")])
def test_a_command_cancelled_by_ctrl_c_is_named_as_its_record_otherwise_is(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch, line: str,
        named: str) -> None:
    # Cancelled, an unknown command was recorded in lower case ("/frobnicate"), a name
    # never typed, though run to its end it is recorded as typed.
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=io.StringIO(), json_lines=True)

    def interrupted(text: str) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(repl.commands, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        repl.run_piped([line])
    record = json.loads(out.getvalue())
    assert record["command"] == named and record["error"]["kind"] == "cancelled"


def test_the_smaller_window_suggested_is_smaller_than_the_one_in_use() -> None:
    from tiermem.agent.chat_output import provider_hint

    error = ProviderError("too long", kind="context_exceeded", context_window=32768)
    said = provider_hint(error, 8192)
    assert "fits the prompt and reply to 8192 tokens" in said
    assert "(e.g. 6963)" in said


def test_interactive_ctrl_c_during_a_slash_command_says_it_stopped_and_goes_on(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not only 'press Ctrl-C again': the command's output was cut short, and a user must
    know what it left; the prompt comes back, and one more Ctrl-C leaves as usual."""
    calls = [0]
    diagnostics = HierarchicalMemory.diagnostics

    def interrupted(self: HierarchicalMemory) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            raise KeyboardInterrupt
        return diagnostics(self)

    monkeypatch.setattr(HierarchicalMemory, "diagnostics", interrupted)
    code, text = _interactive(memory, "/diagnostics\rI am allergic to peanuts.\r\x03\x03")
    assert code == 0
    assert ("/diagnostics stopped (Ctrl-C): it changed nothing; press Ctrl-C again or type "
            "/exit to leave") in text
    assert "core + User is allergic to peanuts" in text  # the session went on
    assert text.rstrip().endswith("bye")
