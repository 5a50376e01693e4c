"""Where the chat breaks a line (agent/line_breaks.py), on random text.

A line never breaks inside what a terminal draws as one character, a grapheme cluster
(split, a family emoji shows as three people on two lines, a flag as two letters).
"""

from __future__ import annotations

import regex
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text

from tiermem.agent.line_breaks import break_offsets, widest_piece, wrap

CLUSTERS = ["👨\u200d👩\u200d👧", "👩\u200d💻", "🇩🇪", "🇯🇵", "👍🏽", "👋🏿", "1️⃣", "#️⃣",
            "❤️", "e\u0301", "가", "東", "京", "に", "😀"]
WORDS = ["a", "tea", "backup", "2026", "東京", "ok!"]
SPACES = [" ", "  "]


def boundaries(text: str) -> set[int]:
    """Where one grapheme cluster of ``text`` ends and the next starts."""
    return {match.end() for match in regex.finditer(r"\X", text)}


clustered = st.lists(st.sampled_from(CLUSTERS + WORDS + SPACES), min_size=1,
                     max_size=40).map("".join)


@given(clustered, st.integers(min_value=1, max_value=30))
def test_no_line_splits_a_grapheme_cluster(text: str, width: int) -> None:
    offsets = break_offsets(text, width)
    assert set(offsets) <= boundaries(text), (text, offsets)
    lines = [line.plain for line in wrap(Text(text), width)]
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines:
        # Wider only when one cluster alone is wider than the line.
        assert cell_len(line) <= width or len(regex.findall(r"\X", line)) == 1, lines


def test_each_cluster_is_measured_as_the_terminal_draws_it() -> None:
    family = "👨\u200d👩\u200d👧"
    assert widest_piece(family * 3) == 2  # a line may break between two of them
    assert break_offsets(f"ok {family}{family}", 5) == [len(f"ok {family}")]
    assert break_offsets("🇩🇪🇫🇷🇩🇪", 4) == [4]  # pairs of regional indicators
    assert break_offsets("keys 1️⃣2️⃣3️⃣", 6) == [5]  # keycaps are digits, kept together
