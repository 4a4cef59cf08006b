"""SPEC §17: a workspace's members, their roles and their removal, on both databases."""

from __future__ import annotations

import pytest
from conftest import open_db, seed_world, sign_in
from fastapi.testclient import TestClient
from live_helpers import END, Live, Stream
from people_helpers import at_once
from sqlalchemy import func, select

from backend.models import KeySession, Membership, User
from backend.services import users, workspaces

LAST_OWNER = "A workspace needs at least one owner"


def members(client: TestClient, ws: str = "team") -> list[dict]:
    response = client.get(f"/api/workspaces/{ws}/members")
    assert response.status_code == 200, response.text
    return response.json()["members"]


def add_user(app, name: str, ws: str | None = None, role: str = "editor") -> TestClient:
    """A new user `name` (password "{name}-password"), a member of `ws` with `role`."""
    with open_db(app) as db:
        user = users.create_user(
            db, username=name, password=f"{name}-password", passwords=app.state.passwords
        )
        if ws is not None:
            workspaces.add_member(db, workspace_id=ws, user_id=user.id, role=role)
    return sign_in(TestClient(app), name, f"{name}-password")


def test_members_listed_by_username_for_any_member(app, alice_client, bob_client):
    carol = add_user(app, "carol", "team", "reader")
    expected = [
        {"username": "alice", "role": "owner"},
        {"username": "bob", "role": "editor"},
        {"username": "carol", "role": "reader"},
    ]
    for client in (alice_client, bob_client, carol):
        assert members(client) == expected
    assert alice_client.get("/api/workspaces/bob-notes/members").status_code == 403
    assert alice_client.get("/api/workspaces/nowhere/members").status_code == 403
    assert TestClient(app).get("/api/workspaces/team/members").status_code == 401


def test_owners_change_roles(app, alice_client, bob_client):
    response = alice_client.patch("/api/workspaces/team/members/bob", json={"role": "reader"})
    assert response.status_code == 200
    assert response.json() == {"username": "bob", "role": "reader"}
    assert {"id": "team", "name": "Team", "role": "reader"} in bob_client.get(
        "/api/workspaces"
    ).json()
    # A reader now: its writes are refused.
    assert bob_client.put("/api/workspaces/team/documents/a.md", content=b"x").status_code == 403
    assert (
        alice_client.patch("/api/workspaces/team/members/bob", json={"role": "owner"}).status_code
        == 200
    )
    # Bob, an owner now, may manage; two owners, so alice may step down.
    response = bob_client.patch("/api/workspaces/team/members/alice", json={"role": "editor"})
    assert response.status_code == 200
    assert members(bob_client) == [
        {"username": "alice", "role": "editor"},
        {"username": "bob", "role": "owner"},
    ]


def test_only_owners_change_roles(app, alice_client, bob_client):
    carol = add_user(app, "carol", "team", "reader")
    for client, who in ((bob_client, "alice"), (bob_client, "carol"), (carol, "bob")):
        response = client.patch(f"/api/workspaces/team/members/{who}", json={"role": "owner"})
        assert response.status_code == 403, response.text
        assert isinstance(response.json()["detail"], str)
    assert (
        bob_client.patch("/api/workspaces/team/members/bob", json={"role": "owner"}).status_code
        == 403
    )  # not even oneself
    assert (
        alice_client.patch(
            "/api/workspaces/bob-notes/members/bob", json={"role": "reader"}
        ).status_code
        == 403
    )
    assert [m["role"] for m in members(alice_client)] == ["owner", "editor", "reader"]


@pytest.mark.parametrize("body", [{"role": "admin"}, {"role": ""}, {"role": None}, {}, []])
def test_an_unknown_role_is_422(alice_client, body):
    response = alice_client.patch("/api/workspaces/team/members/bob", json=body)
    assert response.status_code == 422
    assert isinstance(response.json()["detail"], str)


def test_unknown_username_or_non_member_is_404(app, alice_client):
    add_user(app, "dave")  # exists, no member of team
    for who in ("nobody", "dave", "a%00b", "x" * 300, "Bob"):
        response = alice_client.patch(
            f"/api/workspaces/team/members/{who}", json={"role": "reader"}
        )
        assert response.status_code == 404, (who, response.text)
        response = alice_client.delete(f"/api/workspaces/team/members/{who}")
        assert response.status_code == 404, (who, response.text)


def test_the_last_owner_cannot_be_demoted_or_removed(alice_client, bob_client):
    for role in ("editor", "reader"):
        response = alice_client.patch("/api/workspaces/team/members/alice", json={"role": role})
        assert response.status_code == 409
        assert response.json()["detail"].startswith(LAST_OWNER)
    response = alice_client.delete("/api/workspaces/team/members/alice")
    assert response.status_code == 409
    assert response.json()["detail"].startswith(LAST_OWNER)
    # Making an owner of oneself again changes nothing and is fine.
    response = alice_client.patch("/api/workspaces/team/members/alice", json={"role": "owner"})
    assert response.status_code == 200
    assert bob_client.delete("/api/workspaces/bob-notes/members/bob").status_code == 409
    assert members(alice_client)[0] == {"username": "alice", "role": "owner"}


def test_owners_remove_members_and_anyone_may_leave(app, alice_client, bob_client):
    carol = add_user(app, "carol", "team", "reader")
    erin = add_user(app, "erin", "team", "editor")
    # A reader or an editor may not remove someone else.
    assert carol.delete("/api/workspaces/team/members/erin").status_code == 403
    assert erin.delete("/api/workspaces/team/members/carol").status_code == 403
    # But anyone may leave.
    assert carol.delete("/api/workspaces/team/members/carol").status_code == 204
    assert carol.get("/api/workspaces/team/documents").status_code == 403
    assert "team" not in {w["id"] for w in carol.get("/api/workspaces").json()}
    # An owner removes others.
    assert alice_client.delete("/api/workspaces/team/members/erin").status_code == 204
    assert erin.get("/api/workspaces/team/members").status_code == 403
    assert [m["username"] for m in members(alice_client)] == ["alice", "bob"]
    # An owner leaves when another owner stays.
    alice_client.patch("/api/workspaces/team/members/bob", json={"role": "owner"})
    assert alice_client.delete("/api/workspaces/team/members/alice").status_code == 204
    assert members(bob_client) == [{"username": "bob", "role": "owner"}]


def test_a_change_ends_the_members_key_sessions_of_that_workspace(app, alice_client, bob_client):
    for ws in ("team", "team", "bob-notes"):
        assert bob_client.post(f"/api/workspaces/{ws}/key-sessions").status_code == 201
    assert alice_client.post("/api/workspaces/team/key-sessions").status_code == 201

    def count(user: str, ws: str) -> int:
        with open_db(app) as db:
            user_id = db.scalar(select(User.id).where(User.username == user))
            return db.scalar(
                select(func.count())
                .select_from(KeySession)
                .where(KeySession.user_id == user_id, KeySession.workspace_id == ws)
            )

    assert (
        alice_client.patch("/api/workspaces/team/members/bob", json={"role": "reader"}).status_code
        == 200
    )
    assert (count("bob", "team"), count("bob", "bob-notes"), count("alice", "team")) == (0, 1, 1)
    assert bob_client.post("/api/workspaces/team/key-sessions").status_code == 201
    # The role bob already holds: nothing changes, nothing of his ends.
    response = alice_client.patch("/api/workspaces/team/members/bob", json={"role": "reader"})
    assert response.status_code == 200
    assert count("bob", "team") == 1
    assert alice_client.delete("/api/workspaces/team/members/bob").status_code == 204
    assert (count("bob", "team"), count("bob", "bob-notes"), count("alice", "team")) == (0, 1, 1)
    assert bob_client.post("/api/workspaces/team/key-sessions").status_code == 403


def test_two_owners_stepping_down_at_once_leave_one_owner(app, alice_client, bob_client):
    """Race-safe: each demotes itself while the other does; one of the two must get 409."""
    assert (
        alice_client.patch("/api/workspaces/team/members/bob", json={"role": "owner"}).status_code
        == 200
    )
    for _round in range(3):
        alice_status, bob_status = (
            r.status_code
            for r in at_once(
                lambda: alice_client.patch(
                    "/api/workspaces/team/members/alice", json={"role": "editor"}
                ),
                lambda: bob_client.patch(
                    "/api/workspaces/team/members/bob", json={"role": "editor"}
                ),
            )
        )
        statuses = {"alice": alice_status, "bob": bob_status}
        assert sorted(statuses.values()) == [200, 409], statuses
        with open_db(app) as db:
            owners = db.scalars(
                select(Membership.user_id).where(
                    Membership.workspace_id == "team", Membership.role == "owner"
                )
            ).all()
        assert len(owners) == 1
        # The remaining owner makes the other an owner again for the next round.
        owner = alice_client if statuses["alice"] == 409 else bob_client
        other = "bob" if statuses["alice"] == 409 else "alice"
        assert (
            owner.patch(f"/api/workspaces/team/members/{other}", json={"role": "owner"}).status_code
            == 200
        )


def test_member_changes_are_audited(app, alice_client, caplog):
    import logging

    add_user(app, "carol", "team", "reader")
    with caplog.at_level(logging.INFO, logger="ambient.audit"):
        logger = logging.getLogger("ambient")
        logger.propagate = True  # the app's JSON handler stays; caplog sees the records too
        try:
            alice_client.patch("/api/workspaces/team/members/bob", json={"role": "reader"})
            alice_client.delete("/api/workspaces/team/members/carol")
            alice_client.delete("/api/workspaces/team/members/alice")  # 409: no line
        finally:
            logger.propagate = False
    alice = app.state.test_user_ids["alice"]
    lines = [r.fields for r in caplog.records if r.name == "ambient.audit"]
    assert lines == [
        {
            "action": "member.role",
            "actor": alice,
            "workspace": "team",
            "target": "bob",
            "role": "reader",
        },
        {"action": "member.remove", "actor": alice, "workspace": "team", "target": "carol"},
    ]


@pytest.fixture
def live(app_factory):
    app = app_factory(events_keepalive_seconds=0.5)
    seed_world(app)
    server = Live(app)
    yield server
    server.stop()


def open_stream(live, client, ws: str = "team") -> Stream:
    s = Stream(live.url, ws, client.cookies)
    assert s.status == 200
    first = s.next(timeout=10)  # the opening comment: the stream is subscribed
    assert first is not END and first.comment == "connected"
    return s


@pytest.mark.parametrize("change", ["remove", "demote"])
def test_a_removed_or_demoted_member_loses_their_stream_at_once(live, change):
    alice, bob = live.client("alice"), live.client("bob")
    team, own = open_stream(live, bob), open_stream(live, bob, "bob-notes")
    watching = open_stream(live, alice)
    try:
        if change == "remove":
            response = alice.delete("/api/workspaces/team/members/bob")
            assert response.status_code == 204
        else:
            response = alice.patch("/api/workspaces/team/members/bob", json={"role": "reader"})
            assert response.status_code == 200
        team.wait_end(timeout=10)
        # Bob's other workspace and alice's stream of team carry on.
        bob.put("/api/workspaces/bob-notes/documents/b.md", content=b"b")
        assert own.next_event().json()["path"] == "b.md"
        alice.put("/api/workspaces/team/documents/a.md", content=b"a")
        assert watching.next_event().json()["path"] == "a.md"
        if change == "demote":  # a reader still reads: a new stream opens under the new role
            open_stream(live, bob).close()
        else:
            refused = Stream(live.url, "team", bob.cookies)
            assert refused.status == 403
            refused.close()
    finally:
        for s in (team, own, watching):
            s.close()
