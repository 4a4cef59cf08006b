"""What each MCP tool answers, as pydantic models: the source of every tool's `outputSchema`.

One model per tool. Every answer, success or refusal, is one JSON object: `ok`, `text` (the
same sentence the text content carries) and, on a refusal, `reason` (and for some reasons
one more field). The fields of a success are optional in the schema because a refusal
leaves them out; no model allows a key it does not declare, so the published schema is an
exact description (tests/integration/test_mcp_output.py checks every tool against it).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)


class ToolResult(_Shape):
    """The part every tool answers: refusals are `ok: false` with a reason."""

    ok: bool
    text: str
    reason: str | None = None
    scope_needed: str | None = None  # reason "scope": the scope the tool needs
    edit: int | None = None  # reason "edit_*": the index of the failing edit


class Selection(_Shape):
    anchor: int
    head: int


class NoteRead(ToolResult):
    """A note's saved copy (read_document; get_active_note adds where the user is)."""

    workspace_id: str | None = None
    path: str | None = None
    content: str | None = None
    bytes: int | None = None
    revision: int | None = None
    partial: bool | None = None
    stale: bool | None = None
    caveat: str | None = None
    sha256: str | None = None


class ActiveNoteResult(NoteRead):
    view: str | None = None
    selection: Selection | None = None
    published_at: str | None = None


class ReadDocumentResult(NoteRead):
    pass


class ListedNote(_Shape):
    path: str
    bytes: int
    revision: int
    updated_at: str


class ListDocumentsResult(ToolResult):
    workspace_id: str | None = None
    documents: list[ListedNote] | None = None


class Found(_Shape):
    path: str
    line: int
    snippet: str


class SearchNotesResult(ToolResult):
    workspace_id: str | None = None
    results: list[Found] | None = None


class ProposeEditResult(ToolResult):
    proposal_id: str | None = None
    workspace_id: str | None = None
    path: str | None = None
    base_revision: int | None = None
    diff: str | None = None
    status: str | None = None
    stale: bool | None = None
    caveat: str | None = None


class GetProposalResult(ToolResult):
    proposal_id: str | None = None
    workspace_id: str | None = None
    path: str | None = None
    status: str | None = None
    revision: int | None = None


class SavedNoteResult(ToolResult):
    """create_note and edit_note; a stale base answers the current sha256."""

    path: str | None = None
    revision: int | None = None
    sha256: str | None = None
    bytes: int | None = None


class Change(_Shape):
    """One event of §13 without text: `path` is the note's path after the event."""

    path: str
    kind: str
    revision: int | None
    source: dict[str, str | None] | None
    from_path: str | None = None  # kind "moved": where the note was


class ChangesSinceResult(ToolResult):
    workspace_id: str | None = None
    changes: list[Change] | None = None
    cursor: str | None = None
    more: bool | None = None  # more changes wait: call again with the new cursor


RESULTS: dict[str, type[ToolResult]] = {
    "get_active_note": ActiveNoteResult,
    "list_documents": ListDocumentsResult,
    "read_document": ReadDocumentResult,
    "search_notes": SearchNotesResult,
    "propose_edit": ProposeEditResult,
    "get_proposal": GetProposalResult,
    "create_note": SavedNoteResult,
    "edit_note": SavedNoteResult,
    "changes_since": ChangesSinceResult,
}
