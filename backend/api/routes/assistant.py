"""Placeholder for the assistant router (SPEC §4-5); the assistant engineer's module replaces it."""

from fastapi import APIRouter

router = APIRouter(prefix="/api/assistant", tags=["assistant"])
