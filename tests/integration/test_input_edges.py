"""Inputs found in review that once reached the database as values it refuses: never a 500."""

from assistant_helpers import key_session, new_id, put_note


def test_an_impossibly_large_if_match_is_stale_not_an_error(alice_client):
    put_note(alice_client, "personal", "edge.md", "first")
    for verb in ("put", "delete"):
        kwargs = {"content": b"second"} if verb == "put" else {}
        response = getattr(alice_client, verb)(
            "/api/workspaces/personal/documents/edge.md",
            headers={"If-Match": '"2147483648"'},
            **kwargs,
        )
        assert response.status_code == 409, response.text
    assert alice_client.get("/api/workspaces/personal/documents/edge.md").text == "first"


def test_a_nul_in_a_turn_message_is_refused_plainly(alice_client):
    key = key_session(alice_client)
    response = alice_client.post(
        "/api/assistant/turns",
        json={"conversationId": new_id(), "workspaceId": "personal", "message": "a\u0000b"},
        headers={"X-Key-Session": key},
    )
    assert response.status_code == 422
    assert "message" in response.json()["detail"]
