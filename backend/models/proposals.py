"""Edit proposals made by the assistant's `propose_edit` tool (SPEC §8)."""

from __future__ import annotations
