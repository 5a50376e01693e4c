"""Where the chat may break a line: between words, and also between the characters of a
run of Chinese, Japanese or Korean text, which is written without spaces.

Rich breaks a line only at spaces, so such a run (a search query in a tool call, a
reply) counted as one word, wide characters and all: it was moved whole to the next
line, leaving the first short, or folded at any character. Here, as in the Unicode
line-breaking rules, a line may also break before or after a wide character (2 cells),
except before closing punctuation (``、``, ``。``, ``)``) and after opening
punctuation (``「``, ``(``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.cells import cell_len, chop_cells, get_character_cell_size
from rich.text import Text

_WORD = re.compile(r"\s*\S+\s*")
#: Not at the start of a line: closing punctuation, small kana, the prolonged sound mark.
_NO_START = frozenset(")]}.,;:!?%'\"、。，．：；？！）］｝」』】〕〉》ー々〜"
                      "ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ")
#: Not at the end of a line: opening punctuation.
_NO_END = frozenset("([{'\"（［｛「『【〔〈《")


def _breakable(before: str, after: str) -> bool:
    """Whether a line may break between the characters ``before`` and ``after``."""
    wide = get_character_cell_size(before) == 2 or get_character_cell_size(after) == 2
    return wide and after not in _NO_START and before not in _NO_END


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    """Each unit a line may break after, with where it starts: a word with the spaces
    around it, or the part of one between two places a wide run may break."""
    for match in _WORD.finditer(text):
        word, start = match.group(), match.start()
        cut = 0
        for at in range(1, len(word)):
            if not word[at - 1].isspace() and not word[at].isspace() \
                    and _breakable(word[at - 1], word[at]):
                yield start + cut, word[cut:at]
                cut = at
        yield start + cut, word[cut:]


def widest_piece(text: str) -> int:
    """How many cells the widest part of ``text`` that no line break may split takes: a
    word, or the part of one between a wide run's break points ("東京に住む" is 2 cells,
    a URL all of it)."""
    return max((cell_len(piece.strip()) for _, piece in _pieces(text)), default=0)


def break_offsets(text: str, width: int) -> list[int]:
    """Where to break ``text`` (one line) so that each line fits ``width`` cells: between
    pieces, and within a piece wider than a whole line (rich's ``divide_line``, with the
    wide runs' break points)."""
    offsets: list[int] = []
    used = 0
    for start, piece in _pieces(text):
        needed = cell_len(piece.rstrip())
        if needed <= width - used:
            used += cell_len(piece)
        elif needed > width:
            folded = chop_cells(piece, width)
            for part in folded[:-1]:
                if start:
                    offsets.append(start)
                start += len(part)
            if start:
                offsets.append(start)
            used = cell_len(folded[-1])
        elif used and start:
            offsets.append(start)
            used = cell_len(piece)
    return offsets


def wrap(text: Text, width: int) -> list[Text]:
    """``text`` wrapped to ``width`` cells, each line's trailing spaces dropped, as
    ``Text.wrap`` wraps it but with a wide run's break points too."""
    lines: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        if "\t" in line.plain:
            line.expand_tabs()
        for part in line.divide(break_offsets(line.plain, width)):
            part.rstrip()
            lines.append(part)
    return lines
