"""Tool arguments declared once, as strict pydantic models: the JSON schema a model or an MCP
client is shown, and the check of what it sends, both come from these declarations."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

from ambient import edits as edit_rules
from backend.services import search
from backend.services.notes_reading import DEFAULT_MAX_BYTES, MAX_MAX_BYTES

BAD_ARGUMENTS = "bad_arguments"  # the reason of a tool result whose arguments were refused


class Arguments(BaseModel):
    """Strict types (no "10" for 10, no true for 1) and no keys beyond the declared ones."""

    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=False)


NUL_CHARACTER = "nul_character"  # the pydantic error type of a text argument holding U+0000


def no_nul(value: str) -> str:
    """Refuse U+0000: PostgreSQL text cannot hold it, and no note, path or summary needs it,
    so it is refused here, before any database work, on both channels."""
    if "\x00" in value:
        raise PydanticCustomError(NUL_CHARACTER, "The text contains a NUL character (U+0000).")
    return value


# Every free-text string argument: a str without NUL.
Text = Annotated[str, AfterValidator(no_nul)]


MaxBytes = Annotated[
    int | None,
    Field(
        None,
        alias="maxBytes",
        description=f"Most UTF-8 bytes of note text to return (default {DEFAULT_MAX_BYTES:,}, "
        f"clamped to 1..{MAX_MAX_BYTES:,}); a longer note comes back partial.",
    ),
]
NotePath = Annotated[
    Text,
    Field(
        min_length=1,
        max_length=4096,
        description="Workspace-relative path of the note, such as 'notes/plan.md'.",
    ),
]
WorkspaceId = Annotated[
    Text,
    Field(
        min_length=1,
        max_length=64,
        alias="workspaceId",
        description="The workspace id, such as 'personal' or 'team'.",
    ),
]
Query = Annotated[
    Text,
    Field(
        min_length=1,
        max_length=search.MAX_QUERY_CHARS,
        description="Words that must all occur in the note (case-insensitive).",
    ),
]


class FindReplace(Arguments):
    find: Text = Field(min_length=1)
    replace: Text


class Append(Arguments):
    append: Text


# -- the in-app assistant's tools (backend.assistant.registry) --------------------------------


class ListDocuments(Arguments):
    pass


class ReadDocument(Arguments):
    path: NotePath
    max_bytes: MaxBytes


class ReadActiveNote(Arguments):
    max_bytes: MaxBytes


class SearchNotes(Arguments):
    query: Query


class ProposeEdit(Arguments):
    path: NotePath | None = Field(
        None, description="Workspace-relative note path; omit for the open note."
    )
    edits: list[FindReplace | Append] = Field(min_length=1, max_length=edit_rules.MAX_EDITS)

    @field_validator("edits", mode="before")
    @classmethod
    def _edit_rules(cls, value: object) -> object:
        """The page's own edit rules first, for their messages (count, shape, empty find)."""
        try:
            return edit_rules.check_edits(value)
        except edit_rules.EditError as exc:
            raise ValueError(exc.message) from None


# -- the MCP tools (backend.outside_agents) ---------------------------------------------------


class McpGetActiveNote(Arguments):
    max_bytes: MaxBytes


class McpListDocuments(Arguments):
    workspace_id: WorkspaceId


class McpReadDocument(Arguments):
    workspace_id: WorkspaceId
    path: NotePath
    max_bytes: MaxBytes


class McpSearchNotes(Arguments):
    workspace_id: WorkspaceId
    query: Query


class HeadingAppend(Arguments):
    heading: Text = Field(
        min_length=1,
        description="A heading line of the note, such as '## Tasks', that occurs exactly once.",
    )
    append: Text = Field(description="Text added at the end of that heading's section.")


def _checked_edits(value: object, *, headings: bool) -> object:
    """The page's own edit rules first, for their messages (count, shape, empty find)."""
    try:
        return edit_rules.check_edits(value, headings=headings)
    except edit_rules.EditError as exc:
        raise ValueError(exc.message) from None


class McpProposeEdit(Arguments):
    workspace_id: Text | None = Field(
        None,
        alias="workspaceId",
        min_length=1,
        max_length=64,
        description="The note's workspace; leave it and 'path' out for the open note.",
    )
    path: NotePath | None = Field(
        None,
        description="Workspace-relative note path; omit "
        "(with workspaceId) for the note the user has open.",
    )
    edits: list[FindReplace | Append] = Field(min_length=1, max_length=edit_rules.MAX_EDITS)
    summary: Text | None = Field(
        None, max_length=200, description="One line for the user saying what the edit does."
    )

    @field_validator("edits", mode="before")
    @classmethod
    def _edit_rules(cls, value: object) -> object:
        return _checked_edits(value, headings=False)


class McpGetProposal(Arguments):
    proposal_id: Text = Field(
        min_length=1,
        max_length=36,
        alias="proposalId",
        description="The proposalId propose_edit answered.",
    )


class McpCreateNote(Arguments):
    workspace_id: WorkspaceId
    path: NotePath
    text: Text = Field(description="The new note's Markdown text.")


class McpEditNote(Arguments):
    workspace_id: WorkspaceId
    path: NotePath
    base_sha256: Text = Field(
        alias="baseSha256",
        pattern=r"^[0-9a-f]{16}$",
        description="The sha256 your last read of this note answered (16 lowercase hex "
        "characters); the edits apply only if the saved copy still has it.",
    )
    edits: list[FindReplace | HeadingAppend | Append] = Field(
        min_length=1, max_length=edit_rules.MAX_EDITS
    )

    @field_validator("edits", mode="before")
    @classmethod
    def _edit_rules(cls, value: object) -> object:
        return _checked_edits(value, headings=True)


# -- schema and messages ----------------------------------------------------------------------


class McpChangesSince(Arguments):
    workspace_id: WorkspaceId
    cursor: Text | None = Field(
        None,
        max_length=200,
        description="The cursor the previous changes_since call answered; leave it out to "
        "start from now (the answer is then empty, with a cursor to pass next time).",
    )


def schema(model: type[Arguments]) -> dict[str, Any]:
    """The model's JSON schema as tools are given it: references inlined, no titles, and an
    optional argument shown as its type (leaving it out means its default)."""
    raw = model.model_json_schema(by_alias=True)
    defs = raw.pop("$defs", {})

    def clean(node: Any) -> Any:
        if isinstance(node, list):
            return [clean(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return clean(defs[node["$ref"].rsplit("/", 1)[1]])
        out = {k: clean(v) for k, v in node.items() if k != "title"}
        options = out.get("anyOf")
        if isinstance(options, list) and {"type": "null"} in options and "default" in out:
            rest = [o for o in options if o != {"type": "null"}]
            if len(rest) == 1:
                del out["anyOf"], out["default"]
                out = {**rest[0], **out}
        return out

    cleaned = clean(raw)
    cleaned.setdefault("properties", {})
    return cleaned


_TYPES = {
    "int_type": "an integer",
    "string_type": "a string",
    "list_type": "a list",
    "model_type": "an object",
    "dict_type": "an object",
}


def problem(exc: ValidationError) -> str:
    """The first thing wrong with the arguments, in one plain sentence (never pydantic's text)."""
    errors = exc.errors(include_url=False)
    # A NUL anywhere is named first: in an edit, the union's other shapes would otherwise
    # speak first ("'edits' is required").
    err = next((e for e in errors if e["type"] == NUL_CHARACTER), errors[0])
    loc = [str(part) for part in err["loc"] if not isinstance(part, int)]
    kind, ctx = err["type"], err.get("ctx") or {}
    if not loc and kind in ("model_type", "dict_type", "model_attributes_type"):
        return "The arguments must be a JSON object."
    name = f"'{loc[0]}'" if loc else "The arguments"
    if kind == "missing":
        return f"{name} is required."
    if kind == NUL_CHARACTER:
        return f"{name} contains a NUL character (U+0000), which text cannot hold."
    if kind == "extra_forbidden":
        return f"{name} is not an argument of this tool."
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])
    if kind in _TYPES:
        return f"{name} must be {_TYPES[kind]}."
    if kind == "string_too_short":
        return f"{name} must not be empty."
    # A length limit on a Text (str plus its NUL check) is checked after the check, so
    # pydantic names it too_long, as for a list: a string input still means characters.
    if kind == "string_too_long" or (kind == "too_long" and isinstance(err.get("input"), str)):
        return f"{name} must be at most {ctx.get('max_length'):,} characters."
    if kind == "too_short":
        return f"{name} must not be empty."
    if kind == "too_long":
        return f"{name} has more than {ctx.get('max_length'):,} items."
    if kind == "string_pattern_mismatch" and loc == ["baseSha256"]:
        return f"{name} must be 16 lowercase hexadecimal characters (the sha256 a read answered)."
    return f"{name} is not valid."


def refused(message: str) -> dict:
    """A tool result for arguments that were refused: `ok: false`, a reason and plain words."""
    return {"ok": False, "reason": BAD_ARGUMENTS, "text": f"Invalid arguments: {message}"}
