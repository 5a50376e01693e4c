"""A reply of many Mistral markers is read in time linear in its length: where the markers
begin calls is found once a text, not again by each reading of the reply, so the work per
marker stays the same as the reply grows (agent/text_call_tags.py)."""

from __future__ import annotations

import pytest

from tiermem.agent import text_call_tags
from tiermem.agent.text_tool_calls import find_text_tool_calls

NAMES = ["core_memory_append", "send_message"]
UNITS = {
    "calls": '[TOOL_CALLS]send_message[ARGS]{"message": "hi %d"}',
    "quoted": '[TOOL_CALLS]send_message[ARGS]{"message": "a [TOOL_CALLS] %d"}',
    "unfinished": '[TOOL_CALLS]send_message[ARGS]{"message": "a %d ',
}


def markers_examined(unit: str, count: int, cut: bool, monkeypatch: pytest.MonkeyPatch) -> int:
    examined = 0
    past = text_call_tags._past_quoted_markers

    def counted(*args: object) -> int:
        nonlocal examined
        examined += 1
        return past(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(text_call_tags, "_past_quoted_markers", counted)
    content = "".join(unit % (index + count * 7 + cut) for index in range(count))
    find_text_tool_calls(content, NAMES, cut=cut)
    return examined


@pytest.mark.parametrize("cut", [False, True])
@pytest.mark.parametrize("unit", UNITS.values(), ids=UNITS.keys())
def test_each_marker_is_examined_once(unit: str, cut: bool,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    small = markers_examined(unit, 500, cut, monkeypatch)
    large = markers_examined(unit, 2000, cut, monkeypatch)
    assert large <= 2000  # once each, however many readings the reply is given
    assert large <= 4 * small + 4
