"""Structured output (SPEC §19): every tool declares an outputSchema and every answer matches it.

Each tool is called through the official SDK client, in success and in refusal cases, on
both databases; its `structuredContent` is validated with `jsonschema` against the schema
that tools/list declared, and the text content stays the answer's `text`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from fastapi import FastAPI
from test_mcp import NOTE, Live, wire
from test_mcp_write import sha, token


@pytest.fixture
def live(app: FastAPI) -> Iterator[Live]:
    server = Live(app).start()
    try:
        yield server
    finally:
        server.stop()


# (tool, arguments, expected ok): every tool at least once each way.
CALLS: list[tuple[str, dict[str, Any], bool]] = [
    ("get_active_note", {}, True),
    ("get_active_note", {"maxBytes": "ten"}, False),  # arguments refused
    ("list_documents", {"workspaceId": "personal"}, True),
    ("list_documents", {"workspaceId": "bob-notes"}, False),  # not a member
    ("read_document", {"workspaceId": "personal", "path": "plan.md"}, True),
    ("read_document", {"workspaceId": "personal", "path": "nothing.md"}, False),
    ("search_notes", {"workspaceId": "personal", "query": "Friday"}, True),
    ("search_notes", {"workspaceId": "personal", "query": ""}, False),
    ("propose_edit", {"edits": [{"append": "\nmore"}]}, True),  # the active note
    ("propose_edit", {"workspaceId": "personal", "path": "plan.md", "edits": []}, False),
    ("propose_edit", {"path": "plan.md", "edits": [{"append": "x"}]}, False),  # no workspace
    (
        "propose_edit",
        {"workspaceId": "personal", "path": "plan.md", "edits": [{"find": "zz"}]},
        False,
    ),
    ("get_proposal", {"proposalId": "nope"}, False),
    ("create_note", {"workspaceId": "personal", "path": "new.md", "text": "hello"}, True),
    ("create_note", {"workspaceId": "personal", "path": "new.md", "text": "again"}, False),
    (
        "edit_note",
        {
            "workspaceId": "personal",
            "path": "new.md",
            "baseSha256": sha("hello"),
            "edits": [{"append": " world"}],
        },
        True,
    ),
    (
        "edit_note",
        {
            "workspaceId": "personal",
            "path": "new.md",
            "baseSha256": sha("hello"),
            "edits": [{"append": "!"}],
        },
        False,  # stale base: answers the current sha256
    ),
    ("changes_since", {"workspaceId": "personal"}, True),
    ("changes_since", {"workspaceId": "personal", "cursor": "not a cursor"}, False),
]


def check(tools: dict[str, Any], name: str, result: Any) -> dict:
    schema = tools[name].output_schema
    assert schema is not None and schema["type"] == "object", name
    data = result.structured_content
    jsonschema.validate(data, schema)
    assert [block.text for block in result.content] == [data["text"]]
    assert result.is_error is (not data["ok"])
    return data


def test_every_tool_declares_an_output_schema_and_every_answer_matches_it(live):
    live.note("alice", "personal", "plan.md", NOTE)
    live.sharing("alice", True)
    assert live.publish("alice", "main", "personal", wire(NOTE, "plan.md")).status_code == 204
    t = token(live, scope="write")
    tools, *results = live.calls(t, ("__list__", {}), *[(n, a) for n, a, _ in CALLS])
    assert {name for name, _, _ in CALLS} == set(tools)  # every tool is exercised
    for (name, arguments, ok), result in zip(CALLS, results, strict=True):
        data = check(tools, name, result)
        assert data["ok"] is ok, (name, arguments, data)

    # get_proposal's success, and an edit's failure index and the scope refusal's field.
    proposal = check(tools, "propose_edit", results[8])["proposalId"]
    (got,) = live.calls(t, ("get_proposal", {"proposalId": proposal}))
    assert check(tools, "get_proposal", got)["status"] == "pending"
    reader = token(live, scope="read")
    (beyond,) = live.calls(reader, ("create_note", {"workspaceId": "personal", "path": "x.md"}))
    data = check(tools, "create_note", beyond)
    assert data["reason"] == "scope" and data["scopeNeeded"] == "write"


def test_a_declared_schema_refuses_what_it_does_not_describe(live):
    (tools,) = live.calls(token(live), ("__list__", {}))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"ok": True, "text": "x", "secret": 1}, tools["read_document"].output_schema
        )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"ok": True}, tools["list_documents"].output_schema)
