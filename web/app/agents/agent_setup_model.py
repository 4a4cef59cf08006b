"""What the Agents dialog offers to paste (SPEC §14): pure, tested under CPython.

A token's scope and reach in words, and the Claude Code command and the VS Code and Cursor
JSON with the server's real address (and the token, right after it is created).
"""

from __future__ import annotations

import json

SCOPES = (
    ("read", "Read: list, read and search notes"),
    ("propose", "Propose: also propose edits that I apply"),
    ("write", "Write: also create and edit notes directly"),
)
SERVER_NAME = "ambient-notes"
TOKEN_PLACEHOLDER = "ana_pat_…"


def reach(token: dict) -> str:
    """'All workspaces', 'personal' or 'personal / projects' for a token row."""
    ws, folder = token.get("workspaceId"), token.get("folder")
    if ws is None and folder is None:
        return "All workspaces"
    where = ws or "Every workspace"
    return f"{where} / {folder}/" if folder else where


def claude_code(address: str, token: str = TOKEN_PLACEHOLDER) -> str:
    return (
        f"claude mcp add --transport http {SERVER_NAME} {address} "
        f'--header "Authorization: Bearer {token}"'
    )


def vscode(address: str, token: str = TOKEN_PLACEHOLDER) -> str:
    return json.dumps(
        {
            "servers": {
                SERVER_NAME: {
                    "type": "http",
                    "url": address,
                    "headers": {"Authorization": f"Bearer {token}"},
                }
            }
        },
        indent=2,
        ensure_ascii=False,
    )


def cursor(address: str, token: str = TOKEN_PLACEHOLDER) -> str:
    return json.dumps(
        {
            "mcpServers": {
                SERVER_NAME: {"url": address, "headers": {"Authorization": f"Bearer {token}"}}
            }
        },
        indent=2,
        ensure_ascii=False,
    )


def snippets(address: str, token: str = TOKEN_PLACEHOLDER) -> list[tuple[str, str, str]]:
    """(test id, label, text) for each client, in the dialog's order."""
    return [
        ("setup-claude-code", "Claude Code (terminal)", claude_code(address, token)),
        ("setup-vscode", "VS Code: .vscode/mcp.json", vscode(address, token)),
        ("setup-cursor", "Cursor: ~/.cursor/mcp.json", cursor(address, token)),
    ]
