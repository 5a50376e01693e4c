"""Exchanges recorded from real local servers (tests/data/servers), ready to replay.

Each file holds one request a real server received and exactly what it
answered: ``{server, server_version, model, request: {method, path, body},
response: {status, headers, body}, ...}``. ``Recording.response`` is that
answer for the loopback server (tests/fake_openai.py), byte for byte in
body and content type. How the files were made: tests/data/servers/README.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_openai import FakeResponse

DATA = Path(__file__).resolve().parent / "data" / "servers"


@dataclass(frozen=True)
class Recording:
    server: str
    name: str
    request: dict[str, Any]
    status: int
    body: Any
    content_type: str

    @property
    def response(self) -> FakeResponse:
        """The recorded answer, to queue on (or return from a responder of) the fake server."""
        return FakeResponse(status=self.status, body=json.dumps(self.body).encode(),
                            headers={"Content-Type": self.content_type})

    @property
    def message(self) -> dict[str, Any]:
        """The assistant message the server answered with."""
        message: dict[str, Any] = self.body["choices"][0]["message"]
        return message

    @property
    def prompt_tokens(self) -> int:
        return int(self.body["usage"]["prompt_tokens"])


def recording(server: str, name: str) -> Recording:
    """``tests/data/servers/<server>/<name>.json``."""
    raw = json.loads((DATA / server / f"{name}.json").read_text(encoding="utf-8"))
    response = raw["response"]
    return Recording(server=raw["server"], name=name, request=raw["request"]["body"],
                     status=int(response["status"]), body=response["body"],
                     content_type=response["headers"].get("content-type", "application/json"))


def has_null_content(body: dict[str, Any]) -> bool:
    """Whether any message of a chat request has ``content: null`` or no content at all."""
    return any(message.get("content") is None for message in body.get("messages", []))
