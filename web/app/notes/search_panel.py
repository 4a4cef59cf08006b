"""The search box in the note list (SPEC §11) and the backlinks lookup that uses the same API."""

from __future__ import annotations

import asyncio
from urllib.parse import quote

from app.api_model import describe, workspace_url
from app.dom import h, spawn
from app.latest_model import Latest
from app.notes.links_model import backlinks, search_words
from app.notes.search_model import (
    DEBOUNCE_SECONDS,
    NoteLines,
    from_snippet,
    matching_lines,
    summary,
)

MAX_NOTES_READ = 20  # notes read to list every matching line; the rest show the server's line


async def search(ctx, ws: str, query: str) -> list[dict]:
    """`GET …/search?q=`: [{"path", "line", "snippet"}], at most 50, members only."""
    reply = await ctx.api.ok("GET", f"{workspace_url(ws)}/search?q={quote(query)}")
    return list((reply.json() or {}).get("results") or [])


async def find_backlinks(ctx, ws: str, path: str) -> list[str]:
    """The notes linking to `path`: the search finds those that name it, the link model
    keeps those whose links really resolve to it (a mention is not a link)."""
    candidates = {r["path"] for r in await search(ctx, ws, search_words(path))} - {path}
    notes = {}
    for candidate in sorted(candidates):
        notes[candidate], _revision = await ctx.api.read(ws, candidate)
    known = set(getattr(ctx, "known_paths", ()) or ()) | candidates | {path}
    return backlinks(path, notes, known)


class SearchPanel:
    """A search field above the note list; results open the note at their line."""

    def __init__(self, ctx, host, listeners) -> None:
        self.ctx = ctx
        self.input = h(
            "input",
            {
                "type": "search",
                "id": "search-input",
                "data-testid": "search-input",
                "autocomplete": "off",
                "placeholder": "Search notes",
                "enterkeyhint": "search",
            },
        )
        self.status = h("p", {"class": "list-status", "role": "status"})
        self.results = h("ul", {"class": "search-results", "aria-label": "Search results"})
        self.form = h(
            "form",
            {"class": "search", "role": "search"},
            h("label", {"for": "search-input", "class": "visually-hidden"}, "Search notes"),
            self.input,
        )
        host.append(self.form, self.status, self.results)
        self._reads = Latest()
        listeners.on(self.form, "submit", lambda event: spawn(self.run()), prevent=True)
        listeners.on(self.input, "search", lambda event: spawn(self.run()))  # cleared with ✕
        listeners.on(self.input, "input", lambda event: spawn(self._soon()))  # as you type
        listeners.on(self.results, "click", self._on_click)

    def close(self) -> bool:
        """Escape: clear the results; True if there were any."""
        had = bool(self.results.childElementCount) or bool(self.status.textContent)
        self.clear()
        return had

    def clear(self) -> None:
        self._reads.move()
        self.results.replaceChildren()
        self.status.textContent = ""

    async def _soon(self) -> None:
        """Search once the typing pauses (each keystroke restarts the wait)."""
        latest = self._reads.start()
        await asyncio.sleep(DEBOUNCE_SECONDS)
        if latest():
            await self.run()

    async def run(self) -> None:
        query = str(self.input.value).strip()
        ws = self.ctx.workspace_id
        if not query or not ws:
            self.clear()
            return
        latest = self._reads.start()
        self.status.textContent = "Searching…"
        try:
            results = await search(self.ctx, ws, query)
            notes = await self._lines(ws, query, results)
        except Exception as exc:  # noqa: BLE001 - shown under the box, in words
            if latest():
                self.status.textContent = f"Could not search: {describe(exc)}"
            return
        if not latest() or ws != self.ctx.workspace_id:
            return
        self.status.textContent = summary(notes)
        self.results.replaceChildren(*[self._note(note) for note in notes])

    async def _lines(self, ws: str, query: str, results: list[dict]) -> list[NoteLines]:
        """Every matching line of the notes found, read in parallel (the first ones)."""

        async def one(number: int, result: dict) -> NoteLines:
            placed = from_snippet(
                result["path"], int(result["line"]), result.get("snippet", ""), query
            )
            if number >= MAX_NOTES_READ:
                return placed
            text, _revision = await self.ctx.api.read(ws, result["path"])
            found = matching_lines(result["path"], text, query)
            return found if found.lines else placed  # folded differently: the server's line

        return list(await asyncio.gather(*[one(n, r) for n, r in enumerate(results)]))

    def _note(self, note: NoteLines):
        """One note: its path, then a button per line with the matches marked (text only)."""
        lines = []
        for line in note.lines:
            snippet = h("span", {"class": "search-snippet"})
            for text, hit in line.pieces:
                snippet.append(h("mark", {"text": text}) if hit else text)
            lines.append(
                h(
                    "li",
                    {},
                    h(
                        "button",
                        {
                            "type": "button",
                            "class": "search-result",
                            "data-testid": "search-result",
                            "data-path": note.path,
                            "data-line": line.number,
                            "title": f"{note.path}, line {line.number}",
                        },
                        h("span", {"class": "search-line", "text": f"{line.number}"}),
                        snippet,
                    ),
                )
            )
        more = note.total - len(note.lines)
        if more > 0:
            lines.append(h("li", {"class": "search-more", "text": f"and {more} more lines"}))
        return h(
            "li",
            {"class": "search-note"},
            h("p", {"class": "search-path", "text": note.path}),
            h("ul", {"class": "search-lines"}, *lines),
        )

    async def _on_click(self, event) -> None:
        button = event.target.closest("button[data-line]")
        if not button:
            return
        frame = await self.ctx.frameset.open_note(button.dataset.path, view="edit")
        frame.goto_line(int(button.dataset.line))
