"""The one runner for every scenario: drive the real agent day by day, then check outcomes.

The memory lives in ``$TIERMEM_HOME/scenarios/<name>`` (recreated at each
run) so ``tiermem diagnostics --scenario <name>`` can report on the last run; a run
refuses to start while another holds it (``StoreLockedError``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tiermem.agent.command_hints import hint_for
from tiermem.agent.context import ContextOverflowError
from tiermem.agent.errors import ProviderError
from tiermem.agent.home import tiermem_home
from tiermem.agent.llm import LLMClient
from tiermem.agent.loop import Agent, TurnResult
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.tool_use import no_tool_calls_warning, tool_calls
from tiermem.memory import Embedder, HierarchicalMemory
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.opening import open_backend
from tiermem.memory.store.sqlite.store import SQLiteStore
from tiermem.memory.store.sqlite.writer_lock import WriterLock
from tiermem.scenarios.model import Day, Question, Scenario

#: Files a scenario home may hold; only these are removed before a new run.
# The writer lock file stays: a process holding it keeps its lock on that file, so a new
# file would let two runs write one home.
_HOME_FILES = ("memory.sqlite3", "memory.sqlite3-wal", "memory.sqlite3-shm", "archival.faiss",
               "archival.json", "archival.sq8", "recall.faiss", "recall.json", "recall.sq8")


@dataclass
class DayLog:
    """What one day did to memory, for the timeline."""

    name: str
    entered_core: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)
    archived_directly: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    recalled: list[str] = field(default_factory=list)
    #: Agent turns that day, the tool calls they made (all, and memory tools only),
    #: and the seconds they took.
    turns: int = 0
    #: Turns the model failed (an HTTP error, a context it could not fit), with the reason.
    errors: list[str] = field(default_factory=list)
    #: What to do about those failures, as their errors advise it (each said once).
    advice: list[str] = field(default_factory=list)
    tool_calls: int = 0
    memory_tool_calls: int = 0
    seconds: float = 0.0

    def count(self, turn: TurnResult, seconds: float) -> None:
        calls, memory_calls = tool_calls(turn.tool_results)
        self.turns += 1
        self.tool_calls += calls
        self.memory_tool_calls += memory_calls
        self.seconds = round(self.seconds + seconds, 3)


@dataclass
class Check:
    name: str
    passed: bool
    detail: str


@dataclass
class Answer:
    question: Question
    reply: str
    found_in: list[str]
    passed: bool
    #: When it was asked: a day's name, or "questions" after the last day.
    when: str = "questions"

    @property
    def quoted_stale(self) -> list[str]:
        """The stale fragments the reply contains."""
        reply = self.reply.casefold()
        return [s for s in self.question.stale if s.casefold() in reply]

    @property
    def echoes_question(self) -> bool:
        """The reply quotes the question back (as asked before) instead of an answer."""
        return self.question.ask.casefold() in self.reply.casefold()


@dataclass
class ScenarioResult:
    scenario: Scenario
    model: str
    home: Path | str
    days: list[DayLog]
    answers: list[Answer]
    checks: list[Check]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks) and not self.failed_turns

    @property
    def failed_turns(self) -> int:
        return sum(len(d.errors) for d in self.days)

    @property
    def advice(self) -> list[str]:
        """What the failed turns' errors advise, each said once."""
        return list(dict.fromkeys(a for d in self.days for a in d.advice))

    @property
    def tool_calls(self) -> int:
        return sum(d.tool_calls for d in self.days)

    @property
    def memory_tool_calls(self) -> int:
        return sum(d.memory_tool_calls for d in self.days)

    @property
    def warning(self) -> str | None:
        """Set when the model never called a memory tool in a turn it answered: the run
        measured no memory. Turns the server failed made no calls the model could have."""
        answered = sum(d.turns for d in self.days) - self.failed_turns
        return no_tool_calls_warning(self.memory_tool_calls, answered)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.name,
            "model": self.model,
            "passed": self.passed,
            "failed_turns": self.failed_turns,
            "tool_calls": self.tool_calls,
            "memory_tool_calls": self.memory_tool_calls,
            "no_tool_calls": self.warning is not None,
            "warning": self.warning,
            # Each day's advice for its own turns, and the run's, each said once.
            "advice": self.advice,
            "days": [vars(d) for d in self.days],
            "answers": [{"ask": a.question.ask, "when": a.when, "expect": a.question.expect,
                         "stale": list(a.question.stale), "present": a.question.present,
                         "reply": a.reply, "found_in": a.found_in, "passed": a.passed}
                        for a in self.answers],
            "checks": [vars(c) for c in self.checks],
        }


def scenario_home(name: str) -> Path:
    return tiermem_home() / "scenarios" / name


def scenario_agent(name: str) -> str:
    """The agent a scenario runs as in a PostgreSQL database."""
    return f"scenario-{name}"


def _fresh_agent(dsn: str, name: str) -> StorageBackend:
    """The scenario's agent in the database ``dsn``, emptied and left open: its writer lock
    is held from the emptying on, so a run started meanwhile is refused, not this one."""
    store = open_backend(dsn, name, read_only=False)
    try:
        with store.transaction():
            store.clear()
    except BaseException:
        store.close()
        raise
    return store


def _fresh_home(home: Path) -> StorageBackend:
    """The scenario's home, emptied and opened under one hold of its writer lock: a run
    another process is making there is refused (StoreLockedError), not deleted from under
    it, and one started in between is the one refused, not this one."""
    home.mkdir(parents=True, exist_ok=True)
    lock = WriterLock(home)
    lock.acquire()
    try:
        for name in _HOME_FILES:
            with contextlib.suppress(FileNotFoundError):
                (home / name).unlink()
        return SQLiteStore(home, writer_lock=lock)
    except BaseException:
        lock.release()
        raise


def _log_events(memory: HierarchicalMemory, since: int, log: DayLog) -> None:
    for event in memory.events_since(since):
        target = {"add": log.entered_core, "promote": log.entered_core,
                  "evict": log.evicted, "bypass": log.archived_directly,
                  "oversize": log.archived_directly,
                  "retire": log.superseded}.get(event["kind"])
        if target is not None:
            target.append(event["text"])


def _found_in(memory: HierarchicalMemory, turn: TurnResult, expect: str) -> list[str]:
    """The tiers that surfaced ``expect`` during this turn."""
    wanted = expect.casefold()
    tiers = []
    if any(wanted in fact.text.casefold() for fact in memory.core):
        tiers.append("core")
    for outcome in turn.tool_results:
        if not outcome.ok or not isinstance(outcome.value, dict):
            continue
        texts = [str(r.get("text", "")) for r in outcome.value.get("results", [])]
        if any(wanted in t.casefold() for t in texts):
            tiers.append(str(outcome.value.get("tier")))
    return list(dict.fromkeys(tiers))


def run_scenario(
    scenario: Scenario,
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
    home: Path | None = None,
    on_day: Callable[[DayLog], None] | None = None,
    store: str | None = None,
) -> ScenarioResult:
    """Run ``scenario`` through an agent and check its expected outcomes; in the
    PostgreSQL database ``store`` (as agent ``scenario_agent``) when given."""
    if store is not None:
        backend = _fresh_agent(store, scenario_agent(scenario.name))
    else:
        home = home or scenario_home(scenario.name)
        backend = _fresh_home(home)
    llm = llm or OfflinePolicy()
    try:
        memory = HierarchicalMemory(core_limit=scenario.core_limit,
                                    core_limit_unit=scenario.core_limit_unit,
                                    embedder=embedder, store=backend)
    except BaseException:
        backend.close()  # closed already when the memory failed after taking it
        raise
    with memory:
        agent = Agent(memory, llm)
        days: list[DayLog] = []
        answers: list[Answer] = []
        for day in [*scenario.days, Day("questions", scenario.questions)]:
            log, since = DayLog(day.name), memory.last_event_id()
            for message in day.messages:
                started = time.perf_counter()
                turn = _turn(agent, memory, message, day.name, log, answers)
                log.count(turn, time.perf_counter() - started)
            _log_events(memory, since, log)
            days.append(log)
            if on_day:
                on_day(log)
        checks = _checks(memory, scenario, answers)
    where = home if store is None and home is not None else memory.store.location
    return ScenarioResult(scenario, llm.name, where, days, answers, checks)


def _turn(agent: Agent, memory: HierarchicalMemory, message: str | Question, when: str,
          log: DayLog, answers: list[Answer]) -> TurnResult:
    """One message of the day; a model's failure costs that turn, not the run, unless
    every later turn would fail the same way (``_ends_the_run``)."""
    try:
        if not isinstance(message, Question):
            return agent.step(message)
        answer, turn = _ask(agent, memory, message, when)
    except (ProviderError, ContextOverflowError) as exc:
        if _ends_the_run(exc):
            raise
        # Memory was rolled back to before the turn; the checks show what it cost.
        said = message.ask if isinstance(message, Question) else message
        log.errors.append(f"{said[:60]}: {exc}")
        hint = exc.hint if isinstance(exc, ProviderError) else None
        if hint and hint_for(hint, "scenario") not in log.advice:
            log.advice.append(hint_for(hint, "scenario"))
        if isinstance(message, Question):
            answers.append(Answer(message, "", [], False, when))
        return TurnResult(reply=None)
    answers.append(answer)
    log.recalled.append(f"{message.ask} -> {', '.join(answer.found_in) or 'nothing'}")
    return turn


def _ends_the_run(exc: Exception) -> bool:
    """A server that cannot be reached (after the client's retries), refused credentials,
    or a model it does not have, or a refusal with its own hint that sending again cannot
    help (a server not started for tool calls, a web page at the base URL, a request over
    a proxy's size limit): every turn left would fail alike, and the checks would then
    blame the model for what the server did; so does a model too large for the memory
    free, or a server that sees no GPU. A failure that may pass (the process running the
    model died, and the next request starts it afresh; a connection closed mid-answer, as
    the server crashed or restarted) costs that turn only."""
    return isinstance(exc, ProviderError) and not exc.may_pass and (
        exc.kind in ("connection", "auth") or exc.status_code == 404
        or (exc.hint is not None and not exc.retryable and not exc.may_pass))


def _ask(agent: Agent, memory: HierarchicalMemory, question: Question,
         when: str) -> tuple[Answer, TurnResult]:
    """Ask ``question`` and judge the reply: the expected text, from the right tier, nothing
    stale, and not the question itself quoted back as evidence."""
    turn = agent.step(question.ask)
    found = _found_in(memory, turn, question.expect)
    reply = turn.reply or ""
    answer = Answer(question, reply, found, False, when)
    answer.passed = (question.expect.casefold() in reply.casefold()
                     and any(t in found for t in question.tiers) and not answer.quoted_stale
                     and not answer.echoes_question)
    return answer, turn


def _checks(memory: HierarchicalMemory, scenario: Scenario, answers: list[Answer]) -> list[Check]:
    core_texts = [f.text.casefold() for f in memory.core]
    facts = memory.facts()
    checks = []
    over = [p for p in memory.store.history.points() if p.core_size > memory.core.limit]
    checks.append(Check("core never over its limit", not over,
                        f"limit {memory.core.limit} {memory.core.unit}; "
                        f"{len(over)} interactions over it"))
    for fragment in scenario.durable_in_core:
        present = any(fragment.casefold() in t for t in core_texts)
        checks.append(Check(f"in core at the end: {fragment}", present,
                            "present" if present else "missing from core"))
    # Evicted for room or retired as no longer true: either way the fact left core, and
    # a retirement is not counted among a fact's evictions.
    left_core = {e["fact_id"] for e in memory.events_since(0) if e["kind"] in ("evict", "retire")}
    for fragment in scenario.rotated_to_archival:
        rotated = [f for f in facts if fragment.casefold() in f.text.casefold()
                   and (f.evictions or f.id in left_core)]
        hits = memory.archival_search(fragment, k=5).hits if rotated else []
        found = any(h.was_in_core and fragment.casefold() in h.text.casefold() for h in hits)
        checks.append(Check(
            f"rotated through core into archival: {fragment}", bool(rotated) and found,
            "moved out of core and found by archival search" if rotated and found else
            ("never moved out of core" if not rotated
             else "moved out of core but not found by search")))
    for fragment in scenario.not_in_core:
        absent = not any(fragment.casefold() in t for t in core_texts)
        checks.append(Check(f"not in core at the end: {fragment}", absent,
                            "absent" if absent else "still in core"))
    for answer in answers:
        q = answer.question
        when = "" if answer.when == "questions" else f" ({answer.when})"
        stale = (f"; quotes stale {', '.join(map(repr, answer.quoted_stale))}"
                 if answer.quoted_stale else "")
        stale += "; quotes the question back" if answer.echoes_question else ""
        checks.append(Check(
            f"answered from {'/'.join(q.tiers)}{when}: {q.ask}", answer.passed,
            f"expected {q.expect!r}; found in {answer.found_in or 'no tier'}; reply "
            f"{'contains' if q.expect.casefold() in answer.reply.casefold() else 'lacks'} it"
            f"{stale}"))
    return checks
