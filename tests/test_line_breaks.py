"""Where the chat breaks a line (agent/line_breaks.py), on random text.

A line never breaks inside what a terminal draws as one character, a grapheme cluster
(split, a family emoji shows as three people on two lines, a flag as two letters), and
never before closing punctuation or after opening punctuation of the CJK blocks, unless
a piece wider than the whole line leaves no other place.
"""

from __future__ import annotations

import unicodedata

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


#: The CJK symbols and punctuation block, and the halfwidth and fullwidth forms.
CJK_PUNCTUATION = [chr(code) for code in (*range(0x3000, 0x3040), *range(0xFF00, 0xFFF0))]
OPENING = [c for c in CJK_PUNCTUATION if unicodedata.category(c) == "Ps"]
CLOSING = [c for c in CJK_PUNCTUATION if unicodedata.category(c) == "Pe"] + list(
    "、。，．：；？！・ゝゞヽヾ")
SMALL_KANA = list("ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ"
                  "ㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ")
IDEOGRAPHS = list("東京大阪天気予報日本語")


@st.composite
def cjk_run(draw: st.DrawFn) -> str:
    """A run without spaces whose unbreakable pieces are at most 6 cells wide: each an
    ideograph with at most one opening bracket before it and one closing mark after."""
    pieces = []
    for _ in range(draw(st.integers(min_value=1, max_value=30))):
        before = draw(st.sampled_from(["", *OPENING]))
        after = draw(st.sampled_from(["", *CLOSING, *SMALL_KANA]))
        pieces.append(before + draw(st.sampled_from(IDEOGRAPHS)) + after)
    return "".join(pieces)


@given(cjk_run(), st.integers(min_value=6, max_value=40))
def test_no_line_starts_with_closing_punctuation_or_ends_with_opening(
        text: str, width: int) -> None:
    assert widest_piece(text) <= 6
    for at in break_offsets(text, width):
        assert text[at] not in CLOSING and text[at] not in SMALL_KANA, (text, at)
        assert text[at - 1] not in OPENING, (text, at)


def test_the_brackets_of_the_cjk_and_fullwidth_blocks_stay_with_their_text() -> None:
    assert break_offsets("東京〖大阪〗です", 8) == [4]  # neither after 〖 nor before 〗
    assert break_offsets("東京｟大阪｠です", 8) == [4]
    assert break_offsets("東京ゕ", 4) == [1]  # a small kana stays with the kana before it


@given(st.lists(st.sampled_from(["https://example.com/a", "東京に住む", "backup", "ok"]),
                min_size=1, max_size=12).map(" ".join), st.integers(min_value=2, max_value=30))
def test_no_line_starts_with_the_space_after_a_word_folded_over_whole_lines(
        text: str, width: int) -> None:
    # A URL filling whole lines: the space after it began the next line, out of line
    # with the ones above it.
    assert all(not line.plain.startswith(" ") for line in wrap(Text(text), width))


def test_a_word_folded_over_whole_lines_is_followed_by_the_next_at_a_line_start() -> None:
    lines = wrap(Text("see https://example.com/abcdefghij next"), 10)
    assert [line.plain for line in lines] == ["see", "https://ex", "ample.com/", "abcdefghij",
                                              "next"]
