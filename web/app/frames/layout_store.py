"""Keeps each workspace's open frames in localStorage and opens them again after a reload."""

from __future__ import annotations

from js import console, localStorage

from app.frames.frames_model import History, decode, encode, last_workspace_key, storage_key


class LayoutStore:
    """Saves on every frameset change (main window only); `restore` reopens a saved layout."""

    def __init__(self, ctx, frameset) -> None:
        self.ctx, self.frameset = ctx, frameset
        self.paused = False  # while frames close for a switch or reopen, nothing is saved
        frameset.on_change(self.save)

    def _user(self) -> str:
        return str((self.ctx.user or {}).get("username") or "")

    def save(self) -> None:
        ws, user = self.ctx.workspace_id, self._user()
        if self.paused or not ws or not user or self.ctx.window_role != "main":
            return
        try:
            localStorage.setItem(storage_key(user, ws), encode(*self.frameset.snapshot()))
            localStorage.setItem(last_workspace_key(user), ws)
        except Exception as exc:  # noqa: BLE001 - storage full or off: the layout isn't kept
            console.warn(f"The frame layout was not saved: {exc}")

    def last_workspace(self) -> str | None:
        try:
            value = localStorage.getItem(last_workspace_key(self._user()))
        except Exception:  # noqa: BLE001 - storage off
            return None
        return str(value) if value else None

    async def restore(self, ws: str, kinds: tuple[str, ...] | None = None) -> bool:
        """Open the frames saved for `ws` (only `kinds`, when given); True if any were."""
        try:
            raw = localStorage.getItem(storage_key(self._user(), ws))
        except Exception:  # noqa: BLE001 - storage off
            raw = None
        frames, active = decode(str(raw) if raw else None)
        opened = []
        # A frame the person activates while the notes are still being read is theirs: the
        # saved choice must not take it back when the last note arrives.
        picked = None
        self.paused = True
        try:
            for saved in frames:
                if kinds is not None and saved["kind"] not in kinds:
                    continue
                frame = await self.frameset.open(saved["kind"])
                picked = self._picked_meanwhile(frame, picked)
                opened.append((saved, frame))
                if saved["kind"] == "inbox":
                    frame.history = History(saved["history"], saved["index"])
                    if saved["path"]:
                        await frame.show(path=saved["path"], view=saved["view"], record=False)
                    else:
                        await frame.show(view=saved["view"])
                    picked = self._picked_meanwhile(frame, picked)
        finally:
            self.paused = False
        chosen = [
            frame for saved, frame in opened if active is not None and saved is frames[active]
        ]
        if picked is not None and picked in self.frameset.frames():
            self.frameset.activate(picked)
        elif chosen:
            self.frameset.activate(chosen[0])
        self.save()
        return bool(opened)

    def _picked_meanwhile(self, opened, picked):
        """The frame activated while the restore awaited, if not the one it just opened."""
        active = self.frameset.active
        return active if active is not None and active is not opened else picked
