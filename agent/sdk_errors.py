"""How the ``openai`` package's failures read to a user.

``provider_error`` turns what a request raised into a ``ProviderError``: its text
says what to do, and its kind (with ``retryable``) is what the client's retry rule
reads (agent/openai_client.py's docstring); a wait a server asks is read by
agent/retry_after.py.

The SDK's HTTP library (httpx, or a fork of it, by SDK version) is never imported:
its errors are told apart by name, which both spell alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tiermem.agent.base_url import is_openai_service
from tiermem.agent.body_waits import wait_words
from tiermem.agent.config import ENV_CONTEXT_WINDOW
from tiermem.agent.errors import ProviderError, ProviderErrorKind
from tiermem.agent.loading_wait import RATE_LIMIT_BUDGET
from tiermem.agent.retry_after import long_wait_hint, retry_after_seconds
from tiermem.agent.server_errors import (
    PLACE_HINT,
    begins,
    classify_refusal,
    clip,
    is_web_page,
    key_refusal,
    page_title,
    server_message,
    web_page_error,
)
from tiermem.agent.server_setup import (
    from_litellm,
    ollama_missing_name,
    pull_command,
    server_fault,
)

__all__ = ["BUDGET_HINT", "FREE_DAY_HINT", "OVER_THE_LIMIT", "OVER_THE_LIMIT_HINT", "QUOTA_HINT",
           "over_the_limit", "provider_error", "spent_on", "used_up"]

# Gateway Timeout, and Cloudflare's "A timeout occurred".
_GATEWAY_TIMEOUTS = frozenset({504, 524})
# 413: the whole request is over a size limit, mostly a proxy's, never something it names.
_TOO_LARGE = ("the request is larger than the server, or a proxy in front of it, accepts: raise "
              "its body size limit (nginx client_max_body_size, 1 MB by default), or start the "
              "chat with a smaller --context-window so that requests stay smaller")


def provider_error(exc: Exception, attempts: int, *, url: str, model: str,
                   timeout: float, connect_timeout: float) -> ProviderError:
    """What ``exc``, raised by the ``openai`` package after ``attempts`` attempts at
    ``url`` with the request and connect timeouts given, means for the user: a
    ``ProviderError`` whose kind decides retrying."""
    import openai

    tries = f"{attempts} attempt" + ("" if attempts == 1 else "s")

    if isinstance(exc, openai.APITimeoutError) and _never_sent(exc.__cause__):
        return ProviderError(
            f"could not connect to {url} within the {connect_timeout:g} s connect "
            f"timeout ({tries}): is the server running and reachable from here? check "
            f"--base-url / OPENAI_BASE_URL",
            kind="connection",
            attempts=attempts,
        )
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(
            f"{url} did not answer within {timeout:g} s ({tries}): the model may be "
            f"loading or overloaded; raise the request timeout (--timeout SECONDS or "
            f"TIERMEM_TIMEOUT) or try a smaller model",
            kind="timeout",
            attempts=attempts,
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = f" ({exc.__cause__})" if exc.__cause__ else ""
        if _cut_off(exc.__cause__):
            why = str(exc.__cause__).rstrip(".")
            return ProviderError(
                f"{url} closed the connection before its answer was complete ({why}; "
                f"{tries}): the server may have crashed or restarted while answering "
                f"(out of memory, say); check its log",
                kind="connection",
                attempts=attempts,
                may_pass=True,  # a server restarted, or a model started afresh, answers
            )
        return ProviderError(
            f"could not reach {url}{cause}: is the server running? "
            f"set --base-url / OPENAI_BASE_URL",
            kind="connection",
            attempts=attempts,
        )
    if isinstance(exc, openai.APIStatusError):
        return _past_the_minute(_status_error(exc, attempts, tries, url, model), exc, url)
    return ProviderError(
        f"{url} sent a response that is not a chat completion: {clip(str(exc))}; "
        f"check that the base URL points at an OpenAI-compatible /v1 API",
        kind="bad_response",
        attempts=attempts,
    )


def _said(exc: Any) -> tuple[bool, Any, str]:
    """Whether refusal ``exc`` came as a web page, its body as read (a page's title, not its
    markup), and what it said, as an error's words end."""
    page = _is_web_page(exc)
    body = page_title(exc.response.text) if page else exc.body
    detail = server_message(body)
    if page:
        return page, body, (f"; it answered with a web page titled {detail!r}, not the API's "
                            f"JSON" if detail else "; it answered with a web page (HTML), not "
                            "the API's JSON")
    return page, body, f"; the server said: {detail}" if detail else ""


def _past_the_minute(error: ProviderError, exc: Any, url: str) -> ProviderError:
    """``error``, or, when its server asked a wait longer than the minute a client waits
    (Gemini's "Please retry in 2h47m56s.", a ``Retry-After: 10000``), one that ends the
    request at once and names that wait: sent again after the 30 s it would be capped to,
    it would be refused alike. A loading model's waits are its own (agent/loading_wait.py)."""
    asked = retry_after_seconds(exc)
    if not error.retryable or error.retry_wait is not None or asked is None \
            or asked <= RATE_LIMIT_BUDGET:
        return error
    wait = wait_words(asked)
    return ProviderError(
        f"{url} refused the request (HTTP {error.status_code}) and asked to wait {wait} before "
        f"it is sent again, longer than the minute this client waits, so it was not sent "
        f"again" + _said(exc)[2],
        kind=error.kind, retryable=False, status_code=error.status_code,
        attempts=error.attempts,
        hint=long_wait_hint(asked, error.status_code))


def _status_error(exc: Any, attempts: int, tries: str, url: str, model: str) -> ProviderError:
    status: int = exc.status_code
    # A proxy's error page is read for its title, not quoted as markup.
    page, body, said = _said(exc)
    refusal = classify_refusal(status, body)
    kind: ProviderErrorKind
    if refusal is not None and refusal.kind == "context_exceeded":
        window = refusal.context_window
        runs = f"the window it runs with ({window})" if window else "the window it runs with"
        # Conditional: when the window tiermem fitted to is already that size, the server
        # counted more tokens than tiermem did, and the hint says what to do instead.
        text = (
            f"{url} refused the prompt as longer than its context window (HTTP {status}): "
            f"if --context-window or {ENV_CONTEXT_WINDOW} is larger, set it to {runs} so "
            f"the agent summarises sooner"
        )
        return ProviderError(text + said, kind="context_exceeded", status_code=status,
                             attempts=attempts, context_window=window)
    headers = getattr(getattr(exc, "response", None), "headers", None)
    fault = server_fault(status, exc.body, model, url, headers)
    if fault is not None:
        counted = f", {tries}" if fault.retryable else ""
        return ProviderError(f"{url} {fault.says} (HTTP {status}{counted})" + said,
                             kind=fault.kind, retryable=fault.retryable, status_code=status,
                             attempts=attempts, hint=fault.hint,
                             # OpenAI's 503s keep the short backoff: it loads no model.
                             retry_wait=None if is_openai_service(url) else fault.wait,
                             may_pass=fault.may_pass, busy=fault.busy)
    if page and status in (401, 403, 407):
        # A proxy's or firewall's own page (Cloudflare's "Attention Required!", nginx's basic
        # auth), not the API's refusal of the key or the model.
        return ProviderError(
            f"a proxy or firewall in front of {url} refused the request (HTTP {status})" + said,
            kind="auth", status_code=status, attempts=attempts,
            hint="check the access rules of the proxy or firewall in front of the server "
                 "(addresses allowed, a login it asks), or set --base-url to the server "
                 "itself, then send it again")
    denied = key_refusal(status, body)
    if denied == "place":
        return ProviderError(
            f"{url} refused requests from this country or region (HTTP {status})" + said,
            kind="auth", status_code=status, attempts=attempts, hint=PLACE_HINT)
    if denied == "key":
        # Also Google's 400 "API key not valid", which is no request to change.
        return ProviderError(f"{url} rejected the API key (HTTP {status}): check OPENAI_API_KEY"
                             + said, kind="auth", status_code=status, attempts=attempts)
    spent = spent_on(status, body)
    if spent is not None:
        return ProviderError(
            f"{url} refused the request: {spent[0]} (HTTP {status}){said}",
            kind="rate_limit", retryable=False, status_code=status, attempts=attempts,
            hint=spent[1])
    if over_the_limit(status, body):
        return ProviderError(
            f"{url} refused the request as {OVER_THE_LIMIT} (HTTP {status}){said}",
            kind="rate_limit", retryable=False, status_code=status, attempts=attempts,
            hint=OVER_THE_LIMIT_HINT)
    if refusal is not None:
        # A 5xx that is a validation error would fail the same way every time.
        refused = f": {refusal.message}" if refusal.message else ""
        text = (f"the server refused the request{refused} (HTTP {status} from {url}); "
                f"sending it again cannot help")
        return ProviderError(text, kind="bad_request", retryable=False, status_code=status,
                             attempts=attempts, hint=_TOO_LARGE if status == 413 else None)
    if status == 429:
        kind = "rate_limit"
        text = (
            f"{url} is rate-limiting requests (HTTP 429, {tries}): wait a minute and "
            f"try again, or check the account's quota"
        )
    elif status == 408:
        kind = "timeout"
        text = f"{url} timed out the request (HTTP 408, {tries}): try again later"
    elif status in _GATEWAY_TIMEOUTS:
        # A proxy stopped waiting while the model server was still working on the request:
        # sending it again queues the same work, so it is retried only as a timeout is.
        return ProviderError(
            f"{url} answered HTTP {status} ({tries}): a proxy or gateway in front of the model "
            f"server stopped waiting for its answer" + said,
            kind="timeout", status_code=status, attempts=attempts, hint=_gateway_hint(url))
    elif status >= 500 and page:
        kind = "server"
        # The page may be a proxy's (nginx's 502) or the server's own framework's (Werkzeug).
        text = (f"{url} failed with HTTP {status} ({tries}): the model server, or a proxy or "
                f"gateway in front of it, is having problems; check that the model server is "
                f"running, and its log")
    elif status >= 500:
        kind = "server"
        text = (
            f"{url} failed with HTTP {status} ({tries}): the server is having problems; "
            f"check its logs or try again later"
        )
    elif status in (401, 403):
        # A 403, or a LiteLLM proxy's 401 "key not allowed to access model": the key is good.
        kind = "auth"
        text = (
            f"{url} refused access to model {model!r} (HTTP {status}): check that the "
            f"API key (OPENAI_API_KEY) may use this model"
        )
    elif page:
        # A web UI or proxy refusing the POST (405, 404 from its router): the URL is wrong.
        return web_page_error(url, attempts, status)
    elif status == 404:
        kind = "bad_request"
        # Ollama's words away from its port: Ollama elsewhere (OLLAMA_HOST, a container's
        # port, a reverse proxy) or a server worded alike; the pull is advised as for Ollama,
        # of the name it gives, which a proxy may map --model to; a LiteLLM proxy's error,
        # which no Ollama sends, gets where to look instead.
        missing = ollama_missing_name(status, exc.body)
        pull = ("" if missing is None else
                f" (the error is a LiteLLM proxy's: check its model list, and that the server "
                f"behind it has model {missing!r})" if from_litellm(status, exc.body, headers) else
                f" (if the server is Ollama, `{pull_command(missing)}` fetches it)")
        text = (
            f"{url} has no model {model!r} or no /chat/completions endpoint (HTTP 404): "
            f"check --model / TIERMEM_MODEL against {url}/models{pull}, and that the base URL "
            f"ends in /v1"
        )
    else:
        kind = "bad_request"
        text = f"{url} refused the request (HTTP {status})"
    return ProviderError(text + said, kind=kind, status_code=status, attempts=attempts)


#: OpenAI's and Groq's 429 for one request larger than the account's limit of tokens a minute
#: ("Request too large for gpt-4o ... on tokens per min (TPM): Limit 30000, Requested 31538"):
#: no wait lets it pass; also as a LiteLLM proxy quotes it, after its own words.
_OVER_THE_LIMIT = re.compile(r"\brequest too large for\b.{0,200}?\bper min", re.IGNORECASE)
OVER_THE_LIMIT = "larger than the tokens a minute the account may send"
OVER_THE_LIMIT_HINT = ("waiting does not lift it: the prompt and the reply budget count "
                       "against the limit; start the chat with a smaller --context-window (or "
                       "--max-tokens) so that requests stay under it, or raise the account's "
                       "limit (its tier), then send it again")


def over_the_limit(status: int | None, body: Any) -> bool:
    """Whether a refusal is of one request over the account's tokens a minute: a 429, or
    Groq's 413, which is no body too large for a proxy."""
    return status in (413, 429) and _OVER_THE_LIMIT.search(server_message(body)) is not None


#: What to do when the account's credit or plan, not the rate of requests, refused a request.
QUOTA_HINT = ("waiting does not lift it: add credit or raise the account's plan (its billing "
               "page), or use another key or --base-url, then send it again")


#: What to do when a proxy's spending budget (LiteLLM's of a key, its user or team, or a
#: model) refused a request.
BUDGET_HINT = ("waiting a minute does not lift it: the budget is given again when its period "
               "ends (a LiteLLM proxy's budget_duration); ask the proxy's admin to raise it, or "
               "use another key or --base-url, then send it again")

#: LiteLLM's words for a budget spent: "Budget has been exceeded! Key=... Current cost: ...",
#: "ExceededBudget: End User=... over budget", "... exceeded budget for model=...", and its
#: router's "No deployments available - crossed budget: Exceeded budget for deployment ...".
_BUDGET_SPENT = re.compile(r"budget has been exceeded|\bexceededbudget\b|\bexceeded budget\b"
                           r"|\bcrossed budget\b", re.IGNORECASE)


#: What to do when OpenRouter's requests a day to its free models are used up.
FREE_DAY_HINT = ("waiting a minute does not lift it: OpenRouter gives the day's requests to free "
                 "models again at midnight UTC; pass --model a model without :free, buy credits "
                 "(they raise the day's requests), or use another key or --base-url, then send "
                 "it again")
#: OpenRouter's 429 "Rate limit exceeded: free-models-per-day" (or "...-high-balance").
_FREE_DAY = re.compile(r"\bfree-models-per-day\b", re.IGNORECASE)


def spent_on(status: int | None, body: Any) -> tuple[str, str] | None:
    """What a refusal with ``status`` and ``body`` says is used up, and what to do, when no
    wait lifts it: any 402 (Payment Required: OpenRouter's "Insufficient credits", DeepSeek's
    "Insufficient Balance") the account's credit; a 429, or a 400 as a LiteLLM proxy sends its
    budget spent ("litellm.BadRequestError: ... Budget has been exceeded!"), what ``used_up``
    reads in it; None for another refusal."""
    if status == 402:
        return "the account's credit is used up", QUOTA_HINT
    if status == 400:
        # Only LiteLLM's own words: a 400 quoting them further on (a validation error's
        # "input", which holds the prompt) is no budget spent.
        spent = used_up(body)
        return spent if spent is not None and (_budget_typed(body) or begins(
            _BUDGET_SPENT, body)) else None
    return used_up(body) if status == 429 else None


def used_up(body: Any) -> tuple[str, str] | None:
    """What a 429's ``body`` says is used up, and what to do, when no wait lifts it: the
    account's quota (``quota_used_up``), a proxy's spending budget (its error's type or
    code "budget_exceeded", or LiteLLM's words for it), or OpenRouter's requests a day to free
    models; None for a limit on the rate of requests, which a wait lifts."""
    if quota_used_up(body):
        return "the account's quota is used up", QUOTA_HINT
    if _budget_typed(body):
        return "the proxy's spending budget is used up", BUDGET_HINT
    inner = body.get("error", body) if isinstance(body, Mapping) else body
    if isinstance(inner, Mapping):
        inner = inner.get("message")
    if isinstance(inner, str) and _BUDGET_SPENT.search(inner):
        return "the proxy's spending budget is used up", BUDGET_HINT
    if isinstance(inner, str) and _FREE_DAY.search(inner):
        return "the day's requests to free models are used up", FREE_DAY_HINT
    return None


def _budget_typed(body: Any) -> bool:
    """Whether ``body``'s error is of type or code "budget_exceeded" (LiteLLM's)."""
    inner = body.get("error", body) if isinstance(body, Mapping) else body
    return isinstance(inner, Mapping) and "budget_exceeded" in (inner.get("code"),
                                                                inner.get("type"))


def quota_used_up(body: Any) -> bool:
    """Whether a 429 says the account's quota is used up (OpenAI's "insufficient_quota", as
    its code or type, or quoted in the message of a proxy handing OpenAI's error on, as
    LiteLLM's "litellm.RateLimitError: ... 'code': 'insufficient_quota'"), which no wait
    lifts, rather than that requests came too fast. The words "exceeded your current quota"
    alone tell nothing: Google's Gemini says them of its limits per minute."""
    inner = body.get("error", body) if isinstance(body, Mapping) else body
    if isinstance(inner, Mapping):
        if "insufficient_quota" in (inner.get("code"), inner.get("type")):
            return True
        inner = inner.get("message")
    return isinstance(inner, str) and re.search(r"\binsufficient_quota\b", inner) is not None


def _gateway_hint(url: str) -> str:
    """What to do about a gateway's timeout: OpenAI's gateways are not the user's to set."""
    if is_openai_service(url):
        return "try again later, or with a lower --max-tokens so that the answer is shorter"
    return ("the model took longer than the proxy or gateway waits: if it is yours, raise its "
            "read timeout (nginx proxy_read_timeout, 60 s by default); or use a smaller model "
            "or a lower --max-tokens, then send it again")


def _is_web_page(exc: Any) -> bool:
    """Whether the refusal ``exc`` came as an HTML page rather than an API's error. A body
    that parsed as JSON is the API's error whatever content type it was labelled with."""
    response = getattr(exc, "response", None)
    if response is None or isinstance(getattr(exc, "body", None), Mapping | list):
        return False
    try:
        return is_web_page(response.headers.get("content-type", ""), response.text)
    except Exception:  # a body that cannot be read as text is no page to judge
        return False


def _cut_off(cause: BaseException | None) -> bool:
    """Whether the server was reached and then dropped the connection: "is the server
    running?" would send the user after the wrong cause."""
    # By name: the SDK's HTTP library (httpx, or a fork of it) names its errors alike.
    return type(cause).__name__ in ("RemoteProtocolError", "ReadError")


def _never_sent(cause: BaseException | None) -> bool:
    """Whether a timeout came before the request reached the server (no connection, or
    none free in the pool), which makes sending it again safe for any server."""
    return type(cause).__name__ in ("ConnectTimeout", "PoolTimeout")
