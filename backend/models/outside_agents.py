"""Personal access tokens, the sharing switch and published active-note pointers (SPEC §10)."""

from __future__ import annotations
