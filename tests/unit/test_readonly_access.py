"""Roles that change while the page is open (SPEC §17): the page's role in `ctx`, and what a
fresh `GET /api/workspaces` means for the workspace on screen (web/app/live/access_model)."""

from __future__ import annotations

from app.context import App, can_edit, role_in
from app.live.access_model import REMOVED, ROLE, SAME, decide, unsaved_words

from ambient.store import AmbientStore

TEAM = {"id": "team", "name": "Team", "role": "editor"}
PERSONAL = {"id": "personal", "name": "Personal", "role": "owner"}


def reader(entry: dict) -> dict:
    return entry | {"role": "reader"}


def test_role_in_a_listing() -> None:
    listing = [PERSONAL, reader(TEAM)]
    assert role_in(listing, "team") == "reader" and role_in(listing, "personal") == "owner"
    assert role_in(listing, "bob-notes") is None and role_in(listing, None) is None
    assert role_in([{"id": "old"}], "old") == "editor"  # a listing without roles: as before
    assert can_edit("owner") and can_edit("editor")
    assert not can_edit("reader") and not can_edit(None)


def test_nothing_changed() -> None:
    assert decide("team", [PERSONAL, TEAM], [PERSONAL, TEAM]) == decide(
        "team", [TEAM], [TEAM, PERSONAL]
    )
    assert decide("team", [TEAM], [TEAM]).kind == SAME
    assert decide(None, [TEAM], []).kind == SAME  # no workspace on screen: nothing to leave


def test_demoted_and_promoted() -> None:
    down = decide("team", [PERSONAL, TEAM], [PERSONAL, reader(TEAM)])
    assert (down.kind, down.role) == (ROLE, "reader")
    up = decide("team", [reader(TEAM)], [TEAM | {"role": "owner"}])
    assert (up.kind, up.role) == (ROLE, "owner")


def test_removed_goes_to_another_workspace_and_says_why() -> None:
    gone = decide("team", [PERSONAL, TEAM], [PERSONAL])
    assert gone.kind == REMOVED and gone.next_ws == "personal"
    assert gone.words == "You were removed from Team."


def test_removed_from_the_only_workspace_leaves_none() -> None:
    gone = decide("team", [TEAM], [])
    assert gone.kind == REMOVED and gone.next_ws is None
    assert "Team" in gone.words


def test_the_unsaved_words_name_the_note_and_offer_a_copy() -> None:
    words = unsaved_words("plans/q3.md")
    assert "plans/q3.md" in words and "reader" in words and "copy" in words


def make_ctx() -> App:
    return App(api=None, store=AmbientStore(), window_role="main", params={})


def test_ctx_role_and_its_callback() -> None:
    ctx, heard = make_ctx(), []
    ctx.on_role_change(heard.append)
    assert ctx.role is None and not ctx.can_edit
    ctx.workspaces = [PERSONAL, TEAM]
    ctx.workspace_id = "team"
    ctx.workspace_changed()  # a switch is told by on_workspace_change, not as a role change
    assert ctx.role == "editor" and ctx.can_edit and heard == []
    ctx.set_workspaces([PERSONAL, reader(TEAM)])
    assert ctx.role == "reader" and not ctx.can_edit and heard == ["reader"]
    ctx.set_workspaces([PERSONAL, reader(TEAM)])  # the same again: nothing to tell
    assert heard == ["reader"]
    ctx.set_workspaces([PERSONAL, TEAM])
    assert heard == ["reader", "editor"] and ctx.can_edit
    ctx.workspace_id = "personal"
    ctx.workspace_changed()
    ctx.set_workspaces([PERSONAL, reader(TEAM)])  # another workspace's role: not this one's
    assert heard == ["reader", "editor"]


def test_ctx_role_callback_unsubscribes() -> None:
    ctx, heard = make_ctx(), []
    stop = ctx.on_role_change(heard.append)
    ctx.workspaces, ctx.workspace_id = [TEAM], "team"
    ctx.workspace_changed()
    stop()
    ctx.set_workspaces([reader(TEAM)])
    assert heard == []
