"""Throttling on the `limits` library: sign-ins, invitation links, expensive routes per user.

One `Throttle` per app (`app.state.throttle`). It counts in process memory by default (each
server process on its own); `rate_limit_storage` (e.g. redis://host:6379) points the same
`limits` counters at Redis, shared by every process. Other routers use it in one of two ways:

- a route behind the session cookie adds `dependencies=[Depends(per_user("inline"))]`
  (`backend.api.deps.per_user`, and `429` to its documented responses): more than
  `route_rate_limit` calls a minute by one user get 429 with Retry-After;
- code that knows the user another way (an MCP token) calls
  `request.app.state.throttle.hit_route("mcp", user_id)`, which raises `TooManyRequests`
  (a DomainError: the app's handler answers 429 with Retry-After).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import Request
from limits import RateLimitItem, parse
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from backend.errors import TooManyRequests

SIGN_IN_PER_USERNAME = parse("5/minute")
SIGN_IN_PER_ADDRESS = parse("20/minute")
# Password checks run one at a time: argon2 takes 64 MiB and ~0.1 s of a core per check, so
# a burst of sign-ins queues instead of multiplying the server's memory.
PASSWORD_CHECKS_AT_ONCE = 1
# How often a sign-in waiting for the password slot looks again (it waits on the event loop).
SLOT_POLL_SECONDS = 0.005
TOO_MANY_SIGN_INS = "Too many sign-in attempts. Please wait a minute and try again."
TOO_MANY_INVITATION_TRIES = (
    "Too many invitation links that did not work. Please wait a minute and try again."
)
TOO_MANY_CALLS = "Too many requests in a short time. Please wait a moment and try again."


class Throttle:
    """Fixed one-minute windows: the window starts at the first counted attempt."""

    def __init__(self, route_limit: str = "300/minute", storage: str = "memory://") -> None:
        self.storage = storage_from_string(storage)
        if not self.storage.check():  # Redis unreachable: refuse to start rather than 500
            raise RuntimeError(
                f"The rate-limit storage {storage.split('://')[0]}:// cannot be reached."
            )
        self.limiter = FixedWindowRateLimiter(self.storage)
        self.route_limit = parse(route_limit)
        self.password_slots = threading.BoundedSemaphore(PASSWORD_CHECKS_AT_ONCE)

    def retry_after(self, item: RateLimitItem, *ids: str) -> int:
        """Whole seconds until the window of `item` for `ids` ends (at least 1)."""
        reset = self.limiter.get_window_stats(item, *ids).reset_time
        return max(1, math.ceil(reset - time.time()))

    def _give_back(self, item: RateLimitItem, ids: tuple[str, ...]) -> None:
        """Undo one counted hit (every storage can add -1; only memory has decr)."""
        self.storage.incr(item.key_for(*ids), item.get_expiry(), amount=-1)

    def _take(self, item: RateLimitItem, ids: tuple[str, ...], message: str) -> None:
        if not self.limiter.test(item, *ids):
            raise TooManyRequests(message, retry_after=self.retry_after(item, *ids))
        if not self.limiter.hit(item, *ids):  # lost a race with a parallel request
            self._give_back(item, ids)
            raise TooManyRequests(message, retry_after=self.retry_after(item, *ids))

    @asynccontextmanager
    async def password_slot(self) -> AsyncIterator[None]:
        """Hold one of the password slots; wait for it on the event loop, not in a thread.

        A burst of sign-ins then queues without taking the worker threads that every sync
        route needs. The slot is a thread semaphore polled, not an event-loop lock, so it
        works whatever loop each request runs on.
        """
        while not self.password_slots.acquire(blocking=False):
            await anyio.sleep(SLOT_POLL_SECONDS)
        try:
            yield
        finally:
            self.password_slots.release()

    def check_sign_in(self, username: str, address: str) -> None:
        """TooManyRequests when the username or the address is over its count of failures.

        Only failures count (`sign_in_failed`): checking counts nothing, so any number of
        correct sign-ins, however many at once, never refuse one another. The route checks
        once on the event loop (a cheap early 429) and again holding the password slot,
        just before the password is verified: checks run one at a time, so each sees every
        failure recorded before it and a parallel burst of guesses cannot overshoot (within
        a process; N processes sharing Redis may let N - 1 extra guesses through at once).
        """
        for item, ids in (
            (SIGN_IN_PER_USERNAME, ("sign-in-user", username)),
            (SIGN_IN_PER_ADDRESS, ("sign-in-address", address)),
        ):
            if not self.limiter.test(item, *ids):
                raise TooManyRequests(TOO_MANY_SIGN_INS, retry_after=self.retry_after(item, *ids))

    def sign_in_failed(self, username: str, address: str) -> None:
        """Count one failed attempt against the username and the address."""
        self.limiter.hit(SIGN_IN_PER_USERNAME, "sign-in-user", username)
        self.limiter.hit(SIGN_IN_PER_ADDRESS, "sign-in-address", address)

    def sign_in_succeeded(self, username: str) -> None:
        """A success clears the username's failures (the address keeps its count)."""
        self.limiter.clear(SIGN_IN_PER_USERNAME, "sign-in-user", username)

    def check_invitation(self, address: str) -> None:
        """TooManyRequests when the address has tried too many invitation links that did not
        work (unknown, used up, revoked, expired): sign-in's per-address limit, counted apart,
        so guessing secrets is as slow as guessing passwords. Checking counts nothing."""
        ids = ("invitation-address", address)
        if not self.limiter.test(SIGN_IN_PER_ADDRESS, *ids):
            raise TooManyRequests(
                TOO_MANY_INVITATION_TRIES, retry_after=self.retry_after(SIGN_IN_PER_ADDRESS, *ids)
            )

    def invitation_failed(self, address: str) -> None:
        """Count one invitation link from the address that did not work."""
        self.limiter.hit(SIGN_IN_PER_ADDRESS, "invitation-address", address)

    def hit_route(self, route: str, user_key: str | int) -> None:
        """Count one call of an expensive route by one user; TooManyRequests when over."""
        self._take(self.route_limit, ("route", route, str(user_key)), TOO_MANY_CALLS)


def client_address(request: Request) -> str:
    """The peer address as the server saw it (behind a proxy: the proxy's)."""
    return request.client.host if request.client else "unknown"
