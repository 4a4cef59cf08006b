"""The sharing switch and published active-note pointers (SPEC §10)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/active-note", tags=["active-note"])
