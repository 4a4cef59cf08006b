"""The inline AI command: one-shot requests about a selection (SPEC §9). Nothing is stored."""

from __future__ import annotations

from fastapi import APIRouter, Depends, HTTPException
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from ambient import inline_context
from ambient.paths import PathError, check_path
from backend.api.deps import CurrentUser, ModelDep, SessionDep, per_user
from backend.assistant import inline
from backend.errors import error_responses
from backend.services import workspaces as workspaces_service

router = APIRouter(prefix="/api/assistant", tags=["assistant"])

MAX_INSTRUCTION_CHARS = 2_000
_AT_MOST = f"at most {inline_context.CONTEXT_BYTES:,} bytes"


def _unicode(value: str) -> str:
    """JSON can carry a lone surrogate (\\ud800) that no UTF-8 text holds: refuse it (422)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode text") from None
    return value


class SelectionIn(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    from_: int = Field(alias="from", ge=0, description="CodeMirror position (UTF-16 units).")
    to: int = Field(ge=0, description="CodeMirror position (UTF-16 units), at least `from`.")
    text: str = Field(
        description=f"The selected text: at most {inline_context.SELECTION_BYTES:,} bytes of UTF-8."
    )

    _text_is_unicode = field_validator("text")(_unicode)


class InlineIn(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)

    workspace_id: str = Field(min_length=1, max_length=64, description="The workspace slug.")
    path: str = Field(min_length=1, max_length=4096, description="The note's path.")
    instruction: str = Field(min_length=1, max_length=MAX_INSTRUCTION_CHARS)
    selection: SelectionIn
    before: str = Field("", description=f"Whole lines before the selection, {_AT_MOST}.")
    after: str = Field("", description=f"Whole lines after the selection, {_AT_MOST}.")

    _texts_are_unicode = field_validator("instruction", "before", "after")(_unicode)

    @field_validator("path")
    @classmethod
    def _valid_path(cls, value: str) -> str:
        try:
            check_path(value)
        except PathError:
            raise ValueError("not a valid note path") from None
        return value


class InlineOut(BaseModel):
    replacement: str | None = Field(description="The new text for the range; null if not done.")
    explanation: str | None = Field(description="Why there is no replacement, in words.")


@router.post(
    "/inline",
    response_model=InlineOut,
    summary="Answer an inline command about a selection (nothing is stored)",
    responses=error_responses(401, 403, 422, 429),
    dependencies=[
        Depends(per_user("inline"))
    ],  # backend.limits.throttle: 429 past route_rate_limit
)
def post_inline(body: InlineIn, user: CurrentUser, db: SessionDep, model: ModelDep) -> InlineOut:
    workspaces_service.require_editor(db, user_id=user.id, workspace_id=body.workspace_id)
    selection = body.selection
    problem = inline_context.check(selection.text, body.before, body.after)
    if problem is None and (
        selection.to < selection.from_
        or selection.to - selection.from_ != inline_context.utf16_len(selection.text)
    ):
        problem = "The selection's from and to do not match the length of its text."
    if problem is not None:
        raise HTTPException(status_code=422, detail=problem)
    answer = inline.answer(  # the chat's choice: the app's model, or the offline transforms
        model,
        instruction=body.instruction,
        selection=selection.text,
        before=body.before,
        after=body.after,
    )
    return InlineOut(replacement=answer.replacement, explanation=answer.explanation)
