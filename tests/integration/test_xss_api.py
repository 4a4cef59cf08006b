"""Injection at the API level: XSS payloads are stored and returned as data, never as HTML; a
pointer whose path or frame id holds a CR, LF or other control character is treated as absent.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from reliability_helpers import (
    ambient,
    call_tool,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    raw_header,
    row,
    tool,
)

PAYLOADS = [
    "<script>alert('xss')</script>",
    '<img src=x onerror="alert(1)">',
    '"><svg onload=alert(document.cookie)>',
    '<a href="javascript:alert(1)">click</a>',
    "{{constructor.constructor('alert(1)')()}}",
]
# Note paths may hold <, >, quotes and spaces (only '/', '\\' rules and control characters
# are refused), so each payload is also a file name.
PATHS = [f"xss/{p.replace('/', '∕')}.md" for p in PAYLOADS]
TEXT = "# Title " + PAYLOADS[0] + "\n\n" + "\n".join(PAYLOADS) + "\n"


def _url(ws: str, path: str) -> str:
    return f"/api/workspaces/{ws}/documents/{quote(path, safe='/')}"


def _never_html(response) -> None:
    assert "text/html" not in response.headers.get("content-type", ""), response.headers


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_payload_paths_and_text_are_data(app, alice_client, index):
    path = PATHS[index]
    saved = alice_client.put(_url("personal", path), content=TEXT.encode("utf-8"))
    assert saved.status_code == 201, saved.text
    _never_html(saved)
    assert saved.json()["path"] == path  # verbatim in JSON, not escaped into entities

    got = alice_client.get(_url("personal", path))
    assert got.status_code == 200 and got.text == TEXT
    assert got.headers["content-type"].startswith("text/markdown")

    listing = alice_client.get("/api/workspaces/personal/documents")
    _never_html(listing)
    assert listing.headers["content-type"].startswith("application/json")
    assert [d["path"] for d in listing.json()] == [path]

    moved_to = path.replace("xss/", "xss/moved-")
    moved = alice_client.post(_url("personal", path) + "/move", json={"to": moved_to})
    assert moved.status_code == 200 and moved.json()["path"] == moved_to
    _never_html(moved)


def test_error_responses_never_reflect_a_payload(app, alice_client):
    for payload in PAYLOADS:
        for response in (
            alice_client.get(_url("personal", f"xss/{payload.replace('/', '∕')}.missing")),
            alice_client.put(_url("personal", f"../{payload}"), content="x"),
            alice_client.post(_url("personal", "nothing.md") + "/move", json={"to": payload}),
            alice_client.get(f"/api/{quote(payload, safe='')}"),
            alice_client.get(_url(quote(payload, safe=""), "a.md")),
            alice_client.post("/api/session", json={"username": payload, "password": payload}),
        ):
            assert response.status_code >= 400
            _never_html(response)
            assert payload not in response.text
            assert set(response.json()) == {"detail"}


def test_the_assistant_carries_payloads_as_text(app, alice_client):
    path = PATHS[1]
    put_note(alice_client, "personal", path, TEXT)
    key = key_session(alice_client, "personal")
    cid = new_id()
    body = ok_turn(
        alice_client, cid, "summarise this", key=key, note=header_for(pointer(TEXT, path))
    )
    call = body["toolCalls"][0]
    assert call["tool"] == "read_active_note"
    assert call["result"]["content"] == TEXT  # the payloads, byte for byte, as a JSON string
    assert call["result"]["path"] == path
    assert PAYLOADS[0] in body["reply"]  # the summary quotes the title verbatim, as text
    named = tool(alice_client, cid, "read_document", {"path": path})
    assert named["content"] == TEXT and path in named["text"]
    listing = tool(alice_client, cid, "list_documents")
    assert listing["documents"][0]["path"] == path
    # A message that is itself a payload is echoed back only as JSON text.
    echo = ok_turn(alice_client, cid, PAYLOADS[2], key=key)
    conv = alice_client.get(f"/api/assistant/conversations/{cid}")
    assert conv.headers["content-type"].startswith("application/json")
    assert [m["content"] for m in conv.json()["messages"] if m["role"] == "user"][-1] == PAYLOADS[2]
    assert isinstance(echo["reply"], str)


def test_the_page_route_never_reflects_a_path(app, client):
    for payload in PAYLOADS:
        response = client.get("/" + quote(payload, safe=""))
        assert payload not in response.text
        assert "onerror" not in response.text and "alert(" not in response.text


# --- header injection: a control character in the pointer's path or frame id ----------------

CONTROL = {
    "CR": "\r",
    "LF": "\n",
    "CRLF": "\r\n",
    "NUL": "\x00",
    "TAB": "\t",
    "ESC": "\x1b",
    "DEL": "\x7f",
    "NEL": "\x85",
    "C1-CSI": "\x9b",
}


def test_control_characters_in_the_pointer_leave_the_columns_null(app, alice_client, subtests):
    put_note(alice_client, "personal", "plan.md", "# Plan\n")
    key = key_session(alice_client, "personal")
    cid = new_id()
    good = pointer("# Plan\n", "plan.md")
    for name, ch in CONTROL.items():
        for field, value in (
            ("path", f"plan{ch}Set-Cookie: x=1.md"),
            ("path", f"{ch}plan.md"),
            ("frameId", f"frame{ch}X-Injected: 1"),
        ):
            with subtests.test(msg=field, char=name):
                # A good pointer first, so "treated as absent" must also clear old metadata.
                ok_turn(alice_client, cid, "hello", key=key, note=header_for(good))
                assert ambient(app, cid)[0] == "plan.md"
                poisoned = raw_header({**good.to_wire(), field: value})
                body = ok_turn(alice_client, cid, "summarise this", key=key, note=poisoned)
                assert ambient(app, cid) == (None, None, None)
                assert row(app, cid)["key_session_id"] == key  # the turn itself was fine
                result = body["toolCalls"][0]["result"]
                assert result["ok"] is False and result["reason"] == "no_pointer"
                again = call_tool(alice_client, cid, "read_active_note").json()
                assert again["reason"] == "no_pointer"
