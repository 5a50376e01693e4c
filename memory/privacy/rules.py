"""The shared PII ruleset, compiled: which rules an item's text or metadata matches.

Both layers read one ``RuleSet``. Runtime policies (``set_retention_policy``)
append rules to it, so a new ruleset is built whenever the active policies
change; building compiles every matcher once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tiermem.memory.privacy.config import PiiRule, compile_rule_regex

#: How long a rule's regex may search one text. A pattern such as ``(a|aa)+$`` takes time
#: exponential in the text; rules run on every write, and a match running in C is beyond
#: Ctrl-C's reach, so a search past this limit ends, and counts as a match (``TIMED_OUT``).
MATCH_SECONDS = 1.0
TIMED_OUT = "(the rule's regex ran past its time limit on this text)"


@dataclass(frozen=True)
class RuleMatch:
    """One rule that matched an item, and what it found there."""

    rule_id: str
    category: str
    found: str


def _phrase_pattern(phrase: str) -> str:
    # A word boundary only where the phrase itself starts or ends with a word
    # character: "cat" must not match "category", but "+1 (" may follow anything.
    escaped = re.escape(phrase.strip())
    start = r"\b" if re.match(r"\w", phrase.strip()) else ""
    end = r"\b" if re.search(r"\w$", phrase.strip()) else ""
    return f"{start}{escaped}{end}"


class _CompiledRule:
    def __init__(self, rule: PiiRule) -> None:
        self.rule = rule
        phrases = sorted({p.strip() for p in rule.content_substrings}, key=len, reverse=True)
        self.phrases = (re.compile("|".join(_phrase_pattern(p) for p in phrases), re.IGNORECASE)
                        if phrases else None)
        self.regex = compile_rule_regex(rule.regex) if rule.regex else None
        self.fields = tuple(rule.metadata_fields)

    def match(self, text: str, metadata: Mapping[str, Any]) -> RuleMatch | None:
        found = self.phrases.search(text) if self.phrases is not None else None
        if found is None and self.regex is not None:
            try:
                found = self.regex.search(text, timeout=MATCH_SECONDS)
            except TimeoutError:
                # A pattern that backtracks without end on this text: it may hold what the
                # rule is for, so the text counts as matching rather than going through.
                return RuleMatch(self.rule.rule_id, self.rule.category, TIMED_OUT)
        if found is not None:
            return RuleMatch(self.rule.rule_id, self.rule.category, found.group(0))
        for name in self.fields:
            value = metadata.get(name)
            if value not in (None, "", [], {}):
                return RuleMatch(self.rule.rule_id, self.rule.category, f"metadata {name}")
        return None


class RuleSet:
    """The rules in force, compiled, in the order given (baseline first, then policies')."""

    def __init__(self, rules: Iterable[PiiRule]) -> None:
        self.rules: tuple[PiiRule, ...] = tuple(rules)
        self._compiled = [_CompiledRule(rule) for rule in self.rules]

    def __len__(self) -> int:
        return len(self.rules)

    def matches(self, text: str, metadata: Mapping[str, Any] | None = None) -> list[RuleMatch]:
        """Every rule ``text`` (or ``metadata``) matches, in rule order."""
        found = [rule.match(text, metadata or {}) for rule in self._compiled]
        return [m for m in found if m is not None]

    def taxonomy(self) -> list[tuple[str, str]]:
        """Each category with a description, once, described by the first rule that has one.

        The judges' prompts list these, so adding a category to the rules teaches every
        judge about it with no prompt to edit.
        """
        described: dict[str, str] = {}
        for rule in self.rules:
            if rule.category_description and rule.category not in described:
                described[rule.category] = rule.category_description
        return list(described.items())

    def categories(self) -> Sequence[str]:
        return list(dict.fromkeys(rule.category for rule in self.rules))

    def category_named(self, name: str | None) -> str | None:
        """The category a judge named (its answers are read in lower case) as the rules
        spell it, or None when the rules have no such category: a judge talked round by
        the text it reads could otherwise write words of that text into a mark or an
        error."""
        if not name:
            return None
        wanted = name.casefold()
        return next((c for c in self.categories() if c.casefold() == wanted), None)
