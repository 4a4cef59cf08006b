"""web/app/agent_setup_model: the Agents dialog's scopes, reach and ready-to-paste setup."""

from __future__ import annotations

import json

from app.agents.agent_setup_model import SCOPES, claude_code, cursor, reach, snippets, vscode

ADDRESS = "https://notes.example.test/mcp"


def test_the_scopes_are_offered_read_first():
    assert [value for value, _ in SCOPES] == ["read", "propose", "write"]


def test_reach_in_words():
    assert reach({"workspaceId": None, "folder": None}) == "All workspaces"
    assert reach({"workspaceId": "personal", "folder": None}) == "personal"
    assert reach({"workspaceId": "personal", "folder": "projects"}) == "personal / projects/"
    assert reach({"workspaceId": None, "folder": "projects"}) == "Every workspace / projects/"


def test_the_snippets_carry_the_real_address_and_the_token():
    token = "ana_pat_abc"
    assert claude_code(ADDRESS, token) == (
        "claude mcp add --transport http ambient-notes https://notes.example.test/mcp "
        '--header "Authorization: Bearer ana_pat_abc"'
    )
    assert json.loads(vscode(ADDRESS, token)) == {
        "servers": {
            "ambient-notes": {
                "type": "http",
                "url": ADDRESS,
                "headers": {"Authorization": "Bearer ana_pat_abc"},
            }
        }
    }
    assert json.loads(cursor(ADDRESS, token)) == {
        "mcpServers": {
            "ambient-notes": {"url": ADDRESS, "headers": {"Authorization": "Bearer ana_pat_abc"}}
        }
    }
    assert [test_id for test_id, _, _ in snippets(ADDRESS)] == [
        "setup-claude-code",
        "setup-vscode",
        "setup-cursor",
    ]
    assert all("ana_pat_…" in text for _, _, text in snippets(ADDRESS))
