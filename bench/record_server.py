"""Record again, from a running local server, the exchanges kept in tests/data/servers.

Each fixture holds a request and the answer one server gave to it. This sends
every fixture's request, unchanged except for the model name, to another
server (or a newer build of the same one) and writes what it answers in the
same format, so the replay tests can be pointed at it::

    python -m bench.record_server --base-url http://127.0.0.1:8082 \\
        --server llama-server --out tests/data/servers/llama-server

Only loopback servers are accepted: a fixture must not leave the machine.
Standard library only, so it runs in the server's own environment too.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "data" / "servers"
KEPT_HEADERS = ("content-type", "server")


def exchange(base: str, method: str, path: str, body: Any,
             timeout: float) -> tuple[int, dict[str, str], Any]:
    """One HTTP exchange: status, the kept headers, and the body as JSON (or text)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, headers, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, error.headers, error.read()
    text = raw.decode(errors="replace")
    try:
        decoded: Any = json.loads(text)
    except ValueError:
        decoded = text
    kept = {name: headers[name] for name in KEPT_HEADERS if headers.get(name)}
    return status, kept, decoded


def is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.record_server", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True, help="the server's root, e.g. "
                                                          "http://127.0.0.1:8082")
    parser.add_argument("--server", required=True, help="a name for it, e.g. llama-server")
    parser.add_argument("--server-version", default="", help="its version, as text")
    parser.add_argument("--requests", type=Path, default=FIXTURES / "llama-server",
                        help="the fixtures whose requests to send (default: llama-server's)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the answers")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per request")
    args = parser.parse_args(argv)
    base = args.base_url.rstrip("/")
    if not is_loopback(base):
        print(f"refusing {base}: only loopback servers are recorded", file=sys.stderr)
        return 2
    _, _, models = exchange(base, "GET", "/v1/models", None, args.timeout)
    model = models["data"][0]["id"] if isinstance(models, dict) and models.get("data") else ""
    args.out.mkdir(parents=True, exist_ok=True)
    for source in sorted(args.requests.glob("*.json")):
        request = json.loads(source.read_text(encoding="utf-8"))["request"]
        body = request.get("body")
        if isinstance(body, dict) and "model" in body:
            body = {**body, "model": model}
        status, headers, answer = exchange(base, request["method"], request["path"], body,
                                           args.timeout)
        record = {"server": args.server, "server_version": args.server_version, "model": model,
                  "request": {**request, "body": body},
                  "response": {"status": status, "headers": headers, "body": answer}}
        (args.out / source.name).write_text(json.dumps(record, indent=2, ensure_ascii=False)
                                            + "\n", encoding="utf-8")
        print(f"{source.stem}: HTTP {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
