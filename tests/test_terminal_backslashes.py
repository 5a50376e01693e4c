"""A long run of backslashes (a model repeating "\\" until its token limit) in what the
chat prints: rich's markup parser and its ``escape`` try each backslash as the start of
an escaped tag and read on to the run's end, a time quadratic in the run's length. They
are given no such run, and the text is shown as written and coloured exactly as rich
would."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import pytest
import rich.console
import rich.markup
from hypothesis import given
from hypothesis import strategies as st
from test_terminal_long_runs import PRINTS, printed_as

from tiermem.agent.terminal import LONGEST_HIGHLIGHTED_RUN, TerminalConsole, escape

TAG = re.compile(r"\[[a-z#/@][^[]*?\]")
REPLIES = {
    "alone": "\\" * 5000,
    "before a bracket": "the path was " + "\\" * 5000 + "[1] and [b",
    "before a tag": "\\" * 3000 + "[bold]kept[/bold] " + "\\" * 3000,
    "in a tag": "see [link " + "\\" * 3000 + "] then " + "\\" * 3000 + " ]",
}


def longest_run_outside_tags(texts: list[str]) -> int:
    """The longest run of backslashes in ``texts`` outside their tags that no tag (escaped
    or not) follows."""
    tags_marked = [TAG.sub("\0", text) for text in texts]
    return max((len(run.group()) for text in tags_marked for run in re.finditer(r"\\+", text)
                if not text.startswith("\0", run.end())), default=0)


@pytest.mark.parametrize("soft_wrap", [False, True], ids=["terminal", "piped"])
@pytest.mark.parametrize("kind", PRINTS)
@pytest.mark.parametrize("reply", REPLIES)
def test_rich_s_markup_is_given_no_long_run_of_backslashes_and_all_are_printed(
        reply: str, kind: str, soft_wrap: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    given_to_markup: list[str] = []

    def recorded(parse: Callable[..., Any]) -> Callable[..., Any]:
        def parse_recorded(markup: str, *args: Any, **kwargs: Any) -> Any:
            given_to_markup.append(markup)
            return parse(markup, *args, **kwargs)
        return parse_recorded

    monkeypatch.setattr(rich.markup, "escape", recorded(rich.markup.escape))
    monkeypatch.setattr(rich.console, "render_markup", recorded(rich.console.render_markup))
    _, printed = printed_as(kind, REPLIES[reply], soft_wrap)
    assert given_to_markup, "no markup was parsed or escaped"
    # Each backslash of a run no tag follows costs a read to the run's end.
    assert longest_run_outside_tags(given_to_markup) <= LONGEST_HIGHLIGHTED_RUN
    assert printed.count("\\") == REPLIES[reply].count("\\")


PIECES = st.sampled_from(["\\", "\\" * 2, "\\" * LONGEST_HIGHLIGHTED_RUN,
                          "\\" * (LONGEST_HIGHLIGHTED_RUN + 1), "\\" * 150, "[", "]", "[b",
                          "[bold]", "[/bold]", "[/]", "[1]", "a", " ", ":", "\n", "\ue000"])
TEXTS = st.lists(PIECES, max_size=12).map("".join)


@given(TEXTS)
def test_rich_s_markup_shows_the_escaped_text_as_written(text: str) -> None:
    assert rich.markup.render(escape(text)).plain == text


def rendered(console_class: type[rich.console.Console], markup: str, emoji: bool = False
             ) -> tuple[str, list[tuple[int, int, str]]]:
    console = console_class(file=io.StringIO(), width=80, force_terminal=True, highlight=False,
                            emoji=emoji)
    text = console.render_str(markup)
    return text.plain, [(span.start, span.end, str(span.style)) for span in text.spans]


@given(TEXTS, st.sampled_from(["{}", "[dim]  ↳ x({})[/dim]", "[red]{}[/red] [b]{}"]))
def test_escaped_text_in_a_template_is_shown_and_styled_as_rich_shows_it(
        text: str, template: str) -> None:
    markup = template.replace("{}", escape(text))
    assert rendered(TerminalConsole, markup) == rendered(rich.console.Console, markup)


@given(TEXTS)
def test_markup_as_written_is_shown_and_styled_as_rich_shows_it(text: str) -> None:
    try:
        expected = rendered(rich.console.Console, text)
    except rich.markup.MarkupError:
        with pytest.raises(rich.markup.MarkupError):
            rendered(TerminalConsole, text)
        return
    assert rendered(TerminalConsole, text) == expected


#: Every character from the first private use one to the emoji variant selector U+FE0F,
#: which rich adds to the emoji of ":smile-emoji:".
UP_TO_THE_VARIANT_SELECTOR = "".join(chr(code) for code in range(0xE000, 0xFE0F))


@pytest.mark.parametrize("held", [UP_TO_THE_VARIANT_SELECTOR,
                                  "".join(chr(code) for code in range(0xE000, 0x110000))],
                         ids=["up to U+FE0F", "every character from U+E000"])
def test_a_text_holding_the_characters_a_run_could_be_written_as_is_shown_as_rich_shows_it(
        held: str) -> None:
    run = "\\" * 150
    text = f"{held} {run} :smile-emoji: [bold]{run}[b"
    # With emoji codes on, as a caller may ask: rich adds U+FE0F to this one's emoji.
    assert rendered(TerminalConsole, text, emoji=True) == rendered(rich.console.Console, text,
                                                                   emoji=True)
