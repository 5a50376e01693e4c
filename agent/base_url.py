"""Where a model server is: the API root of a URL as servers document it, and whether it is
OpenAI's own service (which needs a real key, and spreads requests over many machines)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from tiermem.agent.errors import LLMConfigError
from tiermem.memory.store.location_text import without_password

OPENAI_API_BASE_URL = "https://api.openai.com/v1"


def normalize_base_url(url: str) -> str:
    """Accept ``http://host:port``, ``http://host:port/v1`` and similar; return the API root.

    A bare host gets ``/v1`` appended because every supported server mounts
    the API there; any other path is kept, since some gateways use their own
    prefix (``/api/v1``). A pasted ``.../chat/completions`` is trimmed back to
    the root.
    """
    text = url.strip()
    if not text:
        raise LLMConfigError("the base URL is empty; expected e.g. http://127.0.0.1:11434/v1")
    if "://" not in text:
        text = "http://" + text
    expected = "expected e.g. http://127.0.0.1:11434/v1"
    try:
        parts = urlsplit(text)
        host, _ = parts.hostname, parts.port  # both raise on a malformed address
    except ValueError as exc:
        raise LLMConfigError(without_password(
            f"base URL {url!r} is not a valid URL ({exc}); {expected}", url)) from None
    if parts.scheme not in ("http", "https") or not host:
        raise LLMConfigError(without_password(
            f"base URL {url!r} is not an http(s) URL; {expected}", url))
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        path = path[: -len("/chat/completions")]
    if not path:
        path = "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def is_openai_url(url: str) -> bool:
    """Whether ``url`` is OpenAI's own API, which needs a real key."""
    host = (urlsplit(url).hostname or "").lower()
    return host == "openai.com" or host.endswith(".openai.com")


def is_openai_service(url: str) -> bool:
    """Whether ``url`` is OpenAI's API as OpenAI or Azure OpenAI
    (``https://NAME.openai.azure.com/...``, or the Azure AI services addresses that also
    serve its models, ``NAME.cognitiveservices.azure.com`` and
    ``NAME.services.ai.azure.com``) serves it: many machines behind one address, where a
    request sent again after a timeout need not wait behind the first."""
    host = (urlsplit(url).hostname or "").lower()
    return is_openai_url(url) or host.endswith(_AZURE_OPENAI_HOSTS)


#: The ends of the Azure host names that serve OpenAI's models (``is_openai_service``).
_AZURE_OPENAI_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com",
                       ".services.ai.azure.com")
