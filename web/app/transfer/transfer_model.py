"""Export and import in the page (SPEC §18), the pure part: URLs, the file check, the folder's
zip, the report's words (no browser)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from ambient.contract import MAX_IMPORT_BYTES
from app.api_model import ApiError, workspace_url

# The server's cap on an import's request body (backend.services.transfer.MAX_UPLOAD_BYTES
# less the form's own bytes): a bigger file is refused here before it is sent.
MAX_ZIP_BYTES = MAX_IMPORT_BYTES
CHOICES = (
    ("skip", "Keep the note already there (skip)"),
    ("rename", "Import it under a free name (name-1.md)"),
    ("replace", "Replace the note with the zip's text"),
)


def export_url(ws: str, folder: str | None = None) -> str:
    url = f"{workspace_url(ws)}/export"
    return f"{url}?folder={quote(folder, safe='')}" if folder else url


def import_url(ws: str) -> str:
    return f"{workspace_url(ws)}/import"


def file_problem(name: str, size: int) -> str | None:
    """Why the chosen file cannot be sent, or None."""
    if not name:
        return "Choose a .zip file or a folder first."
    if not name.lower().endswith(".zip"):
        return "Choose a .zip file (a folder of notes zipped, or an Obsidian vault zipped)."
    if size > MAX_ZIP_BYTES:
        mib = MAX_ZIP_BYTES // (1024 * 1024)
        return f"The zip is larger than {mib} MiB, the most one import takes."
    return None


# -- a folder chosen in the page, sent as a zip built here (docs/import-export.md) -------------

# A stored entry's bytes besides its data: the local header (30) and its data descriptor (16,
# written because the zip is made on a stream that cannot go back), the central directory's
# record (46), and the name twice; the end of the central directory once (22).
_ENTRY_BYTES = 30 + 16 + 46
_END_BYTES = 22


def folder_paths(relative_paths: Sequence[str]) -> list[str]:
    """The files' `webkitRelativePath`s (`Vault/notes/a.md`) → their paths in the zip
    (`notes/a.md`): the chosen folder's own name is dropped, so the notes land at their vault
    paths. Nothing is left out here: the server ignores `.obsidian/`, `.trash/` and dot files
    and names them in its report."""
    return [p.split("/", 1)[1] if "/" in p else p for p in relative_paths]


def folder_name(relative_paths: Sequence[str]) -> str:
    """The chosen folder's name (the first segment every path shares), `folder` when none."""
    first = relative_paths[0].split("/", 1)[0] if relative_paths else ""
    return first if first and all("/" in p for p in relative_paths) else "folder"


def folder_zip_size(paths: Sequence[str], sizes: Sequence[int]) -> int:
    """The exact size of the zip `FolderZip` makes of these files."""
    names = sum(len(p.encode("utf-8")) for p in paths)
    return sum(sizes) + len(paths) * _ENTRY_BYTES + 2 * names + _END_BYTES


def folder_problem(paths: Sequence[str], sizes: Sequence[int]) -> str | None:
    """Why the chosen folder cannot be sent, or None: refused before any file is read when its
    zip would pass the import's limit (the same as a chosen zip's)."""
    if not paths:
        return "The folder holds no files; choose the folder of your notes (the vault)."
    size = folder_zip_size(paths, sizes)
    if size > MAX_ZIP_BYTES:
        mib = MAX_ZIP_BYTES // (1024 * 1024)
        return (
            f"The folder holds {size / (1024 * 1024):,.1f} MiB in {len(paths):,} files, "
            f"more than the {mib} MiB one import takes; import it in parts (zip each "
            "subfolder) instead."
        )
    return None


class _Pieces(io.RawIOBase):
    """Where the zip is written: it keeps the bytes until `take`, and cannot seek, so zipfile
    writes each entry's sizes after its data and nothing written is ever changed."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._at = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self._parts.append(bytes(data))
        self._at += len(data)
        return len(data)

    def tell(self) -> int:
        return self._at

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        return data


class FolderZip:
    """A zip made a file at a time: `add` each file's bytes, then `finish`; each returns the
    zip's bytes made since the last call, so the page holds one file's bytes at a time in
    Python. Every entry is stored (not compressed): notes are small, pictures already
    compressed, and a stored entry is never refused for its compression ratio."""

    def __init__(self) -> None:
        self._out = _Pieces()
        self._zip = zipfile.ZipFile(self._out, "w", compression=zipfile.ZIP_STORED)

    def add(self, path: str, data: bytes) -> bytes:
        self._zip.writestr(zipfile.ZipInfo(path), data)
        return self._out.take()

    def finish(self) -> bytes:
        self._zip.close()
        return self._out.take()


def packing(done: int, total: int) -> str:
    """The status line while the folder's files are read."""
    return f"Reading the folder: {done:,} of {total:,} files…"


def progress(loaded: float, total: float) -> float:
    """The share of the upload sent, 0 to 1."""
    if total <= 0:
        return 0.0
    return max(0.0, min(1.0, loaded / total))


@dataclass
class Report:
    imported: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def parse_report(data: object) -> Report:
    """The import's answer; anything malformed is left out."""
    if not isinstance(data, dict):
        return Report()
    renamed = [
        (r["from"], r["to"])
        for r in data.get("renamed") or []
        if isinstance(r, dict) and isinstance(r.get("from"), str) and isinstance(r.get("to"), str)
    ]
    return Report(
        imported=_strings(data.get("imported")),
        renamed=renamed,
        replaced=_strings(data.get("replaced")),
        skipped=_strings(data.get("skipped")),
        ignored=_strings(data.get("ignored")),
    )


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def summary(report: Report) -> str:
    """One sentence: what was imported (notes and attachments: files of the zip) and what
    was not."""
    return (
        f"Imported {_files(len(report.imported))}; renamed {len(report.renamed)}, "
        f"replaced {len(report.replaced)}, skipped {len(report.skipped)}, "
        f"ignored {len(report.ignored)}."
    )


def sections(report: Report) -> list[tuple[str, str, list[str]]]:
    """(key, heading, lines) for each list that is not empty, in the report's order."""
    parts = [
        ("imported", "Imported", report.imported),
        ("renamed", "Renamed (the path was taken)", [f"{a} → {b}" for a, b in report.renamed]),
        ("replaced", "Replaced", report.replaced),
        ("skipped", "Skipped (a note is already there)", report.skipped),
        ("ignored", "Ignored (not a note)", report.ignored),
    ]
    return [(key, heading, lines) for key, heading, lines in parts if lines]


def failure(status: int, body: str) -> str:
    """The sentence shown when the import is refused: the server's own, which names the entry."""
    if status == 0:
        return "The upload did not reach the server; check the connection and try again."
    if status >= 500:
        return f"The server had a problem ({status}); nothing was imported."
    return ApiError.from_response(status, body).detail
