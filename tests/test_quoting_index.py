"""Finding the messages that quote what a forget or an erasure takes (memory/ops/quoting.py)
looks a message's words up among the texts instead of searching it for each text: the same
answer as searching, for work that grows with the messages, not with their square."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_helpers import make_memory

from tiermem.memory.ops.forget import apply_forget
from tiermem.memory.ops.quoting import _WORD, message_strings, quoting
from tiermem.memory.store.records import Message

_SPACE = re.compile(r"\s+")


# The search the index replaces, kept as the definition the index must agree with.
def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _searched(haystack: str, needles: Sequence[str]) -> bool:
    text = _norm(haystack)
    for needle in needles:
        start = text.find(needle)
        while start >= 0:
            end = start + len(needle)
            if not (_cut(text, start - 1, needle[0]) or _cut(text, end, needle[-1])):
                return True
            start = text.find(needle, start + 1)
    return False


def _cut(text: str, index: int, edge: str) -> bool:
    return 0 <= index < len(text) and edge.isalnum() and text[index].isalnum()


def _quoting_by_search(messages: Sequence[Message], texts: Sequence[str]) -> list[Message]:
    needles = sorted({n for n in map(_norm, texts) if n}, key=len)
    if not needles:
        return []
    return [m for m in messages if any(_searched(s, needles) for s in message_strings(m))]


def test_a_word_is_a_run_of_exactly_the_characters_isalnum_accepts() -> None:
    # The index finds words with a pattern, the boundary check asks str.isalnum: a
    # character one takes for a letter and the other not would change the answer.
    disagree = [code for code in range(sys.maxunicode + 1)
                if bool(_WORD.fullmatch(chr(code))) != chr(code).isalnum()]
    assert disagree == []


# Letters and digits of several scripts and kinds (², Ⅻ and ٣ are digits or numerals to
# isalnum), what \w takes and isalnum does not (_, combining marks), letters whose case
# folding changes their length (ß to ss, İ to i̇, ﬁ to fi) or depends on position (ς),
# punctuation, and whitespace runs of several kinds.
_ALPHABET = ["a", "b", "A", "B", "1", "²", "Ⅻ", "٣", "é", "e\u0301", "\u0301", "_", "ß", "ss",
             "İ", "i", "ﬁ", "fi", "ς", "Σ", "σ", ".", "'", "-", "#", " ", "  ", "\t", "\n",
             "\u00a0", "\u2028"]
_PIECES = st.lists(st.sampled_from(_ALPHABET), max_size=14).map("".join)


@st.composite
def _texts_and_messages(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Messages, and texts that are mostly slices of them (so they often match, and are
    often prefixes or suffixes of one another), cased or spaced differently at times."""
    contents = draw(st.lists(_PIECES, min_size=1, max_size=6))
    texts = draw(st.lists(_PIECES, max_size=3))
    for _ in range(draw(st.integers(0, 8))):
        source = draw(st.sampled_from(contents))
        start = draw(st.integers(0, len(source)))
        end = draw(st.integers(start, len(source)))
        text = source[start:end]
        texts.append(draw(st.sampled_from([text, text.upper(), text.replace(" ", "\n "),
                                           text + draw(_PIECES), draw(_PIECES) + text])))
    return texts, contents


def _message(content: str, arguments: Any = None) -> Message:
    calls = None if arguments is None else [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]
    return Message(turn=1, role="assistant", content=content, created_at=0.0, tool_calls=calls)


@settings(max_examples=600)
@given(_texts_and_messages())
def test_the_index_finds_what_searching_every_text_finds(
        drawn: tuple[list[str], list[str]]) -> None:
    texts, contents = drawn
    messages = [_message(c) for c in contents]
    assert quoting(messages, texts) == _quoting_by_search(messages, texts)


def test_texts_starting_or_ending_in_a_word_or_not_are_told_apart_as_before() -> None:
    texts = ["card 41", "#42", "42#", "-", "ß", "İ", "x_", "ﬁle", "a\u0301"]
    contents = ["card 4111", "card 41.", "order #42x", "order x#42", "42#x", "a42# b", "a-b",
                "STRASSE", "straße", "i\u0307", "İx", "x_y", "y x_", "FILE", "profile",
                "ａ", "a\u0301b", "ba\u0301", "á"]
    messages = [_message(c) for c in contents]
    found = quoting(messages, texts)
    assert found == _quoting_by_search(messages, texts)
    # "ß" folds to "ss" inside a word, "ａ" folds to no "a", and a text ending in a mark
    # that is no letter (U+0307, U+0301) may end inside a word.
    assert [m.content for m in found] == [
        "card 41.", "order x#42", "42#x", "a-b", "i\u0307", "İx", "x_y", "y x_", "FILE",
        "a\u0301b"]


def _turns(messages: int) -> list[Message]:
    """Turns of five as the agent writes them: the user's line, a tool call storing it, the
    tool's result, the reply, and a line of another kind."""
    out = []
    for i in range(messages):
        said = f"turn {i // 5} note {i}: the order {i * 7} went to Lisbon"
        kind = i % 5
        out.append(_message(said if kind != 2 else f"Stored: {said}",
                            json.dumps({"content": said}) if kind == 1 else None))
    return out


def _calls(work: Callable[[], object]) -> int:
    """How many Python and built-in functions ``work`` calls, counted by the interpreter."""
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count


def test_four_times_the_messages_cost_about_four_times_the_calls() -> None:
    # As an erasure of every message named: each message's text is one of those taken.
    def erasing(messages: int) -> Callable[[], object]:
        turns = _turns(messages)
        return lambda: quoting(turns, [m.content for m in turns])

    small, large = _calls(erasing(300)), _calls(erasing(1200))
    assert large / small < 4.5, (small, large)


def _erasure_calls(messages: int, erase: bool) -> int:
    """The calls an erasure (or a forget) of ``messages`` messages, in turns of five, makes."""
    with make_memory(recall_dense=False) as m:
        ids: list[int] = []
        with m.store.transaction():
            for i in range(messages):
                ids.append(m.recall.append(("user", "assistant", "tool")[i % 3],
                                           f"turn {i // 5} note {i}: order {i * 7}", i // 5))
        if erase:
            return _calls(lambda: m.erase(messages=ids, reason="asked"))
        return _calls(lambda: apply_forget(m, [("messages", i) for i in ids]))


@pytest.mark.parametrize("erase", [True, False], ids=["erase", "forget"])
def test_erasing_or_forgetting_four_times_the_messages_costs_about_four_times_the_calls(
        erase: bool) -> None:
    small, large = _erasure_calls(250, erase), _erasure_calls(1000, erase)
    assert large / small < 4.5, (small, large)


class _Read(str):
    """A message's normalised text that counts the characters the search reads from it: by
    slicing it, and by comparing a text at a place in it."""

    read = 0

    def __getitem__(self, key: Any) -> str:
        part = str.__getitem__(self, key)
        _Read.read += len(part)
        return part

    def startswith(self, prefix: Any, *where: Any) -> bool:
        if isinstance(prefix, str):
            rest = str.__getitem__(self, slice(*where)) if where else str(self)
            pairs = zip(rest, prefix, strict=False)
            _Read.read += next((i for i, (a, b) in enumerate(pairs) if a != b),
                               min(len(rest), len(prefix))) + 1
        return str.startswith(self, prefix, *where)


def _characters_read(lines: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """The characters read looking for a log of ``lines`` lines in a log as long that
    differs on every line, as a tool's output beside a pasted log erased."""
    from tiermem.memory.ops import quoting as module

    norm = module._norm
    monkeypatch.setattr(module, "_norm", lambda text: _Read(norm(text)))
    pasted = "".join(f"INFO request {i} ok\n" for i in range(lines))
    output = "".join(f"INFO request {i} served\n" for i in range(lines))
    _Read.read = 0
    found = quoting([_message(output), _message(f"Stored: {pasted}!")], [pasted])
    assert [m.content for m in found] == [f"Stored: {pasted}!"]
    return _Read.read


def test_a_long_message_is_read_about_once_for_a_long_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Comparing the text in full wherever its first word occurs reads the square of the
    # message's length: 16 times the characters for 4 times the lines.
    small, large = _characters_read(400, monkeypatch), _characters_read(1600, monkeypatch)
    assert large / small < 6, (small, large)
