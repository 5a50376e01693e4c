"""An option that takes one of some words takes it in any case, as ``--text-tool-calls``
and the settings ``tiermem config`` stores do; a word it does not take is refused as
typed."""

from __future__ import annotations

import pytest

from tiermem.agent.cli_parser import build_parser


@pytest.mark.parametrize(("args", "option", "value"), [
    (["chat", "--offline", "--embedder", "HASHING"], "embedder", "hashing"),
    (["diagnostics", "--format", "JSON"], "format", "json"),
    (["diagnostics", "--embedder", "Local"], "embedder", "local"),
    (["forget", "--mode", "EXACT", "x"], "mode", "exact"),
    (["forget", "--mode", "Exact_Then_Top_K_LLM", "x"], "mode", "exact_then_top_k_llm"),
    (["forget", "--embedder", "Hashing", "x"], "embedder", "hashing"),
    (["scenario", "--embedder", "HASHING"], "embedder", "hashing"),
    (["reindex", "--embedder", "HASHING"], "embedder", "hashing"),
    (["pg", "STATUS"], "action", "status"),
    (["eval", "locomo", "--mode", "QA"], "mode", "qa"),
    (["eval", "locomo", "--embedder", "HASHING"], "embedder", "hashing"),
])
def test_a_choice_is_taken_in_any_case(args: list[str], option: str, value: str) -> None:
    # Each was refused: "argument --embedder: invalid choice: 'HASHING'".
    assert getattr(build_parser().parse_args(args), option) == value


def test_a_word_not_taken_is_refused_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["forget", "--mode", "Bogus", "x"])
    assert "invalid choice: 'Bogus'" in capsys.readouterr().err
