"""Export and import in the page (SPEC §18), the pure part: URLs, the file check, the report's
words (no browser)."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote

from app.api_model import ApiError, workspace_url

# The server's cap on an import's request body (backend.services.transfer.MAX_UPLOAD_BYTES
# less the form's own bytes): a bigger file is refused here before it is sent.
MAX_ZIP_BYTES = 512 * 1024 * 1024
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
        return "Choose a .zip file first."
    if not name.lower().endswith(".zip"):
        return "Choose a .zip file (a folder of notes zipped, or an Obsidian vault zipped)."
    if size > MAX_ZIP_BYTES:
        mib = MAX_ZIP_BYTES // (1024 * 1024)
        return f"The zip is larger than {mib} MiB, the most one import takes."
    return None


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
