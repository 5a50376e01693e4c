"""`tiermem chat` in a real terminal (a pty), with Ctrl-C sent as a user sends it.

The turn is held open by the loopback model server, which answers only when
told to and says when a request has arrived; Ctrl-C is sent once it has, so
it lands mid-turn every time, with no sleeps. The terminal's line discipline
turns the \\x03 byte into a SIGINT for the chat process, as a keyboard does.
"""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest
from fake_openai import FakeOpenAIServer
from network_guard import guarded_env

from tiermem.memory import HashingEmbedder, HierarchicalMemory

ROOT = Path(__file__).resolve().parent.parent
PASTE = "\n".join(f"line {i}: the nightly backup job copied 1432 files to the archive"
                  for i in range(900))  # about 60 KB
WAIT = 120.0  # only bounds a failure; every wait ends on the awaited output


def child_pythonpath() -> str:
    """A ``PYTHONPATH`` for a child that runs in the repository root and imports the
    tiermem this test run imports (PYTHONPATH may point at a working copy): an entry
    relative to where pytest started would otherwise be looked up in the root."""
    given = [str(Path(entry).resolve())
             for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    return os.pathsep.join([*given, str(ROOT)])


class PtyChat:
    """A chat process on a pseudo-terminal: what it prints, and keys to send it."""

    def __init__(self, home: Path, *args: str, stdout: int | None = None,
                 **extra_env: str) -> None:
        """``stdout``: a file descriptor the chat's standard output goes to instead of the
        terminal (a pipe); standard error stays the terminal."""
        env = {"PATH": os.environ.get("PATH", ""), "TIERMEM_HOME": str(home),
               "HF_HUB_OFFLINE": "1", "PYTHONPATH": child_pythonpath(), "TERM": "xterm",
               "NO_COLOR": "1", "COLUMNS": "200", "LINES": "50", "PYTHONIOENCODING": "utf-8",
               # The pty answers no cursor-position query; prompt-toolkit need not ask one.
               "PROMPT_TOOLKIT_NO_CPR": "1", **extra_env}
        pid, fd = pty.fork()
        if pid == 0:  # the child: a terminal of 200 columns, then the chat
            # As a terminal session starts it: under nohup, or a background job of a
            # script, the test runner may have inherited these signals ignored.
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, signal.SIG_DFL)
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
            if stdout is not None:
                os.dup2(stdout, 1)
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "cli.py", "chat", *args],
                      guarded_env(env))
        self.pid, self.fd = pid, fd
        self.running = True
        self.output = bytearray()
        self.ended = False  # the child closed the terminal
        self.seen = 0
        self.changed = threading.Condition()
        # Output is read all the time, so the chat never blocks on a full terminal while
        # the test waits for something else (the model server).
        self.reader = threading.Thread(target=self._read_all, daemon=True)
        self.reader.start()

    def _read_all(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # EIO: the child has closed the terminal
                data = b""
            with self.changed:
                self.output += data
                self.ended = not data
                self.changed.notify_all()
            if not data:
                return

    def tail(self) -> str:
        return self.output[-3000:].decode(errors="replace")

    def expect(self, text: str) -> None:
        """Wait until ``text`` appears after what earlier calls matched."""
        wanted = text.encode()
        with self.changed:
            found = self.changed.wait_for(
                lambda: self.output.find(wanted, self.seen) >= 0 or self.ended, WAIT)
            at = self.output.find(wanted, self.seen)
            if at < 0:
                why = "the chat ended" if found else f"nothing for {WAIT} s"
                raise AssertionError(f"{why} before {text!r}; so far: {self.tail()}")
            self.seen = at + len(wanted)

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view[:4096]):]

    def exit_code(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        self.running = False
        self.reader.join(WAIT)
        return os.waitstatus_to_exitcode(status)

    def close(self) -> None:
        """End the chat if a failed test left it running, and release the terminal."""
        if self.running:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.running = False
        self.reader.join(WAIT)
        os.close(self.fd)


def test_ctrl_c_mid_turn_keeps_a_60_kb_paste_and_the_session_goes_on(
        tmp_path: Path, server: FakeOpenAIServer) -> None:
    home = tmp_path / "home"
    server.enqueue_hold()  # the first turn waits on the model until Ctrl-C
    chat = PtyChat(home, "--agent", "a", "--embedder", "hashing", "--model", "fake-model",
                   "--base-url", server.base_url, TIERMEM_CONTEXT_WINDOW="65536")
    try:
        chat.expect("you>")
        chat.send(b"\x1b[200~" + PASTE.encode() + b"\x1b[201~\r")  # a bracketed paste
        server.wait_for_requests(1, WAIT)
        chat.send(b"\x03")
        chat.expect("cancelled; your message is kept in recall as unanswered")
        chat.expect("you>")
        server.enqueue_reply("Backups look fine.")
        chat.send(b"How are the backups?\r")
        chat.expect("Backups look fine.")
        chat.expect("you>")
        chat.send(b"\x03")
        chat.expect("press Ctrl-C again or type")
        chat.send(b"\x03")
        chat.expect("bye")
        code = chat.exit_code()
    finally:
        chat.close()
    assert code == 0, chat.tail()
    assert len(server.requests) == 2
    with HierarchicalMemory(home / "agents" / "a", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        users = [(r["content"], r["status"]) for r in memory.recall.iter_rows()
                 if r["role"] == "user"]
        typed = memory.prompt_history.lines()
    assert users == [(PASTE, "unanswered"), ("How are the backups?", "ok")]
    # The prompt history is in the database (the paste is too long to be kept there),
    # and no plain-text history file is written.
    assert typed == ["How are the backups?"]
    assert not (home / "agents" / "a" / "history").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_at_the_prompt_gives_the_terminal_back_and_sets_the_exit_status(
        tmp_path: Path, signum: int) -> None:
    chat = PtyChat(tmp_path / "home", "--agent", "a", "--embedder", "hashing", "--offline")
    try:
        chat.expect("you>")
        chat.send(b"I like tea.\r")
        chat.expect("core + User likes tea")
        chat.expect("\x1b[?2004h")  # the next prompt has the terminal: raw, bracketed paste
        chat.expect("you>")
        os.kill(chat.pid, signum)
        code = chat.exit_code()
        modes = termios.tcgetattr(chat.fd)[3]
    finally:
        chat.close()
    assert code == 128 + signum, chat.tail()
    assert modes & termios.ECHO and modes & termios.ICANON and modes & termios.ISIG
    assert chat.output.rfind(b"\x1b[?2004l") > chat.output.rfind(b"\x1b[?2004h")
    assert b"Traceback" not in chat.output
    name = signal.Signals(signum).name
    said = (f"tiermem: chat stopped ({name}) at the prompt; the turns and commands before it "
            f"were saved, and a line typed but not sent was not")
    assert said in chat.output.decode(errors="replace"), chat.tail()


def test_with_its_output_piped_the_prompt_is_drawn_on_the_terminal(tmp_path: Path) -> None:
    # `tiermem chat | tee chat.log`: the replies go to the pipe, the prompt to the terminal
    # (standard error); drawn into the pipe, its redrawing filled the log with blank lines
    # and broken copies of each line typed, and the terminal showed no prompt.
    read_end, write_end = os.pipe()
    chat = PtyChat(tmp_path / "home", "--agent", "a", "--embedder", "hashing", "--offline",
                   stdout=write_end)
    os.close(write_end)
    try:
        chat.expect("\x1b[?2004h")  # the prompt has the terminal
        chat.expect("you>")
        chat.send(b"I like tea.\r")
        chat.expect("I like tea.")
        chat.expect("\x1b[?2004h")  # the next prompt: the turn is done
        chat.send(b"\x04")
        code = chat.exit_code()
        with os.fdopen(read_end, "rb") as pipe:
            piped = pipe.read().decode()
    finally:
        chat.close()
    assert code == 0, chat.tail()
    lines = piped.splitlines()
    assert "core + User likes tea" in piped and lines[-1] == "bye", piped
    assert "you>" not in piped and "" not in lines and "\x1b" not in piped, piped


def test_a_relative_pythonpath_still_picks_the_run_s_tiermem_in_the_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tiermem

    (tmp_path / "pp").mkdir()
    (tmp_path / "pp" / "tiermem").symlink_to(Path(tiermem.__file__).parent)
    monkeypatch.chdir(tmp_path)  # pytest started here, with PYTHONPATH=pp
    monkeypatch.setenv("PYTHONPATH", "pp")
    env = guarded_env({"PATH": os.environ.get("PATH", ""), "PYTHONPATH": child_pythonpath()})
    found = subprocess.run([sys.executable, "-c", "import tiermem; print(tiermem.__file__)"],
                           cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    # Looked up in the root, "pp" is no directory: another tiermem, or none, was imported.
    assert found.stdout.strip() == str(tmp_path / "pp" / "tiermem" / "__init__.py"), (
        found.stdout + found.stderr)
