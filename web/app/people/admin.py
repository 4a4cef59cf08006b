"""The Users dialog for administrators: list, create, disable or enable, make or unmake admin."""

from __future__ import annotations

from app.api_model import describe
from app.dom import h
from app.latest_model import Latest
from app.people.dialog import Dialog, field, opener
from app.people.people_model import ADMIN_USERS_URL, admin_user_url, when


def users_button(ctx, shell):
    panel = UsersDialog(ctx, shell)
    return opener(shell, panel.frame, "users-open", "Users", panel.open, "Manage user accounts")


class UsersDialog:
    def __init__(self, ctx, shell) -> None:
        self.ctx = ctx
        self._reads = Latest()  # moved by each read: only the latest one's answer is drawn
        self.frame = frame = Dialog(shell, key="users-dialog", title="Users")
        self.username = h(
            "input",
            {
                "id": "user-new-username",
                "data-testid": "user-new-username",
                "required": True,
                "maxlength": "64",
                "autocomplete": "off",
                "autocapitalize": "none",
            },
        )
        self.password = h(
            "input",
            {
                "id": "user-new-password",
                "data-testid": "user-new-password",
                "type": "password",
                "required": True,
                "autocomplete": "new-password",
            },
        )
        self.admin = h(
            "input", {"id": "user-new-admin", "data-testid": "user-new-admin", "type": "checkbox"}
        )
        form = h(
            "form",
            {"class": "people-form", "aria-labelledby": "user-new-title"},
            h("h3", {"id": "user-new-title"}, "Add a user"),
            field("Username", self.username, "1–64 of a–z, 0–9, dot, underscore, hyphen."),
            field("Password", self.password, "At least 10 characters, not the username."),
            h(
                "div",
                {"class": "people-check"},
                self.admin,
                h("label", {"for": "user-new-admin"}, "Administrator"),
            ),
            h("button", {"type": "submit", "data-testid": "user-create"}, "Add user"),
        )
        self.rows = h("tbody", {"data-testid": "user-list"})
        frame.body.append(
            form,
            h(
                "table",
                {"class": "people-table"},
                h("caption", {}, "Accounts"),
                h(
                    "thead",
                    {},
                    h(
                        "tr",
                        {},
                        *[
                            h("th", {"scope": "col"}, label)
                            for label in ("User", "Created", "Status", "Actions")
                        ],
                    ),
                ),
                self.rows,
            ),
        )
        frame.listeners.on(form, "submit", self._on_create, prevent=True)
        frame.listeners.on(self.rows, "click", self._on_rows)

    async def open(self) -> None:
        self.frame.show()
        self.username.focus()
        await self._load()

    async def _load(self) -> None:
        latest = self._reads.start()
        try:
            answer = (await self.ctx.api.ok("GET", ADMIN_USERS_URL)).json() or {}
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            if latest():
                self.frame.say(f"Could not list the users: {describe(exc)}")
            return
        if not latest():  # read again (after a change) meanwhile
            return
        me = (self.ctx.user or {}).get("username")
        rows = []
        for user in answer.get("users", []):
            name = user["username"]
            admin, disabled = bool(user.get("admin")), bool(user.get("disabled"))
            status = ", ".join(
                word for word, on in (("administrator", admin), ("disabled", disabled)) if on
            )
            rows.append(
                h(
                    "tr",
                    {
                        "data-testid": "user-row",
                        "data-username": name,
                        "data-admin": "true" if admin else "false",
                        "data-disabled": "true" if disabled else "false",
                    },
                    h("th", {"scope": "row", "text": name + (" (you)" if name == me else "")}),
                    h("td", {"text": when(user.get("createdAt"))}),
                    h("td", {"text": status or "active"}),
                    h(
                        "td",
                        {"class": "people-actions"},
                        h(
                            "button",
                            {
                                "type": "button",
                                "class": "small" if disabled else "small danger",
                                "data-testid": "user-disable",
                                "data-username": name,
                                "data-value": "false" if disabled else "true",
                                "aria-label": f"{'Enable' if disabled else 'Disable'}: {name}",
                            },
                            "Enable" if disabled else "Disable",
                        ),
                        h(
                            "button",
                            {
                                "type": "button",
                                "class": "small",
                                "data-testid": "user-admin",
                                "data-username": name,
                                "data-value": "false" if admin else "true",
                                # The visible words first: a voice user says what they see.
                                "aria-label": (
                                    f"Remove admin: {name}" if admin else f"Make admin: {name}"
                                ),
                            },
                            "Remove admin" if admin else "Make admin",
                        ),
                    ),
                )
            )
        self.rows.replaceChildren(*rows)

    async def _on_create(self, event) -> None:
        body = {
            "username": self.username.value.strip(),
            "password": self.password.value,
            "admin": bool(self.admin.checked),
        }
        try:
            await self.ctx.api.ok("POST", ADMIN_USERS_URL, data=body)
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.frame.say(f"Could not add the user: {describe(exc)}")
            return
        self.username.value = ""
        self.password.value = ""
        self.admin.checked = False
        self.frame.say(f"{body['username']} can now sign in.")
        await self._load()

    async def _on_rows(self, event) -> None:
        button = event.target.closest("[data-testid=user-disable], [data-testid=user-admin]")
        if not button:
            return
        name = button.dataset.username
        what = "disabled" if button.dataset.testid == "user-disable" else "admin"
        value = button.dataset.value == "true"
        button.disabled = True
        try:
            await self.ctx.api.ok("PATCH", admin_user_url(name), data={what: value})
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            button.disabled = False
            self.frame.say(f"Could not change {name}: {describe(exc)}")
            return
        words = {
            ("disabled", True): f"{name} is disabled: their sign-ins have ended.",
            ("disabled", False): f"{name} can sign in again.",
            ("admin", True): f"{name} is now an administrator.",
            ("admin", False): f"{name} is no longer an administrator.",
        }
        self.frame.say(words[(what, value)])
        await self._load()
