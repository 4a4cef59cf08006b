"""The Files frame: the workspace's documents as a table; a path opens like a note link."""

from __future__ import annotations

from ambient.contract import FILES
from app.api_model import human_size, short_time
from app.dom import h, spawn
from app.frame import Frame
from app.latest_model import Latest


class FilesFrame(Frame):
    """Lists path, size and last update; refreshes on workspace and document changes."""

    kind = FILES
    title = "Files"

    def __init__(self, frameset, frame_id: str) -> None:
        super().__init__(frameset, frame_id)
        self._reads = Latest()  # moved by each load: only the latest one's answer is drawn
        refresh = h(
            "button",
            {"type": "button", "class": "small", "data-testid": "files-refresh"},
            "Refresh",
        )
        self.listeners.on(refresh, "click", lambda event: self.load())
        self.summary = h("p", {"class": "files-summary", "role": "status"})
        self.table_host = h("div", {"class": "files-table"})
        self.body.append(h("div", {"class": "files-bar"}, self.summary, refresh), self.table_host)
        self.listeners.on(self.table_host, "click", self._on_click)
        self._unsubscribe = [
            self.ctx.on_workspace_change(lambda ws: spawn(self.load())),
            self.ctx.on_documents_change(lambda: spawn(self.load())),
        ]

    async def mount(self) -> None:
        await self.load()

    def _say(self, text: str) -> None:
        self.summary.textContent = text

    async def load(self) -> None:
        if not self.ctx.workspace_id:
            self.summary.textContent = "No workspace."
            self.table_host.replaceChildren()
            return
        latest = self._reads.start()
        loaded = await self.ctx.current_documents(self._say, "documents")
        if loaded is None or not latest():  # a later load has the newer list
            return
        ws, docs = loaded
        self.set_title(f"Files — {ws}")
        self.summary.textContent = f"{len(docs)} documents in {ws}"
        rows = []
        for doc in sorted(docs, key=lambda d: d["path"].casefold()):
            path = doc["path"]
            rows.append(
                h(
                    "tr",
                    {},
                    h(
                        "th",
                        {"scope": "row"},
                        h(
                            "button",
                            {
                                "type": "button",
                                "class": "link",
                                "data-testid": "file-link",
                                "data-path": path,
                                "text": path,
                            },
                        ),
                    ),
                    h("td", {"class": "num", "text": human_size(int(doc.get("bytes", 0)))}),
                    h(
                        "td",
                        {},
                        h(
                            "time",
                            {
                                "datetime": doc.get("updatedAt", ""),
                                "text": short_time(str(doc.get("updatedAt", ""))),
                            },
                        ),
                    ),
                )
            )
        self.table_host.replaceChildren(
            h(
                "table",
                {},
                h("caption", {"class": "visually-hidden", "text": f"Documents in {ws}"}),
                h(
                    "thead",
                    {},
                    h(
                        "tr",
                        {},
                        h("th", {"scope": "col", "text": "Path"}),
                        h("th", {"scope": "col", "text": "Size"}),
                        h("th", {"scope": "col", "text": "Updated (UTC)"}),
                    ),
                ),
                h("tbody", {}, *rows),
            )
        )
        await self._load_attachments(ws)

    async def _load_attachments(self, ws: str) -> None:
        """The workspace's pictures and PDFs (SPEC §18) under the notes: each opens in a new
        tab from its attachments URL."""
        from app.notes.attach import listing
        from app.notes.attach_model import attachment_url

        items = await listing(ws)
        if not items or ws != self.ctx.workspace_id:
            return
        rows = [
            h(
                "tr",
                {},
                h(
                    "th",
                    {"scope": "row"},
                    h(
                        "a",
                        {
                            "href": attachment_url(ws, item["path"]),
                            "target": "_blank",
                            "rel": "noopener",
                            "data-testid": "attachment-file",
                            "data-path": item["path"],
                            "text": item["path"],
                        },
                    ),
                ),
                h("td", {"class": "num", "text": human_size(int(item.get("bytes", 0)))}),
                h("td", {"text": item.get("contentType", "")}),
            )
            for item in items
        ]
        self.summary.textContent = (
            f"{len(self.table_host.querySelectorAll('[data-testid=file-link]'))} documents, "
            f"{len(items)} attachments in {ws}"
        )
        for old in self.table_host.querySelectorAll(".attachments-table"):
            old.remove()  # a load that overlapped this one drew it first
        self.table_host.append(
            h(
                "table",
                {"class": "attachments-table"},
                h("caption", {"class": "visually-hidden", "text": f"Attachments in {ws}"}),
                h(
                    "thead",
                    {},
                    h(
                        "tr",
                        {},
                        h("th", {"scope": "col", "text": "Attachment"}),
                        h("th", {"scope": "col", "text": "Size"}),
                        h("th", {"scope": "col", "text": "Type"}),
                    ),
                ),
                h("tbody", {}, *rows),
            )
        )

    def _on_click(self, event):
        button = event.target.closest("[data-testid=file-link]")
        if button:
            return self.ctx.open_note(button.dataset.path)

    def destroy(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        super().destroy()
