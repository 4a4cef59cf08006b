"""The authorisation matrix of people and workspaces (SPEC §17): every endpoint × {owner,
editor, reader, non-member, signed out, disabled, bearer token}, on both databases.

Each cell gets a workspace of its own (alice owns it, bob edits, carol reads, frank edits and
is the one acted on; dave is in none of them; erin was an editor and is now disabled), so a
cell that deletes or removes changes nothing another cell sees. A bearer token is the user's
own agent's credential: it opens /mcp only, so every REST route answers it as signed out.
"""

from __future__ import annotations

import io
import itertools
import zipfile

import pytest
from conftest import open_db, sign_in
from fastapi.testclient import TestClient
from sqlalchemy import update

from backend.models import User
from backend.services import users, workspaces

PASSWORD = "a-long-enough-password"
CALLERS = ("owner", "editor", "reader", "non-member", "signed-out", "disabled", "bearer")
_n = itertools.count(1)


class World:
    def __init__(self, app) -> None:
        self.app = app
        with open_db(app) as db:
            for name in ("carol", "dave", "erin", "frank"):
                users.create_user(
                    db, username=name, password=PASSWORD, passwords=app.state.passwords
                )
        self.clients = {
            "owner": sign_in(TestClient(app), "alice"),
            "editor": sign_in(TestClient(app), "bob"),
            "reader": self._signed_in("carol"),
            "non-member": self._signed_in("dave"),
            "signed-out": TestClient(app),
            "disabled": self._signed_in("erin"),
        }
        r = self.clients["owner"].post(
            "/api/tokens", json={"name": "agent", "expiresInDays": 7, "scope": "write"}
        )
        assert r.status_code == 201, r.text
        self.clients["bearer"] = TestClient(
            app, headers={"Authorization": f"Bearer {r.json()['token']}"}
        )
        with open_db(app) as db:
            db.execute(update(User).where(User.username == "erin").values(disabled=True))
            db.commit()

    def _signed_in(self, username: str) -> TestClient:
        client = TestClient(self.app)
        r = client.post("/api/session", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200, r.text
        return client

    def workspace(self) -> tuple[str, str]:
        """A new workspace for one cell: (id, name)."""
        ws = f"m{next(_n)}"
        ids = {}
        with open_db(self.app) as db:
            for name in ("alice", "bob", "carol", "erin", "frank"):
                found = users.get_by_username(db, username=name)
                assert found is not None
                ids[name] = found.id
            db.rollback()
            workspaces.create_workspace(
                db,
                workspace_id=ws,
                name=f"Matrix {ws}",
                member_ids=[ids[n] for n in ("alice", "bob", "carol", "erin", "frank")],
                roles={ids["carol"]: workspaces.READER},
            )
        return ws, f"Matrix {ws}"

    def invitation(self, ws: str) -> tuple[str, str]:
        """An invitation of `ws` made by its owner: (id, secret)."""
        r = self.clients["owner"].post(f"/api/workspaces/{ws}/invitations", json={"role": "reader"})
        assert r.status_code == 201, r.text
        return r.json()["id"], r.json()["url"].rsplit("#invite=", 1)[1]


def _calls(world: World, ws: str, name: str):
    """Each endpoint: (label, how to call it with a client)."""
    inv_id, secret = world.invitation(ws)
    return {
        "list workspaces": lambda c: c.get("/api/workspaces"),
        "create workspace": lambda c: c.post("/api/workspaces", json={"name": "New one"}),
        "rename workspace": lambda c: c.patch(f"/api/workspaces/{ws}", json={"name": "Renamed"}),
        "delete workspace": lambda c: c.request(
            "DELETE", f"/api/workspaces/{ws}", json={"confirm": name}
        ),
        "list members": lambda c: c.get(f"/api/workspaces/{ws}/members"),
        "change a role": lambda c: c.patch(
            f"/api/workspaces/{ws}/members/frank", json={"role": "reader"}
        ),
        "remove a member": lambda c: c.delete(f"/api/workspaces/{ws}/members/frank"),
        "create invitation": lambda c: c.post(f"/api/workspaces/{ws}/invitations", json={}),
        "list invitations": lambda c: c.get(f"/api/workspaces/{ws}/invitations"),
        "revoke invitation": lambda c: c.delete(f"/api/workspaces/{ws}/invitations/{inv_id}"),
        "read an invitation link": lambda c: c.get(f"/api/invitations/{secret}"),
        "accept an invitation": lambda c: c.post(f"/api/invitations/{secret}/accept"),
        "change my password": lambda c: c.put(
            "/api/account/password", json={"current": "wrong-password", "new": PASSWORD + "!"}
        ),
        "list my sign-ins": lambda c: c.get("/api/account/sessions"),
        "end my other sign-ins": lambda c: c.delete("/api/account/sessions"),
        "list users": lambda c: c.get("/api/admin/users"),
        "create a user": lambda c: c.post(
            "/api/admin/users", json={"username": f"u{next(_n)}", "password": PASSWORD}
        ),
        "disable a user": lambda c: c.patch("/api/admin/users/frank", json={"disabled": True}),
        "first-run setup": lambda c: c.post(
            "/api/setup", json={"username": "zed", "password": PASSWORD, "code": "AAAA-AAAA-AAAA"}
        ),
        "export the workspace": lambda c: c.get(f"/api/workspaces/{ws}/export"),
        "import a zip": lambda c: c.post(
            f"/api/workspaces/{ws}/import", files={"file": ("v.zip", _ZIP, "application/zip")}
        ),
    }


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("imported.md", b"# imported\n")
    return buf.getvalue()


_ZIP = _zip()


U, F, NF = 401, 403, 404
# Expected status per caller, in CALLERS order. "change my password" sends a wrong current
# password on purpose (403 for anyone signed in: the password is checked, nothing changes).
EXPECTED = {
    "list workspaces": (200, 200, 200, 200, U, U, U),
    "create workspace": (201, 201, 201, 201, U, U, U),
    "rename workspace": (200, F, F, F, U, U, U),
    "delete workspace": (204, F, F, F, U, U, U),
    "list members": (200, 200, 200, F, U, U, U),
    "change a role": (200, F, F, F, U, U, U),
    "remove a member": (204, F, F, F, U, U, U),
    "create invitation": (201, F, F, F, U, U, U),
    "list invitations": (200, F, F, F, U, U, U),
    "revoke invitation": (204, F, F, F, U, U, U),
    "read an invitation link": (200, 200, 200, 200, 200, 200, 200),
    "accept an invitation": (200, 200, 200, 200, U, U, U),
    "change my password": (F, F, F, F, U, U, U),
    "list my sign-ins": (200, 200, 200, 200, U, U, U),
    "end my other sign-ins": (204, 204, 204, 204, U, U, U),
    "list users": (200, F, F, F, U, U, U),
    "create a user": (201, F, F, F, U, U, U),
    "disable a user": (200, F, F, F, U, U, U),
    "first-run setup": (NF, NF, NF, NF, NF, NF, NF),
    "export the workspace": (200, 200, 200, F, U, U, U),  # SPEC §18: readers export
    "import a zip": (200, 200, F, F, U, U, U),
}


@pytest.mark.parametrize("endpoint", list(EXPECTED))
def test_people_and_workspaces_authorisation(app, subtests, endpoint):
    world = World(app)
    for caller, expected in zip(CALLERS, EXPECTED[endpoint], strict=True):
        ws, name = world.workspace()
        call = _calls(world, ws, name)[endpoint]
        with subtests.test(caller=caller):
            response = call(world.clients[caller])
            assert response.status_code == expected, (caller, response.text)
            # A refused change left the workspace as it was.
            if expected in (U, F) and endpoint not in ("change my password",):
                owner = world.clients["owner"]
                members = owner.get(f"/api/workspaces/{ws}/members").json()["members"]
                assert {m["username"]: m["role"] for m in members}["frank"] == "editor"
                listed = {w["id"]: w["name"] for w in owner.get("/api/workspaces").json()}
                assert listed[ws] == name
                assert owner.get(f"/api/workspaces/{ws}/documents").json() == []
