"""onnxruntime, imported with its telemetry off.

onnxruntime's official wheels (Linux and macOS too, since its 1DS telemetry) write a
persistent device id and an event queue under ``~/.cache/Microsoft/DeveloperTools``
as the module is imported, and send those events to Microsoft over HTTPS; its own
Privacy.md says so. tiermem promises that offline nothing leaves the machine, so the
local embedders import onnxruntime only through :func:`onnxruntime`, which sets
``ORT_DISABLE_TELEMETRY=1`` for the import: onnxruntime reads it as it initialises and
then creates neither the uploader, the events nor the device id for the process. The
variable is taken out again once the import is done, so the host application's
environment, and its child processes', stay as they were. A value the user set is left
as it is, and where onnxruntime was imported before (by the host application), its
non-essential events are switched off through its API, the most that can be done then.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

#: The variable onnxruntime reads as it initialises (its Privacy.md, "Disabling Telemetry").
TELEMETRY_ENV = "ORT_DISABLE_TELEMETRY"


def onnxruntime() -> ModuleType:
    """The ``onnxruntime`` module, with its telemetry off (module docstring).

    Raises ImportError as ``import onnxruntime`` does when it is not installed."""
    imported_before = "onnxruntime" in sys.modules
    user_setting = os.environ.get(TELEMETRY_ENV)
    if user_setting is None:
        os.environ[TELEMETRY_ENV] = "1"
    try:
        import onnxruntime as ort
    finally:
        if user_setting is None:
            os.environ.pop(TELEMETRY_ENV, None)

    if imported_before and user_setting in (None, "1"):
        disable = getattr(ort, "disable_telemetry_events", None)
        if disable is not None:
            disable()
    return ort
