"""A "<" with no ">" after it (a comparison, a shell redirection) in what the chat prints:
rich's tag pattern would search from each one to the text's end and back, so a reply
full of them printed in time quadratic in its length. The highlighter is given such a
"<" as a blank, and every colour rich gives stays as it was."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from rich.console import Console
from test_terminal_long_runs import PRINTS, printed_as

from tiermem.agent.terminal import LONGEST_HIGHLIGHTED_RUN, TerminalConsole, escape

REPLIES = {
    "comparisons": "check that a < b and that c<d holds; " * 300,
    "redirections": "run sort <in.txt | uniq -c\n  then wc -l < out.txt\n" * 300,
    "after a tag": "<warning> means " + "x < 10 or y < 20, " * 300,
}


def angles_after_last_close(text: str) -> int:
    return text[text.rfind(">") + 1:].count("<")


@pytest.mark.parametrize("soft_wrap", [False, True], ids=["terminal", "piped"])
@pytest.mark.parametrize("kind", PRINTS)
@pytest.mark.parametrize("reply", REPLIES)
def test_the_highlighter_is_given_no_angle_that_begins_no_tag_and_all_are_printed(
        reply: str, kind: str, soft_wrap: bool) -> None:
    seen, printed = printed_as(kind, REPLIES[reply], soft_wrap)
    # The tag pattern's search from each such "<" runs over all the text after it.
    assert [angles_after_last_close(text) for text in seen] == [0] * len(seen)
    assert printed.count("<") == REPLIES[reply].count("<")


def spans(console_class: type[Console], text: str, markup: bool) -> list[tuple[int, int, str]]:
    console = console_class(file=io.StringIO(), width=80, force_terminal=True)
    rendered = console.render_str(escape(text) if markup else text, markup=markup)
    return [(span.start, span.end, str(span.style)) for span in rendered.spans]


ORDINARY = [
    "if load < 0.8 and mem < 90% then ok",
    "cat access.log | grep 500 > errors.txt < /dev/null, see https://x.io/a?b=1",
    "<b>bold</b> is 3 < 4 and True, Spam(eggs=2) at /var/log/syslog",
    'the list [1, 2.5, "three"] < <Foo bar=1> and 10.0.0.1 < fe80::1',
    "x <= y\n<< EOF\n  name='a' <\n2 > 1 < 3 << 4 <<<",
    "a<b<c>d<e f<g 'it'<s' \"q\"<x",
]


@pytest.mark.parametrize("markup", [False, True], ids=["plain", "markup"])
@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_reply_with_angles_gets_rich_s_colours_unchanged(
        text: str, markup: bool) -> None:
    assert spans(TerminalConsole, text, markup) == spans(Console, text, markup)


@given(st.text(alphabet=list("<<<>ab_1e0x .:/=@-\"'()[]\n"), max_size=200))
def test_every_short_text_gets_rich_s_colours_unchanged(text: str) -> None:
    # A long run without spaces is left unstyled on purpose (test_terminal_long_runs.py).
    assume(re.search(rf"\S{{{LONGEST_HIGHLIGHTED_RUN + 1},}}", text) is None)
    assert spans(TerminalConsole, text, markup=False) == spans(Console, text, markup=False)
