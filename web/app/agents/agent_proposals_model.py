"""Which agent proposals a window shows (SPEC §14): pure, so it is tested under CPython.

The page polls `GET /api/proposals?status=pending` while it is visible. A proposal that is
pending gets a card; a card whose proposal is no longer pending is dropped, unless this
window settled it (it then shows its outcome until the user dismisses it).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

POLL_SECONDS = 3.0  # a new proposal shows within this (plus one request) while visible
URL = "/api/proposals"
PENDING_QUERY = "?status=pending"


def reconcile(
    shown: list[str],
    settled_here: set[str],
    pending: list[dict],
    working: AbstractSet[str] = frozenset(),
) -> tuple[list[dict], list[str]]:
    """(proposals to add, oldest first; card ids to drop) for the pending list just read.

    A proposal this window settled is never added again: a list that still has it pending
    was read before the settling (its card may have been dismissed meanwhile). A card whose
    Apply or Discard is `working` is not dropped under it: the list may have been read after
    the server settled it but before this window heard so.
    """
    pending_ids = {p.get("proposalId") for p in pending}
    add = [
        p
        for p in pending
        if isinstance(p.get("proposalId"), str)
        and p["proposalId"] not in shown
        and p["proposalId"] not in settled_here
    ]
    keep = settled_here | working
    drop = [pid for pid in shown if pid not in pending_ids and pid not in keep]
    return add, drop


def title(proposal: dict) -> str:
    """'Claude Code proposes an edit of notes/plan.md (personal)': the agent and the note."""
    source = proposal.get("source") or {}
    agent = source.get("name") or "An agent"
    return (
        f"{agent} proposes an edit of {proposal.get('path', '')} "
        f"({proposal.get('workspaceId', '')})"
    )
