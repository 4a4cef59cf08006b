"""People and workspaces in the page (SPEC §17): first-run setup, invitations, accounts,
members and roles, workspaces, the administrators' users dialog; every control of
web/app/people/ is used here, and each dialog fits a desktop, a small laptop and a phone."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from e2e.conftest import Server, new_context, sign_in, wait_ready
from e2e.late_answers import Held
from e2e.layout_helpers import reachable
from support.servers import ServeProcess, clean_env

PASSWORD = "correct horse battery"
SETUP_CODE = re.compile(r"setup code ([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)")


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:6]}"


def add_user(page: Page, server: Server, username: str, *, admin: bool = False) -> None:
    """An account made through the administrators' API with the (admin) page's cookie."""
    reply = page.request.post(
        f"{server.url}/api/admin/users",
        data={"username": username, "password": PASSWORD, "admin": admin},
    )
    assert reply.ok, reply.text()


def sign_in_as(page: Page, server: Server, username: str, password: str = PASSWORD) -> Page:
    page.goto(server.url + "/")
    wait_ready(page)
    page.get_by_test_id("login-username").fill(username)
    page.get_by_test_id("login-password").fill(password)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("workspace-select")).to_be_visible()
    return page


def workspace_ids(page: Page) -> list[str]:
    return page.locator("[data-testid=workspace-select] option").evaluate_all(
        "(options) => options.map((o) => o.value)"
    )


def create_workspace(page: Page, name: str) -> str:
    page.get_by_test_id("workspace-new").click()
    page.get_by_test_id("workspace-name-input").fill(name)
    page.get_by_test_id("workspace-create").click()
    expect(page.locator("[data-testid=workspace-select] option:checked")).to_have_text(name)
    return page.get_by_test_id("workspace-select").input_value()


def delete_workspace(page: Page, base: str, ws: str, name: str) -> None:
    """Through the API, so the shared server's workspaces are as other tests expect."""
    page.request.fetch(f"{base}/api/workspaces/{ws}", method="DELETE", data={"confirm": name})


def member(page: Page, username: str):
    return page.locator(f"[data-testid=member-row][data-username='{username}']")


def create_invitation(page: Page, role: str = "editor", uses: str = "1") -> str:
    page.get_by_test_id("invite-role").select_option(role)
    page.get_by_test_id("invite-days").fill("2")
    page.get_by_test_id("invite-uses").fill(uses)
    link = page.get_by_test_id("invite-url")
    before = link.input_value() if link.count() else ""
    page.get_by_test_id("invite-create").click()
    expect(link).to_have_value(re.compile(r"#invite=."))
    if before:
        expect(link).not_to_have_value(before)  # a new link, each shown once
    return link.input_value()


@pytest.fixture
def first_run(tmp_path: Path) -> Iterator[ServeProcess]:
    """A server without --demo on an empty database: no user yet, a setup code in its log."""
    server = ServeProcess(
        "--data-dir",
        str(tmp_path / "data"),
        log_path=tmp_path / "server.log",
        env=clean_env(ANA_SECRET_KEY="e2e-" + uuid.uuid4().hex * 2),
    )
    yield server
    server.stop()


def test_first_run_setup_then_a_first_workspace_and_the_users_dialog(
    page: Page, first_run: ServeProcess
) -> None:
    page.goto(first_run.url + "/")
    wait_ready(page)
    expect(page.get_by_test_id("setup-username")).to_be_visible()
    page.get_by_test_id("setup-username").fill("root")
    page.get_by_test_id("setup-password").fill(PASSWORD)
    page.get_by_test_id("setup-code").fill("WRONG-CODE-0000")
    page.get_by_test_id("setup-submit").click()
    expect(page.get_by_test_id("setup-problem")).not_to_be_empty()
    match = SETUP_CODE.search(first_run.log())
    assert match, "the server logs its setup code"
    page.get_by_test_id("setup-code").fill(match.group(1))
    page.get_by_test_id("setup-submit").click()
    # Signed in as the first administrator, with no workspace yet: the empty state says so.
    expect(page.get_by_test_id("app-message")).to_contain_text("not a member of any workspace")
    create_workspace(page, "Home base")
    assert workspace_ids(page) == ["home-base"]
    # The users dialog: add an account, make it an administrator, disable and enable it.
    page.get_by_test_id("users-open").click()
    expect(page.get_by_test_id("user-list")).to_be_visible()
    expect(page.locator("[data-testid=user-row][data-username=root]")).to_be_visible()
    page.get_by_test_id("user-new-username").fill("dana")
    page.get_by_test_id("user-new-password").fill("short")
    page.get_by_test_id("user-create").click()
    expect(page.get_by_test_id("users-dialog-status")).to_contain_text("Could not add")
    page.get_by_test_id("user-new-password").fill(PASSWORD)
    page.get_by_test_id("user-new-admin").check()
    page.get_by_test_id("user-create").click()
    dana = page.locator("[data-testid=user-row][data-username=dana]")
    expect(dana).to_have_attribute("data-admin", "true")
    dana.get_by_test_id("user-admin").click()
    expect(dana).to_have_attribute("data-admin", "false")
    dana.get_by_test_id("user-disable").click()
    expect(dana).to_have_attribute("data-disabled", "true")
    dana.get_by_test_id("user-disable").click()
    expect(dana).to_have_attribute("data-disabled", "false")
    page.get_by_test_id("users-dialog-close").click()
    expect(page.get_by_test_id("users-dialog")).not_to_be_visible()
    # Deleting the only workspace leaves the empty state; a new one can be made from it.
    page.get_by_test_id("members-open").click()
    page.get_by_test_id("workspace-delete-confirm").fill("Home base")
    page.get_by_test_id("workspace-delete").click()
    expect(page.get_by_test_id("app-message")).to_contain_text("was deleted")
    assert workspace_ids(page) == []
    create_workspace(page, "Second home")
    assert workspace_ids(page) == ["second-home"]


def test_an_invitation_is_accepted_by_a_new_user_in_another_browser(
    browser: Browser, page: Page, server: Server
) -> None:
    sign_in(page, server)  # alice, owner of team
    page.get_by_test_id("workspace-select").select_option("team")
    page.get_by_test_id("members-open").click()
    expect(member(page, "alice")).to_have_attribute("data-role", "owner")
    link = create_invitation(page, "editor")
    page.get_by_test_id("invite-copy").click()
    expect(page.get_by_test_id("members-dialog-status")).to_contain_text(re.compile("[Cc]op"))
    expect(page.get_by_test_id("invite-list").get_by_test_id("invite-row")).not_to_have_count(0)
    expect(page.get_by_test_id("member-list").get_by_test_id("member-row")).not_to_have_count(0)
    newcomer = unique("new")
    other = new_context(browser)
    try:
        guest = other.new_page()
        guest.goto(link)
        wait_ready(guest)
        expect(guest.get_by_test_id("invite-workspace")).to_have_text("Team")
        guest.get_by_test_id("invite-username").fill(newcomer)
        guest.get_by_test_id("invite-password").fill("short")  # refused, in words, kept open
        guest.get_by_test_id("invite-accept").click()
        expect(guest.get_by_test_id("invite-problem")).not_to_be_empty()
        guest.get_by_test_id("invite-password").fill(PASSWORD)
        guest.get_by_test_id("invite-accept").click()
        expect(guest.get_by_test_id("workspace-select")).to_have_value("team")
        assert "#invite" not in guest.url
        # The link was for one use: opened again, it says so in one message.
        guest2 = other.new_page()
        guest2.goto(link)
        wait_ready(guest2)
        expect(guest2.get_by_test_id("app-message")).not_to_be_empty()
        expect(guest2.get_by_test_id("invite-accept")).to_have_count(0)
    finally:
        other.close()
    # Alice sees the newcomer, makes them a reader, then removes them.
    page.get_by_test_id("members-dialog-close").click()
    page.get_by_test_id("members-open").click()
    expect(member(page, newcomer)).to_have_attribute("data-role", "editor")
    member(page, newcomer).get_by_test_id("member-role").select_option("reader")
    expect(member(page, newcomer)).to_have_attribute("data-role", "reader")
    # The last owner cannot step down: the dialog says why and the role stays.
    member(page, "alice").get_by_test_id("member-role").select_option("editor")
    expect(page.get_by_test_id("members-dialog-status")).to_contain_text("Could not change")
    expect(member(page, "alice")).to_have_attribute("data-role", "owner")
    member(page, newcomer).get_by_test_id("member-remove").click()
    expect(member(page, newcomer)).to_have_count(0)
    # Revoked invitations leave the list, and their links no longer work.
    revoked = create_invitation(page, "reader")
    rows = page.get_by_test_id("invite-row")
    expect(rows.first).to_be_visible()
    while rows.count():
        row_id = rows.first.get_attribute("data-invite-id")
        rows.first.get_by_test_id("invite-revoke").click()
        expect(page.locator(f"[data-testid=invite-row][data-invite-id='{row_id}']")).to_have_count(
            0
        )
    secret = revoked.split("#invite=", 1)[1]
    assert page.request.get(f"{server.url}/api/invitations/{secret}").status == 404
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("members-dialog")).not_to_be_visible()


def test_someone_with_an_account_signs_in_from_the_link_then_joins_and_leaves(
    browser: Browser, page: Page, server: Server
) -> None:
    sign_in(page, server)
    name = unique("Club ")
    club = create_workspace(page, name)
    page.get_by_test_id("members-open").click()
    link = create_invitation(page, "reader")
    other = new_context(browser)
    try:
        bob = other.new_page()
        bob.goto(link)
        wait_ready(bob)
        expect(bob.get_by_test_id("invite-workspace")).to_have_text(name)
        bob.get_by_test_id("invite-other").click()  # "I already have an account: sign in"
        bob.get_by_test_id("login-username").fill("bob")
        bob.get_by_test_id("login-password").fill("bob")
        bob.get_by_test_id("login-submit").click()
        expect(bob.get_by_test_id("invite-workspace")).to_have_text(name)
        expect(bob.get_by_test_id("invite-username")).to_have_count(0)
        bob.get_by_test_id("invite-accept").click()  # signed in: just join
        select = bob.get_by_test_id("workspace-select")
        expect(bob.locator("[data-testid=workspace-select] option:checked")).to_have_text(name)
        ws = select.input_value()
        # A reader sees the members but cannot change roles; they may leave.
        bob.get_by_test_id("members-open").click()
        expect(member(bob, "bob")).to_have_attribute("data-role", "reader")
        expect(member(bob, "alice").get_by_test_id("member-role")).to_be_disabled()
        expect(member(bob, "alice").get_by_test_id("member-remove")).to_have_count(0)
        expect(bob.get_by_test_id("invite-create")).not_to_be_visible()
        member(bob, "bob").get_by_test_id("member-remove").click()  # "Leave"
        expect(bob.get_by_test_id("app-message")).to_contain_text("You left")
        assert ws not in workspace_ids(bob)
        # A second link, opened signed in: "Not now" goes on to the workspaces.
        link2 = create_invitation(page, "editor")
        bob.goto(link2)
        wait_ready(bob)
        bob.get_by_test_id("invite-other").click()
        expect(bob.get_by_test_id("workspace-select")).to_be_visible()
        assert "#invite" not in bob.url and ws not in workspace_ids(bob)
    finally:
        other.close()
        delete_workspace(page, server.url, club, name)


def test_a_password_change_signs_the_other_browser_out(
    browser: Browser, page: Page, server: Server
) -> None:
    sign_in(page, server)
    username = unique("pw")
    add_user(page, server, username)
    page.get_by_test_id("sign-out").click()
    # Signed out once the form is back: going to "/" sooner aborts the sign-out request.
    expect(page.get_by_test_id("login-username")).to_be_visible()
    mine = sign_in_as(page, server, username)
    contexts = [new_context(browser), new_context(browser)]
    try:
        others = [sign_in_as(c.new_page(), server, username) for c in contexts]
        mine.get_by_test_id("account-open").click()
        sessions = mine.get_by_test_id("session-list").get_by_test_id("session-row")
        expect(sessions).to_have_count(3)
        expect(mine.locator("[data-testid=session-row][data-current=true]")).to_have_count(1)
        # End one other sign-in from the list: that browser is signed out.
        mine.locator("[data-testid=session-row][data-current=false]").first.get_by_test_id(
            "session-end"
        ).click()
        expect(sessions).to_have_count(2)
        # The current password wrong, then a new one too short: said in the dialog.
        mine.get_by_test_id("password-current").fill("not my password")
        mine.get_by_test_id("password-new").fill("another good password")
        mine.get_by_test_id("password-save").click()
        expect(mine.get_by_test_id("password-status")).to_contain_text("not right")
        mine.get_by_test_id("password-current").fill(PASSWORD)
        mine.get_by_test_id("password-new").fill(username)
        mine.get_by_test_id("password-save").click()
        expect(mine.get_by_test_id("password-status")).not_to_contain_text("not right")
        expect(mine.get_by_test_id("password-status")).not_to_be_empty()
        mine.get_by_test_id("password-current").fill(PASSWORD)
        mine.get_by_test_id("password-new").fill("another good password")
        mine.get_by_test_id("password-save").click()
        expect(mine.get_by_test_id("password-status")).to_contain_text("changed")
        expect(sessions).to_have_count(1)
        for other in others:
            other.reload()
            wait_ready(other)
            expect(other.get_by_test_id("login-username")).to_be_visible()
        # "Sign out everywhere else" after signing in again elsewhere with the new password.
        again = sign_in_as(contexts[0].new_page(), server, username, "another good password")
        mine.get_by_test_id("account-dialog-close").click()
        mine.get_by_test_id("account-open").click()
        expect(sessions).to_have_count(2)
        mine.get_by_test_id("sessions-end-others").click()
        expect(sessions).to_have_count(1)
        again.reload()
        wait_ready(again)
        expect(again.get_by_test_id("login-username")).to_be_visible()
    finally:
        for context in contexts:
            context.close()


def test_create_rename_and_delete_a_workspace(page: Page, server: Server) -> None:
    sign_in(page, server)
    page.get_by_test_id("workspace-new").click()  # opened and closed with its ✕: nothing made
    page.get_by_test_id("workspace-name-input").fill("never made")
    page.get_by_test_id("workspace-new-dialog-close").click()
    expect(page.get_by_test_id("workspace-new-dialog")).not_to_be_visible()
    assert "never-made" not in workspace_ids(page)
    name = unique("Project ")
    create_workspace(page, name)
    ws = page.get_by_test_id("workspace-select").input_value()
    page.get_by_test_id("members-open").click()
    expect(member(page, "alice")).to_have_attribute("data-role", "owner")
    page.get_by_test_id("workspace-rename-input").fill(name + " renamed")
    page.get_by_test_id("workspace-rename").click()
    expect(page.locator("[data-testid=workspace-select] option:checked")).to_have_text(
        name + " renamed"
    )
    page.get_by_test_id("workspace-delete-confirm").fill(name)  # the old name: refused
    page.get_by_test_id("workspace-delete").click()
    expect(page.get_by_test_id("members-dialog-status")).to_contain_text("Type the workspace")
    assert ws in workspace_ids(page)
    page.get_by_test_id("workspace-delete-confirm").fill(name + " renamed")
    page.get_by_test_id("workspace-delete").click()
    expect(page.get_by_test_id("app-message")).to_contain_text("was deleted")
    assert ws not in workspace_ids(page)
    expect(page.get_by_test_id("workspace-select")).not_to_have_value(ws)
    expect(page.get_by_test_id("workspace-select")).not_to_have_value("")


DIALOGS = (
    ("workspace-new", "workspace-new-dialog"),
    ("members-open", "members-dialog"),
    ("account-open", "account-dialog"),
    ("users-open", "users-dialog"),
)


@pytest.mark.parametrize("size", [(1440, 900), (1024, 768), (390, 844)])
def test_every_dialog_fits_and_closes_on_escape(page: Page, server: Server, size) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    sign_in(page, server)
    for button, dialog in DIALOGS:
        opener = page.get_by_test_id(button)
        opener.scroll_into_view_if_needed()
        assert reachable(opener), f"{button} is not on screen at {size}"
        opener.click()
        box = page.get_by_test_id(dialog)
        expect(box).to_be_visible()
        if button == "members-open":
            expect(box.get_by_test_id("member-row").first).to_be_visible()
        bounds = box.bounding_box()
        assert bounds and bounds["x"] >= 0 and bounds["y"] >= 0, (dialog, size, bounds)
        assert bounds["x"] + bounds["width"] <= size[0], (dialog, size, bounds)
        assert bounds["y"] + bounds["height"] <= size[1], (dialog, size, bounds)
        controls = box.locator("button:visible, input:visible, select:visible")
        for index in range(controls.count()):
            control = controls.nth(index)
            control.scroll_into_view_if_needed()
            assert reachable(control), (dialog, size, control.evaluate("e => e.outerHTML"))
        page.keyboard.press("Escape")
        expect(box).not_to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]


def test_an_invitations_list_read_before_an_invite_does_not_hide_it(
    page: Page, fresh_server: Server
) -> None:
    """The dialog reads the open invitations as it opens; an invitation made before that answer
    comes back reads them again, and the older answer must not be drawn over the newer one."""
    sign_in(page, fresh_server)  # alice, owner of team
    page.get_by_test_id("workspace-select").select_option("team")
    held = Held(page, lambda url: url.endswith("/api/workspaces/team/invitations"))
    page.get_by_test_id("members-open").click()
    held.wait()
    held.stop()
    create_invitation(page, "editor")
    rows = page.get_by_test_id("invite-list").get_by_test_id("invite-row")
    expect(rows).to_have_count(1)

    (stale,) = held.deliver_all()
    assert stale.json()["invitations"] == []  # read before the invitation was made
    expect(rows).to_have_count(1)


def test_a_members_list_read_for_the_last_workspace_is_not_drawn_in_this_one(
    page: Page, fresh_server: Server
) -> None:
    """The dialog opened, closed before its members came, the workspace switched, the dialog
    opened again: the first workspace's late answer must not be drawn under the second's name
    (its rows would send their role changes to the workspace now open)."""
    sign_in(page, fresh_server)  # alice, in her personal workspace
    held = Held(page, lambda url: url.endswith("/api/workspaces/personal/members"))
    page.get_by_test_id("members-open").click()
    held.wait()
    held.stop()
    page.get_by_test_id("members-dialog-close").click()
    page.get_by_test_id("workspace-select").select_option("team")
    page.get_by_test_id("members-open").click()
    expect(member(page, "bob")).to_have_attribute("data-role", "editor")

    (stale,) = held.deliver_all()
    assert [m["username"] for m in stale.json()["members"]] == ["alice"]  # personal's
    expect(member(page, "bob")).to_have_attribute("data-role", "editor")
    expect(page.get_by_test_id("member-list").get_by_test_id("member-row")).to_have_count(2)


def test_a_users_list_read_before_a_new_user_does_not_hide_it(
    page: Page, fresh_server: Server
) -> None:
    """The Users dialog reads the accounts as it opens; an account added before that answer
    comes back reads them again, and the older list must not be drawn over the newer one."""
    sign_in(page, fresh_server)  # alice, an administrator
    held = Held(page, lambda url: url.endswith("/api/admin/users"))
    page.get_by_test_id("users-open").click()
    held.wait()
    held.stop()
    page.get_by_test_id("user-new-username").fill("dana")
    page.get_by_test_id("user-new-password").fill(PASSWORD)
    page.get_by_test_id("user-create").click()
    dana = page.locator("[data-testid=user-row][data-username=dana]")
    expect(dana).to_be_visible()

    (stale,) = held.deliver_all()
    assert "dana" not in stale.text()  # read before the account was added
    expect(dana).to_be_visible()


def test_a_sign_ins_list_read_before_one_was_ended_does_not_bring_it_back(
    browser: Browser, page: Page, fresh_server: Server
) -> None:
    """The account dialog reads the sign-ins each time it opens, and shows the last opening's
    rows meanwhile; one ended from those rows reads them again, and the opening's older answer
    must not bring the ended sign-in back."""
    mine = sign_in(page, fresh_server)
    other = new_context(browser)
    try:
        sign_in(other.new_page(), fresh_server)
        sessions = mine.get_by_test_id("session-list").get_by_test_id("session-row")
        mine.get_by_test_id("account-open").click()
        expect(sessions).to_have_count(2)
        mine.get_by_test_id("account-dialog-close").click()

        held = Held(mine, lambda url: url.endswith("/api/account/sessions"))
        mine.get_by_test_id("account-open").click()
        held.wait()
        held.stop()
        mine.locator("[data-testid=session-row][data-current=false]").get_by_test_id(
            "session-end"
        ).click()
        expect(sessions).to_have_count(1)

        (stale,) = held.deliver_all()
        assert len(stale.json()["sessions"]) == 2  # read before the sign-in was ended
        expect(sessions).to_have_count(1)
    finally:
        other.close()
