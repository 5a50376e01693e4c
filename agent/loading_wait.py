"""How long a client waits before sending a request again, and who hears of it.

A server loading its model (llama.cpp's 503 "Loading model", agent/server_setup.py) is
given waits a model takes to load: ``server_setup.LOADING_WAIT`` seconds before the second
attempt, twice that before the third, and so on, up to ``LOADING_BUDGET`` seconds in all
(a longer ``Retry-After`` is cut to what is left).
Once that much was spent with no answer in between, a later request (a scenario's or an
eval's next turn) the server refuses so is not sent again, whatever wait its ``Retry-After``
asks, until the server
answers again: a completion, or a refusal of its own (a 400, say; not a gateway's 502, 503
or 504, nor Cloudflare's 520 to 524, whose server behind may still be down, nor a 429, maybe
a proxy's), or a minute
passes with no such refusal nor a wait for a rate limit below (a server restarted an hour
later loads its model afresh); its error says the minute was spent. Each loading wait is told as it
starts, so that a chat waiting a minute does not look hung.

Any other failure whose server sends ``Retry-After`` (a 429 rate limit, Ollama's 503 "server
busy") waits as asked, each wait capped as the client says. Such waits and the loading waits
share ``LOADING_BUDGET`` seconds in all for each request (a longer wait is cut to what is
left, and none left means the short backoff), so a server that answers "Loading model" and a
429 by turns holds a request a minute, not a minute of each. Such a wait, or a backoff, longer
than ``TOLD_OVER`` seconds is told as it starts; a wait of nothing is never told.

The waits after a rate limit (HTTP 429) or a busy server's refusal (Ollama's 503 "server
busy"), its ``Retry-After``, else the short backoff, come out, too, of ``RATE_LIMIT_BUDGET``
seconds a client spends on them until the server answers a request with anything but such a
refusal, or a minute passes with none of those waits nor a loading model's: a server or proxy
that keeps refusing is waited a minute, then refused at once until a quiet minute, not waited a
minute for each of a scenario's turns, and a chat left open gets the minute again for a 429 an
hour later. A wait of either kind holds both minutes spent, so a loading server and a
rate-limiting proxy by turns are waited two minutes in all, not a minute of each by turns.
Once they are spent, a request refused so is not sent again, and its error says so and when
it will be.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tiermem.agent.errors import ProviderError

__all__ = ["LOADING_BUDGET", "RATE_LIMIT_BUDGET", "TOLD_OVER", "LoadingWaits", "retry_text",
           "spent_on_earlier", "too_busy", "waiting_text"]

#: The seconds of loading waits a client spends before the server answers again.
LOADING_BUDGET = 60.0
#: The seconds of waits after rate limits a client spends before the server answers again.
RATE_LIMIT_BUDGET = 60.0
#: A wait other than a loading model's is told when it is longer than this, in seconds.
TOLD_OVER = 3.0


def waiting_text(seconds: float) -> str:
    """What the user reads as a wait for a loading model starts."""
    return (f"the model server is still loading its model; waiting {seconds:.3g} s before "
            f"sending the request again")


def retry_text(seconds: float, why: str) -> str:
    """What the user reads as a wait of ``seconds`` after a failure (``why``) starts."""
    return f"{why}; waiting {_seconds(seconds)} s before sending the request again"


def _seconds(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.3g}"


def spent_on_earlier(error: ProviderError) -> ProviderError:
    """``error``, for a request that began with the budget spent, saying so when it is a
    loading model's: it was not sent again, nor waited for as a model loads."""
    if error.retry_wait is not None:
        _add(error, f"the {LOADING_BUDGET:.0f} s of waits a loading model is given were spent "
                    f"on earlier requests it refused alike, and are given again once a minute "
                    f"passes with no such refusal nor a wait for a rate limit, or it answers")
    return error


def too_busy(error: ProviderError) -> bool:
    """Whether ``error`` refused a request the server (or a proxy) had no room for: a rate
    limit, or a busy server; the waits after it come out of ``RATE_LIMIT_BUDGET``. A 429 no
    wait lifts (an account out of credit) is not sent again anyway, and is none."""
    return error.retryable and (error.status_code == 429 or error.busy)


def _add(error: ProviderError, said: str) -> None:
    error.message += f"; {said}"
    error.args = (error.message, *error.args[1:])


class LoadingWaits:
    """The loading waits one client has spent since its server last answered."""

    def __init__(self, notice: Callable[[str], None] | None = None,
                 budget: float = LOADING_BUDGET,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.notice = notice
        self.budget = budget
        self.clock = clock
        #: Seconds waited for a loading model since the server last answered, and when
        #: (``clock``) the latest of those waits ends.
        self.spent = 0.0
        self.spent_until = 0.0
        #: Seconds waited after rate limits since the server last answered, and when
        #: (``clock``) the latest of those waits ends.
        self.limited = 0.0
        self.limited_until = 0.0
        self.request_left = 0.0

    def begin(self) -> bool:
        """A request begins: whether it finds the budget spent, in which case a loading
        model's refusal ends it. A minute with no wait for a loading model nor for a rate
        limit gives both waits afresh."""
        # A wait of either kind keeps both spent: a loading server and a proxy's rate
        # limits by turns would otherwise refill each other's minute without end.
        quiet = self.clock() - max(self.spent_until, self.limited_until)
        if quiet >= self.budget:
            self.spent = 0.0  # the server may have been restarted, its model loading again
        if quiet >= RATE_LIMIT_BUDGET:
            self.limited = 0.0  # a minute with no wait for a rate limit: it may have lifted
        self.request_left = self.budget
        return self.spent_out

    def asked(self, seconds: float, asked: float, status: int | None) -> float | None:
        """The wait a server's ``Retry-After`` asked for (``asked`` seconds, capped to
        ``seconds``) after a failure other than a loading model's, cut to what is left of the
        request's allowance, and told when long; None once it is spent, for the backoff."""
        seconds = min(seconds, self.request_left)
        if seconds <= 0:
            return None
        self.request_left -= seconds
        said = f"answered HTTP {status}" if status is not None else "failed"
        self.tell(seconds, f"the model server {said} and asked to wait {_seconds(asked)} s")
        return seconds

    def rate_limited(self, capped: float | None, asked: float | None, backoff: float,
                     status: int | None = 429) -> float | None:
        """The wait after a refusal of ``status`` (a 429, or a busy server's): the one its
        ``Retry-After`` asked for (``asked`` seconds, ``capped``) as ``asked()`` grants it,
        else ``backoff``, told when long; either cut to what is left of the client's
        ``RATE_LIMIT_BUDGET``; None once that is spent."""
        left = RATE_LIMIT_BUDGET - self.limited
        if left <= 0:
            return None
        wait = (None if capped is None or asked is None
                else self.asked(min(capped, left), asked, status))
        if wait is None:
            wait = min(backoff, left)
            self.tell(wait, f"the request failed (HTTP {status})")
        self.limited += wait
        self.limited_until = self.clock() + wait
        return wait

    def ended(self, error: ProviderError, spent_before: bool) -> ProviderError:
        """``error``, the one a request ends with, saying so when it began with the loading
        budget spent (``spent_on_earlier``), or when it is a 429 (or a busy server's) with the
        rate limits' spent."""
        if too_busy(error) and self.limited >= RATE_LIMIT_BUDGET:
            proxy = " (a proxy in front of the server may set the limit)"
            _add(error, f"the {RATE_LIMIT_BUDGET:.0f} s of waits this client gives rate limits "
                        f"and a busy server are spent, so a request refused so is not sent "
                        f"again until a minute passes with no wait for them nor for a loading "
                        f"model, or one is answered"
                        + (proxy if error.status_code == 429 else ""))
        return spent_on_earlier(error) if spent_before else error

    def tell(self, seconds: float, why: str) -> None:
        """Tell the wait of ``seconds`` after ``why`` as it starts, if it is long."""
        if seconds > TOLD_OVER and self.notice is not None:
            self.notice(retry_text(seconds, why))

    @property
    def spent_out(self) -> bool:
        """Whether the budget is spent: a request that begins so gets no loading waits."""
        return self.spent >= self.budget

    def take(self, seconds: float) -> float | None:
        """The wait for a loading model that begins, ``seconds`` cut to what is left of the
        budget and told; once the budget is spent, None: the short backoff (not told) for
        the request that spent it, none for a later one. It comes, too, out of the
        ``budget`` seconds a request may wait in all, as the waits ``asked()`` grants do. A
        refusal met with no wait is no quiet minute either: the model still loads."""
        self.spent_until = max(self.spent_until, self.clock())
        seconds = min(seconds, self.budget - self.spent, self.request_left)
        if seconds <= 0:
            return None
        self.request_left -= seconds
        self.spent += seconds
        self.spent_until = self.clock() + seconds
        if self.notice is not None:
            self.notice(waiting_text(seconds))
        return seconds

    def answered(self) -> None:
        """The server answered: a later loading of its model, or a later rate limit, gets the
        waits afresh."""
        self.spent = 0.0
        self.limited = 0.0
