"""Search across a workspace's notes (SPEC §11)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel

from backend.api.deps import MemberWorkspace, SessionDep
from backend.errors import error_responses
from backend.services import search as search_service

router = APIRouter(prefix="/api/workspaces", tags=["search"])


class SearchResult(BaseModel):
    path: str
    line: int
    snippet: str


class SearchOut(BaseModel):
    results: list[SearchResult]


SearchText = Annotated[
    str | None,
    Query(
        description=(
            "Words that must all occur in a note, case-insensitively, "
            f"at most {search_service.MAX_QUERY_CHARS} characters."
        )
    ),
]


@router.get(
    "/{ws}/search",
    response_model=SearchOut,
    responses=error_responses(401, 403, 422),
    summary="Search the workspace's notes",
)
def search_notes(ws: MemberWorkspace, db: SessionDep, q: SearchText = None) -> SearchOut:
    """At most 50 notes containing every word of `q`, each with the line of the first match."""
    try:
        results = search_service.search(db, workspace_id=ws, query=q or "")
    except search_service.InvalidQuery as exc:
        # The message names the rule, never the query.
        raise HTTPException(status_code=422, detail=exc.message) from None
    return SearchOut(results=[SearchResult(**r) for r in results])
