"""Where the chat may break a line: between words, and also between the characters of a
run of Chinese, Japanese or Korean text, which is written without spaces.

Rich breaks a line only at spaces, so such a run (a search query in a tool call, a
reply) counted as one word, wide characters and all: it was moved whole to the next
line, leaving the first short, or folded at any character. Here, as in the Unicode
line-breaking rules, a line may also break before or after a wide character (2 cells),
except before closing punctuation (``、``, ``。``, ``)``, any closing bracket), small kana
and iteration marks, and after opening punctuation (``「``, ``(``, any opening bracket).

A line never breaks inside a grapheme cluster, what a terminal draws as one character:
an emoji sequence joined by ZWJ (👨‍👩‍👧), a flag's two regional indicators (🇩🇪), an emoji
with its skin tone (👍🏽), a keycap (1️⃣), a letter with its combining accents.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

import regex
from rich.cells import cell_len
from rich.text import Text

_CLUSTER = regex.compile(r"\X")
#: Not at the start of a line, besides closing brackets: closing and middle punctuation,
#: small kana, iteration marks, the prolonged sound mark (of Unicode's classes CL, EX, IS,
#: NS and CJ, those of the CJK blocks and ASCII), and the straight quotes.
_NO_START = frozenset(".,;:!?%'\"、。，．：；？！｡､・ー々〜〻ゝゞヽヾ゛゜‼⁇⁈⁉ｰ"
                      "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ"
                      "ㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿｧｨｩｪｫｬｭｮｯ")
#: Not at the end of a line, besides opening brackets: the straight quotes.
_NO_END = frozenset("'\"")


def _no_start(cluster: str) -> bool:
    return cluster[0] in _NO_START or unicodedata.category(cluster[0]) == "Pe"


def _no_end(cluster: str) -> bool:
    # Unicode's opening brackets (general category Ps) are its class OP, "„" included.
    return cluster[0] in _NO_END or unicodedata.category(cluster[0]) == "Ps"


def _wide(cluster: str) -> bool:
    """Whether ``cluster`` is a wide character, which a line may break before or after: 2
    cells as a terminal draws it, and not a keycap (1️⃣), which the rules treat as the
    digit it is drawn on."""
    return cell_len(cluster) >= 2 and not cluster[0].isascii()


def _breakable(before: str, after: str) -> bool:
    """Whether a line may break between the grapheme clusters ``before`` and ``after``."""
    return (_wide(before) or _wide(after)) and not _no_start(after) and not _no_end(before)


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    """Each unit a line may break after, with where it starts: a word with the spaces
    after it (the first also with those before it), or the part of one between two
    places a wide run may break; never part of a grapheme cluster."""
    start = 0
    worded = False  # a word came before: spaces at the very start are no place to break
    previous: str | None = None
    for match in _CLUSTER.finditer(text):
        cluster = match.group()
        if previous is not None and not cluster[0].isspace() and (
                (previous[0].isspace() and worded) or
                (not previous[0].isspace() and _breakable(previous, cluster))):
            yield start, text[start:match.start()]
            start = match.start()
        worded = worded or not cluster[0].isspace()
        previous = cluster
    if worded:
        yield start, text[start:]


def _fold(piece: str, width: int) -> list[str]:
    """``piece`` cut into lines of at most ``width`` cells between its grapheme clusters
    (a cluster wider than that alone on its line)."""
    lines = [""]
    used = 0
    for cluster in _CLUSTER.findall(piece):
        size = cell_len(cluster)
        if lines[-1] and used + size > width:
            lines.append("")
            used = 0
        lines[-1] += cluster
        used += size
    return lines


def widest_piece(text: str) -> int:
    """How many cells the widest part of ``text`` that no line break may split takes: a
    word, or the part of one between a wide run's break points ("東京に住む" is 2 cells,
    a URL all of it)."""
    return max((cell_len(piece.strip()) for _, piece in _pieces(text)), default=0)


def break_offsets(text: str, width: int) -> list[int]:
    """Where to break ``text`` (one line) so that each line fits ``width`` cells: between
    pieces, and within a piece wider than a whole line, between its grapheme clusters."""
    offsets: list[int] = []
    used = 0
    for start, piece in _pieces(text):
        needed = cell_len(piece.rstrip())
        if needed <= width - used:
            used += cell_len(piece)
        elif needed > width:
            # The spaces after it stay at the end of its last line: folded with it, they
            # began a line of their own when the word filled whole lines.
            word = piece.rstrip()
            folded = _fold(word, width)
            for part in folded[:-1]:
                if start:
                    offsets.append(start)
                start += len(part)
            if start:
                offsets.append(start)
            used = cell_len(folded[-1]) + cell_len(piece) - cell_len(word)
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
