"""The fenced blocks of the README and the skill card, for the tests that check them
(tests/test_readme_examples.py, tests/test_readme_code.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "SKILL.md")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    heading: str
    text: str

    def __str__(self) -> str:
        return f"{self.doc}:{self.line} ({self.heading})"


def blocks(doc: str) -> list[Block]:
    """The fenced blocks of ``doc``, each with its language and the heading it is under."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    found = []
    for match in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        before = text[:match.start()]
        prose = re.sub(r"^```\w*\n.*?^```$", "", before, flags=re.MULTILINE | re.DOTALL)
        headings = re.findall(r"^#+ (.+)$", prose, re.MULTILINE)
        found.append(Block(doc, before.count("\n") + 1, match.group(1),
                           headings[-1] if headings else "", match.group(2)))
    return found
