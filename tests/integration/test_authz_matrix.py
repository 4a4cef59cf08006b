"""The authorisation matrix: every route × caller, every tool × delivery state, cross-origin writes.

Cells are pytest subtests (one app per parametrized test, one subtest per cell), so the
summary line counts them: routes × {anonymous, member, non-member, expired session}, tools ×
{valid row, expired row, no key session, other user's conversation, document deleted},
state-changing routes × cross-origin headers, and cookie flags × transports.
"""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime, timedelta

import pytest
from conftest import PASSWORDS, seed_world, sign_in
from fastapi.testclient import TestClient
from reliability_helpers import (
    TOOLS,
    call_tool,
    expire_session,
    header_for,
    key_session,
    new_id,
    ok_turn,
    pointer,
    put_note,
    row,
    set_row,
    tool,
    turn,
)

from backend.api.deps import SESSION_COOKIE
from backend.services import proposals as proposal_store

NOTE = "# Matrix\n\nSecret plans.\n"
CALLERS = ["anonymous", "member", "non-member", "expired-session"]


class World:
    """Alice's personal workspace with a note and a live conversation; bob is no member of it."""

    def __init__(self, app) -> None:
        self.app = app
        self.alice = sign_in(TestClient(app), "alice")
        put_note(self.alice, "personal", "m/base.md", NOTE)
        self.key = key_session(self.alice, "personal")
        self.cid = new_id()
        ok_turn(
            self.alice, self.cid, "hello", key=self.key, note=header_for(pointer(NOTE, "m/base.md"))
        )
        self._n = 0

    def caller(self, kind: str) -> TestClient:
        """A client of its own per call, so a sign-out in one cell cannot touch another."""
        if kind == "anonymous":
            return TestClient(self.app)
        if kind == "member":
            return sign_in(TestClient(self.app), "alice")
        if kind == "non-member":
            return sign_in(TestClient(self.app), "bob")
        client = sign_in(TestClient(self.app), "alice")
        expire_session(self.app, client)
        return client

    def fresh_note(self) -> tuple[str, str]:
        """A new note of alice's for one cell: (path, url)."""
        self._n += 1
        path = f"m/cell-{self._n}.md"
        put_note(self.alice, "personal", path, NOTE)
        return path, f"/api/workspaces/personal/documents/{path}"

    def text(self, url: str) -> str | None:
        r = self.alice.get(url)
        return r.text if r.status_code == 200 else None


# Each route: (how to call it, expected status per caller, a check of what the call did).
# The check gets (world, response, caller kind, context) and asserts the effect, or its absence.


def _health(w, c, kind):
    return c.get("/api/health"), None


def _who(w, c, kind):
    return c.get("/api/session"), None


def _sign_in(w, c, kind):
    return c.post("/api/session", json={"username": "alice", "password": PASSWORDS["alice"]}), None


def _sign_out(w, c, kind):
    return c.delete("/api/session"), None


def _workspaces(w, c, kind):
    return c.get("/api/workspaces"), None


def _list(w, c, kind):
    return c.get("/api/workspaces/personal/documents"), None


def _get(w, c, kind):
    _, url = w.fresh_note()
    return c.get(url), url


def _put(w, c, kind):
    _, url = w.fresh_note()
    return c.put(url, content="overwritten", headers={"If-Match": '"1"'}), url


def _delete(w, c, kind):
    _, url = w.fresh_note()
    return c.delete(url), url


def _move(w, c, kind):
    path, url = w.fresh_note()
    return c.post(f"{url}/move", json={"to": f"{path}.moved"}), url


def _key_session(w, c, kind):
    return c.post("/api/workspaces/personal/key-sessions"), None


def _turn(w, c, kind):
    return turn(c, w.cid, "summarise this", key=w.key), None


def _conversation(w, c, kind):
    return c.get(f"/api/assistant/conversations/{w.cid}"), None


def _tool(w, c, kind):
    return call_tool(c, w.cid, "read_active_note"), None


def _search(w, c, kind):
    return c.get("/api/workspaces/personal/search", params={"q": "secret"}), None


def _proposal(w) -> tuple[str, str]:
    """A fresh pending proposal of alice's on a fresh note: (proposal url, note url)."""
    path, url = w.fresh_note()
    result = tool(
        w.alice, w.cid, "propose_edit", {"path": path, "edits": [{"append": "- [ ] cell"}]}
    )
    assert result["ok"], result
    return f"/api/assistant/conversations/{w.cid}/proposals/{result['proposalId']}", url


def _proposals(w, c, kind):
    return c.get(f"/api/assistant/conversations/{w.cid}/proposals"), None


def _proposal_get(w, c, kind):
    proposal, _ = _proposal(w)
    return c.get(proposal), None


def _proposal_apply(w, c, kind):
    proposal, url = _proposal(w)
    return c.post(f"{proposal}/apply"), url


def _proposal_applied_in_editor(w, c, kind):
    proposal, _ = _proposal(w)
    return c.post(f"{proposal}/applied-in-editor"), None


def _proposal_discard(w, c, kind):
    proposal, _ = _proposal(w)
    return c.post(f"{proposal}/discard"), None


def _agent_proposal(w) -> tuple[str, str]:
    """A fresh pending proposal from alice's own outside agent (SPEC §14) on a fresh note:
    (its /api/proposals url, the note's url). Made through the service, as the MCP tool does."""
    path, url = w.fresh_note()
    with w.app.state.sessionmaker() as db:
        made = proposal_store.create(
            db,
            conversation_id=None,
            user_id=w.app.state.test_user_ids["alice"],
            workspace_id="personal",
            path=path,
            edits=[{"append": "- [ ] cell"}],
            base_revision=1,
            diff="+- [ ] cell\n",
            agent_name="cell agent",
        )
        pid = made.id
    return f"/api/proposals/{pid}", url


def _agent_proposals(w, c, kind):
    _agent_proposal(w)
    return c.get("/api/proposals", params={"status": "pending"}), None


def _agent_proposal_get(w, c, kind):
    proposal, _ = _agent_proposal(w)
    return c.get(proposal), None


def _agent_proposal_apply(w, c, kind):
    proposal, url = _agent_proposal(w)
    return c.post(f"{proposal}/apply"), url


def _agent_proposal_applied_in_editor(w, c, kind):
    proposal, _ = _agent_proposal(w)
    return c.post(f"{proposal}/applied-in-editor"), None


def _agent_proposal_discard(w, c, kind):
    proposal, _ = _agent_proposal(w)
    return c.post(f"{proposal}/discard"), None


def _conversations(w, c, kind):
    return c.get("/api/assistant/conversations", params={"workspaceId": "personal"}), None


def _conversation_delete(w, c, kind):
    cid = new_id()  # one of alice's own, so the world's conversation stays for the other cells
    ok_turn(w.alice, cid, "to be deleted")
    response = c.delete(f"/api/assistant/conversations/{cid}")
    kept = w.alice.get(f"/api/assistant/conversations/{cid}").status_code
    assert kept == (404 if kind == "member" else 200)
    return response, None


def _inline(w, c, kind):
    body = {
        "workspaceId": "personal",
        "path": "m/base.md",
        "instruction": "uppercase",
        "selection": {"from": 0, "to": 5, "text": "hello"},
        "before": "",
        "after": "",
    }
    return c.post("/api/assistant/inline", json=body), None


def _tokens(w, c, kind):
    return c.get("/api/tokens"), None


def _token_create(w, c, kind):
    return c.post("/api/tokens", json={"name": "cell", "expiresInDays": 1}), None


def _token_revoke(w, c, kind):
    made = w.alice.post("/api/tokens", json={"name": "alice's", "expiresInDays": 1})
    return c.delete(f"/api/tokens/{made.json()['id']}"), None


def _sharing(w, c, kind):
    return c.get("/api/active-note/sharing"), None


def _sharing_put(w, c, kind):
    return c.put("/api/active-note/sharing", json={"enabled": False}), None


def _publish(w, c, kind):
    published = dict(pointer(NOTE, "m/base.md").to_meta(), path="m/base.md", view="edit")
    body = {"windowId": "w-cell", "workspaceId": "personal", "pointer": published}
    return c.put("/api/active-note", json=body), None


def _revisions(w, c, kind):
    _, url = w.fresh_note()
    return c.get(url + "/revisions"), None


def _revision(w, c, kind):
    _, url = w.fresh_note()
    return c.get(url + "/revisions/1"), None


def _restore(w, c, kind):
    _, url = w.fresh_note()
    return c.post(url + "/revisions/1/restore", headers={"If-Match": '"1"'}), None


def _trash(w, c, kind):
    return c.get("/api/workspaces/personal/trash"), None


def _trash_restore(w, c, kind):
    path, url = w.fresh_note()
    assert w.alice.delete(url).status_code == 204
    return c.post("/api/workspaces/personal/trash/restore", json={"path": path}), url


def _folder_move(w, c, kind):
    w._n += 1
    put_note(w.alice, "personal", f"f{w._n}/x.md", NOTE)
    url = f"/api/workspaces/personal/documents/f{w._n}/x.md"
    response = c.post(
        "/api/workspaces/personal/folders/move", json={"from": f"f{w._n}", "to": f"g{w._n}"}
    )
    assert (w.text(url) == NOTE) is (kind != "member")
    return response, None


PNG = b"\x89PNG\r\n\x1a\nmatrix"
ATTACHMENTS = "/api/workspaces/personal/attachments"


def _attachment(w) -> str:
    """A fresh attachment of alice's: its URL."""
    w._n += 1
    r = w.alice.post(ATTACHMENTS, files={"file": (f"m{w._n}.png", PNG, "image/png")})
    assert r.status_code == 201, r.text
    return f"{ATTACHMENTS}/{r.json()['path']}"


def _attachment_upload(w, c, kind):
    w._n += 1
    path = f"attachments/up-{w._n}.png"
    response = c.post(ATTACHMENTS, files={"file": (f"up-{w._n}.png", PNG, "image/png")})
    kept = w.alice.get(f"{ATTACHMENTS}/{path}").status_code == 200
    assert kept is (kind == "member")
    return response, None


def _attachment_list(w, c, kind):
    _attachment(w)
    return c.get(ATTACHMENTS), None


def _attachment_get(w, c, kind):
    url = _attachment(w)
    response = c.get(url)
    if kind == "member":
        assert response.content == PNG
    else:
        assert b"matrix" not in response.content
    return response, None


def _attachment_delete(w, c, kind):
    url = _attachment(w)
    response = c.delete(url)
    assert (w.alice.get(url).status_code == 404) is (kind == "member")
    return response, None


def _export(w, c, kind):
    response = c.get("/api/workspaces/personal/export")
    if kind == "member":
        names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
        assert "m/base.md" in names
    else:
        assert b"Secret plans" not in response.content
    return response, None


def _zip_of(path: str, text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(path, text)
    return buffer.getvalue()


def _import(w, c, kind):
    w._n += 1
    path = f"imported/m{w._n}.md"
    response = c.post(
        "/api/workspaces/personal/import",
        files={"file": ("vault.zip", _zip_of(path, NOTE), "application/zip")},
    )
    url = f"/api/workspaces/personal/documents/{path}"
    assert (w.text(url) == NOTE) is (kind == "member")
    return response, None


def _events(w, c, kind):
    # The stream is endless by design; a short life lets the member's call return here.
    w.app.state.settings.events_max_stream_seconds = 0.3
    return c.get("/api/workspaces/personal/events"), None


def _providers(w, c, kind):
    return c.get("/api/session/providers"), None


def _fresh_workspace(w) -> str:
    """A new workspace alice owns (so a cell may delete it or change its members)."""
    w._n += 1
    made = w.alice.post("/api/workspaces", json={"name": f"Cell {w._n}"})
    assert made.status_code == 201, made.text
    return made.json()["id"]


def _workspace_create(w, c, kind):
    return c.post("/api/workspaces", json={"name": "Cell"}), None


def _workspace_rename(w, c, kind):
    return c.patch("/api/workspaces/personal", json={"name": "Personal"}), None


def _workspace_delete(w, c, kind):
    ws = _fresh_workspace(w)
    name = w.alice.get("/api/workspaces").json()
    confirm = next(item["name"] for item in name if item["id"] == ws)
    return c.request("DELETE", f"/api/workspaces/{ws}", json={"confirm": confirm}), None


def _members(w, c, kind):
    return c.get("/api/workspaces/personal/members"), None


def _member_role(w, c, kind):
    return c.patch("/api/workspaces/personal/members/alice", json={"role": "owner"}), None


def _member_remove(w, c, kind):
    """The member (alice, its owner) removes bob from a workspace of hers; the others try."""
    ws = _fresh_workspace(w)
    if kind == "member":
        link = w.alice.post(f"/api/workspaces/{ws}/invitations", json={}).json()["url"]
        bob = sign_in(TestClient(w.app), "bob")
        assert bob.post(f"/api/invitations/{link.split('#invite=')[1]}/accept").status_code == 200
    return c.delete(f"/api/workspaces/{ws}/members/bob"), None


def _invitation_create(w, c, kind):
    return c.post("/api/workspaces/personal/invitations", json={}), None


def _invitations(w, c, kind):
    return c.get("/api/workspaces/personal/invitations"), None


def _invitation_revoke(w, c, kind):
    made = w.alice.post("/api/workspaces/personal/invitations", json={}).json()
    return c.delete(f"/api/workspaces/personal/invitations/{made['id']}"), None


def _invitation_secret(w, ws: str) -> str:
    url = w.alice.post(f"/api/workspaces/{ws}/invitations", json={}).json()["url"]
    return url.split("#invite=")[1]


def _invitation_read(w, c, kind):
    return c.get(f"/api/invitations/{_invitation_secret(w, 'personal')}"), None


def _invitation_accept(w, c, kind):
    # A workspace of its own: a non-member who joins stays a non-member of `personal`.
    secret = _invitation_secret(w, _fresh_workspace(w))
    return c.post(f"/api/invitations/{secret}/accept"), None


SIGNED_IN = {"anonymous": 401, "member": 200, "non-member": 200, "expired-session": 401}
OWNER = {"anonymous": 401, "member": 200, "non-member": 404, "expired-session": 401}
MEMBER = {"anonymous": 401, "member": 200, "non-member": 403, "expired-session": 401}


ROUTES = {
    # (method, template): (call, {caller: status})
    ("GET", "/api/health"): (_health, dict.fromkeys(CALLERS, 200)),
    ("GET", "/api/session"): (
        _who,
        {"anonymous": 401, "member": 200, "non-member": 200, "expired-session": 401},
    ),
    ("POST", "/api/session"): (_sign_in, dict.fromkeys(CALLERS, 200)),
    # The sign-in page asks which providers exist before anyone signs in (docs/oidc.md).
    ("GET", "/api/session/providers"): (_providers, dict.fromkeys(CALLERS, 200)),
    ("DELETE", "/api/session"): (
        _sign_out,
        {"anonymous": 401, "member": 204, "non-member": 204, "expired-session": 401},
    ),
    ("GET", "/api/workspaces"): (
        _workspaces,
        {"anonymous": 401, "member": 200, "non-member": 200, "expired-session": 401},
    ),
    ("POST", "/api/workspaces"): (
        _workspace_create,
        {**SIGNED_IN, "member": 201, "non-member": 201},
    ),
    ("PATCH", "/api/workspaces/{ws}"): (_workspace_rename, MEMBER),
    ("DELETE", "/api/workspaces/{ws}"): (_workspace_delete, {**MEMBER, "member": 204}),
    ("GET", "/api/workspaces/{ws}/members"): (_members, MEMBER),
    ("PATCH", "/api/workspaces/{ws}/members/{username}"): (_member_role, MEMBER),
    ("DELETE", "/api/workspaces/{ws}/members/{username}"): (
        _member_remove,
        {**MEMBER, "member": 204},
    ),
    ("POST", "/api/workspaces/{ws}/invitations"): (_invitation_create, {**MEMBER, "member": 201}),
    ("GET", "/api/workspaces/{ws}/invitations"): (_invitations, MEMBER),
    ("DELETE", "/api/workspaces/{ws}/invitations/{invitation_id}"): (
        _invitation_revoke,
        {**MEMBER, "member": 204},
    ),
    # An invitation link is read before signing in; accepting signed out needs an account's
    # username and password (none here: 401).
    ("GET", "/api/invitations/{secret}"): (_invitation_read, dict.fromkeys(CALLERS, 200)),
    ("POST", "/api/invitations/{secret}/accept"): (_invitation_accept, SIGNED_IN),
    ("GET", "/api/workspaces/{ws}/documents"): (
        _list,
        {"anonymous": 401, "member": 200, "non-member": 403, "expired-session": 401},
    ),
    ("GET", "/api/workspaces/{ws}/documents/{path}"): (
        _get,
        {"anonymous": 401, "member": 200, "non-member": 403, "expired-session": 401},
    ),
    ("PUT", "/api/workspaces/{ws}/documents/{path}"): (
        _put,
        {"anonymous": 401, "member": 200, "non-member": 403, "expired-session": 401},
    ),
    ("DELETE", "/api/workspaces/{ws}/documents/{path}"): (
        _delete,
        {"anonymous": 401, "member": 204, "non-member": 403, "expired-session": 401},
    ),
    ("POST", "/api/workspaces/{ws}/documents/{path}/move"): (
        _move,
        {"anonymous": 401, "member": 200, "non-member": 403, "expired-session": 401},
    ),
    ("POST", "/api/workspaces/{ws}/key-sessions"): (
        _key_session,
        {"anonymous": 401, "member": 201, "non-member": 403, "expired-session": 401},
    ),
    ("POST", "/api/assistant/turns"): (
        _turn,
        {"anonymous": 401, "member": 200, "non-member": 404, "expired-session": 401},
    ),
    ("GET", "/api/assistant/conversations/{conversation_id}"): (
        _conversation,
        {"anonymous": 401, "member": 200, "non-member": 404, "expired-session": 401},
    ),
    ("POST", "/api/assistant/conversations/{conversation_id}/tools/{name}"): (
        _tool,
        {"anonymous": 401, "member": 200, "non-member": 404, "expired-session": 401},
    ),
    ("GET", "/api/workspaces/{ws}/search"): (_search, MEMBER),
    ("GET", "/api/workspaces/{ws}/documents/{path}/revisions"): (_revisions, MEMBER),
    ("GET", "/api/workspaces/{ws}/documents/{path}/revisions/{n}"): (_revision, MEMBER),
    ("POST", "/api/workspaces/{ws}/documents/{path}/revisions/{n}/restore"): (_restore, MEMBER),
    ("GET", "/api/workspaces/{ws}/events"): (_events, MEMBER),
    ("GET", "/api/workspaces/{ws}/trash"): (_trash, MEMBER),
    ("POST", "/api/workspaces/{ws}/attachments"): (_attachment_upload, {**MEMBER, "member": 201}),
    ("GET", "/api/workspaces/{ws}/attachments"): (_attachment_list, MEMBER),
    ("GET", "/api/workspaces/{ws}/attachments/{path}"): (_attachment_get, MEMBER),
    ("DELETE", "/api/workspaces/{ws}/attachments/{path}"): (
        _attachment_delete,
        {**MEMBER, "member": 204},
    ),
    ("GET", "/api/workspaces/{ws}/export"): (_export, MEMBER),
    ("POST", "/api/workspaces/{ws}/import"): (_import, MEMBER),
    ("POST", "/api/workspaces/{ws}/folders/move"): (_folder_move, MEMBER),
    ("POST", "/api/workspaces/{ws}/trash/restore"): (_trash_restore, {**MEMBER, "member": 201}),
    ("GET", "/api/assistant/conversations/{conversation_id}/proposals"): (_proposals, OWNER),
    ("GET", "/api/assistant/conversations/{conversation_id}/proposals/{proposal_id}"): (
        _proposal_get,
        OWNER,
    ),
    ("POST", "/api/assistant/conversations/{conversation_id}/proposals/{proposal_id}/apply"): (
        _proposal_apply,
        OWNER,
    ),
    (
        "POST",
        "/api/assistant/conversations/{conversation_id}/proposals/{proposal_id}/applied-in-editor",
    ): (_proposal_applied_in_editor, OWNER),
    ("POST", "/api/assistant/conversations/{conversation_id}/proposals/{proposal_id}/discard"): (
        _proposal_discard,
        OWNER,
    ),
    ("POST", "/api/assistant/inline"): (_inline, MEMBER),
    ("GET", "/api/assistant/conversations"): (_conversations, MEMBER),
    # An outside agent's proposals (SPEC §14): only their owner sees or acts on them.
    ("GET", "/api/proposals"): (_agent_proposals, SIGNED_IN),
    ("GET", "/api/proposals/{proposal_id}"): (_agent_proposal_get, OWNER),
    ("POST", "/api/proposals/{proposal_id}/apply"): (_agent_proposal_apply, OWNER),
    ("POST", "/api/proposals/{proposal_id}/applied-in-editor"): (
        _agent_proposal_applied_in_editor,
        OWNER,
    ),
    ("POST", "/api/proposals/{proposal_id}/discard"): (_agent_proposal_discard, OWNER),
    ("DELETE", "/api/assistant/conversations/{conversation_id}"): (
        _conversation_delete,
        {**OWNER, "member": 204},
    ),
    ("GET", "/api/tokens"): (_tokens, SIGNED_IN),
    ("POST", "/api/tokens"): (_token_create, {**SIGNED_IN, "member": 201, "non-member": 201}),
    ("DELETE", "/api/tokens/{token_id}"): (_token_revoke, {**OWNER, "member": 204}),
    ("GET", "/api/active-note/sharing"): (_sharing, SIGNED_IN),
    ("PUT", "/api/active-note/sharing"): (_sharing_put, SIGNED_IN),
    # Sharing is off by default: the owner's publication is refused (409) and stores nothing;
    # a non-member of the pointer's workspace is refused before that.
    ("PUT", "/api/active-note"): (_publish, {**MEMBER, "member": 409}),
}


# Accounts, administrators and first run (SPEC §17). "member" is alice, an administrator;
# "non-member" is bob, who is not. Ending all other sign-ins comes last: alice's call ends
# the world's own sign-in of hers.
def _my_sessions(w, c, kind):
    return c.get("/api/account/sessions"), None


def _end_my_session(w, c, kind):
    return c.delete("/api/account/sessions/0123456789abcdef"), None


def _end_my_other_sessions(w, c, kind):
    return c.delete("/api/account/sessions"), None


def _my_preferences(w, c, kind):
    return c.get("/api/account/preferences"), None


def _save_my_preferences(w, c, kind):
    body = {"theme": "dark", "fontSize": 16, "sidebarCollapsed": False}
    return c.put("/api/account/preferences", json=body), None


def _my_password(w, c, kind):
    return c.put("/api/account/password", json={"current": "wrong", "new": "short"}), None


def _admin_users(w, c, kind):
    return c.get("/api/admin/users"), None


def _admin_create(w, c, kind):
    body = {"username": f"made-by-{kind}", "password": "long-enough-password"}
    return c.post("/api/admin/users", json=body), None


def _admin_change(w, c, kind):
    return c.patch("/api/admin/users/bob", json={"admin": False}), None


def _setup_needed(w, c, kind):
    return c.get("/api/setup"), None


def _setup(w, c, kind):
    body = {"username": "x-admin", "password": "long-enough-password", "code": "AAAA-AAAA-AAAA"}
    return c.post("/api/setup", json=body), None


ROUTES.update(
    {
        ("GET", "/api/account/sessions"): (_my_sessions, SIGNED_IN),
        ("GET", "/api/account/preferences"): (_my_preferences, SIGNED_IN),  # issue 34
        ("PUT", "/api/account/preferences"): (_save_my_preferences, SIGNED_IN),
        ("DELETE", "/api/account/sessions/{session_id}"): (
            _end_my_session,
            {**SIGNED_IN, "member": 404, "non-member": 404},
        ),
        ("PUT", "/api/account/password"): (
            _my_password,
            {**SIGNED_IN, "member": 422, "non-member": 422},
        ),
        ("GET", "/api/admin/users"): (_admin_users, MEMBER),
        ("POST", "/api/admin/users"): (_admin_create, {**MEMBER, "member": 201}),
        ("PATCH", "/api/admin/users/{username}"): (_admin_change, MEMBER),
        ("GET", "/api/setup"): (_setup_needed, dict.fromkeys(CALLERS, 200)),
        ("POST", "/api/setup"): (_setup, dict.fromkeys(CALLERS, 404)),  # accounts exist
        ("DELETE", "/api/account/sessions"): (
            _end_my_other_sessions,
            {**SIGNED_IN, "member": 204, "non-member": 204},
        ),
    }
)


def _effect(w: World, route: tuple[str, str], kind: str, response, url: str | None) -> None:
    """What the call did to alice's data: only a member's call may change anything."""
    allowed = kind == "member"
    method, template = route
    if url is not None and method == "PUT":
        assert w.text(url) == ("overwritten" if allowed else NOTE)
    if url is not None and method == "DELETE":
        assert w.text(url) is None if allowed else w.text(url) == NOTE
    if url is not None and template.endswith("/apply"):
        assert w.text(url) == (NOTE + "- [ ] cell" if allowed else NOTE)
    if url is not None and template.endswith("/trash/restore"):
        assert (w.text(url) == NOTE) is allowed
    if url is not None and template.endswith("/move"):
        assert w.text(url) is None if allowed else w.text(url) == NOTE
        assert (w.text(url + ".moved") == NOTE) is allowed
    if method == "GET" and url is not None and allowed:
        assert response.text == NOTE
    if template == "/api/workspaces" and method == "GET" and kind == "non-member":
        assert "personal" not in [ws["id"] for ws in response.json()]
    if template == "/api/session" and method == "GET" and response.status_code == 200:
        assert response.json()["username"] == ("alice" if allowed else "bob")
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"detail"} and NOTE.strip() not in body["detail"]
        assert "Secret plans" not in response.text
    if template.startswith("/api/assistant") and not allowed:
        assert "Secret plans" not in response.text
    # The conversation's delivery row stays alice's whatever anyone else sent.
    r = row(w.app, w.cid)
    assert r is not None and r["user_id"] == w.app.state.test_user_ids["alice"]


def test_the_matrix_names_every_api_route(app):
    routes = {
        (method.upper(), path)
        for path, ops in app.openapi()["paths"].items()
        if path.startswith("/api/")
        for method in ops
    }
    assert routes == set(ROUTES)


@pytest.mark.parametrize("kind", CALLERS)
def test_every_route_for_every_caller(app, kind, subtests):
    w = World(app)
    for route, (call, expected) in ROUTES.items():
        with subtests.test(msg=f"{route[0]} {route[1]}", caller=kind):
            client = w.caller(kind)
            response, url = call(w, client, kind)
            assert response.status_code == expected[kind], (route, kind, response.text)
            _effect(w, route, kind, response, url)
    if kind == "non-member":
        # A non-member's first turn naming the workspace is refused too (not only 404 for
        # the other user's conversation id).
        fresh = turn(w.caller(kind), new_id(), "hi", ws="personal", key=w.key)
        assert fresh.status_code == 403


# --- every tool × delivery state ------------------------------------------------------------


def _state_valid(w: World) -> tuple[TestClient, str]:
    return w.alice, w.cid


def _state_expired(w: World) -> tuple[TestClient, str]:
    set_row(w.app, w.cid, expires_at=datetime.now(UTC) - timedelta(seconds=1))
    return w.alice, w.cid


def _state_no_key_session(w: World) -> tuple[TestClient, str]:
    set_row(w.app, w.cid, key_session_id=None)
    return w.alice, w.cid


def _state_other_users_conversation(w: World) -> tuple[TestClient, str]:
    return sign_in(TestClient(w.app), "bob"), w.cid


def _state_document_deleted(w: World) -> tuple[TestClient, str]:
    assert w.alice.delete("/api/workspaces/personal/documents/m/base.md").status_code == 204
    return w.alice, w.cid


STATES = {
    "valid-row": _state_valid,
    "expired-row": _state_expired,
    "no-key-session": _state_no_key_session,
    "other-users-conversation": _state_other_users_conversation,
    "document-deleted": _state_document_deleted,
}
EXPECTED_REASON = {
    "expired-row": "expired",
    "no-key-session": "no_key_session",
    "document-deleted": "missing_document",
}


@pytest.mark.parametrize("state", sorted(STATES))
def test_every_tool_in_every_delivery_state(app, state, subtests):
    w = World(app)
    client, cid = STATES[state](w)
    for name in TOOLS:
        with subtests.test(msg=name, state=state):
            args = {"path": "m/base.md"} if name == "read_document" else {}
            response = call_tool(client, cid, name, args)
            if state == "other-users-conversation":
                assert response.status_code == 404
                assert response.json() == {"detail": "There is no conversation with that id."}
                continue
            assert response.status_code == 200, response.text
            result = response.json()
            if state == "valid-row":
                assert result["ok"] is True
                if name == "list_documents":
                    assert [d["path"] for d in result["documents"]] == ["m/base.md"]
                else:
                    assert result["content"] == NOTE and result["stale"] is False
            elif state == "document-deleted" and name == "list_documents":
                assert result["ok"] is True and result["documents"] == []
            else:
                assert result["ok"] is False
                assert result["reason"] == EXPECTED_REASON[state]
                assert "content" not in result and "Secret plans" not in response.text
    # Nothing in any state renewed or widened the row.
    r = row(app, cid)
    assert r is not None and r["user_id"] == app.state.test_user_ids["alice"]


# --- cross-origin state-changing requests ----------------------------------------------------

FOREIGN = {
    "origin-evil": {"Origin": "https://evil.example"},
    "origin-null": {"Origin": "null"},
    "origin-other-port": {"Origin": "http://testserver:8081"},
    "referer-evil": {"Referer": "https://evil.example/attack.html"},
}


def _writes(w: World):
    """Every state-changing API operation, as a concrete request."""
    url = "/api/workspaces/personal/documents/m/base.md"
    return {
        ("POST", "/api/session"): (
            "POST",
            "/api/session",
            {"json": {"username": "alice", "password": PASSWORDS["alice"]}},
        ),
        ("DELETE", "/api/session"): ("DELETE", "/api/session", {}),
        ("PUT", "/api/workspaces/{ws}/documents/{path}"): ("PUT", url, {"content": "pwned"}),
        ("DELETE", "/api/workspaces/{ws}/documents/{path}"): ("DELETE", url, {}),
        ("POST", "/api/workspaces/{ws}/documents/{path}/move"): (
            "POST",
            f"{url}/move",
            {"json": {"to": "m/stolen.md"}},
        ),
        ("POST", "/api/workspaces/{ws}/documents/{path}/revisions/{n}/restore"): (
            "POST",
            f"{url}/revisions/1/restore",
            {},
        ),
        ("POST", "/api/workspaces/{ws}/trash/restore"): (
            "POST",
            "/api/workspaces/personal/trash/restore",
            {"json": {"path": "m/base.md", "to": "m/stolen.md"}},
        ),
        ("POST", "/api/workspaces/{ws}/folders/move"): (
            "POST",
            "/api/workspaces/personal/folders/move",
            {"json": {"from": "m", "to": "stolen"}},
        ),
        ("POST", "/api/workspaces/{ws}/attachments"): (
            "POST",
            ATTACHMENTS,
            {"files": {"file": ("forged.png", PNG, "image/png")}},
        ),
        ("DELETE", "/api/workspaces/{ws}/attachments/{path}"): (
            "DELETE",
            _attachment(w),
            {},
        ),
        ("POST", "/api/workspaces/{ws}/import"): (
            "POST",
            "/api/workspaces/personal/import",
            {"files": {"file": ("forged.zip", _zip_of("m/base.md", "pwned"), "application/zip")}},
        ),
        ("POST", "/api/workspaces/{ws}/key-sessions"): (
            "POST",
            "/api/workspaces/personal/key-sessions",
            {},
        ),
        ("POST", "/api/assistant/turns"): (
            "POST",
            "/api/assistant/turns",
            {
                "json": {
                    "conversationId": w.cid,
                    "workspaceId": "personal",
                    "message": "summarise this",
                }
            },
        ),
        ("POST", "/api/assistant/conversations/{conversation_id}/tools/{name}"): (
            "POST",
            f"/api/assistant/conversations/{w.cid}/tools/read_active_note",
            {"json": {}},
        ),
        **_later_writes(w),
        **_people_writes(w),
    }


def _people_writes(w: World):
    """The state-changing routes of workspaces, members and invitations (SPEC §17)."""
    made = w.alice.post("/api/workspaces/personal/invitations", json={}).json()
    secret = made["url"].split("#invite=")[1]
    members = "/api/workspaces/personal/members/alice"
    return {
        ("POST", "/api/workspaces"): ("POST", "/api/workspaces", {"json": {"name": "Forged"}}),
        ("PATCH", "/api/workspaces/{ws}"): (
            "PATCH",
            "/api/workspaces/personal",
            {"json": {"name": "Forged"}},
        ),
        ("DELETE", "/api/workspaces/{ws}"): (
            "DELETE",
            "/api/workspaces/personal",
            {"json": {"confirm": "Personal"}},
        ),
        ("PATCH", "/api/workspaces/{ws}/members/{username}"): (
            "PATCH",
            members,
            {"json": {"role": "reader"}},
        ),
        ("DELETE", "/api/workspaces/{ws}/members/{username}"): ("DELETE", members, {}),
        ("POST", "/api/workspaces/{ws}/invitations"): (
            "POST",
            "/api/workspaces/personal/invitations",
            {"json": {}},
        ),
        ("DELETE", "/api/workspaces/{ws}/invitations/{invitation_id}"): (
            "DELETE",
            f"/api/workspaces/personal/invitations/{made['id']}",
            {},
        ),
        ("POST", "/api/invitations/{secret}/accept"): (
            "POST",
            f"/api/invitations/{secret}/accept",
            {},
        ),
    }


def _account_writes():
    """The state-changing routes of accounts, administrators and first run (SPEC §17)."""
    user = {"username": "forged", "password": "long-enough-password"}
    return {
        ("PUT", "/api/account/password"): (
            "PUT",
            "/api/account/password",
            {"json": {"current": PASSWORDS["alice"], "new": "forged-password"}},
        ),
        ("DELETE", "/api/account/sessions"): ("DELETE", "/api/account/sessions", {}),
        ("PUT", "/api/account/preferences"): (
            "PUT",
            "/api/account/preferences",
            {"json": {"theme": "dark", "fontSize": 16, "sidebarCollapsed": True}},
        ),
        ("DELETE", "/api/account/sessions/{session_id}"): (
            "DELETE",
            "/api/account/sessions/0123456789abcdef",
            {},
        ),
        ("POST", "/api/admin/users"): ("POST", "/api/admin/users", {"json": {**user}}),
        ("PATCH", "/api/admin/users/{username}"): (
            "PATCH",
            "/api/admin/users/bob",
            {"json": {"disabled": True}},
        ),
        ("POST", "/api/setup"): ("POST", "/api/setup", {"json": {**user, "code": "x"}}),
    }


def _later_writes(w: World):
    """The state-changing routes of proposals, the inline command and outside agents."""
    made = w.alice.post("/api/tokens", json={"name": "kept", "expiresInDays": 1}).json()
    proposal, _ = _proposal(w)
    agents, _ = _agent_proposal(w)
    conv = "/api/assistant/conversations/{conversation_id}/proposals/{proposal_id}"
    inline = {
        "workspaceId": "personal",
        "path": "m/base.md",
        "instruction": "uppercase",
        "selection": {"from": 0, "to": 5, "text": "hello"},
        "before": "",
        "after": "",
    }
    return {
        ("POST", f"{conv}/apply"): ("POST", f"{proposal}/apply", {}),
        ("POST", f"{conv}/applied-in-editor"): ("POST", f"{proposal}/applied-in-editor", {}),
        ("POST", f"{conv}/discard"): ("POST", f"{proposal}/discard", {}),
        ("POST", "/api/proposals/{proposal_id}/apply"): ("POST", f"{agents}/apply", {}),
        ("POST", "/api/proposals/{proposal_id}/applied-in-editor"): (
            "POST",
            f"{agents}/applied-in-editor",
            {},
        ),
        ("POST", "/api/proposals/{proposal_id}/discard"): ("POST", f"{agents}/discard", {}),
        ("POST", "/api/assistant/inline"): ("POST", "/api/assistant/inline", {"json": inline}),
        ("DELETE", "/api/assistant/conversations/{conversation_id}"): (
            "DELETE",
            f"/api/assistant/conversations/{w.cid}",
            {},
        ),
        ("POST", "/api/tokens"): (
            "POST",
            "/api/tokens",
            {"json": {"name": "forged", "expiresInDays": 1}},
        ),
        ("DELETE", "/api/tokens/{token_id}"): ("DELETE", f"/api/tokens/{made['id']}", {}),
        ("PUT", "/api/active-note/sharing"): (
            "PUT",
            "/api/active-note/sharing",
            {"json": {"enabled": True}},
        ),
        ("PUT", "/api/active-note"): (
            "PUT",
            "/api/active-note",
            {"json": {"windowId": "w-forged", "workspaceId": "personal", "pointer": None}},
        ),
        **_account_writes(),
    }


def test_cross_origin_writes_are_refused_on_every_state_changing_route(app, subtests):
    w = World(app)
    writes = _writes(w)
    state_changing = {
        (method.upper(), path)
        for path, ops in app.openapi()["paths"].items()
        for method in ops
        if method.upper() not in ("GET", "HEAD", "OPTIONS")
    }
    assert state_changing == set(writes)
    before = row(app, w.cid)
    messages = len(w.alice.get(f"/api/assistant/conversations/{w.cid}").json()["messages"])
    for route, (method, url, kwargs) in writes.items():
        for name, headers in FOREIGN.items():
            with subtests.test(msg=f"{route[0]} {route[1]}", headers=name):
                # Key session given too: a forged turn must not even renew the row.
                extra = {"X-Key-Session": w.key} if route[1] == "/api/assistant/turns" else {}
                response = w.alice.request(method, url, headers={**headers, **extra}, **kwargs)
                assert response.status_code == 403, response.text
                assert "origin" in response.json()["detail"].lower()
                assert "Secret plans" not in response.text
    # Nothing happened anywhere: still signed in, note untouched, row and messages unchanged.
    assert w.alice.get("/api/session").status_code == 200
    assert w.text("/api/workspaces/personal/documents/m/base.md") == NOTE
    assert w.text("/api/workspaces/personal/documents/m/stolen.md") is None
    assert row(app, w.cid) == before
    assert [t["name"] for t in w.alice.get("/api/tokens").json()] == ["kept"]
    assert w.alice.get("/api/active-note/sharing").json() == {"enabled": False}
    assert [ws["id"] for ws in w.alice.get("/api/workspaces").json()] == ["personal", "team"]
    assert w.alice.get("/api/workspaces/personal/members").json() == {
        "members": [{"username": "alice", "role": "owner"}]
    }
    invitations = w.alice.get("/api/workspaces/personal/invitations").json()["invitations"]
    assert [i["uses"] for i in invitations] == [0]
    after = len(w.alice.get(f"/api/assistant/conversations/{w.cid}").json()["messages"])
    assert after == messages
    # And the same requests from the page's own origin do go through (the guard is not
    # simply refusing everything).
    same = w.alice.put(
        "/api/workspaces/personal/documents/m/base.md",
        content="mine",
        headers={"Origin": "http://testserver"},
    )
    assert same.status_code == 200


# --- the session cookie ----------------------------------------------------------------------

PROXY = ("127.0.0.1", 50000)  # the one peer the app below trusts (ANA_TRUSTED_PROXIES)
STRANGER = ("203.0.113.5", 50000)
TRANSPORTS = {  # base URL, headers, the direct peer, whether the cookie must be Secure
    "http": ("http://testserver", {}, STRANGER, False),
    "https": ("https://testserver", {}, STRANGER, True),
    "tls-proxy": ("http://testserver", {"X-Forwarded-Proto": "https"}, PROXY, True),
    "forged-proto": ("http://testserver", {"X-Forwarded-Proto": "https"}, STRANGER, False),
}


def _set_cookie(response) -> str:
    values = [v for k, v in response.headers.multi_items() if k.lower() == "set-cookie"]
    assert len(values) == 1, values
    return values[0]


def test_session_cookie_flags_on_sign_in_and_sign_out(app_factory, subtests):
    app = app_factory(trusted_proxies=PROXY[0])
    seed_world(app)
    for name, (base, headers, peer, secure) in TRANSPORTS.items():
        client = TestClient(app, base_url=base, client=peer)
        signed_in = client.post(
            "/api/session",
            headers=headers,
            json={"username": "alice", "password": PASSWORDS["alice"]},
        )
        # Sent by hand: a Secure cookie is (rightly) not sent back over the proxy's plain http.
        token = signed_in.cookies[SESSION_COOKIE]
        signed_out = client.delete(
            "/api/session", headers={**headers, "Cookie": f"{SESSION_COOKIE}={token}"}
        )
        for step, response in (("sign-in", signed_in), ("sign-out", signed_out)):
            with subtests.test(msg=step, transport=name):
                assert response.status_code in (200, 204)
                attrs = [a.strip().lower() for a in _set_cookie(response).split(";")]
                assert "httponly" in attrs
                assert "samesite=lax" in attrs
                assert ("secure" in attrs) is secure
                assert "path=/" in attrs
