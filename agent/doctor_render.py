"""``tiermem doctor`` on the command line: the table, the verdict, the JSON, the exit status."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from rich.table import Table

from tiermem.agent.base_url import normalize_base_url
from tiermem.agent.config import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    check_max_tokens,
    configured_context_window,
    configured_encoding,
    configured_max_tokens,
)
from tiermem.agent.doctor import DoctorReport, run_doctor
from tiermem.agent.errors import LLMConfigError
from tiermem.agent.terminal import escape

_STYLES = {"ok": "green", "warn": "yellow", "fail": "red", "info": "dim", "skip": "dim"}


def print_report(console: Any, report: DoctorReport) -> None:
    """The table of checks, then the verdict and what to change."""
    table = Table(title=f"tiermem doctor: {report.model or '?'} @ {report.base_url}")
    table.add_column("check")
    table.add_column("", no_wrap=True)
    table.add_column("result")
    table.add_column("detail")
    for row in report.rows:
        style = _STYLES[row.status]
        table.add_row(escape(row.check), f"[{style}]{row.status}[/{style}]", escape(row.result),
                      escape(row.detail))
    console.print(table)
    style = "bold green" if report.works else "bold red" if report.known else "bold yellow"
    console.print(f"[{style}]{escape(report.verdict)}[/{style}]")
    for line in report.advice:
        console.print(f"  - {escape(line)}")
    console.print(f"[dim]{report.seconds:.1f} s[/dim]")


def cmd_doctor(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    """``tiermem doctor``: ``doctor_main`` on the command's options."""
    from tiermem.agent.terminal import report_console

    return doctor_main(args.base_url, args.model, args.timeout, args.json,
                       report_console(args.json == "-"), note)


def doctor_main(base_url: str | None, model: str | None, timeout: float | None,
                json_target: str | None, console: Any, note: Callable[[str], None]) -> int:
    """Run the doctor; 0 when the memory agent can work, 1 when it cannot, 2 on usage
    (told to ``note``, standard error, as every command tells its usage errors)."""
    from tiermem.memory.output_file import emit_json, output_path

    raw_url = base_url or os.environ.get(ENV_BASE_URL, "").strip()
    if not raw_url:
        note(f"doctor needs the server: pass --base-url URL (e.g. http://127.0.0.1:8080/v1) "
             f"or set {ENV_BASE_URL}")
        return 2
    try:
        url = normalize_base_url(raw_url)
    except LLMConfigError as exc:
        note(str(exc))
        return 2
    try:
        # What the chat would use: its reply budget, window and encoding settings.
        max_tokens = configured_max_tokens()
        context_window = configured_context_window()
        encoding = configured_encoding()
        if max_tokens is not None and (max_tokens < 1 or context_window is not None):
            # The chat refuses such a budget before its first request: one that is not
            # positive, or that leaves less than half of the window it was set for the prompt.
            check_max_tokens(max_tokens, context_window or 0)
    except LLMConfigError as exc:
        note(str(exc))
        return 2
    json_path = output_path(json_target)
    report = run_doctor(url, model or os.environ.get(ENV_MODEL, "").strip() or None,
                        os.environ.get(ENV_API_KEY, "").strip() or None, timeout=timeout,
                        max_tokens=max_tokens, context_window=context_window,
                        encoding=encoding)
    print_report(console, report)
    if json_target is not None:
        emit_json(report.to_dict(), json_path)
    return 0 if report.works else 1
