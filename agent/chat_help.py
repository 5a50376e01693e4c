"""What the chat prints for people at its own width: /help, the banner's lines, /core,
the indented lines of tool calls and /recall and /archival hits, and the replies.

A terminal of 80 columns shows every line whole: a line too long for the
width is wrapped between words with a hanging indent, never back to column 0,
and /core drops columns below some width (or when a fact's word would not fit its
column whole) rather than squeezing every cell to an ellipsis.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tiermem.agent.line_breaks import widest_piece, wrap
from tiermem.agent.terminal import escape, printable
from tiermem.memory.text.padding import NO_WIDTH, unmarked

#: The slash commands: each a command, then what it does, each piece on a line of its own.
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("/core", "core facts with durability, access count and score"),
    ("/archival QUERY", "search archival memory, 10 matches a page",
     "(/archival --page 2 QUERY: the next 10)"),
    ("/recall QUERY", "search what was said, 10 matches a page",
     "(/recall --all QUERY: tool results too; --page N too)"),
    ("/diagnostics", "memory health report and red flags"),
    ("/snapshot FILE", "write a JSON snapshot of the whole memory"),
    ("/history clear", "erase the prompt history (what the up arrow brings back)"),
    ("/forget TEXT", "forget the stored facts, passages and messages TEXT targets"),
    ("/forget --erase TEXT", "forget them and erase their text from every file"),
    ("/forget --erase-forgotten", "erase everything forgotten before"),
    ("/policy", "the privacy policy's active retention statements"),
    ("/policy set S1 | S2", "replace them for this session (/policy clear: none)"),
    ("/model", "which model (or the offline policy) is answering"),
    ("/help", "this help"),
    ("/exit, /quit", "leave (Ctrl-D, or Ctrl-C twice at an empty prompt)"),
)
NOTE = ('A line whose first word holds a second "/" (/var/log is full) is a message, not a '
        'command; "//" at the start sends the rest as a message ("//help" sends "/help").')
#: Every command's name.
COMMAND_NAMES = frozenset(
    {command.split(maxsplit=1)[0].rstrip(",") for command, *_ in COMMANDS} | {"/quit"})


def command_named(typed: str) -> str:
    """How a record or an error names the command whose first word is ``typed``: a known
    one by its name ("/FORGET" and "/forget\u2060" are /forget, as they run), an unknown one
    as typed ("/Frobnicate"); /forget joined to a word by a mark ("/forget\u2060my") as
    /forget, the word being a part of what to forget."""
    name = unmarked(typed).lower()
    return name if name in COMMAND_NAMES else "/forget" if glued_forget(typed) else typed


def glued_forget(typed: str) -> bool:
    """Whether ``typed`` is /forget joined to what follows it by a mark of no width."""
    return re.match(f"/forget[{NO_WIDTH}]", typed, re.IGNORECASE) is not None


#: Names other chat tools give what a command here does, and the commands that do it.
_OTHER_NAMES = {
    "/search": ("/archival", "/recall"), "/find": ("/archival", "/recall"),
    "/stats": ("/diagnostics",), "/status": ("/diagnostics",),
    "/memory": ("/core",), "/facts": ("/core",), "/save": ("/snapshot",),
    "/export": ("/snapshot",), "/delete": ("/forget",), "/remove": ("/forget",),
    "/bye": ("/exit",), "/q": ("/exit",), "/?": ("/help",), "/archive": ("/archival",),
}
#: Commands named only for a word that means them (/delete), never for one spelt like
#: them: "/forgot my keys" run as "/forget my keys" would drop what was never meant to go.
_ONLY_BY_MEANING = frozenset({"/forget"})


#: Commands that leave: named for a word cut short or mistyped only in its order or by a
#: doubled letter (/exti, /exitt), never for other words near them (/edit, /next, /quiet).
_LEAVING = frozenset({"/exit", "/quit"})


def nearest_commands(name: str) -> list[str]:
    """The slash commands an unknown ``name`` (``/search``, ``/recal``, ``/diag``) most
    likely meant, nearest first; none when nothing is near enough to be what was meant."""
    known = sorted(COMMAND_NAMES - _ONLY_BY_MEANING)
    typed = name.lower()
    if typed in _OTHER_NAMES:
        return list(_OTHER_NAMES[typed])
    if len(typed) > 2:  # a command cut short: /diag, /snap
        started = [command for command in known if command.startswith(typed)]
        if started:
            return started
    # A slip in another tool's name (/serach, /stauts) names what that name would, but
    # for /forget ("/remote" is no /remove) or in a name too short to tell (/q).
    near = sorted([(_typo_distance(typed, command), (command,)) for command in known]
                  + [(_typo_distance(typed, other), meant) for other, meant in _OTHER_NAMES.items()
                     if len(other) > 3 and not _ONLY_BY_MEANING.intersection(meant)])
    named = [command for distance, meant in near
             if distance <= (2 if len(typed) > 8 else 1) for command in meant]
    return list(dict.fromkeys(named))[:2]


def _typo_distance(typed: str, command: str) -> int:
    """How many slips of the keys (a letter missing, added, changed or two swapped) make
    ``command`` into ``typed``; 9 when a slip would be too likely to make another word: a
    changed letter in a short word (/care, /hell), any but a swap or a doubled letter for
    a command that leaves."""
    if command in _LEAVING:
        doubled = any(typed[:at] + typed[at + 1:] == command
                      for at in range(1, len(typed)) if typed[at] == typed[at - 1])
        swapped = sorted(typed) == sorted(command) and _slips(typed, command) == 1
        return 1 if doubled or swapped else 9
    slips = _slips(typed, command)
    if slips == 1 and len(typed) == len(command) < 6 and sorted(typed) != sorted(command):
        return 9
    return slips


def _slips(typed: str, command: str) -> int:
    """The optimal string alignment distance: edits, with a swap of two letters one."""
    rows = [list(range(len(command) + 1))]
    for i, letter in enumerate(typed, 1):
        row = [i]
        for j, other in enumerate(command, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1,
                           rows[-1][j - 1] + (letter != other)))
            if i > 1 and j > 1 and letter == command[j - 2] and typed[i - 2] == other:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


#: Where the descriptions start; a longer command is followed by two spaces instead.
COLUMN = 21
#: Below this width a command's description starts on the line after it.
NARROW = 60
#: Below these widths /core drops its counts, then shows a list rather than a table.
CORE_COUNTS, CORE_TABLE = 60, 40


def help_text(width: int = 80) -> str:
    """/help laid out for a terminal ``width`` columns wide."""
    width = max(width, 20)
    indent = COLUMN if width >= NARROW else 6 if width >= 40 else 4
    lines = ["Commands:"]
    for command, *said in COMMANDS:
        head = f"  {command}"
        if width >= NARROW and len(head) + 2 <= indent:
            first = head.ljust(indent)
        elif width >= NARROW:
            first = head + "  "
        else:
            lines.append(head)
            first = " " * indent
        for piece in said:
            wrapped = textwrap.wrap(piece, width - indent, break_long_words=False,
                                    break_on_hyphens=False)
            lines.append(first + wrapped[0])
            lines.extend(" " * indent + more for more in wrapped[1:])
            first = " " * indent
    lines.extend(textwrap.wrap(NOTE, width, break_long_words=False, break_on_hyphens=False))
    return "\n".join(lines)


#: /help at 80 columns.
HELP = help_text()


def print_laid_out(console: Console, text: Text) -> None:
    """Print ``text`` laid out here as it is: rich would wrap it again, at spaces only,
    folding mid-word a word too wide for its line and a run of wide characters, which
    the layout keeps whole (a line wider than the terminal is left to it to wrap)."""
    console.print(text, soft_wrap=True)


def hanging(console: Console, text: Text, indent: int = 2) -> Text:
    """``text`` wrapped between words to the console's width, the lines after the first
    indented by ``indent``; left whole where the console does not wrap (``soft_wrap``: the
    chat's output piped to a file), as every other line is there."""
    if console.soft_wrap:
        return text
    return _hung(text, console.width, indent)


def _hung(text: Text, width: int, indent: int) -> Text:
    """``hanging`` at ``width`` columns."""
    out = Text()
    for number, line in enumerate(wrap(text, max(width - indent, 10))):
        if number:
            out.append("\n" + " " * indent)
        line.rstrip()
        out.append_text(line)
    return out


def indented_line(console: Console, markup: str, indent: int = 4) -> Text:
    """A line of the chat (``markup``, as ``console.print`` takes it) that starts indented,
    such as a tool call's ``  ↳`` or a /recall hit, wrapped as ``hanging`` makes the banner:
    its later lines indented by ``indent``, under its text (left whole where the console does
    not wrap, as ``hanging`` leaves it)."""
    return hanging(console, console.render_str(markup), indent)


def reply_text(console: Console, markup: str) -> Text:
    """A reply or notice (``markup``, as ``console.print`` takes it) with each of its lines
    wrapped as ``indented_line`` wraps a tool call's, under its text: indented two more
    than the line itself (a list item's text after its "- "). Left whole where the console
    does not wrap, as ``indented_line`` leaves it."""
    text = console.render_str(markup)
    if console.soft_wrap:
        return text
    # Read once: each read asks the terminal its size, which cost more than laying out a
    # short line, and a reply of many lines is laid out at one width.
    width = console.width
    out = Text()
    for number, line in enumerate(text.split("\n", allow_blank=True)):
        if number:
            out.append("\n")
        lead = len(line.plain) - len(line.plain.lstrip(" "))
        indent = min(lead + 2, width // 2)
        # The first word is laid out whole after the indent where it fits; wrapped with
        # the indent, a word too wide for the room left was folded or moved to a second line.
        first_word = widest_piece((line.plain.split(maxsplit=1) or [""])[0])
        if lead + first_word <= max(width - indent, 10):
            out.append_text(_hung(line, width, indent))
        else:
            out.append_text(_deeply_indented(line, width, lead, indent, first_word))
    return out


def _deeply_indented(line: Text, width: int, lead: int, indent: int, first_word: int
                     ) -> Text:
    """``line``, indented ``lead`` (more than its later lines' ``indent`` leaves room for
    with its first word, ``first_word`` cells), wrapped with its first words after that
    indent: wrapped whole, the indent alone filled the first line, which showed as a blank
    line. A first word too wide for the room after ``lead`` starts less deep, down to
    ``indent``: the terminal would fold it back to column 0."""
    body = line[lead:]
    lead = min(lead, max(indent, width - first_word))
    first = wrap(body, max(width - lead, 1))[0]
    rest = body[len(first.plain):]
    rest = rest[len(rest.plain) - len(rest.plain.lstrip()):]
    first.rstrip()
    out = Text(" " * lead)
    out.append_text(first)
    if rest.plain:
        out.append("\n" + " " * indent)
        out.append_text(_hung(rest, width, indent))
    return out


def core_view(console: Console, title: str, rows: list[tuple[str, str, str, str, str]]
              ) -> Table | Text:
    """The /core table (id, fact, durability, accesses, score) for the console's width:
    without the counts below ``CORE_COUNTS`` columns, and below ``CORE_TABLE`` a list
    of ``#id (durability) fact`` lines, so a fact is never cut to an ellipsis. A layout
    whose fact column is narrower than a fact's longest word gives way to the next one,
    which has more room for it: the table would fold the word (a URL, a path) mid-way. A
    run of Chinese or Japanese, written without spaces, is no such word: a line may break
    between its characters (agent/line_breaks.py)."""
    columns = ("id", "fact", "durability", "accesses", "score")
    longest = max((widest_piece(printable(row[1])) for row in rows), default=0)
    for shown, least in ((len(columns), CORE_COUNTS), (3, CORE_TABLE)):
        if console.width >= least and longest <= _fact_width(console.width, columns[:shown],
                                                             rows):
            table = Table(title=escape(title))
            for column in columns[:shown]:
                table.add_column(column, overflow="fold")
            for row in rows:
                table.add_row(*(escape(cell) for cell in row[:shown]))
            return table
    listed = Text(title)
    for fact_id, fact, durability, _, _ in rows:
        listed.append("\n")
        listed.append_text(hanging(console, Text(f"#{fact_id} ({durability}) {fact}")))
    return listed


def _fact_width(width: int, columns: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> int:
    """How wide the fact column of a /core table of ``columns`` comes out at ``width``:
    what the other columns' widest cells, a space either side of each cell and the
    borders between them leave."""
    others = sum(max(cell_len(printable(cell)) for cell in (column, *(row[at] for row in rows)))
                 for at, column in enumerate(columns) if column != "fact")
    return width - others - 3 * len(columns) - 1
