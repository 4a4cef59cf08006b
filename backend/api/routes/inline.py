"""The inline AI command: one-shot requests about a selection (SPEC §9)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/assistant", tags=["assistant"])
