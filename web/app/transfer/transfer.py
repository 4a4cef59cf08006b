"""Notes in and out (SPEC §18) in the page: `export-workspace` (a download link) and the
import dialog (`import-open`, `import-file` or `import-folder`, `import-submit`,
`import-progress`, `import-report`) at the foot of the note list. A chosen folder is made into
a zip here (transfer_model.FolderZip) and sent as a chosen zip is. The upload is an
XMLHttpRequest, whose upload progress events move the bar; docs/import-export.md."""

from __future__ import annotations

import asyncio
import json

from js import Blob, FormData, Object, Uint8Array, XMLHttpRequest
from pyodide.ffi import create_proxy, to_js

from app.dom import h
from app.people.dialog import Dialog, field
from app.transfer.transfer_model import (
    CHOICES,
    FolderZip,
    export_url,
    failure,
    file_problem,
    folder_name,
    folder_paths,
    folder_problem,
    import_url,
    packing,
    parse_report,
    progress,
    sections,
    summary,
)


def transfer_bar(ctx, shell):
    """The sidebar's foot: Export (every member) and Import… (editors and owners)."""
    dialog = ImportDialog(ctx, shell)
    export = h(
        "a",
        {
            "class": "button small",
            "data-testid": "export-workspace",
            "download": "",
            "title": "Download every note of this workspace as a zip",
        },
        "Export",
    )
    opener = h(
        "button",
        {
            "type": "button",
            "class": "small",
            "data-testid": "import-open",
            "aria-haspopup": "dialog",
            "title": "Import a zip of notes (a folder of Markdown, an Obsidian vault)",
        },
        "Import…",
    )
    shell.listeners.on(opener, "click", lambda event: dialog.open())

    def draw(*_args) -> None:
        ws = ctx.workspace_id
        if ws:
            export.setAttribute("href", export_url(ws))
            export.setAttribute("download", f"{ws}.zip")
        else:
            export.removeAttribute("href")
        export.hidden = not ws
        opener.hidden = not ws or not ctx.can_edit
        if opener.hidden:
            dialog.frame.close()

    for off in _subscriptions:  # the bar of an earlier sign-in in this window
        off()
    _subscriptions[:] = [ctx.on_workspace_change(draw), ctx.on_role_change(draw)]
    draw()
    return h(
        "div",
        {"class": "transfer-bar", "role": "group", "aria-label": "Notes in and out"},
        export,
        opener,
        dialog.frame.dialog,
    )


_subscriptions: list = []  # the one bar's context subscriptions


class ImportDialog:
    """Choose a zip and what to do when a note exists, send it with a progress bar, then
    list what was imported, renamed, replaced, skipped and ignored (or why nothing was)."""

    def __init__(self, ctx, shell) -> None:
        self.ctx, self.shell = ctx, shell
        self.frame = frame = Dialog(shell, key="import-dialog", title="Import notes")
        self.file = h(
            "input",
            {
                "id": "import-file",
                "type": "file",
                "accept": ".zip,application/zip",
                "data-testid": "import-file",
            },
        )
        self.folder = h(
            "input",
            {
                "id": "import-folder",
                "type": "file",
                "webkitdirectory": True,
                "multiple": True,
                "data-testid": "import-folder",
            },
        )
        self.conflict = h(
            "select",
            {"id": "import-conflict", "data-testid": "import-conflict"},
            *[h("option", {"value": value, "text": text}) for value, text in CHOICES],
        )
        self.submit = h("button", {"type": "submit", "data-testid": "import-submit"}, "Import")
        self.bar = h(
            "progress",
            {"data-testid": "import-progress", "max": "1", "value": "0", "hidden": True},
        )
        self.report = h(
            "div", {"class": "import-report", "data-testid": "import-report", "role": "status"}
        )
        form = h(
            "form",
            {"class": "people-form", "aria-labelledby": frame.title_id},
            field(
                "Zip file",
                self.file,
                ".md and .markdown files become notes byte for byte, images and PDFs "
                "attachments; .obsidian/, .trash/ and dot files are left out.",
            ),
            field(
                "Or a folder (an Obsidian vault)",
                self.folder,
                "Its files are put in a zip here, then sent as a zip is; notes keep their "
                "paths inside the folder.",
            ),
            field("When a note is already there", self.conflict),
            self.submit,
            self.bar,
        )
        frame.body.append(form, self.report)
        frame.listeners.on(form, "submit", self._on_submit, prevent=True)
        # One source at a time: choosing a zip forgets the folder, and the other way round.
        frame.listeners.on(self.file, "change", lambda event: self._forget(self.folder))
        frame.listeners.on(self.folder, "change", lambda event: self._forget(self.file))
        self.busy = False

    def _forget(self, other) -> None:
        if self.file.files.length or self.folder.files.length:
            other.value = ""

    def open(self) -> None:
        self.frame.show()
        if not self.busy:
            self.report.replaceChildren()
            self.bar.hidden = True
            self.bar.value = 0
        self.file.focus()

    async def _on_submit(self, event) -> None:
        ws = self.ctx.workspace_id
        files = [self.folder.files.item(i) for i in range(int(self.folder.files.length))]
        chosen = self.file.files.item(0) if self.file.files.length else None
        if files:
            relative = [str(f.webkitRelativePath or f.name) for f in files]
            problem = folder_problem(folder_paths(relative), [int(f.size) for f in files])
        else:
            problem = file_problem(
                str(chosen.name) if chosen else "", int(chosen.size) if chosen else 0
            )
        if problem or not ws or self.busy:
            self._say_failure(problem or "")
            return
        self.busy = True
        self.submit.disabled = True
        self.bar.hidden = False
        self.bar.value = 0
        try:
            if files:
                chosen = await self._pack(files, relative)
            self.bar.value = 0
            self.report.replaceChildren(h("p", {"text": "Sending the zip…"}))
            status, text = await self._send(import_url(ws), chosen, self.conflict.value)
        finally:
            self.busy = False
            self.submit.disabled = False
        if status != 200:
            self._say_failure(failure(status, text))
            return
        self.bar.value = 1
        report = parse_report(json.loads(text or "null"))
        self._draw(report)
        self.ctx.documents_changed()

    def _say_failure(self, text: str) -> None:
        self.report.replaceChildren(
            h(
                "p",
                {"class": "problem", "role": "alert", "data-testid": "import-error", "text": text},
            )
        )

    def _draw(self, report) -> None:
        parts = [h("p", {"data-testid": "import-summary", "text": summary(report)})]
        for key, heading, lines in sections(report):
            parts.append(
                h(
                    "details",
                    {"data-section": key, "open": key != "imported" or len(lines) <= 20},
                    h("summary", {"text": f"{heading}: {len(lines)}"}),
                    h("ul", {}, *[h("li", {"text": line}) for line in lines]),
                )
            )
        self.report.replaceChildren(*parts)

    async def _pack(self, files: list, relative: list[str]):
        """The chosen folder as one zip file (a JS Blob named after the folder): each file's
        bytes are read, added and handed to JS at once, so Python holds one file at a time.
        The bar and a status line show the files read."""
        status = h("p", {"text": packing(0, len(files))})
        self.report.replaceChildren(status)
        maker, pieces = FolderZip(), []
        for done, (file, path) in enumerate(zip(files, folder_paths(relative), strict=True), 1):
            data = (await file.arrayBuffer()).to_bytes()
            pieces.append(_js_bytes(maker.add(path, data)))
            status.textContent = packing(done, len(files))
            self.bar.value = done / len(files)
        pieces.append(_js_bytes(maker.finish()))
        options = to_js({"type": "application/zip"}, dict_converter=Object.fromEntries)
        blob = Blob.new(to_js(pieces), options)
        return _Named(blob, f"{folder_name(relative)}.zip")

    async def _send(self, url: str, chosen, on_conflict: str) -> tuple[int, str]:
        """POST the form with XMLHttpRequest (fetch reports no upload progress): the status
        (0 when the request failed) and the answer's text."""
        loop = asyncio.get_event_loop()
        done: asyncio.Future = loop.create_future()
        xhr = XMLHttpRequest.new()

        def on_progress(event) -> None:
            if event.lengthComputable:
                self.bar.value = progress(float(event.loaded), float(event.total))

        def on_end(event) -> None:
            if not done.done():
                done.set_result(None)

        proxies = [create_proxy(on_progress), create_proxy(on_end)]
        xhr.upload.addEventListener("progress", proxies[0])
        for name in ("load", "error", "abort", "timeout"):
            xhr.addEventListener(name, proxies[1])
        form = FormData.new()
        if isinstance(chosen, _Named):
            form.append("file", chosen.blob, chosen.name)
        else:
            form.append("file", chosen)
        form.append("onConflict", on_conflict)
        try:
            xhr.open("POST", url)
            xhr.send(form)
            await done
            return int(xhr.status), str(xhr.responseText or "")
        finally:
            xhr.upload.removeEventListener("progress", proxies[0])
            for name in ("load", "error", "abort", "timeout"):
                xhr.removeEventListener(name, proxies[1])
            for proxy in proxies:
                proxy.destroy()


def _js_bytes(data: bytes):
    """A copy of `data` in JS memory (a Uint8Array), out of Python's heap."""
    array = Uint8Array.new(len(data))
    array.assign(data)
    return array


class _Named:
    """A zip made in the page and the file name it is sent under (the notes' source name)."""

    def __init__(self, blob, name: str) -> None:
        self.blob, self.name = blob, name
