"""Answers that come back late: hold a GET's answer (read from the server at once, so it is the
state of that moment), let the user act, then deliver it and let the page take it. Used to
prove an older answer does not undo what the user did meanwhile."""

from __future__ import annotations

import time
from collections.abc import Callable

from playwright.sync_api import APIResponse, Page, Route

# A few turns of the page's task queue and two frames: long enough for Python to take an
# answer the browser has finished (a handful of promise and timer steps in Pyodide's loop).
SETTLE = """() => new Promise((done) => {
    let turns = 20;
    const next = () => (turns-- > 0 ? setTimeout(next, 0)
        : requestAnimationFrame(() => requestAnimationFrame(done)));
    next();
})"""


class Held:
    """The held GET answers for URLs that `matches`, oldest first."""

    def __init__(self, page: Page, matches: Callable[[str], bool]) -> None:
        self.page, self.matches = page, matches
        self.answers: list[tuple[Route, APIResponse]] = []
        self.holding = True
        page.route(matches, self._hold)

    def _hold(self, route: Route) -> None:
        if route.request.method != "GET" or not self.holding:
            route.continue_()
            return
        self.answers.append((route, route.fetch()))  # read now: the state before the change

    def wait(self, count: int = 1, timeout: float = 15) -> None:
        """Until `count` answers are held (the page has asked)."""
        deadline = time.monotonic() + timeout
        while len(self.answers) < count:
            assert time.monotonic() < deadline, f"{len(self.answers)} of {count} asked for"
            self.page.wait_for_timeout(50)

    def stop(self) -> None:
        """Later requests go through (unrouting would let the held ones go too)."""
        self.holding = False

    def deliver_all(self) -> list[APIResponse]:
        """Give the page every held answer, oldest first, and let it take them."""
        given = []
        while self.answers:
            route, answer = self.answers.pop(0)
            with self.page.expect_event("requestfinished", lambda r: self.matches(r.url)):
                route.fulfill(response=answer)
            given.append(answer)
        self.page.evaluate(SETTLE)
        return given
