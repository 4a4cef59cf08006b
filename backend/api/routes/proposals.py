"""Edit proposals: read, apply and discard (SPEC §8)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/assistant/conversations", tags=["assistant"])
