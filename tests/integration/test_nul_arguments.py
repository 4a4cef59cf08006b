"""A NUL (U+0000) in a tool's text arguments is refused before any database work (422 over the
in-app tools route, a tool error over MCP), never a 500 from PostgreSQL, on both databases."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from assistant_helpers import call_tool, header_for, key_session, new_id, ok_turn, pointer, put_note
from pydantic import ValidationError

from backend import tool_arguments as args

PLAN = "# Plan\n\n- [ ] buy milk\n"


@pytest.fixture
def world(alice_client):
    """plan.md open in the page (fresh pointer), a conversation with a delivery row."""
    put_note(alice_client, "personal", "plan.md", PLAN)
    cid = new_id()
    key = key_session(alice_client, "personal")
    ok_turn(alice_client, cid, "hello", key=key, note=header_for(pointer(PLAN, "plan.md")))
    return alice_client, cid


def _note(client, path: str = "plan.md") -> str:
    r = client.get(f"/api/workspaces/personal/documents/{quote(path)}")
    assert r.status_code == 200, r.text
    return r.text


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("propose_edit", {"edits": [{"append": "a\x00b"}]}, "edits"),
        ("propose_edit", {"edits": [{"find": "milk", "replace": "m\x00lk"}]}, "edits"),
        ("propose_edit", {"edits": [{"find": "mi\x00lk", "replace": "bread"}]}, "edits"),
        ("propose_edit", {"edits": [{"append": "x"}], "path": "plan\x00.md"}, "path"),
        ("search_notes", {"query": "milk\x00"}, "query"),
        ("read_document", {"path": "plan.md\x00"}, "path"),
    ],
)
def test_a_nul_in_a_text_argument_is_a_plain_422_and_changes_nothing(world, name, arguments, field):
    client, cid = world
    r = call_tool(client, cid, name, arguments)
    assert r.status_code == 422, r.text
    assert r.json()["detail"] == (
        f"'{field}' contains a NUL character (U+0000), which text cannot hold."
    )
    assert _note(client) == PLAN
    listed = client.get(f"/api/assistant/conversations/{cid}/proposals")
    assert listed.status_code == 200 and listed.json()["proposals"] == []


@pytest.mark.parametrize(
    ("model", "arguments", "field"),
    [
        (args.McpProposeEdit, {"edits": [{"append": "x"}], "summary": "s\x00"}, "summary"),
        (args.McpProposeEdit, {"edits": [{"append": "x"}], "workspaceId": "p\x00"}, "workspaceId"),
        (args.McpSearchNotes, {"workspaceId": "personal", "query": "\x00"}, "query"),
        (args.McpGetProposal, {"proposalId": "\x00"}, "proposalId"),
        (args.McpCreateNote, {"workspaceId": "personal", "path": "a.md", "text": "\x00"}, "text"),
        (
            args.McpEditNote,
            {
                "workspaceId": "personal",
                "path": "a.md",
                "baseSha256": "0123456789abcdef",
                "edits": [{"heading": "## T\x00", "append": "x"}],
            },
            "edits",
        ),
    ],
)
def test_the_mcp_tools_refuse_a_nul_with_the_same_words(model, arguments, field):
    with pytest.raises(ValidationError) as caught:
        model.model_validate(arguments)
    message = args.problem(caught.value)
    assert message == f"'{field}' contains a NUL character (U+0000), which text cannot hold."
    assert args.refused(message)["ok"] is False


def test_text_without_a_nul_is_still_accepted():
    checked = args.McpProposeEdit.model_validate(
        {"edits": [{"find": "a\u0301", "replace": "\t\n"}], "summary": "fine"}
    )
    assert checked.summary == "fine"


@pytest.mark.parametrize(
    ("model", "arguments", "said"),
    [
        (args.McpSearchNotes, {"workspaceId": "p", "query": "q" * 201}, "'query' must be at most"),
        (args.McpProposeEdit, {"edits": [{"append": "x"}], "summary": "s" * 201}, "'summary' must"),
        (args.McpGetProposal, {"proposalId": ""}, "'proposalId' must not be empty."),
    ],
)
def test_length_limits_on_text_still_speak_of_characters(model, arguments, said):
    with pytest.raises(ValidationError) as caught:
        model.model_validate(arguments)
    message = args.problem(caught.value)
    assert message.startswith(said) and "items" not in message, message
