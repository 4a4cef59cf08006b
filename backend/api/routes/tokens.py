"""Personal access tokens for the user's own agents (SPEC §10)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/tokens", tags=["tokens"])
