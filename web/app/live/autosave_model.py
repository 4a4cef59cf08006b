"""Debounced autosave with If-Match, live merging and offline retry (pure: asyncio only).

The editor is the one source of the text: the saver reads it (`read`) only when it saves,
and tells the editor what it saved (`mark_saved`) so the next edit calls `changed()` again.
It also keeps `base`, the saved copy the editor last knew, so that a new saved copy made
elsewhere (announced by the live stream, or met as a 409) is merged with the screen by
`merge_model.reconcile` and shown through `show(mine, text)`; only a real conflict stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from app.api_model import OfflineError, describe
from app.latest_model import Latest
from app.live.history_model import SOMEONE_SAVED
from app.live.merge_model import CONFLICT as CLASH
from app.live.merge_model import KEEP, MERGED, reconcile

SAVED, PENDING, SAVING, OFFLINE, CONFLICT, ERROR = (
    "saved",
    "pending",
    "saving",
    "offline",
    "conflict",
    "error",
)
DELETED = "deleted"  # deleted elsewhere: the text stays on screen; the next edit saves it again
# The role turned reader (SPEC §17) with changes not saved: they stay in the editor, no save is
# attempted, and they are saved if the role turns editor again.
UNSAVABLE = "unsavable"


@dataclass
class PutResult:
    """What a PUT came to: "ok" with the new revision, "conflict" (409/412) or "error"."""

    status: str
    revision: str | None = None
    message: str = ""


class Autosaver:
    """Saves one note: debounced after the first edit, again while edits keep arriving."""

    def __init__(
        self,
        *,
        revision: str | None,
        base: str,
        read: Callable[[], tuple[int, str]],
        mark_saved: Callable[[int], bool],
        put: Callable[[str, str | None, bool, str | None], Awaitable[PutResult]],
        latest: Callable[[], Awaitable[tuple[str | None, str | None]]],
        on_state: Callable[[str, str], None],
        show: Callable[[str, str], None],
        delay: float = 0.6,
        backoff: tuple[float, ...] = (0.5, 1.0, 2.0, 3.0, 5.0),
    ) -> None:
        self.revision = revision
        self.base = base  # the saved copy the editor last knew (the merge's common ancestor)
        self.state = SAVED
        self.detail = ""
        self.theirs: tuple[str | None, str | None] | None = None
        # The next save writes the screen's text over a conflict (Keep mine): `put` is told
        # (its third argument), so that the text it overwrites stays its own revision.
        self.resolving = False
        # The next save carries the edit of this proposal, applied in the editor (its id goes
        # with it, SPEC §15); `_carried` is the text that save writes, read right after it.
        self.carrying: str | None = None
        self._carried: tuple[int, str] | None = None
        self._holding = False  # the carried save waits until the server knows the proposal
        self._read, self._mark_saved = read, mark_saved
        self._put, self._latest, self._on_state, self._show = put, latest, on_state, show
        self.delay, self.backoff = delay, backoff
        self._timer: asyncio.Task | None = None
        self._task: asyncio.Task | None = None
        self._saves = Latest()  # save runs started: a copy read across one may be older than ours
        self._wake = asyncio.Event()
        self._syncing = asyncio.Lock()
        self.writable = True  # False for a reader: nothing is ever sent
        self._unsavable_words = ""

    def set_writable(self, writable: bool, words: str = "") -> None:
        """The role changed: a reader's saver never saves (changes already typed stay dirty,
        as UNSAVABLE, told with `words`); an editor's saves what is pending at once."""
        if writable == self.writable:
            return
        self.writable = writable
        self._unsavable_words = words
        if not writable:
            if self._timer:
                self._timer.cancel()
                self._timer = None
            if self._running():
                self._wake.set()  # an offline pause ends; the loop stops before the next PUT
            elif self.state in (PENDING, OFFLINE, ERROR):
                self._set(UNSAVABLE, words)
        elif self.state == UNSAVABLE:
            self._set(PENDING)
            self._kick()

    @property
    def dirty(self) -> bool:
        return self.state not in (SAVED, DELETED)

    def changed(self) -> None:
        """The editor went from clean to dirty: save after `delay` unless more is pending."""
        if self.state in (CONFLICT, ERROR):
            return
        if not self.writable:
            self._set(UNSAVABLE, self._unsavable_words)
            return
        if not self._running():
            self._set(PENDING)
        if self._timer:
            self._timer.cancel()
            self._timer = None
        if not self._holding:
            self._timer = asyncio.ensure_future(self._after(self.delay))

    async def flush(self) -> bool:
        """Save whatever is pending now; True once everything is saved, False if it can't be."""
        if self.state in (CONFLICT, ERROR, UNSAVABLE):
            return False
        if self.state == DELETED:
            return True  # nothing to save until the user edits again
        if self._timer:
            self._timer.cancel()
            self._timer = None
            self._kick()
        if self._running():
            self._wake.set()  # skip a backoff or debounce pause: the caller is waiting
            await asyncio.shield(self._task)
        return self.state == SAVED

    async def carry(
        self, proposal_id: str, apply: Callable[[], bool], record: Callable[[], Awaitable[None]]
    ) -> bool:
        """Apply a proposal's edit in the editor and save it as the proposal's revision.

        The user's own pending keystrokes are saved first, as theirs; `apply()` changes the
        editor at once (False: it did not, nothing is carried); `record()` tells the server
        the proposal was applied here; then the text `apply` left is saved, naming the
        proposal. Anything typed after it is the user's next save. `record`'s error is
        raised after the save has started (the server then counts that save as the user's).
        """
        await self.flush()
        if not apply():
            return False
        self.carrying, self._carried = proposal_id, self._read()
        self._holding = True
        try:
            await record()
        finally:
            self._holding = False
            if self._timer:
                self._timer.cancel()
                self._timer = None
            if self.state not in (CONFLICT, ERROR):
                self._wake.set()
                self._kick()
        return True

    def retry(self) -> None:
        """Try again now (after an error, or to cut an offline pause short)."""
        if self.state == ERROR:
            self._set(PENDING)
        self._wake.set()
        self._kick()

    def keep_mine(self) -> None:
        """Conflict: write the editor's text over the server's latest revision."""
        if self.state != CONFLICT or self.theirs is None:
            return
        self.base, self.revision = self.theirs
        self.base = self.base or ""
        self.theirs = None
        self.resolving = True
        self._set(PENDING)
        self._kick()

    def accept(self, revision: str | None, seen: int, text: str) -> None:
        """`text`, read at change count `seen`, is now saved as `revision` (take theirs, copy,
        restore)."""
        self.revision, self.theirs, self.base = revision, None, text
        self.resolving = False
        if self._mark_saved(seen):
            self._set(PENDING)
            self._kick()
        else:
            self._set(SAVED)

    def detach(self, seen: int, text: str, on_state: Callable[[str, str], None]) -> None:
        """The editor is going away: finish saving this last text on its own, right now."""
        self._read = lambda: (seen, text)
        # A save already in flight carries older text: it must report "more to save" so the
        # loop sends this last text too; the save of `seen` itself is the final one.
        self._mark_saved = lambda saved: saved != seen
        self._on_state = on_state
        if self._timer:
            self._timer.cancel()
            self._timer = None
        if self.state in (PENDING, OFFLINE):
            self._kick()

    # -- changes made elsewhere ------------------------------------------------------------

    async def refresh(
        self, hint: str | None = None, *, missing_is_gone: bool = False
    ) -> str | None:
        """The saved copy may have changed elsewhere (revision `hint`, if known): catch up.

        Waits for a save in flight first (it may be the change announced; if not, it meets
        a 409 and merges there), then reads the saved copy once and merges it with the
        screen. Returns what happened (a `merge_model` kind, DELETED) or None when nothing
        was new or it could not be read (the next event or reconnect tries again). A note
        not found is taken as deleted only with `missing_is_gone` (a re-read after a reset):
        after a `saved` event it has most likely been moved or deleted since, and the stream's
        own `moved` or `deleted` event says which.
        """
        async with self._syncing:
            while self._running():
                await asyncio.shield(self._task)
            if hint is not None and hint == self.revision:
                return None  # our own save coming back
            no_save_since = self._saves.since()
            try:
                text, revision = await self._latest()
            except Exception:  # noqa: BLE001 - offline or signed out: the stream says so
                return None
            if not no_save_since():
                # A save started meanwhile: its 409 (if any) merges. Even if it has finished,
                # this copy may have been read before it: taking it would undo our text.
                return None
            if text is None:
                if not missing_is_gone:
                    return None
                self.gone()
                return DELETED
            if revision == self.revision or (self.theirs and revision == self.theirs[1]):
                return None  # nothing new since we last looked
            return self.incoming(text, revision)

    async def exclusive(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run `job` with no catching up meanwhile (a restore: its own change must not come
        back through the stream as someone else's before it is on screen)."""
        async with self._syncing:
            await job()

    def incoming(self, theirs: str, revision: str | None) -> str:
        """A new saved copy `theirs` (as `revision`) meets the screen; returns the outcome kind.

        Read, decide and show happen with no await in between, so no keystroke slips in.
        """
        seen, mine = self._read()
        self.resolving = False  # a newer saved copy: merged, or a new conflict to resolve
        outcome = reconcile(self.base, theirs, mine)
        if outcome.kind == CLASH:
            self.theirs = (theirs, revision)
            # General words until the page names the source from the history (one place:
            # history_model.conflict_words); it may well be another window of the user's.
            self._set(CONFLICT, SOMEONE_SAVED)
            return outcome.kind
        if outcome.text != mine:
            self._show(mine, outcome.text)  # not an edit of the user's: not counted, not undone
        self.base, self.revision, self.theirs = theirs, revision, None
        if outcome.kind in (MERGED, KEEP):
            self._set(PENDING)  # the merged text is saved on top of the new revision
            self._kick()
        else:  # SAME, REPLACE: the screen is the saved copy now
            if self._timer:
                self._timer.cancel()
                self._timer = None
            self._mark_saved(seen)
            self._set(SAVED)
        return outcome.kind

    def gone(self) -> None:
        """The note was deleted elsewhere: keep the text on screen, save it again on an edit."""
        for task in (self._timer, self._task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        self._timer = self._task = None
        self.revision, self.base, self.theirs, self.resolving = None, "", None, False
        self.carrying = self._carried = None
        seen, _text = self._read()
        self._mark_saved(seen)  # re-arms the editor: its next edit calls changed()
        self._set(DELETED)

    def moved(self, revision: str | None) -> None:
        """Renamed elsewhere: same text, new revision; pending edits go on top of it."""
        if revision is not None:
            self.revision = revision

    def cancel(self) -> None:
        """Stop saving for good (the note was deleted on purpose)."""
        for task in (self._timer, self._task):
            if task is not None:
                task.cancel()
        self._timer = self._task = None
        self.state = SAVED

    # -- internals -----------------------------------------------------------------------

    def _failed(self, detail: str) -> tuple[str, str]:
        return (ERROR, detail) if self.writable else (UNSAVABLE, self._unsavable_words)

    def _running(self) -> bool:
        return self._task is not None and not self._task.done()

    def _set(self, state: str, detail: str = "") -> None:
        self.state, self.detail = state, detail
        self._on_state(state, detail)

    async def _after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self._timer = None
        self._kick()

    def _kick(self) -> None:
        if not self.writable:
            if self._timer:
                self._timer.cancel()
                self._timer = None
            if not self._running():
                self._set(UNSAVABLE, self._unsavable_words)
            return
        if not self._running():
            self._saves.move()
            self._task = asyncio.ensure_future(self._loop())

    async def _pause(self, seconds: float) -> None:
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except TimeoutError:
            pass

    async def _loop(self) -> None:
        attempt = 0
        while True:
            if not self.writable:  # demoted meanwhile: keep the text, send nothing
                self._set(UNSAVABLE, self._unsavable_words)
                return
            carrying, carried = self.carrying, self._carried
            seen, text = carried or self._read()
            self._carried = None
            self._set(SAVING)
            try:
                result = await self._put(text, self.revision, self.resolving, carrying)
                if result.status == "conflict":
                    theirs = await self._latest()
                    if theirs[0] == text:  # our own earlier write landed after all
                        result = PutResult("ok", theirs[1])
                    elif theirs[0] is None:
                        self.gone()
                        return
                    else:  # the same merge as a change announced by the stream
                        if self.incoming(theirs[0], theirs[1]) in (MERGED, KEEP):
                            continue
                        return
            except OfflineError as exc:
                if carrying is not None and self.carrying == carrying and self._carried is None:
                    self._carried = (seen, text)  # the retry sends it, not later typing
                self._set(OFFLINE, str(exc) or "offline — retrying")
                await self._pause(self.backoff[min(attempt, len(self.backoff) - 1)])
                attempt += 1
                continue
            except Exception as exc:  # noqa: BLE001 - e.g. a 403 on re-reading: stop, say so
                self._set(*self._failed(describe(exc)))
                return
            if result.status != "ok":
                if not self.writable:
                    self._set(UNSAVABLE, self._unsavable_words)
                    return
                self._set(ERROR, result.message or "The note could not be saved.")
                return
            attempt = 0
            self.resolving = False  # saved: the conflict is resolved, later saves are ordinary
            if carrying is not None and self.carrying == carrying:
                self.carrying = None  # carried: later saves are the user's
            self.revision, self.base = result.revision, text
            if not self._mark_saved(seen):
                self._set(SAVED)
                return
            self._set(PENDING)  # more edits arrived while saving: save them after a pause
            await self._pause(self.delay)
