"""The Members dialog of the current workspace: members and their roles, invitations, and
(for owners) renaming and deleting the workspace with a typed confirmation."""

from __future__ import annotations

from js import navigator, window

from app.api_model import describe, workspace_url
from app.dom import h
from app.latest_model import Latest
from app.people.dialog import Dialog, field, opener
from app.people.people_model import (
    INVITE_DAYS,
    INVITE_USES,
    ROLE_WORDS,
    ROLES,
    after_delete,
    confirm_matches,
    full_url,
    invitation_body,
    invitations_url,
    is_owner,
    member_controls,
    members_url,
    name_of,
    role_change_words,
    role_of,
    when,
)


def members_button(ctx, shell):
    panel = MembersDialog(ctx, shell)
    return opener(
        shell, panel.frame, "members-open", "Members", panel.open, "Members of this workspace"
    )


def _number(id_: str, bounds: tuple[int, int, int]):
    low, high, default = bounds
    return h(
        "input",
        {
            "id": id_,
            "data-testid": id_,
            "type": "number",
            "min": str(low),
            "max": str(high),
            "value": str(default),
            "inputmode": "numeric",
        },
    )


class MembersDialog:
    def __init__(self, ctx, shell) -> None:
        self.ctx, self.shell = ctx, shell
        self.frame = frame = Dialog(shell, key="members-dialog", title="Members")
        listeners = frame.listeners
        self.ws: str | None = None
        self._link = ""
        self._invitations_reads = Latest()  # moved by each read of the invitations
        self._members_reads = Latest()  # moved by each read of the members (and each opening)
        self.rows = h("ul", {"class": "member-list", "data-testid": "member-list"})
        # Owners only: the workspace's name and its deletion.
        self.rename_input = h(
            "input",
            {
                "id": "workspace-rename-input",
                "data-testid": "workspace-rename-input",
                "required": True,
                "maxlength": "100",
                "autocomplete": "off",
            },
        )
        rename_form = h(
            "form",
            {"class": "people-form", "aria-label": "Rename the workspace"},
            field("Name", self.rename_input),
            h("button", {"type": "submit", "data-testid": "workspace-rename"}, "Rename"),
        )
        self.confirm = h(
            "input",
            {
                "id": "workspace-delete-confirm",
                "data-testid": "workspace-delete-confirm",
                "autocomplete": "off",
                "aria-describedby": "workspace-delete-hint",
            },
        )
        self.delete_hint = h("p", {"id": "workspace-delete-hint", "class": "hint"})
        delete_form = h(
            "form",
            {"class": "people-form", "aria-label": "Delete the workspace"},
            h(
                "label",
                {"for": "workspace-delete-confirm"},
                "Type the workspace's name to delete it",
            ),
            self.confirm,
            self.delete_hint,
            h(
                "button",
                {"type": "submit", "class": "danger", "data-testid": "workspace-delete"},
                "Delete workspace",
            ),
        )
        self.settings = h(
            "section",
            {"class": "people-section", "aria-labelledby": "ws-settings-title"},
            h("h3", {"id": "ws-settings-title"}, "Workspace"),
            rename_form,
            delete_form,
        )
        # Owners only: invitations.
        self.invite_role = h(
            "select",
            {"id": "invite-role", "data-testid": "invite-role"},
            *[
                h(
                    "option",
                    {"value": r, "text": r, "selected": r == "editor", "title": ROLE_WORDS[r]},
                )
                for r in ROLES
            ],
        )
        self.invite_days = _number("invite-days", INVITE_DAYS)
        self.invite_uses = _number("invite-uses", INVITE_USES)
        invite_form = h(
            "form",
            {"class": "people-form invite-form", "aria-label": "Create an invitation"},
            field("Role", self.invite_role),
            field("Expires after (days, 1–7)", self.invite_days),
            field("Uses (1–100)", self.invite_uses),
            h("button", {"type": "submit", "data-testid": "invite-create"}, "Create link"),
        )
        self.created = h("div", {"class": "invite-created", "hidden": True})
        self.invites = h("ul", {"class": "invite-list", "data-testid": "invite-list"})
        self.invitations = h(
            "section",
            {"class": "people-section", "aria-labelledby": "invite-title"},
            h("h3", {"id": "invite-title"}, "Invitations"),
            invite_form,
            self.created,
            self.invites,
        )
        frame.body.append(
            h(
                "section",
                {"class": "people-section", "aria-labelledby": "members-list-title"},
                h("h3", {"id": "members-list-title"}, "People"),
                self.rows,
            ),
            self.invitations,
            self.settings,
        )
        listeners.on(self.rows, "change", self._on_role)
        listeners.on(self.rows, "click", self._on_remove)
        listeners.on(rename_form, "submit", self._on_rename, prevent=True)
        listeners.on(delete_form, "submit", self._on_delete, prevent=True)
        listeners.on(invite_form, "submit", self._on_invite, prevent=True)
        listeners.on(self.created, "click", self._on_copy)
        listeners.on(self.invites, "click", self._on_revoke)
        listeners.on(frame.dialog, "close", lambda event: self._hide_link())

    # -- state --------------------------------------------------------------------------

    @property
    def role(self) -> str | None:
        return role_of(self.ctx.workspaces, self.ws)

    @property
    def me(self) -> str:
        return (self.ctx.user or {}).get("username") or ""

    async def open(self) -> None:
        self.ws = self.ctx.workspace_id
        if not self.ws:
            self.shell.say("There is no workspace to show the members of.")
            return
        self.frame.show()
        self._hide_link()
        name = name_of(self.ctx.workspaces, self.ws)
        self.frame.heading.textContent = f"Members of “{name}”"
        self.rename_input.value = name
        self.confirm.value = ""
        self.delete_hint.textContent = (
            f"Type “{name}”. Its notes, history and conversations are deleted for everyone."
        )
        self.frame.close_button.focus()
        await self.load()

    async def load(self) -> None:
        owner = is_owner(self.role)
        self.settings.hidden = not owner
        self.invitations.hidden = not owner
        # Only the latest read is drawn: an older one may be another workspace's (the dialog
        # closed, the workspace switched and the dialog opened again before it answered),
        # whose rows would then send their role changes to this one.
        latest = self._members_reads.start()
        try:
            answer = (await self.ctx.api.ok("GET", members_url(self.ws))).json() or {}
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            if latest():
                self.frame.say(f"Could not list the members: {describe(exc)}")
            return
        if not latest():
            return
        self._draw_members(answer.get("members", []))
        if owner:
            await self._load_invitations()

    def _draw_members(self, members: list[dict]) -> None:
        items = []
        for member in members:
            name, role = member["username"], member.get("role", "")
            controls = member_controls(self.role, self.me, member)
            select_id = f"member-role-{name}"
            select = h(
                "select",
                {
                    "id": select_id,
                    "data-testid": "member-role",
                    "data-username": name,
                    "disabled": not controls["role_enabled"],
                },
                *[h("option", {"value": r, "text": r, "selected": r == role}) for r in ROLES],
            )
            remove = controls["remove"]
            items.append(
                h(
                    "li",
                    {
                        "class": "member-row",
                        "data-testid": "member-row",
                        "data-username": name,
                        "data-role": role,
                    },
                    h(
                        "label",
                        {"for": select_id, "class": "member-name"},
                        name + (" (you)" if name == self.me else ""),
                    ),
                    select,
                    h(
                        "button",
                        {
                            "type": "button",
                            "class": "small danger",
                            "data-testid": "member-remove",
                            "data-username": name,
                            "aria-label": "Leave this workspace"
                            if remove == "Leave"
                            else f"Remove {name}",
                        },
                        str(remove),
                    )
                    if remove
                    else None,
                )
            )
        self.rows.replaceChildren(*items)

    async def _on_role(self, event) -> None:
        select = event.target.closest("[data-testid=member-role]")
        if not select:
            return
        name, role = select.dataset.username, select.value
        row = select.closest("[data-testid=member-row]")
        select.disabled = True
        try:
            await self.ctx.api.ok("PATCH", members_url(self.ws, name), data={"role": role})
        except Exception as exc:  # noqa: BLE001 - said in the dialog; the select goes back
            select.value = row.dataset.role
            select.disabled = False
            self.frame.say(f"Could not change {name}'s role: {describe(exc)}")
            return
        self.frame.say(role_change_words(name, role))
        if name == self.me:  # one's own role changed: what the page allows changes too
            await self.shell.workspaces_changed(self.ws)
        await self.load()

    async def _on_remove(self, event) -> None:
        button = event.target.closest("[data-testid=member-remove]")
        if not button:
            return
        name = button.dataset.username
        button.disabled = True
        try:
            await self.ctx.api.ok("DELETE", members_url(self.ws, name))
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            button.disabled = False
            self.frame.say(f"Could not remove {name}: {describe(exc)}")
            return
        if name == self.me:
            self.frame.close()
            await self.shell.workspaces_changed(after_delete(self.ctx.workspaces, self.ws))
            self.shell.say("You left the workspace.")
            return
        self.frame.say(f"{name} is no longer a member.")
        await self.load()

    async def _on_rename(self, event) -> None:
        name = self.rename_input.value.strip()
        if not name:
            self.frame.say("Give the workspace a name.")
            return
        try:
            await self.ctx.api.ok("PATCH", workspace_url(self.ws), data={"name": name})
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.frame.say(f"Could not rename the workspace: {describe(exc)}")
            return
        await self.shell.workspaces_changed(self.ws)
        self.frame.heading.textContent = f"Members of “{name}”"
        self.delete_hint.textContent = (
            f"Type “{name}”. Its notes, history and conversations are deleted for everyone."
        )
        self.frame.say(f"The workspace is now called “{name}”.")

    async def _on_delete(self, event) -> None:
        name = name_of(self.ctx.workspaces, self.ws)
        typed = self.confirm.value
        if not confirm_matches(typed, name):
            self.frame.say(f"Type the workspace's name, “{name}”, to delete it.")
            self.confirm.focus()
            return
        try:
            await self.ctx.api.ok("DELETE", workspace_url(self.ws), data={"confirm": name})
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.frame.say(f"Could not delete the workspace: {describe(exc)}")
            return
        gone = self.ws
        self.frame.close()
        await self.shell.workspaces_changed(after_delete(self.ctx.workspaces, gone), gone=gone)
        self.shell.say(f"The workspace “{name}” was deleted.")

    # -- invitations --------------------------------------------------------------------

    async def _load_invitations(self) -> None:
        # Read as the dialog opens and again after an invite or a revoke: only the latest
        # read is drawn (one started before an invite would draw the list without it).
        latest = self._invitations_reads.start()
        try:
            answer = (await self.ctx.api.ok("GET", invitations_url(self.ws))).json()
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            if latest():
                self.frame.say(f"Could not list the invitations: {describe(exc)}")
            return
        if not latest():
            return
        entries = answer.get("invitations", []) if isinstance(answer, dict) else answer or []
        items = []
        for entry in entries:
            uses = entry.get("uses", 0)
            limit = entry.get("maxUses")
            expires = when(entry.get("expiresAt"))
            words = f"{entry.get('role', '')}, used {uses} of {limit}, expires {expires}"
            items.append(
                h(
                    "li",
                    {"data-testid": "invite-row", "data-invite-id": str(entry["id"])},
                    h("span", {"text": words}),
                    h(
                        "button",
                        {
                            "type": "button",
                            "class": "small danger",
                            "data-testid": "invite-revoke",
                            "data-invite-id": str(entry["id"]),
                            "aria-label": f"Revoke the {entry.get('role', '')} invitation",
                        },
                        "Revoke",
                    ),
                )
            )
        if not items:
            items.append(h("li", {"class": "hint"}, "No open invitations."))
        self.invites.replaceChildren(*items)

    async def _on_invite(self, event) -> None:
        body = invitation_body(
            self.invite_role.value, self.invite_days.value, self.invite_uses.value
        )
        try:
            created = (await self.ctx.api.ok("POST", invitations_url(self.ws), data=body)).json()
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.frame.say(f"Could not create the invitation: {describe(exc)}")
            return
        self._show_link(full_url(created["url"], str(window.location.origin)))
        await self._load_invitations()

    def _show_link(self, link: str) -> None:
        self._link = link
        value = h(
            "input",
            {
                "readonly": True,
                "id": "invite-url",
                "data-testid": "invite-url",
                "value": link,
                "aria-describedby": "invite-once",
            },
        )
        self.created.replaceChildren(
            h("label", {"for": "invite-url"}, "Invitation link"),
            value,
            h("button", {"type": "button", "data-testid": "invite-copy"}, "Copy"),
            h(
                "p",
                {"id": "invite-once", "class": "hint"},
                "Copy it now: it is shown only this once. Send it to the person you invite.",
            ),
        )
        self.created.hidden = False
        value.focus()
        value.select()

    def _hide_link(self) -> None:
        self._link = ""
        self.created.replaceChildren()
        self.created.hidden = True

    async def _on_copy(self, event) -> None:
        if not event.target.closest("[data-testid=invite-copy]") or not self._link:
            return
        try:
            await navigator.clipboard.writeText(self._link)
        except Exception:  # noqa: BLE001 - no clipboard access: the user copies by hand
            field_ = self.created.querySelector("input")
            field_.focus()
            field_.select()
            self.frame.say("Copying was not allowed here: the link is selected, press Ctrl+C.")
            return
        self.frame.say("Link copied to the clipboard.")

    async def _on_revoke(self, event) -> None:
        button = event.target.closest("[data-testid=invite-revoke]")
        if not button:
            return
        button.disabled = True
        try:
            await self.ctx.api.ok("DELETE", invitations_url(self.ws, button.dataset.inviteId))
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            button.disabled = False
            self.frame.say(f"Could not revoke the invitation: {describe(exc)}")
            return
        self.frame.say("Invitation revoked: its link no longer works.")
        await self._load_invitations()
