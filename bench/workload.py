"""Seeded random workloads: user texts mixing durable and short-lived facts.

Sentences are drawn from per-run pools with a skewed distribution, so some
facts are re-asserted often (their access counts grow) and most appear once,
as in a real conversation. The sentences carry the cues the offline extractor
classifies by ("production region", "allergic" vs "right now", a shell
prompt, a log line), so ``process_interaction`` yields both classes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tiermem.memory import HierarchicalMemory
from tiermem.memory.errors import InvalidInputError, MemoryLimitError

SERVICES = ("api", "billing", "search", "auth", "checkout", "ledger", "gateway", "worker",
            "cache", "mailer", "payments", "reports")
REGIONS = ("eu-west-1", "us-east-1", "ap-south-1", "eu-central-1", "us-west-2")
NAMES = ("Alice", "Bob", "Chen", "Dana", "Eve", "Farid", "Grace", "Hiro", "Ines", "Jon")
FOODS = ("peanuts", "shellfish", "gluten", "sesame", "kiwi", "lactose", "soy", "mustard")
PLANS = ("free", "team", "business", "enterprise")
FILLER = ("Thanks!", "ok", "What region is production?", "Can you check the logs?",
          "Sounds good.", "Who is on call?")


def durable_sentence(rng: random.Random) -> str:
    svc = f"{rng.choice(SERVICES)}-{rng.randrange(100)}"
    a, b = rng.sample(NAMES, 2)
    return rng.choice((
        f"The production region for {svc} is {rng.choice(REGIONS)}.",
        f"The on-call rotation for {svc} is {a} then {b}.",
        f"Customer {a}-{rng.randrange(100)} is on the {rng.choice(PLANS)} plan.",
        f"{a} is allergic to {rng.choice(FOODS)}.",
        f"The deadline for {svc} is day {rng.randrange(1, 60)}.",
        f"Remember that {svc} listens on port {rng.randrange(1024, 9999)}.",
    ))


def short_lived_sentence(rng: random.Random) -> str:
    svc = f"{rng.choice(SERVICES)}-{rng.randrange(100)}"
    return rng.choice((
        f"Right now the {svc} pod is restarting.",
        f"$ kubectl logs deploy/{svc} --tail={rng.randrange(10, 500)}",
        f"The log shows ERROR {svc} timeout at 12:{rng.randrange(60):02d}:{rng.randrange(60):02d}.",
        f"Today the {svc} dashboard is slow.",
        f"{rng.choice(NAMES)} is having coffee right now.",
        f"The {svc} queue is spiking at the moment.",
    ))


@dataclass(frozen=True)
class Op:
    """One step of a workload; ``arg`` is the text it uses."""

    kind: str  # turn | fact | query | passage | replace
    arg: str
    durability: str = "durable"


class Workload:
    """A reproducible stream of operations for a memory."""

    def __init__(self, seed: int, durable_pool: int = 40, short_pool: int = 400) -> None:
        self.rng = random.Random(seed)
        self.durable = [durable_sentence(self.rng) for _ in range(durable_pool)]
        self.short = [short_lived_sentence(self.rng) for _ in range(short_pool)]

    def _pick(self, pool: list[str]) -> str:
        # Skewed towards the front of the pool, so a few sentences recur often.
        return pool[min(int(self.rng.paretovariate(1.2)) - 1, len(pool) - 1)
                    if self.rng.random() < 0.3 else self.rng.randrange(len(pool))]

    def user_text(self) -> str:
        parts: list[str] = []
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if roll < 0.3:
                parts.append(self._pick(self.durable))
            elif roll < 0.85:
                parts.append(self._pick(self.short))
            else:
                parts.append(self.rng.choice(FILLER))
        # A shell line is machine text only at the start of a line.
        return "".join((("\n" if p.startswith("$") else " ") + p) for p in parts).strip()

    def ops(self, count: int) -> list[Op]:
        out: list[Op] = []
        for _ in range(count):
            roll = self.rng.random()
            if roll < 0.6:
                out.append(Op("turn", self.user_text()))
            elif roll < 0.8:
                durable = self.rng.random() < 0.35
                text = self._pick(self.durable if durable else self.short).rstrip(".")
                out.append(Op("fact", text, "durable" if durable else "short-lived"))
            elif roll < 0.9:
                out.append(Op("query", self._pick(self.durable + self.short)))
            elif roll < 0.95:
                out.append(Op("passage", f"Runbook note {self.rng.randrange(10**6)}: "
                                         + short_lived_sentence(self.rng)))
            else:
                out.append(Op("replace", self.rng.choice(REGIONS)))
        return out


def apply_op(memory: HierarchicalMemory, op: Op, rng: random.Random) -> str:
    """Run one operation; returns ``"ok"`` or ``"rejected"`` (a refusal the API documents)."""
    try:
        if op.kind == "turn":
            memory.process_interaction(op.arg, "Noted.")
        elif op.kind == "fact":
            memory.add_fact(op.arg, op.durability, source="bench")
        elif op.kind == "query":
            memory.query(op.arg, k=5)
        elif op.kind == "passage":
            memory.archival_insert(op.arg, tags=["runbook"], metadata={"bench": True})
        elif op.kind == "replace":
            facts = list(memory.core)
            if not facts:
                return "rejected"
            fact = rng.choice(facts)
            words = fact.text.split()
            # Growing a fact makes the edit itself need room in core.
            memory.replace_in_core(words[-1], f"{words[-1]} in {op.arg} and {op.arg}")
        else:
            raise ValueError(f"unknown op {op.kind!r}")
    except (MemoryLimitError, InvalidInputError):
        return "rejected"
    return "ok"
