"""How long a client waits for a model server still loading its model, and who hears of it.

A server loading its model (llama.cpp's 503 "Loading model", agent/server_setup.py) is
given waits a model takes to load: ``server_setup.LOADING_WAIT`` seconds before the second
attempt, twice that before the third, and so on, up to ``LOADING_BUDGET`` seconds in all
(a longer ``Retry-After`` is cut to what is left).
Once that much was spent with no answer in between, a later request (a scenario's or an
eval's next turn) gets the client's short backoff only, not another minute, until the
server answers again: a completion, or a refusal of its own (a 400, say; not a gateway's
502, 503 or 504, whose server behind may still be down). Each such wait is told as it starts,
so that a chat waiting a minute does not look hung; the short backoff is not.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["LOADING_BUDGET", "LoadingWaits", "waiting_text"]

#: The seconds of loading waits a client spends before the server answers again.
LOADING_BUDGET = 60.0


def waiting_text(seconds: float) -> str:
    """What the user reads as a wait for a loading model starts."""
    return (f"the model server is still loading its model; waiting {seconds:.3g} s before "
            f"sending the request again")


class LoadingWaits:
    """The loading waits one client has spent since its server last answered."""

    def __init__(self, notice: Callable[[str], None] | None = None,
                 budget: float = LOADING_BUDGET) -> None:
        self.notice = notice
        self.budget = budget
        self.spent = 0.0

    def take(self, seconds: float) -> float | None:
        """The wait for a loading model that begins, ``seconds`` cut to what is left of the
        budget and told; None, for the short backoff (not told), once the budget is spent."""
        left = self.budget - self.spent
        if left <= 0:
            return None
        seconds = min(seconds, left)
        self.spent += seconds
        if self.notice is not None:
            self.notice(waiting_text(seconds))
        return seconds

    def answered(self) -> None:
        """The server answered: a later loading of its model gets the waits afresh."""
        self.spent = 0.0
