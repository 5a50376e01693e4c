"""What the chat prints of a reply, a tool call or a tool result is the text the model
wrote, whatever backslashes and brackets it holds: rich's markup drops a backslash before
a "[" that opens no tag, and rich's ``escape`` doubles a trailing one."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tiermem.agent.chat_help import reply_text
from tiermem.agent.chat_output import show_turn
from tiermem.agent.terminal import LONGEST_HIGHLIGHTED_RUN, TerminalConsole, escape
from tiermem.agent.turn_result import TurnResult
from tiermem.tools.dispatch import ToolResult

# Tags ("[b]", "[/a]", "[a=b]"), escaped tags and brackets that open none, and backslash
# runs before each, or at the end, where a template's own closing tag follows them.
TEXTS = st.text(alphabet="\\[]/abn=o \n", max_size=40)


def failed_call(text: str) -> TurnResult:
    return TurnResult(reply=None, tool_results=[
        ToolResult(name="core_memory_replace", call_id="1", content=text, ok=False)])


def search_call(text: str) -> TurnResult:
    return TurnResult(reply=None, tool_results=[
        ToolResult(name="archival_memory_search", call_id="1", content="", ok=True,
                   value={"query": text, "total": 2})])


def call_written_as_text(text: str) -> TurnResult:
    return TurnResult(reply=None, tool_results=[
        ToolResult(name=text, call_id="1", content="", ok=True, from_text=True)])


#: Each place the chat prints a turn's text: the turn, and the line it prints for ``text``
#: (a tool call's line shows the start of a long one).
SITES: dict[str, tuple[Callable[[str], TurnResult], Callable[[str], str]]] = {
    "failed call's result": (failed_call, lambda text: f"  ↳ core_memory_replace: {text[:160]}"),
    "search's query": (search_call,
                       lambda text: f"  ↳ archival_memory_search({text[:60]}): 2 matches"),
    "call's name": (call_written_as_text, lambda text: f"  ↳ {text} (parsed from text): ok"),
    "memory change": (lambda text: TurnResult(reply=None, memory_changes=[text]),
                      lambda text: f"  · {text[:160]}"),
    "reply": (lambda text: TurnResult(reply=text), lambda text: text),
    "notice": (lambda text: TurnResult(reply=None, notice=text), lambda text: text),
}


def printed(result: TurnResult) -> str:
    out = io.StringIO()
    show_turn(TerminalConsole(file=out), result)
    return out.getvalue()


@given(TEXTS)
@pytest.mark.parametrize("site", SITES)
def test_every_text_is_printed_as_written_at_every_site(site: str, text: str) -> None:
    turn, line = SITES[site]
    if not text and site in ("reply", "memory change", "notice"):
        return  # none is printed when empty
    assert printed(turn(text)) == line(text) + "\n"


SENTENCES = [
    "regex \\[0-9] matches a digit",
    "list \\[1]",
    "the share is C:\\",
    "the share is C:\\\\",
    "escaped \\[bold]not bold[/bold] and \\\\[b]",
    "\\" * (LONGEST_HIGHLIGHTED_RUN + 50) + "[1] then " + "\\" * (LONGEST_HIGHLIGHTED_RUN + 50),
]


@pytest.mark.parametrize("soft_wrap", [False, True], ids=["terminal", "piped"])
@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_reply_s_backslashes_are_printed_as_written(sentence: str, soft_wrap: bool) -> None:
    out = io.StringIO()
    console = TerminalConsole(file=out, width=1000, soft_wrap=soft_wrap)
    console.print(reply_text(console, escape(sentence)))
    assert out.getvalue() == sentence + "\n"


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("site", SITES)
def test_each_site_prints_the_sentences_as_written(site: str, sentence: str) -> None:
    turn, line = SITES[site]
    assert printed(turn(sentence)) == line(sentence) + "\n"


def styled(markup: str) -> tuple[str, list[tuple[int, int, str]]]:
    console = TerminalConsole(file=io.StringIO(), highlight=False)
    text = console.render_str(markup)
    return text.plain, [(span.start, span.end, str(span.style)) for span in text.spans
                        if span.end > span.start]


@given(TEXTS.filter(bool))
@pytest.mark.parametrize("template", ["[yellow]{}[/yellow]", "[dim]x({}): y[/dim]", "{}"])
def test_the_template_s_style_covers_the_text_and_only_it(template: str, text: str) -> None:
    plain, spans = styled(template.replace("{}", escape(text)))
    assert plain == template.replace("{}", text).replace("[yellow]", "").replace(
        "[/yellow]", "").replace("[dim]", "").replace("[/dim]", "")
    expected = {"[yellow]{}[/yellow]": [(0, len(text), "yellow")],
                "[dim]x({}): y[/dim]": [(0, len(plain), "dim")], "{}": []}
    assert spans == expected[template]


@pytest.mark.parametrize("site", SITES)
@pytest.mark.parametrize("text", ["use :thumbs_up: or a[:smile:]", ":warning: disk at 91%"])
def test_an_emoji_code_is_printed_as_the_model_wrote_it(site: str, text: str) -> None:
    turn, line = SITES[site]
    assert printed(turn(text)) == line(text) + "\n"
