"""Provider chaos: a model endpoint that fails in every way a real one has been seen to.

The agent talks to bench/loopback_openai.py through the real ``openai``
client. A failing response must end the turn in a ``ProviderError`` with
memory byte-identical to before the turn (only the user's message is kept,
marked unanswered); calls of tools that do not exist must come back to the
model as ``Error:`` messages. The same fault then goes through the chat
REPL, which must survive it and answer the next message normally.
"""

from __future__ import annotations

import io
import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from tiermem.agent.errors import ProviderError
from tiermem.agent.loop import Agent, TurnResult
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.repl import ChatRepl
from tiermem.bench.fault_audit import audit, content_hash
from tiermem.bench.fault_kill_child import open_memory
from tiermem.bench.fault_result import FaultResult, describe, is_clear
from tiermem.bench.loopback_openai import Answer, LoopbackOpenAI, completion_body, reply, tool_calls
from tiermem.memory import HierarchicalMemory

RETRIES = 1
#: Only the hanging server is waited on; every other answer arrives at once.
HANG_TIMEOUT_S = 0.3
_JSON = {"Content-Type": "application/json"}
_GARBAGE = (b"{not json", b"<html><body>502 Bad Gateway</body></html>", b"", b"null", b"[]",
            b'{"choices": [{"message": ', b"\xff\xfe\x00garbage", b'"a string"', b"42")
_NAMES = ("no_such_tool", "", "archival_memory_search ", "Core_Memory_Append", "x" * 300,
          "\\ud800tool", "send_message\\u0000", "../../etc/passwd")
_WRONG_CHOICES: tuple[object, ...] = (
    {}, {"0": {"message": {"role": "assistant", "content": "hi"}}}, "choices", 42, None,
    ["hi"], [1, 2], [{"message": "hi"}], [{"message": ["hi"]}],
    [{"message": {"role": "assistant", "content": None, "tool_calls": "x"}}],
    [{"message": {"role": "assistant", "content": None, "tool_calls": [{"function": None}]}}])


@dataclass(frozen=True)
class Chaos:
    """One way to fail: the answers for one turn, and whether the turn may still complete."""

    answers: list[Answer]
    may_complete: bool = False


def _error_status(rng: random.Random, status: int) -> Chaos:
    body = rng.choice((json.dumps({"error": {"message": "scripted failure"}}).encode(),
                       b"<html>overloaded</html>", b""))
    headers = {"Retry-After": "0"} if status == 429 else {}
    return Chaos([Answer(status=status, body=body, headers=headers)] * (RETRIES + 1))


def _truncated(rng: random.Random) -> Chaos:
    body = reply("a reply that will be cut short " * 4).body
    cut = rng.randrange(0, len(body) - 1)
    return Chaos([Answer(body=body[:cut], headers=_JSON, declared_length=len(body))]
                 * (RETRIES + 1))


def _unknown_tools(rng: random.Random) -> Chaos:
    names = rng.sample(_NAMES, rng.randint(1, 3))
    raw = tool_calls(*[("PLACEHOLDER" + str(i), "{}") for i in range(len(names))]).body.decode()
    for i, name in enumerate(names):  # JSON escapes stay escapes: lone surrogates, NUL
        raw = raw.replace(f'"PLACEHOLDER{i}"', f'"{name}"')
    return Chaos([Answer(body=raw.encode(), headers=_JSON), reply("Done.")], may_complete=True)


def _wrong_choices(rng: random.Random) -> Chaos:
    if rng.random() < 0.25:  # a good message with a usage block that is not numbers
        usage: dict[str, object] = {"prompt_tokens": "many", "completion_tokens": [],
                                    "total_tokens": None}
        body = completion_body({"role": "assistant", "content": "Fine."}, usage=usage)
        return Chaos([Answer(body=body, headers=_JSON)], may_complete=True)
    body = completion_body(None, choices=rng.choice(_WRONG_CHOICES))
    return Chaos([Answer(body=body, headers=_JSON)])


KINDS: dict[str, Callable[[random.Random], Chaos]] = {
    "HTTP 500": lambda rng: _error_status(rng, rng.choice((500, 502, 503))),
    "HTTP 429": lambda rng: _error_status(rng, 429),
    "garbage JSON": lambda rng: Chaos([Answer(body=rng.choice(_GARBAGE), headers=_JSON)]),
    "truncated body": _truncated,
    "hang": lambda rng: Chaos([Answer(hang=True)]),
    "unknown tools": _unknown_tools,
    "wrong-type choices": _wrong_choices,
}


class ChaosSession:
    """One agent home talking to the loopback server."""

    def __init__(self, home: Path, server: LoopbackOpenAI) -> None:
        self.server = server
        self.memory: HierarchicalMemory = open_memory(home)
        self.memory.process_interaction("The production region is eu-west-1.", "Noted.")
        self.memory.archival_insert("Invoices are due monthly.")
        self.clients: list[OpenAIClient] = []

    def client(self, kind: str) -> OpenAIClient:
        self.clients.append(OpenAIClient(
            "loopback-model", base_url=self.server.base_url, api_key="local",
            max_retries=0 if kind == "hang" else RETRIES,
            timeout=HANG_TIMEOUT_S if kind == "hang" else 30.0, context_window=16_384,
            sleep=lambda seconds: None))
        return self.clients[-1]

    def close(self) -> None:
        for client in self.clients:
            client.close()
        self.memory.close()

    def agent(self, kind: str) -> Agent:
        return Agent(self.memory, self.client(kind))

    def last_message_id(self) -> int:
        return self.memory.store.messages.max_id()

    def step(self, agent: Agent, chaos: Chaos, text: str) -> TurnResult | BaseException:
        self.server.push(*chaos.answers)
        try:
            return agent.step(text)
        except Exception as exc:
            return exc
        finally:
            self.server.clear()


def _judge_turn(session: ChaosSession, kind: str, chaos: Chaos, trial: int,
                result: FaultResult) -> None:
    memory = session.memory
    what = f"{kind} #{trial}"
    before_id = session.last_message_id()
    before = content_hash(memory, max_message_id=before_id)
    counts = _fact_and_passage_counts(memory)
    outcome = session.step(session.agent(kind), chaos, f"Chaos turn {trial}: what is new?")
    if isinstance(outcome, BaseException):
        if not is_clear(outcome) or chaos.may_complete:
            result.crash(f"{what}: the turn raised {describe(outcome)}")
            return
        result.clear()
        after = [(r["role"], r["status"]) for r in memory.recall.rows(
            range(before_id + 1, memory.store.messages.max_id() + 1))]
        if content_hash(memory, max_message_id=before_id) != before:
            result.diverge(f"{what}: the failed turn changed stored data")
        elif [tuple(row) for row in after] != [("user", "unanswered")]:
            result.diverge(f"{what}: the failed turn left messages {[tuple(r) for r in after]}")
        return
    if not chaos.may_complete:
        result.diverge(f"{what}: a response that is not a completion was taken as one "
                       f"(reply {outcome.reply!r:.60})")
    for tool_result in outcome.tool_results:
        if tool_result.ok or not tool_result.content.startswith("Error:"):
            result.crash(f"{what}: tool {tool_result.name[:30]!r} did not fail with 'Error:'")
        else:
            result.clear()
    if _fact_and_passage_counts(memory) != counts:
        result.diverge(f"{what}: calls of unknown tools changed facts or passages")


def _fact_and_passage_counts(memory: HierarchicalMemory) -> tuple[int, int]:
    return len(memory.store.facts.all()), memory.store.passages.count()


def _judge_repl(session: ChaosSession, kind: str, chaos: Chaos, trial: int,
                result: FaultResult) -> None:
    """The chat REPL survives the fault and answers the next message."""
    what = f"{kind} #{trial} in the REPL"
    console = Console(file=io.StringIO(), width=120)
    errors = io.StringIO()  # what the REPL tells its user belongs to the trial, not the report
    agent = session.agent(kind)
    repl = ChatRepl(agent, console=console, errors=errors)
    marker = f"Recovered after {kind} #{trial}."
    try:
        session.server.push(*chaos.answers)
        repl.handle(f"Chaos turn {trial} through the REPL")
        session.server.clear()
        agent.llm = session.client("healthy")  # the short timeout was for the hang only
        session.server.push(reply(marker))
        repl.handle("Are you there?")
    except ProviderError as exc:  # the REPL itself must catch these
        result.crash(f"{what}: {describe(exc)} escaped the REPL")
        return
    except Exception as exc:
        result.crash(f"{what}: the REPL raised {describe(exc)}")
        return
    finally:
        session.server.clear()
    found = any(row["role"] == "assistant" and row["content"] == marker
                for row in session.memory.recall.iter_rows())
    if not found:
        result.crash(f"{what}: the next message got no reply: "
                     f"{console.file.getvalue()[-160:]!r}"  # type: ignore[attr-defined]
                     f" {errors.getvalue()[-160:]!r}")


def run_provider(seed: int, quick: bool, trials: int | None = None) -> list[FaultResult]:
    count = trials if trials is not None else (2 if quick else 8)
    rows = []
    with LoopbackOpenAI() as server, tempfile.TemporaryDirectory(prefix="tiermem-chaos-") as tmp:
        for kind, make in KINDS.items():
            result = FaultResult(f"provider: {kind}", "provider")
            rng = random.Random(f"{seed}:provider:{kind}")
            session = ChaosSession(Path(tmp) / kind.replace(" ", "-"), server)
            served = server.requests
            try:
                for trial in range(count):
                    chaos = make(rng)
                    result.trials += 1
                    _judge_turn(session, kind, chaos, trial, result)
                    _judge_repl(session, kind, chaos, trial, result)
                result.diverge_all(audit(session.memory), "after the chaos")
            finally:
                session.close()
            result.figures = {"requests_served": server.requests - served}
            rows.append(result)
    return rows
